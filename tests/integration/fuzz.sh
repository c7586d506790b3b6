#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/fuzz.sh - every libFuzzer target runs FUZZ_SECS seconds
#
# Builds the targets of tests/fuzz/ with clang (make fuzz-build, in
# build-fuzz/; clang and libFuzzer, Debian package libclang-rt-14-dev, are
# installed with apt-get if missing), then runs each for FUZZ_SECS seconds
# (default 25), two at a time, each in a user and network namespace of its
# own (tests/fuzz/run.sh). A target passes if it ends with no crash, leak,
# timeout or sanitizer report. On failure, the log and the crashing input
# are copied to tests/out/fuzz-artefacts/ and the report is shown.
#
# Output: "PASS: fuzz_NAME (S s, N runs)" or "FAIL: ..." per target.
#
# The targets are built here, with their own sanitizers (ASan, UBSan): the
# relay under test (RELAY) never runs, so make sanitize skips the script
# (tests/run --relay-only) rather than run the same 25 s per target again.
# tests/run: independent of RELAY

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
# shellcheck source=tests/lib/apt.sh
. "$ROOT/tests/lib/apt.sh"

FUZZ_SECS=${FUZZ_SECS:-25}
# The Makefile's FUZZ_TARGETS: one list for make fuzz and this test
TARGETS=$(make -s --no-print-directory fuzz-targets) || exit 1
LIBFUZZER_GLOB='/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
ART=$ROOT/tests/out/fuzz-artefacts

# fuzz_have_tools() - clang and libFuzzer are there
fuzz_have_tools() {
	# shellcheck disable=SC2086 # the glob must expand
	command -v clang >/dev/null 2>&1 && ls $LIBFUZZER_GLOB >/dev/null 2>&1
}

if ! fuzz_have_tools; then
	echo "# installing clang and libFuzzer (libclang-rt-14-dev)"
	mkdir -p "$ROOT/tests/out"
	apt_install "$ROOT/tests/out/apt-fuzz.log" clang libclang-rt-14-dev ||
		echo "# apt-get failed, see tests/out/apt-fuzz.log"
fi
if ! fuzz_have_tools; then
	echo "FAIL: fuzz build: clang or libFuzzer (libclang-rt-14-dev)" \
	     "missing"
	exit 1
fi
if ! command -v unshare >/dev/null 2>&1 || ! command -v ip >/dev/null 2>&1
then
	echo "FAIL: fuzz build: unshare (util-linux) or ip (iproute2) missing"
	exit 1
fi

start=$(date +%s)
if ! make -s fuzz-build >"$ROOT/tests/out/fuzz-build.log" 2>&1; then
	echo "FAIL: fuzz build ($(( $(date +%s) - start )) s): make" \
	     "fuzz-build failed, see tests/out/fuzz-build.log"
	tail -n 20 "$ROOT/tests/out/fuzz-build.log" | sed 's/^/#   | /'
	exit 1
fi
echo "# fuzz targets built in $(( $(date +%s) - start )) s"

out=$(mktemp) || exit 1
# In the background, so that a TERM (tests/run's timeout) is handled at
# once: run.sh then stops its targets and removes its work directory
# shellcheck disable=SC2086 # the target list is split into words
tests/fuzz/run.sh -t "$FUZZ_SECS" -j 2 $TARGETS >"$out" 2>&1 &
runner=$!
trap 'kill -TERM "$runner"; wait "$runner"; cat "$out"; rm -f "$out"
      echo "FAIL: fuzz: stopped by a signal"; exit 143' INT TERM
wait "$runner"
rc=$?
trap - INT TERM
cat "$out"

if [ "$rc" -ne 0 ]; then
	work=$(sed -n 's/^# work directory: //p' "$out")
	if [ -n "$work" ] && [ -d "$work" ]; then
		rm -rf "$ART"
		mkdir -p "$ART"
		for t in $TARGETS; do
			[ -d "$work/$t" ] || continue
			mkdir -p "$ART/$t"
			cp -a "$work/$t/log" "$work/$t/artefacts" "$ART/$t/" \
				2>/dev/null
		done
		rm -rf "$work"
		echo "# logs and crashing inputs copied to $ART"
	fi
fi
rm -f "$out"
exit "$rc"
