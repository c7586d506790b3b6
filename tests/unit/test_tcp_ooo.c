// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp_ooo.c - unit tests for held out-of-order data (tcp/tcp_ooo.c)
 *
 * Theory of operation: a model receiver. A stream of known bytes is cut
 * into segments; some are "lost" and come again later, the others arrive
 * in a shuffled order. Each arrival is handled as tcp_guest.c does: in
 * order, it is "written" (appended to the output) and whatever held data
 * continues it is taken and written too; out of order, it is held. The
 * output must equal the stream, whatever the order, and the buffer must
 * be released at the end. Also: runs that touch are merged, bytes outside
 * the buffer's span are not kept, and releasing forgets everything.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "../../tcp/tcp_internal.h"

#define TO_SEG		1448
#define TO_SEGS		600
#define TO_ISN		0xfffff000U	/* sequence numbers wrap in the test */

static uint8_t to_stream[TO_SEG * TO_SEGS];
static uint8_t to_out[TO_SEG * TO_SEGS];
static size_t to_out_len;

/**
 * to_byte() - the stream's byte at an offset
 * @off:	offset
 *
 * Return: the byte
 */
static uint8_t to_byte(size_t off)
{
	return (uint8_t)(off * 31 + off / 997);
}

/**
 * to_setup() - fill the stream, set up the buffers
 */
static void to_setup(void)
{
	size_t i;

	for (i = 0; i < sizeof(to_stream); i++)
		to_stream[i] = to_byte(i);
	to_out_len = 0;
	ck_assert_int_eq(tcp_ooo_init(), 0);
}

/**
 * to_arrive() - one segment arrives at the model receiver
 * @conn:	connection
 * @seg:	segment index in the stream
 */
static void to_arrive(const struct tcp_conn *conn, unsigned int seg)
{
	uint32_t seq = TO_ISN + seg * TO_SEG;
	uint32_t next = TO_ISN + (uint32_t)to_out_len;
	struct iovec iov;

	if (seq != next) {
		if ((int32_t)(seq - next) > 0)
			tcp_ooo_hold(conn, next, seq,
				     to_stream + seg * TO_SEG, TO_SEG);
		return;
	}

	memcpy(to_out + to_out_len, to_stream + seg * TO_SEG, TO_SEG);
	to_out_len += TO_SEG;
	if (tcp_ooo_take(conn, TO_ISN + (uint32_t)to_out_len, &iov)) {
		memcpy(to_out + to_out_len, iov.iov_base, iov.iov_len);
		to_out_len += iov.iov_len;
	}
	tcp_ooo_flushed(conn);
}

START_TEST(test_ooo_shuffled)
{
	static unsigned int order[TO_SEGS];
	struct tcp_conn conn = { .flow = 3 };
	unsigned int i, j, round;

	to_setup();
	srand(1);
	for (round = 0; round < 20; round++) {
		to_out_len = 0;
		for (i = 0; i < TO_SEGS; i++)
			order[i] = i;
		/* Shuffle within windows of 64 segments */
		for (i = 0; i < TO_SEGS; i++) {
			unsigned int w = i - i % 64;

			j = w + (unsigned int)rand() % 64;
			if (j < TO_SEGS) {
				unsigned int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
		}
		for (i = 0; i < TO_SEGS; i++) {
			/* Some segments are lost once and come again */
			if (rand() % 10 == 0)
				to_arrive(&conn, order[(i + 7) % TO_SEGS]);
			to_arrive(&conn, order[i]);
		}
		/* Whatever is missing comes again, in order */
		for (i = 0; i < TO_SEGS; i++)
			to_arrive(&conn, i);

		ck_assert_uint_eq(to_out_len, sizeof(to_stream));
		ck_assert(!memcmp(to_out, to_stream, sizeof(to_stream)));
	}
	tcp_ooo_release(&conn);
}
END_TEST

START_TEST(test_ooo_runs_merge)
{
	struct tcp_conn conn = { .flow = 5 };
	struct iovec iov;
	unsigned int i;

	to_setup();
	/* Segments 2..9 arrive in reverse order, 0 and 1 are lost */
	for (i = 9; i >= 2; i--)
		to_arrive(&conn, i);
	ck_assert_uint_eq(to_out_len, 0);
	to_arrive(&conn, 0);
	ck_assert_uint_eq(to_out_len, TO_SEG);
	to_arrive(&conn, 1);
	ck_assert_uint_eq(to_out_len, 10 * TO_SEG);
	ck_assert(!memcmp(to_out, to_stream, to_out_len));

	/* All taken: the buffer was released, nothing continues */
	ck_assert_uint_eq(tcp_ooo_take(&conn, TO_ISN + 10 * TO_SEG, &iov), 0);
}
END_TEST

START_TEST(test_ooo_span_and_release)
{
	struct tcp_conn conn = { .flow = 7 }, other = { .flow = 8 };
	uint32_t hole = TO_ISN, base = TO_ISN + TO_SEG;
	struct iovec iov;

	to_setup();
	/* The buffer spans TCP_OOO_BUF_SIZE bytes from the hole: bytes
	 * beyond are not kept
	 */
	tcp_ooo_hold(&conn, hole, base, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, hole, hole + TCP_OOO_BUF_SIZE, to_stream, TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conn, base + 100, &iov),
			  TO_SEG - 100);
	ck_assert(!memcmp(iov.iov_base, to_stream + 100, TO_SEG - 100));
	ck_assert_uint_eq(tcp_ooo_take(&conn, hole + TCP_OOO_BUF_SIZE, &iov),
			  0);

	/* Release forgets held data; other connections are unaffected */
	tcp_ooo_hold(&conn, hole, base + 2 * TO_SEG, to_stream, TO_SEG);
	tcp_ooo_hold(&other, hole, base, to_stream, TO_SEG);
	tcp_ooo_release(&conn);
	ck_assert_uint_eq(tcp_ooo_take(&conn, base + 2 * TO_SEG, &iov), 0);
	ck_assert_uint_eq(tcp_ooo_take(&other, base, &iov), TO_SEG);
	tcp_ooo_release(&other);
}
END_TEST

START_TEST(test_ooo_table_full)
{
	struct tcp_conn conns[TCP_OOO_BUFS + 1];
	struct iovec iov;
	unsigned int i;

	to_setup();
	for (i = 0; i <= TCP_OOO_BUFS; i++) {
		conns[i].flow = 100 + i;
		tcp_ooo_hold(&conns[i], TO_ISN - 1, TO_ISN, to_stream,
			     TO_SEG);
	}
	/* One connection too many holds nothing, the others hold theirs */
	ck_assert_uint_eq(tcp_ooo_take(&conns[TCP_OOO_BUFS], TO_ISN, &iov),
			  0);
	for (i = 0; i < TCP_OOO_BUFS; i++) {
		ck_assert_uint_eq(tcp_ooo_take(&conns[i], TO_ISN, &iov),
				  TO_SEG);
		tcp_ooo_flushed(&conns[i]);
	}
	/* All released: a new connection gets a buffer again */
	tcp_ooo_hold(&conns[TCP_OOO_BUFS], TO_ISN - 1, TO_ISN, to_stream,
		     TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conns[TCP_OOO_BUFS], TO_ISN, &iov),
			  TO_SEG);
	tcp_ooo_release(&conns[TCP_OOO_BUFS]);
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: 0 if all tests passed
 */
int main(void)
{
	Suite *s = suite_create("tcp_ooo");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_ooo_shuffled);
	tcase_add_test(tc, test_ooo_runs_merge);
	tcase_add_test(tc, test_ooo_span_and_release);
	tcase_add_test(tc, test_ooo_table_full);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
