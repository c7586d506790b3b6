// SPDX-License-Identifier: GPL-2.0-or-later
/* test_net.c - unit tests for net/net.c: headers out, malformed frames in
 *
 * Theory of operation: this test is linked against every module, so it
 * only feeds net_input() frames that must be dropped before any other
 * module is called (truncated, bad lengths, bad versions, unsupported
 * protocols), each copied into a heap buffer of its exact length so that
 * AddressSanitizer catches any read past its end. It also checks the
 * headers net_fill_l2l3() writes. Frames that reach ARP, NDP, TCP, UDP,
 * ICMP and DHCP are tested by tests/unit/standalone/test_net_io.c, with
 * test doubles.
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../conf/ctx.h"
#include "../../net/net.h"
#include "net_frames.h"

static struct ctx ctx;

/**
 * setup() - fresh configuration and counters for each test
 */
static void setup(void)
{
	tf_ctx(&ctx);
	memset(&net_stats, 0, sizeof(net_stats));
}

/**
 * feed() - pass a copy of a frame, in a buffer of its exact size
 * @f:		frame
 * @len:	length
 */
static void feed(const uint8_t *f, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, f, len);
	net_input(&ctx, copy, len, 0);
	free(copy);
}

/**
 * expect_drop_as() - feed a frame and check the counter it must land in
 * @what:	the frame, for failure messages
 * @f:		frame
 * @len:	length
 * @malformed:	true for drop_malformed, false for drop_unsupported
 */
static void expect_drop_as(const char *what, const uint8_t *f, size_t len,
			   bool malformed)
{
	struct net_stats before = net_stats;

	feed(f, len);
	ck_assert_msg(net_stats.frames == before.frames + 1,
		      "%s: frames %llu, was %llu", what,
		      (unsigned long long)net_stats.frames,
		      (unsigned long long)before.frames);
	ck_assert_msg(net_stats.drop_malformed ==
		      before.drop_malformed + (malformed ? 1 : 0),
		      "%s: drop_malformed %llu, was %llu", what,
		      (unsigned long long)net_stats.drop_malformed,
		      (unsigned long long)before.drop_malformed);
	ck_assert_msg(net_stats.drop_unsupported ==
		      before.drop_unsupported + (malformed ? 0 : 1),
		      "%s: drop_unsupported %llu, was %llu", what,
		      (unsigned long long)net_stats.drop_unsupported,
		      (unsigned long long)before.drop_unsupported);
}

/**
 * expect_drop() - feed a frame and check the counter it must land in
 * @f:		frame
 * @len:	length
 * @malformed:	true for drop_malformed, false for drop_unsupported
 */
static void expect_drop(const uint8_t *f, size_t len, bool malformed)
{
	expect_drop_as("frame", f, len, malformed);
}

START_TEST(test_fill_ip4)
{
	uint8_t buf[128];
	union inany_addr s, d;
	struct in_addr s4, d4;
	size_t n, i;

	inet_pton(AF_INET, "198.51.100.7", &s4);
	inet_pton(AF_INET, "192.0.2.10", &d4);
	inany_from_v4(&s, s4);
	inany_from_v4(&d, d4);

	memset(buf, 0xaa, sizeof(buf));
	n = net_fill_l2l3(&ctx, buf, &s, &d, IPPROTO_TCP, 1000);
	ck_assert_uint_eq(n, 34);
	ck_assert_uint_eq(net_l2l3_len(&s), 34);

	/* Guest MAC unknown yet: broadcast */
	ck_assert_mem_eq(buf, tf_bcast_mac, 6);
	ck_assert_mem_eq(buf + 6, tf_our_mac, 6);
	ck_assert_uint_eq(tf_get16(buf + 12), 0x0800);
	ck_assert_uint_eq(buf[14], 0x45);
	ck_assert_uint_eq(tf_get16(buf + 16), 1020);
	ck_assert_uint_eq(tf_get16(buf + 18), 0);
	ck_assert_uint_eq(tf_get16(buf + 20), 0x4000);
	ck_assert_uint_eq(buf[22], 64);
	ck_assert_uint_eq(buf[23], IPPROTO_TCP);
	ck_assert_mem_eq(buf + 26, &s4, 4);
	ck_assert_mem_eq(buf + 30, &d4, 4);
	ck_assert_uint_eq(tf_finish(tf_sum(buf + 14, 20, 0)), 0);

	for (i = n; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xaa);
}
END_TEST

START_TEST(test_fill_ip6)
{
	uint8_t buf[128];
	union inany_addr s, d;
	size_t n, i;

	guest_mac_set(tf_guest_mac);
	inet_pton(AF_INET6, "2001:db8:9::7", &s.a6);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &d.a6);

	memset(buf, 0xaa, sizeof(buf));
	n = net_fill_l2l3(&ctx, buf, &s, &d, IPPROTO_UDP, 65535);
	ck_assert_uint_eq(n, 54);
	ck_assert_uint_eq(net_l2l3_len(&s), 54);

	ck_assert_mem_eq(buf, tf_guest_mac, 6);
	ck_assert_mem_eq(buf + 6, tf_our_mac, 6);
	ck_assert_uint_eq(tf_get16(buf + 12), 0x86dd);
	ck_assert_uint_eq(tf_get32(buf + 14), 0x60000000);
	ck_assert_uint_eq(tf_get16(buf + 18), 65535);
	ck_assert_uint_eq(buf[20], IPPROTO_UDP);
	ck_assert_uint_eq(buf[21], 64);
	ck_assert_mem_eq(buf + 22, &s.a6, 16);
	ck_assert_mem_eq(buf + 38, &d.a6, 16);

	for (i = n; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0xaa);
}
END_TEST

START_TEST(test_truncated_tcp4)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 13), i;

	for (i = 0; i < len; i++)
		expect_drop(f, i, true);
	ck_assert_uint_eq(net_stats.drop_malformed, len);
}
END_TEST

START_TEST(test_truncated_tcp6)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp6_frame(f, 7), i;

	for (i = 0; i < len; i++)
		expect_drop(f, i, true);
}
END_TEST

START_TEST(test_truncated_others)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len, i;

	len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.1");
	for (i = 0; i < len; i++)
		expect_drop(f, i, true);

	len = tf_ns_frame(f, "fe80::5054:ff:fe12:3456", "fe80::1", 1);
	for (i = 0; i < len; i++)
		expect_drop(f, i, true);

	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	for (i = 0; i < len; i++)
		expect_drop(f, i, true);
}
END_TEST

/**
 * enum ip4_edit - what a bad IPv4 header case changes in the TCP frame
 * @IP4_SET_BYTE:	byte @at of the IPv4 header (TCP header from 20) set
 *			to @val
 * @IP4_SET_WORD:	16-bit word at @at set to @val
 * @IP4_FLIP_BYTE:	byte @at XORed with @val
 * @IP4_SET_SRC:	source address set to @addr
 * @IP4_SET_DST:	destination address set to @addr
 */
enum ip4_edit {
	IP4_SET_BYTE,
	IP4_SET_WORD,
	IP4_FLIP_BYTE,
	IP4_SET_SRC,
	IP4_SET_DST,
};

/**
 * struct ip4_bad - a bad IPv4 (or TCP) header, and where it must land
 * @name:	what is wrong
 * @addr:	address, for source and destination edits
 * @at:		offset in the IPv4 header, for byte and word edits
 * @at2:	offset of a second 16-bit word set to @val2, 0 for none
 * @short_by:	frame fed this many bytes shorter, 0: whole frame
 * @edit:	what is changed
 * @val:	value, for byte and word edits
 * @val2:	value of the second word
 * @recsum:	header checksum recomputed after the changes
 * @malformed:	counted as malformed (else as unsupported)
 */
struct ip4_bad {
	const char *name;
	const char *addr;
	size_t at;
	size_t at2;
	size_t short_by;
	enum ip4_edit edit;
	unsigned int val;
	uint16_t val2;
	bool recsum;
	bool malformed;
};

/* A 20-byte IPv4 header, a 20-byte TCP header, 40 bytes of data */
#define IP4_TOT		80
#define IP4_FRAME	(14 + IP4_TOT)

static const struct ip4_bad ip4_bad_cases[] = {
	{ .name = "IHL 0", .edit = IP4_SET_BYTE, .at = 0, .val = 0x40,
	  .malformed = true },
	{ .name = "IHL 1", .edit = IP4_SET_BYTE, .at = 0, .val = 0x41,
	  .malformed = true },
	{ .name = "IHL 2", .edit = IP4_SET_BYTE, .at = 0, .val = 0x42,
	  .malformed = true },
	{ .name = "IHL 3", .edit = IP4_SET_BYTE, .at = 0, .val = 0x43,
	  .malformed = true },
	{ .name = "IHL 4", .edit = IP4_SET_BYTE, .at = 0, .val = 0x44,
	  .malformed = true },
	{ .name = "IHL past the total length",
	  .edit = IP4_SET_BYTE, .at = 0, .val = 0x4f, .at2 = 2, .val2 = 40,
	  .malformed = true },
	{ .name = "IHL past the frame",
	  .edit = IP4_SET_BYTE, .at = 0, .val = 0x4f,
	  .short_by = IP4_FRAME - (14 + 30), .malformed = true },
	{ .name = "total length below the header length",
	  .edit = IP4_SET_WORD, .at = 2, .val = 19, .recsum = true,
	  .malformed = true },
	{ .name = "total length past the frame",
	  .edit = IP4_SET_WORD, .at = 2, .val = IP4_TOT + 1, .recsum = true,
	  .malformed = true },
	{ .name = "total length 0",
	  .edit = IP4_SET_WORD, .at = 2, .val = 0, .recsum = true,
	  .malformed = true },
	{ .name = "version 6",
	  .edit = IP4_SET_BYTE, .at = 0, .val = 0x65, .recsum = true,
	  .malformed = true },
	{ .name = "header checksum",
	  .edit = IP4_FLIP_BYTE, .at = 10, .val = 1, .malformed = true },
	{ .name = "fragment: MF",
	  .edit = IP4_SET_WORD, .at = 6, .val = 0x2000, .recsum = true,
	  .malformed = false },
	{ .name = "fragment: offset",
	  .edit = IP4_SET_WORD, .at = 6, .val = 0x0010, .recsum = true,
	  .malformed = false },
	{ .name = "multicast source",
	  .edit = IP4_SET_SRC, .addr = "224.0.0.1", .recsum = true,
	  .malformed = true },
	{ .name = "loopback source",
	  .edit = IP4_SET_SRC, .addr = "127.0.0.1", .recsum = true,
	  .malformed = true },
	{ .name = "TCP to broadcast",
	  .edit = IP4_SET_DST, .addr = "255.255.255.255", .recsum = true,
	  .malformed = true },
	{ .name = "TCP from 0.0.0.0",
	  .edit = IP4_SET_SRC, .addr = "0.0.0.0", .recsum = true,
	  .malformed = true },
	{ .name = "TCP data offset below 5",
	  .edit = IP4_SET_BYTE, .at = 20 + 12, .val = 4 << 4,
	  .malformed = true },
	{ .name = "TCP data offset past the segment",
	  .edit = IP4_SET_BYTE, .at = 20 + 12, .val = 15 << 4,
	  .at2 = 2, .val2 = 20 + 56, .recsum = true, .malformed = true },
	{ .name = "TCP segment too short",
	  .edit = IP4_SET_WORD, .at = 2, .val = 20 + 19, .recsum = true,
	  .malformed = true },
	/* The high half of the sequence number, read as the UDP length
	 * (0x1200), is past the datagram
	 */
	{ .name = "TCP relabelled as UDP",
	  .edit = IP4_SET_BYTE, .at = 9, .val = IPPROTO_UDP, .recsum = true,
	  .malformed = true },
	/* Type 0x9c (from the source port) is not an echo request */
	{ .name = "TCP relabelled as ICMP",
	  .edit = IP4_SET_BYTE, .at = 9, .val = IPPROTO_ICMP, .recsum = true,
	  .malformed = false },
	{ .name = "SCTP, not handled",
	  .edit = IP4_SET_BYTE, .at = 9, .val = 132, .recsum = true,
	  .malformed = false },
};

/**
 * ip4_bad_apply() - make a bad IPv4 frame from a valid one
 * @b:		case
 * @g:		frame, a copy of the valid one, changed in place
 */
static void ip4_bad_apply(const struct ip4_bad *b, uint8_t *g)
{
	uint8_t *ip = g + 14;

	switch (b->edit) {
	case IP4_SET_BYTE:
		ip[b->at] = (uint8_t)b->val;
		break;
	case IP4_SET_WORD:
		tf_put16(ip + b->at, (uint16_t)b->val);
		break;
	case IP4_FLIP_BYTE:
		ip[b->at] ^= (uint8_t)b->val;
		break;
	case IP4_SET_SRC:
		inet_pton(AF_INET, b->addr, ip + 12);
		break;
	case IP4_SET_DST:
		inet_pton(AF_INET, b->addr, ip + 16);
		break;
	}
	if (b->at2)
		tf_put16(ip + b->at2, b->val2);
	if (b->recsum) {
		tf_put16(ip + 10, 0);
		tf_put16(ip + 10, tf_finish(tf_sum(ip, 20, 0)));
	}
}

START_TEST(test_ip4_bad_headers)
{
	uint8_t f[TF_FRAME_MAX], g[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 40), i;

	ck_assert_uint_eq(len, IP4_FRAME);
	for (i = 0; i < sizeof(ip4_bad_cases) / sizeof(ip4_bad_cases[0]);
	     i++) {
		const struct ip4_bad *b = &ip4_bad_cases[i];

		memcpy(g, f, len);
		ip4_bad_apply(b, g);
		expect_drop_as(b->name, g, len - b->short_by, b->malformed);
	}

	/* The UDP and ICMP frames had valid IPv4 headers: MAC learnt */
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);
}
END_TEST

START_TEST(test_udp_bad)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len, i;
	int v4;

	for (v4 = 0; v4 < 2; v4++) {
		const char *src = v4 ? "192.0.2.10" : "2001:db8:1:2::10";
		const char *dst = v4 ? "198.51.100.7" : "2001:db8:9::7";
		size_t uh = v4 ? 34 : 54;

		/* Every truncation of the UDP header */
		for (i = 0; i < 8; i++) {
			len = tf_udp_frame(f, v4, src, dst, 40000, 53, 0);
			ck_assert_uint_eq(len, uh + 8);
			if (v4) {
				tf_put16(f + 14 + 2, (uint16_t)(20 + i));
				tf_put16(f + 24, 0);
				tf_put16(f + 24,
					 tf_finish(tf_sum(f + 14, 20, 0)));
			} else {
				tf_put16(f + 18, (uint16_t)i);
			}
			expect_drop(f, uh + i, true);
		}

		/* UDP length below the header, past the IP payload */
		len = tf_udp_frame(f, v4, src, dst, 40000, 53, 10);
		for (i = 0; i < 8; i++) {
			tf_put16(f + uh + 4, (uint16_t)i);
			expect_drop(f, len, true);
		}
		tf_put16(f + uh + 4, 19);
		expect_drop(f, len, true);
		tf_put16(f + uh + 4, 0xffff);
		expect_drop(f, len, true);

		/* --no-udp */
		ctx.no_udp = true;
		len = tf_udp_frame(f, v4, src, dst, 40000, 53, 10);
		expect_drop(f, len, false);
		ctx.no_udp = false;
	}

	/* Non-unicast destinations (DHCP ports excepted) */
	len = tf_udp_frame(f, 1, "192.0.2.10", "255.255.255.255", 40000, 53, 4);
	expect_drop(f, len, false);
	len = tf_udp_frame(f, 1, "192.0.2.10", "224.0.0.251", 5353, 5353, 4);
	expect_drop(f, len, false);
	len = tf_udp_frame(f, 0, "2001:db8:1:2::10", "ff02::fb", 5353, 5353, 4);
	expect_drop(f, len, false);

	/* Unspecified sources */
	len = tf_udp_frame(f, 1, "0.0.0.0", "198.51.100.7", 40000, 53, 4);
	expect_drop(f, len, false);
	len = tf_udp_frame(f, 0, "::", "2001:db8:9::7", 40000, 53, 4);
	expect_drop(f, len, false);
}
END_TEST

START_TEST(test_icmp_bad)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len, i;

	/* Every truncation of an ICMP echo header */
	for (i = 0; i < 8; i++) {
		len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 1, 0);
		ck_assert_uint_eq(len, 34 + 8);
		tf_put16(f + 14 + 2, (uint16_t)(20 + i));
		tf_put16(f + 24, 0);
		tf_put16(f + 24, tf_finish(tf_sum(f + 14, 20, 0)));
		expect_drop(f, 34 + i, true);
	}

	/* ICMPv6 shorter than its 4-byte header, and than an echo header */
	for (i = 0; i < 8; i++) {
		len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7",
				    1, 0);
		ck_assert_uint_eq(len, 54 + 8);
		tf_put16(f + 18, (uint16_t)i);
		expect_drop(f, 54 + i, i < 4);
	}

	/* Not echo requests: replies, and ICMP errors */
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 1, 8);
	f[34] = 0;
	expect_drop(f, len, false);
	f[34] = 3;
	expect_drop(f, len, false);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 1, 8);
	f[54] = 129;
	tf_icmp6_csum(f);
	expect_drop(f, len, false);

	/* Echo requests to broadcast and multicast addresses */
	len = tf_echo_frame(f, 1, "192.0.2.10", "255.255.255.255", 1, 8);
	expect_drop(f, len, false);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "ff02::1", 1, 8);
	expect_drop(f, len, false);

	/* --no-icmp */
	ctx.no_icmp = true;
	len = tf_echo_frame(f, 1, "192.0.2.10", "198.51.100.7", 1, 8);
	expect_drop(f, len, false);
	len = tf_echo_frame(f, 0, "2001:db8:1:2::10", "2001:db8:9::7", 1, 8);
	expect_drop(f, len, false);
}
END_TEST

START_TEST(test_no_mac_from_malformed)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 0);
	static const uint8_t zero[6];

	f[14 + 10] ^= 0xff;
	expect_drop(f, len, true);
	ck_assert_mem_eq(guest_mac(), zero, 6);
	ck_assert_uint_eq(guest_addr4().s_addr, 0);
}
END_TEST

START_TEST(test_ip6_bad_headers)
{
	uint8_t f[TF_FRAME_MAX], g[TF_FRAME_MAX];
	size_t len = tf_tcp6_frame(f, 40);
	uint8_t *ip = g + 14;

	/* Version */
	memcpy(g, f, len);
	ip[0] = 0x40;
	expect_drop(g, len, true);

	/* Payload length past the frame */
	memcpy(g, f, len);
	tf_put16(ip + 4, (uint16_t)(len - 54 + 1));
	expect_drop(g, len, true);

	/* Sources: multicast, loopback, IPv4-mapped */
	memcpy(g, f, len);
	inet_pton(AF_INET6, "ff02::1", ip + 8);
	expect_drop(g, len, true);
	memcpy(g, f, len);
	inet_pton(AF_INET6, "::1", ip + 8);
	expect_drop(g, len, true);
	memcpy(g, f, len);
	inet_pton(AF_INET6, "::ffff:192.0.2.1", ip + 8);
	expect_drop(g, len, true);

	/* TCP from :: or to multicast */
	memcpy(g, f, len);
	memset(ip + 8, 0, 16);
	expect_drop(g, len, true);
	memcpy(g, f, len);
	inet_pton(AF_INET6, "ff02::1", ip + 24);
	expect_drop(g, len, true);

	/* Payload length shorter than a TCP header */
	memcpy(g, f, len);
	tf_put16(ip + 4, 19);
	expect_drop(g, len, true);

	/* TCP relabelled as UDP: bad UDP length (see test_ip4_bad_headers) */
	memcpy(g, f, len);
	ip[6] = IPPROTO_UDP;
	expect_drop(g, len, true);

	/* Not handled */
	memcpy(g, f, len);
	ip[6] = 59;	/* No Next Header */
	expect_drop(g, len, false);
}
END_TEST

/**
 * ext_chain() - an IPv6 frame with a chain of extension headers
 * @f:		frame buffer
 * @n:		number of extension headers (hop-by-hop, then destination
 *		options), each 8 bytes, then TCP
 * @last_len:	length field of the last one (0 for 8 bytes)
 * @plen_cut:	bytes to take off the payload length
 *
 * Return: frame length
 */
static size_t ext_chain(uint8_t *f, unsigned int n, uint8_t last_len,
			size_t plen_cut)
{
	size_t off = 54, plen = n * 8 + 20, i;

	tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
	tf_ip6(f + 14, "2001:db8:1:2::10", "2001:db8:9::7", n ? 0 : 6, 64,
	       plen - plen_cut);
	for (i = 0; i < n; i++) {
		memset(f + off, 0, 8);
		f[off] = i + 1 < n ? 60 : IPPROTO_TCP;
		if (i + 1 == n)
			f[off + 1] = last_len;
		off += 8;
	}
	return off + tf_tcp(f + off, 0);
}

START_TEST(test_ip6_ext_headers)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len, i;

	/* More than the walk allows: unsupported, not a loop */
	len = ext_chain(f, 9, 0, 0);
	expect_drop(f, len, false);
	len = ext_chain(f, 100, 0, 0);
	expect_drop(f, len, false);

	/* Header length past the payload */
	len = ext_chain(f, 2, 3, 0);
	expect_drop(f, len, true);
	len = ext_chain(f, 1, 255, 0);
	expect_drop(f, len, true);

	/* Payload length ending inside the chain */
	len = ext_chain(f, 3, 0, 20 + 4);
	expect_drop(f, len, true);
	len = ext_chain(f, 3, 0, 20 + 8);
	expect_drop(f, len, true);

	/* Chain fine, nothing left for TCP */
	len = ext_chain(f, 3, 0, 20);
	expect_drop(f, len, true);

	/* Fragment header */
	len = ext_chain(f, 2, 0, 0);
	f[54 + 8] = 44;
	expect_drop(f, len, false);

	/* A chain pointing at itself only ends with the packet */
	len = ext_chain(f, 8, 0, 0);
	for (i = 0; i < 8; i++)
		f[54 + i * 8] = 0;
	expect_drop(f, len, false);

	/* Every truncation of a valid chain */
	len = ext_chain(f, 3, 0, 0);
	for (i = 0; i < len; i++)
		expect_drop(f, i, true);
}
END_TEST

START_TEST(test_l2)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len = tf_tcp4_frame(f, 0);

	/* VLAN tag, other EtherTypes */
	tf_put16(f + 12, 0x8100);
	expect_drop(f, len, false);
	tf_put16(f + 12, 0x88cc);
	expect_drop(f, len, false);

	/* Families turned off */
	len = tf_tcp4_frame(f, 0);
	ctx.ip4.enabled = false;
	expect_drop(f, len, false);
	len = tf_arp_frame(f, 1, "192.0.2.10", "192.0.2.1");
	expect_drop(f, len, false);
	len = tf_tcp6_frame(f, 0);
	ctx.ip6.enabled = false;
	expect_drop(f, len, false);
	len = tf_ns_frame(f, "::", "fe80::1", 0);
	expect_drop(f, len, false);
}
END_TEST

START_TEST(test_disabled_features)
{
	uint8_t f[TF_FRAME_MAX];
	size_t len;

	ctx.no_tcp = true;
	len = tf_tcp4_frame(f, 10);
	expect_drop(f, len, false);
	len = tf_tcp6_frame(f, 10);
	expect_drop(f, len, false);

	ctx.no_ndp = true;
	len = tf_ns_frame(f, "fe80::5054:ff:fe12:3456", "fe80::1", 1);
	expect_drop(f, len, false);
	len = tf_rs_frame(f, "fe80::5054:ff:fe12:3456");
	expect_drop(f, len, false);

	ctx.no_ndp = false;
	ctx.no_ra = true;
	expect_drop(f, len, false);
}
END_TEST

/**
 * net_suite() - build the test suite
 *
 * Return: suite
 */
static Suite *net_suite(void)
{
	Suite *s = suite_create("net");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_fill_ip4);
	tcase_add_test(tc, test_fill_ip6);
	tcase_add_test(tc, test_truncated_tcp4);
	tcase_add_test(tc, test_truncated_tcp6);
	tcase_add_test(tc, test_truncated_others);
	tcase_add_test(tc, test_ip4_bad_headers);
	tcase_add_test(tc, test_udp_bad);
	tcase_add_test(tc, test_icmp_bad);
	tcase_add_test(tc, test_no_mac_from_malformed);
	tcase_add_test(tc, test_ip6_bad_headers);
	tcase_add_test(tc, test_ip6_ext_headers);
	tcase_add_test(tc, test_l2);
	tcase_add_test(tc, test_disabled_features);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the net tests
 *
 * Return: 0 if all passed
 */
int main(void)
{
	SRunner *sr = srunner_create(net_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
