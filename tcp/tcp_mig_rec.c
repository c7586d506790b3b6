// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_mig_rec.c - a TCP connection's record in the migration state
 *
 * Theory of operation
 *
 * One MIG_REC_TCP_CONN record per connection (doc/migration.md has the
 * layout): our state toward the guest, the socket's addresses and its
 * kernel state (struct tcp_repair_state), written field by field,
 * big-endian, through migrate/mig_io.c. A target decodes a record into
 * struct tcp_mig_rec, then checks it as a whole (tcp_mig_rec_check()):
 * every field in range and the fields consistent with each other, before
 * anything is built from it (tcp_migrate.c). The connection's flags that
 * move are in one table, read both ways; whether the peer closed comes
 * from the socket's state instead, as that is what the target rebuilds.
 *
 * This file knows the format, not the sockets: it never touches one.
 */

#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include "tcp_mig_rec.h"
#include "../util/util.h"

/* Connection flags that move as they are: in the record, in tcp_conn */
static const struct {
	uint16_t rec;
	uint32_t conn;
} tcp_mig_rec_flags[] = {
	{ TCP_MIG_F_GUEST_FIN,		TCP_F_GUEST_FIN },
	{ TCP_MIG_F_FIN_SENT,		TCP_F_FIN_SENT },
	{ TCP_MIG_F_FIN_ACKED,		TCP_F_FIN_ACKED },
	{ TCP_MIG_F_INBOUND,		TCP_F_INBOUND },
	{ TCP_MIG_F_SACK,		TCP_F_SACK },
	{ TCP_MIG_F_RCVBUF_RAISED,	TCP_F_RCVBUF_RAISED },
};

/* Our 32-bit fields toward the guest, in the record's order */
static const size_t tcp_mig_rec_u32[] = {
	offsetof(struct tcp_conn, seq_to_guest),
	offsetof(struct tcp_conn, seq_acked),
	offsetof(struct tcp_conn, seq_max_sent),
	offsetof(struct tcp_conn, wnd_from_guest),
	offsetof(struct tcp_conn, seq_from_guest),
	offsetof(struct tcp_conn, seq_ack_sent),
	offsetof(struct tcp_conn, wnd_to_guest),
	offsetof(struct tcp_conn, rto_ms),
	offsetof(struct tcp_conn, srtt_ms),
	offsetof(struct tcp_conn, rttvar_ms),
};

/**
 * tcp_mig_rec_u32_get() - one of the fields of tcp_mig_rec_u32[]
 * @conn:	connection
 * @i:		index in tcp_mig_rec_u32[]
 *
 * Return: its value
 */
static uint32_t tcp_mig_rec_u32_get(const struct tcp_conn *conn, size_t i)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)conn + tcp_mig_rec_u32[i], sizeof(v));
	return v;
}

/**
 * tcp_mig_rec_u32_set() - set one of the fields of tcp_mig_rec_u32[]
 * @conn:	connection
 * @i:		index in tcp_mig_rec_u32[]
 * @v:		value
 */
static void tcp_mig_rec_u32_set(struct tcp_conn *conn, size_t i, uint32_t v)
{
	memcpy((uint8_t *)conn + tcp_mig_rec_u32[i], &v, sizeof(v));
}

/**
 * tcp_mig_put_addr() - encode an address and a port
 * @b:		fields
 * @a:		address
 * @port:	port
 */
static void tcp_mig_put_addr(struct mig_buf *b, const union inany_addr *a,
			     uint16_t port)
{
	mig_put_bytes(b, a, sizeof(*a));
	mig_put_u16(b, port);
}

/**
 * tcp_mig_put_state() - encode a socket's kernel state
 * @b:		fields
 * @st:		state
 */
static void tcp_mig_put_state(struct mig_buf *b,
			      const struct tcp_repair_state *st)
{
	const uint32_t v[] = {
		st->mss, st->timestamp, st->snd_wl1, st->snd_wnd,
		st->max_window, st->rcv_wnd, st->rcv_wup, st->snd_seq,
		st->rcv_seq, st->sndq, st->notsent, st->rcvq, st->sndbuf,
		st->rcvbuf, st->wnd_clamp,
	};
	size_t i;

	mig_put_u8(b, st->state);
	mig_put_u8(b, st->options);
	mig_put_u8(b, st->snd_wscale);
	mig_put_u8(b, st->rcv_wscale);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		mig_put_u32(b, v[i]);
}

/**
 * tcp_mig_rec_put() - write a connection's MIG_REC_TCP_CONN record
 * @o:		stream
 * @conn:	connection
 * @st:		its socket's kernel state
 * @local:	the socket's local address
 * @peer:	its peer's address
 */
void tcp_mig_rec_put(struct mig_out *o, const struct tcp_conn *conn,
		     const struct tcp_repair_state *st,
		     const union sockaddr_inany *local,
		     const union sockaddr_inany *peer)
{
	uint8_t buf[TCP_MIG_CONN_LEN];
	struct mig_buf b = { .p = buf, .size = sizeof(buf) };
	union inany_addr a;
	uint16_t flags = 0, port;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tcp_mig_rec_flags); i++) {
		if (conn->flags & tcp_mig_rec_flags[i].conn)
			flags |= tcp_mig_rec_flags[i].rec;
	}
	if (tcp_repair_fin_received(st))
		flags |= TCP_MIG_F_SOCK_EOF;

	mig_put_u8(&b, conn->v4 ? 4 : 6);
	mig_put_u8(&b, 0);
	mig_put_u16(&b, flags);
	tcp_mig_put_addr(&b, &conn->guest_addr, conn->guest_port);
	tcp_mig_put_addr(&b, &conn->remote_addr, conn->remote_port);
	inany_from_sockaddr(&a, &port, local);
	tcp_mig_put_addr(&b, &a, port);
	inany_from_sockaddr(&a, &port, peer);
	tcp_mig_put_addr(&b, &a, port);
	mig_put_u8(&b, conn->ws_from_guest);
	mig_put_u8(&b, conn->ws_to_guest);
	mig_put_u16(&b, conn->mss);
	for (i = 0; i < ARRAY_SIZE(tcp_mig_rec_u32); i++)
		mig_put_u32(&b, tcp_mig_rec_u32_get(conn, i));
	tcp_mig_put_state(&b, st);
	mig_out_small(o, MIG_REC_TCP_CONN, &b);
}

/**
 * tcp_mig_get_addr() - decode an address and a port
 * @b:		fields
 * @a:		address
 * @port:	port
 */
static void tcp_mig_get_addr(struct mig_buf *b, union inany_addr *a,
			     uint16_t *port)
{
	mig_get_bytes(b, a, sizeof(*a));
	*port = mig_get_u16(b);
}

/**
 * tcp_mig_get_state() - decode a socket's kernel state
 * @b:		fields
 * @st:		filled
 */
static void tcp_mig_get_state(struct mig_buf *b, struct tcp_repair_state *st)
{
	uint32_t *v[] = {
		&st->mss, &st->timestamp, &st->snd_wl1, &st->snd_wnd,
		&st->max_window, &st->rcv_wnd, &st->rcv_wup, &st->snd_seq,
		&st->rcv_seq, &st->sndq, &st->notsent, &st->rcvq, &st->sndbuf,
		&st->rcvbuf, &st->wnd_clamp,
	};
	size_t i;

	st->state = mig_get_u8(b);
	st->options = mig_get_u8(b);
	st->snd_wscale = mig_get_u8(b);
	st->rcv_wscale = mig_get_u8(b);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		*v[i] = mig_get_u32(b);
}

/**
 * tcp_mig_rec_get() - decode a MIG_REC_TCP_CONN record
 * @b:		its fields
 * @r:		filled
 */
void tcp_mig_rec_get(struct mig_buf *b, struct tcp_mig_rec *r)
{
	struct tcp_conn *c = &r->c;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->af = mig_get_u8(b);
	mig_get_u8(b);
	r->flags = mig_get_u16(b);
	tcp_mig_get_addr(b, &r->key.guest_addr, &r->key.guest_port);
	tcp_mig_get_addr(b, &r->key.remote_addr, &r->key.remote_port);
	r->key.proto = IPPROTO_TCP;
	tcp_mig_get_addr(b, &r->local, &r->local_port);
	tcp_mig_get_addr(b, &r->peer, &r->peer_port);
	c->ws_from_guest = mig_get_u8(b);
	c->ws_to_guest = mig_get_u8(b);
	c->mss = mig_get_u16(b);
	for (i = 0; i < ARRAY_SIZE(tcp_mig_rec_u32); i++)
		tcp_mig_rec_u32_set(c, i, mig_get_u32(b));
	tcp_mig_get_state(b, &r->st);
}

/**
 * tcp_mig_addrs_ok() - do the record's addresses make sense?
 * @r:		record
 *
 * Return: NULL if they do, what is wrong otherwise
 */
static const char *tcp_mig_addrs_ok(const struct tcp_mig_rec *r)
{
	const union inany_addr *a[] = { &r->key.guest_addr,
					&r->key.remote_addr, &r->local,
					&r->peer };
	size_t i;

	if (r->af != 4 && r->af != 6)
		return "address family neither 4 nor 6";
	for (i = 0; i < ARRAY_SIZE(a); i++) {
		if (!!inany_v4(a[i]) != (r->af == 4))
			return "address of the other family";
		if (inany_is_unspecified(a[i]))
			return "unspecified address";
	}
	if (!r->key.guest_port || !r->key.remote_port || !r->local_port ||
	    !r->peer_port)
		return "port 0";
	if (IN6_IS_ADDR_MULTICAST(&r->peer.a6) ||
	    (r->af == 4 && IN_MULTICAST(ntohl(inany_v4(&r->peer)->s_addr))))
		return "multicast peer";
	return NULL;
}

/**
 * tcp_mig_rec_check() - is a connection record consistent?
 * @r:		record
 *
 * Return: NULL if it is, what is wrong otherwise
 */
const char *tcp_mig_rec_check(const struct tcp_mig_rec *r)
{
	const struct tcp_conn *c = &r->c;
	bool fin_sent = r->flags & TCP_MIG_F_FIN_SENT;
	const char *why = tcp_mig_addrs_ok(r);

	if (why)
		return why;
	if (r->flags & ~TCP_MIG_F_ALL)
		return "unknown flags";
	if (c->ws_from_guest > TCP_WS_MAX || c->ws_to_guest > TCP_WS_MAX ||
	    !c->mss ||
	    c->wnd_from_guest > (65535U << TCP_WS_MAX))
		return "window scale, segment size or window out of range";
	if (SEQ_GT(c->seq_acked, c->seq_to_guest) ||
	    SEQ_GT(c->seq_to_guest, c->seq_max_sent))
		return "sequence numbers toward the guest out of order";
	if (c->seq_max_sent - c->seq_acked > r->st.rcvq + fin_sent)
		return "more data in flight to the guest than queued";
	if (((r->flags & TCP_MIG_F_FIN_ACKED) && !fin_sent) ||
	    (fin_sent && !(r->flags & TCP_MIG_F_SOCK_EOF)))
		return "FIN flags inconsistent";
	if (!!(r->flags & TCP_MIG_F_SOCK_EOF) !=
	    tcp_repair_fin_received(&r->st) ||
	    !!(r->flags & TCP_MIG_F_GUEST_FIN) != tcp_repair_fin_sent(&r->st))
		return "FIN flags and socket state disagree";
	if (c->rto_ms < TCP_RTO_MIN_MS || c->rto_ms > TCP_RTO_MAX_MS)
		return "retransmission timeout out of range";
	if (!tcp_repair_state_valid(&r->st))
		return "socket state out of range";
	return NULL;
}

/**
 * tcp_mig_rec_to_conn() - our state toward the guest, from a record
 * @r:		record, checked (tcp_mig_rec_check())
 * @conn:	new connection, its flow's addresses and sequences set
 */
void tcp_mig_rec_to_conn(const struct tcp_mig_rec *r, struct tcp_conn *conn)
{
	size_t i;

	conn->v4 = r->af == 4;
	conn->guest_addr = r->key.guest_addr;
	conn->remote_addr = r->key.remote_addr;
	conn->guest_port = r->key.guest_port;
	conn->remote_port = r->key.remote_port;
	conn->ws_from_guest = r->c.ws_from_guest;
	conn->ws_to_guest = r->c.ws_to_guest;
	conn->mss = r->c.mss;
	for (i = 0; i < ARRAY_SIZE(tcp_mig_rec_u32); i++)
		tcp_mig_rec_u32_set(conn, i, tcp_mig_rec_u32_get(&r->c, i));
	for (i = 0; i < ARRAY_SIZE(tcp_mig_rec_flags); i++) {
		if (r->flags & tcp_mig_rec_flags[i].rec)
			tcp_conn_mig_flags(conn, tcp_mig_rec_flags[i].conn);
	}
	if (r->flags & TCP_MIG_F_SOCK_EOF)
		tcp_conn_sock_eof(conn);
}
