#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/frame_storm.sh - malformed-frame storm during transfers
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): for pasta, the relay's tap
# device in the target namespace; for passt, a guest namespace whose tap
# device tap_bridge connects to passt's stream socket; for passt
# --vhost-user, a guest namespace whose tap device tests/tools/vu_bridge
# connects to passt's vhost-user socket (it is the front-end and the
# guest's driver: shared memory, virtqueues, offloads both ways). In all
# three, frames sent on that tap device with an AF_PACKET socket go to the
# relay (for passt, through the stream socket or the transmit virtqueue).
# For passt, both bridges also have an injection socket (--inject):
# frames of 0 to 13 bytes, which no tap device can carry, go through it
# to the stream with their length prefix, or to the virtqueue behind a
# virtio-net header.
#
# Each storm test starts two 200 MiB transfers of the same random file,
# one from the namespace to the host's loopback and one from the host to
# the namespace through the tap (a forwarded port), then injects STORM_N
# frames with tests/tools/frame_storm (random bytes, and ARP, IPv4, IPv6,
# TCP, UDP, ICMP, ICMPv6, DHCP, DHCPv6, NDP templates, valid or mutated;
# for passt, both ways, also one in 30 of 0 to 13 bytes, "short").
# The host namespace's loopback is shaped (tbf) so that the transfers last
# longer than the storm. The test passes if:
#   - the relay is still running, both transfers end and their SHA-256
#     sums match, and a new connection works afterwards;
#   - the storm ended while both transfers were still running;
#   - the relay's counters (logged on SIGUSR1, read before and after)
#     account for the junk:
#       frames: delta(frames) >= sent - short - delta(tx_dropped of the
#         tap), every injected frame the kernel passed on was counted;
#       short: delta(rx_short) of the tap line = short, every frame of 0
#         to 13 bytes was dropped and counted by the backend;
#       drops: delta(drop_malformed + drop_unsupported) >=
#         must_drop - delta(tx_dropped), every frame the injector built
#         to fail the relay's parser (bad EtherType, IP version, header
#         length, header checksum, IP length, fragment) was counted as a
#         drop;
#       balance: frames = drop_malformed + drop_unsupported + to_arp +
#         to_ndp + to_dhcp + to_tcp + to_udp + to_icmp + to_mcast, every
#         frame has exactly one outcome (a drop with its reason, or the
#         protocol handler it went to); and the backend handed net/ what
#         it counted as received (tap rx_frames = net frames).
# passt: the guest's connection is still the one it made before the storm
# (the bridge, which exits when passt closes it, is running; passt logged
# one accepted connection and no closed one).

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
rig_need_tool STORM frame_storm || exit 1
rig_need_tool VU_BRIDGE vu_bridge || exit 1
rig_need tc || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1
NS_PASTA=$RIG_NS
rig_ns_new NS_PASST g || exit 1
rig_ns_new NS_VU v || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket
INJECT=$RIG_TMP/inject.socket
SOCK_VU=$RIG_TMP/vu.socket
INJECT_VU=$RIG_TMP/inject_vu.socket
rig_log "storm: $STORM_N frames at $STORM_PPS/s, seed $SEED"

# tap_drops() - frames the namespace's tap device dropped on transmit
# $1: namespace
# $2: device
tap_drops() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_dropped"
}

# Counters before the storm (RIG_CNT keys)
declare -A C0

# grew() - how much a counter grew since C0 was taken
# $1: MODULE.KEY
grew() {
	echo $(( ${RIG_CNT[$1]:-0} - ${C0[$1]:-0} ))
}

# storm() - test: transfers both ways, storm, checks (see top of file)
# $1: namespace of the "guest"
# $2: its tap device
# $3: injection socket of the bridge (frames of 0 to 13 bytes), or empty
storm() {
	local ns=$1 dev=$2 inject=$3 d0 t0 out sent must short drops frames
	local bal k f0
	local -a opts=()

	rig_shape_loopback "$SHAPE_RATE" || return 1
	rig_relay_stats || return 1
	C0=()
	for k in "${!RIG_CNT[@]}"; do C0[$k]=${RIG_CNT[$k]}; done
	t0=$(tap_drops "$ns" "$dev")
	[ -n "$inject" ] && opts=(--inject "$inject")

	# namespace -> host, and host -> namespace through the tap
	rig_bulk_start "$ns" "$DATA" "$FWD" "$LIMIT" || return 1
	sleep 0.5

	out=$(ip netns exec "$ns" "$STORM" -n "$STORM_N" -r "$STORM_PPS" \
		-s "$SEED" "${opts[@]}" "$dev" 2>&1)
	rig_log "$out"
	case $out in
	*"frame_storm: sent="*) ;;
	*) rig_fail "frame_storm failed: $out"; return 1 ;;
	esac
	rig_bulk_running ||
		rig_fail "a transfer ended before the storm did (lower" \
			 "STORM_SHAPE)" || return 1
	rig_bulk_check "$DATA" "$LIMIT" || return 1

	rig_relay_stats || return 1
	sent=$(sed -n 's/.* sent=\([0-9]*\).*/\1/p' <<<"$out")
	must=$(sed -n 's/.*must_drop=\([0-9]*\).*/\1/p' <<<"$out")
	short=$(sed -n 's/.* short=\([0-9]*\).*/\1/p' <<<"$out")
	d0=$(( $(tap_drops "$ns" "$dev") - t0 ))
	frames=$(grew net.frames)
	drops=$(( $(grew net.drop_malformed) + $(grew net.drop_unsupported) ))
	bal=${RIG_CNT[net.frames]}
	for k in drop_malformed drop_unsupported to_arp to_ndp to_dhcp to_tcp \
		 to_udp to_icmp to_mcast; do
		bal=$(( bal - ${RIG_CNT[net.$k]:-0} ))
	done
	f0=""
	for k in net.drop_malformed net.drop_unsupported net.to_arp \
		 net.to_ndp net.to_dhcp net.to_tcp net.to_udp net.to_icmp \
		 net.arp_replies net.ndp_replies tcp.rst_unknown tcp.refused \
		 tap.rx_short tap.rx_long tap.rx_bad_chain tap.rx_bad_offload; do
		f0+=" ${k#*.}+$(grew "$k")"
	done
	rig_log "sent $sent (must drop $must, $short short), tap drops $d0;" \
		"relay: frames+$frames$f0"
	[ "$frames" -ge $((sent - short - d0)) ] ||
		rig_fail "relay counted $frames frames, $((sent - short))" \
			 "were sent ($d0 dropped by the tap device)" || return 1
	[ "$drops" -ge $((must - d0)) ] ||
		rig_fail "relay counted $drops drops, $must frames must" \
			 "have been dropped ($d0 dropped by the tap)" ||
		return 1
	[ "$bal" -eq 0 ] ||
		rig_fail "counters do not balance: frames minus drops and" \
			 "to_ counters is $bal" || return 1
	k=$(grew tap.rx_short)
	[ "$k" -eq "${short:-0}" ] ||
		rig_fail "relay counted $k frames shorter than Ethernet," \
			 "${short:-0} were sent" || return 1
	[ "${RIG_CNT[tap.rx_frames]}" -eq "${RIG_CNT[net.frames]}" ] ||
		rig_fail "tap rx_frames ${RIG_CNT[tap.rx_frames]} is not net" \
			 "frames ${RIG_CNT[net.frames]}" || return 1

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
	passt_guest_start "$NS_PASST" --inject "$INJECT" || return 1
	passt_guest_static "$NS_PASST" || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not log the guest's connection"
}

# vu_up() - test: passt --vhost-user, a guest namespace through vu_bridge
vu_up() {
	RIG_NS=$NS_VU
	passt_start fg "$SOCK_VU" --vhost-user -t "$FWD" || return 1
	BRIDGE=$VU_BRIDGE passt_guest_start "$NS_VU" --offload \
		--inject "$INJECT_VU" || return 1
	passt_guest_static "$NS_VU" || return 1
	rig_poll 5 passt_log_has "queue 1 (transmit) started" ||
		rig_fail "the transmit queue did not start"
}

rig_run "pasta: relay up for the storm" pasta_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "pasta: $STORM_N-frame storm on the tap during 2 x $SIZE, sha256, counters" \
		storm "$NS_PASTA" "$PASTA_DEV"
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_run "passt: relay and guest up for the storm" passt_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "passt: $STORM_N-frame storm with frames of 0 to 13 bytes through the stream socket during 2 x $SIZE, sha256, counters" \
		storm "$NS_PASST" "$PASST_TAP" "$INJECT"
	rig_run "passt: the same guest connection after the storm" \
		passt_same_guest "$PASST_BRIDGE_PID" "$PASST_BRIDGE_LOG"
	rig_run "passt exits on SIGTERM" rig_relay_stop_check
fi
rig_run "passt --vhost-user: relay and guest up for the storm" vu_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "passt --vhost-user: $STORM_N-frame storm with frames of 0 to 13 bytes through the virtqueues during 2 x $SIZE, sha256, counters" \
		storm "$NS_VU" "$PASST_TAP" "$INJECT_VU"
	rig_run "passt --vhost-user: the same guest connection after the storm" \
		passt_same_guest "$PASST_BRIDGE_PID" "$PASST_BRIDGE_LOG"
	rig_run "passt --vhost-user exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
