// SPDX-License-Identifier: GPL-2.0-or-later
/* test_fwd.c - unit tests for port forwarding specifications (conf/fwd_parse.c)
 *
 * Theory of operation: every form of the -t/-u/-T/-U grammar is parsed
 * into a fresh specification and finalised, then checked through the
 * public lookups (forwarded or not, target port, rule fields, the rule of
 * a port at an address). Error cases check that parsing fails, that the
 * message says what is wrong, and that a failed call leaves the
 * specification as it was. Which arguments combine is upstream's rule:
 * each argument stands alone, and rules conflict when their ports and
 * addresses overlap.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "../../conf/fwd_spec.h"

static struct fwd_spec spec;
static char errbuf[256];

/**
 * reset() - start from an empty specification
 */
static void reset(void)
{
	memset(&spec, 0, sizeof(spec));
	errbuf[0] = '\0';
}

/**
 * parse() - parse one argument into the current specification
 * @arg:	option argument
 *
 * Return: fwd_parse() result
 */
static int parse(const char *arg)
{
	return fwd_parse(&spec, arg, errbuf, sizeof(errbuf));
}

/**
 * parse_ok() - parse arguments that must all succeed, then finalise
 * @args:	NULL-terminated list of option arguments
 */
static void parse_ok(const char *const *args)
{
	reset();
	for (; *args; args++)
		ck_assert_msg(!parse(*args), "'%s' failed: %s", *args, errbuf);
	fwd_finalise(&spec, true, true, NULL, 0);
}

#define OK(...)		parse_ok((const char *const[]){ __VA_ARGS__, NULL })

/**
 * bad() - check that an argument is refused with a message
 * @arg:	option argument
 * @needle:	text the message must contain, NULL to skip
 */
static void bad(const char *arg, const char *needle)
{
	reset();
	ck_assert_msg(parse(arg) == -1, "'%s' was accepted", arg);
	ck_assert_msg(errbuf[0], "no message for '%s'", arg);
	if (needle)
		ck_assert_msg(strstr(errbuf, needle),
			      "message for '%s' lacks '%s': %s", arg, needle,
			      errbuf);
}

/**
 * ephemeral_start() - first ephemeral port, as fwd_parse.c should find it
 *
 * Return: port
 */
static unsigned int ephemeral_start(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	unsigned int a = 32768, b;

	if (f) {
		if (fscanf(f, "%u %u", &a, &b) != 2)
			a = 32768;
		fclose(f);
	}
	return a;
}

/**
 * ephemeral_end() - last ephemeral port
 *
 * Return: port
 */
static unsigned int ephemeral_end(void)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
	unsigned int a, b = 65535;

	if (f) {
		if (fscanf(f, "%u %u", &a, &b) != 2)
			b = 65535;
		fclose(f);
	}
	return b;
}

/**
 * forwarded() - shorthand for fwd_port_is_forwarded()
 * @port:	port
 *
 * Return: true if forwarded
 */
static bool forwarded(unsigned int port)
{
	return fwd_port_is_forwarded(&spec, (uint16_t)port);
}

/**
 * v4_is() - check an IPv4-mapped address
 * @a:		address
 * @want:	expected, dotted
 */
static void v4_is(const union inany_addr *a, const char *want)
{
	char buf[INET_ADDRSTRLEN];

	ck_assert_ptr_nonnull(inany_v4(a));
	inet_ntop(AF_INET, inany_v4(a), buf, sizeof(buf));
	ck_assert_str_eq(buf, want);
}

/**
 * v6_is() - check an IPv6 address
 * @a:		address
 * @want:	expected, text
 */
static void v6_is(const union inany_addr *a, const char *want)
{
	char buf[INET6_ADDRSTRLEN];

	ck_assert_ptr_null(inany_v4(a));
	inet_ntop(AF_INET6, &a->a6, buf, sizeof(buf));
	ck_assert_str_eq(buf, want);
}

/**
 * bound6() - check that a port's rule binds to an IPv6 address
 * @port:	port
 * @addr:	the address, text
 * @ifname:	the interface it binds to, "" for none
 */
static void bound6(unsigned int port, const char *addr, const char *ifname)
{
	const struct fwd_rule *r = fwd_port_rule(&spec, (uint16_t)port);

	ck_assert_ptr_nonnull(r);
	ck_assert(!r->bind_any && !r->bind_v4);
	v6_is(&r->bind_addr, addr);
	ck_assert_str_eq(r->ifname, ifname);
}

START_TEST(test_keywords)
{
	OK("none");
	ck_assert_int_eq(spec.mode, FWD_NONE);
	ck_assert_uint_eq(spec.n_rules, 0);
	ck_assert(!forwarded(22));

	/* "auto" alone: every non-ephemeral port, followed (as "all") */
	OK("auto");
	ck_assert_int_eq(spec.mode, FWD_AUTO);
	ck_assert(forwarded(80) && fwd_port_rule(&spec, 80)->scan);
	ck_assert(fwd_port_rule(&spec, 80)->weak);
	ck_assert(fwd_port_rule(&spec, 80)->bind_any);
	ck_assert_uint_eq(spec.rules[0].first, 1);

	OK("none", "none");
	ck_assert_int_eq(spec.mode, FWD_NONE);

	/* As upstream: "auto" twice takes every port twice */
	reset();
	ck_assert_int_eq(parse("auto"), 0);
	ck_assert_int_eq(parse("auto"), -1);
	ck_assert_msg(strstr(errbuf, "conflicting"), "%s", errbuf);
}
END_TEST

START_TEST(test_auto_lists)
{
	unsigned int eph = ephemeral_start(), eph_end = ephemeral_end();
	const struct fwd_rule *r;

	/* Ranges: those ports only, not best effort (upstream's
	 * "8000-8010,auto")
	 */
	OK("80-82,auto");
	ck_assert_int_eq(spec.mode, FWD_AUTO);
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert(!forwarded(79) && forwarded(80) && forwarded(82));
	ck_assert(!forwarded(83));
	r = fwd_port_rule(&spec, 81);
	ck_assert(r->scan && !r->weak && r->bind_any);

	OK("auto,80-82");
	ck_assert(forwarded(81) && fwd_port_rule(&spec, 81)->scan);
	OK("80,auto,90");
	ck_assert(fwd_port_rule(&spec, 80)->scan);
	ck_assert(fwd_port_rule(&spec, 90)->scan && !forwarded(85));

	/* Exclusions, with ranges and without */
	OK("80-90,~85,auto");
	ck_assert(forwarded(84) && !forwarded(85) && forwarded(86));
	ck_assert_uint_eq(spec.n_rules, 2);
	OK("auto,~80");
	ck_assert(forwarded(79) && !forwarded(80) && forwarded(81));
	ck_assert(!forwarded(eph) && forwarded(eph - 1));
	ck_assert(fwd_port_rule(&spec, 81)->scan);
	if (eph_end < 65535)
		ck_assert(forwarded(eph_end + 1) && forwarded(65535));
	OK("~80,auto");
	ck_assert(!forwarded(80) && fwd_port_rule(&spec, 81)->scan);

	/* An address and an interface */
	OK("::1/auto");
	r = fwd_port_rule(&spec, 8080);
	ck_assert(r && r->scan && r->weak && !r->bind_any);
	v6_is(&r->bind_addr, "::1");
	OK("%eth0/auto");
	ck_assert_str_eq(fwd_port_rule(&spec, 22)->ifname, "eth0");
	OK("192.0.2.1/8000-8001,auto");
	r = fwd_port_rule(&spec, 8001);
	ck_assert(r->scan && !r->bind_any && r->bind_v4);
	OK("2001:db8::1%eth0/80,auto");
	ck_assert_str_eq(fwd_port_rule(&spec, 80)->ifname, "eth0");

	/* Targets: mapped ports, target address; "all" with auto */
	OK("8080:80,auto");
	ck_assert_uint_eq(fwd_port_target(&spec, 8080), 80);
	ck_assert(fwd_port_rule(&spec, 8080)->scan);
	OK("all,auto");
	ck_assert(fwd_port_rule(&spec, 1)->scan);
	OK("127.0.0.1/all:127.0.0.2,auto");
	r = fwd_port_rule(&spec, 22);
	ck_assert(r->scan && r->weak);
	v4_is(&r->to_addr, "127.0.0.2");

	/* Fixed and followed rules in one table, from two options */
	OK("80-82,auto", "90");
	ck_assert(fwd_port_rule(&spec, 80)->scan);
	ck_assert(!fwd_port_rule(&spec, 90)->scan);
	ck_assert_int_eq(spec.mode, FWD_AUTO);

	/* Without "auto", nothing is followed */
	OK("80-82");
	ck_assert(!fwd_port_rule(&spec, 80)->scan);
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	ck_assert(!fwd_spec_scans(&spec));
	reset();
	ck_assert_int_eq(parse("22,auto"), 0);
	ck_assert(fwd_spec_scans(&spec));
	reset();
	ck_assert_int_eq(parse("auto"), 0);
	ck_assert(fwd_spec_scans(&spec));

	bad("80,auto,none", "alone");
	bad("auto:80", NULL);
}
END_TEST

START_TEST(test_all)
{
	unsigned int eph = ephemeral_start(), eph_end = ephemeral_end();

	/* Non-ephemeral ports: below the range, and above it (upstream) */
	OK("all");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	ck_assert_uint_eq(spec.n_rules, eph_end < 65535 ? 2 : 1);
	ck_assert(spec.rules[0].bind_any);
	ck_assert(forwarded(1));
	ck_assert(forwarded(eph - 1));
	ck_assert(!forwarded(eph));
	ck_assert(!forwarded(eph_end));
	ck_assert(forwarded(65535) == (eph_end < 65535));
	ck_assert(!forwarded(0));
	ck_assert(!spec.rules[0].scan);
	ck_assert_uint_eq(fwd_port_target(&spec, 443), 443);
	ck_assert(spec.rules[0].weak);

	/* all with exclusions: split around them, each piece best effort */
	OK("all,~80-81");
	ck_assert_uint_eq(spec.n_rules, eph_end < 65535 ? 3 : 2);
	ck_assert(forwarded(79) && !forwarded(80) && !forwarded(81));
	ck_assert(forwarded(82) && forwarded(eph - 1) && !forwarded(eph));
	ck_assert(spec.rules[0].weak && spec.rules[1].weak);
	ck_assert_uint_eq(spec.rules[1].first, 82);
	ck_assert_uint_eq(fwd_port_target(&spec, 82), 82);

	/* Twice is a conflict, as upstream's */
	reset();
	ck_assert_int_eq(parse("all"), 0);
	ck_assert_int_eq(parse("all"), -1);
	ck_assert(strstr(errbuf, "conflicting"));
}
END_TEST

START_TEST(test_all_addresses)
{
	unsigned int eph = ephemeral_start();
	const struct fwd_rule *r;

	/* all:TOADDR: every port, to the same port at TOADDR */
	OK("all:192.0.2.5");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	r = fwd_port_rule(&spec, 8080);
	ck_assert(r && r->bind_any && r->weak);
	v4_is(&r->to_addr, "192.0.2.5");
	ck_assert_uint_eq(fwd_port_target(&spec, 8080), 8080);
	ck_assert(forwarded(eph - 1) && !forwarded(eph));
	/* An IPv4 target: IPv4 connections only */
	ck_assert_uint_eq(fwd_rule_families(r), FWD_V4);

	OK("all:[2001:db8::5]");
	v6_is(&fwd_port_rule(&spec, 22)->to_addr, "2001:db8::5");
	OK("all:::1");
	v6_is(&fwd_port_rule(&spec, 22)->to_addr, "::1");

	/* ADDR[%IF]/all: every port, bound to ADDR (and IF) */
	OK("::1/all");
	r = fwd_port_rule(&spec, 1);
	ck_assert(r && !r->bind_any && !r->bind_v4 && r->weak);
	ck_assert_uint_eq(fwd_rule_families(r), FWD_V6);
	v6_is(&r->bind_addr, "::1");
	ck_assert(inany_is_unspecified(&r->to_addr));

	OK("192.0.2.1%eth0/all");
	r = fwd_port_rule(&spec, 443);
	ck_assert(!r->bind_any && r->bind_v4);
	v4_is(&r->bind_addr, "192.0.2.1");
	ck_assert_str_eq(r->ifname, "eth0");

	OK("%eth0/all");
	r = fwd_port_rule(&spec, 443);
	ck_assert(r->bind_any);
	ck_assert_str_eq(r->ifname, "eth0");

	OK("*/all");
	ck_assert(fwd_port_rule(&spec, 443)->bind_any);
	ck_assert_uint_eq(fwd_rule_families(fwd_port_rule(&spec, 443)),
			  FWD_V4 | FWD_V6);

	/* Both, and exclusions: upstream's 127.0.0.6/all:192.0.2.6 */
	OK("127.0.0.6/all:192.0.2.6,~22");
	r = fwd_port_rule(&spec, 80);
	v4_is(&r->bind_addr, "127.0.0.6");
	v4_is(&r->to_addr, "192.0.2.6");
	ck_assert(!forwarded(22) && forwarded(21) && forwarded(23));
	ck_assert_uint_eq(spec.n_rules, ephemeral_end() < 65535 ? 3 : 2);

	/* Exclusions only, with an address: all of that address */
	OK("192.0.2.1/~25");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	v4_is(&fwd_port_rule(&spec, 24)->bind_addr, "192.0.2.1");
	ck_assert(!forwarded(25));

	bad("all:", "target address");
	bad("all:1.2.3", "invalid target address");
	bad("all:80", "invalid target address");
	bad("all:0.0.0.0", "invalid target address");
	bad("all:192.0.2.1/80", NULL);
	bad("allx", NULL);

	/* "all" twice conflicts, unless at addresses that don't overlap */
	reset();
	ck_assert_int_eq(parse("~22"), 0);
	ck_assert_int_eq(parse("192.0.2.1/~23"), -1);
	ck_assert(strstr(errbuf, "conflicting"));
	OK("127.0.0.1/all", "::1/all");
	ck_assert(fwd_port_shared(&spec, 22));
	ck_assert(!forwarded(eph));
}
END_TEST

START_TEST(test_prefix_for_list)
{
	const struct fwd_rule *r;

	/* A bind part at the start applies to the whole list (upstream) */
	OK("192.0.2.1/22,80-81");
	v4_is(&fwd_port_rule(&spec, 22)->bind_addr, "192.0.2.1");
	r = fwd_port_rule(&spec, 81);
	ck_assert(!r->bind_any);
	v4_is(&r->bind_addr, "192.0.2.1");

	OK("%eth0/22,80");
	ck_assert_str_eq(fwd_port_rule(&spec, 80)->ifname, "eth0");

	/* An item may still give its own (extension) */
	OK("192.0.2.1/22,::1/80");
	v6_is(&fwd_port_rule(&spec, 80)->bind_addr, "::1");
	OK("192.0.2.1/22,*/80");
	ck_assert(fwd_port_rule(&spec, 80)->bind_any);

	OK("*%eth1/22");
	r = fwd_port_rule(&spec, 22);
	ck_assert(r->bind_any);
	ck_assert_str_eq(r->ifname, "eth1");
}
END_TEST

START_TEST(test_target_address_only)
{
	const struct fwd_rule *r;

	/* FIRST[-LAST]:TOADDR: same ports at TOADDR */
	OK("5000-5001:192.0.2.5");
	r = fwd_port_rule(&spec, 5001);
	v4_is(&r->to_addr, "192.0.2.5");
	ck_assert_uint_eq(fwd_port_target(&spec, 5001), 5001);

	OK("80:[2001:db8::7]");
	v6_is(&fwd_port_rule(&spec, 80)->to_addr, "2001:db8::7");
	ck_assert_uint_eq(fwd_port_target(&spec, 80), 80);

	OK("80:::1");
	v6_is(&fwd_port_rule(&spec, 80)->to_addr, "::1");

	/* upstream's 0.0.0.0/5000:192.0.2.5/6000 */
	OK("0.0.0.0/5000:192.0.2.5/6000");
	r = fwd_port_rule(&spec, 5000);
	ck_assert(!r->bind_any && r->bind_v4);
	ck_assert(inany_is_unspecified(&r->bind_addr));
	v4_is(&r->to_addr, "192.0.2.5");
	ck_assert_uint_eq(fwd_port_target(&spec, 5000), 6000);

	bad("80:192.0.2", "expected a port range or an address");
	bad("80:[::1", NULL);
}
END_TEST

START_TEST(test_ranges_with_exclusions)
{
	/* first-last:[toaddr/]tofirst-tolast with exclusions: split, with
	 * each piece keeping its offset
	 */
	OK("9000-9010:192.0.2.9/19000-19010,~9005");
	ck_assert_uint_eq(spec.n_rules, 2);
	ck_assert_uint_eq(spec.rules[0].first, 9000);
	ck_assert_uint_eq(spec.rules[0].last, 9004);
	ck_assert_uint_eq(spec.rules[0].to_first, 19000);
	ck_assert_uint_eq(spec.rules[1].first, 9006);
	ck_assert_uint_eq(spec.rules[1].last, 9010);
	ck_assert_uint_eq(spec.rules[1].to_first, 19006);
	v4_is(&spec.rules[1].to_addr, "192.0.2.9");
	ck_assert(!spec.rules[0].weak);
	ck_assert(!forwarded(9005));
	ck_assert_uint_eq(fwd_port_target(&spec, 9010), 19010);

	/* An exclusion at either end just trims */
	OK("100-110:200-210,~100,~110");
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert_uint_eq(spec.rules[0].first, 101);
	ck_assert_uint_eq(spec.rules[0].to_first, 201);
	ck_assert_uint_eq(spec.rules[0].last, 109);

	/* Excluding a whole range drops it */
	OK("100,200,~100");
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert_uint_eq(spec.rules[0].first, 200);
}
END_TEST

START_TEST(test_split_limit)
{
	char arg[FWD_RULES_MAX * 8 + 32];
	size_t n;
	int i;

	/* 1-1000 minus every odd port from 3: one piece per even port */
	n = (size_t)snprintf(arg, sizeof(arg), "1-1000");
	for (i = 3; i < 3 + 2 * FWD_RULES_MAX; i += 2)
		n += (size_t)snprintf(arg + n, sizeof(arg) - n, ",~%d", i);
	reset();
	ck_assert_int_eq(parse(arg), -1);
	ck_assert_msg(strstr(errbuf, "at most"), "%s", errbuf);
	ck_assert_uint_eq(spec.n_rules, 0);
}
END_TEST

START_TEST(test_keyword_mixing)
{
	/* Refused as upstream refuses them: "none" after ports, and every
	 * pair that takes the same ports twice
	 */
	static const char *const pairs[][3] = {
		{ "all", "none", "combined" }, { "auto", "none", "combined" },
		{ "22", "none", "combined" }, { "auto", "all", "conflicting" },
		{ "all", "auto", "conflicting" }, { "auto", "22", "conflicting" },
		{ "all", "22", "conflicting" }, { "22", "auto", "conflicting" },
		{ "22", "all", "conflicting" }, { "~22", "all", "conflicting" },
		{ "80-90", "~85", "conflicting" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		enum fwd_mode before;
		unsigned int n;

		reset();
		ck_assert_int_eq(parse(pairs[i][0]), 0);
		before = spec.mode;
		n = spec.n_rules;
		ck_assert_msg(parse(pairs[i][1]) == -1, "'%s' then '%s'",
			      pairs[i][0], pairs[i][1]);
		ck_assert_msg(strstr(errbuf, pairs[i][2]), "%s", errbuf);
		ck_assert_int_eq(spec.mode, before);
		ck_assert_uint_eq(spec.n_rules, n);
	}

	bad("none,22", "alone");
	bad("all,22", "combined");
	bad("22,all", "combined");
	bad("all,all", "twice");

	/* "none" first, then ports: the ports (upstream's "-t none -t 22",
	 * which podman passes for --net=pasta:-t,none -p 22)
	 */
	OK("none", "22");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	ck_assert(forwarded(22) && !forwarded(23));
	OK("none", "none", "22", "127.0.0.1/80");
	ck_assert(forwarded(22) && forwarded(80));
	OK("none", "auto");
	ck_assert_int_eq(spec.mode, FWD_AUTO);
	OK("none", "all");
	ck_assert(forwarded(1));

	/* An ephemeral port beside "auto", which leaves them (upstream) */
	{
		char eph[8];

		snprintf(eph, sizeof(eph), "%u", ephemeral_start());
		OK("auto", eph);
		ck_assert(!fwd_port_rule(&spec,
					 (uint16_t)ephemeral_start())->scan);
		ck_assert(fwd_port_rule(&spec, 22)->scan);
	}
}
END_TEST

/**
 * addr() - an address from text
 * @s:		IPv4 or IPv6 address
 *
 * Return: the address
 */
static union inany_addr addr(const char *s)
{
	union inany_addr a = { 0 };
	struct in_addr a4;

	if (inet_pton(AF_INET, s, &a4) == 1)
		inany_from_v4(&a, a4);
	else
		ck_assert_int_eq(inet_pton(AF_INET6, s, &a.a6), 1);
	return a;
}

/**
 * lookups_agree() - lookups of every port (a walk of the rules for a short
 *		     table, the port index for a long one) against a walk here
 */
static void lookups_agree(void)
{
	unsigned int p, i;

	for (p = 0; p < 65536; p++) {
		int first = -1, n = 0;

		for (i = 0; i < spec.n_rules; i++) {
			if (spec.rules[i].first <= p && p <= spec.rules[i].last)
				first = n++ ? first : (int)i;
		}
		ck_assert_int_eq(fwd_port_next(&spec, (uint16_t)p, -1), first);
		ck_assert(fwd_port_is_forwarded(&spec, (uint16_t)p) == !!n);
		ck_assert(fwd_port_shared(&spec, (uint16_t)p) == (n > 1));
	}
}

START_TEST(test_walk_and_index)
{
	OK("127.0.0.1/8080-8090", "::1/8085:81", "22", "1000-1009");
	lookups_agree();	/* few rules, walked, a shared port */
	OK("127.0.0.1/8080-8090", "::1/8085:81", "22", "1000-1009", "2000",
	   "2002", "2004", "2006", "2008", "192.0.2.1/4000-4010",
	   "192.0.2.2/4005-4020");
	ck_assert_uint_gt(spec.n_rules, 8);
	lookups_agree();	/* indexed */
	OK("22");
	lookups_agree();	/* walked again: the index is not used */
}
END_TEST

START_TEST(test_shared_ports)
{
	union inany_addr lo4 = addr("127.0.0.1"), lo6 = addr("::1");
	union inany_addr a1 = addr("192.0.2.1"), a2 = addr("192.0.2.2");
	union inany_addr other = addr("192.0.2.3");
	const struct fwd_rule *r;

	/* podman -p 127.0.0.1:8080:80 -p [::1]:8080:81 */
	OK("127.0.0.1/8080-8080:80-80", "::1/8080-8080:81-81");
	ck_assert_uint_eq(spec.n_rules, 2);
	ck_assert(fwd_port_shared(&spec, 8080) && !fwd_port_shared(&spec, 80));
	r = fwd_rule_at(&spec, 8080, &lo4);
	ck_assert(r && r->bind_v4);
	ck_assert_uint_eq(fwd_rule_target(r, 8080), 80);
	r = fwd_rule_at(&spec, 8080, &lo6);
	ck_assert(r && !r->bind_v4);
	ck_assert_uint_eq(fwd_rule_target(r, 8080), 81);
	ck_assert_ptr_null(fwd_rule_at(&spec, 8080, &a1));
	ck_assert_uint_eq(spec.n_slots, 2);
	ck_assert_uint_eq(fwd_rule_slot(&spec, 1, 8080), 1);
	ck_assert_int_eq(fwd_port_next(&spec, 8080, -1), 0);
	ck_assert_int_eq(fwd_port_next(&spec, 8080, 0), 1);
	ck_assert_int_eq(fwd_port_next(&spec, 8080, 1), -1);

	/* Two addresses of one family, a target each */
	OK("192.0.2.1/8080", "192.0.2.2/8080:80");
	ck_assert_uint_eq(fwd_rule_target(fwd_rule_at(&spec, 8080, &a1),
					  8080), 8080);
	ck_assert_uint_eq(fwd_rule_target(fwd_rule_at(&spec, 8080, &a2),
					  8080), 80);
	ck_assert_ptr_null(fwd_rule_at(&spec, 8080, &other));

	/* Ranges that overlap in part, at different addresses */
	OK("127.0.0.1/8080-8090", "::1/8085-8095:85-95");
	ck_assert(!fwd_port_shared(&spec, 8084) && fwd_port_shared(&spec, 8085));
	ck_assert(!fwd_port_shared(&spec, 8091));
	ck_assert_uint_eq(fwd_rule_target(fwd_rule_at(&spec, 8090, &lo6),
					  8090), 90);
	ck_assert_uint_eq(spec.n_slots, 11 + 11);

	/* The wildcard of each family, and any address of one family with
	 * a specific one of the other
	 */
	OK("0.0.0.0/8080", "::/8080");
	ck_assert(fwd_rule_at(&spec, 8080, &a1)->bind_v4);
	ck_assert(!fwd_rule_at(&spec, 8080, &lo6)->bind_v4);
	OK("0.0.0.0/8080", "::1/8080");
	OK("8080:192.0.2.9", "::1/8080");
	ck_assert(fwd_rule_at(&spec, 8080, &lo4)->bind_any);

	/* "auto" and "all" per address, and a list with its own bind */
	OK("127.0.0.1/auto", "::1/auto");
	ck_assert(fwd_port_shared(&spec, 22));
	ck_assert(fwd_rule_at(&spec, 22, &lo6)->scan);
	OK("127.0.0.1/22,80", "::1/22,80");
	ck_assert_uint_eq(spec.n_rules, 4);

	/* fwd_port_same(): the rule of another table with the same sockets */
	ck_assert_int_eq(fwd_port_same(&spec, 80, &spec.rules[3]), 3);
	ck_assert_int_eq(fwd_port_same(&spec, 80, &spec.rules[2]), 3);
	ck_assert_int_eq(fwd_port_same(&spec, 80, &spec.rules[1]), 1);
	ck_assert_int_eq(fwd_port_same(&spec, 81, &spec.rules[1]), -1);
}
END_TEST

START_TEST(test_conflicts)
{
	static const char *const pairs[][2] = {
		{ "8080", "127.0.0.1/8080" },
		{ "127.0.0.1/8080", "8080" },
		{ "0.0.0.0/8080", "127.0.0.1/8080" },
		{ "::/8080", "::1/8080" },
		{ "127.0.0.1/8080", "127.0.0.1/8080:80" },
		{ "%eth0/8080", "%eth1/8080" },
		{ "192.0.2.1%eth0/80", "192.0.2.1%eth1/80" },
		{ "8080-8090", "::1/8085" },
		{ "8080:192.0.2.9", "0.0.0.0/8080" },
		{ "127.0.0.1/all", "127.0.0.1/8080" },
	};
	size_t i;

	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		reset();
		ck_assert_msg(!parse(pairs[i][0]), "%s", errbuf);
		ck_assert_msg(parse(pairs[i][1]) == -1, "'%s' then '%s'",
			      pairs[i][0], pairs[i][1]);
		ck_assert_msg(strstr(errbuf, "conflicting"), "%s", errbuf);
		ck_assert_uint_eq(spec.n_rules,
				  strstr(pairs[i][0], "all") ? spec.n_rules : 1);
	}

	/* The message names both rules */
	reset();
	ck_assert_int_eq(parse("8080"), 0);
	ck_assert_int_eq(parse("127.0.0.1/8080"), -1);
	ck_assert_msg(strstr(errbuf, "port 8080 at 127.0.0.1"), "%s", errbuf);
	ck_assert_msg(strstr(errbuf, "port 8080 at any address given before"),
		      "%s", errbuf);

	/* In one list too */
	bad("127.0.0.1/8080,8080", "conflicting");
	bad("80-90,85", "conflicting");
	bad("%eth0/80,*%eth1/80", "on eth1");
}
END_TEST

START_TEST(test_single_and_lists)
{
	OK("22");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert(forwarded(22));
	ck_assert(!forwarded(21));
	ck_assert(!forwarded(23));
	ck_assert_uint_eq(fwd_port_target(&spec, 22), 22);

	OK("22,25");
	ck_assert(forwarded(22) && forwarded(25) && !forwarded(24));

	OK("22-80");
	ck_assert(forwarded(22) && forwarded(50) && forwarded(80));
	ck_assert(!forwarded(21) && !forwarded(81));

	OK("1", "65535");
	ck_assert(forwarded(1) && forwarded(65535));
	ck_assert_uint_eq(spec.n_rules, 2);

	OK("1-65535");
	ck_assert(forwarded(1) && forwarded(40000) && forwarded(65535));

	/* Repeated options accumulate */
	OK("22", "80-81", "443");
	ck_assert_uint_eq(spec.n_rules, 3);
	ck_assert(forwarded(22) && forwarded(81) && forwarded(443));
	ck_assert(!forwarded(82));
}
END_TEST

START_TEST(test_translation)
{
	OK("22:23");
	ck_assert(forwarded(22));
	ck_assert(!forwarded(23));
	ck_assert_uint_eq(fwd_port_target(&spec, 22), 23);

	OK("22-80:32-90");
	ck_assert_uint_eq(fwd_port_target(&spec, 22), 32);
	ck_assert_uint_eq(fwd_port_target(&spec, 50), 60);
	ck_assert_uint_eq(fwd_port_target(&spec, 80), 90);
	ck_assert_uint_eq(fwd_port_target(&spec, 81), 81);
	ck_assert_uint_eq(fwd_port_target(&spec, 21), 21);

	OK("8080-8081:80-81", "9000:65535");
	ck_assert_uint_eq(fwd_port_target(&spec, 8081), 81);
	ck_assert_uint_eq(fwd_port_target(&spec, 9000), 65535);

	OK("65535:1");
	ck_assert_uint_eq(fwd_port_target(&spec, 65535), 1);

	ck_assert_ptr_null(fwd_port_rule(&spec, 100));
	ck_assert_ptr_nonnull(fwd_port_rule(&spec, 65535));
}
END_TEST

START_TEST(test_exclusions)
{
	OK("2000-5000,~3000-3010");
	ck_assert(forwarded(2000) && forwarded(2999) && forwarded(3011));
	ck_assert(!forwarded(3000) && !forwarded(3005) && !forwarded(3010));
	ck_assert(forwarded(5000) && !forwarded(5001));

	OK("192.0.2.1/20-30,~25");
	ck_assert(forwarded(20) && forwarded(24) && forwarded(26));
	ck_assert(!forwarded(25));

	/* Exclusion given first; exclusions of one option only apply to
	 * its own ranges (an option of exclusions only is "all" minus them,
	 * as upstream's)
	 */
	OK("~25,20-30");
	ck_assert(!forwarded(25) && forwarded(24));
	OK("20-30,~21,~29-30");
	ck_assert(!forwarded(21) && !forwarded(29) && !forwarded(30));
	ck_assert(forwarded(20) && forwarded(28));
	OK("127.0.0.1/20-30,~25", "::1/20-30");
	ck_assert_uint_eq(spec.n_rules, 3);
	ck_assert(fwd_port_shared(&spec, 24) && !fwd_port_shared(&spec, 25));

	/* Exclusions apply to every rule, also translated ones */
	OK("100-110:200-210,300-310,~105,~305");
	ck_assert(!forwarded(105) && !forwarded(305));
	ck_assert_uint_eq(fwd_port_target(&spec, 106), 206);
}
END_TEST

START_TEST(test_exclusions_only)
{
	unsigned int eph = ephemeral_start();

	OK("~20000-20010");
	ck_assert_int_eq(spec.mode, FWD_SPEC);
	ck_assert(forwarded(1) && forwarded(19999) && forwarded(20011));
	ck_assert(!forwarded(20000) && !forwarded(20010));
	ck_assert(forwarded(eph - 1) && !forwarded(eph));

	OK("127.0.0.1/~22", "::1/~80");
	ck_assert(forwarded(22) && forwarded(80) && forwarded(23));
	ck_assert(!fwd_port_shared(&spec, 22) && fwd_port_shared(&spec, 23));
}
END_TEST

START_TEST(test_bind_address)
{
	char buf[INET6_ADDRSTRLEN];
	const struct fwd_rule *r;

	OK("192.0.2.1/22");
	r = fwd_port_rule(&spec, 22);
	ck_assert_ptr_nonnull(r);
	ck_assert(!r->bind_any && r->bind_v4);
	ck_assert_ptr_nonnull(inany_v4(&r->bind_addr));
	inet_ntop(AF_INET, inany_v4(&r->bind_addr), buf, sizeof(buf));
	ck_assert_str_eq(buf, "192.0.2.1");
	ck_assert_str_eq(r->ifname, "");

	OK("192.0.2.1%eth0/22");
	r = fwd_port_rule(&spec, 22);
	ck_assert(!r->bind_any && r->bind_v4);
	ck_assert_str_eq(r->ifname, "eth0");

	OK("%eth0/22");
	r = fwd_port_rule(&spec, 22);
	ck_assert(r->bind_any);
	ck_assert_str_eq(r->ifname, "eth0");

	OK("22");
	r = fwd_port_rule(&spec, 22);
	ck_assert(r->bind_any);
	ck_assert(inany_is_unspecified(&r->bind_addr));

	OK("0.0.0.0/22");
	r = fwd_port_rule(&spec, 22);
	ck_assert(!r->bind_any && r->bind_v4);
	ck_assert(inany_is_unspecified(&r->bind_addr));
}
END_TEST

START_TEST(test_bind_address6)
{
	OK("::1/8080");
	bound6(8080, "::1", "");

	OK("[::1]/8080");
	bound6(8080, "::1", "");

	OK("[::1]/8080-8081:80-81");
	ck_assert_uint_eq(fwd_port_target(&spec, 8081), 81);

	OK("::1/8080:80");
	ck_assert_uint_eq(fwd_port_target(&spec, 8080), 80);

	OK("1::1/80");
	bound6(80, "1::1", "");

	OK("fe80::1%eth0/22");
	bound6(22, "fe80::1", "eth0");

	OK("[fe80::1]%eth1/22");
	bound6(22, "fe80::1", "eth1");

	OK("[fe80::1%eth2]/22");
	bound6(22, "fe80::1", "eth2");

	/* Podman's form: ADDR/HP-HP:CP-CP, both families */
	OK("127.0.0.1/8080-8081:80-81", "::1/9090-9091:90-91");
	ck_assert_uint_eq(fwd_port_target(&spec, 8080), 80);
	ck_assert_uint_eq(fwd_port_target(&spec, 9091), 91);
	ck_assert(fwd_port_rule(&spec, 8080)->bind_v4);
	ck_assert(!fwd_port_rule(&spec, 9090)->bind_v4);
}
END_TEST

START_TEST(test_bind_ifname6)
{
	const char *a6 = "2001:db8:113::10";
	const struct fwd_rule *r;

	/* ADDR%IFACE with an all-digit first group (podman's interface-bound
	 * forwarding), with ranges, mappings, exclusions and "all"
	 */
	OK("2001:db8:113::10%d0/5421:5421");
	bound6(5421, a6, "d0");
	ck_assert_uint_eq(fwd_port_target(&spec, 5421), 5421);

	OK("2001:db8:113::10%d0/5421");
	ck_assert_str_eq(fwd_port_rule(&spec, 5421)->ifname, "d0");

	OK("2001:db8:113::10%d0/5000-5002:6000-6002");
	ck_assert_uint_eq(fwd_port_target(&spec, 5002), 6002);
	ck_assert_str_eq(fwd_port_rule(&spec, 5001)->ifname, "d0");

	OK("2001:db8:113::10%d0/5000-5010,~5005");
	ck_assert(forwarded(5004) && !forwarded(5005) && forwarded(5006));
	ck_assert_str_eq(fwd_port_rule(&spec, 5010)->ifname, "d0");

	OK("2001:db8:113::10%d0/5000:[2001:db8::9]/6000");
	bound6(5000, a6, "d0");
	ck_assert_uint_eq(fwd_port_target(&spec, 5000), 6000);

	OK("2400:db8::1%eth0/all");
	r = fwd_port_rule(&spec, 1000);
	ck_assert(r && r->weak && !r->bind_any);
	ck_assert_str_eq(r->ifname, "eth0");

	OK("2001:db8::1/80", "2001:db8::2%eth0/81");
	ck_assert_str_eq(fwd_port_rule(&spec, 80)->ifname, "");
	ck_assert_str_eq(fwd_port_rule(&spec, 81)->ifname, "eth0");

	/* An item of its own may carry one too (this relay's extension) */
	OK("22,2001:db8::1%eth0/80:8080");
	ck_assert(fwd_port_rule(&spec, 22)->bind_any);
	ck_assert_str_eq(fwd_port_rule(&spec, 80)->ifname, "eth0");
	ck_assert_uint_eq(fwd_port_target(&spec, 80), 8080);

	/* Without an address before it, still PORT:TARGET */
	OK("22:2001:db8::7");
	r = fwd_port_rule(&spec, 22);
	ck_assert(r->bind_any);
	ck_assert(!inany_is_unspecified(&r->to_addr));
}
END_TEST

START_TEST(test_target_address)
{
	char buf[INET6_ADDRSTRLEN];
	const struct fwd_rule *r;

	OK("80:192.0.2.7/8080");
	r = fwd_port_rule(&spec, 80);
	ck_assert_ptr_nonnull(r);
	ck_assert(r->bind_any);
	ck_assert_ptr_nonnull(inany_v4(&r->to_addr));
	inet_ntop(AF_INET, inany_v4(&r->to_addr), buf, sizeof(buf));
	ck_assert_str_eq(buf, "192.0.2.7");
	ck_assert_uint_eq(fwd_port_target(&spec, 80), 8080);

	OK("80:[2001:db8::1]/8080");
	r = fwd_port_rule(&spec, 80);
	inet_ntop(AF_INET6, &r->to_addr.a6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "2001:db8::1");

	OK("80:::1/8080");
	r = fwd_port_rule(&spec, 80);
	ck_assert(r->bind_any);
	inet_ntop(AF_INET6, &r->to_addr.a6, buf, sizeof(buf));
	ck_assert_str_eq(buf, "::1");

	OK("192.0.2.1/80-81:198.51.100.1/90-91");
	r = fwd_port_rule(&spec, 81);
	ck_assert(!r->bind_any && r->bind_v4);
	inet_ntop(AF_INET, inany_v4(&r->to_addr), buf, sizeof(buf));
	ck_assert_str_eq(buf, "198.51.100.1");
	ck_assert_uint_eq(fwd_port_target(&spec, 81), 91);

	/* No target address: unspecified */
	OK("80:81");
	ck_assert(inany_is_unspecified(&fwd_port_rule(&spec, 80)->to_addr));
}
END_TEST

START_TEST(test_disabled_family)
{
	reset();
	ck_assert_int_eq(parse("443,::1/8080,192.0.2.1/22"), 0);
	fwd_finalise(&spec, true, false, NULL, 0);
	ck_assert(!forwarded(8080));
	ck_assert(forwarded(22) && forwarded(443));
	ck_assert_uint_eq(spec.n_rules, 2);

	reset();
	ck_assert_int_eq(parse("443,::1/8080,192.0.2.1/22"), 0);
	fwd_finalise(&spec, false, true, NULL, 0);
	ck_assert(forwarded(8080) && !forwarded(22) && forwarded(443));

	/* Any address, but a target only a disabled family reaches */
	reset();
	ck_assert_int_eq(parse("80:192.0.2.9"), 0);
	ck_assert_int_eq(fwd_finalise(&spec, false, true, errbuf,
				      sizeof(errbuf)), -1);
	ck_assert_msg(strstr(errbuf, "go to 192.0.2.9, but IPv4 is disabled"),
		      "%s", errbuf);

	reset();
	ck_assert_int_eq(parse("all:[2001:db8::9]"), 0);
	ck_assert_int_eq(fwd_finalise(&spec, true, false, errbuf,
				      sizeof(errbuf)), -1);
	ck_assert(strstr(errbuf, "IPv6 is disabled"));
}
END_TEST

START_TEST(test_bad_ports)
{
	bad("70000", "invalid port range '70000'");
	bad("70000", "1-65535");
	bad("0", "invalid port range");
	bad("0-10", NULL);
	bad("65536", NULL);
	bad("99999999999999999999", NULL);
	bad("80-70", "lower");
	bad("80-", NULL);
	bad("-80", NULL);
	bad("a", NULL);
	bad("80a", NULL);
	bad(" 80", NULL);
	bad("+80", NULL);
	bad("8 0", NULL);
	bad("80-90-100", NULL);
	bad("~", "missing");
	bad("~0", NULL);
	bad("~70000", NULL);
	bad("~1.2.3.4/80", NULL);
	bad("80:0", NULL);
	bad("80:", "missing target");
	bad("80:70000", NULL);
}
END_TEST

START_TEST(test_bad_ranges)
{
	bad("22-80:32", "ports");
	bad("22-80:32-100", "ports");
	bad("22:32-33", NULL);
	bad("80,80", "conflicting");
	bad("80-90,85", "port 85");
	bad("85,80-90", "ports 80-90");
	OK("192.0.2.1/80,::1/80");
	ck_assert(fwd_port_shared(&spec, 80));

	/* Overlap with a previous option */
	reset();
	ck_assert_int_eq(parse("80-90"), 0);
	ck_assert_int_eq(parse("90-95"), -1);
	ck_assert_int_eq(parse("91-95"), 0);
}
END_TEST

START_TEST(test_bad_syntax)
{
	bad("", "empty");
	bad(",80", "empty item");
	bad("80,", "empty item");
	bad("80,,81", "empty item");
	bad("1.2.3.999/80", "invalid address");
	bad("192.0.2.1/", "missing port");
	bad("/80", "missing address");
	bad("%/80", "interface");
	bad("%averyveryverylongname/80", "interface");
	bad("foo/80", "invalid address");
	bad("[::1/80", NULL);
	bad("[::1]80", NULL);
	bad("[192.0.2.1]/80", "invalid address");
	bad("80:[::1]8080", NULL);
	bad("80:1.2.3/8080", "invalid target address");
	bad("80:0.0.0.0/8080", "invalid target address");
	bad("80:/8080", NULL);
	bad("::zz/80", NULL);
}
END_TEST

START_TEST(test_failure_is_atomic)
{
	reset();
	ck_assert_int_eq(parse("22,~30"), 0);
	ck_assert_int_eq(parse("40,~41,50-40"), -1);
	ck_assert_int_eq(parse("60,60"), -1);
	ck_assert_int_eq(parse("70,22"), -1);
	ck_assert_int_eq(parse("none"), -1);
	fwd_finalise(&spec, true, true, NULL, 0);
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert(forwarded(22));
	ck_assert(!forwarded(40) && !forwarded(60) && !forwarded(70));
}
END_TEST

START_TEST(test_too_many_rules)
{
	char arg[FWD_RULES_MAX * 7 + 16];
	size_t n = 0;
	int i;

	for (i = 0; i < FWD_RULES_MAX; i++)
		n += (size_t)snprintf(arg + n, sizeof(arg) - n, "%s%d",
				      i ? "," : "", 1000 + i * 2);
	reset();
	ck_assert_int_eq(parse(arg), 0);
	ck_assert_uint_eq(spec.n_rules, FWD_RULES_MAX);
	ck_assert_int_eq(parse("5"), -1);
	ck_assert_msg(strstr(errbuf, "at most"), "%s", errbuf);
	/* Exclusions don't take rule slots */
	reset();
	ck_assert_int_eq(parse("1000-1001,~1001"), 0);
	ck_assert_uint_eq(spec.n_rules, 1);

	/* Ports in all: FWD_SLOTS_MAX, a port counting once per address */
	reset();
	ck_assert_int_eq(parse("127.0.0.1/1-65535"), 0);
	ck_assert_int_eq(parse("127.0.0.2/1-65535"), 0);
	ck_assert_int_eq(parse("127.0.0.3/1-65535"), 0);
	ck_assert_int_eq(parse("127.0.0.4/1-65535"), 0);
	ck_assert_int_eq(parse("127.0.0.5/1-10"), -1);
	ck_assert_msg(strstr(errbuf, "too many ports"), "%s", errbuf);
}
END_TEST

START_TEST(test_null_errbuf)
{
	reset();
	ck_assert_int_eq(fwd_parse(&spec, "70000", NULL, 0), -1);
	ck_assert_int_eq(fwd_parse(&spec, "22", NULL, 0), 0);
}
END_TEST

START_TEST(test_finalise_twice)
{
	OK("22,~23");
	ck_assert(forwarded(22));
	fwd_finalise(&spec, true, true, NULL, 0);
	ck_assert_uint_eq(spec.n_rules, 1);
	ck_assert(forwarded(22) && !forwarded(23));
}
END_TEST

/**
 * fwd_suite() - build the suite
 *
 * Return: suite
 */
static Suite *fwd_suite(void)
{
	Suite *s = suite_create("fwd");
	TCase *tc = tcase_create("grammar");

	tcase_add_test(tc, test_keywords);
	tcase_add_test(tc, test_auto_lists);
	tcase_add_test(tc, test_all);
	tcase_add_test(tc, test_all_addresses);
	tcase_add_test(tc, test_prefix_for_list);
	tcase_add_test(tc, test_target_address_only);
	tcase_add_test(tc, test_ranges_with_exclusions);
	tcase_add_test(tc, test_split_limit);
	tcase_add_test(tc, test_keyword_mixing);
	tcase_add_test(tc, test_shared_ports);
	tcase_add_test(tc, test_conflicts);
	tcase_add_test(tc, test_single_and_lists);
	tcase_add_test(tc, test_translation);
	tcase_add_test(tc, test_exclusions);
	tcase_add_test(tc, test_exclusions_only);
	tcase_add_test(tc, test_bind_address);
	tcase_add_test(tc, test_bind_address6);
	tcase_add_test(tc, test_bind_ifname6);
	tcase_add_test(tc, test_target_address);
	tcase_add_test(tc, test_disabled_family);
	tcase_add_test(tc, test_bad_ports);
	tcase_add_test(tc, test_bad_ranges);
	tcase_add_test(tc, test_bad_syntax);
	tcase_add_test(tc, test_failure_is_atomic);
	tcase_add_test(tc, test_too_many_rules);
	tcase_add_test(tc, test_null_errbuf);
	tcase_add_test(tc, test_finalise_twice);
	tcase_add_test(tc, test_walk_and_index);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the fwd suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(fwd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
