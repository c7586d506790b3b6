#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/fwd_grammar.sh - the 2026 forms of "all": all:TOADDR
# and ADDR/all, with pasta
#
# Rig (tests/lib/rig.sh): pasta in a host namespace of our own, serving
# the rig's namespace, which also has 192.0.2.5 on its loopback interface.
#
#   -t all:192.0.2.5: every non-ephemeral host port goes to 192.0.2.5 in
#     the namespace: a server bound to 192.0.2.5 only gets 1 MiB (sha256)
#     from the host's address (through the tap device) and from the
#     host's loopback (spliced); a server bound to the namespace's own
#     address only is not reached; IPv6 ports are not bound (the target is
#     IPv4), and neither are ephemeral ones; the table shows the rules
#     best effort.
#   -t ::1/all: every non-ephemeral port of the host's ::1 only: a
#     connection to [::1]:PORT reaches the namespace (1 MiB, sha256), one
#     to the host's own IPv6 address or to 127.0.0.1 is refused.
#
# "all" stops short of three quarters of the open files limit
# (fwd/fwd_listen.c), so the ports used here are low ones.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

TOADDR=192.0.2.5
PORT=1500
OWN=1501

rig_init
rig_host_ns || exit 1

SMALL=$RIG_TMP/small.bin
rig_random_file "$SMALL" 1M || exit 1

# refused() - a connection from the host namespace is refused
# $1: socat address
refused() {
	local out

	if out=$(rig_h timeout 10 socat -u /dev/null "$1,connect-timeout=5" \
		 2>&1); then
		rig_fail "$1 accepted a connection"
		return 1
	fi
	grep -qi "refused\|reset" <<<"$out" ||
		rig_fail "$1: not refused: $out"
}

# all_toaddr() - test: -t all:192.0.2.5
all_toaddr() {
	local eph

	rig_target_ns || return 1
	ip -n "$RIG_NS" addr add "$TOADDR/32" dev lo || return 1
	rig_relay_start daemon -t "all:$TOADDR" -l "$RIG_TMP/pasta.log" ||
		return 1
	RIG_RELAY_LOG=$RIG_TMP/pasta.log
	grep -q "forwarded from the host: 1-.* -> $TOADDR/1-.* (best effort)" \
		"$RIG_RELAY_LOG" ||
		rig_fail "table not shown as expected:" \
			 "$(grep 'forwarded from the host' "$RIG_RELAY_LOG")" ||
		return 1

	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$PORT" \
		"$RIG_NS" "TCP4-LISTEN:$PORT,bind=$TOADDR" "$SMALL" 20 ||
		return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:127.0.0.1:$PORT" \
		"$RIG_NS" "TCP4-LISTEN:$PORT,bind=$TOADDR" "$SMALL" 20 ||
		return 1

	# The namespace's own address is not where these ports go: the
	# connection goes to 192.0.2.5, where nothing listens on that port
	ip netns exec "$RIG_NS" timeout 20 socat -u \
		"TCP4-LISTEN:$OWN,bind=$RIG_ADDR4,reuseaddr" \
		"OPEN:$RIG_TMP/own.out,creat" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_NS" "$OWN" || return 1
	rig_h timeout 10 socat -u "FILE:$SMALL" \
		"TCP4:$RIG_ADDR4:$OWN,connect-timeout=5" 2>/dev/null
	[ ! -s "$RIG_TMP/own.out" ] && rig_listening "$RIG_NS" "$OWN" ||
		rig_fail "a server on the namespace's own address was reached" ||
		return 1

	refused "TCP6:[$RIG_ADDR6]:$PORT" || return 1
	eph=$(rig_h cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
	refused "TCP4:$RIG_ADDR4:$eph" || return 1
	rig_relay_stop_check
}

# addr_all() - test: -t ::1/all
addr_all() {
	# A relay left by a failed test above would hold the ports
	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=
	rig_target_ns || return 1
	rig_relay_start daemon -t "::1/all" -l "$RIG_TMP/pasta2.log" ||
		return 1
	RIG_RELAY_LOG=$RIG_TMP/pasta2.log

	rig_transfer "$RIG_HOSTNS" "TCP6:[::1]:$PORT" \
		"$RIG_NS" "TCP6-LISTEN:$PORT,ipv6only=1" "$SMALL" 20 ||
		return 1
	rig_transfer "$RIG_HOSTNS" "TCP6:[::1]:$((PORT + 1000))" \
		"$RIG_NS" "TCP6-LISTEN:$((PORT + 1000)),ipv6only=1" "$SMALL" 20 ||
		return 1
	refused "TCP6:[$RIG_ADDR6]:$PORT" || return 1
	refused "TCP4:127.0.0.1:$PORT" || return 1
	refused "TCP4:$RIG_ADDR4:$PORT" || return 1
	rig_relay_stop_check
}

rig_run "-t all:$TOADDR: every port to $TOADDR, 1 MiB sha256 via tap and splice; own address, IPv6, ephemeral not forwarded" \
	all_toaddr
rig_run "-t ::1/all: every port of ::1 only, 1 MiB sha256; other addresses refused" \
	addr_all

rig_summary
