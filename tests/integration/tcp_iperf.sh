#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_iperf.sh - sustained TCP throughput without stalls
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME). An iperf3 server
# listens on the host namespace's loopback; the client in the namespace
# connects to the gateway address. One 10 s run sends namespace->host, one
# (-R) host->namespace. Every one-second interval must carry data: a stall
# (a second at zero throughput, e.g. waiting for a retransmission timeout or
# a lost window update) fails the test. iperf3 does not verify the bytes; the
# other scripts check contents with sha256.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

SECS=${IPERF_TIME:-10}
PORT=5201

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

# relay_up() - test: start pasta in the foreground
relay_up() {
	rig_relay_start fg -t none
}

# iperf() - test: one iperf3 run, every interval above zero
# $1: "" (namespace->host) or -R (host->namespace)
iperf() {
	local json=$RIG_TMP/iperf$1.json srv rc error n zero rates

	ip netns exec "$RIG_HOSTNS" timeout -k 5 $((SECS + 30)) \
		iperf3 -s -1 -B 127.0.0.1 -p "$PORT" \
		>"$RIG_TMP/iperf-server.log" 2>&1 &
	srv=$!
	rig_defer "rig_kill $srv"
	rig_wait_listen "$RIG_HOSTNS" "$PORT" || return 1

	# shellcheck disable=SC2086 # $1 is empty or one word
	rig_g timeout -k 5 $((SECS + 20)) iperf3 -c "$RIG_GW4" -p "$PORT" \
		-t "$SECS" -i 1 -J --connect-timeout 5000 $1 >"$json"
	rc=$?
	error=$(jq -r '.error // empty' "$json" 2>/dev/null)
	[ "$rc" -eq 0 ] ||
		rig_fail "iperf3 exited with status $rc: ${error:-no JSON}" ||
		return 1

	# Intervals of (nearly) a full second; a trailing fragment is ignored
	n=$(jq '[.intervals[].sum | select(.seconds >= 0.5)] | length' "$json")
	zero=$(jq -r '[.intervals[].sum | select(.seconds >= 0.5)
		       | select(.bits_per_second <= 0) | .start | floor]
		      | map(tostring) | join(",")' "$json")
	rates=$(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor
			| tostring] | join(" ")' "$json")
	rig_log "Mbit/s per interval: $rates"
	rig_log "average: $(jq -r '.end.sum_received.bits_per_second / 1e6
				   | floor' "$json") Mbit/s," \
		"retransmits: $(jq -r '.end.sum_sent.retransmits // "n/a"' \
				"$json")"
	[ "$n" -ge "$SECS" ] ||
		rig_fail "only $n one-second intervals in a $SECS s run" ||
		return 1
	[ -z "$zero" ] ||
		rig_fail "zero throughput in the second(s) starting at" \
			 "t=$zero s" || return 1
	rig_wait_pid "$srv" 10 ||
		rig_fail "iperf3 server did not finish cleanly"
}

rig_run "relay starts in the foreground" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

rig_run "tcp ns->host iperf3 -t $SECS, no interval at zero" iperf ""
rig_run "tcp host->ns iperf3 -t $SECS -R, no interval at zero" iperf -R
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
