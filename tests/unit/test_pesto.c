// SPDX-License-Identifier: GPL-2.0-or-later
/* test_pesto.c - unit tests for the configuration protocol (fwd/pesto_wire.c)
 * and the tables it carries (fwd/fwd_rules.c)
 *
 * Theory of operation: rules of ours are encoded and compared with the
 * bytes upstream's passt sends for the same options (taken from a capture
 * of upstream's relay), read back, and checked for what the relay refuses.
 * The update parser is fed valid and malformed messages, whole and one
 * byte at a time. The derived configuration block is framed and read
 * back, refused when too long or not one, and its text shows the
 * settings in force (guest/follow.c), not those of start-up.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../conf/conf.h"
#include "../../conf/ctx.h"
#include "../../conf/fwd_spec.h"
#include "../../fwd/fwd_rules.h"
#include "../../fwd/fwd_view.h"
#include "../../fwd/pesto_wire.h"
#include "../../guest/follow.h"
#include "../../guest/guest.h"

static struct fwd_spec spec, next;
static struct pesto_rule w[PESTO_PIF_RULES_MAX];
static struct pesto_update u;
static struct pesto_pif t;
static char errbuf[256];

static const struct fwd_rules_env env_host = { PESTO_PIF_HOST, true, true };
static const struct fwd_rules_env env_splice = { PESTO_PIF_SPLICE, true, true };

/**
 * to_wire() - parse a specification and encode it
 * @env:	pif and families
 * @arg:	specification
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 *
 * Return: number of rules in @w
 */
static int to_wire(const struct fwd_rules_env *env, const char *arg,
		   uint8_t proto)
{
	memset(&spec, 0, sizeof(spec));
	ck_assert_msg(!fwd_parse(&spec, arg, errbuf, sizeof(errbuf)), "%s: %s",
		      arg, errbuf);
	ck_assert(!fwd_finalise(&spec, env->ipv4, env->ipv6, errbuf,
				sizeof(errbuf)));
	return fwd_rules_to_wire(env, &spec, proto, w, PESTO_PIF_RULES_MAX);
}

START_TEST(test_upstream_bytes)
{
	/* Upstream's relay sends this for "-t 8080" (both families) */
	static const uint8_t want[PESTO_RULE_LEN] = {
		[48] = 0x1f, 0x90, 0x1f, 0x90, 0x1f, 0x90, 6, 1,
	};
	uint8_t buf[PESTO_RULE_LEN];

	ck_assert_int_eq(to_wire(&env_host, "8080", IPPROTO_TCP), 1);
	pesto_rule_encode(buf, &w[0]);
	ck_assert(!memcmp(buf, want, sizeof(want)));

	/* "-T 3000": any address on interface lo, as upstream writes it */
	ck_assert_int_eq(to_wire(&env_splice, "3000", IPPROTO_TCP), 1);
	ck_assert_str_eq(w[0].ifname, "lo");
	ck_assert_uint_eq(w[0].flags, PESTO_RULE_DUAL);

	/* Exclusions split, targets keep their offset */
	ck_assert_int_eq(to_wire(&env_host, "9000-9010:19000-19010,~9005",
				 IPPROTO_TCP), 2);
	ck_assert_uint_eq(w[1].first, 9006);
	ck_assert_uint_eq(w[1].to, 19006);
}
END_TEST

START_TEST(test_encode_forms)
{
	struct fwd_rules_env v4only = { PESTO_PIF_HOST, true, false };
	char buf[192];
	int n;

	/* One family: its unspecified address, no dual-stack flag */
	ck_assert_int_eq(to_wire(&v4only, "80", IPPROTO_UDP), 1);
	ck_assert_ptr_nonnull(inany_v4(&w[0].addr));
	ck_assert_uint_eq(w[0].flags, 0);
	ck_assert_uint_eq(w[0].proto, IPPROTO_UDP);

	/* all: best effort; all:TOADDR: the target's family only */
	ck_assert_int_ge(to_wire(&env_host, "all", IPPROTO_TCP), 1);
	ck_assert_uint_eq(w[0].flags, PESTO_RULE_DUAL | PESTO_RULE_WEAK);
	ck_assert_int_ge(to_wire(&env_host, "all:192.0.2.5", IPPROTO_TCP), 1);
	ck_assert_uint_eq(w[0].flags, PESTO_RULE_WEAK);
	ck_assert_ptr_nonnull(inany_v4(&w[0].addr));
	ck_assert_ptr_nonnull(inany_v4(&w[0].taddr));

	/* auto: best-effort auto-scan rules around the exclusions and the
	 * ephemeral range, as upstream shows them
	 */
	n = to_wire(&env_host, "auto,~4", IPPROTO_TCP);
	ck_assert_int_ge(n, 2);
	ck_assert_uint_eq(w[0].first, 1);
	ck_assert_uint_eq(w[0].last, 3);
	ck_assert_uint_eq(w[1].first, 5);
	ck_assert_uint_eq(w[1].flags, PESTO_RULE_DUAL | PESTO_RULE_WEAK |
				      PESTO_RULE_SCAN);
	ck_assert_uint_eq(w[n - 1].last, 65535);

	/* auto with ranges: those ports, not best effort; with an address */
	ck_assert_int_eq(to_wire(&env_host, "80-82,auto", IPPROTO_TCP), 1);
	ck_assert_uint_eq(w[0].flags, PESTO_RULE_DUAL | PESTO_RULE_SCAN);
	ck_assert_str_eq(pesto_rule_fmt(&w[0], buf, sizeof(buf)),
			 "TCP [*]:80-82  =>  80-82  (auto-scan)");
	ck_assert_int_ge(to_wire(&env_host, "::1/auto", IPPROTO_TCP), 1);
	ck_assert_str_eq(pesto_rule_fmt(&w[0], buf, sizeof(buf)),
			 "TCP [::1]:1-32767  =>  1-32767  (best effort) "
			 "(auto-scan)");

	ck_assert_int_eq(to_wire(&env_host, "192.0.2.1%eth0/22:23", IPPROTO_TCP),
			 1);
	ck_assert_str_eq(pesto_rule_fmt(&w[0], buf, sizeof(buf)),
			 "TCP [192.0.2.1]%eth0:22  =>  23 ");
}
END_TEST

/**
 * from_wire() - read @t back, for one protocol
 * @env:	pif and families
 * @proto:	protocol
 * @cur:	table in force
 *
 * Return: fwd_rules_from_wire() result
 */
static int from_wire(const struct fwd_rules_env *env, uint8_t proto,
		     const struct fwd_spec *cur)
{
	(void)cur;
	return fwd_rules_from_wire(env, &t, proto, &next, errbuf,
				   sizeof(errbuf));
}

/**
 * table_of() - put the rules in @w into @t
 * @pif:	pif
 * @n:		number of rules
 */
static void table_of(uint8_t pif, int n)
{
	t.pif = pif;
	t.count = (unsigned int)n;
	memcpy(t.rules, w, (size_t)n * sizeof(w[0]));
}

START_TEST(test_decode)
{
	static struct fwd_spec none = { .mode = FWD_NONE };
	struct fwd_rules_env v6off = { PESTO_PIF_HOST, true, false };

	/* Round trip, and the other protocol of the pif is left empty */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "22,192.0.2.1/80:8080",
					 IPPROTO_TCP));
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert_uint_eq(next.n_rules, 2);
	ck_assert(next.rules[0].bind_any);
	ck_assert_uint_eq(fwd_port_target(&next, 80), 8080);
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_UDP, &none), 0);
	ck_assert_int_eq(next.mode, FWD_NONE);

	/* SPLICE: lo stands for our loopback listeners; without it, refused */
	table_of(PESTO_PIF_SPLICE, to_wire(&env_splice, "3000", IPPROTO_TCP));
	ck_assert_int_eq(from_wire(&env_splice, IPPROTO_TCP, &none), 0);
	ck_assert(next.rules[0].bind_any && !next.rules[0].ifname[0]);
	t.rules[0].ifname[0] = '\0';
	ck_assert_int_eq(from_wire(&env_splice, IPPROTO_TCP, &none), -1);
	ck_assert(strstr(errbuf, "lo"));

	/* Families, overlaps, multicast targets */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "22", IPPROTO_TCP));
	ck_assert_int_eq(from_wire(&v6off, IPPROTO_TCP, &none), -1);
	ck_assert(strstr(errbuf, "IPv6 is disabled"));

	table_of(PESTO_PIF_HOST, to_wire(&env_host, "20-30", IPPROTO_TCP));
	t.rules[1] = t.rules[0];
	t.rules[1].first = t.rules[1].last = t.rules[1].to = 25;
	t.count = 2;
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), -1);
	ck_assert_msg(strstr(errbuf, "conflicting"), "%s", errbuf);

	/* One port at two addresses that don't overlap: fine (upstream) */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "127.0.0.1/8080:80",
					 IPPROTO_TCP));
	t.rules[1] = t.rules[0];
	inany_from_v4(&t.rules[1].addr, (struct in_addr){ htonl(0x7f000002) });
	t.rules[1].to = 81;
	t.count = 2;
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert_uint_eq(next.n_rules, 2);
	ck_assert(fwd_port_shared(&next, 8080));
	inany_from_v4(&t.rules[1].addr, (struct in_addr){ 0 });
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), -1);
	ck_assert_msg(strstr(errbuf, "conflicting"), "%s", errbuf);

	table_of(PESTO_PIF_HOST, to_wire(&env_host, "0.0.0.0/22:192.0.2.9",
					 IPPROTO_TCP));
	inany_from_v4(&t.rules[0].taddr,
		      (struct in_addr){ htonl(0xe00000fbU) });
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), -1);
	ck_assert(strstr(errbuf, "multicast"));

	/* A target of a disabled family (fuzz_pesto found the table it made
	 * didn't read back): 0.0.0.0 to an IPv6 address, IPv6 off
	 */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "0.0.0.0/22:192.0.2.9",
					 IPPROTO_TCP));
	inet_pton(AF_INET6, "2001:db8::9", &t.rules[0].taddr.a6);
	ck_assert_int_eq(from_wire(&v6off, IPPROTO_TCP, &none), -1);
	ck_assert(strstr(errbuf, "target IPv6 address"));
}
END_TEST

START_TEST(test_auto)
{
	static struct fwd_spec none = { .mode = FWD_NONE };
	unsigned int i;

	/* "auto" alone read back: the same rules, followed */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "auto", IPPROTO_TCP));
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert_int_eq(next.mode, FWD_AUTO);
	ck_assert_uint_eq(next.n_rules, spec.n_rules);
	for (i = 0; i < next.n_rules; i++)
		ck_assert(next.rules[i].scan && next.rules[i].weak);

	/* Started at run time, changed, mixed with fixed rules */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "8000-8010,auto",
					 IPPROTO_TCP));
	t.rules[1] = t.rules[0];
	t.rules[1].first = t.rules[1].last = t.rules[1].to = 22;
	t.rules[1].flags &= (uint8_t)~PESTO_RULE_SCAN;
	t.count = 2;
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert_int_eq(next.mode, FWD_AUTO);
	ck_assert(fwd_port_rule(&next, 8005)->scan);
	ck_assert(!fwd_port_rule(&next, 22)->scan);
	ck_assert(!fwd_port_rule(&next, 8011));

	/* An address */
	table_of(PESTO_PIF_HOST, to_wire(&env_host, "::1/80,auto",
					 IPPROTO_TCP));
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert(!fwd_port_rule(&next, 80)->bind_any);

	/* Removed: none */
	t.count = 0;
	ck_assert_int_eq(from_wire(&env_host, IPPROTO_TCP, &none), 0);
	ck_assert_int_eq(next.mode, FWD_NONE);
}
END_TEST

/**
 * update_of() - a client's update: HOST with the rules in @w
 * @buf:	output
 * @n:		number of rules
 *
 * Return: length
 */
static size_t update_of(uint8_t *buf, int n)
{
	size_t len = 0;
	int i;

	buf[len++] = PESTO_PIF_HOST;
	buf[len++] = 0;
	buf[len++] = 0;
	buf[len++] = 0;
	buf[len++] = (uint8_t)n;
	for (i = 0; i < n; i++, len += PESTO_RULE_LEN)
		pesto_rule_encode(buf + len, &w[i]);
	buf[len++] = PESTO_PIF_NONE;
	return len;
}

START_TEST(test_update_parser)
{
	uint8_t buf[1024], hello[PESTO_HELLO_LEN];
	size_t len, i;
	int ret = 0;

	pesto_hello_encode(hello);
	ck_assert_int_eq(pesto_hello_check(hello, errbuf, sizeof(errbuf)), 0);
	hello[11] = 3;
	ck_assert_int_eq(pesto_hello_check(hello, errbuf, sizeof(errbuf)), -1);

	/* Whole, and one byte at a time */
	len = update_of(buf, to_wire(&env_host, "22,80-90", IPPROTO_TCP));
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	ck_assert_int_eq(pesto_update_feed(&u, buf, len), 1);
	ck_assert_uint_eq(u.n, 1);
	ck_assert_uint_eq(u.tables[0].count, 2);
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	for (i = 0; i < len; i++) {
		ret = pesto_update_feed(&u, buf + i, 1);
		ck_assert_int_eq(ret, i + 1 < len ? 0 : 1);
	}

	/* Trailing data, a pif not there, given twice, bad rules */
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	buf[len] = 0;
	ck_assert_int_eq(pesto_update_feed(&u, buf, len + 1), -1);
	ck_assert(strstr(u.err, "after the end"));
	ck_assert_int_eq(pesto_update_feed(&u, buf, 1), -1);

	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	buf[0] = PESTO_PIF_SPLICE;
	ck_assert_int_eq(pesto_update_feed(&u, buf, len), -1);
	ck_assert(strstr(u.err, "doesn't have"));
	buf[0] = PESTO_PIF_HOST;

	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	memmove(buf + len - 1, buf, len);
	ck_assert_int_eq(pesto_update_feed(&u, buf, 2 * len - 1), -1);
	ck_assert(strstr(u.err, "twice"));

	len = update_of(buf, to_wire(&env_host, "22", IPPROTO_TCP));
	buf[5 + 54] = 1;				/* protocol */
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	ck_assert_int_eq(pesto_update_feed(&u, buf, len), -1);
	ck_assert(strstr(u.err, "protocol"));
	buf[5 + 54] = IPPROTO_TCP;
	buf[5 + 47] = 'x';				/* ifname end */
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	ck_assert_int_eq(pesto_update_feed(&u, buf, len), -1);
	ck_assert(strstr(u.err, "terminated"));

	/* Too many rules */
	buf[1] = buf[2] = buf[3] = buf[4] = 0xff;
	pesto_update_init(&u, 1U << PESTO_PIF_HOST);
	ck_assert_int_eq(pesto_update_feed(&u, buf, 5), -1);
	ck_assert(strstr(u.err, "too many"));
}
END_TEST

START_TEST(test_reply)
{
	uint8_t buf[PESTO_REPLY_HDR_LEN + PESTO_REPLY_MSG_MAX];
	uint32_t status, len;
	size_t n;

	n = pesto_reply_encode(buf, sizeof(buf), 98, "port in use");
	ck_assert_uint_eq(n, PESTO_REPLY_HDR_LEN + strlen("port in use"));
	ck_assert_int_eq(pesto_reply_decode(buf, &status, &len), 0);
	ck_assert_uint_eq(status, 98);
	ck_assert_uint_eq(len, strlen("port in use"));
	buf[0] = 'x';
	ck_assert_int_eq(pesto_reply_decode(buf, &status, &len), -1);
}
END_TEST

START_TEST(test_view_frame)
{
	static uint8_t buf[PESTO_VIEW_HDR_LEN + PESTO_VIEW_MAX + 16];
	static char text[PESTO_VIEW_MAX + 2];
	uint32_t len;
	size_t n;

	n = pesto_view_encode(buf, sizeof(buf), "a: b\n");
	ck_assert_uint_eq(n, PESTO_VIEW_HDR_LEN + 5);
	ck_assert(!memcmp(buf, "basil:h", PESTO_MAGIC_LEN));
	ck_assert_int_eq(pesto_view_decode(buf, &len), 0);
	ck_assert_uint_eq(len, 5);
	ck_assert(!memcmp(buf + PESTO_VIEW_HDR_LEN, "a: b\n", 5));

	/* Longer text is cut at the limit; a longer length is refused */
	memset(text, 'x', sizeof(text) - 1);
	n = pesto_view_encode(buf, sizeof(buf), text);
	ck_assert_uint_eq(n, PESTO_VIEW_HDR_LEN + PESTO_VIEW_MAX);
	ck_assert_int_eq(pesto_view_decode(buf, &len), 0);
	ck_assert_uint_eq(len, PESTO_VIEW_MAX);
	buf[PESTO_MAGIC_LEN + 3]++;
	ck_assert_int_eq(pesto_view_decode(buf, &len), -1);

	/* Not the block: a reply's magic */
	memcpy(buf, PESTO_REPLY_MAGIC, PESTO_MAGIC_LEN);
	ck_assert_int_eq(pesto_view_decode(buf, &len), -1);
}
END_TEST

START_TEST(test_view_text)
{
	static struct ctx c;
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;
	char text[PESTO_VIEW_MAX + 1];
	size_t n;

	conf_defaults(&c, MODE_PASTA);
	inet_pton(AF_INET, "192.0.2.2", &c.ip4.addr);
	inet_pton(AF_INET, "192.0.2.1", &c.ip4.gw);
	c.ip4.prefix_len = 24;
	snprintf(c.ip4.ifname, sizeof(c.ip4.ifname), "veth0");
	inet_pton(AF_INET6, "2001:db8::2", &c.ip6.addr);
	c.ip6.prefix_len = 64;
	c.ip4.dns_count = 1;
	c.ip4.dns[0] = c.ip4.gw;
	c.search_count = 1;
	snprintf(c.search[0], sizeof(c.search[0]), "example.org");
	guest_init(&c);
	follow_init(&c);

	/* The host moved: the text shows where it is now */
	ip4 = c.ip4;
	ip6 = c.ip6;
	inet_pton(AF_INET, "198.51.100.2", &ip4.addr);
	inet_pton(AF_INET, "198.51.100.1", &ip4.gw);
	ck_assert(follow_apply(&c, &ip4, &ip6));

	n = fwd_view_text(&c, text, sizeof(text));
	ck_assert_uint_eq(n, strlen(text));
	ck_assert_msg(strstr(text, "    address: 198.51.100.2/24 (host)\n"),
		      "%s", text);
	ck_assert(!strstr(text, "192.0.2.2"));
	ck_assert(strstr(text, "    gateway: 198.51.100.1 (host)\n"));
	ck_assert(strstr(text, "IPv4: template interface veth0 (host)\n"));
	ck_assert(strstr(text, "    address: 2001:db8::2/64 (host)\n"));
	ck_assert(strstr(text, "    DNS: 192.0.2.1 (host)\n"));
	ck_assert(strstr(text, "MTU: 65520\n"));
	ck_assert(strstr(text, "DNS search list: example.org (host)\n"));
	/* No watch was opened here */
	ck_assert(!strncmp(text, "Following the host: off", 23));
	ck_assert_uint_eq(text[n - 1], '\n');

	/* A short buffer: cut, terminated */
	n = fwd_view_text(&c, text, 10);
	ck_assert_uint_eq(n, 9);
	ck_assert_uint_eq(strlen(text), 9);
}
END_TEST

/**
 * pesto_suite() - build the suite
 *
 * Return: suite
 */
static Suite *pesto_suite(void)
{
	Suite *s = suite_create("pesto");
	TCase *tc = tcase_create("protocol");

	tcase_add_test(tc, test_upstream_bytes);
	tcase_add_test(tc, test_encode_forms);
	tcase_add_test(tc, test_decode);
	tcase_add_test(tc, test_auto);
	tcase_add_test(tc, test_update_parser);
	tcase_add_test(tc, test_reply);
	tcase_add_test(tc, test_view_frame);
	tcase_add_test(tc, test_view_text);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the pesto suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(pesto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
