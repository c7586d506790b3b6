/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pasta.h - the namespace side of pasta: spawn, join, watch
 *
 * Theory of operation: pasta either spawns a command in new user and
 * network namespaces (with a root mapping for the caller), or joins the
 * namespaces of a PID or a --netns path. It keeps a descriptor of the
 * target network namespace, from which the tap device and the namespace
 * netlink socket are opened. It then watches the namespace: an inotify
 * watch on the directory of a --netns file, or a pidfd for a PID or the
 * spawned child, ends the relay when the namespace goes away (unless
 * --no-netns-quit).
 */
#ifndef ISOLATION_PASTA_H
#define ISOLATION_PASTA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/epoll_ref.h"

struct ctx;

int pasta_open_ns(struct ctx *c);
pid_t pasta_child_pid(void);
bool pasta_netns_ends(void);
void pasta_child_start(void);
int pasta_watch_init(const struct ctx *c);
void pasta_watch_handler(const struct ctx *c, union epoll_ref ref,
			 uint32_t events);
void pasta_sigchld(const struct ctx *c);
bool pasta_userns_joined(void);
void pasta_guest_mac_init(const struct ctx *c);

#endif /* ISOLATION_PASTA_H */
