/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_ctl.h - the -c configuration socket
 *
 * See fwd/fwd_ctl.c for the theory of operation.
 */
#ifndef FWD_FWD_CTL_H
#define FWD_FWD_CTL_H

#include <stdint.h>

#include "../util/epoll_ref.h"

struct ctx;

int fwd_ctl_init(const struct ctx *c);
void fwd_ctl_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		     uint64_t now_ms);
void fwd_ctl_stats_log(void);

#endif /* FWD_FWD_CTL_H */
