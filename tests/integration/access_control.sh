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
# Environment:
#   PASST_REPAIR	passt-repair (default: next to $PASST), e.g. an older
#			build, to see which checks it fails

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

rig_init
passt_init
rig_need strace setcap useradd || exit 1
rig_host_ns || exit 1

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
	rig_poll 3 grep -q 'Refusing a process on the passt-repair socket' \
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

rig_summary
