#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/fwd_conf.sh - forwarding changed at run time through
# the -c configuration socket, with this project's pesto (and upstream's,
# if there is one), for pasta and for passt
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): the relay runs in a host
# namespace of our own with -c SOCKET and -t 10001. pasta serves the rig's
# namespace; passt serves a namespace attached with tap_bridge. For each:
#
#   - pesto shows the table as upstream's pesto would ("TCP [*]:10001"),
#     then the relay's derived configuration (tests/integration/
#     pesto_derived.sh tests what it says);
#   - a transfer on port 10001 (host -> guest, 16 MiB, sha256) is held open
#     half-way while rules are added and deleted ten times, then finishes:
#     the bytes must be intact;
#   - a rule added with pesto -A takes a connection made as soon as pesto
#     returned (1 MiB, sha256);
#   - an update with a rule whose port another program holds fails as a
#     whole: pesto exits 1 and says which port and why, the table shown
#     afterwards is the one before, and the other new rule of the same
#     update listens nowhere;
#   - after pesto -D, the removed rule's port refuses connections, and a
#     connection accepted through it before keeps working;
#   - -C clears a table, a bare -t replaces it; pasta also: -T added and
#     deleted (listening on the namespace's loopback in between);
#   - a malformed update gets an error reply, the connection is closed, and
#     the table is untouched;
#   - pasta with -t auto: the auto-scan rules are shown and can be kept, a
#     table that replaces them stops following, and "auto" started again
#     at run time (as upstream allows) follows the port once pesto
#     returns, the fixed rule it replaced gone;
#   - upstream's pesto (PESTO_UPSTREAM; else pesto next to --upstream's
#     passt; else /work/upstream/passt/pesto) shows the same table as
#     ours (ours without the derived configuration, which upstream's
#     client doesn't read), and adds, deletes and clears rules. Without that binary, a
#     "# skipped:" line says so.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

BASE=10001
LIMIT=60
UPSTREAM=${PESTO_UPSTREAM:-/work/upstream/passt/pesto}
[ -z "$PESTO_UPSTREAM" ] && [ -n "$UPSTREAM_PASST" ] &&
	UPSTREAM=$(dirname "$UPSTREAM_PASST")/pesto

rig_init
passt_init
rig_host_ns || exit 1

rig_pesto
rig_log "pesto: $PESTO"

DATA=$RIG_TMP/data.bin
SMALL=$RIG_TMP/small.bin
rig_random_file "$DATA" 16M || exit 1
rig_random_file "$SMALL" 1M || exit 1
CSOCK=$RIG_TMP/conf.sock
GUEST=

# conf_show() - print the tables, through our pesto
conf_show() {
	"$PESTO" "$CSOCK"
}

# conf_has() - the table shown has a line
# $1: fixed string, e.g. "TCP [*]:10001  =>  10001"
conf_has() {
	local out

	out=$(conf_show)
	grep -qF -- "$1" <<<"$out"
}

# conf_pesto() - run our pesto on the socket, output in $RIG_TMP/pesto.out
# $@: options
conf_pesto() {
	"$PESTO" "$@" "$CSOCK" >"$RIG_TMP/pesto.out" 2>&1
}

# conf_listening() - a TCP port listens on the host side
# $1: port
conf_listening() {
	rig_listening "$RIG_HOSTNS" "$1"
}

# conf_to_guest() - 1 MiB host -> guest through a forwarded port
# $1: port
conf_to_guest() {
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$1" \
		"$GUEST" "TCP4-LISTEN:$1" "$SMALL" 20
}

# conf_refused() - a connection to a port of the host is refused
# $1: port
conf_refused() {
	local out

	if out=$(rig_h timeout 5 socat -u /dev/null \
		 "TCP4:$RIG_ADDR4:$1,connect-timeout=3" 2>&1); then
		rig_fail "port $1 accepted a connection"
		return 1
	fi
	grep -q "refused" <<<"$out" ||
		rig_fail "port $1: not refused: $out"
}

# start_pasta() - test: pasta with -c, forwarding port BASE
start_pasta() {
	rig_target_ns || return 1
	GUEST=$RIG_NS
	rig_relay_start daemon -c "$CSOCK" -t "$BASE" -l "$RIG_TMP/pasta.log" ||
		return 1
	RIG_RELAY_LOG=$RIG_TMP/pasta.log
	[ -S "$CSOCK" ] ||
		rig_fail "no configuration socket when pasta returned"
}

# start_passt() - test: passt with -c, a guest attached, forwarding BASE
start_passt() {
	rig_target_ns || return 1
	GUEST=$RIG_NS
	passt_start daemon "$RIG_TMP/passt.sock" -c "$CSOCK" -t "$BASE" ||
		return 1
	rig_persist
	passt_guest_start "$GUEST" || return 1
	passt_guest_static "$GUEST" || return 1
	[ -S "$CSOCK" ] ||
		rig_fail "no configuration socket when passt returned"
}

# show() - test: pesto shows the table
show() {
	conf_show >"$RIG_TMP/show.out" 2>&1 ||
		rig_fail "pesto failed: $(cat "$RIG_TMP/show.out")" || return 1
	{ grep -q "^  HOST$" "$RIG_TMP/show.out" &&
	  grep -qF "    TCP [*]:$BASE  =>  $BASE " "$RIG_TMP/show.out" &&
	  grep -qx "Derived configuration ($CSOCK)" "$RIG_TMP/show.out" &&
	  grep -qE "^  Following the host: (on|off)" "$RIG_TMP/show.out"; } ||
		rig_fail "unexpected table: $(tr '\n' '|' <"$RIG_TMP/show.out")"
}

# conf_held() - start a host -> guest transfer of $DATA that stops after
# its first part until a flag file exists (receiver hashing into a file)
# $1: port
# $2: bytes sent before waiting
# $3: flag file
# $4: file for the receiver's hash
# Sets HELD_PID (the sender) and RIG_BG_PID (the receiver).
conf_held() {
	rig_tcp_recv_sha "$GUEST" "TCP4-LISTEN:$1" "$4" "$LIMIT"
	rig_wait_listen "$GUEST" "$1" || return 1
	ip netns exec "$RIG_HOSTNS" timeout "$LIMIT" bash -c "
		{ head -c $2 '$DATA'
		  while [ ! -e '$3' ]; do sleep 0.05; done
		  tail -c +$(($2 + 1)) '$DATA'; } |
		socat -u - TCP4:$RIG_ADDR4:$1,connect-timeout=5" &
	HELD_PID=$!
	rig_defer "rig_kill $HELD_PID"
}

# held_transfer() - test: a transfer held half-way across ten changes
held_transfer() {
	local flag=$RIG_TMP/go.$RANDOM sum=$RIG_TMP/held.sha pid i

	conf_held "$BASE" $((8 << 20)) "$flag" "$sum" || return 1
	pid=$HELD_PID

	for i in $(seq 10); do
		conf_pesto -A -t $((BASE + 1)),$((BASE + 3))-$((BASE + 4)) ||
			rig_fail "add $i: $(cat "$RIG_TMP/pesto.out")" ||
			return 1
		conf_pesto -D -t $((BASE + 1)),$((BASE + 3))-$((BASE + 4)) ||
			rig_fail "delete $i: $(cat "$RIG_TMP/pesto.out")" ||
			return 1
	done
	if rig_exited "$pid"; then
		rig_fail "the sender ended before the changes were done"
		return 1
	fi
	touch "$flag"

	rig_wait_pid "$pid" "$LIMIT" ||
		rig_fail "sender failed after the changes" || return 1
	rig_wait_pid "$RIG_BG_PID" "$LIMIT" ||
		rig_fail "receiver failed after the changes" || return 1
	[ "$(cat "$sum")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch after the changes"
}

# add_then_connect() - test: a new rule takes a connection at once
add_then_connect() {
	local port=$((BASE + 2))

	rig_tcp_recv_sha "$GUEST" "TCP4-LISTEN:$port" "$RIG_TMP/add.sha" 20
	rig_wait_listen "$GUEST" "$port" || return 1
	conf_pesto -A -t "$port" ||
		rig_fail "pesto -A: $(cat "$RIG_TMP/pesto.out")" || return 1
	rig_h timeout 20 socat -u "FILE:$SMALL" "TCP4:$RIG_ADDR4:$port" ||
		rig_fail "connection right after pesto -A failed" || return 1
	rig_wait_pid "$RIG_BG_PID" 20 || rig_fail "receiver failed" || return 1
	[ "$(cat "$RIG_TMP/add.sha")" = "$(rig_sha "$SMALL")" ] ||
		rig_fail "sha256 mismatch"
}

# taken_port() - test: a rule on a port in use fails, as a whole
taken_port() {
	local taken=$((BASE + 6)) other=$((BASE + 5)) before after pid

	before=$(conf_show)
	ip netns exec "$RIG_HOSTNS" socat -u "TCP-LISTEN:$taken" /dev/null &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_wait_listen "$RIG_HOSTNS" "$taken" || return 1

	if conf_pesto -A -t "$other" -A -t "$taken"; then
		rig_fail "pesto succeeded with port $taken in use"
		return 1
	fi
	grep -q "port $taken: Address already in use" "$RIG_TMP/pesto.out" ||
		rig_fail "pesto did not say why: $(cat "$RIG_TMP/pesto.out")" ||
		return 1
	after=$(conf_show)
	[ "$before" = "$after" ] ||
		rig_fail "table changed: $(tr '\n' '|' <<<"$after")" || return 1
	! conf_listening "$other" ||
		rig_fail "port $other of the failed update listens" || return 1
	conf_to_guest "$BASE"
}

# removed_port() - test: a deleted rule's port refuses, its connection lives
removed_port() {
	local port=$((BASE + 2)) sum=$RIG_TMP/removed.sha pid
	local flag=$RIG_TMP/go.$RANDOM

	# A connection accepted before the rule goes, held open meanwhile
	conf_held "$port" $((1 << 20)) "$flag" "$sum" || return 1
	pid=$HELD_PID
	rig_poll 5 eval "[ -n \"\$(ip netns exec $GUEST ss -Htn state \
		established 'sport = :$port')\" ]" ||
		rig_fail "no connection on port $port" || return 1

	conf_pesto -D -t "$port" ||
		rig_fail "pesto -D: $(cat "$RIG_TMP/pesto.out")" || return 1
	! conf_has "TCP [*]:$port " ||
		rig_fail "rule still shown" || return 1
	conf_refused "$port" || return 1

	touch "$flag"
	rig_wait_pid "$pid" "$LIMIT" || rig_fail "sender failed" || return 1
	rig_wait_pid "$RIG_BG_PID" "$LIMIT" ||
		rig_fail "receiver failed" || return 1
	[ "$(cat "$sum")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch on the connection of the removed rule"
}

# clear_replace() - test: -C clears a table, a bare -t replaces it
clear_replace() {
	conf_pesto -C HOST ||
		rig_fail "pesto -C: $(cat "$RIG_TMP/pesto.out")" || return 1
	! conf_has "TCP [" || rig_fail "HOST not cleared" || return 1
	conf_refused "$BASE" || return 1

	conf_pesto -t "$BASE" -u $((BASE + 7)) ||
		rig_fail "pesto -t: $(cat "$RIG_TMP/pesto.out")" || return 1
	conf_has "TCP [*]:$BASE  =>  $BASE " &&
		conf_has "UDP [*]:$((BASE + 7))  =>  $((BASE + 7)) " ||
		rig_fail "table not replaced: $(conf_show | tr '\n' '|')" ||
		return 1
	conf_to_guest "$BASE"
}

# splice_rules() - test (pasta): -T added, listening, then deleted
splice_rules() {
	local port=$((BASE + 8))

	conf_pesto -A -T "$port" ||
		rig_fail "pesto -A -T: $(cat "$RIG_TMP/pesto.out")" || return 1
	conf_has "TCP [*]%lo:$port  =>  $port " ||
		rig_fail "-T rule not shown: $(conf_show | tr '\n' '|')" ||
		return 1
	rig_listening "$GUEST" "$port" ||
		rig_fail "nothing listens on $port in the namespace" || return 1
	conf_pesto -D -T "$port" ||
		rig_fail "pesto -D -T: $(cat "$RIG_TMP/pesto.out")" || return 1
	! rig_listening "$GUEST" "$port" ||
		rig_fail "$port still listens in the namespace"
}

# malformed() - test: garbage gets an error reply, nothing changes
malformed() {
	local before out

	before=$(conf_show)
	out=$(printf '\001\377\377\377\377' |
	      timeout 5 socat -t 3 - "UNIX-CONNECT:$CSOCK" | tr -d '\0')
	grep -q "malformed update: .*too many rules" <<<"$out" ||
		rig_fail "no error reply: $(tail -c 200 <<<"$out")" || return 1
	out=$(printf '\007' | timeout 5 socat -t 3 - "UNIX-CONNECT:$CSOCK" |
	      tr -d '\0')
	grep -q "malformed update: .*pif" <<<"$out" ||
		rig_fail "no error reply for an unknown pif" || return 1
	[ "$(conf_show)" = "$before" ] || rig_fail "table changed"
}

# upstream() - test: upstream's pesto shows, adds, deletes, clears
upstream() {
	local port=$((BASE + 9)) ours theirs spec

	# One port, and a translated range with a hole: three rules
	spec="$port,$((port + 10))-$((port + 20)):$((port + 10010))-$((port + 10020)),~$((port + 15))"

	ours=$(conf_show | sed '/^Derived configuration/,$d')
	theirs=$("$UPSTREAM" "$CSOCK" 2>&1) ||
		rig_fail "upstream pesto failed: $theirs" || return 1
	[ "$ours" = "$theirs" ] ||
		rig_fail "upstream pesto shows: $(tr '\n' '|' <<<"$theirs")," \
			 "ours: $(tr '\n' '|' <<<"$ours")" || return 1

	"$UPSTREAM" -A -t "$spec" "$CSOCK" >"$RIG_TMP/up.out" 2>&1 ||
		rig_fail "upstream pesto -A: $(cat "$RIG_TMP/up.out")" ||
		return 1
	rig_poll 2 conf_listening "$port" ||
		rig_fail "port $port added by upstream pesto doesn't listen" ||
		return 1
	conf_has "TCP [*]:$((port + 16))-$((port + 20))  =>  $((port + 10016))-$((port + 10020)) " ||
		rig_fail "split rule missing: $(conf_show | tr '\n' '|')" ||
		return 1

	"$UPSTREAM" -D -t "$spec" "$CSOCK" >"$RIG_TMP/up.out" 2>&1 ||
		rig_fail "upstream pesto -D: $(cat "$RIG_TMP/up.out")" ||
		return 1
	rig_poll 2 eval "! conf_listening $port" ||
		rig_fail "port $port still listens after upstream pesto -D" ||
		return 1

	"$UPSTREAM" -C HOST "$CSOCK" >"$RIG_TMP/up.out" 2>&1 ||
		rig_fail "upstream pesto -C: $(cat "$RIG_TMP/up.out")" ||
		return 1
	rig_poll 2 eval "! conf_has 'TCP ['" ||
		rig_fail "HOST not cleared by upstream pesto" || return 1
	{ "$UPSTREAM" -t "$BASE" "$CSOCK" >"$RIG_TMP/up.out" 2>&1 &&
	  rig_poll 2 conf_listening "$BASE"; } ||
		rig_fail "upstream pesto -t: $(cat "$RIG_TMP/up.out")"
}

# auto_removed() - test (pasta): "auto" shown, kept, stopped when its table
# is replaced, started again at run time
auto_removed() {
	local sock=$RIG_TMP/auto.sock port=$((BASE + 30)) rc out

	rig_target_ns || return 1
	RIG_RELAY_PID=
	rig_relay_start daemon -c "$sock" -t auto -l "$RIG_TMP/auto.log" ||
		return 1
	RIG_RELAY_LOG=$RIG_TMP/auto.log
	ip netns exec "$RIG_NS" socat -u "TCP-LISTEN:$port,reuseaddr" \
		/dev/null &
	rig_defer "rig_kill $!"
	rig_poll 5 conf_listening "$port" ||
		rig_fail "auto did not follow port $port" || return 1
	out=$("$PESTO" "$sock")
	grep -qF "(best effort) (auto-scan)" <<<"$out" ||
		rig_fail "auto not shown: $(tr '\n' '|' <<<"$out")" ||
		return 1

	# Kept as it is while another table changes: fine
	"$PESTO" -t auto -u none "$sock" >"$RIG_TMP/pesto.out" 2>&1 ||
		rig_fail "keeping auto: $(cat "$RIG_TMP/pesto.out")" || return 1
	conf_listening "$port" || rig_fail "auto stopped" || return 1

	"$PESTO" -t $((port + 1)) "$sock" >"$RIG_TMP/pesto.out" 2>&1 ||
		rig_fail "replacing auto: $(cat "$RIG_TMP/pesto.out")" ||
		return 1
	rig_poll 5 eval "! conf_listening $port" ||
		rig_fail "port $port still followed after auto was removed" ||
		return 1
	conf_listening $((port + 1)) ||
		rig_fail "port $((port + 1)) does not listen" || return 1

	# Started again at run time: followed as soon as pesto returns
	"$PESTO" -t auto "$sock" >"$RIG_TMP/pesto.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "auto refused at run time: $(cat "$RIG_TMP/pesto.out")" ||
		return 1
	conf_listening "$port" ||
		rig_fail "port $port not followed once pesto returned" ||
		return 1
	! conf_listening $((port + 1)) ||
		rig_fail "port $((port + 1)) still listens" || return 1
	rig_relay_stop_check
}

# run_all() - the tests of one relay
# $1: pasta or passt
run_all() {
	rig_run "$1 -c: pesto shows the table" show
	rig_run "$1 -c: transfer intact across 10 add/delete cycles (16 MiB sha256)" \
		held_transfer
	rig_run "$1 -c: new rule takes a connection once pesto returns" \
		add_then_connect
	rig_run "$1 -c: update with a port in use fails whole, client told" \
		taken_port
	rig_run "$1 -c: removed rule's port refused, its connection lives" \
		removed_port
	rig_run "$1 -c: -C clears, bare -t replaces" clear_replace
	[ "$1" = pasta ] &&
		rig_run "$1 -c: -T rule added and deleted" splice_rules
	rig_run "$1 -c: malformed update: error reply, nothing changed" \
		malformed
	if [ -x "$UPSTREAM" ]; then
		rig_run "$1 -c: upstream pesto shows, adds, deletes, clears" \
			upstream
	else
		rig_log "skipped: $1 -c with upstream's pesto (shows, adds," \
			"deletes, clears): no $UPSTREAM (set PESTO_UPSTREAM," \
			"or tests/run --upstream PATH with pesto next to it)"
	fi
	rig_run "$1 -c: relay exits on SIGTERM" rig_relay_stop_check
}

rig_run "pasta starts with -c" start_pasta
run_all pasta
rm -f "$CSOCK"
rig_run "passt starts with -c" start_passt
run_all passt
rig_run "pasta -c: auto shown, kept, stopped by a new table, started again" \
	auto_removed

rig_summary
