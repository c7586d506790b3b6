#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-netdev-passt.sh - QEMU 10.1 or later starts passt itself
#
# Usage: qemu-netdev-passt.sh QEMU_OPTION...
#
# With "-netdev passt", QEMU runs the "passt" it finds in PATH, on a socket
# pair whose end it passes as descriptor 3, with options taken from the
# netdev's properties; vhost-user=on adds --vhost-user. For
# "-netdev passt,id=n0,param=--tcp-ports=2222:22", passt runs as:
#
#   passt --quiet --tcp-ports=2222:22 --pid PIDFILE --fd 3
#
# exits 0 once ready, and ends when the guest goes away. Older QEMU: see
# qemu-stream.sh.
#
# Environment: QEMU (default qemu-system-x86_64), QEMU_ACCEL (kvm:tcg),
# PASST_PARAM (passt options for "param=", e.g. --tcp-ports=2222:22),
# VHOST_USER (on or off, default off).

set -eu
exec "${QEMU:-qemu-system-x86_64}" -m 1G \
	-machine "accel=${QEMU_ACCEL:-kvm:tcg}" \
	-netdev "passt,id=n0,vhost-user=${VHOST_USER:-off}${PASST_PARAM:+,param=$PASST_PARAM}" \
	-device virtio-net-pci,netdev=n0 \
	"$@"
