// SPDX-License-Identifier: GPL-2.0-or-later
/* test_nat.c - unit tests for address mapping (flow/nat.c)
 *
 * Theory of operation: a struct ctx filled by hand with a typical set-up
 * (guest 192.0.2.10 / 2001:db8::10, gateway .1 / ::1, --map-host-loopback
 * on the gateway, --map-guest-addr, --dns-forward), then each rule, its
 * fallbacks, and the unmapped cases, for both families.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "../../conf/ctx.h"
#include "../../flow/nat.h"
#include "../../guest/guest.h"

static struct ctx c;

/**
 * a4() - parse an IPv4 address
 * @s:		text
 *
 * Return: address
 */
static struct in_addr a4(const char *s)
{
	struct in_addr a;

	ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
	return a;
}

/**
 * a6() - parse an IPv6 address
 * @s:		text
 *
 * Return: address
 */
static struct in6_addr a6(const char *s)
{
	struct in6_addr a;

	ck_assert_int_eq(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

/**
 * any() - parse an address of either family into an inany one
 * @s:		text
 *
 * Return: address
 */
static union inany_addr any(const char *s)
{
	union inany_addr a;

	if (strchr(s, ':'))
		a.a6 = a6(s);
	else
		inany_from_v4(&a, a4(s));
	return a;
}

/**
 * out_is() - check an address against text
 * @a:		address
 * @s:		expected, as text
 */
static void out_is(const union inany_addr *a, const char *s)
{
	union inany_addr e = any(s);
	char buf[INANY_STRLEN];

	ck_assert_msg(inany_equals(a, &e), "got %s, expected %s",
		      inany_ntop(a, buf), s);
}

/**
 * setup() - a typical configuration
 */
static void setup(void)
{
	memset(&c, 0, sizeof(c));

	c.ip4.enabled = true;
	c.ip4.addr = a4("192.0.2.10");
	c.ip4.prefix_len = 24;
	c.ip4.gw = a4("192.0.2.1");
	c.ip4.map_host_lo = a4("192.0.2.1");
	c.ip4.map_guest_addr = a4("192.0.2.2");
	c.ip4.dns[0] = a4("198.51.100.53");
	c.ip4.dns[1] = a4("198.51.100.54");
	c.ip4.dns_count = 2;
	c.ip4.dns_match = a4("192.0.2.3");
	c.ip4.dns_host = a4("203.0.113.53");

	c.ip6.enabled = true;
	c.ip6.addr = a6("2001:db8::10");
	c.ip6.prefix_len = 64;
	c.ip6.gw = a6("fe80::1");
	c.ip6.our_tap_ll = a6("fe80::ff");
	c.ip6.map_host_lo = a6("fe80::1");
	c.ip6.map_guest_addr = a6("2001:db8::2");
	c.ip6.dns[0] = a6("2001:db8:53::1");
	c.ip6.dns_count = 1;
	c.ip6.dns_match = a6("2001:db8::3");
	c.ip6.dns_host = a6("2001:db8:53::2");
	guest_init(&c);
}

/**
 * outbound_is() - check nat_outbound() for one destination
 * @dst:	destination the guest uses
 * @port:	destination port
 * @mapped:	expected return value
 * @exp:	expected host-side destination
 */
static void outbound_is(const char *dst, uint16_t port, bool mapped,
			const char *exp)
{
	union inany_addr in = any(dst), out;

	memset(&out, 0x5a, sizeof(out));
	ck_assert_int_eq(nat_outbound(&c, &in, port, &out), mapped);
	out_is(&out, exp);

	/* In place */
	ck_assert_int_eq(nat_outbound(&c, &in, port, &in), mapped);
	out_is(&in, exp);
}

/**
 * inbound_is() - check nat_inbound() for one source
 * @src:	host-side source
 * @changed:	expected return value
 * @exp:	expected source as the guest sees it
 */
static void inbound_is(const char *src, bool changed, const char *exp)
{
	union inany_addr in = any(src), out;

	memset(&out, 0x5a, sizeof(out));
	ck_assert_int_eq(nat_inbound(&c, &in, &out), changed);
	out_is(&out, exp);

	ck_assert_int_eq(nat_inbound(&c, &in, &in), changed);
	out_is(&in, exp);
}

START_TEST(test_outbound_v4)
{
	setup();
	outbound_is("192.0.2.1", 80, true, "127.0.0.1");
	outbound_is("192.0.2.2", 22, true, "192.0.2.10");
	outbound_is("192.0.2.3", 53, true, "203.0.113.53");
	outbound_is("192.0.2.3", 54, false, "192.0.2.3");
	outbound_is("192.0.2.1", 53, true, "127.0.0.1");
	outbound_is("93.184.216.34", 443, false, "93.184.216.34");
	outbound_is("192.0.2.10", 80, false, "192.0.2.10");

	/* dns_host unset: first resolver */
	c.ip4.dns_host.s_addr = 0;
	outbound_is("192.0.2.3", 53, true, "198.51.100.53");
	/* ... but not the forwarding address itself */
	c.ip4.dns[0] = c.ip4.dns_match;
	outbound_is("192.0.2.3", 53, true, "198.51.100.54");
	c.ip4.dns_count = 1;
	outbound_is("192.0.2.3", 53, false, "192.0.2.3");

	/* DNS forwarding to the gateway: DNS wins on port 53 */
	setup();
	c.ip4.dns_match = c.ip4.gw;
	outbound_is("192.0.2.1", 53, true, "203.0.113.53");
	outbound_is("192.0.2.1", 80, true, "127.0.0.1");

	/* Rules off */
	setup();
	c.ip4.map_host_lo.s_addr = 0;
	c.ip4.map_guest_addr.s_addr = 0;
	c.ip4.dns_match.s_addr = 0;
	outbound_is("192.0.2.1", 80, false, "192.0.2.1");
	outbound_is("192.0.2.2", 80, false, "192.0.2.2");
	outbound_is("192.0.2.3", 53, false, "192.0.2.3");
	outbound_is("0.0.0.0", 53, false, "0.0.0.0");
}
END_TEST

START_TEST(test_outbound_v6)
{
	setup();
	outbound_is("fe80::1", 80, true, "::1");
	outbound_is("2001:db8::2", 22, true, "2001:db8::10");
	outbound_is("2001:db8::3", 53, true, "2001:db8:53::2");
	outbound_is("2001:db8::3", 5353, false, "2001:db8::3");
	outbound_is("2001:db8:ffff::1", 443, false, "2001:db8:ffff::1");

	c.ip6.dns_host = in6addr_any;
	outbound_is("2001:db8::3", 53, true, "2001:db8:53::1");
	c.ip6.dns_count = 0;
	outbound_is("2001:db8::3", 53, false, "2001:db8::3");

	setup();
	c.ip6.map_host_lo = in6addr_any;
	c.ip6.map_guest_addr = in6addr_any;
	outbound_is("fe80::1", 80, false, "fe80::1");
	outbound_is("2001:db8::2", 80, false, "2001:db8::2");
	outbound_is("::", 80, false, "::");

	/* An IPv4 rule never matches IPv6, and the other way around */
	setup();
	outbound_is("::ffff:192.0.2.1", 80, true, "127.0.0.1");
	outbound_is("::192.0.2.1", 80, false, "::192.0.2.1");
}
END_TEST

START_TEST(test_inbound_v4)
{
	setup();
	inbound_is("127.0.0.1", true, "192.0.2.1");
	inbound_is("127.1.2.3", true, "192.0.2.1");
	inbound_is("192.0.2.10", true, "192.0.2.2");
	inbound_is("198.51.100.7", false, "198.51.100.7");
	inbound_is("128.0.0.1", false, "128.0.0.1");

	/* Other --map-host-loopback address */
	c.ip4.map_host_lo = a4("192.0.2.254");
	inbound_is("127.0.0.1", true, "192.0.2.254");

	/* No mapping addresses: the gateway */
	c.ip4.map_host_lo.s_addr = 0;
	c.ip4.map_guest_addr.s_addr = 0;
	inbound_is("127.0.0.1", true, "192.0.2.1");
	inbound_is("192.0.2.10", true, "192.0.2.1");

	/* Not even a gateway: unchanged */
	c.ip4.gw.s_addr = 0;
	inbound_is("127.0.0.1", false, "127.0.0.1");
	inbound_is("192.0.2.10", false, "192.0.2.10");
}
END_TEST

START_TEST(test_inbound_v6)
{
	setup();
	inbound_is("::1", true, "fe80::1");
	inbound_is("2001:db8::10", true, "2001:db8::2");
	inbound_is("2001:db8::11", false, "2001:db8::11");
	inbound_is("::ffff:127.0.0.1", true, "192.0.2.1");

	c.ip6.map_host_lo = in6addr_any;
	c.ip6.map_guest_addr = in6addr_any;
	inbound_is("::1", true, "fe80::1");
	inbound_is("2001:db8::10", true, "fe80::1");

	c.ip6.gw = in6addr_any;
	inbound_is("::1", true, "fe80::ff");
	inbound_is("2001:db8::10", true, "fe80::ff");

	c.ip6.our_tap_ll = in6addr_any;
	inbound_is("::1", false, "::1");

	/* Guest address unset: nothing matches it */
	setup();
	c.ip6.addr = in6addr_any;
	inbound_is("::", false, "::");
}
END_TEST

START_TEST(test_guest_addr)
{
	struct in6_addr seen6;
	union inany_addr g;

	setup();
	nat_guest_addr(&c, true, &g);
	out_is(&g, "192.0.2.10");
	nat_guest_addr(&c, false, &g);
	out_is(&g, "2001:db8::10");

	guest_addr4_set(a4("192.0.2.99"));
	seen6 = a6("2001:db8::99");
	guest_addr6_set(&seen6);
	nat_guest_addr(&c, true, &g);
	out_is(&g, "192.0.2.99");
	nat_guest_addr(&c, false, &g);
	out_is(&g, "2001:db8::99");

	/* No global address at all: the link-local one seen */
	guest_addr6_set(&in6addr_any);
	c.ip6.addr = in6addr_any;
	seen6 = a6("fe80::abcd");
	guest_addr6_ll_set(&seen6);
	nat_guest_addr(&c, false, &g);
	out_is(&g, "fe80::abcd");
}
END_TEST

START_TEST(test_guest_addr_from)
{
	union inany_addr src, g;
	struct in6_addr ll;

	setup();

	/* Link-local guest address not known yet: the global one */
	src = any("fe80::1");
	nat_guest_addr_from(&c, &src, &g);
	out_is(&g, "2001:db8::10");

	/* Known: a link-local source reaches it, others the global one */
	ll = a6("fe80::5054:ff:fe12:3456");
	guest_addr6_ll_set(&ll);
	nat_guest_addr_from(&c, &src, &g);
	out_is(&g, "fe80::5054:ff:fe12:3456");
	src = any("2001:db8::1");
	nat_guest_addr_from(&c, &src, &g);
	out_is(&g, "2001:db8::10");
	src = any("192.0.2.1");
	nat_guest_addr_from(&c, &src, &g);
	out_is(&g, "192.0.2.10");
}
END_TEST

/**
 * nat_suite() - build the suite
 *
 * Return: suite
 */
static Suite *nat_suite(void)
{
	Suite *s = suite_create("nat");
	TCase *tc = tcase_create("mapping");

	tcase_add_test(tc, test_outbound_v4);
	tcase_add_test(tc, test_outbound_v6);
	tcase_add_test(tc, test_inbound_v4);
	tcase_add_test(tc, test_inbound_v6);
	tcase_add_test(tc, test_guest_addr);
	tcase_add_test(tc, test_guest_addr_from);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the nat suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(nat_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
