#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_spawn.sh - pasta running a command in a new
# namespace (the form of README command 1)
#
# Rig (tests/lib/rig.sh): a host namespace of our own; pasta runs inside it
# and spawns the command in new user and network namespaces, so the
# "host's addresses" the command must see are the rig's 192.0.2.2/24 and
# 2001:db8::2/64.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

LIMIT=20

rig_init
rig_host_ns || exit 1

DATA=$RIG_TMP/spawn.bin
rig_random_file "$DATA" 4M || exit 1

# no_leftover() - check that no process is left in the host namespace
no_leftover() {
	local pids

	pids=$(ip netns pids "$RIG_HOSTNS")
	[ -z "$pids" ] && return 0
	rig_fail "processes left after the command exited:" \
		 "$(ps -o pid=,comm= -p "$(tr '\n' ',' <<<"$pids" |
				       sed 's/,$//')" | tr -s ' \n' ' ')"
}

# readme_ip_addr() - test: as root, no other option, like README command 1
readme_ip_addr() {
	local out rc

	out=$(rig_h timeout -k 5 "$LIMIT" "$RELAY" --config-net -- ip addr \
		2>"$RIG_TMP/spawn.err")
	rc=$?
	rig_indent <<<"$out"
	[ "$rc" -eq 0 ] || rig_fail "pasta exited with status $rc:" \
		"$(tail -n 3 "$RIG_TMP/spawn.err" | tr '\n' ' ')" || return 1
	grep -q "inet $RIG_ADDR4/24 " <<<"$out" ||
		rig_fail "$RIG_ADDR4/24 missing from ip addr" || return 1
	grep -q "inet6 $RIG_ADDR6/64 " <<<"$out" ||
		rig_fail "$RIG_ADDR6/64 missing from ip addr" || return 1
	grep -q "mtu 65520 " <<<"$out" ||
		rig_fail "interface MTU is not the default 65520" || return 1
	rig_no_san "$RIG_TMP/spawn.err" && no_leftover
}

# exit_status() - test: pasta exits with the spawned command's status
exit_status() {
	local rc

	rig_h timeout -k 5 "$LIMIT" "$RELAY" --runas 0 --config-net \
		-- sh -c 'exit 3' 2>"$RIG_TMP/spawn.err"
	rc=$?
	[ "$rc" -eq 3 ] || rig_fail "exit status $rc, expected 3:" \
		"$(tail -n 3 "$RIG_TMP/spawn.err" | tr '\n' ' ')" || return 1
	rig_no_san "$RIG_TMP/spawn.err" && no_leftover
}

# spawn_transfer() - test: the spawned command talks to the host namespace
# $1: 4 or 6
#
# The client waits for the server to close (after it read everything):
# pasta ends with its command, and data still queued in the namespace would
# be lost with it.
spawn_transfer() {
	local listen conn sumfile=$RIG_TMP/spawn.sha rc

	if [ "$1" = 4 ]; then
		listen=TCP4-LISTEN:7004,bind=127.0.0.1
		conn=TCP4:$RIG_GW4:7004
	else
		listen="TCP6-LISTEN:7004,bind=[::1]"
		conn="TCP6:[$RIG_GW6]:7004"
	fi
	rig_tcp_recv_sha "$RIG_HOSTNS" "$listen" "$sumfile" "$LIMIT"
	rig_wait_listen "$RIG_HOSTNS" 7004 || return 1

	rig_h timeout -k 5 "$LIMIT" "$RELAY" --runas 0 --config-net \
		-t none -u none -T none -U none \
		-- sh -c "socat -t $LIMIT STDIO '$conn,connect-timeout=5' \
			  <'$DATA' >/dev/null" >"$RIG_TMP/spawn.err" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "pasta/socat exited with status $rc:" \
		"$(tail -n 3 "$RIG_TMP/spawn.err" | tr '\n' ' ')" || return 1
	rig_wait_pid "$RIG_BG_PID" "$LIMIT" ||
		rig_fail "receiver failed" || return 1
	[ "$(cat "$sumfile")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch" || return 1
	rig_no_san "$RIG_TMP/spawn.err" && no_leftover
}

# netns_freed() - test: the namespaces of finished commands go away
#
# At exit, pasta leaves its tap device to the end of the command's
# namespace (TUNSETPERSIST) instead of removing it itself: the kernel must
# then delete the device with the namespace and free the namespace. In a
# user namespace that allows two network namespaces below it, eight runs
# one after the other only start if each one's namespace was freed (the
# kernel frees them asynchronously: a run that can't start is tried again
# for a while).
netns_freed() {
	local script rc

	# shellcheck disable=SC2016 # expanded by the inner shell
	script='echo 2 >/proc/sys/user/max_net_namespaces || exit 9
		for i in 1 2 3 4 5 6 7 8; do
			t=0
			until "$0" --config-net -- true 2>>"$1"; do
				t=$((t + 1))
				[ "$t" -lt 40 ] || exit $((10 + i))
				sleep 0.25
			done
		done'
	rig_h timeout -k 5 "$LIMIT" unshare -Ur sh -c "$script" "$RELAY" \
		"$RIG_TMP/spawn.err"
	rc=$?
	case $rc in
	0) ;;
	9) rig_fail "can't limit network namespaces in a user namespace" ;;
	1[1-8]) rig_fail "run $((rc - 10)) of 8 could not start: a namespace" \
			 "of an earlier run was not freed:" \
			 "$(tail -n 2 "$RIG_TMP/spawn.err" | tr '\n' ' ')" ;;
	*) rig_fail "unexpected status $rc" ;;
	esac || return 1
	no_leftover
}

rig_run "pasta --config-net -- ip addr shows the host's addresses" \
	readme_ip_addr
rig_run "pasta -- CMD exits with CMD's status" exit_status
rig_run "pasta -- socat: ns->host IPv4 4 MiB sha256" spawn_transfer 4
rig_run "pasta -- socat: ns->host IPv6 4 MiB sha256" spawn_transfer 6
rig_run "pasta -- CMD, 8 runs: each namespace freed with its tap" \
	netns_freed
rig_summary
