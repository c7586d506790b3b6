#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/lan_neighbours.sh - ARP and NDP answers give the real
# MAC addresses of the host's LAN neighbours (net/neigh.c)
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): the host namespace's veth0
# (192.0.2.2/24, 2001:db8::2/64) keeps its peer veth1, which moves to a
# "LAN" namespace of its own with a known MAC address and 192.0.2.5,
# 2001:db8::5: a neighbour of the host on the template interface. The
# host pings it, so that its neighbour table holds it; the gateway's entry
# (192.0.2.1, 2001:db8::1, 02:00:00:00:00:01) is the rig's permanent one.
# The guest pings and so asks for addresses (ARP, Neighbour Solicitation),
# then its neighbour table is read:
#
#   passt (guest: a namespace behind tools/tap_bridge) and pasta:
#     - the neighbour's addresses: its MAC address, both families;
#     - another address of the subnet, and the gateway (which the relay
#       stands for, --map-host-loopback): the relay's MAC address;
#   passt, a neighbour appearing later (a second address of the LAN
#     namespace, 192.0.2.7 and 2001:db8::7) after the guest cached the
#     relay's MAC address for it: the relay announces it (gratuitous ARP,
#     unsolicited Neighbour Advertisement) and the guest's entry changes;
#   passt --no-map-gw: the gateway is a plain neighbour, its real MAC.
#
# With --upstream PATH, the solicited answers are compared with
# upstream's passt (its announcements are not: its unsolicited
# advertisement has the solicited flag on a multicast destination, which
# Linux drops, RFC 4861 7.1.2).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

LAN_MAC=02:00:5e:00:53:05
OUR_MAC=9a:55:9a:55:9a:55
LAN4=192.0.2.5
LAN6=2001:db8::5
LATE4=192.0.2.7
LATE6=2001:db8::7
OTHER4=192.0.2.6
OTHER6=2001:db8::6

rig_init
passt_init
rig_host_ns || exit 1
rig_ns_new LANNS lan || exit 1
# ICMP echo through the relay (root's group)
rig_h sysctl -qw net.ipv4.ping_group_range="0 2147483647" || exit 1

if ! ip -n "$RIG_HOSTNS" link set veth1 netns "$LANNS" ||
   ! ip -n "$LANNS" link set veth1 address "$LAN_MAC" ||
   ! ip netns exec "$LANNS" sysctl -qw net.ipv6.conf.veth1.accept_dad=0 ||
   ! ip -n "$LANNS" addr add "$LAN4"/24 dev veth1 ||
   ! ip -n "$LANNS" addr add "$LAN6"/64 dev veth1 nodad ||
   ! ip -n "$LANNS" link set veth1 up; then
	echo "FAIL: prerequisites: can't set up the LAN namespace"
	exit 1
fi
if ! rig_h ping -c 1 -W 2 "$LAN4" >/dev/null ||
   ! rig_h ping -c 1 -W 2 "$LAN6" >/dev/null; then
	echo "FAIL: prerequisites: the host can't reach its LAN neighbour"
	exit 1
fi
rig_log "host neighbours: $(rig_h ip neigh show dev veth0 | tr '\n' ';')"
PASST_SOCK_N=0

# mac_of() - the MAC address a namespace's neighbour table holds
# $1: namespace
# $2: address
# $3: device
mac_of() {
	ip -n "$1" neigh show "$2" dev "$3" |
		sed -n 's/.* lladdr \([0-9a-f:]*\).*/\1/p'
}

# resolve() - make a namespace ask for an address, then check the MAC it
# holds for it
# $1: namespace
# $2: device
# $3: address
# $4: expected MAC address
resolve() {
	local mac

	ip -n "$1" neigh del "$3" dev "$2" 2>/dev/null
	ip netns exec "$1" ping -c 1 -W 1 "$3" >/dev/null 2>&1
	rig_poll 3 eval "[ -n \"\$(mac_of $1 $3 $2)\" ]"
	mac=$(mac_of "$1" "$3" "$2")
	[ "$mac" = "$4" ] ||
		rig_fail "$3: the guest holds '$mac', expected $4 ($(ip -n \
			 "$1" neigh show "$3" dev "$2" | tr '\n' ' '))"
}

# passt_guest() - start a passt, a guest on it, configured statically
# $1: passt binary
# $@: more options
passt_guest() {
	local bin=$1 ns
	shift

	rig_ns_new ns g || return 1
	PASST_SOCK_N=$((PASST_SOCK_N + 1))
	PASST=$bin passt_start daemon "$RIG_TMP/passt.$PASST_SOCK_N.sock" \
		"$@" || return 1
	passt_guest_start "$ns" && passt_guest_static "$ns" || return 1
	GUEST=$ns
}

# answers() - test: the guest gets the neighbour's MAC, ours for others
# $1: passt binary
answers() {
	passt_guest "$1" || return 1
	resolve "$GUEST" "$PASST_TAP" "$LAN4" "$LAN_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$LAN6" "$LAN_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$OTHER4" "$OUR_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$OTHER6" "$OUR_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$RIG_GW4" "$OUR_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$RIG_GW6" "$OUR_MAC" || return 1
	# The neighbour answers through the relay, its MAC notwithstanding
	ip netns exec "$GUEST" ping -c 1 -W 2 "$LAN4" >/dev/null ||
		rig_fail "no answer from $LAN4 through the relay" || return 1
	rig_relay_stop_check
}

# late_neighbour() - test: a neighbour that appears is announced
# $1: passt binary
late_neighbour() {
	passt_guest "$1" || return 1
	resolve "$GUEST" "$PASST_TAP" "$LATE4" "$OUR_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$LATE6" "$OUR_MAC" || return 1

	ip -n "$LANNS" addr add "$LATE4"/24 dev veth1 &&
		ip -n "$LANNS" addr add "$LATE6"/64 dev veth1 nodad || return 1
	rig_defer "ip -n '$LANNS' addr del $LATE4/24 dev veth1;
		   ip -n '$LANNS' addr del $LATE6/64 dev veth1"
	# The guest's pings left failed entries on the host: start afresh
	rig_h ip neigh flush to "$LATE4" dev veth0
	rig_h ip -6 neigh flush to "$LATE6" dev veth0
	rig_poll 5 rig_h ping -c 1 -W 1 "$LATE4" >/dev/null &&
		rig_poll 5 rig_h ping -c 1 -W 1 "$LATE6" >/dev/null ||
		rig_fail "the host can't reach the new addresses" || return 1

	# No question from the guest: the announcement alone changes it
	rig_poll 3 eval "[ \"\$(mac_of $GUEST $LATE4 $PASST_TAP)\" = \
			 $LAN_MAC ]" ||
		rig_fail "$LATE4: guest still holds $(mac_of "$GUEST" "$LATE4" \
			 "$PASST_TAP")" || return 1
	rig_poll 3 eval "[ \"\$(mac_of $GUEST $LATE6 $PASST_TAP)\" = \
			 $LAN_MAC ]" ||
		rig_fail "$LATE6: guest still holds $(mac_of "$GUEST" "$LATE6" \
			 "$PASST_TAP")" || return 1
	rig_relay_stop_check
}

# no_map_gw() - test: --no-map-gw, the gateway's real MAC address
no_map_gw() {
	passt_guest "$PASST" --no-map-gw || return 1
	resolve "$GUEST" "$PASST_TAP" "$RIG_GW4" "$RIG_GW_MAC" &&
		resolve "$GUEST" "$PASST_TAP" "$LAN4" "$LAN_MAC" || return 1
	rig_relay_stop_check
}

# pasta_answers() - test: pasta's namespace, the same answers
pasta_answers() {
	rig_target_ns || return 1
	rig_relay_start daemon -t none || return 1
	resolve "$RIG_NS" veth0 "$LAN4" "$LAN_MAC" &&
		resolve "$RIG_NS" veth0 "$LAN6" "$LAN_MAC" &&
		resolve "$RIG_NS" veth0 "$OTHER4" "$OUR_MAC" || return 1
	rig_relay_stop_check
}

rig_run "passt: the LAN neighbour's MAC in ARP and NDP answers, ours for other addresses and the gateway" \
	answers "$PASST"
rig_run "passt: a neighbour appearing later is announced, the guest's cached entry changes (ARP, NDP)" \
	late_neighbour "$PASST"
rig_run "passt --no-map-gw: the gateway's real MAC address" no_map_gw
rig_run "pasta: the LAN neighbour's MAC in ARP and NDP answers" \
	pasta_answers
if up=$(rig_upstream passt); then
	rig_run "upstream passt: the same answers" answers "$up"
fi
rig_summary
