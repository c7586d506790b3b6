#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/seccomp_profiles.sh - the seccomp filter of each mode
#
# Every mode has a profile of its own (doc/security.md, "System calls"):
# passt over the stream socket, passt --vhost-user, pasta, pesto once
# connected, passt-repair once connected. Each is started here and, while
# it runs, tests/tools/seccomp_dump reads the filter the kernel holds for
# it (PTRACE_SECCOMP_GET_FILTER, as root) and evaluates it for every
# system call number: the calls it lets through, whatever the arguments
# ("always") or with some only ("args"), must be exactly those the
# SYSCALLS() lists compiled into the binary give for that mode, read from
# the process's memory. Then single calls with chosen arguments:
#
#   - stream passt: no mmap() at all; prlimit64() on itself only, reading;
#     socket() of TCP, UDP and ping sockets only (no AF_PACKET, netlink,
#     SCTP); no TCP_ULP; fcntl() F_GETFL/F_SETFL only;
#   - passt --vhost-user: mmap() shared or anonymous, never PROT_EXEC, never
#     at a fixed address; ioctl() SIOCINQ/SIOCOUTQ/SIOCOUTQNSD only;
#     newfstatat() on a descriptor only (AT_EMPTY_PATH);
#   - pasta, each thread (the worker in the namespace too): futex() wait
#     and wake only, no mmap();
#   - pesto, against a relay that never answers: no socket(), no openat();
#   - passt-repair, against a passt that never sends: setsockopt()
#     TCP_REPAIR only, no socket(), no connect();
#   - the resolver file's reader, a child of passt following the host's
#     resolver file (isolation/resolv_reader.c): openat() only on its
#     directory's descriptor with the flags of its rule, write() only to
#     the relay, no socket(); no capability, no-new-privs, descriptors
#     3 to 5 only.
#
# The counts of both passt profiles may not exceed upstream's (34 and 36
# calls, its July 2026 build; measured again from its running binaries
# when tests/run --upstream gives them).
#
# The check must be able to fail: the test build (make hook) loads the
# filter of passt --vhost-user into stream-mode passt when
# SANDBOX_TEST_WRONG_FILTER is set; the comparison must then report mmap
# among the differences, and mmap() must pass the filter.
#
# Argument values below are Linux's generic ones (x86_64, aarch64).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

UPSTREAM_PASST_CALLS=34		# upstream's stream-mode filter
UPSTREAM_VU_CALLS=36		# upstream's vhost-user filter
FWD=10421

# Argument values
AF_UNIX=1; AF_INET=2; AF_NETLINK=16; AF_PACKET=17; AT_FDCWD=-100
SOCK_STREAM=1; SOCK_RAW=3; SOCK_FLAGS=$((0x80800))	# NONBLOCK | CLOEXEC
IPPROTO_TCP=6; IPPROTO_SCTP=132
SOL_SOCKET=1; SO_RCVBUF=8; TCP_REPAIR=19; TCP_ULP=31
PROT_RW=3; PROT_RWX=7; MAP_SHARED=1; MAP_FIXED_SHARED=$((0x11))
MAP_PRIV_ANON=$((0x22)); RLIMIT_NOFILE=7
F_GETFL=3; F_SETOWN=8; F_SETPIPE_SZ=1031
SIOCOUTQ=$((0x5411)); TIOCSTI=$((0x5412)); AT_EMPTY_PATH=$((0x1000))
FUTEX_WAKE_PRIVATE=129; FUTEX_LOCK_PI=6
O_RDONLY=0; O_RESOLV=$((0xa0900))	# CLOEXEC NOFOLLOW NONBLOCK NOCTTY

rig_init
passt_init
DUMP=$TOOLS_DIR/seccomp_dump
rig_pesto
REPAIR=$(dirname "$(readlink -f "$PASST")")/passt-repair
for b in "$DUMP" "$REPAIR"; do
	if [ ! -x "$b" ]; then
		echo "FAIL: prerequisites: $b not built (run make)"
		exit 1
	fi
done
passt_hook_init
rig_host_ns || exit 1
rig_target_ns || exit 1

# sandboxed() - has a task loaded its seccomp filter yet?
# $1: PID or TID
sandboxed() {
	grep -q '^Seccomp:[[:space:]]*2$' "/proc/$1/status" 2>/dev/null
}

# start_fg() - start a relay in the foreground in the host namespace, wait
# for its filter
# $@: command (binary and options; "env VAR=1 BINARY ..." works too)
# Sets RIG_RELAY_PID, RIG_RELAY_LOG, RIG_RELAY_MODE
start_fg() {
	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	echo "# $*" >"$RIG_RELAY_LOG"
	ip netns exec "$RIG_HOSTNS" "$@" >>"$RIG_RELAY_LOG" 2>&1 &
	RIG_RELAY_PID=$!
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_MODE="fg"
	rig_defer "rig_kill '$RIG_RELAY_PID'"
	rig_poll 5 sandboxed "$RIG_RELAY_PID" ||
		rig_fail "$1 has no seccomp filter after 5 s"
}

# profile_check() - the filter of a task against the lists of its binary
# $1: mode (passt, vu, pasta, pesto, repair, resolv)
# $2: PID (lists are read from its memory)
# $3: TID whose filter is read (default: $2)
# Sets PROFILE_CALLS to the number of calls the filter allows, PROFILE_MODE
profile_check() {
	local mode=$1 pid=$2 tid=${3:-$2} f=$RIG_TMP/filter.$1.${3:-$2}
	local l=$RIG_TMP/lists.$1 n

	n=$("$DUMP" count "$tid" 2>&1) ||
		rig_fail "seccomp_dump count $tid: $n" || return 1
	[ "$n" = 1 ] || rig_fail "$mode ($tid): $n filters, expected 1" ||
		return 1
	"$DUMP" filter "$tid" >"$f" 2>"$f.err" ||
		rig_fail "seccomp_dump filter $tid: $(cat "$f.err")" ||
		return 1
	"$DUMP" lists "$mode" "$pid" >"$l" 2>"$l.err" ||
		rig_fail "seccomp_dump lists $mode $pid: $(cat "$l.err")" ||
		return 1
	"$DUMP" lists -v "$mode" "$pid" >"$l.why" 2>/dev/null
	PROFILE_MODE=$mode

	if ! diff "$l" "$f" >"$f.diff"; then
		rig_indent <"$f.diff"
		rig_fail "$mode ($tid): the filter differs from the lists" \
			 "(<: listed only, >: allowed only):" \
			 "$(grep '^[<>]' "$f.diff" | tr '\n' ' ')"
		return 1
	fi
	PROFILE_CALLS=$(wc -l <"$f")
	rig_log "$mode ($tid): $PROFILE_CALLS calls," \
		"$(grep -c ' args$' "$f") with argument filters:" \
		"$(tr '\n' ' ' <"$f")"
}

# probe() - one call with given arguments against a task's filter
# $1: expected verdict: allow or kill
# $2: TID
# $3: system call name
# $4...: its arguments
#
# In a sanitizer build, a call its run time needs is allowed whatever the
# arguments: a "kill" expected of it is skipped.
probe() {
	local want=$1 tid=$2 got
	shift 2

	if [ "$want" = kill ] &&
	   grep -q "^$1 always.*sanitizer run time" \
		"$RIG_TMP/lists.$PROFILE_MODE.why"; then
		echo "# skipped: $* refused (a sanitizer build allows $1)"
		return 0
	fi

	got=$("$DUMP" call "$tid" "$@" 2>&1)
	[ "$got" = "$want" ] ||
		rig_fail "$*: the filter says \"$got\", expected $want"
}

# sanitizer() - is the binary of a process a sanitizer build? Its filter
# then allows the run time's calls (mmap() among them): more than upstream
# $1: mode, after profile_check
sanitizer() {
	grep -q 'sanitizer run time' "$RIG_TMP/lists.$1.why"
}

# upstream_calls() - calls upstream's passt filter allows, in one mode
# $1: "stream" or "vu"
# Prints the count measured from upstream's binary if there is one (tests/run
# --upstream), else the count of its July 2026 build
upstream_calls() {
	local bin pid n sock=$RIG_TMP/up.$1.sock

	if ! bin=$(rig_upstream passt 2>/dev/null); then
		[ "$1" = vu ] && echo "$UPSTREAM_VU_CALLS" ||
			echo "$UPSTREAM_PASST_CALLS"
		return
	fi
	if [ "$1" = vu ]; then
		ip netns exec "$RIG_HOSTNS" "$bin" -f --vhost-user -s "$sock" \
			>"$RIG_TMP/up.$1.log" 2>&1 &
	else
		ip netns exec "$RIG_HOSTNS" "$bin" -f -s "$sock" \
			>"$RIG_TMP/up.$1.log" 2>&1 &
	fi
	pid=$!
	rig_poll 5 sandboxed "$pid" && n=$("$DUMP" filter "$pid" | wc -l)
	rig_kill "$pid"
	rig_log "upstream's passt ($1, $bin): ${n:-?} calls" >&2
	echo "${n:-0}"
}

# count_check() - no more calls allowed than upstream's filter of the same
# mode (skipped for a sanitizer build, whose run time adds its own)
# $1: mode, after profile_check (passt, vu)
# $2: upstream's mode (stream, vu)
count_check() {
	local up

	if sanitizer "$1"; then
		echo "# skipped: the count against upstream's (a sanitizer" \
		     "build allows its run time's calls)"
		return 0
	fi
	up=$(upstream_calls "$2")
	[ "$PROFILE_CALLS" -le "$up" ] ||
		rig_fail "$PROFILE_CALLS calls, upstream's $up"
}

# stream_passt() - test: passt over the stream socket
stream_passt() {
	local pid

	start_fg "$PASST" -f -s "$RIG_TMP/stream.sock" || return 1
	pid=$RIG_RELAY_PID
	profile_check passt "$pid" || return 1

	count_check passt stream || return 1
	probe kill "$pid" mmap 0 4096 "$PROT_RW" "$MAP_SHARED" 3 0 ||
		return 1
	probe kill "$pid" mmap 0 4096 "$PROT_RW" "$MAP_PRIV_ANON" -1 0 ||
		return 1
	probe allow "$pid" prlimit64 0 "$RLIMIT_NOFILE" 0 4096 || return 1
	probe kill "$pid" prlimit64 1 "$RLIMIT_NOFILE" 0 4096 || return 1
	probe kill "$pid" prlimit64 0 "$RLIMIT_NOFILE" 4096 0 || return 1
	probe allow "$pid" socket "$AF_INET" $((SOCK_STREAM | SOCK_FLAGS)) \
		"$IPPROTO_TCP" || return 1
	probe kill "$pid" socket "$AF_PACKET" "$SOCK_RAW" 0 || return 1
	probe kill "$pid" socket "$AF_NETLINK" "$SOCK_RAW" 0 || return 1
	probe kill "$pid" socket "$AF_INET" "$SOCK_STREAM" "$IPPROTO_SCTP" ||
		return 1
	probe kill "$pid" socket "$AF_UNIX" "$SOCK_STREAM" 0 || return 1
	probe allow "$pid" setsockopt 3 "$SOL_SOCKET" "$SO_RCVBUF" ||
		return 1
	probe kill "$pid" setsockopt 3 "$IPPROTO_TCP" "$TCP_ULP" || return 1
	probe allow "$pid" fcntl 3 "$F_GETFL" || return 1
	probe kill "$pid" fcntl 3 "$F_SETOWN" || return 1
	probe kill "$pid" ioctl 3 "$SIOCOUTQ" || return 1
	rig_relay_alive || rig_fail "passt died during the checks" || return 1
	rig_relay_stop_check
}

# vu_passt() - test: passt --vhost-user
vu_passt() {
	local pid

	start_fg "$PASST" -f --vhost-user -s "$RIG_TMP/vu.sock" || return 1
	pid=$RIG_RELAY_PID
	profile_check vu "$pid" || return 1

	probe allow "$pid" mmap 0 4096 "$PROT_RW" "$MAP_SHARED" 3 0 ||
		return 1
	probe allow "$pid" mmap 0 4096 "$PROT_RW" "$MAP_PRIV_ANON" -1 0 ||
		return 1
	count_check vu vu || return 1
	probe kill "$pid" mmap 0 4096 "$PROT_RWX" "$MAP_SHARED" 3 0 ||
		return 1
	probe kill "$pid" mmap 65536 4096 "$PROT_RW" "$MAP_FIXED_SHARED" 3 0 ||
		return 1
	probe kill "$pid" mmap 65536 4096 "$PROT_RW" "$MAP_SHARED" 3 0 ||
		return 1
	probe allow "$pid" ioctl 3 "$SIOCOUTQ" || return 1
	probe kill "$pid" ioctl 3 "$TIOCSTI" || return 1
	probe allow "$pid" newfstatat 3 0 0 "$AT_EMPTY_PATH" || return 1
	probe kill "$pid" newfstatat 3 0 0 0 || return 1
	probe kill "$pid" socket "$AF_PACKET" "$SOCK_RAW" 0 || return 1
	rig_relay_alive || rig_fail "passt died during the checks" || return 1
	rig_relay_stop_check
}

# pasta_profile() - test: pasta, the main thread and the worker
pasta_profile() {
	local pid t tid n=0

	start_fg "$RELAY" -f --config-net -u none -T none -U none \
		-t "$FWD" --netns "$RIG_NS" || return 1
	pid=$RIG_RELAY_PID
	rig_poll 5 rig_has_addr "$RIG_NS" "$RIG_ADDR4" ||
		rig_fail "$RIG_ADDR4 not configured in the namespace" ||
		return 1
	for t in /proc/"$pid"/task/*; do
		tid=${t##*/}
		profile_check pasta "$pid" "$tid" || return 1
		probe allow "$tid" futex 0 "$FUTEX_WAKE_PRIVATE" 1 || return 1
		probe kill "$tid" futex 0 "$FUTEX_LOCK_PI" || return 1
		probe allow "$tid" fcntl 3 "$F_SETPIPE_SZ" 65536 || return 1
		probe kill "$tid" socket "$AF_PACKET" "$SOCK_RAW" 0 || return 1
		probe kill "$tid" mmap 0 4096 "$PROT_RW" "$MAP_PRIV_ANON" \
			-1 0 || return 1
		n=$((n + 1))
	done
	[ "$n" -ge 2 ] || rig_fail "pasta has no worker thread" || return 1
	rig_relay_alive || rig_fail "pasta died during the checks" || return 1
	rig_relay_stop_check
}

# holder() - a listener that accepts and then sends nothing, for 30 s
# $1: socket path
# Prints the listener's PID
holder() {
	socat "UNIX-LISTEN:$1" EXEC:"sleep 30" >/dev/null 2>&1 &
	echo $!
	rig_poll 5 test -S "$1"
}

# client_check() - start a client of a holder, check its profile
# $1: mode (pesto or repair)
# $2: client binary
client_check() {
	local sock=$RIG_TMP/$1.sock hpid pid

	hpid=$(holder "$sock")
	rig_defer "rig_kill '$hpid'"
	rig_poll 5 test -S "$sock" ||
		rig_fail "no listener on $sock" || return 1
	"$2" "$sock" >"$RIG_TMP/$1.log" 2>&1 &
	pid=$!
	rig_defer "rig_kill '$pid'"
	rig_poll 5 sandboxed "$pid" ||
		rig_fail "$1 has no seccomp filter after 5 s" ||
		{ rig_tail "$RIG_TMP/$1.log"; return 1; }
	profile_check "$1" "$pid" || return 1
	probe kill "$pid" socket "$AF_UNIX" "$SOCK_STREAM" 0 || return 1
	probe kill "$pid" openat 0 0 0 || return 1
	probe kill "$pid" connect 3 0 0 || return 1
	if [ "$1" = repair ]; then
		probe allow "$pid" setsockopt 3 "$IPPROTO_TCP" "$TCP_REPAIR" ||
			return 1
		probe kill "$pid" setsockopt 3 "$SOL_SOCKET" "$SO_RCVBUF" ||
			return 1
	fi
	kill -0 "$pid" 2>/dev/null ||
		rig_fail "$1 died during the checks" || return 1
}

# reader_profile() - test: the resolver file's reader, a child of passt
reader_profile() {
	local pid rpid fds

	[ -f /etc/resolv.conf ] ||
		rig_fail "no /etc/resolv.conf: nothing to follow" || return 1
	start_fg "$PASST" -f -s "$RIG_TMP/reader.sock" || return 1
	pid=$RIG_RELAY_PID
	rig_poll 5 grep -q '[0-9]' "/proc/$pid/task/$pid/children" ||
		rig_fail "passt started no reader of /etc/resolv.conf" ||
		return 1
	read -r rpid _ <"/proc/$pid/task/$pid/children"
	rig_poll 5 sandboxed "$rpid" ||
		rig_fail "the reader ($rpid) has no seccomp filter" || return 1
	profile_check resolv "$rpid" || return 1

	probe allow "$rpid" openat 3 0 "$O_RESOLV" || return 1
	probe kill "$rpid" openat 3 0 "$O_RDONLY" || return 1
	probe kill "$rpid" openat "$AT_FDCWD" 0 "$O_RESOLV" || return 1
	probe allow "$rpid" write 5 0 0 || return 1
	probe kill "$rpid" write 3 0 0 || return 1
	probe kill "$rpid" socket "$AF_UNIX" "$SOCK_STREAM" 0 || return 1
	probe kill "$rpid" connect 5 0 0 || return 1

	grep -q '^CapEff:[[:space:]]*0*$' "/proc/$rpid/status" ||
		rig_fail "the reader has capabilities:" \
			 "$(grep ^CapEff "/proc/$rpid/status")" || return 1
	[ "$(cat "/proc/$rpid/comm")" = resolv-reader ] ||
		rig_fail "the reader is named $(cat "/proc/$rpid/comm")" ||
		return 1
	grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$rpid/status" ||
		rig_fail "the reader may gain privileges" || return 1
	fds=$(find "/proc/$rpid/fd" -mindepth 1 -printf '%f\n' | sort -n |
	      tr '\n' ' ')
	[ "$fds" = "3 4 5 " ] ||
		rig_fail "the reader's descriptors: $fds, expected 3 4 5" ||
		return 1
	rig_relay_alive || rig_fail "passt died during the checks" || return 1
	rig_relay_stop_check
	rig_poll 5 rig_exited "$rpid" ||
		rig_fail "the reader outlived passt" || return 1
}

# wrong_filter() - test: the check catches a filter that isn't the mode's
wrong_filter() {
	local pid why

	start_fg env SANDBOX_TEST_WRONG_FILTER=1 "$HOOK_DIR/passt" -f \
		-s "$RIG_TMP/wrong.sock" || return 1
	pid=$RIG_RELAY_PID
	if profile_check passt "$pid"; then
		rig_fail "stream passt loaded vhost-user's filter, and the" \
			 "check passed"
		return 1
	fi
	why=$RIG_WHY
	RIG_WHY=
	rig_log "the check said: $why"
	grep -q '^> mmap ' "$RIG_TMP/filter.passt.$pid.diff" ||
		rig_fail "the difference doesn't name mmap: $why" || return 1
	probe allow "$pid" mmap 0 4096 "$PROT_RW" "$MAP_SHARED" 3 0 ||
		return 1
	rig_relay_stop_check
}

rig_run "passt, stream socket: filter is the lists, no mmap" stream_passt
rig_run "passt --vhost-user: filter is the lists, no PROT_EXEC" vu_passt
rig_run "pasta: filter is the lists, every thread" pasta_profile
rig_run "pesto, connected: filter is the lists" client_check pesto \
	"$PESTO"
rig_run "passt-repair, connected: filter is the lists" client_check repair \
	"$REPAIR"
rig_run "resolver file's reader: filter is the lists, openat beneath" \
	reader_profile
rig_run "the check catches a filter of the wrong mode" wrong_filter
rig_summary
