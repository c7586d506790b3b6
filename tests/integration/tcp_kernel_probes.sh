#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_kernel_probes.sh - the kernel behaves as tcp/ needs
#
# Runs every probe of tests/probes/ (built next to the test tools, in
# ../probes) on loopback inside a namespace of our own, with the buffer
# sizes that matter: kernel autotuning, net.core.*mem_max's default
# (212992) and small buffers. doc/tcp.md lists what each probe checks and
# why the relay depends on it; a failure here means the relay's window
# logic (or, for repair_move, live migration) is wrong on this kernel,
# whatever else passes.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"

rig_init
PROBES=$(dirname "$TOOLS_DIR")/probes
rig_ns_new NS p || exit 1

# probe() - test: run one probe in the namespace, show its findings
# $1: probe name
# $2...: its arguments
# Sets PROBE_OUT to what it printed.
probe() {
	local name=$1 out rc
	shift

	[ -x "$PROBES/$name" ] ||
		rig_fail "$PROBES/$name not built (run make tools)" || return 1
	out=$(ip netns exec "$NS" timeout 60 "$PROBES/$name" "$@" 2>&1)
	rc=$?
	PROBE_OUT=$out
	printf '%s\n' "$out" | rig_indent
	[ "$rc" -eq 0 ] || rig_fail "exit status $rc: $(printf '%s' "$out" |
		tail -1)"
}

rig_run "probe: SO_PEEK_OFF on TCP, MSG_TRUNC moves it back" \
	probe peek_trunc
for rb in "" 212992 4096; do
	rig_run "probe: window reopens after MSG_TRUNC, rcvbuf ${rb:-auto}" \
		probe trunc_window $rb
done
for sb in 0 212992 65536 4096; do
	for w in 1448 65536; do
		rig_run "probe: offered window fits, sndbuf $sb writes of $w" \
			probe window_fits "$sb" "$w"
	done
done
for sb in 0 212992 4096; do
	rig_run "probe: EPOLLOUT with 1/4 of sndbuf $sb free" \
		probe epollout_free "$sb"
done

# trunc_hold() - test: the kernel holds window updates back after drops in
# some configurations, and the relay's release (tcp/tcp_rcvwnd.c) leaves
# none held by the rule it releases; on a kernel that holds none back, the
# probe says so and there is nothing to release
trunc_hold() {
	local last

	probe trunc_hold || return 1
	last=$(tail -1 <<<"$PROBE_OUT")
	[[ $last =~ holds=([0-9]+)\ forced=([0-9]+) ]] ||
		rig_fail "no totals from trunc_hold: $last" || return 1
	[ "${BASH_REMATCH[1]}" -eq 0 ] || [ "${BASH_REMATCH[2]}" -gt 0 ] ||
		rig_fail "the kernel held updates back, the relay released" \
			 "none" || return 1
}
rig_run "probe: held window updates after MSG_TRUNC, released by the relay" \
	trunc_hold
rig_run "probe: a live connection moves to a new socket (TCP_REPAIR, migration)" \
	probe repair_move
rig_summary
