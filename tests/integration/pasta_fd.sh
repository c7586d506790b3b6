#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/pasta_fd.sh - pasta --fd: a tap device the caller
# opened
#
# Rig (tests/lib/rig.sh): tests/tools/tap_fd creates tap device tapfd in
# the rig's namespace, as a caller of pasta would, and starts pasta with
# its descriptor as --fd 3 (and --netns for the same namespace). pasta
# must use that device, configure it (--config-net), and move 20 MiB each
# way through it, sha256 checked: namespace -> host's loopback (through
# the gateway address), and host -> namespace through a -t port, from the
# host's own address (not loopback, so not spliced). Twice: with a device
# opened without a virtio-net header (frames within the MTU, as upstream
# pasta opens its own), and with one (IFF_VNET_HDR: offloads).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

FWD=10001
LIMIT=120

rig_init
rig_host_ns || exit 1
TAPFD=$TOOLS_DIR/tap_fd
if [ ! -x "$TAPFD" ]; then
	echo "FAIL: prerequisites: $TAPFD not built (run make tools)"
	exit 1
fi

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" 20M || exit 1

# fd_transfers() - test: pasta on a tap device given with --fd
# $1: "-v" for a device with a virtio-net header, or empty
fd_transfers() {
	local vnet=$1 addrs

	[ -n "$RIG_RELAY_PID" ] && rig_kill "$RIG_RELAY_PID"
	RIG_RELAY_PID=
	rig_target_ns || return 1
	RIG_RELAY_WRAP="$TAPFD $vnet /run/netns/$RIG_NS tapfd 3 --"
	rig_relay_start daemon --fd 3 -t "$FWD" -l "$RIG_TMP/pasta.log"
	local rc=$?
	RIG_RELAY_WRAP=
	[ "$rc" -eq 0 ] || return 1
	RIG_RELAY_LOG=$RIG_TMP/pasta.log

	grep -q "Tap device tapfd from --fd 3" "$RIG_RELAY_LOG" ||
		rig_fail "pasta did not take the device: $(tail -3 "$RIG_RELAY_LOG")" ||
		return 1
	# Not "ip | grep -q": with pipefail, grep leaving early fails ip
	addrs=$(ip -n "$RIG_NS" -o addr show dev tapfd)
	[[ $addrs == *" $RIG_ADDR4/"* ]] ||
		rig_fail "tapfd not configured: $(rig_addrs "$RIG_NS")" ||
		return 1

	rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$RIG_NS" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$FWD" \
		"$RIG_NS" "TCP6-LISTEN:$FWD,ipv6only=1" "$DATA" "$LIMIT" ||
		return 1
	rig_relay_stop_check
}

rig_run "pasta --fd, tap without virtio-net header: 20 MiB each way sha256" \
	fd_transfers ""
rig_run "pasta --fd, tap with virtio-net header: 20 MiB each way sha256" \
	fd_transfers -v

rig_summary
