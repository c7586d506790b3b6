#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-stream.sh - a QEMU guest on passt's stream socket (QEMU 7.2 or later)
#
# Usage: qemu-stream.sh QEMU_OPTION...
#   e.g.: qemu-stream.sh -drive file=disk.img,if=virtio
#
# passt goes to the background once its socket is bound, and exits when the
# guest disconnects (--one-off). QEMU gets 1 GiB of memory, KVM if it works
# (else TCG), and a virtio-net device on passt's socket; the options given
# here are added.
#
# Environment: PASST (default passt), QEMU (default qemu-system-x86_64),
# QEMU_ACCEL (default kvm:tcg), PASST_OPTS (more passt options, e.g.
# "-t 2222:22"), NET_DEVICE_OPTS (more virtio-net-pci properties, e.g.
# "mac=52:54:00:12:34:56").

set -eu
sock=${XDG_RUNTIME_DIR:-/tmp}/passt-$$.socket

# shellcheck disable=SC2086 # PASST_OPTS: a list of options
"${PASST:-passt}" --one-off --socket "$sock" ${PASST_OPTS:-}
exec "${QEMU:-qemu-system-x86_64}" -m 1G \
	-machine "accel=${QEMU_ACCEL:-kvm:tcg}" \
	-device "virtio-net-pci,netdev=n0${NET_DEVICE_OPTS:+,$NET_DEVICE_OPTS}" \
	-netdev stream,id=n0,server=off,addr.type=unix,addr.path="$sock" \
	"$@"
