#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_bad_frames.sh - frames too short or too long for
# Ethernet on passt's stream socket: dropped, counted, the guest stays
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt in a host namespace of
# our own; the guest is a namespace whose tap device tap_bridge connects
# to passt's socket. tap_bridge also binds an injection socket (--inject):
# each datagram sent there goes to passt as one frame with a correct
# length prefix, whatever its length, which no tap device could carry.
# On that one connection, checked in order:
#   - frames of every length from 0 to 13 bytes (shorter than an Ethernet
#     header), then three longer than the largest frame (65 554, 131 072
#     and 200 000 bytes: passt skips frames up to 1 MiB, design.md), sent
#     with tests/tools/frame_storm --lengths: passt's counters show 14
#     more rx_short and 3 more rx_long, and nothing else changed (no
#     frame reached net/, no read error);
#   - DHCP (busybox udhcpc) on the same connection: the host's address,
#     gateway and MTU, applied to the guest;
#   - 1 MiB from the guest to the host and 1 MiB back through a forwarded
#     port, sha256 compared;
#   - it is still the first guest connection: tap_bridge is running (it
#     exits when passt closes the connection), passt logged one accepted
#     guest connection and no closed one;
#   - every frame the guest sent is accounted for: tap rx_frames equals
#     net frames, and the drop counters are exactly the injected frames.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

LIMIT=30
FWD=10001
SHORT=14		# lengths 0 to 13
LONGS=65554,131072,200000
NLONG=3

rig_init
passt_init
rig_need_tool STORM frame_storm || exit 1
rig_need busybox || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1
SOCK=$RIG_TMP/passt.socket
INJECT=$RIG_TMP/inject.socket
LEASE=$RIG_TMP/lease.env
declare -A C0

# relay_up() - test: passt, a guest with an injection socket connects
relay_up() {
	passt_start fg "$SOCK" -t "$FWD" || return 1
	passt_guest_start "$RIG_NS" --inject "$INJECT" || return 1
	ip -n "$RIG_NS" link set "$PASST_TAP" up || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "guest not accepted" || return 1
	rig_poll 5 test -S "$INJECT" ||
		rig_fail "tap_bridge made no injection socket" || return 1
	rig_relay_stats || return 1
	for k in "${!RIG_CNT[@]}"; do C0[$k]=${RIG_CNT[$k]}; done
}

# delta() - how much a counter grew since relay_up()
# $1: MODULE.KEY
delta() {
	echo $(( ${RIG_CNT[$1]:-0} - ${C0[$1]:-0} ))
}

# drops_seen() - have the bad frames all been counted?
drops_seen() {
	rig_relay_stats >/dev/null 2>&1 &&
		[ "$(delta tap.rx_short)" -ge "$SHORT" ] &&
		[ "$(delta tap.rx_long)" -ge "$NLONG" ]
}

# bad_frames() - test: every short length and three long ones, counted
bad_frames() {
	local out

	out=$(ip netns exec "$RIG_NS" "$STORM" --inject "$INJECT" \
		--lengths "0-$((SHORT - 1)),$LONGS" 2>&1)
	rig_log "$out"
	[ "$out" = "frame_storm: injected=$((SHORT + NLONG)) send_errors=0" ] ||
		rig_fail "injection failed: $out" || return 1

	rig_poll 10 drops_seen ||
		rig_fail "passt counted $(delta tap.rx_short) short and" \
			 "$(delta tap.rx_long) long frames in 10 s," \
			 "$SHORT and $NLONG sent" || return 1
	rig_log "tap: rx_short+$(delta tap.rx_short) rx_long+$(delta \
		tap.rx_long) rx_frames+$(delta tap.rx_frames)" \
		"net: frames+$(delta net.frames)"
	if [ "$(delta tap.rx_short)" -ne "$SHORT" ] ||
	   [ "$(delta tap.rx_long)" -ne "$NLONG" ]; then
		rig_fail "more drops than frames sent"
		return 1
	fi
	if [ "$(delta tap.rx_errors)" -ne 0 ] ||
	   [ "$(delta tap.rx_bad_chain)" -ne 0 ]; then
		rig_fail "read errors or other drops counted"
		return 1
	fi
	passt_exited "$PASST_BRIDGE_PID" &&
		rig_fail "passt closed the guest's connection:" \
			 "$(tr '\n' ' ' <"$PASST_BRIDGE_LOG")"
	return 0
}

# dhcp() - test: DHCP on the same connection, lease applied
dhcp() {
	local got

	passt_dhcp "$RIG_NS" "$LEASE" || return 1
	got=$(passt_lease_var "$LEASE" ip)
	[ "$got" = "$RIG_ADDR4" ] ||
		rig_fail "address $got, expected $RIG_ADDR4" || return 1
	got=$(passt_lease_var "$LEASE" router)
	[ "$got" = "$RIG_GW4" ] ||
		rig_fail "router $got, expected $RIG_GW4" || return 1
	got=$(passt_lease_var "$LEASE" mtu)
	[ "$got" = "$PASST_MTU" ] ||
		rig_fail "MTU $got, expected $PASST_MTU" || return 1
	passt_lease_apply "$RIG_NS" "$LEASE"
}

# traffic() - test: 1 MiB each way on the same connection, sha256
traffic() {
	rig_transfer_both "$RIG_NS" "$DATA" "$FWD" "$LIMIT"
}

# accounted() - test: every frame the guest sent is accounted for
accounted() {
	rig_relay_stats || return 1
	rig_log "tap: rx_frames=${RIG_CNT[tap.rx_frames]}" \
		"rx_short=${RIG_CNT[tap.rx_short]}" \
		"rx_long=${RIG_CNT[tap.rx_long]}; net: frames=${RIG_CNT[net.frames]}"
	[ "${RIG_CNT[tap.rx_frames]}" -eq "${RIG_CNT[net.frames]}" ] ||
		rig_fail "tap rx_frames ${RIG_CNT[tap.rx_frames]}, net frames" \
			 "${RIG_CNT[net.frames]}" || return 1
	if [ "$(delta tap.rx_short)" -ne "$SHORT" ] ||
	   [ "$(delta tap.rx_long)" -ne "$NLONG" ]; then
		rig_fail "drop counters changed: rx_short+$(delta \
			 tap.rx_short), rx_long+$(delta tap.rx_long)"
	fi
}

rig_run "passt: guest connects, with an injection socket" relay_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt: frames of 0 to 13 bytes and 3 longer than the largest, counted, connection kept" \
	bad_frames
rig_run "passt: DHCP on the same connection" dhcp
rig_run "passt: 1 MiB each way on the same connection, sha256" traffic
rig_run "passt: still the first guest connection" \
	passt_same_guest "$PASST_BRIDGE_PID" "$PASST_BRIDGE_LOG"
rig_run "passt: every frame the guest sent accounted for" accounted
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_summary
