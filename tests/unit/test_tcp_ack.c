// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp_ack.c - unit tests: the ACK of a short request from the guest
 * waits for the host's reply to carry it (tcp_ack_may_wait(), tcp/tcp.c)
 *
 * Theory of operation: tcp_harness.h plays the guest. A request shorter
 * than a segment, answered by the host before the relay's loop runs
 * again, must come back as one segment: the reply, acknowledging the
 * request. Unanswered, the request is acknowledged alone (the delay is
 * bounded); a full segment is acknowledged at once, before its reply.
 * Loopback delivers the host's writes within the calls, so no timing is
 * assumed beyond the relay's loop not running between them.
 */

#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "tcp_harness.h"

/**
 * tt_open() - a connection the guest starts, to a host listener
 * @k:		connection, set up here
 *
 * Return: the host's socket of the connection
 */
static int tt_open(struct tt_conn *k)
{
	struct tt_seg g;
	uint16_t port;
	int l = tt_listener(true, 0, &port), s;

	tt_conn_init(k, true, TT_GPORT, port);
	tt_segment(k, TH_SYN, k->snd_nxt++, tt_syn_opts, sizeof(tt_syn_opts),
		   NULL, 0);
	s = tt_accept(l);
	close(l);

	tt_expect(k, &g, "SYN-ACK");
	ck_assert_uint_eq(g.flags, TH_SYN | TH_ACK);
	k->rcv_nxt = g.seq + 1;
	k->ws_relay = g.ws > 0 ? (uint8_t)g.ws : 0;
	tt_send_ack(k);
	return s;
}

/**
 * tt_reply() - the host peer reads the guest's request, sends a reply
 * @s:		host socket
 * @req:	request the guest sent
 * @len:	its length
 * @rep:	reply
 * @rlen:	its length
 *
 * Without running the relay: loopback delivers both within the calls.
 */
static void tt_reply(int s, const uint8_t *req, size_t len,
		     const uint8_t *rep, size_t rlen)
{
	uint8_t in[TT_MSS];

	ck_assert_uint_le(len, sizeof(in));
	ck_assert_int_eq(recv(s, in, len, MSG_DONTWAIT), (ssize_t)len);
	ck_assert(!memcmp(in, req, len));
	ck_assert_int_eq(send(s, rep, rlen, MSG_DONTWAIT), (ssize_t)rlen);
}

START_TEST(test_ack_rides_reply)
{
	static uint8_t req[TT_MSS], rep[TT_MSS], in[TT_MSS];
	struct tt_conn k;
	struct tt_seg g;
	int s;

	tt_setup(0);
	tt_pattern(req, sizeof(req), 7);
	tt_pattern(rep, sizeof(rep), 8);
	s = tt_open(&k);

	/* A short request, then its reply: one segment, carrying the ACK */
	tt_send_data(&k, req, 64, false);
	tt_reply(s, req, 64, rep, 64);
	tt_expect(&k, &g, "reply");
	ck_assert_uint_eq(g.len, 64);
	ck_assert_uint_eq(g.ack, k.snd_nxt);
	ck_assert(g.flags & TH_ACK);
	k.rcv_nxt += 64;
	tt_send_ack(&k);
	tt_expect_none(&k, "after the reply");

	/* No reply: the ACK comes alone, within TCP_ACK_DELAY_NS */
	tt_send_data(&k, req, 64, false);
	tt_expect_ack(&k, &g);
	tt_reply(s, req, 64, rep, 64);
	tt_guest_recv(&k, in, 64, TT_MSS, false);
	ck_assert(!memcmp(in, rep, 64));

	/* A full segment is acknowledged at once, before any reply */
	tt_send_data(&k, req, TT_MSS, false);
	tt_reply(s, req, TT_MSS, rep, 64);
	tt_expect_ack(&k, &g);
	tt_guest_recv(&k, in, 64, TT_MSS, false);
	ck_assert(!memcmp(in, rep, 64));
	close(s);
}
END_TEST

/**
 * tcp_ack_suite() - the suite
 *
 * Return: suite
 */
static Suite *tcp_ack_suite(void)
{
	Suite *s = suite_create("tcp_ack");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ack_rides_reply);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed, 1 otherwise
 */
int main(void)
{
	SRunner *sr = srunner_create(tcp_ack_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? 1 : 0;
}
