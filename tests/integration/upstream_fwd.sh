#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/upstream_fwd.sh - forwarding as upstream's pasta does
# it: interface-bound ports through the tap device, and "auto" with
# ranges, exclusions and addresses, at start and at run time (-c)
#
# Rig (tests/lib/rig.sh): pasta joins a new namespace for each case, from
# a host namespace of our own (veth0: 192.0.2.2/24, 2001:db8::2/64; the
# namespace gets the same addresses). With tests/run --upstream PATH, each
# case also runs on upstream's pasta (and its pesto), and must give the
# same result.
#
#   interface-bound, through the tap (podman's "Interface-bound TCP/UDP
#     port forwarding, IPv4/IPv6, tap"): -t and -u ADDR%veth0/PORT:PORT
#     for 2001:db8::2 and 192.0.2.2; a client on the host connects to
#     ADDR: 1 MiB over TCP and 64 KiB over UDP reach a server in the
#     namespace, sha256-checked, each family;
#   -t P1-P3,auto: a server on P2 in the namespace is followed and takes
#     1 MiB (sha256), one on P5 (outside the range) is not;
#   -t auto,~P2: P1 followed, P2 not;
#   -t ::1/auto: the host socket listens on ::1 only; 1 MiB through it;
#   -T P1-P3,auto: a server on the host's loopback is followed from the
#     namespace's loopback within the range only;
#   -t P8:P2,auto (ours only): port P8 while P2 is bound, as upstream's man
#     page says ("if the target ports are bound"); upstream's build checks
#     port P8 itself, so it is not compared;
#   -c, run time: "pesto -t P1-P3,auto" (ours, and upstream's pesto on
#     upstream's pasta) is applied: P2 followed, P5 not; then "-t ::1/auto"
#     moves the socket to ::1; "-T P1-P3,auto" follows a host server;
#   -c, shown: upstream's pesto prints the same tables, byte for byte, for
#     "-t P1-P3,auto -t P5 -u auto,~P2 -T P1-P3,auto" on both relays.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"
# shellcheck source=tests/lib/upstream.sh
. "$(dirname "$0")/../lib/upstream.sh"

P1=10501
P2=10502
P3=10503
P5=10505
P8=10508
LIMIT=20

rig_init
rig_host_ns || exit 1

upstream_init

# ll_ready() - the namespace has a link-local address, not tentative
ll_ready() {
	ip -n "$NS" -6 addr show scope link | grep -q inet6 &&
		! ip -n "$NS" -6 addr show tentative | grep -q inet6
}

# ifbound() - test: ADDR%veth0/PORT:PORT, through the tap, TCP and UDP
ifbound() {
	local bin

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "$RIG_ADDR6%veth0/$P1:$P1" \
			-t "$RIG_ADDR4%veth0/$P2:$P2" \
			-u "$RIG_ADDR6%veth0/$P1:$P1" \
			-u "$RIG_ADDR4%veth0/$P2:$P2" -T none -U none ||
			return 1
		rig_poll 5 ll_ready ||
			rig_fail "$bin: no usable link-local address in the" \
				 "namespace after 5 s" || return 1
		rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$P1" \
			"$NS" "TCP6-LISTEN:$P1" "$DATA" "$LIMIT" || return 1
		rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$P2" \
			"$NS" "TCP4-LISTEN:$P2" "$DATA" "$LIMIT" || return 1
		# RECV, not LISTEN: socat's LISTEN connects its socket to the
		# first peer, and the kernel may then pick as local address one
		# autoconfigured from our router advertisements (another part
		# of issue 33: none should reach a namespace --config-net set
		# up), and drop the rest. Upstream sends to the link-local
		# address, this relay to ADDR: a bound server can't serve both
		upstream_udp_sha "$RIG_HOSTNS" "UDP6:[$RIG_ADDR6]:$P1" \
			"$NS" "UDP6-RECV:$P1" "$SMALL" "$LIMIT" ||
			rig_fail "$bin: $RIG_WHY" || return 1
		upstream_udp_sha "$RIG_HOSTNS" "UDP4:$RIG_ADDR4:$P2" \
			"$NS" "UDP4-RECV:$P2" "$SMALL" "$LIMIT" ||
			rig_fail "$bin: $RIG_WHY" || return 1
		rig_log "$bin: TCP and UDP, both families, sha256 ok"
		upstream_unwind
	done
}

# followed() - a TCP port gets a listener on the other side within 5 s
# $1: namespace where the relay listens
# $2: port
followed() {
	rig_poll 5 rig_listening "$1" "$2" ||
		rig_fail "port $2 not followed in $1 within 5 s"
}

# not_followed() - a TCP port has no listener
# $1: namespace
# $2: port
not_followed() {
	! rig_listening "$1" "$2" ||
		rig_fail "port $2 followed in $1: $(ip netns exec "$1" ss \
			 -Hltn "sport = :$2")"
}

# send_sum() - send DATA to an address, check the server's sum
# $1: sender namespace
# $2: socat connect address
# $3: sum file the server writes
send_sum() {
	rm -f "$3"
	ip netns exec "$1" timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"$2,connect-timeout=5" || rig_fail "client to $2 failed" ||
		return 1
	rig_poll 10 test -s "$3" || rig_fail "server did not finish" ||
		return 1
	[ "$(cat "$3")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch through $2"
}

# auto_follows() - a -t option, on each pasta: a server in the namespace
# on one port is followed and takes 1 MiB (sha256), one on another is not
# $1: -t option
# $2: port followed
# $3: port not followed
auto_follows() {
	local bin sum=$RIG_TMP/f.sum

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "$1" -u none -T none -U none ||
			return 1
		upstream_ns_server "$2" "$sum" || return 1
		upstream_ns_server "$3" "$sum.not" || return 1
		followed "$RIG_HOSTNS" "$2" || return 1
		not_followed "$RIG_HOSTNS" "$3" || return 1
		send_sum "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$2" "$sum" || return 1
		upstream_unwind
	done
}

# auto_ranges() - test: -t P1-P3,auto
auto_ranges() {
	auto_follows "$P1-$P3,auto" "$P2" "$P5"
}

# auto_excl() - test: -t auto,~P2
auto_excl() {
	auto_follows "auto,~$P2" "$P1" "$P2"
}

# on_lo6_only() - the host listens on one TCP socket for a port, at ::1
# $1: port
on_lo6_only() {
	local out

	out=$(rig_h ss -Hltn "sport = :$1")
	[ "$(grep -c . <<<"$out")" -eq 1 ] && grep -qF "[::1]:$1" <<<"$out" &&
		return 0
	rig_fail "$1 not on ::1 only: $out"
}

# auto_addr() - test: -t ::1/auto
auto_addr() {
	local bin sum=$RIG_TMP/a.sum

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -t "::1/auto" -u none -T none \
			-U none || return 1
		upstream_ns_server "$P1" "$sum" || return 1
		followed "$RIG_HOSTNS" "$P1" || return 1
		on_lo6_only "$P1" || rig_fail "$bin: $RIG_WHY" || return 1
		send_sum "$RIG_HOSTNS" "TCP6:[::1]:$P1" "$sum" || return 1
		upstream_unwind
	done
}

# host_server() - upstream_sum_server() on the host's 127.0.0.1
# $1: port
# $2: file for the sum
host_server() {
	upstream_sum_server "$RIG_HOSTNS" "TCP4-LISTEN:$1,bind=127.0.0.1" "$2"
}

# auto_ns() - test: -T P1-P3,auto
auto_ns() {
	local bin sum=$RIG_TMP/n.sum

	host_server "$P2" "$sum" || return 1
	host_server "$P5" "$sum.5" || return 1
	upstream_mark
	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_up "$bin" -T "$P1-$P3,auto" -t none -u none \
			-U none || return 1
		followed "$NS" "$P2" || return 1
		not_followed "$NS" "$P5" || return 1
		send_sum "$NS" "TCP4:127.0.0.1:$P2" "$sum" || return 1
		upstream_unwind
	done
}

# auto_mapped() - test (ours): -t P8:P2,auto follows P2, listens on P8
auto_mapped() {
	local sum=$RIG_TMP/m.sum

	upstream_relay_up "$RELAY" -t "$P8:$P2,auto" -u none -T none -U none ||
		return 1
	not_followed "$RIG_HOSTNS" "$P8" || return 1
	upstream_ns_server "$P2" "$sum" || return 1
	followed "$RIG_HOSTNS" "$P8" || return 1
	not_followed "$RIG_HOSTNS" "$P2" || return 1
	send_sum "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$P8" "$sum"
}

# runtime() - test: auto started and changed through -c
# $1: pasta
# $2: its pesto
runtime_one() {
	local bin=$1 pesto=$2 sock=$RIG_TMP/c.sock sum=$RIG_TMP/c.sum

	rm -f "$sock"
	upstream_relay_up "$bin" -c "$sock" -t none -u none -T none -U none ||
		return 1
	upstream_ns_server "$P2" "$sum" || return 1
	upstream_ns_server "$P5" "$sum.5" || return 1
	not_followed "$RIG_HOSTNS" "$P2" || return 1

	"$pesto" -t "$P1-$P3,auto" "$sock" >"$ERR" 2>&1 ||
		rig_fail "$pesto -t $P1-$P3,auto: $(cat "$ERR")" || return 1
	followed "$RIG_HOSTNS" "$P2" || return 1
	not_followed "$RIG_HOSTNS" "$P5" || return 1
	send_sum "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$P2" "$sum" || return 1

	"$pesto" -t "::1/auto" "$sock" >"$ERR" 2>&1 ||
		rig_fail "$pesto -t ::1/auto: $(cat "$ERR")" || return 1
	rig_poll 5 eval "rig_h ss -Hltn 'sport = :$P5' | grep -qF '[::1]:'" ||
		rig_fail "$P5 not followed on ::1: $(rig_h ss -Hltn)" ||
		return 1
	on_lo6_only "$P2" || return 1
	send_sum "$RIG_HOSTNS" "TCP6:[::1]:$P2" "$sum" || return 1

	"$pesto" -t none "$sock" >"$ERR" 2>&1 ||
		rig_fail "$pesto -t none: $(cat "$ERR")" || return 1
	rig_poll 5 eval "! rig_listening '$RIG_HOSTNS' $P2" ||
		rig_fail "$P2 still followed after -t none" || return 1
	upstream_unwind
}

# runtime() - test: -c, ours with our pesto, upstream's with its own
runtime() {
	upstream_mark
	runtime_one "$RELAY" "$PESTO" || return 1
	[ -z "$UP_PASTA" ] || runtime_one "$UP_PASTA" "$UP_PESTO" || return 1

	# -T at run time too (ours)
	host_server "$P2" "$RIG_TMP/t.sum" || return 1
	upstream_mark
	upstream_relay_up "$RELAY" -c "$RIG_TMP/t.sock" -t none -u none \
		-T none -U none || return 1
	"$PESTO" -T "$P1-$P3,auto" "$RIG_TMP/t.sock" >"$ERR" 2>&1 ||
		rig_fail "pesto -T $P1-$P3,auto: $(cat "$ERR")" || return 1
	followed "$NS" "$P2" || return 1
	send_sum "$NS" "TCP4:127.0.0.1:$P2" "$RIG_TMP/t.sum"
}

# shown_same() - test: upstream's pesto shows the same tables for the same
# "auto" options on our pasta and on upstream's
shown_same() {
	local bin i=0 sock

	if [ -z "$UP_PASTA" ] || [ ! -x "$UP_PESTO" ]; then
		rig_log "no upstream pasta and pesto: only our pesto is run"
	fi
	for bin in "$RELAY" $UP_PASTA; do
		i=$((i + 1))
		sock=$RIG_TMP/s$i.sock
		upstream_relay_up "$bin" -c "$sock" -t "$P1-$P3,auto" -t "$P5" \
			-u "auto,~$P2" -T "$P1-$P3,auto" -U none || return 1
		"${UP_PESTO:-$PESTO}" "$sock" >"$RIG_TMP/shown.$i" 2>&1 ||
			rig_fail "pesto: $(cat "$RIG_TMP/shown.$i")" || return 1
		sed -i 's/([^)]*sock)/(SOCKET)/' "$RIG_TMP/shown.$i"
		upstream_unwind
	done
	rig_log "$(grep -c "auto-scan" "$RIG_TMP/shown.1")" \
		"auto-scan rules shown"
	grep -qF "TCP [*]:$P1-$P3  =>  $P1-$P3  (auto-scan)" \
		"$RIG_TMP/shown.1" ||
		rig_fail "shown: $(tr '\n' '|' <"$RIG_TMP/shown.1")" || return 1
	[ "$i" -eq 1 ] || cmp -s "$RIG_TMP/shown.1" "$RIG_TMP/shown.2" ||
		rig_fail "tables differ: $(diff "$RIG_TMP/shown.1" \
			 "$RIG_TMP/shown.2" | tr '\n' '|')"
}

rig_run "interface-bound ADDR%veth0/PORT through the tap: TCP 1 MiB, UDP 64 KiB, both families, sha256" \
	upstream_rounds ifbound
rig_run "-t P1-P3,auto: a port in the range followed (1 MiB sha256), one outside not" \
	upstream_rounds auto_ranges
rig_run "-t auto,~P2: P1 followed (1 MiB sha256), P2 not" \
	upstream_rounds auto_excl
rig_run "-t ::1/auto: followed on ::1 only, 1 MiB sha256" \
	upstream_rounds auto_addr
rig_run "-T P1-P3,auto: host port in the range followed from the namespace, 1 MiB sha256" \
	auto_ns
rig_run "-t P8:P2,auto: P8 forwarded while P2 is bound (upstream's man page)" \
	upstream_rounds auto_mapped
rig_run "-c: pesto starts auto with ranges, moves it to ::1, stops it; -T too" \
	runtime
rig_run "-c: upstream's pesto shows the same 'auto' tables for ours and upstream's" \
	upstream_rounds shown_same

rig_summary
