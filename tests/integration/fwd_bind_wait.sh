#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/fwd_bind_wait.sh - a -t rule bound to an address the
# host doesn't have yet waits for it while the relay follows the host
# (issue 37, "inbound forwarding follows")
#
# Rig (tests/lib/rig.sh): the "host" namespace has 192.0.2.2/24 and
# 2001:db8::2/64 on veth0; WAIT4 and WAIT6 below are on none of its
# links at first. pasta runs with --follow-host (the test runs as root of
# the initial user namespace, where following is off by default) and
# -t WAIT4/PORT4 -t [WAIT6]/PORT6 -u WAIT4/UPORT, and -c SOCKET.
#
#   no_follow:  a -t WAIT4 rule with --no-follow-host: pasta exits with
#               a non-zero status and the EADDRNOTAVAIL message, as
#               upstream does.
#   waits:      pasta starts (status 0), logs for each rule, once, that
#               the address is not on the host (yet) and the port listens
#               for it, and holds a socket bound to each address.
#   pesto_add:  pesto adds -t WAIT4/PORTC through the -c socket while the
#               host still lacks WAIT4: accepted, logged once, bound.
#   arrives:    the host gets WAIT4/32 and WAIT6/128 on its loopback: a TCP
#               connection from the host namespace to each address and
#               port (PORTC too) reaches a server in pasta's namespace,
#               sha256 intact.
#   comes_back: both addresses removed, then added again: the same
#               transfers still work (the kernel keeps the sockets bound
#               through it; the relay re-binds nothing).
#
# No timing assertion: every wait is a bounded poll.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

WAIT4=198.51.100.10
WAIT6=2001:db8:5::10
PORT4=10381
PORT6=10382
UPORT=10383
PORTC=10384
LIMIT=30

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1
rig_ns_new NS_FIXED f || exit 1
rig_pesto

CSOCK=$RIG_TMP/conf.sock
LOG=$RIG_TMP/pasta.log

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1

# host_addrs() - add ("add") or remove ("del") the awaited addresses on
# the host namespace's loopback
# $1: add or del
host_addrs() {
	ip -n "$RIG_HOSTNS" addr "$1" "$WAIT4/32" dev lo &&
	ip -n "$RIG_HOSTNS" addr "$1" "$WAIT6/128" dev lo
}

# transfers() - one TCP transfer per family from the host namespace to
# the awaited addresses, to servers in pasta's namespace
transfers() {
	pasta_tcp_sha "ip netns exec $RIG_NS" "TCP4-LISTEN:$PORT4" \
		"ip netns exec $RIG_HOSTNS" "TCP4:$WAIT4:$PORT4" \
		"$DATA" "$LIMIT" || return 1
	pasta_tcp_sha "ip netns exec $RIG_NS" "TCP4-LISTEN:$PORTC" \
		"ip netns exec $RIG_HOSTNS" "TCP4:$WAIT4:$PORTC" \
		"$DATA" "$LIMIT" || return 1
	pasta_tcp_sha "ip netns exec $RIG_NS" "TCP6-LISTEN:$PORT6" \
		"ip netns exec $RIG_HOSTNS" "TCP6:[$WAIT6]:$PORT6" \
		"$DATA" "$LIMIT"
}

# logged_once() - the relay's log file (-l) has a line exactly once
# $1: fixed string
logged_once() {
	local n

	n=$(grep -cF -- "$1" "$LOG")
	[ "$n" -eq 1 ] || rig_fail "'$1' logged $n times, expected once"
}

# bound() - the relay holds a socket bound to an address and port
# $1: ss options (-Hltnp or -Hlunp)
# $2: address as ss prints it
# $3: port
bound() {
	rig_h ss "$1" "src $2 and sport = :$3" |
		grep -q "pid=$RIG_RELAY_PID," ||
		rig_fail "no socket of the relay bound to $2 port $3"
}

# waits() - test: pasta starts with rules for addresses the host lacks
waits() {
	! rig_has_addr "$RIG_HOSTNS" "$WAIT4" ||
		rig_fail "$WAIT4 is on the host already" || return 1
	rig_relay_start daemon --follow-host -c "$CSOCK" -l "$LOG" \
		-t "$WAIT4/$PORT4" -t "[$WAIT6]/$PORT6" -u "$WAIT4/$UPORT" ||
		return 1
	logged_once "-t: $WAIT4 is not on the host (yet): TCP port $PORT4 listens for it" &&
	logged_once "-t: $WAIT6 is not on the host (yet): TCP port $PORT6 listens for it" &&
	logged_once "-u: $WAIT4 is not on the host (yet): UDP port $UPORT listens for it" &&
	bound -Hltnp "$WAIT4" "$PORT4" &&
	bound -Hltnp "[$WAIT6]" "$PORT6" &&
	bound -Hlunp "$WAIT4" "$UPORT"
}

# pesto_add() - test: a rule for an absent address added through -c
pesto_add() {
	! rig_has_addr "$RIG_HOSTNS" "$WAIT4" ||
		rig_fail "$WAIT4 is on the host already" || return 1
	"$PESTO" -A -t "$WAIT4/$PORTC" "$CSOCK" >"$RIG_TMP/pesto.out" 2>&1 ||
		rig_fail "pesto failed:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/pesto.out")" || return 1
	logged_once "-t: $WAIT4 is not on the host (yet): TCP port $PORTC listens for it" &&
	bound -Hltnp "$WAIT4" "$PORTC" &&
	logged_once "-t: $WAIT4 is not on the host (yet): TCP port $PORT4 listens for it"
}

# arrives() - test: the host gets the addresses, connections get through
arrives() {
	host_addrs add || rig_fail "can't add the addresses" || return 1
	transfers
}

# comes_back() - test: the addresses go and come back, still working
comes_back() {
	host_addrs del || rig_fail "can't remove the addresses" || return 1
	! rig_has_addr "$RIG_HOSTNS" "$WAIT4" ||
		rig_fail "$WAIT4 still on the host" || return 1
	bound -Hltnp "$WAIT4" "$PORT4" || return 1
	host_addrs add || rig_fail "can't add the addresses again" || return 1
	transfers
}

# no_follow() - test: with --no-follow-host, the rule fails as upstream's
no_follow() {
	local log=$RIG_TMP/no_follow.log pidfile=$RIG_TMP/no_follow.pid rc
	local port=$((PORT4 + 10))

	! rig_has_addr "$RIG_HOSTNS" "$WAIT4" ||
		rig_fail "$WAIT4 is on the host already" || return 1
	rig_h timeout "$LIMIT" "$RELAY" -P "$pidfile" --runas 0 --config-net \
		-u none -T none -U none --no-follow-host -t "$WAIT4/$port" \
		--netns "$NS_FIXED" >"$log" 2>&1
	rc=$?
	[ -s "$pidfile" ] && rig_defer "rig_kill '$(cat "$pidfile")'"
	[ "$rc" -ne 0 ] ||
		rig_fail "pasta started (status 0) with --no-follow-host" ||
		return 1
	grep -qF "can't listen on TCP port $port at $WAIT4: Cannot assign requested address" "$log" ||
		rig_fail "no EADDRNOTAVAIL message (status $rc):" \
			 "$(tail -n 3 "$log" | tr '\n' ' ')" || return 1
	! grep -qF "is not on the host (yet)" "$log" ||
		rig_fail "--no-follow-host still waited for $WAIT4"
}

rig_run "no_follow" no_follow
rig_run "waits" waits
rig_run "pesto_add" pesto_add
rig_run "arrives" arrives
rig_run "comes_back" comes_back
rig_summary
