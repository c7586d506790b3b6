// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_mig_save.c - TCP connections leaving with a migrated guest: the source
 *
 * Theory of operation
 *
 * The source's part of TCP's migration section (tcp_migrate.c has the
 * whole picture and the target's part). tcp_mig_save(), for every
 * established connection: the acknowledged data still in the socket is
 * dropped, the socket frozen and put in repair mode (one helper request
 * for all), dumped (tcp_repair.c), and its records written: all
 * MIG_REC_TCP_CONN records, then one MIG_REC_TCP_DATA each. The
 * connections are then parked (TCP_F_MIGRATED): out of the epoll set, no
 * timer, not counted as active. A device running again means the
 * migration failed (tcp_mig_resume()): they run here again, and those
 * whose sockets were closed are reset toward the guest. The front-end
 * leaving means the guest runs on the target (tcp_mig_finish()): flows
 * freed, sockets kept idle until exit.
 *
 * With --migrate-no-linger a socket is closed instead, right before its
 * data record is written (tcp_mig_let_go()): a target on the same host
 * binds and connects its own socket when it reads that record, and the
 * kernel refuses that while ours exists. From then until the target's
 * socket is there, a listening socket on the same local address and port
 * drops, silently, whatever the peer still sends (tcp_repair_absorb()):
 * without it, the kernel would answer with resets, and the peer drop the
 * connection. It goes when the front-end leaves. A connection of a port
 * passt forwards (-t) has passt's own listening socket there instead,
 * which answers the peer's segments in that time with resets.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_mig.h"
#include "tcp_mig_rec.h"
#include "tcp_repair.h"
#include "../migrate/mig_io.h"
#include "../migrate/repair.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"

static int *tcp_mig_idle_fds;		/* sockets kept idle */
static unsigned int tcp_mig_nidle;
static int *tcp_mig_absorb_fds;		/* tcp_mig_let_go() */
static unsigned int tcp_mig_nabsorb;

/**
 * tcp_mig_save_init() - tables of the source
 * @cap:	flow table capacity
 *
 * Return: 0, or -ENOMEM
 */
int tcp_mig_save_init(unsigned int cap)
{
	tcp_mig_idle_fds = calloc(cap, sizeof(*tcp_mig_idle_fds));
	tcp_mig_absorb_fds = calloc(cap, sizeof(*tcp_mig_absorb_fds));
	if (!tcp_mig_idle_fds || !tcp_mig_absorb_fds)
		return -ENOMEM;
	return 0;
}

/**
 * tcp_mig_unpark() - a saved connection runs here again
 * @c:		execution context
 * @conn:	connection, frozen, out of repair mode unless @stuck
 * @stuck:	repair mode could not be turned off: reset the connection
 *		(toward the guest: the socket, in repair mode, says nothing)
 */
static void tcp_mig_unpark(const struct ctx *c, struct tcp_conn *conn,
			   bool stuck)
{
	tcp_conn_mig_resumed(conn);
	if (conn->sock < 0 || stuck || tcp_repair_thaw(conn->sock) ||
	    tcp_epoll_add(c, conn, conn->flags & TCP_F_EPOLLOUT)) {
		warn("TCP flow %u: can't run again after the migration%s, "
		     "resetting it", conn->flow, conn->sock < 0 ?
		     " (its socket was closed once saved: "
		     "--migrate-no-linger)" : "");
		tcp_stats.mig_lost++;
		/* The guest has everything sent before the migration */
		conn->seq_to_guest = conn->seq_max_sent;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, !stuck);
		return;
	}

	/* Frames to the guest may have been lost on the way: again */
	tcp_peek_off_reset(conn);
	tcp_rewind(conn);
	tcp_conn_ack_due(conn);
	tcp_conn_dirty(conn);
	qdisc_wake(conn->flow);
}

/**
 * tcp_mig_let_go() - source, --migrate-no-linger: close a saved socket, and
 *		      keep its address and port silent for the target
 * @conn:	connection, saved, its socket frozen and in repair mode
 *
 * The socket goes silently (repair mode); a listening socket dropping
 * every segment takes its place (tcp_repair_absorb()) until the front-end
 * leaves: a peer's segment arriving before the target has connected its
 * own socket would get a reset otherwise.
 */
static void tcp_mig_let_go(struct tcp_conn *conn)
{
	const struct tcp_mig *m = &tcp_migs[conn->flow];
	socklen_t sl = m->local.sa.sa_family == AF_INET ?
		       sizeof(m->local.sa4) : sizeof(m->local.sa6);
	int s;

	close(conn->sock);
	conn->sock = -1;

	s = tcp_repair_absorb(&m->local.sa, sl, &m->peer.sa);
	if (s < 0) {
		debug("TCP flow %u: nothing keeps its port silent until the "
		      "target takes it: %s", conn->flow, strerror(-s));
		return;
	}
	if (tcp_mig_nabsorb < tcp_mig_cap)
		tcp_mig_absorb_fds[tcp_mig_nabsorb++] = s;
	else
		close(s);
}

/**
 * tcp_mig_absorb_close() - source: the target has the connections, or the
 *			    guest stays: close the sockets of tcp_mig_let_go()
 */
static void tcp_mig_absorb_close(void)
{
	while (tcp_mig_nabsorb)
		close(tcp_mig_absorb_fds[--tcp_mig_nabsorb]);
}

/**
 * tcp_mig_resume() - source: the guest goes on here
 * @c:		execution context
 */
void tcp_mig_resume(const struct ctx *c)
{
	struct tcp_conn *conn;
	unsigned int i = 0;
	int rc = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		if (conn->sock >= 0)
			rc |= repair_set(conn->sock, TCP_REPAIR_OFF);
	}
	rc |= repair_flush();

	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED)))
		tcp_mig_unpark(c, conn, rc != 0);
	tcp_mig_absorb_close();
	tcp_mig_sndbuf_set(c, false);
}

/**
 * tcp_mig_unsaved() - source: connections that can't move run again
 * @c:		execution context
 */
static void tcp_mig_unsaved(const struct ctx *c)
{
	struct tcp_conn *conn;
	unsigned int i = 0;
	int rc = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		if (!tcp_migs[conn->flow].saved)
			rc |= repair_set(conn->sock, TCP_REPAIR_OFF);
	}
	rc |= repair_flush();

	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		if (!tcp_migs[conn->flow].saved)
			tcp_mig_unpark(c, conn, rc != 0);
	}
}

/**
 * tcp_mig_candidate() - should a connection move?
 * @conn:	connection
 *
 * Return: true if it is established and entirely ours (not parked, not
 *	   restored and still writing what its source had queued)
 */
static bool tcp_mig_candidate(const struct tcp_conn *conn)
{
	return conn->state == CONN_ESTABLISHED && conn->sock >= 0 &&
	       !(conn->flags & (TCP_F_MIGRATED | TCP_F_RESTORING |
				TCP_F_PENDING));
}

/**
 * tcp_mig_freeze() - source: drop acknowledged data, freeze, repair mode
 * @c:		execution context
 *
 * Return: connections frozen and in repair mode (TCP_F_MIGRATED), 0 if
 *	   none; -errno if the helper failed (everything as before)
 */
static int tcp_mig_freeze(const struct ctx *c)
{
	struct tcp_conn *conn;
	unsigned int i, n = 0;
	int rc = 0;

	for (i = 0; i < tcp_mig_cap; i++) {
		conn = tcp_conn_at(i);
		if (!conn || !tcp_mig_candidate(conn))
			continue;
		if ((conn->discard && (rc = tcp_discard_acked(c, conn))) ||
		    (rc = tcp_mig_freeze_one(conn->sock))) {
			warn("TCP flow %u: can't prepare it for the migration "
			     "(%s), it won't move", conn->flow, strerror(-rc));
			rc = 0;
			continue;
		}
		tcp_conn_mig_saved(conn);
		tcp_migs[i].saved = false;
		if ((rc = repair_set(conn->sock, TCP_REPAIR_ON)))
			break;
		n++;
	}
	if (!rc)
		rc = repair_flush();
	if (!rc)
		return (int)n;

	/* Nothing moves: sockets the helper set are stuck in repair mode */
	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		int on = 0;
		socklen_t sl = sizeof(on);

		getsockopt(conn->sock, IPPROTO_TCP, TCP_REPAIR, &on, &sl);
		tcp_mig_unpark(c, conn, on);
	}
	return rc;
}

/**
 * tcp_mig_consistent() - source: do our state and the socket's agree?
 * @conn:	connection
 * @m:		its kernel state, dumped
 *
 * Return: true if the data in flight to the guest is in the receive queue
 *	   and the FINs match
 */
static bool tcp_mig_consistent(const struct tcp_conn *conn,
			       const struct tcp_mig *m)
{
	uint32_t flight = conn->seq_max_sent - conn->seq_acked;
	bool fin_sent = conn->flags & TCP_F_FIN_SENT;

	return flight <= m->st.rcvq + fin_sent &&
	       !!(conn->flags & TCP_F_GUEST_FIN) ==
	       tcp_repair_fin_sent(&m->st) &&
	       (!fin_sent || tcp_repair_fin_received(&m->st));
}

/**
 * tcp_mig_dump() - source: read the state of every frozen socket
 * @buf:	dump area, each connection's queues at its place
 *
 * A connection that can't move is not marked saved: tcp_mig_unsaved()
 * takes it back, and tcp_mig_finish() resets it.
 *
 * Return: connections that can move
 */
static unsigned int tcp_mig_dump(uint8_t *buf)
{
	struct tcp_conn *conn;
	unsigned int i = 0, n = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		struct tcp_mig *m = &tcp_migs[conn->flow];
		socklen_t sl = sizeof(m->local), pl = sizeof(m->peer);
		int rc;

		uint8_t *q = buf + m->dump_off;

		rc = tcp_repair_dump(conn->sock, &m->st, q, q + m->dump_cap,
				     m->dump_cap);
		if (!rc && (m->st.sndq >= m->dump_cap ||
			    m->st.rcvq >= m->dump_cap))
			rc = -ENOBUFS;	/* grew past its room: may be cut */
		if (!rc && (getsockname(conn->sock, &m->local.sa, &sl) ||
			    getpeername(conn->sock, &m->peer.sa, &pl)))
			rc = -errno;
		if (!rc && !tcp_mig_consistent(conn, m))
			rc = -EPROTO;
		if (rc) {
			warn("TCP flow %u can't move: %s", conn->flow,
			     rc == -ENOBUFS ? "queues too long" :
			     rc == -EOPNOTSUPP ? "state of its socket" :
			     strerror(-rc));
			continue;
		}
		m->saved = true;
		n++;
	}
	return n;
}

/**
 * tcp_mig_put_data() - write a connection's MIG_REC_TCP_DATA record
 * @o:		stream
 * @index:	the connection's place among the TCP_CONN records
 * @m:		its kernel state
 * @buf:	dump area, its queues at their place
 */
static void tcp_mig_put_data(struct mig_out *o, uint32_t index,
			     const struct tcp_mig *m, const uint8_t *buf)
{
	const uint8_t *q = buf + m->dump_off;
	uint8_t idx[4];
	struct mig_buf b = { .p = idx, .size = sizeof(idx) };

	mig_put_u32(&b, index);
	mig_out_rec(o, MIG_REC_TCP_DATA,
		    (uint32_t)sizeof(idx) + m->st.rcvq + m->st.sndq);
	mig_out_bytes(o, idx, sizeof(idx));
	mig_out_bytes(o, q + m->dump_cap, m->st.rcvq);
	mig_out_bytes(o, q, m->st.sndq);
}

/**
 * tcp_mig_buf() - source: memory for the queues of every frozen socket
 * @size:	set to its size
 *
 * Each connection gets room for either queue as long as the larger of its
 * send queue now and its receive buffer (the receive queue, frozen, does
 * not grow, and could not grow past it anyway), plus one byte: a queue
 * that fills its room may have been cut, and the connection doesn't move.
 *
 * Return: the area, MAP_FAILED on failure
 */
static uint8_t *tcp_mig_buf(size_t *size)
{
	struct tcp_conn *conn;
	unsigned int i = 0;
	size_t total = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		struct tcp_mig *m = &tcp_migs[conn->flow];
		socklen_t sl = sizeof(int);
		uint32_t sq = 0, rq = 0;
		int rcvbuf = 0;

		tcp_repair_queued(conn->sock, &sq, &rq);
		getsockopt(conn->sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl);
		m->dump_cap = MIN(MAX(MAX(sq, rq), (uint32_t)MAX(rcvbuf, 0)),
				  TCP_REPAIR_QUEUE_MAX) + 1;
		m->dump_off = total;
		total += 2 * (size_t)m->dump_cap;
	}
	*size = MAX(total, 1);
	return mmap(NULL, *size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
}

/**
 * tcp_mig_save() - source: write the TCP section of the state
 * @c:		execution context
 * @o:		stream
 *
 * Return: 0 on success (connections parked), -errno on failure
 *	   (everything as before)
 */
int tcp_mig_save(const struct ctx *c, struct mig_out *o)
{
	unsigned int i, index = 0, n = 0;
	struct tcp_conn *conn;
	uint8_t *buf;
	size_t size;
	int rc = 0;

	for (i = 0; i < tcp_mig_cap; i++) {
		conn = tcp_conn_at(i);
		n += conn && tcp_mig_candidate(conn);
	}
	if (!n)
		return 0;
	if (!repair_wait(c, REPAIR_WAIT_MS)) {
		warn("Migration: no passt-repair connected at %s: the guest's "
		     "%u TCP connections can't move and will be reset",
		     *repair_path() ? repair_path() : "(no socket)", n);
		return 0;
	}

	rc = tcp_mig_freeze(c);
	if (rc <= 0)
		return rc;
	rc = 0;

	buf = tcp_mig_buf(&size);
	if (buf == MAP_FAILED) {
		rc = -errno;
		tcp_mig_resume(c);
		return rc;
	}

	n = tcp_mig_dump(buf);
	tcp_mig_unsaved(c);
	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		if (tcp_migs[conn->flow].saved)
			tcp_mig_rec_put(o, conn, &tcp_migs[conn->flow].st,
					&tcp_migs[conn->flow].local,
					&tcp_migs[conn->flow].peer);
	}
	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED))) {
		if (!tcp_migs[conn->flow].saved)
			continue;
		/* A target on this host connects its socket when it reads
		 * the data: by then this one must be gone (silently: in
		 * repair mode, close() sends nothing)
		 */
		if (c->migrate_no_linger)
			tcp_mig_let_go(conn);
		tcp_mig_put_data(o, index++, &tcp_migs[conn->flow], buf);
	}
	munmap(buf, size);

	if (!rc)
		rc = o->err;
	if (rc) {
		tcp_mig_resume(c);
		return rc;
	}

	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED)))
		tcp_conn_park(c, conn);
	tcp_stats.mig_out += n;
	info("Migration: %u TCP connections saved", n);
	return 0;
}

/**
 * tcp_mig_took_late() - source: did a saved socket take data after its dump?
 * @conn:	connection, saved, its socket frozen and in repair mode
 *
 * Bytes the old socket took (and acknowledged) after its queue was read
 * never reach the target: the peer won't send them again, the connection
 * is stuck there. The freeze must keep this from happening; this says if
 * it did.
 *
 * Return: bytes taken, 0 if none (or if the socket can't tell)
 */
static uint32_t tcp_mig_took_late(const struct tcp_conn *conn)
{
	const struct tcp_repair_state *st = &tcp_migs[conn->flow].st;
	uint32_t now;

	if (conn->sock < 0 || tcp_repair_rcv_nxt(conn->sock, &now))
		return 0;
	return now - st->rcv_seq - st->rcvq - tcp_repair_fin_received(st);
}

/**
 * tcp_mig_finish() - source: the guest runs on the target now
 * @c:		execution context
 *
 * Saved connections let go of their flows; their sockets, frozen and in
 * repair mode, are kept idle (or closed, silently, with
 * --migrate-no-linger). Others are reset: their guest is gone.
 */
void tcp_mig_finish(const struct ctx *c)
{
	unsigned int i, moved = 0, reset = 0;

	for (i = 0; i < tcp_mig_cap; i++) {
		struct tcp_conn *conn = tcp_conn_at(i);

		if (!conn)
			continue;
		if (conn->flags & TCP_F_MIGRATED) {
			uint32_t late = tcp_mig_took_late(conn);

			if (late)
				warn("TCP flow %u: its socket here took %u "
				     "bytes from the peer after it was saved: "
				     "they are lost to the target", conn->flow,
				     late);
			/* With --migrate-no-linger, closed once saved */
			if (conn->sock >= 0 && tcp_mig_nidle < tcp_mig_cap)
				tcp_mig_idle_fds[tcp_mig_nidle++] = conn->sock;
			else if (conn->sock >= 0)
				close(conn->sock);
			conn->sock = -1;
			moved++;
		} else {
			reset++;
			tcp_stats.mig_lost++;
		}
		tcp_conn_close(c, conn, true);
	}
	tcp_mig_absorb_close();
	info("Migration: %u TCP connections moved to the target (their "
	     "sockets here %s), %u reset", moved, c->migrate_no_linger ?
	     "closed" : "kept idle until passt exits", reset);
}

/**
 * tcp_mig_idle() - sockets kept idle after the guest migrated away
 *
 * Return: their number
 */
unsigned int tcp_mig_idle(void)
{
	return tcp_mig_nidle;
}
