#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/busy_poll.sh - pasta with --busy-poll: traffic intact,
# bad values refused, no CPU burnt at rest
#
# Rig (tests/lib/rig.sh): pasta runs as a daemon in a host namespace of our
# own, with --busy-poll $USEC, and serves a second namespace (--config-net).
#
#   bad values: --busy-poll above CONF_BUSY_POLL_MAX (10000), negative or
#     not a number ends pasta at start-up with a non-zero status and a
#     message naming the option.
#   bulk: 64 MiB namespace to host, checked with SHA-256.
#   request/response: EXCHANGES requests of 64 bytes from the namespace to
#     an echo server on the host's loopback, one at a time, each answer
#     compared with its request (the traffic --busy-poll is for). The
#     relay's voluntary context switches per exchange are logged, as a
#     diagnostic: fewer than two mean replies were found while polling.
#   at rest: once traffic stopped (and its window of $USEC us passed), the
#     relay's CPU time (utime + stime of /proc/PID/stat, in clock ticks)
#     grows by at most REST_MAX_TICKS over REST_S seconds. A relay still
#     polling would use a whole CPU, REST_S * CLK_TCK ticks (200 at the
#     usual 100 Hz); one that sleeps uses none, but for a timer (the
#     router advertisement, the hand-back of idle buffers). The bound is
#     a tenth of a CPU: CPU time, not a timing check.
#
# A sanitizer build spends its own CPU time (leak checks, quarantine): the
# rest bound is skipped for it, with a note.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

USEC=200		# --busy-poll: a reply on the host's loopback comes
			# within this on an idle machine
EXCHANGES=500
REST_S=2
SIZE=64M
LIMIT=60
PORT=7041

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1
rig_need python3 || exit 1

DATA=$RIG_TMP/busy.bin
rig_random_file "$DATA" "$SIZE" || exit 1
CLK_TCK=$(getconf CLK_TCK)
REST_MAX_TICKS=$((REST_S * CLK_TCK / 10))

# bad_value() - test: pasta refuses a --busy-poll value, saying why
# $1: the value
bad_value() {
	local out rc

	out=$(rig_h "$RELAY" --runas 0 --busy-poll "$1" --netns "$RIG_NS" \
		2>&1)
	rc=$?
	[ "$rc" -ne 0 ] ||
		rig_fail "--busy-poll $1 accepted (exit status 0)" || return 1
	case $out in
	*"--busy-poll: invalid value '$1'"*) ;;
	*) rig_fail "exit status $rc, but no message about --busy-poll:" \
		    "$out"; return 1 ;;
	esac
	rig_log "exit status $rc: $out"
}

# relay_up() - test: start pasta as a daemon with --busy-poll $USEC
relay_up() {
	rig_relay_start daemon --busy-poll "$USEC"
}

# bulk() - test: a transfer namespace to host, sha256 intact
bulk() {
	rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:$PORT" \
		"$RIG_HOSTNS" "TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"$DATA" "$LIMIT"
}

# ctxt_switches() - the relay's voluntary context switches
ctxt_switches() {
	awk '$1 == "voluntary_ctxt_switches:" { print $2 }' \
		"/proc/$RIG_RELAY_PID/status"
}

# pingpong() - test: request/response exchanges through the relay, each
# answer checked
pingpong() {
	local srv out cs0 cs1

	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$LIMIT" \
		socat "TCP4-LISTEN:$((PORT + 1)),bind=127.0.0.1,reuseaddr" \
		EXEC:cat 2>"$RIG_TMP/echo.err" &
	srv=$!
	rig_defer "rig_kill $srv"
	rig_wait_listen "$RIG_HOSTNS" $((PORT + 1)) || return 1

	cs0=$(ctxt_switches)
	out=$(ip netns exec "$RIG_NS" timeout -k 5 "$LIMIT" python3 -c '
import os, socket, sys
n, good = int(sys.argv[3]), 0
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
for i in range(n):
    req = os.urandom(64)
    s.sendall(req)
    got = b""
    while len(got) < 64:
        part = s.recv(64 - len(got))
        if not part:
            break
        got += part
    if got != req:
        print(f"exchange {i}: {len(got)} bytes back, not the request")
        break
    good += 1
print(f"{good} of {n} exchanges intact")
' "$RIG_GW4" $((PORT + 1)) "$EXCHANGES" 2>&1)
	cs1=$(ctxt_switches)
	rig_log "$out"
	[ "$out" = "$EXCHANGES of $EXCHANGES exchanges intact" ] ||
		rig_fail "request/response: $out" || return 1
	rig_log "relay: $(( (cs1 - cs0) * 100 / EXCHANGES )) voluntary" \
		"context switches per 100 exchanges"
}

# cpu_ticks() - the relay's CPU time, user and system, in clock ticks
cpu_ticks() {
	# After "(comm)": field 3 is the state, utime and stime are 14, 15
	sed 's/^.*) //' "/proc/$RIG_RELAY_PID/stat" |
		awk '{ print $12 + $13 }'
}

# sanitizer_build() - is the relay a sanitizer build?
sanitizer_build() {
	grep -qa __asan_init "$(readlink -f "$RELAY")"
}

# at_rest() - test: no traffic, the relay's CPU time barely grows
at_rest() {
	local t0 t1

	rig_relay_alive || rig_fail "relay not running" || return 1
	t0=$(cpu_ticks)
	sleep "$REST_S"
	t1=$(cpu_ticks)
	rig_log "CPU time over $REST_S s at rest: $((t1 - t0)) ticks" \
		"of $CLK_TCK per second"
	if sanitizer_build; then
		rig_log "skipped: the bound (a sanitizer build)"
		return 0
	fi
	[ $((t1 - t0)) -le "$REST_MAX_TICKS" ] ||
		rig_fail "the relay used $((t1 - t0)) ticks of CPU time in" \
			 "$REST_S s at rest, more than $REST_MAX_TICKS:" \
			 "still polling?"
}

rig_run "--busy-poll 10001 (above the maximum) refused" bad_value 10001
rig_run "--busy-poll -1 refused" bad_value -1
rig_run "--busy-poll abc refused" bad_value abc
rig_run "relay starts as a daemon with --busy-poll $USEC" relay_up
if [ -z "$RIG_RELAY_PID" ]; then
	rig_summary
fi
rig_run "tcp ns->host $SIZE sha256 with --busy-poll" bulk
rig_run "tcp ns->host $EXCHANGES request/response exchanges intact" pingpong
rig_run "at rest: CPU time over $REST_S s at most $REST_MAX_TICKS ticks" \
	at_rest
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
