#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_conns.sh - many connections, half-close, refusal
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground (-f, in the
# background of this script) in a host namespace of our own and serves a
# second namespace (--netns NAME).
#
#   concurrent echo: 50 connections, all established before any data moves
#     (tests/tools/tcp_multi), each sends its own 1 MiB random file to an
#     echo server (socat fork + cat), shuts down writing, and keeps what
#     comes back; every reply must hash like what was sent.
#   half-close: the client sends 1 MiB and shuts down its write side; only
#     then does the server (which reads to end of file first) send the data
#     back. The reply must arrive intact.
#   closed port: a connection from the namespace to a port nothing listens
#     on in the host namespace must fail with "Connection refused" in under
#     a second (the relay must answer the SYN with a RST the guest accepts).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

CONNS=${CONNS_COUNT:-50}
FWD=10002
CLOSED_PORT=7999
LIMIT=60
HC_LIMIT=30

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

MULTI=$TOOLS_DIR/tcp_multi
if [ ! -x "$MULTI" ]; then
	echo "FAIL: prerequisites: $MULTI not built (run make tools)"
	exit 1
fi

DATA=$RIG_TMP/multi
mkdir -p "$DATA" || exit 1
for i in $(seq 0 $((CONNS - 1))); do
	rig_random_file "$DATA/in.$i" 1M || exit 1
done
HC_IN=$RIG_TMP/hc.in
rig_random_file "$HC_IN" 1M || exit 1
cat >"$RIG_TMP/hc.sh" <<'HC'
# half-close server: read everything until end of file, then send it back
cat >"$1" && cat "$1"
HC

# relay_up() - test: start pasta in the foreground, forwarding $FWD
relay_up() {
	rig_relay_start fg -t "$FWD" &&
		rig_wait_listen "$RIG_HOSTNS" "$FWD"
}

# start_server() - start a background socat server, wait until it listens
# $1: namespace
# $2: socat listen address
# $3: socat second address (what to connect the connection to)
start_server() {
	ip netns exec "$1" timeout -k 5 "$LIMIT" \
		socat -t 30 "$2,reuseaddr" "$3" 2>"$RIG_TMP/server.err" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$1" "$(rig_port_of "$2")"
}

# echo_multi() - test: concurrent echo connections
# $1: client namespace
# $2: address to connect to
# $3: port
# $4: server namespace
# $5: socat listen address of the echo server
echo_multi() {
	local i out rc

	rm -f "$DATA"/out.*
	start_server "$4" "$5,fork,backlog=256" EXEC:cat || return 1
	out=$(ip netns exec "$1" "$MULTI" -t "$LIMIT" "$2" "$3" "$DATA" \
		"$CONNS" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		rig_sockets_brief "$1" "$4"
		rig_fail "tcp_multi failed: $(grep -v "at once" <<<"$out" |
					      head -n 3 | tr '\n' ' ')" \
			 "($(grep -c 'timed out' <<<"$out") timed out)"
		return 1
	fi
	rig_log "$(head -n 1 <<<"$out")"
	for i in $(seq 0 $((CONNS - 1))); do
		rig_sha_eq "$DATA/in.$i" "$DATA/out.$i" || {
			RIG_WHY="connection $i: $RIG_WHY"
			return 1
		}
	done
}

# half_close() - test: server replies only after the client's FIN
# $1: client namespace
# $2: socat connect address
# $3: server namespace
# $4: socat listen address
half_close() {
	local reply=$RIG_TMP/hc.reply rc

	rm -f "$reply" "$RIG_TMP/hc.data"
	start_server "$3" "$4" \
		"EXEC:sh $RIG_TMP/hc.sh $RIG_TMP/hc.data" || return 1
	ip netns exec "$1" timeout -k 5 "$HC_LIMIT" \
		socat -t 30 STDIO "$2,connect-timeout=5" \
		<"$HC_IN" >"$reply" 2>"$RIG_TMP/client.err"
	rc=$?
	[ "$rc" -eq 0 ] || rig_sockets "$1" "$3"
	[ "$rc" -eq 0 ] || rig_fail "client exited with status $rc:" \
		"$(tr '\n' ' ' <"$RIG_TMP/client.err")" || return 1
	[ -s "$RIG_TMP/hc.data" ] ||
		rig_fail "server received nothing" || return 1
	rig_sha_eq "$HC_IN" "$RIG_TMP/hc.data" ||
		{ RIG_WHY="client to server: $RIG_WHY"; return 1; }
	rig_sha_eq "$HC_IN" "$reply" ||
		{ RIG_WHY="reply after half-close: $RIG_WHY"; return 1; }
}

# closed_port() - test: connecting to a closed port is refused quickly
# $1: socat connect address (in the namespace, to the gateway)
closed_port() {
	local start ms rc err

	! rig_listening "$RIG_HOSTNS" "$CLOSED_PORT" ||
		rig_fail "port $CLOSED_PORT is open in the host namespace" ||
		return 1
	start=$(date +%s%N)
	err=$(rig_g timeout -k 2 10 socat -u /dev/null \
		"$1,connect-timeout=5" 2>&1)
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	rig_log "connect failed after $ms ms (status $rc)"
	[ "$rc" -ne 0 ] || rig_fail "connection succeeded" || return 1
	grep -q "Connection refused" <<<"$err" ||
		rig_fail "not refused after $ms ms: $(tr '\n' ' ' <<<"$err")" ||
		return 1
	[ "$ms" -lt 1000 ] ||
		rig_fail "refused only after $ms ms (limit: 1000 ms)"
}

rig_run "relay starts in the foreground" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

# Light tests first: a relay wedged by the heavy ones fails them all
rig_run "tcp ns->host IPv4 closed port refused in < 1 s" closed_port \
	"TCP4:$RIG_GW4:$CLOSED_PORT"
rig_run "tcp ns->host IPv6 closed port refused in < 1 s" closed_port \
	"TCP6:[$RIG_GW6]:$CLOSED_PORT"

rig_run "tcp ns->host IPv4 half-close, reply after FIN sha256" half_close \
	"$RIG_NS" "TCP4:$RIG_GW4:7003" \
	"$RIG_HOSTNS" TCP4-LISTEN:7003,bind=127.0.0.1
rig_run "tcp ns->host IPv6 half-close, reply after FIN sha256" half_close \
	"$RIG_NS" "TCP6:[$RIG_GW6]:7003" \
	"$RIG_HOSTNS" "TCP6-LISTEN:7003,bind=[::1]"
rig_run "tcp host->ns IPv4 via tap half-close, reply after FIN sha256" \
	half_close "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
	"$RIG_NS" "TCP4-LISTEN:$FWD"

rig_run "tcp ns->host IPv4 $CONNS concurrent 1 MiB echo sha256" echo_multi \
	"$RIG_NS" "$RIG_GW4" 7002 "$RIG_HOSTNS" TCP4-LISTEN:7002,bind=127.0.0.1
rig_run "tcp ns->host IPv6 $CONNS concurrent 1 MiB echo sha256" echo_multi \
	"$RIG_NS" "$RIG_GW6" 7002 "$RIG_HOSTNS" "TCP6-LISTEN:7002,bind=[::1]"
rig_run "tcp host->ns IPv4 via tap $CONNS concurrent 1 MiB echo sha256" \
	echo_multi "$RIG_HOSTNS" "$RIG_ADDR4" "$FWD" "$RIG_NS" \
	"TCP4-LISTEN:$FWD"

rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
