#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/log_contract.sh - what the log file says, as upstream's
#
# Rig (tests/lib/rig.sh): pasta serves the rig's namespace with -l FILE; a
# server on the host namespace's loopback answers each connection with one
# line, and the namespace connects to it through the gateway address.
#
#   header: the first line of the log file is "pasta VERSION: PATH (PID)",
#     naming the binary and the PID of the daemon (the one in the PID
#     file), and the file is emptied when pasta starts;
#   -d: 100 short connections each log their creation and their close,
#     with addresses and ports, and their state changes;
#   -l: once set-up is over, nothing more goes to stderr (foreground mode,
#     -d, connections and the exit message go to the file only);
#   --log-size 16384: 100 connections log more than that; the file stays
#     within the limit, its first line is the header followed by " - log
#     truncated at TIME", then whole lines only, ending with the close of
#     the last connection.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

PORT=10201
CONNS=100
LOG_SIZE=16384

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

# Answers every connection with "ok"
ip netns exec "$RIG_HOSTNS" socat \
	"TCP4-LISTEN:$PORT,bind=127.0.0.1,fork,reuseaddr" SYSTEM:'echo ok' &
rig_defer "rig_kill $!"
rig_wait_listen "$RIG_HOSTNS" $PORT || exit 1

# connections() - make $CONNS connections from the namespace, one by one,
# each reading the server's line; print how many got it
connections() {
	# shellcheck disable=SC2016 # expanded by the shell in the namespace
	rig_g timeout 60 bash -c 'n=0
		for i in $(seq "$1"); do
			[ "$(socat -u "TCP4:$2" STDOUT)" = ok ] &&
				n=$((n + 1))
		done; echo $n' connections "$CONNS" "$RIG_GW4:$PORT"
}

# flows() - guest ports of TCP flows to the server with an event logged
# $1: file
# $2: "created" or "closed"
flows() {
	sed -n "s/.*Flow [0-9]* (TCP): $2: guest \[$RIG_ADDR4\]:\([0-9]*\), peer \[$RIG_GW4\]:$PORT$/\1/p" \
		"$1" | sort -n
}

# all_closed() - every connection made has its close logged
# $1: file
all_closed() {
	[ "$(flows "$1" closed | wc -l)" -ge "$CONNS" ]
}

# last_closed() - the last flow created has its close logged
# $1: file
last_closed() {
	[ "$(flows "$1" closed | tail -n 1)" = \
	  "$(flows "$1" created | tail -n 1)" ]
}

# header() - test: the first line names program, version, binary, daemon
header() {
	local log=$RIG_TMP/header.log pid line

	echo "stale line of an earlier run" >"$log"
	rig_relay_start daemon -t none -l "$log" || return 1
	pid=$RIG_RELAY_PID
	line=$(head -n 1 "$log")
	rig_log "first line: $line"
	[[ $line =~ ^pasta\ [0-9][^\ ]*:\ (/[^ ]+)\ \(([0-9]+)\)$ ]] ||
		rig_fail "first line is not a header: $line" || return 1
	[ "${BASH_REMATCH[2]}" = "$pid" ] ||
		rig_fail "header names PID ${BASH_REMATCH[2]}, daemon is $pid" ||
		return 1
	[ "$(readlink -f "${BASH_REMATCH[1]}")" = "$(readlink -f "$RELAY")" ] ||
		rig_fail "header names ${BASH_REMATCH[1]}, not $RELAY" ||
		return 1
	! grep -q "stale line" "$log" ||
		rig_fail "the file was not emptied at start" || return 1
	rig_relay_stop_check
}

# debug_flows() - test: -d logs creation and close of 100 connections
debug_flows() {
	local log=$RIG_TMP/debug.log n created closed

	rig_relay_start daemon -t none -d -l "$log" || return 1
	n=$(connections)
	[ "$n" = "$CONNS" ] ||
		rig_fail "$n of $CONNS connections answered" || return 1
	rig_poll 5 all_closed "$log"
	created=$(flows "$log" created)
	closed=$(flows "$log" closed)
	rig_log "$(wc -l <"$log") lines, $(wc -c <"$log") bytes;" \
		"$(grep -c . <<<"$created") created, $(grep -c . <<<"$closed")" \
		"closed; e.g.: $(grep -m 1 "ESTABLISHED" "$log" | cut -c29-)"
	[ "$(grep -c . <<<"$created")" -eq "$CONNS" ] ||
		rig_fail "$(grep -c . <<<"$created") creations logged," \
			 "expected $CONNS" || return 1
	[ "$created" = "$closed" ] ||
		rig_fail "created and closed flows differ" || return 1
	[ "$(grep -c "(TCP): SYN_ACK_SENT -> ESTABLISHED" "$log")" -ge \
	  "$CONNS" ] || rig_fail "state changes missing" || return 1
	rig_relay_stop_check
}

# quiet_stderr() - test: with -l, stderr gets nothing after start-up
quiet_stderr() {
	local log=$RIG_TMP/fg.log before after n

	rig_relay_start fg -t none -d -l "$log" || return 1
	rig_poll 5 grep -q "Flow table" "$log"
	sleep 0.2
	before=$(stat -c %s "$RIG_RELAY_LOG")
	n=$(connections)
	[ "$n" = "$CONNS" ] ||
		rig_fail "$n of $CONNS connections answered" || return 1
	rig_relay_stop_check || return 1
	after=$(stat -c %s "$RIG_RELAY_LOG")
	rig_log "stderr: $before bytes after start-up, $after at the end;" \
		"log file: $(wc -l <"$log") lines"
	[ "$before" = "$after" ] ||
		rig_fail "stderr grew by $((after - before)) bytes after" \
			 "start-up: $(tail -c +$((before + 1)) "$RIG_RELAY_LOG" |
				      head -n 2 | tr '\n' ' ')" || return 1
	grep -q "Got signal 15, exiting" "$log" ||
		rig_fail "the exit message is not in the log file" || return 1
	[ "$(flows "$log" closed | wc -l)" -eq "$CONNS" ] ||
		rig_fail "connections not in the log file"
}

# rotation() - test: --log-size with more than the limit logged
rotation() {
	local log=$RIG_TMP/rot.log size first n last bad

	rig_relay_start daemon -t none -d -l "$log" --log-size "$LOG_SIZE" ||
		return 1
	n=$(connections)
	[ "$n" = "$CONNS" ] ||
		rig_fail "$n of $CONNS connections answered" || return 1
	rig_poll 5 last_closed "$log"
	size=$(stat -c %s "$log")
	first=$(head -n 1 "$log")
	last=$(flows "$log" created | wc -l)
	rig_log "$size bytes, first line: $first; $last of $CONNS" \
		"connections still in the file"
	[ "$size" -le "$LOG_SIZE" ] ||
		rig_fail "$size bytes, over the limit of $LOG_SIZE" || return 1
	[[ $first =~ ^pasta\ .*\ \($RIG_RELAY_PID\)\ -\ log\ truncated\ at\ [-0-9T:.]+Z$ ]] ||
		rig_fail "first line is not the truncation header: $first" ||
		return 1
	[ "$last" -lt "$CONNS" ] ||
		rig_fail "nothing was dropped: all $CONNS connections there" ||
		return 1
	bad=$(tail -n +2 "$log" |
	      grep -vE -m 1 '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[^ ]+Z [a-z]+: ')
	[ -z "$bad" ] || rig_fail "a line is cut: $bad" || return 1
	rig_relay_stop_check
}

rig_run "log file: first line 'pasta VERSION: PATH (PID)' of the daemon, file emptied at start" \
	header
rig_run "-d: $CONNS short connections log their creation, state changes and close" \
	debug_flows
rig_run "-l: nothing on stderr after start-up (foreground, -d, $CONNS connections, exit)" \
	quiet_stderr
rig_run "--log-size $LOG_SIZE: more logged than that, file within the limit, header kept, whole lines" \
	rotation
rig_summary
