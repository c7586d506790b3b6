#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-vhost-user.sh - a QEMU guest on passt's vhost-user socket
#
# Usage: qemu-vhost-user.sh QEMU_OPTION...
#   e.g.: qemu-vhost-user.sh -drive file=disk.img,if=virtio
#
# With vhost-user, frames go directly through the guest's memory, which
# QEMU must share with passt: the guest's RAM is a memfd backend, attached
# to its NUMA node. passt goes to the background once its socket is bound,
# and exits when the guest disconnects (--one-off).
#
# Environment: as qemu-stream.sh (PASST, QEMU, QEMU_ACCEL, PASST_OPTS,
# NET_DEVICE_OPTS), and MEM (guest memory, default 1G). QEMU 7.2 under TCG
# needs NET_DEVICE_OPTS=vectors=0 (it crashes once the guest enables
# MSI-X on a vhost-user device).

set -eu
sock=${XDG_RUNTIME_DIR:-/tmp}/passt-vu-$$.socket
mem=${MEM:-1G}

# shellcheck disable=SC2086 # PASST_OPTS: a list of options
"${PASST:-passt}" --vhost-user --one-off --socket "$sock" ${PASST_OPTS:-}
exec "${QEMU:-qemu-system-x86_64}" -m "$mem" \
	-machine "accel=${QEMU_ACCEL:-kvm:tcg}" \
	-object "memory-backend-memfd,id=mem0,size=$mem,share=on" \
	-numa node,memdev=mem0 \
	-chardev socket,id=chr0,path="$sock" \
	-netdev vhost-user,id=n0,chardev=chr0 \
	-device "virtio-net-pci,netdev=n0${NET_DEVICE_OPTS:+,$NET_DEVICE_OPTS}" \
	"$@"
