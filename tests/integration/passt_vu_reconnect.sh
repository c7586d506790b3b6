#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_vu_reconnect.sh - passt --vhost-user: a front-end
# that disconnects and reconnects 100 times during transfers
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt --vhost-user in a host
# namespace of our own, with a forwarded port; the guest is a namespace
# whose tap device tests/tools/vu_bridge connects to passt's socket as a
# vhost-user front-end and guest driver (memory, virtqueues, offloads both
# ways; QEMU 7.2 can't disconnect and reconnect a running device, and
# under TCG moves frames too slowly for this). Checked:
#   - the device comes up: both queues start, the offloads are on;
#   - 20 MiB each way through it, sha256;
#   - 100 reconnections during a transfer each way (over the host
#     namespace's loopback shaped with tbf, a 2 MiB file sent again and
#     again until the reconnections are done, however long they take):
#     vu_bridge closes the connection, in turn, while frames flow, after
#     stopping the queues (GET_VRING_BASE), after a second memory table,
#     and with an extra connection left half set up, each time followed by
#     a new connection with new memory and eventfds; both transfers end
#     with the sha256 of what was sent, passt accepted every connection
#     and is serving the last one;
#   - passt's file descriptors and memory are flat: after the
#     reconnections, the same number of open descriptors and of memory
#     mappings, the same virtual size (not counting the stack), and a
#     resident size not above the one before plus 2 MiB, as after the
#     first transfers;
#   - a new connection works afterwards (1 MiB, sha256).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=20M
CHUNK_SIZE=2M		# sent again and again during the reconnections
LIMIT=90
FWD=10001
CYCLES=100
SHAPE_RATE=${VU_SHAPE:-20mbit}
RSS_SLACK_KB=2048

rig_init
passt_init
rig_need_tool VU_BRIDGE vu_bridge || exit 1
rig_need tc || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" "$SIZE" || exit 1
CHUNK=$RIG_TMP/chunk.bin
rig_random_file "$CHUNK" "$CHUNK_SIZE" || exit 1
SOCK=$RIG_TMP/vu.socket
SNAP0=

# relay_up() - test: passt --vhost-user, vu_bridge sets the device up
relay_up() {
	passt_start fg "$SOCK" --vhost-user -t "$FWD" || return 1
	BRIDGE=$VU_BRIDGE passt_guest_start "$RIG_NS" --offload || return 1
	passt_guest_static "$RIG_NS" || return 1
	rig_poll 5 passt_log_has "queue 1 (transmit) started" ||
		rig_fail "the transmit queue did not start" || return 1
	passt_log_has "offloads to the guest: checksum, TSO4, TSO6; from the guest: checksum on, TSO4 on, TSO6 on" ||
		rig_fail "offloads not on: $(grep -m 1 'offloads to the' \
			 "$RIG_RELAY_LOG")"
}

# traffic() - test: 20 MiB each way, sha256
traffic() {
	rig_transfer_both "$RIG_NS" "$DATA" "$FWD" "$LIMIT"
}

# snapshot() - print passt's open descriptors, mappings, virtual size
# without the stack, resident size (kB)
snapshot() {
	local p=/proc/$RIG_RELAY_PID size stk rss

	size=$(awk '/^VmSize:/ { print $2 }' "$p/status")
	stk=$(awk '/^VmStk:/ { print $2 }' "$p/status")
	rss=$(awk '/^VmRSS:/ { print $2 }' "$p/status")
	echo "$(find "$p/fd" -mindepth 1 | wc -l) $(wc -l <"$p/maps")" \
	     "$((size - stk)) $rss"
}

# reconnect() - test: 100 reconnections during a transfer each way
reconnect() {
	local n accepted0

	SNAP0=$(snapshot)
	rig_log "before: descriptors, mappings, size - stack, rss (kB): $SNAP0"
	accepted0=$(grep -c "Accepted guest connection" "$RIG_RELAY_LOG")

	# Both ways, the data again and again until the reconnections are
	# done: the traffic lasts as long as they do, however long that is
	rig_shape_loopback "$SHAPE_RATE" || return 1
	rig_bulk_start "$RIG_NS" "$CHUNK" "$FWD" "$LIMIT" \
		"grep -q '$CYCLES reconnections done' '$PASST_BRIDGE_LOG'" ||
		return 1
	sleep 0.3

	kill -USR1 "$PASST_BRIDGE_PID" ||
		rig_fail "can't signal vu_bridge" || return 1
	rig_poll "$LIMIT" grep -q "$CYCLES reconnections done" \
		"$PASST_BRIDGE_LOG" ||
		rig_fail "vu_bridge did not reconnect $CYCLES times:" \
			 "$(tail -n 2 "$PASST_BRIDGE_LOG" | tr '\n' ' ')" ||
		return 1
	# The senders stop only once they see that line: no need to check
	# that they ran during all of it
	rig_bulk_check "$CHUNK" "$LIMIT" || return 1

	# Each cycle: a new connection, and every fourth a half one more
	n=$(( $(grep -c "Accepted guest connection" "$RIG_RELAY_LOG") -
	      accepted0 ))
	[ "$n" -eq $((CYCLES + CYCLES / 4)) ] ||
		rig_fail "passt accepted $n connections, expected" \
			 "$((CYCLES + CYCLES / 4))" || return 1
	passt_exited "$PASST_BRIDGE_PID" &&
		rig_fail "vu_bridge exited: $(tr '\n' ' ' \
			 <"$PASST_BRIDGE_LOG")" && return 1
	return 0
}

# flat() - test: descriptors and memory as before the reconnections
flat() {
	local fd0 maps0 size0 rss0 fd maps size rss

	[ -n "$SNAP0" ] || rig_fail "no snapshot before" || return 1
	read -r fd0 maps0 size0 rss0 <<<"$SNAP0"
	read -r fd maps size rss <<<"$(snapshot)"
	rig_log "after: $fd $maps $size $rss"
	[ "$fd" -eq "$fd0" ] ||
		rig_fail "$fd open descriptors, $fd0 before" || return 1
	[ "$maps" -eq "$maps0" ] ||
		rig_fail "$maps memory mappings, $maps0 before" || return 1
	[ "$size" -eq "$size0" ] ||
		rig_fail "virtual size $size kB, $size0 kB before" || return 1
	[ "$rss" -le $((rss0 + RSS_SLACK_KB)) ] ||
		rig_fail "resident size $rss kB, $rss0 kB before"
}

rig_run "passt --vhost-user: vu_bridge sets the device up, offloads on" \
	relay_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt --vhost-user: $SIZE each way, sha256" traffic
rig_run "passt --vhost-user: $CYCLES reconnections of the front-end during a transfer each way, sha256" \
	reconnect
rig_run "passt --vhost-user: descriptors and memory flat after $CYCLES reconnections" \
	flat
rig_run "passt --vhost-user: a new transfer afterwards" \
	rig_still_serving "$RIG_NS"
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_summary
