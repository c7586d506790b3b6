// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_window.c - windows: what the guest may send, what the host may send
 *
 * Theory of operation
 *
 * Toward the guest, the window we advertise is the free space of the host
 * socket's send buffer (SO_MEMINFO: send buffer size minus queued
 * memory), so that everything the guest sends fits in the socket and is
 * never dropped for lack of room (design.md invariant 5). The kernel's
 * send buffer autotuning grows that buffer with the host connection's
 * congestion window, so the guest is paced by the host path. When the
 * free space gets small, EPOLLOUT is armed and tcp.c sends a window update
 * as soon as the kernel reports space again.
 *
 * Toward the host peer, the window is the kernel's: data read with
 * MSG_PEEK stays queued, so the socket's receive window shrinks while the
 * guest has not acknowledged it. Acknowledged data is dropped with
 * recv(MSG_TRUNC), after which the window the socket advertises must
 * reopen (design.md invariant 3). The drop itself makes the kernel send
 * the update, except in one state, where the peer is left with a window
 * below one of its segments: tcp_rcvwnd.c finds that state after every
 * drop and releases the update (tcp_stats.wnd_forced). A drop that leaves
 * the queue empty cannot leave that state, and needs no look: the last
 * peek drained the socket, no data arrived since (TCP_F_SOCK_DRAINED),
 * and the guest acknowledged all it was sent. Data that arrives between
 * that peek and the drop is at most what the peer could send into a
 * window just opened; if it left the update held, the drop that follows
 * the guest's ACK of that data sends it (or looks again). A grown buffer
 * is always looked at, to shrink it back.
 * tests/probes/trunc_window.c and trunc_hold.c check both on the running
 * kernel, and doc/tcp.md records what they found.
 *
 * The retransmission timeout follows RFC 6298 with millisecond samples,
 * one segment timed at a time (Karn's rule: never a retransmitted one).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "tcp_internal.h"
#include "tcp_rcvwnd.h"
#include "tcp_window.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: dropping acknowledged data, window and
 * buffer queries (tcp_window.c and tcp_rcvwnd.c)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("recvfrom", "drop acknowledged data (MSG_TRUNC)"),
	 SYSCALLS_CALL("getsockopt", "SO_MEMINFO, TCP_INFO, SO_RCVBUF..."),
	 SYSCALLS_SETSOCKOPT("SO_PEEK_OFF, SO_RCVBUF, SO_RCVLOWAT",
			     SOL_SOCKET));

#ifndef SO_MEMINFO
#define SO_MEMINFO		55
#endif

static bool tcp_peek_off_ok;
static bool tcp_capped_reported;	/* TCP_RCVWND_CAPPED logged once */

/**
 * tcp_window_init() - probe kernel features the window logic uses
 *
 * Return: 0 on success, -1 if TCP sockets can't be created at all
 */
int tcp_window_init(void)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	int zero = 0;

	if (s < 0) {
		err_perror("TCP: can't create a probe socket");
		return -1;
	}

	tcp_peek_off_ok = !setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero,
				      sizeof(zero));
	if (!tcp_peek_off_ok)
		info("TCP: this kernel lacks SO_PEEK_OFF for TCP (Linux 6.9+),"
		     " data in flight is read again on every send");
	close(s);
	if (tcp_rcvwnd_init())
		return -1;
	if (!tcp_rcvwnd_precise())
		info("TCP: this kernel does not report the advertised window"
		     " (tcpi_rcv_wnd, Linux 6.2+): held window updates are"
		     " found from free space before each drop");
	return 0;
}

/**
 * tcp_peek_off_supported() - tell if SO_PEEK_OFF works on TCP sockets
 *
 * Return: true if supported
 */
bool tcp_peek_off_supported(void)
{
	return tcp_peek_off_ok;
}

/**
 * tcp_peek_off_reset() - point the peek offset at the next byte to send
 * @conn:	connection
 *
 * Acknowledged bytes not dropped yet (@conn->discard) precede the first
 * unacknowledged one, and the bytes in flight follow it.
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_peek_off_reset(const struct tcp_conn *conn)
{
	int off = (int)(conn->discard + (conn->seq_to_guest - conn->seq_acked));

	/* Not set yet: no data was peeked, peeking starts at the front */
	if (!tcp_peek_off_ok || conn->sock < 0 ||
	    !(conn->flags & TCP_F_PEEK_OFF))
		return 0;

	if (setsockopt(conn->sock, SOL_SOCKET, SO_PEEK_OFF, &off,
		       sizeof(off)))
		return -errno;
	return 0;
}

/**
 * tcp_peek_off_enable() - set SO_PEEK_OFF after the first data was peeked
 * @conn:	connection, its first data just peeked from the front of the
 *		queue and counted in @conn->seq_to_guest
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_peek_off_enable(struct tcp_conn *conn)
{
	int rc;

	tcp_conn_peek_off(conn, true);
	rc = tcp_peek_off_reset(conn);
	if (rc)
		tcp_conn_peek_off(conn, false);
	return rc;
}

/**
 * tcp_wnd_for_guest() - window to advertise: free socket send buffer
 * @c:		execution context
 * @conn:	connection
 *
 * Return: window in bytes, a multiple of the window scale unit
 */
uint32_t tcp_wnd_for_guest(const struct ctx *c, struct tcp_conn *conn)
{
	return tcp_wnd_query(c, conn, NULL);
}

/**
 * tcp_wnd_query() - window to advertise, and receive queue memory
 * @c:		execution context
 * @conn:	connection
 * @rmem:	if not NULL, set to the memory of the socket's receive queues
 *		(data, a FIN, out-of-order segments), 0 if unknown
 *
 * Arms EPOLLOUT if the window is small, so an update follows when the
 * socket frees space.
 *
 * Return: window in bytes, a multiple of the window scale unit
 */
uint32_t tcp_wnd_query(const struct ctx *c, struct tcp_conn *conn,
		       uint32_t *rmem)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mem);
	uint32_t wnd, sndbuf, max = 65535U << conn->ws_to_guest;

	if (rmem)
		*rmem = 0;
	if (conn->flags & TCP_F_GUEST_FIN)
		return conn->wnd_to_guest;

	/* After a migration, the source's queued bytes go first */
	if (conn->flags & TCP_F_PENDING) {
		if (!(conn->flags & TCP_F_EPOLLOUT))
			tcp_epoll_set(c, conn, true);
		tcp_conn_wnd_closed(conn, true);
		return 0;
	}

	if (getsockopt(conn->sock, SOL_SOCKET, SO_MEMINFO, mem, &sl) ||
	    sl < sizeof(uint32_t) * (SK_MEMINFO_WMEM_QUEUED + 1)) {
		wnd = sndbuf = TCP_WND_INIT;
	} else {
		uint32_t queued = mem[SK_MEMINFO_WMEM_QUEUED];

		if (rmem)
			*rmem = mem[SK_MEMINFO_RMEM_ALLOC];

		sndbuf = mem[SK_MEMINFO_SNDBUF];
		wnd = sndbuf > queued ? sndbuf - queued : 0;

		/* Queued memory counts buffer overhead too: keep a margin
		 * so that what the guest sends in the window always fits
		 */
		wnd -= wnd / TCP_WND_OVERHEAD_DIV;
	}

	wnd = MIN(wnd, max);
	wnd &= ~((1U << conn->ws_to_guest) - 1);

	/* The kernel reports EPOLLOUT once a third of the buffer is free:
	 * below a quarter, wait for it, so the update can't come back at
	 * once with the same small window.
	 */
	if (wnd < sndbuf / TCP_WND_LOW_FRACTION) {
		tcp_conn_wnd_closed(conn, true);
		if (!(conn->flags & TCP_F_EPOLLOUT))
			tcp_epoll_set(c, conn, true);
	} else {
		tcp_conn_wnd_closed(conn, false);
	}

	return wnd;
}

/**
 * tcp_host_wnd_release() - after a drop: release a window update the
 *			    kernel holds back from the host peer
 * @c:		execution context
 * @conn:	connection, its acknowledged data just dropped
 * @consumed:	bytes taken from the socket so far
 * @free_before:	free window before the drop, if the kernel does not
 *			report the advertised window
 */
static void tcp_host_wnd_release(const struct ctx *c, struct tcp_conn *conn,
				 uint32_t consumed, uint32_t free_before)
{
	int peek_off = -1, rc;
	bool raised;

	if (conn->flags & TCP_F_PEEK_OFF)
		peek_off = (int)(conn->seq_to_guest - conn->seq_acked);
	raised = conn->flags & TCP_F_RCVBUF_RAISED;

	rc = tcp_rcvwnd_release(conn->sock, consumed, peek_off, c->tcp_rmem,
				free_before, &raised);
	if (rc == TCP_RCVWND_RELEASED) {
		tcp_stats.wnd_forced++;
	} else if (rc == TCP_RCVWND_HELD || rc == TCP_RCVWND_CAPPED) {
		tcp_stats.wnd_held++;
	} else if (rc < 0) {
		debug("TCP flow %u: can't release the host window: %s",
		      conn->flow, strerror(-rc));
	}
	if (rc == TCP_RCVWND_CAPPED && !tcp_capped_reported) {
		tcp_capped_reported = true;
		info("TCP: a window update the kernel held back on a host socket"
		     " can't be released: --tcp-rmem %i is at the kernel's limit"
		     " (net.core.rmem_max): raise net.core.rmem_max above it, or"
		     " use a smaller --tcp-rmem", c->tcp_rmem);
	}

	if (raised &&
	    tcp_rcvwnd_restore(conn->sock, consumed, c->tcp_rmem, &raised))
		debug("TCP flow %u: can't restore the receive buffer size",
		      conn->flow);
	tcp_conn_rcvbuf_raised(conn, raised);
}

/**
 * tcp_discard_acked() - drop data the guest acknowledged from the socket,
 *			 then see that the host peer learns of the space
 * @c:		execution context
 * @conn:	connection
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_discard_acked(const struct ctx *c, struct tcp_conn *conn)
{
	uint32_t free_before = 0, consumed;
	bool emptied;

	/* Bytes taken from the socket, once the drop is done: everything
	 * the guest acknowledged, after the SYN
	 */
	consumed = conn->seq_acked - conn->seq_isn - 1;
	emptied = (conn->flags & TCP_F_SOCK_DRAINED) &&
		  !(conn->flags & TCP_F_RCVBUF_RAISED) &&
		  conn->seq_to_guest == conn->seq_acked;
	if (!tcp_rcvwnd_precise() && !emptied)
		tcp_rcvwnd_free(conn->sock, consumed - conn->discard,
				&free_before);

	while (conn->discard) {
		ssize_t n = recv(conn->sock, NULL, conn->discard,
				 MSG_TRUNC | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			debug("TCP flow %u: can't drop acknowledged data: %s",
			      conn->flow, strerror(errno));
			return -errno;
		}
		if (!n)
			break;
		conn->discard -= (uint32_t)MIN((size_t)n, conn->discard);
	}

	conn->discard = 0;

	/* Nothing more comes after the peer's FIN; and a drop that empties
	 * the queue lets the kernel send its update (tcp_rcvwnd.c)
	 */
	if (!(conn->flags & TCP_F_SOCK_EOF) && !emptied)
		tcp_host_wnd_release(c, conn, consumed, free_before);

	return 0;
}

/**
 * tcp_rtt_sample() - the timed segment was acknowledged: update the RTO
 * @conn:	connection
 * @now_ms:	current time
 */
void tcp_rtt_sample(struct tcp_conn *conn, uint64_t now_ms)
{
	uint32_t r = (uint32_t)MIN(now_ms - conn->rtt_ts, 60000ULL);
	int32_t delta;

	conn->rtt_ts = 0;
	if (!conn->srtt_ms) {
		conn->srtt_ms = MAX(r, 1U) << 3;
		conn->rttvar_ms = MAX(r, 1U) << 1;
	} else {
		delta = (int32_t)r - (int32_t)(conn->srtt_ms >> 3);
		conn->srtt_ms = (uint32_t)((int32_t)conn->srtt_ms + delta);
		if (delta < 0)
			delta = -delta;
		conn->rttvar_ms = (uint32_t)((int32_t)conn->rttvar_ms + delta -
					     (int32_t)(conn->rttvar_ms >> 2));
	}

	conn->rto_ms = (conn->srtt_ms >> 3) + conn->rttvar_ms;
	conn->rto_ms = MAX(conn->rto_ms, (uint32_t)TCP_RTO_MIN_MS);
	conn->rto_ms = MIN(conn->rto_ms, (uint32_t)TCP_RTO_MAX_MS);
}
