/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mcast.h - multicast proxy: groups the guest joins, on the host's link
 *
 * See fwd/mcast.c for the theory of operation.
 */
#ifndef FWD_MCAST_H
#define FWD_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include "../util/inany.h"
#include "../util/epoll_ref.h"

struct ctx;

int mcast_init(const struct ctx *c);
int mcast_guest_igmp(const struct ctx *c, const uint8_t *msg, size_t len,
		     uint64_t now_ms);
int mcast_guest_mld(const struct ctx *c, const struct in6_addr *src,
		    const struct in6_addr *dst, const uint8_t *msg,
		    size_t len, uint64_t now_ms);
bool mcast_guest_udp(const struct ctx *c, const union inany_addr *daddr,
		     const uint8_t *l4, size_t ulen, uint64_t now_ms);
void mcast_sock_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms);
void mcast_stats_log(void);

#endif /* FWD_MCAST_H */
