// SPDX-License-Identifier: GPL-2.0-or-later
/* test_arp_ndp.c - ARP and NDP answers of net/, with doubles
 *
 * Build (not linked against the other modules: tests/unit/
 * net_io_doubles.h defines its own qdisc_send(), tcp_guest_input(),
 * tcp_input_done(), udp_guest_input(), icmp_guest_input(),
 * dhcp_input(), dhcpv6_input() and the entry points of fwd/mcast.c):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_arp_ndp \
 *	tests/unit/standalone/test_arp_ndp.c net/net.c net/arp.c net/ndp.c \
 *	net/dns_name.c net/checksum.c util/log.c \
 *	$(pkg-config --cflags --libs check)
 *
 * Theory of operation: hand-built ARP requests, neighbour and router
 * solicitations (tests/unit/net_frames.h) go through net_input(); the
 * qdisc_send() double captures the answers, checked field by field, with
 * ICMPv6 checksums recomputed with a naive reference, and the Router
 * Advertisement options decoded and compared with the configuration.
 * Invalid solicitations, and requests net/ must leave alone (duplicate
 * address detection, addresses of the guest), must get no answer and be
 * counted. Delivery to the protocol modules and the fuzzer are in
 * test_net_io.c, with the same doubles.
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../net_io_doubles.h"
#include "../../../net/neigh.h"
#include "../../../guest/follow.h"

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
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);
	ck_assert_uint_eq(guest_addr4().s_addr, guest.s_addr);

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
	struct in_addr seen4;
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
	inet_pton(AF_INET, "192.0.2.99", &seen4);
	guest_addr4_set(seen4);
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

/* LAN neighbours of the host (net/neigh.c) */

static const uint8_t lan_mac[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
static const uint8_t gw_mac[6] = { 0x02, 0x00, 0x5e, 0x99, 0x88, 0x77 };

/**
 * neigh_addr() - an address for neigh_set() and neigh_del()
 * @text:	IPv4 or IPv6 address
 *
 * Return: the address
 */
static union inany_addr neigh_addr(const char *text)
{
	union inany_addr a;
	struct in_addr a4;

	memset(&a, 0, sizeof(a));
	if (inet_pton(AF_INET, text, &a4) == 1)
		inany_from_v4(&a, a4);
	else
		inet_pton(AF_INET6, text, &a.a6);
	return a;
}

/**
 * arp_answer_mac() - ask for an address, return the MAC of the answer
 * @target:	address asked for
 *
 * Return: sender hardware address of the reply (in the capture)
 */
static const uint8_t *arp_answer_mac(const char *target)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_arp_frame(f, 1, "192.0.2.10", target);

	sent.n = 0;		/* the capture keeps the first frames only */
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_mem_eq(sent.buf[0] + 6, tf_our_mac, 6);	/* from us */
	return sent.buf[0] + 14 + 8;
}

START_TEST(test_arp_neighbour)
{
	union inany_addr lan = neigh_addr("192.0.2.5");
	union inany_addr gw = neigh_addr("192.0.2.1");
	const uint8_t *r, *a;
	struct in_addr a4;

	/* A new neighbour is announced: gratuitous ARP from its MAC */
	neigh_set(&ctx, &lan, lan_mac);
	ck_assert_uint_eq(sent.n, 1);
	r = sent.buf[0];
	a = r + 14;
	inet_pton(AF_INET, "192.0.2.5", &a4);
	ck_assert_uint_eq(sent.len[0], 42);
	ck_assert_mem_eq(r, "\xff\xff\xff\xff\xff\xff", 6);
	ck_assert_mem_eq(r + 6, lan_mac, 6);
	ck_assert_uint_eq(tf_get16(a + 6), 1);
	ck_assert_mem_eq(a + 8, lan_mac, 6);
	ck_assert_mem_eq(a + 14, &a4, 4);
	ck_assert_mem_eq(a + 24, &a4, 4);

	/* Same again: nothing new to say */
	neigh_set(&ctx, &lan, lan_mac);
	ck_assert_uint_eq(sent.n, 1);

	/* Its address gets its MAC, others ours */
	ck_assert_mem_eq(arp_answer_mac("192.0.2.5"), lan_mac, 6);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.6"), tf_our_mac, 6);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.1"), tf_our_mac, 6);

	/* The mapped gateway is ours: its real MAC is never given */
	inet_pton(AF_INET, "192.0.2.1", &ctx.ip4.map_host_lo);
	neigh_set(&ctx, &gw, gw_mac);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.1"), tf_our_mac, 6);

	/* Unmapped (--no-map-gw): the gateway's, for any unknown address */
	ctx.ip4.map_host_lo.s_addr = 0;
	neigh_set(&ctx, &gw, gw_mac);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.1"), gw_mac, 6);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.6"), gw_mac, 6);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.5"), lan_mac, 6);
	neigh_del(&gw);

	/* Gone: ours again */
	neigh_del(&lan);
	ck_assert_mem_eq(arp_answer_mac("192.0.2.5"), tf_our_mac, 6);
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
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);
	ck_assert(ip6_eq(guest_addr6_ll()->s6_addr, guest_ll));

	/* Global target: the target is the source, without SLLA too */
	len = tf_ns_frame(f, "2001:db8:1:2::10", "2001:db8:1:2::1", 0);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 2);
	check_na(1, "2001:db8:1:2::1", "2001:db8:1:2::10", "2001:db8:1:2::1",
		 true);
	ck_assert(ip6_eq(guest_addr6()->s6_addr, "2001:db8:1:2::10"));
	ck_assert_uint_eq(accounted(), 0);
}
END_TEST

START_TEST(test_ns_neighbour)
{
	static const char *guest_ll = "fe80::5054:ff:fe12:3456";
	union inany_addr lan = neigh_addr("2001:db8:1:2::5");
	uint8_t f[TF_FRAME_MAX];
	const uint8_t *na;
	size_t len;

	/* Announced to all-nodes, from us, not solicited (RFC 4861 7.2.6) */
	neigh_set(&ctx, &lan, lan_mac);
	ck_assert_uint_eq(sent.n, 1);
	na = sent.buf[0] + 54;
	ck_assert_uint_eq(sent.len[0], 54 + 32);
	ck_assert_mem_eq(sent.buf[0], "\x33\x33\x00\x00\x00\x01", 6);
	ck_assert_mem_eq(sent.buf[0] + 6, tf_our_mac, 6);
	ck_assert(ip6_eq(sent.buf[0] + 38, "ff02::1"));
	ck_assert_uint_eq(na[0], 136);
	ck_assert_uint_eq(na[4], 0xa0);
	ck_assert(ip6_eq(na + 8, "2001:db8:1:2::5"));
	ck_assert_mem_eq(na + 26, lan_mac, 6);
	ck_assert(icmp6_csum_ok(sent.buf[0], sent.len[0]));

	/* Solicited: its MAC in the target link-layer address option */
	len = tf_ns_frame(f, guest_ll, "2001:db8:1:2::5", 1);
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 2);
	na = sent.buf[1] + 54;
	ck_assert_uint_eq(na[4], 0xe0);
	ck_assert_mem_eq(na + 26, lan_mac, 6);

	/* Another address: ours, as check_na() expects */
	len = tf_ns_frame(f, guest_ll, "2001:db8:1:2::6", 1);
	feed_exact(f, len);
	check_na(2, "2001:db8:1:2::6", guest_ll, "2001:db8:1:2::6", true);
	neigh_del(&lan);
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
 * ra_dnssl() - check and decode a DNSSL option of a Router Advertisement
 * @opt:	option
 * @olen:	its length
 * @o:		options found: names set in @o->dnssl
 */
static void ra_dnssl(const uint8_t *opt, size_t olen, struct ra_opts *o)
{
	size_t p = 8, n = 0;

	ck_assert_uint_ne(tf_get32(opt + 4), 0);
	while (p < olen && opt[p]) {
		while (p < olen && opt[p]) {
			size_t l = opt[p];

			ck_assert_uint_le(p + 1 + l, olen);
			ck_assert_uint_lt(n + l + 2, sizeof(o->dnssl));
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
}

/**
 * ra_opt() - check one option of a Router Advertisement, note what it says
 * @opt:	option
 * @olen:	its length, from its length field
 * @o:		options found, updated
 */
static void ra_opt(const uint8_t *opt, size_t olen, struct ra_opts *o)
{
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
		ck_assert_uint_ge(tf_get32(opt + 4), tf_get32(opt + 8));
		ck_assert(ip6_eq(opt + 16, "2001:db8:1:2::"));
		o->prefix = true;
		break;
	case 25:
		ck_assert_uint_eq((olen - 8) % 16, 0);
		ck_assert_uint_ne(tf_get32(opt + 4), 0);
		o->rdnss = (int)((olen - 8) / 16);
		ck_assert(ip6_eq(opt + 8, "2001:db8:53::1"));
		break;
	case 31:
		ra_dnssl(opt, olen, o);
		break;
	default:
		ck_abort_msg("unexpected RA option %u", opt[0]);
	}
}

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
	ck_assert_uint_eq(tf_get16(ra + 6), 65535);
	ck_assert_uint_eq(ra[4], 255);			/* Cur Hop Limit */
	ck_assert_uint_eq(tf_get32(ra + 8), 0);		/* Reachable Time */
	ck_assert_uint_eq(tf_get32(ra + 12), 0);	/* Retrans Timer */
	/* Upstream's order: the prefix first, then our MAC address */
	ck_assert_uint_eq(ra[off], 3);
	ck_assert_uint_eq(ra[off + 32], 1);

	while (off < len) {
		const uint8_t *opt = ra + off;
		size_t olen = (size_t)opt[1] * 8;

		ck_assert_uint_gt(olen, 0);
		ck_assert_uint_le(off + olen, len);
		ra_opt(opt, olen, o);
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
	ck_assert_uint_eq(sent.buf[0][54 + 5], 0x80);	/* M (O redundant) */
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

START_TEST(test_ra_dnssl_needs_rdnss)
{
	uint8_t f[TF_FRAME_MAX];
	struct ra_opts o;
	size_t len;

	/* Search domains but no IPv6 DNS server: neither option */
	memset(ctx.ip6.dns, 0, sizeof(ctx.ip6.dns));
	ctx.ip6.dns_count = 0;
	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	feed_exact(f, len);
	ck_assert_uint_eq(sent.n, 1);
	check_ra(0, "fe80::5054:ff:fe12:3456", &o);
	ck_assert_int_eq(o.rdnss, 0);
	ck_assert_str_eq(o.dnssl, "");
	ck_assert(o.prefix);
	ck_assert_uint_eq(o.mtu, 65520);
}
END_TEST

START_TEST(test_ra_pasta_off)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");

	/* pasta without --config-net: a router as for a VM */
	ctx.mode = MODE_PASTA;
	feed_exact(f, len);
	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 2);

	/* --config-net: the namespace has the host's routes, no router */
	ctx.pasta_conf_ns = true;
	feed_exact(f, len);
	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 1);

	/* --splice-only: no tap device either */
	ctx.pasta_conf_ns = false;
	ctx.splice_only = true;
	feed_exact(f, len);
	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 2);
	ck_assert_uint_eq(net_stats.drop_unsupported, 2);
	ck_assert_uint_eq(net_stats.frames, 3);
}
END_TEST

/**
 * ra_prefixes() - the Prefix Information options of a captured
 *		   advertisement, in order
 * @i:		index in the captured frames
 * @pio:	set to the options, up to @max
 * @max:	room in @pio
 *
 * Return: number of options found
 */
static size_t ra_prefixes(size_t i, const uint8_t **pio, size_t max)
{
	const uint8_t *ra = sent.buf[i] + 54;
	size_t len = sent.len[i] - 54, off = 16, n = 0;

	ck_assert_uint_eq(ra[0], 134);
	while (off < len) {
		size_t olen = (size_t)ra[off + 1] * 8;

		ck_assert_uint_gt(olen, 0);
		if (ra[off] == 3 && n < max)
			pio[n++] = ra + off;
		off += olen;
	}
	return n;
}

START_TEST(test_ra_follow)
{
	static struct ctx unrelated;
	struct ip6_ctx old6 = ctx.ip6, new6 = ctx.ip6;
	const uint8_t *pio[4];

	/* The host moved to another /64: an advertisement at once */
	follow_init(&ctx);
	inet_pton(AF_INET6, "2001:db8:7:8::10", &new6.addr);
	ck_assert(follow_apply(&ctx, &ctx.ip4, &new6));
	net_ndp_follow(&ctx, &old6);
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_uint_eq(ra_prefixes(0, pio, 4), 2);
	ck_assert(ip6_eq(pio[0] + 16, "2001:db8:7:8::"));
	ck_assert_uint_eq(tf_get32(pio[0] + 4), 0xffffffffU);
	ck_assert_uint_eq(tf_get32(pio[0] + 8), 0xffffffffU);
	/* The old one deprecated, valid for at most 2 hours */
	ck_assert(ip6_eq(pio[1] + 16, "2001:db8:1:2::"));
	ck_assert_uint_eq(tf_get32(pio[1] + 8), 0);
	ck_assert_uint_gt(tf_get32(pio[1] + 4), 0);
	ck_assert_uint_le(tf_get32(pio[1] + 4), 7200);

	/* Same /64 (the address within it changed): nothing to say */
	old6 = new6;
	inet_pton(AF_INET6, "2001:db8:7:8::11", &new6.addr);
	ck_assert(follow_apply(&ctx, &ctx.ip4, &new6));
	net_ndp_follow(&ctx, &old6);
	ck_assert_uint_eq(sent.n, 1);

	/* Periodic advertisements keep the old prefix, deprecated */
	net_ndp_unsolicited(&ctx);
	ck_assert_uint_eq(sent.n, 2);
	ck_assert_uint_eq(ra_prefixes(1, pio, 4), 2);

	/* Back to the first /64: it is no longer deprecated */
	old6 = new6;
	new6.addr = ctx.ip6.addr;
	ck_assert(follow_apply(&ctx, &ctx.ip4, &new6));
	net_ndp_follow(&ctx, &old6);
	ck_assert_uint_eq(sent.n, 3);
	ck_assert_uint_eq(ra_prefixes(2, pio, 4), 2);
	ck_assert(ip6_eq(pio[0] + 16, "2001:db8:1:2::"));
	ck_assert_uint_eq(tf_get32(pio[0] + 8), 0xffffffffU);
	ck_assert(ip6_eq(pio[1] + 16, "2001:db8:7:8::"));
	ck_assert_uint_eq(tf_get32(pio[1] + 8), 0);

	follow_init(&unrelated);	/* later tests read ctx itself */
}
END_TEST

/**
 * arp_ndp_suite() - build the test suite
 *
 * Return: suite
 */
static Suite *arp_ndp_suite(void)
{
	Suite *s = suite_create("arp_ndp");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_arp_gateway);
	tcase_add_test(tc, test_arp_ignored);
	tcase_add_test(tc, test_arp_neighbour);
	tcase_add_test(tc, test_ns_neighbour);
	tcase_add_test(tc, test_ns_gateway);
	tcase_add_test(tc, test_ns_dad);
	tcase_add_test(tc, test_ns_guest_addr);
	tcase_add_test(tc, test_ns_invalid);
	tcase_add_test(tc, test_rs_ra);
	tcase_add_test(tc, test_rs_options_off);
	tcase_add_test(tc, test_rs_unspecified_source);
	tcase_add_test(tc, test_ra_long_search_list);
	tcase_add_test(tc, test_ra_unsolicited);
	tcase_add_test(tc, test_ra_dnssl_needs_rdnss);
	tcase_add_test(tc, test_ra_pasta_off);
	tcase_add_test(tc, test_ra_follow);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the ARP and NDP tests
 *
 * Return: 0 if all passed
 */
int main(void)
{
	SRunner *sr = srunner_create(arp_ndp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
