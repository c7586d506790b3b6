// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp_drained.c - unit tests: a turn after a peek that drained the
 * host socket skips the peek until EPOLLIN (tcp_pull_drained(),
 * tcp/tcp_emit.c), and a drop that empties the queue skips the look for a
 * held window update (tcp_discard_acked(), tcp/tcp_window.c)
 *
 * Theory of operation: tcp_harness.h plays the guest. Request and reply
 * alternate, as in a ping-pong: each reply drains the socket, and the
 * guest's next request acknowledges it, which gives the flow a turn with
 * nothing new to read. Every reply must still reach the guest, in order,
 * whether it arrives before or after that turn, and a reply arriving
 * while the guest has not acknowledged the last one must follow it.
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
 */
static void tt_reply(int s, const uint8_t *req, size_t len,
		     const uint8_t *rep, size_t rlen)
{
	uint8_t in[TT_MSS];

	ck_assert_uint_le(len, sizeof(in));
	tt_host_recv(s, in, len);
	ck_assert(!memcmp(in, req, len));
	tt_host_send(s, rep, rlen);
}

START_TEST(test_drained_pingpong)
{
	static uint8_t req[TT_MSS], rep[TT_MSS], in[2 * TT_MSS];
	struct tt_conn k;
	unsigned int i;
	int s;

	tt_setup(0);
	s = tt_open(&k);

	for (i = 0; i < 50; i++) {
		tt_pattern(req, sizeof(req), i);
		tt_pattern(rep, sizeof(rep), 1000 + i);
		tt_send_data(&k, req, 64, false);
		tt_reply(s, req, 64, rep, 64);
		tt_guest_recv(&k, in, 64, TT_MSS, false);
		ck_assert(!memcmp(in, rep, 64));
	}

	/* Two replies, the second before the guest acknowledged the first */
	tt_send_data(&k, req, 64, false);
	tt_reply(s, req, 64, rep, 64);
	tt_host_send(s, rep + 64, 64);
	tt_guest_recv(&k, in, 128, TT_MSS, false);
	ck_assert(!memcmp(in, rep, 128));
	tt_host_idle(s);
	close(s);
}
END_TEST

/**
 * tcp_drained_suite() - the suite
 *
 * Return: suite
 */
static Suite *tcp_drained_suite(void)
{
	Suite *s = suite_create("tcp_drained");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_drained_pingpong);
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
	SRunner *sr = srunner_create(tcp_drained_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? 1 : 0;
}
