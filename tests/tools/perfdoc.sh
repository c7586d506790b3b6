#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/perfdoc.sh - check that doc/performance.md stays a method:
# short, with no date and no commit id, and that the notes of
# doc/perf-notes/ carry neither
#
# Usage: tests/tools/perfdoc.sh [ROOT]
#   ROOT: the tree to check (default: this repository)
#
# Theory of operation
#
# doc/performance.md says how to run the benchmark, what its numbers mean,
# the current table and the design behind the speed; dated runs belong in
# commit messages and findings in doc/perf-notes/. Three rules keep it so:
#
#   - doc/performance.md has at most MAX_LINES lines;
#   - no line of it, or of doc/perf-notes/*.md, holds a date written
#     YYYY-MM-DD;
#   - nor a commit id: a word of 7 to 40 lowercase hexadecimal digits
#     with at least one digit and one letter among them. A word of digits
#     only is a number (1048576), one of letters only is English
#     ("defaced"); an abbreviated commit id is either with a chance of
#     about 4 % and 0.1 %: those get through.
#
# Prints one line per violation ("FILE:LINE: what: the match"), then
# "PASS: ..." or "FAIL: ..."; the exit status is 1 on any violation.

MAX_LINES=500
DOC=doc/performance.md
NOTES=doc/perf-notes

ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1

# dates() - print every YYYY-MM-DD in the files given, as FILE:LINE: ...
dates() {
	grep -HnoE '(^|[^0-9])[0-9]{4}-[0-9]{2}-[0-9]{2}([^0-9]|$)' "$@" |
		sed -E 's/^([^:]*:[0-9]*):[^0-9]*([0-9-]{10}).*/\1: a date: \2/'
}

# commit_ids() - print every word that looks like a commit id in the files
# given, as FILE:LINE: ...
commit_ids() {
	grep -HnowE '[0-9a-f]{7,40}' "$@" |
		grep -E ':[0-9a-f]*[0-9][0-9a-f]*$' |
		grep -E ':[0-9a-f]*[a-f][0-9a-f]*$' |
		sed -E 's/^([^:]*:[0-9]*):(.*)/\1: a commit id: \2/'
}

# check() - run every rule, print the violations
# Return: 0 if there was none, 1 otherwise
check() {
	local files=("$DOC") n out

	[ -f "$DOC" ] || { echo "$DOC: missing"; return 1; }
	if [ -d "$NOTES" ]; then
		shopt -s nullglob
		files+=("$NOTES"/*.md)
		shopt -u nullglob
	fi

	n=$(wc -l <"$DOC")
	out=$({
		[ "$n" -le "$MAX_LINES" ] ||
			echo "$DOC: $n lines, over $MAX_LINES"
		dates "${files[@]}"
		commit_ids "${files[@]}"
	})
	[ -z "$out" ] && return 0
	echo "$out"
	return 1
}

if check; then
	echo "PASS: $DOC within $MAX_LINES lines, no date or commit id there or in $NOTES/"
else
	echo "FAIL: $DOC or $NOTES/ (above)"
	exit 1
fi
