#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# qemu-stream.sh - a QEMU guest on passt's stream socket
#
# Usage: qemu-stream.sh DISK_IMAGE [PASST_OPTION...]
# passt goes to the background once its socket is bound, and exits when the
# guest disconnects (--one-off).

set -eu
img=$1
shift
sock=${XDG_RUNTIME_DIR:-/tmp}/passt-$$.socket

passt --one-off --socket "$sock" "$@"
exec qemu-system-x86_64 -m 1G -enable-kvm -drive file="$img" \
	-device virtio-net-pci,netdev=n0 \
	-netdev stream,id=n0,server=off,addr.type=unix,addr.path="$sock"
