// SPDX-License-Identifier: GPL-2.0-or-later
/* test_follow.c - unit tests for the settings that follow the host
 *		   (guest/follow.c)
 *
 * Theory of operation: a context is filled by hand (no host involved),
 * copied by follow_init(), and settings "derived again" are handed to
 * follow_apply(): the getters must give the context's own blocks before
 * follow_init(), the copy after it, the new settings after a change; an
 * unchanged derivation must change nothing and call no observer; a change
 * must call each observer once with the old settings, and move the
 * guest's learnt address when it was the old one. pasta --config-net must
 * not learn the old address again from the guest's frames, other modes
 * must.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/wait.h>

#include "../../conf/conf.h"
#include "../../conf/conf_internal.h"
#include "../../conf/ctx.h"
#include "../../guest/follow.h"
#include "../../guest/guest.h"

static struct ctx c, other;
static unsigned int obs_calls;
static struct ip4_ctx obs_old4;

/**
 * observer() - remember what an observer is told
 * @cc:		execution context
 * @old4:	IPv4 settings before
 * @old6:	IPv6 settings before
 */
static void observer(const struct ctx *cc, const struct ip4_ctx *old4,
		     const struct ip6_ctx *old6)
{
	(void)cc;
	(void)old6;
	obs_calls++;
	obs_old4 = *old4;
}

/**
 * setup() - a context at 192.0.2.2/24 via 192.0.2.1, 2001:db8::2/64
 * @mode:	mode
 * @conf_ns:	--config-net
 */
static void setup(enum passt_mode mode, bool conf_ns)
{
	memset(&c, 0, sizeof(c));
	c.mode = mode;
	c.pasta_conf_ns = conf_ns;
	c.ip4.enabled = c.ip6.enabled = true;
	inet_pton(AF_INET, "192.0.2.2", &c.ip4.addr);
	inet_pton(AF_INET, "192.0.2.1", &c.ip4.gw);
	c.ip4.prefix_len = 24;
	inet_pton(AF_INET6, "2001:db8::2", &c.ip6.addr);
	inet_pton(AF_INET6, "2001:db8::1", &c.ip6.gw);
	c.ip6.prefix_len = 64;
	obs_calls = 0;
	guest_init(&c);
}

/**
 * moved() - the settings after a move to 198.51.100.2/24 via .1
 * @ip4:	set to the IPv4 settings
 * @ip6:	set to the IPv6 settings (unchanged)
 */
static void moved(struct ip4_ctx *ip4, struct ip6_ctx *ip6)
{
	*ip4 = c.ip4;
	*ip6 = c.ip6;
	inet_pton(AF_INET, "198.51.100.2", &ip4->addr);
	inet_pton(AF_INET, "198.51.100.1", &ip4->gw);
}

START_TEST(test_getters)
{
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;

	setup(MODE_PASTA, true);
	follow_init(&other);
	ck_assert_ptr_eq(follow_ip4(&c), &c.ip4);
	ck_assert_ptr_eq(follow_ip6(&c), &c.ip6);

	follow_init(&c);
	ck_assert_ptr_ne(follow_ip4(&c), &c.ip4);
	ck_assert_uint_eq(follow_ip4(&c)->addr.s_addr, c.ip4.addr.s_addr);

	/* Another context is not the one followed */
	moved(&ip4, &ip6);
	follow_init(&c);
	ck_assert(!follow_apply(&other, &ip4, &ip6));
	ck_assert_uint_eq(follow_ip4(&c)->addr.s_addr, c.ip4.addr.s_addr);
}
END_TEST

START_TEST(test_unchanged)
{
	setup(MODE_PASTA, true);
	follow_init(&c);
	ck_assert_int_eq(follow_register(observer), 0);
	ck_assert(!follow_apply(&c, &c.ip4, &c.ip6));
	ck_assert_uint_eq(obs_calls, 0);
}
END_TEST

START_TEST(test_change)
{
	struct in_addr old;
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;

	setup(MODE_PASTA, true);
	old = c.ip4.addr;
	follow_init(&c);
	ck_assert_int_eq(follow_register(observer), 0);
	moved(&ip4, &ip6);

	ck_assert(follow_apply(&c, &ip4, &ip6));
	ck_assert_uint_eq(obs_calls, 1);
	ck_assert_uint_eq(obs_old4.addr.s_addr, old.s_addr);
	ck_assert_uint_eq(follow_ip4(&c)->addr.s_addr, ip4.addr.s_addr);
	ck_assert_uint_eq(follow_ip4(&c)->gw.s_addr, ip4.gw.s_addr);
	ck_assert_uint_eq(guest_addr4().s_addr, ip4.addr.s_addr);
	/* The context itself is never written */
	ck_assert_uint_eq(c.ip4.addr.s_addr, old.s_addr);

	/* Again: nothing changes, nobody is told */
	ck_assert(!follow_apply(&c, &ip4, &ip6));
	ck_assert_uint_eq(obs_calls, 1);
}
END_TEST

/**
 * ip4_str() - an IPv4 address as text, for assertions
 * @a:		address
 *
 * Return: static buffer
 */
static const char *ip4_str(struct in_addr a)
{
	static char buf[INET_ADDRSTRLEN];

	return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

START_TEST(test_resolv)
{
	char text[] = "nameserver 127.0.0.53\nnameserver 198.51.100.53\n"
		      "search new.example\n";
	char empty[] = "# being rewritten\n";
	char search[SEARCH_MAX][SEARCH_LEN_MAX + 1] = { "old.example" };
	struct ip4_ctx n4;
	struct ip6_ctx n6;
	int n = 1;

	/* In force: 192.0.2.53, the gateway mapped to the host's loopback */
	setup(MODE_PASST, false);
	inet_pton(AF_INET, "192.0.2.1", &c.ip4.map_host_lo);
	inet_pton(AF_INET, "192.0.2.53", &c.ip4.dns[0]);
	c.ip4.dns_count = 1;
	c.ip4.dns_host = c.ip4.dns[0];
	memcpy(c.search[0], "old.example", sizeof("old.example"));
	c.search_count = 1;
	follow_init(&c);
	ck_assert_int_eq(follow_register(observer), 0);
	n4 = *follow_ip4(&c);
	n6 = *follow_ip6(&c);

	/* Start-up's rules: the loopback resolver behind the mapped address */
	conf_resolv_rederive(&c, text, &n4, &n6, search, &n);
	ck_assert_int_eq(n4.dns_count, 2);
	ck_assert_str_eq(ip4_str(n4.dns[0]), "192.0.2.1");
	ck_assert_str_eq(ip4_str(n4.dns[1]), "198.51.100.53");
	ck_assert_str_eq(ip4_str(n4.dns_match), "192.0.2.1");
	ck_assert_str_eq(ip4_str(n4.dns_host), "127.0.0.53");
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(search[0], "new.example");

	/* In force, observers told once, the search list read through us */
	obs_calls = 0;
	follow_search_set(&c, (const char (*)[SEARCH_LEN_MAX + 1])search, n);
	ck_assert(follow_apply(&c, &n4, &n6));
	ck_assert_uint_eq(obs_calls, 1);
	ck_assert_str_eq(ip4_str(follow_ip4(&c)->dns_host), "127.0.0.53");
	ck_assert_int_eq(follow_search_count(&c), 1);
	ck_assert_str_eq(follow_search_name(&c, 0), "new.example");
	ck_assert(!follow_search_changed());

	/* No nameserver line: the servers stay; no search line: none */
	conf_resolv_rederive(&c, empty, &n4, &n6, search, &n);
	ck_assert_int_eq(n4.dns_count, 2);
	ck_assert_str_eq(ip4_str(n4.dns_host), "127.0.0.53");
	ck_assert_int_eq(n, 0);

	/* Only the search list changed: still a change */
	follow_search_set(&c, (const char (*)[SEARCH_LEN_MAX + 1])search, n);
	ck_assert(follow_apply(&c, &n4, &n6));
	ck_assert_uint_eq(obs_calls, 2);
	ck_assert_int_eq(follow_search_count(&c), 0);
	ck_assert(!follow_apply(&c, &n4, &n6));
}
END_TEST

START_TEST(test_retired)
{
	struct in_addr old, other;
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;

	inet_pton(AF_INET, "198.51.100.9", &other);

	/* pasta --config-net: the old address isn't learnt again */
	setup(MODE_PASTA, true);
	old = c.ip4.addr;
	follow_init(&c);
	moved(&ip4, &ip6);
	ck_assert(follow_apply(&c, &ip4, &ip6));
	guest_addr4_set(old);
	ck_assert_uint_eq(guest_addr4().s_addr, ip4.addr.s_addr);
	guest_addr4_set(other);
	ck_assert_uint_eq(guest_addr4().s_addr, other.s_addr);

	/* passt: the guest keeps its address until it renews: learnt */
	setup(MODE_PASST, false);
	follow_init(&c);
	moved(&ip4, &ip6);
	ck_assert(follow_apply(&c, &ip4, &ip6));
	guest_addr4_set(old);
	ck_assert_uint_eq(guest_addr4().s_addr, old.s_addr);
}
END_TEST

#define ARGV(...)	((char *[]){ __VA_ARGS__, NULL })

/**
 * lease_parse() - parse a command line into c, with the given settings
 * @argv:	NULL-terminated arguments
 * @g:		explicit settings, set
 */
static void lease_parse(char **argv, struct conf_given *g)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	conf_defaults(&c, MODE_PASST);
	conf_parse(&c, argc, argv, g);
}

/**
 * lease_refused() - does parsing exit with status 1 (in a child)?
 * @argv:	NULL-terminated arguments
 *
 * Return: true if it does
 */
static bool lease_refused(char **argv)
{
	struct conf_given g;
	int st;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(43);
		lease_parse(argv, &g);
		_exit(42);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

START_TEST(test_dhcp_lease)
{
	struct conf_given g;

	lease_parse(ARGV("passt"), &g);
	ck_assert_uint_eq(c.dhcp_lease, CONF_DHCP_LEASE_DEFAULT);
	ck_assert(!g.dhcp_lease);
	lease_parse(ARGV("passt", "--dhcp-lease", "3600"), &g);
	ck_assert_uint_eq(c.dhcp_lease, 3600);
	ck_assert(g.dhcp_lease);
	lease_parse(ARGV("passt", "--dhcp-lease", "infinite"), &g);
	ck_assert_uint_eq(c.dhcp_lease, 0);
	lease_parse(ARGV("passt", "--no-follow-host"), &g);
	ck_assert(c.no_follow_host);

	ck_assert(lease_refused(ARGV("passt", "--dhcp-lease", "30")));
	ck_assert(lease_refused(ARGV("passt", "--dhcp-lease", "soon")));
	ck_assert(!lease_refused(ARGV("passt", "--dhcp-lease", "60")));
}
END_TEST

/**
 * follow_suite() - the suite of guest/follow.c
 *
 * Return: the suite
 */
static Suite *follow_suite(void)
{
	Suite *s = suite_create("follow");
	TCase *tc = tcase_create("follow");

	tcase_add_test(tc, test_getters);
	tcase_add_test(tc, test_unchanged);
	tcase_add_test(tc, test_change);
	tcase_add_test(tc, test_retired);
	tcase_add_test(tc, test_dhcp_lease);
	tcase_add_test(tc, test_resolv);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the follow suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(follow_suite());
	int failed;

	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
