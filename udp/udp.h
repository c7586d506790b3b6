/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udp.h - guest UDP datagrams <-> host UDP sockets
 *
 * See udp/udp.c for the theory of operation.
 */
#ifndef UDP_UDP_H
#define UDP_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"
#include "../util/epoll_ref.h"

struct ctx;
struct fwd_rule;

int udp_init(const struct ctx *c);
void udp_stats_log(void);
void udp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		     const union inany_addr *daddr, const uint8_t *udp,
		     size_t l4len, uint64_t now_ms);
void udp_sock_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		      uint64_t now_ms);
int udp_fwd_auto_open(const struct ctx *c, uint16_t port, bool in_ns,
		      int idx[2]);
void udp_fwd_close(const struct ctx *c, uint32_t i);
void udp_fwd_register(void);
int udp_fwd_rule_open(const struct ctx *c, const struct fwd_rule *r,
		      uint16_t port, bool in_ns, bool freebind, int idx[2]);

#endif /* UDP_UDP_H */
