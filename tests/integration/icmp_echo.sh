#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/icmp_echo.sh - ping through unprivileged ping sockets
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME), with
# --map-guest-addr MAP4 and MAP6: those addresses reach the host's own
# address, the gateway addresses reach the host's loopback.
#
#   no permission: in a new namespace net.ipv4.ping_group_range excludes
#     every group, so the relay can't open ping sockets. A ping must fail
#     (not crash anything) and the relay must say, once, which sysctl to
#     change.
#   ping -c 5 to the gateway and to the mapped host address, over IPv4 and
#     IPv6, once the host namespace allows ping sockets for the relay's
#     group (the sysctl is per namespace: the relay's own, not the
#     namespace it serves): every request answered. Also a 4000-byte ping
#     (payload integrity is checked by ping itself).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

MAP4=192.0.2.3
MAP6=2001:db8::3

rig_init
rig_need ping || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

# relay_up() - test: start pasta in the foreground
relay_up() {
	rig_relay_start fg --map-guest-addr "$MAP4" --map-guest-addr "$MAP6"
}

# no_permission() - test: ping sockets refused, relay explains and survives
no_permission() {
	local range

	range=$(rig_h sysctl -n net.ipv4.ping_group_range | tr -s '\t ' ' ')
	[ "$range" = "1 0" ] ||
		rig_fail "unexpected default ping_group_range: $range" ||
		return 1
	! rig_g ping -c 1 -W 1 "$RIG_GW4" >/dev/null 2>&1 ||
		rig_fail "ping answered without ping socket permission" ||
		return 1
	! rig_g ping -c 1 -W 1 "$RIG_GW6" >/dev/null 2>&1 ||
		rig_fail "IPv6 ping answered without permission" || return 1
	grep -q 'ping_group_range' "$RIG_RELAY_LOG" ||
		rig_fail "no hint about net.ipv4.ping_group_range in the log" ||
		return 1
	[ "$(grep -c 'ping_group_range' "$RIG_RELAY_LOG")" -eq 1 ] ||
		rig_fail "the hint was logged more than once"
}

# allow() - test: allow ping sockets for every group in the host namespace
allow() {
	rig_persist
	rig_sysctl_set net.ipv4.ping_group_range "0 2147483647" "$RIG_HOSTNS"
}

# ping_ok() - test: every echo request is answered
# $1: address
# $2...: more ping options
ping_ok() {
	local addr=$1 out
	shift

	out=$(rig_g timeout 20 ping -c 5 -i 0.2 -W 2 "$@" "$addr" 2>&1)
	rig_log "$(grep -E 'transmitted|rtt' <<<"$out" | tr '\n' ' ')"
	grep -q '5 packets transmitted, 5 received' <<<"$out" ||
		rig_fail "$(grep transmitted <<<"$out")"
}

rig_run "relay starts with --map-guest-addr $MAP4, $MAP6" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

rig_run "icmp without ping socket permission: fails, one hint logged" \
	no_permission
rig_run "allow ping sockets in the host namespace" allow

rig_run "icmp ping -c 5 IPv4 gateway (host loopback)" ping_ok "$RIG_GW4"
rig_run "icmp ping -c 5 IPv6 gateway (host loopback)" ping_ok "$RIG_GW6"
rig_run "icmp ping -c 5 IPv4 $MAP4 (host address)" ping_ok "$MAP4"
rig_run "icmp ping -c 5 IPv6 $MAP6 (host address)" ping_ok "$MAP6"
rig_run "icmp ping -c 5 IPv4 gateway, 4000-byte payload" ping_ok "$RIG_GW4" \
	-s 4000
rig_run "icmp ping -c 5 IPv6 gateway, 4000-byte payload" ping_ok "$RIG_GW6" \
	-s 4000

rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
