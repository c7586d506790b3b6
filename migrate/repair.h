/* SPDX-License-Identifier: GPL-2.0-or-later */
/* repair.h - passt's side of the passt-repair protocol
 *
 * See migrate/repair.c for the theory of operation.
 */
#ifndef MIGRATE_REPAIR_H
#define MIGRATE_REPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/epoll_ref.h"

struct ctx;

/* Sockets in one message: SCM_MAX_FD of the kernel */
#define REPAIR_FDS_MAX		253
/* Waiting at migration time for a helper that is not connected yet */
#define REPAIR_WAIT_MS		100
/* Waiting for the helper's answer */
#define REPAIR_REPLY_MS		5000

int repair_init(const struct ctx *c, const char *path);
void repair_handler(const struct ctx *c, union epoll_ref ref, uint32_t events);
bool repair_wait(const struct ctx *c, int ms);
int repair_set(int s, int8_t cmd);
int repair_flush(void);
void repair_close(const struct ctx *c);
const char *repair_path(void);
void repair_stats_log(void);

#endif /* MIGRATE_REPAIR_H */
