#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/access_control.sh - who may use what the relay and its
# helper offer (doc/security.md)
#
# Rig (tests/lib/rig.sh): a host namespace of our own, where passt runs
# and where the probes' TCP sockets live; "another user" is nobody (65534),
# or a user this script creates (useradd, removed at the end) where passt
# itself runs unprivileged. Each section checks one boundary; every check
# fails on the build before the boundary was tightened.
#
# passt-repair (helper/passt_repair.c, migrate/repair.c), with
# tests/tools/repair_peer as the listener: it plays passt, sends the
# descriptors chosen by the test, and reports whether they went into
# repair mode.
#   - root's helper refuses a listener running as another uid (its socket
#     file chowned to root, so that only SO_PEERCRED can tell), and a
#     socket file of another uid;
#   - a copy with a file capability that any user may run refuses to run
#     for another user, who before took over a port a root listener held
#     (a socket bound to it and ESTABLISHED without a handshake);
#   - in directory mode, sockets there before the helper started (one of
#     another user, one of root) are ignored, and passt's, created after,
#     is served;
#   - a symbolic link is refused, in a directory and as PATH;
#   - a request carrying a UDP socket or a listening socket beside a TCP
#     socket is refused whole: the TCP socket stays out of repair mode;
#   - the legitimate passt is served: root's passt by root's helper, an
#     unprivileged passt by a helper run as its user with CAP_NET_ADMIN as
#     an ambient capability, which exits with status 0 when passt does;
#   - passt refuses, logs and counts a process of another uid on its
#     repair socket;
#   - passt's repair socket is 0600 under umask 000 from bind() on: umask
#     set around bind(), no chmod() on the path (strace).
#
# sockets:
#   - under umask 000 and 022, every socket a relay run as another user
#     creates (passt -s, passt --vhost-user -s and its .repair socket,
#     passt -c, pasta -c) is mode 0600 and owned by that user: before,
#     the guest and vhost-user sockets were 0777 & ~umask;
#   - another user (65534) can't connect to any of them, and one that can
#     (CAP_DAC_OVERRIDE, as an ambient capability) is refused by the
#     relay itself (SO_PEERCRED) and counted: conn_refused on the tap:
#     line, refused_uid on the conf: line of the counters (SIGUSR1);
#   - the relay's own user is served on each of them;
#   - pasta refuses a -c client from the namespace it serves
#     (refused_netns), as root (pasta as root) and as pasta's own user
#     (rootless: nsenter into the spawned command's namespaces);
#   - a vhost-user front-end trickling a message a byte every 200 ms
#     (never a second between two bytes) does not hold the loop: a -c
#     request is answered before the message could be complete, and the
#     relay drops the front-end (its message deadline, from the first
#     byte). Before, each byte restarted a 1 s timeout: the loop waited
#     for the whole message (15 s), the -c request with it;
#   - a front-end whose call eventfd is blocking and at its maximum count
#     does not hold the loop (a -c request is answered) and costs a
#     counted lost signal. Before, the relay blocked in write() for good;
#   - a guest trickling a frame on passt's stream socket does not hold the
#     loop either (a -c request is answered before the frame is complete),
#     and the frame arrives whole (rx_frames): that socket is read without
#     waiting, as it was before (a guard, not a fix).
#
# sandbox (isolation/sandbox.c, util/outfile.c; doc/security.md, "Sandbox"):
#   - passt run as nobody where it can't create a user namespace (a user
#     namespace of the test's own, whose user.max_user_namespaces is 0:
#     the limit ends with it) exits non-zero before it serves, naming the
#     namespace and the sysctl: no socket at the -s path, no process left,
#     no PID in the PID file. Before, it warned and ran with the whole
#     file system in view;
#   - the same with --chroot-fallback: still refused, saying that the
#     option can't help (it replaces pivot_root() only, as upstream's);
#   - passt as root in a chroot whose parent mount is shared, where
#     pivot_root() fails with EINVAL: exits naming --chroot-fallback, and
#     leaves no socket; with --chroot-fallback it runs, says what it gave
#     up, and its root is empty (before: it exited either way);
#   - passt in the background, started by root and by nobody: first
#     process of a PID namespace of its own (NSpid: host PID, then 1), the
#     PID file names the host PID, its root is empty, SIGTERM ends it;
#   - a symbolic link another user planted at the -P, -l or -p path (in a
#     directory of theirs, where fs.protected_symlinks doesn't apply) is
#     refused with a message naming it, and the file it points to is
#     untouched (before: emptied, then written through).
#
# Environment:
#   PASST_REPAIR	passt-repair (default: next to $PASST), e.g. an older
#			build, to see which checks it fails

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

rig_init
passt_init
rig_need strace setcap useradd setpriv nsenter stat unshare ldd mkfifo ||
	exit 1
rig_host_ns || exit 1

rig_pesto

# --- passt-repair ---

RP_NOBODY=65534
RP_WAIT_MS=4000		# a probe waits this long for the helper, its answer
RP_HELD_PORT=10931	# a root listener's port, for the takeover attempt

RP_HELPER=${PASST_REPAIR:-$(dirname "$PASST")/passt-repair}
RP_PEER=$TOOLS_DIR/repair_peer
for f in "$RP_HELPER" "$RP_PEER"; do
	if [ ! -x "$f" ]; then
		echo "FAIL: prerequisites: $f not found (run make)"
		exit 1
	fi
done
rig_log "passt-repair: $RP_HELPER"
RP_PEER_U=$(rig_user_copy "$RP_PEER" "$RP_NOBODY") &&
RP_HELPER_U=$(rig_user_copy "$RP_HELPER" "$RP_NOBODY") || exit 1

# rp_dir() - a new directory anybody may create files in, as /tmp
# Prints its path.
rp_dir() {
	local d

	d=$(mktemp -d "$RIG_TMP/rp.XXXXXX") && chmod 1777 "$d" && echo "$d"
}

# rp_as() - the command prefix running a command as a user (none for root)
# $1: user ID, also the group ID
# Sets RP_AS (an array).
rp_as() {
	RP_AS=()
	[ "$1" = 0 ] ||
		RP_AS=(setpriv --reuid="$1" --regid="$1" --clear-groups)
}

# rp_peer() - start a listener (repair_peer) in the host namespace
# $1: variable for its PID
# $2: its output
# $3: user ID to run it as (0: root)
# $4...: repair_peer arguments
rp_peer() {
	local var=$1 out=$2 bin=$RP_PEER
	shift 2

	rp_as "$1"
	[ "$1" = 0 ] || bin=$RP_PEER_U
	shift
	ip netns exec "$RIG_HOSTNS" "${RP_AS[@]}" "$bin" "$@" >"$out" 2>&1 &
	printf -v "$var" '%s' "$!"
	rig_defer "rig_kill '$!'"
	rig_poll 5 grep -qs '^listening' "$out" ||
		rig_fail "repair_peer did not start: $(head -c 300 "$out")"
}

# rp_peer_end() - wait for a probe's report once the helper is done
# $1: its PID
# $2: its output
#
# A probe nobody connected to would wait its whole time: ended at once.
rp_peer_end() {
	if grep -q '^connected' "$2"; then
		rig_wait_pid "$1" 10
	else
		rig_kill "$1"
	fi
}

# rp_helper_bg() - start passt-repair in the background, host namespace
# $1: variable for its PID
# $2: its log
# $3...: command (the helper and PATH, maybe under setpriv)
rp_helper_bg() {
	local var=$1 log=$2
	shift 2

	ip netns exec "$RIG_HOSTNS" "$@" >"$log" 2>&1 &
	printf -v "$var" '%s' "$!"
	rig_defer "rig_kill '$!'"
}

# rp_helper_watching() - wait until a helper in directory mode watches
# $1: its log
#
# A helper that doesn't say so (an older build) gets 1 s.
rp_helper_watching() {
	rig_poll 3 grep -qs 'waiting for a new' "$1" ||
		{ rig_log "no 'waiting for a new' line from passt-repair"; sleep 1; }
}

# rp_untouched() - did every TCP socket of a probe stay out of repair mode?
# $1: the probe's output
rp_untouched() {
	! grep -q '^repair [0-9]*: 1$' "$1" ||
		rig_fail "passt-repair put a socket of the probe in repair" \
			 "mode: $(tr '\n' ' ' <"$1")"
}

# rp_connected() - did a probe get a connection?
# $1: the probe's output
rp_connected() {
	grep -q '^connected' "$1"
}

# rp_passt() - start passt --vhost-user in the host namespace
# $1: variable for its PID
# $2: its log
# $3: user ID to run it as (0: root; it drops to nobody after set-up)
# $4: socket path (the repair socket is this path with ".repair")
# $5...: command prefix (e.g. strace ...)
rp_passt() {
	local var=$1 log=$2 uid=$3 sock=$4 bin=$PASST
	shift 4

	rp_as "$uid"
	[ "$uid" = 0 ] || bin=$(rig_user_copy "$PASST" "$uid") || return 1
	ip netns exec "$RIG_HOSTNS" "${RP_AS[@]}" "$@" "$bin" -f --vhost-user \
		-s "$sock" >"$log" 2>&1 &
	printf -v "$var" '%s' "$!"
	rig_defer "rig_kill '$!'"
	rig_poll 5 test -S "$sock.repair" ||
		rig_fail "passt made no repair socket: $(tail -n 2 "$log")"
}

# test_repair_other_uid() - root's helper and a listener of another user
test_repair_other_uid() {
	local d p out log rc

	d=$(rp_dir) || return 1
	out=$RIG_TMP/rp-uid.out
	log=$RIG_TMP/rp-uid.log

	# The socket file root's, the process listening nobody's
	rp_peer p "$out" "$RP_NOBODY" -t "$RP_WAIT_MS" "$d/a.sock" tcp ||
		return 1
	chown 0:0 "$d/a.sock"
	rig_h timeout 10 "$RP_HELPER" "$d/a.sock" >"$log" 2>&1
	rc=$?
	rp_peer_end "$p" "$out"
	rp_untouched "$out" || return 1
	[ "$rc" = 1 ] ||
		rig_fail "passt-repair exited with $rc, expected 1" || return 1
	grep -q "runs as uid $RP_NOBODY" "$log" ||
		rig_fail "passt-repair didn't say why: $(cat "$log")" ||
		return 1

	# The socket file nobody's
	rp_peer p "$out" "$RP_NOBODY" -t "$RP_WAIT_MS" "$d/b.sock" tcp ||
		return 1
	rig_h timeout 10 "$RP_HELPER" "$d/b.sock" >"$log" 2>&1
	rc=$?
	rp_peer_end "$p" "$out"
	rp_untouched "$out" || return 1
	if [ "$rc" != 1 ] || ! grep -q "belongs to uid $RP_NOBODY" "$log"; then
		rig_fail "socket file of uid $RP_NOBODY: status $rc," \
			 "$(cat "$log")"
	fi
}

# test_repair_file_cap() - a file capability any user may run
test_repair_file_cap() {
	local d p h out log rc copy

	d=$(rp_dir) || return 1
	out=$RIG_TMP/rp-cap.out
	log=$RIG_TMP/rp-cap.log
	copy=$(dirname "$RP_HELPER_U")/passt-repair-cap
	cp "$RP_HELPER_U" "$copy" && chmod 755 "$copy" &&
		setcap cap_net_admin+ep "$copy" ||
		rig_fail "can't give $copy a file capability" || return 1

	# Root's listener holds the port the other user wants
	ip netns exec "$RIG_HOSTNS" "$TOOLS_DIR/tcp_hold" listen 127.0.0.1 \
		"$RP_HELD_PORT" >/dev/null 2>&1 &
	h=$!
	rig_defer "rig_kill '$h'"
	rig_poll 5 rig_listening "$RIG_HOSTNS" "$RP_HELD_PORT" ||
		rig_fail "no root listener on port $RP_HELD_PORT" || return 1

	rp_peer p "$out" "$RP_NOBODY" -t "$RP_WAIT_MS" -b "$RP_HELD_PORT" \
		"$d/own.sock" tcp || return 1
	rp_as "$RP_NOBODY"
	rig_h timeout 10 "${RP_AS[@]}" "$copy" "$d/own.sock" >"$log" 2>&1
	rc=$?
	rp_peer_end "$p" "$out"
	! grep -q '^takeover: ESTABLISHED' "$out" ||
		rig_fail "uid $RP_NOBODY took port $RP_HELD_PORT of root's" \
			 "listener over with the file capability:" \
			 "$(tr '\n' ' ' <"$out")" || return 1
	rp_untouched "$out" || return 1
	if [ "$rc" != 1 ] || ! grep -q "any user may run it" "$log"; then
		rig_fail "status $rc, $(cat "$log")"
	fi
}

# rp_settled() - did passt or one of the planted probes get the helper?
# $1: passt's log
# $2...: the probes' outputs
rp_settled() {
	local log=$1 o
	shift

	grep -q 'passt-repair connected' "$log" && return 0
	for o in "$@"; do
		rp_connected "$o" && return 0
	done
	return 1
}

# test_repair_planted() - directory mode ignores sockets there before it
test_repair_planted() {
	local d p h pp o1 o2 log plog

	d=$(rp_dir) || return 1
	o1=$RIG_TMP/rp-planted.out
	o2=$RIG_TMP/rp-stale.out
	log=$RIG_TMP/rp-planted.log
	plog=$RIG_TMP/rp-planted.passt.log

	rp_peer p "$o1" "$RP_NOBODY" -t 15000 "$d/planted.repair" tcp &&
	rp_peer p "$o2" 0 -t 15000 "$d/stale.repair" tcp || return 1
	rp_helper_bg h "$log" "$RP_HELPER" "$d"
	rp_helper_watching "$log"

	rp_passt pp "$plog" 0 "$d/vm.socket" || return 1
	rig_poll 5 rp_settled "$plog" "$o1" "$o2"
	! rp_connected "$o1" ||
		rig_fail "passt-repair took the socket uid $RP_NOBODY planted" \
			 "before it started: $(tr '\n' ' ' <"$o1")" || return 1
	! rp_connected "$o2" ||
		rig_fail "passt-repair took a socket that was there before it" \
			 "started: $(tr '\n' ' ' <"$o2")" || return 1
	grep -q 'passt-repair connected' "$plog" ||
		rig_fail "passt-repair didn't connect to passt:" \
			 "$(tr '\n' ' ' <"$log")" || return 1
	grep -q "connected to $d/vm.socket.repair" "$log" ||
		rig_fail "helper's log: $(tr '\n' ' ' <"$log")"
}

# test_repair_symlink() - a symbolic link, in a directory and as PATH
test_repair_symlink() {
	local d p p2 p3 h o1 o2 o3 log rc

	d=$(rp_dir) || return 1
	o1=$RIG_TMP/rp-link.out
	o2=$RIG_TMP/rp-new.out
	o3=$RIG_TMP/rp-link2.out
	log=$RIG_TMP/rp-link.log

	# Root's own listener behind the link: only the link is wrong
	rp_peer p "$o1" 0 -t 15000 "$RIG_TMP/rp-target.sock" tcp || return 1
	rp_helper_bg h "$log" "$RP_HELPER" "$d"
	rp_helper_watching "$log"
	ln -s "$RIG_TMP/rp-target.sock" "$d/link.repair"
	sleep 0.3
	rp_peer p2 "$o2" 0 -t 8000 "$d/new.repair" tcp || return 1
	rig_poll 5 rp_settled /dev/null "$o1" "$o2"
	! rp_connected "$o1" ||
		rig_fail "passt-repair followed a symbolic link in its" \
			 "directory: $(tr '\n' ' ' <"$o1")" || return 1
	rig_wait_pid "$p2" 10
	grep -q '^repair 1: 1$' "$o2" ||
		rig_fail "the socket created after the link was not served:" \
			 "$(tr '\n' ' ' <"$o2")" || return 1

	# As PATH
	rp_peer p3 "$o3" 0 -t "$RP_WAIT_MS" "$RIG_TMP/rp-target2.sock" tcp ||
		return 1
	ln -s "$RIG_TMP/rp-target2.sock" "$d/link2.sock"
	rig_h timeout 10 "$RP_HELPER" "$d/link2.sock" >"$log" 2>&1
	rc=$?
	rp_peer_end "$p3" "$o3"
	rp_untouched "$o3" || return 1
	if [ "$rc" != 1 ] || ! grep -q "symbolic link" "$log"; then
		rig_fail "PATH a link: status $rc, $(cat "$log")"
	fi
}

# test_repair_bad_socket() - a UDP or listening socket beside a TCP one
test_repair_bad_socket() {
	local d p out log rc kind why

	d=$(rp_dir) || return 1
	out=$RIG_TMP/rp-bad.out
	log=$RIG_TMP/rp-bad.log

	for kind in udp listen; do
		why="no stream socket"
		[ "$kind" = listen ] && why="a listening socket"
		rp_peer p "$out" 0 -t "$RP_WAIT_MS" "$d/$kind.sock" tcp \
			"$kind" || return 1
		rig_h timeout 10 "$RP_HELPER" "$d/$kind.sock" >"$log" 2>&1
		rc=$?
		rp_peer_end "$p" "$out"
		rp_untouched "$out" ||
			rig_fail "a TCP socket sent with a $kind socket went" \
				 "into repair mode: $(tr '\n' ' ' <"$out")" ||
			return 1
		grep -q '^answer none' "$out" ||
			rig_fail "$kind: passt-repair answered:" \
				 "$(tr '\n' ' ' <"$out")" || return 1
		if [ "$rc" != 1 ] ||
		   ! grep -q "descriptor 2 of 2 is $why" "$log"; then
			rig_fail "$kind: status $rc, $(cat "$log")"
			return 1
		fi
	done
}

# rp_user() - a user of our own for an unprivileged passt, removed at the
# end
# Sets RP_UID.
rp_user() {
	local name

	name=rp$(printf '%s' "$RIG_PREFIX" | tr -cd 'a-z0-9' | tail -c 20)
	useradd --system --no-create-home --user-group \
		--shell /usr/sbin/nologin "$name" ||
		rig_fail "useradd $name failed" || return 1
	rig_defer "userdel '$name'"
	RP_UID=$(id -u "$name")
}

# test_repair_serves_passt() - the legitimate passt is served
test_repair_serves_passt() {
	local d pp h log plog rc

	d=$(rp_dir) || return 1
	log=$RIG_TMP/rp-serve.log
	plog=$RIG_TMP/rp-serve.passt.log

	# Root's passt (nobody once set up), root's helper, given the socket
	rp_passt pp "$plog" 0 "$d/root.socket" || return 1
	rp_helper_bg h "$log" "$RP_HELPER" "$d/root.socket.repair"
	rig_poll 5 grep -q 'passt-repair connected' "$plog" ||
		rig_fail "root's passt-repair not connected: $(cat "$log")" ||
		return 1
	rig_kill "$pp"
	rig_wait_pid "$h" 10
	rc=$?
	[ "$rc" = 0 ] ||
		rig_fail "passt-repair exited with $rc after passt, expected" \
			 "0: $(cat "$log")" || return 1

	# An unprivileged passt, the helper as its user with CAP_NET_ADMIN
	rp_user || return 1
	chmod 1777 "$d"
	rp_passt pp "$plog" "$RP_UID" "$d/user.socket" || return 1
	rp_helper_bg h "$log" setpriv --reuid="$RP_UID" --regid="$RP_UID" \
		--clear-groups --inh-caps=+net_admin --ambient-caps=+net_admin \
		"$(rig_user_copy "$RP_HELPER" "$RP_UID")" \
		"$d/user.socket.repair"
	rig_poll 5 grep -q 'passt-repair connected' "$plog" ||
		rig_fail "passt-repair as uid $RP_UID not connected:" \
			 "$(cat "$log") / $(tail -n 2 "$plog")" || return 1
}

# test_repair_passt_refuses() - passt and a process of another uid
test_repair_passt_refuses() {
	local d pp plog n

	d=$(rp_dir) || return 1
	plog=$RIG_TMP/rp-refuse.passt.log
	[ -n "$RP_UID" ] || rp_user || return 1

	# Root shows as the overflow uid in the unprivileged passt's user
	# namespace: it is not passt's user, nor root there
	rp_passt pp "$plog" "$RP_UID" "$d/user.socket" || return 1
	rig_h socat -u OPEN:/dev/null UNIX-CONNECT:"$d/user.socket.repair" ||
		rig_fail "can't connect to passt's repair socket" || return 1
	rig_poll 3 grep -q 'passt-repair socket .*: refused a connection' \
		"$plog" ||
		rig_fail "passt didn't refuse a process of another uid:" \
			 "$(tail -n 2 "$plog")" || return 1
	! grep -q 'passt-repair connected' "$plog" ||
		rig_fail "passt took it as its helper" || return 1

	kill -USR1 "$pp"
	rig_poll 3 grep -q 'repair: refused=' "$plog" ||
		rig_fail "no repair counters after SIGUSR1" || return 1
	n=$(grep -o 'repair: refused=[0-9]*' "$plog" | tail -n 1)
	[ "${n#*=}" = 1 ] || rig_fail "counted: $n, expected refused=1"
}

# rp_traced_umask() - the last umask() call before the repair socket's bind()
# $1: strace output
# $2: the repair socket's path
rp_traced_umask() {
	awk -v p="\"$2\"" '/umask\(/ { u = $0 }
		index($0, "bind(") && index($0, p) { print u; exit }' "$1"
}

# test_repair_socket_mode() - 0600 from bind() on, under umask 000
test_repair_socket_mode() {
	local d st plog tr sock mode c um

	d=$(rp_dir) || return 1
	plog=$RIG_TMP/rp-mode.passt.log
	tr=$RIG_TMP/rp-mode.strace
	sock=$d/vm.socket

	( umask 000
	  exec ip netns exec "$RIG_HOSTNS" strace -f -o "$tr" \
		-e trace=umask,bind,chmod,fchmodat "$PASST" -f --vhost-user \
		-s "$sock" ) >"$plog" 2>&1 &
	st=$!
	rig_defer "rig_kill '$st'"
	rig_poll 5 grep -qs 'Socket for passt-repair' "$plog" ||
		rig_fail "passt under strace didn't start: $(tail -n 2 "$plog")" ||
		return 1
	mode=$(stat -c '%a %u' "$sock.repair")
	# strace detaches when killed: end passt, its child, first
	for c in $(pgrep -P "$st"); do
		rig_kill "$c"
	done
	rig_wait_pid "$st" 10

	grep -q "bind(.*\"$sock.repair\"" "$tr" ||
		rig_fail "no bind() of $sock.repair in the trace" || return 1
	! grep -q "chmod.*\"$sock.repair\"" "$tr" ||
		rig_fail "passt chmod()s the repair socket after bind():" \
			 "$(grep "chmod.*\"$sock.repair\"" "$tr")" || return 1
	um=$(rp_traced_umask "$tr" "$sock.repair")
	[[ "$um" =~ umask\(0[0-7]77\) ]] ||
		rig_fail "bind() of the repair socket not under a umask" \
			 "closing it to group and others: ${um:-no umask()}" ||
		return 1
	[ "$mode" = "600 0" ] ||
		rig_fail "repair socket mode and owner: $mode, expected 600 0"
}

rig_run "passt-repair: refuses a listener of another uid" \
	test_repair_other_uid
rig_run "passt-repair: a file capability any user may run is refused" \
	test_repair_file_cap
rig_run "passt-repair: ignores sockets planted before it, serves passt" \
	test_repair_planted
rig_run "passt-repair: refuses symbolic links" test_repair_symlink
rig_run "passt-repair: refuses UDP and listening sockets, changes nothing" \
	test_repair_bad_socket
rig_run "passt-repair: serves root's passt, and a user's as that user" \
	test_repair_serves_passt
rig_run "passt-repair socket: passt refuses another uid, counts it" \
	test_repair_passt_refuses
rig_run "passt-repair socket: 0600 from bind() on under umask 000" \
	test_repair_socket_mode

# --- sockets ---

rig_need_tool HOSTILE vu_hostile || exit 1
# Trickled vhost-user message: 12 + SK_PAYLOAD bytes, one every SK_GAP_MS:
# 15 s in all, far beyond the relay's 1 s deadline, while each gap stays
# below the 1 s timeout per read that held older builds
SK_GAP_MS=200
SK_PAYLOAD=64
SK_LIMIT=60		# seconds a -c request may take before we give up
SK_OTHER=65534		# another user, for connections that must be refused
SK_UID=		# the relay's user in the uid tests (a free UID)
SK_PESTO=		# pesto, where that user can run it
declare -A SK_PID SK_LOG	# relays of the uid tests, by name

# sk_free_uid() - pick a UID no account uses, for the relay's user
sk_free_uid() {
	local u

	for u in $(seq $((40000 + $$ % 10000)) 60000); do
		getent passwd "$u" >/dev/null || { echo "$u"; return 0; }
	done
	return 1
}

# sk_start() - start a relay as SK_UID under a umask, in the host namespace
# $1: name (for SK_PID, SK_LOG)
# $2: umask
# $3...: program and options
sk_start() {
	local name=$1 mask=$2 log=$RIG_TMP/sk-$1-$2.log
	shift 2

	echo "# umask $mask: $*" >"$log"
	ip netns exec "$RIG_HOSTNS" sh -c "umask $mask; exec setpriv \
		--reuid=$SK_UID --regid=$SK_UID --clear-groups \"\$@\"" \
		sh "$@" >>"$log" 2>&1 &
	SK_PID[$name]=$!
	SK_LOG[$name]=$log
	rig_defer "rig_kill '$!'"
}

# sk_counter() - one counter of a relay, fresh (SIGUSR1)
# $1: PID
# $2: its log
# $3: module as its line starts ("tap", "conf")
# $4: key
sk_counter() {
	local before

	before=$(grep -c "$3: .*$4=" "$2")
	kill -USR1 "$1" 2>/dev/null || return 1
	rig_poll 5 rig_log_grew "$2" "$3: .*$4=" "${before:-0}" || return 1
	grep "$3: .*$4=" "$2" | tail -n 1 | tr ' ' '\n' |
		sed -n "s/^$4=//p"
}

# sk_up() - test: passt (stream), passt --vhost-user and pasta, as another
# user, under a umask, each with -c
# $1: umask
sk_up() {
	local d=$RIG_TMP/sk-$1 passt pasta s

	rig_persist
	mkdir -p "$d" && chown "$SK_UID:$SK_UID" "$d" && chmod 755 "$d" ||
		return 1
	passt=$(rig_user_copy "$PASST" "$SK_UID") || return 1
	pasta=$(rig_user_copy "$RELAY" "$SK_UID") || return 1
	SK_PESTO=$(rig_user_copy "$PESTO" "$SK_UID") || return 1

	sk_start stream "$1" "$passt" -f -s "$d/s" -c "$d/c"
	sk_start vu "$1" "$passt" -f --vhost-user -s "$d/v" -c "$d/vc"
	sk_start pasta "$1" "$pasta" -f -c "$d/pc" --config-net -u none \
		-T none -U none -- sleep 600
	for s in s c v vc v.repair pc; do
		rig_poll 5 test -S "$d/$s" ||
			rig_fail "no socket $d/$s after 5 s" || return 1
	done
}

# sk_modes() - test: every socket is 0600 and the relay's user's
# $1: umask
sk_modes() {
	local d=$RIG_TMP/sk-$1 s got

	for s in s c v vc v.repair pc; do
		got=$(stat -c '%a %u' "$d/$s") || return 1
		[ "$got" = "600 $SK_UID" ] ||
			rig_fail "$s: mode and owner '$got'," \
				 "expected '600 $SK_UID'" || return 1
	done
}

# sk_other_connect() - connect to a socket as SK_OTHER, send nothing
# $1: socket
# $2...: more setpriv options (capabilities)
sk_other_connect() {
	local sock=$1
	shift

	setpriv --reuid="$SK_OTHER" --regid="$SK_OTHER" --clear-groups "$@" \
		timeout 10 socat -u /dev/null "UNIX-CONNECT:$sock" 2>/dev/null
}

# sk_other_blocked() - test: another user can't connect to any socket
# $1: umask
sk_other_blocked() {
	local d=$RIG_TMP/sk-$1 s

	for s in s c v vc v.repair pc; do
		! sk_other_connect "$d/$s" ||
			rig_fail "user $SK_OTHER connected to $s" || return 1
	done
}

# sk_other_refused() - test: another user who may connect (ambient
# CAP_DAC_OVERRIDE) is refused by each relay, and counted
# $1: umask
sk_other_refused() {
	local d=$RIG_TMP/sk-$1 caps s n r m k

	caps=(--inh-caps=+dac_override --ambient-caps=+dac_override)
	for s in s c v vc pc; do
		sk_other_connect "$d/$s" "${caps[@]}" ||
			rig_fail "user $SK_OTHER with CAP_DAC_OVERRIDE could" \
				 "not even connect to $s" || return 1
	done

	for s in "stream tap conn_refused" "stream conf refused_uid" \
		 "vu tap conn_refused" "vu conf refused_uid" \
		 "pasta conf refused_uid"; do
		read -r r m k <<<"$s"
		n=$(sk_counter "${SK_PID[$r]}" "${SK_LOG[$r]}" "$m" "$k")
		[ "${n:-0}" -ge 1 ] ||
			rig_fail "$r: $m: $k=${n:-missing}, expected 1" ||
			return 1
	done
}

# sk_owner_served() - test: the relay's own user is served on each socket
# $1: umask
sk_owner_served() {
	local d=$RIG_TMP/sk-$1 s sock

	for s in c vc pc; do
		setpriv --reuid="$SK_UID" --regid="$SK_UID" --clear-groups \
			timeout "$SK_LIMIT" "$SK_PESTO" "$d/$s" >/dev/null ||
			rig_fail "pesto as the relay's user failed on $s" ||
			return 1
	done
	for s in stream vu; do
		sock=$d/s
		[ "$s" = vu ] && sock=$d/v
		setpriv --reuid="$SK_UID" --regid="$SK_UID" --clear-groups \
			timeout 10 socat -u /dev/null "UNIX-CONNECT:$sock" ||
			rig_fail "the relay's user can't connect to $sock" ||
			return 1
		rig_poll 5 grep -q "Accepted guest connection" \
			"${SK_LOG[$s]}" ||
			rig_fail "$s: the relay's user was not accepted" ||
			return 1
	done
}

# sk_rootless_ns() - test: rootless pasta refuses its own user, from the
# namespace it serves
# $1: umask
sk_rootless_ns() {
	local d=$RIG_TMP/sk-$1 child n

	# pasta's children: the command, and the resolver file's reader
	for child in $(pgrep -P "${SK_PID[pasta]}") ""; do
		[ "$(cat "/proc/$child/comm" 2>/dev/null)" = resolv-reader ] ||
			break
	done
	[ -n "$child" ] || rig_fail "pasta's command is not running" ||
		return 1
	# Root in pasta's user namespace is its user; the network namespace
	# is the one pasta serves
	if nsenter -t "$child" -U -n timeout "$SK_LIMIT" "$SK_PESTO" \
	   "$d/pc" >/dev/null 2>&1; then
		rig_fail "a client in pasta's namespace was served"
		return 1
	fi
	nsenter -t "${SK_PID[pasta]}" -U timeout "$SK_LIMIT" "$SK_PESTO" \
		"$d/pc" >/dev/null ||
		rig_fail "pasta's user outside the namespace was refused" ||
		return 1
	n=$(sk_counter "${SK_PID[pasta]}" "${SK_LOG[pasta]}" conf \
		refused_netns)
	[ "${n:-0}" -ge 1 ] ||
		rig_fail "conf: refused_netns=${n:-missing}, expected 1"
}

# sk_down() - stop the relays of one umask
sk_down() {
	local r

	for r in stream vu pasta; do
		rig_kill "${SK_PID[$r]}"
	done
}

# sk_pasta_ns() - test: pasta (root) refuses a -c client from the namespace
# it serves, serves one from the host
sk_pasta_ns() {
	local c=$RIG_TMP/sk-pasta-ns.sock n

	rig_target_ns || return 1
	rig_relay_start fg -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	rig_h timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null ||
		rig_fail "pesto from the host was refused" || return 1
	if rig_g timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null 2>&1; then
		rig_fail "pesto from pasta's namespace was served"
		return 1
	fi
	n=$(sk_counter "$RIG_RELAY_PID" "$RIG_RELAY_LOG" conf refused_netns)
	[ "${n:-0}" -ge 1 ] ||
		rig_fail "conf: refused_netns=${n:-missing}, expected 1" ||
		return 1
	rig_relay_stop_check
}

# sk_trickle_answered() - run a trickling client, check that a -c request
# is answered before it could finish
# $1: socket the trickler uses
# $2: -c socket
# $3: trickler's output file
# $4...: vu_hostile trickle options
# Sets SK_TRICKLER to the trickler's PID.
sk_trickle_answered() {
	local sock=$1 ctl=$2 out=$3
	shift 3

	"$HOSTILE" trickle --interval-ms "$SK_GAP_MS" "$@" "$sock" \
		>"$out" 2>&1 &
	SK_TRICKLER=$!
	rig_defer "rig_kill '$SK_TRICKLER'"
	rig_poll 5 grep -qs trickling "$out" ||
		rig_fail "the trickler did not start: $(cat "$out")" ||
		return 1

	rig_h timeout "$SK_LIMIT" "$PESTO" "$ctl" >/dev/null ||
		rig_fail "the -c request got no answer" || return 1
	# The message takes seconds to trickle: a relay that answered only
	# once it was complete waited for it
	! grep -q complete "$out" ||
		rig_fail "the -c request was answered only once the" \
			 "trickled message was complete (the loop waited)"
}

# sk_vu_trickle() - test: a trickling front-end does not hold the loop,
# and is dropped at its message's deadline
sk_vu_trickle() {
	local s=$RIG_TMP/sk-vu.sock c=$RIG_TMP/sk-vu.ctl
	local out=$RIG_TMP/sk-trickle.out rc

	passt_start fg "$s" --vhost-user -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	sk_trickle_answered "$s" "$c" "$out" --payload "$SK_PAYLOAD" ||
		return 1

	rig_wait_pid "$SK_TRICKLER" "$SK_LIMIT"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "dropped after" "$out" ||
		rig_fail "the trickler was not dropped (status $rc):" \
			 "$(cat "$out")" || return 1
	grep -q "message from the front-end is not complete" \
		"$RIG_RELAY_LOG" ||
		rig_fail "no message deadline in passt's log"
}

# sk_vu_callfull() - test: a full, blocking call eventfd does not hold the
# loop, and costs a counted lost signal
sk_vu_callfull() {
	local s=$RIG_TMP/sk-vu.sock c=$RIG_TMP/sk-vu.ctl
	local out=$RIG_TMP/sk-callfull.out pid n

	"$HOSTILE" callfull "$s" >"$out" 2>&1 &
	pid=$!
	rig_defer "rig_kill '$pid'"
	rig_poll 10 grep -qs "call eventfd full" "$out" ||
		rig_fail "the front-end did not set up: $(cat "$out")" ||
		return 1

	rig_h timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null ||
		rig_fail "the -c request got no answer" || return 1

	rig_kill "$pid"
	rig_poll 5 grep -q "signals lost" "$RIG_RELAY_LOG" ||
		rig_fail "passt did not log the front-end's departure" ||
		return 1
	n=$(grep -o '[0-9]* signals lost' "$RIG_RELAY_LOG" | tail -n 1)
	[ "${n%% *}" -ge 1 ] ||
		rig_fail "no lost signal counted ($n)" || return 1
	rig_relay_stop_check
}

# sk_stream_trickle() - test: a guest trickling a frame on the stream
# socket does not hold the loop; the frame arrives whole
sk_stream_trickle() {
	local s=$RIG_TMP/sk-stream.sock c=$RIG_TMP/sk-stream.ctl
	local out=$RIG_TMP/sk-stream.out rc n

	passt_start fg "$s" -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	# An Ethernet header of zeroes: a frame, dropped as unsupported
	sk_trickle_answered "$s" "$c" "$out" --stream --payload 14 ||
		return 1

	rig_wait_pid "$SK_TRICKLER" "$SK_LIMIT"
	rc=$?
	[ "$rc" -eq 2 ] ||
		rig_fail "the guest did not send its frame whole (status" \
			 "$rc): $(cat "$out")" || return 1
	n=$(sk_counter "$RIG_RELAY_PID" "$RIG_RELAY_LOG" tap rx_frames)
	[ "${n:-0}" -eq 1 ] ||
		rig_fail "tap: rx_frames=${n:-missing}, expected 1" || return 1
	rig_relay_stop_check
}

SK_UID=$(sk_free_uid) || { echo "FAIL: prerequisites: no free UID"; exit 1; }
rig_log "relay's user for the uid tests: $SK_UID"
for mask in 000 022; do
	rig_run "sockets, umask $mask: passt, passt --vhost-user, pasta as user $SK_UID" \
		sk_up "$mask"
	rig_run "sockets, umask $mask: every socket 0600, the relay's user's" \
		sk_modes "$mask"
	rig_run "sockets, umask $mask: user $SK_OTHER can't connect" \
		sk_other_blocked "$mask"
	rig_run "sockets, umask $mask: user $SK_OTHER with CAP_DAC_OVERRIDE refused by the relays, counted" \
		sk_other_refused "$mask"
	rig_run "sockets, umask $mask: the relay's user is served" \
		sk_owner_served "$mask"
	rig_run "sockets, umask $mask: rootless pasta refuses its user in its namespace" \
		sk_rootless_ns "$mask"
	sk_down
done
rig_run "sockets: pasta refuses -c from the namespace it serves" sk_pasta_ns
rig_run "sockets: a trickling vhost-user front-end holds no -c request, and is dropped" \
	sk_vu_trickle
rig_run "sockets: a full call eventfd holds no -c request, the signal is counted" \
	sk_vu_callfull
rig_run "sockets: a guest trickling a frame holds no -c request" \
	sk_stream_trickle

# --- sandbox ---

# shellcheck source=tests/lib/sandbox_checks.sh
. "$(dirname "$0")/../lib/sandbox_checks.sh"

rig_run "sandbox: no user namespace: passt exits" sb_no_userns ""
rig_run "sandbox: no user namespace: --chroot-fallback doesn't help" \
	sb_no_userns --chroot-fallback
rig_run "sandbox: pivot_root() refused: passt exits" sb_pivot_refused ""
rig_run "sandbox: pivot_root() refused: --chroot-fallback" \
	sb_pivot_refused --chroot-fallback
rig_run "sandbox: background passt (root): PID namespace" sb_background 0
rig_run "sandbox: background passt (nobody): PID namespace" \
	sb_background "$SB_NOBODY"
rig_run "sandbox: link at -P refused" sb_symlink -P
rig_run "sandbox: link at -l refused" sb_symlink -l
rig_run "sandbox: link at -p refused" sb_symlink -p

rig_summary
