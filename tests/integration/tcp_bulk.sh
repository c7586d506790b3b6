#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_bulk.sh - 200 MiB TCP transfers through pasta
#
# Rig (tests/lib/rig.sh): pasta runs as a daemon (-P pidfile) in a host
# namespace of our own and serves a second namespace (--netns NAME).
# Each transfer sends the same 200 MiB random file; the receiver hashes the
# stream and the test compares SHA-256 sums.
#
#   namespace -> host: client in the namespace connects to the gateway
#     address (192.0.2.1, 2001:db8::1), which pasta maps to the host
#     namespace's loopback, where the server listens.
#   host -> namespace, through the tap: the host-side client connects to the
#     host's own address (192.0.2.2, 2001:db8::2) on a port forwarded with
#     -t, so pasta carries the connection over the namespace's tap device.
#   host -> namespace, loopback: the same port on 127.0.0.1 / ::1 (pasta may
#     splice this between sockets without the tap).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

SIZE=${BULK_SIZE:-200M}
LIMIT=${BULK_TIMEOUT:-90}
FWD=10001

rig_init
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/bulk.bin
rig_random_file "$DATA" "$SIZE" || exit 1

# relay_up() - test: start pasta as a daemon, forwarding $FWD
relay_up() {
	rig_relay_start daemon -t "$FWD" || return 1
	rig_listening "$RIG_HOSTNS" "$FWD" ||
		rig_fail "port $FWD does not listen in the host namespace" \
			 "when the relay returned"
}

# ns_to_host() - test: namespace client to host-loopback server
# $1: 4 or 6
ns_to_host() {
	if [ "$1" = 4 ]; then
		rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
			"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
			"$DATA" "$LIMIT"
	else
		rig_transfer "$RIG_NS" "TCP6:[$RIG_GW6]:7001" \
			"$RIG_HOSTNS" "TCP6-LISTEN:7001,bind=[::1]" \
			"$DATA" "$LIMIT"
	fi
}

# host_to_ns() - test: host client to a forwarded port, server in namespace
# $1: 4 or 6
# $2: address the host-side client connects to
host_to_ns() {
	if [ "$1" = 4 ]; then
		rig_transfer "$RIG_HOSTNS" "TCP4:$2:$FWD" \
			"$RIG_NS" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT"
	else
		rig_transfer "$RIG_HOSTNS" "TCP6:[$2]:$FWD" \
			"$RIG_NS" "TCP6-LISTEN:$FWD,ipv6only=1" \
			"$DATA" "$LIMIT"
	fi
}

rig_run "relay starts as a daemon, ready on exit" relay_up
if [ -z "$RIG_RELAY_PID" ]; then
	rig_summary
fi
rig_run "tcp ns->host IPv4 $SIZE sha256" ns_to_host 4
rig_run "tcp ns->host IPv6 $SIZE sha256" ns_to_host 6
rig_run "tcp host->ns IPv4 via tap $SIZE sha256" host_to_ns 4 "$RIG_ADDR4"
rig_run "tcp host->ns IPv6 via tap $SIZE sha256" host_to_ns 6 "$RIG_ADDR6"
rig_run "tcp host->ns IPv4 loopback $SIZE sha256" host_to_ns 4 127.0.0.1
rig_run "tcp host->ns IPv6 loopback $SIZE sha256" host_to_ns 6 ::1
rig_run "relay exits on SIGTERM" rig_relay_stop_check
rig_summary
