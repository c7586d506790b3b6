#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_loss.sh - frames lost between the guest and the relay
#
# A guest segment that never reached the relay leaves a hole: the relay
# holds what follows (tcp/tcp_ooo.c) and reports it in SACK blocks with
# its duplicate ACKs, so the guest resends the lost segment, and only
# that one: the guest's retransmissions must stay close to the number of
# frames lost (a relay that reports nothing, or forgets held data, makes
# the guest resend whole windows). A segment of ours the guest never got
# is retransmitted by the relay, from the host socket (a rewind of
# SO_PEEK_OFF), on three duplicate ACKs or on its timeout.
#
# The link: passt's namespace rig, with tests/tools/tap_bridge losing every
# Nth data frame in each direction (--drop-every), invisibly to both TCP
# ends, as a lossy link would. At MTU 65520 and 1500, 100 MiB each way must
# arrive intact (sha256), and the losses must have been repaired by the
# side that suffered them: the guest's TcpRetransSegs for namespace->host,
# the relay's retransmission counters for host->namespace.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

SIZE=${LOSS_SIZE:-100M}
LIMIT=${LOSS_LIMIT:-120}
PORT=7021		# host loopback server, namespace->host
FWD=10021		# forwarded port, host->namespace
DROP_EVERY=${LOSS_DROP_EVERY:-300}

rig_init
passt_init
rig_host_ns || exit 1

DATA=$RIG_TMP/data
rig_random_file "$DATA" "$SIZE" || exit 1
GUEST=

# lossy_up() - test: passt and a guest behind a lossy tap_bridge
# $1: MTU
lossy_up() {
	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	[ -n "$PASST_BRIDGE_PID" ] && passt_guest_stop
	rig_ns_new GUEST g || return 1
	rig_persist
	passt_start fg "$RIG_TMP/passt.$1.sock" -m "$1" -t "$FWD" \
		${LOSS_PCAP:+-p "$LOSS_PCAP"} || return 1
	passt_guest_start "$GUEST" --drop-every "$DROP_EVERY" || return 1
	PASST_MTU=$1 passt_guest_static "$GUEST"
}

# retrans() - the relay's retransmissions toward the guest, all kinds
retrans() {
	local a b

	a=$(rig_relay_counter tcp retrans) &&
	b=$(rig_relay_counter tcp fast_retrans) || return 1
	echo $((a + b))
}

# to_host() - test: namespace->host through the lossy link
to_host() {
	local r0 r1 lost

	r0=$(rig_nstat "$GUEST" TcpRetransSegs)
	if ! rig_transfer "$GUEST" "TCP4:$RIG_GW4:$PORT" \
		"$RIG_HOSTNS" "TCP4-LISTEN:$PORT,bind=127.0.0.1" \
		"$DATA" "$LIMIT"; then
		rig_relay_counter tcp retrans >/dev/null
		# counters, then the connections' sequence state
		grep "tcp: " "$RIG_RELAY_LOG" | tail -3 | rig_indent
		return 1
	fi
	r1=$(rig_nstat "$GUEST" TcpRetransSegs)
	# Frames lost on the way: one in DROP_EVERY full-size segments
	lost=$(( $(stat -c %s "$DATA") / (MTU - 40) / DROP_EVERY ))
	rig_log "the guest retransmitted $((r1 - r0)) segments," \
		"about $lost were lost"
	[ $((r1 - r0)) -gt 0 ] ||
		rig_fail "the guest retransmitted nothing: no loss was" \
			 "tested" || return 1
	[ $((r1 - r0)) -le $((lost * 2 + 20)) ] ||
		rig_fail "the guest retransmitted $((r1 - r0)) segments" \
			 "for about $lost lost: it resent data the relay" \
			 "held" || return 1
}

# to_guest() - test: host->namespace through the lossy link
to_guest() {
	local r0 r1

	r0=$(retrans) || rig_fail "no counters from the relay" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$GUEST" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT" || return 1
	r1=$(retrans) || rig_fail "no counters from the relay" || return 1
	rig_log "the relay retransmitted $((r1 - r0)) times"
	[ $((r1 - r0)) -gt 0 ] ||
		rig_fail "the relay retransmitted nothing: no loss was" \
			 "tested" || return 1
}

for MTU in ${LOSS_MTUS:-65520 1500}; do
	rig_run "passt MTU $MTU, 1 in $DROP_EVERY frames lost: starts" \
		lossy_up "$MTU"
	rig_relay_alive || continue
	rig_run "passt MTU $MTU, lossy link: ns->host $SIZE sha256" to_host
	rig_run "passt MTU $MTU, lossy link: host->ns $SIZE sha256" to_guest
done
rig_summary
