/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net_io_doubles.h - doubles for what net/ calls, for net/ input tests
 *
 * Theory of operation: tests/unit/standalone/test_net_io.c (delivery to
 * the protocol modules, fuzzing) and test_arp_ndp.c (ARP and NDP
 * answers) are linked with net/net.c, net/arp.c, net/ndp.c and what they
 * need only. This header replaces the rest: qdisc_send() and the entry
 * points of tcp/, udp/, net/icmp.c, net/dhcp.c, net/dhcpv6.c and
 * fwd/mcast.c (never called without --mcast-ports) are doubles that
 * record what net/ sends to the guest and hands to each module, and check
 * that every pointer they get lies inside the frame being fed. feed() and
 * feed_exact() pass a frame to net_input(), and accounted() tells whether
 * every frame so far was dropped, answered or delivered exactly once.
 * Included by exactly one file of each test binary: it defines functions
 * and variables.
 */
#ifndef TESTS_UNIT_NET_IO_DOUBLES_H
#define TESTS_UNIT_NET_IO_DOUBLES_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../conf/ctx.h"
#include "../../net/dhcp.h"
#include "../../net/dhcpv6.h"
#include "../../net/icmp.h"
#include "../../fwd/mcast.h"
#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"
#include "../../tcp/tcp.h"
#include "../../udp/udp.h"
#include "net_frames.h"

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
 * struct tcp_call - last call to tcp_guest_input()
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
 * struct l4_call - calls to udp_guest_input() or icmp_guest_input()
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
static inline void check_inside(const uint8_t *p, size_t len)
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
static inline bool same_family(const union inany_addr *a,
				const union inany_addr *b)
{
	return !inany_v4(a) == !inany_v4(b);
}

/**
 * qdisc_send() - test double: record the frame
 * @c:		execution context
 * @frame:	frame
 * @len:	length
 */
void qdisc_send(const struct ctx *c, const void *frame, size_t len)
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
 * tap_connected() - test double: a guest is always there
 * @c:		execution context
 *
 * Return: true
 */
bool tap_connected(const struct ctx *c)
{
	(void)c;
	return true;
}

/**
 * tcp_guest_input() - test double: record and check the arguments
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @th:		TCP header
 * @l4len:	TCP length
 * @now_ms:	time
 */
void tcp_guest_input(const struct ctx *c, const union inany_addr *saddr,
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
void tcp_input_done(const struct ctx *c)
{
	(void)c;
	input_done_calls++;
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
int mcast_guest_igmp(const struct ctx *c, const uint8_t *msg, size_t len,
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
int mcast_guest_mld(const struct ctx *c, const struct in6_addr *src,
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
bool mcast_guest_udp(const struct ctx *c, const union inany_addr *daddr,
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
static inline void l4_record(struct l4_call *call,
			     const union inany_addr *saddr,
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
 * udp_guest_input() - test double: check the UDP length, record the call
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @udp:	UDP header
 * @l4len:	UDP length from the IP header
 * @now_ms:	time
 */
void udp_guest_input(const struct ctx *c, const union inany_addr *saddr,
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
 * icmp_guest_input() - test double: check it is an echo request, record it
 * @c:		execution context
 * @saddr:	source
 * @daddr:	destination
 * @icmp:	ICMP or ICMPv6 header
 * @l4len:	message length
 * @now_ms:	time
 */
void icmp_guest_input(const struct ctx *c, const union inany_addr *saddr,
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
static inline bool dhcp_check(const uint8_t *payload, size_t len, uint16_t port)
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
bool dhcp_input(const struct ctx *c, const uint8_t *payload, size_t len)
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
bool dhcpv6_input(const struct ctx *c, const struct in6_addr *saddr,
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
static inline void tcp_double_input(const struct ctx *c,
				    const union inany_addr *saddr,
				    const union inany_addr *daddr,
				    const uint8_t *l4, size_t l4len,
				    uint64_t now_ms)
{
	tcp_guest_input(c, saddr, daddr, (const struct tcphdr *)(const void *)l4,
			l4len, now_ms);
}

static const struct net_l4_ops tcp_double_ops = {
	.input = tcp_double_input, .input_done = tcp_input_done,
};
static const struct net_l4_ops udp_double_ops = {
	.input = udp_guest_input,
};
static const struct net_l4_ops icmp_double_ops = { .input = icmp_guest_input };
static const struct net_mcast_ops mcast_double_ops = {
	.igmp = mcast_guest_igmp, .mld = mcast_guest_mld,
	.udp = mcast_guest_udp,
};

/**
 * setup() - fresh configuration, counters and captures for each test
 */
static inline void setup(void)
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
static inline void feed(const uint8_t *f, size_t len)
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
static inline void feed_exact(const uint8_t *f, size_t len)
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
static inline size_t delivered(void)
{
	return tcp_call.n + udp_call.n + icmp_call.n + dhcp_call.consumed;
}

/**
 * accounted() - frames seen minus frames accounted for
 *
 * Return: 0 if every frame was dropped, answered, passed to tcp/, udp/ or
 *	   net/icmp.c, or consumed by a DHCP server
 */
static inline long long accounted(void)
{
	return (long long)net_stats.frames -
	       (long long)(net_stats.drop_malformed +
			   net_stats.drop_unsupported + net_stats.arp_replies +
			   net_stats.ndp_replies + delivered());
}

#endif /* TESTS_UNIT_NET_IO_DOUBLES_H */
