#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/exhaustion.sh - flow table full, out of descriptors
#
# Rig (tests/lib/rig.sh): pasta in the foreground in a host namespace of
# our own, a fresh target namespace per scenario. In both scenarios,
# MULTI_N "existing" connections (tests/tools/tcp_multi) are established
# first to an echo server on the host's loopback that waits ECHO_DELAY
# seconds before echoing: their data moves while the relay is out of
# resources, and each one's echo is checked (SHA-256). Idle connections
# held by tests/tools/tcp_hold then use up what is left.
#
#   flow table full (--max-flows FLOWS): the table is filled exactly; new
#     TCP connections (IPv4, IPv6) are refused at once (RST:
#     ECONNREFUSED, no hang); a new UDP flow gets an ICMP "administratively
#     prohibited" error at once (the guest's socket fails with
#     EHOSTUNREACH / EACCES); the existing connections finish; once the
#     idle ones close, a new connection works again.
#
#   out of descriptors (hard RLIMIT_NOFILE NOFILE, set with prlimit): new
#     guest connections are refused at once (TCP: RST; UDP: ICMP
#     administratively prohibited, no socket); a connection from the host to
#     a forwarded port, which accept() can't take, is reset and doesn't
#     make the relay spin (CPU time checked); the relay warns once
#     (rate-limited) telling the user to raise the limit; the existing
#     connections finish; once the idle ones close, new connections work.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

FLOWS=64
NOFILE=128
MULTI_N=8
ECHO_DELAY=3
LIMIT=30
FWD=10001
PORT_ECHO=7002
PORT_HOLD=7100
PORT_UDP=7200

rig_init
MULTI=$TOOLS_DIR/tcp_multi
HOLD=$TOOLS_DIR/tcp_hold
for t in "$MULTI" "$HOLD"; do
	if [ ! -x "$t" ]; then
		echo "FAIL: prerequisites: $t not built (run make tools)"
		exit 1
	fi
done
rig_need prlimit || exit 1
rig_host_ns || exit 1

DATA=$RIG_TMP/multi
mkdir -p "$DATA"
for i in $(seq 0 $((MULTI_N - 1))); do
	rig_random_file "$DATA/in.$i" 1M || exit 1
done
REAL_RELAY=$RELAY

# servers_start() - echo server (delayed) and idle-connection server
servers_start() {
	printf 'sleep %s\nexec cat\n' "$ECHO_DELAY" >"$RIG_TMP/slow_echo.sh"
	ip netns exec "$RIG_HOSTNS" timeout -k 5 $((LIMIT + 30)) socat -t 30 \
		"TCP4-LISTEN:$PORT_ECHO,bind=127.0.0.1,reuseaddr,fork,backlog=64" \
		"EXEC:sh $RIG_TMP/slow_echo.sh" \
		2>"$RIG_TMP/echo.err" &
	rig_defer "rig_kill $!"
	ip netns exec "$RIG_HOSTNS" "$HOLD" listen -b 1024 127.0.0.1 \
		"$PORT_HOLD" 2>"$RIG_TMP/hold-listen.err" &
	rig_defer "rig_kill $!"
	ip netns exec "$RIG_HOSTNS" "$HOLD" listen -b 1024 ::1 \
		"$PORT_HOLD" 2>"$RIG_TMP/hold-listen6.err" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$PORT_ECHO" &&
		rig_wait_listen "$RIG_HOSTNS" "$PORT_HOLD"
}

# established_to() - count open connections to a port (FIN-WAIT too: a
# connection that sent all its data is half-closed)
# $1: namespace
# $2: remote port
established_to() {
	ip netns exec "$1" ss -Htn state established state fin-wait-1 \
		state fin-wait-2 |
		awk -v p=":$2" 'substr($NF, length($NF) - length(p) + 1) == p \
				{ n++ } END { print n + 0 }'
}

# multi_start() - start the existing connections, wait until established
# Sets MULTI_PID.
multi_start() {
	rm -f "$DATA"/out.*
	ip netns exec "$RIG_NS" "$MULTI" -t "$LIMIT" "$RIG_GW4" "$PORT_ECHO" \
		"$DATA" "$MULTI_N" >"$RIG_TMP/multi.out" 2>&1 &
	MULTI_PID=$!
	rig_defer "rig_kill $MULTI_PID"
	rig_poll 5 eval "[ \$(established_to '$RIG_NS' $PORT_ECHO) -ge \
			   $MULTI_N ]" ||
		rig_fail "$MULTI_N echo connections not established in 5 s" \
			 "($(established_to "$RIG_NS" "$PORT_ECHO"))"
}

# multi_check() - wait for the existing connections, compare their echoes
multi_check() {
	local i

	rig_wait_pid "$MULTI_PID" "$LIMIT" ||
		rig_fail "existing connections failed:" \
			 "$(head -n 3 "$RIG_TMP/multi.out" | tr '\n' ' ')" ||
		return 1
	for i in $(seq 0 $((MULTI_N - 1))); do
		rig_sha_eq "$DATA/in.$i" "$DATA/out.$i" || {
			RIG_WHY="existing connection $i: $RIG_WHY"
			return 1
		}
	done
	rig_log "$MULTI_N existing connections echoed 1 MiB each, sha256 ok"
}

# hold_start() - open idle connections from the namespace, keep them open
# $1: how many to try
# Sets HOLD_PID and HOLD_OUT (the report line).
hold_start() {
	local fifo=$RIG_TMP/hold.fifo

	rm -f "$fifo"
	mkfifo "$fifo"
	ip netns exec "$RIG_NS" "$HOLD" connect -w 3000 -n "$1" "$RIG_GW4" \
		"$PORT_HOLD" <"$fifo" >"$RIG_TMP/hold.out" 2>&1 &
	HOLD_PID=$!
	exec {HOLD_FD}>"$fifo"
	rig_defer "exec $HOLD_FD>&-; rig_kill $HOLD_PID"
	rig_poll $(( $1 * 3 + 5 )) grep -q "tcp_hold:" "$RIG_TMP/hold.out" ||
		rig_fail "tcp_hold did not report" || return 1
	HOLD_OUT=$(grep "tcp_hold:" "$RIG_TMP/hold.out")
	rig_log "idle connections: $HOLD_OUT"
}

# hold_stop() - close the idle connections
hold_stop() {
	exec {HOLD_FD}>&-
	rig_wait_pid "$HOLD_PID" 5
}

# field() - value of key=value in a line
# $1: line
# $2: key
field() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"
}

# refused_now() - check that a new TCP connection is refused at once
# $1: address
refused_now() {
	local out

	out=$(ip netns exec "$RIG_NS" "$HOLD" connect -x -w 3000 "$1" \
		"$PORT_HOLD")
	[ "$(field "$out" refused)" = 1 ] ||
		rig_fail "new connection to $1 not refused: $out" || return 1
	[ "$(field "$out" max_refuse_ms)" -lt 1000 ] ||
		rig_fail "refusal to $1 took $(field "$out" max_refuse_ms)" \
			 "ms" || return 1
	rig_log "new connection to $1: refused in" \
		"$(field "$out" max_refuse_ms) ms"
}

# udp_refused_now() - check that a new UDP flow fails at once
# $1: address (IPv4 or IPv6)
udp_refused_now() {
	local t0 ms rc err a

	t0=$(rig_now_ms)
	case $1 in
	*:*) a="[$1]" ;;
	*) a=$1 ;;
	esac
	echo probe | ip netns exec "$RIG_NS" timeout 5 socat -T 3 - \
		"UDP:$a:$PORT_UDP" >/dev/null 2>"$RIG_TMP/udp.err"
	rc=$?
	ms=$(( $(rig_now_ms) - t0 ))
	err=$(grep -o 'No route to host\|Permission denied' \
	      "$RIG_TMP/udp.err" | head -n 1)
	[ "$rc" -ne 0 ] && [ -n "$err" ] && [ "$ms" -lt 2000 ] ||
		rig_fail "UDP to $1: socat status $rc after $ms ms:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/udp.err")" || return 1
	rig_log "new UDP flow to $1: '$err' after $ms ms"
}

# refused_all() - the refusals of tcp_hold were prompt, and new TCP
# connections (IPv4, IPv6) and UDP flows are refused right now
# $1: 6 to check UDP over IPv6 too, 4 for IPv4 only
refused_all() {
	[ "$(field "$HOLD_OUT" max_refuse_ms)" -lt 1000 ] ||
		rig_fail "a refusal took $(field "$HOLD_OUT" max_refuse_ms)" \
			 "ms" || return 1
	refused_now "$RIG_GW4" && refused_now "$RIG_GW6" &&
		udp_refused_now "$RIG_GW4" || return 1
	[ "$1" = 4 ] || udp_refused_now "$RIG_GW6"
}

# works_again() - a new connection from the namespace works (within 5 s)
works_again() {
	rig_poll 5 eval "ip netns exec '$RIG_NS' '$HOLD' connect -x -w 1000 \
		'$RIG_GW4' $PORT_HOLD | grep -q established=1" ||
		rig_fail "no new connection possible after the idle ones" \
			 "closed"
}

# relay_cpu() - user plus system clock ticks of the relay
relay_cpu() {
	awk '{ print $14 + $15 }' "/proc/$RIG_RELAY_PID/stat"
}

# flows_up() - test: pasta with --max-flows FLOWS, in a new namespace
flows_up() {
	rig_target_ns || return 1
	RELAY=$REAL_RELAY
	rig_relay_start fg -t none --max-flows "$FLOWS"
}

# flows_full() - test: flow table full (see top of file)
flows_full() {
	local want=$((FLOWS - MULTI_N))

	servers_start || return 1
	multi_start || return 1
	hold_start $((want + 4)) || return 1
	[ "$(field "$HOLD_OUT" established)" = "$want" ] &&
		[ "$(field "$HOLD_OUT" refused)" = 4 ] ||
		rig_fail "expected $want idle connections and 4 refused:" \
			 "$HOLD_OUT" || return 1
	refused_all 6 || return 1
	grep -q "flow table full" "$RIG_RELAY_LOG" ||
		rig_fail "no 'flow table full' warning in the log" || return 1
	multi_check || return 1
	hold_stop
	works_again
}

# nofile_up() - test: pasta with a hard RLIMIT_NOFILE of NOFILE
nofile_up() {
	local wrap=$RIG_TMP/nofile/pasta

	rig_target_ns || return 1
	mkdir -p "$(dirname "$wrap")"
	printf '#!/bin/sh\nexec prlimit --nofile=%s:%s %s "$@"\n' \
		"$NOFILE" "$NOFILE" "$REAL_RELAY" >"$wrap"
	chmod +x "$wrap"
	RELAY=$wrap
	rig_relay_start fg -t "$FWD"
	RELAY=$REAL_RELAY
	[ -n "$RIG_RELAY_PID" ] || return 1
	grep -q "^Max open files *$NOFILE *$NOFILE" \
		"/proc/$RIG_RELAY_PID/limits" ||
		rig_fail "relay runs without the limit:" \
			 "$(grep 'open files' "/proc/$RIG_RELAY_PID/limits")"
}

# nofile() - test: out of descriptors (see top of file)
nofile() {
	local base try c0 c1 before after warns

	servers_start || return 1
	multi_start || return 1
	base=$(find "/proc/$RIG_RELAY_PID/fd" -mindepth 1 | wc -l)
	try=$((NOFILE - base + 20))
	rig_log "relay has $base descriptors open, limit $NOFILE:" \
		"trying $try more connections"
	hold_start "$try" || return 1
	[ "$(field "$HOLD_OUT" refused)" -ge 10 ] &&
		[ "$(field "$HOLD_OUT" timeout)" = 0 ] &&
		[ "$(field "$HOLD_OUT" other)" = 0 ] ||
		rig_fail "expected at least 10 refused, none hanging:" \
			 "$HOLD_OUT" || return 1
	refused_all 4 || return 1

	# From the host: accept() fails; the relay must not spin on it
	before=$(grep -c "refused=" "$RIG_RELAY_LOG")
	ip netns exec "$RIG_HOSTNS" "$HOLD" connect -x -w 1000 "$RIG_ADDR4" \
		"$FWD" >/dev/null
	c0=$(relay_cpu)
	sleep 1
	c1=$(relay_cpu)
	rig_log "relay CPU with a host connection pending: $((c1 - c0))" \
		"ticks in 1 s"
	[ $((c1 - c0)) -le 20 ] ||
		rig_fail "relay spins while out of descriptors:" \
			 "$((c1 - c0)) ticks in 1 s" || return 1
	after=$(rig_h ss -Hltn "sport = :$FWD" |
		awk '{ s += $2 } END { print s + 0 }')
	[ "$after" = 0 ] ||
		rig_fail "$after connection(s) left pending on port $FWD" ||
		return 1
	: "$before"

	warns=$(grep -c "out of file descriptors" "$RIG_RELAY_LOG")
	rig_log "warnings: $warns; $(grep -m 1 "out of file descriptors" \
		"$RIG_RELAY_LOG")"
	[ "$warns" -ge 1 ] && [ "$warns" -le 2 ] ||
		rig_fail "expected one rate-limited warning about file" \
			 "descriptors, found $warns" || return 1
	multi_check || return 1
	hold_stop
	works_again
}

rig_run "pasta --max-flows $FLOWS up" flows_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "flow table full: new TCP refused (RST), UDP ICMP-prohibited, existing connections finish (sha256)" \
		flows_full
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_run "pasta under RLIMIT_NOFILE $NOFILE up" nofile_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "out of descriptors: new connections refused, host connection reset without spinning, one warning, existing finish (sha256)" \
		nofile
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
