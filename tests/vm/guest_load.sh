#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash # busybox ash
#
# tests/vm/guest_load.sh - /test.sh of the "vm" load (tests/lib/contend_vm.sh)
#
# Theory of operation: a busy virtual machine is load of its own kind: a
# vCPU thread that never sleeps (QEMU under TCG), its I/O threads, and its
# traffic through a relay (softirq work and another relay process). The
# guest configures its network statically (/etc/vmtest.conf: VT_ADDR4,
# VT_GW4, VT_PORT), then streams zeros to the host's port over TCP, over
# and over, until the host stops QEMU. "RESULT load ok" says the first
# stream is running.

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh
# shellcheck disable=SC1091 # written by the host
. /etc/vmtest.conf

IF=$(vt_iface)
ip link set lo up
if [ -z "$IF" ] || ! ip link set "$IF" up ||
   ! ip addr add "$VT_ADDR4/24" dev "$IF" ||
   ! ip route add default via "$VT_GW4"; then
	vt_result load fail "can't configure the network (${IF:-no device})"
	exit 1
fi

first=1
while :; do
	dd if=/dev/zero bs=65536 count=16384 2>/dev/null |
		nc "$VT_GW4" "$VT_PORT" >/dev/null 2>&1 &
	if [ -n "$first" ]; then
		sleep 1
		vt_result load ok "streaming to $VT_GW4:$VT_PORT"
		first=
	fi
	wait
done
