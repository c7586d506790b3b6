// SPDX-License-Identifier: GPL-2.0-or-later
/* test_net_io.c - net/ input dispatch and ARP/NDP replies, with doubles
 *
 * Build (not linked against the other modules: it defines its own
 * qdisc_send(), tcp_tap_input(), tcp_input_done(), udp_tap_input(),
 * udp_out_flush(), icmp_tap_input(), dhcp_input(), dhcpv6_input() and
 * the entry points of fwd/mcast.c, never called without --mcast-ports):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_net_io \
 *	tests/unit/standalone/test_net_io.c net/net.c net/arp.c net/ndp.c \
 *	net/checksum.c util/log.c $(pkg-config --cflags --libs check)
 *
 * Theory of operation: qdisc_send() and the entry points of tcp/, udp/,
 * net/icmp.c, net/dhcp.c and net/dhcpv6.c are replaced by doubles that
 * record what net/ sends to the guest and hands to each module, and check
 * that every pointer they get lies inside the frame being fed. Hand-built
 * frames (tests/unit/net_frames.h) check ARP and NDP answers field by
 * field, checksums recomputed with a naive reference, and TCP, UDP, ICMP
 * and DHCP delivery with the right addresses and lengths. A fuzzer mutates
 * valid frames, feeds each one from a heap buffer of its exact size (for
 * AddressSanitizer), and checks that every frame is accounted for exactly
 * once: dropped (malformed or unsupported), answered, given to tcp/, udp/
 * or net/icmp.c, or consumed by a DHCP server (one that declines it passes
 * it on to the UDP path, where it is counted again as one of the others).
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../../conf/ctx.h"
#include "../../../net/dhcp.h"
#include "../../../net/dhcpv6.h"
#include "../../../net/icmp.h"
#include "../../../fwd/mcast.h"
#include "../../../net/net.h"
#include "../../../qdisc/qdisc.h"
#include "../../../tcp/tcp.h"
#include "../../../udp/udp.h"
#include "../net_frames.h"

#define SENT_MAX	8
#define SENT_SIZE	2048

static struct ctx ctx;

/**
 * struct sent - frames captured from qdisc_send()
 * @n:		number of frames
 * @len:	length of each
 * @buf:	copies
 */
static struct {
	size_t n;
	size_t len[SENT_MAX];
	uint8_t buf[SENT_MAX][SENT_SIZE];
} sent;

/**
 * struct tcp_call - last call to tcp_tap_input()
 * @n:		number of calls
 * @saddr:	source address
 * @daddr:	destination address
 * @th:		TCP header pointer
 * @l4len:	length
 * @now_ms:	time
 */
static struct {
	size_t n;
	union inany_addr saddr;
	union inany_addr daddr;
	const uint8_t *th;
	size_t l4len;
	uint64_t now_ms;
} tcp_call;

/**
 * struct l4_call - calls to udp_tap_input() or icmp_tap_input()
 * @n:		number of calls
 * @saddr:	source address of the last one
 * @daddr:	destination address
 * @l4:		L4 header pointer
 * @l4len:	length
 * @now_ms:	time
 */
struct l4_call {
	size_t n;
	union inany_addr saddr;
	union inany_addr daddr;
	const uint8_t *l4;
	size_t l4len;
	uint64_t now_ms;
};

static struct l4_call udp_call, icmp_call;

/**
 * struct dhcp_call - calls to dhcp_input() and dhcpv6_input()
 * @n4:		calls to dhcp_input()
 * @n6:		calls to dhcpv6_input()
 * @consumed:	calls that returned true
 * @consume:	what the doubles return
 * @payload:	payload pointer of the last call
 * @len:	payload length of the last call
 * @saddr6:	source address of the last dhcpv6_input() call
 */
static struct {
	size_t n4;
	size_t n6;
	size_t consumed;
	bool consume;
	const uint8_t *payload;
	size_t len;
	struct in6_addr saddr6;
} dhcp_call;

/* Calls to tcp_input_done() */
static size_t input_done_calls;

/* Frame being fed, to check that the doubles' arguments lie inside it */
static const uint8_t *cur_frame;
static size_t cur_len;

/**
 * check_inside() - check that a region lies in the L4 part of the frame
 * @p:		start of the region
 * @len:	its length
 */
static void check_inside(const uint8_t *p, size_t len)
{
	ck_assert_ptr_nonnull(cur_frame);
	ck_assert(p >= cur_frame + 34);
	ck_assert(p <= cur_frame + cur_len);
	ck_assert_uint_le(len, (size_t)(cur_frame + cur_len - p));
}

/**
 * same_family() - tell if two addresses are both IPv4 or both IPv6
 * @a:		first address
 * @b:		second address
 *
 * Return: true if they are
 */
static bool same_family(const union inany_addr *a, const union inany_addr *b)
{
	return !inany_v4(a) == !inany_v4(b);
}

/**
 * qdisc_send() - test double: record the frame
 * @c:		execution context
 * @frame:	frame
 * @len:	length
 */
void qdisc_send(struct ctx *c, const void *frame, size_t len)
{
	(void)c;
	ck_assert_uint_le(len, SENT_SIZE);
	ck_assert_uint_ge(len, 14);
	if (sent.n < SENT_MAX) {
		memcpy(sent.buf[sent.n], frame, len);
		sent.len[sent.n] = len;
	}
	sent.n++;
}

/**
 * tcp_tap_input() - test double: record and check the arguments
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @th:		TCP header
 * @l4len:	TCP length
 * @now_ms:	time
 */
void tcp_tap_input(struct ctx *c, const union inany_addr *saddr,
		   const union inany_addr *daddr, const struct tcphdr *th,
		   size_t l4len, uint64_t now_ms)
{
	const uint8_t *p = (const uint8_t *)th;

	(void)c;
	ck_assert_ptr_nonnull(cur_frame);
	ck_assert(p >= cur_frame + 34);
	ck_assert(p + l4len <= cur_frame + cur_len);
	ck_assert_uint_ge(l4len, 20);
	ck_assert_uint_ge((size_t)(p[12] >> 4) * 4, 20);
	ck_assert_uint_le((size_t)(p[12] >> 4) * 4, l4len);

	tcp_call.n++;
	tcp_call.saddr = *saddr;
	tcp_call.daddr = *daddr;
	tcp_call.th = p;
	tcp_call.l4len = l4len;
	tcp_call.now_ms = now_ms;
}

/**
 * tcp_input_done() - test double: count calls
 * @c:		execution context
 */
void tcp_input_done(struct ctx *c)
{
	(void)c;
	input_done_calls++;
}

/**
 * udp_out_flush() - test double: nothing to send
 */
void udp_out_flush(void)
{
}

/**
 * mcast_guest_igmp() - test double: the multicast proxy is off here
 * @c:		execution context
 * @msg:	message
 * @len:	its length
 * @now_ms:	time
 *
 * Return: never
 */
int mcast_guest_igmp(struct ctx *c, const uint8_t *msg, size_t len,
		     uint64_t now_ms)
{
	(void)c;
	(void)msg;
	(void)len;
	(void)now_ms;
	ck_abort_msg("IGMP passed on without --mcast-ports");
	return -1;
}

/**
 * mcast_guest_mld() - test double: the multicast proxy is off here
 * @c:		execution context
 * @src:	source
 * @dst:	destination
 * @msg:	message
 * @len:	its length
 * @now_ms:	time
 *
 * Return: never
 */
int mcast_guest_mld(struct ctx *c, const struct in6_addr *src,
		    const struct in6_addr *dst, const uint8_t *msg,
		    size_t len, uint64_t now_ms)
{
	(void)c;
	(void)src;
	(void)dst;
	(void)msg;
	(void)len;
	(void)now_ms;
	ck_abort_msg("MLD passed on without --mcast-ports");
	return -1;
}

/**
 * mcast_guest_udp() - test double: the multicast proxy is off here
 * @c:		execution context
 * @daddr:	destination
 * @l4:		UDP header
 * @ulen:	UDP length
 * @now_ms:	time
 *
 * Return: never
 */
bool mcast_guest_udp(struct ctx *c, const union inany_addr *daddr,
		     const uint8_t *l4, size_t ulen, uint64_t now_ms)
{
	(void)c;
	(void)daddr;
	(void)l4;
	(void)ulen;
	(void)now_ms;
	ck_abort_msg("multicast UDP passed on without --mcast-ports");
	return false;
}

/**
 * l4_record() - record a call to a UDP or ICMP double
 * @call:	where to record it
 * @saddr:	source
 * @daddr:	destination
 * @l4:		L4 header
 * @l4len:	L4 length
 * @now_ms:	time
 */
static void l4_record(struct l4_call *call, const union inany_addr *saddr,
		      const union inany_addr *daddr, const uint8_t *l4,
		      size_t l4len, uint64_t now_ms)
{
	check_inside(l4, l4len);
	ck_assert(same_family(saddr, daddr));

	call->n++;
	call->saddr = *saddr;
	call->daddr = *daddr;
	call->l4 = l4;
	call->l4len = l4len;
	call->now_ms = now_ms;
}

/**
 * udp_tap_input() - test double: check the UDP length, record the call
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @udp:	UDP header
 * @l4len:	UDP length from the IP header
 * @now_ms:	time
 */
void udp_tap_input(struct ctx *c, const union inany_addr *saddr,
		   const union inany_addr *daddr, const uint8_t *udp,
		   size_t l4len, uint64_t now_ms)
{
	(void)c;
	ck_assert_uint_ge(l4len, 8);
	ck_assert_uint_ge(tf_get16(udp + 4), 8);
	ck_assert_uint_le(tf_get16(udp + 4), l4len);
	l4_record(&udp_call, saddr, daddr, udp, l4len, now_ms);
}

/**
 * icmp_tap_input() - test double: check it is an echo request, record it
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @icmp:	ICMP or ICMPv6 header
 * @l4len:	message length
 * @now_ms:	time
 */
void icmp_tap_input(struct ctx *c, const union inany_addr *saddr,
		    const union inany_addr *daddr, const uint8_t *icmp,
		    size_t l4len, uint64_t now_ms)
{
	(void)c;
	ck_assert_uint_ge(l4len, 8);
	ck_assert_uint_eq(icmp[0], inany_v4(saddr) ? 8 : 128);
	/* net.c checks the code of ICMPv6 echo requests only: net/icmp.c
	 * ignores ICMPv4 ones with a non-zero code
	 */
	if (!inany_v4(saddr))
		ck_assert_uint_eq(icmp[1], 0);
	l4_record(&icmp_call, saddr, daddr, icmp, l4len, now_ms);
}

/**
 * dhcp_check() - check the payload handed to a DHCP double, record it
 * @payload:	UDP payload
 * @len:	payload length
 * @port:	expected UDP destination port
 *
 * Return: what the double returns, dhcp_call.consume
 */
static bool dhcp_check(const uint8_t *payload, size_t len, uint16_t port)
{
	const uint8_t *uh = payload - 8;

	check_inside(uh, 8 + len);
	ck_assert_uint_eq(tf_get16(uh + 2), port);
	ck_assert_uint_eq(tf_get16(uh + 4), 8 + len);

	dhcp_call.payload = payload;
	dhcp_call.len = len;
	if (dhcp_call.consume)
		dhcp_call.consumed++;
	return dhcp_call.consume;
}

/**
 * dhcp_input() - test double: check and record the call
 * @c:		execution context
 * @payload:	UDP payload
 * @len:	payload length
 *
 * Return: dhcp_call.consume
 */
bool dhcp_input(struct ctx *c, const uint8_t *payload, size_t len)
{
	(void)c;
	ck_assert_uint_eq(tf_get16(cur_frame + 12), 0x0800);
	dhcp_call.n4++;
	return dhcp_check(payload, len, DHCP_SERVER_PORT);
}

/**
 * dhcpv6_input() - test double: check and record the call
 * @c:		execution context
 * @saddr:	IPv6 source address
 * @payload:	UDP payload
 * @len:	payload length
 *
 * Return: dhcp_call.consume
 */
bool dhcpv6_input(struct ctx *c, const struct in6_addr *saddr,
		  const uint8_t *payload, size_t len)
{
	(void)c;
	ck_assert_uint_eq(tf_get16(cur_frame + 12), 0x86dd);
	dhcp_call.n6++;
	dhcp_call.saddr6 = *saddr;
	return dhcp_check(payload, len, DHCPV6_SERVER_PORT);
}

/**
 * tcp_double_input() - test double registered for TCP: the layer below
 *			hands over bytes, the double checks them as a header
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @l4:		TCP header
 * @l4len:	TCP length
 * @now_ms:	time
 */
static void tcp_double_input(struct ctx *c, const union inany_addr *saddr,
			     const union inany_addr *daddr, const uint8_t *l4,
			     size_t l4len, uint64_t now_ms)
{
	tcp_tap_input(c, saddr, daddr, (const struct tcphdr *)(const void *)l4,
		      l4len, now_ms);
}

/**
 * udp_double_done() - test double registered for UDP's end of a batch
 * @c:		execution context
 */
static void udp_double_done(struct ctx *c)
{
	(void)c;
	udp_out_flush();
}

static const struct net_l4_ops tcp_double_ops = {
	.input = tcp_double_input, .input_done = tcp_input_done,
};
static const struct net_l4_ops udp_double_ops = {
	.input = udp_tap_input, .input_done = udp_double_done,
};
static const struct net_l4_ops icmp_double_ops = { .input = icmp_tap_input };
static const struct net_mcast_ops mcast_double_ops = {
	.igmp = mcast_guest_igmp, .mld = mcast_guest_mld,
	.udp = mcast_guest_udp,
};

/**
 * setup() - fresh configuration, counters and captures for each test
 */
static void setup(void)
{
	net_l4_register(NET_L4_TCP, &tcp_double_ops);
	net_l4_register(NET_L4_UDP, &udp_double_ops);
	net_l4_register(NET_L4_ICMP, &icmp_double_ops);
	net_mcast_register(&mcast_double_ops);
	tf_ctx(&ctx);
	memset(&net_stats, 0, sizeof(net_stats));
	memset(&sent, 0, sizeof(sent));
	memset(&tcp_call, 0, sizeof(tcp_call));
	memset(&udp_call, 0, sizeof(udp_call));
	memset(&icmp_call, 0, sizeof(icmp_call));
	memset(&dhcp_call, 0, sizeof(dhcp_call));
	dhcp_call.consume = true;
	input_done_calls = 0;
}

/**
 * feed() - pass a frame in place (pointers into it stay valid)
 * @f:		frame
 * @len:	length
 */
static void feed(const uint8_t *f, size_t len)
{
	cur_frame = f;
	cur_len = len;
	net_input(&ctx, f, len, 1234);
	cur_frame = NULL;
}

/**
 * feed_exact() - pass a copy of a frame in a heap buffer of its size
 * @f:		frame
 * @len:	length
 */
static void feed_exact(const uint8_t *f, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, f, len);
	feed(copy, len);
	free(copy);
}

/**
 * delivered() - frames handed to a protocol module or consumed by DHCP
 *
 * Return: calls to the TCP, UDP and ICMP doubles, plus DHCP consumptions
 */
static size_t delivered(void)
{
	return tcp_call.n + udp_call.n + icmp_call.n + dhcp_call.consumed;
}

/**
 * accounted() - frames seen minus frames accounted for
 *
 * Return: 0 if every frame was dropped, answered, passed to tcp/, udp/ or
 *	   net/icmp.c, or consumed by a DHCP server
 */
static long long accounted(void)
{
	return (long long)net_stats.frames -
	       (long long)(net_stats.drop_malformed +
			   net_stats.drop_unsupported + net_stats.arp_replies +
			   net_stats.ndp_replies + delivered());
}

/**
 * balance() - frames minus the drop_ and to_ counters of net_stats
 *
 * Return: 0 if net_stats alone accounts for every frame exactly once
 */
static long long balance(void)
{
	const struct net_stats *n = &net_stats;

	return (long long)n->frames -
	       (long long)(n->drop_malformed + n->drop_unsupported +
			   n->to_arp + n->to_ndp + n->to_dhcp + n->to_tcp +
			   n->to_udp + n->to_icmp);
}

/**
 * icmp6_csum_ok() - check the ICMPv6 checksum of a captured frame
 * @f:		frame: Ethernet, IPv6 without extension headers, ICMPv6
 * @len:	frame length
 *
 * Return: true if the checksum verifies with the naive reference
 */
static bool icmp6_csum_ok(const uint8_t *f, size_t len)
{
	size_t plen = tf_get16(f + 18);
	uint32_t sum;

	ck_assert_uint_eq(54 + plen, len);
	sum = tf_pseudo6((const struct in6_addr *)(const void *)(f + 22),
			 (const struct in6_addr *)(const void *)(f + 38),
			 IPPROTO_ICMPV6, (uint32_t)plen);
	return tf_finish(tf_sum(f + 54, plen, sum)) == 0;
}

/**
 * ip6_eq() - compare an address in a frame with a text address
 * @p:		address in the frame
 * @text:	expected, text form
 *
 * Return: true if equal
 */
static bool ip6_eq(const uint8_t *p, const char *text)
{
	struct in6_addr a;

	inet_pton(AF_INET6, text, &a);
	return !memcmp(p, &a, 16);
}

/* ARP */

START_TEST(test_arp_gateway)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.1");
	const uint8_t *r, *a;
	struct in_addr gw, guest;

	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(net_stats.arp_replies, 1);
	ck_assert_uint_eq(sent.len[0], 42);

	r = sent.buf[0];
	a = r + 14;
	inet_pton(AF_INET, "192.0.2.1", &gw);
	inet_pton(AF_INET, "192.0.2.10", &guest);
	ck_assert_mem_eq(r, tf_guest_mac, 6);
	ck_assert_mem_eq(r + 6, tf_our_mac, 6);
	ck_assert_uint_eq(tf_get16(r + 12), 0x0806);
	ck_assert_uint_eq(tf_get16(a), 1);
	ck_assert_uint_eq(tf_get16(a + 2), 0x0800);
	ck_assert_uint_eq(a[4], 6);
	ck_assert_uint_eq(a[5], 4);
	ck_assert_uint_eq(tf_get16(a + 6), 2);
	ck_assert_mem_eq(a + 8, tf_our_mac, 6);
	ck_assert_mem_eq(a + 14, &gw, 4);
	ck_assert_mem_eq(a + 18, tf_guest_mac, 6);
	ck_assert_mem_eq(a + 24, &guest, 4);

	/* Learnt from the request */
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);
	ck_assert_uint_eq(ctx.ip4.addr_seen.s_addr, guest.s_addr);

	/* Any other address too, and padding is fine */
	len = tf_arp_frame(f, 1, "192.0.2.10", "203.0.113.9");
	memset(f + len, 0, 18);
	feed_exact(f, 60);
	ck_assert_uint_eq(sent.n, 2);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_arp_ignored)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	/* Gratuitous ARP (announcement) */
	len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.10");
	feed_exact(f, len);

	/* Probe (RFC 5227) */
	len = tf_arp_frame(f, 1, "0.0.0.0", "192.0.2.77");
	feed_exact(f, len);

	/* For the guest's configured address, from another of its */
	len = tf_arp_frame(f, 1, "192.0.2.11", "192.0.2.10");
	feed_exact(f, len);

	/* For the address it was last seen using */
	inet_pton(AF_INET, "192.0.2.99", &ctx.ip4.addr_seen);
	len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.99");
	feed_exact(f, len);

	/* Replies */
	len = tf_arp_frame(f, 2, "192.0.2.10", "192.0.2.1");
	feed_exact(f, len);

	/* Not Ethernet/IPv4 */
	len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.1");
	f[14 + 5] = 16;
	feed_exact(f, len);

	ck_assert_uint_eq(sent.n, 0);
	ck_assert_uint_eq(net_stats.drop_unsupported, 6);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/* NDP */

/**
 * check_na() - check a captured Neighbour Advertisement
 * @i:		index in the captured frames
 * @src:	expected IPv6 source
 * @dst:	expected IPv6 destination
 * @target:	expected target
 * @solicited:	expected S flag
 */
static void check_na(size_t i, const char *src, const char *dst,
		     const char *target, bool solicited)
{
	const uint8_t *r = sent.buf[i], *na = r + 54;

	ck_assert_uint_eq(sent.len[i], 54 + 32);
	ck_assert_mem_eq(r + 6, tf_our_mac, 6);
	ck_assert_uint_eq(tf_get16(r + 12), 0x86dd);
	ck_assert_uint_eq(r[14] >> 4, 6);
	ck_assert_uint_eq(r[20], IPPROTO_ICMPV6);
	ck_assert_uint_eq(r[21], 255);
	ck_assert(ip6_eq(r + 22, src));
	ck_assert(ip6_eq(r + 38, dst));
	ck_assert_uint_eq(na[0], 136);
	ck_assert_uint_eq(na[1], 0);
	ck_assert_uint_eq(na[4], solicited ? 0xe0 : 0xa0);
	ck_assert(ip6_eq(na + 8, target));
	ck_assert_uint_eq(na[24], 2);
	ck_assert_uint_eq(na[25], 1);
	ck_assert_mem_eq(na + 26, tf_our_mac, 6);
	ck_assert(icmp6_csum_ok(r, sent.len[i]));
}

START_TEST(test_ns_gateway)
{
	static const char *guest_ll = "fe80::5054:ff:fe12:3456";
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	len = tf_ns_frame(f, guest_ll, "fe80::1", 1);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(net_stats.ndp_replies, 1);
	check_na(0, "fe80::9855:9aff:fe55:9a55", guest_ll, "fe80::1", true);
	ck_assert_mem_eq(sent.buf[0], tf_guest_mac, 6);

	/* Learnt: MAC, link-local source */
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);
	ck_assert(ip6_eq(ctx.ip6.addr_ll_seen.s6_addr, guest_ll));

	/* Global target: the target is the source, without SLLA too */
	len = tf_ns_frame(f, "2001:db8:1:2::10", "2001:db8:1:2::1", 0);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 2);
	check_na(1, "2001:db8:1:2::1", "2001:db8:1:2::10", "2001:db8:1:2::1",
		 true);
	ck_assert(ip6_eq(ctx.ip6.addr_seen.s6_addr, "2001:db8:1:2::10"));
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_ns_dad)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };

	/* DAD for an address the guest is trying out: silence */
	len = tf_ns_frame(f, "::", "fe80::5054:ff:fe12:3456", 0);
	feed_exact(f, len);
	len = tf_ns_frame(f, "::", "2001:db8:1:2:abcd::1", 0);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 0);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);

	/* DAD for our own link-local address: defend it, to all-nodes */
	len = tf_ns_frame(f, "::", "fe80::9855:9aff:fe55:9a55", 0);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	check_na(0, "fe80::9855:9aff:fe55:9a55", "ff02::1",
		 "fe80::9855:9aff:fe55:9a55", false);
	ck_assert_mem_eq(sent.buf[0], all_nodes_mac, 6);

	/* DAD with a source link-layer option: invalid */
	len = tf_ns_frame(f, "::", "fe80::1", 1);
	feed_exact(f, len);
	ck_assert_uint_eq(net_stats.drop_malformed, 1);

	/* DAD not sent to a solicited-node group */
	len = tf_ns_frame(f, "::", "fe80::1", 0);
	inet_pton(AF_INET6, "ff02::1", f + 14 + 24);
	tf_icmp6_csum(f);
	feed_exact(f, len);
	ck_assert_uint_eq(net_stats.drop_malformed, 2);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_ns_guest_addr)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	/* Configured address */
	len = tf_ns_frame(f, "fe80::5054:ff:fe12:3456", "2001:db8:1:2::10", 1);
	feed_exact(f, len);

	/* Link-local address, seen in the previous frame */
	len = tf_ns_frame(f, "2001:db8:1:2::10", "fe80::5054:ff:fe12:3456",
			  1);
	feed_exact(f, len);

	/* Global address seen (different from the configured one) */
	len = tf_ns_frame(f, "2001:db8:1:2::77", "fe80::1", 1);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	len = tf_ns_frame(f, "fe80::5054:ff:fe12:3456", "2001:db8:1:2::77", 1);
	feed_exact(f, len);

	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(net_stats.drop_unsupported, 3);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_ns_invalid)
{
	uint8_t f[TF_FRAME_MAX], g[TF_FRAME_MAX];
	size_t len = tf_ns_frame(f, "fe80::5054:ff:fe12:3456", "fe80::1", 1);

	/* Hop limit not 255 (checksum does not cover it) */
	memcpy(g, f, len);
	g[21] = 64;
	feed_exact(g, len);

	/* Bad checksum */
	memcpy(g, f, len);
	g[54 + 2] ^= 0x10;
	feed_exact(g, len);

	/* Code not 0 */
	memcpy(g, f, len);
	g[54 + 1] = 1;
	tf_icmp6_csum(g);
	feed_exact(g, len);

	/* Option length 0 */
	memcpy(g, f, len);
	g[54 + 25] = 0;
	tf_icmp6_csum(g);
	feed_exact(g, len);

	/* Option length past the end */
	memcpy(g, f, len);
	g[54 + 25] = 2;
	tf_icmp6_csum(g);
	feed_exact(g, len);

	/* Multicast target */
	memcpy(g, f, len);
	inet_pton(AF_INET6, "ff02::1", g + 54 + 8);
	tf_icmp6_csum(g);
	feed_exact(g, len);

	/* Too short for a solicitation */
	memcpy(g, f, len);
	tf_put16(g + 18, 20);
	tf_icmp6_csum(g);
	feed_exact(g, 54 + 20);

	ck_assert_uint_eq(sent.n, 0);
	ck_assert_uint_eq(net_stats.drop_malformed, 7);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/**
 * struct ra_opts - what check_ra() found in a Router Advertisement
 * @slla:	source link-layer address option seen
 * @mtu:	MTU option value, 0 if none
 * @prefix:	prefix information option seen
 * @rdnss:	number of RDNSS addresses
 * @dnssl:	DNSSL option, decoded: names separated by spaces
 */
struct ra_opts {
	bool slla;
	uint32_t mtu;
	bool prefix;
	int rdnss;
	char dnssl[2048];
};

/**
 * check_ra() - check and parse a captured Router Advertisement
 * @i:		index in the captured frames
 * @dst:	expected IPv6 destination
 * @o:		options found
 */
static void check_ra(size_t i, const char *dst, struct ra_opts *o)
{
	const uint8_t *r = sent.buf[i], *ra = r + 54;
	size_t len = sent.len[i] - 54, off = 16;

	memset(o, 0, sizeof(*o));
	ck_assert_uint_le(sent.len[i], 14 + 1280);
	ck_assert_mem_eq(r + 6, tf_our_mac, 6);
	ck_assert_uint_eq(r[20], IPPROTO_ICMPV6);
	ck_assert_uint_eq(r[21], 255);
	ck_assert(ip6_eq(r + 22, "fe80::9855:9aff:fe55:9a55"));
	ck_assert(ip6_eq(r + 38, dst));
	ck_assert(icmp6_csum_ok(r, sent.len[i]));
	ck_assert_uint_eq(ra[0], 134);
	ck_assert_uint_eq(ra[1], 0);
	ck_assert_uint_eq(tf_get16(ra + 6), 9000);

	while (off < len) {
		const uint8_t *opt = ra + off;
		size_t olen = (size_t)opt[1] * 8;

		ck_assert_uint_gt(olen, 0);
		ck_assert_uint_le(off + olen, len);

		switch (opt[0]) {
		case 1:
			ck_assert_uint_eq(olen, 8);
			ck_assert_mem_eq(opt + 2, tf_our_mac, 6);
			o->slla = true;
			break;
		case 5:
			ck_assert_uint_eq(olen, 8);
			o->mtu = tf_get32(opt + 4);
			break;
		case 3:
			ck_assert_uint_eq(olen, 32);
			ck_assert_uint_eq(opt[2], 64);
			ck_assert_uint_eq(opt[3], 0xc0);
			ck_assert_uint_ne(tf_get32(opt + 4), 0);
			ck_assert_uint_ge(tf_get32(opt + 4),
					  tf_get32(opt + 8));
			ck_assert(ip6_eq(opt + 16, "2001:db8:1:2::"));
			o->prefix = true;
			break;
		case 25:
			ck_assert_uint_eq((olen - 8) % 16, 0);
			ck_assert_uint_ne(tf_get32(opt + 4), 0);
			o->rdnss = (int)((olen - 8) / 16);
			ck_assert(ip6_eq(opt + 8, "2001:db8:53::1"));
			break;
		case 31: {
			size_t p = 8, n = 0;

			ck_assert_uint_ne(tf_get32(opt + 4), 0);
			while (p < olen && opt[p]) {
				while (p < olen && opt[p]) {
					size_t l = opt[p];

					ck_assert_uint_le(p + 1 + l, olen);
					ck_assert_uint_lt(n + l + 2,
							  sizeof(o->dnssl));
					memcpy(o->dnssl + n, opt + p + 1, l);
					n += l;
					p += 1 + l;
					o->dnssl[n++] = '.';
				}
				ck_assert_uint_lt(p, olen);
				p++;
				o->dnssl[n - 1] = ' ';
			}
			o->dnssl[n] = '\0';
			for (; p < olen; p++)
				ck_assert_uint_eq(opt[p], 0);
			break;
		}
		default:
			ck_abort_msg("unexpected RA option %u", opt[0]);
		}
		off += olen;
	}
	ck_assert_uint_eq(off, len);
}

START_TEST(test_rs_ra)
{
	uint8_t f[TF_FRAME_MAX];
	struct ra_opts o;
	size_t len;

	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(net_stats.ndp_replies, 1);
	check_ra(0, "fe80::5054:ff:fe12:3456", &o);
	ck_assert_mem_eq(sent.buf[0], tf_guest_mac, 6);
	ck_assert_uint_eq(sent.buf[0][54 + 5], 0xc0);	/* M, O */
	ck_assert(o.slla);
	ck_assert_uint_eq(o.mtu, 65520);
	ck_assert(o.prefix);
	ck_assert_int_eq(o.rdnss, 2);
	ck_assert_str_eq(o.dnssl, "example.com lab.example.org ");
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_rs_options_off)
{
	uint8_t f[TF_FRAME_MAX];
	struct ra_opts o;
	size_t len;

	ctx.no_dhcpv6 = true;
	ctx.mtu = 0;
	ctx.no_dhcp_dns = true;
	ctx.no_dhcp_search = true;

	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	check_ra(0, "fe80::5054:ff:fe12:3456", &o);
	ck_assert_uint_eq(sent.buf[0][54 + 5], 0);
	ck_assert_uint_eq(o.mtu, 0);
	ck_assert_int_eq(o.rdnss, 0);
	ck_assert_str_eq(o.dnssl, "");
	ck_assert(o.prefix);

	/* No link-local address of ours: no RA, counted */
	memset(&ctx.ip6.our_tap_ll, 0, sizeof(ctx.ip6.our_tap_ll));
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_rs_unspecified_source)
{
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	uint8_t f[TF_FRAME_MAX];
	struct ra_opts o;
	size_t len;

	/* With SLLA from :: is invalid */
	len = tf_rs_frame(f, "::");
	feed_exact(f, len);
	ck_assert_uint_eq(net_stats.drop_malformed, 1);

	/* Without it: answered to all-nodes */
	tf_put16(f + 18, 8);
	tf_icmp6_csum(f);
	feed_exact(f, 54 + 8);
	ck_assert_uint_eq(sent.n, 1);
	check_ra(0, "ff02::1", &o);
	ck_assert_mem_eq(sent.buf[0], all_nodes_mac, 6);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_ra_long_search_list)
{
	uint8_t f[TF_FRAME_MAX];
	struct ra_opts o;
	size_t len;
	int i;

	/* Six names of 253 characters: not all fit in 1280 bytes */
	for (i = 0; i < SEARCH_MAX; i++) {
		char *s = ctx.search[i];
		int j;

		for (j = 0; j < 4; j++) {
			memset(s, 'a' + i, 62);
			s[62] = '.';
			s += 63;
		}
		memcpy(s, "x", 2);
	}
	ctx.search_count = SEARCH_MAX;
	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	check_ra(0, "fe80::5054:ff:fe12:3456", &o);
	ck_assert_uint_gt(strlen(o.dnssl), 3 * 253);

	/* Invalid names are skipped: empty label, label over 63 bytes */
	memcpy(ctx.search[0], "a..b", 5);
	memset(ctx.search[1], 'q', 64);
	ctx.search[1][64] = '\0';
	memcpy(ctx.search[2], "ok.test", 8);
	ctx.search_count = 3;
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 2);
	check_ra(1, "fe80::5054:ff:fe12:3456", &o);
	ck_assert_str_eq(o.dnssl, "ok.test ");
}
END_TEST

START_TEST(test_ra_unsolicited)
{
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	struct ra_opts o;

	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 1);
	check_ra(0, "ff02::1", &o);
	ck_assert_mem_eq(sent.buf[0], all_nodes_mac, 6);
	ck_assert(o.prefix);

	ctx.no_ra = true;
	net_ndp_unsolicited(&ctx);
	ctx.no_ra = false;
	ctx.no_ndp = true;
	net_ndp_unsolicited(&ctx);
	ctx.no_ndp = false;
	ctx.ip6.enabled = false;
	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 1);
}
END_TEST

/* TCP */

START_TEST(test_tcp4_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 100);
	struct in_addr s, d;

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	inet_pton(AF_INET, "192.0.2.10", &s);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&tcp_call.saddr));
	ck_assert_uint_eq(inany_v4(&tcp_call.saddr)->s_addr, s.s_addr);
	ck_assert_uint_eq(inany_v4(&tcp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(tcp_call.th, f + 34);
	ck_assert_uint_eq(tcp_call.l4len, 120);
	ck_assert_uint_eq(tcp_call.now_ms, 1234);
	ck_assert_uint_eq(ctx.ip4.addr_seen.s_addr, s.s_addr);
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);

	/* Ethernet padding after the packet is not part of it */
	len = tf_tcp4_frame(f, 0);
	memset(f + len, 0xee, 6);
	feed(f, 60);
	ck_assert_uint_eq(tcp_call.n, 2);
	ck_assert_uint_eq(tcp_call.l4len, 20);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_tcp4_options_skipped)
{
	uint8_t f[TF_FRAME_MAX];
	uint8_t *ip = f + 14;
	size_t len;

	/* IHL 6: one 4-byte option (NOPs), TCP after it */
	tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
	tf_ip4(ip, "192.0.2.10", "198.51.100.7", IPPROTO_TCP, 4 + 20 + 5);
	ip[0] = 0x46;
	memset(ip + 20, 1, 4);
	tf_put16(ip + 10, 0);
	tf_put16(ip + 10, tf_finish(tf_sum(ip, 24, 0)));
	len = 14 + 24 + tf_tcp(ip + 24, 5);

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	ck_assert_ptr_eq(tcp_call.th, f + 38);
	ck_assert_uint_eq(tcp_call.l4len, 25);
}
END_TEST

START_TEST(test_tcp6_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp6_frame(f, 33);
	struct in6_addr s, d;

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &s);
	inet_pton(AF_INET6, "2001:db8:9::7", &d);
	ck_assert_ptr_null(inany_v4(&tcp_call.saddr));
	ck_assert_mem_eq(&tcp_call.saddr.a6, &s, 16);
	ck_assert_mem_eq(&tcp_call.daddr.a6, &d, 16);
	ck_assert_ptr_eq(tcp_call.th, f + 54);
	ck_assert_uint_eq(tcp_call.l4len, 53);
	ck_assert_mem_eq(&ctx.ip6.addr_seen, &s, 16);
}
END_TEST

START_TEST(test_tcp6_ext_headers)
{
	uint8_t f[TF_FRAME_MAX];
	uint8_t *ip = f + 14;
	size_t len;

	/* Hop-by-hop (8 bytes), routing (24 bytes), dest options (16) */
	tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
	tf_ip6(ip, "2001:db8:1:2::10", "2001:db8:9::7", 0, 64,
	       8 + 24 + 16 + 20 + 3);
	memset(ip + 40, 0, 48);
	ip[40] = 43;
	ip[48] = 60;
	ip[49] = 2;
	ip[72] = IPPROTO_TCP;
	ip[73] = 1;
	len = 14 + 40 + 48 + tf_tcp(ip + 88, 3);

	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
	ck_assert_ptr_eq(tcp_call.th, f + 14 + 88);
	ck_assert_uint_eq(tcp_call.l4len, 23);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_tcp_options_doff)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 40);

	/* 60-byte header within a 60-byte segment is fine */
	f[34 + 12] = 15 << 4;
	feed(f, len);
	ck_assert_uint_eq(tcp_call.n, 1);
}
END_TEST

/* UDP */

START_TEST(test_udp_delivered)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000,
				  53, 12);
	struct in_addr s, d;
	struct in6_addr s6, d6;

	feed(f, len);
	ck_assert_uint_eq(udp_call.n, 1);
	inet_pton(AF_INET, "192.0.2.10", &s);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&udp_call.saddr));
	ck_assert_uint_eq(inany_v4(&udp_call.saddr)->s_addr, s.s_addr);
	ck_assert_uint_eq(inany_v4(&udp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(udp_call.l4, f + 34);
	ck_assert_uint_eq(udp_call.l4len, 20);
	ck_assert_uint_eq(udp_call.now_ms, 1234);
	ck_assert_uint_eq(ctx.ip4.addr_seen.s_addr, s.s_addr);
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);

	/* Ethernet padding is not part of the datagram */
	len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000, 53, 0);
	memset(f + len, 0xee, 60 - len);
	feed(f, 60);
	ck_assert_uint_eq(udp_call.n, 2);
	ck_assert_uint_eq(udp_call.l4len, 8);

	len = tf_udp_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 40000,
			   53, 7);
	feed(f, len);
	ck_assert_uint_eq(udp_call.n, 3);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &s6);
	inet_pton(AF_INET6, "2001:db8:9::7", &d6);
	ck_assert_ptr_null(inany_v4(&udp_call.saddr));
	ck_assert_mem_eq(&udp_call.saddr.a6, &s6, 16);
	ck_assert_mem_eq(&udp_call.daddr.a6, &d6, 16);
	ck_assert_ptr_eq(udp_call.l4, f + 54);
	ck_assert_uint_eq(udp_call.l4len, 15);
	ck_assert_mem_eq(&ctx.ip6.addr_seen, &s6, 16);

	ck_assert_uint_eq(dhcp_call.n4 + dhcp_call.n6, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_udp_dropped)
{
	uint8_t f[TF_FRAME_MAX], g[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "192.0.2.10", "198.51.100.7", 40000,
				  53, 12);
	size_t len6;

	/* UDP length below the header, past the IP payload */
	memcpy(g, f, len);
	tf_put16(g + 34 + 4, 7);
	feed_exact(g, len);
	memcpy(g, f, len);
	tf_put16(g + 34 + 4, 21);
	feed_exact(g, len);

	/* IP payload shorter than a UDP header */
	memcpy(g, f, len);
	tf_put16(g + 14 + 2, 20 + 7);
	tf_put16(g + 14 + 10, 0);
	tf_put16(g + 14 + 10, tf_finish(tf_sum(g + 14, 20, 0)));
	feed_exact(g, len);
	ck_assert_uint_eq(net_stats.drop_malformed, 3);

	/* To a broadcast address, from 0.0.0.0 (not DHCP) */
	len = tf_udp_frame(g, 1, "192.0.2.10", "255.255.255.255", 40000, 53,
			   4);
	feed_exact(g, len);
	len = tf_udp_frame(g, 1, "0.0.0.0", "198.51.100.7", 40000, 53, 4);
	feed_exact(g, len);

	/* To a multicast group, from :: */
	len6 = tf_udp_frame(g, 0, "2001:db8:1:2::10", "ff02::fb", 5353, 5353,
			    4);
	feed_exact(g, len6);
	len6 = tf_udp_frame(g, 0, "::", "2001:db8:9::7", 40000, 53, 4);
	feed_exact(g, len6);

	/* --no-udp */
	ctx.no_udp = true;
	len = tf_udp_frame(g, 1, "192.0.2.10", "198.51.100.7", 40000, 53, 4);
	feed_exact(g, len);
	len6 = tf_udp_frame(g, 0, "2001:db8:1:2::10", "2001:db8:9::7", 40000,
			    53, 4);
	feed_exact(g, len6);

	ck_assert_uint_eq(net_stats.drop_unsupported, 6);
	ck_assert_uint_eq(net_stats.drop_malformed, 3);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/* DHCP and DHCPv6 */

START_TEST(test_dhcp_dispatch)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 1, "0.0.0.0", "255.255.255.255", 68, 67,
				  300);

	/* Consumed by the server: nothing else */
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 1);
	ck_assert_ptr_eq(dhcp_call.payload, f + 42);
	ck_assert_uint_eq(dhcp_call.len, 300);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);
	ck_assert_uint_eq(ctx.ip4.addr_seen.s_addr, 0);
	ck_assert_uint_eq(accounted(), 0);

	/* Declined, broadcast: dropped by the UDP path */
	dhcp_call.consume = false;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 1);

	/* Declined, unicast to the gateway: to udp/ */
	len = tf_udp_frame(f, 1, "192.0.2.10", "192.0.2.1", 68, 67, 300);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 3);
	ck_assert_uint_eq(udp_call.n, 1);
	ck_assert_uint_eq(accounted(), 0);

	/* --no-dhcp: the server is not asked */
	dhcp_call.consume = true;
	ctx.no_dhcp = true;
	len = tf_udp_frame(f, 1, "0.0.0.0", "255.255.255.255", 68, 67, 300);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4, 3);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);

	/* Port 547 over IPv4 is not DHCPv6, 67 over IPv6 is not DHCP */
	ctx.no_dhcp = false;
	len = tf_udp_frame(f, 1, "192.0.2.10", "192.0.2.1", 546, 547, 40);
	feed(f, len);
	len = tf_udp_frame(f, 0, "fe80::5054:ff:fe12:3456", "ff02::1:2", 68,
			   67, 40);
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n4 + dhcp_call.n6, 3);
	ck_assert_uint_eq(udp_call.n, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 3);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_dhcpv6_dispatch)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_udp_frame(f, 0, "fe80::5054:ff:fe12:3456", "ff02::1:2",
				  546, 547, 60);
	struct in6_addr s;

	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 1);
	ck_assert_ptr_eq(dhcp_call.payload, f + 62);
	ck_assert_uint_eq(dhcp_call.len, 60);
	inet_pton(AF_INET6, "fe80::5054:ff:fe12:3456", &s);
	ck_assert_mem_eq(&dhcp_call.saddr6, &s, 16);
	ck_assert_mem_eq(&ctx.ip6.addr_ll_seen, &s, 16);
	ck_assert_uint_eq(udp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);

	/* Declined, to a multicast group: dropped by the UDP path */
	dhcp_call.consume = false;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 1);

	/* --no-dhcpv6: the server is not asked */
	dhcp_call.consume = true;
	ctx.no_dhcpv6 = true;
	feed(f, len);
	ck_assert_uint_eq(dhcp_call.n6, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

/* ICMP */

START_TEST(test_icmp_echo)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 56);
	struct in_addr d;
	struct in6_addr d6;

	feed(f, len);
	ck_assert_uint_eq(icmp_call.n, 1);
	inet_pton(AF_INET, "198.51.100.7", &d);
	ck_assert_ptr_nonnull(inany_v4(&icmp_call.daddr));
	ck_assert_uint_eq(inany_v4(&icmp_call.daddr)->s_addr, d.s_addr);
	ck_assert_ptr_eq(icmp_call.l4, f + 34);
	ck_assert_uint_eq(icmp_call.l4len, 64);
	ck_assert_uint_eq(icmp_call.now_ms, 1234);

	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 56);
	feed(f, len);
	ck_assert_uint_eq(icmp_call.n, 2);
	inet_pton(AF_INET6, "2001:db8:9::7", &d6);
	ck_assert_ptr_null(inany_v4(&icmp_call.daddr));
	ck_assert_mem_eq(&icmp_call.daddr.a6, &d6, 16);
	ck_assert_ptr_eq(icmp_call.l4, f + 54);
	ck_assert_uint_eq(icmp_call.l4len, 64);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_icmp_dropped)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	/* Echo replies, and ICMPv6 echo with a non-zero code */
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 8);
	f[34] = 0;
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	f[54] = 129;
	tf_icmp6_csum(f);
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	f[55] = 1;
	tf_icmp6_csum(f);
	feed_exact(f, len);

	/* To broadcast and multicast addresses */
	len = tf_echo_frame(f, 1, "192.0.2.10", "192.0.2.255", 77, 8);
	inet_pton(AF_INET, "255.255.255.255", f + 30);
	tf_put16(f + 24, 0);
	tf_put16(f + 24, tf_finish(tf_sum(f + 14, 20, 0)));
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "ff02::1", 77, 8);
	feed_exact(f, len);

	/* --no-icmp */
	ctx.no_icmp = true;
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 8);
	feed_exact(f, len);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 77, 8);
	feed_exact(f, len);
	ck_assert_uint_eq(net_stats.drop_unsupported, 7);

	/* ICMP shorter than an echo header */
	ctx.no_icmp = false;
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 77, 0);
	tf_put16(f + 14 + 2, 20 + 7);
	tf_put16(f + 24, 0);
	tf_put16(f + 24, tf_finish(tf_sum(f + 14, 20, 0)));
	feed_exact(f, len - 1);
	ck_assert_uint_eq(net_stats.drop_malformed, 1);

	ck_assert_uint_eq(icmp_call.n, 0);
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_input_done)
{
	net_input_done(&ctx);
	ck_assert_uint_eq(input_done_calls, 1);
}
END_TEST

/* Fuzzing */

/**
 * fuzz_one() - mutate a frame a little and feed it
 * @base:	valid frame
 * @len:	its length
 */
static void fuzz_one(const uint8_t *base, size_t len)
{
	uint8_t g[TF_FRAME_MAX];
	size_t glen = len;
	int k, muts = 1 + (int)(random() % 4);

	memcpy(g, base, len);
	for (k = 0; k < muts; k++) {
		switch (random() % 5) {
		case 0:		/* flip a byte */
			g[(size_t)random() % len] ^=
				(uint8_t)(1 + random() % 255);
			break;
		case 1:		/* random byte */
			g[(size_t)random() % len] = (uint8_t)random();
			break;
		case 2:		/* truncate */
			glen = (size_t)random() % (glen + 1);
			break;
		case 3:		/* hit a length-like field in the headers */
			g[12 + (size_t)random() % 50 % len] =
				(uint8_t)random();
			break;
		default:	/* extend with garbage */
			if (glen + 16 <= sizeof(g)) {
				size_t j;

				for (j = 0; j < 16; j++)
					g[glen + j] = (uint8_t)random();
				glen += 16;
			}
			break;
		}
	}

	/* Sometimes fix the checksums so that deeper code runs */
	if (glen >= 54 && tf_get16(g + 12) == 0x86dd && g[20] == 58 &&
	    54 + (size_t)tf_get16(g + 18) <= glen && tf_get16(g + 18) >= 4 &&
	    random() % 2)
		tf_icmp6_csum(g);
	if (glen >= 34 && tf_get16(g + 12) == 0x0800 && random() % 2) {
		size_t ihl = (size_t)(g[14] & 0xf) * 4;

		if (ihl >= 20 && 14 + ihl <= glen) {
			tf_put16(g + 24, 0);
			tf_put16(g + 24, tf_finish(tf_sum(g + 14, ihl, 0)));
		}
	}

	feed_exact(g, glen);
}

#define FUZZ_KINDS	12

START_TEST(test_fuzz)
{
	uint8_t frames[FUZZ_KINDS][TF_FRAME_MAX];
	size_t lens[FUZZ_KINDS];
	long i;

	srandom(42);
	lens[0] = tf_tcp4_frame(frames[0], 30);
	lens[1] = tf_tcp6_frame(frames[1], 30);
	lens[2] = tf_arp_frame(frames[2], 1, "192.0.2.10", "192.0.2.1");
	lens[3] = tf_ns_frame(frames[3], "fe80::5054:ff:fe12:3456", "fe80::1",
			      1);
	lens[4] = tf_rs_frame(frames[4], "fe80::5054:ff:fe12:3456");
	lens[5] = tf_ns_frame(frames[5], "::", "fe80::9855:9aff:fe55:9a55", 0);
	lens[6] = tf_udp_frame(frames[6], 1, "192.0.2.10", "198.51.100.7",
			       40000, 53, 20);
	lens[7] = tf_udp_frame(frames[7], 0, "2001:db8:1:2::10",
			       "2001:db8:9::7", 40000, 53, 20);
	lens[8] = tf_udp_frame(frames[8], 1, "0.0.0.0", "255.255.255.255", 68,
			       67, 30);
	lens[9] = tf_udp_frame(frames[9], 0, "fe80::5054:ff:fe12:3456",
			       "ff02::1:2", 546, 547, 30);
	lens[10] = tf_echo_frame(frames[10], 1, "192.0.2.10", "198.51.100.7",
				 7, 16);
	lens[11] = tf_echo_frame(frames[11], 0, "2001:db8:1:2::10",
				 "2001:db8:9::7", 7, 16);

	for (i = 0; i < 150000; i++) {
		int k = (int)(random() % FUZZ_KINDS);

		/* DHCP servers take or decline what they are given */
		dhcp_call.consume = random() % 2;
		fuzz_one(frames[k], lens[k]);
		ck_assert_int_eq(accounted(), 0);
		ck_assert_int_eq(balance(), 0);
		sent.n = 0;
	}
	ck_assert_uint_eq(net_stats.to_tcp, tcp_call.n);
	ck_assert_uint_eq(net_stats.to_udp, udp_call.n);
	ck_assert_uint_eq(net_stats.to_icmp, icmp_call.n);
	ck_assert_uint_eq(net_stats.to_dhcp, dhcp_call.consumed);
	ck_assert_uint_eq(net_stats.to_arp, net_stats.arp_replies);
	ck_assert_uint_gt(udp_call.n, 0);
	ck_assert_uint_gt(icmp_call.n, 0);
	ck_assert_uint_gt(dhcp_call.consumed, 0);

	/* Each kind still works after all that */
	for (i = 0; i < FUZZ_KINDS; i++) {
		setup();
		if (i < 2)
			feed(frames[i], lens[i]);
		else
			feed_exact(frames[i], lens[i]);
		ck_assert_uint_eq(sent.n + delivered(), 1);
	}
}
END_TEST

/**
 * net_io_suite() - build the test suite
 *
 * Return: suite
 */
static Suite *net_io_suite(void)
{
	Suite *s = suite_create("net_io");
	TCase *tc = tcase_create("core");
	TCase *fz = tcase_create("fuzz");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_arp_gateway);
	tcase_add_test(tc, test_arp_ignored);
	tcase_add_test(tc, test_ns_gateway);
	tcase_add_test(tc, test_ns_dad);
	tcase_add_test(tc, test_ns_guest_addr);
	tcase_add_test(tc, test_ns_invalid);
	tcase_add_test(tc, test_rs_ra);
	tcase_add_test(tc, test_rs_options_off);
	tcase_add_test(tc, test_rs_unspecified_source);
	tcase_add_test(tc, test_ra_long_search_list);
	tcase_add_test(tc, test_ra_unsolicited);
	tcase_add_test(tc, test_tcp4_delivered);
	tcase_add_test(tc, test_tcp4_options_skipped);
	tcase_add_test(tc, test_tcp6_delivered);
	tcase_add_test(tc, test_tcp6_ext_headers);
	tcase_add_test(tc, test_tcp_options_doff);
	tcase_add_test(tc, test_udp_delivered);
	tcase_add_test(tc, test_udp_dropped);
	tcase_add_test(tc, test_dhcp_dispatch);
	tcase_add_test(tc, test_dhcpv6_dispatch);
	tcase_add_test(tc, test_icmp_echo);
	tcase_add_test(tc, test_icmp_dropped);
	tcase_add_test(tc, test_input_done);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(fz, setup, NULL);
	tcase_add_test(fz, test_fuzz);
	tcase_set_timeout(fz, 300);
	suite_add_tcase(s, fz);

	return s;
}

/**
 * main() - run the net input/output tests
 *
 * Return: 0 if all passed
 */
int main(void)
{
	SRunner *sr = srunner_create(net_io_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
