#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_stall_matrix.sh - no TCP stall, small buffers or not
#
# The stall matrix of design.md invariant 3 and 5: for pasta and for passt
# (the namespace rig of tests/lib/passt.sh), with
#   - buffers at the default (kernel autotuning), and "small":
#     net.core.rmem_max = wmem_max = 212992 and the relay asking for that
#     much on its sockets (--tcp-rmem/--tcp-wmem, passt also --tap-rmem/
#     --tap-wmem), so that every buffer is locked small;
#   - MTU 65520 and 1500;
#   - namespace->host and host->namespace;
#   - 1 and 4 streams;
# one iperf3 run of $STALL_SECS (default 10) seconds per cell must have no
# one-second interval below 10 % of the run's median, and retransmitted
# segments below 0.1 % of the segments sent: nstat TcpRetransSegs over
# TcpOutSegs in both namespaces, plus the relay's own retransmissions
# toward the guest (its tcp counters, logged on SIGUSR1).
# Each buffer setting also moves 500 MiB each way with a sha256 check.
#
# The global sysctls are restored by the rig's cleanup stack, also when a
# test fails or the script is interrupted.
#
# Environment: STALL_SECS, STALL_BIG_SIZE, and, to run part of the matrix,
# STALL_BUFFERS ("default small"), STALL_MODES ("pasta passt"), STALL_MTUS
# ("65520 1500").

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SECS=${STALL_SECS:-10}
SMALL=212992
PORT=5201		# iperf3 server for namespace->host, host loopback
FWD=5202		# forwarded port for host->namespace (-t)
BIG=${STALL_BIG_SIZE:-500M}
LIMIT=120		# seconds for one 500 MiB transfer

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

GUEST=		# namespace the iperf3 guest side runs in

# start_relay() - (re)start the relay of a matrix row, guest ready
# $1: pasta or passt
# $2: default or small
# $3: MTU
start_relay() {
	local mode=$1 buf=$2 mtu=$3 opts=()

	[ "$buf" = small ] &&
		opts+=(--tcp-rmem "$SMALL" --tcp-wmem "$SMALL")

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

# retrans_counters() - print the relay's retransmissions toward the guest,
# then retransmitted and sent segments of the host namespace and of the
# guest, then the tail loss probes of both (shown, not held against the
# relay: rig_without_tlp()), on one line; nothing if the relay gives no
# counters
retrans_counters() {
	local rr

	rr=$(rig_relay_counter tcp retrans) || return 1
	echo "$rr $(rig_nstat "$RIG_HOSTNS" TcpRetransSegs)" \
	     "$(rig_nstat "$RIG_HOSTNS" TcpOutSegs)" \
	     "$(rig_nstat "$GUEST" TcpRetransSegs)" \
	     "$(rig_nstat "$GUEST" TcpOutSegs)" \
	     "$(rig_nstat "$RIG_HOSTNS" TcpExtTCPLossProbes)" \
	     "$(rig_nstat "$GUEST" TcpExtTCPLossProbes)"
}

# cell() - test: one iperf3 run, no stall, few retransmissions
# $1: "" (namespace->host) or -R (host->namespace)
# $2: parallel streams
cell() {
	local dir=$1 streams=$2 json=$RIG_TMP/cell.json srv cli_ns srv_ns
	local addr port rb0 ob0 rg0 og0 rb1 ob1 rg1 og1 rr0 rr1 med low retr out
	local pb0 pg0 pb1 pg1 tlp

	if [ "$dir" = -R ]; then
		# host->namespace through the tap: server in the guest, the
		# host connects to its own address, forwarded by -t
		srv_ns=$GUEST cli_ns=$RIG_HOSTNS addr=$RIG_ADDR4
		ip netns exec "$srv_ns" timeout -k 5 $((SECS + 30)) \
			iperf3 -s -1 -p "$FWD" >"$RIG_TMP/srv.log" 2>&1 &
		srv=$!
		rig_defer "rig_kill $srv"
		rig_wait_listen "$srv_ns" "$FWD" || return 1
		port=$FWD
	else
		srv_ns=$RIG_HOSTNS cli_ns=$GUEST addr=$RIG_GW4
		ip netns exec "$srv_ns" timeout -k 5 $((SECS + 30)) \
			iperf3 -s -1 -B 127.0.0.1 -p "$PORT" \
			>"$RIG_TMP/srv.log" 2>&1 &
		srv=$!
		rig_defer "rig_kill $srv"
		rig_wait_listen "$srv_ns" "$PORT" || return 1
		port=$PORT
	fi

	read -r rr0 rb0 ob0 rg0 og0 pb0 pg0 <<<"$(retrans_counters)"
	[ -n "$pg0" ] || rig_fail "no counters from the relay" || return 1

	ip netns exec "$cli_ns" timeout -k 5 $((SECS + 20)) \
		iperf3 -c "$addr" -p "$port" -t "$SECS" -i 1 -J \
		-P "$streams" --connect-timeout 5000 >"$json" 2>&1
	out=$(jq -r '.error // empty' "$json" 2>/dev/null)
	[ -z "$out" ] || rig_fail "iperf3: $out" || return 1

	read -r rr1 rb1 ob1 rg1 og1 pb1 pg1 <<<"$(retrans_counters)"
	[ -n "$pg1" ] || rig_fail "no counters from the relay" || return 1

	# Per-second rates of the whole run (all streams), full seconds only
	jq -r '.intervals[].sum | select(.seconds >= 0.5) |
	       .bits_per_second' "$json" | sort -g >"$RIG_TMP/rates"
	[ "$(wc -l <"$RIG_TMP/rates")" -ge "$SECS" ] ||
		rig_fail "only $(wc -l <"$RIG_TMP/rates") intervals" || return 1
	med=$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' \
		"$RIG_TMP/rates")
	low=$(head -1 "$RIG_TMP/rates")
	rig_log "Mbit/s per second: $(jq -r '[.intervals[].sum.bits_per_second
		/ 1e6 | floor | tostring] | join(" ")' "$json")"

	tlp=$(( (pb1 - pb0) + (pg1 - pg0) ))
	retr=$(( $(rig_without_tlp $(( (rb1 - rb0) + (rg1 - rg0) )) "$tlp") +
		 (rr1 - rr0) ))
	out=$(( (ob1 - ob0) + (og1 - og0) ))
	rig_log "median $(awk -v m="$med" 'BEGIN { printf "%d", m / 1e6 }')" \
		"Mbit/s, lowest second $(awk -v m="$low" \
		'BEGIN { printf "%d", m / 1e6 }') Mbit/s; retransmitted" \
		"$retr of $out segments (host $((rb1 - rb0)), guest" \
		"$((rg1 - rg0)), relay $((rr1 - rr0))), tail loss probes" \
		"$tlp (not counted)"

	awk -v l="$low" -v m="$med" 'BEGIN { exit !(l >= m / 10) }' ||
		rig_fail "a second at $(awk -v l="$low" \
			 'BEGIN { printf "%d", l / 1e6 }') Mbit/s, below 10 %" \
			 "of the median" || return 1
	[ "$out" -gt 0 ] && [ $((retr * 1000)) -lt "$out" ] ||
		rig_fail "$retr retransmitted segments of $out sent" \
			 "(0.1 % allowed)" || return 1
	rig_wait_pid "$srv" 10 >/dev/null
	return 0
}

# big() - test: 500 MiB each way, sha256
big() {
	rig_transfer "$GUEST" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$GUEST" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT"
}

DATA=$RIG_TMP/data
rig_random_file "$DATA" "$BIG" || exit 1

# The relay of the previous row is stopped before the next one starts
stop_relay() {
	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=
}

for buf in ${STALL_BUFFERS:-default small}; do
	if [ "$buf" = small ]; then
		rig_sysctl_set net.core.rmem_max "$SMALL" || exit 1
		rig_sysctl_set net.core.wmem_max "$SMALL" || exit 1
	fi
	for mode in ${STALL_MODES:-pasta passt}; do
		for mtu in ${STALL_MTUS:-65520 1500}; do
			row="$mode $buf buffers, MTU $mtu"
			stop_relay
			rig_run "$row: relay starts" \
				start_relay "$mode" "$buf" "$mtu"
			rig_relay_alive || continue
			for streams in 1 4; do
				rig_run "$row: ns->host, $streams stream(s)" \
					cell "" "$streams"
				rig_run "$row: host->ns, $streams stream(s)" \
					cell -R "$streams"
			done
			[ "$mtu" = 65520 ] &&
				rig_run "$row: $BIG each way sha256" big
		done
	done
done

rig_summary
