// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dhcpv6.c - DHCPv6 server, with doubles for net/ output
 *
 * Build (not linked against the other modules: tests/unit/dhcp_doubles.h
 * defines its own qdisc_send(), net_fill_l2l3() and net_l2l3_len()):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_dhcpv6 \
 *	tests/unit/standalone/test_dhcpv6.c net/dhcp.c net/dhcpv6.c \
 *	net/dns_name.c net/checksum.c util/log.c \
 *	$(pkg-config --cflags --libs check)
 *
 * Theory of operation: as test_dhcp.c for DHCPv4. Client messages are
 * built byte by byte and passed to dhcpv6_input() from heap buffers of
 * their exact size; the replies captured by the qdisc_send() double are
 * checked at every layer (Ethernet, IPv6, UDP length and checksum with
 * the naive reference of net_frames.h), their identifiers, addresses,
 * status codes and configuration options decoded and compared with the
 * configuration. A table of malformed messages, truncations at every
 * length and seeded random mutations check that malformed messages are
 * rejected without a crash, and that whatever is accepted gets a
 * well-formed reply.
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../../conf/ctx.h"
#include "../../../net/dhcpv6.h"
#include "../../../util/log.h"
#include "../dhcp_doubles.h"

/* Helpers: DHCPv6 */

static const char *client_ll = "fe80::5054:ff:fe12:3456";
static const uint8_t client_duid[] = { 0, 3, 0, 1, 0x52, 0x54, 0, 0x12,
				       0x34, 0x56 };
static const uint8_t our_duid[] = { 0, 3, 0, 1, 0x9a, 0x55, 0x9a, 0x55,
				    0x9a, 0x55 };

/**
 * m6_new() - start a DHCPv6 client message, with our Client Identifier
 * @m:		message
 * @type:	message type
 */
static void m6_new(struct msg *m, uint8_t type)
{
	memset(m, 0, sizeof(*m));
	m->b[0] = type;
	m->b[1] = 0xab;
	m->b[2] = 0xcd;
	m->b[3] = 0xef;
	m->len = 4;
}

/**
 * m6_opt() - append a DHCPv6 option
 * @m:		message
 * @code:	option code
 * @data:	data
 * @len:	length
 */
static void m6_opt(struct msg *m, uint16_t code, const void *data,
		   size_t len)
{
	tf_put16(m->b + m->len, code);
	tf_put16(m->b + m->len + 2, (uint16_t)len);
	if (len)
		memcpy(m->b + m->len + 4, data, len);
	m->len += 4 + len;
}

/**
 * m6_ia_na() - append an IA_NA, optionally with an IA Address
 * @m:		message
 * @iaid:	IAID
 * @addr:	address for an IA Address sub-option, NULL for none
 */
static void m6_ia_na(struct msg *m, uint32_t iaid, const char *addr)
{
	uint8_t v[12 + 4 + 24] = { 0 };
	size_t len = 12;

	v[0] = (uint8_t)(iaid >> 24);
	v[1] = (uint8_t)(iaid >> 16);
	v[2] = (uint8_t)(iaid >> 8);
	v[3] = (uint8_t)iaid;
	if (addr) {
		tf_put16(v + 12, 5);
		tf_put16(v + 14, 24);
		inet_pton(AF_INET6, addr, v + 16);
		len += 28;
	}
	m6_opt(m, 3, v, len);
}

/**
 * feed6() - pass a message to dhcpv6_input() from an exact heap copy
 * @b:		message
 * @len:	length
 *
 * Return: dhcpv6_input() result
 */
static bool feed6(const uint8_t *b, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct in6_addr s;
	bool ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, b, len);
	inet_pton(AF_INET6, client_ll, &s);
	ret = dhcpv6_input(&ctx, &s, copy, len);
	free(copy);
	return ret;
}

/**
 * reply6() - check the frame of a captured DHCPv6 reply
 * @i:		index of the capture
 * @type:	expected message type, with our transaction ID; 0: any of
 *		Advertise or Reply, any transaction ID
 * @dlen:	output: message length
 *
 * Return: the DHCPv6 message
 */
static const uint8_t *reply6(size_t i, uint8_t type, size_t *dlen)
{
	const uint8_t *f = sent.buf[i], *ip = f + 14, *uh = f + 54;
	size_t len = sent.len[i];
	struct in6_addr s, d;

	inet_pton(AF_INET6, "fe80::9855:9aff:fe55:9a55", &s);
	inet_pton(AF_INET6, client_ll, &d);

	ck_assert_uint_ge(len, 54 + 8 + 4);
	ck_assert_uint_le(len, 14 + 1280);
	ck_assert_mem_eq(f, tf_guest_mac, 6);
	ck_assert_uint_eq(tf_get16(f + 12), 0x86dd);
	ck_assert_uint_eq(tf_get16(ip + 4), len - 54);
	ck_assert_uint_eq(ip[6], IPPROTO_UDP);
	ck_assert_mem_eq(ip + 8, &s, 16);
	ck_assert_mem_eq(ip + 24, &d, 16);
	ck_assert_uint_eq(tf_get16(uh), 547);
	ck_assert_uint_eq(tf_get16(uh + 2), 546);
	ck_assert_uint_eq(tf_get16(uh + 4), len - 54);
	ck_assert_uint_eq(tf_finish(tf_sum(uh, len - 54,
					   tf_pseudo6(&s, &d, IPPROTO_UDP,
						      (uint32_t)(len - 54)))),
			  0);

	if (type) {
		ck_assert_uint_eq(uh[8], type);
		ck_assert_uint_eq(uh[9], 0xab);
		ck_assert_uint_eq(uh[10], 0xcd);
		ck_assert_uint_eq(uh[11], 0xef);
	} else {
		ck_assert(uh[8] == 2 || uh[8] == 7);
	}

	*dlen = len - 62;
	return uh + 8;
}

/**
 * opt6() - find the n-th instance of an option among options
 * @p:		first option
 * @len:	bytes of options
 * @code:	option code
 * @nth:	instance, from 0
 * @olen:	output: data length
 *
 * Checks the options are well-formed.
 *
 * Return: option data, NULL if absent
 */
static const uint8_t *opt6(const uint8_t *p, size_t len, uint16_t code,
			   int nth, size_t *olen)
{
	size_t i = 0;

	while (i < len) {
		size_t l;

		ck_assert_uint_le(i + 4, len);
		l = tf_get16(p + i + 2);
		ck_assert_uint_le(i + 4 + l, len);
		if (tf_get16(p + i) == code && !nth--) {
			*olen = l;
			return p + i + 4;
		}
		i += 4 + l;
	}
	return NULL;
}

/**
 * check_ids6() - check Client and Server Identifiers of a reply
 * @m:		message
 * @len:	length
 */
static void check_ids6(const uint8_t *m, size_t len)
{
	const uint8_t *o;
	size_t l;

	o = opt6(m + 4, len - 4, 1, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, sizeof(client_duid));
	ck_assert_mem_eq(o, client_duid, l);
	o = opt6(m + 4, len - 4, 2, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, sizeof(our_duid));
	ck_assert_mem_eq(o, our_duid, l);
}

/**
 * check_config6() - check DNS, search list and FQDN options of a reply
 * @m:		message
 * @len:	length
 */
static void check_config6(const uint8_t *m, size_t len)
{
	struct in6_addr a;
	const uint8_t *o;
	size_t l;

	o = opt6(m + 4, len - 4, 23, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, 32);
	inet_pton(AF_INET6, "2001:db8:53::1", &a);
	ck_assert_mem_eq(o, &a, 16);
	inet_pton(AF_INET6, "2001:db8:53::2", &a);
	ck_assert_mem_eq(o + 16, &a, 16);

	o = opt6(m + 4, len - 4, 24, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, sizeof(search_wire));
	ck_assert_mem_eq(o, search_wire, l);

	o = opt6(m + 4, len - 4, 39, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, 1 + sizeof(fqdn_wire));
	ck_assert_uint_eq(o[0], 0x04);
	ck_assert_mem_eq(o + 1, fqdn_wire, sizeof(fqdn_wire));
}

/**
 * check_ia_na6() - check an IA_NA holding our address
 * @m:		message
 * @len:	length
 * @iaid:	expected IAID
 */
static void check_ia_na6(const uint8_t *m, size_t len, uint32_t iaid)
{
	const uint8_t *ia, *a;
	struct in6_addr addr;
	size_t l, al;

	ia = opt6(m + 4, len - 4, 3, 0, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_ge(l, 12 + 28);
	ck_assert_uint_eq(tf_get32(ia), iaid);
	ck_assert_uint_eq(tf_get32(ia + 4), 0xffffffff);
	ck_assert_uint_eq(tf_get32(ia + 8), 0xffffffff);
	a = opt6(ia + 12, l - 12, 5, 0, &al);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(al, 24);
	inet_pton(AF_INET6, "2001:db8:1:2::10", &addr);
	ck_assert_mem_eq(a, &addr, 16);
	ck_assert_uint_eq(tf_get32(a + 16), 0xffffffff);
	ck_assert_uint_eq(tf_get32(a + 20), 0xffffffff);
	ck_assert_ptr_null(opt6(ia + 12, l - 12, 13, 0, &al));
}

/**
 * status6() - status code in a container of options
 * @p:		options
 * @len:	length
 *
 * Return: status code, -1 if absent
 */
static int status6(const uint8_t *p, size_t len)
{
	const uint8_t *o;
	size_t l;

	o = opt6(p, len, 13, 0, &l);
	if (!o)
		return -1;
	ck_assert_uint_ge(l, 2);
	return tf_get16(o);
}

/* DHCPv6 tests */

START_TEST(test_solicit_advertise)
{
	const uint8_t *r, *o;
	struct msg m;
	size_t len, l;

	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 8, "\x00\x00", 2);
	m6_ia_na(&m, 0x01020304, NULL);
	m6_opt(&m, 6, "\x00\x17\x00\x18", 4);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);

	r = reply6(0, 2, &len);
	check_ids6(r, len);
	check_ia_na6(r, len, 0x01020304);
	check_config6(r, len);
	o = opt6(r + 4, len - 4, 7, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, 1);
	ck_assert_uint_eq(o[0], 255);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 14, 0, &l));
}
END_TEST

START_TEST(test_solicit_rapid_commit)
{
	const uint8_t *r, *o;
	struct msg m;
	size_t len, l;

	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 14, NULL, 0);
	m6_ia_na(&m, 7, NULL);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);

	r = reply6(0, 7, &len);
	check_ids6(r, len);
	check_ia_na6(r, len, 7);
	o = opt6(r + 4, len - 4, 14, 0, &l);
	ck_assert_ptr_nonnull(o);
	ck_assert_uint_eq(l, 0);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 7, 0, &l));
}
END_TEST

START_TEST(test_request_reply6)
{
	const uint8_t *r;
	struct msg m;
	size_t len;

	m6_new(&m, 3);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 2, our_duid, sizeof(our_duid));
	m6_ia_na(&m, 9, "2001:db8:1:2::10");
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply6(0, 7, &len);
	check_ids6(r, len);
	check_ia_na6(r, len, 9);
	check_config6(r, len);

	/* For another server: consumed, silence */
	m6_new(&m, 3);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 2, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, NULL);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);

	/* No server identifier: discarded */
	m6_new(&m, 3);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, NULL);
	ck_assert(!feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
}
END_TEST

START_TEST(test_renew_rebind6)
{
	const uint8_t *r, *ia, *a;
	struct in6_addr other;
	struct msg m;
	size_t len, l, al;

	/* Renew holding a foreign address: ours, and that one at zero */
	m6_new(&m, 5);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 2, our_duid, sizeof(our_duid));
	m6_ia_na(&m, 9, "2001:db8:ffff::1");
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply6(0, 7, &len);
	check_ia_na6(r, len, 9);
	ia = opt6(r + 4, len - 4, 3, 0, &l);
	a = opt6(ia + 12, l - 12, 5, 1, &al);
	ck_assert_ptr_nonnull(a);
	inet_pton(AF_INET6, "2001:db8:ffff::1", &other);
	ck_assert_mem_eq(a, &other, 16);
	ck_assert_uint_eq(tf_get32(a + 16), 0);
	ck_assert_uint_eq(tf_get32(a + 20), 0);

	/* Rebind: no server identifier allowed */
	m6_new(&m, 6);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, "2001:db8:1:2::10");
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply6(1, 7, &len);
	check_ia_na6(r, len, 9);
	ck_assert_ptr_null(opt6(ia + 12, l - 12, 5, 2, &al));

	m6_opt(&m, 2, our_duid, sizeof(our_duid));
	ck_assert(!feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
}
END_TEST

START_TEST(test_confirm6)
{
	const uint8_t *r;
	struct msg m;
	size_t len, l;

	m6_new(&m, 4);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, "2001:db8:1:2::10");
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply6(0, 7, &len);
	check_ids6(r, len);
	ck_assert_int_eq(status6(r + 4, len - 4), 0);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 3, 0, &l));

	m6_new(&m, 4);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, "2001:db8:1:3::10");
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply6(1, 7, &len);
	ck_assert_int_eq(status6(r + 4, len - 4), 4);

	/* No addresses: no reply */
	m6_new(&m, 4);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 9, NULL);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
}
END_TEST

START_TEST(test_release_decline6)
{
	const uint8_t *r;
	struct msg m;
	size_t len;
	uint8_t t;

	for (t = 8; t <= 9; t++) {
		memset(&sent, 0, sizeof(sent));
		m6_new(&m, t);
		m6_opt(&m, 1, client_duid, sizeof(client_duid));
		m6_opt(&m, 2, our_duid, sizeof(our_duid));
		m6_ia_na(&m, 9, "2001:db8:1:2::10");
		ck_assert(feed6(m.b, m.len));
		ck_assert_uint_eq(sent.n, 1);
		r = reply6(0, 7, &len);
		check_ids6(r, len);
		ck_assert_int_eq(status6(r + 4, len - 4), 0);
	}
}
END_TEST

START_TEST(test_info_request6)
{
	const uint8_t *r;
	struct msg m;
	size_t len, l;

	m6_new(&m, 11);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 6, "\x00\x17\x00\x18", 4);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply6(0, 7, &len);
	check_ids6(r, len);
	check_config6(r, len);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 3, 0, &l));

	/* Without a Client Identifier: fine, none echoed */
	m6_new(&m, 11);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply6(1, 7, &len);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 1, 0, &l));
	ck_assert_ptr_nonnull(opt6(r + 4, len - 4, 2, 0, &l));

	/* With an IA: discarded */
	m6_ia_na(&m, 1, NULL);
	ck_assert(!feed6(m.b, m.len));

	/* Options off */
	ctx.no_dhcp_dns = true;
	ctx.no_dhcp_search = true;
	ctx.fqdn[0] = 0;
	m6_new(&m, 11);
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 3);
	r = reply6(2, 7, &len);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 23, 0, &l));
	ck_assert_ptr_null(opt6(r + 4, len - 4, 24, 0, &l));
	ck_assert_ptr_null(opt6(r + 4, len - 4, 39, 0, &l));

	/* The list conf/ made: --dns-forward alone offers nothing more */
	ctx.no_dhcp_dns = false;
	inet_pton(AF_INET6, "2001:db8:1:2::53", &ctx.ip6.dns_match);
	ctx.ip6.dns_count = 0;
	ck_assert(feed6(m.b, m.len));
	r = reply6(3, 7, &len);
	ck_assert_ptr_null(opt6(r + 4, len - 4, 23, 0, &l));
	ctx.ip6.dns[0] = ctx.ip6.dns_match;
	ctx.ip6.dns_count = 1;
	ck_assert(feed6(m.b, m.len));
	r = reply6(4, 7, &len);
	ck_assert_ptr_nonnull(opt6(r + 4, len - 4, 23, 0, &l));
	ck_assert_uint_eq(l, 16);

	ctx.no_dhcpv6 = true;
	ck_assert(!feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 5);
}
END_TEST

START_TEST(test_ia_kinds6)
{
	static const uint8_t ta[4] = { 0, 0, 0, 5 };
	static const uint8_t pd[12] = { 0, 0, 0, 6 };
	const uint8_t *r, *ia;
	struct msg m;
	size_t len, l;

	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 4, ta, sizeof(ta));
	m6_ia_na(&m, 1, NULL);
	m6_ia_na(&m, 2, NULL);
	m6_opt(&m, 25, pd, sizeof(pd));
	ck_assert(feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply6(0, 2, &len);

	check_ia_na6(r, len, 1);
	ia = opt6(r + 4, len - 4, 3, 1, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_eq(tf_get32(ia), 2);
	ck_assert_int_eq(status6(ia + 12, l - 12), 2);
	ck_assert_ptr_null(opt6(ia + 12, l - 12, 5, 0, &l));

	ia = opt6(r + 4, len - 4, 4, 0, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_eq(tf_get32(ia), 5);
	ck_assert_int_eq(status6(ia + 4, l - 4), 2);

	ia = opt6(r + 4, len - 4, 25, 0, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_uint_eq(tf_get32(ia), 6);
	ck_assert_int_eq(status6(ia + 12, l - 12), 6);

	/* No address configured: NoAddrsAvail */
	memset(&ctx.ip6.addr, 0, sizeof(ctx.ip6.addr));
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 1, NULL);
	ck_assert(feed6(m.b, m.len));
	r = reply6(1, 2, &len);
	ia = opt6(r + 4, len - 4, 3, 0, &l);
	ck_assert_ptr_nonnull(ia);
	ck_assert_int_eq(status6(ia + 12, l - 12), 2);
}
END_TEST

/**
 * struct opt6_spec - an option of a malformed DHCPv6 case
 * @code:	option code, 0 for none
 * @data:	data, NULL for none (or for zeros, if @len is not 0)
 * @len:	length
 */
struct opt6_spec {
	uint16_t code;
	const void *data;
	size_t len;
};

/**
 * struct bad6 - a malformed Solicit
 * @name:	what is wrong
 * @opt:	options, in order, up to the first with code 0
 * @ia_addr_len: if not 0: an IA_NA with an IA Address follows, the
 *		 IA Address option claiming this length instead of 24
 */
struct bad6 {
	const char *name;
	struct opt6_spec opt[2];
	uint16_t ia_addr_len;
};

#define CLIENT_ID	{ 1, client_duid, sizeof(client_duid) }

static const struct bad6 bad6_cases[] = {
	{ "no Client Identifier",	{ { 0 } }, 0 },
	{ "Server Identifier in a Solicit",
	  { CLIENT_ID, { 2, our_duid, sizeof(our_duid) } }, 0 },
	{ "Client Identifier twice",	{ CLIENT_ID, CLIENT_ID }, 0 },
	{ "Client Identifier too short",
	  { { 1, client_duid, 2 } }, 0 },
	{ "Client Identifier too long",	{ { 1, NULL, 131 } }, 0 },
	{ "IA_NA too short",
	  { CLIENT_ID, { 3, "\0\0\0\1\0\0\0\0\0\0\0", 11 } }, 0 },
	{ "IA Address too short",	{ CLIENT_ID }, 23 },
	{ "IA Address past its IA_NA",	{ CLIENT_ID }, 25 },
	{ "IA_TA too short",		{ CLIENT_ID, { 4, "\0\0\0", 3 } }, 0 },
	{ "Rapid Commit with data",	{ CLIENT_ID, { 14, "x", 1 } }, 0 },
	{ "empty FQDN",			{ CLIENT_ID, { 39, NULL, 0 } }, 0 },
};

#undef CLIENT_ID

/**
 * bad6_build() - build the Solicit of a malformed case
 * @b:		case
 * @m:		message, built
 */
static void bad6_build(const struct bad6 *b, struct msg *m)
{
	static const uint8_t zero[MSG_MAX];
	size_t i;

	m6_new(m, 1);
	for (i = 0; i < sizeof(b->opt) / sizeof(b->opt[0]); i++) {
		const struct opt6_spec *o = &b->opt[i];

		if (!o->code)
			break;
		m6_opt(m, o->code, o->data || !o->len ? o->data : zero,
		       o->len);
	}
	if (b->ia_addr_len) {
		m6_ia_na(m, 1, "2001:db8:1:2::10");
		tf_put16(m->b + m->len - 26, b->ia_addr_len);
	}
}

START_TEST(test_malformed6)
{
	struct in6_addr s;
	struct msg m;
	uint8_t t;
	size_t i;

	/* Server messages, relay messages, unknown types */
	for (t = 0; t < 40; t++) {
		if ((t >= 1 && t <= 6) || t == 8 || t == 9 || t == 11)
			continue;
		m6_new(&m, t);
		m6_opt(&m, 1, client_duid, sizeof(client_duid));
		ck_assert_msg(!feed6(m.b, m.len), "message type %u accepted",
			      t);
	}

	for (i = 0; i < sizeof(bad6_cases) / sizeof(bad6_cases[0]); i++) {
		bad6_build(&bad6_cases[i], &m);
		ck_assert_msg(!feed6(m.b, m.len), "%s: accepted",
			      bad6_cases[i].name);
	}

	/* Bad sources */
	m6_new(&m, 11);
	inet_pton(AF_INET6, "::", &s);
	ck_assert(!dhcpv6_input(&ctx, &s, m.b, m.len));
	inet_pton(AF_INET6, "ff02::1:2", &s);
	ck_assert(!dhcpv6_input(&ctx, &s, m.b, m.len));
	ck_assert_uint_eq(sent.n, 0);
}
END_TEST

START_TEST(test_truncated6)
{
	struct msg v;
	size_t i;

	/* Every truncation of a valid Request */
	m6_new(&v, 3);
	m6_opt(&v, 1, client_duid, sizeof(client_duid));
	m6_opt(&v, 2, our_duid, sizeof(our_duid));
	m6_ia_na(&v, 9, "2001:db8:1:2::10");
	m6_opt(&v, 39, "\x01\x01x\x00", 4);
	for (i = 0; i < v.len; i++) {
		bool ok = feed6(v.b, i);

		if (i < 4)
			ck_assert(!ok);
		ck_assert_uint_eq(sent.n, ok ? 1 : 0);
		memset(&sent, 0, sizeof(sent));
	}
	ck_assert(feed6(v.b, v.len));
}
END_TEST

START_TEST(test_fuzz6)
{
	unsigned int seed = 54321;
	size_t i, accepted = 0;
	struct msg v, m;

	m6_new(&v, 5);
	m6_opt(&v, 1, client_duid, sizeof(client_duid));
	m6_opt(&v, 2, our_duid, sizeof(our_duid));
	m6_ia_na(&v, 9, "2001:db8:1:2::10");
	m6_ia_na(&v, 10, "2001:db8:1:2::11");
	m6_opt(&v, 39, "\x01\x01x\x00", 4);
	m6_opt(&v, 6, "\x00\x17\x00\x18", 4);

	for (i = 0; i < 200000; i++) {
		size_t len = v.len, j, n;

		m = v;
		n = 1 + (size_t)rand_r(&seed) % 4;
		for (j = 0; j < n; j++) {
			size_t at = (size_t)rand_r(&seed) % v.len;

			m.b[at] = (uint8_t)rand_r(&seed);
		}
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % (v.len + 1);

		sent.n = 0;
		if (feed6(m.b, len)) {
			accepted++;
			if (sent.n) {
				size_t dlen;

				ck_assert_uint_eq(sent.n, 1);
				(void)reply6(0, 0, &dlen);
				ck_assert_uint_ge(dlen, 4);
			}
		} else {
			ck_assert_uint_eq(sent.n, 0);
		}
	}
	ck_assert_uint_gt(accepted, 0);
}
END_TEST

/**
 * dhcpv6_suite() - the test suite
 *
 * Return: suite
 */
static Suite *dhcpv6_suite(void)
{
	Suite *s = suite_create("dhcpv6");
	TCase *tc6 = tcase_create("dhcpv6");

	tcase_add_checked_fixture(tc6, setup, NULL);
	tcase_set_timeout(tc6, 60);
	tcase_add_test(tc6, test_solicit_advertise);
	tcase_add_test(tc6, test_solicit_rapid_commit);
	tcase_add_test(tc6, test_request_reply6);
	tcase_add_test(tc6, test_renew_rebind6);
	tcase_add_test(tc6, test_confirm6);
	tcase_add_test(tc6, test_release_decline6);
	tcase_add_test(tc6, test_info_request6);
	tcase_add_test(tc6, test_ia_kinds6);
	tcase_add_test(tc6, test_malformed6);
	tcase_add_test(tc6, test_truncated6);
	tcase_add_test(tc6, test_fuzz6);
	suite_add_tcase(s, tc6);

	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(dhcpv6_suite());
	int failed;

	/* Format every message, print none */
	log_set_level(LOG_TRACE);
	log_to_stderr(false);

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
