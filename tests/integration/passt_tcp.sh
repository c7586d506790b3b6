#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_tcp.sh - 200 MiB TCP transfers through passt
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt runs in the foreground
# in a host namespace of our own, listening on a UNIX socket; the guest is
# a second namespace whose tap device tap_bridge connects to that socket,
# configured statically with the host's addresses (MTU 65520). Each
# transfer sends the same random file; the receiver hashes the stream and
# the test compares SHA-256 sums:
#
#   guest -> host: client in the guest connects to the gateway address
#     (192.0.2.1, 2001:db8::1), which passt maps to the host namespace's
#     loopback, where the server listens;
#   host -> guest: client in the host namespace connects to the host's own
#     address on a port forwarded with -t, server in the guest.
#
# Then iperf3 for 5 s each way (guest client to the host's loopback, and
# with -R): throughput is logged, no one-second interval may be at zero.
#
# Then backpressure: the guest stops reading the socket for a few seconds
# during a host -> guest transfer. passt must keep the rest of a partly
# written frame, resume exactly where it stopped (the hash checks the
# framing held), and sleep meanwhile (CPU time checked).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=${BULK_SIZE:-200M}
LIMIT=${BULK_TIMEOUT:-180}
FWD=10001
STALL_S=3
IPERF_PORT=5202
IPERF_S=${IPERF_TIME:-5}

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket

# relay_up() - test: passt starts, a guest connects and is configured
relay_up() {
	passt_start fg "$SOCK" -t "$FWD" || return 1
	rig_persist
	passt_guest_start "$RIG_NS" || return 1
	passt_guest_static "$RIG_NS" || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not log the guest's connection"
}

# guest_to_host() - test: guest client to host-loopback server
# $1: 4 or 6
guest_to_host() {
	if [ "$1" = 4 ]; then
		rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
			"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
			"$DATA" "$LIMIT"
	else
		rig_transfer "$RIG_NS" "TCP6:[$RIG_GW6]:7001" \
			"$RIG_HOSTNS" "TCP6-LISTEN:7001,bind=[::1]" \
			"$DATA" "$LIMIT"
	fi
}

# host_to_guest() - test: host client to a forwarded port, server in guest
# $1: 4 or 6
host_to_guest() {
	if [ "$1" = 4 ]; then
		rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
			"$RIG_NS" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT"
	else
		rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$FWD" \
			"$RIG_NS" "TCP6-LISTEN:$FWD,ipv6only=1" \
			"$DATA" "$LIMIT"
	fi
}

# iperf() - test: iperf3 from the guest to the host's loopback
# $1: "" (guest->host) or -R (host->guest)
iperf() {
	local json=$RIG_TMP/iperf$1.json srv rc zero

	rig_h timeout -k 5 $((IPERF_S + 30)) iperf3 -s -1 -B 127.0.0.1 \
		-p "$IPERF_PORT" >"$RIG_TMP/iperf-server.log" 2>&1 &
	srv=$!
	rig_defer "rig_kill $srv"
	rig_wait_listen "$RIG_HOSTNS" "$IPERF_PORT" || return 1

	# shellcheck disable=SC2086 # $1 is empty or one word
	rig_g timeout -k 5 $((IPERF_S + 20)) iperf3 -c "$RIG_GW4" \
		-p "$IPERF_PORT" -t "$IPERF_S" -i 1 -J --connect-timeout 5000 \
		$1 >"$json"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "iperf3 exited with status $rc:" \
			 "$(jq -r '.error // "no JSON"' "$json" 2>/dev/null)" ||
		return 1
	zero=$(jq -r '[.intervals[].sum | select(.seconds >= 0.5)
		       | select(.bits_per_second <= 0) | .start | floor]
		      | map(tostring) | join(",")' "$json")
	rig_log "Mbit/s per interval:" \
		"$(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor
			   | tostring] | join(" ")' "$json")"
	rig_log "average: $(jq -r '.end.sum_received.bits_per_second / 1e6
				   | floor' "$json") Mbit/s," \
		"retransmits: $(jq -r '.end.sum_sent.retransmits // "n/a"' \
				"$json")"
	[ -z "$zero" ] ||
		rig_fail "zero throughput in the second(s) starting at" \
			 "t=$zero s" || return 1
	rig_wait_pid "$srv" 10 ||
		rig_fail "iperf3 server did not finish cleanly"
}

# cpu_ticks() - user plus system time of a process, in clock ticks
# $1: PID
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# stalled_guest() - test: the guest stops reading for STALL_S seconds
#
# A second bridge replaces the first one (same namespace, same addresses),
# with a stall after 20 MB from passt. While it lasts, passt must sleep.
stalled_guest() {
	local sumfile start t0 t1 ms

	passt_guest_stop
	passt_guest_start "$RIG_NS" --stall-after-bytes 20000000 \
		--stall-seconds "$STALL_S" || return 1
	passt_guest_static "$RIG_NS" || return 1

	sumfile=$RIG_TMP/stall.sha
	rig_tcp_recv_sha "$RIG_NS" "TCP4-LISTEN:$FWD" "$sumfile" "$LIMIT"
	rig_wait_listen "$RIG_NS" "$FWD" || return 1

	start=$(rig_now_ms)
	rig_h timeout -k 5 "$LIMIT" socat -u "FILE:$DATA" \
		"TCP4:$RIG_ADDR4:$FWD,connect-timeout=5" &
	rig_defer "rig_kill $!"

	# Wait until the bridge stalls (its buffers and passt's fill up)
	sleep 1
	t0=$(cpu_ticks "$RIG_RELAY_PID")
	sleep 1
	t1=$(cpu_ticks "$RIG_RELAY_PID")

	rig_wait_pid "$RIG_BG_PID" "$LIMIT" ||
		rig_fail "receiver failed or timed out" || return 1
	ms=$(( $(rig_now_ms) - start ))
	[ "$(cat "$sumfile")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch after the stall" || return 1
	[ "$ms" -ge $((STALL_S * 1000)) ] ||
		rig_fail "transfer took $ms ms: the bridge did not stall" ||
		return 1
	rig_log "passt used $((t1 - t0)) ticks in 1 s of stall;" \
		"transfer $ms ms"
	[ $((t1 - t0)) -le 5 ] ||
		rig_fail "passt used $((t1 - t0)) ticks of CPU in 1 s while" \
			 "the guest was not reading"
}

rig_run "passt: socket, guest connects, static configuration" relay_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt tcp guest->host IPv4 $SIZE sha256" guest_to_host 4
rig_run "passt tcp guest->host IPv6 $SIZE sha256" guest_to_host 6
rig_run "passt tcp host->guest IPv4 $SIZE sha256" host_to_guest 4
rig_run "passt tcp host->guest IPv6 $SIZE sha256" host_to_guest 6
rig_run "passt iperf3 guest->host -t $IPERF_S, no interval at zero" iperf ""
rig_run "passt iperf3 host->guest -t $IPERF_S -R, no interval at zero" \
	iperf -R
rig_run "passt: guest stops reading ${STALL_S} s, transfer resumes" \
	stalled_guest
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_summary
