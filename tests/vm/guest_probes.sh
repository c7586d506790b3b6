# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash # busybox ash: has local
#
# tests/vm/guest_probes.sh - /test.sh of vm_kernel_probes.sh: the kernel
# probes of tests/probes/ on the guest's own kernel
#
# Theory of operation: the probes check the kernel behaviour tcp/ relies
# on (doc/tcp.md), on loopback. The host runs them on its own kernel
# (tcp_kernel_probes.sh); this runs the same binaries (copied into the
# image with their libraries by mkimage -x) on the guest's kernel, Debian
# 12's 6.1, so that what the relay does there is shown too. Each probe's
# output goes to the console; its exit status becomes a RESULT line.

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh

ip link set lo up

# probe() - run a probe, report its status and last line
# $1: result name
# $2...: probe and arguments
probe() {
	local name=$1 out rc

	shift
	out=$(timeout 300 "$@" 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	if [ "$rc" -eq 0 ]; then
		vt_result "$name" ok "$(echo "$out" | tail -n 1)"
	else
		vt_result "$name" fail "exit status $rc: $(echo "$out" |
			tail -n 1)"
	fi
}

probe trunc_window /usr/bin/trunc_window
# At most 2 holds of the kernel alone per configuration: each costs the
# sender's probe timer (200 ms or more), and 6.1 holds hundreds under TCG
# (tests/probes/trunc_hold.c); the relay's run is complete
probe trunc_hold /usr/bin/trunc_hold 2
