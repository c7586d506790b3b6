#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_auto.sh - pasta "auto" forwarding, the default
# of -t, -u, -T and -U: ports that start listening on one side are
# forwarded from the other side within a second, and released within a
# second once they close.
#
# Rig (tests/lib/rig.sh): pasta runs in the host namespace of the rig with
# no forwarding option at all (--runas 0 --config-net --netns NS), so all
# four directions are "auto". Servers are started and stopped on either
# side; the relay's own sockets are recognised by owner (ss -p).
#
#   start-up: a TCP and a UDP port bound on the host's loopback before
#     pasta starts are forwarded into the namespace when pasta returns.
#   -t: a TCP server in the namespace gets a relay socket on the host
#     within 1 s; a file (sha256) reaches it from the host's address
#     (tap path) and from the host's loopback (spliced, IPv4 and IPv6);
#     the socket goes within 1 s of the server's end.
#   -T: the same for a TCP server on the host's loopback, reached from the
#     namespace's loopback.
#   -u, -U: the same for UDP echo servers (udp_echo, every datagram back).
#   no loop: once a -T port closes on the host, neither side keeps a
#     relay socket for it (the relay must not follow its own sockets);
#     a fixed -T port is never forwarded back by -t auto.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

LIMIT=60
WITHIN_MS=1000		# the issue's "within a second"
PRE_TCP=10041		# bound on the host before pasta starts
PRE_UDP=10042
T_PORT=10043		# -t auto
TT_PORT=10044		# -T auto
U_PORT=10045		# -u auto
UU_PORT=10046		# -U auto
FIXED_T=10047		# -T fixed, in the second relay

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 8M || exit 1

H="ip netns exec $RIG_HOSTNS"
N="ip netns exec $RIG_NS"

# bg() - start a background server, killed at the end of the test
# $@: command
bg() {
	"$@" 2>>"$RIG_TMP/bg.err" &
	rig_defer "rig_kill $!"
	BG_PID=$!
}

# start_up() - test: ports bound before start are forwarded on return
start_up() {
	bg $H socat TCP4-LISTEN:$PRE_TCP,bind=127.0.0.1,reuseaddr,fork \
		SYSTEM:'echo pre'
	bg $H "$TOOLS_DIR/udp_echo" server -b 127.0.0.1 -p $PRE_UDP
	rig_poll 5 rig_listening "$RIG_HOSTNS" $PRE_TCP ||
		rig_fail "test server did not start" || return 1
	sleep 0.2

	pasta_start netns --runas 0 --config-net --netns "$RIG_NS" || return 1
	rig_persist

	pasta_listens tcp "$N" $PRE_TCP -4 ||
		rig_fail "-T auto: TCP port $PRE_TCP not forwarded when pasta" \
			 "returned" || return 1
	pasta_listens udp "$N" $PRE_UDP -4 ||
		rig_fail "-U auto: UDP port $PRE_UDP not forwarded when pasta" \
			 "returned" || return 1
	[ "$($N socat -T 5 - TCP4:127.0.0.1:$PRE_TCP </dev/null)" = pre ] ||
		rig_fail "no answer through port $PRE_TCP"
}

# t_auto() - test: -t auto follows a TCP server in the namespace
t_auto() {
	bg $N socat TCP6-LISTEN:$T_PORT,ipv6only=0,reuseaddr,fork \
		SYSTEM:"$(pasta_sum_script) $RIG_TMP/t.sum"
	rig_wait_listen "$RIG_NS" $T_PORT || return 1
	pasta_wait_state up $WITHIN_MS tcp "$H" $T_PORT || return 1
	rig_log "-t auto: host socket $PASTA_WAIT_MS ms after the server"

	for dst in "$RIG_ADDR4" 127.0.0.1 "[::1]"; do
		rm -f "$RIG_TMP/t.sum"
		$H timeout -k 5 $LIMIT socat -u "FILE:$DATA" \
			"TCP:$dst:$T_PORT,connect-timeout=5" ||
			rig_fail "client to $dst:$T_PORT failed" || return 1
		rig_poll 10 test -s "$RIG_TMP/t.sum" ||
			rig_fail "server did not finish ($dst)" || return 1
		[ "$(cat "$RIG_TMP/t.sum")" = "$(rig_sha "$DATA")" ] ||
			rig_fail "sha256 mismatch from $dst" || return 1
		rig_log "8 MiB from $dst: sha256 ok"
	done

	rig_kill "$BG_PID"
	pasta_wait_closed tcp "$N" $T_PORT || return 1
	pasta_wait_state down $WITHIN_MS tcp "$H" $T_PORT || return 1
	rig_log "-t auto: released $PASTA_WAIT_MS ms after the server ended"
}

# tt_auto() - test: -T auto follows a TCP server on the host, no loop
tt_auto() {
	bg $H socat TCP4-LISTEN:$TT_PORT,bind=127.0.0.1,reuseaddr,fork \
		SYSTEM:"$(pasta_sum_script) $RIG_TMP/tt.sum"
	rig_wait_listen "$RIG_HOSTNS" $TT_PORT || return 1
	pasta_wait_state up $WITHIN_MS tcp "$N" $TT_PORT -4 || return 1
	rig_log "-T auto: namespace socket $PASTA_WAIT_MS ms after the server"

	$N timeout -k 5 $LIMIT socat -u "FILE:$DATA" \
		"TCP4:127.0.0.1:$TT_PORT,connect-timeout=5" ||
		rig_fail "client in the namespace failed" || return 1
	rig_poll 10 test -s "$RIG_TMP/tt.sum" ||
		rig_fail "server did not finish" || return 1
	[ "$(cat "$RIG_TMP/tt.sum")" = "$(rig_sha "$DATA")" ] ||
		rig_fail "sha256 mismatch" || return 1

	rig_kill "$BG_PID"
	pasta_wait_closed tcp "$H" $TT_PORT || return 1
	pasta_wait_state down $WITHIN_MS tcp "$N" $TT_PORT || return 1
	rig_log "-T auto: released $PASTA_WAIT_MS ms after the server ended"

	# Two more scans: the relay must not pick up its own sockets
	sleep 1.2
	if pasta_listens tcp "$N" $TT_PORT || pasta_listens tcp "$H" $TT_PORT
	then
		rig_fail "port $TT_PORT bounces between the sides"
	fi
}

# u_auto() - test: -u auto follows a UDP server in the namespace
u_auto() {
	bg $N "$TOOLS_DIR/udp_echo" server -p $U_PORT
	rig_poll 5 eval "$N ss -Hlun 'sport = :$U_PORT' | grep -q ." ||
		rig_fail "echo server did not start" || return 1
	pasta_wait_state up $WITHIN_MS udp "$H" $U_PORT -4 || return 1
	rig_log "-u auto: host socket $PASTA_WAIT_MS ms after the server"

	out=$($H timeout -k 5 $LIMIT "$TOOLS_DIR/udp_echo" client \
		-a "$RIG_ADDR4" -p $U_PORT -n 2000 -r 50 2>&1) ||
		rig_fail "$(tr '\n' ' ' <<<"$out")" || return 1
	rig_log "$out"

	rig_kill "$BG_PID"
	pasta_wait_closed udp "$N" $U_PORT || return 1
	pasta_wait_state down $WITHIN_MS udp "$H" $U_PORT || return 1
	rig_log "-u auto: released $PASTA_WAIT_MS ms after the server ended"
}

# uu_auto() - test: -U auto follows a UDP server on the host, no loop
uu_auto() {
	bg $H "$TOOLS_DIR/udp_echo" server -b 127.0.0.1 -p $UU_PORT
	rig_poll 5 eval "$H ss -Hlun 'sport = :$UU_PORT' | grep -q ." ||
		rig_fail "echo server did not start" || return 1
	pasta_wait_state up $WITHIN_MS udp "$N" $UU_PORT -4 || return 1
	rig_log "-U auto: namespace socket $PASTA_WAIT_MS ms after the server"

	out=$($N timeout -k 5 $LIMIT "$TOOLS_DIR/udp_echo" client \
		-a 127.0.0.1 -p $UU_PORT -n 2000 -r 50 2>&1) ||
		rig_fail "$(tr '\n' ' ' <<<"$out")" || return 1
	rig_log "$out"

	rig_kill "$BG_PID"
	pasta_wait_closed udp "$H" $UU_PORT || return 1
	pasta_wait_state down $WITHIN_MS udp "$N" $UU_PORT || return 1
	rig_log "-U auto: released $PASTA_WAIT_MS ms after the server ended"
	sleep 1.2
	if pasta_listens udp "$N" $UU_PORT || pasta_listens udp "$H" $UU_PORT
	then
		rig_fail "UDP port $UU_PORT bounces between the sides"
	fi
}

# stop() - test: SIGTERM ends the relay
stop() {
	local t0

	t0=$(rig_now_ms)
	kill -TERM "$PASTA_PID"
	pasta_exit_within 2000 "$t0" && pasta_tap_gone "$RIG_NS"
}

# fixed_not_back() - test: a fixed -T port is not forwarded back by -t auto
fixed_not_back() {
	pasta_start netns --runas 0 --config-net -T $FIXED_T \
		--netns "$RIG_NS" || return 1
	pasta_listens tcp "$N" $FIXED_T ||
		rig_fail "-T $FIXED_T: no socket in the namespace" || return 1
	sleep 1.2
	! pasta_listens tcp "$H" $FIXED_T ||
		rig_fail "-t auto forwarded the relay's own -T port back"
}

rig_run "auto: ports bound before start forwarded on return (-T, -U)" \
	start_up
if ! pasta_running; then
	rig_summary
fi
rig_run "-t auto: follows a namespace TCP server within 1 s, 8 MiB sha256 from address, 127.0.0.1, ::1" \
	t_auto
rig_run "-T auto: follows a host TCP server within 1 s, 8 MiB sha256, no loop" \
	tt_auto
rig_run "-u auto: follows a namespace UDP server within 1 s, 2000 echoes" \
	u_auto
rig_run "-U auto: follows a host UDP server within 1 s, 2000 echoes, no loop" \
	uu_auto
rig_run "auto: SIGTERM ends pasta within 2 s" stop
rig_run "auto: a fixed -T port is not forwarded back by -t auto" \
	fixed_not_back
rig_summary
