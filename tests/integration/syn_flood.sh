#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/syn_flood.sh - SYN flood from the guest
#
# Rig (tests/lib/rig.sh): pasta in the foreground in a host namespace of
# our own, with its default flow table (8192 entries).
#
# While a 200 MiB transfer runs from the namespace to the host's loopback
# (shaped with tbf on the host namespace's loopback so that it outlasts
# the flood), tests/tools/frame_storm --syn-flood sends SYN_N SYNs on the
# namespace's tap device, from random addresses of 192.0.2.0/24 and random
# ports, half to a closed host port, half to a host port whose listener
# never accepts (its backlog fills, so the relay's connect() calls hang).
# Every such SYN takes a flow and a socket until the handshake times out
# or the relay evicts the oldest half-open connection to make room. The
# test passes if:
#   - the transfer completes with the right SHA-256 and the relay runs;
#   - right after the flood, a new connection and a 1 MiB transfer work;
#   - the flood's half-open connections go away: within DRAIN_S seconds
#     the relay's count of active connections falls below a tenth of what
#     it was right after the flood (connect() in progress times out after
#     30 s, TCP_CONNECT_TIMEOUT_MS; a SYN-ACK the guest never acknowledges
#     is retransmitted for 127 s in all, and some of those remain: the
#     listener's backlog took their host connections, how many depends on
#     the run, 150 to 500 of some 8000).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

SIZE=${BULK_SIZE:-200M}
SYN_N=${SYN_N:-50000}
SYN_PPS=${SYN_PPS:-12500}
SHAPE_RATE=${SYN_SHAPE:-250mbit}
LIMIT=60
DRAIN_S=40
DRAIN_SHARE=10		# active connections must fall below 1/DRAIN_SHARE
FLOOD_ACTIVE=		# active connections right after the flood
PORT_CLOSED=7300
PORT_OPEN=7301
PORT_HOLD=7100
SEED=${SYN_SEED:-$RANDOM}

rig_init
STORM=$TOOLS_DIR/frame_storm
HOLD=$TOOLS_DIR/tcp_hold
for t in "$STORM" "$HOLD"; do
	if [ ! -x "$t" ]; then
		echo "FAIL: prerequisites: $t not built (run make tools)"
		exit 1
	fi
done
rig_need tc || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1
DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1

declare -A CNT

# stats_read() - make the relay log its counters, load them into CNT
stats_read() {
	local before line kv

	before=$(grep -c 'tcp: conns_out=' "$RIG_RELAY_LOG")
	kill -USR1 "$RIG_RELAY_PID" || return 1
	rig_poll 5 eval "[ \$(grep -c 'tcp: conns_out=' '$RIG_RELAY_LOG') \
			   -gt $before ]" ||
		rig_fail "no counters in the log 5 s after SIGUSR1" || return 1
	CNT=()
	line=$(grep 'tcp: conns_out=' "$RIG_RELAY_LOG" | tail -n 1)
	for kv in ${line#*: }; do
		case $kv in
		*=*) CNT[${kv%%=*}]=${kv#*=} ;;
		esac
	done
}

# active_below() - check the relay's active connection count
# $1: bound
active_below() {
	stats_read && [ "${CNT[active]}" -lt "$1" ]
}

# relay_up() - test: pasta, listeners on the host side
relay_up() {
	rig_relay_start fg -t none || return 1
	TAP=$(ip -n "$RIG_NS" -o link show | awk -F': ' \
	      '$2 != "lo" { print $2; exit }')
	TAP=${TAP%@*}
	[ -n "$TAP" ] || rig_fail "no tap device in $RIG_NS" || return 1
	ip netns exec "$RIG_HOSTNS" "$HOLD" listen -N -b 128 127.0.0.1 \
		"$PORT_OPEN" &
	rig_defer "rig_kill $!"
	ip netns exec "$RIG_HOSTNS" "$HOLD" listen 127.0.0.1 "$PORT_HOLD" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$PORT_OPEN" &&
		rig_wait_listen "$RIG_HOSTNS" "$PORT_HOLD"
}

# flood() - test: transfer during the flood, then a new connection
flood() {
	local sum=$RIG_TMP/flood.sha snd rcv out t0 ms d0

	rig_shape_loopback "$SHAPE_RATE" || return 1

	rig_tcp_recv_sha "$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$sum" $((LIMIT + 20))
	rcv=$RIG_BG_PID
	rig_wait_listen "$RIG_HOSTNS" 7001 || return 1
	ip netns exec "$RIG_NS" timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"TCP4:$RIG_GW4:7001,connect-timeout=5" 2>"$RIG_TMP/snd.err" &
	snd=$!
	rig_defer "rig_kill $snd"
	sleep 0.5

	d0=$(ip netns exec "$RIG_NS" cat "/sys/class/net/$TAP/statistics/tx_dropped")
	out=$(ip netns exec "$RIG_NS" "$STORM" --syn-flood -n "$SYN_N" \
		-r "$SYN_PPS" -s "$SEED" --ports "$PORT_CLOSED,$PORT_OPEN" \
		"$TAP" 2>&1)
	rig_log "$out"
	case $out in
	*"frame_storm: sent=$SYN_N "*) ;;
	*) rig_fail "frame_storm failed: $out"; return 1 ;;
	esac
	if rig_exited "$snd"; then
		rig_fail "the transfer ended before the flood did (lower" \
			 "SYN_SHAPE)"
		return 1
	fi
	d0=$(( $(ip netns exec "$RIG_NS" \
		 cat "/sys/class/net/$TAP/statistics/tx_dropped") - d0 ))
	stats_read || return 1
	FLOOD_ACTIVE=${CNT[active]}
	rig_log "tap device dropped $d0 frames (relay busy);" \
		"right after the flood: active=${CNT[active]}" \
		"conns_out=${CNT[conns_out]} refused=${CNT[refused]}" \
		"evicted=${CNT[evicted]}"

	# A new connection at once (the flood's half-open ones make room)
	t0=$(rig_now_ms)
	out=$(ip netns exec "$RIG_NS" "$HOLD" connect -x -w 3000 "$RIG_GW4" \
		"$PORT_HOLD")
	ms=$(( $(rig_now_ms) - t0 ))
	rig_log "new connection after the flood: $out ($ms ms)"
	[ "$(sed -n 's/.*established=\([0-9]*\).*/\1/p' <<<"$out")" = 1 ] ||
		rig_fail "no new connection right after the flood: $out" ||
		return 1

	rig_wait_pid "$snd" "$LIMIT" ||
		rig_fail "sender failed: $(cat "$RIG_TMP/snd.err")" || return 1
	rig_wait_pid "$rcv" 20 || rig_fail "receiver failed" || return 1
	[ "$(cat "$sum")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch after the flood" || return 1
	rig_log "$SIZE transfer during the flood: sha256 ok"

	rig_still_serving "$RIG_NS"
}

# drain() - test: the flood's half-open connections time out
drain() {
	local t0 ms i max

	[ -n "$FLOOD_ACTIVE" ] || rig_fail "the flood did not run" || return 1
	max=$((FLOOD_ACTIVE / DRAIN_SHARE))
	t0=$(rig_now_ms)
	for i in $(seq "$DRAIN_S"); do
		active_below "$max" && break
		sleep 1
	done
	[ "${CNT[active]}" -lt "$max" ] ||
		rig_fail "still ${CNT[active]} active connections $DRAIN_S s" \
			 "after the flood (of $FLOOD_ACTIVE)" || return 1
	: "$i"
	ms=$(( $(rig_now_ms) - t0 ))
	rig_log "active connections below $max after" \
		"$(rig_secs "$ms") s more (now ${CNT[active]}," \
		"evicted=${CNT[evicted]} refused=${CNT[refused]})"
}

rig_run "pasta up, listeners on the host" relay_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "$SYN_N-SYN flood during a $SIZE transfer: sha256, new connection right after" \
		flood
	rig_run "half-open connections of the flood time out (< 1/$DRAIN_SHARE left within $DRAIN_S s)" \
		drain
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
