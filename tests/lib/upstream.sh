# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/upstream.sh - helpers for the upstream_*.sh integration scripts
#
# Theory of operation: sourced after tests/lib/rig.sh (and tests/lib/pasta.sh
# for upstream_sum_server()). The upstream_*.sh scripts run each case on
# this relay's pasta and, with tests/run --upstream PATH, on upstream's
# too: upstream_init() finds both pastas and pestos and writes the files
# the cases send. Each round of a case starts a pasta in daemon mode for a
# new target namespace (upstream_relay_start(), or upstream_relay_up() for
# the usual --config-net -q) and servers behind it, and a case runs its
# rounds one binary after the other: a round must free its ports before
# the next, so upstream_rounds() marks the cleanup stack where the rounds
# begin and upstream_unwind() undoes what the last round pushed.

UPSTREAM_ROUND=0	# depth of the cleanup stack where a round begins
UPSTREAM_PIDF=		# PID file of the last upstream_relay_start()

# upstream_init() - the binaries and files of a comparison, after rig_init
#
# Sets UP_PASTA (empty without --upstream), UP_PESTO (upstream's pesto, or
# empty), PESTO (ours), DATA (1 MiB), SMALL (64 KiB), OUT and ERR (output
# of the last relay started). Exits if the files can't be written.
upstream_init() {
	UP_PASTA=$(rig_upstream pasta)
	# shellcheck disable=SC2034 # read by the scripts
	UP_PESTO=${UP_PASTA:+$(dirname "$UP_PASTA")/pesto}
	rig_pesto

	DATA=$RIG_TMP/data.bin
	SMALL=$RIG_TMP/small.bin
	rig_random_file "$DATA" 1M || exit 1
	rig_random_file "$SMALL" 64K || exit 1
	OUT=$RIG_TMP/out
	ERR=$RIG_TMP/err
}

# upstream_relay_start() - start a pasta in daemon mode for a new target
# namespace
# $1: pasta binary
# $2...: options (--runas 0, -P FILE and --netns NS are added)
#
# Sets NS and UPSTREAM_PIDF; pasta's stdout is in $OUT, its stderr in $ERR.
# The relay is killed when the test (or the round) unwinds.
upstream_relay_start() {
	local bin=$1 rc pid
	shift

	rig_target_ns || return 1
	NS=$RIG_NS
	UPSTREAM_PIDF=$RIG_TMP/pid.$NS
	rig_h timeout 30 "$bin" --runas 0 -P "$UPSTREAM_PIDF" "$@" \
		--netns "$NS" >"$OUT" 2>"$ERR"
	rc=$?
	pid=$(cat "$UPSTREAM_PIDF" 2>/dev/null)
	[ -n "$pid" ] && rig_defer "rig_kill '$pid'"
	if [ "$rc" -ne 0 ] || [ -z "$pid" ]; then
		rig_fail "$bin $*: status $rc: $(cat "$ERR" "$OUT" |
						 head -c 300)"
		return 1
	fi
}

# upstream_relay_up() - upstream_relay_start() with -q --config-net, then
# wait (up to 5 s) for the namespace's global IPv6 address
# $1: pasta binary
# $2...: options
upstream_relay_up() {
	upstream_relay_start "$1" -q --config-net "${@:2}" || return 1
	rig_poll 5 rig_has_addr "$NS" "$RIG_ADDR6" ||
		rig_fail "$1: no $RIG_ADDR6 in the namespace"
}

# upstream_mark() - a round begins here: upstream_unwind() comes back to it
upstream_mark() {
	UPSTREAM_ROUND=${#RIG_CLEANUP[@]}
}

# upstream_unwind() - stop what the last round started (servers, relay)
upstream_unwind() {
	rig_unwind "$UPSTREAM_ROUND"
}

# upstream_rounds() - run a test whose rounds undo what they set up
# $@: test function and its arguments
upstream_rounds() {
	upstream_mark
	"$@"
}

# upstream_sum_server() - a forking TCP server that writes the sha256 of
# what each connection sends
# $1: namespace
# $2: socat listen address
# $3: file for the sum
upstream_sum_server() {
	ip netns exec "$1" socat "$2,reuseaddr,fork" \
		SYSTEM:"$(pasta_sum_script) $3" 2>>"$RIG_TMP/server.err" &
	rig_defer "rig_kill $!"
	rig_wait_listen "$1" "$(rig_port_of "$2")"
}

# upstream_ns_server() - upstream_sum_server() in the target namespace NS,
# for both families
# $1: port
# $2: file for the sum
upstream_ns_server() {
	upstream_sum_server "$NS" "TCP6-LISTEN:$1,ipv6only=0" "$2"
}

# upstream_udp_sha() - a file over UDP, ended by an empty datagram, sha256
# $1: sender namespace
# $2: socat connect address
# $3: receiver namespace
# $4: socat listen address (a RECV one: see upstream_fwd.sh's ifbound())
# $5: file
# $6: timeout, seconds
upstream_udp_sha() {
	local out=$RIG_TMP/udp.$RANDOM.out pid port

	port=$(rig_port_of "$4")
	ip netns exec "$3" timeout -k 5 "$6" socat -u "$4,null-eof" \
		"OPEN:$out,creat,trunc" 2>"$RIG_TMP/udp.err" &
	pid=$!
	rig_defer "rig_kill $pid"
	rig_poll 5 rig_udp_bound "$3" "$port" ||
		rig_fail "UDP server did not start" || return 1
	ip netns exec "$1" timeout -k 5 "$6" socat -u "FILE:$5" \
		"$2,shut-null" || rig_fail "UDP client to $2 failed" ||
		return 1
	rig_wait_pid "$pid" "$6" ||
		rig_fail "UDP server on $port did not get the end ($2):" \
			 "$(stat -c %s "$out" 2>/dev/null) bytes" || return 1
	rig_sha_eq "$5" "$out"
}
