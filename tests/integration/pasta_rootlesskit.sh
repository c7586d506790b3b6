#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_rootlesskit.sh - pasta as RootlessKit (rootless
# Docker) runs it
#
# Rig (tests/lib/rig.sh): RootlessKit's child is a process holding a user
# namespace (root mapped) and a network namespace: here "unshare --user
# --map-root-user --net sleep", started in the rig's host namespace. pasta
# gets RootlessKit's command line verbatim (shared/compat.md), in both of
# its forms:
#
#   A: pasta --stderr --ns-ifname=tap0 --mtu=65520 --config-net
#        --address=10.0.2.100 --netmask=24 --gateway=10.0.2.2
#        --dns-forward=10.0.2.3 --tcp-ports=auto --udp-ports=auto
#        --host-lo-to-ns-lo --userns=/proc/PID/ns/user
#        --netns=/proc/PID/ns/net
#   B: pasta --stderr --ns-ifname=tap0 --mtu=65520 --config-net
#        --address=10.0.2.100 --netmask=24 --gateway=10.0.2.2
#        --dns-forward=10.0.2.3 --no-map-gw --ipv4-only
#        --tcp-ports=auto --udp-ports=auto PID
#
# plus -P FILE to learn the daemon's PID. pasta runs in a mount namespace
# where /etc/resolv.conf names 127.0.0.1, where our DNS responder answers.
#
#   probe: "pasta --host-lo-to-ns-lo --version" exits 0 (feature probe);
#   ready: when pasta exits 0, tap0 has 10.0.2.100/24, the default route
#     goes via 10.0.2.2, MTU 65520 (and B: no IPv6 address);
#   -t auto: a server in the namespace is reachable from the host within
#     1 s: from the host's loopback (spliced; A: to the namespace's
#     loopback, the server sees 127.0.0.1; B: to and from 10.0.2.100) and
#     from the host's address (through tap0), sha256 of 8 MiB;
#   -u auto: a UDP echo server the same way;
#   --dns-forward=10.0.2.3: queries answered (UDP, TCP);
#   B --no-map-gw: 10.0.2.2 does not reach the host's loopback;
#   end: pasta exits within 2 s of the process ending.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

LIMIT=60
WITHIN_MS=1000
T_PORT=10071
U_PORT=10072
GW_PORT=10073

rig_init
rig_host_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 8M || exit 1
printf 'nameserver 127.0.0.1\n' >"$RIG_TMP/resolv.conf"

H="ip netns exec $RIG_HOSTNS"
STUB=$TOOLS_DIR/dns_stub
$H "$STUB" server -b 127.0.0.1 -p 53 -A 198.51.100.7 2>/dev/null &
rig_defer "rig_kill $!"

# shellcheck disable=SC2016 # $0 and $@ expand in that shell
PASTA_WRAP=(ip netns exec "$RIG_HOSTNS" unshare -m --propagation slave
	    sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
	    "$RIG_TMP/resolv.conf")

COMMON=(--stderr --ns-ifname=tap0 --mtu=65520 --config-net
	--address=10.0.2.100 --netmask=24 --gateway=10.0.2.2
	--dns-forward=10.0.2.3)

# child() - start RootlessKit's child: user and network namespaces
# Sets CHILD, N (command prefix to enter its network namespace).
child() {
	$H unshare --user --map-root-user --net sleep 600 &
	CHILD=$!
	rig_defer "rig_kill $CHILD"
	rig_poll 5 eval "[ \"\$(cat /proc/$CHILD/comm 2>/dev/null)\" = sleep ]" ||
		rig_fail "child did not start" || return 1
	N="nsenter -t $CHILD -n"
}

# probe() - test: RootlessKit's feature probe
probe() {
	local out

	out=$($H "$RELAY" --host-lo-to-ns-lo --version 2>&1) ||
		rig_fail "exit status $?: $out"
}

# ready() - check tap0 right after pasta returned
# $1: "v4" for --ipv4-only
ready() {
	local a r l

	a=$($N ip -o addr show dev tap0 2>&1)
	r=$($N ip route 2>&1)
	l=$($N ip -o link show dev tap0 2>&1)
	grep -q "inet 10.0.2.100/24 " <<<"$a" ||
		rig_fail "10.0.2.100/24 missing when pasta returned: $a" ||
		return 1
	grep -q "^default via 10.0.2.2 " <<<"$r" ||
		rig_fail "no default route via 10.0.2.2: $(tr '\n' ' ' <<<"$r")" ||
		return 1
	grep -q " mtu 65520 " <<<"$l" || rig_fail "MTU is not 65520: $l" ||
		return 1
	if [ "$1" = v4 ]; then
		! grep -q "inet6 .* scope global" <<<"$a" ||
			rig_fail "--ipv4-only, but tap0 has: $a" || return 1
	else
		grep -q "inet6 $RIG_ADDR6/64 " <<<"$a" ||
			rig_fail "$RIG_ADDR6/64 missing: $a" || return 1
	fi
}

# published() - -t auto and -u auto from the host
# $1: peer the namespace server must see for a host loopback connection
published() {
	local lo_peer=$1 spid dst

	$N timeout $LIMIT socat -u TCP4-LISTEN:$T_PORT,reuseaddr,fork \
		SYSTEM:"$(pasta_sum_script) $RIG_TMP/t.sum $RIG_TMP/peer" &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_poll 5 eval "$N ss -Hltn 'sport = :$T_PORT' | grep -q ." ||
		rig_fail "server did not start" || return 1
	pasta_wait_state up $WITHIN_MS tcp "$H" $T_PORT || return 1
	rig_log "-t auto: host socket $PASTA_WAIT_MS ms after the server"

	# From the host's loopback (spliced), then from its address (tap0)
	for dst in 127.0.0.1 "$RIG_ADDR4"; do
		rm -f "$RIG_TMP/t.sum" "$RIG_TMP/peer"
		$H timeout -k 5 $LIMIT socat -u "FILE:$DATA" \
			"TCP4:$dst:$T_PORT,connect-timeout=5" ||
			rig_fail "client to $dst failed" || return 1
		rig_poll 10 test -s "$RIG_TMP/t.sum" ||
			rig_fail "server did not finish ($dst)" || return 1
		[ "$(cat "$RIG_TMP/t.sum")" = "$(rig_sha "$DATA")" ] ||
			rig_fail "sha256 mismatch from $dst" || return 1
		rig_log "8 MiB from $dst: sha256 ok, peer $(cat "$RIG_TMP/peer")"
		if [ "$dst" = 127.0.0.1 ]; then
			pasta_peer_is "$lo_peer" || return 1
		fi
	done

	# UDP
	$N timeout $LIMIT "$TOOLS_DIR/udp_echo" server -p $U_PORT &
	rig_defer "rig_kill $!"
	pasta_wait_state up $WITHIN_MS udp "$H" $U_PORT -4 || return 1
	rig_log "-u auto: host socket $PASTA_WAIT_MS ms after the server"
	out=$($H timeout $LIMIT "$TOOLS_DIR/udp_echo" client -a "$RIG_ADDR4" \
		-p $U_PORT -n 500 -r 20 2>&1) ||
		rig_fail "$(tr '\n' ' ' <<<"$out")" || return 1
	rig_log "$out"
}

# dns() - --dns-forward=10.0.2.3, UDP and TCP
dns() {
	# shellcheck disable=SC2086 # $N is a command with arguments
	rig_dns_query_both 10.0.2.3 $N "$STUB"
}

# child_end() - the child ends: pasta exits within 2 s
child_end() {
	local t0

	t0=$(rig_now_ms)
	kill -KILL "$CHILD"
	{ wait "$CHILD"; } 2>/dev/null
	pasta_exit_within 2000 "$t0"
}

# form_a() - test: --userns/--netns form with --host-lo-to-ns-lo
form_a() {
	child || return 1
	pasta_start wrap "${COMMON[@]}" --tcp-ports=auto --udp-ports=auto \
		--host-lo-to-ns-lo --userns=/proc/$CHILD/ns/user \
		--netns=/proc/$CHILD/ns/net || return 1
	ready || return 1
	published 127.0.0.1 || return 1
	dns || return 1
	child_end
}

# form_b() - test: CHILD_PID form with --no-map-gw --ipv4-only
form_b() {
	local spid out

	child || return 1
	pasta_start wrap "${COMMON[@]}" --no-map-gw --ipv4-only \
		--tcp-ports=auto --udp-ports=auto "$CHILD" || return 1
	ready v4 || return 1
	published 10.0.2.100 || return 1
	dns || return 1

	$H timeout 20 socat TCP4-LISTEN:$GW_PORT,bind=127.0.0.1,reuseaddr \
		SYSTEM:'echo reached' &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_wait_listen "$RIG_HOSTNS" $GW_PORT || return 1
	out=$($N timeout 10 socat -T 3 - \
		"TCP4:10.0.2.2:$GW_PORT,connect-timeout=3" </dev/null 2>&1)
	! grep -q reached <<<"$out" ||
		rig_fail "10.0.2.2 reached the host's loopback despite" \
			 "--no-map-gw" || return 1
	child_end
}

rig_run "rootlesskit: 'pasta --host-lo-to-ns-lo --version' exits 0" probe
rig_run "rootlesskit: --userns/--netns form, --host-lo-to-ns-lo: ready, -t/-u auto within 1 s, sha256, DNS, exits with the child" \
	form_a
rig_run "rootlesskit: CHILD_PID form, --no-map-gw --ipv4-only: ready, -t/-u auto, sha256, DNS, exits with the child" \
	form_b
rig_summary
