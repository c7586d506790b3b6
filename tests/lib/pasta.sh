# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/pasta.sh - helpers for the pasta_*.sh integration scripts
#
# Theory of operation: sourced after tests/lib/rig.sh. rig_relay_start()
# always passes "-u none -T none -U none" and --runas 0; the pasta_*
# scripts need exact command lines instead (auto forwarding is the
# default they test, and the podman and RootlessKit lines must be used as
# those programs write them). pasta_start() runs the relay in the rig's
# host namespace with the given options only, in daemon mode, and checks
# that it went to the background with status 0 and wrote its PID file.
#
# A daemon's parent is PID 1 of the machine, which may reap it only a
# while after it exited: "exited" below means gone, or a zombie with no
# thread left (rig_exited()).
#
# Sockets are told apart by owner: pasta_listens() only counts sockets of
# the relay (ss -p), so that a test can tell its own server from the
# relay's listening socket on the same port.

PASTA_PID=		# relay started by pasta_start
PASTA_LOG=		# its output (before it went to the background)
PASTA_RC=		# exit status of the foreground part

# pasta_start() - start pasta in the host namespace, daemon mode
# $1: how to run it: "netns" (ip netns exec HOST), or a command prefix
#     such as "ip netns exec HOST unshare -m ..." given as one word list
#     in PASTA_WRAP (then pass "wrap")
# $2...: pasta options, exactly as the relay gets them (-P FILE is added
#     in front)
#
# Sets PASTA_PID, PASTA_LOG, PASTA_RC; sets RIG_RELAY_LOG so that a failing
# test shows the log. The relay is killed at the end of the test.
# Return: 0 if pasta exited 0 and its PID file names a running process
pasta_start() {
	local how=$1 pidfile
	shift

	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	PASTA_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	# shellcheck disable=SC2034 # read by rig_run on failure
	RIG_RELAY_LOG=$PASTA_LOG
	pidfile=$RIG_TMP/relay.$RIG_RELAY_SEQ.pid
	PASTA_PID=
	echo "# $RELAY -P $pidfile $*" >"$PASTA_LOG"
	if [ "$how" = wrap ]; then
		"${PASTA_WRAP[@]}" timeout 30 "$RELAY" -P "$pidfile" "$@" \
			>>"$PASTA_LOG" 2>&1
	else
		rig_h timeout 30 "$RELAY" -P "$pidfile" "$@" \
			>>"$PASTA_LOG" 2>&1
	fi
	PASTA_RC=$?
	PASTA_PID=$(cat "$pidfile" 2>/dev/null)
	[ -n "$PASTA_PID" ] && rig_defer "rig_kill '$PASTA_PID'"
	[ "$PASTA_RC" -eq 0 ] ||
		rig_fail "pasta exited with status $PASTA_RC:" \
			 "$(tail -n 3 "$PASTA_LOG" | tr '\n' ' ')" || return 1
	[ -n "$PASTA_PID" ] ||
		rig_fail "pasta did not write its PID file" || return 1
	pasta_running || rig_fail "pasta (pid $PASTA_PID) not running" ||
		return 1
	rig_log "pasta pid $PASTA_PID, log $PASTA_LOG"
}

# pasta_running() - check that the relay of pasta_start still runs
pasta_running() {
	[ -n "$PASTA_PID" ] && ! rig_exited "$PASTA_PID"
}

# pasta_exit_within() - wait for the relay to exit, measure how long it took
# $1: limit, milliseconds
# $2: start time (rig_now_ms) of the event it must exit on
# Sets PASTA_EXIT_MS. Return: 0 if it exited within the limit
pasta_exit_within() {
	local limit=$1 t0=$2

	while ! rig_exited "$PASTA_PID"; do
		PASTA_EXIT_MS=$(( $(rig_now_ms) - t0 ))
		if [ "$PASTA_EXIT_MS" -gt $((limit + 3000)) ]; then
			rig_fail "pasta still running $PASTA_EXIT_MS ms later"
			return 1
		fi
		sleep 0.02
	done
	PASTA_EXIT_MS=$(( $(rig_now_ms) - t0 ))
	rig_log "pasta exited after $PASTA_EXIT_MS ms"
	[ "$PASTA_EXIT_MS" -le "$limit" ] ||
		rig_fail "pasta exited after $PASTA_EXIT_MS ms, limit $limit ms"
}

# pasta_tap_gone() - wait (up to 10 s) for the tap device of a relay that
# exited to disappear from a namespace, so that another relay can create it
# $1: namespace
# $2: device name (default veth0, the rig's template interface)
pasta_tap_gone() {
	local dev=${2:-veth0} t0

	t0=$(rig_now_ms)
	rig_poll 10 eval "! ip -n '$1' link show '$dev' >/dev/null 2>&1" ||
		rig_fail "tap device $dev still in $1 10 s after pasta exited" ||
		return 1
	rig_log "tap device gone $(( $(rig_now_ms) - t0 )) ms after exit"
}

# pasta_listens() - check that the relay has a socket bound to a port
# $1: "tcp" or "udp"
# $2: command prefix to enter the namespace (e.g. "ip netns exec NS")
# $3: port
# $4: address family filter for ss: "" (both), "-4" or "-6"
pasta_listens() {
	local proto=$1 enter=$2 port=$3 fam=$4 opt=-Hltnp out

	[ "$proto" = udp ] && opt=-Hlunp
	# shellcheck disable=SC2086 # prefix and family are word lists
	out=$($enter ss $opt $fam "sport = :$port" 2>/dev/null)
	grep -q "pid=$PASTA_PID," <<<"$out"
}

# pasta_wait_closed() - wait (up to 5 s) until nothing is bound to a port
# $1: "tcp" or "udp"
# $2: command prefix to enter the namespace
# $3: port
# A server's forked children may keep its listening socket for a moment
# after the server itself ended: the relay follows the socket, not the
# process.
pasta_wait_closed() {
	local opt=-Hltn

	[ "$1" = udp ] && opt=-Hlun
	# shellcheck disable=SC2086 # prefix is a word list
	rig_poll 5 eval "[ -z \"\$($2 ss $opt 'sport = :$3' 2>/dev/null)\" ]" ||
		rig_fail "$1 port $3 still bound 5 s after its server ended"
}

# pasta_wait_state() - wait for a relay socket to appear or go away,
# measure how long it took
# $1: "up" or "down"
# $2: limit, milliseconds (waits up to 3 s more, to report the time)
# $3...: pasta_listens arguments
# Sets PASTA_WAIT_MS. Return: 0 if the state was reached within the limit
pasta_wait_state() {
	local want=$1 limit=$2 t0 now
	shift 2

	t0=$(rig_now_ms)
	while :; do
		if pasta_listens "$@"; then
			[ "$want" = up ] && break
		else
			[ "$want" = down ] && break
		fi
		now=$(rig_now_ms)
		if [ $((now - t0)) -gt $((limit + 3000)) ]; then
			rig_fail "relay socket for $1 port $3 not $want after" \
				 "$((now - t0)) ms"
			return 1
		fi
		sleep 0.02
	done
	PASTA_WAIT_MS=$(( $(rig_now_ms) - t0 ))
	[ "$PASTA_WAIT_MS" -le "$limit" ] ||
		rig_fail "relay socket for $1 port $3 $want after" \
			 "$PASTA_WAIT_MS ms, limit $limit ms"
}

# pasta_sum_script() - print the path of a server script for socat SYSTEM:
# it writes the sha256 of its input to $1 (atomically) and, if $2 is
# given, the peer address socat saw (SOCAT_PEERADDR) to $2
pasta_sum_script() {
	local f=$RIG_TMP/pasta_sum.sh

	if [ ! -x "$f" ]; then
		cat >"$f" <<'EOF'
#!/bin/sh
[ -n "$2" ] && echo "$SOCAT_PEERADDR" >"$2"
sha256sum | cut -d' ' -f1 >"$1.tmp" && mv "$1.tmp" "$1"
EOF
		chmod +x "$f"
	fi
	echo "$f"
}

# pasta_tcp_sha() - send a file over TCP, check what the server received
# $1: command prefix for the server (e.g. "ip netns exec NS")
# $2: socat listen address for the server
# $3: command prefix for the client
# $4: socat connect address
# $5: file
# $6: timeout, seconds
# The server writes the sha256 of what it received, and the peer address
# it saw (socat's SOCAT_PEERADDR) to $RIG_TMP/peer.
pasta_tcp_sha() {
	local senter=$1 listen=$2 center=$3 conn=$4 file=$5 limit=$6
	local sum=$RIG_TMP/tcp.$RANDOM.sha spid rc

	rm -f "$RIG_TMP/peer"
	# shellcheck disable=SC2086 # prefixes are word lists
	$senter timeout -k 5 "$limit" socat -u "$listen,reuseaddr" \
		SYSTEM:"$(pasta_sum_script) $sum $RIG_TMP/peer" \
		2>"$RIG_TMP/server.err" &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_poll 5 eval "$senter ss -Hltn 'sport = :$(rig_port_of "$listen")' |
			 grep -q ." || rig_fail "server did not start" || return 1
	# shellcheck disable=SC2086
	$center timeout -k 5 "$limit" socat -u "FILE:$5" \
		"$conn,connect-timeout=5" 2>"$RIG_TMP/client.err"
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "client exited with status $rc:" \
		"$(tr '\n' ' ' <"$RIG_TMP/client.err")" || return 1
	rig_wait_pid "$spid" "$limit" ||
		rig_fail "server failed: $(tr '\n' ' ' <"$RIG_TMP/server.err")" ||
		return 1
	[ "$(cat "$sum" 2>/dev/null)" = "$(rig_sha "$file")" ] ||
		rig_fail "sha256 mismatch: sent $(rig_sha "$file" | cut -c1-12)," \
			 "received $(cut -c1-12 "$sum" 2>/dev/null)" || return 1
	rig_log "$(stat -c %s "$file") bytes, sha256 ok, server saw peer" \
		"$(cat "$RIG_TMP/peer" 2>/dev/null)"
}

# pasta_peer_is() - check the peer address the last pasta_tcp_sha server saw
# $1: expected address (as socat prints it: IPv6 in brackets)
pasta_peer_is() {
	local got

	got=$(cat "$RIG_TMP/peer" 2>/dev/null)
	[ "$got" = "$1" ] || rig_fail "server saw peer '$got', expected '$1'"
}

# pasta_udp_echo() - run udp_echo against a server, expect every echo
# $1: command prefix for the server
# $2: server options (one word list)
# $3: command prefix for the client
# $4: address
# $5: port
# $6...: more client options
pasta_udp_echo() {
	local senter=$1 sopts=$2 center=$3 addr=$4 port=$5 out rc spid
	shift 5

	# shellcheck disable=SC2086 # word lists
	$senter timeout -k 5 60 "$TOOLS_DIR/udp_echo" server $sopts \
		2>>"$RIG_TMP/server.err" &
	spid=$!
	rig_defer "rig_kill $spid"
	rig_poll 5 eval "$senter ss -Hlun 'sport = :$(sed -n \
			 's/.*-p \([0-9]*\).*/\1/p' <<<"$sopts")' | grep -q ." ||
		rig_fail "echo server did not start" || return 1
	# shellcheck disable=SC2086
	out=$($center timeout -k 5 60 "$TOOLS_DIR/udp_echo" client \
		-a "$addr" -p "$port" "$@" 2>&1)
	rc=$?
	rig_log "$(head -n 1 <<<"$out")"
	[ "$rc" -eq 0 ] || rig_fail "$(tr '\n' ' ' <<<"$out")"
}
