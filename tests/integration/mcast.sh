#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/mcast.sh - the multicast proxy (--mcast-ports): mDNS
# between the host's link and namespaces that join the groups
#
# Rig (tests/lib/rig.sh): two pasta relays with --mcast-ports 5353 in the
# test's host namespace (veth0 is their template interface), each serving
# a namespace of its own: in namespace A a receiver joins 224.0.0.251 and
# ff02::fb on its interface; in namespace B a receiver only binds port
# 5353, joining nothing. Every multicast datagram stays in namespaces the
# test made.
#
#   host -> namespaces: the relay of A joins each group on veth0 (seen in
#     the host's multicast addresses); 20 datagrams sent from the host to
#     the group reach A's receiver, all of them, in order, with their
#     content; B's receiver gets none. IPv4 and IPv6.
#   namespaces -> host: 20 datagrams of A to the group reach a receiver on
#     the host that joined it on veth0, in order, with their content, and
#     none reaches B. A's own receiver gets each of them once (from its own
#     kernel): the relay saw them come back on the host (its counter) and
#     did not send them back. IPv4, IPv6.
#   leave: once A's receivers are gone, the relay leaves both groups on
#     the host.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

N=20
G4=224.0.0.251
G6=ff02::fb
DEV=veth0		# template interface, and tap name in the namespaces

rig_init
rig_host_ns || exit 1

NS_A=
NS_B=
PID_A=
LOG_A=

# mc_recv() - start a receiver of port 5353 writing datagrams to a file
# $1: namespace
# $2: 4 or 6
# $3: output file
# $4: group to join, empty for none
mc_recv() {
	local addr

	if [ "$2" = 4 ]; then
		addr="UDP4-RECV:5353,reuseaddr"
		[ -n "$4" ] && addr+=",ip-add-membership=$4:$DEV"
	else
		addr="UDP6-RECV:5353,reuseaddr,ipv6only=1"
		[ -n "$4" ] && addr+=",ipv6-join-group=[$4]:$DEV"
	fi
	: >"$3"
	ip netns exec "$1" timeout 60 socat -u "$addr" \
		"OPEN:$3,creat,append" 2>>"$RIG_TMP/socat.err" &
	rig_defer "rig_kill $!"
}

# mc_send() - send N numbered datagrams to a group, one at a time
# $1: namespace
# $2: 4 or 6
# $3: text before the number
mc_send() {
	local i addr

	if [ "$2" = 4 ]; then
		addr="UDP4-DATAGRAM:$G4:5353"
	else
		addr="UDP6-DATAGRAM:[$G6%$DEV]:5353"
	fi
	for i in $(seq "$N"); do
		echo "$3-$i" | ip netns exec "$1" socat -u - "$addr" ||
			return 1
	done
}

# mc_expect() - a receiver's file holds the N datagrams, in order
# $1: file
# $2: text before the numbers
mc_expect() {
	local want

	want=$(for i in $(seq "$N"); do echo "$2-$i"; done)
	rig_poll 5 eval "[ \$(wc -l <'$1') -ge $N ]"
	[ "$(cat "$1")" = "$want" ] ||
		rig_fail "$(basename "$1"): got $(wc -l <"$1") datagrams:" \
			 "$(head -c 120 "$1" | tr '\n' ' ')"
}

# mc_host_joined() - the host's veth0 is in a multicast group
# $1: group
mc_host_joined() {
	local out

	out=$(ip -n "$RIG_HOSTNS" maddr show dev "$DEV")
	grep -qw "$1" <<<"$out"
}

# mc_relay_joined() - a relay's socket is bound to a group, port 5353
# $1: group
mc_relay_joined() {
	local out

	out=$(ip netns exec "$RIG_HOSTNS" ss -Huln)
	grep -qE -- "\[?${1//./\\.}\]?(%[a-z0-9]+)?:5353" <<<"$out"
}

# mc_counter_a() - a counter of relay A's multicast proxy, fresh
# $1: key, e.g. looped
mc_counter_a() {
	local before

	before=$(grep -c 'mcast: ' "$LOG_A")
	kill -USR1 "$PID_A" || return 1
	rig_poll 2 rig_log_grew "$LOG_A" 'mcast: ' "$before" || return 1
	grep -o "mcast: .* $1=[0-9]*" "$LOG_A" | tail -1 | sed "s/.* $1=//"
}

# start() - test: two relays with --mcast-ports 5353
start() {
	rig_target_ns || return 1
	NS_A=$RIG_NS
	rig_relay_start daemon --mcast-ports 5353 -t none \
		-l "$RIG_TMP/pasta_a.log" || return 1
	PID_A=$RIG_RELAY_PID
	LOG_A=$RIG_TMP/pasta_a.log
	rig_target_ns || return 1
	NS_B=$RIG_NS
	rig_relay_start daemon --mcast-ports 5353 -t none \
		-l "$RIG_TMP/pasta_b.log" || return 1
	RIG_RELAY_LOG=$RIG_TMP/pasta_b.log
	grep -q "Multicast: 1 UDP ports" "$LOG_A" ||
		rig_fail "relay A did not start the multicast proxy"
}

# to_guest() - test: host -> namespace A, not B
# $1: 4 or 6
to_guest() {
	local g=$G4 a=$RIG_TMP/a$1 b=$RIG_TMP/b$1

	[ "$1" = 6 ] && g=$G6
	mc_recv "$NS_A" "$1" "$a" "$g"
	mc_recv "$NS_B" "$1" "$b" ""
	rig_poll 5 mc_relay_joined "$g" && mc_host_joined "$g" ||
		rig_fail "relay A did not join $g on the host" || return 1

	mc_send "$RIG_HOSTNS" "$1" "host$1" ||
		rig_fail "host sender failed" || return 1
	mc_expect "$a" "host$1" || return 1
	[ ! -s "$b" ] ||
		rig_fail "namespace B, not a member, got $(wc -l <"$b")"
}

# to_host() - test: namespace A -> host, not B, no echo
# $1: 4 or 6
to_host() {
	local g=$G4 a=$RIG_TMP/ga$1 b=$RIG_TMP/gb$1 h=$RIG_TMP/h$1 looped

	[ "$1" = 6 ] && g=$G6
	mc_recv "$RIG_HOSTNS" "$1" "$h" "$g"
	mc_recv "$NS_A" "$1" "$a" "$g"
	mc_recv "$NS_B" "$1" "$b" ""
	rig_poll 5 mc_relay_joined "$g" ||
		rig_fail "relay A did not join $g on the host" || return 1
	rig_wait_listen_udp "$RIG_HOSTNS" || return 1
	looped=$(mc_counter_a looped) || rig_fail "no counters" || return 1

	mc_send "$NS_A" "$1" "guest$1" ||
		rig_fail "namespace sender failed" || return 1
	mc_expect "$h" "guest$1" || return 1
	mc_expect "$a" "guest$1" || return 1
	[ ! -s "$b" ] ||
		rig_fail "namespace B, not a member, got $(wc -l <"$b")" ||
		return 1

	# The relay saw each of its own datagrams come back, and dropped it
	rig_poll 2 eval "[ \$(mc_counter_a looped) -ge $((looped + N)) ]" ||
		rig_fail "relay A dropped $(( $(mc_counter_a looped) - looped ))" \
			 "of its own $N datagrams looped back on the host"
}

# rig_wait_listen_udp() - a UDP socket on port 5353 in a namespace
# $1: namespace
rig_wait_listen_udp() {
	rig_poll 5 eval "ip netns exec '$1' ss -Hlun 'sport = :5353' |
			 grep -q ." ||
		rig_fail "no receiver on port 5353 in $1"
}

# leave() - test: with no member left in A, the relay leaves the groups
leave() {
	rig_poll 5 eval "! mc_relay_joined $G4 && ! mc_relay_joined $G6 &&
			 ! mc_host_joined $G4 && ! mc_host_joined $G6" ||
		rig_fail "still a member on the host:" \
			 "$(ip -n "$RIG_HOSTNS" maddr show dev "$DEV" |
			    grep -w "$G4\|$G6" | tr -s ' \n' ' ')" || return 1
	kill -USR1 "$PID_A"
	rig_poll 2 eval "grep -q 'mcast: .*leaves=[1-9]' '$LOG_A'" ||
		rig_fail "relay A counted no leave: $(grep 'mcast:' "$LOG_A" |
						      tail -1)"
}

# stop_a() - test: relay A exits on SIGTERM
stop_a() {
	kill -TERM "$PID_A"
	rig_poll 5 eval "! kill -0 $PID_A 2>/dev/null" ||
		rig_fail "relay A did not exit"
}

rig_run "two pasta relays with --mcast-ports 5353" start
rig_run "host -> $G4:5353: the member namespace gets all $N, the other none" \
	to_guest 4
rig_run "host -> [$G6]:5353: the member namespace gets all $N, the other none" \
	to_guest 6
rig_run "namespace -> $G4:5353: the host member gets all $N, no echo, the other namespace none" \
	to_host 4
rig_run "namespace -> [$G6]:5353: the host member gets all $N, no echo, the other namespace none" \
	to_host 6
rig_run "members gone: the relay leaves both groups on the host" leave
rig_run "relay A exits on SIGTERM" stop_a
rig_run "relay B exits on SIGTERM" rig_relay_stop_check

rig_summary
