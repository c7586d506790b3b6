// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp.c - guest TCP segments <-> host TCP sockets: the entry points
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
 * This file is the roof of tcp/ (doc/tcp.md, "File order"): what the rest
 * of the relay calls, and nothing in tcp/ calls back. It takes the host
 * socket events, the per-connection timer (registered with the core,
 * tcp_conn.c, which keeps the table, states, flags and close), segments
 * from the guest (handed on to tcp_guest.c), the deferred work done once
 * per batch of guest frames (dropping acknowledged data and sending one
 * ACK per connection), the counters' log line and start-up, which
 * registers tcp/ with net/, qdisc/ and fwd/ (tcp_listen.c).
 */

#include <errno.h>
#include <string.h>
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
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/timer.h"

/* System calls after start-up: socket state */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("getsockopt", "a connection's error (SO_ERROR)"));

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
		tcp_conn_rto_fired(conn);
		tcp_rewind(conn);
		qdisc_wake(conn->flow);
		tcp_timer_arm(conn, now_ms, conn->rto_ms);
		return;
	}

	if (conn->flags & TCP_F_WND_HELD) {
		/* No window update came: the guest keeps its window small
		 * now, so the reserve goes by this window from here on
		 */
		tcp_conn_wnd_hold_end(conn);
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
			tcp_conn_ack_clear(conn);
		}
		tcp_conn_wnd_update_clear(conn);
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
	tcp_input_done(c);
	tcp_conn_dirty_run(c, now_ms, tcp_conn_deferred);
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
		tcp_conn_sock_eof(conn);
	}

	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) {
		tcp_conn_sock_readable(conn);
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
			tcp_conn_wnd_update_due(conn);
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
	unsigned int i, n = 0, cap = tcp_conns_capacity();

	for (i = 0; i < cap && n < TCP_STATS_CONNS; i++) {
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
	static const struct tcp_conn_hooks hooks = { .timer = tcp_timer_fn };

	tcp_listen_register();
	net_l4_register(NET_L4_TCP, &tcp_net_ops);
	tcp_conn_register(&hooks);
	tcp_guest_init(timer_now_ms());
	if (tcp_conn_init(c))
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
