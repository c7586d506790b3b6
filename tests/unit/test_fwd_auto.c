// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fwd_auto.c - unit tests for "auto" forwarding (fwd/fwd_auto.c)
 *
 * Theory of operation: the scan reads the kernel's socket tables line by
 * line with fwd_auto_parse_line(); these tests feed it lines in the
 * formats of /proc/net/tcp, tcp6, udp and udp6 (as the kernel writes
 * them), and malformed ones, and check which sockets count as listening.
 * The socket diagnostics (netlink) the scan reads first are parsed by
 * fwd_auto_diag_parse(): made-up dumps, and a live one, test it. The live
 * tests parse the tables and dumps of the test's own namespace after
 * binding sockets, so that a change in the kernel's format shows up here.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../../fwd/fwd_auto_list.h"

/* Lines as the kernel prints them */
static const char tcp_hdr[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
	"retrnsmt   uid  timeout inode";
static const char tcp_listen[] =
	"   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 "
	"00000000     0        0 231081 1 000000002a34b24a 100 0 0 10 0";
static const char tcp_estab[] =
	"   3: 0200000A:0016 0100000A:C350 01 00000000:00000000 02:00000B1C "
	"00000000     0        0 23108 4 0000000032a34b24 20 4 30 10 -1";
static const char tcp6_listen[] =
	"   1: 00000000000000000000000000000000:0050 "
	"00000000000000000000000000000000:0000 0A 00000000:00000000 "
	"00:00000000 00000000     0        0 885195 1 00000000c4e44423 100 0 "
	"0 10 0";
static const char udp_unconn[] =
	"  412: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 "
	"00000000     0        0 44521 2 000000009f1b3c1e 0";
static const char udp_conn[] =
	"  100: 0100007F:A3B2 0100007F:0035 01 00000000:00000000 00:00000000 "
	"00000000     0        0 44522 2 000000009f1b3c1f 0";
static const char udp6_unconn[] =
	" 2080: 00000000000000000000000001000000:14E9 "
	"00000000000000000000000000000000:0000 07 00000000:00000000 "
	"00:00000000 00000000     0        0 44600 2 0000000011112222 0";

START_TEST(test_tcp_lines)
{
	uint16_t port = 0;

	ck_assert_int_eq(fwd_auto_parse_line(tcp_hdr, false, &port), -1);
	ck_assert_int_eq(fwd_auto_parse_line(tcp_listen, false, &port), 1);
	ck_assert_uint_eq(port, 8080);
	ck_assert_int_eq(fwd_auto_parse_line(tcp6_listen, false, &port), 1);
	ck_assert_uint_eq(port, 80);
	port = 0;
	ck_assert_int_eq(fwd_auto_parse_line(tcp_estab, false, &port), 0);
	ck_assert_uint_eq(port, 0);
}
END_TEST

START_TEST(test_udp_lines)
{
	uint16_t port = 0;

	ck_assert_int_eq(fwd_auto_parse_line(udp_unconn, true, &port), 1);
	ck_assert_uint_eq(port, 53);
	ck_assert_int_eq(fwd_auto_parse_line(udp6_unconn, true, &port), 1);
	ck_assert_uint_eq(port, 5353);
	port = 0;
	ck_assert_int_eq(fwd_auto_parse_line(udp_conn, true, &port), 0);
	ck_assert_uint_eq(port, 0);
	/* A listening TCP state is not a bound UDP socket, and back */
	ck_assert_int_eq(fwd_auto_parse_line(tcp_listen, true, &port), 0);
	ck_assert_int_eq(fwd_auto_parse_line(udp_unconn, false, &port), 0);
}
END_TEST

START_TEST(test_port_zero)
{
	static const char line[] =
		"   0: 00000000:0000 00000000:0000 07 00000000:00000000 "
		"00:00000000 00000000     0        0 1 2 0000000000000000 0";
	uint16_t port = 7;

	ck_assert_int_eq(fwd_auto_parse_line(line, true, &port), 0);
	ck_assert_uint_eq(port, 7);
}
END_TEST

START_TEST(test_malformed)
{
	static const char *const bad[] = {
		"",
		"   ",
		"garbage",
		"   0:",
		"   0: 0100007F",
		"   0: 0100007F:1F9 00000000:0000 0A",	/* short port */
		"   0: 0100007F:1F90 00000000:0000",	/* no state */
		"   0: 0100007F:1F90 00000000:0000 A",	/* short state */
		"   0: 0100007F:1F90x00000000:0000 0A",
		"   0: :1F90 00000000:0000 0A",
		"x0: 0100007F:1F90 00000000:0000 0A",
	};
	uint16_t port = 0;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(fwd_auto_parse_line(bad[i], false, &port) < 0,
			      "line %u accepted: '%s'", i, bad[i]);
	}
	ck_assert_uint_eq(port, 0);
}
END_TEST

/**
 * live_has() - tell if a live procfs table lists a listening port
 * @path:	table, e.g. /proc/self/net/tcp
 * @udp:	UDP table
 * @want:	port
 *
 * Return: true if a line for @want parses as listening
 */
static bool live_has(const char *path, bool udp, uint16_t want)
{
	char line[512];
	bool found = false;
	FILE *f = fopen(path, "r");

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		uint16_t port;

		line[strcspn(line, "\n")] = '\0';
		if (fwd_auto_parse_line(line, udp, &port) == 1 && port == want)
			found = true;
	}
	fclose(f);
	return found;
}

/**
 * live_socks() - a TCP listener and a bound UDP socket on loopback
 * @t:		TCP socket, set
 * @u:		UDP socket, set
 * @tport:	the listener's port, set
 * @uport:	the UDP socket's port, set
 */
static void live_socks(int *t, int *u, uint16_t *tport, uint16_t *uport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*t = socket(AF_INET, SOCK_STREAM, 0);
	*u = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(*t, 0);
	ck_assert_int_ge(*u, 0);
	ck_assert_int_eq(bind(*t, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(*t, 1), 0);
	ck_assert_int_eq(getsockname(*t, (struct sockaddr *)&sa, &sl), 0);
	*tport = ntohs(sa.sin_port);

	sa.sin_port = 0;
	ck_assert_int_eq(bind(*u, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sl = sizeof(sa);
	ck_assert_int_eq(getsockname(*u, (struct sockaddr *)&sa, &sl), 0);
	*uport = ntohs(sa.sin_port);
}

START_TEST(test_live_tables)
{
	uint16_t tport, uport;
	int t, u;

	live_socks(&t, &u, &tport, &uport);
	ck_assert(live_has("/proc/self/net/tcp", false, tport));
	ck_assert(live_has("/proc/self/net/udp", true, uport));

	close(t);
	close(u);
}
END_TEST

/* Bit of a port in a bitmap of every port */
#define PORT_BIT(map, p)	(((map)[(p) / 64] >> ((p) % 64)) & 1)

/**
 * diag_msg() - append a socket diagnostics message to a dump
 * @buf:	dump being built
 * @off:	offset of the message in @buf, updated past it
 * @seq:	sequence number
 * @state:	socket state
 * @port:	local port
 */
static void diag_msg(char *buf, size_t *off, uint32_t seq, uint8_t state,
		     uint16_t port)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + *off);
	struct inet_diag_msg *m = NLMSG_DATA(nh);

	memset(nh, 0, NLMSG_SPACE(sizeof(*m)));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(*m));
	nh->nlmsg_type = SOCK_DIAG_BY_FAMILY;
	nh->nlmsg_seq = seq;
	m->idiag_family = AF_INET;
	m->idiag_state = state;
	m->id.idiag_sport = htons(port);
	*off += NLMSG_SPACE(sizeof(*m));
}

/**
 * diag_end() - append the end of a dump
 * @buf:	dump being built
 * @off:	offset of the message in @buf, updated past it
 * @seq:	sequence number
 * @error:	error the kernel reports, 0 for none
 */
static void diag_end(char *buf, size_t *off, uint32_t seq, int error)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)(buf + *off);

	memset(nh, 0, NLMSG_SPACE(sizeof(int)));
	nh->nlmsg_len = NLMSG_LENGTH(sizeof(int));
	nh->nlmsg_type = NLMSG_DONE;
	nh->nlmsg_seq = seq;
	memcpy(NLMSG_DATA(nh), &error, sizeof(error));
	*off += NLMSG_SPACE(sizeof(int));
}

START_TEST(test_diag_dump)
{
	static char buf[4096] __attribute__((aligned(4)));
	uint64_t map[65536 / 64] = { 0 };
	size_t off = 0;

	diag_msg(buf, &off, 7, 0x0a, 8080);	/* listening */
	diag_msg(buf, &off, 7, 0x01, 22);	/* established */
	diag_msg(buf, &off, 7, 0x0a, 0);	/* no port */
	diag_msg(buf, &off, 6, 0x0a, 443);	/* an older dump */
	ck_assert_int_eq(fwd_auto_diag_parse(buf, off, 7, false, map), 0);
	ck_assert(PORT_BIT(map, 8080));
	ck_assert(!PORT_BIT(map, 22) && !PORT_BIT(map, 0));
	ck_assert(!PORT_BIT(map, 443));

	off = 0;
	diag_msg(buf, &off, 8, 0x07, 53);	/* UDP, bound */
	diag_msg(buf, &off, 8, 0x0a, 80);	/* not a UDP state */
	diag_end(buf, &off, 8, 0);
	ck_assert_int_eq(fwd_auto_diag_parse(buf, off, 8, true, map), 1);
	ck_assert(PORT_BIT(map, 53) && !PORT_BIT(map, 80));

	off = 0;
	diag_end(buf, &off, 9, -ENOENT);
	ck_assert_int_eq(fwd_auto_diag_parse(buf, off, 9, true, map), -ENOENT);

	/* Truncated: nothing parsed, no end */
	ck_assert_int_eq(fwd_auto_diag_parse(buf, 8, 9, true, map), 0);
}
END_TEST

/**
 * live_diag_has() - tell if a live dump lists a listening port
 * @udp:	UDP sockets bound, not connected (else TCP listeners)
 * @want:	port
 *
 * Return: true if the dump of our namespace has @want
 */
static bool live_diag_has(bool udp, uint16_t want)
{
	static char buf[65536] __attribute__((aligned(4)));
	uint64_t map[65536 / 64] = { 0 };
	struct {
		struct nlmsghdr nh;
		struct inet_diag_req_v2 r;
	} req = {
		.nh = { .nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1 },
		.r = { .sdiag_family = AF_INET,
		       .sdiag_protocol = udp ? IPPROTO_UDP : IPPROTO_TCP,
		       .idiag_states = udp ? 1U << 7 : 1U << 10 },
	};
	int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG), ret = 0;

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(send(s, &req, sizeof(req), 0), (int)sizeof(req));
	while (!ret) {
		ssize_t n = recv(s, buf, sizeof(buf), 0);

		ck_assert_int_gt(n, 0);
		ret = fwd_auto_diag_parse(buf, (size_t)n, 1, udp, map);
	}
	close(s);
	ck_assert_int_eq(ret, 1);
	return PORT_BIT(map, want);
}

START_TEST(test_live_diag)
{
	uint16_t tport, uport;
	int t, u;

	live_socks(&t, &u, &tport, &uport);
	ck_assert(live_diag_has(false, tport));
	if (uport != tport)	/* TCP's listener is not in UDP's dump */
		ck_assert(!live_diag_has(true, tport));
	ck_assert(live_diag_has(true, uport));

	close(t);
	close(u);
}
END_TEST

/**
 * fwd_auto_suite() - the test suite
 *
 * Return: the suite
 */
static Suite *fwd_auto_suite(void)
{
	Suite *s = suite_create("fwd_auto");
	TCase *tc = tcase_create("procfs");

	tcase_add_test(tc, test_tcp_lines);
	tcase_add_test(tc, test_udp_lines);
	tcase_add_test(tc, test_port_zero);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_live_tables);
	suite_add_tcase(s, tc);
	tc = tcase_create("diag");
	tcase_add_test(tc, test_diag_dump);
	tcase_add_test(tc, test_live_diag);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the fwd_auto suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(fwd_auto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
