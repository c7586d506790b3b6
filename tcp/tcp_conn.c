// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_conn.c - the connection core of tcp/: table, states, flags, close
 *
 * Theory of operation
 *
 * The ground floor of tcp/ (doc/tcp.md, "File order"): every other file
 * of the folder builds on it, and it calls none of them. It keeps the
 * connection table, indexed like the flow table, and what each entry
 * goes through: allocation for a host socket (tcp_conn_new()), the states
 * of enum tcp_conn_state, the socket's options and events in the epoll
 * set, the per-connection timer, the list of connections with work
 * deferred to the end of the batch, and the end: tcp_conn_close(), or
 * tcp_conn_park() for a connection a migration moved away. The TCP
 * counters (struct tcp_stats) live here too, as every file adds to them.
 *
 * What the files above the core do on these events they register at
 * start-up (struct tcp_conn_hooks, tcp_conn_register()): the timer's
 * expiry (tcp.c), the guest data queued for a socket, dropped when its
 * connection ends (tcp_guest.c), a migration source's bytes still to
 * write, and the send buffer a new socket gets while a migration is under
 * way (tcp_migrate.c, tcp_mig_sndbuf.c). So close never calls up.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/sockbuf.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/timer.h"

/* System calls after start-up: socket options, events, closing */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT_TCP("TCP_NODELAY"),
	 SYSCALLS_SETSOCKOPT("SO_LINGER: a reset, closing", SOL_SOCKET),
	 SYSCALLS_CALL("epoll_ctl", "a connection's events, as it goes"),
	 SYSCALLS_CALL("close", "a connection that ended"));

struct tcp_stats tcp_stats;

/* Reserved zeroed (calloc()), never walked at start-up: CONN_CLOSED is zero,
 * and tcp_conn_new() sets an entry up whole, so only the pages of entries
 * in use become resident.
 */
static struct tcp_conn *tcp_conns;
static unsigned int tcp_conns_cap;

/* Connections with deferred work, in the order they became dirty */
static uint32_t *tcp_dirty;
static unsigned int tcp_dirty_count;
static unsigned int tcp_dirty_cap;

/**
 * tcp_conn_at() - connection of a flow
 * @flow:	flow index
 *
 * Return: connection, or NULL if @flow is not a live TCP connection
 */
struct tcp_conn *tcp_conn_at(uint32_t flow)
{
	if (flow >= tcp_conns_cap || flow_type_of(flow) != FLOW_TYPE_TCP)
		return NULL;
	if (tcp_conns[flow].state == CONN_CLOSED)
		return NULL;
	return &tcp_conns[flow];
}

/**
 * tcp_conns_capacity() - size of the connection table
 *
 * Return: entries, one per flow
 */
unsigned int tcp_conns_capacity(void)
{
	return tcp_conns_cap;
}

/**
 * tcp_conns_active() - count live connections
 *
 * Return: connections not closed, not saved for a migration target, not
 *	   loaded from a source and waiting to go live
 */
unsigned int tcp_conns_active(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < tcp_conns_cap; i++) {
		n += tcp_conns[i].state != CONN_CLOSED &&
		     !(tcp_conns[i].flags & (TCP_F_MIGRATED | TCP_F_RESTORING));
	}
	return n;
}

/* What the files above register: see struct tcp_conn_hooks */
static struct tcp_conn_hooks tcp_conn_hooks;

/**
 * tcp_conn_register() - take the hooks a file above the core sets
 * @h:		hooks, NULL members left as they are
 */
void tcp_conn_register(const struct tcp_conn_hooks *h)
{
	if (h->timer)
		tcp_conn_hooks.timer = h->timer;
	if (h->sock_new)
		tcp_conn_hooks.sock_new = h->sock_new;
	if (h->queue_drop)
		tcp_conn_hooks.queue_drop = h->queue_drop;
	if (h->pending_drop)
		tcp_conn_hooks.pending_drop = h->pending_drop;
}

/**
 * tcp_timer_arm() - (re)arm a connection's timer
 * @conn:	connection
 * @now_ms:	current time
 * @ms:		delay
 */
void tcp_timer_arm(struct tcp_conn *conn, uint64_t now_ms, uint32_t ms)
{
	timer_arm(&conn->timer, now_ms + ms);
}

/**
 * tcp_sock_opts() - options every host TCP socket gets
 * @c:		execution context
 * @s:		socket
 */
void tcp_sock_opts(const struct ctx *c, int s)
{
	int one = 1;

	/* Segments from the guest are already sized and pushed by its own
	 * stack: don't hold them back again (design.md invariant 1).
	 */
	if (setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		debug_perror("TCP_NODELAY");

	/* SO_PEEK_OFF is set once the first data is peeked (tcp_pull()):
	 * until then, a peek from the start of the queue is the same, and a
	 * connection the host never sends data on needs no option
	 */

	tcp_sock_bufs(c, s);
	tcp_sock_bufs(c, s);
	if (tcp_conn_hooks.sock_new)
		tcp_conn_hooks.sock_new(s);
}

/**
 * tcp_sock_bufs() - apply --tcp-rmem and --tcp-wmem to a host socket
 * @c:		execution context
 * @s:		socket
 *
 * The first time the kernel caps a size (net.core.rmem_max/wmem_max), the
 * effective size is logged.
 */
void tcp_sock_bufs(const struct ctx *c, int s)
{
	static bool rmem_reported, wmem_reported;

	sockbuf_set(s, SO_RCVBUF, c->tcp_rmem, "--tcp-rmem", &rmem_reported);
	sockbuf_set(s, SO_SNDBUF, c->tcp_wmem, "--tcp-wmem", &wmem_reported);
}

/**
 * tcp_epoll_ctl() - add or update a connection's socket in the epoll set
 * @c:		execution context
 * @conn:	connection
 * @op:		EPOLL_CTL_ADD or EPOLL_CTL_MOD
 * @out:	also wait for EPOLLOUT (connect completion, free space)
 *
 * Input is edge-triggered: the flow is woken on new data, and after that
 * reads as its window allows, woken again by the guest's ACKs.
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_epoll_ctl(const struct ctx *c, struct tcp_conn *conn, int op,
			 bool out)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP, .fd = conn->sock,
				.data = conn->flow };
	struct epoll_event ev = { .data.u64 = ref.u64 };

	ev.events = EPOLLIN | EPOLLRDHUP | EPOLLET;
	if (out)
		ev.events |= EPOLLOUT;

	if (epoll_ctl(c->epollfd, op, conn->sock, &ev))
		return -errno;

	if (out)
		conn->flags |= TCP_F_EPOLLOUT;
	else
		conn->flags &= ~TCP_F_EPOLLOUT;
	return 0;
}

/**
 * tcp_epoll_set() - update a connection's socket in the epoll set
 * @c:		execution context
 * @conn:	connection, its socket in the set
 * @out:	also wait for EPOLLOUT (connect completion, free space)
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_epoll_set(const struct ctx *c, struct tcp_conn *conn, bool out)
{
	return tcp_epoll_ctl(c, conn, EPOLL_CTL_MOD, out);
}

/**
 * tcp_epoll_add() - add a connection's socket to the epoll set
 * @c:		execution context
 * @conn:	connection
 * @out:	also wait for EPOLLOUT (connect completion)
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_epoll_add(const struct ctx *c, struct tcp_conn *conn, bool out)
{
	return tcp_epoll_ctl(c, conn, EPOLL_CTL_ADD, out);
}

/**
 * tcp_conn_new() - allocate a connection for a host socket
 * @c:		execution context
 * @sock:	host socket, already non-blocking
 * @inbound:	true if the host side started it
 *
 * An inbound connection's socket is added to the epoll set here. One the
 * guest starts is added by the caller once connect() tells whether the
 * connection is already up, so that it gets its final event mask at once
 * (tcp_epoll_add()).
 *
 * Return: connection, NULL if the flow table is full
 */
struct tcp_conn *tcp_conn_new(const struct ctx *c, int sock, bool inbound)
{
	struct tcp_conn *conn;
	uint32_t flow;

	flow = flow_alloc(FLOW_TYPE_TCP);
	if (flow == FLOW_IDX_NONE)
		return NULL;

	conn = &tcp_conns[flow];
	memset(conn, 0, sizeof(*conn));
	conn->sock = sock;
	conn->flow = flow;
	conn->rto_ms = TCP_RTO_INIT_MS;
	conn->wnd_from_guest = TCP_WND_INIT;
	if (inbound) {
		conn->flags |= TCP_F_INBOUND;
		if (tcp_epoll_add(c, conn, false)) {
			err_perror_rl("TCP: can't add socket to epoll set");
			flow_free(flow);
			return NULL;
		}
	}

	timer_init(&conn->timer, tcp_conn_hooks.timer);
	return conn;
}

/**
 * tcp_conn_state() - move a connection to a state, logged with -d
 * @conn:	connection
 * @state:	new state
 */
void tcp_conn_state(struct tcp_conn *conn, enum tcp_conn_state state)
{
	static const char *const name[] = {
		[CONN_CLOSED]		= "CLOSED",
		[CONN_CONNECTING]	= "CONNECTING",
		[CONN_SYN_ACK_SENT]	= "SYN_ACK_SENT",
		[CONN_SYN_SENT]		= "SYN_SENT",
		[CONN_ESTABLISHED]	= "ESTABLISHED",
	};

	flow_log(conn->flow, "%s -> %s", name[conn->state], name[state]);
	conn->state = (uint8_t)state;
}

/**
 * tcp_conn_close() - close the host socket and free the connection
 * @c:		execution context
 * @conn:	connection
 * @rst:	reset the host connection (SO_LINGER 0) instead of closing
 */
void tcp_conn_close(const struct ctx *c, struct tcp_conn *conn, bool rst)
{
	(void)c;

	if (conn->sock >= 0) {
		if (rst) {
			struct linger lg = { .l_onoff = 1, .l_linger = 0 };

			setsockopt(conn->sock, SOL_SOCKET, SO_LINGER, &lg,
				   sizeof(lg));
		}
		close(conn->sock);
		conn->sock = -1;
	}

	if (rst)
		flow_log(conn->flow, "host side reset");
	if ((conn->flags & TCP_F_PENDING) && tcp_conn_hooks.pending_drop)
		tcp_conn_hooks.pending_drop(conn);
	if (tcp_conn_hooks.queue_drop)
		tcp_conn_hooks.queue_drop(conn);
	timer_cancel(&conn->timer);
	qdisc_forget(conn->flow);
	flow_free(conn->flow);
	conn->state = CONN_CLOSED;
	conn->flags = 0;
}

/**
 * tcp_conn_park() - a connection stops here, its socket and flow kept
 * @c:		execution context
 * @conn:	connection, frozen and saved for a migration target
 *
 * Out of the epoll set, no timer, no turn in qdisc/, nothing queued for
 * its socket and no deferred work: tcp_mig_save.c resumes it, or frees it
 * once the guest runs on the target.
 */
void tcp_conn_park(const struct ctx *c, struct tcp_conn *conn)
{
	if (conn->sock >= 0)
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, conn->sock, NULL);
	timer_cancel(&conn->timer);
	qdisc_forget(conn->flow);
	if (tcp_conn_hooks.queue_drop)
		tcp_conn_hooks.queue_drop(conn);
	conn->flags &= ~(TCP_F_DIRTY | TCP_F_ACK_PENDING);
}

/**
 * tcp_conn_dirty() - schedule deferred work for the end of the batch
 * @conn:	connection
 */
void tcp_conn_dirty(struct tcp_conn *conn)
{
	if (conn->flags & TCP_F_DIRTY)
		return;
	if (tcp_dirty_count >= tcp_dirty_cap)
		return;	/* cannot happen: each flow is listed at most once */

	conn->flags |= TCP_F_DIRTY;
	tcp_dirty[tcp_dirty_count++] = conn->flow;
}

/**
 * tcp_conn_dirty_run() - run deferred work of every dirty connection, in
 *			  the order they became dirty, and empty the list
 * @c:		execution context
 * @now_ms:	current time
 * @fn:		the work, for each connection still open
 */
void tcp_conn_dirty_run(const struct ctx *c, uint64_t now_ms,
			void (*fn)(const struct ctx *c, struct tcp_conn *conn,
				   uint64_t now_ms))
{
	unsigned int i;

	for (i = 0; i < tcp_dirty_count; i++) {
		struct tcp_conn *conn = &tcp_conns[tcp_dirty[i]];

		if (!(conn->flags & TCP_F_DIRTY))
			continue;
		conn->flags &= ~TCP_F_DIRTY;
		if (conn->state == CONN_CLOSED)
			continue;
		fn(c, conn, now_ms);
	}
	tcp_dirty_count = 0;
}

/**
 * tcp_conn_init() - allocate the connection table and the deferred list
 * @c:		execution context
 *
 * Return: 0 on success, -ENOMEM on failure
 */
int tcp_conn_init(const struct ctx *c)
{
	tcp_conns_cap = c->flow_max;
	tcp_conns = calloc(tcp_conns_cap, sizeof(*tcp_conns));
	tcp_dirty_cap = c->flow_max;
	tcp_dirty = calloc(tcp_dirty_cap, sizeof(*tcp_dirty));
	if (!tcp_conns || !tcp_dirty)
		return -ENOMEM;
	return 0;
}
