#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/udp_echo.sh - UDP flows, -u and -U forwarding, no loss
#
# Rig (tests/lib/rig.sh): pasta runs in the foreground in a host namespace
# of our own and serves a second namespace (--netns NAME), forwarding UDP
# port FWD from the host to the namespace (-u), FWD_MAPPED to FWD as well,
# and port SPLICE from the namespace's loopback to the host's (-U).
#
# Every test runs tests/tools/udp_echo: a client sends COUNT datagrams of
# mixed sizes (16 bytes to MAX_SIZE, see the tool) paced at RATE Mbit/s
# from a connected socket, an echo server sends each back, and the client
# checks every echo's content: a single lost, truncated or corrupted
# datagram fails the test (a loss the kernel counted as receive buffer
# drops, one for one, runs the test once more: see echo_run()). The client's pacing catches up at most a couple
# of milliseconds after it was descheduled (see the tool): on a loaded
# machine, the rate stays a rate, not a burst of the whole backlog. On a
# failure, the drop counters of both namespaces are logged (a tx_dropped
# on the namespace's tap: the relay didn't read its queue in time).
#
#   ns->host: client in the namespace to the gateway address, server on
#     the host namespace's loopback (the gateway maps to it);
#   host->ns: client in the host namespace to a -u port on loopback
#     (spliced, socket to socket, as upstream's pasta) and on the host's
#     address (through the tap device), server in the namespace;
#   -U: client to the namespace's loopback, server on the host's;
#   large datagrams: 60000 to 65000 bytes, both directions (one frame each
#     at the default MTU of 65520);
#   equal sizes: ns->host, 1400 bytes at RUNS_RATE Mbit/s, where datagrams
#     of one batch leave in segmented runs (udp/udp_gso.c); the relay's
#     gso_runs counter (SIGUSR1 statistics) must have grown.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

COUNT=${UDP_COUNT:-10000}
RATE=${UDP_RATE:-100}
MAX_SIZE=${UDP_MAX_SIZE:-9000}
RUNS_RATE=${UDP_RUNS_RATE:-300}
ECHO_PORT=7000
FWD=5000
FWD_MAPPED=5010
SPLICE=5001
LIMIT=120

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

ECHO=$TOOLS_DIR/udp_echo
if [ ! -x "$ECHO" ]; then
	echo "FAIL: prerequisites: $ECHO not built (run make tools)"
	exit 1
fi

# udp_relay_up() - test: start pasta in the foreground with UDP forwarding
#
# rig_relay_fg, not rig_relay_start fg, whose fixed "-u none -U none" can't
# be combined with port lists; the relay keeps running after this test
# (rig_persist).
udp_relay_up() {
	rig_persist
	rig_relay_fg "$RELAY" --runas 0 --config-net -T none \
		-u "$FWD,$FWD_MAPPED:$FWD" -U "$SPLICE" --netns "$RIG_NS"
	rig_wait_addrs || return 1
	rig_relay_alive || rig_fail "relay exited during start-up" || return 1
	rig_poll 5 rig_udp_bound "$RIG_HOSTNS" "$FWD" ||
		rig_fail "relay does not listen on UDP port $FWD" || return 1
	rig_poll 5 rig_udp_bound "$RIG_NS" "$SPLICE" ||
		rig_fail "relay does not listen on UDP port $SPLICE in the" \
			 "namespace" || return 1
	rig_log "relay pid $RIG_RELAY_PID (fg), log $RIG_RELAY_LOG"
}

# echo_server() - start an echo server in the background, wait until bound
# $1: namespace
# $2...: udp_echo server options
echo_server() {
	local ns=$1 port
	shift

	ip netns exec "$ns" timeout -k 5 "$LIMIT" "$ECHO" server "$@" \
		2>>"$RIG_TMP/server.err" &
	rig_defer "rig_kill $!"
	port=$(sed -n 's/.*-p \([0-9]*\).*/\1/p' <<<"$*")
	rig_poll 5 rig_udp_bound "$ns" "$port" ||
		rig_fail "echo server on port $port did not start"
}

# udp_drops() - print the counters where a datagram can be dropped, one line:
# UDP errors, interface drops (the tap's tx_dropped: the relay didn't read
# its queue in time), qdisc drops
# $1: namespace
udp_drops() {
	local ns=$1 udp link qdisc

	# shellcheck disable=SC2016 # an awk program, not a shell expansion
	udp='$1 ~ /^Udp6?((Rcvbuf|Sndbuf|In|InCsum)Errors|NoPorts)$/ &&
	     $2 > 0 { printf "%s=%s ", $1, $2 }'
	link='.[] | select(.stats64.tx.dropped > 0 or .stats64.rx.dropped > 0) |
	      "\(.ifname): tx_dropped=\(.stats64.tx.dropped)" +
	      " rx_dropped=\(.stats64.rx.dropped)"'
	qdisc='.[] | select(.drops > 0) |
	       "qdisc \(.kind) on \(.dev): drops=\(.drops)"'
	printf '%s: ' "$ns"
	ip netns exec "$ns" nstat -az 2>/dev/null | awk "$udp"
	ip netns exec "$ns" ip -s -s -j link show 2>/dev/null |
		jq -r "$link" | tr '\n' ' '
	ip netns exec "$ns" tc -s -j qdisc show 2>/dev/null |
		jq -r "$qdisc" | tr '\n' ' '
	echo
}

# rcvbuf_errors() - print the sum of both namespaces' receive buffer drops
# (Udp and Udp6 RcvbufErrors: a receiving socket was full)
rcvbuf_errors() {
	local ns n=0

	for ns in "$RIG_NS" "$RIG_HOSTNS"; do
		n=$((n + $(ip netns exec "$ns" nstat -az 2>/dev/null |
			   awk '$1 ~ /^Udp6?RcvbufErrors$/ { n += $2 }
				END { print n + 0 }')))
	done
	echo "$n"
}

# echo_once() - run an echo client once, its summary in $out, status in $rc
# $1: client namespace
# $2...: client options
echo_once() {
	local cns=$1
	shift

	out=$(ip netns exec "$cns" timeout -k 5 "$LIMIT" "$ECHO" client "$@" \
		2>&1)
	rc=$?
	rig_log "$(head -n 1 <<<"$out")"
}

# echo_run() - test: run an echo client, expect every datagram back
# $1: server namespace
# $2: server options (quoted together)
# $3: client namespace
# $4: address to send to
# $5: port to send to
# $6...: more client options
#
# A loss that the kernel counted, datagram for datagram, as receive buffer
# drops (RcvbufErrors), with nothing corrupt or duplicate, is a receiver
# that was descheduled longer than its buffer lasts (tens of milliseconds
# here, on a loaded machine), not a datagram the relay lost: the run is
# repeated once, and must then lose nothing. Any other loss fails at once.
echo_run() {
	local sns=$1 sopts=$2 cns=$3 addr=$4 port=$5 out rc r0 lost
	shift 5

	# shellcheck disable=SC2086 # options are split on purpose
	echo_server "$sns" $sopts || return 1
	r0=$(rcvbuf_errors)
	echo_once "$cns" -a "$addr" -p "$port" "$@"
	lost=$(sed -n 's/.* lost \([0-9]*\), corrupt 0, duplicate 0;.*/\1/p' \
	       <<<"$out" | head -n 1)
	if [ "$rc" -ne 0 ] && [ -n "$lost" ] && [ "$lost" -gt 0 ] &&
	   [ "$(($(rcvbuf_errors) - r0))" = "$lost" ]; then
		rig_log "all $lost lost datagrams were receive buffer drops" \
			"(a stalled receiver): once more"
		echo_once "$cns" -a "$addr" -p "$port" "$@"
	fi
	if [ "$rc" -ne 0 ]; then
		rig_log "drops: $(udp_drops "$RIG_NS") $(udp_drops "$RIG_HOSTNS")"
		rig_fail "$(tr '\n' ' ' <<<"$out")"
	fi
}

MIX="-n $COUNT -r $RATE -S $MAX_SIZE"
BIG="-n 200 -r $RATE -s 60000 -S 65000"
# Equal sizes, faster: several datagrams of a flow per batch of frames,
# which leave in one segmented send (udp/udp_gso.c)
RUNS="-n $COUNT -r $RUNS_RATE -s 1400 -S 1400"

# stats_lines() - number of UDP statistics lines in the relay's log
stats_lines() {
	grep -c 'gso_runs=' "$RIG_RELAY_LOG"
}

# stats_after() - check whether the relay logged more statistics lines
# $1: number of lines before
stats_after() {
	[ "$(stats_lines)" -gt "$1" ]
}

# gso_runs() - print the relay's count of segmented runs (SIGUSR1 stats)
gso_runs() {
	local before

	before=$(stats_lines)
	kill -USR1 "$RIG_RELAY_PID" || return 1
	rig_poll 5 stats_after "$before" || return 1
	grep -o 'gso_runs=[0-9]*' "$RIG_RELAY_LOG" | tail -n 1 | cut -d= -f2
}

# echo_runs() - test: equal-size datagrams ns->host, every one back, and
#		 the relay sent some of them in segmented runs
# $1: server address
# $2: address to send to
echo_runs() {
	local n0 n1

	n0=$(gso_runs) || rig_fail "no statistics from the relay" || return 1
	# shellcheck disable=SC2086 # $RUNS is split on purpose
	echo_run "$RIG_HOSTNS" "-b $1 -p $ECHO_PORT" \
		"$RIG_NS" "$2" "$ECHO_PORT" $RUNS || return 1
	n1=$(gso_runs) || rig_fail "no statistics from the relay" || return 1
	rig_log "segmented runs: $((n1 - n0))"
	[ "$((n1 - n0))" -gt 0 ] ||
		rig_fail "no datagrams left in segmented runs"
}

rig_run "relay starts with -u $FWD,$FWD_MAPPED:$FWD -U $SPLICE" udp_relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary

# shellcheck disable=SC2086 # $MIX and $BIG are split on purpose
{
rig_run "udp ns->host IPv4 $COUNT datagrams at $RATE Mbit/s, no loss" \
	echo_run "$RIG_HOSTNS" "-b 127.0.0.1 -p $ECHO_PORT" \
	"$RIG_NS" "$RIG_GW4" "$ECHO_PORT" $MIX
rig_run "udp ns->host IPv6 $COUNT datagrams at $RATE Mbit/s, no loss" \
	echo_run "$RIG_HOSTNS" "-b ::1 -p $ECHO_PORT" \
	"$RIG_NS" "$RIG_GW6" "$ECHO_PORT" $MIX
rig_run "udp host->ns IPv4 -u $COUNT datagrams at $RATE Mbit/s, no loss" \
	echo_run "$RIG_NS" "-6 -p $FWD" \
	"$RIG_HOSTNS" 127.0.0.1 "$FWD" $MIX
rig_run "udp host->ns IPv6 -u $COUNT datagrams at $RATE Mbit/s, no loss" \
	echo_run "$RIG_NS" "-6 -p $FWD" \
	"$RIG_HOSTNS" ::1 "$FWD" $MIX
rig_run "udp host->ns IPv4 -u from the host's address, 1000 datagrams" \
	echo_run "$RIG_NS" "-6 -p $FWD" \
	"$RIG_HOSTNS" "$RIG_ADDR4" "$FWD" -n 1000 -r "$RATE"
rig_run "udp host->ns IPv6 -u mapped port $FWD_MAPPED:$FWD, 1000 datagrams" \
	echo_run "$RIG_NS" "-6 -p $FWD" \
	"$RIG_HOSTNS" ::1 "$FWD_MAPPED" -n 1000 -r "$RATE"
rig_run "udp -U IPv4 ns loopback->host loopback $COUNT datagrams, no loss" \
	echo_run "$RIG_HOSTNS" "-b 127.0.0.1 -p $SPLICE" \
	"$RIG_NS" 127.0.0.1 "$SPLICE" $MIX
rig_run "udp -U IPv6 ns loopback->host loopback $COUNT datagrams, no loss" \
	echo_run "$RIG_HOSTNS" "-b ::1 -p $SPLICE" \
	"$RIG_NS" ::1 "$SPLICE" $MIX
RUNS_NAME="$COUNT datagrams of 1400 bytes at $RUNS_RATE Mbit/s"
rig_run "udp ns->host IPv4 $RUNS_NAME, segmented runs, no loss" \
	echo_runs 127.0.0.1 "$RIG_GW4"
rig_run "udp ns->host IPv6 $RUNS_NAME, segmented runs, no loss" \
	echo_runs ::1 "$RIG_GW6"
rig_run "udp ns->host IPv4 60000-65000 byte datagrams" \
	echo_run "$RIG_HOSTNS" "-b 127.0.0.1 -p $ECHO_PORT" \
	"$RIG_NS" "$RIG_GW4" "$ECHO_PORT" $BIG
rig_run "udp host->ns IPv6 -u 60000-65000 byte datagrams" \
	echo_run "$RIG_NS" "-6 -p $FWD" \
	"$RIG_HOSTNS" ::1 "$FWD" $BIG
}

rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
