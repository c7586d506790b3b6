#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/code_layers.sh - the code's shape, by tests/tools/layers.sh
#
#   tree: every #include of the sources points to a lower layer of the list
#     in doc/design.md, no function is over 80 lines, no file over 1,200.
#   planted: a copy of the tree with an upward include (util/ -> tcp/), a
#     sideways one (tcp/ -> udp/), an 81-line function (new util/planted.c)
#     and a 1,201-line file: the check must fail on each, naming the file;
#     the same long file under build/, build-san/ and build-deb/ (build
#     output) must not be reported. No git needed: the files are found by
#     name (tests/tools/layers.sh --list).
#
# No namespace and no relay: rig.sh only for its result lines and cleanup.
# make sanitize skips the script (tests/run --relay-only):
# tests/run: independent of RELAY

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

rig_init
LAYERS=$RIG_ROOT/tests/tools/layers.sh

# tree() - test: the repository passes the check
tree() {
	local out

	out=$("$LAYERS" "$RIG_ROOT" 2>&1)
	local rc=$?
	rig_indent <<<"$out"
	[ "$rc" -eq 0 ] || rig_fail "tests/tools/layers.sh failed (above)"
}

# plant_tree() - copy the tree's sources and doc/design.md, then plant one
# violation of each kind
# $1: directory to create
plant_tree() {
	local dir=$1 i

	mkdir -p "$dir" || return 1
	"$LAYERS" --list "$RIG_ROOT" >"$RIG_TMP/files" || return 1
	(cd "$RIG_ROOT" && tar -T "$RIG_TMP/files" -cf -) |
		tar -xf - -C "$dir" || return 1

	sed -i '0,/^#include "/s//#include "..\/tcp\/tcp.h"\n&/' \
		"$dir/util/log.c"
	sed -i '0,/^#include "/s//#include "..\/udp\/udp.h"\n&/' \
		"$dir/tcp/tcp_listen.c"
	{
		printf '\n/**\n * planted_long() - 81 lines\n */\n'
		printf 'void planted_long(void)\n{\n'
		for i in $(seq 1 78); do
			printf '\t(void)%d;\n' "$i"
		done
	} >>"$dir/util/planted.c"
	# The closing brace: line 81, counting from the signature
	printf '}\n' >>"$dir/util/planted.c"
	for i in $(seq 1 1201); do
		echo "/* $i */"
	done >"$dir/util/planted_big.h"
	# Build output holding copies of the tree (make deb's build-deb/):
	# never read, whatever it holds
	for i in build-deb/passt-relay build-san build; do
		mkdir -p "$dir/$i/util" &&
			cp "$dir/util/planted_big.h" "$dir/$i/util/" || return 1
	done
}

# planted() - test: the check fails on each planted violation
planted() {
	local dir=$RIG_TMP/planted out rc

	plant_tree "$dir" || rig_fail "can't copy the tree" || return 1
	out=$("$LAYERS" "$dir" 2>&1)
	rc=$?
	rig_indent <<<"$out"

	[ "$rc" -ne 0 ] || rig_fail "check passed a tree with violations" ||
		return 1
	grep -q '^util/log.c:[0-9]*: util/ (layer 1) includes ../tcp/tcp.h' \
		<<<"$out" || rig_fail "upward include not reported" || return 1
	grep -q '^tcp/tcp_listen.c:[0-9]*: tcp/ .* includes ../udp/udp.h' \
		<<<"$out" || rig_fail "sideways include not reported" ||
		return 1
	grep -q '^util/planted.c:[0-9]*: 81 lines, over 80: void planted_long' \
		<<<"$out" || rig_fail "long function not reported" || return 1
	grep -q '^util/planted_big.h: 1201 lines, over 1200' <<<"$out" ||
		rig_fail "long file not reported" || return 1
	! grep -q '^build' <<<"$out" ||
		rig_fail "build output was read: $(grep -m 1 '^build' \
			  <<<"$out")" || return 1
}

rig_run "layers: the tree's includes follow doc/design.md, sizes within limits" tree
rig_run "layers: planted upward and sideways includes, long function and file are each caught, build output ignored" planted
rig_summary
