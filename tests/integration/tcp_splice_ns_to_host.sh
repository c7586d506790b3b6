#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_splice_ns_to_host.sh - pasta -T: spliced loopback
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground (-f, in the
# background of this script) in a host namespace of our own and serves a
# second namespace (--netns NAME), with -T for three ports: $PORT as is,
# $PORT_MAPPED to $PORT, and $PORT_REFUSED where nothing listens on the
# host. Servers listen on the host namespace's loopback; clients in the
# namespace connect to the namespace's own loopback, where pasta listens
# and splices each connection to a new one on the host side.
#
#   listening: every loopback address in the namespace, for every -T
#     port: the wildcard addresses bound to the loopback interface
#     (0.0.0.0%lo, [::]%lo), as upstream's "*%lo".
#   full duplex: 50 MiB each way at the same time (IPv4, IPv6).
#   half-close: the client sends 50 MiB and shuts down writing; the server
#     reads to end of file, only then answers 50 MiB (IPv4, IPv6, and the
#     mapped port).
#   slow reader: the server reads nothing for two seconds while the client
#     sends 50 MiB: pasta must hold the data, use no CPU meanwhile (no busy
#     loop), and resume when the server reads.
#   refused: a connection to a port nothing listens on in the host
#     namespace reaches the client as a reset.
#   resets: a reset from either peer reaches the other one.
#   concurrent: 20 echo connections at once, then no descriptor left open
#     in pasta once they are all closed.
#
# Every transfer is checked with sha256sum. Processes that are signalled
# or inspected later are started with "ip netns exec" directly, not through
# rig_h/rig_g, so that $! is their PID and not that of a subshell.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

SIZE=${SPLICE_SIZE:-50M}
LIMIT=120
PORT=10011		# forwarded as is
PORT_MAPPED=10013	# forwarded to $PORT
PORT_REFUSED=10012	# forwarded, nothing listens on the host
PARALLEL=20
IDLE_CPU_TICKS=10	# pasta CPU allowed while blocked, 1/100 s ticks

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

A=$RIG_TMP/a.bin
B=$RIG_TMP/b.bin
C=$RIG_TMP/c.bin
rig_random_file "$A" "$SIZE" || exit 1
rig_random_file "$B" "$SIZE" || exit 1
rig_random_file "$C" 2M || exit 1

# Server scripts (run by socat EXEC: standard input and output are the
# connection); each writes the hash of what it received to $RIG_TMP/srv_rx
cat >"$RIG_TMP/duplex.sh" <<EOF
#!/bin/sh
# Read and write at the same time. A background job reads /dev/null unless
# its input is redirected explicitly: hand it the connection on fd 3.
exec 3<&0
sha256sum <&3 | cut -d' ' -f1 >"$RIG_TMP/srv_rx" &
exec 3<&-
cat "$B"
wait
EOF
cat >"$RIG_TMP/halfclose.sh" <<EOF
#!/bin/sh
# Read to end of file, then answer
sha256sum | cut -d' ' -f1 >"$RIG_TMP/srv_rx"
cat "$B"
EOF
cat >"$RIG_TMP/slow.sh" <<EOF
#!/bin/sh
# Read nothing for a while, then everything
touch "$RIG_TMP/slow_started"
sleep 2
sha256sum | cut -d' ' -f1 >"$RIG_TMP/srv_rx"
EOF
cat >"$RIG_TMP/sink.sh" <<'EOF'
#!/bin/sh
exec cat >/dev/null
EOF
cat >"$RIG_TMP/source.sh" <<'EOF'
#!/bin/sh
exec cat /dev/zero
EOF
chmod +x "$RIG_TMP"/*.sh

# relay_fds() - number of descriptors the relay holds
relay_fds() {
	find "/proc/$RIG_RELAY_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# relay_fds_idle() - check that the relay holds no more descriptors than
# when it was idle after start-up
relay_fds_idle() {
	[ "$(relay_fds)" -le "$RELAY_IDLE_FDS" ]
}

# relay_cpu_ticks() - user plus system CPU time of the relay, in ticks
relay_cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$RIG_RELAY_PID/stat"
}

# listening_on() - check that a TCP address:port listens in the namespace
# $1: local address and port as ss shows it, e.g. 0.0.0.0%lo:10011
listening_on() {
	rig_g ss -Hltn | awk '{ print $4 }' | grep -qxF -- "$1"
}

# relay_up() - test: start pasta with -T, check its listening sockets
#
# Not rig_relay_start: that one passes -T none, which a port list can't
# follow. Same start-up otherwise (foreground, checks readiness).
relay_up() {
	local spec="$PORT,$PORT_REFUSED,$PORT_MAPPED:$PORT" p

	rig_persist
	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_MODE="fg"
	set -- --runas 0 --config-net -u none -U none -T "$spec" \
		--netns "$RIG_NS"
	echo "# $RELAY -f $*" >"$RIG_RELAY_LOG"
	# Not through rig_h: $! must be the relay, not a subshell
	ip netns exec "$RIG_HOSTNS" "$RELAY" -f "$@" >>"$RIG_RELAY_LOG" 2>&1 &
	RIG_RELAY_PID=$!
	rig_defer "rig_kill '$RIG_RELAY_PID'"
	rig_log "relay pid $RIG_RELAY_PID, log $RIG_RELAY_LOG"

	for p in "$PORT" "$PORT_REFUSED" "$PORT_MAPPED"; do
		rig_wait_listen "$RIG_NS" "$p" || return 1
		listening_on "0.0.0.0%lo:$p" ||
			rig_fail "port $p: not listening on 0.0.0.0%lo" ||
			return 1
		listening_on "[::]%lo:$p" ||
			rig_fail "port $p: not listening on [::]%lo" ||
			return 1
	done
	RELAY_IDLE_FDS=$(relay_fds)
}

# start_server() - start a one-shot socat server in the host namespace
# $1: socat listen address (without reuseaddr)
# $2: socat second address
# Sets SERVER_PID.
start_server() {
	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$LIMIT" \
		socat -d -t 30 "$1,reuseaddr" "$2" 2>"$RIG_TMP/server.err" &
	SERVER_PID=$!
	rig_defer "rig_kill $SERVER_PID"
	rig_wait_listen "$RIG_HOSTNS" "$(rig_port_of "$1")"
}

# transfer() - test: one client session, both directions checked
# $1: 4 or 6
# $2: server script
# $3: port the client connects to (in the namespace)
transfer() {
	local listen conn rc

	if [ "$1" = 4 ]; then
		listen="TCP4-LISTEN:$PORT,bind=127.0.0.1"
		conn="TCP4:127.0.0.1:$3"
	else
		listen="TCP6-LISTEN:$PORT,bind=[::1],ipv6only=1"
		conn="TCP6:[::1]:$3"
	fi

	rm -f "$RIG_TMP/srv_rx" "$RIG_TMP/cli_rx" "$RIG_TMP/cli_rx.sha256"
	start_server "$listen" "EXEC:$2" || return 1
	rig_g timeout -k 5 "$LIMIT" socat -t 30 - "$conn" \
		<"$A" >"$RIG_TMP/cli_rx" 2>"$RIG_TMP/client.err"
	rc=$?
	[ "$rc" -eq 0 ] || rig_fail "client exited with status $rc:" \
		"$(tr '\n' ' ' <"$RIG_TMP/client.err")" || return 1
	rig_wait_pid "$SERVER_PID" 30 ||
		rig_fail "server did not finish" || return 1

	[ "$(cat "$RIG_TMP/srv_rx" 2>/dev/null)" = "$(rig_sha "$A")" ] ||
		rig_fail "namespace to host: sha256 mismatch" || return 1
	rig_sha_eq "$B" "$RIG_TMP/cli_rx"
}

# slow_reader() - test: destination full for two seconds, pasta idle
slow_reader() {
	local client t0 t1 i

	rm -f "$RIG_TMP/srv_rx" "$RIG_TMP/slow_started"
	start_server "TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"EXEC:$RIG_TMP/slow.sh" || return 1
	ip netns exec "$RIG_NS" timeout -k 5 "$LIMIT" \
		socat -t 30 -u - "TCP4:127.0.0.1:$PORT" \
		<"$A" 2>"$RIG_TMP/client.err" &
	client=$!
	rig_defer "rig_kill $client"

	for i in $(seq 50); do
		[ -e "$RIG_TMP/slow_started" ] && break
		sleep 0.1
	done
	sleep 0.3
	t0=$(relay_cpu_ticks)
	sleep 1.2
	t1=$(relay_cpu_ticks)

	rig_wait_pid "$client" 60 ||
		rig_fail "client failed: $(cat "$RIG_TMP/client.err")" ||
		return 1
	rig_wait_pid "$SERVER_PID" 30 ||
		rig_fail "server did not finish" || return 1
	[ "$(cat "$RIG_TMP/srv_rx" 2>/dev/null)" = "$(rig_sha "$A")" ] ||
		rig_fail "sha256 mismatch after the reader resumed" || return 1
	[ $((t1 - t0)) -le "$IDLE_CPU_TICKS" ] ||
		rig_fail "pasta used $((t1 - t0)) CPU ticks in 1.2 s while" \
			 "the destination was full (busy loop?)" || return 1
	rig_log "pasta used $((t1 - t0)) CPU ticks while blocked"
}

# refused() - test: refused connect on the host reaches the client as RST
refused() {
	local out

	# socat reports a reset as a warning: -d shows warnings
	out=$(rig_g timeout 10 socat -d -u "TCP4:127.0.0.1:$PORT_REFUSED" - \
		2>&1 </dev/null)
	grep -qi "reset by peer" <<<"$out" ||
		rig_fail "client saw: $(tr '\n' ' ' <<<"$out")"
}

# reset_from_client() - test: a client's RST reaches the server
reset_from_client() {
	local client i

	start_server "TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"EXEC:$RIG_TMP/sink.sh" || return 1
	ip netns exec "$RIG_NS" \
		socat -u /dev/zero "TCP4:127.0.0.1:$PORT,so-linger=0" \
		2>/dev/null &
	client=$!
	rig_defer "rig_kill $client"
	sleep 0.5
	kill -KILL "$client"
	wait "$client" 2>/dev/null

	for i in $(seq 50); do
		kill -0 "$SERVER_PID" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$SERVER_PID" 2>/dev/null ||
		rig_fail "server connection still open 5 s after the reset" ||
		return 1
	grep -qi "reset by peer" "$RIG_TMP/server.err" ||
		rig_fail "server saw: $(tail -n 1 "$RIG_TMP/server.err")"
}

# server_source_started() - wait until the server's socat (a child of the
# timeout that start_server() started) runs its EXEC child
# Sets SERVER_SOCAT to that socat's PID.
# Return: 0 once it does, 1 after 5 s
server_source_started() {
	local i

	for i in $(seq 100); do
		SERVER_SOCAT=$(pgrep -P "$SERVER_PID" -x socat) &&
			pgrep -P "$SERVER_SOCAT" >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# reset_from_server() - test: a server's RST reaches the client
reset_from_server() {
	local client

	start_server "TCP4-LISTEN:$PORT,bind=127.0.0.1,so-linger=0" \
		"EXEC:$RIG_TMP/source.sh" || return 1
	ip netns exec "$RIG_NS" timeout 20 \
		socat -d -u "TCP4:127.0.0.1:$PORT" /dev/null \
		2>"$RIG_TMP/client.err" &
	client=$!
	rig_defer "rig_kill $client"
	# The server's socat sets SO_LINGER on the connection it accepted
	# before it starts the source: wait for that, or its exit would close
	# gracefully (on a busy machine half a second was not always enough)
	server_source_started ||
		rig_fail "the server's source did not start within 5 s" ||
		return 1
	sleep 0.2
	# SIGKILL, to the socat alone: the kernel closes its socket with
	# SO_LINGER 0, a reset. A SIGTERM to timeout reaches the whole group,
	# the source too, and socat, seeing the source's end, often sent a
	# FIN before it handled its own signal (half of 40 runs without the
	# relay in between): the client then ends cleanly on that FIN.
	kill -KILL "$SERVER_SOCAT"
	wait "$SERVER_PID" 2>/dev/null
	rig_wait_pid "$client" 10
	grep -qi "reset by peer" "$RIG_TMP/client.err" ||
		rig_fail "client saw: $(tail -n 1 "$RIG_TMP/client.err")"
}

# concurrent() - test: parallel echo connections, then no leaked descriptor
concurrent() {
	local pids=() i p bad=0 fds

	start_server "TCP4-LISTEN:$PORT,bind=127.0.0.1,fork,backlog=64" \
		EXEC:cat || return 1
	for i in $(seq "$PARALLEL"); do
		ip netns exec "$RIG_NS" timeout -k 5 "$LIMIT" socat -t 30 - \
			"TCP4:127.0.0.1:$PORT" <"$C" >"$RIG_TMP/par.$i" \
			2>/dev/null &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		rig_wait_pid "$p" "$LIMIT"
	done
	for i in $(seq "$PARALLEL"); do
		rig_sha_eq "$C" "$RIG_TMP/par.$i" >/dev/null ||
			bad=$((bad + 1))
	done
	[ "$bad" -eq 0 ] ||
		rig_fail "$bad of $PARALLEL echoed streams differ" || return 1
	rig_kill "$SERVER_PID"

	rig_poll 3 relay_fds_idle
	fds=$(relay_fds)
	[ "$fds" -le "$RELAY_IDLE_FDS" ] ||
		rig_fail "pasta holds $fds descriptors, $RELAY_IDLE_FDS when" \
			 "idle: connections not closed"
}

rig_run "pasta -T listens on every loopback address in the namespace" relay_up
if [ -z "$RIG_RELAY_PID" ]; then
	rig_summary
fi
rig_run "splice ns->host IPv4 full duplex $SIZE each way sha256" \
	transfer 4 "$RIG_TMP/duplex.sh" "$PORT"
rig_run "splice ns->host IPv6 full duplex $SIZE each way sha256" \
	transfer 6 "$RIG_TMP/duplex.sh" "$PORT"
rig_run "splice ns->host IPv4 half-close $SIZE each way sha256" \
	transfer 4 "$RIG_TMP/halfclose.sh" "$PORT"
rig_run "splice ns->host IPv6 half-close $SIZE each way sha256" \
	transfer 6 "$RIG_TMP/halfclose.sh" "$PORT"
rig_run "splice ns->host mapped port $PORT_MAPPED:$PORT sha256" \
	transfer 4 "$RIG_TMP/halfclose.sh" "$PORT_MAPPED"
rig_run "splice slow reader: data held, no busy loop, sha256" slow_reader
rig_run "splice refused connect reaches the client as a reset" refused
rig_run "splice reset from the client reaches the server" reset_from_client
rig_run "splice reset from the server reaches the client" reset_from_server
rig_run "splice $PARALLEL concurrent echo connections, no fd leak" concurrent
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
