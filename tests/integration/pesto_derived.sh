#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pesto_derived.sh - pesto shows the relay's derived
# configuration as it follows the host (issue 37), and stays compatible
# with upstream's pesto and upstream's relay
#
# Rig (tests/lib/rig.sh): the "host" namespace's veth0 starts with
# 192.0.2.2/24 and 2001:db8::2/64, default routes via .1 and ::1. Two of
# our pasta, --config-net, with -c: one follows the host (--follow-host,
# as the test runs them as root of the initial user namespace), one has
# --no-follow-host and -D 192.0.2.53 -S example.org. The host then moves
# to 198.51.100.2/24 and 2001:db8:1::2/64 via their .1 and ::1 (new
# address and routes first, old addresses last).
#
#   start:     pesto and pesto -s show the tables (the HOST and SPLICE
#              headings, as before) and, below them, "Derived
#              configuration": following on, the host's addresses and
#              gateways (A), marked "(host)";
#   follows:   after the move, pesto -s shows B (polled up to
#              FOLLOW_BOUND s, then asserted), A no longer;
#   fixed:     the --no-follow-host relay says following is off, still
#              shows A, and marks -D and -S values "(option)";
#   upstream pesto, our relay: it shows what ours shows above "Derived
#              configuration", byte for byte; adds a rule (the port
#              listens) and deletes it (it stops); the unread block harms
#              nothing: our pesto then shows and changes the tables, and
#              the relay logs no warning about the clients;
#   our pesto, upstream's relay: shows the tables (exit 0, well within
#              the bound of `timeout`), no derived section; adds a rule
#              (the port listens; upstream's relay sends no reply: said).
#
# Upstream's binaries: pesto and pasta next to --upstream's passt
# (UPSTREAM_PASST), else in /work/upstream/passt; without them, a
# "# skipped:" line says so. No timing assertion: waits are bounded polls.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

NEW4=198.51.100.2
NEWGW4=198.51.100.1
NEW6=2001:db8:1::2
NEWGW6=2001:db8:1::1
PORT=10381
FOLLOW_BOUND=10		# seconds to poll for the relay to follow
PESTO_BOUND=20		# seconds a pesto may take before it is killed
UP_DIR=/work/upstream/passt
[ -n "$UPSTREAM_PASST" ] && UP_DIR=$(dirname "$UPSTREAM_PASST")
UP_PESTO=$UP_DIR/pesto
UP_PASTA=$UP_DIR/pasta

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1
rig_ns_new NS_FIXED f || exit 1
rig_pesto

SOCK=$RIG_TMP/follow.sock
SOCK_FIXED=$RIG_TMP/fixed.sock
OUT=$RIG_TMP/pesto.out
FOLLOW_LOG=$RIG_TMP/follow.log

# show() - our pesto on a socket, bounded, output in $OUT
# $1: socket
# $2...: options
show() {
	local sock=$1
	shift

	timeout "$PESTO_BOUND" "$PESTO" "$@" "$sock" >"$OUT" 2>&1
}

# has() - the last output has a line, exactly
# $1: line
has() {
	grep -qxF -- "$1" "$OUT"
}

# oneline() - the last output on one line, for messages
oneline() {
	tr '\n' '|' <"$OUT"
}

# shows() - our pesto -s shows these derived lines (and not their
# alternative)
# $1: socket
# $2...: lines, each exactly
shows() {
	local sock=$1 line
	shift

	show "$sock" -s || return 1
	for line in "$@"; do
		has "$line" || return 1
	done
}

# start() - test: both relays start; pesto shows tables, then derived
# configuration A
start() {
	local ns=$RIG_NS follow_pid opt

	rig_relay_start daemon -c "$SOCK" -t "$PORT" -l "$FOLLOW_LOG" \
		--follow-host || return 1
	follow_pid=$RIG_RELAY_PID
	RIG_NS=$NS_FIXED
	rig_relay_start daemon -c "$SOCK_FIXED" -t none --no-follow-host \
		-D 192.0.2.53 -S example.org
	RIG_NS=$ns
	[ -S "$SOCK_FIXED" ] || return 1
	RIG_RELAY_PID=$follow_pid
	RIG_RELAY_LOG=$FOLLOW_LOG

	for opt in "" -s; do
		# shellcheck disable=SC2086 # no option, or one
		show "$SOCK" $opt ||
			rig_fail "pesto $opt: $(oneline)" || return 1
		has "passt/pasta configuration ($SOCK)" && has "  HOST" &&
		has "    TCP [*]:$PORT  =>  $PORT " && has "  SPLICE" ||
			rig_fail "pesto $opt tables: $(oneline)" || return 1
		has "Derived configuration ($SOCK)" &&
		has "  Following the host: on" &&
		has "  IPv4: template interface veth0 (host)" &&
		has "      address: $RIG_ADDR4/24 (host)" &&
		has "      gateway: $RIG_GW4 (host)" &&
		has "      address: $RIG_ADDR6/64 (host)" &&
		has "      gateway: $RIG_GW6 (host)" &&
		has "  MTU: 65520" ||
			rig_fail "pesto $opt derived: $(oneline)" || return 1
	done
	# The tables first, the derived configuration after them
	[ "$(grep -n "^Derived" "$OUT" | cut -d: -f1)" -gt \
	  "$(grep -n "^  SPLICE" "$OUT" | cut -d: -f1)" ] ||
		rig_fail "derived configuration before the tables: $(oneline)"
}

# follows() - test: after the move, pesto -s shows B
follows() {
	rig_host_move "$NEW4" "$NEW6" "$NEWGW4" "$NEWGW6" ||
		rig_fail "can't change the host's addresses" || return 1
	rig_poll "$FOLLOW_BOUND" shows "$SOCK" \
		"      address: $NEW4/24 (host)" \
		"      gateway: $NEWGW4 (host)" \
		"      address: $NEW6/64 (host)" \
		"      gateway: $NEWGW6 (host)" ||
		rig_fail "after $FOLLOW_BOUND s pesto -s shows: $(oneline)" ||
		return 1
	! grep -qF -e " $RIG_ADDR4/" -e " $RIG_ADDR6/" "$OUT" ||
		rig_fail "old addresses still shown: $(oneline)"
}

# fixed() - test: --no-follow-host says so and keeps A; options marked
fixed() {
	show "$SOCK_FIXED" -s || rig_fail "pesto: $(oneline)" || return 1
	has "  Following the host: off, values from the host are those of start-up" &&
	has "      address: $RIG_ADDR4/24 (host)" &&
	has "      gateway: $RIG_GW4 (host)" &&
	has "      address: $RIG_ADDR6/64 (host)" &&
	has "      DNS: 192.0.2.53 (option)" &&
	has "  DNS search list: example.org (option)" ||
		rig_fail "shows: $(oneline)" || return 1
	! grep -qF " $NEW4/" "$OUT" || rig_fail "shows $NEW4: $(oneline)"
}

# up_pesto() - test: upstream's pesto on our relay: shows, adds, deletes;
# the block it leaves unread harms nothing
up_pesto() {
	local theirs ours port=$((PORT + 1))

	theirs=$(timeout "$PESTO_BOUND" "$UP_PESTO" "$SOCK" 2>&1) ||
		rig_fail "upstream pesto: $theirs" || return 1
	show "$SOCK" || rig_fail "pesto: $(oneline)" || return 1
	ours=$(sed '/^Derived configuration/,$d' "$OUT")
	[ "$ours" = "$theirs" ] ||
		rig_fail "upstream pesto shows: $(tr '\n' '|' <<<"$theirs")," \
			 "ours: $(tr '\n' '|' <<<"$ours")" || return 1

	timeout "$PESTO_BOUND" "$UP_PESTO" -A -t "$port" "$SOCK" >"$OUT" 2>&1 ||
		rig_fail "upstream pesto -A: $(oneline)" || return 1
	rig_poll 5 rig_listening "$RIG_HOSTNS" "$port" ||
		rig_fail "port $port added by upstream pesto doesn't listen" ||
		return 1
	timeout "$PESTO_BOUND" "$UP_PESTO" -s -D -t "$port" "$SOCK" \
		>"$OUT" 2>&1 ||
		rig_fail "upstream pesto -s -D: $(oneline)" || return 1
	grep -q "^Updated configuration" "$OUT" &&
		! grep -q "^Derived" "$OUT" ||
		rig_fail "upstream pesto -s shows: $(oneline)" || return 1
	rig_poll 5 eval "! rig_listening '$RIG_HOSTNS' $port" ||
		rig_fail "port $port still listens after upstream pesto -D" ||
		return 1

	# Our pesto right after: the relay took no harm
	show "$SOCK" -A -t "$port" ||
		rig_fail "our pesto -A after upstream's: $(oneline)" || return 1
	rig_listening "$RIG_HOSTNS" "$port" ||
		rig_fail "port $port added by our pesto doesn't listen" ||
		return 1
	shows "$SOCK" "    TCP [*]:$port  =>  $port " \
		"      address: $NEW4/24 (host)" ||
		rig_fail "our pesto after upstream's shows: $(oneline)" ||
		return 1
	! grep -E "Configuration client: (update|malformed|not done)" \
		"$FOLLOW_LOG" ||
		rig_fail "the relay logged a client problem" || return 1
	rig_relay_alive || rig_fail "relay gone"
}

# up_relay() - test: our pesto on upstream's pasta: tables, no derived
# section, no hang; an added rule listens
up_relay() {
	local sock=$RIG_TMP/up.sock pidf=$RIG_TMP/up.pid port=$((PORT + 2))
	local base=$((PORT + 3)) ns rc pid

	rig_ns_new ns u || return 1
	rig_h timeout 30 "$UP_PASTA" --runas 0 -q --config-net -P "$pidf" \
		-c "$sock" -t "$base" -u none -T none -U none --netns "$ns" \
		>"$OUT" 2>&1
	rc=$?
	pid=$(cat "$pidf" 2>/dev/null)
	[ -n "$pid" ] && rig_defer "rig_kill '$pid'"
	[ "$rc" -eq 0 ] && [ -n "$pid" ] ||
		rig_fail "upstream pasta: status $rc: $(oneline)" || return 1
	rig_poll 5 eval "[ -S '$sock' ]" ||
		rig_fail "upstream pasta made no $sock" || return 1

	show "$sock"
	rc=$?
	[ "$rc" -eq 0 ] ||
		rig_fail "our pesto on upstream's pasta: status $rc" \
			 "(124: killed after $PESTO_BOUND s): $(oneline)" ||
		return 1
	has "    TCP [*]:$base  =>  $base " && has "  SPLICE" ||
		rig_fail "tables: $(oneline)" || return 1
	! grep -q "^Derived" "$OUT" ||
		rig_fail "a derived section from upstream's pasta: $(oneline)" ||
		return 1

	show "$sock" -s -A -t "$port" ||
		rig_fail "our pesto -A on upstream's pasta: $(oneline)" ||
		return 1
	grep -q "^Updated configuration" "$OUT" &&
		! grep -q "^Derived" "$OUT" ||
		rig_fail "our pesto -s -A shows: $(oneline)" || return 1
	rig_poll 5 rig_listening "$RIG_HOSTNS" "$port" ||
		rig_fail "port $port added on upstream's pasta doesn't listen"
}

rig_run "pesto shows tables, then the derived configuration (A)" start
rig_run "pesto -s shows the host's new addresses (B) once followed" follows
rig_run "--no-follow-host: following off, A kept, options marked" fixed
if [ -x "$UP_PESTO" ]; then
	rig_run "upstream pesto on our pasta: same tables, adds, deletes; no harm" \
		up_pesto
else
	rig_log "skipped: upstream pesto on our pasta: no $UP_PESTO"
fi
if [ -x "$UP_PASTA" ]; then
	rig_run "our pesto on upstream's pasta: tables, no derived section, adds" \
		up_relay
else
	rig_log "skipped: our pesto on upstream's pasta: no $UP_PASTA"
fi
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
