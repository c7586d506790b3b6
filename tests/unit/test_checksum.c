// SPDX-License-Identifier: GPL-2.0-or-later
/* test_checksum.c - unit tests for net/checksum.c
 *
 * Theory of operation: every function is compared with a naive reference
 * (16-bit big-endian words added one at a time, from net_frames.h) on
 * known vectors and on random buffers of every small length, at every
 * alignment, split into random iovecs with odd segment lengths.
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../../net/checksum.h"
#include "../../util/inany.h"
#include "net_frames.h"

#define BUF_MAX		(65536 + 64)

static uint8_t buf[BUF_MAX];

/**
 * mem16() - read a checksum returned in memory order as a host value
 * @c:		checksum from net/checksum.c
 *
 * Return: the value the two bytes in memory represent, big-endian
 */
static uint16_t mem16(uint16_t c)
{
	uint8_t b[2];

	memcpy(b, &c, 2);
	return tf_get16(b);
}

/**
 * fill_random() - fill a buffer with pseudo-random bytes
 * @p:		buffer
 * @len:	length
 */
static void fill_random(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)random();
}

START_TEST(test_rfc1071_vector)
{
	/* RFC 1071, section 3: sum 0xddf2, checksum 0x220d */
	static const uint8_t v[] = { 0x00, 0x01, 0xf2, 0x03,
				     0xf4, 0xf5, 0xf6, 0xf7 };

	ck_assert_uint_eq(csum_fold(csum_unfolded(v, sizeof(v), 0)),
			  htons(0xddf2));
	ck_assert_uint_eq(mem16(csum(v, sizeof(v), 0)), 0x220d);
}
END_TEST

START_TEST(test_ip4_header_vector)
{
	/* A well-known example header, checksum 0xb861 */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00,
			  0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01,
			  0xc0, 0xa8, 0x00, 0xc7 };
	uint16_t c = csum_ip4_header(h, sizeof(h));

	ck_assert_uint_eq(mem16(c), 0xb861);
	memcpy(h + 10, &c, 2);
	ck_assert_uint_eq(csum_ip4_header(h, sizeof(h)), 0);
}
END_TEST

START_TEST(test_small_all_lengths_offsets)
{
	size_t len, off;

	srandom(1);
	fill_random(buf, 512);
	for (off = 0; off < 16; off++) {
		for (len = 0; len <= 300; len++) {
			uint16_t ref = tf_finish(tf_sum(buf + off, len, 0));

			ck_assert_uint_eq(mem16(csum(buf + off, len, 0)), ref);
		}
	}
}
END_TEST

START_TEST(test_vector_lengths_offsets)
{
	size_t len, off;

	/* Around and above the length where a vector loop may take over,
	 * at every offset within a 64-byte block, with random data and with
	 * all ones (every lane carries)
	 */
	srandom(3);
	fill_random(buf, 2048);
	for (off = 0; off < 64; off++) {
		for (len = 128; len <= 1100; len += 7) {
			uint16_t ref = tf_finish(tf_sum(buf + off, len, 0));

			ck_assert_uint_eq(mem16(csum(buf + off, len, 0)), ref);
		}
	}

	memset(buf, 0xff, 2048);
	for (off = 0; off < 64; off++) {
		for (len = 250; len <= 330; len++) {
			ck_assert_uint_eq(mem16(csum(buf + off, len, 0xffff)),
					  tf_finish(tf_sum(buf + off, len,
							   0xffff)));
		}
	}
}
END_TEST

START_TEST(test_extremes)
{
	size_t len;

	/* All ones: carries on every word */
	memset(buf, 0xff, BUF_MAX);
	for (len = 0; len < 200; len++)
		ck_assert_uint_eq(mem16(csum(buf, len, 0)),
				  tf_finish(tf_sum(buf, len, 0)));
	ck_assert_uint_eq(mem16(csum(buf, 65535, 0)),
			  tf_finish(tf_sum(buf, 65535, 0)));
	ck_assert_uint_eq(mem16(csum(buf, 65536, 0xffffffff)),
			  tf_finish(tf_sum(buf, 65536, 0xffff)));

	/* All zeroes */
	memset(buf, 0, 100);
	ck_assert_uint_eq(mem16(csum(buf, 100, 0)), 0xffff);
}
END_TEST

START_TEST(test_random_large)
{
	int i;

	srandom(2);
	for (i = 0; i < 200; i++) {
		size_t len = (size_t)random() % 65536;
		size_t off = (size_t)random() % 64;

		fill_random(buf + off, len);
		ck_assert_uint_eq(mem16(csum(buf + off, len, 0)),
				  tf_finish(tf_sum(buf + off, len, 0)));
	}
}
END_TEST

START_TEST(test_init_value)
{
	uint32_t init;
	int i;

	srandom(3);
	fill_random(buf, 1000);
	for (i = 0; i < 1000; i++) {
		size_t len = (size_t)random() % 1000;
		uint8_t ib[4];
		uint32_t ref;

		init = (uint32_t)random() ^ ((uint32_t)random() << 16);
		/* init is two memory-order words, as the code sees them */
		memcpy(ib, &init, 4);
		ref = tf_sum(ib, 4, 0);
		ck_assert_uint_eq(mem16(csum(buf, len, init)),
				  tf_finish(tf_sum(buf, len, ref)));
	}
}
END_TEST

START_TEST(test_iov_split)
{
	struct iovec iov[16];
	int round;

	srandom(4);
	for (round = 0; round < 3000; round++) {
		size_t total = (size_t)random() % 4000, left, skip, pos = 0;
		size_t n = 0;

		fill_random(buf, total);
		left = total;
		while (left && n < 15) {
			size_t seg = (size_t)random() % (left + 1);

			if (random() % 3 == 0)
				seg = (size_t)random() % 4;
			if (seg > left)
				seg = left;
			iov[n].iov_base = buf + pos;
			iov[n].iov_len = seg;
			pos += seg;
			left -= seg;
			n++;
		}
		iov[n].iov_base = buf + pos;
		iov[n].iov_len = left;
		n++;

		skip = total ? (size_t)random() % (total + 1) : 0;
		if (random() % 2)
			skip = 0;

		ck_assert_uint_eq(mem16(csum_iov(iov, n, skip, 0)),
				  tf_finish(tf_sum(buf + skip, total - skip,
						   0)));

		/* Length limit inside the data */
		if (total - skip) {
			size_t lim = (size_t)random() % (total - skip);
			uint32_t s = csum_iov_unfolded(iov, n, skip, lim, 0);

			ck_assert_uint_eq(mem16((uint16_t)~csum_fold(s)),
					  tf_finish(tf_sum(buf + skip, lim,
							   0)));
		}
	}
}
END_TEST

START_TEST(test_iov_one_byte_segments)
{
	struct iovec iov[101];
	size_t i;

	srandom(5);
	fill_random(buf, 101);
	for (i = 0; i < 101; i++) {
		iov[i].iov_base = buf + i;
		iov[i].iov_len = 1;
	}
	ck_assert_uint_eq(mem16(csum_iov(iov, 101, 0, 0)),
			  tf_finish(tf_sum(buf, 101, 0)));
	ck_assert_uint_eq(mem16(csum_iov(iov, 101, 3, 0)),
			  tf_finish(tf_sum(buf + 3, 98, 0)));
	ck_assert_uint_eq(mem16(csum_iov(iov, 0, 0, 0)), 0xffff);
}
END_TEST

START_TEST(test_pseudo_headers)
{
	struct in6_addr s6 = IN6ADDR_ANY_INIT, d6 = IN6ADDR_ANY_INIT;
	struct in_addr s4 = { 0 }, d4 = { 0 };
	int i;

	srandom(6);
	for (i = 0; i < 1000; i++) {
		size_t len = (size_t)random() % 65536;
		uint8_t proto = (uint8_t)random();
		uint32_t len6 = (uint32_t)random();

		fill_random((uint8_t *)&s4, 4);
		fill_random((uint8_t *)&d4, 4);
		fill_random(s6.s6_addr, 16);
		fill_random(d6.s6_addr, 16);

		ck_assert_uint_eq(
			mem16((uint16_t)~csum_fold(csum_pseudo4(s4, d4, proto,
								len))),
			tf_finish(tf_pseudo4(s4, d4, proto, (uint16_t)len)));
		ck_assert_uint_eq(
			mem16((uint16_t)~csum_fold(csum_pseudo6(&s6, &d6, proto,
								len6))),
			tf_finish(tf_pseudo6(&s6, &d6, proto, len6)));
	}
}
END_TEST

START_TEST(test_l4_tcp4_and_verify)
{
	union inany_addr s, d;
	struct in_addr s4, d4;
	struct iovec iov[3];
	size_t l4len = 20 + 777;
	uint32_t ref;
	uint16_t c;

	srandom(7);
	inet_pton(AF_INET, "192.0.2.10", &s4);
	inet_pton(AF_INET, "198.51.100.7", &d4);
	inany_from_v4(&s, s4);
	inany_from_v4(&d, d4);

	fill_random(buf, l4len);
	memset(buf + 16, 0, 2);
	iov[0].iov_base = buf;
	iov[0].iov_len = 20;
	iov[1].iov_base = buf + 20;
	iov[1].iov_len = 333;
	iov[2].iov_base = buf + 353;
	iov[2].iov_len = l4len - 353 + 100;	/* longer: l4len stops it */

	ref = tf_pseudo4(s4, d4, IPPROTO_TCP, (uint16_t)l4len);
	c = csum_l4(&s, &d, IPPROTO_TCP, iov, 3, l4len);
	ck_assert_uint_eq(mem16(c), tf_finish(tf_sum(buf, l4len, ref)));

	memcpy(buf + 16, &c, 2);
	ck_assert_uint_eq(csum_l4(&s, &d, IPPROTO_TCP, iov, 3, l4len), 0);
}
END_TEST

START_TEST(test_l4_icmp6_odd)
{
	union inany_addr s, d;
	struct iovec iov[2];
	size_t l4len = 57;
	uint32_t ref;
	uint16_t c;

	srandom(8);
	inet_pton(AF_INET6, "fe80::1", &s.a6);
	inet_pton(AF_INET6, "2001:db8::ff", &d.a6);
	fill_random(buf, l4len);
	memset(buf + 2, 0, 2);
	iov[0].iov_base = buf;
	iov[0].iov_len = 7;
	iov[1].iov_base = buf + 7;
	iov[1].iov_len = l4len - 7;

	ref = tf_pseudo6(&s.a6, &d.a6, IPPROTO_ICMPV6, (uint32_t)l4len);
	c = csum_l4(&s, &d, IPPROTO_ICMPV6, iov, 2, l4len);
	ck_assert_uint_eq(mem16(c), tf_finish(tf_sum(buf, l4len, ref)));

	memcpy(buf + 2, &c, 2);
	ck_assert_uint_eq(csum_l4(&s, &d, IPPROTO_ICMPV6, iov, 2, l4len), 0);
}
END_TEST

START_TEST(test_l4_udp_zero)
{
	union inany_addr s, d;
	struct iovec iov;
	size_t l4len = 40;
	uint16_t c;

	inet_pton(AF_INET6, "2001:db8::1", &s.a6);
	inet_pton(AF_INET6, "2001:db8::2", &d.a6);
	srandom(9);
	fill_random(buf, l4len);
	memset(buf + 6, 0, 2);		/* checksum field */
	memset(buf + 20, 0, 2);		/* a payload word to tune */
	iov.iov_base = buf;
	iov.iov_len = l4len;

	/* Putting the checksum in another word makes the sum 0xffff */
	c = csum_l4(&s, &d, IPPROTO_UDP, &iov, 1, l4len);
	ck_assert_uint_ne(c, 0xffff);
	memcpy(buf + 20, &c, 2);
	ck_assert_uint_eq(csum_l4(&s, &d, IPPROTO_UDP, &iov, 1, l4len),
			  0xffff);

	/* Same data as ICMPv6: zero stays zero */
	memset(buf + 20, 0, 2);
	c = csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, l4len);
	memcpy(buf + 20, &c, 2);
	ck_assert_uint_eq(csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, l4len), 0);
}
END_TEST

/**
 * checksum_suite() - build the test suite
 *
 * Return: suite
 */
static Suite *checksum_suite(void)
{
	Suite *s = suite_create("checksum");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_rfc1071_vector);
	tcase_add_test(tc, test_ip4_header_vector);
	tcase_add_test(tc, test_small_all_lengths_offsets);
	tcase_add_test(tc, test_vector_lengths_offsets);
	tcase_add_test(tc, test_extremes);
	tcase_add_test(tc, test_random_large);
	tcase_add_test(tc, test_init_value);
	tcase_add_test(tc, test_iov_split);
	tcase_add_test(tc, test_iov_one_byte_segments);
	tcase_add_test(tc, test_pseudo_headers);
	tcase_add_test(tc, test_l4_tcp4_and_verify);
	tcase_add_test(tc, test_l4_icmp6_odd);
	tcase_add_test(tc, test_l4_udp_zero);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the checksum tests
 *
 * Return: 0 if all passed
 */
int main(void)
{
	SRunner *sr = srunner_create(checksum_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
