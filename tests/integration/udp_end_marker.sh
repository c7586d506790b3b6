#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/udp_end_marker.sh - concurrent -u flows into the
# namespace, each ending with an empty datagram: every datagram arrives
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and forwards UDP ports PORT0+1 to PORT0+2*FLOWS (-u) to the
# namespace it serves. This is what podman's "UDP ... transfer, tap" tests
# do: in each round, FLOWS flows per family start at once; in the
# namespace, a socat server per port (UDP4-LISTEN or UDP6-LISTEN, null-eof)
# takes the first datagram, connect()s back to its source (so that later
# datagrams reach it only at the address it now has as its own) and ends at
# the first empty datagram; on the host, socat sends SIZE bytes in
# BLOCK-byte datagrams followed by one empty datagram (shut-null), half of
# the flows to the host's own address (through the tap, from a mapped
# source), half to loopback (spliced, socket to socket, as upstream's pasta
# does). A round passes if every server ended by itself (it saw the end
# marker) with the sha256 of the file; after the rounds, the relay's
# to_guest counter grew by exactly the number of datagrams sent to the
# host's address (none lost, none counted as dropped), and its count of
# spliced flows grew. Then echoes: an
# unconnected server in the namespace (tests/tools/udp_echo) answers with
# sendto() from the address its kernel picks, and every answer must reach
# the client on the host, from the host's address and from loopback.
#
# Shapes, each with a relay of its own:
#   global gateway: the host's IPv6 default route goes through a global
#     address (the rig's default);
#   link-local gateway: through fe80::1, as on most real hosts. Traffic
#     from the host's address or loopback then comes from a link-local
#     address, so a server that connects back takes its link-local
#     address as its own: datagrams of the flow must go there too, not to
#     its global address (it was lost in about one round in two otherwise);
#   link-local gateway, namespace's link-local address tentative: duplicate
#     address detection made long (dad_transmits): nothing may be sent to
#     an address the kernel would drop frames for.
# The first two wait until the namespace's link-local address is usable.
# With --upstream, upstream's pasta runs the link-local gateway shape too.
#
# Rounds per shape: ROUNDS (10: a failure in one round of two is missed
# with a probability of 1/1024).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

FLOWS=${UDP_END_FLOWS:-4}
ROUNDS=${UDP_END_ROUNDS:-10}
# podman sends a quarter of net.core.wmem_default (212992)
SIZE=53248
BLOCK=8192
PORT0=6000
ECHO_PORT=$((PORT0 + 100))
LIMIT=10
# Duplicate address detection probes in the tentative shape: 1 s each
DAD_LONG=120

rig_init
rig_need_tool ECHO udp_echo || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1
# No address from router advertisements: a second global address would
# leave the choice of a connect()ing server's own address to its kernel
rig_sysctl_set net.ipv6.conf.default.accept_ra 0 "$RIG_NS" || exit 1

DATA=$RIG_TMP/data
rig_random_file "$DATA" "$SIZE" || exit 1
# Datagrams per flow: the data in BLOCK-byte pieces, and the empty one
PER_FLOW=$(( (SIZE + BLOCK - 1) / BLOCK + 1 ))
PORTS="$((PORT0 + 1))-$((PORT0 + 2 * FLOWS)),$ECHO_PORT"

# ll_tentative() - does the namespace have a tentative link-local address?
ll_tentative() {
	ip -n "$RIG_NS" -6 addr show scope link tentative 2>/dev/null |
		grep -q inet6
}

# ll_usable() - does the namespace have a link-local address out of DAD?
ll_usable() {
	local out

	out=$(ip -n "$RIG_NS" -6 addr show scope link 2>/dev/null)
	grep -q 'inet6 fe80' <<<"$out" && ! ll_tentative
}

# relay_up() - start a pasta in the foreground with -u PORTS
# $1: binary
#
# rig_relay_fg, not rig_relay_start fg, whose fixed "-u none" can't take a
# port list.
relay_up() {
	rig_relay_fg "$1" --runas 0 --config-net -t none -T none -U none \
		-u "$PORTS" --netns "$RIG_NS"
	rig_wait_addrs || return 1
	rig_poll 5 rig_udp_bound "$RIG_HOSTNS" "$((PORT0 + 1))" ||
		rig_fail "relay does not listen on UDP port $((PORT0 + 1))" ||
		return 1
}

# drops() - one line of the namespace's UDP and IPv6 input errors
drops() {
	# shellcheck disable=SC2016 # an awk program, not a shell expansion
	rig_g nstat -az 2>/dev/null | awk '
		$1 ~ /^Udp6?(NoPorts|InErrors|RcvbufErrors)$/ ||
		$1 ~ /^Ip6?InAddrErrors$/ {
			if ($2 > 0) printf "%s=%s ", $1, $2
		}'
}

# flow_family() - address family of flow K (the first FLOWS are IPv4)
# $1: K, from 1 to 2 * FLOWS
flow_family() {
	if [ "$1" -le "$FLOWS" ]; then echo 4; else echo 6; fi
}

# flow_target() - socat address the host sends flow K to
# $1: K
# Odd flows go to the host's own address, even ones to loopback.
flow_target() {
	local k=$1 port=$((PORT0 + $1)) fam

	fam=$(flow_family "$k")
	if [ "$fam" = 4 ]; then
		if [ $((k % 2)) -eq 1 ]; then
			echo "UDP4:$RIG_ADDR4:$port"
		else
			echo "UDP4:127.0.0.1:$port"
		fi
	elif [ $((k % 2)) -eq 1 ]; then
		echo "UDP6:[$RIG_ADDR6]:$port"
	else
		echo "UDP6:[::1]:$port"
	fi
}

# round() - one round: 2 * FLOWS flows at once, every one must arrive whole
# $1: round number, for messages
round() {
	local n=$1 k fam port rc bad='' want spids=() cpids=()

	for k in $(seq $((2 * FLOWS))); do
		fam=$(flow_family "$k")
		port=$((PORT0 + k))
		rm -f "$RIG_TMP/sha.$k"
		ip netns exec "$RIG_NS" timeout -k 2 "$LIMIT" \
			bash -o pipefail -c "socat -u \
			UDP$fam-LISTEN:$port,null-eof STDOUT |
			sha256sum | cut -d' ' -f1" >"$RIG_TMP/sha.$k" \
			2>>"$RIG_TMP/server.err" &
		spids[k]=$!
		rig_defer "rig_kill ${spids[k]}"
	done
	for k in $(seq $((2 * FLOWS))); do
		rig_poll 5 rig_udp_bound "$RIG_NS" $((PORT0 + k)) ||
			rig_fail "round $n: server on port $((PORT0 + k))" \
				 "did not start" || return 1
	done

	for k in $(seq $((2 * FLOWS))); do
		ip netns exec "$RIG_HOSTNS" timeout -k 2 "$LIMIT" \
			socat -u -b "$BLOCK" "OPEN:$DATA" \
			"$(flow_target "$k"),shut-null" \
			2>>"$RIG_TMP/client.err" &
		cpids[k]=$!
	done
	for k in $(seq $((2 * FLOWS))); do
		wait "${cpids[k]}" ||
			bad+=" client $(flow_target "$k") failed;"
	done

	want=$(rig_sha "$DATA")
	for k in $(seq $((2 * FLOWS))); do
		wait "${spids[k]}"
		rc=$?
		if [ "$rc" -eq 124 ]; then
			bad+=" $(flow_target "$k"): no end marker"
			bad+=" in $LIMIT s;"
		elif [ "$rc" -ne 0 ]; then
			bad+=" $(flow_target "$k"): server status $rc;"
		elif [ "$(cat "$RIG_TMP/sha.$k")" != "$want" ]; then
			bad+=" $(flow_target "$k"): sha256 mismatch;"
		fi
	done
	[ -z "$bad" ] && return 0
	rig_log "round $n: namespace drops: $(drops)"
	rig_fail "round $n:$bad"
}

# rounds() - test: ROUNDS rounds, then the relay's count of datagrams
# $1: check the relay's counters (ours: "count"; upstream: "")
# $2: "tentative" if the namespace's link-local address must stay in
#     DAD throughout, else it must be out of it first
rounds() {
	local count=$1 dad=$2 r before after sent spliced

	if [ "$dad" = tentative ]; then
		ll_tentative || rig_log "the namespace's link-local address" \
			"is not tentative (no DAD on it): rounds run anyway"
	else
		rig_poll 5 ll_usable ||
			rig_fail "the namespace's link-local address is not" \
				 "usable after 5 s" || return 1
	fi
	if [ -n "$count" ]; then
		rig_relay_stats || return 1
		before=${RIG_CNT[udp.to_guest]}
		spliced=${RIG_CNT[udp.flows_splice]}
	fi

	for r in $(seq "$ROUNDS"); do
		round "$r" || return 1
	done

	if [ "$dad" = tentative ] && ! ll_tentative; then
		rig_log "the namespace's link-local address left DAD" \
			"during the rounds"
	fi
	[ -n "$count" ] || return 0
	rig_relay_stats || return 1
	after=${RIG_CNT[udp.to_guest]}
	spliced=$(( ${RIG_CNT[udp.flows_splice]} - spliced ))
	# Half the flows, to the host's own address, cross the tap device
	sent=$((ROUNDS * FLOWS * PER_FLOW))
	rig_log "datagrams sent to the host's address $sent, to the guest" \
		"$((after - before)), udp drops: mtu ${RIG_CNT[udp.drop_mtu]}" \
		"no_flow ${RIG_CNT[udp.drop_no_flow]}, flows spliced $spliced"
	[ $((after - before)) -eq "$sent" ] ||
		rig_fail "$sent datagrams sent to the host's address, the" \
			 "relay sent $((after - before)) to the guest" ||
		return 1
	[ "$spliced" -gt 0 ] || rig_fail "no flow from loopback was spliced"
}

# echoes() - test: echoes from an unconnected server in the namespace
#
# The server answers each datagram with sendto() to its source, from the
# address its kernel picks for that source: the answer must belong to the
# flow, and reach the client on the host.
echoes() {
	local addr out

	rig_g timeout -k 2 $((4 * LIMIT)) "$ECHO" server -6 \
		-p "$ECHO_PORT" 2>/dev/null &
	rig_defer "rig_kill $!"
	rig_poll 5 rig_udp_bound "$RIG_NS" "$ECHO_PORT" ||
		rig_fail "echo server did not start" || return 1
	for addr in "$RIG_ADDR6" ::1 "$RIG_ADDR4" 127.0.0.1; do
		out=$(rig_h timeout -k 2 "$LIMIT" "$ECHO" client -a "$addr" \
			-p "$ECHO_PORT" -n 200 -r 10 2>&1) ||
			rig_fail "echo from $addr: $(tr '\n' ' ' <<<"$out")" ||
			return 1
	done
}

# shape() - test: a relay, its rounds, echoes, its clean exit
# $1: binary
# $2: "count" to check the relay's counters
# $3: "tentative", see rounds()
shape() {
	relay_up "$1" || return 1
	rounds "$2" "$3" || return 1
	echoes || return 1
	rig_relay_stop_check
}

# gw_link_local() - the host's IPv6 default route through fe80::1
gw_link_local() {
	rig_h ip -6 route replace default via fe80::1 dev veth0 &&
	rig_h ip neigh replace fe80::1 lladdr "$RIG_GW_MAC" dev veth0 \
		nud permanent
}

NAME="$FLOWS flows per family, $ROUNDS rounds, data and end marker; echoes"
rig_run "global gateway: $NAME" shape "$RELAY" count usable

gw_link_local || { echo "FAIL: can't route through fe80::1"; exit 1; }
rig_run "link-local gateway: $NAME" shape "$RELAY" count usable

rig_sysctl_set net.ipv6.conf.default.dad_transmits "$DAD_LONG" "$RIG_NS" ||
	{ echo "FAIL: can't set dad_transmits in the namespace"; exit 1; }
rig_run "link-local gateway, link-local address tentative: $NAME" \
	shape "$RELAY" count tentative
rig_sysctl_set net.ipv6.conf.default.dad_transmits 1 "$RIG_NS"

if UP=$(rig_upstream pasta); then
	rig_run "upstream: link-local gateway: $NAME" shape "$UP" "" usable
fi
rig_summary
