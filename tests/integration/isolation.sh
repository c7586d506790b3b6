#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/isolation.sh - the sandbox of passt and pasta
#
# Rig (tests/lib/rig.sh): a host namespace of our own, and a target
# namespace for pasta (--netns). Both relays run with their default --runas
# (we are root, so they switch to nobody) and are checked while they run,
# from /proc/PID (doc/design.md, "Isolation"):
#
#   - every thread: "Seccomp: 2" (filter mode), "NoNewPrivs: 1";
#   - capabilities: passt none at all (CapEff, CapPrm, CapBnd zero); pasta
#     only CAP_NET_BIND_SERVICE (bit 10), in each set and each thread, but
#     for its worker thread with --config-net, which also keeps
#     CAP_NET_ADMIN (bit 12) to follow the host's network: in the initial
#     user namespace, where this test runs it, only with --follow-host;
#   - user nobody (65534);
#   - root: an empty directory (/proc/PID/root lists nothing); IPC and UTS
#     namespaces differ from ours, and so does the mount namespace; passt's
#     children would be in a PID namespace of their own (pid_for_children:
#     in the foreground, as here, the process itself stays in ours, as
#     upstream's; access_control.sh checks the background case, where it
#     is the first process of that namespace);
#   - pasta still forwards a TCP transfer in both directions;
#   - SIGTERM still ends them cleanly (the exit path is allowed too).
#
# Then the test build (make hook, build-hook/; made here unless HOOK_DIR
# is given, so that the script runs by itself after a plain make): on
# SIGUSR2 it makes a system call no module lists, and the filter must kill
# it with SIGSYS.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

NOBODY=65534
CAP_NBS_MASK=0000000000000400	# 1 << CAP_NET_BIND_SERVICE
CAP_FOLLOW_MASK=0000000000001400	# and 1 << CAP_NET_ADMIN
SIGSYS_STATUS=$((128 + 31))
FWD=10401
LIMIT=30

rig_init
passt_init
passt_hook_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/iso.bin
rig_random_file "$DATA" 8M || exit 1

# status_of() - one field of /proc/PID[/task/TID]/status
# $1: status file
# $2: field name
status_of() {
	awk -v f="$2:" '$1 == f { print $2 }' "$1"
}

# check_status() - test step: seccomp, no-new-privs, capabilities, user
# $1: PID
# $2: expected CapEff, CapPrm and CapBnd (16 hex digits)
# $3: the same for threads other than the main one, if they differ
check_status() {
	local pid=$1 caps=$2 st t v

	for st in /proc/"$pid"/status /proc/"$pid"/task/*/status; do
		t=${st#/proc/}
		t=${t%/status}
		[ -n "$3" ] && [ "$t" != "$pid/task/$pid" ] &&
			[ "$t" != "$pid" ] && caps=$3
		[ "$(status_of "$st" Seccomp)" = 2 ] ||
			rig_fail "$t: Seccomp: $(status_of "$st" Seccomp)," \
				 "expected 2" || return 1
		[ "$(status_of "$st" NoNewPrivs)" = 1 ] ||
			rig_fail "$t: NoNewPrivs:" \
				 "$(status_of "$st" NoNewPrivs), expected 1" ||
			return 1
		for v in CapEff CapPrm CapBnd CapAmb; do
			local want=$caps

			[ "$v" = CapAmb ] && want=0000000000000000
			[ "$(status_of "$st" "$v")" = "$want" ] ||
				rig_fail "$t: $v: $(status_of "$st" "$v")," \
					 "expected $want" || return 1
		done
		[ "$(status_of "$st" Uid)" = "$NOBODY" ] ||
			rig_fail "$t: Uid $(status_of "$st" Uid), expected" \
				 "$NOBODY (nobody)" || return 1
	done
	rig_log "$(grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' \
		 "/proc/$pid/status" | tr -s '\t\n' '  ')"
}

# check_root() - test step: empty root, namespaces of its own
# $1: PID
# $2: "pid" to check that its children get a PID namespace of their own
check_root() {
	local pid=$1 ns mine theirs entries

	entries=$(ls -A "/proc/$pid/root/" 2>&1) ||
		rig_fail "can't list the root of $pid: $entries" || return 1
	[ -z "$entries" ] ||
		rig_fail "root of $pid is not empty:" \
			 "$(tr '\n' ' ' <<<"$entries")" || return 1
	for ns in mnt ipc uts; do
		mine=$(readlink "/proc/$$/ns/$ns")
		theirs=$(readlink "/proc/$pid/ns/$ns")
		[ -n "$theirs" ] && [ "$mine" != "$theirs" ] ||
			rig_fail "$ns namespace of $pid is ours ($mine)" ||
			return 1
	done
	# A PID namespace nobody entered yet has no link to read (ENOENT)
	if [ "$2" = pid ]; then
		mine=$(readlink "/proc/$pid/ns/pid")
		theirs=$(readlink "/proc/$pid/ns/pid_for_children")
		[ -n "$mine" ] && [ "$mine" != "$theirs" ] ||
			rig_fail "children of $pid would be in its PID" \
				 "namespace ($mine)" || return 1
		rig_log "children's PID namespace: ${theirs:-new, none entered yet}"
	fi
	rig_log "root empty; mnt $(readlink "/proc/$pid/ns/mnt")," \
		"ipc $(readlink "/proc/$pid/ns/ipc")," \
		"uts $(readlink "/proc/$pid/ns/uts")"
}

# start_fg() - start a relay in the foreground in the host namespace
# $1: binary
# $2...: options
# Sets RIG_RELAY_PID, RIG_RELAY_LOG
start_fg() {
	local bin=$1
	shift

	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	echo "# $bin -f $*" >"$RIG_RELAY_LOG"
	ip netns exec "$RIG_HOSTNS" "$bin" -f "$@" >>"$RIG_RELAY_LOG" 2>&1 &
	RIG_RELAY_PID=$!
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_MODE="fg"
	rig_defer "rig_kill '$RIG_RELAY_PID'"
}

# sandboxed() - is the relay's filter loaded yet?
# $1: PID
sandboxed() {
	[ "$(status_of "/proc/$1/status" Seccomp 2>/dev/null)" = 2 ]
}

# passt_sandbox() - test: passt as nobody, no capabilities, filter, root
passt_sandbox() {
	local sock=$RIG_TMP/iso.passt.sock

	start_fg "$PASST" -s "$sock" || return 1
	rig_poll 5 sandboxed "$RIG_RELAY_PID" ||
		rig_fail "passt has no seccomp filter after 5 s" || return 1
	check_status "$RIG_RELAY_PID" 0000000000000000 || return 1
	check_root "$RIG_RELAY_PID" pid || return 1
	rig_relay_alive || rig_fail "passt died during the checks" || return 1
	rig_relay_stop_check
}

# pasta_sandbox() - test: pasta as nobody, CAP_NET_BIND_SERVICE only (its
# worker: and CAP_NET_ADMIN, only with --follow-host, as this test runs it
# in the initial user namespace)
# $1: "follow" (--follow-host), "default" (no option) or "fixed"
#     (--no-follow-host)
pasta_sandbox() {
	local tasks opt='' worker=$CAP_NBS_MASK

	case $1 in
	follow)	opt=--follow-host worker=$CAP_FOLLOW_MASK ;;
	fixed)	opt=--no-follow-host ;;
	esac
	# shellcheck disable=SC2086 # $opt is empty or one word
	start_fg "$RELAY" --config-net -u none -T none -U none $opt \
		-t "$FWD" --netns "$RIG_NS" || return 1
	rig_poll 5 sandboxed "$RIG_RELAY_PID" ||
		rig_fail "pasta has no seccomp filter after 5 s" || return 1
	rig_poll 5 rig_has_addr "$RIG_NS" "$RIG_ADDR4" ||
		rig_fail "$RIG_ADDR4 not configured in the namespace" ||
		return 1
	tasks=(/proc/"$RIG_RELAY_PID"/task/*)
	[ "${#tasks[@]}" -ge 2 ] ||
		rig_fail "pasta has no worker thread in the namespace" ||
		return 1
	check_status "$RIG_RELAY_PID" "$CAP_NBS_MASK" "$worker" || return 1
	check_root "$RIG_RELAY_PID" || return 1

	# Through the filter, both ways
	rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7401" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7401,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$FWD" \
		"$RIG_NS" "TCP6-LISTEN:$FWD" "$DATA" "$LIMIT" || return 1
	rig_relay_alive || rig_fail "pasta died during the checks" || return 1
	rig_relay_stop_check
}

# forbidden() - test: the test build dies of SIGSYS on a forbidden call
# $1: "passt" or "pasta"
forbidden() {
	local bin=$HOOK_DIR/$1 rc

	[ -x "$bin" ] || rig_fail "$bin not built (run make hook)" ||
		return 1
	if [ "$1" = passt ]; then
		start_fg "$bin" -s "$RIG_TMP/iso.hook.sock" || return 1
	else
		start_fg "$bin" --config-net -u none -T none -U none \
			--netns "$RIG_NS" || return 1
	fi
	rig_poll 5 sandboxed "$RIG_RELAY_PID" ||
		rig_fail "$1 has no seccomp filter after 5 s" || return 1
	kill -USR2 "$RIG_RELAY_PID"
	rig_poll 5 rig_exited "$RIG_RELAY_PID" ||
		rig_fail "$1 still runs 5 s after SIGUSR2" || return 1
	wait "$RIG_RELAY_PID"
	rc=$?
	RIG_RELAY_PID=
	[ "$rc" -eq "$SIGSYS_STATUS" ] ||
		rig_fail "$1 exited with status $rc, expected" \
			 "$SIGSYS_STATUS (SIGSYS)" || return 1
	rig_log "$1 killed by SIGSYS (status $rc)"
}

rig_run passt_sandbox passt_sandbox
rig_run pasta_sandbox pasta_sandbox follow
rig_run pasta_sandbox_default pasta_sandbox default
rig_run pasta_sandbox_fixed pasta_sandbox fixed
rig_run "forbidden passt" forbidden passt
rig_run "forbidden pasta" forbidden pasta
rig_summary
