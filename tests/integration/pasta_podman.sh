#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_podman.sh - pasta as podman runs it
#
# Rig (tests/lib/rig.sh): the container's network namespace is created the
# way podman does it, as a file bind-mounted under a directory of its own
# (here $RIG_TMP/run/netns/netns-ID, from a namespace made with "ip netns
# add"). pasta gets podman's command line verbatim (shared/compat.md), as
# for a container started with "-p 8080:80 -p 5353:53/udp":
#
#   pasta --config-net -t 8080-8080:80-80 -u 5353-5353:53-53
#         --dns-forward 169.254.1.1 -T none -U none --no-map-gw --quiet
#         --netns PATH --map-guest-addr 169.254.1.2
#
# plus --pid FILE (podman adds it for rootless bridge networks). No
# --runas: as root, pasta switches to nobody, as it would for a user. It
# runs in a mount namespace where /etc/resolv.conf names 127.0.0.1, where a
# DNS responder of ours answers (--dns-forward goes to the first resolver).
#
#   ready: when pasta exits 0, the namespace has the host's addresses,
#     default routes and MTU 65520 (podman reads them right away);
#   -t: host port 8080 reaches port 80 in the namespace, from the host's
#     address and from its loopback (IPv4, IPv6), sha256 of 8 MiB;
#   -u: host port 5353 reaches port 53, from the address and loopback;
#   --map-guest-addr 169.254.1.2 reaches the host (its own address);
#   --no-map-gw: the gateway address does not reach the host's loopback;
#   --dns-forward 169.254.1.1: UDP and TCP queries answered;
#   end: removing the namespace file as podman does (unmount, delete) ends
#     pasta within 2 s;
#   pasta --map-guest-addrX ...: "unrecognized option '--map-guest-addrX'"
#     and exit status 1 (podman retries without --map-guest-addr then).

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

LIMIT=60
HOST_PORT=8080
CT_PORT=80
HOST_UPORT=5353
CT_UPORT=53
MAP_PORT=10061		# host server reached through --map-guest-addr
GW_PORT=10062		# host loopback server that --no-map-gw must hide

rig_init
rig_host_ns || exit 1
rig_ns_new CT_NS c || exit 1

NETNS_DIR=$RIG_TMP/run/netns
NETNS_FILE=$NETNS_DIR/netns-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
if ! { mkdir -p "$NETNS_DIR" && touch "$NETNS_FILE" &&
       mount --bind "/run/netns/$CT_NS" "$NETNS_FILE"; }; then
	echo "FAIL: prerequisites: can't bind-mount the namespace"
	exit 1
fi
rig_defer "umount '$NETNS_FILE' 2>/dev/null; true"

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 8M || exit 1
printf 'nameserver 127.0.0.1\n' >"$RIG_TMP/resolv.conf"

H="ip netns exec $RIG_HOSTNS"
N="ip netns exec $CT_NS"
STUB=$TOOLS_DIR/dns_stub

$H "$STUB" server -b 127.0.0.1 -p 53 -A 198.51.100.7 2>/dev/null &
rig_defer "rig_kill $!"

# podman_pasta() - test: start pasta with podman's command line
podman_pasta() {
	# shellcheck disable=SC2016 # $0 and $@ expand in that shell
	PASTA_WRAP=(ip netns exec "$RIG_HOSTNS" unshare -m --propagation slave
		    sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
		    "$RIG_TMP/resolv.conf")
	pasta_start wrap --config-net \
		-t $HOST_PORT-$HOST_PORT:$CT_PORT-$CT_PORT \
		-u $HOST_UPORT-$HOST_UPORT:$CT_UPORT-$CT_UPORT \
		--dns-forward 169.254.1.1 -T none -U none --no-map-gw --quiet \
		--netns "$NETNS_FILE" --map-guest-addr 169.254.1.2 || return 1
	rig_persist

	# Right away, as podman reads them
	local a r l
	a=$($N ip -o addr show dev veth0 2>&1)
	r=$($N ip route; $N ip -6 route)
	l=$($N ip -o link show dev veth0 2>&1)
	grep -q "inet $RIG_ADDR4/24 " <<<"$a" &&
		grep -q "inet6 $RIG_ADDR6/64 " <<<"$a" ||
		rig_fail "addresses missing when pasta returned: $a" ||
		return 1
	grep -q "^default via $RIG_GW4 " <<<"$r" &&
		grep -q "^default via $RIG_GW6 " <<<"$r" ||
		rig_fail "default routes missing when pasta returned" ||
		return 1
	grep -q " mtu 65520 " <<<"$l" || rig_fail "MTU is not 65520: $l" ||
		return 1
	[ ! -s "$PASTA_LOG" ] || [ "$(wc -l <"$PASTA_LOG")" -le 1 ] ||
		rig_fail "--quiet, but pasta wrote: $(sed -n 2,3p "$PASTA_LOG")"
}

# tcp_published() - test: -t 8080-8080:80-80 from address and loopback
tcp_published() {
	local dst listen

	for dst in "$RIG_ADDR4" 127.0.0.1 "$RIG_ADDR6" ::1; do
		listen="TCP4-LISTEN:$CT_PORT"
		case $dst in *:*) listen="TCP6-LISTEN:$CT_PORT,ipv6only=1" ;; esac
		case $dst in *:*) dst="[$dst]" ;; esac
		pasta_tcp_sha "$N" "$listen" "$H" "TCP:$dst:$HOST_PORT" \
			"$DATA" $LIMIT || return 1
	done
}

# udp_published() - test: -u 5353-5353:53-53 from address and loopback
udp_published() {
	pasta_udp_echo "$N" "-p $CT_UPORT" "$H" "$RIG_ADDR4" $HOST_UPORT \
		-n 500 -r 20 || return 1
	pasta_udp_echo "$N" "-p $CT_UPORT" "$H" 127.0.0.1 $HOST_UPORT \
		-n 500 -r 20
}

# map_guest_addr() - test: 169.254.1.2 reaches the host's own address
map_guest_addr() {
	pasta_tcp_sha "$H" "TCP4-LISTEN:$MAP_PORT,bind=$RIG_ADDR4" "$N" \
		"TCP4:169.254.1.2:$MAP_PORT" "$DATA" $LIMIT
}

# no_map_gw() - test: the gateway doesn't lead to the host's loopback
no_map_gw() {
	local spid out

	$H timeout 20 socat TCP4-LISTEN:$GW_PORT,bind=127.0.0.1,reuseaddr \
		SYSTEM:'echo reached' &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_wait_listen "$RIG_HOSTNS" $GW_PORT || return 1
	out=$($N timeout 10 socat -T 3 - \
		"TCP4:$RIG_GW4:$GW_PORT,connect-timeout=3" </dev/null 2>&1)
	! grep -q reached <<<"$out" ||
		rig_fail "$RIG_GW4 reached the host's loopback despite --no-map-gw"
}

# dns() - test: --dns-forward 169.254.1.1, UDP and TCP
dns() {
	# shellcheck disable=SC2086 # $N is a command with arguments
	rig_dns_query_both 169.254.1.1 $N "$STUB"
}

# netns_removed() - test: podman removes the namespace file: pasta ends
netns_removed() {
	local t0

	t0=$(rig_now_ms)
	umount "$NETNS_FILE" && rm "$NETNS_FILE" ||
		rig_fail "can't remove $NETNS_FILE" || return 1
	pasta_exit_within 2000 "$t0"
}

# unknown_option() - test: podman's probe for --map-guest-addr support
unknown_option() {
	local out rc

	out=$($H timeout 10 "$RELAY" --config-net --map-guest-addrX 169.254.1.2 \
		--netns "$CT_NS" 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] || rig_fail "exit status $rc, expected 1" || return 1
	grep -qF "unrecognized option '--map-guest-addrX'" <<<"$out" ||
		rig_fail "message: $out"
}

rig_run "podman: command line verbatim, exit 0 once addresses, routes, MTU are set" \
	podman_pasta
if pasta_running; then
	rig_run "podman: -t $HOST_PORT:$CT_PORT from address and loopback, IPv4 and IPv6, 8 MiB sha256" \
		tcp_published
	rig_run "podman: -u $HOST_UPORT:$CT_UPORT from address and loopback, 1000 echoes" \
		udp_published
	rig_run "podman: --map-guest-addr 169.254.1.2 reaches the host, 8 MiB sha256" \
		map_guest_addr
	rig_run "podman: --no-map-gw: gateway does not reach host loopback" \
		no_map_gw
	rig_run "podman: --dns-forward 169.254.1.1 answered over UDP and TCP" dns
	rig_run "podman: namespace file removed: pasta exits within 2 s" \
		netns_removed
fi
rig_run "podman: --map-guest-addrX gives \"unrecognized option\" and status 1" \
	unknown_option
rig_summary
