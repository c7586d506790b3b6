#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/code_layers.sh - the code's shape, by tests/tools/layers.sh
#
#   tree: every #include of the sources points to a lower layer of the list
#     in doc/design.md, and so does every symbol the objects of the relay's
#     build use (nm: the check must have run, not been skipped), files
#     of a folder that declares their order (doc/udp.md, doc/tcp.md: both
#     must have been checked) use only earlier ones, no function is over
#     80 lines, no file over 1,200.
#   tcp flags: a connection's TCP_F_* flags are written (=, |=, &=, ^=) in
#     two files of tcp/ at most: tcp_conn.c and tcp_internal.h's named
#     transitions (doc/tcp.md, "File order").
#   planted: a copy of the tree with an upward include (util/ -> tcp/), a
#     sideways one (tcp/ -> udp/), an upward link without any include (an
#     object of util/ with a weak reference to a function an object of
#     tcp/ defines, as tap/ had to vhost_user/), an 81-line function (new
#     util/planted.c) and a 1,201-line file: the check must fail on each,
#     naming the file; the same long file under build/, build-san/ and
#     build-deb/ (build output) must not be reported. No git needed: the
#     files are found by name (tests/tools/layers.sh --list).
#   planted order: the copy's util/ declares a file order (doc/util.md)
#     with util/planted_low.c before util/planted_high.c: the low file
#     includes the high one's header and calls its function (objects in
#     the copy's build/), and util/planted_stray.c is not in the list: the
#     check must name each. The high item's names wrap over two lines.
#   perfdoc: doc/performance.md is a method, by tests/tools/perfdoc.sh: at
#     most 500 lines, no date and no commit id, nor in doc/perf-notes/.
#   perfdoc planted: a copy of both with a 501st line, a date and a commit
#     id in the method and in a note: the check must name each, and must
#     not take a number or an English word of hex letters for an id.
#
# No namespace and no relay: rig.sh only for its result lines and cleanup.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

rig_init
rig_need cc nm
LAYERS=$RIG_ROOT/tests/tools/layers.sh
PERFDOC=$RIG_ROOT/tests/tools/perfdoc.sh
# The objects of the relay's build: build/ for ./pasta, build-san/ for
# make sanitize's
OBJS=$(dirname "$(readlink -f "$RELAY")")

# tree() - test: the repository passes the check
tree() {
	local out

	out=$("$LAYERS" --objects "$OBJS" "$RIG_ROOT" 2>&1)
	local rc=$?
	rig_indent <<<"$out"
	[ "$rc" -eq 0 ] || rig_fail "tests/tools/layers.sh failed (above)" ||
		return 1
	grep -q '^PASS: layers: every symbol' <<<"$out" ||
		rig_fail "symbols of $OBJS/ not checked" || return 1
	grep -q '^PASS: layers: files follow the order .*doc/udp.md' \
		<<<"$out" ||
		rig_fail "udp/'s file order (doc/udp.md) not checked" ||
		return 1
	grep -q '^PASS: layers: files follow the order .*doc/tcp.md' \
		<<<"$out" ||
		rig_fail "tcp/'s file order (doc/tcp.md) not checked"
}

# tcp_flags() - test: a connection's TCP_F_* flags are written in two
# files of tcp/ at most, the core (tcp_conn.c) and the transitions named
# for events in tcp_internal.h: a line assigning (=, |=, &=, ^=) to
# conn->flags, or to an entry's of the table, counts for its file
tcp_flags() {
	local files n

	files=$(grep -lE \
		'(conn->|tcp_conns\[[^]]*\]\.)flags[[:space:]]*[|&^]?=[^=]' \
		"$RIG_ROOT"/tcp/*.[ch] | sed "s|^$RIG_ROOT/||")
	n=$(grep -c . <<<"$files")
	rig_indent <<<"$files"
	[ "$n" -ge 1 ] || rig_fail "no writer of conn->flags found" ||
		return 1
	[ "$n" -le 2 ] ||
		rig_fail "TCP_F_* flags written in $n files: $(tr '\n' ' ' \
			  <<<"$files")"
}

# plant_link() - an upward link no include shows: util/planted_link.c
# refers (weak) to planted_top(), which tcp/planted_top.c defines; both
# built into the copy's build/
# $1: the copy
plant_link() {
	local dir=$1

	printf '%s
' '/* planted: an upward link */' \
		'extern void planted_top(void) __attribute__((weak));' \
		'void planted_link(void);' '' \
		'/**' ' * planted_link() - call up' ' */' \
		'void planted_link(void)' '{' \
		'	if (planted_top)' '		planted_top();' '}' \
		>"$dir/util/planted_link.c"
	printf '%s
' '/* planted: the top */' 'void planted_top(void);' '' \
		'/**' ' * planted_top() - nothing' ' */' \
		'void planted_top(void)' '{' '}' >"$dir/tcp/planted_top.c"
	mkdir -p "$dir/build/util" "$dir/build/tcp" || return 1
	cc -c -o "$dir/build/util/planted_link.o" "$dir/util/planted_link.c" &&
		cc -c -o "$dir/build/tcp/planted_top.o" "$dir/tcp/planted_top.c"
}

# plant_order() - a file order for the copy's util/, broken three ways:
# an include of a later file's header, a call to a later file's function
# (built into the copy's build/), and a file the list doesn't name
# $1: the copy
plant_order() {
	local dir=$1 rest f b='`'

	printf '%s\n' '/* planted: the later file */' \
		'void planted_high(void);' >"$dir/util/planted_high.h"
	printf '%s\n' '/* planted: the later file */' \
		'#include "planted_high.h"' '' \
		'/**' ' * planted_high() - nothing' ' */' \
		'void planted_high(void)' '{' '}' >"$dir/util/planted_high.c"
	printf '%s\n' '/* planted: the earlier file */' \
		'#include "planted_high.h"' 'void planted_low(void);' '' \
		'/**' ' * planted_low() - call a later file' ' */' \
		'void planted_low(void)' '{' '	planted_high();' '}' \
		>"$dir/util/planted_low.c"
	echo '/* planted: in no item of the order */' \
		>"$dir/util/planted_stray.c"
	rest=
	for f in "$dir"/util/*.c "$dir"/util/*.h; do
		f=${f##*/}
		case $f in planted_low.c|planted_high.[ch]|planted_stray.c) ;;
		*) rest+="${rest:+, }$b$f$b" ;;
		esac
	done
	{
		printf '# util/\n\n## File order\n\n1. %s: the rest\n' "$rest"
		# Item 3's names wrap over two lines, as doc/tcp.md's do
		printf '2. %s: planted\n3. %s,\n   %s: planted\n' \
		       "${b}planted_low.c$b" "${b}planted_high.c$b" \
		       "${b}planted_high.h$b"
	} >"$dir/doc/util.md"
	cc -c -o "$dir/build/util/planted_low.o" "$dir/util/planted_low.c" &&
		cc -c -o "$dir/build/util/planted_high.o" \
			"$dir/util/planted_high.c"
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
	plant_link "$dir" || rig_fail "can't build the planted link" ||
		return 1
	plant_order "$dir" || rig_fail "can't plant the file order" ||
		return 1
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
	grep -q '^util/planted_link.o: util/ (layer 1) uses planted_top (weak), defined by tcp/planted_top.o' \
		<<<"$out" || rig_fail "upward link not reported" || return 1
	grep -q '^util/planted_low.c:[0-9]*: (item 2 of doc/util.md) includes planted_high.h (item 3)' \
		<<<"$out" || rig_fail "include of a later file not reported" ||
		return 1
	grep -q '^util/planted_low.o: (item 2 of doc/util.md) uses planted_high, defined by util/planted_high.o (item 3)' \
		<<<"$out" || rig_fail "call to a later file not reported" ||
		return 1
	grep -q '^util/planted_stray.c: not in the file order of doc/util.md' \
		<<<"$out" || rig_fail "file out of the order not reported" ||
		return 1
	! grep -q '^util/planted_high.c:.*item' <<<"$out" ||
		rig_fail "an include within an item reported" || return 1
	grep -q '^util/planted.c:[0-9]*: 81 lines, over 80: void planted_long' \
		<<<"$out" || rig_fail "long function not reported" || return 1
	grep -q '^util/planted_big.h: 1201 lines, over 1200' <<<"$out" ||
		rig_fail "long file not reported" || return 1
	! grep -q '^build' <<<"$out" ||
		rig_fail "build output was read: $(grep -m 1 '^build' \
			  <<<"$out")" || return 1
}

# perfdoc() - test: doc/performance.md and doc/perf-notes/ pass the check
perfdoc() {
	local out

	out=$("$PERFDOC" "$RIG_ROOT" 2>&1)
	local rc=$?
	rig_indent <<<"$out"
	[ "$rc" -eq 0 ] || rig_fail "tests/tools/perfdoc.sh failed (above)"
}

# perfdoc_planted() - test: the check fails on a long method, a date and a
# commit id, and passes numbers and hex-letter words
perfdoc_planted() {
	local dir=$RIG_TMP/perfdoc out rc n

	mkdir -p "$dir/doc/perf-notes" &&
		cp "$RIG_ROOT/doc/performance.md" "$dir/doc/" &&
		cp "$RIG_ROOT"/doc/perf-notes/*.md "$dir/doc/perf-notes/" ||
		rig_fail "can't copy the docs" || return 1
	echo '1048576 bytes, a defaced table' >>"$dir/doc/perf-notes/README.md"
	echo 'Run of 2026-12-05 at commit 916bfcd.' \
		>>"$dir/doc/perf-notes/README.md"
	echo 'The run (3f2a1c0e9b) of 2026-12-02.' >>"$dir/doc/performance.md"
	n=$(wc -l <"$dir/doc/performance.md")
	while [ "$n" -lt 501 ]; do
		echo >>"$dir/doc/performance.md"
		n=$((n + 1))
	done

	out=$("$PERFDOC" "$dir" 2>&1)
	rc=$?
	rig_indent <<<"$out"
	[ "$rc" -ne 0 ] || rig_fail "check passed planted violations" ||
		return 1
	grep -q '^doc/performance.md: 501 lines, over 500' <<<"$out" ||
		rig_fail "501 lines not reported" || return 1
	grep -q '^doc/performance.md:[0-9]*: a date: 2026-12-02' <<<"$out" ||
		rig_fail "date in the method not reported" || return 1
	grep -q '^doc/performance.md:[0-9]*: a commit id: 3f2a1c0e9b' \
		<<<"$out" || rig_fail "commit id in the method not reported" ||
		return 1
	grep -q '^doc/perf-notes/README.md:[0-9]*: a date: 2026-12-05' \
		<<<"$out" || rig_fail "date in a note not reported" || return 1
	grep -q '^doc/perf-notes/README.md:[0-9]*: a commit id: 916bfcd' \
		<<<"$out" || rig_fail "commit id in a note not reported" ||
		return 1
	! grep -qE '1048576|defaced' <<<"$out" ||
		rig_fail "a number or a word taken for a commit id" || return 1
}

rig_run "layers: the tree's includes and links follow doc/design.md, sizes within limits" tree
rig_run "layers: tcp/'s connection flags written in 2 files at most" tcp_flags
rig_run "layers: planted upward and sideways includes, upward weak link, file order broken by include, call and stray file, long function and file are each caught, build output ignored" planted
rig_run "perfdoc: doc/performance.md within 500 lines, no date or commit id there or in doc/perf-notes/" perfdoc
rig_run "perfdoc: a planted 501st line, date and commit id are each caught" perfdoc_planted
rig_summary
