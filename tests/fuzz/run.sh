#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/fuzz/run.sh - run libFuzzer targets, each in a network namespace
#
# Usage: tests/fuzz/run.sh [-t SECS] [-j JOBS] [-k] TARGET...
#   -t SECS	run each target this long (default 30)
#   -j JOBS	targets running at once (default 2)
#   -k		keep the work directory (corpora, logs) even on success
#   TARGET	fuzz_frame, fuzz_tcp, ... (binaries in $FUZZ_DIR, default
#		build-fuzz; build them with make fuzz-build)
#
# Each target runs under "unshare -rn": a user namespace (no privilege
# outside it) and a network namespace of its own with only "lo" up, where
# ping sockets are allowed for our group. Whatever sockets the relay under
# test opens reach that loopback (the harness's servers) or nothing.
#
# The seed corpus (tests/fuzz/corpus/TARGET) is read, never written: new
# inputs go to a work directory under ${TMPDIR:-/tmp}, with the log and
# any crash, leak or timeout artefact.
#
# Output: one line per target, "PASS: TARGET (S s, N runs)" or
# "FAIL: TARGET (S s): REASON", then the end of its log on failure. Exit
# status 1 if any target failed.

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ_DIR=${FUZZ_DIR:-$ROOT/build-fuzz}
SECS=30
JOBS=2
KEEP=

while getopts "t:j:k" opt; do
	case $opt in
	t) SECS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	k) KEEP=1 ;;
	*) sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//'; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] && { sed -n '4,10p' "$0" | sed 's/^# \{0,1\}//'; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/${RIG_PREFIX:-fuzz-$$-}XXXXXX") || exit 1

# fuzz_one() - run one target for SECS seconds, print its result line
# $1: target name
fuzz_one() {
	local t=$1 bin=$FUZZ_DIR/$1 dir=$WORK/$1 log rc runs extra=() start

	log=$dir/log
	mkdir -p "$dir/corpus" "$dir/artefacts"
	if [ ! -x "$bin" ]; then
		echo "FAIL: $t (0 s): $bin not built (make fuzz-build)"
		return 1
	fi
	# The option parser prints its help text and messages itself
	[ "$t" = fuzz_conf ] && extra=(-close_fd_mask=3)

	start=$(date +%s)
	# shellcheck disable=SC2016 # expanded by the inner shell
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
	unshare -rn sh -c '
		ip link set lo up || exit 90
		echo "0 0" >/proc/sys/net/ipv4/ping_group_range
		exec "$@"' sh "$bin" -max_total_time="$SECS" \
		-print_final_stats=1 -rss_limit_mb=4096 -timeout=30 \
		-artifact_prefix="$dir/artefacts/" "${extra[@]}" \
		"$dir/corpus" "$ROOT/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")

	if [ "$rc" -eq 90 ]; then
		echo "FAIL: $t (0 s): can't bring lo up in a new namespace"
		return 1
	fi
	if [ "$rc" -ne 0 ] || [ -z "$runs" ] ||
	   grep -q -E 'ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:|ERROR: libFuzzer' "$log" ||
	   [ -n "$(ls -A "$dir/artefacts")" ]; then
		echo "FAIL: $t ($(( $(date +%s) - start )) s): exit" \
		     "status $rc, log and artefacts in $dir"
		grep -E -A 30 'ERROR|runtime error|deadly signal' "$log" |
			head -n 30 | sed 's/^/    /'
		find "$dir/artefacts" -type f -printf '    %p (%s bytes)\n'
		return 1
	fi
	echo "PASS: $t ($(( $(date +%s) - start )) s, $runs runs)"
}

# stop() - INT or TERM (tests/run's timeout): end the running targets,
# remove the work directory, exit
stop() {
	local p

	trap - INT TERM
	for p in "${pids[@]}"; do
		pkill -TERM -P "$p"	# the fuzzer, exec'd by unshare and sh
		kill -TERM "$p"
	done 2>/dev/null
	wait
	rm -rf "$WORK"
	exit 143
}

failed=0
pids=()
names=()
outs=()
trap stop INT TERM
for t in "$@"; do
	out=$WORK/$t.result
	fuzz_one "$t" >"$out" 2>&1 &
	pids+=($!)
	names+=("$t")
	outs+=("$out")
	# At most JOBS at once: wait for the oldest running one
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || failed=1
	cat "${outs[$i]}"
done

if [ "$failed" -eq 0 ] && [ -z "$KEEP" ]; then
	rm -rf "$WORK"
else
	echo "# work directory: $WORK"
fi
[ "$failed" -eq 0 ]
