// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_emit.c - TCP segments to the guest
 *
 * Theory of operation
 *
 * Control segments (SYN, SYN-ACK, ACK, FIN, RST) are built in a small
 * buffer and copied into the output queue. Data segments are not: when
 * qdisc/ gives a connection its turn, tcp_pull() takes free frame buffers
 * from the queue, points one iovec at the payload area of each, and reads
 * the socket once with MSG_PEEK into all of them. With SO_PEEK_OFF the
 * kernel keeps the read offset at the end of what is in flight to the
 * guest, so each read returns only new data; the headers are then written
 * in front of each payload, checksummed, and the frames committed. When
 * the backend lends the guest's own receive buffers (vhost-user, frames
 * offloaded), the same read goes into those instead, and the frames
 * built there need no further copy (tcp_pull_lend()).
 *
 * Data stays in the socket until the guest acknowledges it. Retransmission
 * (timeout or three duplicate ACKs) is a rewind: the next sequence goes
 * back to the first unacknowledged byte and the peek offset with it.
 * A read returning 0 means the host peer closed: a FIN follows the data.
 *
 * Pacing: two policies shape a turn, both decided in tcp_pace.c from
 * numbers gathered here, and applied here. The short end of a turn that
 * drained the socket, left there by the host peer's segments being a few
 * bytes longer than the guest's (on loopback), waits for the next turn
 * (tcp_pull_tail(), tcp_pace_tail_end()): the guest's ACK of two full
 * segments brings one, and the guest pays one frame less. And a turn
 * leaves the last quarter of the largest window the guest advertised
 * free (tcp_pace_wnd_room()), so that a Linux guest's window stays open:
 * an opening within that quarter waits for the guest's update, or, with
 * nothing in flight, at most TCP_WND_HOLD_MS; if no update came, the
 * guest keeps its window small now, and the quarter is taken of that
 * window from then on (the timer makes it wnd_max).
 *
 * Lending is no policy: the guest's buffers are used whenever the backend
 * offers them and the frames are offloaded, with SO_PEEK_OFF, as those
 * are the only frames that can be written in place (tcp_pull_lend()).
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_pace.h"
#include "../net/checksum.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../tap/tap.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/idle_trim.h"
#include "../net/frame.h"

/* System calls after start-up: peeking socket data into frames */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("recvmsg", "new data, into frames (MSG_PEEK)"),
	 SYSCALLS_CALL("getsockopt", "the peer's window (TCP_INFO)"));

/* Largest IP payloads: IPv4 total length, IPv6 payload length fields */
#define TCP_IP4_PAYLOAD_MAX	(65535 - 20)
#define TCP_IP6_PAYLOAD_MAX	65535

/* Fallback without SO_PEEK_OFF: in-flight bytes are peeked again into this */
#define TCP_DISCARD_MAX		(8 * 1024 * 1024)
static uint8_t tcp_discard_buf[TCP_DISCARD_MAX];

/**
 * tcp_emit_init() - let the idle hand-back take the discard buffer's pages
 *
 * Peeked bytes land there only to be thrown away, within one call: the
 * buffer never holds anything to keep, so it needs no busy check.
 */
void tcp_emit_init(void)
{
	idle_trim_register(tcp_discard_buf, sizeof(tcp_discard_buf), NULL);
}

/* The guest's receive buffers, when the backend lends them (vhost-user) */
static struct tap_lend tcp_lend;

/**
 * tcp_wnd_field() - window field value toward the guest
 * @conn:	connection
 * @syn:	for a SYN segment (never scaled)
 *
 * Return: window field, host order
 */
static uint16_t tcp_wnd_field(const struct tcp_conn *conn, bool syn)
{
	uint32_t wnd = conn->wnd_to_guest;

	if (!syn)
		wnd >>= conn->ws_to_guest;
	return (uint16_t)MIN(wnd, 65535U);
}

/**
 * tcp_fill_frame() - write all headers of a segment to the guest
 * @c:		execution context
 * @buf:	frame buffer; the payload, if any, already follows the TCP
 *		header and options
 * @src:	source address (remote, as the guest sees it)
 * @dst:	destination address (the guest)
 * @th_in:	TCP header fields (ports, sequence, flags, window) to copy
 * @opts:	options, NULL if none
 * @optlen:	options length, a multiple of 4
 * @plen:	payload length
 * @vh:		offload description to fill, NULL to compute the checksum
 *		here; with it, the checksum is left to the guest's side and
 *		a payload above @mss is segmented there
 * @mss:	segment size, for @vh
 *
 * Return: frame length
 */
static size_t tcp_fill_frame(const struct ctx *c, uint8_t *buf,
			     const union inany_addr *src,
			     const union inany_addr *dst,
			     const struct tcphdr *th_in, const uint8_t *opts,
			     size_t optlen, size_t plen,
			     struct virtio_net_hdr *vh, uint16_t mss)
{
	size_t l4len = TCP_HDR_LEN + optlen + plen, off;
	struct tcphdr th = *th_in;
	struct iovec iov;
	uint8_t *l4;

	/* The header lands at any alignment in the frame: fill a copy */
	th.doff = (uint16_t)((TCP_HDR_LEN + optlen) / 4);
	th.check = 0;
	th.urg_ptr = 0;

	off = net_fill_l2l3(c, buf, src, dst, IPPROTO_TCP, l4len);
	l4 = buf + off;
	memcpy(l4, &th, sizeof(th));
	if (optlen)
		memcpy(l4 + TCP_HDR_LEN, opts, optlen);

	if (vh) {
		/* Partial checksum: the pseudo-header sum, not inverted */
		const struct in_addr *s4 = inany_v4(src), *d4 = inany_v4(dst);
		uint32_t sum = s4 ? csum_pseudo4(*s4, *d4, IPPROTO_TCP, l4len)
				  : csum_pseudo6(&src->a6, &dst->a6,
						 IPPROTO_TCP, l4len);

		th.check = csum_fold(sum);
		memset(vh, 0, sizeof(*vh));
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->csum_start = (uint16_t)off;
		vh->csum_offset = offsetof(struct tcphdr, check);
		if (plen > mss) {
			vh->gso_type = s4 ? VIRTIO_NET_HDR_GSO_TCPV4 :
					    VIRTIO_NET_HDR_GSO_TCPV6;
			vh->gso_size = mss;
			vh->hdr_len = (uint16_t)(off + TCP_HDR_LEN + optlen);
		}
	} else {
		iov.iov_base = l4;
		iov.iov_len = l4len;
		th.check = csum_l4(src, dst, IPPROTO_TCP, &iov, 1, l4len);
	}
	memcpy(l4 + offsetof(struct tcphdr, check), &th.check,
	       sizeof(th.check));

	return off + l4len;
}

/**
 * tcp_hdr_init() - TCP header fields for a connection's segment
 * @conn:	connection
 * @th:		output (zeroed here)
 * @seq:	sequence number
 * @flags:	TH_* flags
 * @syn:	window for a SYN segment
 */
static void tcp_hdr_init(struct tcp_conn *conn, struct tcphdr *th,
			 uint32_t seq, uint8_t flags, bool syn)
{
	memset(th, 0, sizeof(*th));
	th->source = htons(conn->remote_port);
	th->dest = htons(conn->guest_port);
	th->seq = htonl(seq);
	th->th_flags = flags;
	if (flags & TH_ACK) {
		th->ack_seq = htonl(conn->seq_from_guest);
		conn->seq_ack_sent = conn->seq_from_guest;
	}
	th->window = htons(tcp_wnd_field(conn, syn));
}

/**
 * tcp_sack_opt() - SACK option for the data we hold beyond a hole
 * @conn:	connection
 * @opts:	output, TCP_OPT_MAX bytes
 *
 * Return: option bytes written (a multiple of 4), 0 if the guest didn't
 *	   permit SACK or nothing is held
 */
static size_t tcp_sack_opt(const struct tcp_conn *conn, uint8_t *opts)
{
	struct tcp_sack_block blocks[TCP_SACK_BLOCKS_MAX];
	unsigned int i, n;
	uint8_t *p = opts;

	if (!(conn->flags & TCP_F_SACK))
		return 0;
	n = tcp_ooo_sack(conn, blocks, TCP_SACK_BLOCKS_MAX);
	if (!n)
		return 0;

	*p++ = TCPOPT_NOP;
	*p++ = TCPOPT_NOP;
	*p++ = TCPOPT_SACK;
	*p++ = (uint8_t)(2 + n * 8);
	for (i = 0; i < n; i++) {
		uint32_t start = htonl(blocks[i].start);
		uint32_t end = htonl(blocks[i].end);

		memcpy(p, &start, 4);
		memcpy(p + 4, &end, 4);
		p += 8;
	}
	return (size_t)(p - opts);
}

/**
 * tcp_send_ctrl() - send a segment with no payload (ACK, FIN, RST)
 * @c:		execution context
 * @conn:	connection
 * @flags:	TH_* flags
 */
void tcp_send_ctrl(const struct ctx *c, struct tcp_conn *conn, uint8_t flags)
{
	uint8_t buf[L2L3_HDR_MAX + TCP_HDR_LEN + TCP_OPT_MAX];
	uint8_t opts[TCP_OPT_MAX];
	size_t len, optlen = 0;
	struct tcphdr th;

	tcp_hdr_init(conn, &th, conn->seq_to_guest, flags, false);
	if ((flags & TH_ACK) && !(flags & TH_RST))
		optlen = tcp_sack_opt(conn, opts);
	len = tcp_fill_frame(c, buf, &conn->remote_addr, &conn->guest_addr,
			     &th, opts, optlen, 0, NULL, 0);

	/* A FIN must not overtake the data queued before it */
	if (flags & TH_FIN)
		qdisc_send_ordered(c, buf, len);
	else
		qdisc_send(c, buf, len);
	tcp_conn_ack_clear(conn);
}

/**
 * tcp_send_syn() - send our SYN (host-started flow) or SYN-ACK
 * @c:		execution context
 * @conn:	connection
 * @ack:	SYN-ACK, answering the guest's SYN
 */
void tcp_send_syn(const struct ctx *c, struct tcp_conn *conn, bool ack)
{
	uint8_t buf[L2L3_HDR_MAX + TCP_HDR_LEN + TCP_OPT_MAX];
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT;
	uint16_t mss = (uint16_t)MIN(mtu - (conn->v4 ? 20 : 40) - TCP_HDR_LEN,
				     65535U);
	uint8_t opts[12];
	size_t optlen = 4, len;
	struct tcphdr th;

	opts[0] = TCPOPT_MAXSEG;
	opts[1] = TCPOLEN_MAXSEG;
	opts[2] = (uint8_t)(mss >> 8);
	opts[3] = (uint8_t)mss;
	if (conn->ws_to_guest) {
		opts[4] = TCPOPT_NOP;
		opts[5] = TCPOPT_WINDOW;
		opts[6] = TCPOLEN_WINDOW;
		opts[7] = conn->ws_to_guest;
		optlen = 8;
	}
	/* Offered in our SYN, granted in a SYN-ACK if the guest offered */
	if (!ack || (conn->flags & TCP_F_SACK)) {
		opts[optlen++] = TCPOPT_NOP;
		opts[optlen++] = TCPOPT_NOP;
		opts[optlen++] = TCPOPT_SACK_PERMITTED;
		opts[optlen++] = TCPOLEN_SACK_PERMITTED;
	}

	tcp_hdr_init(conn, &th, conn->seq_acked,
		     TH_SYN | (ack ? TH_ACK : 0), true);
	len = tcp_fill_frame(c, buf, &conn->remote_addr, &conn->guest_addr,
			     &th, opts, optlen, 0, NULL, 0);
	qdisc_send(c, buf, len);
}

/**
 * tcp_send_rst_unknown() - answer a segment that has no connection
 * @c:		execution context
 * @saddr:	its source address (guest)
 * @daddr:	its destination address
 * @th:		its TCP header
 * @plen:	its payload length
 */
void tcp_send_rst_unknown(const struct ctx *c, const union inany_addr *saddr,
			  const union inany_addr *daddr,
			  const struct tcphdr *th, size_t plen)
{
	uint8_t buf[L2L3_HDR_MAX + TCP_HDR_LEN];
	struct tcphdr rst;
	size_t len;

	memset(&rst, 0, sizeof(rst));
	rst.source = th->dest;
	rst.dest = th->source;
	if (th->ack) {
		rst.seq = th->ack_seq;
		rst.th_flags = TH_RST;
	} else {
		rst.ack_seq = htonl(ntohl(th->seq) + (uint32_t)plen +
				    th->syn + th->fin);
		rst.th_flags = TH_RST | TH_ACK;
	}

	len = tcp_fill_frame(c, buf, daddr, saddr, &rst, NULL, 0, 0, NULL, 0);
	qdisc_send(c, buf, len);
}

/**
 * tcp_rewind() - go back to the first unacknowledged byte
 * @conn:	connection
 */
void tcp_rewind(struct tcp_conn *conn)
{
	conn->seq_to_guest = conn->seq_acked;
	tcp_conn_sock_readable(conn);
	if ((conn->flags & TCP_F_FIN_SENT) && !(conn->flags & TCP_F_FIN_ACKED))
		tcp_conn_fin_unsent(conn);
	conn->rtt_ts = 0;
	conn->dup_acks = 0;
	tcp_peek_off_reset(conn);
}

/**
 * tcp_retransmit_first() - fast retransmission: resend the first segment
 * @conn:	connection
 *
 * The guest keeps what it received after the hole (Linux always does), so
 * only the segment at the hole is sent again, then sending resumes where
 * it was; fast recovery lasts until everything sent so far is
 * acknowledged, and an acknowledgement short of that (another hole)
 * resends the segment it points at (RFC 6582, NewReno). Once our FIN is
 * out, a plain rewind is simpler and as good.
 */
void tcp_retransmit_first(struct tcp_conn *conn)
{
	if (conn->flags & TCP_F_FIN_SENT) {
		tcp_conn_recovery_end(conn);
		tcp_rewind(conn);
		return;
	}

	conn->seq_resume = conn->seq_to_guest;
	conn->seq_recover = conn->seq_max_sent;
	tcp_conn_recovery_start(conn);
	tcp_rewind(conn);
}

/**
 * tcp_send_fin() - the host peer closed and all its data was sent: FIN
 * @c:		execution context
 * @conn:	connection
 * @now_ms:	current time
 */
static void tcp_send_fin(const struct ctx *c, struct tcp_conn *conn,
			 uint64_t now_ms)
{
	if (conn->seq_to_guest != conn->seq_max_sent &&
	    SEQ_LT(conn->seq_to_guest, conn->seq_max_sent))
		tcp_stats.retrans++;

	tcp_send_ctrl(c, conn, TH_FIN | TH_ACK);
	tcp_conn_fin_sent(conn);
	conn->seq_to_guest++;
	if (SEQ_GT(conn->seq_to_guest, conn->seq_max_sent))
		conn->seq_max_sent = conn->seq_to_guest;
	if (!timer_armed(&conn->timer))
		tcp_timer_arm(conn, now_ms, conn->rto_ms);
}

/**
 * tcp_gso_payload() - payload of one frame when the guest's side segments
 * @conn:	connection
 *
 * Return: the largest multiple of the segment size an IP packet can carry
 */
static size_t tcp_gso_payload(const struct tcp_conn *conn)
{
	size_t max = (conn->v4 ? TCP_IP4_PAYLOAD_MAX : TCP_IP6_PAYLOAD_MAX) -
		     TCP_HDR_LEN;

	if (max < conn->mss)
		return conn->mss;
	return max - max % conn->mss;
}

/**
 * struct tcp_pull - state of one turn of a connection, passed between phases
 * @iov:	the discard buffer (without SO_PEEK_OFF), then frame payloads
 * @in_flight:	bytes sent to the guest and not acknowledged yet
 * @room:	bytes the guest's window still takes
 * @want:	bytes this turn reads at most
 * @seg:	payload of one frame
 * @frames:	frame buffers this turn fills at most
 * @skip:	1 if @iov starts with the discard buffer, else 0
 * @offload:	the guest's side checksums and segments (tap_offload())
 * @hdrlen:	bytes of headers in front of each payload
 * @lend:	the guest's buffers the frames are written in, NULL if they
 *		are built in the output queue
 */
struct tcp_pull {
	struct iovec iov[TCP_FRAMES_PER_PULL + 1];
	uint32_t in_flight;
	size_t room;
	size_t want;
	size_t seg;
	size_t frames;
	int skip;
	bool offload;
	size_t hdrlen;
	struct tap_lend *lend;
};

/**
 * tcp_pull_budget() - how much this turn may send: window, qdisc budget
 * @c:		execution context
 * @conn:	established connection, FIN not sent
 * @budget:	bytes this turn may send
 * @now_ms:	current time
 * @p:		pull state: @in_flight, @room, @offload, @seg, @hdrlen,
 *		@want and @frames are set here
 * @res:	what the turn returns, if nothing may be sent
 *
 * A zero window arms the persist timer.
 *
 * Return: true if at least one frame may be sent, false if not (@res set)
 */
static bool tcp_pull_budget(const struct ctx *c, struct tcp_conn *conn,
			    size_t budget, uint64_t now_ms, struct tcp_pull *p,
			    enum qdisc_pull_result *res)
{
	p->in_flight = conn->seq_to_guest - conn->seq_acked;
	if (p->in_flight >= conn->wnd_from_guest) {
		if (!conn->wnd_from_guest && !timer_armed(&conn->timer))
			tcp_timer_arm(conn, now_ms, TCP_PERSIST_MS);
		*res = QDISC_DONE;
		return false;
	}
	p->room = tcp_pace_wnd_room(conn->wnd_from_guest - p->in_flight,
				    conn->wnd_max,
				    conn->flags & TCP_F_RETX_ONE);
	if (!p->room) {
		/* The guest's next window update ends the wait, or, with
		 * nothing in flight to acknowledge, the timer does
		 */
		if (!p->in_flight && !timer_armed(&conn->timer))
			tcp_timer_arm(conn, now_ms, TCP_WND_HOLD_MS);
		tcp_conn_wnd_hold_start(conn);
		*res = QDISC_DONE;
		return false;
	}
	if ((conn->flags & TCP_F_WND_HELD) && !p->in_flight)
		timer_cancel(&conn->timer);
	tcp_conn_wnd_hold_end(conn);

	p->offload = tap_offload(c);
	p->seg = p->offload ? tcp_gso_payload(conn) : conn->mss;
	p->hdrlen = net_l2l3_len(&conn->remote_addr) + TCP_HDR_LEN;

	p->want = MIN(p->room, budget);
	if (conn->flags & TCP_F_RETX_ONE)
		p->want = MIN(p->want, p->seg);
	p->frames = MIN(DIV_ROUND_UP(p->want, p->seg), qdisc_frames_avail());
	p->frames = MIN(p->frames, (size_t)TCP_FRAMES_PER_PULL);
	if (!p->frames) {
		*res = QDISC_MORE;
		return false;
	}
	p->want = MIN(p->want, p->frames * p->seg);
	return true;
}

/**
 * tcp_lend_trim() - cut the lent payload areas down to what a turn reads
 * @l:		lent buffers, a payload of @seg bytes for each frame
 * @want:	bytes this turn reads at most
 *
 * Return: number of payload areas to read into
 */
static size_t tcp_lend_trim(struct tap_lend *l, size_t want)
{
	size_t i, end = l->first[l->frames];

	for (i = 0; i < end && want; i++) {
		if (l->iov[i].iov_len >= want) {
			l->iov[i].iov_len = want;
			return i + 1;
		}
		want -= l->iov[i].iov_len;
	}
	return i;
}

/**
 * tcp_pull_iov() - where the peek writes: lent buffers or frame buffers
 * @conn:	connection
 * @p:		pull state from tcp_pull_budget(); @iov and @skip set here
 * @mh:		message header, its iov set here
 *
 * Without SO_PEEK_OFF, what is in flight (and what was acknowledged but
 * not dropped from the socket yet) is read again into the discard buffer
 * first.
 *
 * Return: 0 on success, -1 if that is more than the discard buffer holds
 */
static int tcp_pull_iov(const struct tcp_conn *conn, struct tcp_pull *p,
			struct msghdr *mh)
{
	size_t i;

	p->skip = 0;
	if (p->lend) {
		mh->msg_iov = p->lend->iov;
		mh->msg_iovlen = tcp_lend_trim(p->lend, p->want);
		return 0;
	}

	if (!tcp_peek_off_supported()) {
		if (p->in_flight + (size_t)conn->discard > TCP_DISCARD_MAX)
			return -1;
		p->iov[0].iov_base = tcp_discard_buf;
		p->iov[0].iov_len = p->in_flight + conn->discard;
		p->skip = 1;
	}

	for (i = 0; i < p->frames; i++) {
		p->iov[p->skip + i].iov_base = qdisc_frame_buf(i) + p->hdrlen;
		p->iov[p->skip + i].iov_len = MIN(p->seg, p->want - i * p->seg);
	}
	mh->msg_iov = p->iov;
	mh->msg_iovlen = p->frames + (size_t)p->skip;
	return 0;
}

/**
 * tcp_pull_peek() - read new socket data, without taking it, into frames
 * @c:		execution context
 * @conn:	connection
 * @p:		pull state from tcp_pull_budget(); @iov and @skip set here
 *
 * A read error resets the connection.
 *
 * Return: bytes of new data in the frame buffers, 0 at end of file,
 *	   negative if the turn is over (nothing to read, or an error)
 */
static ssize_t tcp_pull_peek(const struct ctx *c, struct tcp_conn *conn,
			     struct tcp_pull *p)
{
	struct msghdr mh;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	if (tcp_pull_iov(conn, p, &mh))
		return -1;

	n = recvmsg(conn->sock, &mh, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
	    (conn->flags & TCP_F_SOCK_EOF) && !p->skip) {
		/* A socket restored after a migration never saw the peer's
		 * FIN (tcp_repair.c): once its data is out, the FIN follows
		 */
		n = 0;
	} else if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			if (!p->skip)	/* see tcp_pull_drained() */
				tcp_conn_sock_drained(conn);
			return -1;
		}
		debug("TCP flow %u: read from host socket: %s", conn->flow,
		      strerror(errno));
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return -1;
	}

	if (p->skip) {
		if ((size_t)n < p->iov[0].iov_len)
			n = 0;
		else
			n -= (ssize_t)p->iov[0].iov_len;
	}
	return n;
}

/**
 * tcp_host_seg() - payload of the host peer's full segments
 * @conn:	connection
 *
 * Read once per connection, at its first short end (tcp_pull_tail()): two
 * segments have been peeked by then, so the socket has measured the peer's
 * full ones.
 *
 * Return: bytes, 0 if unknown
 */
static uint16_t tcp_host_seg(struct tcp_conn *conn)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	if (!conn->host_seg) {
		conn->host_seg = UINT16_MAX;	/* read once, even on error */
		if (!getsockopt(conn->sock, IPPROTO_TCP, TCP_INFO, &ti, &sl) &&
		    sl >= offsetof(struct tcp_info, tcpi_rcv_mss) +
			  sizeof(ti.tcpi_rcv_mss) &&
		    ti.tcpi_rcv_mss && ti.tcpi_rcv_mss < UINT16_MAX)
			conn->host_seg = (uint16_t)ti.tcpi_rcv_mss;
	}
	return conn->host_seg == UINT16_MAX ? 0 : conn->host_seg;
}

/**
 * tcp_pull_tail() - bytes of a turn's peek to send now, the short end of it
 *		     left for the next turn (tcp_pace_tail_end())
 * @conn:	connection
 * @p:		pull state from tcp_pull_peek()
 * @n:		bytes peeked, more than zero
 *
 * The host peer's segment size is read only for an end that may wait. The
 * next peek reads a held end again, as SO_PEEK_OFF is moved back to it
 * (tcp_pull_data()).
 *
 * Return: bytes to send, @n or less
 */
static size_t tcp_pull_tail(struct tcp_conn *conn, const struct tcp_pull *p,
			    size_t n)
{
	const struct tcp_pace_tail t = {
		.n = n,
		.want = p->want,
		.seg = p->seg,
		.in_flight = p->in_flight,
		.held = conn->tail_held,
		.peek_off = !p->skip && (conn->flags & TCP_F_PEEK_OFF),
		.resend = (conn->flags & TCP_F_RETX_ONE) ||
			  conn->seq_to_guest != conn->seq_max_sent,
		.eof = conn->flags & TCP_F_SOCK_EOF,
	};
	size_t tail = tcp_pace_tail_end(&t);

	if (tail)
		tail = tcp_pace_tail_hold(&t, tail, tcp_host_seg(conn));
	return n - tail;
}

/**
 * tcp_pull_frame() - write the headers of each segment and commit the frames
 * @c:		execution context
 * @conn:	connection; its sequence toward the guest is not moved here
 * @p:		pull state from tcp_pull_peek()
 * @n:		bytes peeked into the frame buffers, more than zero
 * @frames:	set to the number of frames committed
 *
 * The last segment carries PSH. A lent frame the guest can't take (its
 * queue stopped meanwhile) ends the turn there.
 *
 * Return: bytes of payload the committed frames carry, @n unless a lent
 *	   frame was refused
 */
static size_t tcp_pull_frame(const struct ctx *c, struct tcp_conn *conn,
			     const struct tcp_pull *p, size_t n,
			     size_t *frames)
{
	size_t i, sent;

	for (i = 0, sent = 0; sent < n; i++) {
		size_t plen = MIN(p->seg, n - sent);
		uint8_t *buf = p->lend ? p->lend->hdr[i] : qdisc_frame_buf(0);
		struct virtio_net_hdr vh;
		struct tcphdr th;
		uint8_t flags = TH_ACK;
		size_t len;

		if (sent + plen == n)
			flags |= TH_PUSH;

		tcp_hdr_init(conn, &th, conn->seq_to_guest + (uint32_t)sent,
			     flags, false);
		len = tcp_fill_frame(c, buf, &conn->remote_addr,
				     &conn->guest_addr, &th, NULL, 0, plen,
				     p->offload ? &vh : NULL, conn->mss);
		if (p->lend) {
			if (!qdisc_lend_commit(c, p->lend, i, len, &vh))
				break;
		} else if (p->offload) {
			qdisc_frame_commit_offload(len, &vh);
		} else {
			qdisc_frame_commit(len);
		}

		sent += plen;
	}
	*frames = i;
	return sent;
}

/**
 * tcp_pull_account() - after the frames: sequence numbers, statistics,
 *			RTT sample, timer, end of a fast retransmission
 * @c:		execution context
 * @conn:	connection
 * @p:		pull state
 * @n:		bytes sent in this turn's frames
 * @frames:	number of frames sent
 * @now_ms:	current time
 *
 * The first data peeked enables SO_PEEK_OFF: if that fails, the connection
 * is reset, as the next peek would send the same data again.
 *
 * Return: QDISC_MORE if more data can be sent right away, QDISC_DONE if
 *	   the socket is drained or the guest's window is full
 */
static enum qdisc_pull_result tcp_pull_account(const struct ctx *c,
					       struct tcp_conn *conn,
					       const struct tcp_pull *p,
					       size_t n, size_t frames,
					       uint64_t now_ms)
{
	bool retrans = SEQ_LT(conn->seq_to_guest, conn->seq_max_sent);

	conn->seq_to_guest += (uint32_t)n;
	if (retrans)
		tcp_stats.retrans += frames;

	tcp_conn_ack_clear(conn);	/* they all carried it */
	if (!p->skip && !(conn->flags & TCP_F_PEEK_OFF) &&
	    tcp_peek_off_enable(conn)) {
		/* The next peek would send the same data again */
		warn_perror_rl("TCP flow %u: can't set SO_PEEK_OFF",
			       conn->flow);
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return QDISC_DONE;
	}
	if (SEQ_GT(conn->seq_to_guest, conn->seq_max_sent))
		conn->seq_max_sent = conn->seq_to_guest;
	if (!retrans && !conn->rtt_ts) {
		conn->rtt_seq = conn->seq_to_guest;
		conn->rtt_ts = now_ms ? now_ms : 1;
	}
	if (!timer_armed(&conn->timer))
		tcp_timer_arm(conn, now_ms, conn->rto_ms);

	if (conn->flags & TCP_F_RETX_ONE) {
		/* The hole is resent: continue after what was in flight */
		tcp_conn_retx_one_done(conn);
		if (SEQ_GT(conn->seq_resume, conn->seq_to_guest)) {
			conn->seq_to_guest = conn->seq_resume;
			tcp_peek_off_reset(conn);
		}
		return QDISC_MORE;
	}

	if (n < p->want) {
		/* Drained: if the peer already closed, the FIN follows */
		if (conn->flags & TCP_F_SOCK_EOF)
			return QDISC_MORE;
		return QDISC_DONE;
	}

	if (n >= p->room)
		return QDISC_DONE;

	return QDISC_MORE;
}

/**
 * tcp_pull_lend() - write the frames in the guest's buffers, if lent
 * @c:		execution context
 * @p:		pull state from tcp_pull_budget(); @lend set here, @frames
 *		and @want cut down to the frames lent
 *
 * Only offloaded frames can be written in place (their checksum is the
 * guest's side's), and only with SO_PEEK_OFF (without it, the peek starts
 * in the discard buffer).
 */
static void tcp_pull_lend(const struct ctx *c, struct tcp_pull *p)
{
	p->lend = NULL;
	if (!p->offload || !tcp_peek_off_supported())
		return;
	if (!qdisc_lend(c, &tcp_lend, p->frames, p->hdrlen, p->seg))
		return;

	p->lend = &tcp_lend;
	p->frames = tcp_lend.frames;
	p->want = MIN(p->want, p->frames * p->seg);
}

/**
 * tcp_pull_drained() - is there nothing new to read, without reading?
 * @conn:	connection
 *
 * The last peek read less than it asked for and sent it all, and no
 * EPOLLIN came since (edge-triggered: each arrival reports one): the peek
 * would find nothing. A guest's ACK that opens its window wakes the flow
 * in qdisc/ often with nothing to send (a request that acknowledges the
 * last reply): this saves that peek. Not while resending (the peek offset
 * moved back), nor once the host peer closed (the FIN is sent from a
 * peek that returns 0).
 *
 * Return: true if the turn can end without a peek
 */
static bool tcp_pull_drained(const struct tcp_conn *conn)
{
	return (conn->flags & TCP_F_SOCK_DRAINED) &&
	       (conn->flags & TCP_F_PEEK_OFF) &&
	       !(conn->flags & (TCP_F_SOCK_EOF | TCP_F_RETX_ONE)) &&
	       conn->seq_to_guest == conn->seq_max_sent;
}

/**
 * tcp_pull_data() - read socket data into frames, or send the FIN
 * @c:		execution context
 * @flow:	flow index
 * @budget:	bytes this turn may send
 * @now_ms:	current time
 *
 * Return: QDISC_MORE if more data can be sent right away, QDISC_DONE if
 *	   the socket is drained or the guest's window is full
 */
static enum qdisc_pull_result tcp_pull_data(const struct ctx *c, uint32_t flow,
					    size_t budget, uint64_t now_ms)
{
	struct tcp_conn *conn = tcp_conn_at(flow);
	enum qdisc_pull_result res;
	size_t frames, sent, send;
	struct tcp_pull p;
	ssize_t n;

	if (!conn || conn->state != CONN_ESTABLISHED ||
	    (conn->flags & TCP_F_FIN_SENT))
		return QDISC_DONE;

	if (!tcp_pull_budget(c, conn, budget, now_ms, &p, &res))
		return res;
	if (tcp_pull_drained(conn))
		return QDISC_DONE;
	tcp_pull_lend(c, &p);

	n = tcp_pull_peek(c, conn, &p);
	if (n <= 0) {
		qdisc_lend_end(c, &tcp_lend);
		if (n < 0 || (p.skip && conn->seq_to_guest != conn->seq_acked))
			return QDISC_DONE;
		tcp_send_fin(c, conn, now_ms);
		return QDISC_DONE;
	}

	send = tcp_pull_tail(conn, &p, (size_t)n);
	conn->tail_held = 0;
	sent = tcp_pull_frame(c, conn, &p, send, &frames);
	qdisc_lend_end(c, &tcp_lend);
	if (sent)
		res = tcp_pull_account(c, conn, &p, sent, frames, now_ms);
	if (sent == (size_t)n) {
		/* Less than asked for, all sent: the queue holds nothing
		 * new until the next EPOLLIN
		 */
		if ((size_t)n < p.want && !p.skip)
			tcp_conn_sock_drained(conn);
		return res;
	}
	/* The rest was peeked, not sent: read it again next time. A short
	 * end left on purpose waits for new data or the guest's ACK
	 */
	conn = tcp_conn_at(flow);
	if (conn && conn->state == CONN_ESTABLISHED &&
	    tcp_peek_off_reset(conn)) {
		warn_perror_rl("TCP flow %u: can't move SO_PEEK_OFF back",
			       flow);
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return QDISC_DONE;
	}
	if (sent == send) {
		if (conn)
			conn->tail_held = (uint16_t)((size_t)n - send);
		tcp_stats.tails_held++;
		return QDISC_DONE;
	}
	return QDISC_MORE;
}

/**
 * tcp_pull() - the connection's turn: send data, or the FIN, and the ACK
 *		left for this turn
 * @c:		execution context
 * @flow:	flow index
 * @budget:	bytes this turn may send
 * @now_ms:	current time
 *
 * The deferred work of the batch may leave the ACK it owes the guest to
 * the segment this turn sends (tcp_ack_rides()): if the turn sends none,
 * the ACK goes alone.
 *
 * Return: QDISC_MORE if more data can be sent right away, QDISC_DONE if
 *	   the socket is drained or the guest's window is full
 */
enum qdisc_pull_result tcp_pull(const struct ctx *c, uint32_t flow,
				size_t budget, uint64_t now_ms)
{
	enum qdisc_pull_result res = tcp_pull_data(c, flow, budget, now_ms);
	struct tcp_conn *conn = tcp_conn_at(flow);

	if (conn && conn->state == CONN_ESTABLISHED &&
	    (conn->flags & TCP_F_ACK_PENDING))
		tcp_send_ctrl(c, conn, TH_ACK);
	return res;
}
