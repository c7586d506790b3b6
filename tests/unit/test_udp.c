// SPDX-License-Identifier: GPL-2.0-or-later
/* test_udp.c - unit tests for UDP flows (udp/) and ICMP echo (net/icmp.c)
 *
 * Theory of operation: each test (forked by Check) sets up a relay in
 * passt mode whose guest is one end of a socket pair, adopted as the -F
 * descriptor by the stream backend: frames the relay sends to the guest
 * are read from the other end (4-byte length, then the frame), and frames
 * from the guest are handed to net_input() directly. The "host" side is
 * sockets of the test on 127.0.0.1 and ::1 in the test's own network
 * namespace, reached through the gateway addresses (--map-host-loopback
 * behaviour), so no privilege is needed. The relay is driven through its
 * epoll set like the main loop, and fed fake times to check the idle
 * timeout.
 *
 * Checked: payloads both ways and the guest's source port kept on the
 * host; datagrams of one batch sent in segmented runs (UDP GSO) and
 * received one by one with their lengths, contents and order, and sent one
 * at a time where the kernel refuses to segment (a loopback MTU below
 * their size, in a network namespace of the test's own); header fields
 * and checksums of frames to the guest; ICMP errors
 * quoting the guest's datagram for a closed port; datagrams over the MTU
 * dropped without disturbing the others of the same batch; the idle
 * timeout and its renewal by traffic; -u forwarding both ways, to the
 * guest's link-local address for a link-local source once the guest sent
 * from it (its global one before); answers to
 * --dns-forward queries coming from the --dns-forward address (where port
 * 53 on loopback can be bound); no flow for broadcast or multicast
 * destinations; ICMP echo
 * with the guest's identifier restored, or, where ping sockets are not
 * allowed, a clean drop.
 */

#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "net_frames.h"
#include "../../conf/ctx.h"
#include "../../conf/fwd_spec.h"
#include "../../flow/flow.h"
#include "../../guest/guest.h"
#include "../../net/icmp.h"
#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"
#include "relay_sink.h"
#include "../../udp/udp.h"
#include "../../fwd/fwd_listen.h"
#include "../../udp/udp_internal.h"
#include "../../util/epoll_ref.h"
#include "../../util/timer.h"

#define TU_FLOWS		32
#define TU_FRAME_MAX		(70 * 1024)
#define TU_WAIT_MS		2000
#define TU_GUEST4		"192.0.2.10"
#define TU_GW4			"192.0.2.1"
#define TU_GUEST6		"2001:db8:1:2::10"
#define TU_GW6			"2001:db8:1:2::1"

static struct ctx tu_ctx;
static int tu_guest = -1;	/* our end of the guest socket pair */
static uint8_t tu_frame[TU_FRAME_MAX];

/**
 * tu_setup() - a relay with a socket-pair guest, UDP and ICMP set up
 * @udp_to_guest:	-u specification, NULL for none
 */
static void tu_setup(const char *udp_to_guest)
{
	int sv[2];

	tf_ctx(&tu_ctx);
	tu_ctx.mode = MODE_PASST;
	tu_ctx.flow_max = TU_FLOWS;
	inet_pton(AF_INET, TU_GUEST4, &tu_ctx.ip4.addr);
	tu_ctx.ip4.map_host_lo = tu_ctx.ip4.gw;
	inet_pton(AF_INET6, TU_GUEST6, &tu_ctx.ip6.addr);
	inet_pton(AF_INET6, TU_GW6, &tu_ctx.ip6.gw);
	tu_ctx.ip6.map_host_lo = tu_ctx.ip6.gw;
	tu_ctx.tcp_to_guest.mode = tu_ctx.tcp_to_host.mode = FWD_NONE;
	tu_ctx.udp_to_host.mode = FWD_NONE;
	if (udp_to_guest) {
		char e[128] = "";

		ck_assert_msg(!fwd_parse(&tu_ctx.udp_to_guest, udp_to_guest, e,
					 sizeof(e)), "-u %s: %s", udp_to_guest, e);
		fwd_finalise(&tu_ctx.udp_to_guest, true, true, NULL, 0);
	} else {
		tu_ctx.udp_to_guest.mode = FWD_NONE;
	}

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	tu_ctx.fd_tap_preopened = sv[0];
	tu_guest = sv[1];

	tu_ctx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(tu_ctx.epollfd, 0);
	ck_assert_int_eq(flow_table_init(TU_FLOWS), 0);
	ck_assert_int_eq(qdisc_init(TU_FLOWS), 0);
	ck_assert_int_eq(timer_wheel_init(&tu_ctx, tu_ctx.epollfd), 0);
	relay_sink_set();
	ck_assert_int_eq(tap_init(&tu_ctx), 0);
	ck_assert_int_eq(udp_init(&tu_ctx), 0);
	ck_assert_int_eq(fwd_listen_init(&tu_ctx), 0);
	ck_assert_int_eq(icmp_init(&tu_ctx), 0);
}

/**
 * tu_input() - a batch of one frame from the guest, as a backend hands it
 * @f:		frame
 * @len:	its length
 * @now_ms:	current time
 */
static void tu_input(const uint8_t *f, size_t len, uint64_t now_ms)
{
	net_input(&tu_ctx, f, len, now_ms);
	net_input_done(&tu_ctx);
}

/**
 * tu_pump() - one main loop iteration: wait, dispatch, run the scheduler
 * @timeout_ms:	epoll_wait() timeout
 */
static void tu_pump(int timeout_ms)
{
	struct epoll_event ev[16];
	uint64_t now;
	int n, i;

	n = epoll_wait(tu_ctx.epollfd, ev, 16, timeout_ms);
	ck_assert_int_ge(n, 0);
	now = timer_now_ms();

	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		switch (ref.type) {
		case EPOLL_TYPE_UDP:
			udp_sock_handler(&tu_ctx, ref, ev[i].events, now);
			break;
		case EPOLL_TYPE_PING:
			icmp_sock_handler(&tu_ctx, ref, ev[i].events, now);
			break;
		case EPOLL_TYPE_TIMER:
			timer_handler(&tu_ctx, now);
			break;
		default:
			tap_handler(&tu_ctx, ref, ev[i].events, now);
			break;
		}
	}
	qdisc_run(&tu_ctx, now);
}

/**
 * tu_read_frame() - next frame the relay sent to the guest
 * @timeout_ms:	how long to keep the relay running while waiting
 *
 * Return: frame length in tu_frame, 0 if none came in time
 */
static size_t tu_read_frame(int timeout_ms)
{
	struct timespec t0, t;
	uint8_t hdr[4];
	size_t len;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = tu_guest, .events = POLLIN };

		if (poll(&pfd, 1, 0) == 1)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return 0;
		tu_pump(20);
	}

	ck_assert_int_eq(recv(tu_guest, hdr, 4, MSG_WAITALL), 4);
	len = tf_get32(hdr);
	ck_assert_uint_le(len, sizeof(tu_frame));
	ck_assert_int_eq(recv(tu_guest, tu_frame, len, MSG_WAITALL),
			 (ssize_t)len);
	return len;
}

/**
 * tu_udp_frame() - build a UDP frame from the guest
 * @f:		output, at least TU_FRAME_MAX bytes
 * @v4:		IPv4 (else IPv6)
 * @src:	source address
 * @dst:	destination address
 * @sport:	source port
 * @dport:	destination port
 * @payload:	payload
 * @plen:	its length
 *
 * Return: frame length
 */
static size_t tu_udp_frame(uint8_t *f, bool v4, const char *src,
			   const char *dst, uint16_t sport, uint16_t dport,
			   const void *payload, size_t plen)
{
	size_t off = tf_eth(f, tf_our_mac, tf_guest_mac,
			    v4 ? 0x0800 : 0x86dd);
	size_t l4len = 8 + plen;
	uint8_t *uh;
	uint32_t sum;

	if (v4)
		off += tf_ip4(f + off, src, dst, IPPROTO_UDP, l4len);
	else
		off += tf_ip6(f + off, src, dst, IPPROTO_UDP, 64, l4len);

	uh = f + off;
	tf_put16(uh, sport);
	tf_put16(uh + 2, dport);
	tf_put16(uh + 4, (uint16_t)l4len);
	tf_put16(uh + 6, 0);
	memcpy(uh + 8, payload, plen);

	if (v4) {
		struct in_addr s, d;

		inet_pton(AF_INET, src, &s);
		inet_pton(AF_INET, dst, &d);
		sum = tf_pseudo4(s, d, IPPROTO_UDP, (uint16_t)l4len);
	} else {
		struct in6_addr s, d;

		inet_pton(AF_INET6, src, &s);
		inet_pton(AF_INET6, dst, &d);
		sum = tf_pseudo6(&s, &d, IPPROTO_UDP, (uint32_t)l4len);
	}
	tf_put16(uh + 6, tf_finish(tf_sum(uh, l4len, sum)));
	return off + l4len;
}

/**
 * tu_l4_sum_ok() - verify the L4 checksum of a frame to the guest
 * @f:		frame
 * @v4:		IPv4 (else IPv6)
 * @proto:	L4 protocol
 *
 * Return: true if the checksum over pseudo-header and segment is valid
 */
static bool tu_l4_sum_ok(const uint8_t *f, bool v4, uint8_t proto)
{
	const uint8_t *ip = f + 14;
	struct in_addr s4, d4;
	uint32_t sum;
	size_t l4len;

	if (!v4) {
		struct in6_addr s, d;

		memcpy(&s, ip + 8, 16);
		memcpy(&d, ip + 24, 16);
		l4len = tf_get16(ip + 4);
		sum = tf_pseudo6(&s, &d, proto, (uint32_t)l4len);
		return !tf_finish(tf_sum(ip + 40, l4len, sum));
	}

	memcpy(&s4, ip + 12, 4);
	memcpy(&d4, ip + 16, 4);
	l4len = tf_get16(ip + 2) - 20U;
	sum = proto == IPPROTO_ICMP ? 0
				    : tf_pseudo4(s4, d4, proto,
						 (uint16_t)l4len);
	return !tf_finish(tf_sum(ip + 20, l4len, sum));
}

/**
 * tu_addr_is() - compare an address in a frame with a text address
 * @p:		address bytes
 * @v4:		IPv4 (else IPv6)
 * @text:	expected address
 *
 * Return: true if equal
 */
static bool tu_addr_is(const uint8_t *p, bool v4, const char *text)
{
	uint8_t a[16];

	inet_pton(v4 ? AF_INET : AF_INET6, text, a);
	return !memcmp(p, a, v4 ? 4 : 16);
}

/**
 * tu_server() - a UDP socket on the host's loopback, ephemeral port
 * @v4:		127.0.0.1 (else ::1)
 * @port:	output: its port
 *
 * Return: socket
 */
static int tu_server(bool v4, uint16_t *port)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	socklen_t sl = v4 ? sizeof(*a4) : sizeof(*a6);
	int s;

	if (v4) {
		a4->sin_family = AF_INET;
		a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_loopback;
	}
	s = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&ss, sl), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&ss, &sl), 0);
	*port = ntohs(v4 ? a4->sin_port : a6->sin6_port);
	return s;
}

/**
 * tu_free_port() - a UDP port free on loopback right now
 * @v4:		IPv4 (else IPv6)
 *
 * Return: port number
 */
static uint16_t tu_free_port(bool v4)
{
	uint16_t port;
	int s = tu_server(v4, &port);

	close(s);
	return port;
}

/**
 * tu_recv_from() - receive a datagram on a test socket, with a timeout
 * @s:		socket
 * @buf:	buffer
 * @size:	its size
 * @peer:	output: source
 *
 * Return: datagram length
 */
static ssize_t tu_recv_from(int s, void *buf, size_t size,
			    struct sockaddr_storage *peer)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	socklen_t sl = sizeof(*peer);

	ck_assert_int_eq(poll(&pfd, 1, TU_WAIT_MS), 1);
	return recvfrom(s, buf, size, MSG_DONTWAIT, (struct sockaddr *)peer,
			&sl);
}

/**
 * tu_port_of() - port of a socket address
 * @ss:		socket address
 *
 * Return: port, host order
 */
static uint16_t tu_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

/**
 * tu_out_reply() - guest datagram out, host reply back, fields checked
 * @v4:		IPv4 (else IPv6)
 */
static void tu_out_reply(bool v4)
{
	const char *guest = v4 ? TU_GUEST4 : TU_GUEST6;
	const char *gw = v4 ? TU_GW4 : TU_GW6;
	size_t off = 14 + (v4 ? 20 : 40), len;
	uint16_t sport = tu_free_port(v4), port;
	struct sockaddr_storage peer;
	uint8_t f[256], buf[64];
	int s = tu_server(v4, &port);

	tu_setup(NULL);
	len = tu_udp_frame(f, v4, guest, gw, sport, port, "hello", 5);
	tu_input(f, len, timer_now_ms());

	ck_assert_int_eq(tu_recv_from(s, buf, sizeof(buf), &peer), 5);
	ck_assert(!memcmp(buf, "hello", 5));
	ck_assert_uint_eq(tu_port_of(&peer), sport);
	ck_assert_uint_eq(flow_in_use(), 1);

	ck_assert_int_eq(sendto(s, "world!", 6, 0, (struct sockaddr *)&peer,
				peer.ss_family == AF_INET ?
				sizeof(struct sockaddr_in) :
				sizeof(struct sockaddr_in6)), 6);

	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + 8 + 6);
	ck_assert(!memcmp(tu_frame, tf_guest_mac, 6));
	ck_assert_uint_eq(tf_get16(tu_frame + 12), v4 ? 0x0800 : 0x86dd);
	if (v4) {
		ck_assert_uint_eq(tu_frame[14 + 9], IPPROTO_UDP);
		ck_assert(tu_addr_is(tu_frame + 14 + 12, true, gw));
		ck_assert(tu_addr_is(tu_frame + 14 + 16, true, guest));
		ck_assert_uint_eq(tf_finish(tf_sum(tu_frame + 14, 20, 0)), 0);
	} else {
		ck_assert_uint_eq(tu_frame[14 + 6], IPPROTO_UDP);
		ck_assert(tu_addr_is(tu_frame + 14 + 8, false, gw));
		ck_assert(tu_addr_is(tu_frame + 14 + 24, false, guest));
	}
	ck_assert_uint_eq(tf_get16(tu_frame + off), port);
	ck_assert_uint_eq(tf_get16(tu_frame + off + 2), sport);
	ck_assert_uint_eq(tf_get16(tu_frame + off + 4), 8 + 6);
	ck_assert(tu_l4_sum_ok(tu_frame, v4, IPPROTO_UDP));
	ck_assert(!memcmp(tu_frame + off + 8, "world!", 6));
	close(s);
}

START_TEST(test_udp_out_reply4)
{
	tu_out_reply(true);
}
END_TEST

START_TEST(test_udp_out_reply6)
{
	tu_out_reply(false);
}
END_TEST

START_TEST(test_udp_out_shape)
{
	struct udp_gso_shape sh = { .flow = FLOW_IDX_NONE };
	unsigned int i;

	udp_gso_add(&sh, 3, 1400);
	ck_assert_uint_eq(sh.n, 1);
	ck_assert_uint_eq(sh.size, 1400);
	ck_assert(udp_gso_fits(&sh, 3, 1400));
	ck_assert(!udp_gso_fits(&sh, 4, 1400));		/* another flow */
	ck_assert(!udp_gso_fits(&sh, 3, 1401));		/* larger */
	ck_assert(!udp_gso_fits(&sh, 3, 0));		/* empty */

	/* A shorter one ends the run: UDP_SEGMENT cuts at the first size */
	ck_assert(udp_gso_fits(&sh, 3, 700));
	udp_gso_add(&sh, 3, 700);
	ck_assert_uint_eq(sh.bytes, 2100);
	ck_assert(!udp_gso_fits(&sh, 3, 1400));
	ck_assert(!udp_gso_fits(&sh, 3, 100));

	/* At most UDP_GSO_SEGS datagrams */
	sh.flow = FLOW_IDX_NONE;
	for (i = 0; i < UDP_GSO_SEGS; i++) {
		ck_assert(i == 0 || udp_gso_fits(&sh, 5, 100));
		udp_gso_add(&sh, 5, 100);
	}
	ck_assert_uint_eq(sh.n, UDP_GSO_SEGS);
	ck_assert(!udp_gso_fits(&sh, 5, 100));

	/* At most UDP_GSO_BYTES bytes, one IP packet */
	sh.flow = FLOW_IDX_NONE;
	udp_gso_add(&sh, 6, 30000);
	ck_assert(udp_gso_fits(&sh, 6, 30000));
	udp_gso_add(&sh, 6, 30000);
	ck_assert(!udp_gso_fits(&sh, 6, 30000));
	ck_assert_uint_le(sh.bytes + 5000, UDP_GSO_BYTES);
	ck_assert(udp_gso_fits(&sh, 6, 5000));
}
END_TEST

/* Datagrams of one batch in tu_batch(): flow A, with B's in the middle */
#define TU_BATCH_A		16
#define TU_BATCH_SIZE		1400
#define TU_BATCH_SHORT		9	/* A's datagram of 700 bytes */
#define TU_BATCH_B_AFTER	4	/* B's datagram after A's fifth */

/**
 * tu_batch_len() - length of flow A's datagram @i in tu_batch()
 * @i:		index
 * @size:	length of the others
 *
 * Return: payload length
 */
static size_t tu_batch_len(unsigned int i, size_t size)
{
	return i == TU_BATCH_SHORT ? size / 2 : size;
}

/**
 * tu_batch_fill() - payload of datagram @i: its index, then its letter
 * @buf:	output
 * @i:		index
 * @len:	length, at least 2
 */
static void tu_batch_fill(uint8_t *buf, unsigned int i, size_t len)
{
	memset(buf, 'a' + (int)(i % 26), len);
	buf[0] = (uint8_t)i;
	buf[1] = (uint8_t)(i >> 8);
}

/**
 * tu_batch() - one batch of datagrams from the guest to two flows, each
 *		datagram back on the host with its length and content
 * @v4:		IPv4 (else IPv6)
 * @size:	length of flow A's datagrams (one of them half as long)
 *
 * Return: runs sent with segmentation
 */
static uint64_t tu_batch(bool v4, size_t size)
{
	static uint8_t frames[TU_BATCH_A + 1][TU_FRAME_MAX];
	static uint8_t payload[TU_FRAME_MAX], buf[TU_FRAME_MAX];
	const char *guest = v4 ? TU_GUEST4 : TU_GUEST6;
	const char *gw = v4 ? TU_GW4 : TU_GW6;
	uint16_t sport_a = tu_free_port(v4), sport_b = tu_free_port(v4);
	struct sockaddr_storage peer;
	uint16_t port_a, port_b;
	int a = tu_server(v4, &port_a), b = tu_server(v4, &port_b);
	unsigned int i, nf = 0;
	size_t len;

	tu_setup(NULL);
	for (i = 0; i < TU_BATCH_A; i++) {
		len = tu_batch_len(i, size);
		tu_batch_fill(payload, i, len);
		len = tu_udp_frame(frames[nf], v4, guest, gw, sport_a, port_a,
				   payload, len);
		net_input(&tu_ctx, frames[nf++], len, timer_now_ms());

		if (i == TU_BATCH_B_AFTER) {
			len = tu_udp_frame(frames[nf], v4, guest, gw, sport_b,
					   port_b, "bee", 3);
			net_input(&tu_ctx, frames[nf++], len, timer_now_ms());
		}
	}
	/* The frames stay valid until here, as a backend keeps them */
	net_input_done(&tu_ctx);

	for (i = 0; i < TU_BATCH_A; i++) {
		len = tu_batch_len(i, size);
		tu_batch_fill(payload, i, len);
		ck_assert_int_eq(tu_recv_from(a, buf, sizeof(buf), &peer),
				 (ssize_t)len);
		ck_assert_msg(!memcmp(buf, payload, len),
			      "datagram %u changed or out of order", i);
		ck_assert_uint_eq(tu_port_of(&peer), sport_a);
	}
	ck_assert_int_eq(tu_recv_from(b, buf, sizeof(buf), &peer), 3);
	ck_assert(!memcmp(buf, "bee", 3));
	ck_assert_uint_eq(udp_stats.from_guest, TU_BATCH_A + 1);
	ck_assert_uint_eq(udp_stats.drop_send, 0);

	close(a);
	close(b);
	return udp_stats.gso_runs;
}

START_TEST(test_udp_out_runs4)
{
	/* Runs: A 0-4 | B | A 5-9 (9 short) | A 10-15 */
	ck_assert_uint_eq(tu_batch(true, TU_BATCH_SIZE), 3);
	ck_assert_uint_eq(udp_stats.gso_refused, 0);
}
END_TEST

START_TEST(test_udp_out_runs6)
{
	ck_assert_uint_eq(tu_batch(false, TU_BATCH_SIZE), 3);
	ck_assert_uint_eq(udp_stats.gso_refused, 0);
}
END_TEST

/**
 * tu_own_netns() - move the test into a network namespace of its own,
 *		    with loopback up at @mtu
 * @mtu:	loopback MTU
 */
static void tu_own_netns(int mtu)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET))
		ck_assert_msg(!unshare(CLONE_NEWUSER | CLONE_NEWNET),
			      "needs root or user namespaces: %s",
			      strerror(errno));

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	ifr.ifr_mtu = mtu;
	ck_assert_int_eq(ioctl(s, SIOCSIFMTU, &ifr), 0);
	ck_assert_int_eq(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	ck_assert_int_eq(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
}

START_TEST(test_udp_out_gso_refused)
{
	/* Datagrams above the path MTU can't be segmented, only fragmented:
	 * each run goes again one datagram at a time, and nothing is lost
	 */
	tu_own_netns(1500);
	ck_assert_uint_eq(tu_batch(true, 2000), 0);
	ck_assert_uint_eq(udp_stats.gso_refused, 3);
}
END_TEST

/**
 * tu_refused() - a datagram to a closed port comes back as an ICMP error
 * @v4:		IPv4 (else IPv6)
 */
static void tu_refused(bool v4)
{
	const char *guest = v4 ? TU_GUEST4 : TU_GUEST6;
	const char *gw = v4 ? TU_GW4 : TU_GW6;
	uint16_t closed = tu_free_port(v4), sport = 40000;
	size_t ihl = v4 ? 20 : 40, len, q;
	uint8_t f[256];

	tu_setup(NULL);
	len = tu_udp_frame(f, v4, guest, gw, sport, closed, "knock", 5);
	tu_input(f, len, timer_now_ms());

	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_gt(len, 14 + ihl + 8 + ihl + 8);
	ck_assert_uint_eq(tu_frame[14 + (v4 ? 9 : 6)],
			  v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6);
	ck_assert(tu_addr_is(tu_frame + 14 + (v4 ? 12 : 8), v4, gw));
	ck_assert(tu_addr_is(tu_frame + 14 + (v4 ? 16 : 24), v4, guest));
	/* Destination unreachable, port unreachable */
	ck_assert_uint_eq(tu_frame[14 + ihl], v4 ? 3 : 1);
	ck_assert_uint_eq(tu_frame[14 + ihl + 1], v4 ? 3 : 4);
	ck_assert(tu_l4_sum_ok(tu_frame, v4,
			       v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6));

	/* Quoted: the guest's datagram, from the guest to the gateway */
	q = 14 + ihl + 8;
	ck_assert_uint_eq(tu_frame[q] >> 4, v4 ? 4 : 6);
	ck_assert(tu_addr_is(tu_frame + q + (v4 ? 12 : 8), v4, guest));
	ck_assert(tu_addr_is(tu_frame + q + (v4 ? 16 : 24), v4, gw));
	ck_assert_uint_eq(tf_get16(tu_frame + q + ihl), sport);
	ck_assert_uint_eq(tf_get16(tu_frame + q + ihl + 2), closed);
	ck_assert(!memcmp(tu_frame + q + ihl + 8, "knock", 5));
}

START_TEST(test_udp_refused4)
{
	tu_refused(true);
}
END_TEST

START_TEST(test_udp_refused6)
{
	tu_refused(false);
}
END_TEST

START_TEST(test_udp_mtu_drop)
{
	static uint8_t big[3000];
	uint8_t f[256], small[200];
	struct sockaddr_storage peer;
	uint16_t port, sport = tu_free_port(true);
	socklen_t sl = sizeof(struct sockaddr_in);
	size_t len, off = 14 + 20 + 8;
	int s = tu_server(true, &port);

	tu_setup(NULL);
	tu_ctx.mtu = 1500;
	len = tu_udp_frame(f, true, TU_GUEST4, TU_GW4, sport, port, "x", 1);
	tu_input(f, len, timer_now_ms());
	ck_assert_int_eq(tu_recv_from(s, small, sizeof(small), &peer), 1);

	/* One batch: small, too large for the MTU, small */
	memset(small, 'a', 100);
	ck_assert_int_eq(sendto(s, small, 100, 0, (struct sockaddr *)&peer,
				sl), 100);
	memset(big, 'b', sizeof(big));
	ck_assert_int_eq(sendto(s, big, sizeof(big), 0,
				(struct sockaddr *)&peer, sl),
			 (ssize_t)sizeof(big));
	memset(small, 'c', sizeof(small));
	ck_assert_int_eq(sendto(s, small, sizeof(small), 0,
				(struct sockaddr *)&peer, sl),
			 (ssize_t)sizeof(small));

	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + 100);
	ck_assert_uint_eq(tu_frame[off], 'a');
	ck_assert_uint_eq(tu_frame[off + 99], 'a');
	ck_assert(tu_l4_sum_ok(tu_frame, true, IPPROTO_UDP));

	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + sizeof(small));
	ck_assert_uint_eq(tu_frame[off], 'c');
	ck_assert_uint_eq(tu_frame[off + sizeof(small) - 1], 'c');
	ck_assert(tu_l4_sum_ok(tu_frame, true, IPPROTO_UDP));

	ck_assert_uint_eq(tu_read_frame(200), 0);
	close(s);
}
END_TEST

START_TEST(test_udp_idle_timeout)
{
	uint16_t port, sport = tu_free_port(true);
	struct sockaddr_storage peer;
	uint64_t t0 = timer_now_ms();
	int s = tu_server(true, &port);
	uint8_t f[256], buf[16];
	size_t len;

	tu_setup(NULL);
	len = tu_udp_frame(f, true, TU_GUEST4, TU_GW4, sport, port, "1", 1);
	tu_input(f, len, t0);
	ck_assert_int_eq(tu_recv_from(s, buf, sizeof(buf), &peer), 1);
	ck_assert_uint_eq(flow_in_use(), 1);

	timer_handler(&tu_ctx, t0 + UDP_FLOW_TIMEOUT_MS / 2);
	ck_assert_uint_eq(flow_in_use(), 1);

	/* Traffic at half time pushes the deadline back */
	tu_input(f, len, t0 + UDP_FLOW_TIMEOUT_MS / 2);
	ck_assert_int_eq(tu_recv_from(s, buf, sizeof(buf), &peer), 1);
	timer_handler(&tu_ctx, t0 + UDP_FLOW_TIMEOUT_MS + 1);
	ck_assert_uint_eq(flow_in_use(), 1);

	timer_handler(&tu_ctx, t0 + UDP_FLOW_TIMEOUT_MS * 3 / 2 + 1);
	ck_assert_uint_eq(flow_in_use(), 0);
	close(s);
}
END_TEST

START_TEST(test_udp_fwd_in)
{
	uint16_t fwd = tu_free_port(true), peer_port;
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_storage from;
	size_t off = 14 + 20 + 8, len;
	char spec[8];
	uint8_t f[256];
	int s;

	snprintf(spec, sizeof(spec), "%u", fwd);
	tu_setup(spec);
	s = tu_server(true, &peer_port);

	to.sin_port = htons(fwd);
	ck_assert_int_eq(sendto(s, "in", 2, 0, (struct sockaddr *)&to,
				sizeof(to)), 2);

	/* To the guest's forwarded port, from the gateway (host loopback) */
	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + 2);
	ck_assert(tu_addr_is(tu_frame + 14 + 12, true, TU_GW4));
	ck_assert(tu_addr_is(tu_frame + 14 + 16, true, TU_GUEST4));
	ck_assert_uint_eq(tf_get16(tu_frame + off - 8), peer_port);
	ck_assert_uint_eq(tf_get16(tu_frame + off - 6), fwd);
	ck_assert(tu_l4_sum_ok(tu_frame, true, IPPROTO_UDP));
	ck_assert(!memcmp(tu_frame + off, "in", 2));

	/* The guest's answer leaves from the forwarded port */
	len = tu_udp_frame(f, true, TU_GUEST4, TU_GW4, fwd, peer_port,
			   "out", 3);
	tu_input(f, len, timer_now_ms());
	ck_assert_int_eq(tu_recv_from(s, f, sizeof(f), &from), 3);
	ck_assert(!memcmp(f, "out", 3));
	ck_assert_uint_eq(tu_port_of(&from), fwd);
	close(s);
}
END_TEST

/**
 * tu_fwd_in6() - a datagram from ::1 to a -u port: check its frame
 * @s:		sending socket, on ::1
 * @fwd:	forwarded port
 * @payload:	payload, a string
 * @dst:	guest address the frame must go to
 */
static void tu_fwd_in6(int s, uint16_t fwd, const char *payload,
		       const char *dst)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT,
				   .sin6_port = htons(fwd) };
	size_t off = 14 + 40 + 8, plen = strlen(payload), len;

	ck_assert_int_eq(sendto(s, payload, plen, 0, (struct sockaddr *)&to,
				sizeof(to)), (ssize_t)plen);
	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + plen);
	ck_assert(tu_addr_is(tu_frame + 14 + 8, false, "fe80::1"));
	ck_assert_msg(tu_addr_is(tu_frame + 14 + 24, false, dst),
		      "frame not to %s", dst);
	ck_assert(tu_l4_sum_ok(tu_frame, false, IPPROTO_UDP));
	ck_assert(!memcmp(tu_frame + off, payload, plen));
}

START_TEST(test_udp_fwd_in_ll)
{
	uint16_t fwd = tu_free_port(false), port_a, port_b;
	struct in6_addr ll;
	struct sockaddr_storage from;
	int a = tu_server(false, &port_a), b = tu_server(false, &port_b);
	char spec[8];
	uint8_t f[256];
	size_t len;

	/* The host's loopback appears as a link-local gateway */
	snprintf(spec, sizeof(spec), "%u", fwd);
	tu_setup(spec);
	inet_pton(AF_INET6, "fe80::1", &tu_ctx.ip6.gw);
	tu_ctx.ip6.map_host_lo = tu_ctx.ip6.gw;

	/* The guest's link-local address unknown, maybe tentative: the
	 * global one
	 */
	tu_fwd_in6(a, fwd, "global", TU_GUEST6);

	/* Once the guest sent from it: a new flow from a link-local source
	 * goes to it, so that a guest socket that connect()s back to its
	 * source (own address: the link-local one) still gets the flow
	 */
	inet_pton(AF_INET6, "fe80::10", &ll);
	guest_addr6_ll_set(&ll);
	tu_fwd_in6(b, fwd, "link-local", "fe80::10");

	/* The guest's answer from there leaves from the forwarded port */
	len = tu_udp_frame(f, false, "fe80::10", "fe80::1", fwd, port_b,
			   "back", 4);
	tu_input(f, len, timer_now_ms());
	ck_assert_int_eq(tu_recv_from(b, f, sizeof(f), &from), 4);
	ck_assert(!memcmp(f, "back", 4));
	ck_assert_uint_eq(tu_port_of(&from), fwd);
	ck_assert_uint_eq(udp_stats.to_guest, 2);
	ck_assert_uint_eq(udp_stats.from_guest, 1);
	close(a);
	close(b);
}
END_TEST

START_TEST(test_udp_dns_forward)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(53),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint16_t sport = tu_free_port(true);
	struct sockaddr_storage peer;
	size_t off = 14 + 20 + 8, len;
	uint8_t f[256], buf[16];
	int s;

	/* Port 53 on loopback: needs privileges, and may be taken */
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		close(s);
		return;
	}

	tu_setup(NULL);
	inet_pton(AF_INET, "192.0.2.53", &tu_ctx.ip4.dns_match);
	tu_ctx.ip4.dns_host.s_addr = htonl(INADDR_LOOPBACK);

	len = tu_udp_frame(f, true, TU_GUEST4, "192.0.2.53", sport, 53,
			   "query", 5);
	tu_input(f, len, timer_now_ms());
	ck_assert_int_eq(tu_recv_from(s, buf, sizeof(buf), &peer), 5);
	ck_assert_int_eq(sendto(s, "answer", 6, 0, (struct sockaddr *)&peer,
				sizeof(struct sockaddr_in)), 6);

	/* The answer comes from the --dns-forward address */
	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, off + 6);
	ck_assert(tu_addr_is(tu_frame + 14 + 12, true, "192.0.2.53"));
	ck_assert_uint_eq(tf_get16(tu_frame + off - 8), 53);
	ck_assert_uint_eq(tf_get16(tu_frame + off - 6), sport);
	ck_assert(tu_l4_sum_ok(tu_frame, true, IPPROTO_UDP));
	close(s);
}
END_TEST

START_TEST(test_udp_not_unicast)
{
	uint8_t f[256];
	size_t len;

	tu_setup(NULL);
	len = tu_udp_frame(f, true, TU_GUEST4, "255.255.255.255", 40000, 9,
			   "x", 1);
	tu_input(f, len, timer_now_ms());
	len = tu_udp_frame(f, false, TU_GUEST6, "ff02::1", 40000, 9, "x", 1);
	tu_input(f, len, timer_now_ms());
	ck_assert_uint_eq(flow_in_use(), 0);
}
END_TEST

START_TEST(test_icmp_echo)
{
	uint8_t f[256], *icmp;
	int probe = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	bool allowed = probe >= 0;
	size_t len;

	if (probe >= 0)
		close(probe);

	tu_setup(NULL);
	len = tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
	len += tf_ip4(f + len, TU_GUEST4, TU_GW4, IPPROTO_ICMP, 8 + 4);
	icmp = f + len;
	icmp[0] = 8;			/* echo request */
	icmp[1] = 0;
	tf_put16(icmp + 2, 0);
	tf_put16(icmp + 4, 0x4242);	/* identifier */
	tf_put16(icmp + 6, 7);		/* sequence */
	memcpy(icmp + 8, "ping", 4);
	tf_put16(icmp + 2, tf_finish(tf_sum(icmp, 12, 0)));
	len += 12;
	tu_input(f, len, timer_now_ms());

	if (!allowed) {
		/* Ping sockets not allowed here: dropped, nothing left */
		ck_assert_uint_eq(flow_in_use(), 0);
		ck_assert_uint_eq(tu_read_frame(200), 0);
		return;
	}

	len = tu_read_frame(TU_WAIT_MS);
	ck_assert_uint_eq(len, 14 + 20 + 12);
	ck_assert(tu_addr_is(tu_frame + 14 + 12, true, TU_GW4));
	ck_assert(tu_addr_is(tu_frame + 14 + 16, true, TU_GUEST4));
	ck_assert_uint_eq(tu_frame[34], 0);	/* echo reply */
	ck_assert_uint_eq(tf_get16(tu_frame + 34 + 4), 0x4242);
	ck_assert_uint_eq(tf_get16(tu_frame + 34 + 6), 7);
	ck_assert(!memcmp(tu_frame + 34 + 8, "ping", 4));
	ck_assert(tu_l4_sum_ok(tu_frame, true, IPPROTO_ICMP));
}
END_TEST

/**
 * udp_suite() - the UDP and ICMP echo suite
 *
 * Return: suite
 */
static Suite *udp_suite(void)
{
	Suite *s = suite_create("udp");
	TCase *tc = tcase_create("flows");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_udp_out_reply4);
	tcase_add_test(tc, test_udp_out_reply6);
	tcase_add_test(tc, test_udp_out_shape);
	tcase_add_test(tc, test_udp_out_runs4);
	tcase_add_test(tc, test_udp_out_runs6);
	tcase_add_test(tc, test_udp_out_gso_refused);
	tcase_add_test(tc, test_udp_refused4);
	tcase_add_test(tc, test_udp_refused6);
	tcase_add_test(tc, test_udp_mtu_drop);
	tcase_add_test(tc, test_udp_idle_timeout);
	tcase_add_test(tc, test_udp_fwd_in);
	tcase_add_test(tc, test_udp_fwd_in_ll);
	tcase_add_test(tc, test_udp_dns_forward);
	tcase_add_test(tc, test_udp_not_unicast);
	tcase_add_test(tc, test_icmp_echo);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the udp suite
 *
 * Return: 0 if every test passed, 1 otherwise
 */
int main(void)
{
	SRunner *sr = srunner_create(udp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? 1 : 0;
}
