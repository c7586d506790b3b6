// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_migrate.c - TCP connections moving with a migrated guest
 *
 * Theory of operation
 *
 * A guest TCP connection is our state toward the guest (sequence numbers,
 * windows, struct tcp_conn) plus a host kernel socket. On a migration
 * both move: this file is TCP's section of the state (migrate/migrate.c),
 * tcp_repair.c moves the kernel part in repair mode, which the
 * passt-repair helper switches on and off (migrate/repair.c).
 *
 * Source (tcp_mig_save()), for every established connection: the
 * acknowledged data still in the socket is dropped (so its receive queue
 * starts at the first byte the guest has not acknowledged), the socket is
 * frozen (it drops everything from the peer, and the peer everything
 * from it, see tcp_repair.c) and put in repair mode, all of them in one
 * request to the helper. Then one MIG_REC_TCP_CONN record per connection
 * (our state, the socket's addresses, its kernel state: tcp_mig_rec.c
 * encodes, decodes and checks it), and one MIG_REC_TCP_DATA record per
 * connection with both its queues, read again from the frozen socket.
 * The connections are then parked (TCP_F_MIGRATED): out of the epoll set,
 * no timer, not counted as active. If the migration fails, the guest's
 * device runs again here and they resume (tcp_mig_resume()); when the
 * front-end leaves instead, the guest runs on the target
 * (tcp_mig_finish()): their flows are freed, and their sockets, still
 * frozen and in repair mode, are kept idle until we exit, as upstream
 * passt does, so that a peer still sending here gets no reset, or closed
 * at once with --migrate-no-linger (close() in repair mode sends
 * nothing). Connections that could not be saved are reset then.
 *
 * Target (tcp_mig_load()), with every record checked first: each
 * MIG_REC_TCP_CONN gets a flow, in the hash table, and a socket, frozen,
 * in repair mode (one helper request for all); each MIG_REC_TCP_DATA
 * binds and connects it as the source's was and fills its queues
 * (tcp_repair.c). Whatever can't be done refuses the whole state, and
 * nothing is left of it (tcp_mig_discard()). The connections stay frozen
 * (TCP_F_RESTORING) until the guest runs here (tcp_mig_start()): then
 * they thaw, leave repair mode (its window probe tells the peer where we
 * are), go live, and send the guest an ACK and what it has not
 * acknowledged, from the first byte: frames queued on the source may
 * never have left it, the guest drops what it has already.
 *
 * Consistency with the rest of tcp/: the discard count is 0 after the
 * drop, so the peek offset is what is in flight, and seq_isn is set so
 * that the bytes tcp_rcvwnd.c counts as consumed start at 0 on the new
 * socket; TCP_F_RCVBUF_RAISED moves with the buffer size. A FIN the peer
 * sent is not in the new socket (tcp_repair.c): TCP_F_SOCK_EOF says it,
 * and tcp_pull_data() sends the guest its FIN once the queue is empty.
 * Data held after a hole from the guest (tcp_ooo.c) does not move: the
 * guest sends it again, as after any receiver that drops SACKed data.
 *
 * The kernel caps the send buffer an unprivileged process may set: what
 * of a send queue the new socket can't take is kept in memory taken for
 * the migration and written as room frees (TCP_F_PENDING, before any new
 * data from the guest, which gets a zero window meanwhile). That is right
 * for bytes the source's kernel had not sent; of those it had sent, all
 * must fit, or an acknowledgement beyond them is dropped by the new
 * socket's kernel: the source keeps them within that size from the start
 * of the migration (tcp_mig_sndbuf.c).
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
#include "tcp_mig_rec.h"
#include "tcp_repair.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../migrate/mig_io.h"
#include "../migrate/migrate.h"
#include "../migrate/repair.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: repair mode, queue sizes, memory for the
 * queues of a migration
 */
SYSCALLS(SYSCALLS_PASST, "getsockopt", "setsockopt", "ioctl", "getsockname",
	 "getpeername", "socket", "bind", "connect", "sendto", "recvfrom",
	 "shutdown", "close", "epoll_ctl", "mmap", "munmap");

/* Send queue bytes a target keeps for all connections, at most */
#define TCP_MIG_PENDING_MAX	(512ULL << 20)

/**
 * struct tcp_mig - what a connection's migration needs, besides tcp_conn
 * @st:		kernel state of the socket
 * @local:	the socket's local address and port
 * @peer:	its peer's
 * @pend_off:	target: offset in the pending area of send queue bytes the
 *		socket could not take yet
 * @pend_len:	their number
 * @dump_off:	source: offset of its queues in the dump area, send queue
 *		first, then the receive queue
 * @dump_cap:	source: room for each queue there
 * @saved:	source: dumped, to be written
 */
struct tcp_mig {
	struct tcp_repair_state st;
	union sockaddr_inany local;
	union sockaddr_inany peer;
	uint64_t pend_off;
	uint32_t pend_len;
	uint64_t dump_off;
	uint32_t dump_cap;
	bool saved;
};

static struct tcp_mig *tcp_migs;	/* by flow index */
static uint32_t *tcp_mig_list;		/* target: flows, in record order */
static uint64_t *tcp_mig_datalen;	/* target: their queues, bytes */
static unsigned int tcp_mig_nconn;	/* target: connection records */
static unsigned int tcp_mig_ndata;	/* target: data records */
static uint64_t tcp_mig_sndq_total;	/* target: their send queues */
static uint8_t *tcp_mig_pend;		/* target: pending area, or NULL */
static size_t tcp_mig_pend_size;
static unsigned int tcp_mig_pend_users;	/* connections with bytes there */
static int *tcp_mig_idle_fds;		/* source: sockets kept idle */
static unsigned int tcp_mig_nidle;
static unsigned int tcp_mig_cap;

/* Chunks of a receive queue, from the stream into the socket */
static uint8_t tcp_mig_chunk[TCP_REPAIR_CHUNK];

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
	conn->flags &= ~TCP_F_MIGRATED;
	if (stuck || tcp_repair_thaw(conn->sock) ||
	    tcp_epoll_add(c, conn, conn->flags & TCP_F_EPOLLOUT)) {
		warn("TCP flow %u: can't run again after the migration, "
		     "resetting it", conn->flow);
		tcp_stats.mig_lost++;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, !stuck);
		return;
	}

	/* Frames to the guest may have been lost on the way: again */
	tcp_peek_off_reset(conn);
	tcp_rewind(conn);
	conn->flags |= TCP_F_ACK_PENDING;
	tcp_conn_dirty(conn);
	qdisc_wake(conn->flow);
}

/**
 * tcp_mig_each() - the next connection with given flags
 * @i:		flow index to look from, advanced past the one returned
 * @flags:	TCP_F_* bits it must have
 *
 * Return: connection, NULL when there are no more
 */
static struct tcp_conn *tcp_mig_each(unsigned int *i, uint32_t flags)
{
	for (; *i < tcp_mig_cap; (*i)++) {
		struct tcp_conn *conn = tcp_conn_at(*i);

		if (conn && (conn->flags & flags) == flags) {
			(*i)++;
			return conn;
		}
	}
	return NULL;
}

/**
 * tcp_mig_resume() - source: the guest goes on here
 * @c:		execution context
 */
static void tcp_mig_resume(const struct ctx *c)
{
	struct tcp_conn *conn;
	unsigned int i = 0;
	int rc = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED)))
		rc |= repair_set(conn->sock, TCP_REPAIR_OFF);
	rc |= repair_flush();

	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_MIGRATED)))
		tcp_mig_unpark(c, conn, rc != 0);
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
 * tcp_mig_freeze_one() - freeze a socket, if the kernel lets us
 * @s:		socket
 *
 * A connected socket is always frozen (a socket filter, or a TCP-MD5 key
 * where the kernel refuses filters to unprivileged processes, see
 * tcp_repair.c). A target's socket, not connected yet, can't take a key:
 * without a filter, data arriving before the guest runs lands in order
 * after the restored queue, which is as good.
 *
 * Return: 0 on success or EPERM, other -errno on failure
 */
static int tcp_mig_freeze_one(int s)
{
	int rc = tcp_repair_freeze(s);

	return rc == -EPERM ? 0 : rc;
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
		conn->flags |= TCP_F_MIGRATED;
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
 * tcp_mig_park() - source: a saved connection stops here
 * @c:		execution context
 * @conn:	connection, frozen and in repair mode
 */
static void tcp_mig_park(const struct ctx *c, struct tcp_conn *conn)
{
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, conn->sock, NULL);
	timer_cancel(&conn->timer);
	qdisc_forget(conn->flow);
	tcp_wq_purge(conn);
	conn->flags &= ~(TCP_F_DIRTY | TCP_F_ACK_PENDING);
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
static int tcp_mig_save(const struct ctx *c, struct mig_out *o)
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
		if (tcp_migs[conn->flow].saved)
			tcp_mig_put_data(o, index++, &tcp_migs[conn->flow],
					 buf);
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
		tcp_mig_park(c, conn);
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

	if (tcp_repair_rcv_nxt(conn->sock, &now))
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
static void tcp_mig_finish(const struct ctx *c)
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
			if (c->migrate_no_linger ||
			    tcp_mig_nidle == tcp_mig_cap)
				close(conn->sock);
			else
				tcp_mig_idle_fds[tcp_mig_nidle++] = conn->sock;
			conn->sock = -1;
			moved++;
		} else {
			reset++;
			tcp_stats.mig_lost++;
		}
		tcp_conn_close(c, conn, true);
	}
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

/**
 * tcp_mig_conn_new() - target: a flow and a frozen socket in repair mode
 * @c:		execution context
 * @in:		stream, for messages
 * @r:		record, checked
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_conn_new(const struct ctx *c, struct mig_in *in,
			    const struct tcp_mig_rec *r)
{
	struct tcp_conn *conn;
	struct tcp_mig *m;
	uint32_t flow;
	int s, rc;

	if (flow_lookup(&r->key) != FLOW_IDX_NONE)
		return mig_in_fail(in, "TCP connection %u is here already",
				   tcp_mig_nconn);
	if (!tcp_mig_nconn && !repair_wait(c, REPAIR_WAIT_MS))
		return mig_in_fail(in, "no passt-repair connected at %s: TCP "
				   "connections can't be restored",
				   *repair_path() ? repair_path() :
				   "(no socket)");

	s = socket(r->af == 4 ? AF_INET : AF_INET6,
		   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s < 0)
		return mig_in_fail(in, "TCP connection %u: can't open a "
				   "socket: %s", tcp_mig_nconn,
				   strerror(errno));
	tcp_sock_opts(c, s);
	conn = tcp_conn_new(c, s, false);
	if (!conn) {
		close(s);
		return mig_in_fail(in, "TCP connection %u: the flow table is "
				   "full (--max-flows %u)", tcp_mig_nconn,
				   c->flow_max);
	}

	flow = conn->flow;
	tcp_mig_rec_to_conn(r, conn);
	/* Nothing consumed from the new socket yet (tcp_rcvwnd.c) */
	conn->seq_isn = conn->seq_acked - 1;
	conn->flags |= TCP_F_RESTORING;
	conn->state = CONN_ESTABLISHED;
	tcp_mig_list[tcp_mig_nconn] = flow;

	m = &tcp_migs[flow];
	memset(m, 0, sizeof(*m));
	m->st = r->st;
	sockaddr_from_inany(&m->local, &r->local, r->local_port,
			    nat_host_scope(c, &r->local));
	sockaddr_from_inany(&m->peer, &r->peer, r->peer_port,
			    nat_host_scope(c, &r->peer));

	if ((rc = flow_hash_insert(flow, &r->key)))
		return mig_in_fail(in, "TCP connection %u: %s", tcp_mig_nconn,
				   rc == -EEXIST ? "twice in the state" :
				   strerror(-rc));
	if ((rc = tcp_mig_freeze_one(s)) ||
	    (rc = repair_set(s, TCP_REPAIR_ON)))
		return mig_in_fail(in, "TCP connection %u: can't get repair "
				   "mode: %s", tcp_mig_nconn, strerror(-rc));
	return 0;
}

/**
 * tcp_mig_load_conn() - target: a MIG_REC_TCP_CONN record
 * @c:		execution context
 * @in:		stream, the record's header read
 * @rh:		that header
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_load_conn(const struct ctx *c, struct mig_in *in,
			     const struct mig_rec *rh)
{
	uint8_t buf[MIG_REC_SMALL_MAX];
	struct tcp_mig_rec r;
	const char *why;
	struct mig_buf b;
	int rc;

	if ((rc = mig_in_small(in, rh, "TCP connection", TCP_MIG_CONN_LEN,
			       buf, &b)))
		return rc;
	if (tcp_mig_ndata)
		return mig_in_fail(in, "TCP connection after data records");
	if (tcp_mig_nconn == tcp_mig_cap)
		return mig_in_fail(in, "more TCP connections than flows here "
				   "(%u, --max-flows)", tcp_mig_cap);

	tcp_mig_rec_get(&b, &r);
	if ((why = tcp_mig_rec_check(&r)))
		return mig_in_fail(in, "TCP connection %u: %s", tcp_mig_nconn,
				   why);
	tcp_mig_datalen[tcp_mig_nconn] = (uint64_t)r.st.rcvq + r.st.sndq;
	tcp_mig_sndq_total += r.st.sndq;
	if (tcp_mig_sndq_total > TCP_MIG_PENDING_MAX)
		return mig_in_fail(in, "send queues of more than %llu bytes in "
				   "all", (unsigned long long)
				   TCP_MIG_PENDING_MAX);

	if (!in->check_only && (rc = tcp_mig_conn_new(c, in, &r)))
		return rc;
	tcp_mig_nconn++;
	return 0;
}

/**
 * tcp_mig_first_data() - target: the first data record, all sockets there
 * @in:		stream, for messages
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_first_data(struct mig_in *in)
{
	void *p;

	if (repair_flush())
		return mig_in_fail(in, "passt-repair failed to set repair mode "
				   "on %u sockets", tcp_mig_nconn);
	if (!tcp_mig_sndq_total)
		return 0;
	if (tcp_mig_pend)
		return mig_in_fail(in, "the send queues of the last migration "
				   "here are still being written: try again "
				   "later");

	p = mmap(NULL, tcp_mig_sndq_total, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return mig_in_fail(in, "no memory for %llu bytes of send "
				   "queues", (unsigned long long)
				   tcp_mig_sndq_total);
	tcp_mig_pend = p;
	tcp_mig_pend_size = tcp_mig_sndq_total;
	tcp_mig_sndq_total = 0;		/* now: where the next one goes */
	return 0;
}

/**
 * tcp_mig_fill_rcvq() - target: the receive queue, from the stream
 * @in:		stream, at the queue's first byte
 * @s:		socket in repair mode, connected
 * @len:	queue length
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_fill_rcvq(struct mig_in *in, int s, uint32_t len)
{
	while (len) {
		size_t n = MIN(len, sizeof(tcp_mig_chunk)), done;
		int rc;

		if ((rc = mig_in_read(in, tcp_mig_chunk, n)))
			return rc;
		rc = tcp_repair_fill(s, false, tcp_mig_chunk, n, &done);
		if (rc == -ENOBUFS)
			return mig_in_fail(in, "the receive queue doesn't fit "
					   "a socket here (net.ipv4.tcp_rmem, "
					   "--tcp-rmem)");
		if (rc)
			return mig_in_fail(in, "can't fill the receive queue: "
					   "%s", strerror(-rc));
		len -= (uint32_t)n;
	}
	return 0;
}

/**
 * tcp_mig_build() - target: bind, connect, queues, options, windows
 * @c:		execution context
 * @in:		stream, at the receive queue's first byte
 * @conn:	connection, its socket frozen and in repair mode
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_build(const struct ctx *c, struct mig_in *in,
			 struct tcp_conn *conn)
{
	struct tcp_mig *m = &tcp_migs[conn->flow];
	socklen_t sl = m->local.sa.sa_family == AF_INET ?
		       sizeof(m->local.sa4) : sizeof(m->local.sa6);
	size_t done;
	int s = conn->sock, rc;

	if (bind(s, &m->local.sa, sl))
		return mig_in_fail(in, "TCP flow %u: can't bind its socket: "
				   "%s (is the source's address here?)",
				   conn->flow, strerror(errno));
	if ((rc = tcp_repair_seq(s, &m->st)))
		return mig_in_fail(in, "TCP flow %u: can't set sequences: %s",
				   conn->flow, strerror(-rc));
	if (connect(s, &m->peer.sa, sl))
		return mig_in_fail(in, "TCP flow %u: can't connect its socket: "
				   "%s", conn->flow, strerror(errno));
	if ((rc = tcp_repair_bufs(s, &m->st, !c->tcp_rmem)))
		return mig_in_fail(in, "TCP flow %u: can't size buffers: %s",
				   conn->flow, strerror(-rc));
	if ((rc = tcp_mig_fill_rcvq(in, s, m->st.rcvq)))
		return rc;

	if (!m->st.sndq)
		goto finish;
	m->pend_off = tcp_mig_sndq_total;
	tcp_mig_sndq_total += m->st.sndq;
	if ((rc = mig_in_read(in, tcp_mig_pend + m->pend_off, m->st.sndq)))
		return rc;
	rc = tcp_repair_fill(s, true, tcp_mig_pend + m->pend_off,
			     m->st.sndq - m->st.notsent, &done);
	if (rc && rc != -ENOBUFS)
		return mig_in_fail(in, "TCP flow %u: can't fill the send "
				   "queue: %s", conn->flow, strerror(-rc));
	if (rc)
		warn("TCP flow %u: %zu of the %u bytes its peer may have "
		     "received fit a socket here in repair mode: if the peer "
		     "had more, their acknowledgement is dropped and the "
		     "connection stalls (raise net.core.wmem_max; a source "
		     "whose front-end logs its writes first keeps below it)",
		     conn->flow, done, m->st.sndq - m->st.notsent);
	m->pend_off += done;
	m->pend_len = m->st.sndq - (uint32_t)done;

finish:
	if ((rc = tcp_repair_finish(s, &m->st)))
		return mig_in_fail(in, "TCP flow %u: can't set options and "
				   "windows: %s", conn->flow, strerror(-rc));
	return 0;
}

/**
 * tcp_mig_load_data() - target: a MIG_REC_TCP_DATA record
 * @c:		execution context
 * @in:		stream, the record's header read
 * @rh:		that header
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_load_data(const struct ctx *c, struct mig_in *in,
			     const struct mig_rec *rh)
{
	uint8_t idx[4];
	struct mig_buf b = { .p = idx, .size = sizeof(idx) };
	struct tcp_conn *conn;
	int rc;

	if (rh->len < sizeof(idx))
		return mig_in_fail(in, "TCP data record of %u bytes", rh->len);
	if ((rc = mig_in_read(in, idx, sizeof(idx))))
		return rc;
	if (mig_get_u32(&b) != tcp_mig_ndata || tcp_mig_ndata >= tcp_mig_nconn)
		return mig_in_fail(in, "TCP data record out of order");
	if (rh->len - sizeof(idx) != tcp_mig_datalen[tcp_mig_ndata])
		return mig_in_fail(in, "TCP data record of %u bytes, its "
				   "connection has %llu bytes queued", rh->len,
				   (unsigned long long)
				   tcp_mig_datalen[tcp_mig_ndata]);

	if (in->check_only) {
		tcp_mig_ndata++;
		return mig_in_skip(in, rh->len - sizeof(idx));
	}

	if (!tcp_mig_ndata && (rc = tcp_mig_first_data(in)))
		return rc;
	conn = tcp_conn_at(tcp_mig_list[tcp_mig_ndata]);
	tcp_mig_ndata++;
	return tcp_mig_build(c, in, conn);
}

/**
 * tcp_mig_load() - target: one record of the TCP section
 * @c:		execution context
 * @in:		stream, the record's header read
 * @r:		that header
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_load(const struct ctx *c, struct mig_in *in,
			const struct mig_rec *r)
{
	if (r->type == MIG_REC_TCP_CONN)
		return tcp_mig_load_conn(c, in, r);
	if (r->type == MIG_REC_TCP_DATA)
		return tcp_mig_load_data(c, in, r);
	return mig_in_fail(in, "unknown TCP record type %u", r->type);
}

/**
 * tcp_mig_loaded() - target: every connection had its data?
 * @c:		execution context (unused)
 * @in:		stream, for messages
 *
 * Return: 0, or -EPROTO (why recorded)
 */
static int tcp_mig_loaded(const struct ctx *c, struct mig_in *in)
{
	(void)c;
	if (tcp_mig_ndata != tcp_mig_nconn)
		return mig_in_fail(in, "%u TCP connections, %u data records",
				   tcp_mig_nconn, tcp_mig_ndata);
	return 0;
}

/**
 * tcp_mig_pend_release() - a connection wrote its last pending byte
 */
static void tcp_mig_pend_release(void)
{
	if (tcp_mig_pend_users && --tcp_mig_pend_users)
		return;
	if (tcp_mig_pend)
		munmap(tcp_mig_pend, tcp_mig_pend_size);
	tcp_mig_pend = NULL;
	tcp_mig_pend_size = 0;
}

/**
 * tcp_mig_discard() - target: drop what was loaded, without a trace
 * @c:		execution context
 */
static void tcp_mig_discard(const struct ctx *c)
{
	struct tcp_conn *conn;
	unsigned int i = 0;

	/* Frozen and in repair mode: close() sends nothing */
	while ((conn = tcp_mig_each(&i, TCP_F_RESTORING)))
		tcp_conn_close(c, conn, false);
	tcp_mig_nconn = tcp_mig_ndata = 0;
	tcp_mig_sndq_total = 0;
	if (!tcp_mig_pend_users)
		tcp_mig_pend_release();
}

/**
 * tcp_mig_pending_push() - write send queue bytes the source had queued
 * @c:		execution context
 * @conn:	connection with TCP_F_PENDING
 *
 * Once they are all written, the guest's FIN follows if it had one, and
 * the guest gets a window again.
 *
 * Return: true if bytes are still pending (EPOLLOUT armed)
 */
bool tcp_mig_pending_push(const struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_mig *m = &tcp_migs[conn->flow];

	while (m->pend_len) {
		ssize_t n = send(conn->sock, tcp_mig_pend + m->pend_off,
				 m->pend_len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n <= 0) {
			if (n < 0 && errno != EAGAIN && errno != EINTR) {
				debug("TCP flow %u: write to host socket: %s",
				      conn->flow, strerror(errno));
				m->pend_len = 0;
				break;
			}
			if (!(conn->flags & TCP_F_EPOLLOUT))
				tcp_epoll_set(c, conn, true);
			return true;
		}
		m->pend_off += (size_t)n;
		m->pend_len -= (uint32_t)n;
	}

	conn->flags &= ~TCP_F_PENDING;
	tcp_mig_pend_release();
	if ((conn->flags & TCP_F_GUEST_FIN) && m->st.state != TCP_FIN_WAIT2)
		shutdown(conn->sock, SHUT_WR);
	conn->flags |= TCP_F_ACK_PENDING | TCP_F_WND_UPDATE;
	tcp_conn_dirty(conn);
	return false;
}

/**
 * tcp_mig_pending_drop() - a connection with bytes in the pending area
 *			    closes before it wrote them
 * @conn:	connection, TCP_F_PENDING
 */
void tcp_mig_pending_drop(struct tcp_conn *conn)
{
	tcp_migs[conn->flow].pend_len = 0;
	conn->flags &= ~TCP_F_PENDING;
	tcp_mig_pend_release();
}

/**
 * tcp_mig_live() - target: a restored connection goes live
 * @c:		execution context
 * @conn:	connection, thawed and out of repair mode
 *
 * Return: 0, or -errno if it can't (then the caller resets it)
 */
static int tcp_mig_live(const struct ctx *c, struct tcp_conn *conn)
{
	struct tcp_mig *m = &tcp_migs[conn->flow];
	int rc;

	conn->flags &= ~TCP_F_RESTORING;
	if ((rc = tcp_repair_done(conn->sock, &m->st, !c->tcp_wmem)))
		return rc;
	if (tcp_peek_off_supported()) {
		conn->flags |= TCP_F_PEEK_OFF;
		if ((rc = tcp_peek_off_reset(conn)))
			return rc;
	}
	if ((rc = tcp_epoll_add(c, conn, false)))
		return rc;

	if (m->pend_len) {
		conn->flags |= TCP_F_PENDING;	/* counted by tcp_mig_start() */
		tcp_mig_pending_push(c, conn);
	} else if ((conn->flags & TCP_F_GUEST_FIN) &&
		   m->st.state != TCP_FIN_WAIT2 &&
		   shutdown(conn->sock, SHUT_WR)) {
		return -errno;
	}

	/* Everything not acknowledged goes to the guest again */
	tcp_rewind(conn);
	conn->flags |= TCP_F_ACK_PENDING;
	tcp_conn_dirty(conn);
	qdisc_wake(conn->flow);
	return 0;
}

/**
 * tcp_mig_start() - target: the guest runs here, connections go live
 * @c:		execution context
 */
static void tcp_mig_start(const struct ctx *c)
{
	unsigned int i = 0, n = 0, lost = 0;
	struct tcp_conn *conn;
	bool failed;
	int rc = 0;

	while ((conn = tcp_mig_each(&i, TCP_F_RESTORING))) {
		tcp_repair_thaw(conn->sock);
		rc |= repair_set(conn->sock, TCP_REPAIR_OFF);
	}
	failed = (rc | repair_flush()) != 0;

	/* Every connection with bytes in the pending area holds it before
	 * any writes them: the first one done must not unmap it for the
	 * others (their bytes would be lost, the stream to the peer cut)
	 */
	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_RESTORING)))
		tcp_mig_pend_users += !!tcp_migs[conn->flow].pend_len;

	i = 0;
	while ((conn = tcp_mig_each(&i, TCP_F_RESTORING))) {
		if (!failed && !tcp_mig_live(c, conn)) {
			n++;
			continue;
		}
		if (tcp_migs[conn->flow].pend_len &&
		    !(conn->flags & TCP_F_PENDING))
			tcp_mig_pend_release();
		warn("TCP flow %u: can't go live after the migration, "
		     "resetting it", conn->flow);
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, !failed);
		lost++;
	}
	tcp_stats.mig_in += n;
	tcp_stats.mig_lost += lost;
	tcp_mig_nconn = tcp_mig_ndata = 0;
	if (!tcp_mig_pend_users)
		tcp_mig_pend_release();
	info("Migration: %u TCP connections restored%s", n,
	     lost ? ", some reset" : "");
}

static const struct migrate_section tcp_mig_section = {
	.name		= "TCP",
	.rec_first	= MIG_REC_TCP_CONN,
	.rec_last	= MIG_REC_TCP_DATA,
	.save		= tcp_mig_save,
	.load		= tcp_mig_load,
	.loaded		= tcp_mig_loaded,
	.precopy	= tcp_mig_sndbuf_set,
	.resume		= tcp_mig_resume,
	.finish		= tcp_mig_finish,
	.start		= tcp_mig_start,
	.discard	= tcp_mig_discard,
};

/**
 * tcp_migrate_init() - tables for migrations, register the section
 * @c:		execution context
 *
 * Return: 0 on success, -ENOMEM
 */
int tcp_migrate_init(const struct ctx *c)
{
	if (!c->vhost_user)
		return 0;

	tcp_mig_cap = tcp_conns_capacity();
	tcp_migs = calloc(tcp_mig_cap, sizeof(*tcp_migs));
	tcp_mig_list = calloc(tcp_mig_cap, sizeof(*tcp_mig_list));
	tcp_mig_datalen = calloc(tcp_mig_cap, sizeof(*tcp_mig_datalen));
	tcp_mig_idle_fds = calloc(tcp_mig_cap, sizeof(*tcp_mig_idle_fds));
	if (!tcp_migs || !tcp_mig_list || !tcp_mig_datalen ||
	    !tcp_mig_idle_fds)
		return -ENOMEM;

	migrate_register(&tcp_mig_section);
	return 0;
}
