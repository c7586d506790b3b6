// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp.c - unit tests for the TCP core (tcp/tcp.c, tcp/tcp_guest.c,
 *		tcp/tcp_emit.c, tcp/tcp_window.c)
 *
 * Theory of operation: each test (forked by Check) starts a relay with a
 * scripted guest (tcp_harness.h: frames in through net_input(), frames out
 * read back from the stream backend's socket pair) and real sockets on the
 * host's loopback: a listener of the test, that the relay connects to when
 * the guest sends a SYN to the gateway address (mapped to the loopback),
 * or a client of the test connecting to the relay's -t port. Each case
 * checks the segments the guest gets, field by field, and the bytes that
 * reach each side, in full. Timers run on virtual time, so retransmission
 * and persist timeouts are exact and independent of the machine's load.
 *
 * Cases: handshakes both ways (options of the SYN-ACK and of the SYN, the
 * guest's MSS honoured); the window offered to the guest following the
 * host socket, and its update once the host reads; zero-window probes;
 * retransmission on timeout with back-off; out-of-order guest data held,
 * reported in SACK blocks and delivered in order once holes are filled;
 * FIN from either side first; RST from either side; the few bytes the
 * host's longer segments leave at the end of a turn held for the guest's
 * ACK, and only those (the end of a write goes at once); the last
 * quarter of the guest's window left free, an opening within it waiting
 * for a window update or a short timer; send buffers
 * capped while a migration is under way, and sized by the kernel again
 * after; keepalives from the guest (none or one old byte) answered, and
 * SO_KEEPALIVE on the host socket at the guest's pace.
 */

#include <check.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "tcp_harness.h"
#include "../../flow/flow.h"
#include "../../tcp/tcp_internal.h"	/* TCP_RTO_INIT_MS, TCP_PERSIST_MS */
#include "../../tcp/tcp_pace.h"	/* TCP_WND_RESERVE_DIV, TCP_WND_HOLD_MS */
#include "../../tcp/tcp_repair.h"	/* SO_BUF_LOCK */

#define TT_SMALL_BUF		16384	/* socket buffers, window test */
#define TT_BULK_MAX		(4 * 1024 * 1024)

/* ---- Connections ---- */

/**
 * tt_open_out_to() - a connection the guest starts, to a given host listener
 * @k:		connection, set up here
 * @v4:		IPv4 (else IPv6)
 * @l:		listening socket, closed here; @port its port
 * @port:	port of @l
 * @opts:	SYN options, NULL for none
 * @optlen:	their length
 * @syn_ack:	output: the relay's SYN-ACK
 *
 * Return: the host's socket of the connection
 */
static int tt_open_out_to(struct tt_conn *k, bool v4, int l, uint16_t port,
			  const uint8_t *opts, size_t optlen,
			  struct tt_seg *syn_ack)
{
	int s;

	tt_conn_init(k, v4, TT_GPORT, port);
	tt_segment(k, TH_SYN, k->snd_nxt++, opts, optlen, NULL, 0);
	s = tt_accept(l);
	close(l);

	tt_expect(k, syn_ack, "SYN-ACK");
	ck_assert_uint_eq(syn_ack->flags, TH_SYN | TH_ACK);
	ck_assert_uint_eq(syn_ack->ack, k->snd_nxt);
	ck_assert_uint_eq(syn_ack->len, 0);
	k->rcv_nxt = syn_ack->seq + 1;
	k->ws_relay = syn_ack->ws > 0 ? (uint8_t)syn_ack->ws : 0;
	tt_send_ack(k);
	return s;
}

/**
 * tt_open_out() - a connection the guest starts, to a host listener
 * @k:		connection, set up here
 * @v4:		IPv4 (else IPv6)
 * @opts:	SYN options, NULL for none
 * @optlen:	their length
 * @rcvbuf:	SO_RCVBUF of the host's socket, 0 for the default
 * @syn_ack:	output: the relay's SYN-ACK
 *
 * Return: the host's socket of the connection
 */
static int tt_open_out(struct tt_conn *k, bool v4, const uint8_t *opts,
		       size_t optlen, int rcvbuf, struct tt_seg *syn_ack)
{
	uint16_t port;
	int l = tt_listener(v4, rcvbuf, &port);

	return tt_open_out_to(k, v4, l, port, opts, optlen, syn_ack);
}

/**
 * tt_open_in() - a connection the host side starts, to the relay's -t port
 * @k:		connection, set up here
 * @v4:		from 127.0.0.1 (else ::1)
 * @syn:	output: the relay's SYN to the guest
 *
 * Return: the host's client socket
 */
static int tt_open_in(struct tt_conn *k, bool v4, struct tt_seg *syn)
{
	struct sockaddr_storage ss;
	socklen_t sl = tt_loopback(v4, tt_fwd_port, &ss);
	struct tt_seg ack;
	int s;

	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   0);
	ck_assert_int_ge(s, 0);
	ck_assert(!connect(s, (struct sockaddr *)&ss, sl) ||
		  errno == EINPROGRESS);
	tt_conn_init(k, v4, tt_fwd_port, tt_port_of(s));

	tt_expect(k, syn, "SYN");
	ck_assert_uint_eq(syn->flags, TH_SYN);
	ck_assert_uint_eq(syn->len, 0);
	k->rcv_nxt = syn->seq + 1;
	k->ws_relay = syn->ws > 0 ? (uint8_t)syn->ws : 0;

	tt_segment(k, TH_SYN | TH_ACK, k->snd_nxt++, tt_syn_opts,
		   sizeof(tt_syn_opts), NULL, 0);
	tt_expect_ack(k, &ack);
	return s;
}

/**
 * tt_exchange() - data both ways on an open connection, checked byte by byte
 * @k:		connection
 * @s:		the host's socket
 * @len:	bytes each way
 * @max_seg:	largest segment the relay may send the guest
 */
static void tt_exchange(struct tt_conn *k, int s, size_t len,
			size_t max_seg)
{
	static uint8_t out[8192], in[8192];
	struct tt_seg g;
	size_t off;

	ck_assert_uint_le(len, sizeof(out));
	tt_pattern(out, len, 1);
	for (off = 0; off < len; off += TT_MSS) {
		size_t n = len - off < TT_MSS ? len - off : TT_MSS;

		tt_send_data(k, out + off, n, false);
		tt_expect_ack(k, &g);
	}
	tt_host_recv(s, in, len);
	ck_assert(!memcmp(in, out, len));

	tt_pattern(out, len, 2);
	tt_host_send(s, out, len);
	tt_guest_recv(k, in, len, max_seg, false);
	ck_assert(!memcmp(in, out, len));
	tt_host_idle(s);
}

/* ---- 1. Handshakes ---- */

/**
 * struct tt_hs_case - a handshake, guest side
 * @v4:		IPv4 (else IPv6)
 * @opts:	the guest's SYN offers MSS, window scale and SACK (else no
 *		options: the relay must not scale and must assume the
 *		default MSS of RFC 9293, 3.7.1)
 */
static const struct tt_hs_case {
	bool v4;
	bool opts;
} tt_hs_cases[] = {
	{ true, true }, { true, false }, { false, true }, { false, false },
};

/**
 * tt_check_mss() - the MSS the relay announces fits the link's MTU exactly
 * @g:		SYN or SYN-ACK from the relay
 * @v4:		IPv4 (else IPv6)
 */
static void tt_check_mss(const struct tt_seg *g, bool v4)
{
	ck_assert_int_eq(g->mss, TT_MTU - (v4 ? 20 : 40) - 20);
}

START_TEST(test_handshake_out)
{
	const struct tt_hs_case *t = &tt_hs_cases[_i];
	size_t max_seg = t->opts ? TT_MSS : (t->v4 ? 536 : 1220);
	struct tt_conn k;
	struct tt_seg sa;
	int s;

	tt_setup(0);
	s = tt_open_out(&k, t->v4, t->opts ? tt_syn_opts : NULL,
			t->opts ? sizeof(tt_syn_opts) : 0, 0, &sa);

	tt_check_mss(&sa, t->v4);
	ck_assert_uint_gt(sa.win, 0);
	if (t->opts) {
		ck_assert_int_ge(sa.ws, 1);
		ck_assert_int_le(sa.ws, 14);
	} else {
		ck_assert_int_eq(sa.ws, -1);
	}
	ck_assert(sa.sack_ok == t->opts);
	ck_assert_uint_eq(flow_in_use(), 1);

	/* More than one segment from the host: the guest's MSS holds */
	tt_exchange(&k, s, 2500, max_seg);
	close(s);
}
END_TEST

START_TEST(test_handshake_in)
{
	bool v4 = !_i;
	struct tt_conn k;
	struct tt_seg syn;
	int s;

	tt_setup(0);
	s = tt_open_in(&k, v4, &syn);

	/* To the forwarded port (tt_parse() matches the ports) */
	tt_check_mss(&syn, v4);
	ck_assert_int_ge(syn.ws, 1);
	ck_assert_int_le(syn.ws, 14);
	ck_assert(syn.sack_ok);
	ck_assert_uint_gt(syn.win, 0);
	ck_assert_uint_eq(flow_in_use(), 1);

	tt_exchange(&k, s, 2500, TT_MSS);
	close(s);
}
END_TEST

/* ---- 2. Window updates ---- */

/**
 * tt_fill_window() - the guest fills its window until it is nearly shut
 * @k:		connection, its host reader not reading
 * @data:	data to send, TT_BULK_MAX bytes
 * @first:	output: window field of the first ACK
 * @last:	output: window field of the last ACK
 *
 * The guest sends all the relay last advertised, in one batch, and every
 * byte must be acknowledged at once: a window larger than what the host
 * socket takes would leave some unacknowledged.
 *
 * Return: bytes sent
 */
static size_t tt_fill_window(struct tt_conn *k, const uint8_t *data,
			     uint16_t *first, uint16_t *last)
{
	size_t sent = TT_MSS;
	struct tt_seg g;
	uint32_t wnd, n;

	tt_send_data(k, data, TT_MSS, false);
	tt_expect_ack(k, &g);
	*first = *last = g.win;
	while ((wnd = (uint32_t)g.win << k->ws_relay) >= TT_MSS) {
		ck_assert_msg(sent + wnd <= TT_BULK_MAX,
			      "the window never shrank: %u", wnd);
		if (wnd > TT_BATCH_MAX * TT_MSS)
			wnd = TT_BATCH_MAX * TT_MSS;
		tt_batch_begin();
		for (n = 0; n + TT_MSS <= wnd; n += TT_MSS) {
			tt_send_data(k, data + sent, TT_MSS, false);
			sent += TT_MSS;
		}
		tt_batch_end();
		tt_expect_ack(k, &g);
		*last = g.win;
	}
	return sent;
}

START_TEST(test_window_update)
{
	static uint8_t data[TT_BULK_MAX], in[TT_BULK_MAX];
	uint64_t end = tt_ms() + TT_WAIT_MS;
	uint16_t first, last;
	size_t sent, got = 0;
	struct tt_conn k;
	struct tt_seg g;
	int s;

	tt_setup(TT_SMALL_BUF);
	tt_pattern(data, sizeof(data), 3);
	s = tt_open_out(&k, true, tt_syn_opts, sizeof(tt_syn_opts),
			TT_SMALL_BUF, &g);
	ck_assert_uint_le((uint32_t)g.win, (uint32_t)TT_SMALL_BUF * 2);

	sent = tt_fill_window(&k, data, &first, &last);
	ck_assert_uint_lt(last, first);

	/* The host reads: the relay tells the guest, unasked */
	while (!tt_next(&k, &g, false)) {
		ssize_t n = recv(s, in + got, sent - got, MSG_DONTWAIT);

		if (n > 0)
			got += (size_t)n;
		ck_assert_msg(tt_ms() < end, "no window update");
	}
	ck_assert_uint_eq(g.flags, TH_ACK);
	ck_assert_uint_eq(g.ack, k.snd_nxt);
	ck_assert_uint_eq(g.len, 0);
	ck_assert_uint_ge((uint32_t)g.win << k.ws_relay, TT_MSS);
	ck_assert_uint_gt(g.win, last);

	/* The window it opened takes data again */
	tt_send_data(&k, data + sent, TT_MSS, false);
	sent += TT_MSS;
	tt_expect_ack(&k, &g);

	tt_host_recv(s, in + got, sent - got);
	ck_assert(!memcmp(in, data, sent));
	close(s);
}
END_TEST

/* ---- 3. Zero-window probes ---- */

START_TEST(test_zero_window)
{
	static uint8_t out[3000], in[3000];
	struct tt_conn k;
	struct tt_seg g;
	int s, i;

	tt_setup(0);
	s = tt_open_out(&k, true, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	k.win = 0;
	tt_send_ack(&k);

	tt_pattern(out, sizeof(out), 4);
	tt_host_send(s, out, sizeof(out));
	tt_host_delivered(s);
	tt_expect_none(&k, "zero window");

	/* Probes with an old sequence number, every persist interval */
	for (i = 0; i < 3; i++) {
		tt_advance(TCP_PERSIST_MS - 10);
		tt_expect_none(&k, "before the persist timer");
		tt_advance(20);
		tt_expect(&k, &g, "zero-window probe");
		ck_assert_uint_eq(g.flags, TH_ACK);
		ck_assert_uint_eq(g.len, 0);
		ck_assert_uint_eq(g.seq, k.rcv_nxt - 1);
		ck_assert_uint_eq(g.ack, k.snd_nxt);
		tt_send_ack(&k);	/* the answer: still closed */
		tt_expect_none(&k, "window still zero");
	}

	/* The window opens: everything comes, in order */
	k.win = 65535;
	tt_send_ack(&k);
	tt_guest_recv(&k, in, sizeof(in), TT_MSS, false);
	ck_assert(!memcmp(in, out, sizeof(out)));
	close(s);
}
END_TEST

/* ---- 4. Retransmission on timeout ---- */

/**
 * tt_expect_retransmit() - nothing before @rto_ms, the segment again after
 * @k:		connection
 * @rto_ms:	retransmission timeout expected
 * @seq:	sequence number of the segment
 * @data:	its payload
 * @len:	its length
 */
static void tt_expect_retransmit(const struct tt_conn *k, uint32_t rto_ms,
				 uint32_t seq, const uint8_t *data,
				 size_t len)
{
	struct tt_seg g;

	tt_advance(rto_ms - 10);
	tt_expect_none(k, "before the retransmission timeout");
	tt_advance(20);
	tt_expect(k, &g, "retransmission");
	ck_assert_uint_eq(g.seq, seq);
	ck_assert_uint_eq(g.len, len);
	ck_assert(!memcmp(g.data, data, len));
}

START_TEST(test_retransmit)
{
	static uint8_t out[TT_MSS];
	bool v4 = !_i;
	struct tt_conn k;
	struct tt_seg g;
	uint32_t seq;
	int s;

	tt_setup(0);
	s = tt_open_out(&k, v4, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	tt_pattern(out, sizeof(out), 5);
	tt_host_send(s, out, sizeof(out));

	tt_expect(&k, &g, "data to the guest");
	seq = g.seq;
	ck_assert_uint_eq(seq, k.rcv_nxt);
	ck_assert_uint_eq(g.len, sizeof(out));
	ck_assert(!memcmp(g.data, out, sizeof(out)));

	/* The guest lost it: again after the RTO, then backing off */
	tt_expect_retransmit(&k, TCP_RTO_INIT_MS, seq, out, sizeof(out));
	tt_expect_retransmit(&k, TCP_RTO_INIT_MS * 2, seq, out, sizeof(out));

	/* Acknowledged: no more of it */
	k.rcv_nxt += sizeof(out);
	tt_send_ack(&k);
	tt_advance(TCP_RTO_INIT_MS * 8);
	tt_expect_none(&k, "after the ACK");
	ck_assert_uint_eq(flow_in_use(), 1);
	close(s);
}
END_TEST

/* ---- 5. Out-of-order data, SACK ---- */

#define TT_SACK_SEGS	4

/**
 * struct tt_sack_case - an order of arrival of the guest's segments
 * @order:	segment indices, in the order the guest sends them
 * @sack:	the guest permitted SACK (else no blocks may come)
 */
static const struct tt_sack_case {
	unsigned int order[TT_SACK_SEGS];
	bool sack;
} tt_sack_cases[] = {
	{ { 1, 2, 3, 0 }, true },	/* the first one lost */
	{ { 3, 2, 1, 0 }, true },	/* reversed */
	{ { 1, 3, 0, 2 }, true },	/* two holes */
	{ { 3, 0, 2, 1 }, true },	/* the last one first */
	{ { 0, 2, 1, 3 }, true },	/* one swap */
	{ { 1, 3, 0, 2 }, false },	/* two holes, SACK not permitted */
};

/**
 * tt_sack_has() - tell if a segment's SACK blocks include a run exactly
 * @g:		segment
 * @start:	run start
 * @end:	run end
 *
 * Return: index of the block, -1 if none matches
 */
static int tt_sack_has(const struct tt_seg *g, uint32_t start, uint32_t end)
{
	unsigned int i;

	for (i = 0; i < g->nsack; i++) {
		if (g->sack[i][0] == start && g->sack[i][1] == end)
			return (int)i;
	}
	return -1;
}

/**
 * tt_sack_check() - the relay's ACK matches what the guest has sent so far
 * @g:		the ACK
 * @base:	sequence number of segment 0
 * @have:	segments sent
 * @last:	the one just sent
 * @sack:	SACK permitted
 *
 * The ACK covers the in-order segments; with SACK, every run held after
 * them is one SACK block, and the first block is the run of @last (RFC
 * 2018, 4); without, there are no blocks.
 *
 * Return: bytes the host must have received
 */
static size_t tt_sack_check(const struct tt_seg *g, uint32_t base,
			    const bool *have, unsigned int last, bool sack)
{
	unsigned int acked = 0, i, runs = 0;

	while (acked < TT_SACK_SEGS && have[acked])
		acked++;
	ck_assert_uint_eq(g->flags, TH_ACK);
	ck_assert_uint_eq(g->ack, base + acked * TT_MSS);

	for (i = acked; sack && i < TT_SACK_SEGS; i++) {
		unsigned int j = i;
		int at;

		if (!have[i])
			continue;
		while (j < TT_SACK_SEGS && have[j])
			j++;
		at = tt_sack_has(g, base + i * TT_MSS, base + j * TT_MSS);
		ck_assert_msg(at >= 0, "no SACK block for segments %u-%u",
			      i, j - 1);
		if (last >= i && last < j)
			ck_assert_int_eq(at, 0);
		runs++;
		i = j;
	}
	ck_assert_uint_eq(g->nsack, runs);
	return (size_t)acked * TT_MSS;
}

START_TEST(test_sack)
{
	const struct tt_sack_case *t = &tt_sack_cases[_i];
	static uint8_t out[TT_SACK_SEGS * TT_MSS], in[sizeof(out)];
	bool have[TT_SACK_SEGS] = { false };
	size_t got = 0, want;
	struct tt_conn k;
	struct tt_seg g;
	uint32_t base;
	unsigned int i;
	int s;

	/* Without SACK: the MSS and window scale options only */
	tt_setup(0);
	s = tt_open_out(&k, true, tt_syn_opts, t->sack ? sizeof(tt_syn_opts) :
			TT_SYN_OPTS_NO_SACK, 0, &g);
	ck_assert(g.sack_ok == t->sack);
	tt_pattern(out, sizeof(out), 6);
	base = k.snd_nxt;

	for (i = 0; i < TT_SACK_SEGS; i++) {
		unsigned int n = t->order[i];

		tt_segment(&k, TH_ACK, base + n * TT_MSS, NULL, 0,
			   out + n * TT_MSS, TT_MSS);
		have[n] = true;
		tt_expect(&k, &g, "ACK of a segment");
		want = tt_sack_check(&g, base, have, n, t->sack);

		/* The host gets the in-order part, nothing beyond a hole */
		tt_host_recv(s, in + got, want - got);
		got = want;
		tt_host_idle(s);
	}
	k.snd_nxt = base + sizeof(out);
	ck_assert(!memcmp(in, out, sizeof(out)));
	tt_expect_none(&k, "all acknowledged");
	close(s);
}
END_TEST

/* ---- 6. FIN in both orders ---- */

/**
 * tt_close_guest() - the guest sends its last data with a FIN
 * @k:		connection
 * @s:		the host's socket
 */
static void tt_close_guest(struct tt_conn *k, int s)
{
	static uint8_t out[1500], in[sizeof(out)];
	struct tt_seg g;

	tt_pattern(out, sizeof(out), 7);
	tt_send_data(k, out, TT_MSS, false);
	tt_expect_ack(k, &g);
	tt_send_data(k, out + TT_MSS, sizeof(out) - TT_MSS, true);
	tt_expect_ack(k, &g);		/* covering the FIN */
	tt_host_recv(s, in, sizeof(in));
	ck_assert(!memcmp(in, out, sizeof(out)));
	ck_assert_int_eq(tt_host_end(s), 0);
}

/**
 * tt_close_host() - the host sends its last data and shuts down writing
 * @k:		connection
 * @s:		the host's socket
 */
static void tt_close_host(struct tt_conn *k, int s)
{
	static uint8_t out[2500], in[sizeof(out)];

	tt_pattern(out, sizeof(out), 8);
	tt_host_send(s, out, sizeof(out));
	ck_assert_int_eq(shutdown(s, SHUT_WR), 0);
	tt_guest_recv(k, in, sizeof(in), TT_MSS, true);
	ck_assert(!memcmp(in, out, sizeof(out)));
}

/**
 * struct tt_order_case - a case run in both families, in two variants
 * @v4:		IPv4 (else IPv6)
 * @flag:	the variant: guest closes first (FIN), the host side started
 *		the connection (RST)
 */
static const struct tt_order_case {
	bool v4;
	bool flag;
} tt_order_cases[] = {
	{ true, true }, { true, false }, { false, true }, { false, false },
};

START_TEST(test_fin)
{
	const struct tt_order_case *t = &tt_order_cases[_i];
	uint64_t end = tt_ms() + TT_WAIT_MS;
	struct tt_conn k;
	struct tt_seg g;
	int s;

	tt_setup(0);
	s = tt_open_out(&k, t->v4, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	if (t->flag) {
		tt_close_guest(&k, s);
		tt_close_host(&k, s);
	} else {
		tt_close_host(&k, s);
		tt_close_guest(&k, s);
	}

	/* Both sides done: the connection goes, without a reset */
	while (flow_in_use()) {
		ck_assert_msg(tt_ms() < end, "the connection stayed");
		tt_pump(10);
	}
	tt_expect_none(&k, "closed");
	ck_assert_int_eq(tt_host_end(s), 0);
	close(s);
}
END_TEST

/* ---- 7. RST ---- */

START_TEST(test_rst_guest)
{
	bool v4 = !_i;
	struct tt_conn k;
	struct tt_seg g;
	int s;

	tt_setup(0);
	s = tt_open_out(&k, v4, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	tt_exchange(&k, s, 100, TT_MSS);

	tt_segment(&k, TH_RST, k.snd_nxt, NULL, 0, NULL, 0);
	ck_assert_int_eq(tt_host_end(s), ECONNRESET);
	ck_assert_uint_eq(flow_in_use(), 0);
	tt_expect_none(&k, "after the guest's reset");
	close(s);
}
END_TEST

START_TEST(test_rst_host)
{
	const struct tt_order_case *t = &tt_order_cases[_i];
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct tt_conn k;
	struct tt_seg g;
	int s;

	tt_setup(0);
	if (t->flag)
		s = tt_open_in(&k, t->v4, &g);
	else
		s = tt_open_out(&k, t->v4, tt_syn_opts, sizeof(tt_syn_opts), 0,
				&g);
	tt_exchange(&k, s, 100, TT_MSS);

	ck_assert_int_eq(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg,
				    sizeof(lg)), 0);
	close(s);
	tt_expect(&k, &g, "RST after the host reset");
	ck_assert(g.flags & TH_RST);
	ck_assert_uint_eq(g.seq, k.rcv_nxt);
	ck_assert_uint_eq(g.len, 0);
	ck_assert_uint_eq(flow_in_use(), 0);
}
END_TEST

/* ---- 8. Short ends of a turn (tcp_pull_tail()) ---- */

/**
 * tt_expect_data() - the relay must send the next @len bytes of @want
 * @k:		connection; its receive sequence moves past them
 * @want:	the bytes, as the host sent them
 * @len:	length of the segment expected
 * @why:	what the segment is, for the message
 */
static void tt_expect_data(struct tt_conn *k, const uint8_t *want,
			   size_t len, const char *why)
{
	struct tt_seg g;

	tt_expect(k, &g, why);
	ck_assert_uint_eq(g.seq, k->rcv_nxt);
	ck_assert_msg(g.len == len, "%s: %zu bytes, expected %zu", why, g.len,
		      len);
	ck_assert(!memcmp(g.data, want, len));
	k->rcv_nxt += (uint32_t)len;
}

/* The host's segments are longer than the guest's by a few bytes (as on
 * loopback): its TCP_MAXSEG, before TCP options take their share
 */
#define TT_TAIL_HOST_MSS	(TT_MSS + 15)
#define TT_TAIL_EXCESS_MAX	15	/* 4 times it stays a short end */

/**
 * struct tt_tail_case - what the host writes after a first exchange
 * @segs:	full host segments, in one write
 * @end_x:	then an end of @end_x times the host segments' excess over the
 *		guest's...
 * @end:	...plus @end bytes, in the same write
 * @again:	the same written again before the guest acknowledges
 * @held:	a short end must wait for the guest's ACK (each time)
 */
static const struct tt_tail_case {
	unsigned int segs;
	int end_x;
	int end;
	bool again;
	bool held;
} tt_tail_cases[] = {
	{ 2, 0, 0, false, true },	/* the longer segments' end: held */
	{ 4, 0, 0, false, true },
	{ 2, 0, 0, true, true },	/* held, and held again, longer */
	{ 1, 0, 0, false, false },	/* one in flight: the ACK may wait */
	{ 2, 1, 1, false, false },	/* a write ended there: sent */
	{ 2, 0, TT_MSS / 8, false, false },	/* not a few bytes */
	{ 2, -2, TT_MSS, false, false },	/* no short end */
};

/**
 * tt_tail_round() - the host writes, the guest gets the full segments, and
 *		     the end either with them or not before its ACK
 * @k:		connection
 * @s:		host socket
 * @out:	the host's bytes, from the start of the test's data
 * @off:	bytes of @out the guest has; moved past the segments it gets
 * @len:	bytes the host writes now, @out + @off + *@held on
 * @held:	bytes left in the relay's socket before, and after
 * @hold:	whether the end must be left this time
 */
static void tt_tail_round(struct tt_conn *k, int s, const uint8_t *out,
			  size_t *off, size_t len, size_t *held, bool hold)
{
	size_t n = *held + len, tail = n % TT_MSS, full = hold ? n - tail : n;
	size_t end = *off + full;

	tt_host_send(s, out + *off + *held, len);
	tt_host_delivered(s);
	while (*off < end) {
		size_t seg = end - *off < TT_MSS ? end - *off : TT_MSS;

		tt_expect_data(k, out + *off, seg, "data to the guest");
		*off += seg;
	}
	*held = hold ? tail : 0;
	tt_expect_none(k, hold ? "a short end while two segments are in "
				 "flight" : "all sent");
}

START_TEST(test_short_tail)
{
	const struct tt_tail_case *t = &tt_tail_cases[_i];
	static uint8_t out[16 * TT_MSS];
	int one = 1, mss = TT_TAIL_HOST_MSS, l, s, x, len;
	socklen_t sl = sizeof(x);
	size_t off = 0, held = 0;
	struct tt_conn k;
	struct tt_seg g;
	uint16_t port;

	tt_setup(0);
	l = tt_listener(true, 0, &port);
	ck_assert_int_eq(setsockopt(l, IPPROTO_TCP, TCP_MAXSEG, &mss,
				    sizeof(mss)), 0);
	s = tt_open_out_to(&k, true, l, port, tt_syn_opts, sizeof(tt_syn_opts),
			   &g);
	ck_assert_int_eq(setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one,
				    sizeof(one)), 0);
	tt_exchange(&k, s, 500, TT_MSS);	/* SO_PEEK_OFF set from here */

	/* The host's segments: longer than the guest's by x bytes */
	ck_assert_int_eq(getsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, &sl), 0);
	x = mss - TT_MSS;
	ck_assert_msg(x > 0 && x <= TT_TAIL_EXCESS_MAX,
		      "host segments of %d bytes, guest's %d", mss, TT_MSS);
	len = (int)t->segs * mss + t->end_x * x + t->end;

	tt_pattern(out, sizeof(out), 9);
	tt_tail_round(&k, s, out, &off, (size_t)len, &held, t->held);
	if (t->again)
		tt_tail_round(&k, s, out, &off, (size_t)len, &held, t->held);
	if (!t->held) {
		close(s);
		return;
	}

	/* The few bytes left come with the guest's ACK */
	tt_send_ack(&k);
	tt_expect_data(&k, out + off, held, "the short end, after the ACK");
	tt_send_ack(&k);
	tt_expect_none(&k, "nothing more");
	close(s);
}
END_TEST

/* ---- 9. The end of the window left free (tcp_pace_wnd_room()) ---- */

#define TT_RSV_WND		(64 * TT_MSS)	/* the guest's window here */
#define TT_RSV_FREE		(TT_RSV_WND / TCP_WND_RESERVE_DIV)

/**
 * tt_rsv_segs() - the relay sends @len more bytes in full segments, then
 *		   nothing
 * @k:		connection
 * @out:	the host's bytes
 * @off:	bytes of @out the guest has; moved past the segments
 * @len:	bytes expected now
 * @why:	what the check is about, for the message
 */
static void tt_rsv_segs(struct tt_conn *k, const uint8_t *out, size_t *off,
			size_t len, const char *why)
{
	size_t end = *off + len;

	while (*off < end) {
		tt_expect_data(k, out + *off, TT_MSS, why);
		*off += TT_MSS;
	}
	tt_expect_none(k, why);
}

/**
 * tt_rsv_window() - the guest acknowledges all it has, with a window
 * @k:		connection
 * @wnd:	window, bytes
 */
static void tt_rsv_window(struct tt_conn *k, uint32_t wnd)
{
	k->win = (uint16_t)(wnd >> TT_WS_GUEST);
	tt_send_ack(k);
}

START_TEST(test_wnd_reserve)
{
	static uint8_t out[2 * TT_RSV_WND];
	struct tt_conn k;
	struct tt_seg g;
	size_t off = 0;
	int s;

	tt_setup(0);
	s = tt_open_out(&k, true, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	tt_exchange(&k, s, 500, TT_MSS);

	/* The window shrank far below its largest: the opening waits, and
	 * without a window update, the reserve goes by the window it has
	 */
	tt_rsv_window(&k, TT_RSV_WND);
	tt_pattern(out, sizeof(out), 11);
	tt_host_send(s, out, sizeof(out));
	tt_host_delivered(s);
	tt_expect_none(&k, "an opening within the last quarter of the "
			   "largest window");
	tt_advance(TCP_WND_HOLD_MS);
	tt_rsv_segs(&k, out, &off, TT_RSV_WND - TT_RSV_FREE,
		    "all but the last quarter of the window");

	/* Acknowledged, the window within the reserve: nothing; the window
	 * update past it: what lies beyond, at once
	 */
	tt_rsv_window(&k, TT_RSV_FREE - 4 * TT_MSS);
	tt_expect_none(&k, "a window within the reserve");
	tt_rsv_window(&k, TT_RSV_WND / 2);
	tt_rsv_segs(&k, out, &off, TT_RSV_WND / 2 - TT_RSV_FREE,
		    "the window update past the reserve");

	/* The wait's timer went with it: no retransmission, no change */
	tt_advance(TCP_WND_HOLD_MS + 1);
	tt_expect_none(&k, "the wait's timer, after sending");

	/* The guest reads: the rest, a window at a time */
	while (off < sizeof(out)) {
		size_t n = sizeof(out) - off;

		if (n > TT_RSV_WND - TT_RSV_FREE)
			n = TT_RSV_WND - TT_RSV_FREE;
		tt_rsv_window(&k, TT_RSV_WND);
		tt_rsv_segs(&k, out, &off, n, "a full window, reserve kept");
	}
	tt_rsv_window(&k, TT_RSV_WND);
	tt_expect_none(&k, "all sent");
	close(s);
}
END_TEST

/* ---- Send buffers during a migration (tcp/tcp_mig_sndbuf.c) ---- */

/**
 * tt_sndbuf() - a socket's send buffer, and whether its size is locked
 * @s:		socket
 * @locked:	set if SO_SNDBUF locked it
 *
 * Return: SO_SNDBUF as the kernel reports it
 */
static int tt_sndbuf(int s, bool *locked)
{
	int v, locks;
	socklen_t sl = sizeof(v);

	ck_assert_int_eq(getsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, &sl), 0);
	ck_assert_int_eq(getsockopt(s, SOL_SOCKET, SO_BUF_LOCK, &locks, &sl),
			 0);
	*locked = locks & SOCK_SNDBUF_LOCK;
	return v;
}

/**
 * tt_relay_sock() - the relay's host socket of a connection
 * @other:	a socket to skip, -1 for none
 *
 * Return: the first connection's socket that is not @other
 */
static int tt_relay_sock(int other)
{
	unsigned int i;

	for (i = 0; i < tcp_conns_capacity(); i++) {
		const struct tcp_conn *conn = tcp_conn_at(i);

		if (conn && conn->sock >= 0 && conn->sock != other)
			return conn->sock;
	}
	ck_abort_msg("no connection of the relay");
	return -1;
}

START_TEST(test_mig_sndbuf)
{
	int big = INT_MAX / 2, max, cap, r1, r2, s1, s2;
	int probe = socket(AF_INET, SOCK_STREAM, 0);
	socklen_t sl = sizeof(max);
	struct tt_conn k1, k2;
	struct tt_seg g;
	bool locked;

	/* The largest send buffer the kernel lets us have, and 7/8 of it */
	ck_assert_int_ge(probe, 0);
	ck_assert_int_eq(setsockopt(probe, SOL_SOCKET, SO_SNDBUF, &big,
				    sizeof(big)), 0);
	ck_assert_int_eq(getsockopt(probe, SOL_SOCKET, SO_SNDBUF, &max, &sl),
			 0);
	close(probe);
	cap = (max / 2 - max / 2 / 8) * 2;

	tt_setup(0);
	s1 = tt_open_out(&k1, true, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	r1 = tt_relay_sock(-1);
	tt_sndbuf(r1, &locked);
	ck_assert(!locked);

	/* A migration begins: capped and locked, new connections too */
	tcp_mig_sndbuf_set(&tt_ctx, true);
	ck_assert_int_eq(tt_sndbuf(r1, &locked), cap);
	ck_assert(locked);
	s2 = tt_open_out(&k2, false, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	r2 = tt_relay_sock(r1);
	ck_assert_int_eq(tt_sndbuf(r2, &locked), cap);
	ck_assert(locked);
	tt_exchange(&k1, s1, 5000, TT_MSS);
	tt_exchange(&k2, s2, 5000, TT_MSS);

	/* It is over without a save: the kernel sizes them again */
	tcp_mig_sndbuf_set(&tt_ctx, false);
	tt_sndbuf(r1, &locked);
	ck_assert(!locked);
	tt_sndbuf(r2, &locked);
	ck_assert(!locked);
	tt_exchange(&k1, s1, 5000, TT_MSS);
	close(s1);
	close(s2);
}
END_TEST

/* ---- 10. Segments without PSH: MSG_MORE (tcp_wq_more()) ---- */

/**
 * tt_unsent() - bytes the relay's host socket holds without sending them
 * @r:		the relay's socket
 *
 * Return: SIOCOUTQNSD, what a segment ending in MSG_MORE leaves there
 */
static int tt_unsent(int r)
{
	int n;

	ck_assert_int_eq(ioctl(r, SIOCOUTQNSD, &n), 0);
	return n;
}

/**
 * tt_send_more() - the guest sends segments of TT_MSS without PSH, in one
 *		    batch (more data follows), and gets them acknowledged
 * @k:		connection
 * @data:	payload
 * @n:		segments
 */
static void tt_send_more(struct tt_conn *k, const uint8_t *data,
			 unsigned int n)
{
	struct tt_seg g;
	unsigned int i;

	ck_assert_uint_lt(n, TT_BATCH_MAX);
	tt_batch_begin();
	for (i = 0; i < n; i++) {
		tt_segment(k, TH_ACK, k->snd_nxt, NULL, 0, data + i * TT_MSS,
			   TT_MSS);
		k->snd_nxt += TT_MSS;
	}
	tt_batch_end();
	tt_expect_ack(k, &g);
	ck_assert_uint_eq(g.ack, k->snd_nxt);
}

/* Segments without PSH, and whether the socket may wait for more:
 * 0: a wide window: it waits, until the segment with PSH;
 * 1: small buffers, the window left below two segments: the guest could
 *    not send the rest, so nothing waits;
 * 2: a segment without PSH fills a hole before held data that had PSH:
 *    nothing waits either
 */
START_TEST(test_no_push)
{
	static uint8_t out[64 * TT_MSS], in[64 * TT_MSS];
	size_t len = 4 * TT_MSS;
	struct tt_conn k;
	struct tt_seg g;
	unsigned int n;
	int s, r;

	tt_setup(_i == 1 ? TT_SMALL_BUF : 0);
	tt_pattern(out, sizeof(out), 5);
	s = tt_open_out(&k, true, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	r = tt_relay_sock(-1);

	if (_i == 0) {
		tt_send_more(&k, out, 3);
		ck_assert_int_eq(tt_unsent(r), 3 * TT_MSS);
		tt_send_data(&k, out + 3 * TT_MSS, TT_MSS, false);
		tt_expect_ack(&k, &g);
	} else if (_i == 1) {
		tt_send_data(&k, out, TT_MSS, false);
		tt_expect_ack(&k, &g);
		n = ((uint32_t)g.win << k.ws_relay) / TT_MSS - 1;
		ck_assert_uint_ge(n, 1);
		tt_send_more(&k, out + TT_MSS, n);
		len = (n + 1) * TT_MSS;
	} else {
		/* The second segment first, with PSH: held */
		tt_segment(&k, TH_ACK | TH_PUSH, k.snd_nxt + TT_MSS, NULL, 0,
			   out + TT_MSS, TT_MSS);
		tt_expect_ack(&k, &g);
		ck_assert_uint_eq(g.ack, k.snd_nxt);
		tt_segment(&k, TH_ACK, k.snd_nxt, NULL, 0, out, TT_MSS);
		k.snd_nxt += 2 * TT_MSS;
		tt_expect_ack(&k, &g);
		ck_assert_uint_eq(g.ack, k.snd_nxt);
		len = 2 * TT_MSS;
	}
	ck_assert_int_eq(tt_unsent(r), 0);
	tt_host_recv(s, in, len);
	ck_assert(!memcmp(in, out, len));
	close(s);
}
END_TEST

/* ---- 11. Keepalives from the guest (tcp_keepalive.c) ---- */

/**
 * tt_ka_opt() - a keepalive option of the relay's host socket
 * @r:		socket
 * @opt:	SO_KEEPALIVE (SOL_SOCKET), TCP_KEEPIDLE or TCP_KEEPINTVL
 *
 * Return: its value
 */
static int tt_ka_opt(int r, int opt)
{
	socklen_t sl = sizeof(int);
	int v = -1;

	ck_assert_int_eq(getsockopt(r, opt == SO_KEEPALIVE ? SOL_SOCKET :
				    IPPROTO_TCP, opt, &v, &sl), 0);
	return v;
}

START_TEST(test_keepalive)
{
	const uint8_t old = 0x55;
	struct tcp_conn fake = { .state = CONN_ESTABLISHED };
	uint64_t before = tcp_stats.keepalives;
	struct tt_conn k;
	struct tt_seg g;
	int s, r;

	tt_setup(0);
	s = tt_open_out(&k, true, tt_syn_opts, sizeof(tt_syn_opts), 0, &g);
	r = tt_relay_sock(-1);
	tt_exchange(&k, s, 3000, TT_MSS);
	ck_assert_int_eq(tt_ka_opt(r, SO_KEEPALIVE), 0);

	/* Idle 1 s, a keepalive (no data): answered, host socket's pace */
	tt_advance(1000);
	tt_segment(&k, TH_ACK, k.snd_nxt - 1, NULL, 0, NULL, 0);
	tt_expect_ack(&k, &g);
	ck_assert_int_eq(tt_ka_opt(r, SO_KEEPALIVE), 1);
	ck_assert_int_eq(tt_ka_opt(r, TCP_KEEPIDLE), 1);
	ck_assert_int_eq(tt_ka_opt(r, TCP_KEEPINTVL), 1);

	/* 45 s later, an old byte (other stacks): the new pace */
	tt_advance(45 * 1000 + 300);
	tt_segment(&k, TH_ACK, k.snd_nxt - 1, NULL, 0, &old, 1);
	tt_expect_ack(&k, &g);
	tt_expect_none(&k, "one ACK per keepalive");
	ck_assert_int_eq(tt_ka_opt(r, TCP_KEEPIDLE), 45);
	ck_assert_int_le(tt_ka_opt(r, TCP_KEEPINTVL), 45);
	ck_assert_uint_eq(tcp_stats.keepalives - before, 2);
	tt_host_idle(s);	/* the old byte went nowhere */
	tt_exchange(&k, s, 3000, TT_MSS);

	/* Not keepalives: a probe of a closed window, 2 bytes, further */
	ck_assert(!tcp_keepalive_is(&fake, 1, 0));
	fake.wnd_to_guest = 65535;
	ck_assert(tcp_keepalive_is(&fake, 1, 0) &&
		  tcp_keepalive_is(&fake, 1, 1));
	ck_assert(!tcp_keepalive_is(&fake, 1, 2) &&
		  !tcp_keepalive_is(&fake, 2, 0));
	close(s);
}
END_TEST

/**
 * tcp_suite() - the TCP core suite
 *
 * Return: suite
 */
static Suite *tcp_suite(void)
{
	Suite *s = suite_create("tcp");
	TCase *tc = tcase_create("core");
	int n_hs = (int)(sizeof(tt_hs_cases) / sizeof(tt_hs_cases[0]));
	int n_sack = (int)(sizeof(tt_sack_cases) / sizeof(tt_sack_cases[0]));
	int n_ord = (int)(sizeof(tt_order_cases) / sizeof(tt_order_cases[0]));
	int n_tail = (int)(sizeof(tt_tail_cases) / sizeof(tt_tail_cases[0]));

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_handshake_out, 0, n_hs);
	tcase_add_loop_test(tc, test_handshake_in, 0, 2);
	tcase_add_test(tc, test_window_update);
	tcase_add_test(tc, test_zero_window);
	tcase_add_loop_test(tc, test_retransmit, 0, 2);
	tcase_add_loop_test(tc, test_sack, 0, n_sack);
	tcase_add_loop_test(tc, test_fin, 0, n_ord);
	tcase_add_loop_test(tc, test_rst_guest, 0, 2);
	tcase_add_loop_test(tc, test_rst_host, 0, n_ord);
	tcase_add_loop_test(tc, test_short_tail, 0, n_tail);
	tcase_add_test(tc, test_wnd_reserve);
	tcase_add_loop_test(tc, test_no_push, 0, 3);
	tcase_add_test(tc, test_mig_sndbuf);
	tcase_add_test(tc, test_keepalive);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the TCP core suite
 *
 * Return: 0 if every test passed, 1 otherwise
 */
int main(void)
{
	SRunner *sr = srunner_create(tcp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? 1 : 0;
}
