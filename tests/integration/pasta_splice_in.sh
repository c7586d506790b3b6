#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_splice_in.sh - pasta -t: connections from the
# host's loopback reach the namespace over two spliced sockets
#
# Rig (tests/lib/rig.sh): pasta runs in the host namespace of the rig with
# a fixed -t port list (no automatic forwarding) and serves a second
# namespace. Servers in the namespace record the peer address they see,
# which tells the paths apart:
#
#   spliced (default): the connection comes from the namespace's own
#     address (192.0.2.2, 2001:db8::2) to that address, over the
#     namespace's loopback interface; a server bound to the namespace's
#     loopback only is not reachable from the host;
#   --host-lo-to-ns-lo: from and to the namespace's loopback address;
#   through the tap device (--no-splice, or a peer that is not loopback):
#     from the gateway address (192.0.2.1), as flow/nat.c maps the host;
#   --splice-only: only loopback peers are forwarded, to and from the
#     namespace's loopback (no tap device, as upstream), others are reset.
#
# Transfers are checked with sha256sum: 32 MiB each way (IPv4, IPv6), and
# 50 concurrent echo connections (more than the pool of sockets pasta keeps
# in the namespace, so that it has to refill it), after which pasta holds
# no more descriptors than when idle.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

LIMIT=60
PORT=10051		# -t PORT
PORT_MAPPED=10052	# -t PORT_MAPPED:PORT
CONNS=50
POOL=32			# sockets pasta keeps ready in the namespace
# Peer addresses as socat shows them (SOCAT_PEERADDR)
V6_ADDR="[2001:0db8:0000:0000:0000:0000:0000:0002]"
V6_LO="[0000:0000:0000:0000:0000:0000:0000:0001]"
V6_GW="[2001:0db8:0000:0000:0000:0000:0000:0001]"

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

BIG=$RIG_TMP/big.bin
rig_random_file "$BIG" 32M || exit 1
MULTI=$RIG_TMP/multi
mkdir -p "$MULTI" || exit 1
for i in $(seq 0 $((CONNS - 1))); do
	rig_random_file "$MULTI/in.$i" 256K || exit 1
done

H="ip netns exec $RIG_HOSTNS"
N="ip netns exec $RIG_NS"

# relay() - start pasta with -t, extra options
# $@: extra options
relay() {
	pasta_start netns --runas 0 --config-net -t "$PORT,$PORT_MAPPED:$PORT" \
		-u none -T none -U none "$@" --netns "$RIG_NS" || return 1
	pasta_listens tcp "$H" $PORT -4 ||
		rig_fail "pasta does not listen on port $PORT" || return 1
}

# relay_stop() - stop the relay of the test, check it exited within 2 s
relay_stop() {
	local t0

	t0=$(rig_now_ms)
	kill -TERM "$PASTA_PID"
	pasta_exit_within 2000 "$t0" || return 1
	rig_no_san "$PASTA_LOG" && pasta_tap_gone "$RIG_NS"
}

# xfer() - send $BIG from the host namespace to a server in the namespace
# $1: server listen address (socat)
# $2: client connect address (socat)
# $3: peer address the server must see
xfer() {
	pasta_tcp_sha "$N" "$1" "$H" "$2" "$BIG" $LIMIT &&
		pasta_peer_is "$3"
}

# back() - the server sends $BIG to the host (the other direction)
# $1: server listen address
# $2: client connect address
back() {
	local got=$RIG_TMP/back.bin spid

	$N timeout -k 5 $LIMIT socat -u "FILE:$BIG" "$1,reuseaddr" &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_wait_listen "$RIG_NS" $PORT || return 1
	$H timeout -k 5 $LIMIT socat -u "$2,connect-timeout=5" \
		"CREATE:$got" || rig_fail "client failed" || return 1
	rig_sha_eq "$BIG" "$got"
}

# refused() - a connection must not reach a server
# $1: server listen address
# $2: client connect address
refused() {
	local spid out

	$N timeout -k 5 $LIMIT socat "$1,reuseaddr" SYSTEM:'echo reached' &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_wait_listen "$RIG_NS" $PORT || return 1
	out=$($H timeout 10 socat -T 5 - "$2" </dev/null 2>&1)
	rig_kill "$spid"
	! grep -q reached <<<"$out" ||
		rig_fail "connection reached the server: $out"
}

# default_splice() - test: default semantics, both directions, both families
default_splice() {
	relay || return 1
	rig_persist
	xfer "TCP4-LISTEN:$PORT" "TCP4:127.0.0.1:$PORT" "$RIG_ADDR4" ||
		return 1
	xfer "TCP6-LISTEN:$PORT,ipv6only=1" "TCP6:[::1]:$PORT" "$V6_ADDR" ||
		return 1
	xfer "TCP4-LISTEN:$PORT" "TCP4:127.0.0.1:$PORT_MAPPED" \
		"$RIG_ADDR4" || return 1
	back "TCP4-LISTEN:$PORT" "TCP4:127.0.0.1:$PORT" || return 1
	back "TCP6-LISTEN:$PORT,ipv6only=1" "TCP6:[::1]:$PORT" || return 1
	# A loopback-only service is not exposed
	refused "TCP4-LISTEN:$PORT,bind=127.0.0.1" "TCP4:127.0.0.1:$PORT"
}

# tap_path() - test: a peer that is not loopback goes through the tap device
tap_path() {
	xfer "TCP4-LISTEN:$PORT" "TCP4:$RIG_ADDR4:$PORT" "$RIG_GW4"
}

# concurrent() - test: 50 echo connections at once, no descriptor leak
concurrent() {
	local idle out i

	idle=$(find "/proc/$PASTA_PID/fd" -mindepth 1 | wc -l)
	$N timeout -k 5 $LIMIT socat -t 30 \
		"TCP4-LISTEN:$PORT,reuseaddr,fork,backlog=256" EXEC:cat &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_NS" $PORT || return 1
	out=$($H "$TOOLS_DIR/tcp_multi" -t $LIMIT 127.0.0.1 $PORT "$MULTI" \
		$CONNS 2>&1) || rig_fail "tcp_multi: $(tail -n 2 <<<"$out")" ||
		return 1
	for i in $(seq 0 $((CONNS - 1))); do
		rig_sha_eq "$MULTI/in.$i" "$MULTI/out.$i" || {
			RIG_WHY="connection $i: $RIG_WHY"
			return 1
		}
	done
	rig_poll 5 eval "! relay_conns >/dev/null" ||
		rig_fail "pasta still has connections:" \
			 "$(relay_conns | tr -s ' \n' ' ')" || return 1
	# The pool of namespace sockets may have been topped up meanwhile
	rig_poll 5 eval "[ \$(find /proc/$PASTA_PID/fd -mindepth 1 | wc -l) \
			   -le $((idle + POOL)) ]" ||
		rig_fail "pasta holds $(find "/proc/$PASTA_PID/fd" -mindepth 1 |
			 wc -l) descriptors, $idle when idle"
}

# relay_conns() - print TCP connections of the relay in both namespaces
# Return: 0 if there is any
relay_conns() {
	local out

	out=$({ $H ss -Htanp; $N ss -Htanp; } | grep "pid=$PASTA_PID," |
	      grep -v '^LISTEN')
	[ -n "$out" ] && echo "$out"
}

# lo_to_lo() - test: --host-lo-to-ns-lo
lo_to_lo() {
	relay --host-lo-to-ns-lo || return 1
	xfer "TCP4-LISTEN:$PORT,bind=127.0.0.1" "TCP4:127.0.0.1:$PORT" \
		127.0.0.1 || return 1
	xfer "TCP6-LISTEN:$PORT,bind=[::1],ipv6only=1" "TCP6:[::1]:$PORT" \
		"$V6_LO" || return 1
	relay_stop
}

# no_splice() - test: --no-splice sends loopback connections through tap
no_splice() {
	relay --no-splice || return 1
	xfer "TCP4-LISTEN:$PORT" "TCP4:127.0.0.1:$PORT" "$RIG_GW4" || return 1
	xfer "TCP6-LISTEN:$PORT,ipv6only=1" "TCP6:[::1]:$PORT" "$V6_GW" ||
		return 1
	relay_stop
}

# splice_only() - test: --splice-only refuses other peers
splice_only() {
	relay --splice-only || return 1
	xfer "TCP4-LISTEN:$PORT" "TCP4:127.0.0.1:$PORT" 127.0.0.1 ||
		return 1
	refused "TCP4-LISTEN:$PORT" "TCP4:$RIG_ADDR4:$PORT" || return 1
	relay_stop
}

rig_run "-t from 127.0.0.1/::1: spliced to the namespace's address, 32 MiB each way sha256; loopback-only service not exposed" \
	default_splice
if pasta_running; then
	rig_run "-t splice: $CONNS concurrent echo connections sha256, no fd leak" \
		concurrent
	rig_run "-t from the host's address: through the tap device, 32 MiB sha256" \
		tap_path
	rig_run "-t splice: SIGTERM ends pasta within 2 s" relay_stop
fi
rig_run "--host-lo-to-ns-lo: 127.0.0.1 and ::1 reach the namespace's loopback, 32 MiB sha256" \
	lo_to_lo
rig_run "--no-splice: loopback connections go through the tap device" \
	no_splice
rig_run "--splice-only: loopback spliced, other peers refused" splice_only
rig_summary
