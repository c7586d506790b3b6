# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/lib/contend.sh - run an integration script on a busy machine
#
# Theory of operation: sourced by tests/lib/rig.sh. A relay that is right
# on a quiet machine can still stall on a busy one, where a wake-up or a
# window update waits behind other tasks for a CPU. With RIG_CONTEND set,
# rig_init starts tests/tools/contend for the whole script: competing
# threads on every CPU at the relay's own priority, in the shapes RIG_CONTEND
# names (see contend.c: spin, sleep, burst, herd, io, mem, net, or "all").
# One more shape, "vm", is not in "all" (it takes half a minute to start):
# a QEMU guest streaming TCP through a passt of its own
# (tests/lib/contend_vm.sh). The cleanup stack stops both by PID when the
# script ends, however it ends, and logs the work done, which shows the
# load was really there.
#
# tests/run --contend[=SHAPES] sets RIG_CONTEND for every script it runs;
# RIG_CONTEND=all bash tests/integration/NAME.sh runs one script under it.
#
# A load changes what a transfer does by itself, relay or not. Scripts that
# judge a transfer under contention (tcp_stall_matrix.sh) measure the same
# transfer over a veth pair, without a relay, in the same run: the control.
#
# Environment:
#   RIG_CONTEND		shapes (empty: no contention)
#   RIG_CONTEND_CPUS	CPUs to load (default: all online)

CONTEND_PID=
CONTEND_LOG=
CONTEND_VM_PID=
CONTEND_VM_LOG=
CONTEND_VM_START=240	# seconds for the vm shape to build, boot, stream

# contend_vm_start() - start the vm shape (tests/lib/contend_vm.sh)
# Return: 0 once its guest streams, 1 (with a FAIL line) otherwise
contend_vm_start() {
	CONTEND_VM_LOG=$RIG_TMP/contend_vm.log
	RIG_PREFIX="${RIG_PREFIX}vm-" RIG_CONTEND='' \
		bash "$RIG_ROOT/tests/lib/contend_vm.sh" >"$CONTEND_VM_LOG" 2>&1 &
	CONTEND_VM_PID=$!
	rig_defer contend_vm_stop
	if ! rig_poll "$CONTEND_VM_START" grep -q '^contend_vm: ' \
	     "$CONTEND_VM_LOG" ||
	   ! grep -q '^contend_vm: running' "$CONTEND_VM_LOG"; then
		echo "FAIL: prerequisites: the vm load did not start:" \
		     "$(grep '^contend_vm: ' "$CONTEND_VM_LOG" | tail -1)" \
		     "(log: $CONTEND_VM_LOG)"
		return 1
	fi
	rig_log "contention: $(grep '^contend_vm: running' "$CONTEND_VM_LOG")"
}

# contend_vm_stop() - stop the vm shape: its own cleanup removes its rig
contend_vm_stop() {
	[ -n "$CONTEND_VM_PID" ] || return 0
	kill -TERM "$CONTEND_VM_PID" 2>/dev/null
	rig_wait_pid "$CONTEND_VM_PID" 30 >/dev/null
	CONTEND_VM_PID=
}

# contend_start() - start the competing load
# $1: shapes (contend -s, and vm)
# Return: 0 on success, 1 (with a FAIL line) if the tool is missing or
# refuses the shapes
contend_start() {
	local tool=$TOOLS_DIR/contend shapes=,$1, opts=()

	if [[ $shapes == *,vm,* ]]; then
		contend_vm_start || return 1
		shapes=${shapes//,vm,/,}
	fi
	shapes=${shapes#,}
	shapes=${shapes%,}
	[ -n "$shapes" ] || return 0
	opts=(-s "$shapes")

	if [ ! -x "$tool" ]; then
		echo "FAIL: prerequisites: $tool not built (run make tools)"
		return 1
	fi
	[ -n "$RIG_CONTEND_CPUS" ] && opts+=(-n "$RIG_CONTEND_CPUS")
	CONTEND_LOG=$RIG_TMP/contend.log
	"$tool" "${opts[@]}" 2>"$CONTEND_LOG" &
	CONTEND_PID=$!
	rig_defer contend_stop
	if ! rig_poll 5 grep -q 'threads on' "$CONTEND_LOG"; then
		echo "FAIL: prerequisites: contend did not start:" \
		     "$(tr '\n' ' ' <"$CONTEND_LOG")"
		return 1
	fi
	rig_log "contention: $(head -1 "$CONTEND_LOG") (pid $CONTEND_PID)"
}

# contend_stop() - stop the load, log the work it did
contend_stop() {
	[ -n "$CONTEND_PID" ] || return 0
	kill -TERM "$CONTEND_PID" 2>/dev/null
	rig_wait_pid "$CONTEND_PID" 10 >/dev/null ||
		kill -KILL "$CONTEND_PID" 2>/dev/null
	wait "$CONTEND_PID" 2>/dev/null
	CONTEND_PID=
	rig_log "contention: $(grep 'work done' "$CONTEND_LOG")"
}

# contend_on() - is the script running under contention?
contend_on() {
	[ -n "$RIG_CONTEND" ]
}
