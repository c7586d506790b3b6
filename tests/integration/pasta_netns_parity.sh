#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_netns_parity.sh - how pasta sets up the namespace,
# and which router advertisements the relay sends, against upstream's passt
#
# Rig (tests/lib/rig.sh): two host namespaces of our own. HX: the rig's
# template interface veth0 with more than one address per family and more
# routes than the default one: 192.0.2.2/24, 192.0.2.3/24 (secondary),
# 198.51.100.7/25, 2001:db8::2/64, 2001:db8:5::9/80, 2001:db8:6::6/64
# (deprecated), routes to 203.0.113.0/24 via 192.0.2.77, 203.0.113.128/25
# over two next hops, 2001:db8:77::/48 via 2001:db8::77; and what must
# not be copied: an address and a route on veth1, a route in table 100.
# HLL: the plain rig, but its IPv6 default route is via fe80::1, a
# link-local gateway. Each case gets a new target namespace. Checked, as
# upstream's man pages (pasta.1, passt.1) describe it:
#
#   1. the namespace's link-local address is usable at once: right after
#      pasta reports ready, it carries "nodad" and not "tentative", and a
#      datagram sent from the host's own address to a -u port reaches the
#      namespace and its echo comes back, with no pause (HLL: the
#      datagram comes from the link-local gateway);
#   2. --config-net: no router advertisement (rdisc6 gets no answer), no
#      "proto ra" route, no autoconfigured address; without --config-net
#      the namespace's router solicitation is answered;
#   3. --config-net copies every address (but link-local and deprecated
#      ones) and every route of the template interface; --no-copy-addrs
#      and -a (one family) give one address, --no-copy-routes and -g (one
#      family) a default route only (ip -j addr, ip -j route);
#   4. --splice-only: no tap device, only loopback; TCP (1 MiB) and UDP
#      spliced both ways over 127.0.0.1 and ::1, sha256-checked;
#   5. passt with a link-local host gateway: the router advertisement comes
#      from the gateway's address, M flag, router lifetime 65535 s, the
#      /64 prefix (on-link, autonomous, infinite), MTU, RDNSS and DNSSL.
#
# With tests/run --upstream PATH, each case also runs on upstream's binary
# and the two must agree: the same ip -j addr and ip -j route, the same
# rdisc6 report (prefixes compared as /64 networks: upstream leaves the
# host bits of the guest's address in the prefix option, we clear them as
# RFC 4861 says). In case 1, only the "nodad" flag is compared: upstream's
# link-local address may still be tentative when it reports ready.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

LIMIT=30
UPORT=10601		# -u, case 1
TPORT=10611		# -t, case 4 (then -u TPORT+1, -T +2, -U +3)

rig_init
passt_init
rig_host_ns || exit 1
HLL=$RIG_HOSTNS
ip -n "$HLL" -6 route replace default via fe80::1 dev veth0 &&
ip -n "$HLL" neigh add fe80::1 lladdr "$RIG_GW_MAC" dev veth0 \
	nud permanent || exit 1
rig_host_ns || exit 1
HX=$RIG_HOSTNS
{ ip -n "$HX" addr add 192.0.2.3/24 dev veth0 &&
  ip -n "$HX" addr add 198.51.100.7/25 dev veth0 &&
  ip -n "$HX" addr add 2001:db8:5::9/80 dev veth0 nodad &&
  ip -n "$HX" addr add 2001:db8:6::6/64 dev veth0 nodad preferred_lft 0 &&
  ip -n "$HX" route add 203.0.113.0/24 via 192.0.2.77 &&
  ip -n "$HX" route add 203.0.113.128/25 nexthop via 192.0.2.77 \
	nexthop via 192.0.2.78 &&
  ip -n "$HX" -6 route add 2001:db8:77::/48 via 2001:db8::77 &&
  ip -n "$HX" addr add 198.51.100.200/32 dev veth1 &&
  ip -n "$HX" route add 203.0.113.64/26 dev veth1 &&
  ip -n "$HX" route add 203.0.113.32/27 via 192.0.2.77 table 100; } ||
	exit 1

UP_PASTA=$(rig_upstream pasta) || UP_PASTA=
UP_PASST=$(rig_upstream passt) || UP_PASST=

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 1M || exit 1
DGRAM=$RIG_TMP/dgram.bin
head -c 1000 /dev/urandom >"$DGRAM" || exit 1

# need_rdisc6() - install rdisc6 (ndisc6) if missing, unless NO_APT
need_rdisc6() {
	command -v rdisc6 >/dev/null 2>&1 && return 0
	rig_log "installing ndisc6 (rdisc6)"
	apt_install "$RIG_TMP/apt.log" ndisc6
	command -v rdisc6 >/dev/null 2>&1 ||
		rig_fail "rdisc6 not installed (apt-get install ndisc6):" \
			 "$(tail -n 1 "$RIG_TMP/apt.log" 2>/dev/null)"
}

# start() - start a pasta in a new target namespace of a host namespace
# $1: pasta binary
# $2: host namespace
# $3...: options (--runas 0, --netns are added)
# Sets NS (the target namespace) and RIG_HOSTNS.
start() {
	local RELAY=$1

	RIG_HOSTNS=$2
	shift 2
	rig_ns_new NS n || return 1
	pasta_start netns --runas 0 "$@" --netns "$NS"
}

# ll_flags() - the flags of the tap's link-local addresses, one line each
# $1: namespace
ll_flags() {
	ip -n "$1" -6 -j addr show dev veth0 scope link |
		jq -r '.[0].addr_info[] | select(.local) | [.local,
			(if .nodad then "nodad" else empty end),
			(if .tentative then "tentative" else empty end)] |
		       join(" ")'
}

# ll_at_once() - test: case 1
ll_at_once() {
	local flags up_flags

	start "$RELAY" "$HLL" --config-net -t none -u "$UPORT" -T none \
		-U none || return 1
	# Right away: no sleeping, no polling
	flags=$(ll_flags "$NS")
	rig_log "link-local address when ready: $flags"
	[ "$(grep -c . <<<"$flags")" -eq 1 ] ||
		rig_fail "expected one link-local address, got: $flags" ||
		return 1
	grep -q nodad <<<"$flags" && ! grep -q tentative <<<"$flags" ||
		rig_fail "link-local address not usable at once: $flags" ||
		return 1
	udp_to "$NS" "UDP6-RECVFROM:$UPORT" "$HLL" "UDP6:[$RIG_ADDR6]:$UPORT" ||
		rig_fail "datagram from the host's own address: $RIG_WHY" ||
		return 1
	rig_log "datagram from [$RIG_ADDR6] echoed"

	[ -n "$UP_PASTA" ] || return 0
	start "$UP_PASTA" "$HLL" --config-net -t none -u none -T none \
		-U none || return 1
	up_flags=$(ll_flags "$NS")
	rig_log "upstream: link-local address when ready: $up_flags"
	grep -q nodad <<<"$up_flags" ||
		rig_fail "upstream's link-local address has no nodad flag" \
			 "(test out of date?): $up_flags"
}

# ra_wait_ll() - wait until the tap's link-local address can send
# $1: namespace
ra_wait_ll() {
	rig_poll 5 eval "[ -n \"\$(ip -n '$1' -6 addr show dev veth0 \
			 scope link -tentative)\" ]" ||
		rig_fail "no usable link-local address in $1 after 5 s"
}

# ip6_net64() - the first 64 bits of an IPv6 address, as 16 hex digits
# $1: address
ip6_net64() {
	local a=$1 head tail g out='' n i
	local -a h t

	if [[ $a == *::* ]]; then
		head=${a%%::*}
		tail=${a#*::}
	else
		head=$a
		tail=
	fi
	IFS=: read -ra h <<<"$head"
	IFS=: read -ra t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	for g in "${h[@]}"; do out+=$(printf '%04x' "0x$g"); done
	for ((i = 0; i < n; i++)); do out+=0000; done
	for g in "${t[@]}"; do out+=$(printf '%04x' "0x$g"); done
	echo "${out:0:16}"
}

# ra_get() - solicit a router advertisement, normalised rdisc6 report
# $1: namespace
# $2: interface
# $3: output file
# Return: rdisc6's status (0: answered, 2: no answer)
ra_get() {
	local raw=$3.raw rc line net

	ip netns exec "$1" rdisc6 -1 -r 3 -w 1500 "$2" >"$raw" 2>&1
	rc=$?
	: >"$3"
	while IFS= read -r line; do
		case $line in
		Soliciting*) continue ;;
		*"Prefix "*:*/*)
			net=${line##*: }
			line="${line%%: *}: $(ip6_net64 "${net%/*}")/${net#*/}"
			;;
		esac
		echo "$line" >>"$3"
	done <"$raw"
	return "$rc"
}

# ra_field() - a field of a normalised rdisc6 report
# $1: report, $2: field name as rdisc6 prints it
ra_field() {
	sed -n "s/^ *$2 *: *//p" "$1" | head -n 1 | sed 's/ *(.*//; s/ *$//'
}

# no_ra_case() - --config-net: no advertisement, none of its traces
# $1: pasta binary
# $2: name for messages
no_ra_case() {
	local out=$RIG_TMP/ra.$2 rc

	start "$1" "$HX" --config-net -t none -u none -T none -U none ||
		return 1
	ra_wait_ll "$NS" || return 1
	ra_get "$NS" veth0 "$out"
	rc=$?
	[ "$rc" -eq 2 ] ||
		rig_fail "$2: rdisc6 status $rc with --config-net, expected" \
			 "no answer (2): $(tr '\n' ' ' <"$out.raw")" || return 1
	! ip -n "$NS" -6 route | grep -q 'proto ra' ||
		rig_fail "$2: a route from an advertisement:" \
			 "$(ip -n "$NS" -6 route | grep 'proto ra')" || return 1
	[ -z "$(ip -n "$NS" -6 -j addr show dev veth0 |
		jq -r '.[0].addr_info[] | select(.local and .dynamic) |
		       .local')" ] ||
		rig_fail "$2: an autoconfigured address: $(ip -n "$NS" -6 \
			 addr show dev veth0 dynamic | tr '\n' ' ')"
}

# ra_case() - without --config-net: a router advertisement, as upstream's
# $1: pasta binary
# $2: name for messages (report in $RIG_TMP/ra.NAME)
ra_case() {
	local out=$RIG_TMP/ra.$2 ll

	start "$1" "$HX" -t none -u none -T none -U none --dhcp-dns \
		--dhcp-search -D 2001:db8::53 -S example.org || return 1
	# Upstream leaves the link down without --config-net
	ip -n "$NS" link set veth0 up || return 1
	ra_wait_ll "$NS" || return 1
	ra_get "$NS" veth0 "$out" ||
		rig_fail "$2: no router advertisement without --config-net:" \
			 "$(tr '\n' ' ' <"$out.raw")" || return 1
	ll=$(ip -n "$HX" -6 -o addr show dev veth0 scope link |
	     awk '{ sub("/.*", "", $4); print $4; exit }')
	[ "$(sed -n 's/^ *from //p' "$out")" = "$ll" ] ||
		rig_fail "$2: advertisement not from $ll (the template's" \
			 "link-local address): $(tr '\n' ' ' <"$out")"
}

# no_ra() - test: case 2
no_ra() {
	need_rdisc6 || return 1
	no_ra_case "$RELAY" ours || return 1
	ra_case "$RELAY" ours || return 1
	[ -n "$UP_PASTA" ] || return 0
	no_ra_case "$UP_PASTA" upstream || return 1
	ra_case "$UP_PASTA" upstream || return 1
	diff -u "$RIG_TMP/ra.upstream" "$RIG_TMP/ra.ours" >"$RIG_TMP/ra.diff" ||
		rig_fail "advertisements differ from upstream's:" \
			 "$(grep '^[-+] ' "$RIG_TMP/ra.diff" | tr '\n' ' ')"
}

# ns_state() - the tap's addresses (but link-local) and the main routes of
# both families, normalised JSON (lifetimes left out, routes sorted)
# $1: namespace
ns_state() {
	ip -n "$1" -j addr show dev veth0 |
		jq -c '[.[0].addr_info[] | select(.local and .scope != "link") |
			del(.valid_life_time, .preferred_life_time)]'
	ip -n "$1" -4 -j route |
		jq -c 'sort_by(.dst, .gateway // "", .prefsrc // "")'
	ip -n "$1" -6 -j route |
		jq -c 'sort_by(.dst, .gateway // "", .prefsrc // "")'
}

# addrs_of() - "ADDR/LEN" of one family in an ns_state() file, sorted
# $1: file, $2: inet or inet6
addrs_of() {
	head -n 1 "$1" | jq -r --arg f "$2" \
		'[.[] | select(.family == $f) | "\(.local)/\(.prefixlen)"] |
		 sort | join(" ")'
}

# routes_of() - "DST via GW" lines of one family in an ns_state() file
# $1: file, $2: 4 or 6
routes_of() {
	sed -n "$(($2 == 4 ? 2 : 3))p" "$1" |
		jq -r '.[] | "\(.dst) via \(.gateway //
			([.nexthops[]?.gateway] | join(",")))"'
}

# expect() - check one case of copy(), documented behaviour
# $1: case name, $2: state file
expect() {
	local f=$2 a4 a6 r4 r6
	local all4="192.0.2.2/24 192.0.2.3/24 198.51.100.7/25"
	local all6="2001:db8:5::9/80 2001:db8::2/64"

	a4=$(addrs_of "$f" inet)
	a6=$(addrs_of "$f" inet6)
	r4=$(routes_of "$f" 4)
	r6=$(routes_of "$f" 6)
	case $1 in
	copy)		[ "$a4" = "$all4" ] && [ "$a6" = "$all6" ] ;;
	no-copy-addrs)	[ "$a4" = 198.51.100.7/25 ] &&
			[ "$a6" = 2001:db8:5::9/64 ] ;;
	a4)		[ "$a4" = 192.0.2.33/24 ] && [ "$a6" = "$all6" ] ;;
	*)		[ "$a4" = "$all4" ] && [ "$a6" = "$all6" ] ;;
	esac || rig_fail "$1: addresses '$a4' '$a6'" || return 1

	grep -qx 'default via 192.0.2.1' <<<"$r4" &&
		grep -qx 'default via 2001:db8::1' <<<"$r6" ||
		rig_fail "$1: no default routes: $r4 $r6" || return 1
	! grep -q '203.0.113.64\|203.0.113.32' <<<"$r4" ||
		rig_fail "$1: a route of veth1 or table 100 copied" || return 1

	case $1 in
	no-copy-routes)	! grep -q 203.0.113 <<<"$r4" &&
			! grep -q 2001:db8:77 <<<"$r6" ;;
	g6)		grep -qx '203.0.113.0/24 via 192.0.2.77' <<<"$r4" &&
			! grep -q 2001:db8:77 <<<"$r6" ;;
	*)		grep -qx '203.0.113.0/24 via 192.0.2.77' <<<"$r4" &&
			grep -qx '203.0.113.128/25 via 192.0.2.77,192.0.2.78' \
				<<<"$r4" &&
			grep -qx '2001:db8:77::/48 via 2001:db8::77' <<<"$r6" ;;
	esac || rig_fail "$1: routes: $(tr '\n' ';' <<<"$r4$r6")"
}

# copy() - test: case 3
copy() {
	local name opts ours up

	while read -r name opts; do
		# shellcheck disable=SC2086 # options are a word list
		start "$RELAY" "$HX" --config-net -t none -u none -T none \
			-U none $opts || return 1
		ours=$RIG_TMP/state.$name.ours
		ns_state "$NS" >"$ours"
		expect "$name" "$ours" || return 1
		[ -n "$UP_PASTA" ] || continue

		# shellcheck disable=SC2086
		start "$UP_PASTA" "$HX" --config-net -t none -u none \
			-T none -U none $opts || return 1
		up=$RIG_TMP/state.$name.upstream
		ns_state "$NS" >"$up"
		diff -u "$up" "$ours" >"$RIG_TMP/state.diff" ||
			rig_fail "$name ($opts): namespace differs from" \
				 "upstream's: $(grep '^[-+][^-+]' \
				 "$RIG_TMP/state.diff" | tr '\n' ' ')" ||
			return 1
		rig_log "$name: same addresses and routes as upstream"
	done <<EOF
copy
no-copy-addrs --no-copy-addrs
no-copy-routes --no-copy-routes
a4 -a 192.0.2.33/24
g6 -g 2001:db8::1
EOF
}

# udp_to() - a datagram to a port, echoed back: sha256
# $1: namespace of the server, $2: its listen address (socat), $3:
# namespace of the client, $4: client address (socat)
#
# The client is stopped once the whole echo is in, or after 10 s: socat
# -t would wait out its time, whatever came.
udp_to() {
	local got=$RIG_TMP/echo.$RANDOM.bin cli

	ip netns exec "$1" timeout -k 5 "$LIMIT" socat "$2,reuseaddr" \
		EXEC:cat &
	rig_defer "rig_kill $!"
	rig_poll 5 rig_udp_bound "$1" "$(rig_port_of "$2")" ||
		rig_fail "UDP server did not start" || return 1
	: >"$got"
	ip netns exec "$3" timeout 12 socat -t 12 - "$4" <"$DGRAM" >"$got" &
	cli=$!
	rig_poll 10 eval "[ \$(stat -c %s '$got') -ge $(stat -c %s "$DGRAM") ]"
	rig_kill "$cli"
	rig_sha_eq "$DGRAM" "$got" || rig_fail "UDP $4: $RIG_WHY"
}

# splice_case() - --splice-only with one binary
# $1: pasta binary
# $2: name for messages
splice_case() {
	local links f lo peer l4 l6

	start "$1" "$HX" --splice-only -t "$TPORT" -u $((TPORT + 1)) \
		-T $((TPORT + 2)) -U $((TPORT + 3)) || return 1
	links=$(ip -n "$NS" -j link | jq -r '[.[].ifname] | join(" ")')
	[ "$links" = lo ] ||
		rig_fail "$2: links in the namespace: '$links', expected lo" \
			 "only" || return 1

	for f in 4 6; do
		lo=127.0.0.1
		peer=$lo
		if [ "$f" = 6 ]; then
			lo='[::1]'
			peer='[0000:0000:0000:0000:0000:0000:0000:0001]'
		fi
		l4="ip netns exec $NS"
		l6="ip netns exec $RIG_HOSTNS"
		pasta_tcp_sha "$l4" "TCP$f-LISTEN:$TPORT" "$l6" \
			"TCP:$lo:$TPORT" "$DATA" "$LIMIT" &&
			pasta_peer_is "$peer" ||
			rig_fail "$2: TCP host -> namespace $lo: $RIG_WHY" ||
			return 1
		pasta_tcp_sha "$l6" "TCP$f-LISTEN:$((TPORT + 2)),bind=$lo" \
			"$l4" "TCP:$lo:$((TPORT + 2))" "$DATA" "$LIMIT" ||
			rig_fail "$2: TCP namespace -> host $lo: $RIG_WHY" ||
			return 1
		udp_to "$NS" "UDP$f-RECVFROM:$((TPORT + 1))" "$RIG_HOSTNS" \
			"UDP:$lo:$((TPORT + 1))" ||
			rig_fail "$2: UDP host -> namespace: $RIG_WHY" ||
			return 1
		udp_to "$RIG_HOSTNS" \
			"UDP$f-RECVFROM:$((TPORT + 3)),bind=$lo" "$NS" \
			"UDP:$lo:$((TPORT + 3))" ||
			rig_fail "$2: UDP namespace -> host: $RIG_WHY" ||
			return 1
	done
	rig_log "$2: TCP 1 MiB and UDP, both ways, IPv4 and IPv6: sha256 ok"
	# Its ports are the next one's
	rig_kill "$PASTA_PID"
}

# splice_only() - test: case 4
splice_only() {
	splice_case "$RELAY" ours || return 1
	[ -z "$UP_PASTA" ] || splice_case "$UP_PASTA" upstream
}

# passt_ra_case() - passt, link-local host gateway: the advertisement
# $1: passt binary
# $2: name for messages (report in $RIG_TMP/pra.NAME)
passt_ra_case() {
	local PASST=$1 out=$RIG_TMP/pra.$2 g

	RIG_HOSTNS=$HLL
	rig_ns_new NS g || return 1
	passt_start daemon "$RIG_TMP/passt.$2.sock" -D 2001:db8::53 \
		-S example.org || return 1
	passt_guest_start "$NS" || return 1
	ip -n "$NS" link set "$PASST_TAP" up || return 1
	rig_poll 5 eval "[ -n \"\$(ip -n '$NS' -6 addr show dev \
			 $PASST_TAP scope link -tentative)\" ]" ||
		rig_fail "$2: no usable link-local address in the guest" ||
		return 1
	ra_get "$NS" "$PASST_TAP" "$out" ||
		rig_fail "$2: no router advertisement:" \
			 "$(tr '\n' ' ' <"$out.raw")" || return 1
	rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=

	[ "$(sed -n 's/^ *from //p' "$out")" = fe80::1 ] ||
		rig_fail "$2: not from the gateway fe80::1:" \
			 "$(tail -n 1 "$out")" || return 1
	for g in "Stateful address conf.=Yes" "Stateful other conf.=No" \
		 "Router lifetime=65535" "Hop limit=255" \
		 "Prefix=20010db800000000/64" "On-link=Yes" \
		 "Autonomous address conf.=Yes" "Valid time=infinite" \
		 "Pref. time=infinite" "MTU=65520 bytes" \
		 "Recursive DNS server=2001:db8::53" \
		 "DNS search list=example.org" \
		 "Source link-layer address=9A:55:9A:55:9A:55"; do
		[ "$(ra_field "$out" "${g%%=*}")" = "${g#*=}" ] ||
			rig_fail "$2: ${g%%=*}: '$(ra_field "$out" \
				 "${g%%=*}")', expected '${g#*=}'" || return 1
	done
}

# passt_ra() - test: case 5
passt_ra() {
	need_rdisc6 || return 1
	passt_ra_case "$PASST" ours || return 1
	[ -n "$UP_PASST" ] || return 0
	passt_ra_case "$UP_PASST" upstream || return 1
	diff -u "$RIG_TMP/pra.upstream" "$RIG_TMP/pra.ours" \
		>"$RIG_TMP/pra.diff" ||
		rig_fail "advertisements differ from upstream's:" \
			 "$(grep '^[-+] ' "$RIG_TMP/pra.diff" | tr '\n' ' ')"
}

rig_run "link-local address usable at once: nodad, not tentative when ready; a datagram from the host's own address echoed" \
	ll_at_once
rig_run "--config-net: no router advertisement, no proto ra route or SLAAC address; without it, one from the template's LL" \
	no_ra
rig_run "--config-net copies every address and route; --no-copy-addrs, --no-copy-routes, -a, -g" \
	copy
rig_run "--splice-only: no tap; TCP 1 MiB and UDP spliced both ways over 127.0.0.1 and ::1, sha256" \
	splice_only
rig_run "passt, link-local gateway: RA from fe80::1, M, lifetime 65535, /64 prefix, MTU, RDNSS, DNSSL" \
	passt_ra
rig_summary
