#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash # busybox ash
#
# tests/vm/guest_contrib.sh - the guest's side of contrib_examples.sh
#
# Theory of operation: packed as /test.sh into the guest's initramfs. The
# guest brings its interface up, gets its address by DHCP and downloads a
# file that a server on the host serves at the gateway address; it reports
# "RESULT dhcp", then "RESULT fetch ok SHA256 SIZE" (tests/vm/guest_lib.sh),
# and /init powers the guest off.
#
# /etc/vmtest.conf: VT_GW4 (gateway), VT_PORT_DOWN4 (the host's server),
# VT_LIMIT (seconds for the download)

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh
# shellcheck disable=SC1091 # written by the host
. /etc/vmtest.conf

IF=$(vt_iface)
if [ -z "$IF" ] || ! ip link set "$IF" up; then
	vt_result link fail "no network interface: virtio-net missing?"
	exit 1
fi
ip link set lo up

if timeout 30 udhcpc -i "$IF" -f -q -n -t 5 -T 2 -O mtu \
	-s /etc/udhcpc.sh >/tmp/udhcpc.log 2>&1 && [ -s /tmp/lease ]; then
	vt_result dhcp ok "$(ip -4 -o addr show dev "$IF" | awk '{ print $4 }')"
else
	vt_result dhcp fail "no lease: $(tail -n 3 /tmp/udhcpc.log |
					 tr '\n' ' ')"
	exit 1
fi

vt_fetch fetch "$VT_GW4" "$VT_PORT_DOWN4" /tmp/data.bin "$VT_LIMIT"
