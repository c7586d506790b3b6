#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/upstream_multi.sh - forwarding as upstream's pasta does
# it: one port at several addresses, "none" before ports, UDP "auto"
# following TCP listeners, datagrams from the host's loopback spliced
#
# Rig (tests/lib/rig.sh): pasta joins a new namespace for each case, from
# a host namespace of our own (veth0: 192.0.2.2/24 and 192.0.2.3/24,
# 2001:db8::2/64; the namespace gets the same addresses). With tests/run
# --upstream PATH, each case also runs on upstream's pasta (and its pesto),
# and must give the same result. Servers in the namespace listen on two
# target ports, T2 and T3, and tell which one a connection reached.
#
#   shared port: -t and -u 127.0.0.1/P1:T2 and ::1/P1:T3, -t 127.0.0.2/P1:T3
#     (spliced), -t and -u 192.0.2.2/P4:T2 and 192.0.2.3/P4:T3 (through
#     the tap): a client on the host reaches, at each address, that rule's
#     target only: TCP 1 MiB and UDP 64 KiB (empty datagram at the end),
#     sha256;
#   podman's forms: -t none, then ADDR/HP-HP:CP-CP for 127.0.0.1 and ::1
#     (what podman 5 passes for --net=pasta:-t,none -p 127.0.0.1:P:C
#     -p [::1]:P:C), TCP and UDP, 1 MiB and 64 KiB sha256 each;
#   conflicts: pairs upstream refuses (any address and 127.0.0.1, 0.0.0.0
#     and 127.0.0.1, two interfaces, one address twice, "auto" or "all"
#     and a port, ports before "none") fail with status 1 on both relays,
#     ours naming both rules; pairs upstream takes (0.0.0.0 and ::, ranges
#     at 127.0.0.1 and ::1 overlapping in part) listen where they say;
#   run time (-c): pesto -A adds 127.0.0.1/P1:T2 beside ::1/P1:T3, both
#     reach their target (1 MiB sha256 each); a rule on any address is
#     refused and nothing changes; -D removes ::1, whose port is refused
#     while 127.0.0.1 still works; ours with our pesto and with upstream's,
#     upstream's with its own;
#   -u auto and TCP: a TCP listener in the namespace gets a UDP socket on
#     the host (upstream's man page: "UDP ports with numbers corresponding
#     to forwarded TCP port numbers are forwarded too"; iperf3), which
#     forwards 64 KiB (sha256) and goes away with the listener. Ours only:
#     the TCP sockets pasta itself opens in the namespace (-T) are not
#     followed (upstream's are);
#   -u from loopback: a datagram from 127.0.0.1:SP or [::1]:SP to a -u
#     port reaches the namespace from the namespace's own address and port
#     SP (spliced, as upstream); with --host-lo-to-ns-lo from 127.0.0.1 and
#     ::1; to a rule with a target address, through the tap from the
#     gateway address; 1000 echoes (10 Mbit/s, upstream's pasta loses some
#     at 100) through the spliced flow, each family; -U keeps the
#     namespace peer's loopback address and port (127.0.0.5);
#   -t from loopback: to a rule with a target address, through the tap
#     (the namespace sees the gateway address), else spliced (it sees its
#     own address), 1 MiB sha256 each.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/upstream.sh
. "$(dirname "$0")/../lib/upstream.sh"

P1=10601
T2=10602
T3=10603
P4=10604
P5=10605
P6=10606
SP=40601
ADDR4B=192.0.2.3
LIMIT=20

rig_init
rig_host_ns || exit 1
rig_h ip addr add "$ADDR4B/24" dev veth0 || exit 1

upstream_init

# refused_start() - pasta must refuse a command line, status 1
# $1: pasta binary
# $2...: options
# Leaves its message in $ERR
refused_start() {
	local bin=$1 rc
	shift

	rig_target_ns || return 1
	rig_h timeout 30 "$bin" --runas 0 -q --config-net \
		-P "$RIG_TMP/pid.refused" "$@" --netns "$RIG_NS" >"$ERR" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		rig_kill "$(cat "$RIG_TMP/pid.refused" 2>/dev/null)"
		rig_fail "$bin $*: accepted"
		return 1
	fi
	[ "$rc" -eq 1 ] ||
		rig_fail "$bin $*: status $rc, not 1: $(head -c 200 "$ERR")"
}

# servers() - sum servers on T2 and T3 in the namespace, both families
servers() {
	upstream_ns_server "$T2" "$RIG_TMP/t2.sum" &&
	upstream_ns_server "$T3" "$RIG_TMP/t3.sum"
}

# reaches() - DATA over TCP from the host reaches one target, not the other
# $1: socat connect address, from the host namespace
# $2: target that must get it: t2 or t3
reaches() {
	local want=$RIG_TMP/$2.sum other=$RIG_TMP/t3.sum

	[ "$2" = t3 ] && other=$RIG_TMP/t2.sum
	rm -f "$want" "$other"
	rig_h timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"$1,connect-timeout=5" 2>"$ERR" ||
		rig_fail "client to $1 failed: $(head -c 200 "$ERR")" ||
		return 1
	rig_poll 10 test -s "$want" ||
		rig_fail "$1 did not reach $2" || return 1
	[ "$(cat "$want")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "$1: sha256 mismatch at $2" || return 1
	[ ! -e "$other" ] || rig_fail "$1 reached the other target too"
}

# udp_listens() - a UDP socket is bound to a port, and not connected (a
# listening socket, not a flow's)
# $1: namespace
# $2: port
udp_listens() {
	ip netns exec "$1" ss -Huln "sport = :$2" 2>/dev/null | grep -q .
}

# udp_reaches() - SMALL over UDP from the host reaches a server on one
# target port (the only one with a server), sha256
# $1: socat connect address, from the host namespace
# $2: target port
# $3: socat family of the server: 4 or 6
udp_reaches() {
	upstream_udp_sha "$RIG_HOSTNS" "$1" "$NS" "UDP$3-RECV:$2" "$SMALL" \
		"$LIMIT"
}

# shared() - test: one port at several addresses, each its own target
shared() {
	local bin

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "127.0.0.1/$P1:$T2" \
			-t "::1/$P1:$T3" -t "127.0.0.2/$P1:$T3" \
			-t "$RIG_ADDR4/$P4:$T2" -t "$ADDR4B/$P4:$T3" \
			-u "127.0.0.1/$P1:$T2" -u "::1/$P1:$T3" \
			-u "$RIG_ADDR4/$P4:$T2" -u "$ADDR4B/$P4:$T3" -T none \
			-U none || return 1
		servers || return 1
		reaches "TCP4:127.0.0.1:$P1" t2 &&
		reaches "TCP6:[::1]:$P1" t3 &&
		reaches "TCP4:127.0.0.2:$P1" t3 &&
		reaches "TCP4:$RIG_ADDR4:$P4" t2 &&
		reaches "TCP4:$ADDR4B:$P4,bind=$RIG_ADDR4" t3 ||
			rig_fail "$bin: $RIG_WHY" || return 1
		udp_reaches "UDP4:127.0.0.1:$P1" "$T2" 4 &&
		udp_reaches "UDP6:[::1]:$P1" "$T3" 6 &&
		udp_reaches "UDP4:$RIG_ADDR4:$P4" "$T2" 4 &&
		udp_reaches "UDP4:$ADDR4B:$P4,bind=$RIG_ADDR4" "$T3" 4 ||
			rig_fail "$bin: $RIG_WHY" || return 1
		rig_log "$bin: 5 TCP and 4 UDP paths to their own target"
		upstream_unwind
	done
}

# podman() - test: -t none, then podman's forms of -p with host addresses
podman() {
	local bin

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t none -u none \
			-t "127.0.0.1/$P5-$P5:$T2-$T2" \
			-t "::1/$P5-$P5:$T2-$T2" \
			-u "127.0.0.1/$P5-$P5:$T2-$T2" \
			-u "::1/$P5-$P5:$T2-$T2" -T none -U none || return 1
		servers || return 1
		reaches "TCP4:127.0.0.1:$P5" t2 &&
		reaches "TCP6:[::1]:$P5" t2 &&
		udp_reaches "UDP4:127.0.0.1:$P5" "$T2" 4 &&
		udp_reaches "UDP6:[::1]:$P5" "$T2" 6 ||
			rig_fail "$bin: $RIG_WHY" || return 1
		upstream_unwind
	done
}

# listens() - the host listens on exactly these TCP sockets for a port
# $1: port
# $2...: local addresses as ss prints them (127.0.0.1:P, [::1]:P)
listens() {
	local port=$1 got want
	shift

	got=$(rig_h ss -Hltn "sport = :$port" | awk '{ print $4 }' | sort |
	      tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ "$got" = "$want" ] ||
		rig_fail "TCP port $port: listening on '$got', not '$want'"
}

# conflicts() - test: what upstream refuses, and what it takes
conflicts() {
	local bin pair
	local -a bad=(
		"-t $P1 -t 127.0.0.1/$P1"
		"-t 0.0.0.0/$P1 -t 127.0.0.1/$P1"
		"-t %lo/$P1 -t %veth0/$P1"
		"-t 127.0.0.1/$P1 -t 127.0.0.1/$P1:$T2"
		"-u 127.0.0.1/$P1 -u 127.0.0.1/$P1:$T2"
		"-t $P1,$P1"
		"-t auto -t $P1"
		"-t $P1 -t none"
		"-t 127.0.0.1/all -t 127.0.0.1/$P1"
	)

	for bin in "$RELAY" $UP_PASTA; do
		for pair in "${bad[@]}"; do
			# shellcheck disable=SC2086 # options, split on purpose
			refused_start "$bin" $pair -T none -U none ||
				return 1
		done
	done
	# Ours names both rules
	refused_start "$RELAY" -t "$P1" -t "127.0.0.1/$P1" -T none -U none ||
		return 1
	grep -q "port $P1 at 127.0.0.1, and port $P1 at any address" "$ERR" ||
		rig_fail "message: $(head -c 300 "$ERR")" || return 1

	upstream_mark
	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "0.0.0.0/$P1" -t "::/$P1" \
			-t "127.0.0.1/$P4-$P5" \
			-t "::1/$P5-$P6:$T2-$((T2 + 1))" -u none -T none \
			-U none || return 1
		listens "$P1" "0.0.0.0:$P1" "[::]:$P1" &&
		listens "$P4" "127.0.0.1:$P4" &&
		listens "$P5" "127.0.0.1:$P5" "[::1]:$P5" &&
		listens "$P6" "[::1]:$P6" || rig_fail "$bin: $RIG_WHY" ||
			return 1
		upstream_unwind
	done
}

# runtime_one() - test: -c, shared ports added and removed by a pesto
# $1: pasta
# $2: pesto
runtime_one() {
	local bin=$1 pesto=$2 sock=$RIG_TMP/c.sock before after

	rm -f "$sock"
	upstream_relay_up "$bin" -c "$sock" -t "::1/$P1:$T3" -u none -T none \
		-U none || return 1
	servers || return 1

	"$pesto" -A -t "127.0.0.1/$P1:$T2" "$sock" >"$ERR" 2>&1 ||
		rig_fail "$pesto -A -t 127.0.0.1/$P1:$T2: $(cat "$ERR")" ||
		return 1
	reaches "TCP4:127.0.0.1:$P1" t2 && reaches "TCP6:[::1]:$P1" t3 ||
		return 1

	before=$("$pesto" "$sock" 2>&1 | sed 's/([^)]*sock)//')
	if "$pesto" -A -t "$P1" "$sock" >"$ERR" 2>&1; then
		rig_fail "$pesto -A -t $P1 accepted beside two addresses"
		return 1
	fi
	after=$("$pesto" "$sock" 2>&1 | sed 's/([^)]*sock)//')
	[ "$before" = "$after" ] ||
		rig_fail "table changed by a refused rule: $after" || return 1
	grep -c "TCP \[" <<<"$after" | grep -qx 2 ||
		rig_fail "table shows: $(tr '\n' '|' <<<"$after")" || return 1

	"$pesto" -D -t "::1/$P1:$T3" "$sock" >"$ERR" 2>&1 ||
		rig_fail "$pesto -D -t ::1/$P1:$T3: $(cat "$ERR")" || return 1
	rig_poll 5 eval "! rig_h ss -Hltn 'sport = :$P1' | grep -qF '[::1]'" ||
		rig_fail "::1 still listens after -D" || return 1
	reaches "TCP4:127.0.0.1:$P1" t2
}

# runtime() - test: ours with both pestos, upstream's with its own
runtime() {
	local pesto

	for pesto in "$PESTO" $UP_PESTO; do
		[ -x "$pesto" ] || continue
		runtime_one "$RELAY" "$pesto" ||
			rig_fail "ours with $pesto: $RIG_WHY" || return 1
		upstream_unwind
	done
	[ -z "$UP_PASTA" ] || runtime_one "$UP_PASTA" "$UP_PESTO" ||
		rig_fail "upstream: $RIG_WHY"
}

# udp_auto_tcp() - test: -u auto follows TCP listeners of the namespace
udp_auto_tcp() {
	local bin pid

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t none -u auto -T none -U none ||
			return 1
		ip netns exec "$NS" socat "TCP4-LISTEN:$P5,reuseaddr,fork" \
			/dev/null 2>/dev/null &
		pid=$!
		rig_defer "rig_kill $pid"
		rig_poll 5 udp_listens "$RIG_HOSTNS" "$P5" ||
			rig_fail "$bin: no UDP socket on the host for TCP" \
				 "port $P5 within 5 s" || return 1
		udp_reaches "UDP4:$RIG_ADDR4:$P5" "$P5" 4 ||
			rig_fail "$bin: $RIG_WHY" || return 1
		rig_kill "$pid"
		rig_poll 5 eval "! udp_listens '$RIG_HOSTNS' $P5" ||
			rig_fail "$bin: UDP port $P5 still forwarded after" \
				 "the TCP listener closed" || return 1
		upstream_unwind
	done

	# Ours: pasta's own -T socket in the namespace is not followed
	server_h "TCP4-LISTEN:$P6,bind=127.0.0.1"
	upstream_relay_up "$RELAY" -t none -u auto -T "$P6" -U none || return 1
	rig_wait_listen "$NS" "$P6" || return 1
	sleep 1.5
	! udp_listens "$RIG_HOSTNS" "$P6" ||
		rig_fail "UDP port $P6 followed for pasta's own -T socket"
}

# server_h() - a TCP server on the host that takes and drops connections
# $1: socat listen address
server_h() {
	ip netns exec "$RIG_HOSTNS" socat "$1,reuseaddr,fork" /dev/null \
		2>/dev/null &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$(rig_port_of "$1")"
}

# peer_of() - send one datagram, print the peer the receiver saw
# $1: receiver namespace
# $2: receiver family, 4 or 6
# $3: receiver port
# $4: sender namespace
# $5: socat connect address, with sourceport= or bind= as needed
peer_of() {
	local log=$RIG_TMP/peer.$RANDOM pid

	ip netns exec "$1" timeout 10 socat -d -d -u \
		"UDP$2-RECV:$3$([ "$2" = 6 ] && echo ,ipv6only=1)" \
		/dev/null 2>"$log" &
	pid=$!
	rig_poll 5 rig_udp_bound "$1" "$3" || { rig_kill "$pid"; return 1; }
	echo x | ip netns exec "$4" timeout 5 socat -u - "$5" 2>/dev/null
	rig_poll 5 grep -q "received packet" "$log"
	rig_kill "$pid"
	sed -n 's/.*received packet with [0-9]* bytes from AF=[0-9]* //p' \
		"$log" | head -n 1
}

# peer_check() - send one datagram, check the peer the receiver saw
# $1: expected peer
# $2: what is sent, for messages
# $3...: peer_of()'s arguments
peer_check() {
	local want=$1 what=$2 got
	shift 2

	got=$(peer_of "$@")
	[ "$got" = "$want" ] || rig_fail "$what: peer '$got', expected '$want'"
}

# lo_peer() - a datagram from the host's loopback, from port SP, to a -u
# port: check the peer a receiver on P1 in the namespace saw
# $1: family, 4 or 6
# $2: address to send to, as socat takes it
# $3: port to send to
# $4: expected peer
# $5: what is sent, for messages
lo_peer() {
	peer_check "$4" "$5" "$NS" "$1" "$P1" "$RIG_HOSTNS" \
		"UDP$1:$2:$3,sourceport=$SP"
}

# udp_splice() - test: -u from the host's loopback, spliced
udp_splice() {
	local bin v6addr="[2001:0db8:0000:0000:0000:0000:0000:0002]"
	local v6lo="[0000:0000:0000:0000:0000:0000:0000:0001]" addr
	local ns host="ip netns exec $RIG_HOSTNS" lo=--host-lo-to-ns-lo

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t none -u "$P1" \
			-u "0.0.0.0/$P4:$RIG_ADDR4/$P1" -T none -U "$P5" ||
			return 1
		ns="ip netns exec $NS"
		lo_peer 4 127.0.0.1 "$P1" "$RIG_ADDR4:$SP" "$bin: 127.0.0.1" &&
		lo_peer 6 "[::1]" "$P1" "$v6addr:$SP" "$bin: ::1" &&
		lo_peer 4 127.0.0.1 "$P4" "$RIG_GW4:$SP" \
			"$bin: target address" &&
		peer_check "127.0.0.5:$SP" "$bin: -U 127.0.0.5" \
			"$RIG_HOSTNS" 4 "$P5" "$NS" \
			"UDP4:127.0.0.5:$P5,bind=127.0.0.5:$SP" || return 1
		for addr in 127.0.0.1 ::1; do
			pasta_udp_echo "$ns" "-6 -p $P1" "$host" "$addr" "$P1" \
				-n 1000 -r 10 ||
				rig_fail "$bin: $RIG_WHY" || return 1
		done
		upstream_unwind

		upstream_relay_up "$bin" -t none -u "$P1" -T none -U none \
			"$lo" || return 1
		lo_peer 4 127.0.0.1 "$P1" "127.0.0.1:$SP" "$bin: $lo" &&
		lo_peer 6 "[::1]" "$P1" "$v6lo:$SP" "$bin: $lo ::1" ||
			return 1
		upstream_unwind
	done
}

# lo_tcp() - DATA from the host's 127.0.0.1 to a -t port reaches a server
# on T2 in the namespace (sha256); pasta_peer_is() checks its peer after
# $1: port
lo_tcp() {
	pasta_tcp_sha "ip netns exec $NS" "TCP4-LISTEN:$T2" \
		"ip netns exec $RIG_HOSTNS" "TCP4:127.0.0.1:$1" "$DATA" "$LIMIT"
}

# tcp_target() - test: from the host's loopback, a rule with a target
# address goes through the tap, one without is spliced (upstream's choice)
tcp_target() {
	local bin

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "0.0.0.0/$P4:$RIG_ADDR4/$T2" \
			-t "$P1:$T2" -u none -T none -U none || return 1
		lo_tcp "$P4" && pasta_peer_is "$RIG_GW4" ||
			rig_fail "$bin: target address: $RIG_WHY" || return 1
		lo_tcp "$P1" && pasta_peer_is "$RIG_ADDR4" ||
			rig_fail "$bin: no target address: $RIG_WHY" || return 1
		upstream_unwind
	done
}

rig_run "one port at 127.0.0.1, ::1, 127.0.0.2 (spliced) and two IPv4 addresses (tap), each to its own target: TCP 1 MiB, UDP 64 KiB, sha256" \
	upstream_rounds shared
rig_run "-t none, then podman's ADDR/HP-HP:CP-CP at 127.0.0.1 and ::1: TCP 1 MiB, UDP 64 KiB, sha256" \
	upstream_rounds podman
rig_run "conflicting rules refused with status 1, rules at addresses that don't overlap taken" \
	upstream_rounds conflicts
rig_run "-c: pesto adds and deletes one port's rule at 127.0.0.1 beside ::1, refuses any address, 1 MiB sha256" \
	upstream_rounds runtime
rig_run "-t from 127.0.0.1: to a target address through the tap, else spliced, 1 MiB sha256" \
	upstream_rounds tcp_target
rig_run "-u auto also follows TCP listeners (64 KiB sha256), not pasta's own -T sockets" \
	upstream_rounds udp_auto_tcp
rig_run "-u from 127.0.0.1/::1 spliced from the namespace's address and the peer's port, echoes; --host-lo-to-ns-lo; -U keeps 127.0.0.5:port" \
	upstream_rounds udp_splice

rig_summary
