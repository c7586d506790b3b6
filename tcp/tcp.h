/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp.h - guest TCP segments <-> host TCP sockets
 *
 * See tcp/tcp.c for the theory of operation.
 */
#ifndef TCP_TCP_H
#define TCP_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"
#include "../util/epoll_ref.h"

struct ctx;
struct fwd_rule;
struct tcphdr;

int tcp_init(const struct ctx *c);
void tcp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		     const union inany_addr *daddr, const struct tcphdr *th,
		     size_t l4len, uint64_t now_ms);
void tcp_sock_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		      uint64_t now_ms);
void tcp_listen_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms);
void tcp_defer_handler(const struct ctx *c, uint64_t now_ms);
int tcp_listen_auto(const struct ctx *c, uint16_t port, int fds[2]);
int tcp_listen_rule(const struct ctx *c, const struct fwd_rule *r,
		    uint16_t port, bool freebind, int fds[2]);
void tcp_listen_register(void);
void tcp_stats_log(void);
void tcp_input_done(const struct ctx *c);
void tcp_sock_bufs(const struct ctx *c, int s);

#endif /* TCP_TCP_H */
