#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_follow_vpn.sh - pasta --config-net follows a VPN
# coming up and going on the host, and converges with a fresh start
# (issue 37)
#
# Rig (tests/lib/rig.sh): the "host" namespace's veth0 has 192.0.2.2/24
# and 2001:db8::2/64, default routes via .1 (metric 100, as
# NetworkManager gives a wired link) and ::1 (metric 1024). One pasta,
# following the host (-d: its log tells when it looked again), serves the
# target namespace through all tests. A VPN is a tun device, vpn0, that a
# socat process holds open (carrier up), as a VPN client holds its
# device; the VPN goes when that process ends, and its device with its
# addresses and routes, as when a client exits. Three shapes:
#
#   wg:    WireGuard-like: 198.51.100.10/32 and 2001:db8:5::10/128, and
#          default routes through the device with no gateway, metric 50:
#          vpn0 becomes the template. The guest's preferred addresses are
#          the VPN's, its preferred default routes have no gateway.
#   p2p:   OpenVPN-like point-to-point: 198.51.100.10 peer 198.51.100.9,
#          2001:db8:5::10/64, default routes via 198.51.100.9 and
#          2001:db8:5::1, metric 50: the guest's default routes go via
#          those gateways, which now map to the host's loopback.
#   split: OpenVPN's "def1": 0.0.0.0/1 + 128.0.0.0/1 and ::/1 + 8000::/1
#          through vpn0, the default routes left alone: the template
#          stays veth0 (for upstream's pasta too), and the guest keeps
#          its picture.
#
# After each change (up, and gone), with the follower's log showing that
# it looked again (polled up to FOLLOW_BOUND s):
#   - the guest's picture (per family: preferred global addresses with
#     prefix lengths, gateway of the preferred default route or "dev" if
#     it has none; the tap's MTU) is the one expected;
#   - a pasta started fresh on the host as it is now gives its namespace
#     the same picture (convergence); with tests/run --upstream, so does
#     upstream's pasta (same start-up rules);
#   - TCP transfers started now, IPv4 and IPv6, from the guest to a
#     server on the host (an address of the host's loopback device,
#     reached through the guest's default route), and through the
#     gateway when there is one (mapped to the host's loopback): sha256
#     intact.
#
# No timing assertion: every wait is a poll up to a generous bound.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

VPN4=198.51.100.10
VPNPEER4=198.51.100.9
VPN6=2001:db8:5::10
VPNGW6=2001:db8:5::1
SRV4=198.51.100.200	# server addresses on the host's loopback device
SRV6=2001:db8:9::200
METRIC_LAN=100		# the host's own default route, IPv4
METRIC_VPN=50		# the VPN's, below both the LAN's
PORT=10381
LIMIT=30
FOLLOW_BOUND=10		# seconds to poll for the namespace to follow
MTU=65520		# pasta's default: not derived from the template

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1

FOLLOW_LOG=$RIG_TMP/follow.log
VPN_PID=
FRESH=

# START_PIC - the rig's picture, before any VPN and after each one went
START_PIC="ipv4 $RIG_ADDR4/24 via $RIG_GW4"
START_PIC+=" ipv6 $RIG_ADDR6/64 via $RIG_GW6 mtu $MTU"

# guest_af() - one family of a namespace's picture
# $1: namespace
# $2: 4 or 6
# Prints "ipvF ADDRS via GW": ADDRS the preferred (not deprecated) global
# addresses with prefix lengths, sorted, comma-separated ("none"); GW the
# gateway of the first (preferred) default route, "dev" if it has none,
# "none" if there is no default route
guest_af() {
	local a gw

	a=$(ip -n "$1" -"$2" -j addr show scope global | jq -r '
		[.[].addr_info[] | select(.local and .preferred_life_time != 0) |
		 "\(.local)/\(.prefixlen)"] | sort | join(",")')
	gw=$(ip -n "$1" -"$2" route show default | awk 'NR == 1 {
		g = "dev"
		for (i = 1; i < NF; i++) if ($i == "via") g = $(i + 1)
		print g }')
	echo "ipv$2 ${a:-none} via ${gw:-none}"
}

# guest_pic() - a namespace's picture: both families, the tap's MTU
# $1: namespace
guest_pic() {
	local mtu

	mtu=$(ip -n "$1" -j link show | jq -r '
		[.[] | select(.ifname != "lo") | .mtu] | join(",")')
	echo "$(guest_af "$1" 4) $(guest_af "$1" 6) mtu $mtu"
}

# pic_is() - does a namespace show a picture?
# $1: namespace
# $2: picture
pic_is() {
	[ "$(guest_pic "$1")" = "$2" ]
}

# looks() - number of times the follower looked at the host again
looks() {
	grep -c "Host network" "$FOLLOW_LOG"
}

# looked_since() - did the follower look again since a count?
# $1: count before the change
looked_since() {
	[ "$(looks)" -gt "$1" ]
}

# fresh_pic() - start a pasta on the host as it is now, take its
# namespace's picture, stop it
# $1: binary (ours, or upstream's)
# Sets FRESH. Return: 1 if it didn't start
fresh_pic() {
	local bin=$1 ns pid pidf=$RIG_TMP/fresh.pid log=$RIG_TMP/fresh.log

	FRESH=
	rig_ns_new ns x || return 1
	rm -f "$pidf"
	rig_h timeout 30 "$bin" --runas 0 -q --config-net -t none -u none \
		-T none -U none -P "$pidf" --netns "$ns" >"$log" 2>&1 ||
		rig_fail "$bin didn't start: $(tr '\n' ' ' <"$log")" ||
		return 1
	pid=$(cat "$pidf" 2>/dev/null)
	[ -n "$pid" ] || rig_fail "$bin wrote no PID file" || return 1
	# Upstream's pasta may go on configuring after it returned
	rig_poll 5 eval "guest_af '$ns' 6 | grep -qv ' none '"
	FRESH=$(guest_pic "$ns")
	rig_kill "$pid"
	rig_ns_del "$ns"
}

# converged() - the follower shows the expected picture, and a fresh
# start (ours, and upstream's if given) gives the same
# $1: expected picture
# $2: number of looks before the change (-1: don't wait for one)
converged() {
	local want=$1 n=$2 up

	rig_poll "$FOLLOW_BOUND" looked_since "$n" ||
		rig_fail "the follower did not look again within" \
			 "$FOLLOW_BOUND s" || return 1
	rig_poll "$FOLLOW_BOUND" pic_is "$RIG_NS" "$want" ||
		rig_fail "following: '$(guest_pic "$RIG_NS")', expected" \
			 "'$want'" || return 1
	fresh_pic "$RELAY" || return 1
	[ "$FRESH" = "$want" ] ||
		rig_fail "fresh start: '$FRESH', following: '$want'" ||
		return 1
	up=$(rig_upstream pasta) || return 0
	fresh_pic "$up" || return 1
	[ "$FRESH" = "$want" ] ||
		rig_fail "upstream's fresh start: '$FRESH', ours: '$want'"
}

# host_setup() - the LAN's IPv4 default route gets metric 100, a server
# address on the host's loopback device for each family
host_setup() {
	ip -n "$RIG_HOSTNS" route add default via "$RIG_GW4" \
		metric "$METRIC_LAN" &&
	ip -n "$RIG_HOSTNS" route del default via "$RIG_GW4" metric 0 &&
	ip -n "$RIG_HOSTNS" addr add "$SRV4/32" dev lo &&
	ip -n "$RIG_HOSTNS" addr add "$SRV6/128" dev lo
}

# vpn_dev() - a VPN client's tun device, vpn0, held open, up
# Sets VPN_PID; the device goes when the test ends (or vpn_gone())
vpn_dev() {
	ip netns exec "$RIG_HOSTNS" socat -u \
		TUN,tun-name=vpn0,tun-type=tun,iff-no-pi,iff-up /dev/null \
		2>"$RIG_TMP/vpn.err" &
	VPN_PID=$!
	rig_defer "rig_kill $VPN_PID"
	rig_poll 5 eval "ip -n '$RIG_HOSTNS' link show vpn0 \
			 >/dev/null 2>&1" ||
		rig_fail "no tun device: $(tr '\n' ' ' <"$RIG_TMP/vpn.err")" ||
		return 1
	ip -n "$RIG_HOSTNS" link set vpn0 up
}

# vpn_gone() - the VPN client exits: its device goes, and with it its
# addresses and routes
vpn_gone() {
	rig_kill "$VPN_PID"
	rig_poll 5 eval "! ip -n '$RIG_HOSTNS' link show vpn0 \
			 >/dev/null 2>&1" ||
		rig_fail "vpn0 still there after its process ended"
}

# xfer() - TCP transfers from the guest to the host: to the server
# addresses, and through the gateways to the host's loopback unless
# "nogw"
# $1: "gw" or "nogw"
xfer() {
	local gw4 gw6

	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP4-LISTEN:$PORT,bind=$SRV4" \
		"ip netns exec $RIG_NS" "TCP4:$SRV4:$PORT" \
		"$DATA" "$LIMIT" || return 1
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP6-LISTEN:$PORT,bind=[$SRV6]" \
		"ip netns exec $RIG_NS" "TCP6:[$SRV6]:$PORT" \
		"$DATA" "$LIMIT" || return 1
	[ "$1" = gw ] || return 0

	gw4=$(guest_af "$RIG_NS" 4 | awk '{ print $4 }')
	gw6=$(guest_af "$RIG_NS" 6 | awk '{ print $4 }')
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"ip netns exec $RIG_NS" "TCP4:$gw4:$PORT" \
		"$DATA" "$LIMIT" || return 1
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP6-LISTEN:$PORT,bind=[::1]" \
		"ip netns exec $RIG_NS" "TCP6:[$gw6]:$PORT" \
		"$DATA" "$LIMIT"
}

# start() - test: the follower starts on the rig's picture, as a fresh
# start does
start() {
	host_setup || rig_fail "can't set the host up" || return 1
	rig_relay_start daemon -d -l "$FOLLOW_LOG" --follow-host ||
		return 1
	converged "$START_PIC" -1 && xfer gw
}

# change() - a change on the host, then what the guest must show
# $1: function making the change
# $2: expected picture
# $3: "gw" or "nogw", for xfer()
change() {
	local n

	n=$(looks)
	"$1" || rig_fail "${RIG_WHY:-the host could not be changed}" || return 1
	converged "$2" "$n" && xfer "$3"
}

# wg_up() - a WireGuard-like VPN: no gateway, lower metrics
wg_up() {
	vpn_dev &&
	ip -n "$RIG_HOSTNS" addr add "$VPN4/32" dev vpn0 &&
	ip -n "$RIG_HOSTNS" addr add "$VPN6/128" dev vpn0 &&
	ip -n "$RIG_HOSTNS" route add default dev vpn0 metric "$METRIC_VPN" &&
	ip -n "$RIG_HOSTNS" -6 route add default dev vpn0 \
		metric "$METRIC_VPN"
}

# p2p_up() - an OpenVPN-like point-to-point VPN, default routes through
# its gateways with lower metrics
p2p_up() {
	vpn_dev &&
	ip -n "$RIG_HOSTNS" addr add "$VPN4" peer "$VPNPEER4/32" dev vpn0 &&
	ip -n "$RIG_HOSTNS" addr add "$VPN6/64" dev vpn0 &&
	ip -n "$RIG_HOSTNS" route add default via "$VPNPEER4" dev vpn0 \
		metric "$METRIC_VPN" &&
	ip -n "$RIG_HOSTNS" -6 route add default via "$VPNGW6" dev vpn0 \
		metric "$METRIC_VPN"
}

# split_up() - OpenVPN's def1: two halves of the address space through
# the VPN, the default routes untouched
split_up() {
	vpn_dev &&
	ip -n "$RIG_HOSTNS" addr add "$VPN4/32" dev vpn0 &&
	ip -n "$RIG_HOSTNS" addr add "$VPN6/128" dev vpn0 &&
	ip -n "$RIG_HOSTNS" route add 0.0.0.0/1 dev vpn0 &&
	ip -n "$RIG_HOSTNS" route add 128.0.0.0/1 dev vpn0 &&
	ip -n "$RIG_HOSTNS" -6 route add ::/1 dev vpn0 &&
	ip -n "$RIG_HOSTNS" -6 route add 8000::/1 dev vpn0
}

# vpn_test() - test: a VPN comes up, then goes
# $1: function bringing it up
# $2: picture expected while it is up
# $3: "gw" or "nogw": transfers through the gateway while it is up
vpn_test() {
	change "$1" "$2" "$3" || return 1
	rig_log "up: $2"
	change vpn_gone "$START_PIC" gw
}

rig_run start start
rig_run wg vpn_test wg_up \
	"ipv4 $VPN4/32 via dev ipv6 $VPN6/128 via dev mtu $MTU" nogw
rig_run p2p vpn_test p2p_up \
	"ipv4 $VPN4/32 via $VPNPEER4 ipv6 $VPN6/64 via $VPNGW6 mtu $MTU" gw
rig_run split vpn_test split_up "$START_PIC" gw
rig_run stop rig_relay_stop_check
rig_summary
