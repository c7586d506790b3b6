#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tcp_splice_ns_to_host.sh - pasta -T: namespace loopback to host loopback
#
# A "host" namespace (loopback up, a veth pair with an address and a
# default route, so that pasta finds a template interface) runs pasta with
# -T for a few ports, joined to a second, empty namespace by --netns.
# Servers listen on the host namespace's loopback; clients in the target
# namespace connect to its loopback, and pasta splices the two. Checked:
#   - 50 MiB each way at the same time, over IPv4 and IPv6 (sha256sum);
#   - half-close: the client sends 50 MiB and shuts down writing, the
#     server reads to the end, only then answers 50 MiB;
#   - a server that reads nothing for two seconds (pasta must keep the data
#     and resume, without spinning on the CPU meanwhile);
#   - a mapped port (-T 5557:5555);
#   - a refused connection reaches the client as a reset;
#   - a reset from either peer reaches the other one;
#   - 20 concurrent connections, and no descriptor left behind afterwards.
#
# Needs root, ip, socat, ss, sha256sum. Exit status: 0 pass, 1 failure,
# 77 skipped. PASTA=path overrides the binary (default: pasta at the top
# of the source tree).

set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
PASTA=${PASTA:-$TOP/pasta}
SIZE_MB=50
PORT=5555		# forwarded as is
PORT_MAPPED=5557	# forwarded to $PORT
PORT_REFUSED=5556	# forwarded, nothing listens on the host
PARALLEL=20

H="splh-$$"
N="spln-$$"
TMP=
PASTA_PID=
PIDS=()
FAILED=0

# cleanup() - kill what we started, remove namespaces and files
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local p

	for p in "${PIDS[@]}" ${PASTA_PID:+"$PASTA_PID"}; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}" ${PASTA_PID:+"$PASTA_PID"}; do
		wait "$p" 2>/dev/null
	done
	ip netns del "$N" 2>/dev/null
	ip netns del "$H" 2>/dev/null
	[ -n "$TMP" ] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip() {
	echo "SKIP: $*"
	exit 77
}

pass() {
	echo "PASS: $*"
}

fail() {
	echo "FAIL: $*"
	FAILED=1
}

# wait_listen() - wait until a TCP port listens in a namespace
# $1: namespace, $2: port
wait_listen() {
	local i

	for i in $(seq 50); do
		if [ -n "$(ip netns exec "$1" ss -Hltn "sport = :$2")" ]; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# wait_gone() - wait until nothing listens on a port in a namespace
# $1: namespace, $2: port
wait_gone() {
	local i

	for i in $(seq 50); do
		if [ -z "$(ip netns exec "$1" ss -Hltn "sport = :$2")" ]; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# server() - start a one-shot socat server on the host loopback
# $1: socat listen address, $2: script run for the connection
server() {
	ip netns exec "$H" socat -d -t 30 "$1" EXEC:"$2" 2>>"$TMP/server.log" &
	PIDS+=($!)
}

# sha() - hash of a file, or of standard input
sha() {
	sha256sum "$@" | cut -d' ' -f1
}

# fd_count() - descriptors pasta has open
fd_count() {
	find "/proc/$PASTA_PID/fd" -mindepth 1 -maxdepth 1 | wc -l
}

# cpu_ticks() - user plus system time pasta used, in clock ticks
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$PASTA_PID/stat"
}

[ "$(id -u)" = 0 ] || skip "needs root"
for t in ip socat ss sha256sum; do
	command -v "$t" >/dev/null || skip "$t not found"
done
[ -x "$PASTA" ] || skip "$PASTA not built"

TMP=$(mktemp -d)
head -c "${SIZE_MB}M" /dev/urandom > "$TMP/A"
head -c "${SIZE_MB}M" /dev/urandom > "$TMP/B"
SHA_A=$(sha "$TMP/A")
SHA_B=$(sha "$TMP/B")

# Server scripts: standard input and output are the connection
cat > "$TMP/duplex.sh" <<EOF
#!/bin/sh
# read and write at the same time (a background job needs an explicit
# redirection, or it reads /dev/null)
exec 3<&0
sha256sum <&3 | cut -d' ' -f1 > "$TMP/srv_rx" &
exec 3<&-
cat "$TMP/B"
wait
EOF
cat > "$TMP/halfclose.sh" <<EOF
#!/bin/sh
# read to the end, then answer
sha256sum | cut -d' ' -f1 > "$TMP/srv_rx"
cat "$TMP/B"
EOF
cat > "$TMP/slow.sh" <<EOF
#!/bin/sh
# read nothing for a while, then everything
touch "$TMP/slow_started"
sleep 2
sha256sum | cut -d' ' -f1 > "$TMP/srv_rx"
EOF
cat > "$TMP/echo.sh" <<EOF
#!/bin/sh
exec cat
EOF
cat > "$TMP/sink.sh" <<EOF
#!/bin/sh
exec cat > /dev/null
EOF
cat > "$TMP/source.sh" <<EOF
#!/bin/sh
exec cat /dev/zero
EOF
chmod +x "$TMP"/*.sh

# "Host" namespace: loopback, plus a template interface for pasta
ip netns add "$H" || skip "can't create network namespaces"
ip netns add "$N"
ip -n "$H" link set lo up
ip -n "$H" link add veth0 type veth peer name veth1
ip -n "$H" addr add 192.0.2.1/24 dev veth0
ip -n "$H" -6 addr add 2001:db8::1/64 dev veth0 nodad
ip -n "$H" link set veth0 up
ip -n "$H" link set veth1 up
ip -n "$H" route add default via 192.0.2.254
ip -n "$H" -6 route add default via 2001:db8::fe

ip netns exec "$H" "$PASTA" --runas 0 -f --config-net \
	-T "$PORT,$PORT_REFUSED,$PORT_MAPPED:$PORT" --netns "$N" \
	> "$TMP/pasta.log" 2>&1 &
PASTA_PID=$!

if ! wait_listen "$N" "$PORT" || ! wait_listen "$N" "$PORT_MAPPED"; then
	cat "$TMP/pasta.log"
	echo "FAIL: pasta does not listen on -T ports in the namespace"
	exit 1
fi
if [ -z "$(ip netns exec "$N" ss -Hltn "src 127.0.0.1:$PORT")" ] ||
   [ -z "$(ip netns exec "$N" ss -Hltn "src [::1]:$PORT")" ]; then
	fail "listening on 127.0.0.1 and ::1 in the namespace"
else
	pass "listening on 127.0.0.1 and ::1 in the namespace"
fi
FDS_IDLE=$(fd_count)

# run_transfer() - one client session against the current server
# $1: name, $2: server listen address, $3: server script, $4: client
#     connect address
run_transfer() {
	local rx

	rm -f "$TMP/srv_rx"
	server "$2" "$3"
	wait_listen "$H" "$PORT" || { fail "$1: server did not start"; return; }

	timeout 60 ip netns exec "$N" socat -t 30 - "$4" \
		< "$TMP/A" > "$TMP/cli_rx" 2>"$TMP/client.log"
	wait "${PIDS[-1]}" 2>/dev/null

	rx=$(sha "$TMP/cli_rx")
	if [ "$(cat "$TMP/srv_rx" 2>/dev/null)" != "$SHA_A" ]; then
		fail "$1: namespace to host: bytes differ ($(stat -c %s \
			"$TMP/cli_rx") received back)"
	elif [ "$rx" != "$SHA_B" ]; then
		fail "$1: host to namespace: bytes differ ($(stat -c %s \
			"$TMP/cli_rx") of $((SIZE_MB << 20)) bytes)"
	else
		pass "$1: ${SIZE_MB} MiB each way, sha256 match"
	fi
}

run_transfer "IPv4 full duplex" "TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" \
	"$TMP/duplex.sh" "TCP4:127.0.0.1:$PORT"
run_transfer "IPv6 full duplex" "TCP6-LISTEN:$PORT,bind=[::1],reuseaddr" \
	"$TMP/duplex.sh" "TCP6:[::1]:$PORT"
run_transfer "IPv4 half-close" "TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" \
	"$TMP/halfclose.sh" "TCP4:127.0.0.1:$PORT"
run_transfer "IPv6 half-close" "TCP6-LISTEN:$PORT,bind=[::1],reuseaddr" \
	"$TMP/halfclose.sh" "TCP6:[::1]:$PORT"
run_transfer "mapped port $PORT_MAPPED:$PORT" \
	"TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" \
	"$TMP/halfclose.sh" "TCP4:127.0.0.1:$PORT_MAPPED"

# Slow reader: data waits in pasta (pipe and socket buffers), which must
# sleep meanwhile and resume when the server reads
rm -f "$TMP/srv_rx" "$TMP/slow_started"
server "TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" "$TMP/slow.sh"
wait_listen "$H" "$PORT"
timeout 60 ip netns exec "$N" socat -t 30 -u - "TCP4:127.0.0.1:$PORT" \
	< "$TMP/A" 2>"$TMP/client.log" &
CLIENT=$!
PIDS+=("$CLIENT")
for i in $(seq 50); do
	[ -e "$TMP/slow_started" ] && break
	sleep 0.1
done
sleep 0.3
T0=$(cpu_ticks)
sleep 1.2
T1=$(cpu_ticks)
wait "$CLIENT"
wait "${PIDS[-2]}" 2>/dev/null
if [ "$(cat "$TMP/srv_rx" 2>/dev/null)" != "$SHA_A" ]; then
	fail "slow reader: bytes differ"
elif [ $((T1 - T0)) -gt 10 ]; then
	fail "slow reader: pasta used $((T1 - T0)) ticks of CPU while the destination was full"
else
	pass "slow reader: resumed, sha256 match, pasta idle while blocked ($((T1 - T0)) ticks)"
fi

# Refused connection on the host: the client must see a reset
out=$(timeout 10 ip netns exec "$N" socat -d -u "TCP4:127.0.0.1:$PORT_REFUSED" - 2>&1)
if echo "$out" | grep -qi "reset by peer"; then
	pass "refused connect on the host reaches the client as a reset"
else
	fail "refused connect: client saw: $out"
fi

# Reset from the namespace client reaches the host server
server "TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr" "$TMP/sink.sh"
wait_listen "$H" "$PORT"
ip netns exec "$N" socat -u /dev/zero "TCP4:127.0.0.1:$PORT,so-linger=0" \
	2>/dev/null &
CLIENT=$!
PIDS+=("$CLIENT")
sleep 0.5
kill -KILL "$CLIENT"
wait "$CLIENT" 2>/dev/null
SRV=${PIDS[-2]}
for i in $(seq 50); do
	kill -0 "$SRV" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$SRV" 2>/dev/null; then
	fail "reset from the client: server connection still open"
elif tail -n 3 "$TMP/server.log" | grep -qi "reset by peer"; then
	pass "reset from the client reaches the server"
else
	fail "reset from the client: server saw $(tail -n 1 "$TMP/server.log")"
fi

# Reset from the host server reaches the namespace client
ip netns exec "$H" socat -u EXEC:"$TMP/source.sh" \
	"TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,so-linger=0" \
	2>/dev/null &
SRV=$!
PIDS+=("$SRV")
wait_listen "$H" "$PORT"
timeout 20 ip netns exec "$N" socat -d -u "TCP4:127.0.0.1:$PORT" /dev/null \
	2>"$TMP/client.log" &
CLIENT=$!
PIDS+=("$CLIENT")
sleep 0.5
kill -KILL "$SRV"
wait "$SRV" 2>/dev/null
wait "$CLIENT"
if grep -qi "reset by peer" "$TMP/client.log"; then
	pass "reset from the server reaches the client"
else
	fail "reset from the server: client saw $(tail -n 1 "$TMP/client.log")"
fi

# Concurrent connections, echoed back
wait_gone "$H" "$PORT"
head -c 2M /dev/urandom > "$TMP/C"
SHA_C=$(sha "$TMP/C")
ip netns exec "$H" socat -t 30 \
	"TCP4-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork,backlog=64" \
	EXEC:"$TMP/echo.sh" 2>>"$TMP/server.log" &
SRV=$!
PIDS+=("$SRV")
wait_listen "$H" "$PORT"
CLIENTS=()
for i in $(seq "$PARALLEL"); do
	timeout 60 ip netns exec "$N" socat -t 30 - "TCP4:127.0.0.1:$PORT" \
		< "$TMP/C" > "$TMP/par_$i" 2>/dev/null &
	CLIENTS+=($!)
done
for p in "${CLIENTS[@]}"; do
	wait "$p"
done
bad=0
for i in $(seq "$PARALLEL"); do
	[ "$(sha "$TMP/par_$i")" = "$SHA_C" ] || bad=$((bad + 1))
done
if [ "$bad" -eq 0 ]; then
	pass "$PARALLEL concurrent connections echoed, sha256 match"
else
	fail "$bad of $PARALLEL concurrent connections corrupted"
fi
kill "$SRV"
wait "$SRV" 2>/dev/null

# Every connection is closed: pasta holds what it held when idle
for i in $(seq 30); do
	[ "$(fd_count)" -le "$FDS_IDLE" ] && break
	sleep 0.1
done
if [ "$(fd_count)" -le "$FDS_IDLE" ]; then
	pass "no descriptor left open ($(fd_count), $FDS_IDLE when idle)"
else
	fail "pasta holds $(fd_count) descriptors, $FDS_IDLE when idle"
fi

if ! kill -0 "$PASTA_PID" 2>/dev/null; then
	fail "pasta exited"
	cat "$TMP/pasta.log"
fi

exit "$FAILED"
