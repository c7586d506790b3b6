#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/idle_memory.sh - an idle pasta's memory, and after a
# bulk transfer
#
# Rig (tests/lib/rig.sh): pasta runs as a daemon in a host namespace of our
# own and serves a second namespace (--config-net), forwarding one port.
#
#   idle: the relay's proportional set size (Pss of /proc/PID/smaps_rollup:
#     anonymous memory plus its share of file pages, libc's included) is at
#     most IDLE_MAX_KB once it is set up.
#   after traffic: a 256 MiB transfer each way, namespace to host and host
#     to namespace through the tap (the forwarded port), checked with
#     SHA-256, makes the relay touch its frame and read buffers; once
#     traffic stops, the relay hands them back (util/idle_trim.c, after
#     IDLE_TRIM_MS), and its Pss must come back within AFTER_MAX_KB of the
#     idle figure. The relay is polled for up to SETTLE_S seconds: a bound
#     on memory, not a timing check.
#
# A sanitizer build's run time (shadow memory, quarantine) makes these
# bounds meaningless: the checks are skipped for it, with a note.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

IDLE_MAX_KB=3072	# issue 35: one idle pasta at most 3 MiB
AFTER_MAX_KB=1024	# back within 1 MiB of the idle figure
SETTLE_S=25		# IDLE_TRIM_MS (10 s) and a wide margin
SIZE=256M
LIMIT=60
FWD=10031

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/idle.bin
rig_random_file "$DATA" "$SIZE" || exit 1
IDLE_KB=

# pss_kb() - the relay's Pss in kB, from smaps_rollup
pss_kb() {
	awk '$1 == "Pss:" { print $2 }' "/proc/$RIG_RELAY_PID/smaps_rollup"
}

# pss_line() - the relay's memory as smaps_rollup says, one line
pss_line() {
	awk '$1 ~ /^(Rss|Pss|Pss_Anon|Pss_File):$/ { printf "%s %s kB ", $1, $2 }' \
		"/proc/$RIG_RELAY_PID/smaps_rollup"
}

# sanitizer_build() - is the relay a sanitizer build?
sanitizer_build() {
	grep -qa __asan_init "$(readlink -f "$RELAY")"
}

# relay_up() - test: start pasta as a daemon, forwarding $FWD
relay_up() {
	rig_relay_start daemon -t "$FWD"
}

# idle_pss() - test: the idle relay's Pss is at most IDLE_MAX_KB
idle_pss() {
	# Let the namespace's own start-up traffic (router and neighbour
	# solicitations, duplicate address detection) pass first
	sleep 2
	IDLE_KB=$(pss_kb)
	rig_log "idle: $(pss_line)"
	if sanitizer_build; then
		rig_log "skipped: the bound (a sanitizer build)"
		return 0
	fi
	if [ -z "$IDLE_KB" ] || [ "$IDLE_KB" -gt "$IDLE_MAX_KB" ]; then
		rig_fail "idle Pss ${IDLE_KB:-?} kB, more than $IDLE_MAX_KB kB"
	fi
}

# settled() - is the relay's Pss within AFTER_MAX_KB of the idle figure?
settled() {
	[ "$(pss_kb)" -le $((IDLE_KB + AFTER_MAX_KB)) ]
}

# after_traffic() - test: a bulk transfer, then Pss back near idle
after_traffic() {
	[ -n "$IDLE_KB" ] || rig_fail "no idle figure to compare with" ||
		return 1
	rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7031" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7031,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$RIG_NS" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT" || return 1
	rig_log "after the transfer: $(pss_line)"
	if sanitizer_build; then
		rig_log "skipped: the bound (a sanitizer build)"
		return 0
	fi
	rig_poll "$SETTLE_S" settled ||
		rig_fail "Pss $(pss_kb) kB $SETTLE_S s after the transfer," \
			 "idle was $IDLE_KB kB (at most $AFTER_MAX_KB kB more)" ||
		return 1
	rig_log "settled: $(pss_line)"
}

rig_run "relay starts as a daemon" relay_up
if [ -z "$RIG_RELAY_PID" ]; then
	rig_summary
fi
rig_run "idle Pss at most $IDLE_MAX_KB kB" idle_pss
rig_run "tcp $SIZE each way sha256, then Pss back within $AFTER_MAX_KB kB of idle" \
	after_traffic
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
