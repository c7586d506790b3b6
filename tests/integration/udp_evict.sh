#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/udp_evict.sh - a full flow table makes room for new
# UDP flows by closing idle ones, never busy ones
#
# Rig (tests/lib/rig.sh): pasta in the foreground with --max-flows FLOWS
# in a host namespace of our own; a UDP echo server on the host's loopback
# (reached from the namespace at the gateway address). A Python client in
# the namespace:
#   - keeps one "busy" flow sending a datagram every 50 ms for the whole
#     test, each one echoed (it must never lose its flow: every datagram
#     answered, and the server sees one source port only);
#   - opens FILL flows (one datagram each, from new sockets): the table
#     holds FLOWS, so the last ones are refused at once (ICMP
#     administratively prohibited: no answer), since every other flow was
#     used less than a second ago;
#   - waits 1.5 s, then opens FILL new flows again: now the flows of the
#     first round are idle, so as many new flows as the first round had
#     answered are answered again, each taking the place of an idle one
#     (the new flows themselves are not idle yet, so the rest is
#     refused), and the relay's "evicted" counter (SIGUSR1) grew by at
#     least that many.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

FLOWS=32
FILL=40
PORT=7300
LIMIT=30

rig_init
rig_need python3 || exit 1
rig_host_ns || exit 1
rig_target_ns || exit 1

# echo_server() - UDP echo on 127.0.0.1:PORT; logs each new source port
cat >"$RIG_TMP/echo.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
seen = set()
while True:
    data, peer = s.recvfrom(2048)
    if data.startswith(b"busy") and peer[1] not in seen:
        seen.add(peer[1])
        print("busy source port", peer[1], flush=True)
    s.sendto(data, peer)
EOF

# The namespace's side: prints "refused1=N answered1=N answered2=N
# busy_sent=N busy_answered=N"
cat >"$RIG_TMP/client.py" <<'EOF'
import socket, sys, threading, time
gw, port, fill = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
stop = threading.Event()
busy = {"sent": 0, "answered": 0}

def busy_flow():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((gw, port))
    s.settimeout(1.0)
    while not stop.is_set():
        busy["sent"] += 1
        s.send(b"busy %d" % busy["sent"])
        try:
            if s.recv(2048):
                busy["answered"] += 1
        except OSError:
            pass
        time.sleep(0.05)

def one_flow(tag):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((gw, port))
    s.settimeout(0.3)
    try:
        s.send(tag)
        return s.recv(2048) == tag, s
    except OSError:
        return False, s

t = threading.Thread(target=busy_flow)
t.start()
time.sleep(0.3)
socks = []
ans1 = 0
for i in range(fill):
    ok, s = one_flow(b"first %d" % i)
    ans1 += ok
    socks.append(s)
time.sleep(1.5)
ans2 = 0
for i in range(fill):
    ok, s = one_flow(b"second %d" % i)
    ans2 += ok
    socks.append(s)
time.sleep(0.3)
stop.set()
t.join()
print("refused1=%d answered1=%d answered2=%d busy_sent=%d busy_answered=%d"
      % (fill - ans1, ans1, ans2, busy["sent"], busy["answered"]))
EOF

# field() - value of key=value in a line
# $1: line
# $2: key
field() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"
}

# relay_up() - test: pasta with a small flow table
relay_up() {
	rig_relay_start fg -t none --max-flows "$FLOWS"
}

# evict() - test: see the top of the file
evict() {
	local out ev0 ev1

	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$LIMIT" python3 \
		"$RIG_TMP/echo.py" "$PORT" >"$RIG_TMP/echo.out" \
		2>"$RIG_TMP/echo.err" &
	rig_defer "rig_kill $!"
	rig_poll 5 eval "ip netns exec '$RIG_HOSTNS' ss -Huan \
		'sport = :$PORT' | grep -q ." ||
		rig_fail "echo server not bound" || return 1

	ev0=$(rig_relay_counter udp evicted) ||
		rig_fail "no udp counters on SIGUSR1" || return 1
	out=$(ip netns exec "$RIG_NS" timeout -k 5 "$LIMIT" python3 \
		"$RIG_TMP/client.py" "$RIG_GW4" "$PORT" "$FILL" \
		2>"$RIG_TMP/client.err") ||
		rig_fail "client failed: $(head -n 3 "$RIG_TMP/client.err")" ||
		return 1
	ev1=$(rig_relay_counter udp evicted) || return 1
	rig_log "client: $out; evicted $ev0 -> $ev1"

	[ "$(field "$out" answered1)" -ge $((FLOWS - 4)) ] &&
		[ "$(field "$out" answered1)" -lt "$FILL" ] ||
		rig_fail "first round: expected about $((FLOWS - 1)) flows" \
			 "answered and the rest refused: $out" || return 1
	[ "$(field "$out" answered2)" = "$(field "$out" answered1)" ] ||
		rig_fail "second round: as many new flows as the first" \
			 "round left idle should have found room: $out" ||
		return 1
	[ $((ev1 - ev0)) -ge "$(field "$out" answered1)" ] ||
		rig_fail "evicted grew by $((ev1 - ev0)), expected at" \
			 "least $(field "$out" answered1)" || return 1
	[ "$(field "$out" busy_sent)" -gt 20 ] &&
		[ "$(field "$out" busy_answered)" = \
		  "$(field "$out" busy_sent)" ] ||
		rig_fail "the busy flow lost datagrams: $out" || return 1
	[ "$(grep -c "busy source port" "$RIG_TMP/echo.out")" = 1 ] ||
		rig_fail "the busy flow was closed and reopened:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/echo.out")" || return 1
}

rig_run "pasta --max-flows $FLOWS up" relay_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "flow table full: new UDP flows refused while all are busy, then take the place of idle ones; a busy flow is never closed" \
		evict
	rig_run "pasta exits on SIGTERM" rig_relay_stop_check
fi
rig_summary
