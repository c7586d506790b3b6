# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/interop/lib/vm.sh - what qemu.sh and libvirt.sh share: the test
# guest of tests/vm/ on this passt, run by QEMU 10 from the Debian 13 root
#
# Theory of operation: sourced right after tests/lib/rig.sh, it sources
# what both scripts build on: tests/lib/passt.sh, tests/vm/host.sh and
# checks.sh (the guest and its checks, as in
# tests/integration/passt_qemu.sh) and tests/interop/lib/trixie.sh (the
# root). ivm_init() starts the rig, makes the root ready and calls
# vmc_init() (passt, the host namespace, the data, the guest's
# configuration); the scripts then start QEMU their own way.

# shellcheck source=tests/lib/passt.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/passt.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/host.sh"
# shellcheck source=tests/vm/checks.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../vm/checks.sh"
# shellcheck source=tests/interop/lib/trixie.sh
. "$(dirname "${BASH_SOURCE[0]}")/trixie.sh"

# Per transfer (tests/vm/checks.sh): the guest runs under TCG
# shellcheck disable=SC2034 # read by tests/vm/checks.sh
SIZE=8M

# ivm_init() - rig_init, the Debian 13 root, vmc_init; exits the script
# with a FAIL line if the root can't be made ready
ivm_init() {
	rig_init
	if ! trixie_ensure "$RIG_TMP/trixie.log"; then
		echo "FAIL: prerequisites: the Debian 13 root is not ready"
		rig_tail "$RIG_TMP/trixie.log" 5
		exit 1
	fi
	vmc_init
}
