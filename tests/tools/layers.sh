#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/layers.sh - check the code's shape: includes point down the
# layer order of doc/design.md, no function over 80 lines, no file over
# 1,200 lines
#
# Usage: tests/tools/layers.sh [--list] [ROOT]
#   ROOT: the tree to check (default: this repository)
#   --list: print the files the size check reads (C sources and headers,
#     shell scripts), and doc/design.md, instead of checking
#
# Theory of operation
#
# The layer order is read from doc/design.md, section "Layers": a numbered
# list, lowest first, each item naming its folders in backquotes before a
# colon ("3. `flow/`, `tap/`: ..."). A folder may include headers of its
# own folder and of folders in lower layers only: an include of a header
# in the same layer (another folder) or a higher one is a violation, and
# so is a folder the list doesn't name. The top level (passt.c) is the
# top layer, written as `./`. Tests (tests/) may include anything and are
# not checked for includes.
#
# Every #include "..." of every .c and .h file outside tests/ is resolved
# against the including file's folder, so "../net/net.h" from tcp/ is an
# edge tcp/ -> net/.
#
# Sizes apply to every C source and header and shell script of the tree
# (build output excluded), tests included: a function (from the line of its signature to its closing
# brace in column 0; a Check START_TEST counts as a function) over
# FUNC_MAX lines, or a file over FILE_MAX lines, is a violation.
#
# Prints one line per violation, then "PASS: ..." or "FAIL: ..." per check;
# the exit status is 1 if any check failed.

FUNC_MAX=80
FILE_MAX=1200

LIST=
if [ "$1" = --list ]; then
	LIST=1
	shift
fi
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1

# Files of the tree by name patterns, paths relative to ROOT, sorted. Not
# git: a clone or an exported tree without git must give the same list.
# Never under build output (build/, build-*/, with build-deb/'s copy of
# the tree), .git/ or tests/out/, as in the Makefile's shellcheck rule.
list_files() {
	local pats=() p

	for p in "$@"; do
		pats+=(-o -name "$p")
	done
	find . \( -path ./.git -o -path ./build -o -path './build-*' \
		-o -path ./tests/out \) -prune -o \
		-type f \( -false "${pats[@]}" \) -printf '%P\n' | LC_ALL=C sort
}

# layer_table: "folder rank" lines from doc/design.md's "Layers" list
layer_table() {
	awk '
		/^## / { inside = ($0 == "## Layers") ; next }
		inside && /^[0-9]+\. `/ {
			rank = $1 + 0
			head = $0
			sub(/:.*/, "", head)
			while (match(head, /`[^`]*\/`/)) {
				name = substr(head, RSTART + 1, RLENGTH - 3)
				print (name == "." ? "." : name), rank
				head = substr(head, RSTART + RLENGTH)
			}
		}
	' doc/design.md
}

check_includes() {
	local table bad=0 f dir line inc target tdir
	declare -A rank

	table=$(layer_table)
	if [ -z "$table" ]; then
		echo "doc/design.md: no numbered list in section \"Layers\""
		return 1
	fi
	while read -r dir line; do
		rank[$dir]=$line
	done <<<"$table"

	while read -r f; do
		case $f in tests/*) continue ;; esac
		dir=$(dirname "$f")
		if [ -z "${rank[$dir]}" ]; then
			echo "$f: folder $dir/ is not in doc/design.md's layer list"
			bad=1
			continue
		fi
		while IFS=: read -r line inc; do
			inc=${inc#*\"}
			inc=${inc%%\"*}
			target=$(realpath -m --relative-to=. "$dir/$inc")
			tdir=$(dirname "$target")
			[ "$tdir" = "$dir" ] && continue
			if [ -z "${rank[$tdir]}" ]; then
				echo "$f:$line: includes $inc, in $tdir/, which is not in the layer list"
				bad=1
			elif [ "${rank[$tdir]}" -ge "${rank[$dir]}" ]; then
				echo "$f:$line: $dir/ (layer ${rank[$dir]}) includes $inc of $tdir/ (layer ${rank[$tdir]}): includes must point to a lower layer"
				bad=1
			fi
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done < <(list_files '*.c' '*.h')

	return $bad
}

check_functions() {
	local out

	# shellcheck disable=SC2016 # awk program, not shell expansions
	out=$(list_files '*.c' '*.h' | xargs -r awk -v max="$FUNC_MAX" '
		FNR == 1 { cand = ""; start = 0 }
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^#/ {
			cand = $0; candline = FNR
		}
		/^\{/ && cand != "" { start = candline; name = cand }
		/^\}/ && start {
			if (FNR - start + 1 > max)
				printf "%s:%d: %d lines, over %d: %s\n",
				       FILENAME, start, FNR - start + 1, max,
				       name
			start = 0; cand = ""
		}
	')
	[ -z "$out" ] && return 0
	echo "$out"
	return 1
}

check_files() {
	local f n bad=0

	while read -r f; do
		n=$(wc -l <"$f")
		if [ "$n" -gt "$FILE_MAX" ]; then
			echo "$f: $n lines, over $FILE_MAX"
			bad=1
		fi
	done < <(list_files '*.c' '*.h' '*.sh')

	return $bad
}

if [ -n "$LIST" ]; then
	list_files '*.c' '*.h' '*.sh'
	echo doc/design.md
	exit 0
fi

rc=0
if check_includes; then
	echo "PASS: layers: every include points to a lower layer of doc/design.md"
else
	echo "FAIL: layers: includes against the layer order (above)"
	rc=1
fi
if check_functions; then
	echo "PASS: layers: no function over $FUNC_MAX lines"
else
	echo "FAIL: layers: functions over $FUNC_MAX lines (above)"
	rc=1
fi
if check_files; then
	echo "PASS: layers: no file over $FILE_MAX lines"
else
	echo "FAIL: layers: files over $FILE_MAX lines (above)"
	rc=1
fi
exit $rc
