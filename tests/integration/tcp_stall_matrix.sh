#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_stall_matrix.sh - no TCP stall, small buffers or not
#
# The stall matrix of design.md invariant 3 and 5: for pasta and for passt
# (the namespace rig of tests/lib/passt.sh), with
#   - buffers at the default (kernel autotuning); "small":
#     net.core.rmem_max = wmem_max = 212992 and the relay asking for that
#     much on its sockets (--tcp-rmem/--tcp-wmem, passt also --tap-rmem/
#     --tap-wmem), so that every buffer is locked small; and "64k": the
#     relay's TCP sockets locked at 65536 bytes (--tcp-rmem/--tcp-wmem);
#   - MTU 65520 and 1500;
#   - namespace->host and host->namespace;
#   - 1 and 4 streams;
# one iperf3 run of STALL_SECS seconds (default 5) per cell, its rate
# taken every STALL_INTERVAL seconds (default 0.5), must have no stall
# interval (an interval below 10 % of the run's median), and
# retransmitted segments below 0.1 % of the segments sent: nstat
# TcpRetransSegs over TcpOutSegs in both namespaces, less tail loss
# probes and retransmissions the receiver reported as duplicates (D-SACK:
# reordering between the CPUs' backlog queues, see rig_without_tlp()),
# plus the relay's own retransmissions toward the guest (its tcp
# counters, logged on SIGUSR1).
# Each buffer setting also moves 500 MiB each way with a sha256 check.
#
# Why 5 s in intervals of 0.5 s (the matrix ran 10 s in seconds before):
# the same 10 samples, and the stall criterion catches at least what it
# caught. An interval below a tenth of the median is one in which the
# connection stood still for nine tenths of it, or as good as. A second
# below that has a half below it too (the halves' rates average to the
# second's; the medians are alike), so a run with a stall second has a
# stall interval. And a stall shows sooner: one of 0.95 s always fills
# nine tenths of some half second, wherever it falls (0.45 s if within
# one), where a stall had to last 1.9 s to be sure to show in seconds
# (0.9 s within one). Slow start on these links takes milliseconds, not
# half a second. What a 5 s run gives up: a stall that comes less than
# once in 5 s of transfer shows in fewer runs; make stress (tests/stress)
# runs the whole matrix for 10 s in seconds, five times under load. The
# retransmission criterion is a share of the segments sent: the same in a
# shorter run, where a fixed number of retransmissions weighs more.
#
# Under contention (RIG_CONTEND, tests/lib/contend.sh) the load itself can
# slow a second down, relay or not. So each cell is also run over a veth
# pair between two namespaces of the test, without a relay, with the same
# MTU, direction, streams and buffer sysctls, under the same load: the
# control. A stall interval fails the cell only where the control has
# none. Every cell prints a "# cell:" line (rates, stall intervals,
# retransmissions, the relay's forced window updates, the control's
# figures) that tests/stress collects into its table; a failing cell also
# shows the kernel's drop and probe counters of both ends and the relay's
# sequence state.
#
# The global sysctls are restored by the rig's cleanup stack, also when a
# test fails or the script is interrupted.
#
# Environment: STALL_SECS (whole seconds), STALL_INTERVAL (seconds, at
# least 0.1, as iperf3 -i), STALL_BIG_SIZE, and, to run part of the matrix,
# STALL_BUFFERS ("default small"; also "64k"), STALL_MODES ("pasta passt"),
# STALL_MTUS ("65520 1500"), STALL_CELLS (patterns of cell names, each
# MODE/BUFFERS/MTU/DIRECTION/STREAMS with DIRECTION ns-host or host-ns, and
# shell wildcards: "passt/default/65520/host-ns/4 pasta/*/1500/*/1"; the
# 500 MiB transfers run only if STALL_BIG=1 then), STALL_CONTROL (1: run
# the control even without contention, 0: never).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SECS=${STALL_SECS:-5}
INTERVAL=${STALL_INTERVAL:-0.5}
# Intervals in a run: iperf3's last one can be a little short
SAMPLES=$(rig_iperf_samples "$SECS" "$INTERVAL") || {
	echo "FAIL: prerequisites: STALL_SECS $SECS (whole seconds) or" \
	     "STALL_INTERVAL $INTERVAL (0.1 to STALL_SECS) invalid"
	exit 1
}
SMALL=212992
SIXTYFOUR=65536
PORT=5201		# iperf3 server for namespace->host, host loopback
FWD=5202		# forwarded port for host->namespace (-t)
BIG=${STALL_BIG_SIZE:-500M}
LIMIT=120		# seconds for one 500 MiB transfer
CTL_ADDR_A=198.51.100.1	# control: client end of the veth pair
CTL_ADDR_B=198.51.100.2	# control: server end

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

GUEST=		# namespace the iperf3 guest side runs in
CTL_A=		# control namespaces, made on first use
CTL_B=
declare -A CTL_RESULT	# control key -> "median stalls retr out"

case ${STALL_CONTROL:-} in
1)	ctl_wanted=1 ;;
0)	ctl_wanted= ;;
*)	contend_on && ctl_wanted=1 || ctl_wanted= ;;
esac

# cell_wanted() - is a cell selected by STALL_CELLS?
# $1: cell name MODE/BUFFERS/MTU/DIRECTION/STREAMS
cell_wanted() {
	local p

	[ -z "$STALL_CELLS" ] && return 0
	for p in $STALL_CELLS; do
		# shellcheck disable=SC2053 # $p is a pattern
		[[ $1 == $p ]] && return 0
	done
	return 1
}

# row_wanted() - is any cell of a row selected?
# $1: modes, $2: buffers, $3: MTUs (each a list)
row_wanted() {
	local m b u d s

	for m in $1; do for b in $2; do for u in $3; do
		for d in ns-host host-ns; do for s in 1 4; do
			cell_wanted "$m/$b/$u/$d/$s" && return 0
		done; done
	done; done; done
	return 1
}

# start_relay() - (re)start the relay of a matrix row, guest ready
# $1: pasta or passt
# $2: default, small or 64k
# $3: MTU
start_relay() {
	local mode=$1 buf=$2 mtu=$3 opts=()

	case $buf in
	small)	opts+=(--tcp-rmem "$SMALL" --tcp-wmem "$SMALL") ;;
	64k)	opts+=(--tcp-rmem "$SIXTYFOUR" --tcp-wmem "$SIXTYFOUR") ;;
	esac

	if [ "$mode" = pasta ]; then
		GUEST=$RIG_NS
		rig_relay_start fg -m "$mtu" -t "$FWD" "${opts[@]}" || return 1
		return 0
	fi

	[ "$buf" = small ] &&
		opts+=(--tap-rmem "$SMALL" --tap-wmem "$SMALL")
	[ -n "$PASST_BRIDGE_PID" ] && passt_guest_stop
	rig_ns_new GUEST g || return 1
	rig_persist
	passt_start fg "$RIG_TMP/passt.$RANDOM.sock" -m "$mtu" -t "$FWD" \
		"${opts[@]}" || return 1
	passt_guest_start "$GUEST" || return 1
	PASST_MTU=$mtu passt_guest_static "$GUEST" || return 1
}

# Kernel counters shown when a cell fails: drops, probes, timeouts
DIAG_COUNTERS="TcpExtTCPRcvQDrop TcpExtTCPZeroWindowDrop TcpExtTCPBacklogDrop
	TcpExtTCPOFODrop TcpExtTCPRcvPruned TcpExtPruneCalled
	TcpExtTCPWinProbe TcpExtTCPToZeroWindowAdv TcpExtTCPFromZeroWindowAdv
	TcpExtTCPTimeouts TcpExtTCPLossProbes TcpExtTCPSpuriousRTOs
	TcpExtTCPSackRecovery TcpExtTCPFastRetrans TcpExtBeyondWindow
	TcpExtTCPAbortOnData IpExtInNoRoutes TcpExtTCPSACKReorder
	TcpExtTCPDSACKRecv TcpExtTCPDSACKOldSent TcpExtTCPDSACKUndo
	TcpExtTCPLossUndo TcpExtTCPSpuriousRtxHostQueues TcpExtTCPOFOQueue"

# nstat_snapshot() - the diagnostic counters of a namespace, one per line
# $1: namespace
# $2: file to write
nstat_snapshot() {
	# shellcheck disable=SC2086 # a list of counter names
	ip netns exec "$1" nstat -asz $DIAG_COUNTERS 2>/dev/null |
		awk 'NF >= 2 && $1 !~ /^#/ { print $1, $2 }' >"$2"
}

# nstat_delta() - print the counters that changed between two snapshots
# $1: before
# $2: after
nstat_delta() {
	awk 'NR == FNR { v[$1] = $2; next }
	     $2 != v[$1] { printf "%s +%d ", $1, $2 - v[$1] }' "$1" "$2"
}

# link_drops() - drop counters of every link in a namespace, one line
# $1: namespace
#
# "ip -s -o link" prints "RX:" and "TX:" each followed by six column
# names, a "\" and then the values in the same order: dropped is the
# fourth value, 11 fields after the heading.
link_drops() {
	ip -n "$1" -s -o link show 2>/dev/null | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "RX:") rx = i
			if ($i == "TX:") tx = i
		}
		name = $2; sub(":", "", name)
		printf "%s rx_drop=%s tx_drop=%s ", name, $(rx + 11), $(tx + 11)
	}'
}

# sampler_start() - sample the connections of both ends every 0.5 s
# $1: file
# $2...: namespaces
# Sets SAMPLER_PID.
sampler_start() {
	local file=$1
	shift
	(
		while :; do
			echo "## $(date +%s.%N | cut -c1-14)"
			for ns in "$@"; do
				ip netns exec "$ns" ss -Htnmi state established
			done
			sleep 0.5
		done
	) >"$file" 2>&1 &
	SAMPLER_PID=$!
	rig_defer "rig_kill $SAMPLER_PID"
}

# iperf_run() - one iperf3 run, print "median lowest stalls" in bit/s
# $1: server namespace
# $2: client namespace
# $3: server address for the client
# $4: port
# $5: server bind address ("" for any)
# $6: "" (client sends) or -R (server sends)
# $7: parallel streams
# $8: JSON output file
# Prints nothing and sets RIG_WHY on failure. A stall interval is an
# interval below 10 % of the median.
iperf_run() {
	local srv_ns=$1 cli_ns=$2 addr=$3 port=$4 bind=$5 dir=$6 streams=$7
	local json=$8 srv out rates=$RIG_TMP/rates bopt=() ropt=()

	[ -n "$bind" ] && bopt=(-B "$bind")
	[ -n "$dir" ] && ropt=("$dir")
	ip netns exec "$srv_ns" timeout -k 5 $((SECS + 30)) \
		iperf3 -s -1 "${bopt[@]}" -p "$port" \
		>"$RIG_TMP/srv.log" 2>&1 &
	srv=$!
	rig_defer "rig_kill $srv"
	rig_wait_listen "$srv_ns" "$port" || return 1

	ip netns exec "$cli_ns" timeout -k 5 $((SECS + 20)) \
		iperf3 -c "$addr" -p "$port" -t "$SECS" -i "$INTERVAL" -J \
		"${ropt[@]}" -P "$streams" --connect-timeout 5000 \
		>"$json" 2>&1
	out=$(jq -r '.error // empty' "$json" 2>/dev/null)
	[ -z "$out" ] || rig_fail "iperf3: $out" || return 1
	rig_wait_pid "$srv" 10 >/dev/null

	# Rates of the whole run (all streams) per interval, leaving out a
	# last one shorter than half an interval
	jq -r --argjson half "$(awk -v i="$INTERVAL" 'BEGIN { print i / 2 }')" \
	       '.intervals[].sum | select(.seconds >= $half) |
	       .bits_per_second' "$json" | sort -g >"$rates"
	[ "$(wc -l <"$rates")" -ge "$SAMPLES" ] ||
		rig_fail "only $(wc -l <"$rates") intervals" || return 1
	awk '{ v[NR] = $1 }
	     END { m = v[int((NR + 1) / 2)]
		   for (i = 1; i <= NR; i++) s += (v[i] < m / 10)
		   printf "%.0f %.0f %d\n", m, v[1], s }' "$rates"
}

# per_second() - the rates of a run per interval in Mbit/s, one line
# $1: iperf3 JSON file
per_second() {
	jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor | tostring] |
	       join(" ")' "$1"
}

# ctl_setup() - the control's veth pair, made once; MTU set per run
# $1: MTU
ctl_setup() {
	if [ -z "$CTL_A" ]; then
		rig_ns_new CTL_A ca || return 1
		rig_ns_new CTL_B cb || return 1
		rig_persist
		ip -n "$CTL_A" link add veth0 type veth peer name veth0 \
			netns "$CTL_B" &&
		ip -n "$CTL_A" addr add "$CTL_ADDR_A/24" dev veth0 &&
		ip -n "$CTL_B" addr add "$CTL_ADDR_B/24" dev veth0 &&
		ip -n "$CTL_A" link set veth0 up &&
		ip -n "$CTL_B" link set veth0 up || return 1
	fi
	ip -n "$CTL_A" link set veth0 mtu "$1" &&
		ip -n "$CTL_B" link set veth0 mtu "$1"
}

# ctl_counters() - retransmitted and sent segments, tail loss probes and
# D-SACKs received, of both control namespaces, on one line
ctl_counters() {
	local k sum

	for k in TcpRetransSegs TcpOutSegs TcpExtTCPLossProbes \
		 TcpExtTCPDSACKRecv; do
		sum=$(( $(rig_nstat "$CTL_A" "$k") + $(rig_nstat "$CTL_B" "$k") ))
		printf '%s ' "$sum"
	done
	echo
}

# control() - the control of a cell: same iperf3 run over a veth pair
# $1: buffers, $2: MTU, $3: "" or -R, $4: streams
# Stores "median stalls retransmitted sent" in CTL_RESULT, once per key;
# retransmissions as for the relay's cells: tail loss probes and those
# reported as duplicates not counted (rig_without_tlp()).
control() {
	local key="$1/$2/$3/$4" r0 o0 p0 s0 r1 o1 p1 s1 res
	local json=$RIG_TMP/ctl.json

	[ -n "${CTL_RESULT[$key]}" ] && return 0
	ctl_setup "$2" || rig_fail "can't set up the control's veth pair" ||
		return 1
	read -r r0 o0 p0 s0 <<<"$(ctl_counters)"
	res=$(iperf_run "$CTL_B" "$CTL_A" "$CTL_ADDR_B" "$PORT" "" "$3" "$4" \
		"$json") || return 1
	read -r r1 o1 p1 s1 <<<"$(ctl_counters)"
	read -r med _ stalls <<<"$res"
	CTL_RESULT[$key]="$med $stalls $(rig_without_tlp $((r1 - r0)) \
		$((p1 - p0)) $((s1 - s0))) $((o1 - o0))"
	rig_log "control (veth) $key: Mbit/s per $INTERVAL s: $(per_second "$json");" \
		"retransmitted $((r1 - r0)), tail loss probes $((p1 - p0))," \
		"duplicates reported (D-SACK) $((s1 - s0))"
}

# retrans_counters() - print the relay's retransmissions toward the guest
# and its forced window updates, then retransmitted and sent segments of
# the host namespace and of the guest, then the tail loss probes of both
# and the D-SACKs both received (shown, not held against the relay:
# rig_without_tlp()), on one line; nothing if the relay gives no counters
retrans_counters() {
	local rr wf

	read -r rr wf <<<"$(rig_relay_counters tcp retrans wnd_forced)"
	[ -n "$wf" ] || return 1
	echo "$rr $wf $(rig_nstat "$RIG_HOSTNS" TcpRetransSegs)" \
	     "$(rig_nstat "$RIG_HOSTNS" TcpOutSegs)" \
	     "$(rig_nstat "$GUEST" TcpRetransSegs)" \
	     "$(rig_nstat "$GUEST" TcpOutSegs)" \
	     "$(rig_nstat "$RIG_HOSTNS" TcpExtTCPLossProbes)" \
	     "$(rig_nstat "$GUEST" TcpExtTCPLossProbes)" \
	     "$(rig_nstat "$RIG_HOSTNS" TcpExtTCPDSACKRecv)" \
	     "$(rig_nstat "$GUEST" TcpExtTCPDSACKRecv)"
}

# softnet_drops() - packets each CPU's backlog queue dropped, since boot
# (cell_diagnose() prints the difference over the cell)
softnet_drops() {
	local _ dropped _rest

	while read -r _ dropped _rest; do
		printf '%d ' "0x$dropped"
	done </proc/net/softnet_stat
}

# softnet_delta() - per-CPU differences of two softnet_drops() lines
# $1: before
# $2: after
softnet_delta() {
	local -a a b
	local i

	read -r -a a <<<"$1"
	read -r -a b <<<"$2"
	for i in "${!b[@]}"; do
		printf '%d ' "$(( b[i] - ${a[i]:-0} ))"
	done
}

# cell_diagnose() - why a cell failed: counters, links, relay, samples
# $1: directory with the snapshots and samples of the cell
cell_diagnose() {
	local d=$1

	nstat_snapshot "$RIG_HOSTNS" "$d/h1"
	nstat_snapshot "$GUEST" "$d/g1"
	rig_log "host namespace counters: $(nstat_delta "$d/h0" "$d/h1")"
	rig_log "guest namespace counters: $(nstat_delta "$d/g0" "$d/g1")"
	rig_log "links: host $(link_drops "$RIG_HOSTNS"); guest" \
		"$(link_drops "$GUEST")"
	rig_log "relay: $(grep 'tcp: conns' "$RIG_RELAY_LOG" | tail -1)"
	grep -E '^(tap|qdisc|net): [a-z_]+=' "$RIG_RELAY_LOG" | tail -3 |
		rig_indent
	grep 'tcp: flow' "$RIG_RELAY_LOG" | tail -4 | rig_indent
	rig_log "softnet drops per CPU during the cell: $(softnet_delta \
		"$(cat "$d/softnet0")" "$(softnet_drops)")"
	rig_log "ss samples of both ends: $d/samples (RIG_KEEP=1 keeps them)"
	[ -n "$RIG_VERBOSE" ] && rig_indent <"$d/samples"
}

# cell() - test: one iperf3 run, no stall, few retransmissions
# $1: cell name (for the "# cell:" line)
# $2: buffers, $3: MTU (for the control)
# $4: "" (namespace->host) or -R (host->namespace)
# $5: parallel streams
cell() {
	local name=$1 buf=$2 mtu=$3 dir=$4 streams=$5 json=$RIG_TMP/cell.json
	local d=$RIG_TMP/cell.$RANDOM srv_ns cli_ns addr port bind res
	local rr0 wf0 rb0 ob0 rg0 og0 pb0 pg0 sb0 sg0 rr1 wf1 rb1 ob1 rg1 og1 pb1 pg1
	local sb1 sg1 dsack
	local med low stalls tlp retr out cmed=- cstalls=- cretr=- cout=-
	local stall='' retrans='' note=''

	if [ -n "$ctl_wanted" ]; then
		control "$buf" "$mtu" "$dir" "$streams" || return 1
		read -r cmed cstalls cretr cout <<<"${CTL_RESULT[$buf/$mtu/$dir/$streams]}"
	fi

	if [ "$dir" = -R ]; then
		# host->namespace through the tap: server in the guest, the
		# host connects to its own address, forwarded by -t
		srv_ns=$GUEST cli_ns=$RIG_HOSTNS addr=$RIG_ADDR4 port=$FWD bind=
	else
		srv_ns=$RIG_HOSTNS cli_ns=$GUEST addr=$RIG_GW4 port=$PORT
		bind=127.0.0.1
	fi

	mkdir -p "$d"
	read -r rr0 wf0 rb0 ob0 rg0 og0 pb0 pg0 sb0 sg0 \
		<<<"$(retrans_counters)"
	[ -n "$sg0" ] || rig_fail "no counters from the relay" || return 1
	nstat_snapshot "$RIG_HOSTNS" "$d/h0"
	nstat_snapshot "$GUEST" "$d/g0"
	softnet_drops >"$d/softnet0"
	sampler_start "$d/samples" "$RIG_HOSTNS" "$GUEST"

	res=$(iperf_run "$srv_ns" "$cli_ns" "$addr" "$port" "$bind" "$dir" \
		"$streams" "$json") || return 1
	rig_kill "$SAMPLER_PID"
	read -r med low stalls <<<"$res"

	read -r rr1 wf1 rb1 ob1 rg1 og1 pb1 pg1 sb1 sg1 \
		<<<"$(retrans_counters)"
	[ -n "$sg1" ] || rig_fail "no counters from the relay" || return 1

	rig_log "Mbit/s per $INTERVAL s: $(per_second "$json")"
	tlp=$(( (pb1 - pb0) + (pg1 - pg0) ))
	dsack=$(( (sb1 - sb0) + (sg1 - sg0) ))
	retr=$(( $(rig_without_tlp $(( (rb1 - rb0) + (rg1 - rg0) )) "$tlp" \
		   "$dsack") + (rr1 - rr0) ))
	out=$(( (ob1 - ob0) + (og1 - og0) ))
	rig_log "median $((med / 1000000)) Mbit/s, lowest interval" \
		"$((low / 1000000)) Mbit/s, $stalls stall interval(s) of" \
		"$INTERVAL s;" \
		"retransmitted $retr of $out segments (host $((rb1 - rb0))," \
		"guest $((rg1 - rg0)), relay $((rr1 - rr0))), tail loss" \
		"probes $tlp, duplicates reported (D-SACK) $dsack (the larger" \
		"not counted); window updates forced by the relay:" \
		"$((wf1 - wf0))"

	# A stall interval counts against the relay where the control had none
	if [ "$stalls" -gt 0 ]; then
		if [ "$cstalls" = - ] || [ "$cstalls" -eq 0 ]; then
			stall=1
		else
			note=" (the control stalled too: the load, not counted)"
		fi
	fi
	[ "$out" -gt 0 ] && [ $((retr * 1000)) -lt "$out" ] || retrans=1
	echo "# cell: $name | median $((med / 1000000)) low $((low / 1000000))" \
	     "stalls $stalls retr $retr/$out wnd_forced $((wf1 - wf0))" \
	     "| control median $((${cmed/-/0} / 1000000)) stalls $cstalls" \
	     "retr $cretr/$cout |${stall:+ stall}${retrans:+ retrans}$note"

	[ -z "$stall$retrans" ] && return 0
	cell_diagnose "$d"
	[ -z "$stall" ] ||
		rig_fail "$stalls interval(s) of $INTERVAL s below 10 % of" \
			 "the median (lowest" \
			 "$((low / 1000000)) Mbit/s), the control had none" ||
		return 1
	rig_fail "$retr retransmitted segments of $out sent (0.1 % allowed)"
}

# big() - test: 500 MiB each way, sha256
big() {
	rig_transfer "$GUEST" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$GUEST" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT"
}

# The relay of the previous row is stopped before the next one starts
stop_relay() {
	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=
}

do_big=1
[ -n "$STALL_CELLS" ] && [ "${STALL_BIG:-0}" != 1 ] && do_big=
if [ -n "$do_big" ]; then
	DATA=$RIG_TMP/data
	rig_random_file "$DATA" "$BIG" || exit 1
fi

MODES=${STALL_MODES:-pasta passt}
MTUS=${STALL_MTUS:-65520 1500}
# "small" lowers net.core.rmem_max/wmem_max for the rest of the run (the
# rig restores them at the end): it comes after "default"
for buf in ${STALL_BUFFERS:-default small}; do
	row_wanted "$MODES" "$buf" "$MTUS" || continue
	if [ "$buf" = small ]; then
		rig_sysctl_set net.core.rmem_max "$SMALL" || exit 1
		rig_sysctl_set net.core.wmem_max "$SMALL" || exit 1
	fi
	for mode in $MODES; do
		for mtu in $MTUS; do
			row_wanted "$mode" "$buf" "$mtu" || continue
			row="$mode $buf buffers, MTU $mtu"
			stop_relay
			rig_run "$row: relay starts" \
				start_relay "$mode" "$buf" "$mtu"
			rig_relay_alive || continue
			for streams in 1 4; do
				n="$mode/$buf/$mtu/ns-host/$streams"
				cell_wanted "$n" &&
				rig_run "$row: ns->host, $streams stream(s)" \
					cell "$n" "$buf" "$mtu" "" "$streams"
				n="$mode/$buf/$mtu/host-ns/$streams"
				cell_wanted "$n" &&
				rig_run "$row: host->ns, $streams stream(s)" \
					cell "$n" "$buf" "$mtu" -R "$streams"
			done
			[ "$mtu" = 65520 ] && [ -n "$do_big" ] &&
				rig_run "$row: $BIG each way sha256" big
		done
	done
done

rig_summary
