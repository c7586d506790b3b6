#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/vm_kernel_probes.sh - the kernel probes on the guest's
# kernel (Debian 12's 6.1)
#
# tcp_kernel_probes.sh shows on the host's kernel that the window logic of
# tcp/ holds; the relay also runs on older kernels, such as the 6.1 of
# Debian 12, which the test guest of tests/vm boots. This boots that guest
# (QEMU, TCG, no network device) with the probes trunc_window and
# trunc_hold, and runs them there (tests/vm/guest_probes.sh): the window
# reopens after MSG_TRUNC, and the relay's release of a held window update
# (tcp/tcp_rcvwnd.c) works on that kernel, which has no tcpi_rcv_wnd and
# no SO_PEEK_OFF on TCP: the relay infers the advertised window from the
# free space before each drop there, so it releases the holds it sees (the
# probe's output counts the ones it can't see). trunc_hold counts at most
# 2 of the kernel's own holds per configuration here: each one waits for
# the sender's probe timer, and counting the hundreds of 6.1 took some
# 50 s under TCG (the assertion needs only whether there were any).

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"

VM_NETDEV=none
VM_TIMEOUT=${VM_TIMEOUT:-600}	# TCG: the probes take minutes

rig_init
rig_host_ns || exit 1
PROBES=$(dirname "$TOOLS_DIR")/probes

# image() - test: the guest image with the probes
image() {
	local p

	for p in trunc_window trunc_hold; do
		[ -x "$PROBES/$p" ] ||
			rig_fail "$PROBES/$p not built (run make tools)" ||
			return 1
	done
	vm_image "$RIG_ROOT/tests/vm/guest_probes.sh" \
		-x "$PROBES/trunc_window" -x "$PROBES/trunc_hold"
}

# boot() - test: the guest boots
boot() {
	rig_persist
	vm_start none
	vm_result modules 120
}

rig_run "guest image with the kernel probes" image
rig_run "guest boots (no network)" boot
rig_run "guest kernel: window reopens after MSG_TRUNC" vm_result trunc_window
rig_run "guest kernel: held window updates released by the relay" \
	vm_result trunc_hold
rig_summary
