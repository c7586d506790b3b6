/* SPDX-License-Identifier: GPL-2.0-or-later */
/* icmp.h - ICMP and ICMPv6 echo through unprivileged ping sockets
 *
 * See net/icmp.c for the theory of operation.
 */
#ifndef NET_ICMP_H
#define NET_ICMP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"
#include "../util/epoll_ref.h"

struct ctx;

int icmp_init(const struct ctx *c);
void icmp_stats_log(void);
void icmp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		      const union inany_addr *daddr, const uint8_t *icmp,
		      size_t l4len, uint64_t now_ms);
void icmp_sock_handler(const struct ctx *c, union epoll_ref ref,
		       uint32_t events, uint64_t now_ms);
void icmp_guest_error(const struct ctx *c, const union inany_addr *src,
		      const union inany_addr *dst, uint8_t type, uint8_t code,
		      const uint8_t *quote, size_t qlen);

#endif /* NET_ICMP_H */
