#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/loopback_resolver.sh - a host whose resolver is on its
# loopback (systemd-resolved's 127.0.0.53, the default of Fedora and
# Ubuntu), for pasta and for passt
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): two DNS responders of our
# own (tests/tools/dns_stub) in the host namespace, one at 127.0.0.53
# port 53 and one at [::1]:53, over UDP and TCP, each counting the queries
# it answered. The relays run in a mount namespace of their own where
# /etc/resolv.conf names them, as pasta_dns.sh does:
#
#   pasta --config-net with its default forwarding (-T auto, -U auto): the
#     namespace shares the host's /etc/resolv.conf, so its programs send
#     to 127.0.0.53 inside the namespace: dns_stub's query tool (a socket
#     connected to 127.0.0.53, which takes answers from there only) over
#     UDP and TCP, and glibc's resolver (getent) with the same
#     resolv.conf, over UDP and with "options use-vc" over TCP, all
#     answered by the host's 127.0.0.53 responder; the namespace's
#     listeners are the wildcard ones on its loopback interface;
#   passt, the guest a namespace behind tools/tap_bridge: DHCP offers the
#     gateway as DNS server, and a query to it over UDP and TCP reaches
#     127.0.0.53; router advertisements (RDNSS) and DHCPv6 offer the IPv6
#     gateway, and a query to it reaches ::1 (tools/dns6_probe asks);
#   passt with a mix of servers: DHCP offers them in the file's order, the
#     loopback one as the gateway, each once.
#
# With --upstream PATH (UPSTREAM_PASST), each case runs on upstream's
# binary too and must give the same answers.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

ANSWER=198.51.100.7
WRAPPED_PID=
NAME=test.example
RESOLVER4=127.0.0.53
RESOLVER6=::1

rig_init
passt_init
rig_host_ns || exit 1

STUB=$TOOLS_DIR/dns_stub
PROBE=$TOOLS_DIR/dns6_probe
for t in "$STUB" "$PROBE"; do
	[ -x "$t" ] || { echo "FAIL: prerequisites: $t not built"; exit 1; }
done
H="ip netns exec $RIG_HOSTNS"
COUNT4=$RIG_TMP/count4
COUNT6=$RIG_TMP/count6

$H "$STUB" server -b $RESOLVER4 -p 53 -A $ANSWER -c "$COUNT4" \
	2>"$RIG_TMP/stub4.err" &
rig_defer "rig_kill $!"
$H "$STUB" server -b $RESOLVER6 -p 53 -A $ANSWER -c "$COUNT6" \
	2>"$RIG_TMP/stub6.err" &
rig_defer "rig_kill $!"
if ! rig_poll 5 eval "$H ss -Hlun 'sport = :53' | grep -q '\[::1\]'" ||
   ! rig_poll 5 eval "$H ss -Hltn 'sport = :53' | grep -q $RESOLVER4"; then
	echo "FAIL: prerequisites: DNS responders did not start"
	exit 1
fi

RESOLV=$RIG_TMP/resolv.conf
printf 'nameserver %s\nnameserver %s\n' $RESOLVER4 $RESOLVER6 >"$RESOLV"
RESOLV_TCP=$RIG_TMP/resolv-tcp.conf
printf 'nameserver %s\noptions use-vc\n' $RESOLVER4 >"$RESOLV_TCP"

# answered() - number of queries a responder answered so far
# $1: its count file
answered() {
	cat "$1" 2>/dev/null || echo 0
}

# query() - one query with dns_stub's tool, expect the answer, and the
# count of the responder that should have answered to go up
# $1: namespace
# $2: server address
# $3: "udp" or "tcp"
# $4: count file of the responder
query() {
	local before out tcp=

	[ "$3" = tcp ] && tcp=-t
	before=$(answered "$4")
	out=$(ip netns exec "$1" "$STUB" query -s "$2" -p 53 -n $NAME $tcp \
	      -w 3 2>&1)
	[ "$out" = $ANSWER ] ||
		rig_fail "query to $2 over $3: $(tr '\n' ' ' <<<"$out")" ||
		return 1
	[ "$(answered "$4")" -gt "$before" ] ||
		rig_fail "query to $2 over $3 answered, not by $(basename "$4")"
}

# getent_in() - glibc's resolver in a namespace, with a resolv.conf
# $1: namespace
# $2: resolv.conf to use there
getent_in() {
	local out

	# shellcheck disable=SC2016 # $0 and $1 expand in that shell
	out=$(ip netns exec "$1" unshare -m --propagation slave sh -c \
	      'mount --bind "$0" /etc/resolv.conf &&
	       exec timeout 10 getent ahostsv4 "$1"' "$2" $NAME 2>&1)
	grep -q "^$ANSWER " <<<"$out" ||
		rig_fail "getent with $(basename "$2"): $(tr '\n' ' ' \
			 <<<"$out")"
}

# wrapped() - start a relay in the host namespace, in a mount namespace
# where /etc/resolv.conf is ours, in the background (-P)
# $1: binary
# $2: resolv.conf
# $3...: options
# Sets WRAPPED_PID, and RIG_RELAY_LOG (rig_run shows it on failure).
wrapped() {
	local bin=$1 resolv=$2
	shift 2

	# shellcheck disable=SC2016 # $0 expands in that shell
	rig_relay_mntns 'mount --bind "$0" /etc/resolv.conf' "$resolv" \
		"$bin" "$@"
}

# stop() - end the relay of wrapped(): it must still run
stop() {
	kill -0 "$WRAPPED_PID" 2>/dev/null ||
		rig_fail "the relay exited during the test" || return 1
	rig_kill "$WRAPPED_PID"
}

# pasta_case() - test: pasta's namespace resolves through 127.0.0.53
# $1: pasta binary
pasta_case() {
	local ns lst

	rig_ns_new ns n || return 1
	wrapped "$1" "$RESOLV" --runas 0 --config-net --netns "$ns" ||
		return 1
	rig_poll 5 eval "ip netns exec $ns ss -Hlun 'sport = :53' |
			 grep -q ." ||
		rig_fail "no UDP port 53 in the namespace after 5 s" ||
		return 1
	lst=$(ip netns exec "$ns" ss -Hltun 'sport = :53' |
	      awk '{ print $1, $5 }' | sort | tr '\n' ' ')
	rig_log "listening in the namespace: $lst"
	grep -q "tcp .*%lo:53" <<<"$lst" && grep -q "udp .*%lo:53" <<<"$lst" ||
		rig_fail "not listening on the loopback interface: $lst" ||
		return 1

	query "$ns" $RESOLVER4 udp "$COUNT4" &&
		query "$ns" $RESOLVER4 tcp "$COUNT4" || return 1
	getent_in "$ns" "$RESOLV" && getent_in "$ns" "$RESOLV_TCP" || return 1
	# Through the tap device too: the gateway forwards DNS to 127.0.0.53
	query "$ns" "$RIG_GW4" udp "$COUNT4" || return 1
	stop
}

# guest_up() - a passt guest: tap device up, DHCP lease applied
# $1: namespace
# $2: lease file
guest_up() {
	passt_guest_start "$1" || return 1
	ip -n "$1" link set "$PASST_TAP" up || return 1
	passt_dhcp "$1" "$2" && passt_lease_apply "$1" "$2"
}

# passt_case() - test: a passt guest gets the gateway as DNS server, and
# the gateway answers from the host's loopback resolvers
# $1: passt binary
passt_case() {
	local ns lease=$RIG_TMP/lease.$RANDOM out

	rig_ns_new ns g || return 1
	PASST_SOCK=$RIG_TMP/passt.$RANDOM.sock
	wrapped "$1" "$RESOLV" --runas 0 -l "$PASST_SOCK.log" \
		-s "$PASST_SOCK" || return 1
	rig_poll 5 test -S "$PASST_SOCK" || rig_fail "no socket" || return 1
	guest_up "$ns" "$lease" || return 1

	out=$(passt_lease_var "$lease" dns)
	[ "$out" = "$RIG_GW4" ] ||
		rig_fail "DHCP offered DNS '$out', expected $RIG_GW4" ||
		return 1
	query "$ns" "$out" udp "$COUNT4" && query "$ns" "$out" tcp "$COUNT4" ||
		return 1

	out=$(ip netns exec "$ns" "$PROBE" ra "$PASST_TAP" 2>&1)
	[ "$out" = "$RIG_GW6" ] ||
		rig_fail "RDNSS: '$(tr '\n' ' ' <<<"$out")', expected" \
			 "$RIG_GW6" || return 1
	out=$(ip netns exec "$ns" "$PROBE" dhcpv6 "$PASST_TAP" 2>&1)
	[ "$out" = "$RIG_GW6" ] ||
		rig_fail "DHCPv6 DNS: '$(tr '\n' ' ' <<<"$out")', expected" \
			 "$RIG_GW6" || return 1

	ip -n "$ns" addr add "$RIG_ADDR6/64" dev "$PASST_TAP" nodad ||
		return 1
	query "$ns" "$RIG_GW6" udp "$COUNT6" &&
		query "$ns" "$RIG_GW6" tcp "$COUNT6" || return 1
	stop
}

# passt_mix() - test: a mix of servers, offered in order, each once
# $1: passt binary
# $2: DNS list expected in the lease
passt_mix() {
	local ns lease=$RIG_TMP/lease.$RANDOM mix=$RIG_TMP/mix.conf out

	printf 'nameserver 192.0.2.53\nnameserver %s\nnameserver %s\n' \
		$RESOLVER4 198.51.100.53 >"$mix"
	rig_ns_new ns g || return 1
	PASST_SOCK=$RIG_TMP/passt.$RANDOM.sock
	wrapped "$1" "$mix" --runas 0 -l "$PASST_SOCK.log" \
		-s "$PASST_SOCK" || return 1
	rig_poll 5 test -S "$PASST_SOCK" || rig_fail "no socket" || return 1
	passt_guest_start "$ns" || return 1
	ip -n "$ns" link set "$PASST_TAP" up || return 1
	passt_dhcp "$ns" "$lease" || return 1
	out=$(passt_lease_var "$lease" dns)
	[ "$out" = "$2" ] ||
		rig_fail "DHCP offered DNS '$out', expected '$2'" || return 1
	stop
}

MIX="192.0.2.53 $RIG_GW4 198.51.100.53"

rig_run "pasta: the namespace resolves through the host's 127.0.0.53, UDP and TCP, dns_stub and getent" \
	pasta_case "$RELAY"
rig_run "passt: DHCP, RDNSS and DHCPv6 offer the gateways; they answer from 127.0.0.53 and ::1, UDP and TCP" \
	passt_case "$PASST"
rig_run "passt: a mix of servers offered in order, the loopback one as the gateway" \
	passt_mix "$PASST" "$MIX"

if up=$(rig_upstream pasta); then
	rig_run "upstream pasta: the namespace resolves through 127.0.0.53" \
		pasta_case "$up"
fi
if up=$(rig_upstream passt); then
	rig_run "upstream passt: DHCP, RDNSS and DHCPv6 offer the gateways, answered" \
		passt_case "$up"
	rig_run "upstream passt: the same mix of servers, the same order" \
		passt_mix "$up" "$MIX"
fi
rig_summary
