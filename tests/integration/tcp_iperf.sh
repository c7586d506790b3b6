#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_iperf.sh - sustained TCP throughput without stalls
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME). An iperf3 server
# listens on the host namespace's loopback; the client in the namespace
# connects to the gateway address. One 5 s run sends namespace->host, one
# (-R) host->namespace. Every half-second interval must carry data: a stall
# (an interval at zero throughput, e.g. waiting for a retransmission timeout
# or a lost window update) fails the test. iperf3 does not verify the bytes;
# the other scripts check contents with sha256.
#
# 5 s in half seconds, where this ran 10 s in seconds: the same 10
# intervals, and a second at zero is two half seconds at zero, so any
# stall that showed still shows, and one of half a second shows too; a
# stall rarer than once in 5 s shows in fewer runs (the stall matrix runs
# these two cases as well, tcp_stall_matrix.sh). IPERF_TIME (whole
# seconds) and IPERF_INTERVAL set them.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

SECS=${IPERF_TIME:-5}
INTERVAL=${IPERF_INTERVAL:-0.5}
# Intervals in a run, and the shortest one counted (half an interval)
SAMPLES=$(rig_iperf_samples "$SECS" "$INTERVAL") || {
	echo "FAIL: prerequisites: IPERF_TIME $SECS (whole seconds) or" \
	     "IPERF_INTERVAL $INTERVAL (0.1 to IPERF_TIME) invalid"
	exit 1
}
HALF=$(awk -v i="$INTERVAL" 'BEGIN { print i / 2 }')
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
		-t "$SECS" -i "$INTERVAL" -J --connect-timeout 5000 $1 >"$json"
	rc=$?
	error=$(jq -r '.error // empty' "$json" 2>/dev/null)
	[ "$rc" -eq 0 ] ||
		rig_fail "iperf3 exited with status $rc: ${error:-no JSON}" ||
		return 1

	# Intervals of (nearly) full length; a trailing fragment is ignored
	n=$(jq --argjson half "$HALF" \
		'[.intervals[].sum | select(.seconds >= $half)] | length' \
		"$json")
	zero=$(jq -r --argjson half "$HALF" \
		'[.intervals[].sum | select(.seconds >= $half)
		  | select(.bits_per_second <= 0) | .start * 10 | floor / 10]
		 | map(tostring) | join(",")' "$json")
	rates=$(jq -r '[.intervals[].sum.bits_per_second / 1e6 | floor
			| tostring] | join(" ")' "$json")
	rig_log "Mbit/s per interval: $rates"
	rig_log "average: $(jq -r '.end.sum_received.bits_per_second / 1e6
				   | floor' "$json") Mbit/s," \
		"retransmits: $(jq -r '.end.sum_sent.retransmits // "n/a"' \
				"$json")"
	[ "$n" -ge "$SAMPLES" ] ||
		rig_fail "only $n intervals of $INTERVAL s in a $SECS s run" ||
		return 1
	[ -z "$zero" ] ||
		rig_fail "zero throughput in the interval(s) of $INTERVAL s" \
			 "starting at t=$zero s" || return 1
	rig_wait_pid "$srv" 10 ||
		rig_fail "iperf3 server did not finish cleanly"
}

rig_run "relay starts in the foreground" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

rig_run "tcp ns->host iperf3 -t $SECS -i $INTERVAL, no interval at zero" \
	iperf ""
rig_run "tcp host->ns iperf3 -t $SECS -i $INTERVAL -R, no interval at zero" \
	iperf -R
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
