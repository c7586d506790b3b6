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
 * to_take() - append held data that continues the output, as the socket
 *	       would take it, and tell the buffer
 * @conn:	connection, seq_from_guest at the end of the output
 */
static void to_take(struct tcp_conn *conn)
{
	struct iovec iov[2];
	unsigned int i, n;

	if (tcp_ooo_take(conn, TO_ISN + (uint32_t)to_out_len, iov, &n)) {
		for (i = 0; i < n; i++) {
			memcpy(to_out + to_out_len, iov[i].iov_base,
			       iov[i].iov_len);
			to_out_len += iov[i].iov_len;
		}
	}
	conn->seq_from_guest = TO_ISN + (uint32_t)to_out_len;
	tcp_ooo_flushed(conn);
}

/**
 * to_arrive() - one segment arrives at the model receiver
 * @conn:	connection
 * @seg:	segment index in the stream
 */
static void to_arrive(struct tcp_conn *conn, unsigned int seg)
{
	uint32_t seq = TO_ISN + seg * TO_SEG;
	uint32_t next = TO_ISN + (uint32_t)to_out_len;

	conn->seq_from_guest = next;
	if (seq != next) {
		if ((int32_t)(seq - next) > 0)
			tcp_ooo_hold(conn, seq, to_stream + seg * TO_SEG,
				     TO_SEG);
		return;
	}

	memcpy(to_out + to_out_len, to_stream + seg * TO_SEG, TO_SEG);
	to_out_len += TO_SEG;
	to_take(conn);
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
	struct iovec iov[2];
	unsigned int i, n;

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
	ck_assert_uint_eq(tcp_ooo_take(&conn, TO_ISN + 10 * TO_SEG, iov, &n),
			  0);
}
END_TEST

START_TEST(test_ooo_span_and_release)
{
	struct tcp_conn conn = { .flow = 7, .seq_from_guest = TO_ISN };
	struct tcp_conn other = { .flow = 8, .seq_from_guest = TO_ISN };
	uint32_t hole = TO_ISN, base = TO_ISN + TO_SEG;
	struct iovec iov[2];
	unsigned int n;

	to_setup();
	/* The ring spans TCP_OOO_BUF_SIZE bytes from the in-order point:
	 * bytes beyond are not kept, a segment across the end is cut
	 */
	tcp_ooo_hold(&conn, base, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, hole + TCP_OOO_BUF_SIZE, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, hole + TCP_OOO_BUF_SIZE - 100, to_stream, TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conn, base + 100, iov, &n),
			  TO_SEG - 100);
	ck_assert_uint_eq(n, 1);
	ck_assert(!memcmp(iov[0].iov_base, to_stream + 100, TO_SEG - 100));
	ck_assert_uint_eq(tcp_ooo_take(&conn, hole + TCP_OOO_BUF_SIZE - 100,
				       iov, &n), 100);
	ck_assert_uint_eq(tcp_ooo_take(&conn, hole + TCP_OOO_BUF_SIZE, iov,
				       &n), 0);

	/* Release forgets held data; other connections are unaffected */
	tcp_ooo_hold(&conn, base + 2 * TO_SEG, to_stream, TO_SEG);
	tcp_ooo_hold(&other, base, to_stream, TO_SEG);
	tcp_ooo_release(&conn);
	ck_assert_uint_eq(tcp_ooo_take(&conn, base + 2 * TO_SEG, iov, &n), 0);
	ck_assert_uint_eq(tcp_ooo_take(&other, base, iov, &n), TO_SEG);
	tcp_ooo_release(&other);
}
END_TEST

START_TEST(test_ooo_ring_wrap)
{
	/* A run across the end of the ring comes back in two pieces */
	uint32_t seq = TO_ISN + TCP_OOO_BUF_SIZE - TO_SEG / 2 -
		       (TO_ISN & (TCP_OOO_BUF_SIZE - 1));
	struct tcp_conn conn = { .flow = 9, .seq_from_guest = seq - 10 };
	struct iovec iov[2];
	unsigned int n;

	to_setup();
	tcp_ooo_hold(&conn, seq, to_stream, TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conn, seq, iov, &n), TO_SEG);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(iov[0].iov_len, TO_SEG / 2);
	ck_assert(!memcmp(iov[0].iov_base, to_stream, TO_SEG / 2));
	ck_assert_uint_eq(iov[1].iov_len, TO_SEG - TO_SEG / 2);
	ck_assert(!memcmp(iov[1].iov_base, to_stream + TO_SEG / 2,
			  TO_SEG - TO_SEG / 2));
	tcp_ooo_release(&conn);
}
END_TEST

START_TEST(test_ooo_kept_until_written)
{
	/* Held data the socket took only half of stays held: it was
	 * reported in SACK blocks, nobody would send it again
	 */
	struct tcp_conn conn = { .flow = 10, .seq_from_guest = TO_ISN };
	struct iovec iov[2];
	unsigned int n;

	to_setup();
	tcp_ooo_hold(&conn, TO_ISN + TO_SEG, to_stream + TO_SEG, 2 * TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conn, TO_ISN + TO_SEG, iov, &n),
			  2 * TO_SEG);
	conn.seq_from_guest = TO_ISN + 2 * TO_SEG;	/* half written */
	tcp_ooo_flushed(&conn);
	ck_assert_uint_eq(tcp_ooo_take(&conn, conn.seq_from_guest, iov, &n),
			  TO_SEG);
	/* (This crosses the end of the ring, at TO_ISN + 4096) */
	ck_assert_uint_eq(n, 2);
	ck_assert(!memcmp(iov[0].iov_base, to_stream + 2 * TO_SEG,
			  iov[0].iov_len));
	ck_assert(!memcmp(iov[1].iov_base,
			  to_stream + 2 * TO_SEG + iov[0].iov_len,
			  iov[1].iov_len));
	conn.seq_from_guest = TO_ISN + 3 * TO_SEG;	/* the rest */
	tcp_ooo_flushed(&conn);
	ck_assert_uint_eq(tcp_ooo_take(&conn, conn.seq_from_guest, iov, &n),
			  0);
}
END_TEST

START_TEST(test_ooo_sack_blocks)
{
	struct tcp_conn conn = { .flow = 11, .seq_from_guest = TO_ISN };
	struct tcp_sack_block b[TCP_SACK_BLOCKS_MAX];
	unsigned int i;

	to_setup();
	ck_assert_uint_eq(tcp_ooo_sack(&conn, b, TCP_SACK_BLOCKS_MAX), 0);

	/* Runs at segments 2, 4-5, 7, 9, 11; the last held is 4 */
	for (i = 11; i >= 7; i -= 2)
		tcp_ooo_hold(&conn, TO_ISN + i * TO_SEG, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, TO_ISN + 2 * TO_SEG, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, TO_ISN + 5 * TO_SEG, to_stream, TO_SEG);
	tcp_ooo_hold(&conn, TO_ISN + 4 * TO_SEG, to_stream, TO_SEG);

	/* The most recent run first, then the others in order */
	ck_assert_uint_eq(tcp_ooo_sack(&conn, b, TCP_SACK_BLOCKS_MAX), 4);
	ck_assert_uint_eq(b[0].start, TO_ISN + 4 * TO_SEG);
	ck_assert_uint_eq(b[0].end, TO_ISN + 6 * TO_SEG);
	ck_assert_uint_eq(b[1].start, TO_ISN + 2 * TO_SEG);
	ck_assert_uint_eq(b[2].start, TO_ISN + 7 * TO_SEG);
	ck_assert_uint_eq(b[3].start, TO_ISN + 9 * TO_SEG);
	ck_assert_uint_eq(tcp_ooo_sack(&conn, b, 2), 2);

	/* Written up to segment 5: what's left is reported */
	conn.seq_from_guest = TO_ISN + 6 * TO_SEG;
	tcp_ooo_flushed(&conn);
	ck_assert_uint_eq(tcp_ooo_sack(&conn, b, TCP_SACK_BLOCKS_MAX), 3);
	ck_assert_uint_eq(b[0].start, TO_ISN + 7 * TO_SEG);
	ck_assert_uint_eq(b[2].end, TO_ISN + 12 * TO_SEG);
	tcp_ooo_release(&conn);
	ck_assert_uint_eq(tcp_ooo_sack(&conn, b, TCP_SACK_BLOCKS_MAX), 0);
}
END_TEST

START_TEST(test_ooo_table_full)
{
	struct tcp_conn conns[TCP_OOO_BUFS + 1];
	struct iovec iov[2];
	unsigned int i, n;

	to_setup();
	memset(conns, 0, sizeof(conns));
	for (i = 0; i <= TCP_OOO_BUFS; i++) {
		conns[i].flow = 100 + i;
		conns[i].seq_from_guest = TO_ISN - 1;
		tcp_ooo_hold(&conns[i], TO_ISN, to_stream, TO_SEG);
	}
	/* One connection too many holds nothing, the others hold theirs */
	ck_assert_uint_eq(tcp_ooo_take(&conns[TCP_OOO_BUFS], TO_ISN, iov, &n),
			  0);
	for (i = 0; i < TCP_OOO_BUFS; i++) {
		ck_assert_uint_eq(tcp_ooo_take(&conns[i], TO_ISN, iov, &n),
				  TO_SEG);
		conns[i].seq_from_guest = TO_ISN + TO_SEG;
		tcp_ooo_flushed(&conns[i]);
	}
	/* All released: a new connection gets a buffer again */
	tcp_ooo_hold(&conns[TCP_OOO_BUFS], TO_ISN, to_stream, TO_SEG);
	ck_assert_uint_eq(tcp_ooo_take(&conns[TCP_OOO_BUFS], TO_ISN, iov, &n),
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
	tcase_add_test(tc, test_ooo_ring_wrap);
	tcase_add_test(tc, test_ooo_kept_until_written);
	tcase_add_test(tc, test_ooo_sack_blocks);
	tcase_add_test(tc, test_ooo_table_full);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
