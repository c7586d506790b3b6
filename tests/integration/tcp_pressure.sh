#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_pressure.sh - MSG_TRUNC window and wmem pacing
#
# Two behaviours of design.md, end to end, for pasta and for passt (the
# namespace rig of tests/lib/passt.sh), with the kernel's default buffers
# and with small ones (--tcp-rmem/--tcp-wmem): "small" is 64 KiB, "212992"
# the default net.core.rmem_max/wmem_max (not in the default run; PRESSURE_
# BUFFERS selects, e.g. "default small 212992", and PRESSURE_MODES "pasta
# passt"):
#
#   MSG_TRUNC window (invariant 3), host -> guest: a host sender writes
#   64 MiB to a guest that reads slowly (4 KiB every 100 ms), so the
#   relay's host socket fills with data the guest has not acknowledged and
#   the sender finds a closed window (checked: its socket has data queued
#   and its peer's window below one segment). Then the guest drains at
#   full speed. The relay drops what the guest acknowledges with
#   recv(MSG_TRUNC), the host socket's window must reopen by itself, and
#   the sender resumes without waiting for its zero-window probe timer:
#   the transfer completes, the sender sent at most one window probe after
#   the drain started (its probe timer has backed off to seconds by then,
#   so a window that did not reopen by itself would show as probes, or as
#   no progress), and the bytes match.
#
#   wmem pacing (invariant 5), guest -> host: the host receiver does not
#   read at all for 3 s, then drains. The window the guest sees must never
#   exceed the relay's host socket send buffer (sampled with ss in both
#   namespaces), the guest's zero-window probes are answered (the relay's
#   probes_acked counter grows with the guest's TcpExtTCPWinProbe), the
#   relay never takes data the socket refuses (its overrun counter stays 0)
#   and the guest retransmits nothing; the transfer completes, bytes match.
#
# Each MSG_TRUNC case prints a "# case:" line (window probes after the
# drain, the relay's forced window updates) that tests/stress collects.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

FWD=10011		# forwarded port, host -> guest
PORT=7011		# host loopback port, guest -> host
SIZE=64M
SMALL=65536		# relay socket buffers in the "small" rows
SLOW_STEP=4096		# bytes the slow reader takes every 100 ms
HOLD=3			# seconds of slow or no reading before the drain
LIMIT=60		# seconds for a transfer, as a hang detector

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data
rig_random_file "$DATA" "$SIZE" || exit 1

# The reader: slow (or stopped) until the go file exists, then full speed
READER=$RIG_TMP/reader.sh
cat >"$READER" <<'EOS'
#!/bin/bash
# $1: go file, $2: bytes to take every 100 ms until then (0: none)
while [ ! -e "$1" ]; do
	if [ "$2" -gt 0 ]; then
		dd bs="$2" count=1 iflag=fullblock status=none || exit 1
	fi
	sleep 0.1
done
exec cat
EOS
chmod +x "$READER"

GUEST=		# namespace of the guest side

# start_relay() - (re)start the relay for a row of tests
# $1: pasta or passt
# $2: default, small (64 KiB) or a size in bytes
start_relay() {
	local mode=$1 opts=() size=$2

	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=
	[ "$size" = small ] && size=$SMALL
	[ "$size" != default ] &&
		opts+=(--tcp-rmem "$size" --tcp-wmem "$size")

	if [ "$mode" = pasta ]; then
		GUEST=$RIG_NS
		rig_relay_start fg -t "$FWD" "${opts[@]}"
		return
	fi
	[ -n "$PASST_BRIDGE_PID" ] && passt_guest_stop
	rig_ns_new GUEST g || return 1
	rig_persist
	passt_start fg "$RIG_TMP/passt.$RANDOM.sock" -t "$FWD" \
		"${opts[@]}" || return 1
	passt_guest_start "$GUEST" || return 1
	passt_guest_static "$GUEST"
}

# slow_server() - start a receiver that reads slowly until a go file exists
# $1: namespace
# $2: socat listen address
# $3: bytes per 100 ms while slow (0: stopped)
# $4: go file
# $5: file for the received data's sha256
# Sets RIG_BG_PID.
slow_server() {
	ip netns exec "$1" timeout -k 5 $((LIMIT + HOLD + 20)) \
		bash -o pipefail -c "socat -u '$2,reuseaddr' STDOUT |
			'$READER' '$4' '$3' | sha256sum | cut -d' ' -f1" \
		>"$5" &
	RIG_BG_PID=$!
	rig_defer "rig_kill $RIG_BG_PID"
}

# start_sender() - start sending $DATA in the background
# $1: namespace
# $2: socat connect address
# Sets RIG_BG_PID.
start_sender() {
	ip netns exec "$1" timeout -k 5 $((LIMIT + HOLD + 10)) \
		socat -u "FILE:$DATA" "$2" &
	RIG_BG_PID=$!
	rig_defer "rig_kill $RIG_BG_PID"
}

# sock_field() - a field of ss -tni for the connection to a port
# $1: namespace
# $2: destination port
# $3: field (snd_wnd, or sendq for the Send-Q column)
#
# Prints nothing without such a connection; ss leaves out fields that are
# zero (snd_wnd:0 is not shown), so a missing field prints 0.
sock_field() {
	ip netns exec "$1" ss -Htni state established "dport = :$2" |
		awk -v f="$3" '
		NR == 1 && f == "sendq" { print $2; exit }
		{ seen = 1
		  for (i = 1; i <= NF; i++)
			if (index($i, f ":") == 1) {
				print substr($i, length(f) + 2); exit
			} }
		END { if (seen && f != "sendq") print 0 }' | head -1
}

# wait_sender() - wait for a sender to finish, check the received sha256
# $1: sender PID
# $2: receiver PID
# $3: file with the received data's sha256
wait_sender() {
	local rc

	if ! rig_poll "$LIMIT" rig_exited "$1"; then
		rig_sockets "$RIG_HOSTNS" "$GUEST"
		rig_fail "sender still running $LIMIT s after the drain" ||
			return 1
	fi
	wait "$1"
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "sender exited with status $rc" || return 1
	rig_wait_pid "$2" 20 || rig_fail "receiver did not finish" || return 1
	[ "$(cat "$3")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch: received $(cut -c1-12 "$3")..." ||
		return 1
}

# trunc_window() - test: host sender blocked, guest drains, sender resumes
# $1: case name for the "# case:" line
trunc_window() {
	local go=$RIG_TMP/go.$RANDOM sum=$RIG_TMP/sum.$RANDOM recv snd
	local i wnd q blocked=0 mss=65483 p0 p1 f0 f1 t0 t1

	slow_server "$GUEST" "TCP4-LISTEN:$FWD" "$SLOW_STEP" "$go" "$sum"
	recv=$RIG_BG_PID
	rig_wait_listen "$GUEST" "$FWD" || return 1

	start_sender "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD"
	snd=$RIG_BG_PID

	# The sender's socket: data queued, the window closed (below one
	# segment); loopback segments in the host namespace are 64 KiB
	for i in $(seq $((HOLD * 4))); do
		sleep 0.25
		wnd=$(sock_field "$RIG_HOSTNS" "$FWD" snd_wnd)
		q=$(sock_field "$RIG_HOSTNS" "$FWD" sendq)
		[ -n "$wnd" ] && [ -n "$q" ] && [ "$q" -gt 0 ] &&
			[ "$wnd" -lt "$mss" ] && blocked=$((blocked + 1))
	done
	rig_log "sender blocked in $blocked of $((HOLD * 4)) samples;" \
		"last: window $wnd, $q bytes queued"
	[ "$blocked" -gt 0 ] ||
		rig_fail "the sender was never blocked by a closed window" \
			 "(last: window $wnd, send queue $q)" || return 1

	p0=$(rig_nstat "$RIG_HOSTNS" TcpExtTCPWinProbe)
	f0=$(rig_relay_counter tcp wnd_forced)
	t0=$(rig_now_ms)
	touch "$go"
	wait_sender "$snd" "$recv" "$sum" || return 1
	t1=$(rig_now_ms)
	p1=$(rig_nstat "$RIG_HOSTNS" TcpExtTCPWinProbe)
	f1=$(rig_relay_counter tcp wnd_forced)
	rig_log "window probes by the sender after the drain began:" \
		"$((p1 - p0)); window updates forced by the relay:" \
		"$((${f1:-0} - ${f0:-0}))"
	echo "# case: $1 | probes $((p1 - p0)) wnd_forced" \
	     "$((${f1:-0} - ${f0:-0})) drain $(rig_secs $((t1 - t0))) s"
	[ $((p1 - p0)) -le 1 ] ||
		rig_fail "the sender needed $((p1 - p0)) window probes to" \
			 "resume: the window did not reopen by itself" ||
		return 1
}

# pacing_counters() - print the relay's overrun and probes_acked counters,
# then the guest's retransmitted and sent segments, window probes and tail
# loss probes (shown, not held against the relay: rig_without_tlp()), on
# one line; nothing if the relay gives no counters
pacing_counters() {
	local ov a

	ov=$(rig_relay_counter tcp overrun) &&
	a=$(rig_relay_counter tcp probes_acked) || return 1
	echo "$ov $a $(rig_nstat "$GUEST" TcpRetransSegs)" \
	     "$(rig_nstat "$GUEST" TcpOutSegs)" \
	     "$(rig_nstat "$GUEST" TcpExtTCPWinProbe)" \
	     "$(rig_nstat "$GUEST" TcpExtTCPLossProbes)"
}

# wmem_pacing() - test: guest writes paced by the host socket's free buffer
wmem_pacing() {
	local go=$RIG_TMP/go.$RANDOM sum=$RIG_TMP/sum.$RANDOM recv snd
	local i wnd tb max_wnd=0 min_tb='' r0 r1 o0 o1 w0 w1 a0 a1 ov0 ov1
	local p0 p1 retr

	slow_server "$RIG_HOSTNS" "TCP4-LISTEN:$PORT,bind=127.0.0.1" 0 \
		"$go" "$sum"
	recv=$RIG_BG_PID
	rig_wait_listen "$RIG_HOSTNS" "$PORT" || return 1

	read -r ov0 a0 r0 o0 w0 p0 <<<"$(pacing_counters)"
	[ -n "$p0" ] || rig_fail "no counters from the relay" || return 1

	start_sender "$GUEST" "TCP4:$RIG_GW4:$PORT"
	snd=$RIG_BG_PID

	# Window seen by the guest against the relay's send buffer (skmem
	# tb of the relay's socket, the one connected to the port)
	for i in $(seq $((HOLD * 4))); do
		sleep 0.25
		wnd=$(sock_field "$GUEST" "$PORT" snd_wnd)
		tb=$(ip netns exec "$RIG_HOSTNS" ss -Htnm state established \
			"dport = :$PORT" | grep -o 'tb[0-9]*' | head -1)
		tb=${tb#tb}
		{ [ -n "$wnd" ] && [ -n "$tb" ]; } || continue
		[ "$wnd" -gt "$max_wnd" ] && max_wnd=$wnd
		[ -z "$min_tb" ] || [ "$tb" -lt "$min_tb" ] && min_tb=$tb
		[ "$wnd" -le "$tb" ] ||
			rig_fail "the guest saw a window of $wnd bytes, the" \
				 "relay's send buffer is $tb" || return 1
	done
	[ -n "$min_tb" ] ||
		rig_fail "no sample of the connection's sockets" || return 1
	rig_log "largest window seen by the guest $max_wnd, relay send" \
		"buffer $min_tb or more"

	touch "$go"
	wait_sender "$snd" "$recv" "$sum" || return 1

	read -r ov1 a1 r1 o1 w1 p1 <<<"$(pacing_counters)"
	[ -n "$p1" ] || rig_fail "no counters from the relay" || return 1
	retr=$(rig_without_tlp $((r1 - r0)) $((p1 - p0)))
	rig_log "guest: $((w1 - w0)) window probes, relay answered" \
		"$((a1 - a0)); guest retransmitted $((r1 - r0)) of" \
		"$((o1 - o0)) segments ($((p1 - p0)) tail loss probes);" \
		"relay overrun $((ov1 - ov0)) bytes"

	[ $((ov1 - ov0)) -eq 0 ] ||
		rig_fail "the relay took $((ov1 - ov0)) bytes its socket" \
			 "refused (overrun)" || return 1
	[ $((w1 - w0)) -gt 0 ] ||
		rig_fail "the guest never probed a zero window: the" \
			 "reader's stop did not reach it" || return 1
	[ $((a1 - a0)) -ge $((w1 - w0)) ] ||
		rig_fail "the relay answered $((a1 - a0)) of the guest's" \
			 "$((w1 - w0)) window probes" || return 1
	[ $((retr * 1000)) -le $((o1 - o0)) ] ||
		rig_fail "the guest retransmitted $retr of $((o1 - o0))" \
			 "segments (not counting tail loss probes)" || return 1
}

# clamp_reported() - test: sizes beyond net.core.*mem_max are reported once
clamp_reported() {
	local rmax wmax n msg

	rmax=$(sysctl -n net.core.rmem_max) &&
	wmax=$(sysctl -n net.core.wmem_max) || return 1
	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	rig_relay_start fg --tcp-rmem $((rmax * 2)) \
		--tcp-wmem $((wmax * 2)) || return 1
	for n in 1 2 3; do
		rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:$PORT" "$RIG_HOSTNS" \
			"TCP4-LISTEN:$PORT,bind=127.0.0.1" "$SMALLDATA" 20 ||
			return 1
	done
	for msg in "--tcp-rmem $((rmax * 2)): the kernel limits socket" \
		   "buffers to $rmax bytes (raise net.core.rmem_max" \
		   "--tcp-wmem $((wmax * 2)): the kernel limits socket" \
		   "buffers to $wmax bytes (raise net.core.wmem_max"; do
		n=$(grep -cF -- "$msg" "$RIG_RELAY_LOG")
		[ "$n" = 1 ] ||
			rig_fail "\"$msg\" $n times in the log, expected" \
				 "once" || return 1
	done
}

SMALLDATA=$RIG_TMP/small
rig_random_file "$SMALLDATA" 1M || exit 1

for mode in ${PRESSURE_MODES:-pasta passt}; do
	for buf in ${PRESSURE_BUFFERS:-default small}; do
		row="$mode, $buf buffers"
		rig_run "$row: relay starts" start_relay "$mode" "$buf"
		rig_relay_alive || continue
		rig_run "$row: MSG_TRUNC window reopens, sender resumes" \
			trunc_window "$mode/$buf"
		rig_run "$row: guest paced by free send buffer, probes answered" \
			wmem_pacing
	done
done
[ -z "$PRESSURE_MODES$PRESSURE_BUFFERS" ] &&
	rig_run "sizes beyond net.core.rmem_max/wmem_max reported once" \
		clamp_reported
rig_summary
