#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/access_control.sh - who may use what the relay exposes
#
# Theory of operation: the relay trusts the user who started it (and
# root), and nothing else: not another local user, not the guest, not a
# vhost-user front-end beyond the protocol, not a process in the namespace
# pasta serves (doc/security.md). Each part of that boundary has a section
# below, "# --- PART ---", with its checks; every check asserts something
# an older build got wrong.
#
# sockets:
#   - under umask 000 and 022, every socket a relay run as another user
#     creates (passt -s, passt --vhost-user -s and its .repair socket,
#     passt -c, pasta -c) is mode 0600 and owned by that user: before,
#     the guest and vhost-user sockets were 0777 & ~umask;
#   - another user (65534) can't connect to any of them, and one that can
#     (CAP_DAC_OVERRIDE, as an ambient capability) is refused by the
#     relay itself (SO_PEERCRED) and counted: conn_refused on the tap:
#     line, refused_uid on the conf: line of the counters (SIGUSR1);
#   - the relay's own user is served on each of them;
#   - pasta refuses a -c client from the namespace it serves
#     (refused_netns), as root (pasta as root) and as pasta's own user
#     (rootless: nsenter into the spawned command's namespaces);
#   - a vhost-user front-end trickling a message a byte every 200 ms
#     (never a second between two bytes) does not hold the loop: a -c
#     request is answered before the message could be complete, and the
#     relay drops the front-end (its message deadline, from the first
#     byte). Before, each byte restarted a 1 s timeout: the loop waited
#     for the whole message (15 s), the -c request with it;
#   - a front-end whose call eventfd is blocking and at its maximum count
#     does not hold the loop (a -c request is answered) and costs a
#     counted lost signal. Before, the relay blocked in write() for good;
#   - a guest trickling a frame on passt's stream socket does not hold the
#     loop either (a -c request is answered before the frame is complete),
#     and the frame arrives whole (rx_frames): that socket is read without
#     waiting, as it was before (a guard, not a fix).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

rig_init
passt_init
rig_need setpriv nsenter stat || exit 1
rig_host_ns || exit 1

PESTO=$(dirname "$(readlink -f "$RELAY")")/pesto
[ -x "$PESTO" ] || PESTO=$RIG_ROOT/build/pesto
if [ ! -x "$PESTO" ]; then
	echo "FAIL: prerequisites: pesto not built (run make)"
	exit 1
fi

# --- sockets ---

rig_need_tool HOSTILE vu_hostile || exit 1
# Trickled vhost-user message: 12 + SK_PAYLOAD bytes, one every SK_GAP_MS:
# 15 s in all, far beyond the relay's 1 s deadline, while each gap stays
# below the 1 s timeout per read that held older builds
SK_GAP_MS=200
SK_PAYLOAD=64
SK_LIMIT=60		# seconds a -c request may take before we give up
SK_OTHER=65534		# another user, for connections that must be refused
SK_UID=		# the relay's user in the uid tests (a free UID)
SK_PESTO=		# pesto, where that user can run it
declare -A SK_PID SK_LOG	# relays of the uid tests, by name

# sk_free_uid() - pick a UID no account uses, for the relay's user
sk_free_uid() {
	local u

	for u in $(seq $((40000 + $$ % 10000)) 60000); do
		getent passwd "$u" >/dev/null || { echo "$u"; return 0; }
	done
	return 1
}

# sk_start() - start a relay as SK_UID under a umask, in the host namespace
# $1: name (for SK_PID, SK_LOG)
# $2: umask
# $3...: program and options
sk_start() {
	local name=$1 mask=$2 log=$RIG_TMP/sk-$1-$2.log
	shift 2

	echo "# umask $mask: $*" >"$log"
	ip netns exec "$RIG_HOSTNS" sh -c "umask $mask; exec setpriv \
		--reuid=$SK_UID --regid=$SK_UID --clear-groups \"\$@\"" \
		sh "$@" >>"$log" 2>&1 &
	SK_PID[$name]=$!
	SK_LOG[$name]=$log
	rig_defer "rig_kill '$!'"
}

# sk_counter() - one counter of a relay, fresh (SIGUSR1)
# $1: PID
# $2: its log
# $3: module as its line starts ("tap", "conf")
# $4: key
sk_counter() {
	local before

	before=$(grep -c "$3: .*$4=" "$2")
	kill -USR1 "$1" 2>/dev/null || return 1
	rig_poll 5 rig_log_grew "$2" "$3: .*$4=" "${before:-0}" || return 1
	grep "$3: .*$4=" "$2" | tail -n 1 | tr ' ' '\n' |
		sed -n "s/^$4=//p"
}

# sk_up() - test: passt (stream), passt --vhost-user and pasta, as another
# user, under a umask, each with -c
# $1: umask
sk_up() {
	local d=$RIG_TMP/sk-$1 passt pasta s

	rig_persist
	mkdir -p "$d" && chown "$SK_UID:$SK_UID" "$d" && chmod 755 "$d" ||
		return 1
	passt=$(rig_user_copy "$PASST" "$SK_UID") || return 1
	pasta=$(rig_user_copy "$RELAY" "$SK_UID") || return 1
	SK_PESTO=$(rig_user_copy "$PESTO" "$SK_UID") || return 1

	sk_start stream "$1" "$passt" -f -s "$d/s" -c "$d/c"
	sk_start vu "$1" "$passt" -f --vhost-user -s "$d/v" -c "$d/vc"
	sk_start pasta "$1" "$pasta" -f -c "$d/pc" --config-net -u none \
		-T none -U none -- sleep 600
	for s in s c v vc v.repair pc; do
		rig_poll 5 test -S "$d/$s" ||
			rig_fail "no socket $d/$s after 5 s" || return 1
	done
}

# sk_modes() - test: every socket is 0600 and the relay's user's
# $1: umask
sk_modes() {
	local d=$RIG_TMP/sk-$1 s got

	for s in s c v vc v.repair pc; do
		got=$(stat -c '%a %u' "$d/$s") || return 1
		[ "$got" = "600 $SK_UID" ] ||
			rig_fail "$s: mode and owner '$got'," \
				 "expected '600 $SK_UID'" || return 1
	done
}

# sk_other_connect() - connect to a socket as SK_OTHER, send nothing
# $1: socket
# $2...: more setpriv options (capabilities)
sk_other_connect() {
	local sock=$1
	shift

	setpriv --reuid="$SK_OTHER" --regid="$SK_OTHER" --clear-groups "$@" \
		timeout 10 socat -u /dev/null "UNIX-CONNECT:$sock" 2>/dev/null
}

# sk_other_blocked() - test: another user can't connect to any socket
# $1: umask
sk_other_blocked() {
	local d=$RIG_TMP/sk-$1 s

	for s in s c v vc v.repair pc; do
		! sk_other_connect "$d/$s" ||
			rig_fail "user $SK_OTHER connected to $s" || return 1
	done
}

# sk_other_refused() - test: another user who may connect (ambient
# CAP_DAC_OVERRIDE) is refused by each relay, and counted
# $1: umask
sk_other_refused() {
	local d=$RIG_TMP/sk-$1 caps s n r m k

	caps=(--inh-caps=+dac_override --ambient-caps=+dac_override)
	for s in s c v vc pc; do
		sk_other_connect "$d/$s" "${caps[@]}" ||
			rig_fail "user $SK_OTHER with CAP_DAC_OVERRIDE could" \
				 "not even connect to $s" || return 1
	done

	for s in "stream tap conn_refused" "stream conf refused_uid" \
		 "vu tap conn_refused" "vu conf refused_uid" \
		 "pasta conf refused_uid"; do
		read -r r m k <<<"$s"
		n=$(sk_counter "${SK_PID[$r]}" "${SK_LOG[$r]}" "$m" "$k")
		[ "${n:-0}" -ge 1 ] ||
			rig_fail "$r: $m: $k=${n:-missing}, expected 1" ||
			return 1
	done
}

# sk_owner_served() - test: the relay's own user is served on each socket
# $1: umask
sk_owner_served() {
	local d=$RIG_TMP/sk-$1 s sock

	for s in c vc pc; do
		setpriv --reuid="$SK_UID" --regid="$SK_UID" --clear-groups \
			timeout "$SK_LIMIT" "$SK_PESTO" "$d/$s" >/dev/null ||
			rig_fail "pesto as the relay's user failed on $s" ||
			return 1
	done
	for s in stream vu; do
		sock=$d/s
		[ "$s" = vu ] && sock=$d/v
		setpriv --reuid="$SK_UID" --regid="$SK_UID" --clear-groups \
			timeout 10 socat -u /dev/null "UNIX-CONNECT:$sock" ||
			rig_fail "the relay's user can't connect to $sock" ||
			return 1
		rig_poll 5 grep -q "Accepted guest connection" \
			"${SK_LOG[$s]}" ||
			rig_fail "$s: the relay's user was not accepted" ||
			return 1
	done
}

# sk_rootless_ns() - test: rootless pasta refuses its own user, from the
# namespace it serves
# $1: umask
sk_rootless_ns() {
	local d=$RIG_TMP/sk-$1 child n

	child=$(pgrep -P "${SK_PID[pasta]}" | head -n 1)
	[ -n "$child" ] || rig_fail "pasta's command is not running" ||
		return 1
	# Root in pasta's user namespace is its user; the network namespace
	# is the one pasta serves
	if nsenter -t "$child" -U -n timeout "$SK_LIMIT" "$SK_PESTO" \
	   "$d/pc" >/dev/null 2>&1; then
		rig_fail "a client in pasta's namespace was served"
		return 1
	fi
	nsenter -t "${SK_PID[pasta]}" -U timeout "$SK_LIMIT" "$SK_PESTO" \
		"$d/pc" >/dev/null ||
		rig_fail "pasta's user outside the namespace was refused" ||
		return 1
	n=$(sk_counter "${SK_PID[pasta]}" "${SK_LOG[pasta]}" conf \
		refused_netns)
	[ "${n:-0}" -ge 1 ] ||
		rig_fail "conf: refused_netns=${n:-missing}, expected 1"
}

# sk_down() - stop the relays of one umask
sk_down() {
	local r

	for r in stream vu pasta; do
		rig_kill "${SK_PID[$r]}"
	done
}

# sk_pasta_ns() - test: pasta (root) refuses a -c client from the namespace
# it serves, serves one from the host
sk_pasta_ns() {
	local c=$RIG_TMP/sk-pasta-ns.sock n

	rig_target_ns || return 1
	rig_relay_start fg -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	rig_h timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null ||
		rig_fail "pesto from the host was refused" || return 1
	if rig_g timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null 2>&1; then
		rig_fail "pesto from pasta's namespace was served"
		return 1
	fi
	n=$(sk_counter "$RIG_RELAY_PID" "$RIG_RELAY_LOG" conf refused_netns)
	[ "${n:-0}" -ge 1 ] ||
		rig_fail "conf: refused_netns=${n:-missing}, expected 1" ||
		return 1
	rig_relay_stop_check
}

# sk_trickle_answered() - run a trickling client, check that a -c request
# is answered before it could finish
# $1: socket the trickler uses
# $2: -c socket
# $3: trickler's output file
# $4...: vu_hostile trickle options
# Sets SK_TRICKLER to the trickler's PID.
sk_trickle_answered() {
	local sock=$1 ctl=$2 out=$3
	shift 3

	"$HOSTILE" trickle --interval-ms "$SK_GAP_MS" "$@" "$sock" \
		>"$out" 2>&1 &
	SK_TRICKLER=$!
	rig_defer "rig_kill '$SK_TRICKLER'"
	rig_poll 5 grep -qs trickling "$out" ||
		rig_fail "the trickler did not start: $(cat "$out")" ||
		return 1

	rig_h timeout "$SK_LIMIT" "$PESTO" "$ctl" >/dev/null ||
		rig_fail "the -c request got no answer" || return 1
	# The message takes seconds to trickle: a relay that answered only
	# once it was complete waited for it
	! grep -q complete "$out" ||
		rig_fail "the -c request was answered only once the" \
			 "trickled message was complete (the loop waited)"
}

# sk_vu_trickle() - test: a trickling front-end does not hold the loop,
# and is dropped at its message's deadline
sk_vu_trickle() {
	local s=$RIG_TMP/sk-vu.sock c=$RIG_TMP/sk-vu.ctl
	local out=$RIG_TMP/sk-trickle.out rc

	passt_start fg "$s" --vhost-user -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	sk_trickle_answered "$s" "$c" "$out" --payload "$SK_PAYLOAD" ||
		return 1

	rig_wait_pid "$SK_TRICKLER" "$SK_LIMIT"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "dropped after" "$out" ||
		rig_fail "the trickler was not dropped (status $rc):" \
			 "$(cat "$out")" || return 1
	grep -q "message from the front-end is not complete" \
		"$RIG_RELAY_LOG" ||
		rig_fail "no message deadline in passt's log"
}

# sk_vu_callfull() - test: a full, blocking call eventfd does not hold the
# loop, and costs a counted lost signal
sk_vu_callfull() {
	local s=$RIG_TMP/sk-vu.sock c=$RIG_TMP/sk-vu.ctl
	local out=$RIG_TMP/sk-callfull.out pid n

	"$HOSTILE" callfull "$s" >"$out" 2>&1 &
	pid=$!
	rig_defer "rig_kill '$pid'"
	rig_poll 10 grep -qs "call eventfd full" "$out" ||
		rig_fail "the front-end did not set up: $(cat "$out")" ||
		return 1

	rig_h timeout "$SK_LIMIT" "$PESTO" "$c" >/dev/null ||
		rig_fail "the -c request got no answer" || return 1

	rig_kill "$pid"
	rig_poll 5 grep -q "signals lost" "$RIG_RELAY_LOG" ||
		rig_fail "passt did not log the front-end's departure" ||
		return 1
	n=$(grep -o '[0-9]* signals lost' "$RIG_RELAY_LOG" | tail -n 1)
	[ "${n%% *}" -ge 1 ] ||
		rig_fail "no lost signal counted ($n)" || return 1
	rig_relay_stop_check
}

# sk_stream_trickle() - test: a guest trickling a frame on the stream
# socket does not hold the loop; the frame arrives whole
sk_stream_trickle() {
	local s=$RIG_TMP/sk-stream.sock c=$RIG_TMP/sk-stream.ctl
	local out=$RIG_TMP/sk-stream.out rc n

	passt_start fg "$s" -c "$c" || return 1
	rig_poll 5 test -S "$c" || rig_fail "no -c socket" || return 1
	# An Ethernet header of zeroes: a frame, dropped as unsupported
	sk_trickle_answered "$s" "$c" "$out" --stream --payload 14 ||
		return 1

	rig_wait_pid "$SK_TRICKLER" "$SK_LIMIT"
	rc=$?
	[ "$rc" -eq 2 ] ||
		rig_fail "the guest did not send its frame whole (status" \
			 "$rc): $(cat "$out")" || return 1
	n=$(sk_counter "$RIG_RELAY_PID" "$RIG_RELAY_LOG" tap rx_frames)
	[ "${n:-0}" -eq 1 ] ||
		rig_fail "tap: rx_frames=${n:-missing}, expected 1" || return 1
	rig_relay_stop_check
}

SK_UID=$(sk_free_uid) || { echo "FAIL: prerequisites: no free UID"; exit 1; }
rig_log "relay's user for the uid tests: $SK_UID"
for mask in 000 022; do
	rig_run "sockets, umask $mask: passt, passt --vhost-user, pasta as user $SK_UID" \
		sk_up "$mask"
	rig_run "sockets, umask $mask: every socket 0600, the relay's user's" \
		sk_modes "$mask"
	rig_run "sockets, umask $mask: user $SK_OTHER can't connect" \
		sk_other_blocked "$mask"
	rig_run "sockets, umask $mask: user $SK_OTHER with CAP_DAC_OVERRIDE refused by the relays, counted" \
		sk_other_refused "$mask"
	rig_run "sockets, umask $mask: the relay's user is served" \
		sk_owner_served "$mask"
	rig_run "sockets, umask $mask: rootless pasta refuses its user in its namespace" \
		sk_rootless_ns "$mask"
	sk_down
done
rig_run "sockets: pasta refuses -c from the namespace it serves" sk_pasta_ns
rig_run "sockets: a trickling vhost-user front-end holds no -c request, and is dropped" \
	sk_vu_trickle
rig_run "sockets: a full call eventfd holds no -c request, the signal is counted" \
	sk_vu_callfull
rig_run "sockets: a guest trickling a frame holds no -c request" \
	sk_stream_trickle

rig_summary
