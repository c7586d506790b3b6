#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/udp_refused.sh - ICMP errors of host sockets reach the
# guest
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME).
#
#   closed port: a connected UDP socket in the namespace sends to the
#     gateway at a port nothing is bound to on the host's loopback. The
#     host kernel answers the relay's socket with "port unreachable"; the
#     relay must reflect it as ICMP (IPv4) or ICMPv6 (IPv6) quoting the
#     namespace's datagram, so that the socket there fails with
#     ECONNREFUSED (tests/tools/udp_echo refused), within WAIT seconds.
#   same port, later open: once a server binds the port, the same kind of
#     exchange works (the flow survives the error).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

CLOSED_PORT=7999
WAIT=2
LIMIT=30

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

ECHO=$TOOLS_DIR/udp_echo
if [ ! -x "$ECHO" ]; then
	echo "FAIL: prerequisites: $ECHO not built (run make tools)"
	exit 1
fi

# relay_up() - test: start pasta in the foreground
relay_up() {
	rig_relay_start fg
}

# refused() - test: a datagram to a closed host port is refused
# $1: gateway address
refused() {
	local out rc

	! rig_udp_bound "$RIG_HOSTNS" "$CLOSED_PORT" ||
		rig_fail "port $CLOSED_PORT is bound in the host namespace" ||
		return 1
	out=$(rig_g timeout -k 2 "$LIMIT" "$ECHO" refused -a "$1" \
		-p "$CLOSED_PORT" -w "$WAIT" 2>&1)
	rc=$?
	rig_log "$out"
	[ "$rc" -eq 0 ] || rig_fail "$(tr '\n' ' ' <<<"$out")"
}

# then_open() - test: after the refusal, an echo server on the port works
# $1: gateway address
# $2: loopback address of the same family in the host namespace
then_open() {
	local out rc

	rig_h timeout -k 2 "$LIMIT" "$ECHO" server -b "$2" \
		-p "$CLOSED_PORT" 2>/dev/null &
	rig_defer "rig_kill $!"
	rig_poll 5 rig_udp_bound "$RIG_HOSTNS" "$CLOSED_PORT" ||
		rig_fail "echo server did not start" || return 1
	out=$(rig_g timeout -k 2 "$LIMIT" "$ECHO" client -a "$1" \
		-p "$CLOSED_PORT" -n 100 -r 10 2>&1)
	rc=$?
	rig_log "$(head -n 1 <<<"$out")"
	[ "$rc" -eq 0 ] || rig_fail "$(tr '\n' ' ' <<<"$out")"
}

rig_run "relay starts in the foreground" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

rig_run "udp IPv4 closed host port: ECONNREFUSED in the namespace" \
	refused "$RIG_GW4"
rig_run "udp IPv6 closed host port: ECONNREFUSED in the namespace" \
	refused "$RIG_GW6"
rig_run "udp IPv4 same port once a server is bound: echo works" \
	then_open "$RIG_GW4" 127.0.0.1
rig_run "udp IPv6 same port once a server is bound: echo works" \
	then_open "$RIG_GW6" ::1

rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
