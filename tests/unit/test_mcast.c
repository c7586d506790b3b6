// SPDX-License-Identifier: GPL-2.0-or-later
/* test_mcast.c - unit tests for IGMP and MLD (net/mcast_msg.c), the group
 * table and its timers (fwd/mcast_table.c), and --mcast-ports
 *
 * Theory of operation: reports are built here byte by byte, as a Linux
 * guest sends them (IGMPv2 and v3, MLDv1 and v2), with valid checksums, and
 * parsed; malformed ones must be refused. Queries we build must carry
 * valid checksums and the fields hosts check. The table runs through hours
 * of made-up time: memberships end MCAST_MEMBER_MS after the last report,
 * sending MCAST_SEND_IDLE_MS after the last datagram.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../../fwd/mcast.h"
#include "../../fwd/mcast_table.h"
#include "../../net/checksum.h"
#include "../../net/mcast_msg.h"
#include "../../conf/conf.h"
#include "../../conf/ctx.h"

static struct mcast_event ev[MCAST_EVENTS_MAX];
static uint8_t msg[512];

/**
 * v4() - an IPv4-mapped address from text
 * @s:		dotted address
 *
 * Return: the address
 */
static union inany_addr v4(const char *s)
{
	union inany_addr a;
	struct in_addr a4;

	inet_pton(AF_INET, s, &a4);
	inany_from_v4(&a, a4);
	return a;
}

/**
 * v6() - an IPv6 address from text
 * @s:		address
 *
 * Return: the address
 */
static union inany_addr v6(const char *s)
{
	union inany_addr a;

	inet_pton(AF_INET6, s, &a.a6);
	return a;
}

/**
 * igmp_sum() - fill in the checksum of an IGMP message
 * @len:	message length in msg
 */
static void igmp_sum(size_t len)
{
	uint16_t sum;

	msg[2] = msg[3] = 0;
	sum = csum(msg, len, 0);
	memcpy(msg + 2, &sum, sizeof(sum));
}

/**
 * igmp_v2() - an IGMPv2 message
 * @type:	0x16 report, 0x17 leave
 * @group:	group
 *
 * Return: length
 */
static size_t igmp_v2(uint8_t type, const char *group)
{
	union inany_addr g = v4(group);

	memset(msg, 0, 8);
	msg[0] = type;
	memcpy(msg + 4, &g.v4mapped.a4, 4);
	igmp_sum(8);
	return 8;
}

/**
 * rec_add() - append a version 3 (or MLDv2) record
 * @off:	offset in msg, updated
 * @type:	record type
 * @nsrc:	number of sources (filled with zeros)
 * @g:		group
 */
static void rec_add(size_t *off, uint8_t type, unsigned int nsrc,
		    const union inany_addr *g)
{
	bool is4 = inany_v4(g) != NULL;
	size_t alen = is4 ? 4 : 16;

	msg[*off] = type;
	msg[*off + 1] = 0;
	msg[*off + 2] = 0;
	msg[*off + 3] = (uint8_t)nsrc;
	memcpy(msg + *off + 4, is4 ? (const void *)&g->v4mapped.a4
				   : (const void *)&g->a6, alen);
	memset(msg + *off + 4 + alen, 0, nsrc * alen);
	*off += 4 + alen + nsrc * alen;
}

/**
 * mld() - parse the MLD message in msg
 * @src:	source, text
 * @dst:	destination, text
 * @len:	message length
 *
 * Return: mcast_mld_parse() result, changes in ev
 */
static int mld(const char *src, const char *dst, size_t len)
{
	union inany_addr s = v6(src), d = v6(dst);

	return mcast_mld_parse(&s.a6, &d.a6, msg, len, ev, MCAST_EVENTS_MAX);
}

/**
 * mld_sum() - fill in the ICMPv6 checksum of an MLD message
 * @src:	source
 * @dst:	destination
 * @len:	message length in msg
 */
static void mld_sum(const char *src, const char *dst, size_t len)
{
	union inany_addr s = v6(src), d = v6(dst);
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	uint16_t sum;

	msg[2] = msg[3] = 0;
	sum = csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, len);
	memcpy(msg + 2, &sum, sizeof(sum));
}

START_TEST(test_igmp)
{
	union inany_addr mdns = v4("224.0.0.251"), g2 = v4("239.1.2.3");
	size_t len, off;

	/* IGMPv2 report and leave */
	len = igmp_v2(0x16, "224.0.0.251");
	ck_assert_int_eq(mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX), 1);
	ck_assert(inany_equals(&ev[0].group, &mdns) && ev[0].join);
	len = igmp_v2(0x17, "224.0.0.251");
	ck_assert_int_eq(mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX), 1);
	ck_assert(!ev[0].join);

	/* All-hosts, queries: nothing; bad checksum, short: malformed */
	len = igmp_v2(0x16, "224.0.0.1");
	ck_assert_int_eq(mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX), 0);
	len = igmp_v2(0x11, "0.0.0.0");
	ck_assert_int_eq(mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX), 0);
	len = igmp_v2(0x16, "224.0.0.251");
	msg[5] ^= 1;
	ck_assert_int_eq(mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX), -1);
	ck_assert_int_eq(mcast_igmp_parse(msg, 7, ev, MCAST_EVENTS_MAX), -1);

	/* IGMPv3: exclude {} joins, to-include {} leaves, include {S}
	 * joins, block changes nothing, in order
	 */
	memset(msg, 0, 8);
	msg[0] = 0x22;
	msg[7] = 4;
	off = 8;
	rec_add(&off, 4, 0, &mdns);
	rec_add(&off, 3, 0, &g2);
	rec_add(&off, 1, 2, &g2);
	rec_add(&off, 6, 1, &mdns);
	igmp_sum(off);
	ck_assert_int_eq(mcast_igmp_parse(msg, off, ev, MCAST_EVENTS_MAX), 3);
	ck_assert(inany_equals(&ev[0].group, &mdns) && ev[0].join);
	ck_assert(inany_equals(&ev[1].group, &g2) && !ev[1].join);
	ck_assert(inany_equals(&ev[2].group, &g2) && ev[2].join);

	/* At most max changes; a record past the end: malformed */
	ck_assert_int_eq(mcast_igmp_parse(msg, off, ev, 1), 1);
	msg[7] = 5;
	igmp_sum(off);
	ck_assert_int_eq(mcast_igmp_parse(msg, off, ev, MCAST_EVENTS_MAX), -1);
}
END_TEST

START_TEST(test_mld)
{
	const char *src = "fe80::1", *dst = "ff02::16";
	union inany_addr mdns = v6("ff02::fb"), sol = v6("ff02::1:ff00:2");
	size_t off;

	/* MLDv1 report and done */
	memset(msg, 0, 24);
	msg[0] = 131;
	memcpy(msg + 8, &mdns.a6, 16);
	mld_sum(src, "ff02::fb", 24);
	ck_assert_int_eq(mld(src, "ff02::fb", 24), 1);
	ck_assert(ev[0].join);
	msg[0] = 132;
	mld_sum(src, "ff02::2", 24);
	ck_assert_int_eq(mld(src, "ff02::2", 24), 1);
	ck_assert(!ev[0].join);
	/* The checksum covers the addresses */
	ck_assert_int_eq(mld("fe80::2", "ff02::2", 24), -1);

	/* MLDv2: solicited-node groups are NDP's, left out */
	memset(msg, 0, 8);
	msg[0] = 143;
	msg[7] = 2;
	off = 8;
	rec_add(&off, 4, 0, &sol);
	rec_add(&off, 2, 0, &mdns);
	mld_sum(src, dst, off);
	ck_assert_int_eq(mld(src, dst, off), 1);
	ck_assert(inany_equals(&ev[0].group, &mdns) && ev[0].join);
	/* A record past the end, with a checksum that matches */
	mld_sum(src, dst, off - 1);
	ck_assert_int_eq(mld(src, dst, off - 1), -1);
}
END_TEST

START_TEST(test_queries)
{
	static const uint8_t mac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
	union inany_addr s6 = v6("fe80::1"), all6 = v6("ff02::1"), g;
	uint8_t buf[MCAST_QUERY_MAX], m[6];
	struct in_addr s4;
	struct iovec iov;
	size_t len;

	inet_pton(AF_INET, "192.0.2.1", &s4);
	len = mcast_igmp_query(buf, mac, s4);
	ck_assert_uint_eq(len, 14 + 24 + 12);
	ck_assert(!memcmp(buf, "\x01\x00\x5e\x00\x00\x01", 6));
	ck_assert_uint_eq(buf[14], 0x46);		/* IHL 6: options */
	ck_assert_uint_eq(buf[14 + 8], 1);		/* TTL */
	ck_assert_uint_eq(buf[14 + 20], 0x94);		/* Router Alert */
	ck_assert_uint_eq(csum_ip4_header(buf + 14, 24), 0);
	ck_assert_uint_eq(csum(buf + 38, 12, 0), 0);
	ck_assert_uint_eq(buf[38], 0x11);

	len = mcast_mld_query(buf, mac, &s6.a6);
	ck_assert_uint_eq(len, 14 + 40 + 8 + 28);
	ck_assert(!memcmp(buf, "\x33\x33\x00\x00\x00\x01", 6));
	ck_assert_uint_eq(buf[14 + 6], 0);		/* hop-by-hop */
	ck_assert_uint_eq(buf[14 + 7], 1);		/* hop limit */
	iov.iov_base = buf + 62;
	iov.iov_len = 28;
	ck_assert_uint_eq(csum_l4(&s6, &all6, IPPROTO_ICMPV6, &iov, 1, 28), 0);
	ck_assert_uint_eq(buf[62], 130);

	g = v4("239.129.2.3");
	mcast_mac(m, &g);
	ck_assert(!memcmp(m, "\x01\x00\x5e\x01\x02\x03", 6));
	g = v6("ff02::fb");
	mcast_mac(m, &g);
	ck_assert(!memcmp(m, "\x33\x33\x00\x00\x00\xfb", 6));
	ck_assert(mcast_group_link_local(&g));
	g = v4("239.1.1.1");
	ck_assert(!mcast_group_link_local(&g));
}
END_TEST

START_TEST(test_table_timers)
{
	union inany_addr g = v4("224.0.0.251"), h = v6("ff02::fb");
	uint64_t t = 1000;
	int i, j, k;

	mcast_table_reset();
	i = mcast_table_get(&g);
	ck_assert_int_ge(i, 0);
	ck_assert(mcast_table_joined(i, t));
	ck_assert(!mcast_table_joined(i, t + 100000));	/* a refresh */
	ck_assert_int_eq(mcast_table_lookup(&g), i);

	/* Membership ends MCAST_MEMBER_MS after the last report */
	ck_assert_uint_eq(mcast_table_expire(i, t + 100000 + MCAST_MEMBER_MS - 1),
			  MCAST_EXP_NONE);
	ck_assert_uint_eq(mcast_table_expire(i, t + 100000 + MCAST_MEMBER_MS),
			  MCAST_EXP_MEMBER);
	ck_assert(!mcast_table_member(i));
	ck_assert(mcast_table_release(i));
	ck_assert_int_eq(mcast_table_lookup(&g), -1);

	/* Sending only: MCAST_SEND_IDLE_MS; member and sender: both */
	j = mcast_table_get(&h);
	mcast_table_sent(j, t);
	ck_assert(mcast_table_sending(j) && !mcast_table_member(j));
	ck_assert(mcast_table_joined(j, t + 10));
	ck_assert_uint_eq(mcast_table_expire(j, t + MCAST_SEND_IDLE_MS),
			  MCAST_EXP_SEND);
	ck_assert(!mcast_table_release(j));		/* still a member */
	mcast_table_left(j);
	ck_assert(mcast_table_release(j));

	/* Full table */
	mcast_table_reset();
	for (k = 0; k < MCAST_GROUPS_MAX; k++) {
		union inany_addr x = v4("239.0.0.1");

		x.v4mapped.a4.s_addr = htonl(0xef000001U + (uint32_t)k);
		ck_assert_int_ge(mcast_table_get(&x), 0);
	}
	ck_assert_uint_eq(mcast_table_count(), MCAST_GROUPS_MAX);
	ck_assert_int_eq(mcast_table_get(&g), -1);
	mcast_table_reset();
}
END_TEST

START_TEST(test_ports)
{
	uint16_t p[MCAST_PORTS_MAX];
	unsigned int n;
	char e[160];

	ck_assert_int_eq(conf_mcast_ports("5353", p, &n, e, sizeof(e)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(p[0], 5353);
	ck_assert_int_eq(conf_mcast_ports("5353,1900-1901,5353", p, &n, e,
					   sizeof(e)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(p[2], 1901);
	ck_assert_int_eq(conf_mcast_ports("none", p, &n, e, sizeof(e)), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(conf_mcast_ports("0", p, &n, e, sizeof(e)), -1);
	ck_assert_int_eq(conf_mcast_ports("70000", p, &n, e, sizeof(e)), -1);
	ck_assert_int_eq(conf_mcast_ports("5353,", p, &n, e, sizeof(e)), -1);
	ck_assert_int_eq(conf_mcast_ports("10-5", p, &n, e, sizeof(e)), -1);
	ck_assert_int_eq(conf_mcast_ports("1000-1100", p, &n, e, sizeof(e)),
			 -1);
	ck_assert(strstr(e, "more than"));
}
END_TEST

/**
 * mcast_suite() - build the suite
 *
 * Return: suite
 */
static Suite *mcast_suite(void)
{
	Suite *s = suite_create("mcast");
	TCase *tc = tcase_create("membership");

	tcase_add_test(tc, test_igmp);
	tcase_add_test(tc, test_mld);
	tcase_add_test(tc, test_queries);
	tcase_add_test(tc, test_table_timers);
	tcase_add_test(tc, test_ports);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the mcast suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(mcast_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
