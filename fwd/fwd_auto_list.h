/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_auto_list.h - pasta "auto" forwarding: the ports bound on one side
 *
 * See fwd/fwd_auto_list.c for the theory of operation.
 */
#ifndef FWD_FWD_AUTO_LIST_H
#define FWD_FWD_AUTO_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void fwd_auto_list_open(bool in_ns, bool udp);
int fwd_auto_list(bool in_ns, bool udp, bool v6, uint64_t *map);
int fwd_auto_parse_line(const char *line, bool udp, uint16_t *port);
int fwd_auto_diag_parse(const void *buf, size_t len, uint32_t seq, bool udp,
			uint64_t *map);

#endif /* FWD_FWD_AUTO_LIST_H */
