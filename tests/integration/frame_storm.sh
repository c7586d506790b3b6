#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/frame_storm.sh - malformed-frame storm during transfers
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): for pasta, the relay's tap
# device in the target namespace; for passt, a guest namespace whose tap
# device tap_bridge connects to passt's stream socket. In both, frames
# sent on that tap device with an AF_PACKET socket go to the relay (for
# passt, through the stream socket).
#
# Each storm test starts two 200 MiB transfers of the same random file,
# one from the namespace to the host's loopback and one from the host to
# the namespace through the tap (a forwarded port), then injects STORM_N
# frames with tests/tools/frame_storm (random bytes, and ARP, IPv4, IPv6,
# TCP, UDP, ICMP, ICMPv6, DHCP, DHCPv6, NDP templates, valid or mutated).
# The host namespace's loopback is shaped (tbf) so that the transfers last
# longer than the storm. The test passes if:
#   - the relay is still running, both transfers end and their SHA-256
#     sums match, and a new connection works afterwards;
#   - the storm ended while both transfers were still running;
#   - the relay's counters (logged on SIGUSR1, read before and after)
#     account for the junk:
#       frames: delta(frames) >= sent - delta(tx_dropped of the tap),
#         every injected frame the kernel passed on was counted;
#       drops: delta(drop_malformed + drop_unsupported) >=
#         must_drop - delta(tx_dropped), every frame the injector built
#         to fail the relay's parser (bad EtherType, IP version, header
#         length, header checksum, IP length, fragment) was counted as a
#         drop;
#       balance: frames = drop_malformed + drop_unsupported + to_arp +
#         to_ndp + to_dhcp + to_tcp + to_udp + to_icmp + to_mcast, every
#         frame has exactly one outcome (a drop with its reason, or the
#         protocol handler it went to).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=${BULK_SIZE:-200M}
STORM_N=${STORM_N:-100000}
STORM_PPS=${STORM_PPS:-40000}
SHAPE_RATE=${STORM_SHAPE:-500mbit}
LIMIT=60
FWD=10001
SEED=${STORM_SEED:-$RANDOM}

rig_init
passt_init
STORM=$TOOLS_DIR/frame_storm
if [ ! -x "$STORM" ]; then
	echo "FAIL: prerequisites: $STORM not built (run make tools)"
	exit 1
fi
rig_need tc || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1
NS_PASTA=$RIG_NS
rig_ns_new NS_PASST g || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket
rig_log "storm: $STORM_N frames at $STORM_PPS/s, seed $SEED"

# Counters from the relay's last stats lines: "MODULE: key=value ..."
declare -A CNT

# stats_read() - make the relay log its counters, load them into CNT
# Return: 0 if a new set of counters appeared in the log within 5 s
stats_read() {
	local before line

	before=$(grep -c 'net: frames=' "$RIG_RELAY_LOG")
	kill -USR1 "$RIG_RELAY_PID" || return 1
	rig_poll 5 eval "[ \$(grep -c 'net: frames=' '$RIG_RELAY_LOG') \
			   -gt $before ]" ||
		rig_fail "no counters in the log 5 s after SIGUSR1" || return 1
	CNT=()
	for line in "$(grep 'net: frames=' "$RIG_RELAY_LOG" | tail -n 1)" \
		    "$(grep 'tcp: conns_out=' "$RIG_RELAY_LOG" | tail -n 1)"; do
		for kv in ${line#*: }; do
			case $kv in
			*=*) CNT[${kv%%=*}]=${kv#*=} ;;
			esac
		done
	done
}

# tap_drops() - frames the namespace's tap device dropped on transmit
# $1: namespace
# $2: device
tap_drops() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_dropped"
}

# shape_loopback() - slow the host namespace's loopback down (tbf)
shape_loopback() {
	rig_h tc qdisc add dev lo root tbf rate "$SHAPE_RATE" burst 512kb \
		latency 100ms || rig_fail "can't add tbf to lo" || return 1
	rig_defer "rig_h tc qdisc del dev lo root 2>/dev/null; true"
}

# storm() - test: transfers both ways, storm, checks (see top of file)
# $1: namespace of the "guest"
# $2: its tap device
storm() {
	local ns=$1 dev=$2 want sum_out sum_in snd_out snd_in rcv_out rcv_in
	local f0 d0 t0 out sent must sumdrops drops frames bal k

	want=$(rig_sha "$DATA")
	shape_loopback || return 1
	stats_read || return 1
	declare -A C0
	for k in "${!CNT[@]}"; do C0[$k]=${CNT[$k]}; done
	t0=$(tap_drops "$ns" "$dev")

	# namespace -> host, and host -> namespace through the tap
	sum_out=$RIG_TMP/out.sha
	sum_in=$RIG_TMP/in.sha
	rig_tcp_recv_sha "$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$sum_out" $((LIMIT + 20))
	rcv_out=$RIG_BG_PID
	rig_tcp_recv_sha "$ns" "TCP4-LISTEN:$FWD" "$sum_in" $((LIMIT + 20))
	rcv_in=$RIG_BG_PID
	rig_wait_listen "$RIG_HOSTNS" 7001 || return 1
	rig_wait_listen "$ns" "$FWD" || return 1

	ip netns exec "$ns" timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"TCP4:$RIG_GW4:7001,connect-timeout=5" 2>"$RIG_TMP/snd_out.err" &
	snd_out=$!
	rig_defer "rig_kill $snd_out"
	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$LIMIT" socat -u \
		"FILE:$DATA" "TCP4:$RIG_ADDR4:$FWD,connect-timeout=5" \
		2>"$RIG_TMP/snd_in.err" &
	snd_in=$!
	rig_defer "rig_kill $snd_in"
	sleep 0.5

	out=$(ip netns exec "$ns" "$STORM" -n "$STORM_N" -r "$STORM_PPS" \
		-s "$SEED" "$dev" 2>&1)
	rig_log "$out"
	case $out in
	*"frame_storm: sent="*) ;;
	*) rig_fail "frame_storm failed: $out"; return 1 ;;
	esac
	if rig_exited "$snd_out" || rig_exited "$snd_in"; then
		rig_fail "a transfer ended before the storm did (lower" \
			 "STORM_SHAPE)"
		return 1
	fi

	rig_wait_pid "$snd_out" "$LIMIT" ||
		rig_fail "namespace -> host sender failed:" \
			 "$(cat "$RIG_TMP/snd_out.err")" || return 1
	rig_wait_pid "$snd_in" "$LIMIT" ||
		rig_fail "host -> namespace sender failed:" \
			 "$(cat "$RIG_TMP/snd_in.err")" || return 1
	rig_wait_pid "$rcv_out" 20 || rig_fail "receiver on host failed" ||
		return 1
	rig_wait_pid "$rcv_in" 20 ||
		rig_fail "receiver in namespace failed" || return 1
	[ "$(cat "$sum_out")" = "$want" ] ||
		rig_fail "namespace -> host: sha256 mismatch" || return 1
	[ "$(cat "$sum_in")" = "$want" ] ||
		rig_fail "host -> namespace: sha256 mismatch" || return 1

	stats_read || return 1
	sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out")
	must=$(sed -n 's/.*must_drop=\([0-9]*\).*/\1/p' <<<"$out")
	d0=$(( $(tap_drops "$ns" "$dev") - t0 ))
	frames=$(( CNT[frames] - C0[frames] ))
	drops=$(( CNT[drop_malformed] + CNT[drop_unsupported] -
		  C0[drop_malformed] - C0[drop_unsupported] ))
	sumdrops=$(( CNT[drop_malformed] + CNT[drop_unsupported] ))
	bal=$(( CNT[frames] - sumdrops - CNT[to_arp] - CNT[to_ndp] -
		CNT[to_dhcp] - CNT[to_tcp] - CNT[to_udp] - CNT[to_icmp] -
		${CNT[to_mcast]:-0} ))
	f0=""
	for k in drop_malformed drop_unsupported to_arp to_ndp to_dhcp \
		 to_tcp to_udp to_icmp arp_replies ndp_replies rst_unknown \
		 refused; do
		f0+=" $k+$(( ${CNT[$k]:-0} - ${C0[$k]:-0} ))"
	done
	rig_log "sent $sent (must drop $must), tap drops $d0;" \
		"relay: frames+$frames$f0"
	[ "$frames" -ge $((sent - d0)) ] ||
		rig_fail "relay counted $frames frames, $sent were sent" \
			 "($d0 dropped by the tap device)" || return 1
	[ "$drops" -ge $((must - d0)) ] ||
		rig_fail "relay counted $drops drops, $must frames must" \
			 "have been dropped ($d0 dropped by the tap)" ||
		return 1
	[ "$bal" -eq 0 ] ||
		rig_fail "counters do not balance: frames minus drops and" \
			 "to_ counters is $bal" || return 1

	rig_still_serving "$ns"
}

# pasta_up() - test: pasta in the foreground for its namespace
pasta_up() {
	rig_relay_start fg -t "$FWD" || return 1
	PASTA_DEV=$(ip -n "$NS_PASTA" -o link show | awk -F': ' \
		    '$2 != "lo" { print $2; exit }')
	PASTA_DEV=${PASTA_DEV%@*}
	[ -n "$PASTA_DEV" ] ||
		rig_fail "no tap device in $NS_PASTA" || return 1
	rig_listening "$RIG_HOSTNS" "$FWD" ||
		rig_fail "port $FWD does not listen in the host namespace"
}

# passt_up() - test: passt, a guest namespace through tap_bridge
passt_up() {
	# shellcheck disable=SC2153 # set by rig_ns_new
	RIG_NS=$NS_PASST
	passt_start fg "$SOCK" -t "$FWD" || return 1
	passt_guest_start "$NS_PASST" || return 1
	passt_guest_static "$NS_PASST" || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not log the guest's connection"
}

rig_run "pasta: relay up for the storm" pasta_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "pasta: $STORM_N-frame storm on the tap during 2 x $SIZE, sha256, counters" \
		storm "$NS_PASTA" "$PASTA_DEV"
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_run "passt: relay and guest up for the storm" passt_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "passt: $STORM_N-frame storm through the stream socket during 2 x $SIZE, sha256, counters" \
		storm "$NS_PASST" "$PASST_TAP"
	rig_run "passt exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
