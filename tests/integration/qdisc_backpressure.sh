#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/qdisc_backpressure.sh - output toward the guest stops and
# resumes without losing data (issue 6, design.md invariants 1 and 2)
#
# Two rigs, one after the other, in the same host namespace:
#
#   passt (tests/lib/passt.sh): the guest is a namespace whose tap device
#   tap_bridge connects to passt's socket. During a host -> guest transfer
#   the bridge stops reading the socket for STALL_S seconds (its
#   --stall-after-bytes option): passt's writes find the socket full, the
#   output queue must stop, keep its frames in order, arm its wake-up and
#   resume. The received data must hash the same, the transfer must go on
#   after the stall, and passt's counters (SIGUSR1) must show backpressure,
#   proof that the path was taken.
#
#   pasta (tests/lib/rig.sh): the namespace's tap device gets a transmit
#   queue of TXQLEN frames, and pasta, the only reader of that queue, is
#   stopped (SIGSTOP) for STALL_S seconds during a namespace -> host
#   transfer: the queue overflows and the namespace's kernel drops frames.
#   TCP must recover them: same hash, the transfer goes on, and the tap's
#   TX drop counter must have gone up. This transfer is shorter
#   (OVERFLOW_SIZE): with a queue that short, the namespace's TCP loses
#   retransmissions too and recovers by timeouts (the relay keeps no
#   out-of-order data and offers no SACK), which takes seconds. Then the other direction, host ->
#   namespace, with the receiver in the namespace stopped for STALL_S
#   seconds: the window closes, output waits, nothing is lost.
#
# With a relay built with DEBUG=1 (make sanitize), the relay also checks
# after every loop iteration that pending output has an armed wake-up, and
# exits if not: the "relay is still running" check of rig_run catches it.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=${BULK_SIZE:-100M}
OVERFLOW_SIZE=${OVERFLOW_SIZE:-10M}
LIMIT=${BULK_TIMEOUT:-120}
STALL_S=2
TXQLEN=10
FWD_PASST=10001
FWD_PASTA=10002

rig_init
passt_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SMALL=$RIG_TMP/small.bin
rig_random_file "$SMALL" "$OVERFLOW_SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket

# relay_counter() - ask the relay for its counters, print one of them
# $1: start of the log line ("tap: rx_frames=", "qdisc: frames=")
# $2: key
#
# Sends SIGUSR1 and waits for a new such line in the log.
relay_counter() {
	local before line i

	before=$(grep -cF "$1" "$RIG_RELAY_LOG")
	kill -USR1 "$RIG_RELAY_PID" 2>/dev/null || return 1
	for i in $(seq 30); do
		[ "$(grep -cF "$1" "$RIG_RELAY_LOG")" -gt "$before" ] &&
			break
		sleep 0.1
	done
	line=$(grep -F "$1" "$RIG_RELAY_LOG" | tail -n 1)
	line=${line##*" $2="}
	echo "${line%% *}"
}

# tx_dropped() - TX drop counter of a link in a namespace
# $1: namespace
# $2: link
tx_dropped() {
	ip -n "$1" -s -j link show dev "$2" |
		jq -r '.[0].stats64.tx.dropped'
}

# stalled_transfer() - send DATA while something stops for STALL_S seconds
# $1: sender namespace
# $2: socat connect address
# $3: receiver namespace
# $4: socat listen address
# $5: command run once the transfer started (the stall)
# $6: file to send (default: DATA)
#
# Checks the hash, that the transfer lasted longer than the stall, and that
# it did not time out. Prints the duration.
stalled_transfer() {
	local sumfile=$RIG_TMP/stall.$RANDOM.sha start ms file=${6:-$DATA}

	rig_tcp_recv_sha "$3" "$4" "$sumfile" "$LIMIT"
	rig_wait_listen "$3" "$(rig_port_of "$4")" || return 1
	STALL_RECV_PID=$RIG_BG_PID

	start=$(rig_now_ms)
	ip netns exec "$1" timeout -k 5 "$LIMIT" socat -u "FILE:$file" \
		"$2,connect-timeout=5" 2>"$RIG_TMP/sender.err" &
	rig_defer "rig_kill $!"

	eval "$5"

	rig_wait_pid "$STALL_RECV_PID" "$LIMIT" ||
		rig_fail "receiver failed or timed out after the stall:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/sender.err")" || return 1
	ms=$(( $(rig_now_ms) - start ))
	[ "$(cat "$sumfile")" = "$(rig_sha "$file")" ] ||
		rig_fail "sha256 mismatch after the stall" || return 1
	[ "$ms" -ge $((STALL_S * 1000)) ] ||
		rig_fail "transfer took $ms ms, less than the stall" || return 1
	rig_log "$(stat -c %s "$file") bytes in $ms ms, with a stall of" \
		"$STALL_S s"
}

# passt_up() - test: passt starts, a guest that stalls once connects
passt_up() {
	# A send buffer well below what the guest's window lets in flight, so
	# that the stall fills it (the kernel doubles the value: 128 KiB).
	# At 208 KiB (416 KiB in effect) the guest's window sometimes fit
	# in it, and the relay never found the socket full
	passt_start fg "$SOCK" -t "$FWD_PASST" --tap-wmem 65536 || return 1
	rig_persist
	passt_guest_start "$RIG_NS" --stall-after-bytes 20000000 \
		--stall-seconds "$STALL_S" || return 1
	passt_guest_static "$RIG_NS" || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not log the guest's connection"
}

# passt_guest_stalls() - test: the guest stops reading, no data is lost
passt_guest_stalls() {
	local bp0 qbp0 bp1 qbp1

	bp0=$(relay_counter "tap: rx_frames=" tx_backpressure)
	qbp0=$(relay_counter "qdisc: frames=" backpressure)
	stalled_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD_PASST" \
		"$RIG_NS" "TCP4-LISTEN:$FWD_PASST" : || return 1
	bp1=$(relay_counter "tap: rx_frames=" tx_backpressure)
	qbp1=$(relay_counter "qdisc: frames=" backpressure)
	rig_log "tap tx_backpressure $bp0 -> $bp1," \
		"qdisc backpressure $qbp0 -> $qbp1"
	[ "${bp1:-0}" -gt "${bp0:-0}" ] ||
		rig_fail "tap tx_backpressure did not go up ($bp0 -> $bp1):" \
			 "the guest's stall was not seen" || return 1
	[ "${qbp1:-0}" -gt "${qbp0:-0}" ] ||
		rig_fail "qdisc backpressure did not go up ($qbp0 -> $qbp1)"
}

# pasta_up() - test: pasta in a new namespace, tap queue of TXQLEN frames
pasta_up() {
	local dev

	passt_guest_stop
	rig_relay_stop_check || return 1
	rig_target_ns || return 1
	rig_relay_start fg -t "$FWD_PASTA" || return 1
	dev=$(ip -n "$RIG_NS" -j addr show | jq -r --arg a "$RIG_ADDR4" \
		'.[] | select(any(.addr_info[]; .local == $a)) | .ifname')
	[ -n "$dev" ] ||
		rig_fail "no device with $RIG_ADDR4 in $RIG_NS" || return 1
	PASTA_TAP=$dev
	ip -n "$RIG_NS" link set dev "$dev" txqueuelen "$TXQLEN" ||
		rig_fail "can't set txqueuelen $TXQLEN on $dev"
}

# pasta_tap_overflows() - test: pasta stops reading, the tap queue
# overflows, no data is lost
pasta_tap_overflows() {
	local d0 d1

	d0=$(tx_dropped "$RIG_NS" "$PASTA_TAP")
	stalled_transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"sleep 0.5; kill -STOP $RIG_RELAY_PID; sleep $STALL_S;
		 kill -CONT $RIG_RELAY_PID" "$SMALL" || return 1
	d1=$(tx_dropped "$RIG_NS" "$PASTA_TAP")
	rig_log "TX drops on $PASTA_TAP (txqueuelen $TXQLEN): $d0 -> $d1"
	[ "$d1" -gt "$d0" ] ||
		rig_fail "no TX drop on $PASTA_TAP: the queue did not overflow"
}

# pasta_reader_stalls() - test: the namespace's receiver stops reading,
# output toward it waits, no data is lost
pasta_reader_stalls() {
	local cmd

	# The receiver is socat under timeout under ip netns exec: stop the
	# socat process itself
	cmd="sleep 0.5; p=\$(pgrep -n -f 'socat -u TCP4-LISTEN:$FWD_PASTA');
	     [ -n \"\$p\" ] && kill -STOP \$p; sleep $STALL_S;
	     [ -n \"\$p\" ] && kill -CONT \$p"
	stalled_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD_PASTA" \
		"$RIG_NS" "TCP4-LISTEN:$FWD_PASTA" "$cmd"
}

rig_run "qdisc passt: socket, guest connects" passt_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "qdisc passt: guest stops reading $STALL_S s during host->guest $SIZE, sha256, resumes, backpressure counted" \
	passt_guest_stalls
rig_run "qdisc pasta: starts, tap txqueuelen $TXQLEN" pasta_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASTA_TAP" ]; then
	rig_summary
fi
rig_run "qdisc pasta: relay stopped $STALL_S s, tap queue overflows, ns->host $OVERFLOW_SIZE sha256, resumes" \
	pasta_tap_overflows
rig_run "qdisc pasta: ns receiver stopped $STALL_S s, host->ns $SIZE sha256, resumes" \
	pasta_reader_stalls
rig_run "qdisc pasta exits on SIGTERM" rig_relay_stop_check
rig_summary
