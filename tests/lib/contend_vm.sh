#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/lib/contend_vm.sh - the "vm" shape of the contention harness: a
# busy virtual machine next to the test
#
# Theory of operation: started in the background by contend_start()
# (tests/lib/contend.sh) when RIG_CONTEND names "vm", with the test's
# RIG_PREFIX plus "vm-", so that its namespaces are the test's to account
# for. It builds a rig of its own (tests/lib/rig.sh: a host namespace,
# passt of this project in it), boots the test guest of tests/vm (QEMU,
# TCG) on passt's socket, and the guest streams TCP to a sink on the host
# namespace's loopback (tests/vm/guest_load.sh) until this script gets
# SIGTERM; its cleanup stack then stops QEMU and passt and deletes its
# namespaces. It prints "contend_vm: running" once the guest streams, and
# "contend_vm: failed: REASON" if it can't.

# shellcheck source=tests/lib/rig.sh
. "$(dirname "$0")/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/passt.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"

RIG_CONTEND=		# this is the load: no load of its own
VM_TIMEOUT=86400	# until stopped
SINK_PORT=7999

# fail() - report why the load could not start, and exit
# $@: reason
fail() {
	echo "contend_vm: failed: $*"
	exit 1
}

rig_init
passt_init
rig_host_ns || fail "can't create the host namespace"

SOCK=$RIG_TMP/load.sock
passt_start fg "$SOCK" || fail "passt: $RIG_WHY"
ip netns exec "$RIG_HOSTNS" socat -u \
	"TCP4-LISTEN:$SINK_PORT,bind=127.0.0.1,fork,reuseaddr" OPEN:/dev/null &
rig_defer "rig_kill $!"

CONF=$RIG_TMP/vmtest.conf
printf 'VT_ADDR4=%s\nVT_GW4=%s\nVT_PORT=%s\n' "$RIG_ADDR4" "$RIG_GW4" \
	"$SINK_PORT" >"$CONF"
vm_image "$RIG_ROOT/tests/vm/guest_load.sh" -f "$CONF:/etc/vmtest.conf" ||
	fail "$RIG_WHY"
vm_start "$SOCK"
vm_result load 180 || fail "$RIG_WHY"
echo "contend_vm: running (QEMU pid $VM_PID, passt pid $RIG_RELAY_PID)"

trap 'exit 0' TERM INT
until vm_exited; do
	sleep 1 &
	wait $!
done
fail "QEMU exited: $(vm_why_stopped)"
