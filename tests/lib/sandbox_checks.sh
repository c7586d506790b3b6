# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/sandbox_checks.sh - the checks of access_control.sh's section
# "sandbox": does the relay fail closed, and what does it get?
#
# Sourced by tests/integration/access_control.sh after rig.sh and passt.sh
# (it uses RIG_TMP, RIG_HOSTNS, PASST and the rig_* helpers); the checks
# are listed in that script's theory comment. Kept apart so that each file
# stays readable (code_layers.sh: at most 1,200 lines).

SB_NOBODY=65534
SB_LIMIT=20		# seconds a relay may take to start or to fail
SB_SEQ=0

# sb_copy() - a copy of passt of this test's own, to find its processes by
# /proc/PID/exe and so that nobody can run it
# $1: directory to put it in (created, mode 0755)
# Prints the copy's path.
sb_copy() {
	mkdir -p "$1" && chmod 755 "$1" && chmod o+x "$RIG_TMP" &&
		cp "$(readlink -f "$PASST")" "$1/passt" &&
		chmod 755 "$1/passt" && echo "$1/passt"
}

# sb_procs() - PIDs of processes running a binary
# $1: binary, as /proc/PID/exe shows it
# $2: "relay" or "reader" (the resolver file's reader, a relay's child
#     named resolv-reader) for those only; default: both
sb_procs() {
	local e p reader

	for e in /proc/[0-9]*/exe; do
		[ "$(readlink "$e" 2>/dev/null)" = "$1" ] || continue
		p=${e#/proc/}
		p=${p%/exe}
		reader=relay
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = resolv-reader ] &&
			reader=reader
		[ -z "$2" ] || [ "$2" = "$reader" ] && echo "$p"
	done
}

# sb_kill_all() - kill every process running a binary (cleanup)
# $1: binary
sb_kill_all() {
	local p

	for p in $(sb_procs "$1"); do
		rig_kill "$p"
	done
}

# sb_none_left() - test step: no process runs a binary; kill any that does
# $1: binary
sb_none_left() {
	local left

	left=$(sb_procs "$1" | tr '\n' ' ')
	[ -z "$left" ] && return 0
	sb_kill_all "$1"
	rig_fail "processes left running $1: $left"
}

# sb_dir() - a new directory for one case, owned by a user
# $1: owner (UID)
# Prints its path. The caller counts cases: SB_SEQ=$((SB_SEQ + 1)) first.
sb_dir() {
	local d=$RIG_TMP/sb.$SB_SEQ

	mkdir -m 755 "$d" && chown "$1:$1" "$d" && echo "$d"
}

# sb_userns() - run a command as root of a new user namespace, in the
# host namespace, where only root and nobody (65534) are mapped, each onto
# itself
# $@: command
#
# The shell unshare starts says it runs (it does, in the new namespace:
# unshare executes it), then waits until we wrote its maps.
# Return: the command's status
sb_userns() {
	local ready=$RIG_TMP/sb.ready go=$RIG_TMP/sb.go pid rc m

	rm -f "$ready" "$go"
	mkfifo "$ready" "$go" || return 1
	# shellcheck disable=SC2016 # expanded by the inner shell
	ip netns exec "$RIG_HOSTNS" unshare --user -- \
		sh -c 'echo up >"$0" && read -r _ <"$1" && shift &&
		       exec "$@"' "$ready" "$go" "$@" &
	pid=$!
	rc=0
	read -r _ <"$ready" || rc=1
	# One write() each, as the kernel wants
	for m in uid_map gid_map; do
		[ "$rc" -eq 0 ] || break
		printf '0 0 1\n%s %s 1\n' "$SB_NOBODY" "$SB_NOBODY" |
			dd of="/proc/$pid/$m" bs=64 iflag=fullblock status=none ||
			rc=1
	done
	if [ "$rc" -ne 0 ]; then
		rig_kill "$pid"
		rm -f "$ready" "$go"
		return 1
	fi
	echo go >"$go"
	rig_wait_pid "$pid" "$SB_LIMIT"
	rc=$?
	rm -f "$ready" "$go"
	return "$rc"
}

# sb_no_userns() - test: nobody's passt without user namespaces exits
# $1: "" or --chroot-fallback
sb_no_userns() {
	local d exe sock out rc want

	SB_SEQ=$((SB_SEQ + 1))
	d=$(sb_dir "$SB_NOBODY") && exe=$(sb_copy "$RIG_TMP/sb.bin.$SB_SEQ") ||
		rig_fail "can't set up the case" || return 1
	sock=$d/passt.sock
	out=$RIG_TMP/sb.$SB_SEQ.out
	# shellcheck disable=SC2016 # expanded by the inner shell
	sb_userns sh -c 'echo 0 >/proc/sys/user/max_user_namespaces &&
		exec setpriv --reuid=$0 --regid=$0 --clear-groups "$@"' \
		"$SB_NOBODY" "$exe" -s "$sock" -P "$d/passt.pid" ${1:+"$1"} \
		>"$out" 2>&1
	rc=$?
	rig_indent <"$out" | grep -v '^#  *    ' | head -n 20
	sb_none_left "$exe" || return 1
	[ "$rc" -ne 0 ] ||
		rig_fail "passt ran (exit status 0) without a user namespace" ||
		return 1
	[ "$rc" -ne 124 ] || rig_fail "passt didn't exit in $SB_LIMIT s" ||
		return 1
	grep -q "Can't create a user namespace for the sandbox" "$out" &&
		grep -q 'user.max_user_namespaces' "$out" ||
		rig_fail "no message naming the user namespace and the sysctl" ||
		return 1
	if [ -n "$1" ]; then
		want="--chroot-fallback can't help"
		grep -q -- "$want" "$out" ||
			rig_fail "the message doesn't say '$want'" || return 1
	fi
	[ ! -e "$sock" ] ||
		rig_fail "a socket is left at $sock: $(ls -l "$sock")" ||
		return 1
	[ ! -s "$d/passt.pid" ] ||
		rig_fail "the PID file names $(cat "$d/passt.pid")" || return 1
}

# sb_chroot_root() - build a root for chroot: passt, its libraries, and
# the directories passt needs (/proc for its tmpfs, /tmp for its files)
# $1: directory
sb_chroot_root() {
	local r=$1 lib

	mkdir -p "$r/bin" "$r/proc" "$r/tmp" "$r/dev" || return 1
	cp "$(readlink -f "$PASST")" "$r/bin/passt" || return 1
	for lib in $(ldd "$PASST" | grep -o '/[^ ]*'); do
		mkdir -p "$r$(dirname "$lib")" &&
			cp -L "$lib" "$r$lib" || return 1
	done
}

# sb_in_chroot() - run passt as root in a chroot where pivot_root() fails
# $1: root, from sb_chroot_root()
# $@: passt's options
#
# In a mount namespace of the test's own, every mount is made shared, and
# the root is a bind mount of the directory on itself: pivot_root() refuses
# a root whose parent mount is shared (EINVAL), and the root being a mount
# point lets passt make its mounts private first. The propagation stays in
# that namespace.
sb_in_chroot() {
	local r=$1
	shift

	# shellcheck disable=SC2016 # expanded by the inner shell
	rig_h timeout -k 5 "$SB_LIMIT" unshare --mount --propagation private -- \
		sh -c 'r=$0; mount --make-rshared / &&
		       mount --bind "$r" "$r" && exec chroot "$r" "$@"' \
		"$r" /bin/passt --runas 0 "$@"
}

# sb_pivot_refused() - test: pivot_root() fails: exit, or chroot() with
# --chroot-fallback
# $1: "" or --chroot-fallback
sb_pivot_refused() {
	local r out rc pid

	SB_SEQ=$((SB_SEQ + 1))
	r=$RIG_TMP/sb.root.$SB_SEQ
	out=$RIG_TMP/sb.$SB_SEQ.out
	sb_chroot_root "$r" || rig_fail "can't build the chroot" || return 1
	sb_in_chroot "$r" -s /tmp/passt.sock -P /tmp/passt.pid ${1:+"$1"} \
		>"$out" 2>&1
	rc=$?
	rig_indent <"$out" | grep -v '^#  *    ' | head -n 20
	pid=$(cat "$r/tmp/passt.pid" 2>/dev/null)
	rig_defer "sb_kill_all '$r/bin/passt'"

	if [ -z "$1" ]; then
		sb_none_left "$r/bin/passt" || return 1
		[ "$rc" -ne 0 ] ||
			rig_fail "passt ran although pivot_root() fails" ||
			return 1
		grep -q "pivot_root().*--chroot-fallback" "$out" ||
			rig_fail "the message doesn't name pivot_root() and" \
				 "--chroot-fallback" || return 1
		[ ! -e "$r/tmp/passt.sock" ] ||
			rig_fail "a socket is left at /tmp/passt.sock" ||
			return 1
		return 0
	fi

	[ "$rc" -eq 0 ] && [ -n "$pid" ] ||
		rig_fail "passt --chroot-fallback exited with status $rc" ||
		return 1
	grep -q -- "--chroot-fallback: using chroot() instead, which leaves" \
		"$out" || rig_fail "no warning saying what was given up" ||
		return 1
	sb_check_sandbox "$pid" || return 1
	[ -S "$r/tmp/passt.sock" ] ||
		rig_fail "no socket at /tmp/passt.sock of the chroot" ||
		return 1
	kill -TERM "$pid"
	rig_poll 5 rig_exited "$pid" || rig_fail "SIGTERM didn't end passt"
}

# sb_check_sandbox() - test step: first of a PID namespace of its own,
# empty root, filter loaded
# $1: PID, as we see it
sb_check_sandbox() {
	local pid=$1 nspid entries

	nspid=$(awk '$1 == "NSpid:" { $1 = ""; print }' "/proc/$pid/status")
	# shellcheck disable=SC2086 # split the fields
	set -- $nspid
	[ "$#" -eq 2 ] && [ "$1" = "$pid" ] && [ "$2" = 1 ] ||
		rig_fail "NSpid of $pid is '$nspid', expected '$pid 1'" ||
		return 1
	[ "$(readlink "/proc/$pid/ns/pid")" != \
	  "$(readlink /proc/self/ns/pid)" ] ||
		rig_fail "$pid is in our PID namespace" || return 1
	entries=$(ls -A "/proc/$pid/root/" 2>&1) ||
		rig_fail "can't list the root of $pid: $entries" || return 1
	[ -z "$entries" ] ||
		rig_fail "root of $pid is not empty:" \
			 "$(tr '\n' ' ' <<<"$entries")" || return 1
	grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" ||
		rig_fail "$pid has no seccomp filter" || return 1
	rig_log "NSpid: $nspid; root empty;" \
		"$(readlink "/proc/$pid/ns/pid")"
}

# sb_background() - test: passt in the background, PID namespace, PID file
# $1: user to start it as (0: root, with its default --runas nobody)
sb_background() {
	local d exe out rc pid p run=()

	SB_SEQ=$((SB_SEQ + 1))
	d=$(sb_dir "$1") && exe=$(sb_copy "$RIG_TMP/sb.bin.$SB_SEQ") ||
		rig_fail "can't set up the case" || return 1
	out=$RIG_TMP/sb.$SB_SEQ.out
	[ "$1" = 0 ] ||
		run=(setpriv --reuid="$1" --regid="$1" --clear-groups)
	rig_h timeout -k 5 "$SB_LIMIT" "${run[@]}" "$exe" -s "$d/passt.sock" \
		-P "$d/passt.pid" -l "$d/passt.log" >"$out" 2>&1
	rc=$?
	pid=$(cat "$d/passt.pid" 2>/dev/null)
	[ -n "$pid" ] && rig_defer "rig_kill '$pid'"
	rig_defer "sb_kill_all '$exe'"
	[ "$rc" -eq 0 ] && [ -n "$pid" ] ||
		rig_fail "passt exited with status $rc, PID file '$pid'" ||
		return 1
	[ "$(sb_procs "$exe" relay)" = "$pid" ] ||
		rig_fail "the PID file names $pid, passt runs as" \
			 "$(sb_procs "$exe" relay | tr '\n' ' ')" || return 1
	for p in $(sb_procs "$exe" reader); do
		[ "$(awk '$1 == "PPid:" { print $2 }' "/proc/$p/status")" = \
		  "$pid" ] || rig_fail "resolver file's reader $p: not $pid's" ||
			return 1
	done
	head -n 1 "$d/passt.log" | grep -q " ($pid)\$" ||
		rig_fail "the log's header doesn't name $pid:" \
			 "$(head -n 1 "$d/passt.log")" || return 1
	sb_check_sandbox "$pid" || return 1
	kill -TERM "$pid"
	rig_poll 5 rig_exited "$pid" || rig_fail "SIGTERM didn't end passt" ||
		return 1
	grep -q 'Got signal 15' "$d/passt.log" ||
		rig_fail "passt didn't log SIGTERM" || return 1
}

# sb_symlink() - test: a link planted at a path passt writes is refused
# $1: option (-P, -l or -p)
sb_symlink() {
	local d exe victim out rc sum want='is a symbolic link'

	SB_SEQ=$((SB_SEQ + 1))
	d=$(sb_dir "$SB_NOBODY") && exe=$(sb_copy "$RIG_TMP/sb.bin.$SB_SEQ") ||
		rig_fail "can't set up the case" || return 1
	victim=$RIG_TMP/sb.victim.$SB_SEQ
	out=$RIG_TMP/sb.$SB_SEQ.out
	head -c 4096 /dev/urandom >"$victim" && chmod 600 "$victim" ||
		return 1
	sum=$(sha256sum <"$victim")
	# Planted by nobody, in nobody's directory
	setpriv --reuid="$SB_NOBODY" --regid="$SB_NOBODY" --clear-groups \
		ln -s "$victim" "$d/planted" ||
		rig_fail "nobody can't plant the link" || return 1

	rig_h timeout -k 5 "$SB_LIMIT" "$exe" -s "$RIG_TMP/sb.$SB_SEQ.sock" \
		"$1" "$d/planted" >"$out" 2>&1
	rc=$?
	rig_defer "sb_kill_all '$exe'"
	rig_indent <"$out" | grep -v '^#  *    ' | tail -n 3
	[ "$(sha256sum <"$victim")" = "$sum" ] ||
		rig_fail "$1 wrote through the link: the file it points to" \
			 "changed ($(head -c 40 "$victim" | tr -c '[:print:]' .))" ||
		return 1
	sb_none_left "$exe" || return 1
	[ "$rc" -ne 0 ] || rig_fail "passt ran with $1 on a link" || return 1
	grep -q -- "$d/planted.*$want" "$out" ||
		rig_fail "no message naming $d/planted and saying '$want'" ||
		return 1
	[ ! -e "$RIG_TMP/sb.$SB_SEQ.sock" ] ||
		rig_fail "a socket is left behind" || return 1
}
