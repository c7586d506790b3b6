#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/guest_floods.sh - a guest flooding the log, or the flow
# table with echo flows
#
# Rig (tests/lib/rig.sh): pasta in the foreground in a host namespace of
# our own (its stderr is the log checked), a fresh target namespace per
# scenario; frames go to the relay from tests/tools/frame_storm on the
# namespace's tap device.
#
#   log flood: DHCP_N frames (frame_storm --flood dhcp), half DHCPDECLINE
#     (each one a warning, before rate limits), half DHCPREQUEST for an
#     address that isn't the guest's (each one answered with a NAK and an
#     info line). E is the time from just before the flood to when the
#     relay had taken every frame the tap device passed on (its net
#     to_dhcp counter, SIGUSR1); each of the two messages must have been
#     logged at least once and at most LOG_RL_BURST + ceil(E /
#     LOG_RL_INTERVAL_MS) + 1 times (both read from util/log.h). Then,
#     LOG_RL_INTERVAL_MS later, two more frames (one of each): both
#     messages are logged again, the count of the ones held back at the
#     end ("(N similar messages suppressed)"), and over both messages the
#     lines plus the counts add up to the frames the relay took: every
#     one was logged or counted.
#
#   echo flood: with --max-flows FLOWS and ping sockets allowed in the
#     host namespace, ECHO_N echo requests to the gateway, each with an
#     identifier of its own, fill the flow table with echo flows (the
#     ones beyond it were dropped or took the place of idle ones: icmp
#     drops + evicted). Once they are idle (FLOW_EVICT_IDLE_MS, read from
#     flow/flow_evict.c) a new TCP connection works at once (1 MiB to
#     the host's loopback, sha256), a UDP datagram to an echo server
#     there comes back unchanged, and a ping is answered: each took the
#     place of an idle echo flow (icmp evicted grew by at least two).
#     Without that, the table stayed full for ICMP_FLOW_TIMEOUT_MS (a
#     minute): TCP got a RST, UDP an ICMP error.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

DHCP_N=${FLOOD_DHCP_N:-20000}
ECHO_N=1024
FLOWS=128
PORT_UDP=7301
SEED=${FLOOD_SEED:-$RANDOM}
DECLINE_RE='DHCP: guest declined address'
NAK_RE='DHCP: guest asked for address'

rig_init
rig_need_tool STORM frame_storm || exit 1
rig_need socat ping || exit 1
rig_host_ns || exit 1

# src_const() - value of a numeric #define in a source file of the tree
# $1: file, relative to the top of the tree
# $2: name
src_const() {
	sed -n "s/^#define[[:space:]]\+$2[[:space:]]\+\([0-9]\+\).*/\1/p" \
		"$RIG_ROOT/$1"
}

BURST=$(src_const util/log.h LOG_RL_BURST)
IVAL_MS=$(src_const util/log.h LOG_RL_INTERVAL_MS)
IDLE_MS=$(src_const flow/flow_evict.c FLOW_EVICT_IDLE_MS)
if [ -z "$BURST" ] || [ -z "$IVAL_MS" ] || [ -z "$IDLE_MS" ]; then
	echo "FAIL: prerequisites: rate limit or eviction constants not found"
	exit 1
fi
rig_log "rate limit: $BURST at once, then one per $IVAL_MS ms;" \
	"echo flows idle after $IDLE_MS ms; seed $SEED"

# tap_of() - the relay's tap device in the target namespace
# Sets TAP.
tap_of() {
	TAP=$(ip -n "$RIG_NS" -o link show | awk -F': ' \
	      '$2 != "lo" { print $2; exit }')
	TAP=${TAP%@*}
	[ -n "$TAP" ] || rig_fail "no tap device in $RIG_NS"
}

# tap_dropped() - frames the tap device dropped on their way to the relay
tap_dropped() {
	rig_g cat "/sys/class/net/$TAP/statistics/tx_dropped"
}

# counter_ge() - is a counter of the relay at least a value?
# $1: module
# $2: key
# $3: value
counter_ge() {
	local v

	v=$(rig_relay_counter "$1" "$2") && [ "$v" -ge "$3" ]
}

# storm() - run frame_storm in the target namespace, check all were sent
# $@: its options, before the device
# Sets OUT (its report line).
storm() {
	OUT=$(rig_g "$STORM" "$@" "$TAP" 2>&1)
	rig_log "$OUT"
	case $OUT in
	*"frame_storm: sent="*" send_errors=0 "*) ;;
	*) rig_fail "frame_storm failed: $OUT" ;;
	esac
}

# suppressed_sum() - add up the suppressed counts on a message's lines
# $1: pattern of the message
suppressed_sum() {
	grep "$1" "$RIG_RELAY_LOG" |
		sed -n 's/.*(\([0-9]*\) similar messages suppressed)$/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}

# dhcp_up() - test: pasta with the default flow table
dhcp_up() {
	rig_target_ns || return 1
	rig_relay_start fg -t none && tap_of
}

# dhcp_flood() - test: see the top of the file
dhcp_flood() {
	local n0 d0 t0 e bound dec nak want

	n0=$(rig_relay_counter net to_dhcp) ||
		rig_fail "no net counters on SIGUSR1" || return 1
	d0=$(tap_dropped)
	t0=$(rig_now_ms)
	storm --flood dhcp -n "$DHCP_N" -s "$SEED" || return 1
	want=$((n0 + DHCP_N - ($(tap_dropped) - d0)))
	rig_poll 60 counter_ge net to_dhcp "$want" ||
		rig_fail "the relay did not take the $DHCP_N frames" \
			 "(to_dhcp below $want)" || return 1
	e=$(( $(rig_now_ms) - t0 ))
	bound=$((BURST + (e + IVAL_MS - 1) / IVAL_MS + 1))
	dec=$(grep -c "$DECLINE_RE" "$RIG_RELAY_LOG")
	nak=$(grep -c "$NAK_RE" "$RIG_RELAY_LOG")
	rig_log "$((want - n0)) DHCP frames in $(rig_secs "$e") s:" \
		"$dec decline lines, $nak NAK lines (at most $bound each)"
	[ "$dec" -ge 1 ] && [ "$dec" -le "$bound" ] ||
		rig_fail "$dec lines of '$DECLINE_RE' for $((want - n0))" \
			 "frames in $e ms, expected 1 to $bound" || return 1
	[ "$nak" -ge 1 ] && [ "$nak" -le "$bound" ] ||
		rig_fail "$nak lines of '$NAK_RE' for $((want - n0))" \
			 "frames in $e ms, expected 1 to $bound" || return 1

	# A token back for each message, then one more of each
	sleep $((IVAL_MS / 1000 + 1))
	d0=$(tap_dropped)
	storm --flood dhcp -n 2 -s 1 || return 1
	[ "$(tap_dropped)" = "$d0" ] ||
		rig_fail "the tap device dropped one of the last two frames" ||
		return 1
	rig_poll 10 counter_ge net to_dhcp $((want + 2)) ||
		rig_fail "the relay did not take the last two frames" ||
		return 1
	dhcp_accounted "$((want + 2 - n0))"
}

# dhcp_accounted() - after the flood: both messages logged again with the
# count held back, lines and counts add up to the frames taken
# $1: DHCP frames the relay took since the flood began
dhcp_accounted() {
	local dec nak sdec snak

	dec=$(grep -c "$DECLINE_RE" "$RIG_RELAY_LOG")
	nak=$(grep -c "$NAK_RE" "$RIG_RELAY_LOG")
	sdec=$(suppressed_sum "$DECLINE_RE")
	snak=$(suppressed_sum "$NAK_RE")
	rig_log "decline: $dec lines + $sdec suppressed; NAK: $nak lines +" \
		"$snak suppressed; frames taken: $1"
	rig_log "last lines: $(grep -E "$DECLINE_RE|$NAK_RE" \
		"$RIG_RELAY_LOG" | tail -n 2 | tr '\n' '|')"
	grep "$DECLINE_RE" "$RIG_RELAY_LOG" | tail -n 1 |
		grep -q 'similar messages suppressed)$' ||
		rig_fail "the decline logged after the flood has no count of" \
			 "suppressed ones" || return 1
	grep "$NAK_RE" "$RIG_RELAY_LOG" | tail -n 1 |
		grep -q 'similar messages suppressed)$' ||
		rig_fail "the NAK logged after the flood has no count of" \
			 "suppressed ones" || return 1
	[ $((dec + sdec + nak + snak)) -eq "$1" ] ||
		rig_fail "lines + suppressed counts = $((dec + sdec + nak +
			 snak)), the relay took $1 DHCP frames"
}

# echo_up() - test: pasta with a small flow table, ping sockets allowed,
# a UDP echo server on the host's loopback
echo_up() {
	rig_target_ns || return 1
	rig_persist
	rig_sysctl_set net.ipv4.ping_group_range "0 2147483647" \
		"$RIG_HOSTNS" || return 1
	rig_relay_start fg -t none --max-flows "$FLOWS" && tap_of || return 1
	ip netns exec "$RIG_HOSTNS" timeout -k 5 120 socat -T 60 \
		"UDP4-RECVFROM:$PORT_UDP,bind=127.0.0.1,fork" PIPE \
		2>"$RIG_TMP/udp_echo.err" &
	rig_defer "rig_kill $!"
	rig_poll 5 eval "rig_h ss -Huan 'sport = :$PORT_UDP' | grep -q ." ||
		rig_fail "UDP echo server not bound"
}

# udp_echoed() - a datagram from the namespace comes back unchanged
udp_echoed() {
	local msg got

	msg=$(head -c 600 /dev/urandom | od -An -tx1 | tr -d ' \n')
	got=$(printf '%s' "$msg" | rig_g timeout 10 socat -T 3 - \
		"UDP4:$RIG_GW4:$PORT_UDP" 2>"$RIG_TMP/udp_client.err")
	[ "$(printf '%s' "$got" | sha256sum)" = \
	  "$(printf '%s' "$msg" | sha256sum)" ] ||
		rig_fail "UDP datagram not echoed after the echo flood" \
			 "(got ${#got} of ${#msg} bytes:" \
			 "$(head -c 200 "$RIG_TMP/udp_client.err"))"
}

# echo_flood() - test: see the top of the file
echo_flood() {
	local d0 d1 taken drops ev0 ev1

	d0=$(tap_dropped)
	storm --flood echo -n "$ECHO_N" || return 1
	d1=$(( $(tap_dropped) - d0 ))
	taken=$((ECHO_N - d1))
	rig_poll 30 counter_ge net to_icmp "$taken" ||
		rig_fail "the relay did not take the $taken echo requests" ||
		return 1

	# Idle from now on, then new flows of each protocol at once. The
	# counters are checked after the connections, which are the point
	sleep $((IDLE_MS / 1000 + 1))
	drops=$(rig_relay_counter icmp drops) &&
		ev0=$(rig_relay_counter icmp evicted) || ev0=

	rig_still_serving "$RIG_NS" || {
		RIG_WHY="TCP connection after the echo flood: $RIG_WHY"
		return 1
	}
	rig_log "TCP after the echo flood: 1 MiB, sha256 ok"
	udp_echoed || return 1
	rig_log "UDP after the echo flood: echoed"
	rig_g ping -c 1 -W 3 "$RIG_GW4" >/dev/null ||
		rig_fail "ping not answered after the echo flood" || return 1

	[ -n "$ev0" ] || rig_fail "no icmp counters on SIGUSR1" || return 1
	rig_log "echo requests taken: $taken (tap dropped $d1); icmp" \
		"drops=$drops evicted=$ev0 before the new flows"
	[ $((drops + ev0)) -ge $((taken - FLOWS)) ] ||
		rig_fail "the flood did not fill the table: drops=$drops" \
			 "evicted=$ev0 for $taken requests and $FLOWS flows" ||
		return 1
	ev1=$(rig_relay_counter icmp evicted) || return 1
	rig_log "icmp evicted: $ev0 -> $ev1"
	[ $((ev1 - ev0)) -ge 2 ] ||
		rig_fail "icmp evicted grew by $((ev1 - ev0)): the new TCP" \
			 "and UDP flows did not take the place of echo flows"
}

rig_run "pasta up" dhcp_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "$DHCP_N DHCP declines and requests: each message logged at most $BURST + elapsed / $IVAL_MS ms + 1 times, then with the count of suppressed ones" \
		dhcp_flood
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_run "pasta --max-flows $FLOWS up, ping sockets allowed" echo_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "$ECHO_N echo identifiers fill the table; once idle, new TCP (sha256), UDP and ping flows take their place" \
		echo_flood
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
