#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_follow_host.sh - pasta --config-net follows the
# host's addresses and default routes while it runs (issue 37)
#
# Rig (tests/lib/rig.sh): the "host" namespace's veth0 starts with
# 192.0.2.2/24 and 2001:db8::2/64, default routes via .1 and ::1. Two pasta
# instances serve two namespaces: one follows the host (--follow-host, as
# the test runs them as root of the initial user namespace), one
# has --no-follow-host. Then the host moves to 198.51.100.2/24 and
# 2001:db8:1::2/64 with default routes via their .1 and ::1, as a laptop
# changing networks does (new address and route first, old address last).
#
#   across:    a TCP transfer from the host's loopback to the following
#              namespace, through its start-up gateway, is half done when
#              the host moves; the rest is sent once the namespace shows
#              the new picture: sha256 intact. The following namespace
#              ends with the new addresses (preferred) and default routes,
#              the old ones deprecated (kept for connections like this);
#              polled up to FOLLOW_BOUND s, then asserted.
#   after:     new transfers through the new gateways (IPv4 and IPv6),
#              which must now reach the host's loopback, and one into the
#              namespace through a -t port, spliced to the namespace's new
#              address (not the deprecated one its old connection still
#              sends from): sha256 intact.
#   logged:    each change logged once, "old -> new", at info level.
#   no_follow: the --no-follow-host namespace kept its start-up picture,
#              asserted after the following one converged (so the change
#              was seen).
#   late:      pasta started from a host namespace with no address and no
#              route gets link-local IPv4 placeholders instead of
#              exiting; once that host has 192.0.2.2/24 and a default
#              route, the namespace has them too, and a transfer through
#              the gateway is sha256-intact.
#   flips:     1,000 address flips on the host (ip -batch, no pause): the
#              relay's RSS grows by at most RSS_TOLERANCE_KIB and its
#              descriptor count by at most FD_TOLERANCE, it ends on the
#              host's final picture, and a transfer still carries intact
#              data.
#   userns:    pasta as root of a user namespace that maps only itself
#              (rootless containers), serving a namespace of that user
#              namespace: the host moves back to 192.0.2.2/24 and
#              2001:db8::2/64, and that namespace follows (its worker
#              thread holds CAP_NET_ADMIN over it, not over the host).
#
# No timing assertion: every wait is a poll up to a generous bound.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

NEW4=198.51.100.2
NEWGW4=198.51.100.1
ALT4=198.51.100.3
NEW6=2001:db8:1::2
NEWGW6=2001:db8:1::1
PORT=10371
IN_PORT=10372
LIMIT=30
FOLLOW_BOUND=10		# seconds to poll for the namespace to follow
FLIPS=1000
RSS_TOLERANCE_KIB=1024	# RSS growth allowed over the flips
FD_TOLERANCE=0		# descriptors: none more

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1
rig_ns_new NS_FIXED f || exit 1
rig_ns_new NS_LATE l || exit 1
rig_ns_new HOST_LATE e || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1

FOLLOW_PID=
FIXED_PID=
FOLLOW_LOG=$RIG_TMP/follow.log

# ns_default() - print a namespace's default route gateway of a family
# $1: namespace
# $2: -4 or -6
ns_default() {
	ip -n "$1" "$2" route show default | awk '{ print $3; exit }'
}

# ns_addr_state() - print "preferred", "deprecated" or "absent"
# $1: namespace
# $2: address (no prefix length)
ns_addr_state() {
	local line

	line=$(ip -n "$1" -o addr show | grep -F " $2/")
	rig_addr_state "$line"
}

# ns_shows() - does a namespace show an address (preferred) and gateways?
# $1: namespace
# $2: IPv4 address
# $3: IPv4 gateway
# $4: IPv6 address
# $5: IPv6 gateway
ns_shows() {
	[ "$(ns_addr_state "$1" "$2")" = preferred ] &&
	[ "$(ns_addr_state "$1" "$4")" = preferred ] &&
	[ "$(ns_default "$1" -4)" = "$3" ] &&
	[ "$(ns_default "$1" -6)" = "$5" ]
}

# ns_picture() - one line: addresses and default routes, for messages
# $1: namespace
ns_picture() {
	echo "$(rig_addrs "$1") | default4 $(ns_default "$1" -4)" \
	     "default6 $(ns_default "$1" -6)"
}

# relay_fds() - number of descriptors of the following relay
relay_fds() {
	find "/proc/$FOLLOW_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# relay_rss() - resident set of the following relay, KiB
relay_rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$FOLLOW_PID/status"
}

# start() - test: both relays start on the host's start-up picture
start() {
	local ns=$RIG_NS

	rig_relay_start daemon -t "$IN_PORT" -l "$FOLLOW_LOG" --follow-host ||
		return 1
	FOLLOW_PID=$RIG_RELAY_PID
	RIG_NS=$NS_FIXED
	rig_relay_start daemon -t none --no-follow-host
	FIXED_PID=$RIG_RELAY_PID
	RIG_NS=$ns
	RIG_RELAY_PID=$FOLLOW_PID
	[ -n "$FIXED_PID" ] || return 1
	ns_shows "$RIG_NS" "$RIG_ADDR4" "$RIG_GW4" "$RIG_ADDR6" "$RIG_GW6" ||
		rig_fail "start-up picture: $(ns_picture "$RIG_NS")"
}

# half_received() - has the receiver of across() got the first half?
# $1: file it writes
half_received() {
	[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge 524288 ]
}

# across() - test: a transfer running across the move survives it, and
# the namespace ends with the host's new picture
across() {
	local gate=$RIG_TMP/gate out=$RIG_TMP/across.out spid cpid

	mkfifo "$gate" || return 1
	ip netns exec "$RIG_HOSTNS" timeout -k 5 $((LIMIT * 2)) socat -u \
		SYSTEM:"head -c 524288 $DATA; cat $gate >/dev/null; tail -c +524289 $DATA" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_wait_listen "$RIG_HOSTNS" "$PORT" || return 1
	ip netns exec "$RIG_NS" timeout -k 5 $((LIMIT * 2)) socat -u \
		"TCP4:$RIG_GW4:$PORT" "CREATE:$out" &
	cpid=$!
	rig_defer "rig_kill $cpid"
	rig_poll "$LIMIT" half_received "$out" ||
		rig_fail "first half not received" || return 1

	rig_host_move "$NEW4" "$NEW6" "$NEWGW4" "$NEWGW6" ||
		rig_fail "can't change the host's addresses" || return 1
	rig_poll "$FOLLOW_BOUND" ns_shows "$RIG_NS" "$NEW4" "$NEWGW4" \
		"$NEW6" "$NEWGW6" ||
		rig_fail "after $FOLLOW_BOUND s the namespace shows" \
			 "$(ns_picture "$RIG_NS")" || return 1
	[ "$(ns_addr_state "$RIG_NS" "$RIG_ADDR4")" = deprecated ] &&
	[ "$(ns_addr_state "$RIG_NS" "$RIG_ADDR6")" = deprecated ] ||
		rig_fail "old addresses not deprecated:" \
			 "$(ip -n "$RIG_NS" -o addr show | tr -s ' \n' ' ')" ||
		return 1

	echo go >"$gate"
	rig_wait_pid "$cpid" "$LIMIT" ||
		rig_fail "transfer across the change did not finish" ||
		return 1
	rig_sha_eq "$DATA" "$out"
}

# after() - test: new transfers through the new gateways and into the
# namespace through a forwarded port
after() {
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"ip netns exec $RIG_NS" "TCP4:$NEWGW4:$PORT" \
		"$DATA" "$LIMIT" || return 1
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP6-LISTEN:$PORT,bind=[::1]" \
		"ip netns exec $RIG_NS" "TCP6:[$NEWGW6]:$PORT" \
		"$DATA" "$LIMIT" || return 1
	# Spliced into the namespace, to its address: the new one
	pasta_tcp_sha "ip netns exec $RIG_NS" "TCP4-LISTEN:$IN_PORT" \
		"ip netns exec $RIG_HOSTNS" "TCP4:127.0.0.1:$IN_PORT" \
		"$DATA" "$LIMIT" && pasta_peer_is "$NEW4"
}

# logged() - test: each change logged once, with old and new
logged() {
	local line n

	for line in \
	    "IPv4 address $RIG_ADDR4/24 -> $NEW4/24" \
	    "IPv4 gateway $RIG_GW4 -> $NEWGW4" \
	    "IPv6 address $RIG_ADDR6/64 -> $NEW6/64" \
	    "IPv6 gateway $RIG_GW6 -> $NEWGW6"; do
		n=$(grep -cF "Host network changed: $line" "$FOLLOW_LOG")
		[ "$n" = 1 ] || rig_fail "\"$line\" logged $n times" ||
			return 1
	done
}

# no_follow() - test: --no-follow-host kept the start-up picture
no_follow() {
	ns_shows "$NS_FIXED" "$RIG_ADDR4" "$RIG_GW4" "$RIG_ADDR6" \
		"$RIG_GW6" ||
		rig_fail "--no-follow-host namespace changed:" \
			 "$(ns_picture "$NS_FIXED")"
	[ "$(ns_addr_state "$NS_FIXED" "$NEW4")" = absent ] ||
		rig_fail "--no-follow-host namespace got $NEW4"
}

# late_converged() - does the late namespace have the host's IPv4 picture?
late_converged() {
	[ "$(ns_addr_state "$NS_LATE" "$RIG_ADDR4")" = preferred ] &&
	[ "$(ns_default "$NS_LATE" -4)" = "$RIG_GW4" ]
}

# late() - test: a relay started before the host's network comes up
late() {
	local host=$RIG_HOSTNS

	ip -n "$HOST_LATE" link add veth0 type veth peer name veth1 &&
	ip -n "$HOST_LATE" link set veth0 up &&
	ip -n "$HOST_LATE" link set veth1 up || return 1
	RIG_HOSTNS=$HOST_LATE
	pasta_start netns --runas 0 --config-net --follow-host -t none \
		-u none -T none -U none --netns "$NS_LATE"
	RIG_HOSTNS=$host
	[ -n "$PASTA_PID" ] || return 1
	[ "$(ns_addr_state "$NS_LATE" 169.254.2.1)" = preferred ] ||
		rig_fail "no placeholder address: $(ns_picture "$NS_LATE")" ||
		return 1

	ip -n "$HOST_LATE" addr add "$RIG_ADDR4/24" dev veth0 &&
	ip -n "$HOST_LATE" neigh add "$RIG_GW4" lladdr "$RIG_GW_MAC" \
		dev veth0 nud permanent &&
	ip -n "$HOST_LATE" route add default via "$RIG_GW4" || return 1
	rig_poll "$FOLLOW_BOUND" late_converged ||
		rig_fail "after $FOLLOW_BOUND s the namespace shows" \
			 "$(ns_picture "$NS_LATE")" || return 1
	pasta_tcp_sha "ip netns exec $HOST_LATE" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"ip netns exec $NS_LATE" "TCP4:$RIG_GW4:$PORT" \
		"$DATA" "$LIMIT"
}

# host_move_back() - the host goes back to the rig's start-up network
host_move_back() {
	ip -n "$RIG_HOSTNS" addr add "$RIG_ADDR4/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" addr add "$RIG_ADDR6/64" dev veth0 nodad &&
	ip -n "$RIG_HOSTNS" route replace default via "$RIG_GW4" &&
	ip -n "$RIG_HOSTNS" -6 route replace default via "$RIG_GW6" &&
	ip -n "$RIG_HOSTNS" addr del "$NEW4/24" dev veth0 &&
	ip -n "$RIG_HOSTNS" addr del "$NEW6/64" dev veth0
}

# userns() - test: pasta in a user namespace mapping only itself follows
userns() {
	local sp name="${RIG_PREFIX}u" pidfile=$RIG_TMP/userns.pid

	ip netns exec "$RIG_HOSTNS" unshare -U -r unshare -n \
		sleep $((LIMIT * 4)) &
	sp=$!
	rig_defer "rig_kill $sp"
	rig_poll 5 eval "[ \"\$(readlink /proc/$sp/exe)\" = \
			 \"\$(command -v sleep)\" ]" ||
		rig_fail "no user namespace holder" || return 1
	ip netns attach "$name" "$sp" || return 1
	rig_defer "ip netns del '$name'"

	ip netns exec "$RIG_HOSTNS" nsenter -t "$sp" -U "$RELAY" \
		--config-net -t none -u none -T none -U none -P "$pidfile" \
		--netns "/proc/$sp/ns/net" >"$RIG_TMP/userns.log" 2>&1 ||
		rig_fail "pasta in the user namespace failed:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/userns.log")" || return 1
	rig_defer "rig_kill $(cat "$pidfile")"
	ns_shows "$name" "$NEW4" "$NEWGW4" "$NEW6" "$NEWGW6" ||
		rig_fail "start-up picture: $(ns_picture "$name")" || return 1

	host_move_back || rig_fail "can't move the host back" || return 1
	rig_poll "$FOLLOW_BOUND" ns_shows "$name" "$RIG_ADDR4" "$RIG_GW4" \
		"$RIG_ADDR6" "$RIG_GW6" ||
		rig_fail "after $FOLLOW_BOUND s the namespace shows" \
			 "$(ns_picture "$name")"
}

# flips() - test: 1,000 rapid address flips leave RSS and descriptors
# flat and the data path working
flips() {
	local batch=$RIG_TMP/flips.batch rss0 fd0 rss1 fd1 i

	# A new address in the subnet of a primary one is secondary: promote
	# it when the primary goes, as most distributions do
	ip netns exec "$RIG_HOSTNS" sysctl -qw \
		net.ipv4.conf.veth0.promote_secondaries=1 || return 1
	rss0=$(relay_rss) && fd0=$(relay_fds) || return 1
	: >"$batch"
	for i in $(seq "$FLIPS"); do
		if [ $((i % 2)) -eq 1 ]; then
			echo "addr add $ALT4/24 dev veth0"
			echo "addr del $NEW4/24 dev veth0"
		else
			echo "addr add $NEW4/24 dev veth0"
			echo "addr del $ALT4/24 dev veth0"
		fi
	done >>"$batch"
	ip -n "$RIG_HOSTNS" -batch "$batch" ||
		rig_fail "ip -batch of the flips failed" || return 1
	# FLIPS is even: the host ends on NEW4
	rig_poll "$FOLLOW_BOUND" ns_shows "$RIG_NS" "$NEW4" "$NEWGW4" \
		"$NEW6" "$NEWGW6" ||
		rig_fail "after the flips: $(ns_picture "$RIG_NS")" || return 1
	rss1=$(relay_rss) && fd1=$(relay_fds) || return 1
	rig_log "RSS $rss0 -> $rss1 KiB, descriptors $fd0 -> $fd1"
	[ "$rss1" -le $((rss0 + RSS_TOLERANCE_KIB)) ] ||
		rig_fail "RSS grew from $rss0 to $rss1 KiB" || return 1
	[ "$fd1" -le $((fd0 + FD_TOLERANCE)) ] ||
		rig_fail "descriptors grew from $fd0 to $fd1" || return 1
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" \
		"TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"ip netns exec $RIG_NS" "TCP4:$NEWGW4:$PORT" \
		"$DATA" "$LIMIT"
}

rig_run start start
rig_run across across
rig_run after after
rig_run logged logged
rig_run no_follow no_follow
rig_run late late
rig_run flips flips
rig_run userns userns
rig_run stop rig_relay_stop_check
rig_summary
