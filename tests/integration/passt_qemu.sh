#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_qemu.sh - passt with a real QEMU guest
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh, tests/vm/host.sh): passt in a
# host namespace of our own, with a forwarded port (-t); QEMU 7.2 (TCG)
# boots Debian's cloud kernel with a busybox initramfs (tests/vm/mkimage)
# and connects its virtio-net device to passt's socket with -netdev stream.
# The guest runs tests/vm/guest_passt.sh and reports on its serial console.
# In the host namespace, one-shot servers on 127.0.0.1 and ::1 (reached by
# the guest at the gateway addresses) send a 20 MiB random file and hash
# what comes back. Checked:
#   - the guest boots, its virtio-net driver comes up;
#   - DHCP (busybox udhcpc): the host's address, prefix length, gateway and
#     MTU 65520, configured on the guest's interface;
#   - ping to the gateway, IPv4 and IPv6 (passt's ping sockets:
#     net.ipv4.ping_group_range is set in the host namespace);
#   - SLAAC: passt's router advertisement gives a global address in the
#     host's prefix and a default route;
#   - TCP, IPv4 and IPv6: 20 MiB host -> guest and guest -> host, sha256
#     compared on both sides;
#   - a port forwarded with -t: a connection to 127.0.0.1:PORT in the host
#     namespace reaches a server in the guest, 20 MiB, sha256;
#   - the guest powers off, QEMU exits 0; passt exits on SIGTERM.
# QEMU runs under a hard timeout (VM_TIMEOUT, 150 s); the whole run takes
# well under a minute once the kernel is cached in build/vm.
#
# Environment: PASST_OPTS, more passt options (e.g. "-p FILE" for a
# capture); RIG_KEEP also keeps what the host received (up4.bin, up6.bin,
# fwd.bin next to data.bin); see also tests/vm/host.sh.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"
# shellcheck source=tests/vm/checks.sh
. "$(dirname "$0")/../vm/checks.sh"

rig_init
vmc_init

# relay_up() - test: passt serves its socket, ping sockets allowed
relay_up() {
	rig_persist
	ping_sockets || return 1
	# shellcheck disable=SC2086 # options split into words
	passt_start fg "$SOCK" -t "$FWD" $PASST_OPTS
}

# boot() - test: QEMU boots the guest, virtio-net comes up
boot() {
	rig_persist
	vm_start "$SOCK"
	rig_poll 10 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not accept QEMU's connection in 10 s:" \
			 "$(tr '\n' ' ' <"$VM_ERR" | cut -c 1-200)" ||
		return 1
	guest_up
}

rig_run "passt VM: guest image (Debian kernel, busybox initramfs)" image
[ -n "$VM_KERNEL" ] || rig_summary
rig_run "passt VM: passt serves its socket" relay_up
[ -n "$RIG_RELAY_PID" ] || rig_summary
rig_run "passt VM: host servers listen" servers
rig_run "passt VM: QEMU boots, virtio-net comes up" boot
if [ -n "$VM_PID" ]; then
	vmc_checks "passt VM" forwarded
	rig_run "passt VM: guest powers off, QEMU exits" finish
fi
rig_run "passt exits on SIGTERM" rig_relay_stop_check
[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 40
rig_summary
