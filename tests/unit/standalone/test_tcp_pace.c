// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp_pace.c - the TCP pacing policies, edge by edge
 *
 * Build: see the Makefile's standalone rule; sources: this file,
 * tcp/tcp_pace.c, and nothing else: the policies are pure functions, and
 * linking them alone is what shows it.
 *
 * Theory of operation: each policy gets the numbers its caller in tcp/
 * gathers, set at and around each of its edges, and the expected answer
 * is written as a number, not derived from the policy's constants, so
 * that changing a constant the docs describe (a quarter, 1/16, two
 * segments, 1 MiB) fails here. The end-to-end behaviour is tested in
 * tests/unit/test_tcp.c (sections 8 to 10) and measured in
 * doc/perf-notes/.
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../../tcp/tcp_pace.h"

#define T_SEG		1600	/* guest segment: ends up to 100 bytes held */
#define T_MIB		(1024 * 1024)

/**
 * t_tail() - a peek that drained the socket: two full segments and @end
 * @end:	bytes past the two segments
 *
 * Return: the peek, with nothing in flight before it
 */
static struct tcp_pace_tail t_tail(size_t end)
{
	struct tcp_pace_tail t = {
		.n = 2 * T_SEG + end,
		.want = 4 * T_SEG,
		.seg = T_SEG,
		.in_flight = 0,
		.held = 0,
		.peek_off = true,
		.resend = false,
		.eof = false,
	};

	return t;
}

START_TEST(tail_short_end_may_wait)
{
	struct tcp_pace_tail t = t_tail(3);

	ck_assert_uint_eq(tcp_pace_tail_end(&t), 3);
	t = t_tail(0);				/* whole segments: nothing */
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
}
END_TEST

START_TEST(tail_only_below_a_sixteenth)
{
	struct tcp_pace_tail t = t_tail(T_SEG / 16);

	ck_assert_uint_eq(tcp_pace_tail_end(&t), 100);
	t = t_tail(T_SEG / 16 + 1);
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
}
END_TEST

START_TEST(tail_only_after_a_drain)
{
	struct tcp_pace_tail t = t_tail(3);

	t.want = t.n;				/* read all it asked for */
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
	t.want = t.n + 1;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 3);
}
END_TEST

START_TEST(tail_never_alone)
{
	struct tcp_pace_tail t = t_tail(3);

	/* No full segment goes with it, however much is in flight */
	t.n = 3;
	t.in_flight = 10 * T_SEG;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
}
END_TEST

START_TEST(tail_needs_two_segments_in_flight)
{
	struct tcp_pace_tail t = t_tail(3);

	t.n = T_SEG + 3;			/* one full segment now */
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
	t.in_flight = T_SEG - 1;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
	t.in_flight = T_SEG;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 3);
}
END_TEST

START_TEST(tail_not_when_resending_or_closed)
{
	struct tcp_pace_tail t = t_tail(3);

	t.resend = true;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
	t = t_tail(3);
	t.eof = true;
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
	t = t_tail(3);
	t.peek_off = false;		/* peeked from the front, or no offset */
	ck_assert_uint_eq(tcp_pace_tail_end(&t), 0);
}
END_TEST

START_TEST(tail_host_segment_size)
{
	struct tcp_pace_tail t = t_tail(6);

	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, 0), 0);	/* unknown */
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, T_SEG), 0);
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, T_SEG + 3), 6);
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, 2 * T_SEG - 1), 6);
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, 2 * T_SEG), 0);

	/* Not as long as the guest's: no end is theirs, even one no longer
	 * than what the last turn left
	 */
	t.held = 6;
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, T_SEG), 0);
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, T_SEG + 1), 6);
}
END_TEST

START_TEST(tail_explained_by_longer_segments)
{
	/* Loopback: host segments 3 bytes longer; two of them, 6 bytes */
	struct tcp_pace_tail t = t_tail(6);

	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 6, T_SEG + 3), 6);
	t = t_tail(7);				/* three host segments peeked */
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 7, T_SEG + 3), 7);
	t = t_tail(10);				/* three explain 9 at most */
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 10, T_SEG + 3), 0);
}
END_TEST

START_TEST(tail_write_end_goes_now)
{
	/* iperf3 -b: a 128 KiB write ends 112 bytes past two segments of
	 * 65483 bytes, host segments 3 bytes longer: where the write ended
	 */
	struct tcp_pace_tail t = {
		.n = 2 * 65483 + 112, .want = 4 * 65483, .seg = 65483,
		.peek_off = true,
	};

	ck_assert_uint_eq(tcp_pace_tail_end(&t), 112);
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 112, 65486), 0);
}
END_TEST

START_TEST(tail_previous_end_counts)
{
	struct tcp_pace_tail t = t_tail(10);

	/* 10 bytes past two segments: three host segments explain 9 ... */
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 10, T_SEG + 3), 0);
	/* ... but 4 of them were held last turn: two new ones and those */
	t.held = 4;
	ck_assert_uint_eq(tcp_pace_tail_hold(&t, 10, T_SEG + 3), 10);
}
END_TEST

START_TEST(wnd_reserve_is_a_quarter)
{
	ck_assert_uint_eq(tcp_pace_wnd_room(3 * T_MIB, 4 * T_MIB, false),
			  2 * T_MIB);
	ck_assert_uint_eq(tcp_pace_wnd_room(T_MIB + 1, 4 * T_MIB, false), 1);
	ck_assert_uint_eq(tcp_pace_wnd_room(T_MIB, 4 * T_MIB, false), 0);
	ck_assert_uint_eq(tcp_pace_wnd_room(1, 4 * T_MIB, false), 0);
}
END_TEST

START_TEST(wnd_reserve_not_for_a_retransmission)
{
	ck_assert_uint_eq(tcp_pace_wnd_room(1, 4 * T_MIB, true), 1);
	ck_assert_uint_eq(tcp_pace_wnd_room(T_MIB, 4 * T_MIB, true), T_MIB);
}
END_TEST

START_TEST(wnd_reserve_follows_wnd_max)
{
	/* After the hold timer, wnd_max is the guest's small window */
	ck_assert_uint_eq(tcp_pace_wnd_room(1000, 1000, false), 750);
	/* Below four bytes, a quarter is nothing */
	ck_assert_uint_eq(tcp_pace_wnd_room(3, 3, false), 3);
	ck_assert_uint_eq(tcp_pace_wnd_room(4, 4, false), 3);
}
END_TEST

START_TEST(more_needs_no_push)
{
	ck_assert(tcp_pace_more(true, 10000 + 2 * 1460, 10000, 1460));
	ck_assert(!tcp_pace_more(false, 10000 + 2 * 1460, 10000, 1460));
}
END_TEST

START_TEST(more_needs_two_segments_of_window)
{
	ck_assert(tcp_pace_more(true, 10000 + 100000, 10000, 1460));
	ck_assert(!tcp_pace_more(true, 10000 + 2 * 1460 - 1, 10000, 1460));
	ck_assert(!tcp_pace_more(true, 10000, 10000, 1460));
}
END_TEST

START_TEST(more_not_past_the_window)
{
	/* The guest sent beyond the window we advertised */
	ck_assert(!tcp_pace_more(true, 10000, 10001, 1460));
	ck_assert(!tcp_pace_more(true, 10000, 10000 + 3 * 1460, 1460));
}
END_TEST

START_TEST(more_across_sequence_wrap)
{
	uint32_t next = UINT32_MAX - 1000;

	ck_assert(tcp_pace_more(true, next + 2 * 1460, next, 1460));
	ck_assert(!tcp_pace_more(true, next + 2 * 1460 - 1, next, 1460));
	ck_assert(!tcp_pace_more(true, next, next + 2 * 1460, 1460));
}
END_TEST

START_TEST(ack_every_mebibyte)
{
	ck_assert(!tcp_pace_ack_now(T_MIB - 1, false));
	ck_assert(tcp_pace_ack_now(T_MIB, false));
	ck_assert(tcp_pace_ack_now(10 * T_MIB, false));
	ck_assert(!tcp_pace_ack_now(T_MIB, true));	/* FIN: the caller */
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: EXIT_SUCCESS if every test passed
 */
int main(void)
{
	Suite *s = suite_create("tcp_pace");
	TCase *tail = tcase_create("tail"), *wnd = tcase_create("wnd");
	TCase *more = tcase_create("more"), *ack = tcase_create("ack");
	SRunner *sr;
	int failed;

	tcase_add_test(tail, tail_short_end_may_wait);
	tcase_add_test(tail, tail_only_below_a_sixteenth);
	tcase_add_test(tail, tail_only_after_a_drain);
	tcase_add_test(tail, tail_never_alone);
	tcase_add_test(tail, tail_needs_two_segments_in_flight);
	tcase_add_test(tail, tail_not_when_resending_or_closed);
	tcase_add_test(tail, tail_host_segment_size);
	tcase_add_test(tail, tail_explained_by_longer_segments);
	tcase_add_test(tail, tail_write_end_goes_now);
	tcase_add_test(tail, tail_previous_end_counts);
	tcase_add_test(wnd, wnd_reserve_is_a_quarter);
	tcase_add_test(wnd, wnd_reserve_not_for_a_retransmission);
	tcase_add_test(wnd, wnd_reserve_follows_wnd_max);
	tcase_add_test(more, more_needs_no_push);
	tcase_add_test(more, more_needs_two_segments_of_window);
	tcase_add_test(more, more_not_past_the_window);
	tcase_add_test(more, more_across_sequence_wrap);
	tcase_add_test(ack, ack_every_mebibyte);
	suite_add_tcase(s, tail);
	suite_add_tcase(s, wnd);
	suite_add_tcase(s, more);
	suite_add_tcase(s, ack);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
