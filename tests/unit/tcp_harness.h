/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_harness.h - a relay with a scripted guest TCP, for tests/unit/test_tcp.c
 *
 * Theory of operation: tt_setup() starts a relay in passt mode whose guest
 * is one end of a socket pair, adopted as the -F descriptor by the stream
 * backend, with TCP and one forwarded port (-t). The test plays the
 * guest's TCP: tt_segment() builds Ethernet, IP and TCP headers (checksums
 * from net_frames.h's naive reference) and hands the frame to net_input(),
 * as a backend does; tt_next() reads what the relay sent back through
 * qdisc/ from the other end of the pair (a 4-byte length, then the frame),
 * checks every layer (addresses, lengths, both checksums) and decodes the
 * segment with its options. Host-side helpers read and write real sockets
 * on 127.0.0.1 and ::1, running the relay while they wait.
 *
 * Time is virtual: the timer wheel has no timerfd, every handler gets
 * tt_now, and only tt_advance() moves it, running what is due. Waiting in
 * real time (bounded by TT_WAIT_MS) only happens for what loopback sockets
 * deliver, and a check that nothing comes runs TT_QUIET_ROUNDS loop rounds.
 *
 * tt_setup(), tt_dispatch(), tt_pump(), tt_advance(), tt_input() and
 * tt_batch_end() are the only places that know how the relay is put
 * together: adapt them when its start-up or its entry points change.
 */
#ifndef TESTS_UNIT_TCP_HARNESS_H
#define TESTS_UNIT_TCP_HARNESS_H

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "net_frames.h"
#include "relay_sink.h"
#include "../../conf/ctx.h"
#include "../../conf/fwd_spec.h"
#include "../../flow/flow.h"
#include "../../fwd/fwd_listen.h"
#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"
#include "../../tcp/tcp.h"
#include "../../util/epoll_ref.h"
#include "../../util/log.h"
#include "../../util/timer.h"

#define TT_FLOWS		16
#define TT_MTU			1500
#define TT_MSS			1000	/* the guest's MSS, and its segments */
#define TT_WS_GUEST		7	/* the guest's window scale */
#define TT_FRAME_MAX		(TT_MTU + 64)
#define TT_FRAME_ROW		(TT_FRAME_MAX + 12)	/* a multiple of 8 */
#define TT_BATCH_MAX		64	/* frames from the guest per batch */
#define TT_RX_SIZE		(1024 * 1024)
#define TT_WAIT_MS		5000	/* bound for what must come */
#define TT_QUIET_ROUNDS		5	/* loop rounds showing nothing comes */
#define TT_ISN			0xffffff00U	/* the guest's wraps at once */
#define TT_GPORT		40000	/* the guest's port, outbound */
#define TT_GUEST4		"192.0.2.10"
#define TT_GW4			"192.0.2.1"
#define TT_GUEST6		"2001:db8:1:2::10"
#define TT_GW6			"2001:db8:1:2::1"

static struct ctx tt_ctx;
static int tt_guest = -1;		/* our end of the guest socket pair */
static uint64_t tt_now;			/* the time every handler sees */
static uint16_t tt_fwd_port;		/* the relay's -t port */
static uint8_t tt_rx[TT_RX_SIZE];	/* bytes read from the guest socket */
static size_t tt_rx_fill;
static uint8_t tt_frame[TT_FRAME_MAX];	/* last frame taken from tt_rx */
/* Frames of the current batch from the guest, in 8-byte aligned rows */
static uint8_t tt_batch[TT_BATCH_MAX][TT_FRAME_ROW]
	__attribute__((aligned(8)));
static unsigned int tt_batch_n;
static bool tt_batch_open;

/* SYN options of a modern guest: MSS, window scale, SACK permitted; the
 * first TT_SYN_OPTS_NO_SACK bytes are the first two only
 */
#define TT_SYN_OPTS_NO_SACK	8
static const uint8_t tt_syn_opts[] = {
	TCPOPT_MAXSEG, TCPOLEN_MAXSEG, TT_MSS >> 8, TT_MSS & 0xff,
	TCPOPT_NOP, TCPOPT_WINDOW, TCPOLEN_WINDOW, TT_WS_GUEST,
	TCPOPT_NOP, TCPOPT_NOP, TCPOPT_SACK_PERMITTED, TCPOLEN_SACK_PERMITTED,
};

/* ---- The relay: set-up and main loop (adapt these to the core) ---- */

/**
 * tt_free_port() - a TCP port free on both families right now
 *
 * Return: port number
 */
static inline uint16_t tt_free_port(void)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	socklen_t sl = sizeof(a);
	int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&a, sl), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&a, &sl), 0);
	close(s);
	return ntohs(a.sin6_port);
}

/**
 * tt_setup() - a relay with a socket-pair guest and TCP, forwarding a port
 * @wmem:	--tcp-wmem for the relay's host sockets, 0 for the default
 */
static inline void tt_setup(int wmem)
{
	char spec[8], e[128] = "";
	int sv[2];

	signal(SIGPIPE, SIG_IGN);
	tf_ctx(&tt_ctx);
	tt_ctx.mode = MODE_PASST;
	tt_ctx.mtu = TT_MTU;
	tt_ctx.flow_max = TT_FLOWS;
	tt_ctx.tcp_wmem = wmem;
	log_set_level(getenv("TT_LOG") ? LOG_DEBUG : LOG_WARNING);
	inet_pton(AF_INET, TT_GUEST4, &tt_ctx.ip4.addr);
	inet_pton(AF_INET, TT_GW4, &tt_ctx.ip4.gw);
	tt_ctx.ip4.map_host_lo = tt_ctx.ip4.gw;
	inet_pton(AF_INET6, TT_GUEST6, &tt_ctx.ip6.addr);
	inet_pton(AF_INET6, TT_GW6, &tt_ctx.ip6.gw);
	tt_ctx.ip6.map_host_lo = tt_ctx.ip6.gw;
	tt_ctx.tcp_to_host.mode = FWD_NONE;
	tt_ctx.udp_to_guest.mode = tt_ctx.udp_to_host.mode = FWD_NONE;

	tt_fwd_port = tt_free_port();
	snprintf(spec, sizeof(spec), "%u", tt_fwd_port);
	ck_assert_msg(!fwd_parse(&tt_ctx.tcp_to_guest, spec, e, sizeof(e)),
		      "-t %s: %s", spec, e);
	fwd_finalise(&tt_ctx.tcp_to_guest, true, true, NULL, 0);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tt_ctx.fd_tap_preopened = sv[0];
	tt_guest = sv[1];

	tt_ctx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(tt_ctx.epollfd, 0);
	ck_assert_int_eq(flow_table_init(TT_FLOWS), 0);
	ck_assert_int_eq(qdisc_init(TT_FLOWS), 0);
	ck_assert_int_eq(timer_wheel_init(&tt_ctx, -1), 0);	/* virtual */
	relay_sink_set();
	ck_assert_int_eq(tap_init(&tt_ctx), 0);
	ck_assert_int_eq(tcp_init(&tt_ctx), 0);
	ck_assert_int_eq(fwd_listen_init(&tt_ctx), 0);
	tt_now = 1000000;
	tt_rx_fill = 0;
	tt_batch_n = 0;
	tt_batch_open = false;
}

/**
 * tt_dispatch() - hand one event of the relay's epoll set to its handler
 * @ev:		the event
 */
static inline void tt_dispatch(const struct epoll_event *ev)
{
	union epoll_ref ref = { .u64 = ev->data.u64 };

	switch (ref.type) {
	case EPOLL_TYPE_TCP:
		tcp_sock_handler(&tt_ctx, ref, ev->events, tt_now);
		break;
	case EPOLL_TYPE_TCP_LISTEN:
		tcp_listen_handler(&tt_ctx, ref, ev->events, tt_now);
		break;
	default:			/* the guest's socket */
		tap_handler(&tt_ctx, ref, ev->events, tt_now);
		break;
	}
}

/**
 * tt_pump() - one main loop iteration: wait, dispatch, deferred work, output
 * @timeout_ms:	epoll_wait() timeout
 */
static inline void tt_pump(int timeout_ms)
{
	struct epoll_event ev[16];
	int n, i;

	n = epoll_wait(tt_ctx.epollfd, ev, 16, timeout_ms);
	ck_assert_int_ge(n, 0);
	for (i = 0; i < n; i++)
		tt_dispatch(&ev[i]);
	tcp_defer_handler(&tt_ctx, tt_now);
	qdisc_run(&tt_ctx, tt_now);
}

/**
 * tt_advance() - move virtual time on, run the timers due, then the loop
 * @ms:		milliseconds
 */
static inline void tt_advance(uint64_t ms)
{
	tt_now += ms;
	timer_handler(&tt_ctx, tt_now);
	tt_pump(0);
}

/**
 * tt_batch_end() - end a batch of guest frames, as a backend does, and run
 *		    the loop once
 */
static inline void tt_batch_end(void)
{
	net_input_done(&tt_ctx);
	tt_batch_n = 0;
	tt_batch_open = false;
	tt_pump(0);
}

/**
 * tt_batch_begin() - hold the frames from the guest in one batch until
 *		      tt_batch_end()
 */
static inline void tt_batch_begin(void)
{
	tt_batch_open = true;
}

/**
 * tt_input() - a frame from the guest, in place until its batch ends: a
 *		batch of its own unless tt_batch_begin() opened one
 * @f:		frame
 * @len:	its length
 */
static inline void tt_input(const uint8_t *f, size_t len)
{
	/* The IP header 4-byte aligned, as the stream backend has it */
	uint8_t *b = tt_batch[tt_batch_n] + 2;

	ck_assert_uint_le(len, TT_FRAME_MAX);
	ck_assert_uint_lt(tt_batch_n, TT_BATCH_MAX);
	tt_batch_n++;
	memcpy(b, f, len);
	net_input(&tt_ctx, b, len, tt_now);
	if (!tt_batch_open)
		tt_batch_end();
}

/* ---- Time and the host side ---- */

/**
 * tt_ms() - monotonic wall-clock time, to bound waits
 *
 * Return: milliseconds
 */
static inline uint64_t tt_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/**
 * tt_loopback() - socket address of 127.0.0.1 or ::1
 * @v4:		127.0.0.1 (else ::1)
 * @port:	port
 * @ss:		output
 *
 * Return: its length
 */
static inline socklen_t tt_loopback(bool v4, uint16_t port,
				    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (v4) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*a4);
	}
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons(port);
	a6->sin6_addr = in6addr_loopback;
	return sizeof(*a6);
}

/**
 * tt_port_of() - port of a bound socket
 * @s:		socket
 *
 * Return: port, host order
 */
static inline uint16_t tt_port_of(int s)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in a4;
		struct sockaddr_in6 a6;
	} a;
	socklen_t sl = sizeof(a);

	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(getsockname(s, &a.sa, &sl), 0);
	return ntohs(a.sa.sa_family == AF_INET ? a.a4.sin_port
					       : a.a6.sin6_port);
}

/**
 * tt_listener() - a host-side server on 127.0.0.1 or ::1, ephemeral port
 * @v4:		127.0.0.1 (else ::1)
 * @rcvbuf:	SO_RCVBUF of accepted sockets, 0 for the default
 * @port:	output: its port
 *
 * Return: listening socket
 */
static inline int tt_listener(bool v4, int rcvbuf, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = tt_loopback(v4, 0, &ss);
	int s;

	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   0);
	ck_assert_int_ge(s, 0);
	if (rcvbuf)
		ck_assert_int_eq(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
					    sizeof(rcvbuf)), 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&ss, sl), 0);
	ck_assert_int_eq(listen(s, 4), 0);
	*port = tt_port_of(s);
	return s;
}

/**
 * tt_accept() - accept the relay's connection, running the relay meanwhile
 * @l:		listening socket
 *
 * Return: accepted non-blocking socket
 */
static inline int tt_accept(int l)
{
	uint64_t end = tt_ms() + TT_WAIT_MS;
	int s;

	while ((s = accept4(l, NULL, NULL, SOCK_NONBLOCK)) < 0) {
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_msg(tt_ms() < end, "the relay never connected");
		tt_pump(10);
	}
	return s;
}

/**
 * tt_host_recv() - read exactly @len bytes on a host socket
 * @s:		socket, non-blocking
 * @buf:	output
 * @len:	bytes expected
 */
static inline void tt_host_recv(int s, uint8_t *buf, size_t len)
{
	uint64_t end = tt_ms() + TT_WAIT_MS;
	size_t got = 0;

	while (got < len) {
		ssize_t n = recv(s, buf + got, len - got, MSG_DONTWAIT);

		ck_assert_msg(n, "host: end of file after %zu of %zu bytes",
			      got, len);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_msg(tt_ms() < end, "host: %zu of %zu bytes", got,
			      len);
		tt_pump(10);
	}
}

/**
 * tt_host_end() - wait for the end of a host socket's data
 * @s:		socket, non-blocking
 *
 * Return: 0 for an orderly end of file, else the error of recv()
 */
static inline int tt_host_end(int s)
{
	uint64_t end = tt_ms() + TT_WAIT_MS;
	uint8_t b;
	ssize_t n;

	while ((n = recv(s, &b, 1, MSG_DONTWAIT)) < 0 && errno == EAGAIN) {
		ck_assert_msg(tt_ms() < end, "host: connection never ended");
		tt_pump(10);
	}
	ck_assert_msg(n <= 0, "host: data after the expected end");
	return n ? errno : 0;
}

/**
 * tt_host_idle() - nothing is readable on a host socket
 * @s:		socket
 */
static inline void tt_host_idle(int s)
{
	uint8_t b;

	ck_assert_int_eq(recv(s, &b, 1, MSG_DONTWAIT | MSG_PEEK), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

/**
 * tt_host_delivered() - wait until the relay's socket has all the host sent
 * @s:		host socket
 *
 * On loopback, the relay's kernel acknowledges data as it queues it: with
 * nothing unacknowledged left, the relay's socket is readable, and the next
 * loop round sees it. Cases that move virtual time on right after the host
 * sends use this, so that the relay sees the data before, however late the
 * machine delivers it.
 */
static inline void tt_host_delivered(int s)
{
	uint64_t end = tt_ms() + TT_WAIT_MS;
	int unacked;

	for (;;) {
		ck_assert_int_eq(ioctl(s, SIOCOUTQ, &unacked), 0);
		if (!unacked)
			break;
		ck_assert_msg(tt_ms() < end, "host: %i bytes never delivered",
			      unacked);
		tt_pump(10);
	}
	tt_pump(0);
}

/**
 * tt_host_send() - write all of @len bytes on a host socket
 * @s:		socket
 * @data:	data
 * @len:	its length
 */
static inline void tt_host_send(int s, const void *data, size_t len)
{
	ck_assert_int_eq(send(s, data, len, MSG_NOSIGNAL), (ssize_t)len);
}

/**
 * tt_pattern() - test data: byte @i of a stream named by @seed
 * @buf:	output
 * @len:	bytes
 * @seed:	which stream
 */
static inline void tt_pattern(uint8_t *buf, size_t len,
			      unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 131 + i / 251 + seed * 17) ^ seed);
}

/* ---- The guest's TCP: segments in, frames out ---- */

/**
 * struct tt_conn - the guest's end of one connection
 * @v4:		IPv4 (else IPv6)
 * @guest:	the guest's address, text
 * @remote:	the remote address as the guest sees it, text
 * @gport:	the guest's port
 * @rport:	the remote port
 * @snd_nxt:	next sequence number the guest sends
 * @rcv_nxt:	next sequence number expected from the relay
 * @win:	window field the guest sends
 * @ws_relay:	the relay's window scale (what its window fields mean)
 */
struct tt_conn {
	bool v4;
	const char *guest;
	const char *remote;
	uint16_t gport;
	uint16_t rport;
	uint32_t snd_nxt;
	uint32_t rcv_nxt;
	uint16_t win;
	uint8_t ws_relay;
};

/**
 * struct tt_seg - a segment the relay sent to the guest, decoded
 * @flags:	TCP flags
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @win:	window field
 * @mss:	MSS option, -1 if absent
 * @ws:		window scale option, -1 if absent
 * @sack_ok:	SACK permitted option present
 * @nsack:	SACK blocks
 * @sack:	their edges: start, end
 * @data:	payload, in tt_frame
 * @len:	payload length
 */
struct tt_seg {
	uint8_t flags;
	uint32_t seq;
	uint32_t ack;
	uint16_t win;
	int mss;
	int ws;
	bool sack_ok;
	unsigned int nsack;
	uint32_t sack[4][2];
	const uint8_t *data;
	size_t len;
};

/**
 * tt_put32() - write a big-endian 32-bit value
 * @p:		destination
 * @v:		value
 */
static inline void tt_put32(uint8_t *p, uint32_t v)
{
	tf_put16(p, (uint16_t)(v >> 16));
	tf_put16(p + 2, (uint16_t)v);
}

/**
 * tt_pseudo() - naive pseudo-header sum for the IP header of a frame
 * @ip:		IP header, addresses filled in
 * @v4:		IPv4 (else IPv6)
 * @l4len:	TCP segment length
 *
 * Return: sum for tf_sum()
 */
static inline uint32_t tt_pseudo(const uint8_t *ip, bool v4,
				 size_t l4len)
{
	struct in6_addr s6, d6;
	struct in_addr s4, d4;

	if (v4) {
		memcpy(&s4, ip + 12, 4);
		memcpy(&d4, ip + 16, 4);
		return tf_pseudo4(s4, d4, IPPROTO_TCP, (uint16_t)l4len);
	}
	memcpy(&s6, ip + 8, 16);
	memcpy(&d6, ip + 24, 16);
	return tf_pseudo6(&s6, &d6, IPPROTO_TCP, (uint32_t)l4len);
}

/**
 * tt_conn_init() - the guest's end of a connection, before its handshake
 * @k:		connection
 * @v4:		IPv4 (else IPv6)
 * @gport:	the guest's port
 * @rport:	the remote port
 */
static inline void tt_conn_init(struct tt_conn *k, bool v4,
				uint16_t gport, uint16_t rport)
{
	memset(k, 0, sizeof(*k));
	k->v4 = v4;
	k->guest = v4 ? TT_GUEST4 : TT_GUEST6;
	k->remote = v4 ? TT_GW4 : TT_GW6;
	k->gport = gport;
	k->rport = rport;
	k->snd_nxt = TT_ISN;
	k->win = 65535;
}

/**
 * tt_segment() - send one segment as the guest
 * @k:		connection
 * @flags:	TCP flags (with TH_ACK, @k->rcv_nxt is acknowledged)
 * @seq:	sequence number
 * @opts:	options, a multiple of 4 bytes, NULL for none
 * @optlen:	their length
 * @data:	payload, NULL for none
 * @dlen:	its length
 */
static inline void tt_segment(const struct tt_conn *k, uint8_t flags,
			      uint32_t seq, const uint8_t *opts, size_t optlen,
			      const void *data, size_t dlen)
{
	uint8_t f[TT_FRAME_MAX];
	size_t l4len = 20 + optlen + dlen, off;
	uint8_t *ip = f + 14, *th;

	off = tf_eth(f, tf_our_mac, tf_guest_mac, k->v4 ? 0x0800 : 0x86dd);
	if (k->v4)
		off += tf_ip4(ip, k->guest, k->remote, IPPROTO_TCP, l4len);
	else
		off += tf_ip6(ip, k->guest, k->remote, IPPROTO_TCP, 64, l4len);
	ck_assert_uint_le(off + l4len, sizeof(f));

	th = f + off;
	memset(th, 0, 20);
	tf_put16(th, k->gport);
	tf_put16(th + 2, k->rport);
	tt_put32(th + 4, seq);
	tt_put32(th + 8, (flags & TH_ACK) ? k->rcv_nxt : 0);
	th[12] = (uint8_t)(((20 + optlen) / 4) << 4);
	th[13] = flags;
	tf_put16(th + 14, k->win);
	if (optlen)
		memcpy(th + 20, opts, optlen);
	if (dlen)
		memcpy(th + 20 + optlen, data, dlen);
	tf_put16(th + 16, tf_finish(tf_sum(th, l4len,
					   tt_pseudo(ip, k->v4, l4len))));
	tt_input(f, off + l4len);
}

/**
 * tt_send_data() - the guest sends in-order data (ACK and PSH set)
 * @k:		connection
 * @data:	payload
 * @len:	its length
 * @fin:	with FIN
 */
static inline void tt_send_data(struct tt_conn *k, const void *data,
				size_t len, bool fin)
{
	tt_segment(k, TH_ACK | TH_PUSH | (fin ? TH_FIN : 0), k->snd_nxt,
		   NULL, 0, data, len);
	k->snd_nxt += (uint32_t)len + fin;
}

/**
 * tt_send_ack() - the guest acknowledges up to @k->rcv_nxt
 * @k:		connection
 */
static inline void tt_send_ack(const struct tt_conn *k)
{
	tt_segment(k, TH_ACK, k->snd_nxt, NULL, 0, NULL, 0);
}

/**
 * tt_parse_opts() - decode the options of a segment to the guest
 * @o:		options
 * @len:	their length
 * @g:		decoded segment, options filled here
 */
static inline void tt_parse_opts(const uint8_t *o, size_t len,
				 struct tt_seg *g)
{
	size_t i = 0, j;

	g->mss = g->ws = -1;
	while (i < len && o[i] != TCPOPT_EOL) {
		if (o[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		ck_assert_uint_ge(len - i, 2);
		ck_assert_uint_ge(o[i + 1], 2);
		ck_assert_uint_le(o[i + 1], len - i);
		if (o[i] == TCPOPT_MAXSEG && o[i + 1] == TCPOLEN_MAXSEG)
			g->mss = tf_get16(o + i + 2);
		else if (o[i] == TCPOPT_WINDOW && o[i + 1] == TCPOLEN_WINDOW)
			g->ws = o[i + 2];
		else if (o[i] == TCPOPT_SACK_PERMITTED)
			g->sack_ok = true;
		if (o[i] == TCPOPT_SACK) {
			ck_assert_uint_eq((o[i + 1] - 2U) % 8, 0);
			g->nsack = (o[i + 1] - 2U) / 8;
			ck_assert_uint_le(g->nsack, 4);
			for (j = 0; j < g->nsack; j++) {
				g->sack[j][0] = tf_get32(o + i + 2 + j * 8);
				g->sack[j][1] = tf_get32(o + i + 6 + j * 8);
			}
		}
		i += o[i + 1];
	}
}

/**
 * tt_addr_is() - compare an address in a frame with a text address
 * @p:		address bytes
 * @v4:		IPv4 (else IPv6)
 * @text:	expected address
 *
 * Return: true if equal
 */
static inline bool tt_addr_is(const uint8_t *p, bool v4, const char *text)
{
	uint8_t a[16];

	ck_assert_int_eq(inet_pton(v4 ? AF_INET : AF_INET6, text, a), 1);
	return !memcmp(p, a, v4 ? 4 : 16);
}

/**
 * tt_parse() - check and decode a frame to the guest
 * @k:		connection it should belong to
 * @len:	frame length, the frame in tt_frame
 * @g:		output
 *
 * Every layer is checked: Ethernet type and our MAC, IP version, length,
 * addresses and header checksum, TCP checksum with the naive reference.
 *
 * Return: true if it is a segment of @k, false if of another connection
 */
static inline bool tt_parse(const struct tt_conn *k, size_t len,
			    struct tt_seg *g)
{
	const uint8_t *ip = tt_frame + 14, *th;
	size_t iphl = k->v4 ? 20 : 40, l4len, hl;

	ck_assert_uint_ge(len, 14 + iphl + 20);
	ck_assert(!memcmp(tt_frame + 6, tf_our_mac, 6));
	ck_assert_uint_eq(tf_get16(tt_frame + 12), k->v4 ? 0x0800 : 0x86dd);
	if (k->v4) {
		ck_assert_uint_eq(ip[0], 0x45);
		ck_assert_uint_eq(ip[9], IPPROTO_TCP);
		ck_assert_uint_eq(tf_get16(ip + 2), len - 14);
		ck_assert_uint_eq(tf_finish(tf_sum(ip, 20, 0)), 0);
	} else {
		ck_assert_uint_eq(ip[0] >> 4, 6);
		ck_assert_uint_eq(ip[6], IPPROTO_TCP);
		ck_assert_uint_eq(tf_get16(ip + 4), len - 14 - 40);
	}
	ck_assert(tt_addr_is(ip + (k->v4 ? 12 : 8), k->v4, k->remote));
	ck_assert(tt_addr_is(ip + (k->v4 ? 16 : 24), k->v4, k->guest));

	th = ip + iphl;
	l4len = len - 14 - iphl;
	if (tf_get16(th) != k->rport || tf_get16(th + 2) != k->gport)
		return false;
	ck_assert_uint_eq(tf_finish(tf_sum(th, l4len,
					   tt_pseudo(ip, k->v4, l4len))), 0);
	hl = (size_t)(th[12] >> 4) * 4;
	ck_assert_uint_ge(hl, 20);
	ck_assert_uint_le(hl, l4len);

	memset(g, 0, sizeof(*g));
	g->seq = tf_get32(th + 4);
	g->ack = tf_get32(th + 8);
	g->flags = th[13];
	g->win = tf_get16(th + 14);
	tt_parse_opts(th + 20, hl - 20, g);
	g->data = th + hl;
	g->len = l4len - hl;
	return true;
}

/**
 * tt_frame_take() - the next whole frame the guest end received, if any
 *
 * Return: its length, in tt_frame, or 0 if no whole frame is there yet
 */
static inline size_t tt_frame_take(void)
{
	ssize_t n;
	size_t len;

	n = recv(tt_guest, tt_rx + tt_rx_fill, sizeof(tt_rx) - tt_rx_fill,
		 MSG_DONTWAIT);
	ck_assert_msg(n, "the relay closed the guest socket");
	if (n > 0)
		tt_rx_fill += (size_t)n;
	else
		ck_assert_int_eq(errno, EAGAIN);

	if (tt_rx_fill < 4)
		return 0;
	len = tf_get32(tt_rx);
	ck_assert_uint_ge(len, 14);
	ck_assert_uint_le(len, sizeof(tt_frame));
	if (tt_rx_fill - 4 < len)
		return 0;
	memcpy(tt_frame, tt_rx + 4, len);
	tt_rx_fill -= 4 + len;
	memmove(tt_rx, tt_rx + 4 + len, tt_rx_fill);
	return len;
}

/**
 * tt_next() - the next segment of a connection, running the relay meanwhile
 * @k:		connection
 * @g:		output
 * @wait:	keep trying for up to TT_WAIT_MS (else TT_QUIET_ROUNDS rounds)
 *
 * Return: true if a segment came
 */
static inline bool tt_next(const struct tt_conn *k, struct tt_seg *g,
			   bool wait)
{
	uint64_t end = tt_ms() + TT_WAIT_MS;
	unsigned int rounds = 0;
	size_t len;

	for (;;) {
		while ((len = tt_frame_take())) {
			if (tt_parse(k, len, g))
				return true;
		}
		if (wait ? tt_ms() > end : rounds++ >= TT_QUIET_ROUNDS)
			return false;
		tt_pump(wait ? 10 : 2);
	}
}

/**
 * tt_expect() - the relay must send a segment of this connection
 * @k:		connection
 * @g:		output
 * @why:	what the segment is, for the message
 */
static inline void tt_expect(const struct tt_conn *k, struct tt_seg *g,
			     const char *why)
{
	ck_assert_msg(tt_next(k, g, true), "%s: no segment from the relay",
		      why);
}

/**
 * tt_expect_none() - the relay sends nothing on this connection now
 * @k:		connection
 * @why:	what the check is about, for the message
 */
static inline void tt_expect_none(const struct tt_conn *k,
				  const char *why)
{
	struct tt_seg g;

	ck_assert_msg(!tt_next(k, &g, false),
		      "%s: unexpected segment: flags 0x%02x seq %u len %zu",
		      why, g.flags, g.seq, g.len);
}

/**
 * tt_expect_ack() - the relay must acknowledge everything the guest sent
 * @k:		connection
 * @g:		output: the ACK
 */
static inline void tt_expect_ack(const struct tt_conn *k, struct tt_seg *g)
{
	tt_expect(k, g, "ACK");
	ck_assert_uint_eq(g->flags, TH_ACK);
	ck_assert_uint_eq(g->ack, k->snd_nxt);
	ck_assert_uint_eq(g->seq, k->rcv_nxt);
	ck_assert_uint_eq(g->len, 0);
}

/**
 * tt_guest_recv() - the guest receives data in order and acknowledges it
 * @k:		connection
 * @buf:	output
 * @len:	bytes expected
 * @max_seg:	largest segment allowed (the guest's MSS)
 * @fin:	a FIN must follow the data, and is acknowledged too
 */
static inline void tt_guest_recv(struct tt_conn *k, uint8_t *buf,
				 size_t len, size_t max_seg, bool fin)
{
	size_t got = 0;
	struct tt_seg g;

	while (got < len || fin) {
		tt_expect(k, &g, "data to the guest");
		ck_assert_uint_eq(g.seq, k->rcv_nxt);
		ck_assert_uint_eq(g.flags & (TH_SYN | TH_RST), 0);
		ck_assert(g.flags & TH_ACK);
		ck_assert_uint_eq(g.ack, k->snd_nxt);
		ck_assert_uint_le(g.len, len - got);
		ck_assert_uint_le(g.len, max_seg);
		memcpy(buf + got, g.data, g.len);
		got += g.len;
		k->rcv_nxt += (uint32_t)g.len;
		if (g.flags & TH_FIN) {
			ck_assert_msg(fin && got == len, "early FIN");
			k->rcv_nxt++;
			fin = false;
		}
		tt_send_ack(k);
	}
}

#endif /* TESTS_UNIT_TCP_HARNESS_H */
