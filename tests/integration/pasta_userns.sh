#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_userns.sh - pasta as root of a user namespace
# that maps only itself, and start-up failures that reach the caller
#
# Rig (tests/lib/rig.sh): every command runs in the rig's host namespace,
# through "unshare -U -r" (or "unshare -r"): uid 0 in a user namespace
# whose only ID is 0, where nobody (65534) does not exist. The commands
# are the ones of issue 18, word for word; upstream pasta (July 2026)
# behaves as checked here.
#
#   --netns /proc/PID/ns/net of a namespace made in that user namespace:
#     pasta -f configures it and runs (no --runas nobody default outside
#     the initial user namespace), and ends with status 0 when the
#     namespace's process ends;
#   pasta -f --config-net -- true: status 0 (the command's namespace maps
#     our only ID, 0, instead of the whole range); the command sees uid 0
#     mapped onto 0, the host's addresses, and may ping;
#   unshare -r -- pasta -q --netns-only -- echo TEST: prints TEST, status
#     0 (no user namespace, no ID map);
#   a set-up step made to fail after the fork (--runas 4242, not mapped):
#     the parent exits with status 1 and the reason on its stderr, writes
#     no PID, and no relay is left running; a forwarded port that can't be
#     bound (-t PORT, taken) gives status 1 and the reason too.

# shellcheck disable=SC2086 # $H: command prefix, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

BUSY_PORT=10181		# taken by a server of ours in the host namespace

rig_init
rig_need ping nsenter || exit 1
rig_host_ns || exit 1

H="ip netns exec $RIG_HOSTNS"
OUT=$RIG_TMP/out
ERR=$RIG_TMP/err

# holder_pid() - PID of the "unshare -n sleep" of the current test, once
# its shell wrote it
holder_pid() {
	cat "$RIG_TMP/holder" 2>/dev/null
}

# netns_configured() - does the holder's namespace have the rig's address?
netns_configured() {
	local pid

	pid=$(holder_pid)
	[ -n "$pid" ] &&
		nsenter -t "$pid" -n ip -o addr 2>/dev/null |
		grep -q "inet $RIG_ADDR4/24 "
}

# netns_pid() - test: pasta -f --config-net --netns /proc/PID/ns/net
netns_pid() {
	local pid rc

	rm -f "$RIG_TMP/holder"
	# The issue's command, plus "echo $! >FILE" to find the namespace
	# shellcheck disable=SC2016 # $! expands in that shell
	$H timeout 30 unshare -U -r sh -c 'unshare -n sleep 9 &
		echo $! >"$0"; sleep .3;
		exec "$1" -f --config-net --netns /proc/$!/ns/net' \
		"$RIG_TMP/holder" "$RELAY" >"$OUT" 2>"$ERR" &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 netns_configured ||
		rig_fail "namespace not configured after 5 s:" \
			 "$(tr '\n' ' ' <"$ERR" | tail -c 300)" || return 1
	rig_exited "$pid" && rig_fail "pasta exited:" \
		"$(tr '\n' ' ' <"$ERR" | tail -c 300)" && return 1

	kill "$(holder_pid)"
	rig_poll 5 rig_exited "$pid" ||
		rig_fail "pasta still running 5 s after the namespace ended" ||
		return 1
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "status $rc: $(tr '\n' ' ' <"$ERR" | tail -c 300)" ||
		return 1
	! grep -q "Can't switch" "$ERR" ||
		rig_fail "pasta tried to switch IDs: $(grep "Can't" "$ERR")"
}

# spawn_true() - test: unshare -U -r pasta -f --config-net -- true
spawn_true() {
	local rc out

	$H timeout 30 unshare -U -r "$RELAY" -f --config-net -- true \
		>"$OUT" 2>"$ERR"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "status $rc: $(tr '\n' ' ' <"$ERR" | tail -c 300)" ||
		return 1
	! grep -qi "can't write" "$ERR" ||
		rig_fail "ID map refused: $(grep -i "can't" "$ERR")" || return 1

	# What the command sees: our only ID mapped, addresses, ping
	rig_h sysctl -qw net.ipv4.ping_group_range="0 0" || return 1
	out=$($H timeout 30 unshare -U -r "$RELAY" -q --config-net -- \
	      sh -c 'cat /proc/self/uid_map /proc/self/gid_map; ip -o addr;
		     ping -c 1 -W 5 '"$RIG_GW4"' >/dev/null && echo PING-OK' \
	      2>&1)
	rc=$?
	rig_log "$(tr -s ' \n' ' ' <<<"$out" | cut -c1-200)"
	[ "$rc" -eq 0 ] || rig_fail "command failed ($rc): $out" || return 1
	[ "$(grep -c '^ *0 *0 *1$' <<<"$out")" -eq 2 ] ||
		rig_fail "uid/gid maps are not '0 0 1': $out" || return 1
	grep -q "inet $RIG_ADDR4/24 " <<<"$out" ||
		rig_fail "no $RIG_ADDR4 in the command's namespace" || return 1
	grep -q PING-OK <<<"$out" || rig_fail "ping of the gateway failed"
}

# netns_only() - test: unshare -r -- pasta -q --netns-only -- echo TEST
netns_only() {
	local rc

	$H timeout 30 unshare -r -- "$RELAY" -q --netns-only -- echo TEST \
		>"$OUT" 2>"$ERR"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "status $rc: $(tr '\n' ' ' <"$ERR" | tail -c 300)" ||
		return 1
	[ "$(cat "$OUT")" = TEST ] ||
		rig_fail "printed '$(cat "$OUT")', not TEST"
}

# fail_runas() - test: a step after the fork fails, the parent says so
fail_runas() {
	local rc pidfile=$RIG_TMP/fail.pid left

	rm -f "$RIG_TMP/holder"
	# shellcheck disable=SC2016 # $! and $1... expand in that shell
	$H timeout 30 unshare -U -r sh -c 'unshare -n sleep 9 &
		echo $! >"$0"; sleep .3;
		"$1" --config-net --runas 4242 -P "$2" \
			--netns /proc/$!/ns/net; rc=$?; kill $!; exit $rc' \
		"$RIG_TMP/holder" "$RELAY" "$pidfile" >"$OUT" 2>"$ERR"
	rc=$?
	rig_log "status $rc, stderr: $(tr '\n' ' ' <"$ERR" | tail -c 200)"
	[ "$rc" -eq 1 ] || rig_fail "status $rc, expected 1" || return 1
	grep -q "Can't switch to group 4242 (--runas)" "$ERR" ||
		rig_fail "reason not on stderr" || return 1
	[ ! -s "$pidfile" ] ||
		rig_fail "PID file written: $(cat "$pidfile")" || return 1
	left=$(pgrep -f -- "--runas 4242 -P $pidfile")
	[ -z "$left" ] || rig_fail "relay left running: $left"
}

# fail_port() - test: a -t port that can't be bound, in daemon mode
fail_port() {
	local rc

	$H socat TCP4-LISTEN:$BUSY_PORT,reuseaddr,fork /dev/null &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" $BUSY_PORT || return 1
	rig_ns_new NS p || return 1
	$H timeout 30 "$RELAY" --config-net -t $BUSY_PORT \
		-u none -T none -U none --netns "$NS" >"$OUT" 2>"$ERR"
	rc=$?
	rig_log "status $rc, stderr: $(tr '\n' ' ' <"$ERR" | tail -c 200)"
	[ "$rc" -eq 1 ] || rig_fail "status $rc, expected 1" || return 1
	grep -q "$BUSY_PORT" "$ERR" ||
		rig_fail "stderr doesn't name port $BUSY_PORT" || return 1
	[ -z "$(ip netns pids "$NS")" ] || rig_fail "relay left running"
}

rig_run "unshare -U -r: pasta -f --config-net --netns /proc/PID/ns/net configures, runs, exits 0 with PID" \
	netns_pid
rig_run "unshare -U -r pasta -f --config-net -- true: status 0; command sees uid 0 as '0 0 1', addresses, ping" \
	spawn_true
rig_run "unshare -r -- pasta -q --netns-only -- echo TEST: prints TEST" \
	netns_only
rig_run "set-up fails after the fork (--runas 4242): parent exits 1 with the reason, no PID, nothing left" \
	fail_runas
rig_run "-t PORT already taken: exits 1 naming the port, nothing left" \
	fail_port
rig_summary
