#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash disable=SC2154 # busybox ash; lease variables
#
# tests/vm/guest_perf.sh - the guest's side of tests/perf/run --mode passt
#
# Theory of operation: packed as /test.sh into the guest's initramfs, with
# iperf3, sockperf, socat and coreutils' sha256sum from the host
# (tests/vm/mkimage -x; busybox's sha256sum is too slow for large files
# under TCG). The guest takes its address, route and MTU from the relay by
# DHCP (the relay's -m sets the MTU), starts an iperf3 server and a
# sockperf server, and reports "RESULT perf ok mtu=N" once both listen.
# The host (tests/perf/perf_vm.py) reaches them through ports the relay
# forwards, and runs their clients itself: iperf3 -R for guest->host.
#
# Then, over and over, a transfer each way checked by sha256: round N
# announces "RESULT readyN" once a receiver listens, stores what the host
# sends, reports "RESULT downN ok SHA256 BYTES", then connects to the host
# through the gateway (port VT_UP on the host's loopback, where the host
# starts a receiver once it has read "downN"; the guest tries again until
# it listens) and sends the file back: "RESULT upN ok" once sent. The host
# compares both hashes with its own.
#
# /etc/vmtest.conf:
#   VT_IPERF, VT_SOCKPERF	ports of the iperf3 and sockperf servers
#   VT_DOWN			port of the guest's transfer receiver
#   VT_UP			port of the host's receiver (on its loopback)
#   VT_STATS			port of the statistics server: each connection
#				gets /proc/net/dev, /proc/interrupts,
#				/proc/stat and /proc/net/netstat, for the
#				host to take differences
#   VT_RESET			port of the iperf3 server's reset: each
#				connection ends the server (a loop starts it
#				again) and gets "ok" once the new one
#				listens. A server whose last test never ended
#				for it (its client's last bytes or FIN lost on
#				the way) answers every client "busy" until
#				then; the host resets it and tries once more
#
# Usage: sh /test.sh (the guest's init runs it), or
#        sh /test.sh iperf-reset (the reset, run by socat)

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh
# shellcheck disable=SC1091 # written by the host
. /etc/vmtest.conf

FILE=/tmp/transfer.bin
SOCAT_BUF=262144	# bytes per read and write: syscalls are dear in TCG
UP_TRIES=150		# connection attempts to the host's receiver, 0.2 s apart
IPERF_PID=/tmp/iperf3.pid	# the running iperf3 server's PID

# iperf_new() - is an iperf3 server other than the one ended listening?
# $1: PID of the server ended
iperf_new() {
	[ "$(cat "$IPERF_PID" 2>/dev/null)" != "$1" ] &&
		vt_listening "$VT_IPERF"
}

if [ "$1" = "iperf-reset" ]; then
	old=$(cat "$IPERF_PID")
	kill "$old" 2>/dev/null
	if vt_poll 10 vt_not_running "$old" && vt_poll 20 iperf_new "$old"
	then
		echo ok
	else
		echo "fail: iperf3 server $old not replaced"
	fi
	exit 0
fi

IF=$(vt_iface)
ip link set lo up
if [ -z "$IF" ] || ! ip link set "$IF" up; then
	vt_result perf fail "no network interface (${IF:-virtio-net missing?})"
	exit 1
fi
if ! vt_dhcp "$IF"; then
	vt_result perf fail "no DHCP lease: $(tail -n 3 /tmp/udhcpc.log |
					      tr '\n' ' ')"
	exit 1
fi
# shellcheck disable=SC1091 # written by /etc/udhcpc.sh
. /tmp/lease

# A test whose data stops (a relay that stalls) ends after 10 s without
# progress, not iperf3's default 120 s: the server then takes the next
# test, so one stalled cell does not fail every later cell of that relay
# The server runs again whenever it ends (a reset, above)
while :; do
	iperf3 -s -p "$VT_IPERF" --rcv-timeout 10000 --snd-timeout 10000 \
		>>/tmp/iperf3.log 2>&1 &
	echo $! >"$IPERF_PID"
	wait $!
done &
sockperf server --tcp -p "$VT_SOCKPERF" >/tmp/sockperf.log 2>&1 &
socat "TCP-LISTEN:$VT_STATS,reuseaddr,fork" \
	SYSTEM:"cat /proc/net/dev /proc/interrupts /proc/stat /proc/net/netstat" \
	>/tmp/stats.log 2>&1 &
socat "TCP-LISTEN:$VT_RESET,reuseaddr,fork" SYSTEM:"sh /test.sh iperf-reset" \
	>/tmp/reset.log 2>&1 &
if ! vt_poll 20 vt_listening "$VT_IPERF" ||
   ! vt_poll 20 vt_listening "$VT_SOCKPERF"; then
	vt_result perf fail "servers not listening: $(tail -n 2 \
		  /tmp/iperf3.log /tmp/sockperf.log | tr '\n' ' ')"
	exit 1
fi
vt_result perf ok "mtu=$(cat "/sys/class/net/$IF/mtu")" \
	  "addr=$(ip -4 -o addr show dev "$IF" | awk '{ print $4 }')"

# listening() - report that a receiver or sender listens on a port
# $1: result name
# $2: port
# $3: socat's PID
listening() {
	if vt_poll 10 vt_listening "$2"; then
		vt_result "$1" ok
	else
		vt_result "$1" fail "socat did not listen on port $2"
		kill "$3" 2>/dev/null
	fi
}

n=0
while :; do
	n=$((n + 1))
	rm -f "$FILE"
	socat -u -b "$SOCAT_BUF" "TCP-LISTEN:$VT_DOWN,reuseaddr" \
		"CREATE:$FILE" 2>/tmp/socat.err &
	pid=$!
	listening "ready$n" "$VT_DOWN" "$pid"
	if ! wait "$pid"; then
		vt_result "down$n" fail "socat: $(tr '\n' ' ' </tmp/socat.err)"
		continue
	fi
	vt_result "down$n" ok "$(vt_sha "$FILE") $(vt_size "$FILE")"

	# to the host's receiver: the gateway reaches the host's loopback
	if socat -u -b "$SOCAT_BUF" "OPEN:$FILE" \
		"TCP:$router:$VT_UP,retry=$UP_TRIES,interval=0.2" \
		2>/tmp/socat.err; then
		vt_result "up$n" ok
	else
		vt_result "up$n" fail "socat: $(tr '\n' ' ' </tmp/socat.err)"
	fi
done
