// SPDX-License-Identifier: GPL-2.0-or-later
/* test_tcp_splice.c - unit tests for spliced loopback TCP (tcp/tcp_splice.c)
 *
 * Theory of operation: everything runs in the test's own network
 * namespace on 127.0.0.1, with targets outside the pasta namespace
 * (@in_ns false), so no namespace or privilege is needed. A "client"
 * connects to a front listener; the accepted socket is handed to
 * tcp_splice_conn_new() toward a "server" listener. The test drives the
 * relay only through its epoll set, like the main loop, and checks after
 * every dispatch that no connection can miss a wake-up. The endpoints use
 * small buffers and read at random, so the relay often meets a full
 * destination: if it ever lost a wake-up, the transfer would stop and the
 * test would time out. Bytes are compared in full both ways.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "../../conf/ctx.h"
#include "../../flow/flow.h"
#include "../../tcp/tcp_splice.h"
#include "../../util/epoll_ref.h"

#define TS_FLOWS	8
#define TS_BYTES	(4 * 1024 * 1024)
#define TS_SMALL_BUF	16384
#define TS_IO_MAX	65536
#define TS_DEADLINE_S	60
#define TS_STALL_S	5

static struct ctx ts_ctx;

/**
 * ts_now() - monotonic time in seconds
 *
 * Return: seconds
 */
static double ts_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * ts_setup() - fresh flow table, epoll set and splice state
 */
static void ts_setup(void)
{
	memset(&ts_ctx, 0, sizeof(ts_ctx));
	ts_ctx.mode = MODE_PASTA;
	ts_ctx.flow_max = TS_FLOWS;
	ts_ctx.ip4.enabled = true;
	/* Small send buffers for the relay: destinations fill up often */
	ts_ctx.tcp_wmem = TS_SMALL_BUF;
	ts_ctx.epollfd = epoll_create1(EPOLL_CLOEXEC);
	ck_assert_int_ge(ts_ctx.epollfd, 0);
	ck_assert_int_eq(flow_table_init(TS_FLOWS), 0);
	ck_assert_int_eq(tcp_splice_init(&ts_ctx), 0);
}

/**
 * ts_teardown() - release the flow table and the epoll set
 */
static void ts_teardown(void)
{
	flow_table_fini();
	close(ts_ctx.epollfd);
}

/**
 * ts_pump() - wait for relay events and dispatch them, like the main loop
 * @timeout_ms:	epoll_wait() timeout
 *
 * Return: number of events dispatched
 */
static int ts_pump(int timeout_ms)
{
	struct epoll_event ev[32];
	int n, i;

	n = epoll_wait(ts_ctx.epollfd, ev, 32, timeout_ms);
	ck_assert_int_ge(n, 0);

	for (i = 0; i < n; i++) {
		union epoll_ref ref = { .u64 = ev[i].data.u64 };

		ck_assert_int_eq(ref.type, EPOLL_TYPE_TCP_SPLICE);
		tcp_splice_handler(&ts_ctx, ref, ev[i].events, 0);
	}
	ck_assert_uint_eq(tcp_splice_check(), 0);

	return n;
}

/**
 * ts_listener() - listening socket on 127.0.0.1, ephemeral port
 * @port:	port chosen, set on return
 * @buf:	SO_RCVBUF and SO_SNDBUF for accepted sockets, 0 for default
 *
 * Return: socket
 */
static int ts_listener(uint16_t *port, int buf)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int s;

	s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(s, 0);
	if (buf) {
		setsockopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(s, 16), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return s;
}

/**
 * ts_accept() - accept a connection, dispatching relay events meanwhile
 * @l:		listening socket
 *
 * Return: accepted non-blocking socket
 */
static int ts_accept(int l)
{
	double end = ts_now() + 5;
	int s;

	while ((s = accept4(l, NULL, NULL, SOCK_NONBLOCK)) < 0) {
		ck_assert(errno == EAGAIN);
		ck_assert(ts_now() < end);
		ts_pump(1);
	}
	return s;
}

/**
 * ts_splice() - connect a client through the relay to a port
 * @port:	target port on 127.0.0.1
 * @buf:	socket buffer sizes of the client and of the relay's accepted
 *		socket, 0 for the default
 * @client:	client socket, set on return
 *
 * Return: what tcp_splice_conn_new() returned
 */
static int ts_splice(uint16_t port, int buf, int *client)
{
	struct tcp_splice_target t = { .in_ns = false, .port = port };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint16_t front_port;
	int front, s, ret;

	front = ts_listener(&front_port, buf);
	*client = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(*client, 0);
	if (buf) {
		setsockopt(*client, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
		setsockopt(*client, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	}
	sa.sin_port = htons(front_port);
	ret = connect(*client, (struct sockaddr *)&sa, sizeof(sa));
	ck_assert(!ret || errno == EINPROGRESS);
	s = ts_accept(front);
	close(front);

	inany_from_v4(&t.addr, (struct in_addr){ htonl(INADDR_LOOPBACK) });
	return tcp_splice_conn_new(&ts_ctx, s, &t);
}

/**
 * struct ts_end - one endpoint of a transfer
 * @s:		socket
 * @tx:		data to send
 * @sent:	bytes of @tx sent
 * @rx:		data received
 * @rcvd:	bytes received
 * @shut:	we shut down writing
 * @eof:	we read end of file
 */
struct ts_end {
	int s;
	const unsigned char *tx;
	size_t sent;
	unsigned char *rx;
	size_t rcvd;
	bool shut;
	bool eof;
};

/**
 * ts_io() - a random step of an endpoint: maybe write, maybe read
 * @e:		endpoint
 * @may_shut:	shut down writing once everything is sent
 */
static void ts_io(struct ts_end *e, bool may_shut)
{
	ssize_t n;

	if (e->sent < TS_BYTES && random() % 2) {
		size_t len = 1 + (size_t)random() % TS_IO_MAX;

		if (len > TS_BYTES - e->sent)
			len = TS_BYTES - e->sent;
		n = send(e->s, e->tx + e->sent, len, MSG_NOSIGNAL);
		if (n > 0)
			e->sent += (size_t)n;
		else
			ck_assert(errno == EAGAIN);
	}
	if (e->sent == TS_BYTES && may_shut && !e->shut) {
		ck_assert_int_eq(shutdown(e->s, SHUT_WR), 0);
		e->shut = true;
	}

	/* A sink that refuses to read, at random */
	if (!e->eof && random() % 3 == 0) {
		size_t len = 1 + (size_t)random() % TS_IO_MAX;

		if (len > TS_BYTES - e->rcvd)
			len = TS_BYTES - e->rcvd;
		if (!len)
			len = 1;	/* only end of file left */
		n = recv(e->s, e->rx + e->rcvd, len, 0);
		if (n > 0) {
			e->rcvd += (size_t)n;
			ck_assert_uint_le(e->rcvd, TS_BYTES);
		} else if (!n) {
			e->eof = true;
		} else {
			ck_assert(errno == EAGAIN);
		}
	}
}

/**
 * ts_fill() - deterministic pseudo-random data
 * @buf:	buffer, TS_BYTES long
 * @seed:	seed
 */
static void ts_fill(unsigned char *buf, unsigned int seed)
{
	uint32_t x = seed * 2654435761U + 1;
	size_t i;

	for (i = 0; i < TS_BYTES; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
}

START_TEST(test_transfer_random_sink)
{
	unsigned char *a = malloc(TS_BYTES), *b = malloc(TS_BYTES);
	unsigned char *ra = malloc(TS_BYTES), *rb = malloc(TS_BYTES);
	struct ts_end cli = { 0 }, srv = { 0 };
	double end = ts_now() + TS_DEADLINE_S, moved = ts_now();
	size_t total = 0;
	uint16_t port;
	int l;

	ck_assert(a && b && ra && rb);
	/* Iteration 0: the relay yields after every round */
	tcp_splice_budget_set(_i ? 0 : 1);
	srandom((unsigned int)_i + 1);
	ts_fill(a, 1 + (unsigned int)_i);
	ts_fill(b, 100 + (unsigned int)_i);

	l = ts_listener(&port, TS_SMALL_BUF);
	ck_assert_int_ge(ts_splice(port, TS_SMALL_BUF, &cli.s), 0);
	srv.s = ts_accept(l);
	close(l);
	ck_assert_uint_eq(tcp_splice_active(), 1);

	cli.tx = a;
	cli.rx = rb;
	srv.tx = b;
	srv.rx = ra;

	/* The client half-closes as soon as it sent everything; the server
	 * only once it read the client's end of file
	 */
	while (!cli.eof || !srv.eof) {
		size_t now_total = cli.sent + cli.rcvd + srv.sent + srv.rcvd;

		if (now_total != total) {
			total = now_total;
			moved = ts_now();
		}
		ck_assert_msg(ts_now() < moved + TS_STALL_S && ts_now() < end,
			      "stalled: client sent %zu got %zu, server sent %zu got %zu",
			      cli.sent, cli.rcvd, srv.sent, srv.rcvd);
		ts_io(&cli, true);
		ts_io(&srv, srv.eof);
		ts_pump(1);
	}

	ck_assert_uint_eq(srv.rcvd, TS_BYTES);
	ck_assert_uint_eq(cli.rcvd, TS_BYTES);
	ck_assert(!memcmp(a, ra, TS_BYTES));
	ck_assert(!memcmp(b, rb, TS_BYTES));

	/* Both directions ended: the relay closes the pair gracefully */
	while (tcp_splice_active()) {
		ck_assert(ts_now() < end);
		ts_pump(10);
	}

	close(cli.s);
	close(srv.s);
	free(a);
	free(b);
	free(ra);
	free(rb);
}
END_TEST

START_TEST(test_yield_rearm)
{
	double end = ts_now() + TS_STALL_S;
	char buf[4096] = { 0 };
	size_t got = 0;
	int l, cl, sv;
	uint16_t port;
	ssize_t n;

	/* Data and end of file queued at once: with a budget of one round,
	 * the relay moves the data, yields, and must get an event again to
	 * see the end of file, with no new traffic to wake it up
	 */
	tcp_splice_budget_set(1);
	l = ts_listener(&port, 0);
	ck_assert_int_ge(ts_splice(port, 0, &cl), 0);
	sv = ts_accept(l);
	while (ts_pump(0))
		;

	ck_assert_int_eq(send(cl, buf, sizeof(buf), 0), (int)sizeof(buf));
	ck_assert_int_eq(shutdown(cl, SHUT_WR), 0);
	usleep(10000);

	for (;;) {
		ck_assert_msg(ts_now() < end, "stalled after %zu bytes", got);
		ts_pump(1);
		n = recv(sv, buf, sizeof(buf), 0);
		if (n > 0)
			got += (size_t)n;
		else if (!n)
			break;
		else
			ck_assert(errno == EAGAIN);
	}
	ck_assert_uint_eq(got, sizeof(buf));

	close(sv);
	close(cl);
	close(l);
}
END_TEST

START_TEST(test_refused_resets_client)
{
	double end = ts_now() + 5;
	uint16_t port;
	char c;
	int l, cl;

	/* A port nothing listens on: bind one, then close it */
	l = ts_listener(&port, 0);
	close(l);

	ts_splice(port, 0, &cl);
	for (;;) {
		ssize_t n = recv(cl, &c, 1, 0);

		if (n < 0 && errno == EAGAIN) {
			ck_assert(ts_now() < end);
			ts_pump(1);
			continue;
		}
		ck_assert_int_eq(n, -1);
		ck_assert_int_eq(errno, ECONNRESET);
		break;
	}
	ck_assert_uint_eq(tcp_splice_active(), 0);
	close(cl);
}
END_TEST

/**
 * ts_expect_reset() - wait until a socket reports a reset
 * @s:		socket
 */
static void ts_expect_reset(int s)
{
	double end = ts_now() + 5;
	char buf[4096];

	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);

		if (n > 0 || (n < 0 && errno == EAGAIN)) {
			ck_assert(ts_now() < end);
			ts_pump(1);
			continue;
		}
		ck_assert_int_eq(n, -1);
		ck_assert_int_eq(errno, ECONNRESET);
		return;
	}
}

START_TEST(test_reset_propagates)
{
	const struct linger lin = { .l_onoff = 1, .l_linger = 0 };
	static char junk[65536];
	uint16_t port;
	int l, cl, sv, i;

	l = ts_listener(&port, 0);
	ck_assert_int_ge(ts_splice(port, 0, &cl), 0);
	sv = ts_accept(l);

	/* Some data in flight, then the client resets */
	for (i = 0; i < 4; i++)
		send(cl, junk, sizeof(junk), MSG_NOSIGNAL);
	ts_pump(1);
	setsockopt(cl, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(cl);
	ts_expect_reset(sv);
	close(sv);
	ck_assert_uint_eq(tcp_splice_active(), 0);

	/* And the other way around */
	ck_assert_int_ge(ts_splice(port, 0, &cl), 0);
	sv = ts_accept(l);
	for (i = 0; i < 4; i++)
		send(sv, junk, sizeof(junk), MSG_NOSIGNAL);
	ts_pump(1);
	setsockopt(sv, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(sv);
	ts_expect_reset(cl);
	close(cl);
	ck_assert_uint_eq(tcp_splice_active(), 0);

	close(l);
}
END_TEST

START_TEST(test_table_full_resets)
{
	int cl[TS_FLOWS + 1], sv[TS_FLOWS], i;
	uint16_t port;
	int l;

	l = ts_listener(&port, 0);
	for (i = 0; i < TS_FLOWS; i++) {
		ck_assert_int_ge(ts_splice(port, 0, &cl[i]), 0);
		sv[i] = ts_accept(l);
	}
	ck_assert_uint_eq(tcp_splice_active(), TS_FLOWS);

	ck_assert_int_eq(ts_splice(port, 0, &cl[TS_FLOWS]), -ENOSPC);
	ts_expect_reset(cl[TS_FLOWS]);

	/* The others still work: one byte each way, then close */
	for (i = 0; i < TS_FLOWS; i++) {
		double end = ts_now() + 5;
		char c = 'x';

		ck_assert_int_eq(send(cl[i], &c, 1, 0), 1);
		while (recv(sv[i], &c, 1, 0) != 1) {
			ck_assert(ts_now() < end);
			ts_pump(1);
		}
		close(cl[i]);
		close(sv[i]);
	}
	while (tcp_splice_active())
		ts_pump(10);

	close(cl[TS_FLOWS]);
	close(l);
}
END_TEST

/**
 * tcp_splice_suite() - the test suite
 *
 * Return: the suite
 */
static Suite *tcp_splice_suite(void)
{
	Suite *s = suite_create("tcp_splice");
	TCase *tc = tcase_create("loopback");

	tcase_add_checked_fixture(tc, ts_setup, ts_teardown);
	tcase_set_timeout(tc, TS_DEADLINE_S + 30);
	tcase_add_loop_test(tc, test_transfer_random_sink, 0, 4);
	tcase_add_test(tc, test_yield_rearm);
	tcase_add_test(tc, test_refused_resets_client);
	tcase_add_test(tc, test_reset_propagates);
	tcase_add_test(tc, test_table_full_resets);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the tcp_splice suite
 *
 * Return: 0 if every test passed, 1 otherwise
 */
int main(void)
{
	SRunner *sr = srunner_create(tcp_splice_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
