// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pcap.c - unit tests for the capture file writer (util/pcap.c)
 *
 * Theory of operation: frames are recorded to a temporary file, which is
 * then parsed back: global header, then one record per frame with its
 * lengths and bytes, whatever the number of buffers per frame, for batches
 * larger than one writev() can take, and for frames longer than the
 * snapshot length (cut, with their real length kept).
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>

#include "../../util/pcap.h"

#define NFR		700	/* more than one writev() takes */
#define BIG		(PCAP_SNAPLEN + 1000)

static uint8_t data[BIG];

/**
 * get32() - read a 32-bit value in our byte order
 * @p:		where
 *
 * Return: the value
 */
static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/**
 * slurp() - read a whole file
 * @path:	file
 * @len:	set to its length
 *
 * Return: allocated contents
 */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	uint8_t *buf;
	long l;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	l = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)l + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)l, f), (size_t)l);
	fclose(f);
	*len = (size_t)l;
	return buf;
}

START_TEST(test_records)
{
	static struct iovec iov[NFR * 3];
	char path[] = "/tmp/test_pcap_XXXXXX";
	size_t len, i, p;
	uint8_t *f;
	int fd;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert(!pcap_active());
	ck_assert_int_eq(pcap_init(path), 0);
	ck_assert(pcap_active());

	/* Frame i: three buffers, 14 + i + 20 bytes (the middle one empty
	 * for odd i)
	 */
	for (i = 0; i < NFR; i++) {
		iov[3 * i].iov_base = data;
		iov[3 * i].iov_len = 14;
		iov[3 * i + 1].iov_base = data + 14;
		iov[3 * i + 1].iov_len = i % 2 ? 0 : i;
		iov[3 * i + 2].iov_base = data + 14 + iov[3 * i + 1].iov_len;
		iov[3 * i + 2].iov_len = 20 + (i % 2 ? i : 0);
	}
	pcap_frames(iov, 3, NFR);
	pcap_frame(data, BIG);		/* longer than the snapshot length */

	f = slurp(path, &len);
	unlink(path);

	ck_assert_uint_eq(get32(f), 0xa1b2c3d4);
	ck_assert_uint_eq(get32(f + 16), PCAP_SNAPLEN);
	ck_assert_uint_eq(get32(f + 20), 1);	/* Ethernet */

	for (i = 0, p = 24; i < NFR; i++) {
		size_t flen = 14 + i + 20;

		ck_assert_uint_le(p + 16 + flen, len);
		ck_assert_uint_eq(get32(f + p + 8), flen);
		ck_assert_uint_eq(get32(f + p + 12), flen);
		ck_assert(!memcmp(f + p + 16, data, flen));
		p += 16 + flen;
	}

	ck_assert_uint_eq(get32(f + p + 8), PCAP_SNAPLEN);
	ck_assert_uint_eq(get32(f + p + 12), BIG);
	ck_assert(!memcmp(f + p + 16, data, PCAP_SNAPLEN));
	ck_assert_uint_eq(p + 16 + PCAP_SNAPLEN, len);
	free(f);
}
END_TEST

START_TEST(test_bad_path)
{
	ck_assert_int_lt(pcap_init("/nonexistent/dir/x.pcap"), 0);
	ck_assert(!pcap_active());
	pcap_frame(data, 60);	/* no capture: nothing happens */
}
END_TEST

/**
 * pcap_suite() - the capture writer's tests
 *
 * Return: suite
 */
static Suite *pcap_suite(void)
{
	Suite *s = suite_create("pcap");
	TCase *tc = tcase_create("pcap");

	tcase_add_test(tc, test_records);
	tcase_add_test(tc, test_bad_path);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(pcap_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
