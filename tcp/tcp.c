// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp.c - guest TCP segments <-> host TCP sockets: connections and events
 *
 * Theory of operation
 *
 * The relay has no TCP stack of its own. Each TCP connection of the guest
 * is one host kernel socket, and the relay translates between segments on
 * the guest side and socket calls on the host side. The host socket is the
 * buffer in both directions:
 *
 * - guest to host: payload of in-order segments is written to the socket
 *   at once, and acknowledged to the guest only for what the socket took.
 *   The window offered to the guest is the socket's free send buffer
 *   (tcp_window.c), so the guest never sends more than fits; when that
 *   window gets small, EPOLLOUT is armed and a window update goes to the
 *   guest as soon as space frees.
 *
 * - host to guest: data stays in the socket's receive queue until the
 *   guest acknowledges it. When the flow's turn comes in qdisc/, it is
 *   read with MSG_PEEK (at offset SO_PEEK_OFF, i.e. past what is in
 *   flight) straight into frames (tcp_emit.c). Acknowledged data is then
 *   dropped with recv(MSG_TRUNC), and the socket's own receive window is
 *   made to reopen (tcp_window.c). Retransmission rewinds the peek offset.
 *
 * This file keeps the connection table (indexed like the flow table), the
 * life cycle of connections, the host socket events, the per-connection
 * timer, and the deferred work done once per batch of guest frames:
 * dropping acknowledged data and sending one ACK per connection.
 * tcp_guest.c handles segments from the guest, tcp_listen.c forwarded
 * ports.
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
#include "../net/net.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/sockbuf.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/timer.h"

/* System calls after start-up: socket state, closing */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("getsockopt", "a connection's error (SO_ERROR)"),
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
static unsigned int tcp_conns_active(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < tcp_conns_cap; i++) {
		n += tcp_conns[i].state != CONN_CLOSED &&
		     !(tcp_conns[i].flags & (TCP_F_MIGRATED | TCP_F_RESTORING));
	}
	return n;
}

/**
 * tcp_timer_fn() - per-connection timer expired
 * @c:		execution context
 * @t:		timer, embedded in a struct tcp_conn
 * @now_ms:	current time
 */
static void tcp_timer_fn(const struct ctx *c, struct wheel_timer *t,
			 uint64_t now_ms)
{
	struct tcp_conn *conn = (struct tcp_conn *)((char *)t -
				 offsetof(struct tcp_conn, timer));
	uint32_t in_flight = conn->seq_to_guest - conn->seq_acked;

	switch (conn->state) {
	case CONN_CONNECTING:
		debug("TCP flow %u: host connect() timed out", conn->flow);
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return;
	case CONN_SYN_ACK_SENT:
	case CONN_SYN_SENT:
		if (++conn->retries > TCP_SYN_RETRIES) {
			debug("TCP flow %u: no answer to handshake from guest",
			      conn->flow);
			tcp_conn_close(c, conn, true);
			return;
		}
		tcp_send_syn(c, conn, conn->state == CONN_SYN_ACK_SENT);
		tcp_timer_arm(conn, now_ms,
			      TCP_RTO_INIT_MS << MIN(conn->retries, 6));
		return;
	case CONN_ESTABLISHED:
		break;
	default:
		return;
	}

	if (in_flight && qdisc_has_queued()) {
		/* Our own output is held back by the backend: the guest
		 * can't have seen the data yet, retransmitting would only
		 * queue it twice
		 */
		tcp_timer_arm(conn, now_ms, conn->rto_ms);
		return;
	}

	if (in_flight) {
		if (++conn->retries > TCP_DATA_RETRIES) {
			debug("TCP flow %u: guest stopped acknowledging data",
			      conn->flow);
			tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
			tcp_conn_close(c, conn, true);
			return;
		}
		tcp_stats.rto++;
		conn->rto_ms = MIN(conn->rto_ms * 2, TCP_RTO_MAX_MS);
		conn->flags &= ~(TCP_F_RECOVERY | TCP_F_RETX_ONE);
		tcp_rewind(conn);
		qdisc_wake(conn->flow);
		tcp_timer_arm(conn, now_ms, conn->rto_ms);
		return;
	}

	if (conn->flags & TCP_F_WND_HELD) {
		/* No window update came: the guest keeps its window small
		 * now, so the reserve goes by this window from here on
		 */
		conn->flags &= ~TCP_F_WND_HELD;
		conn->wnd_max = conn->wnd_from_guest;
		qdisc_wake(conn->flow);
		return;
	}

	if (!conn->wnd_from_guest && !(conn->flags & TCP_F_FIN_SENT)) {
		/* Zero window probe: an old sequence elicits an ACK */
		conn->seq_to_guest--;
		tcp_send_ctrl(c, conn, TH_ACK);
		conn->seq_to_guest++;
		tcp_timer_arm(conn, now_ms, TCP_PERSIST_MS);
	}
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
	tcp_mig_sndbuf_sock(s);
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

	timer_init(&conn->timer, tcp_timer_fn);
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
	if (conn->flags & TCP_F_PENDING)
		tcp_mig_pending_drop(conn);
	tcp_wq_purge(conn);
	timer_cancel(&conn->timer);
	qdisc_forget(conn->flow);
	flow_free(conn->flow);
	conn->state = CONN_CLOSED;
	conn->flags = 0;
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
 * tcp_ack_rides() - can the ACK due to the guest ride on the next segment?
 * @conn:	connection, established, with an ACK to send
 * @rmem:	memory of the socket's receive queues, just queried
 *
 * With nothing in flight and nothing to drop, anything queued in the
 * socket is new for the guest: data, or the host peer's FIN, read by the
 * flow's next turn in qdisc/ (tcp_pull()), which comes in the same main
 * loop iteration (or the next, if the run ran out of budget). The segment
 * it sends acknowledges what the guest sent, with the window just
 * queried, so a separate ACK before it is one frame too many: for a
 * short connection, the ACK of the request and the FIN that follows it
 * become one FIN. If the turn sends nothing after all (out-of-order
 * segments only, or no room in the queue), tcp_pull() sends the ACK
 * alone. Not with SACK blocks to report, which only a bare ACK carries.
 *
 * Return: true if the ACK is left to tcp_pull()
 */
static bool tcp_ack_rides(const struct tcp_conn *conn, uint32_t rmem)
{
	return rmem && tcp_peek_off_supported() && !conn->discard &&
	       conn->seq_to_guest == conn->seq_acked &&
	       conn->wnd_from_guest &&
	       !(conn->flags & (TCP_F_FIN_SENT | TCP_F_RETX_ONE)) &&
	       !tcp_ooo_holds(conn);
}

/**
 * tcp_conn_deferred() - once per batch: drop acknowledged data, ACK
 * @c:		execution context
 * @conn:	connection
 * @now_ms:	current time
 */
static void tcp_conn_deferred(const struct ctx *c, struct tcp_conn *conn,
			      uint64_t now_ms)
{
	if (conn->discard && tcp_discard_acked(c, conn) < 0) {
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return;
	}

	if (conn->state == CONN_ESTABLISHED &&
	    (conn->flags & TCP_F_ACK_PENDING)) {
		uint32_t rmem, wnd = tcp_wnd_query(c, conn, &rmem);

		/* A window update alone is sent only if the window grew */
		if (conn->seq_ack_sent != conn->seq_from_guest ||
		    !(conn->flags & TCP_F_WND_UPDATE) ||
		    wnd > conn->wnd_to_guest) {
			conn->wnd_to_guest = wnd;
			if (tcp_ack_rides(conn, rmem))
				qdisc_wake(conn->flow);	/* tcp_pull() sends it */
			else
				tcp_send_ctrl(c, conn, TH_ACK);
		} else {
			conn->flags &= ~TCP_F_ACK_PENDING;
		}
		conn->flags &= ~TCP_F_WND_UPDATE;
	}

	/* Both sides closed, and the ACK of the guest's FIN is on its way:
	 * nothing is left to do. A FIN the guest sends again (our ACK lost)
	 * gets a RST, which ends its side just as well; lingering instead
	 * would hold the flow, and its ports, for new connections.
	 */
	if ((conn->flags & TCP_F_GUEST_FIN) &&
	    (conn->flags & TCP_F_FIN_ACKED)) {
		/* close() exchanges the last segments with the host peer, in
		 * this system call: let what is queued for the guest leave
		 * first (often the SYN-ACK of the connection that follows).
		 * A tap device takes one frame per write, so this adds none.
		 */
		if (c->mode == MODE_PASTA)
			qdisc_flush(c);
		tcp_conn_close(c, conn, false);
	}
	(void)now_ms;
}

/**
 * tcp_defer_handler() - run deferred work of every dirty connection
 * @c:		execution context
 * @now_ms:	current time
 */
void tcp_defer_handler(const struct ctx *c, uint64_t now_ms)
{
	unsigned int i;

	tcp_input_done(c);

	for (i = 0; i < tcp_dirty_count; i++) {
		struct tcp_conn *conn = &tcp_conns[tcp_dirty[i]];

		if (!(conn->flags & TCP_F_DIRTY))
			continue;
		conn->flags &= ~TCP_F_DIRTY;
		if (conn->state == CONN_CLOSED)
			continue;
		tcp_conn_deferred(c, conn, now_ms);
	}
	tcp_dirty_count = 0;
}

/**
 * tcp_connect_done() - host connect() finished: answer the guest's SYN
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING
 * @error:	0 if the host connection is up, the error of connect() if not
 * @now_ms:	current time
 *
 * The guest gets its SYN-ACK only now, or a RST if the host refused.
 */
void tcp_connect_done(const struct ctx *c, struct tcp_conn *conn, int error,
		      uint64_t now_ms)
{
	if (error) {
		char buf[INANY_STRLEN];

		debug("TCP flow %u: connect to %s:%u failed: %s", conn->flow,
		      inany_ntop(&conn->remote_addr, buf), conn->remote_port,
		      strerror(error));
		tcp_stats.conns_refused++;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, false);
		return;
	}

	if (conn->flags & TCP_F_EPOLLOUT)
		tcp_epoll_set(c, conn, false);
	conn->wnd_to_guest = tcp_wnd_for_guest(c, conn);
	tcp_conn_state(conn, CONN_SYN_ACK_SENT);
	conn->retries = 0;
	tcp_send_syn(c, conn, true);
	tcp_timer_arm(conn, now_ms, TCP_RTO_INIT_MS);
}

/**
 * tcp_sock_handler() - event on a connection's host socket
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 * @now_ms:	current time
 */
void tcp_sock_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		      uint64_t now_ms)
{
	struct tcp_conn *conn = tcp_conn_at(ref.data);

	if (!conn || conn->sock != (int)ref.fd)
		return;

	if (conn->state == CONN_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
			socklen_t sl = sizeof(int);
			int error = 0;

			if (getsockopt(conn->sock, SOL_SOCKET, SO_ERROR,
				       &error, &sl))
				error = errno;
			tcp_connect_done(c, conn, error, now_ms);
		}
		return;
	}

	if (events & EPOLLERR) {
		int error = 0;
		socklen_t sl = sizeof(error);

		getsockopt(conn->sock, SOL_SOCKET, SO_ERROR, &error, &sl);
		debug("TCP flow %u: host socket error: %s", conn->flow,
		      strerror(error));
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return;
	}

	if ((events & (EPOLLRDHUP | EPOLLHUP)) &&
	    !(conn->flags & TCP_F_SOCK_EOF)) {
		flow_log(conn->flow, "host side closed (end of data)");
		conn->flags |= TCP_F_SOCK_EOF;
	}

	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
		conn->flags &= ~TCP_F_SOCK_DRAINED;
		if (conn->state == CONN_ESTABLISHED)
			qdisc_wake(conn->flow);
	}

	if ((events & EPOLLOUT) && (conn->flags & TCP_F_EPOLLOUT)) {
		/* Send buffer space freed: held data first, then tell the
		 * guest; before both, what a migration source had queued
		 */
		tcp_epoll_set(c, conn, false);
		if ((conn->flags & TCP_F_PENDING) &&
		    tcp_mig_pending_push(c, conn))
			return;
		if (conn->state == CONN_ESTABLISHED) {
			tcp_guest_held_push(c, conn);
			if (conn->state != CONN_ESTABLISHED)
				return;
			tcp_stats.wnd_updates++;
			conn->flags |= TCP_F_ACK_PENDING | TCP_F_WND_UPDATE;
			tcp_conn_dirty(conn);
		}
	}
}

static void tcp_conns_log(void);

/**
 * tcp_stats_log() - log the TCP counters, one line of key=value pairs
 */
void tcp_stats_log(void)
{
	const struct tcp_stats *t = &tcp_stats;

	info("tcp: conns_out=%llu conns_in=%llu refused=%llu retrans=%llu "
	     "fast_retrans=%llu rto=%llu overrun=%llu wnd_updates=%llu "
	     "wnd_forced=%llu wnd_held=%llu rst_unknown=%llu "
	     "probes_acked=%llu keepalives=%llu ooo_held=%llu "
	     "tails_held=%llu evicted=%llu "
	     "mig_out=%llu "
	     "mig_in=%llu mig_lost=%llu idle=%u active=%u",
	     (unsigned long long)t->conns_out, (unsigned long long)t->conns_in,
	     (unsigned long long)t->conns_refused,
	     (unsigned long long)t->retrans,
	     (unsigned long long)t->fast_retrans, (unsigned long long)t->rto,
	     (unsigned long long)t->overrun,
	     (unsigned long long)t->wnd_updates,
	     (unsigned long long)t->wnd_forced,
	     (unsigned long long)t->wnd_held,
	     (unsigned long long)t->rst_unknown,
	     (unsigned long long)t->probes_acked,
	     (unsigned long long)t->keepalives,
	     (unsigned long long)t->ooo_held,
	     (unsigned long long)t->tails_held,
	     (unsigned long long)t->evicted, (unsigned long long)t->mig_out,
	     (unsigned long long)t->mig_in, (unsigned long long)t->mig_lost,
	     tcp_mig_idle(), tcp_conns_active());
	tcp_conns_log();
}

/**
 * tcp_conns_log() - sequence state of the first TCP_STATS_CONNS
 *		     connections, to diagnose a stalled transfer
 */
static void tcp_conns_log(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < tcp_conns_cap && n < TCP_STATS_CONNS; i++) {
		const struct tcp_conn *conn = tcp_conn_at(i);
		char ooo[64];

		if (!conn || conn->state == CONN_CLOSED)
			continue;
		n++;
		tcp_ooo_describe(conn, ooo, sizeof(ooo));
		info("tcp: flow %u state=%u flags=0x%x from_guest=%u wq=%u/%u "
		     "to_guest=%u acked=%u max_sent=%u wnd_from=%u wnd_to=%u "
		     "ooo=%s", i, conn->state, conn->flags,
		     conn->seq_from_guest, conn->wq_segs, conn->wq_bytes,
		     conn->seq_to_guest, conn->seq_acked, conn->seq_max_sent,
		     conn->wnd_from_guest, conn->wnd_to_guest, ooo);
	}
}

/**
 * tcp_net_input() - take a segment from net_input()
 * @c:		execution context
 * @saddr:	source address
 * @daddr:	destination address
 * @l4:		TCP header, its length checked
 * @l4len:	TCP header and payload length
 * @now_ms:	current time
 */
static void tcp_net_input(const struct ctx *c, const union inany_addr *saddr,
			  const union inany_addr *daddr, const uint8_t *l4,
			  size_t l4len, uint64_t now_ms)
{
	tcp_guest_input(c, saddr, daddr, (const struct tcphdr *)(const void *)l4,
			l4len, now_ms);
}

static const struct net_l4_ops tcp_net_ops = {
	.input = tcp_net_input,
	.input_done = tcp_input_done,
};

/**
 * tcp_init() - allocate connection state, probe the kernel
 * @c:		execution context
 *
 * Return: 0 on success, negative error code on failure
 */
int tcp_init(const struct ctx *c)
{
	tcp_listen_register();
	net_l4_register(NET_L4_TCP, &tcp_net_ops);
	tcp_isn_init(timer_now_ms());
	tcp_conns_cap = c->flow_max;
	tcp_conns = calloc(tcp_conns_cap, sizeof(*tcp_conns));
	tcp_dirty_cap = c->flow_max;
	tcp_dirty = calloc(tcp_dirty_cap, sizeof(*tcp_dirty));
	if (!tcp_conns || !tcp_dirty)
		return -ENOMEM;

	tcp_emit_init();
	if (tcp_ooo_init())
		return -ENOMEM;
	if (tcp_window_init())
		return -EINVAL;
	tcp_keepalive_init();

	if (tcp_limits_init(c))
		return -ENOMEM;
	if (tcp_migrate_init(c))
		return -ENOMEM;

	qdisc_register(FLOW_TYPE_TCP, tcp_pull);

	return 0;
}
