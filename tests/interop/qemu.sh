#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/interop/qemu.sh - QEMU 10 (Debian 13) with this relay's passt
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh, tests/vm/host.sh and
# checks.sh, as tests/integration/passt_qemu.sh): passt, this build, in
# the rig's host namespace with a forwarded port (-t); QEMU 10 from the
# Debian 13 root (tests/interop/lib/in_trixie, the rig's temporary
# directory bound at the same path inside) boots the test guest (Debian's
# cloud kernel, busybox initramfs running tests/vm/guest_passt.sh) under
# TCG. Two rounds:
#   1. -netdev stream on passt's socket;
#   2. passt --vhost-user: -chardev socket, -netdev vhost-user, the
#      guest's memory shared through a memfd.
# Checked in each round (tests/vm/checks.sh):
#   - QEMU from the root is version 10 or later, it boots the guest, and
#     virtio-net comes up;
#   - DHCP: the host's address, prefix length, gateway and MTU 65520;
#   - ping to the gateways, SLAAC address and default route;
#   - TCP, IPv4 and IPv6: a file each way between the guest and servers
#     on the host namespace's loopback, sha256 compared on the host side
#     and the guest's;
#   - the forwarded port: a server in the guest reached from the host's
#     loopback, sha256;
#   - the guest powers off and QEMU exits 0; passt exits on SIGTERM.
#
# Environment: INTEROP_ROOT (tests/interop/lib/trixie.sh), VM_TIMEOUT and
# the rest of tests/vm/host.sh; PASST, passt binary (default: next to
# RELAY).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/interop/lib/vm.sh
. "$(dirname "$0")/lib/vm.sh"

IN_TRIXIE=$RIG_ROOT/tests/interop/lib/in_trixie

ivm_init
# QEMU runs in the root: the rig's directory (image, socket) at its path
VM_WRAP="$IN_TRIXIE -b $RIG_TMP:$RIG_TMP"

# qemu_version() - test: the root's QEMU is version 10 or later
qemu_version() {
	local v

	v=$(ip netns exec "$RIG_HOSTNS" "$IN_TRIXIE" \
	    qemu-system-x86_64 --version 2>&1 | head -n 1)
	rig_log "$v"
	[[ $v =~ version\ ([0-9]+)\. ]] ||
		rig_fail "can't read QEMU's version: $v" || return 1
	[ "${BASH_REMATCH[1]}" -ge 10 ] ||
		rig_fail "QEMU ${BASH_REMATCH[1]} in the root, not 10 or later"
}

# relay_up() - test: passt serves its socket
# $@: more passt options (--vhost-user)
relay_up() {
	rig_persist
	ping_sockets || return 1
	passt_start fg "$SOCK" -t "$FWD" "$@"
}

# boot() - test: QEMU 10 boots the guest on passt's socket
boot() {
	rig_persist
	vm_start "$SOCK"
	rig_poll 20 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not accept QEMU's connection in 20 s:" \
			 "$(tr '\n' ' ' <"$VM_ERR" | cut -c 1-200)" ||
		return 1
	guest_up
}

# round() - one guest on a fresh passt
# $1: name of the round
# $2: VM_NETDEV (stream, vhost-user)
# $3...: more passt options
round() {
	local name=$1
	VM_NETDEV=$2
	shift 2

	rig_run "$name: passt serves its socket" relay_up "$@"
	if [ -z "$RIG_RELAY_PID" ]; then
		return
	fi
	rig_run "$name: host servers listen" servers
	rig_run "$name: QEMU 10 boots, virtio-net comes up" boot
	if [ -n "$VM_PID" ]; then
		vmc_checks "$name" forwarded
		rig_run "$name: guest powers off, QEMU exits" finish
	fi
	vm_stop
	rig_run "$name: passt exits on SIGTERM" rig_relay_stop_check
	[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 40
}

rig_run "QEMU 10 from the Debian 13 root" qemu_version
rig_run "guest image (Debian kernel, busybox initramfs)" image
[ -n "$VM_KERNEL" ] || rig_summary
round "QEMU 10 -netdev stream" stream
round "QEMU 10 vhost-user" vhost-user --vhost-user
rig_summary
