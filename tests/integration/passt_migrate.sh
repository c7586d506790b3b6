#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_migrate.sh - live migration of a guest's TCP
# connections from one passt to another, through vhost-user device state
# and passt-repair
#
# Rig (tests/lib/migrate.sh): a source and a target host namespace with
# the same addresses, passt --vhost-user and passt-repair in each, a peer
# namespace behind a bridge reaching the source, and a guest namespace
# whose tap device tests/tools/vu_bridge connects to the source's socket
# as QEMU and a virtio-net driver would (Debian 12's QEMU 7.2 has no
# vhost-user device state migration). Checked:
#   - 10 TCP connections from the guest to the peer, 5 over IPv4 and 5
#     over IPv6, and 4 from the peer to the guest (ports forwarded with
#     -t, 2 over each), each sending a file both ways at once (shaped
#     with tbf, so that they last; the second half of each file once
#     the migration is done, as the links are shared unevenly), are
#     migrated once every one has moved some data both ways: vu_bridge
#     starts the source's dirty page log and lets the guest run a second
#     (the source caps its send buffers: the target's can't be as large
#     at net.core.wmem_max's default, set for the script), stops the
#     source's queues, takes its state, copies the guest's memory, loads
#     the state into the target, moves the network over and starts the
#     target's queues. Every connection then completes with the sha256
#     of what was sent, both ways; no connection was reset (no
#     namespace took a reset in an established connection, neither end
#     sent one, no host socket aborted: mig_no_rst()); seen from the
#     sockets (ss, /proc), so that it holds for upstream's passt too:
#     the target has a socket for each of the 10 to the peer, the source
#     keeps its 10, idle (no byte received after the migration, none in
#     its epoll sets); our passt also says that no old socket took data
#     after its dump, caps its send buffers while the log runs, and
#     counts no active flow;
#   - vu_bridge plays QEMU 10 (tests/lib/migrate.sh, MIG_BRIDGE_OPTS):
#     the target's requests in QEMU's order, the call eventfd it reads
#     coming only after the kick that puts the state in force, event
#     indices, its receive queue looked at on interrupts only: a signal
#     lost by the target hangs the guest, as it hung QEMU 10 guests;
#   - a state damaged on the way (a byte flipped, or cut in half) is
#     refused by the target with a message naming what is wrong, the
#     guest's 2 connections go on on the source (sha256 both ways), and the
#     target then serves a new guest (1 MiB each way, sha256), each in a
#     rig of its own (our passt as the target only: another state format
#     may take the damage unnoticed);
#   - a target that can restore all connections but one (its addresses
#     and ports taken in the target host beforehand, mig_hold()) resets
#     that one toward the guest (the guest's socat gets "Connection
#     reset", or "Broken pipe" if it was writing; its TcpEstabResets grows
#     by one) and takes the other 2 intact (sha256 both ways).
#
# Environment: PASST_REPAIR, MIG_SRC_PASST, MIG_DST_PASST (interop runs
# with upstream's binaries, see doc/migration.md), MIG_SIZE, MIG_RATE.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/lib/migrate.sh
. "$(dirname "$0")/../lib/migrate.sh"

CONNS=10
SIZE=${MIG_SIZE:-8M}
RATE=${MIG_RATE:-80mbit}
PORT0=7300
IN_CONNS=4	# from the peer to the guest, forwarded by passt -t
IN_PORT0=7400
LIMIT=120
MOVED_MIN=$((32 * 1024))	# bytes each way before the migration

rig_init
passt_init
mig_init
# The kernel's default, which some hosts raise: a target's socket can then
# take far less in repair mode than a source's grows to, and the source
# must keep what is in flight below that (doc/migration.md)
rig_sysctl_set net.core.wmem_max 212992 || exit 1
MIG_PASST_OPTS=(-t "$IN_PORT0-$((IN_PORT0 + IN_CONNS - 1))")
rig_need_tool VU_BRIDGE vu_bridge || exit 1
rig_need tc nstat || exit 1

declare -A CLIENTS=() SERVERS=()	# by tag.index
HELPER_SRC=
HELPER_DST=

# streams_start() - $CONNS connections, each sending a file both ways at
# once (socat: one file read, one written): from the guest to the peer's
# ports from PORT0, or with "in" from the peer to the guest's ports from
# IN_PORT0, through the host's address (passt -t)
# $1: tag of the file names
# $2: "in" for connections from the peer
streams_start() {
	local tag=$1 i port addr srv_ns=$MIG_PEER cli_ns=$MIG_GUEST srv
	local port0=$PORT0 addr4=$MIG_PEER4 addr6=[$MIG_PEER6]

	if [ "$2" = in ]; then
		srv_ns=$MIG_GUEST
		cli_ns=$MIG_PEER
		port0=$IN_PORT0
		addr4=$RIG_ADDR4
		addr6=[$RIG_ADDR6]
	fi
	for i in $(seq 0 $((CONNS - 1))); do
		port=$((port0 + i))
		rig_random_file "$RIG_TMP/$tag.up.$i" "$SIZE" &&
		rig_random_file "$RIG_TMP/$tag.down.$i" "$SIZE" || return 1
		srv=TCP4-LISTEN:$port,reuseaddr
		[ $((i % 2)) -eq 0 ] || srv=TCP6-LISTEN:$port,reuseaddr
		ip netns exec "$srv_ns" timeout "$LIMIT" socat -t "$LIMIT" \
			"$srv" "$(stream_feed "$RIG_TMP/$tag.down.$i" \
				  "$RIG_TMP/$tag.gate")!!CREATE:$RIG_TMP/$tag.up.$i.got" \
			>"$RIG_TMP/$tag.srv.$i.log" 2>&1 &
		SERVERS[$tag.$i]=$!
		rig_defer "rig_kill '$!'"
	done
	for i in $(seq 0 $((CONNS - 1))); do
		rig_wait_listen "$srv_ns" $((port0 + i)) || return 1
	done
	for i in $(seq 0 $((CONNS - 1))); do
		port=$((port0 + i))
		addr=$addr4
		[ $((i % 2)) -eq 0 ] || addr=$addr6
		ip netns exec "$cli_ns" timeout "$LIMIT" socat -t "$LIMIT" \
			"$(stream_feed "$RIG_TMP/$tag.up.$i" \
				  "$RIG_TMP/$tag.gate")!!CREATE:$RIG_TMP/$tag.down.$i.got" \
			"TCP:$addr:$port" >"$RIG_TMP/$tag.cli.$i.log" 2>&1 &
		CLIENTS[$tag.$i]=$!
		rig_defer "rig_kill '$!'"
	done
}

# stream_feed() - a socat address that sends a file in two halves: the
# second once the tag's gate exists (the migration is done), so that no
# connection can finish before it, however unevenly the links share
# $1: file
# $2: gate
stream_feed() {
	local half=$(($(stat -c %s "$1") / 2))

	echo "SYSTEM:head -c $half $1; until test -e $2; do sleep 0.1; done;" \
	     "tail -c +$((half + 1)) $1"
}

# streams_open() - let the connections of a tag send their second halves
# $1: tag
streams_open() {
	touch "$RIG_TMP/$1.gate"
}

# size_of() - bytes in a file, 0 if it isn't there
# $1: file
size_of() {
	stat -c %s "$1" 2>/dev/null || echo 0
}

# streams_moving() - has every connection moved MOVED_MIN bytes each way?
# $1: tag
streams_moving() {
	local i f

	for i in $(seq 0 $((CONNS - 1))); do
		for f in "$RIG_TMP/$1.up.$i.got" "$RIG_TMP/$1.down.$i.got"; do
			[ "$(size_of "$f")" -ge "$MOVED_MIN" ] || return 1
		done
	done
}

# streams_all_moving() - have the connections of migrate() (tags mig and
# in) all moved MOVED_MIN bytes each way?
streams_all_moving() {
	streams_moving mig && CONNS=$IN_CONNS streams_moving in
}

# streams_unfinished() - is no connection done, either way?
# $1: tag
streams_unfinished() {
	local i full

	full=$(size_of "$RIG_TMP/$1.up.0")
	for i in $(seq 0 $((CONNS - 1))); do
		[ "$(size_of "$RIG_TMP/$1.up.$i.got")" -lt "$full" ] &&
		[ "$(size_of "$RIG_TMP/$1.down.$i.got")" -lt "$full" ] ||
			rig_fail "connection $i had finished a direction" \
				 "before the migration" || return 1
	done
}

# streams_check() - every connection ends well, sha256 both ways
# $1: tag
streams_check() {
	local i rc

	for i in $(seq 0 $((CONNS - 1))); do
		rig_wait_pid "${CLIENTS[$1.$i]}" "$LIMIT"
		rc=$?
		[ "$rc" -eq 0 ] || mig_dump_socks
		[ "$rc" -eq 0 ] || rig_fail "client $i: status $rc:" \
			"$(tr '\n' ' ' <"$RIG_TMP/$1.cli.$i.log")" || return 1
		rig_wait_pid "${SERVERS[$1.$i]}" "$LIMIT"
		rc=$?
		[ "$rc" -eq 0 ] || mig_dump_socks
		[ "$rc" -eq 0 ] || rig_fail "server $i: status $rc:" \
			"$(tr '\n' ' ' <"$RIG_TMP/$1.srv.$i.log")" || return 1
		rig_sha_eq "$RIG_TMP/$1.up.$i" "$RIG_TMP/$1.up.$i.got" &&
		rig_sha_eq "$RIG_TMP/$1.down.$i" "$RIG_TMP/$1.down.$i.got" ||
			return 1
	done
}

# setup() - test: the rig, both relays, the guest on the source
setup() {
	mig_net || return 1
	mig_relays "$@" || return 1
	mig_helper HELPER_SRC "$MIG_SRC_SOCK.repair" "$RIG_TMP/repair.src.log"
	mig_helper HELPER_DST "$MIG_DST_SOCK.repair" "$RIG_TMP/repair.dst.log"
	mig_shape "$RATE" || rig_fail "can't shape the links" || return 1
	RIG_RELAY_LOG=$MIG_SRC_LOG
	rig_poll 5 mig_helper_connected "$HELPER_SRC" ||
		rig_fail "passt-repair did not connect to the source" ||
		return 1
	rig_poll 5 mig_helper_connected "$HELPER_DST" ||
		rig_fail "passt-repair did not connect to the target"
}

# socks_count() - sockets of a host namespace to the peer: one per
# connection?
# $1: namespace
# $2: what it is, for the message
# $3: its sockets ("port inode bytes" lines, mig_socks())
socks_count() {
	local n

	n=$(grep -c . <<<"$3")
	[ "$n" = "$CONNS" ] ||
		rig_fail "the $2 has $n sockets to the peer, not $CONNS:" \
			 "$(ip netns exec "$1" ss -Htan 2>&1 | tr '\n' ' ')"
}

# socks_idle() - the source's sockets once the connections are done: it
# keeps its own (idle, as upstream documents) but watches none of them any
# more, and they took nothing from the peer after the migration
# $1: its sockets right after the migration
socks_idle() {
	local src polled line

	socks_count "$MIG_SRC" "source, after the migration," "$1" || return 1
	src=$(mig_socks "$MIG_SRC" "$PORT0" "$CONNS")
	socks_count "$MIG_SRC" source "$src" || return 1
	[ "$src" = "$1" ] ||
		rig_fail "the source's sockets took data after the migration:" \
			 "$(tr '\n' ' ' <<<"$1") then $(tr '\n' ' ' <<<"$src")" ||
		return 1
	polled=$(mig_polled "$MIG_SRC_PID") ||
		rig_fail "can't see the epoll sets of the source (PID" \
			 "$MIG_SRC_PID): $(find /proc/"$MIG_SRC_PID"/fd -mindepth 1 \
					  -printf '%f -> %l ' 2>&1)" || return 1
	while read -r line; do
		line=${line#* }
		! grep -qx "${line% *}" <<<"$polled" ||
			rig_fail "the source still watches socket ${line% *}" ||
			return 1
	done <<<"$src"
}

# migrate() - test: 10 connections to the peer and 4 from it migrated
# mid-transfer, sha256, no RST, the source idle
migrate() {
	local n before

	streams_start mig || return 1
	CONNS=$IN_CONNS streams_start in in || return 1
	rig_poll 60 streams_all_moving ||
		rig_fail "the connections did not move $MOVED_MIN bytes each" \
			 "way within 60 s" || return 1
	streams_unfinished mig && CONNS=$IN_CONNS streams_unfinished in ||
		return 1

	kill -USR2 "$PASST_BRIDGE_PID" ||
		rig_fail "can't signal vu_bridge" || return 1
	rig_poll 30 grep -q "migrated to\|refused the state" \
		"$PASST_BRIDGE_LOG" ||
		rig_fail "no migration after 30 s:" \
			 "$(tail -n 3 "$PASST_BRIDGE_LOG" | tr '\n' ' ')" ||
		return 1
	grep -q "migrated to" "$PASST_BRIDGE_LOG" ||
		rig_fail "$(grep -m 1 refused "$PASST_BRIDGE_LOG")" || return 1
	streams_open mig
	streams_open in
	RIG_RELAY_PID=$MIG_DST_PID
	RIG_RELAY_LOG=$MIG_DST_LOG
	rig_log "$(grep -m 1 'state saved' "$PASST_BRIDGE_LOG")"
	socks_count "$MIG_DST" target \
		"$(mig_socks "$MIG_DST" "$PORT0" "$CONNS")" || return 1
	before=$(mig_socks "$MIG_SRC" "$PORT0" "$CONNS")

	streams_check mig && CONNS=$IN_CONNS streams_check in || return 1
	mig_no_rst || return 1
	socks_idle "$before" || return 1
	kill -0 "$MIG_SRC_PID" ||
		rig_fail "the source exited (no --migrate-exit given)" ||
		return 1

	# Our passt also says what it did, and counts its flows
	if ! mig_ours "$MIG_SRC_PASST"; then
		rig_log "skipped: the source's log and counters (another" \
			"passt: $MIG_SRC_PASST)"
		return 0
	fi
	! grep -q "after it was saved" "$MIG_SRC_LOG" ||
		rig_fail "$(grep -m 1 'after it was saved' "$MIG_SRC_LOG")" ||
		return 1
	grep -q "send buffers capped" "$MIG_SRC_LOG" ||
		rig_fail "the source did not cap its send buffers when the" \
			 "log started" || return 1
	! grep -q "fit a socket here" "$MIG_DST_LOG" ||
		rig_fail "$(grep -m 1 'fit a socket here' "$MIG_DST_LOG")" ||
		return 1
	n=$(mig_active "$MIG_SRC_PID" "$MIG_SRC_LOG")
	[ "$n" = 0 ] ||
		rig_fail "the source holds ${n:-?} active connections"
}

# refused() - test: a damaged state is refused by the target, the guest
# goes on on the source, the target serves a new guest
# $1: vu_bridge's --migrate-corrupt mode
refused() {
	local saved_pid

	setup --migrate-corrupt "$1" || return 1
	CONNS=2 SIZE=8M streams_start "bad$1" || return 1
	CONNS=2 rig_poll 60 streams_moving "bad$1" ||
		rig_fail "the connections did not move data" || return 1
	kill -USR2 "$PASST_BRIDGE_PID" || return 1
	rig_poll 30 grep -q "migrated to\|refused the state" \
		"$PASST_BRIDGE_LOG" ||
		rig_fail "no migration after 30 s" || return 1
	grep -q "refused the state" "$PASST_BRIDGE_LOG" ||
		rig_fail "the target took a damaged state" || return 1
	grep -q "Migration: refusing the state from the source: at byte" \
		"$MIG_DST_LOG" ||
		rig_fail "no clear refusal in the target's log" || return 1
	rig_log "$(grep -m 1 'refusing the state' "$MIG_DST_LOG")"

	# The guest resumed on the source: its connections end well there
	streams_open "bad$1"
	RIG_RELAY_PID=$MIG_SRC_PID
	RIG_RELAY_LOG=$MIG_SRC_LOG
	CONNS=2 streams_check "bad$1" || return 1

	# The target serves a new guest, once the network reaches it
	saved_pid=$PASST_BRIDGE_PID
	eval "$MIG_HOOK" || return 1
	RIG_RELAY_PID=$MIG_DST_PID
	RIG_RELAY_LOG=$MIG_DST_LOG
	rig_ns_new MIG_GUEST g || return 1
	PASST_SOCK=$MIG_DST_SOCK
	BRIDGE=$VU_BRIDGE passt_guest_start "$MIG_GUEST" || return 1
	passt_guest_static "$MIG_GUEST" &&
	ip -n "$MIG_GUEST" route add "$MIG_PEER4/32" via "$RIG_GW4" || return 1
	[ "$PASST_BRIDGE_PID" != "$saved_pid" ] || return 1
	CONNS=1 SIZE=1M streams_start "new$1" && streams_open "new$1" &&
	CONNS=1 streams_check "new$1"
}

# partial() - test: one connection's addresses are taken in the target
# host beforehand (mig_hold()): the target resets that one toward the
# guest and takes the others, and the guest goes on there
partial() {
	local i rc before

	setup || return 1
	CONNS=3 SIZE=8M streams_start part || return 1
	CONNS=3 rig_poll 60 streams_moving part ||
		rig_fail "the connections did not move data" || return 1
	mig_hold "$PORT0" "$LIMIT" || return 1
	before=$(rig_nstat "$MIG_GUEST" TcpEstabResets)

	kill -USR2 "$PASST_BRIDGE_PID" || return 1
	rig_poll 30 grep -q "migrated to\|refused the state" \
		"$PASST_BRIDGE_LOG" ||
		rig_fail "no migration after 30 s" || return 1
	grep -q "migrated to" "$PASST_BRIDGE_LOG" ||
		rig_fail "the target refused the state:" \
			 "$(grep -m 1 'refusing' "$MIG_DST_LOG")" || return 1
	streams_open part
	RIG_RELAY_PID=$MIG_DST_PID
	RIG_RELAY_LOG=$MIG_DST_LOG

	# The connection whose addresses were taken: reset in the guest
	rig_wait_pid "${CLIENTS[part.0]}" "$LIMIT"
	rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
		rig_fail "the connection whose addresses were taken: client" \
			 "status $rc" || return 1
	grep -q "Connection reset\|Broken pipe" "$RIG_TMP/part.cli.0.log" ||
		rig_fail "client 0: $(tr '\n' ' ' <"$RIG_TMP/part.cli.0.log")" ||
		return 1
	[ "$(rig_nstat "$MIG_GUEST" TcpEstabResets)" = $((before + 1)) ] ||
		rig_fail "the guest took $(( $(rig_nstat "$MIG_GUEST" \
			 TcpEstabResets) - before )) resets, not 1" || return 1

	# The others moved intact
	for i in 1 2; do
		rig_wait_pid "${CLIENTS[part.$i]}" "$LIMIT" &&
		rig_wait_pid "${SERVERS[part.$i]}" "$LIMIT" ||
			rig_fail "connection $i did not complete" || return 1
		rig_sha_eq "$RIG_TMP/part.up.$i" "$RIG_TMP/part.up.$i.got" &&
		rig_sha_eq "$RIG_TMP/part.down.$i" \
			   "$RIG_TMP/part.down.$i.got" || return 1
	done
	if ! grep -q "TCP connection [0-9]* .*:$PORT0): can't restore it here" \
		  "$MIG_DST_LOG" ||
	   ! grep -q "Migration: 2 TCP connections restored, 1 reset" \
		  "$MIG_DST_LOG"; then
		rig_fail "the target's log: $(grep 'Migration' "$MIG_DST_LOG" |
					      tr '\n' ' ')"
		return 1
	fi
}

rig_run "passt migration: rig, source and target passt, passt-repair for both" \
	setup
if [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt migration: $CONNS TCP connections (IPv4, IPv6) to the peer and $IN_CONNS from it (-t) streaming $SIZE both ways move mid-transfer, sha256, no RST, source idle" \
	migrate
if ! mig_ours "$MIG_DST_PASST"; then
	# Another passt's state format: the damage may go unnoticed
	rig_log "skipped: damaged states (they check our state format;" \
		"the target is another passt: $MIG_DST_PASST)"
	rig_summary
fi
for mode in flip truncate; do
	rig_run "passt migration: a state damaged on the way ($mode) is refused with a message, the guest goes on on the source, the target serves a new guest" \
		refused "$mode"
done
rig_run "passt migration: one connection's addresses taken in the target host: the target resets that one toward the guest, the other 2 move intact (sha256 both ways), the guest goes on" \
	partial
rig_summary
