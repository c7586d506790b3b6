#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/tools/layers.sh - check the code's shape: includes and links point
# down the layer order of doc/design.md, no function over 80 lines, no file
# over 1,200 lines
#
# Usage: tests/tools/layers.sh [--list] [--objects DIR] [ROOT]
#   ROOT: the tree to check (default: this repository)
#   --list: print the files the size check reads (C sources and headers,
#     shell scripts), doc/design.md and the docs declaring a file order,
#     instead of checking
#   --objects DIR: the build whose objects the link check reads, relative
#     to ROOT or absolute (default: build, as make builds it)
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
# Includes don't show every link: a folder can declare a symbol itself
# (an extern, a weak reference) and be linked with the folder above that
# defines it. So the objects of the build are read too (nm): a symbol
# undefined in the objects of one folder and defined by another folder's
# is an edge between them, held to the same order. Without objects (the
# tree was not built), that check is skipped and says so.
#
# Inside a folder, files may be ordered the same way: a folder's doc,
# doc/FOLDER.md, may hold a section "## File order", a numbered list,
# lowest first, each item naming files of the folder in backquotes before
# a colon ("2. `udp_gso.c`: ..."). A file of such a folder may include a
# header of its folder, and use a symbol defined by an object of its
# folder, only if that file is in the same item or an earlier one; every
# C source and header of the folder must be in the list. Files of one item
# may use each other (at most a circle of the item's files); a circle
# across items is impossible. Folders without the section are not checked.
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
OBJ_DIR=build
while [ $# -gt 0 ]; do
	case $1 in
	--list)	LIST=1 ;;
	--objects) OBJ_DIR=${2:?--objects needs a folder}; shift ;;
	*)	break ;;
	esac
	shift
done
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$ROOT" || exit 1
OBJ_DIR=$(realpath -m --relative-to=. "$OBJ_DIR")

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

# file_includes() - the local headers a file includes, resolved in the tree
# $1: source file, relative to the tree's root
# Output: one "LINE PATH NAME" per #include "NAME", PATH relative to the root
file_includes() {
	local line inc

	while IFS=: read -r line inc; do
		inc=${inc#*\"}
		inc=${inc%%\"*}
		echo "$line $(realpath -m --relative-to=. \
			      "$(dirname "$1")/$inc") $inc"
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1")
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
		while read -r line target inc; do
			tdir=$(dirname "$target")
			[ "$tdir" = "$dir" ] && continue
			if [ -z "${rank[$tdir]}" ]; then
				echo "$f:$line: includes $inc, in $tdir/, which is not in the layer list"
				bad=1
			elif [ "${rank[$tdir]}" -ge "${rank[$dir]}" ]; then
				echo "$f:$line: $dir/ (layer ${rank[$dir]}) includes $inc of $tdir/ (layer ${rank[$tdir]}): includes must point to a lower layer"
				bad=1
			fi
		done < <(file_includes "$f")
	done < <(list_files '*.c' '*.h')

	return $bad
}

# check_symbols() - the layer order at link level: a symbol that a
# folder's objects use (undefined in them, weak or not) and that a higher
# folder's objects define, or another folder's of the same layer, is a
# violation, as an include would be. Reads the objects under OBJ_DIR whose
# source is in the tree (a stale object of a moved file is passed over).
#
# Return: 0 if none, 1 if violations (printed), 2 if no object was found
check_symbols() {
	local table o rel objs=()

	table=$(layer_table)
	[ -n "$table" ] || return 1

	while read -r o; do
		rel=${o#"$OBJ_DIR"/}
		[ -f "${rel%.o}.c" ] && objs+=("$rel")
	done < <(find "$OBJ_DIR" \( -path "$OBJ_DIR/tests" \
		-o -path "$OBJ_DIR/tools" -o -path "$OBJ_DIR/probes" \) -prune \
		-o -type f -name '*.o' -print 2>/dev/null | LC_ALL=C sort)
	if [ ${#objs[@]} -eq 0 ]; then
		echo "$OBJ_DIR: no objects of the relay: build it first"
		return 2
	fi

	# "object name type" for each global symbol (nm -P: name type ...)
	for o in "${objs[@]}"; do
		nm -P "$OBJ_DIR/$o" | sed "s|^|$o |"
	done | awk -v table="$table" '
		BEGIN {
			n = split(table, line, "\n")
			for (i = 1; i <= n; i++) {
				split(line[i], f, " ")
				rank[f[1]] = f[2]
			}
		}
		function folder(obj,	d) {
			d = obj
			return sub(/\/[^\/]*$/, "", d) ? d : "."
		}
		$3 ~ /^[Uwv]$/ { use[++nuse] = $1 " " $2 " " $3; next }
		$3 ~ /^[ABCDGRSTVWiu]$/ { def[$2] = $1 }
		END {
			bad = 0
			for (i = 1; i <= nuse; i++) {
				split(use[i], u, " ")
				if (!(u[2] in def))
					continue	# libc, or the linker
				from = folder(u[1])
				to = folder(def[u[2]])
				if (from == to || !(from in rank) ||
				    !(to in rank) || rank[to] + 0 < rank[from] + 0)
					continue	# unknown: check_includes()
				printf "%s: %s/ (layer %s) uses %s%s, defined by %s of %s/ (layer %s): links must point to a lower layer\n",
				       u[1], from, rank[from], u[2],
				       u[3] == "U" ? "" : " (weak)", def[u[2]],
				       to, rank[to]
				bad = 1
			}
			exit bad
		}'
}

# order_docs() - the docs that declare a folder's file order, one a line
order_docs() {
	local d

	for d in doc/*.md; do
		[ -f "$d" ] && grep -qx '## File order' "$d" && echo "$d"
	done
}

# order_table() - "file rank" lines from a doc's "File order" list; an
# item's names may wrap over lines, up to the colon that ends them
# $1: doc/FOLDER.md
order_table() {
	awk '
		function names(	rest) {
			rest = head
			sub(/:.*/, "", rest)
			while (match(rest, /`[^`]*`/)) {
				print substr(rest, RSTART + 1, RLENGTH - 2),
				      rank
				rest = substr(rest, RSTART + RLENGTH)
			}
			open = 0
		}
		/^## / { inside = ($0 == "## File order") ; open = 0; next }
		inside && /^[0-9]+\. `/ {
			rank = $1 + 0
			head = $0
			open = 1
			if (head ~ /:/)
				names()
			next
		}
		open {
			head = head " " $0
			if ($0 ~ /:/ || $0 == "")
				names()
		}
	' "$1"
}

# order_symbols() - "user definer" object pairs of one folder: the first
# object uses a global symbol the second defines
# $1: folder
order_symbols() {
	local dir=$1 o objs=()

	for o in "$OBJ_DIR/$dir"/*.o; do
		[ -f "$o" ] && [ -f "$dir/$(basename "${o%.o}").c" ] &&
			objs+=("$o")
	done
	[ ${#objs[@]} -gt 0 ] || return 0
	for o in "${objs[@]}"; do
		nm -P "$o" | sed "s|^|$(basename "$o") |"
	done | awk '
		$3 ~ /^[Uwv]$/ { use[++n] = $1 " " $2; next }
		$3 ~ /^[ABCDGRSTVWiu]$/ { def[$2] = $1 }
		END {
			for (i = 1; i <= n; i++) {
				split(use[i], u, " ")
				if ((u[2] in def) && def[u[2]] != u[1])
					print u[1], def[u[2]], u[2]
			}
		}' | LC_ALL=C sort -u
}

# check_order_one() - one folder against the file order of its doc
# $1: doc/FOLDER.md
# Return: 0 if no violation, 1 if violations (printed)
check_order_one() {
	local doc=$1 dir f n r bad=0 line inc target user def sym
	declare -A rank

	dir=$(basename "$doc" .md)
	if [ ! -d "$dir" ]; then
		echo "$doc: declares a file order for $dir/, which doesn't exist"
		return 1
	fi
	while read -r f n; do
		rank[$f]=$n
	done < <(order_table "$doc")

	while read -r f; do
		[ "$(dirname "$f")" = "$dir" ] || continue
		r=${rank[$(basename "$f")]}
		if [ -z "$r" ]; then
			echo "$f: not in the file order of $doc"
			bad=1
			continue
		fi
		while read -r line target inc; do
			[ "$(dirname "$target")" = "$dir" ] || continue
			n=${rank[$(basename "$target")]}
			if [ -n "$n" ] && [ "$n" -gt "$r" ]; then
				echo "$f:$line: (item $r of $doc) includes $inc (item $n): includes must point to an earlier file"
				bad=1
			fi
		done < <(file_includes "$f")
	done < <(list_files '*.c' '*.h')

	while read -r user def sym; do
		r=${rank[${user%.o}.c]}
		n=${rank[${def%.o}.c]}
		if [ -z "$r" ] || [ -z "$n" ] || [ "$n" -le "$r" ]; then
			continue
		fi
		echo "$dir/$user: (item $r of $doc) uses $sym, defined by $dir/$def (item $n): links must point to an earlier file"
		bad=1
	done < <(order_symbols "$dir")

	return $bad
}

# check_order() - every folder that declares a file order
# Return: 0 if no violation, 1 if violations (printed)
check_order() {
	local doc bad=0

	while read -r doc; do
		check_order_one "$doc" || bad=1
	done < <(order_docs)
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
	order_docs
	exit 0
fi

rc=0
if check_includes; then
	echo "PASS: layers: every include points to a lower layer of doc/design.md"
else
	echo "FAIL: layers: includes against the layer order (above)"
	rc=1
fi
check_symbols
case $? in
0)	echo "PASS: layers: every symbol an object uses comes from its folder, a lower layer or libc" ;;
2)	echo "SKIP: layers: symbols not checked (no objects in $OBJ_DIR/)" ;;
*)	echo "FAIL: layers: symbols against the layer order (above)"
	rc=1 ;;
esac
docs=$(order_docs | tr '\n' ' ')
if [ -z "$docs" ]; then
	echo "PASS: layers: no folder declares a file order"
elif check_order; then
	echo "PASS: layers: files follow the order their folder declares (${docs% })"
else
	echo "FAIL: layers: files against their folder's order (above)"
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
