#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_lifecycle.sh - when pasta returns, and when it
# ends
#
# Rig (tests/lib/rig.sh): pasta runs in the host namespace of the rig (so,
# through "ip netns exec", in a mount namespace of its own) and goes to the
# background, unless a test says otherwise.
#
#   ready on return: the moment pasta exits 0, the namespace has its
#     addresses, default routes and MTU, and the PID file names the
#     running daemon;
#   failure: a namespace that doesn't exist gives a message, exit status
#     1, and no process left behind;
#   --netns NAME: pasta ends within 2 s of "ip netns del NAME", run from
#     outside its mount namespace;
#   --no-netns-quit: it doesn't, and SIGTERM still ends it within 2 s;
#   PID: pasta ends within 2 s of the process owning the namespace;
#   --userns PATH --netns /proc/PID/ns/net (RootlessKit's form): the same;
#   --netns-only with a PID: the user namespace is not joined;
#   foreground: SIGTERM ends pasta with status 0 within 2 s.
#
# "Ends" means the process is gone, or a zombie with no thread left
# (rig_exited()): a daemon's parent is PID 1 of the machine, which may
# take a while to reap it. That time is logged too, not checked.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

WITHIN_MS=2000

rig_init
rig_host_ns || exit 1

H="ip netns exec $RIG_HOSTNS"

# ready_checks() - check the namespace's configuration right now
# $1: command prefix to enter the namespace
# $2: tap device name
ready_checks() {
	local enter=$1 dev=$2 a r l

	# shellcheck disable=SC2086 # prefix is a word list
	a=$($enter ip -o addr show dev "$dev" 2>&1)
	# shellcheck disable=SC2086
	r=$($enter ip route; $enter ip -6 route)
	# shellcheck disable=SC2086
	l=$($enter ip -o link show dev "$dev" 2>&1)
	grep -q "inet $RIG_ADDR4/24 " <<<"$a" &&
		grep -q "inet6 $RIG_ADDR6/64 " <<<"$a" ||
		rig_fail "addresses missing when pasta returned: $a" ||
		return 1
	grep -q "^default via $RIG_GW4 " <<<"$r" &&
		grep -q "^default via $RIG_GW6 " <<<"$r" ||
		rig_fail "default routes missing when pasta returned:" \
			 "$(tr '\n' ' ' <<<"$r")" || return 1
	grep -q " mtu 65520 " <<<"$l" ||
		rig_fail "MTU is not 65520: $l" || return 1
	# shellcheck disable=SC2086
	$enter ip -o link show lo | grep -q "UP" ||
		rig_fail "loopback is down in the namespace"
}

# reaped_after() - log how long PID 1 took to reap the daemon (no check)
# $1: start time
reaped_after() {
	local i

	for i in $(seq 50); do
		kill -0 "$PASTA_PID" 2>/dev/null || break
		sleep 0.1
	done
	rig_log "daemon reaped $(( $(rig_now_ms) - $1 )) ms after the event" \
		"(by PID 1, not pasta)"
}

# ready() - test: exit 0 means configured, PID file right
ready() {
	local ns

	rig_ns_new ns r || return 1
	pasta_start netns --runas 0 --config-net --netns "$ns" || return 1
	ready_checks "ip netns exec $ns" veth0 || return 1
	[ "$(cat /proc/"$PASTA_PID"/comm)" = pasta ] ||
		rig_fail "PID file names $(cat /proc/"$PASTA_PID"/comm)"
}

# failure() - test: a missing namespace: exit 1, message, nothing left
failure() {
	local out rc pidfile=$RIG_TMP/fail.pid

	out=$($H timeout 10 "$RELAY" --runas 0 --config-net \
		--netns "${RIG_PREFIX}missing" -P "$pidfile" 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] || rig_fail "exit status $rc, expected 1" || return 1
	grep -q "${RIG_PREFIX}missing" <<<"$out" ||
		rig_fail "message doesn't name the namespace: $out" || return 1
	[ ! -s "$pidfile" ] || ! kill -0 "$(cat "$pidfile")" 2>/dev/null ||
		rig_fail "a process was left running"
}

# netns_del() - test: --netns NAME, "ip netns del" from outside
netns_del() {
	local ns t0

	rig_ns_new ns d || return 1
	pasta_start netns --runas 0 --config-net --netns "$ns" || return 1
	t0=$(rig_now_ms)
	ip netns del "$ns"
	pasta_exit_within $WITHIN_MS "$t0" || return 1
	reaped_after "$t0"
}

# no_quit() - test: --no-netns-quit survives deletion, SIGTERM ends it
no_quit() {
	local ns t0

	rig_ns_new ns q || return 1
	pasta_start netns --runas 0 --config-net --no-netns-quit \
		--netns "$ns" || return 1
	ip netns del "$ns"
	sleep 2.5
	pasta_running ||
		rig_fail "pasta ended with its namespace despite" \
			 "--no-netns-quit" || return 1
	t0=$(rig_now_ms)
	kill -TERM "$PASTA_PID"
	pasta_exit_within $WITHIN_MS "$t0"
}

# holder() - start a process in new namespaces, in the host namespace
# $@: unshare options
# Sets HOLDER (its PID).
holder() {
	$H unshare "$@" sleep 600 &
	HOLDER=$!
	rig_defer "rig_kill $HOLDER"
	# unshare execs sleep once the namespaces exist
	rig_poll 5 eval "[ \"\$(cat /proc/$HOLDER/comm 2>/dev/null)\" = sleep ]" ||
		rig_fail "namespace holder did not start"
}

# pid_end() - test: PID form, the process ends
pid_end() {
	local t0

	holder --net || return 1
	pasta_start netns --runas 0 --config-net "$HOLDER" || return 1
	ready_checks "nsenter -t $HOLDER -n" veth0 || return 1
	t0=$(rig_now_ms)
	kill -KILL "$HOLDER"
	{ wait "$HOLDER"; } 2>/dev/null
	pasta_exit_within $WITHIN_MS "$t0" || return 1
	reaped_after "$t0"
}

# userns_end() - test: --userns and --netns=/proc/PID/ns/net
userns_end() {
	local t0

	holder --user --map-root-user --net || return 1
	pasta_start netns --config-net --userns "/proc/$HOLDER/ns/user" \
		--netns "/proc/$HOLDER/ns/net" || return 1
	ready_checks "nsenter -t $HOLDER -n" veth0 || return 1
	[ "$(readlink "/proc/$PASTA_PID/ns/user")" = \
	  "$(readlink "/proc/$HOLDER/ns/user")" ] ||
		rig_fail "pasta did not join the user namespace" || return 1
	t0=$(rig_now_ms)
	kill -KILL "$HOLDER"
	{ wait "$HOLDER"; } 2>/dev/null
	pasta_exit_within $WITHIN_MS "$t0"
}

# netns_only() - test: --netns-only with a PID: user namespace not joined
netns_only() {
	local t0

	holder --user --map-root-user --net || return 1
	pasta_start netns --runas 0 --config-net --netns-only "$HOLDER" ||
		return 1
	ready_checks "nsenter -t $HOLDER -n" veth0 || return 1
	[ "$(readlink "/proc/$PASTA_PID/ns/user")" = \
	  "$(readlink /proc/self/ns/user)" ] ||
		rig_fail "pasta joined the user namespace despite --netns-only" ||
		return 1
	t0=$(rig_now_ms)
	kill -KILL "$HOLDER"
	{ wait "$HOLDER"; } 2>/dev/null
	pasta_exit_within $WITHIN_MS "$t0"
}

# foreground() - test: -f, SIGTERM: status 0 within 2 s
foreground() {
	local ns pid t0 rc

	rig_ns_new ns f || return 1
	PASTA_LOG=$RIG_TMP/fg.log
	RIG_RELAY_LOG=$PASTA_LOG
	ip netns exec "$RIG_HOSTNS" "$RELAY" -f --runas 0 --config-net \
		--netns "$ns" >"$PASTA_LOG" 2>&1 &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 rig_has_addr "$ns" "$RIG_ADDR4" ||
		rig_fail "namespace not configured after 5 s" || return 1
	t0=$(rig_now_ms)
	kill -TERM "$pid"
	rig_wait_pid "$pid" 5
	rc=$?
	[ $(( $(rig_now_ms) - t0 )) -le $WITHIN_MS ] ||
		rig_fail "exit took $(( $(rig_now_ms) - t0 )) ms" || return 1
	[ "$rc" -eq 0 ] || rig_fail "exit status $rc after SIGTERM"
}

rig_run "exit 0 means ready: addresses, routes, MTU, loopback, PID file" \
	ready
rig_run "missing namespace: exit status 1, message, nothing left" failure
rig_run "--netns NAME: exits within 2 s of 'ip netns del' from outside" \
	netns_del
rig_run "--no-netns-quit: keeps running, SIGTERM ends it within 2 s" no_quit
rig_run "PID: exits within 2 s of the process ending" pid_end
rig_run "--userns + --netns=/proc/PID/ns/net: joins, exits within 2 s of PID" \
	userns_end
rig_run "--netns-only PID: user namespace not joined, exits with PID" \
	netns_only
rig_run "foreground: SIGTERM gives status 0 within 2 s" foreground
rig_summary
