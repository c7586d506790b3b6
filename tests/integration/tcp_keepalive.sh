#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_keepalive.sh - the guest's TCP keepalives are
# answered, and mirrored onto the host socket
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME). A third
# namespace, the remote peer, hangs off the host namespace on a veth pair
# (host 198.51.100.1, peer 198.51.100.2): the host side of a connection to
# it leaves the host namespace, as it would toward another machine, so the
# peer can vanish without a word (its address deleted: what reaches it is
# dropped, nothing answers).
#
# The guest is socat in the namespace, connected to the peer through the
# relay with SO_KEEPALIVE, TCP_KEEPIDLE 1 s, TCP_KEEPINTVL 1 s and
# TCP_KEEPCNT 3, reading and never writing; the peer is socat, also idle.
#
#   answered and mirrored, host defaults: the host namespace keeps the
#     kernel's keepalive settings (2 hours idle), except 3 probes. Over
#     WATCH seconds of silence the guest sends keepalives (its
#     TcpExtTCPKeepAlive) and keeps its connection (every one answered:
#     with 3 unanswered probes at 1 s it would have given up after 4 s);
#     the relay counts them (keepalives); the host socket has a keepalive
#     timer (ss) and sends probes (TcpExtTCPKeepAlive of the host
#     namespace), which the peer receives (its TcpInSegs) although the host
#     default would wait 2 hours: the guest's pace is mirrored.
#   no keepalive, no mirror: a second connection without SO_KEEPALIVE;
#     its host socket gets no keepalive timer.
#   vanished peer: a new connection like the first; once its host socket
#     probes, the peer's address goes; the host socket's probes go
#     unanswered, it fails after 3, and the relay resets the guest's
#     connection: socat in the guest ends within LIMIT seconds, and the
#     guest counts a reset connection (TcpEstabResets).
#
# RELAY_DEBUG=1 runs the relay with -d (flow and keepalive messages in
# its log). With --upstream, upstream's pasta runs the first and last
# cases with the host namespace's keepalive time and interval set to 2 s
# and 1 s: upstream turns SO_KEEPALIVE on with the host's timing only
# (doc/tcp.md).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

PEER_HOST=198.51.100.1
PEER=198.51.100.2
PORT=7000
PORT_PLAIN=7001
WATCH=6
LIMIT=40
KA_OPTS="keepalive,keepidle=1,keepintvl=1,keepcnt=3"

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

# peer_ns() - the remote peer's namespace, on a veth pair from the host's
# Sets PEER_NS.
peer_ns() {
	local mac

	rig_ns_new PEER_NS r || return 1
	rig_h ip link add vr0 type veth peer name vr1 netns "$PEER_NS" &&
	rig_h ip link set vr0 up &&
	ip -n "$PEER_NS" link set vr1 up &&
	rig_h ip addr add "$PEER_HOST/24" dev vr0 &&
	ip -n "$PEER_NS" addr add "$PEER/24" dev vr1 || return 1
	# Frames keep reaching the peer once its address is gone
	mac=$(ip -n "$PEER_NS" -j link show vr1 | jq -r '.[0].address') &&
	rig_h ip neigh replace "$PEER" lladdr "$mac" dev vr0 nud permanent
}
peer_ns || { echo "FAIL: prerequisites: peer namespace"; exit 1; }

# peer_server() - start an idle server on the peer, wait until it listens
# $1: port
peer_server() {
	ip netns exec "$PEER_NS" timeout -k 2 $((3 * LIMIT)) \
		socat -u "TCP4-LISTEN:$1,reuseaddr" STDOUT >/dev/null 2>&1 &
	rig_defer "rig_kill $!"
	rig_poll 5 rig_listening "$PEER_NS" "$1" ||
		rig_fail "peer server on port $1 did not start"
}

# guest_client() - connect from the namespace to the peer, read, never write
# $1: port
# $2: socat options of the connection ("" for none)
# $3: file for socat's messages
# Sets CLIENT_PID (timeout's, which exits with socat's status).
guest_client() {
	local addr="TCP4:$PEER:$1"

	[ -n "$2" ] && addr+=",$2"
	ip netns exec "$RIG_NS" timeout -k 2 $((3 * LIMIT)) \
		socat -u "$addr" STDOUT >/dev/null 2>"$3" &
	CLIENT_PID=$!
	rig_defer "rig_kill $CLIENT_PID"
}

# established() - is a connection to a peer port established in a namespace?
# $1: namespace
# $2: peer port
established() {
	ip netns exec "$1" ss -Htn state established "dport = :$2" |
		grep -q .
}

# host_timer() - print the timer of the host socket toward a peer port
# $1: peer port
host_timer() {
	rig_h ss -Htno state established "dport = :$1" |
		grep -o 'timer:([a-z]*' | head -n 1
}

# host_keepalive_on() - has the host socket toward PORT a keepalive timer?
host_keepalive_on() {
	[ "$(host_timer "$PORT")" = "timer:(keepalive" ]
}

# relay_up() - test: start a relay in the foreground
# $1: binary
relay_up() {
	local RELAY=$1

	rig_relay_start fg ${RELAY_DEBUG:+-d}
}

# connect_both() - the peer's server and the guest's client, established
# $1: port
# $2: socat options of the guest's connection
connect_both() {
	peer_server "$1" || return 1
	guest_client "$1" "$2" "$RIG_TMP/client.$1.err"
	rig_poll 5 established "$RIG_NS" "$1" ||
		rig_fail "guest connection to $PEER:$1 not established:" \
			 "$(cat "$RIG_TMP/client.$1.err")" || return 1
	rig_poll 5 established "$RIG_HOSTNS" "$1" ||
		rig_fail "no host socket toward $PEER:$1"
}

# mirrored() - test: keepalives answered and mirrored onto the host socket
# $1: "count" to check the relay's keepalives counter
mirrored() {
	local g0 g1 h0 h1 p0 p1 k0='' k1 timer

	connect_both "$PORT" "$KA_OPTS" || return 1
	if [ -n "$1" ]; then
		k0=$(rig_relay_counter tcp keepalives) ||
			rig_fail "no keepalives counter from the relay" ||
			return 1
	fi
	g0=$(rig_nstat "$RIG_NS" TcpExtTCPKeepAlive)
	h0=$(rig_nstat "$RIG_HOSTNS" TcpExtTCPKeepAlive)
	p0=$(rig_nstat "$PEER_NS" TcpInSegs)
	sleep "$WATCH"
	g1=$(rig_nstat "$RIG_NS" TcpExtTCPKeepAlive)
	h1=$(rig_nstat "$RIG_HOSTNS" TcpExtTCPKeepAlive)
	p1=$(rig_nstat "$PEER_NS" TcpInSegs)
	timer=$(host_timer "$PORT")
	rig_log "in $WATCH s: guest keepalives $((g1 - g0)), host socket" \
		"probes $((h1 - h0)), segments to the peer $((p1 - p0))," \
		"host socket ${timer:-no timer})"

	! rig_exited "$CLIENT_PID" ||
		rig_fail "the guest's connection ended:" \
			 "$(cat "$RIG_TMP/client.$PORT.err")" || return 1
	[ $((g1 - g0)) -ge 3 ] ||
		rig_fail "the guest sent $((g1 - g0)) keepalives" || return 1
	if [ -n "$1" ]; then
		k1=$(rig_relay_counter tcp keepalives) || return 1
		[ $((k1 - k0)) -ge 3 ] ||
			rig_fail "the relay counted $((k1 - k0)) keepalives" ||
			return 1
	fi
	[ "$timer" = "timer:(keepalive" ] ||
		rig_fail "host socket without keepalive timer" || return 1
	[ $((h1 - h0)) -ge 2 ] ||
		rig_fail "the host socket sent $((h1 - h0)) keepalive" \
			 "probes in $WATCH s" || return 1
	[ $((p1 - p0)) -ge 2 ] ||
		rig_fail "the peer received $((p1 - p0)) segments"
}

# not_mirrored() - test: no keepalive from the guest, none on the host
not_mirrored() {
	local timer

	connect_both "$PORT_PLAIN" "" || return 1
	sleep 3
	timer=$(host_timer "$PORT_PLAIN")
	[ -z "$timer" ] ||
		rig_fail "host socket has a timer: $timer" || return 1
	rig_h ss -Htno state established "dport = :$PORT_PLAIN" | rig_indent
}

# vanished() - test: the peer goes silent, the guest's connection is reset
vanished() {
	local rc r0 r1 start

	connect_both "$PORT" "$KA_OPTS" || return 1
	rig_poll 5 host_keepalive_on ||
		rig_fail "host socket without keepalive timer" || return 1
	r0=$(rig_nstat "$RIG_NS" TcpEstabResets)
	ip -n "$PEER_NS" addr del "$PEER/24" dev vr1 ||
		rig_fail "can't remove the peer's address" || return 1
	rig_defer "ip -n '$PEER_NS' addr add '$PEER/24' dev vr1"
	start=$(rig_now_ms)
	rig_wait_pid "$CLIENT_PID" "$LIMIT"
	rc=$?
	r1=$(rig_nstat "$RIG_NS" TcpEstabResets)
	rig_log "guest's connection ended after" \
		"$(rig_secs $(( $(rig_now_ms) - start ))) s, status $rc," \
		"resets received $((r1 - r0))"
	[ "$rc" -ne 124 ] ||
		rig_fail "the guest's connection still up $LIMIT s after" \
			 "the peer vanished" || return 1
	# socat takes a reset for the end of data: the guest's counter tells
	[ $((r1 - r0)) -ge 1 ] ||
		rig_fail "the guest's connection did not end with a reset"
}

# host_keepalive() - host namespace keepalive settings, undone at cleanup
# $1: time, s
# $2: interval, s
# $3: probes
host_keepalive() {
	rig_sysctl_set net.ipv4.tcp_keepalive_time "$1" "$RIG_HOSTNS" &&
	rig_sysctl_set net.ipv4.tcp_keepalive_intvl "$2" "$RIG_HOSTNS" &&
	rig_sysctl_set net.ipv4.tcp_keepalive_probes "$3" "$RIG_HOSTNS"
}

# one_relay() - the tests against one relay, and its clean exit
# $1: binary
# $2: "count" for ours (its counters and the mirrored pace), "" upstream
# $3: name prefix
one_relay() {
	rig_run "$3relay starts" relay_up "$1"
	[ -n "$RIG_RELAY_PID" ] || return 1
	if [ -n "$2" ]; then
		rig_run "$3$ANSWERED at that pace (host default 7200 s)" \
			mirrored count
		rig_run "$3no keepalive from the guest: none on the host socket" \
			not_mirrored
	else
		rig_run "$3$ANSWERED" mirrored ""
	fi
	rig_run "$3peer vanished: the guest's connection is reset" vanished
	rig_run "$3relay exits on SIGTERM" rig_relay_stop_check
}

ANSWERED="keepalives from the guest: answered, and the host socket probes"
ANSWERED+=" the peer"
host_keepalive 7200 75 3 ||
	{ echo "FAIL: prerequisites: keepalive sysctls"; exit 1; }
one_relay "$RELAY" count ""

if UP=$(rig_upstream pasta); then
	rig_h sysctl -qw net.ipv4.tcp_keepalive_time=2 \
		net.ipv4.tcp_keepalive_intvl=1
	one_relay "$UP" "" "upstream: "
fi
rig_summary
