#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_ll_gateway.sh - the IPv6 link-local gateway
#
# Rig (tests/lib/rig.sh): pasta serves the rig's namespace from the host
# namespace, whose template interface veth0 has a link-local address LL;
# the relay uses LL toward the namespace. As with upstream pasta:
#
#   --config-net copies the host's default route (via 2001:db8::1), and no
#     router advertisement adds one via LL (no "proto ra" route);
#   socat - TCP6:[LL%veth0]:PORT from the namespace reaches a server of the
#     host namespace listening on [::]:PORT (the host-side socket goes to
#     LL through the template interface): 1 MiB, sha256 both ways;
#   UDP to [LL%veth0]:PORT is answered by the host's server, byte for
#     byte;
#   ping LL%veth0 gets its reply.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

TCP_PORT=10191
UDP_PORT=10192
LIMIT=30

rig_init
rig_need ping || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1
head -c 1000 /dev/urandom >"$RIG_TMP/dgram.bin" || exit 1

LL=$(ip -n "$RIG_HOSTNS" -6 -o addr show dev veth0 scope link |
     awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$LL" ] || { echo "FAIL: prerequisites: veth0 has no link-local" \
			"address"; exit 1; }
rig_log "host link-local address: $LL"

# start() - test: the relay starts, the namespace has the host's default
# route, none from a router advertisement
start() {
	local routes

	rig_relay_start daemon -t none || return 1
	routes=$(ip -n "$RIG_NS" -6 route show default)
	if ! grep -q "via $RIG_GW6 " <<<"$routes" ||
	   grep -q 'proto ra' <<<"$routes"; then
		rig_fail "default routes: $(tr '\n' ' ' <<<"$routes")," \
			 "expected the host's via $RIG_GW6 only"
	fi
}

# tcp() - test: TCP to [LL%veth0]:PORT, 1 MiB each way
tcp() {
	pasta_tcp_sha "ip netns exec $RIG_HOSTNS" "TCP6-LISTEN:$TCP_PORT" \
		"ip netns exec $RIG_NS" "TCP6:[$LL%veth0]:$TCP_PORT" \
		"$DATA" "$LIMIT" || return 1
	# And back: the host's server sends, the namespace's client hashes
	rig_h timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"TCP6-LISTEN:$((TCP_PORT + 1)),reuseaddr" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" $((TCP_PORT + 1)) || return 1
	[ "$(rig_g timeout "$LIMIT" socat -u \
	     "TCP6:[$LL%veth0]:$((TCP_PORT + 1))" STDOUT | sha256sum |
	     cut -d' ' -f1)" = "$(rig_sha "$DATA")" ] ||
		rig_fail "host -> namespace over $LL: sha256 mismatch"
}

# udp() - test: a datagram to [LL%veth0]:PORT comes back unchanged
udp() {
	local got

	rig_h timeout -k 5 "$LIMIT" socat "UDP6-LISTEN:$UDP_PORT,reuseaddr" \
		EXEC:cat &
	rig_defer "rig_kill $!"
	rig_poll 5 eval "rig_h ss -Hlun 'sport = :$UDP_PORT' | grep -q ." ||
		rig_fail "UDP server did not start" || return 1
	got=$(rig_g timeout "$LIMIT" socat -t 1 - \
	      "UDP6:[$LL%veth0]:$UDP_PORT" <"$RIG_TMP/dgram.bin" |
	      sha256sum | cut -d' ' -f1)
	[ "$got" = "$(sha256sum <"$RIG_TMP/dgram.bin" | cut -d' ' -f1)" ] ||
		rig_fail "UDP echo over $LL: sha256 mismatch or no reply"
}

# ping_ll() - test: ICMPv6 echo to LL%veth0
ping_ll() {
	rig_sysctl_set net.ipv4.ping_group_range "0 0" "$RIG_HOSTNS" ||
		return 1
	rig_g ping -6 -c 2 -W 5 "$LL%veth0" >"$RIG_TMP/ping.out" 2>&1 ||
		rig_fail "ping $LL%veth0: $(tail -n 2 "$RIG_TMP/ping.out" |
					    tr '\n' ' ')"
}

rig_run "--config-net: the host's default route, none from a router advertisement" \
	start
rig_run "TCP to [$LL%veth0]: 1 MiB sha256 each way, reaches the host" tcp
rig_run "UDP to [$LL%veth0]: 1000-byte datagram echoed by the host" udp
rig_run "ping $LL%veth0: echo replies" ping_ll
rig_run "SIGTERM ends the relay" rig_relay_stop_check
rig_summary
