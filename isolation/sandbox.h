/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.h - confine the relay once set-up is over
 *
 * Theory of operation: sandbox_detach() moves the process into new mount,
 * IPC, UTS and PID namespaces whose root is an empty read-only tmpfs, or
 * exits; it needs a single-threaded process, before going to the
 * background (the PID namespace takes the children only).
 * sandbox_lockdown() then switches to the --runas user, drops
 * capabilities, sets no-new-privs and loads the seccomp filter
 * (util/syscalls.h) for every thread. See doc/design.md,
 * "Isolation".
 */
#ifndef ISOLATION_SANDBOX_H
#define ISOLATION_SANDBOX_H

#include <stdbool.h>

struct ctx;

void sandbox_detach(const struct ctx *c, bool fork_next);
void sandbox_lockdown(const struct ctx *c);

#endif /* ISOLATION_SANDBOX_H */
