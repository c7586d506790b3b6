#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_conn.sh - passt's guest socket: life cycle
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt in a host namespace of
# our own, guests are namespaces connected by tap_bridge. Checked:
#   - daemon mode: exit status 0 once the socket is there, PID file, and a
#     guest gets a working network (20 MiB each way, sha256);
#   - the guest disconnects (tap_bridge killed) and a new one connects:
#     the network works again;
#   - a second guest connecting while one is served waits, and is served
#     as soon as the first one leaves;
#   - a stale socket file at the -s path is replaced; a socket another
#     process listens on is left alone, and passt fails to start;
#   - without -s, passt picks the first free /tmp/passt_N.socket;
#   - -1/--one-off: passt exits with status 0 when the guest disconnects;
#   - -F/--fd: passt serves a socket its caller connected (here socat,
#     through a socket pair), and exits when it closes.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=20M
LIMIT=60
FWD=10001

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" "$SIZE" || exit 1

# traffic() - 20 MiB each way between a guest and the host namespace
# $1: guest namespace
traffic() {
	rig_transfer "$1" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$FWD" \
		"$1" "TCP6-LISTEN:$FWD,ipv6only=1" "$DATA" "$LIMIT"
}

# daemon_guest() - test: passt as a daemon, one guest, traffic
daemon_guest() {
	passt_start daemon "$RIG_TMP/d.socket" -t "$FWD" || return 1
	passt_guest_start "$RIG_NS" || return 1
	passt_guest_static "$RIG_NS" || return 1
	traffic "$RIG_NS"
}

# reconnect() - test: the guest goes away, a new one connects
reconnect() {
	rig_persist	# the new guest stays for the next test
	passt_guest_stop
	rig_poll 5 passt_log_has "Guest connection closed" ||
		rig_fail "passt did not notice the guest leaving" || return 1
	passt_guest_start "$RIG_NS" || return 1
	passt_guest_static "$RIG_NS" || return 1
	traffic "$RIG_NS"
}

# accepted_count() - how many guests the current relay accepted
accepted_count() {
	grep -c "Accepted guest connection" "$RIG_RELAY_LOG"
}

# second_waits() - test: a second guest waits for the first to leave
second_waits() {
	local first ns2 n

	first=$PASST_BRIDGE_PID
	n=$(accepted_count)
	rig_ns_new ns2 w || return 1
	passt_guest_start "$ns2" || return 1
	passt_guest_static "$ns2" || return 1
	sleep 0.5
	[ "$(accepted_count)" -eq "$n" ] ||
		rig_fail "second guest accepted while the first is there" ||
		return 1

	PASST_BRIDGE_PID=$first
	passt_guest_stop
	# shellcheck disable=SC2016 # expanded by eval, at each poll
	rig_poll 5 eval '[ "$(accepted_count)" -gt "$n" ]' ||
		rig_fail "second guest not accepted after the first left" ||
		return 1
	traffic "$ns2"
}

# stale_and_live() - test: stale socket file replaced, live one kept
stale_and_live() {
	local sock=$RIG_TMP/stale.socket pid rc

	# A socket file nobody listens on any more
	socat UNIX-LISTEN:"$sock" /dev/null &
	pid=$!
	rig_poll 5 test -S "$sock" ||
		rig_fail "socat did not create $sock" || return 1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	[ -S "$sock" ] || rig_fail "socket file gone with socat" || return 1

	passt_start fg "$sock" || return 1
	rig_poll 5 passt_log_has "UNIX domain socket bound at $sock" ||
		rig_fail "passt did not take over the stale path" || return 1

	# Now it is live: a second passt must leave it alone and fail
	rig_h timeout 10 "$PASST" --runas 0 -f -s "$sock" \
		>"$RIG_TMP/second.log" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
		rig_fail "second passt on a live path: status $rc" || return 1
	grep -q "another process listens on $sock" "$RIG_TMP/second.log" ||
		rig_fail "second passt said: $(tail -n 1 "$RIG_TMP/second.log")" ||
		return 1
	socat -u /dev/null UNIX-CONNECT:"$sock" ||
		rig_fail "first passt's socket does not accept any more"
}

# default_path() - test: no -s: the first free /tmp/passt_N.socket
default_path() {
	local log=$RIG_TMP/default.log pid path

	ip netns exec "$RIG_HOSTNS" "$PASST" --runas 0 -f >"$log" 2>&1 &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 grep -q "UNIX domain socket bound at" "$log" ||
		rig_fail "no socket announced: $(tail -n 1 "$log")" || return 1
	path=$(sed -n 's/.*UNIX domain socket bound at //p' "$log")
	rig_defer "rm -f '$path'"
	[[ $path =~ ^/tmp/passt_[0-9]+\.socket$ ]] ||
		rig_fail "unexpected default path $path" || return 1
	grep -qF "addr.path=$path" "$log" ||
		rig_fail "no QEMU command line hint for $path" || return 1
	socat -u /dev/null UNIX-CONNECT:"$path" ||
		rig_fail "can't connect to $path"
}

# one_off() - test: -1 makes passt exit 0 when the guest disconnects
one_off() {
	local sock=$RIG_TMP/one.socket log=$RIG_TMP/one.log pid rc

	ip netns exec "$RIG_HOSTNS" "$PASST" --runas 0 -f -1 -s "$sock" >"$log" 2>&1 &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 test -S "$sock" || rig_fail "no socket" || return 1
	PASST_SOCK=$sock
	passt_guest_start "$RIG_NS" || return 1
	rig_poll 5 grep -q "Accepted guest connection" "$log" ||
		rig_fail "guest not accepted" || return 1
	passt_guest_stop
	rig_poll 5 passt_exited "$pid" ||
		rig_fail "passt -1 still running after the disconnect" ||
		return 1
	wait "$pid"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "passt -1 exited with status $rc:" \
			 "$(tail -n 1 "$log")"
}

# fd_socket() - test: -F with a socket from the caller
#
# socat listens on a path; for the connection it starts passt with one end
# of a socket pair as standard input, which passt gets as -F 3 (as QEMU
# passes it). tap_bridge connects to socat's path.
fd_socket() {
	local sock=$RIG_TMP/fd.socket log=$RIG_TMP/fd.log pid cmd

	cmd="exec 3<&0 </dev/null >&2; exec '$PASST' --runas 0 -f -F 3"
	cmd="$cmd -t $FWD"
	ip netns exec "$RIG_HOSTNS" socat UNIX-LISTEN:"$sock" SYSTEM:"$cmd" 2>"$log" &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 test -S "$sock" || rig_fail "socat not listening" ||
		return 1
	# shellcheck disable=SC2034 # read by passt_guest_start
	PASST_SOCK=$sock
	passt_guest_start "$RIG_NS" || return 1
	passt_guest_static "$RIG_NS" || return 1
	rig_poll 5 grep -q "Serving the guest on socket descriptor 3" "$log" ||
		rig_fail "passt -F did not start: $(tail -n 1 "$log")" ||
		return 1
	rig_wait_listen "$RIG_HOSTNS" "$FWD" || return 1
	traffic "$RIG_NS" || return 1
	passt_guest_stop
	rig_poll 5 passt_exited "$pid" ||
		rig_fail "passt -F (or socat) still running after the" \
			 "guest left" || return 1
	grep -q "exiting (one-off)" "$log" ||
		rig_fail "passt -F did not exit as one-off: $(tail -n 1 "$log")"
}

rig_run "passt daemon: ready on exit, guest traffic" daemon_guest
rig_run "passt: guest disconnects, a new guest works" reconnect
rig_run "passt: second guest waits for the first" second_waits
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_run "passt: stale socket replaced, live one refused" stale_and_live
rig_run "passt exits on SIGTERM (stale path)" rig_relay_stop_check
rig_run "passt: default socket /tmp/passt_N.socket" default_path
rig_run "passt -1: exits 0 after the guest disconnects" one_off
rig_run "passt -F: socket from the caller" fd_socket
rig_summary
