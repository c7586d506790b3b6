#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/tcp_contended.sh - the TCP promise on a busy machine,
# in every run of the suite
#
# The stall matrix and tcp_pressure.sh run on a quiet machine in the
# default suite; a relay that passes there can still stall where other
# work competes for the CPUs. This script starts the contention harness
# (tests/lib/contend.sh) with the shapes CONTENDED_SHAPES (default: every
# thread shape and a busy VM, "all,vm") and, under it, the cells of
# tcp_stall_matrix.sh that once failed on a busy machine (passt, default
# buffers, MTU 65520, host->ns, 4 streams; pasta, default buffers, MTU
# 1500, host->ns, 1 stream), each beside its veth control, and every case
# of tcp_pressure.sh with 64 KiB buffers in both modes, the MSG_TRUNC
# window among them. Test names start with "contended: ". make stress
# (tests/stress) runs all of both scripts under the harness, 5 times.

# shellcheck source=tests/lib/rig.sh
. "$(dirname "$0")/../lib/rig.sh"

export RIG_CONTEND=${CONTENDED_SHAPES:-all,vm}
rig_init
export RIG_CONTEND_RUNNING=1 RIG_NAME_PREFIX="contended: "
export RIG_PREFIX

STALL_CELLS="passt/default/65520/host-ns/4 pasta/default/1500/host-ns/1" \
	bash "$RIG_ROOT/tests/integration/tcp_stall_matrix.sh"
rc1=$?
PRESSURE_MODES="pasta passt" PRESSURE_BUFFERS=small \
	bash "$RIG_ROOT/tests/integration/tcp_pressure.sh"
rc2=$?
exit $(( rc1 || rc2 ))
