#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_vu_lost_kicks.sh - a vhost-user guest whose
# notifications get lost does not lose its network
#
# passt --vhost-user with a guest namespace behind tests/tools/vu_bridge,
# which sends none of the kicks passt asks for (--drop-kicks 1): chains
# are available, no kick says so. A QEMU guest under TCG lost kicks in
# 4-stream traffic, and its transmit queue then stayed stopped for good,
# as passt waited for the next kick. passt now reads its rings on a timer
# (VU_RING_CHECK_MS) and takes what waited a whole period: here every
# frame of the guest, and every buffer it adds while output waits, gets
# through that way. Transfers both ways must complete with matching
# hashes (without the timer, nothing from the guest gets through at
# all), and passt's log must count the kicks it made up for when the
# guest goes away.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=${BULK_SIZE:-1M}
LIMIT=60
DROP_EVERY=1
FWD=10001

rig_init
passt_init
rig_need_tool VU_BRIDGE vu_bridge || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket

# vu_up() - test: passt --vhost-user, a guest that never kicks connects
vu_up() {
	passt_start fg "$SOCK" --vhost-user -t "$FWD" || return 1
	BRIDGE=$VU_BRIDGE passt_guest_start "$RIG_NS" \
		--drop-kicks "$DROP_EVERY" || return 1
	passt_guest_static "$RIG_NS" || return 1
	rig_poll 5 passt_log_has "queue 1 (transmit) started" ||
		rig_fail "the transmit queue did not start"
}

# transfer() - send DATA from one namespace to another, compare hashes
# $1: sender namespace
# $2: socat connect address
# $3: receiver namespace
# $4: socat listen address
transfer() {
	local sumfile=$RIG_TMP/sum.$RANDOM

	rig_tcp_recv_sha "$3" "$4" "$sumfile" "$LIMIT"
	rig_wait_listen "$3" "$(rig_port_of "$4")" || return 1
	ip netns exec "$1" timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"$2,connect-timeout=5" || rig_fail "sender failed" || return 1
	rig_wait_pid "$RIG_BG_PID" "$LIMIT" ||
		rig_fail "receiver failed or timed out" || return 1
	[ "$(cat "$sumfile")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch"
}

# to_guest() - test: host -> guest
to_guest() {
	transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$RIG_NS" "TCP4-LISTEN:$FWD"
}

# from_guest() - test: guest -> host
from_guest() {
	transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1"
}

# kicks_counted() - test: the guest leaves, passt logs the kicks it made up
kicks_counted() {
	local n

	passt_guest_stop
	rig_poll 5 passt_log_has "kicks lost" ||
		rig_fail "no 'kicks lost' in passt's log" || return 1
	n=$(grep -o '[0-9]* kicks lost' "$RIG_RELAY_LOG" | tail -n 1)
	rig_log "passt: ${n:-none}"
	[ "${n%% *}" -gt 0 ] ||
		rig_fail "no lost kick made up for: the test lost none"
}

rig_run "passt --vhost-user: a guest that never kicks connects" vu_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt --vhost-user, kicks lost: host->guest $SIZE, sha256" to_guest
rig_run "passt --vhost-user, kicks lost: guest->host $SIZE, sha256" from_guest
rig_run "passt --vhost-user: the kicks made up for are counted" kicks_counted
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_summary
