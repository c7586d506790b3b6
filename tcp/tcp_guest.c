// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_guest.c - TCP segments from the guest
 *
 * Theory of operation
 *
 * net/ hands every TCP segment from the guest to tcp_guest_input(), with
 * its addresses and a length it has checked against the frame. The
 * segment's flow is found by hashed lookup of its addresses and ports as
 * the guest sees them. A SYN for an unknown flow opens a host socket and
 * starts a non-blocking connect(); the guest gets its SYN-ACK only once
 * the host connection is up, or a RST if it fails, so that a refused
 * connection is refused in the guest at once. A local peer usually
 * completes the handshake within connect(): a second connect() call tells
 * at once, and the SYN-ACK leaves in the same batch as the SYN
 * (tcp_connect_check()).
 *
 * For established connections, each segment does three things:
 * - its ACK moves the left edge of what the guest has: acknowledged bytes
 *   are counted for dropping from the socket at the end of the batch,
 *   and the flow is woken in qdisc/ if its window opened; three duplicate
 *   ACKs resend the first unacknowledged segment (fast retransmission,
 *   then NewReno recovery: tcp_retransmit_first());
 * - its payload, if in order, is written to the socket; what the socket
 *   does not take is not acknowledged, and the guest sends it again. A
 *   batch ending in a segment without PSH (the guest has more right
 *   behind it) is written with MSG_MORE, so that the kernel sends the
 *   host whole segments rather than one per batch (tcp_wq_more());
 * - its FIN shuts down the socket's writing side.
 * ACKs to the guest are not sent per segment but once per connection at
 * the end of the batch (tcp_defer_handler()), carrying the window; or on
 * the data or FIN segment the flow's next turn sends, if the socket has
 * something queued for the guest (tcp_ack_rides() in tcp.c).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_pace.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: connections the guest opens, its data, its
 * FIN
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SOCKET("a guest's connection, IPv4", AF_INET, SOCK_STREAM,
			 IPPROTO_TCP),
	 SYSCALLS_SOCKET("a guest's connection, IPv6", AF_INET6,
			 SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_CALL("bind", "its source address, if configured"),
	 SYSCALLS_SETSOCKOPT("SO_BINDTODEVICE, for -o / --outbound-if",
			     SOL_SOCKET),
	 SYSCALLS_CALL("connect", "to where the guest connects"),
	 SYSCALLS_CALL("sendmsg", "the guest's data"),
	 SYSCALLS_CALL("shutdown", "the guest's FIN"),
	 SYSCALLS_CALL("close", "a socket that failed to connect"));

/* Guest segments queued for one sendmsg() per connection per batch */
#define TCP_WQ_MAX		1024

/**
 * struct tcp_wq_entry - payload of one guest segment, waiting to be written
 * @flow:	connection's flow index, FLOW_IDX_NONE if purged
 * @iov:	payload, inside the guest's frame
 */
struct tcp_wq_entry {
	uint32_t flow;
	struct iovec iov;
};

static struct tcp_wq_entry tcp_wq[TCP_WQ_MAX];
static unsigned int tcp_wq_count;

/**
 * struct tcp_syn_opts - options of a SYN segment we care about
 * @mss:	maximum segment size, 0 if absent
 * @ws:		window scale shift, -1 if absent
 * @sack:	SACK permitted
 */
struct tcp_syn_opts {
	uint16_t mss;
	int ws;
	bool sack;
};

/**
 * tcp_parse_syn_opts() - read MSS, window scale and SACK-permitted options
 * @th:		TCP header, as found in the frame (options follow it)
 * @hlen:	header length including options, checked by the caller
 * @o:		output
 */
static void tcp_parse_syn_opts(const struct tcphdr *th, size_t hlen,
			       struct tcp_syn_opts *o)
{
	const uint8_t *p = (const uint8_t *)th + TCP_HDR_LEN;
	size_t len = hlen - TCP_HDR_LEN;

	o->mss = 0;
	o->ws = -1;
	o->sack = false;

	while (len) {
		uint8_t kind = p[0], olen;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			p++;
			len--;
			continue;
		}
		if (len < 2)
			break;
		olen = p[1];
		if (olen < 2 || olen > len)
			break;

		if (kind == TCPOPT_MAXSEG && olen == TCPOLEN_MAXSEG)
			o->mss = (uint16_t)(p[2] << 8 | p[3]);
		else if (kind == TCPOPT_WINDOW && olen == TCPOLEN_WINDOW)
			o->ws = MIN(p[2], TCP_WS_MAX);
		else if (kind == TCPOPT_SACK_PERMITTED &&
			 olen == TCPOLEN_SACK_PERMITTED)
			o->sack = true;

		p += olen;
		len -= olen;
	}
}

/* Secret of tcp_isn(), drawn at start-up: no getrandom() at run time */
static uint64_t tcp_isn_secret;

/**
 * tcp_guest_init() - draw the secret of the initial sequence numbers, and
 *		      have the core drop a closing connection's queued data
 * @now_ms:	current time, if getrandom() fails
 */
void tcp_guest_init(uint64_t now_ms)
{
	static const struct tcp_conn_hooks hooks = {
		.queue_drop = tcp_wq_purge,
	};

	tcp_conn_register(&hooks);
	if (getrandom(&tcp_isn_secret, sizeof(tcp_isn_secret), 0) !=
	    (ssize_t)sizeof(tcp_isn_secret))
		tcp_isn_secret = now_ms * 0x9e3779b97f4a7c15ULL;
}

/**
 * tcp_isn() - initial sequence number toward the guest (RFC 6528 style)
 * @conn:	connection, addresses and ports filled in
 * @now_ms:	current time
 *
 * Return: sequence number
 */
uint32_t tcp_isn(const struct tcp_conn *conn, uint64_t now_ms)
{
	uint64_t h;
	int i;

	h = tcp_isn_secret ^
	    ((uint64_t)conn->guest_port << 16 | conn->remote_port);
	for (i = 0; i < 4; i++) {
		h ^= conn->guest_addr.u32[i] + ((uint64_t)
		     conn->remote_addr.u32[i] << 32);
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}

	/* Plus a clock ticking every 4 microseconds */
	return (uint32_t)(h ^ (h >> 32)) + (uint32_t)(now_ms * 250);
}

/**
 * tcp_mss_for_guest() - payload size for segments to the guest
 * @c:		execution context
 * @v4:		IPv4 connection
 * @guest_mss:	MSS the guest announced, 0 if none
 *
 * Return: segment payload size
 */
static uint16_t tcp_mss_for_guest(const struct ctx *c, bool v4,
				  uint16_t guest_mss)
{
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT;
	unsigned int ours = mtu - (v4 ? 20 : 40) - TCP_HDR_LEN;

	if (!guest_mss)
		guest_mss = v4 ? TCP_MSS_DEFAULT4 : TCP_MSS_DEFAULT6;

	return (uint16_t)MIN(MIN(ours, guest_mss), 65535U);
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
 * tcp_connect_check() - see at once if a host connect() completed
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING, connect() just returned
 *		EINPROGRESS
 * @sa:		address connect() was given
 * @sl:		its length
 * @now_ms:	current time
 *
 * To a local peer (loopback), the kernel usually completes the handshake
 * before connect() returns, or right after it (the SYN-ACK is processed
 * as the socket is released). Calling connect() again tells, without
 * waiting: 0 (or EISCONN) if the connection is up, EALREADY if it is
 * still in progress, or its error. Only then is the socket added to the
 * epoll set, with EPOLLOUT only if completion is still to come: a
 * connection that is already up gets its SYN-ACK now, without a round
 * through epoll_wait(), and without changing the epoll mask later.
 */
static void tcp_connect_check(const struct ctx *c, struct tcp_conn *conn,
			      const union sockaddr_inany *sa, socklen_t sl,
			      uint64_t now_ms)
{
	int error = 0;
	bool up;

	if (connect(conn->sock, &sa->sa, sl))
		error = errno;
	up = !error || error == EISCONN;

	if (!up && error != EALREADY && error != EINPROGRESS) {
		tcp_connect_done(c, conn, error, now_ms);
		return;
	}

	error = -tcp_epoll_add(c, conn, !up);
	if (error) {
		warn_rl("TCP flow %u: can't add socket to epoll set: %s",
			conn->flow, strerror(error));
		tcp_stats.conns_refused++;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return;
	}

	if (up)
		tcp_connect_done(c, conn, 0, now_ms);
	else
		tcp_timer_arm(conn, now_ms, TCP_CONNECT_TIMEOUT_MS);
}

/**
 * tcp_guest_dst_unicast() - tell if a SYN's destination can be connected to
 * @addr:	destination address of the SYN
 *
 * Return: false for a multicast or the IPv4 broadcast address, else true
 */
static bool tcp_guest_dst_unicast(const union inany_addr *addr)
{
	const struct in_addr *a4 = inany_v4(addr);

	if (IN6_IS_ADDR_MULTICAST(&addr->a6))
		return false;
	return !(a4 && (IN_MULTICAST(ntohl(a4->s_addr)) ||
			a4->s_addr == INADDR_BROADCAST));
}

/**
 * tcp_guest_sock_bind() - bind a new socket to the outbound address and
 *			   interface, if configured
 * @c:		execution context
 * @s:		socket
 * @v4:		IPv4 socket, else IPv6
 *
 * Failures are logged for debugging only: the connection goes ahead.
 */
static void tcp_guest_sock_bind(const struct ctx *c, int s, bool v4)
{
	if (v4 && c->ip4.outbound.s_addr != htonl(INADDR_ANY)) {
		struct sockaddr_in b = { .sin_family = AF_INET,
					 .sin_addr = c->ip4.outbound };

		if (bind(s, (struct sockaddr *)&b, sizeof(b)))
			debug_perror("TCP: bind to outbound address");
	} else if (!v4 && !IN6_IS_ADDR_UNSPECIFIED(&c->ip6.outbound)) {
		struct sockaddr_in6 b = { .sin6_family = AF_INET6,
					  .sin6_addr = c->ip6.outbound };

		if (bind(s, (struct sockaddr *)&b, sizeof(b)))
			debug_perror("TCP: bind to outbound address");
	}
	if (*(v4 ? c->ip4.outbound_if : c->ip6.outbound_if)) {
		const char *ifn = v4 ? c->ip4.outbound_if : c->ip6.outbound_if;

		if (setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifn,
			       strlen(ifn)))
			debug_perror("TCP: SO_BINDTODEVICE %s", ifn);
	}
}

/**
 * tcp_guest_sock_open() - open the host socket for a guest's connection
 * @c:		execution context
 * @key:	flow key of the new connection
 * @th:		TCP header of the SYN, to reset the connection on failure
 * @v4:		IPv4 connection, else IPv6
 * @now_ms:	current time
 *
 * Out of descriptors, a half-open connection, or else an idle UDP or echo
 * flow, is evicted to free one. On failure, the guest gets a RST.
 *
 * Return: socket, with its options set and bound, or -1 on failure
 */
static int tcp_guest_sock_open(const struct ctx *c, const struct flow_key *key,
			       const struct tcphdr *th, bool v4,
			       uint64_t now_ms)
{
	int s;

	do {
		s = socket(v4 ? AF_INET : AF_INET6,
			   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			   IPPROTO_TCP);
		/* Out of descriptors: an evicted flow may give one */
	} while (s < 0 && (errno == EMFILE || errno == ENFILE) &&
		 tcp_make_room(c, now_ms));
	if (s < 0) {
		if (errno == EMFILE || errno == ENFILE)
			tcp_limit_warn(c, TCP_LIMIT_NOFILE, now_ms);
		else
			warn_perror_rl("TCP: can't open a socket for a guest"
				       " connection");
		tcp_stats.conns_refused++;
		tcp_send_rst_unknown(c, &key->guest_addr, &key->remote_addr,
				     th, 0);
		return -1;
	}
	tcp_sock_opts(c, s);
	tcp_guest_sock_bind(c, s, v4);
	return s;
}

/**
 * tcp_guest_conn_init() - fill in a new connection from the guest's SYN
 * @c:		execution context
 * @conn:	new connection
 * @key:	its flow key
 * @th:		TCP header of the SYN (aligned copy)
 * @th_frame:	TCP header in the frame, followed by its options
 * @hlen:	header length
 * @now_ms:	current time
 *
 * Sets addresses, ports, the options the guest offered, the initial
 * sequence numbers, and the state CONN_CONNECTING.
 */
static void tcp_guest_conn_init(const struct ctx *c, struct tcp_conn *conn,
				const struct flow_key *key,
				const struct tcphdr *th,
				const struct tcphdr *th_frame, size_t hlen,
				uint64_t now_ms)
{
	bool v4 = inany_v4(&key->remote_addr) != NULL;
	struct tcp_syn_opts opts;

	conn->v4 = v4;
	conn->guest_addr = key->guest_addr;
	conn->remote_addr = key->remote_addr;
	conn->guest_port = key->guest_port;
	conn->remote_port = key->remote_port;

	tcp_parse_syn_opts(th_frame, hlen, &opts);
	if (opts.ws >= 0) {
		conn->ws_from_guest = (uint8_t)opts.ws;
		conn->ws_to_guest = TCP_WS_OURS;
	}
	if (opts.sack)
		tcp_conn_sack_on(conn);
	conn->mss = tcp_mss_for_guest(c, v4, opts.mss);
	conn->wnd_from_guest = ntohs(th->window);
	conn->seq_from_guest = ntohl(th->seq) + 1;
	conn->seq_isn = tcp_isn(conn, now_ms);
	conn->seq_acked = conn->seq_isn;
	conn->seq_to_guest = conn->seq_acked + 1;
	conn->seq_max_sent = conn->seq_to_guest;
	tcp_conn_state(conn, CONN_CONNECTING);
}

/**
 * tcp_guest_connect() - start the host connect() of a guest's connection
 * @c:		execution context
 * @conn:	connection in CONN_CONNECTING, in the flow table
 * @host_dst:	destination address on the host, after NAT
 * @port:	destination port
 * @now_ms:	current time
 *
 * If connect() fails at once, the guest gets a RST and the connection is
 * closed; else tcp_connect_check() sees if it is already up.
 */
static void tcp_guest_connect(const struct ctx *c, struct tcp_conn *conn,
			      const union inany_addr *host_dst,
			      uint16_t port, uint64_t now_ms)
{
	union sockaddr_inany sa;
	socklen_t sl;

	sl = sockaddr_from_inany(&sa, host_dst, port,
				 nat_host_scope(c, host_dst));
	if (connect(conn->sock, &sa.sa, sl) && errno != EINPROGRESS) {
		char buf[INANY_STRLEN];

		debug("TCP: connect to %s:%u failed: %s",
		      inany_ntop(host_dst, buf), port, strerror(errno));
		tcp_stats.conns_refused++;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, false);
		return;
	}

	if (log_get_level() >= LOG_DEBUG) {
		char hb[INANY_STRLEN];

		flow_log(conn->flow, "host socket connects to [%s]:%u",
			 inany_ntop(host_dst, hb), port);
	}
	tcp_stats.conns_out++;
	tcp_halfopen_add(conn);
	tcp_connect_check(c, conn, &sa, sl, now_ms);
}

/**
 * tcp_conn_from_guest() - SYN from the guest: connect on the host
 * @c:		execution context
 * @key:	flow key of the new connection
 * @th:		TCP header of the SYN (aligned copy)
 * @th_frame:	TCP header in the frame, followed by its options
 * @hlen:	header length
 * @now_ms:	current time
 */
static void tcp_conn_from_guest(const struct ctx *c, const struct flow_key *key,
				const struct tcphdr *th,
				const struct tcphdr *th_frame, size_t hlen,
				uint64_t now_ms)
{
	union inany_addr host_dst = key->remote_addr;
	bool v4 = inany_v4(&key->remote_addr) != NULL;
	struct tcp_conn *conn;
	int s;

	if (!tcp_guest_dst_unicast(&key->remote_addr))
		return;

	nat_outbound(c, &key->remote_addr, key->remote_port, &host_dst);

	s = tcp_guest_sock_open(c, key, th, v4, now_ms);
	if (s < 0)
		return;

	conn = tcp_conn_new(c, s, false);
	if (!conn && tcp_make_room(c, now_ms))
		conn = tcp_conn_new(c, s, false);
	if (!conn) {
		tcp_limit_warn(c, TCP_LIMIT_FLOWS, now_ms);
		close(s);
		tcp_stats.conns_refused++;
		tcp_send_rst_unknown(c, &key->guest_addr, &key->remote_addr,
				     th, 0);
		return;
	}

	tcp_guest_conn_init(c, conn, key, th, th_frame, hlen, now_ms);

	if (flow_hash_insert(conn->flow, key)) {
		tcp_conn_close(c, conn, false);
		return;
	}

	tcp_guest_connect(c, conn, &host_dst, key->remote_port, now_ms);
}

/**
 * tcp_guest_ack() - process the acknowledgement and window of a segment
 * @conn:	connection
 * @th:		TCP header
 * @plen:	payload length
 * @now_ms:	current time
 */
static void tcp_guest_ack(struct tcp_conn *conn, const struct tcphdr *th,
			  size_t plen, uint64_t now_ms)
{
	uint32_t ack = ntohl(th->ack_seq);
	uint32_t wnd = (uint32_t)ntohs(th->window) << conn->ws_from_guest;
	uint32_t old_wnd = conn->wnd_from_guest, in_flight;
	bool progress = false;

	if (SEQ_GT(ack, conn->seq_acked) && SEQ_LE(ack, conn->seq_max_sent)) {
		uint32_t acked = ack - conn->seq_acked;

		if ((conn->flags & TCP_F_FIN_SENT) &&
		    ack == conn->seq_max_sent) {
			acked--;
			tcp_conn_fin_acked(conn);
		}
		conn->discard += acked;
		conn->seq_acked = ack;
		if (SEQ_GT(ack, conn->seq_to_guest))
			conn->seq_to_guest = ack;
		conn->retries = 0;
		conn->dup_acks = 0;
		if (conn->rtt_ts && SEQ_GE(ack, conn->rtt_seq))
			tcp_rtt_sample(conn, now_ms);
		progress = true;
		tcp_conn_dirty(conn);

		if ((conn->flags & TCP_F_RECOVERY) &&
		    SEQ_LT(ack, conn->seq_recover) &&
		    SEQ_LT(ack, conn->seq_to_guest)) {
			/* Partial acknowledgement: the next hole */
			tcp_stats.fast_retrans++;
			tcp_retransmit_first(conn);
		} else {
			tcp_conn_recovery_end(conn);
		}
	} else if (ack == conn->seq_acked && !plen && wnd == old_wnd &&
		   !th->fin && conn->seq_to_guest != conn->seq_acked) {
		if (++conn->dup_acks == TCP_DUP_ACK_THRESHOLD &&
		    !(conn->flags & TCP_F_RECOVERY)) {
			tcp_stats.fast_retrans++;
			tcp_retransmit_first(conn);
			qdisc_wake(conn->flow);
		}
	}

	conn->wnd_from_guest = wnd;
	if (wnd > conn->wnd_max)
		conn->wnd_max = wnd;
	in_flight = conn->seq_to_guest - conn->seq_acked;

	if (progress) {
		if (in_flight)
			tcp_timer_arm(conn, now_ms, conn->rto_ms);
		else
			timer_cancel(&conn->timer);
	}

	if ((progress || wnd > old_wnd) && !(conn->flags & TCP_F_FIN_SENT))
		qdisc_wake(conn->flow);
}

/**
 * tcp_wq_reset() - a connection has nothing queued any more
 * @conn:	connection
 */
static void tcp_wq_reset(struct tcp_conn *conn)
{
	conn->wq_segs = 0;
	conn->wq_bytes = 0;
	tcp_conn_wq_reset(conn);
}

/**
 * tcp_wq_purge() - forget queued segments of a connection being closed
 * @conn:	connection
 */
void tcp_wq_purge(struct tcp_conn *conn)
{
	unsigned int i;

	tcp_ooo_release(conn);
	if (!conn->wq_segs)
		return;

	for (i = 0; i < tcp_wq_count; i++) {
		if (tcp_wq[i].flow == conn->flow)
			tcp_wq[i].flow = FLOW_IDX_NONE;
	}
	tcp_wq_reset(conn);
}

/**
 * tcp_guest_fin() - the guest's FIN is next in sequence: close our writing
 * @conn:	connection, marked dirty (tcp_conn_dirty()) by the caller
 *
 * If the guest already acknowledged our FIN, both sides are done and the
 * deferred work of this batch closes the socket (tcp_conn_deferred()):
 * close() sends the FIN that shutdown() would, so it is not called.
 */
static void tcp_guest_fin(struct tcp_conn *conn)
{
	/* With bytes of a migration source still to write, the FIN goes
	 * after them (tcp_mig_pending_push())
	 */
	if (!(conn->flags & (TCP_F_FIN_ACKED | TCP_F_PENDING)))
		shutdown(conn->sock, SHUT_WR);
	conn->seq_from_guest++;
	tcp_conn_guest_fin(conn);
	flow_log(conn->flow, "FIN from the guest");
}

/**
 * tcp_wq_more() - may the socket wait for more data before sending this?
 * @conn:	connection with queued segments
 *
 * The policy is tcp_pace_more(): the last segment queued came without PSH
 * (TCP_F_WQ_MORE), and the window we advertised takes what completes it.
 *
 * Return: true to write with MSG_MORE
 */
static bool tcp_wq_more(const struct tcp_conn *conn)
{
	return tcp_pace_more(conn->flags & TCP_F_WQ_MORE,
			     conn->seq_ack_sent + conn->wnd_to_guest,
			     conn->seq_from_guest + conn->wq_bytes, conn->mss);
}

/**
 * tcp_wq_flush_conn() - write a connection's queued segments: one sendmsg()
 * @c:		execution context
 * @conn:	connection with queued segments
 */
static void tcp_wq_flush_conn(const struct ctx *c, struct tcp_conn *conn)
{
	struct iovec iov[TCP_WQ_MAX];
	struct msghdr mh = { .msg_iov = iov };
	unsigned int i, n = 0;
	ssize_t sent = 0;

	for (i = 0; i < tcp_wq_count && n < conn->wq_segs; i++) {
		if (tcp_wq[i].flow == conn->flow) {
			iov[n++] = tcp_wq[i].iov;
			tcp_wq[i].flow = FLOW_IDX_NONE;	/* taken */
		}
	}
	mh.msg_iovlen = n;

	/* What a migration source had queued goes first: the guest had a
	 * zero window meanwhile, and sends again what we don't take
	 */
	if ((conn->flags & TCP_F_PENDING) && tcp_mig_pending_push(c, conn)) {
		tcp_wq_reset(conn);
		return;
	}

	if (n) {
		int more = tcp_wq_more(conn) ? MSG_MORE : 0;

		sent = sendmsg(conn->sock, &mh,
			       MSG_DONTWAIT | MSG_NOSIGNAL | more);
		if (sent < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				debug("TCP flow %u: write to host socket: %s",
				      conn->flow, strerror(errno));
				tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
				tcp_conn_close(c, conn, true);
				return;
			}
			sent = 0;
		}
	}

	conn->seq_from_guest += (uint32_t)sent;
	tcp_ooo_flushed(conn);
	if ((size_t)sent < conn->wq_bytes) {
		/* Not acknowledged: the guest sends it again, except what
		 * it knows we hold (SACK), which goes once the socket has
		 * room (tcp_guest_held_push() on EPOLLOUT)
		 */
		tcp_stats.overrun += conn->wq_bytes - (size_t)sent;
		if (!(conn->flags & TCP_F_EPOLLOUT))
			tcp_epoll_set(c, conn, true);
	} else if (conn->flags & TCP_F_WQ_FIN) {
		tcp_guest_fin(conn);
	}

	tcp_wq_reset(conn);
}

/**
 * tcp_guest_ack_now() - write what is queued, acknowledge it at once
 * @c:		execution context
 * @conn:	connection
 * @dup:	a duplicate ACK: same window as before, or the guest would not
 *		count it as a duplicate (a window update is not one)
 */
static void tcp_guest_ack_now(const struct ctx *c, struct tcp_conn *conn,
			      bool dup)
{
	if (conn->wq_segs)
		tcp_wq_flush_conn(c, conn);
	if (conn->state != CONN_ESTABLISHED)
		return;

	if (!dup)
		conn->wnd_to_guest = tcp_wnd_for_guest(c, conn);
	tcp_send_ctrl(c, conn, TH_ACK);
}

/**
 * tcp_input_done() - the frames of a batch are about to be reused: write
 *		      every connection's queued segments now
 * @c:		execution context
 */
void tcp_input_done(const struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < tcp_wq_count; i++) {
		struct tcp_conn *conn;

		if (tcp_wq[i].flow == FLOW_IDX_NONE)
			continue;
		conn = tcp_conn_at(tcp_wq[i].flow);
		if (conn && conn->wq_segs)
			tcp_wq_flush_conn(c, conn);
	}
	tcp_wq_count = 0;
}

/**
 * tcp_wq_add() - queue payload for the connection's next sendmsg()
 * @conn:	connection
 * @data:	payload, valid until tcp_input_done()
 * @len:	its length
 *
 * The caller checked there is room in the queue.
 */
static void tcp_wq_add(struct tcp_conn *conn, const void *data, size_t len)
{
	tcp_wq[tcp_wq_count].flow = conn->flow;
	tcp_wq[tcp_wq_count].iov.iov_base = (void *)data;
	tcp_wq[tcp_wq_count].iov.iov_len = len;
	tcp_wq_count++;
	conn->wq_segs++;
	conn->wq_bytes += (uint32_t)len;
}

/**
 * tcp_guest_held_push() - the socket has room: write held data that
 *			   continues the in-order data
 * @c:		execution context
 * @conn:	connection
 *
 * Held data reported in SACK blocks is not sent again by the guest, so
 * when a full socket refused the in-order data before it, it goes from
 * here. Called on EPOLLOUT, outside of a batch of guest frames.
 */
void tcp_guest_held_push(const struct ctx *c, struct tcp_conn *conn)
{
	struct iovec held[2];
	unsigned int i, nheld;

	if (conn->wq_segs || (conn->flags & (TCP_F_GUEST_FIN | TCP_F_WQ_FIN)) ||
	    tcp_wq_count + 2 > TCP_WQ_MAX ||
	    !tcp_ooo_take(conn, conn->seq_from_guest, held, &nheld))
		return;

	for (i = 0; i < nheld; i++)
		tcp_wq_add(conn, held[i].iov_base, held[i].iov_len);
	tcp_wq_flush_conn(c, conn);
	if (conn->state == CONN_ESTABLISHED) {
		tcp_conn_ack_due(conn);
		tcp_conn_dirty(conn);
	}
}

/**
 * tcp_guest_data_old() - trim what a segment repeats of data already taken
 * @conn:	connection
 * @expected:	next sequence expected from the guest, queued data included
 * @seq:	sequence of the segment, moved to @expected if trimmed
 * @payload:	payload, moved past the trimmed part
 * @plen:	payload length, less the trimmed part
 * @fin:	the segment carries FIN
 * @now_ms:	current time
 *
 * A segment with nothing new gets an ACK at the end of the batch; a
 * keepalive also turns keepalives on for the host socket.
 *
 * Return: true if nothing new is left in the segment, false otherwise
 */
static bool tcp_guest_data_old(struct tcp_conn *conn, uint32_t expected,
			       uint32_t *seq, const uint8_t **payload,
			       size_t *plen, bool fin, uint64_t now_ms)
{
	uint32_t skip;

	if (!SEQ_LT(*seq, expected))
		return false;

	skip = expected - *seq;
	if (skip > *plen || (skip == *plen && !fin)) {
		/* Old data, a window probe or a keepalive: answer with our
		 * current sequence and window
		 */
		if (!*plen && skip == 1)
			tcp_stats.probes_acked++;
		if (tcp_keepalive_is(conn, skip, *plen))
			tcp_keepalive_mirror(conn, now_ms);
		tcp_conn_ack_due(conn);
		tcp_conn_dirty(conn);
		return true;
	}
	*payload += skip;
	*plen -= skip;
	*seq = expected;
	return false;
}

/**
 * tcp_guest_data_queue() - queue in-order payload, and held data after it
 * @c:		execution context
 * @conn:	connection
 * @seq:	sequence of the payload, the next one expected
 * @payload:	payload, inside the guest's frame
 * @plen:	payload length, not zero
 * @fin:	the segment carries FIN
 * @more:	the segment has neither PSH nor FIN: more data follows it
 *
 * A full queue is written out first. Past TCP_ACK_INTERVAL bytes queued
 * (tcp_pace_ack_now()), the data is written and acknowledged at once.
 *
 * Return: true if the segment is fully handled (the connection closed
 *	   meanwhile, or it was acknowledged), false if its FIN and ACK
 *	   are still to be handled
 */
static bool tcp_guest_data_queue(const struct ctx *c, struct tcp_conn *conn,
				 uint32_t seq, const uint8_t *payload,
				 size_t plen, bool fin, bool more)
{
	unsigned int i, nheld = 0;
	struct iovec held[2];

	/* Room for the payload and held data (two pieces) */
	if (tcp_wq_count + 3 > TCP_WQ_MAX)
		tcp_input_done(c);
	if (conn->state == CONN_CLOSED)
		return true;

	tcp_wq_add(conn, payload, plen);

	/* A hole filled: what was held after it goes out too */
	if (!fin)
		tcp_ooo_take(conn, seq + (uint32_t)plen, held, &nheld);
	for (i = 0; i < nheld; i++)
		tcp_wq_add(conn, held[i].iov_base, held[i].iov_len);

	/* Held data may end where the guest pushed: no MSG_MORE then */
	tcp_conn_wq_more(conn, more && !nheld);

	/* Large batches: don't let the guest wait for the end of the
	 * batch, its sending is clocked by our ACKs
	 */
	if (tcp_pace_ack_now(conn->wq_bytes, fin)) {
		tcp_guest_ack_now(c, conn, false);
		return true;
	}
	return false;
}

/**
 * tcp_guest_data() - queue in-order payload for the socket, handle FIN
 * @c:		execution context
 * @conn:	connection
 * @th:		TCP header
 * @payload:	payload, inside the guest's frame
 * @plen:	payload length
 * @now_ms:	current time
 *
 * In-order segments are not written one by one: their payloads are queued
 * (pointing into the frames, which stay valid until tcp_input_done()) and
 * written with one sendmsg() per connection per batch.
 */
static void tcp_guest_data(const struct ctx *c, struct tcp_conn *conn,
			   const struct tcphdr *th, const uint8_t *payload,
			   size_t plen, uint64_t now_ms)
{
	uint32_t expected = conn->seq_from_guest + conn->wq_bytes;
	uint32_t seq = ntohl(th->seq);
	bool fin = th->fin;

	if (conn->flags & (TCP_F_GUEST_FIN | TCP_F_WQ_FIN)) {
		/* Already closed: a repeated FIN or data after it */
		if (plen || fin) {
			tcp_conn_ack_due(conn);
			tcp_conn_dirty(conn);
		}
		return;
	}

	if (tcp_guest_data_old(conn, expected, &seq, &payload, &plen, fin,
			       now_ms))
		return;

	if (seq != expected) {
		/* Out of order: something was lost. Keep what follows the
		 * hole (tcp_ooo.c), and send one duplicate ACK per segment,
		 * right now (RFC 5681, 4.2), so that the guest's fast
		 * retransmission starts after three of them instead of a
		 * timeout
		 */
		if (!fin)
			tcp_ooo_hold(conn, seq, payload, plen);
		if (plen || fin)
			tcp_guest_ack_now(c, conn, true);
		return;
	}

	if (plen && tcp_guest_data_queue(c, conn, seq, payload, plen, fin,
					 !th->psh && !fin))
		return;

	if (fin) {
		if (conn->wq_segs)
			tcp_conn_wq_fin(conn);	/* after the data */
		else
			tcp_guest_fin(conn);
	}

	if (plen || fin) {
		tcp_conn_ack_due(conn);
		tcp_conn_dirty(conn);
	}
}

/**
 * tcp_guest_syn_ack() - the guest answered our SYN (host-started flow)
 * @c:		execution context
 * @conn:	connection in CONN_SYN_SENT
 * @th:		TCP header
 * @hlen:	header length
 * @now_ms:	current time
 */
static void tcp_guest_syn_ack(const struct ctx *c, struct tcp_conn *conn,
			      const struct tcphdr *th,
			      const struct tcphdr *th_frame, size_t hlen,
			      uint64_t now_ms)
{
	struct tcp_syn_opts opts;

	if (!th->syn || !th->ack || ntohl(th->ack_seq) != conn->seq_to_guest) {
		tcp_send_rst_unknown(c, &conn->guest_addr, &conn->remote_addr,
				     th, 0);
		return;
	}

	tcp_parse_syn_opts(th_frame, hlen, &opts);
	if (opts.ws >= 0) {
		conn->ws_from_guest = (uint8_t)opts.ws;
		conn->ws_to_guest = TCP_WS_OURS;
	} else {
		conn->ws_to_guest = 0;
	}
	if (opts.sack)
		tcp_conn_sack_on(conn);
	conn->mss = tcp_mss_for_guest(c, conn->v4, opts.mss);
	conn->wnd_from_guest = ntohs(th->window);
	conn->seq_from_guest = ntohl(th->seq) + 1;
	conn->seq_acked = conn->seq_to_guest;
	tcp_conn_state(conn, CONN_ESTABLISHED);
	conn->retries = 0;
	timer_cancel(&conn->timer);

	tcp_conn_ack_due(conn);
	tcp_conn_dirty(conn);
	qdisc_wake(conn->flow);
	(void)now_ms;
}

/**
 * tcp_guest_input_unknown() - a segment for no known connection
 * @c:		execution context
 * @key:	flow key of the segment
 * @th:		TCP header (aligned copy)
 * @th_frame:	TCP header in the frame, followed by its options
 * @hlen:	header length
 * @plen:	payload length
 * @now_ms:	current time
 *
 * A SYN opens a connection, a RST is ignored, anything else gets a RST.
 */
static void tcp_guest_input_unknown(const struct ctx *c,
				    const struct flow_key *key,
				    const struct tcphdr *th,
				    const struct tcphdr *th_frame, size_t hlen,
				    size_t plen, uint64_t now_ms)
{
	if (th->rst)
		return;
	if (th->syn && !th->ack) {
		if (!key->guest_port || !key->remote_port)
			return;
		tcp_conn_from_guest(c, key, th, th_frame, hlen, now_ms);
		return;
	}
	tcp_stats.rst_unknown++;
	tcp_send_rst_unknown(c, &key->guest_addr, &key->remote_addr, th, plen);
}

/**
 * tcp_guest_input_state() - handshake and SYNs of a known connection
 * @c:		execution context
 * @conn:	connection
 * @key:	flow key of the segment
 * @th:		TCP header (aligned copy), not a RST
 * @th_frame:	TCP header in the frame, followed by its options
 * @hlen:	header length
 * @now_ms:	current time
 *
 * The guest's ACK of our SYN-ACK establishes the connection. A SYN on
 * the ports of a connection the guest closed replaces it.
 *
 * Return: true if the segment's ACK and payload are to be processed
 */
static bool tcp_guest_input_state(const struct ctx *c, struct tcp_conn *conn,
				  const struct flow_key *key,
				  const struct tcphdr *th,
				  const struct tcphdr *th_frame, size_t hlen,
				  uint64_t now_ms)
{
	switch (conn->state) {
	case CONN_CONNECTING:
		return false;	/* SYN retransmitted while we connect */
	case CONN_SYN_SENT:
		tcp_guest_syn_ack(c, conn, th, th_frame, hlen, now_ms);
		return false;
	case CONN_SYN_ACK_SENT:
		if (th->syn && !th->ack) {
			tcp_send_syn(c, conn, true);
			return false;
		}
		if (!th->ack || ntohl(th->ack_seq) != conn->seq_to_guest)
			return false;
		conn->seq_acked = conn->seq_to_guest;
		tcp_conn_state(conn, CONN_ESTABLISHED);
		conn->retries = 0;
		timer_cancel(&conn->timer);
		qdisc_wake(conn->flow);
		return true;
	case CONN_ESTABLISHED:
		if (th->syn && !th->ack &&
		    (conn->flags & (TCP_F_GUEST_FIN | TCP_F_WQ_FIN))) {
			/* A new connection reusing the ports of one that is
			 * closing on our side: the guest is done with the old
			 */
			tcp_conn_close(c, conn, true);
			tcp_conn_from_guest(c, key, th, th_frame, hlen, now_ms);
			return false;
		}
		return !th->syn;
	default:
		return false;
	}
}

/**
 * tcp_guest_input() - a TCP segment from the guest
 * @c:		execution context
 * @saddr:	source address (the guest)
 * @daddr:	destination address
 * @th_frame:	TCP header in the frame, followed by options and payload
 * @l4len:	TCP header and payload length, checked by net/
 * @now_ms:	current time
 */
void tcp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		     const union inany_addr *daddr,
		     const struct tcphdr *th_frame, size_t l4len,
		     uint64_t now_ms)
{
	const struct tcphdr *th;
	struct tcphdr th_copy;
	const uint8_t *payload;
	size_t hlen, plen;
	struct tcp_conn *conn;
	struct flow_key key;
	uint32_t flow;

	/* The header sits at any alignment in the frame: work on a copy */
	memcpy(&th_copy, th_frame, sizeof(th_copy));
	th = &th_copy;
	hlen = (size_t)th->doff * 4;
	if (hlen < TCP_HDR_LEN || hlen > l4len)
		return;
	plen = l4len - hlen;
	payload = (const uint8_t *)th_frame + hlen;

	memset(&key, 0, sizeof(key));
	key.guest_addr = *saddr;
	key.remote_addr = *daddr;
	key.guest_port = ntohs(th->source);
	key.remote_port = ntohs(th->dest);
	key.proto = IPPROTO_TCP;

	flow = flow_lookup(&key);
	conn = flow == FLOW_IDX_NONE ? NULL : tcp_conn_at(flow);

	if (!conn) {
		tcp_guest_input_unknown(c, &key, th, th_frame, hlen, plen,
					now_ms);
		return;
	}

	if (th->rst) {
		debug("TCP flow %u: reset by guest", conn->flow);
		tcp_conn_close(c, conn, true);
		return;
	}

	if (!tcp_guest_input_state(c, conn, &key, th, th_frame, hlen, now_ms))
		return;

	if (th->ack)
		tcp_guest_ack(conn, th, plen, now_ms);

	tcp_guest_data(c, conn, th, payload, plen, now_ms);
	conn->guest_seen_ms = now_ms;
}
