#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_dns.sh - --dns-forward and --dns-host
#
# Rig (tests/lib/rig.sh): a DNS responder of our own (tests/tools/dns_stub)
# listens on port 53 of the host namespace's loopback, over UDP and TCP,
# and answers every A query with 198.51.100.7, counting the queries it
# answered. pasta runs in the host namespace with no port forwarding.
# Clients in the namespace send queries to the --dns-forward address:
#
#   --dns-host given: IPv4 and IPv6 forward addresses, UDP and TCP, each
#     answered by the stub (its count goes up), the answer coming from the
#     forward address (the client's socket is connected to it);
#   --dns-host default: pasta runs in a mount namespace of its own where
#     /etc/resolv.conf names 127.0.0.1, as the host's resolver;
#   port 53 only: a query to another port of the forward address is not
#     redirected.

# shellcheck disable=SC2086 # $H, $N: command prefixes, split on purpose
# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/pasta.sh
. "$(dirname "$0")/../lib/pasta.sh"

FWD4=169.254.1.1
FWD6=fd00::53
ANSWER=198.51.100.7
NAME=test.example

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

STUB=$TOOLS_DIR/dns_stub
[ -x "$STUB" ] || { echo "FAIL: prerequisites: $STUB not built"; exit 1; }
COUNT=$RIG_TMP/count
H="ip netns exec $RIG_HOSTNS"
N="ip netns exec $RIG_NS"

$H "$STUB" server -p 53 -A $ANSWER -c "$COUNT" 2>"$RIG_TMP/stub.err" &
rig_defer "rig_kill $!"
rig_poll 5 eval "$H ss -Hlun 'sport = :53' | grep -q ." ||
	{ echo "FAIL: prerequisites: DNS stub did not start"; exit 1; }

printf 'nameserver 127.0.0.1\n' >"$RIG_TMP/resolv.conf"

# answered() - number of queries the stub answered so far
answered() {
	cat "$COUNT" 2>/dev/null || echo 0
}

# query() - send one query from the namespace, expect the stub's answer
# $1: server address
# $2: "udp" or "tcp"
# $3: port (default 53)
query() {
	local before out tcp=

	[ "$2" = tcp ] && tcp=-t
	before=$(answered)
	out=$($N "$STUB" query -s "$1" -p "${3:-53}" -n $NAME $tcp -w 3 2>&1)
	[ "$out" = $ANSWER ] ||
		rig_fail "query to $1 over $2: $(tr '\n' ' ' <<<"$out")" ||
		return 1
	[ "$(answered)" -gt "$before" ] ||
		rig_fail "query to $1 over $2 answered, but not by our stub"
}

# relay() - start pasta, no port forwarding
# $1: "netns" or "wrap" (see pasta_start)
# $@: more options
relay() {
	local how=$1
	shift

	pasta_start "$how" --runas 0 --config-net -t none -u none -T none \
		-U none "$@" --netns "$RIG_NS"
}

# stop() - SIGTERM, wait for the exit and for the tap device to go
stop() {
	local t0

	t0=$(rig_now_ms)
	kill -TERM "$PASTA_PID"
	pasta_exit_within 2000 "$t0" && pasta_tap_gone "$RIG_NS"
}

# explicit_host() - test: --dns-host for both families
explicit_host() {
	relay netns --dns-forward $FWD4 --dns-forward $FWD6 \
		--dns-host 127.0.0.1 --dns-host ::1 || return 1
	query $FWD4 udp && query $FWD4 tcp && query $FWD6 udp &&
		query $FWD6 tcp || return 1
	# Not port 53: no redirection, no answer
	! $N "$STUB" query -s $FWD4 -p 5353 -n $NAME -w 1 >/dev/null 2>&1 ||
		rig_fail "a query to port 5353 was redirected" || return 1
	stop
}

# default_host() - test: --dns-host defaults to resolv.conf's first server
default_host() {
	# shellcheck disable=SC2016 # $0 and $@ expand in that shell
	PASTA_WRAP=(ip netns exec "$RIG_HOSTNS" unshare -m --propagation slave
		    sh -c 'mount --bind "$0" /etc/resolv.conf && exec "$@"'
		    "$RIG_TMP/resolv.conf")
	relay wrap --dns-forward $FWD4 || return 1
	query $FWD4 udp && query $FWD4 tcp || return 1
	stop
}

rig_run "--dns-forward $FWD4 and $FWD6 with --dns-host: UDP and TCP answered by the host's resolver" \
	explicit_host
rig_run "--dns-forward $FWD4, default --dns-host from resolv.conf: UDP and TCP" \
	default_host
rig_summary
