#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_follow_host.sh - passt's NDP and DHCP follow the
# host's network while it runs (issue 37, first part)
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt in the rig's host
# namespace (veth0: 192.0.2.2/24, default route via 192.0.2.1); the guest
# is a namespace whose tap device tap_bridge connects to passt's socket.
#
#   before: busybox udhcpc in the guest gets 192.0.2.2/24 via 192.0.2.1,
#           for the --dhcp-lease default, 600 s (renewal at 300 s);
#           with router advertisements accepted, the guest makes an
#           address in 2001:db8::/64.
#   after:  the host moves to 198.51.100.2/24 via 198.51.100.1 and
#           2001:db8:1::2/64 via 2001:db8:1::1. IPv6: passt sends a router
#           advertisement at once, with the new prefix and the old one
#           deprecated; the guest ends with a preferred address in
#           2001:db8:1::/64, its 2001:db8::/64 one deprecated, and TCP to
#           the new gateway reaches the host's ::1. IPv4: a new DHCP
#           exchange (as a renewing guest falls back to, after a NAK for
#           its old address) gets the new address and router; with them
#           applied, TCP through the new gateway reaches the host's
#           loopback. sha256 intact; states polled up to FOLLOW_BOUND s.
#
# IPv4: passt doesn't make the guest renew at once (no forced renewal
# yet): the guest asks. No timing assertion.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

NEW4=198.51.100.2
NEWGW4=198.51.100.1
NEW6=2001:db8:1::2
NEWGW6=2001:db8:1::1
LIMIT=30
FOLLOW_BOUND=10		# seconds to poll for the new lease
LEASE_S=600		# --dhcp-lease default while following the host

rig_init
passt_init
rig_need busybox || exit 1		# udhcpc
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1
SOCK=$RIG_TMP/passt.socket

# lease_is() - does a new DHCP exchange give this address and router?
# $1: address
# $2: router
lease_is() {
	local lease=$RIG_TMP/lease.$RANDOM

	passt_dhcp "$RIG_NS" "$lease" >/dev/null || return 1
	[ "$(passt_lease_var "$lease" ip)" = "$1" ] &&
	[ "$(passt_lease_var "$lease" router)" = "$2" ] || return 1
	cp "$lease" "$RIG_TMP/lease.last"
	[ "$(passt_lease_var "$lease" lease)" = "$LEASE_S" ] ||
		rig_fail "lease time $(passt_lease_var "$lease" lease)," \
			 "expected $LEASE_S (--dhcp-lease default)"
}

# slaac_state() - print the state of the guest's SLAAC address in a /64:
# "preferred", "deprecated" or "absent"
# $1: the start of its addresses as ip prints them (2001:db8:1:0:)
slaac_state() {
	local line

	line=$(ip -n "$RIG_NS" -6 -o addr show dev "$PASST_TAP" scope global \
		dynamic | grep -E " $1[0-9a-f:]+/64 ")
	rig_addr_state "$line"
}

# moved6() - does the guest prefer the new prefix, the old deprecated?
moved6() {
	[ "$(slaac_state 2001:db8:1:0:)" = preferred ] &&
	[ "$(slaac_state 2001:db8::)" = deprecated ]
}

# before() - test: passt starts, the guest gets the host's address
before() {
	passt_start fg "$SOCK" || return 1
	passt_guest_start "$RIG_NS" || return 1
	ip -n "$RIG_NS" link set "$PASST_TAP" up || return 1
	lease_is "$RIG_ADDR4" "$RIG_GW4" ||
		rig_fail "no lease of $RIG_ADDR4 via $RIG_GW4" || return 1
	rig_g sysctl -qw "net.ipv6.conf.$PASST_TAP.accept_ra=1" &&
	ip -n "$RIG_NS" link set "$PASST_TAP" down &&
	ip -n "$RIG_NS" link set "$PASST_TAP" up || return 1
	rig_poll "$FOLLOW_BOUND" eval \
		"[ \"\$(slaac_state 2001:db8::)\" = preferred ]" ||
		rig_fail "no SLAAC address in 2001:db8::/64:" \
			 "$(rig_addrs "$RIG_NS")"
}

# after() - test: after the host moved, DHCP gives the new configuration,
# and it carries traffic
after() {
	ip -n "$RIG_HOSTNS" addr add "$NEW4/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" neigh replace "$NEWGW4" lladdr "$RIG_GW_MAC" \
		dev veth0 nud permanent &&
	ip -n "$RIG_HOSTNS" route replace default via "$NEWGW4" &&
	ip -n "$RIG_HOSTNS" addr add "$NEW6/64" dev veth0 nodad &&
	ip -n "$RIG_HOSTNS" neigh replace "$NEWGW6" lladdr "$RIG_GW_MAC" \
		dev veth0 nud permanent &&
	ip -n "$RIG_HOSTNS" -6 route replace default via "$NEWGW6" &&
	ip -n "$RIG_HOSTNS" addr del "$RIG_ADDR4/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" addr del "$RIG_ADDR6/64" dev veth0 ||
		rig_fail "can't move the host" || return 1

	rig_poll "$FOLLOW_BOUND" moved6 ||
		rig_fail "IPv6 after $FOLLOW_BOUND s: $(rig_addrs "$RIG_NS")" ||
		return 1
	rig_transfer "$RIG_NS" "TCP6:[$NEWGW6]:7001" \
		"$RIG_HOSTNS" "TCP6-LISTEN:7001,bind=[::1]" \
		"$DATA" "$LIMIT" || return 1

	rig_poll "$FOLLOW_BOUND" lease_is "$NEW4" "$NEWGW4" ||
		rig_fail "no lease of $NEW4 via $NEWGW4 after" \
			 "$FOLLOW_BOUND s" || return 1
	passt_lease_apply "$RIG_NS" "$RIG_TMP/lease.last" || return 1
	rig_transfer "$RIG_NS" "TCP4:$NEWGW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT"
}

rig_run before before
rig_run after after
rig_run stop rig_relay_stop_check
rig_summary
