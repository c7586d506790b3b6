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
 * Source (tcp_mig_save.c: tcp_mig_save()), for every established
 * connection: the
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
 * passt does, so that a peer still sending here gets no reset.
 * Connections that could not be saved are reset then. With
 * --migrate-no-linger, each socket is closed instead (silently: in repair
 * mode, close() sends nothing) right before its MIG_REC_TCP_DATA record is
 * written: a target on this same host binds and connects its socket, of
 * the same addresses and ports, when it reads that record, and the kernel
 * refuses that while ours exists (EADDRNOTAVAIL). Until it has, a socket
 * listening there drops what the peer sends, silently (tcp_mig_save.c).
 * If the migration fails after that, those connections are reset toward
 * the guest.
 *
 * Target (tcp_mig_load()), with every record checked first: each
 * MIG_REC_TCP_CONN gets a flow, in the hash table, and a socket, frozen,
 * in repair mode (one helper request for all); each MIG_REC_TCP_DATA
 * binds and connects it as the source's was and fills its queues
 * (tcp_repair.c). A state that can't be read, or is inconsistent, is
 * refused as a whole, and nothing is left of it (tcp_mig_discard()). A
 * connection that can't be restored here (its addresses taken, no helper,
 * no flow, no memory, a queue the kernel won't take) is dropped alone, its
 * data read past, and reset toward the guest once it runs here
 * (tcp_mig_lost.c): refusing the state for it would lose the guest with
 * all its connections, as QEMU's load fails with ours. The connections
 * stay frozen (TCP_F_RESTORING) until the guest runs here
 * (tcp_mig_start()): then
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
#include <stdio.h>
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
#include "tcp_mig_lost.h"
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

/* System calls after start-up: the connections of a migration (repair
 * mode itself: tcp_repair.c), memory for their queues; --vhost-user only.
 * That memory is private, anonymous, never executable.
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_SOCKET("a migrated connection, IPv4", AF_INET,
			 SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_SOCKET("a migrated connection, IPv6", AF_INET6,
			 SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_CALL("bind", "its local address, as at the source"),
	 SYSCALLS_CALL("connect", "its peer, in repair mode: no handshake"),
	 SYSCALLS_CALL("getsockname", "a connection's addresses, to save"),
	 SYSCALLS_CALL("getpeername", "a connection's addresses, to save"),
	 SYSCALLS_CALL("getsockopt", "SO_RCVBUF, TCP_REPAIR state"),
	 SYSCALLS_SETSOCKOPT("SO_SNDBUF: room for a restored queue",
			     SOL_SOCKET),
	 SYSCALLS_CALL("sendto", "the rest of a restored queue (send())"),
	 SYSCALLS_CALL("shutdown", "a FIN the guest had sent"),
	 SYSCALLS_CALL_IF("mmap", "queues of the migrated connections",
			  SYSCALLS_ARG_EQ(0, 0),
			  SYSCALLS_ARG_EQ(2, PROT_READ | PROT_WRITE),
			  SYSCALLS_ARG_MASK(3, ~(scmp_datum_t)MAP_NORESERVE,
					    MAP_PRIVATE | MAP_ANONYMOUS)),
	 SYSCALLS_CALL("munmap", "that memory, once restored or sent"),
	 SYSCALLS_CALL("epoll_ctl", "frozen connections leave the set"),
	 SYSCALLS_CALL("close", "connections moved away, or failed"));

/* Send queue bytes a target keeps for all connections, at most */
#define TCP_MIG_PENDING_MAX	(512ULL << 20)

/* Why a connection can't be restored, for the log */
#define TCP_MIG_WHY_LEN		160

struct tcp_mig *tcp_migs;		/* by flow index */
static uint32_t *tcp_mig_list;		/* target: flows, in record order */
static uint64_t *tcp_mig_datalen;	/* target: their queues, bytes */
static unsigned int tcp_mig_nconn;	/* target: connection records */
static unsigned int tcp_mig_ndata;	/* target: data records */
static uint64_t tcp_mig_sndq_total;	/* target: their send queues */
static uint8_t *tcp_mig_pend;		/* target: pending area, or NULL */
static size_t tcp_mig_pend_size;
static unsigned int tcp_mig_pend_users;	/* connections with bytes there */
static bool tcp_mig_pend_ours;		/* target: the area is this state's */
static bool tcp_mig_helper;		/* target: passt-repair connected */
unsigned int tcp_mig_cap;		/* flow table capacity */

/* Chunks of a receive queue, from the stream into the socket */
static uint8_t tcp_mig_chunk[TCP_REPAIR_CHUNK];

/**
 * tcp_mig_each() - the next connection with given flags
 * @i:		flow index to look from, advanced past the one returned
 * @flags:	TCP_F_* bits it must have
 *
 * Return: connection, NULL when there are no more
 */
struct tcp_conn *tcp_mig_each(unsigned int *i, uint32_t flags)
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
int tcp_mig_freeze_one(int s)
{
	int rc = tcp_repair_freeze(s);

	return rc == -EPERM ? 0 : rc;
}

/**
 * tcp_mig_why() - describe a failure to restore a connection
 * @what:	what failed
 * @err:	errno, 0 if none applies
 *
 * Return: the description, in a buffer valid until the next call
 */
static const char *tcp_mig_why(const char *what, int err)
{
	static char why[TCP_MIG_WHY_LEN];

	if (!err)
		return what;
	snprintf(why, sizeof(why), "%s: %s", what, strerror(err));
	return why;
}

/**
 * tcp_mig_key() - the flow key of a connection
 * @conn:	connection
 * @key:	filled
 */
static void tcp_mig_key(const struct tcp_conn *conn, struct flow_key *key)
{
	memset(key, 0, sizeof(*key));
	key->guest_addr = conn->guest_addr;
	key->remote_addr = conn->remote_addr;
	key->guest_port = conn->guest_port;
	key->remote_port = conn->remote_port;
	key->proto = IPPROTO_TCP;
}

/**
 * tcp_mig_lose() - target: a connection can't be restored here: drop it
 *		    without a trace, reset it toward the guest once it runs
 * @c:		execution context
 * @index:	its place among the connection records
 * @why:	what failed
 *
 * Its socket is in repair mode, or not connected: closing it sends
 * nothing to the peer.
 */
static void tcp_mig_lose(const struct ctx *c, unsigned int index,
			 const char *why)
{
	struct tcp_conn *conn = tcp_conn_at(tcp_mig_list[index]);
	struct flow_key key;

	tcp_mig_list[index] = FLOW_IDX_NONE;
	if (!conn)
		return;
	tcp_mig_key(conn, &key);
	tcp_mig_lost_add(index, &key, conn->seq_max_sent, conn->seq_from_guest,
			 why);
	tcp_conn_close(c, conn, false);
}

/**
 * tcp_mig_conn_new() - target: a flow and a frozen socket in repair mode
 * @c:		execution context
 * @in:		stream, for messages
 * @r:		record, checked
 * @why:	set to what failed if the connection can't be restored here
 *
 * Return: 0 (restored so far, or lost: @why), or negative errno if the
 *	   state is malformed (why recorded)
 */
static int tcp_mig_conn_new(const struct ctx *c, struct mig_in *in,
			    const struct tcp_mig_rec *r, const char **why)
{
	const struct tcp_conn *other = tcp_conn_at(flow_lookup(&r->key));
	struct tcp_conn *conn;
	struct tcp_mig *m;
	int s, rc;

	if (other && (other->flags & TCP_F_RESTORING))
		return mig_in_fail(in, "TCP connection %u: twice in the state",
				   tcp_mig_nconn);
	if (other) {
		*why = "a connection of the same addresses and ports is here";
		return 0;
	}
	if (!tcp_mig_nconn)
		tcp_mig_helper = repair_wait(c, REPAIR_WAIT_MS);
	if (!tcp_mig_helper) {
		*why = "no passt-repair connected (--repair-path)";
		return 0;
	}

	s = socket(r->af == 4 ? AF_INET : AF_INET6,
		   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	if (s < 0) {
		*why = tcp_mig_why("can't open a socket", errno);
		return 0;
	}
	tcp_sock_opts(c, s);
	if (!(conn = tcp_conn_new(c, s, false))) {
		close(s);
		*why = "the flow table is full (--max-flows)";
		return 0;
	}

	tcp_mig_rec_to_conn(r, conn);
	/* Nothing consumed from the new socket yet (tcp_rcvwnd.c) */
	conn->seq_isn = conn->seq_acked - 1;
	tcp_conn_mig_restoring(conn);
	conn->state = CONN_ESTABLISHED;
	tcp_mig_list[tcp_mig_nconn] = conn->flow;

	m = &tcp_migs[conn->flow];
	memset(m, 0, sizeof(*m));
	m->st = r->st;
	sockaddr_from_inany(&m->local, &r->local, r->local_port,
			    nat_host_scope(c, &r->local));
	sockaddr_from_inany(&m->peer, &r->peer, r->peer_port,
			    nat_host_scope(c, &r->peer));

	if ((rc = flow_hash_insert(conn->flow, &r->key)))
		*why = tcp_mig_why("can't insert its flow", -rc);
	else if ((rc = tcp_mig_freeze_one(s)) ||
		 (rc = repair_set(s, TCP_REPAIR_ON)))
		*why = tcp_mig_why("can't get repair mode", -rc);
	return 0;
}

/**
 * tcp_mig_load_conn() - target: a MIG_REC_TCP_CONN record
 * @c:		execution context
 * @in:		stream, the record's header read
 * @rh:		that header
 *
 * A connection that can't be restored here is lost, not the state
 * (tcp_mig_lost.c).
 *
 * Return: 0, or negative errno (why recorded)
 */
static int tcp_mig_load_conn(const struct ctx *c, struct mig_in *in,
			     const struct mig_rec *rh)
{
	uint8_t buf[MIG_REC_SMALL_MAX];
	const char *why = NULL;
	struct tcp_mig_rec r;
	struct mig_buf b;
	int rc;

	if ((rc = mig_in_small(in, rh, "TCP connection", TCP_MIG_CONN_LEN,
			       buf, &b)))
		return rc;
	if (tcp_mig_ndata)
		return mig_in_fail(in, "TCP connection after data records");

	tcp_mig_rec_get(&b, &r);
	if ((why = tcp_mig_rec_check(&r)))
		return mig_in_fail(in, "TCP connection %u: %s", tcp_mig_nconn,
				   why);
	if (tcp_mig_nconn >= tcp_mig_cap) {
		/* Its data record is skipped: it has no length to check */
		if (!in->check_only)
			tcp_mig_lost_add(tcp_mig_nconn, &r.key,
					 r.c.seq_max_sent, r.c.seq_from_guest,
					 "more connections than flows here "
					 "(--max-flows)");
		tcp_mig_nconn++;
		return 0;
	}

	tcp_mig_datalen[tcp_mig_nconn] = (uint64_t)r.st.rcvq + r.st.sndq;
	tcp_mig_list[tcp_mig_nconn] = FLOW_IDX_NONE;
	if (tcp_mig_sndq_total + r.st.sndq > TCP_MIG_PENDING_MAX)
		why = "send queues of more than 512 MiB in all";
	else
		tcp_mig_sndq_total += r.st.sndq;

	if (!in->check_only && !why &&
	    (rc = tcp_mig_conn_new(c, in, &r, &why)))
		return rc;
	if (why && !in->check_only) {
		if (tcp_mig_list[tcp_mig_nconn] == FLOW_IDX_NONE)
			tcp_mig_lost_add(tcp_mig_nconn, &r.key,
					 r.c.seq_max_sent, r.c.seq_from_guest,
					 why);
		else
			tcp_mig_lose(c, tcp_mig_nconn, why);
	}
	tcp_mig_nconn++;
	return 0;
}

/**
 * tcp_mig_first_data() - target: the first data record, all sockets there
 * @c:		execution context
 *
 * If the helper fails, no connection can be restored; without memory for
 * the send queues, those with a send queue can't.
 */
static void tcp_mig_first_data(const struct ctx *c)
{
	unsigned int i, n = MIN(tcp_mig_nconn, tcp_mig_cap);
	void *p = MAP_FAILED;

	if (repair_flush()) {
		for (i = 0; i < n; i++)
			tcp_mig_lose(c, i, "passt-repair failed to set repair "
				     "mode");
		return;
	}
	if (!tcp_mig_sndq_total)
		return;
	if (!tcp_mig_pend)
		p = mmap(NULL, tcp_mig_sndq_total, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		/* Or the area of the last migration is still in use */
		for (i = 0; i < n; i++) {
			const struct tcp_conn *conn;

			conn = tcp_conn_at(tcp_mig_list[i]);
			if (conn && tcp_migs[conn->flow].st.sndq)
				tcp_mig_lose(c, i, "no memory for its send "
					     "queue");
		}
		return;
	}
	tcp_mig_pend = p;
	tcp_mig_pend_size = tcp_mig_sndq_total;
	tcp_mig_pend_ours = true;
	tcp_mig_sndq_total = 0;		/* now: where the next one goes */
}

/**
 * tcp_mig_fill_rcvq() - target: the receive queue, from the stream
 * @in:		stream, at the queue's first byte
 * @s:		socket in repair mode, connected
 * @len:	queue length
 * @why:	what failed, if anything: the queue is then only read
 *
 * Return: 0, or negative errno for the stream (why recorded)
 */
static int tcp_mig_fill_rcvq(struct mig_in *in, int s, uint32_t len,
			     const char **why)
{
	while (len) {
		size_t n = MIN(len, sizeof(tcp_mig_chunk)), done;
		int rc;

		if ((rc = mig_in_read(in, tcp_mig_chunk, n)))
			return rc;
		len -= (uint32_t)n;
		if (*why)
			continue;
		rc = tcp_repair_fill(s, false, tcp_mig_chunk, n, &done);
		if (rc == -ENOBUFS)
			*why = "its receive queue doesn't fit a socket here "
			       "(net.ipv4.tcp_rmem, --tcp-rmem)";
		else if (rc)
			*why = tcp_mig_why("can't fill the receive queue",
					   -rc);
	}
	return 0;
}

/**
 * tcp_mig_fill_sndq() - target: the send queue, from the stream: into the
 *			 socket what it takes in repair mode, the rest kept
 * @in:		stream, at the queue's first byte
 * @conn:	connection
 * @why:	what failed, if anything: the queue is then only read
 *
 * Return: 0, or negative errno for the stream (why recorded)
 */
static int tcp_mig_fill_sndq(struct mig_in *in, struct tcp_conn *conn,
			     const char **why)
{
	struct tcp_mig *m = &tcp_migs[conn->flow];
	size_t done;
	int rc;

	if (!m->st.sndq)
		return 0;
	if (*why || !tcp_mig_pend_ours)
		return mig_in_skip(in, m->st.sndq);

	m->pend_off = tcp_mig_sndq_total;
	tcp_mig_sndq_total += m->st.sndq;
	if ((rc = mig_in_read(in, tcp_mig_pend + m->pend_off, m->st.sndq)))
		return rc;
	rc = tcp_repair_fill(conn->sock, true, tcp_mig_pend + m->pend_off,
			     m->st.sndq - m->st.notsent, &done);
	if (rc && rc != -ENOBUFS) {
		*why = tcp_mig_why("can't fill the send queue", -rc);
		return 0;
	}
	if (rc)
		warn("TCP flow %u: %zu of the %u bytes its peer may have "
		     "received fit a socket here in repair mode: if the peer "
		     "had more, their acknowledgement is dropped and the "
		     "connection stalls (raise net.core.wmem_max; a source "
		     "whose front-end logs its writes first keeps below it)",
		     conn->flow, done, m->st.sndq - m->st.notsent);
	m->pend_off += done;
	m->pend_len = m->st.sndq - (uint32_t)done;
	return 0;
}

/**
 * tcp_mig_connect() - target: bind and connect a socket as the source's
 * @c:		execution context
 * @conn:	connection, its socket frozen and in repair mode
 *
 * Return: NULL, or what failed
 */
static const char *tcp_mig_connect(const struct ctx *c,
				   const struct tcp_conn *conn)
{
	struct tcp_mig *m = &tcp_migs[conn->flow];
	socklen_t sl = m->local.sa.sa_family == AF_INET ?
		       sizeof(m->local.sa4) : sizeof(m->local.sa6);
	int s = conn->sock, rc;

	if (bind(s, &m->local.sa, sl))
		return tcp_mig_why("can't bind its socket (is the source's "
				   "address here?)", errno);
	if ((rc = tcp_repair_seq(s, &m->st)))
		return tcp_mig_why("can't set sequences", -rc);
	if (connect(s, &m->peer.sa, sl)) {
		if (errno == EADDRNOTAVAIL)
			return "can't connect its socket: a socket here has "
			       "the same addresses and ports (the source's "
			       "own, if it is on this host and keeps them: "
			       "see --migrate-no-linger)";
		return tcp_mig_why("can't connect its socket", errno);
	}
	if ((rc = tcp_repair_bufs(s, &m->st, !c->tcp_rmem)))
		return tcp_mig_why("can't size its buffers", -rc);
	return NULL;
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
	unsigned int index = tcp_mig_ndata;
	const char *why = NULL;
	struct tcp_conn *conn;
	int rc;

	if (rh->len < sizeof(idx))
		return mig_in_fail(in, "TCP data record of %u bytes", rh->len);
	if ((rc = mig_in_read(in, idx, sizeof(idx))))
		return rc;
	if (mig_get_u32(&b) != index || index >= tcp_mig_nconn)
		return mig_in_fail(in, "TCP data record out of order");
	tcp_mig_ndata++;
	if (index >= tcp_mig_cap)	/* lost already, see load_conn() */
		return mig_in_skip(in, rh->len - sizeof(idx));
	if (rh->len - sizeof(idx) != tcp_mig_datalen[index])
		return mig_in_fail(in, "TCP data record of %u bytes, its "
				   "connection has %llu bytes queued", rh->len,
				   (unsigned long long)tcp_mig_datalen[index]);

	if (in->check_only)
		return mig_in_skip(in, rh->len - sizeof(idx));
	if (!index)
		tcp_mig_first_data(c);
	if (!(conn = tcp_conn_at(tcp_mig_list[index])))
		return mig_in_skip(in, rh->len - sizeof(idx));

	why = tcp_mig_connect(c, conn);
	if ((rc = tcp_mig_fill_rcvq(in, conn->sock, tcp_migs[conn->flow].st.rcvq,
				    &why)) ||
	    (rc = tcp_mig_fill_sndq(in, conn, &why)))
		return rc;
	if (!why && (rc = tcp_repair_finish(conn->sock,
					    &tcp_migs[conn->flow].st)))
		why = tcp_mig_why("can't set options and windows", -rc);
	if (why)
		tcp_mig_lose(c, index, why);
	return 0;
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
	tcp_mig_lost_clear();
	tcp_mig_nconn = tcp_mig_ndata = 0;
	tcp_mig_sndq_total = 0;
	tcp_mig_pend_ours = false;
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

	tcp_conn_mig_pending_done(conn);
	tcp_mig_pend_release();
	if ((conn->flags & TCP_F_GUEST_FIN) && m->st.state != TCP_FIN_WAIT2)
		shutdown(conn->sock, SHUT_WR);
	tcp_conn_wnd_update_due(conn);
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
	tcp_conn_mig_pending_done(conn);
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

	tcp_conn_mig_live(conn);
	if ((rc = tcp_repair_done(conn->sock, &m->st, !c->tcp_wmem)))
		return rc;
	if (tcp_peek_off_supported()) {
		tcp_conn_peek_off(conn, true);
		if ((rc = tcp_peek_off_reset(conn)))
			return rc;
	}
	if ((rc = tcp_epoll_add(c, conn, false)))
		return rc;

	if (m->pend_len) {
		tcp_conn_mig_pending(conn);	/* counted by tcp_mig_start() */
		tcp_mig_pending_push(c, conn);
	} else if ((conn->flags & TCP_F_GUEST_FIN) &&
		   m->st.state != TCP_FIN_WAIT2 &&
		   shutdown(conn->sock, SHUT_WR)) {
		return -errno;
	}

	/* Everything not acknowledged goes to the guest again */
	tcp_rewind(conn);
	tcp_conn_ack_due(conn);
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
		/* The guest has everything sent before the migration */
		conn->seq_to_guest = conn->seq_max_sent;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, !failed);
		lost++;
	}
	tcp_stats.mig_in += n;
	tcp_stats.mig_lost += lost;
	lost += tcp_mig_lost_reset(c);
	tcp_mig_nconn = tcp_mig_ndata = 0;
	tcp_mig_pend_ours = false;
	if (!tcp_mig_pend_users)
		tcp_mig_pend_release();
	if (lost)
		info("Migration: %u TCP connections restored, %u reset", n,
		     lost);
	else
		info("Migration: %u TCP connections restored", n);
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
 * tcp_migrate_init() - tables for migrations, register the section, and
 *			what the core does for migration (struct tcp_conn_hooks)
 * @c:		execution context
 *
 * Return: 0 on success, -ENOMEM
 */
int tcp_migrate_init(const struct ctx *c)
{
	static const struct tcp_conn_hooks hooks = {
		.sock_new = tcp_mig_sndbuf_sock,
		.pending_drop = tcp_mig_pending_drop,
	};

	tcp_conn_register(&hooks);
	if (!c->vhost_user)
		return 0;


	tcp_mig_cap = tcp_conns_capacity();
	tcp_migs = calloc(tcp_mig_cap, sizeof(*tcp_migs));
	tcp_mig_list = calloc(tcp_mig_cap, sizeof(*tcp_mig_list));
	tcp_mig_datalen = calloc(tcp_mig_cap, sizeof(*tcp_mig_datalen));
	if (!tcp_migs || !tcp_mig_list || !tcp_mig_datalen ||
	    tcp_mig_save_init(tcp_mig_cap) || tcp_mig_lost_init(tcp_mig_cap))
		return -ENOMEM;

	migrate_register(&tcp_mig_section);
	return 0;
}
