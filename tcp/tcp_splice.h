/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_splice.h - loopback TCP between the namespace and the host, spliced
 *
 * See tcp/tcp_splice.c for the theory of operation.
 */
#ifndef TCP_TCP_SPLICE_H
#define TCP_TCP_SPLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/inany.h"
#include "../util/epoll_ref.h"

struct ctx;
struct fwd_rule;

/* Pipe size asked for each direction of a spliced connection */
#define TCP_SPLICE_PIPE_SIZE		(1024 * 1024)

/* Bit of the epoll reference data word telling which side an event is for */
#define TCP_SPLICE_REF_SIDE_BIT		31U

/**
 * struct tcp_splice_target - where a spliced connection goes
 * @in_ns:	connect from inside the target network namespace (pasta),
 *		else from the relay's own (host) namespace
 * @addr:	destination address (IPv4-mapped for IPv4)
 * @port:	destination port
 */
struct tcp_splice_target {
	bool in_ns;
	union inany_addr addr;
	uint16_t port;
};

int tcp_splice_init(const struct ctx *c);
int tcp_splice_conn_new(const struct ctx *c, int s,
			const struct tcp_splice_target *t);
void tcp_splice_listen_handler(const struct ctx *c, union epoll_ref ref,
			       uint32_t events, uint64_t now_ms);
void tcp_splice_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms);
unsigned int tcp_splice_active(void);
unsigned int tcp_splice_check(void);
void tcp_splice_budget_set(unsigned int rounds);
int tcp_splice_listen_auto(const struct ctx *c, uint16_t port, int fds[2]);
int tcp_splice_listen_rule(const struct ctx *c, const struct fwd_rule *r,
			   uint16_t port, int fds[2]);
unsigned int tcp_splice_pool_count(void);

#endif /* TCP_TCP_SPLICE_H */
