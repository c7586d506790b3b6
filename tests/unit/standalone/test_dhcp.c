// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dhcp.c - DHCPv4 server, with doubles for net/ output
 *
 * Build (not linked against the other modules: tests/unit/dhcp_doubles.h
 * defines its own qdisc_send(), net_fill_l2l3() and net_l2l3_len()):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_dhcp \
 *	tests/unit/standalone/test_dhcp.c net/dhcp.c net/dhcpv6.c \
 *	net/dns_name.c net/checksum.c util/log.c \
 *	$(pkg-config --cflags --libs check)
 *
 * Theory of operation: client messages are built byte by byte here and
 * passed to dhcp_input() from heap buffers of their exact size, so that
 * AddressSanitizer sees any read past the end. The qdisc_send() double
 * captures the replies; each is checked at every layer (Ethernet, IP
 * header checksum, UDP ports, length and checksum with the naive
 * reference of net_frames.h) and its options decoded and compared with
 * the configuration. Tables of malformed messages, truncations at every
 * length and seeded random mutations check that malformed messages are
 * rejected without a crash, and that whatever is accepted gets a
 * well-formed reply. The DHCPv6 server is tested by test_dhcpv6.c, with
 * the same doubles.
 */

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../../conf/ctx.h"
#include "../../../net/dhcp.h"
#include "../../../util/log.h"
#include "../dhcp_doubles.h"

/* Helpers: DHCPv4 */

/**
 * m4_new() - start a BOOTREQUEST with the magic cookie
 * @m:		message
 * @type:	DHCP message type, 0 for none
 */
static void m4_new(struct msg *m, uint8_t type)
{
	memset(m, 0, sizeof(*m));
	m->b[0] = 1;
	m->b[1] = 1;
	m->b[2] = 6;
	m->b[4] = 0xde;
	m->b[5] = 0xad;
	m->b[6] = 0xbe;
	m->b[7] = 0xef;
	memcpy(m->b + 28, tf_guest_mac, 6);
	m->b[236] = 99;
	m->b[237] = 130;
	m->b[238] = 83;
	m->b[239] = 99;
	m->len = 240;
	if (type) {
		m->b[m->len++] = 53;
		m->b[m->len++] = 1;
		m->b[m->len++] = type;
	}
}

/**
 * m_opt() - append a DHCPv4 option
 * @m:		message
 * @code:	code
 * @data:	data
 * @len:	length
 */
static void m_opt(struct msg *m, uint8_t code, const void *data, size_t len)
{
	m->b[m->len++] = code;
	m->b[m->len++] = (uint8_t)len;
	if (len)
		memcpy(m->b + m->len, data, len);
	m->len += len;
}

/**
 * m_addr() - append a DHCPv4 option holding an address
 * @m:		message
 * @code:	code
 * @text:	address
 */
static void m_addr(struct msg *m, uint8_t code, const char *text)
{
	struct in_addr a;

	inet_pton(AF_INET, text, &a);
	m_opt(m, code, &a, 4);
}

/**
 * m4_end() - append the End option and pad to 300 bytes
 * @m:		message
 */
static void m4_end(struct msg *m)
{
	m->b[m->len++] = 255;
	if (m->len < 300)
		m->len = 300;
}

/**
 * feed4() - pass a message to dhcp_input() from an exact heap copy
 * @b:		message
 * @len:	length
 *
 * Return: dhcp_input() result
 */
static bool feed4(const uint8_t *b, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	bool ret;

	ck_assert_ptr_nonnull(copy);
	memcpy(copy, b, len);
	ret = dhcp_input(&ctx, copy, len);
	free(copy);
	return ret;
}

/**
 * reply4() - check the frame of a captured DHCPv4 reply
 * @i:		index of the capture
 * @src:	expected IPv4 source
 * @dst:	expected IPv4 destination
 * @dlen:	output: DHCP message length
 *
 * Return: the DHCP message
 */
static const uint8_t *reply4(size_t i, const char *src, const char *dst,
			     size_t *dlen)
{
	const uint8_t *f = sent.buf[i], *ip = f + 14, *uh = f + 34;
	struct in_addr s, d;
	size_t len = sent.len[i];

	inet_pton(AF_INET, src, &s);
	inet_pton(AF_INET, dst, &d);

	ck_assert_uint_ge(len, 34 + 8 + 300);
	ck_assert_mem_eq(f, tf_guest_mac, 6);
	ck_assert_mem_eq(f + 6, tf_our_mac, 6);
	ck_assert_uint_eq(tf_get16(f + 12), 0x0800);
	ck_assert_uint_eq(ip[0], 0x45);
	ck_assert_uint_eq(tf_get16(ip + 2), len - 14);
	ck_assert_uint_eq(ip[9], IPPROTO_UDP);
	ck_assert_uint_eq(tf_finish(tf_sum(ip, 20, 0)), 0);
	ck_assert_mem_eq(ip + 12, &s, 4);
	ck_assert_mem_eq(ip + 16, &d, 4);

	ck_assert_uint_eq(tf_get16(uh), 67);
	ck_assert_uint_eq(tf_get16(uh + 2), 68);
	ck_assert_uint_eq(tf_get16(uh + 4), len - 34);
	ck_assert_uint_ne(tf_get16(uh + 6), 0);
	ck_assert_uint_eq(tf_finish(tf_sum(uh, len - 34,
					   tf_pseudo4(s, d, IPPROTO_UDP,
						      (uint16_t)(len - 34)))),
			  0);

	/* BOOTREPLY, Ethernet, our transaction, the client's chaddr */
	ck_assert_uint_eq(uh[8], 2);
	ck_assert_uint_eq(uh[9], 1);
	ck_assert_uint_eq(uh[10], 6);
	ck_assert_uint_eq(tf_get32(uh + 8 + 4), 0xdeadbeef);
	ck_assert_mem_eq(uh + 8 + 28, tf_guest_mac, 6);
	ck_assert_uint_eq(uh[8 + 236], 99);
	ck_assert_uint_eq(uh[8 + 237], 130);
	ck_assert_uint_eq(uh[8 + 238], 83);
	ck_assert_uint_eq(uh[8 + 239], 99);

	*dlen = len - 42;
	return uh + 8;
}

/**
 * opt4() - find an option in a reply, parts concatenated (RFC 3396)
 * @m:		DHCP message
 * @len:	its length
 * @code:	option code
 * @out:	output buffer, 1024 bytes
 *
 * Checks the options are well-formed and end with End.
 *
 * Return: data length, -1 if absent
 */
static int opt4(const uint8_t *m, size_t len, uint8_t code, uint8_t *out)
{
	size_t i = 240;
	int n = -1;

	for (;;) {
		ck_assert_uint_lt(i, len);
		if (m[i] == 0) {
			i++;
			continue;
		}
		if (m[i] == 255)
			break;
		ck_assert_uint_le(i + 2, len);
		ck_assert_uint_le(i + 2 + m[i + 1], len);
		if (m[i] == code) {
			if (n < 0)
				n = 0;
			ck_assert_uint_le((size_t)n + m[i + 1], 1024);
			memcpy(out + n, m + i + 2, m[i + 1]);
			n += m[i + 1];
		}
		i += 2 + m[i + 1];
	}
	return n;
}

/**
 * addr4_eq() - compare four bytes with a text address
 * @p:		bytes
 * @text:	address
 *
 * Return: true if equal
 */
static bool addr4_eq(const uint8_t *p, const char *text)
{
	struct in_addr a;

	inet_pton(AF_INET, text, &a);
	return !memcmp(p, &a, 4);
}

/**
 * check_config4() - check the configuration options of an OFFER or ACK
 * @m:		DHCP message
 * @len:	length
 * @lease:	lease time options expected
 */
static void check_config4(const uint8_t *m, size_t len, bool lease)
{
	uint8_t o[1024];

	ck_assert_int_eq(opt4(m, len, 54, o), 4);
	ck_assert(addr4_eq(o, "192.0.2.1"));
	ck_assert_int_eq(opt4(m, len, 1, o), 4);
	ck_assert(addr4_eq(o, "255.255.255.0"));
	ck_assert_int_eq(opt4(m, len, 3, o), 4);
	ck_assert(addr4_eq(o, "192.0.2.1"));
	ck_assert_int_eq(opt4(m, len, 121, o), -1);
	ck_assert_int_eq(opt4(m, len, 6, o), 8);
	ck_assert(addr4_eq(o, "192.0.2.53"));
	ck_assert(addr4_eq(o + 4, "198.51.100.53"));
	ck_assert_int_eq(opt4(m, len, 26, o), 2);
	ck_assert_uint_eq(tf_get16(o), 65520);
	ck_assert_int_eq(opt4(m, len, 12, o), 5);
	ck_assert_mem_eq(o, "guest", 5);
	ck_assert_int_eq(opt4(m, len, 15, o), 11);
	ck_assert_mem_eq(o, "example.com", 11);
	ck_assert_int_eq(opt4(m, len, 119, o), sizeof(search_wire));
	ck_assert_mem_eq(o, search_wire, sizeof(search_wire));

	/* FQDN, unasked: wire format, no updates from us */
	ck_assert_int_eq(opt4(m, len, 81, o), 3 + sizeof(fqdn_wire));
	ck_assert_uint_eq(o[0], 0x04 | 0x08);
	ck_assert_uint_eq(o[1], 255);
	ck_assert_uint_eq(o[2], 255);
	ck_assert_mem_eq(o + 3, fqdn_wire, sizeof(fqdn_wire));

	if (lease) {
		ck_assert_int_eq(opt4(m, len, 51, o), 4);
		ck_assert_uint_eq(tf_get32(o), 0xffffffff);
		ck_assert_int_eq(opt4(m, len, 58, o), 4);
		ck_assert_uint_eq(tf_get32(o), 0xffffffff);
		ck_assert_int_eq(opt4(m, len, 59, o), 4);
		ck_assert_uint_eq(tf_get32(o), 0xffffffff);
	} else {
		ck_assert_int_eq(opt4(m, len, 51, o), -1);
		ck_assert_int_eq(opt4(m, len, 58, o), -1);
		ck_assert_int_eq(opt4(m, len, 59, o), -1);
	}
}

/**
 * msg_type4() - message type of a reply
 * @m:		DHCP message
 * @len:	length
 *
 * Return: option 53, -1 if absent
 */
static int msg_type4(const uint8_t *m, size_t len)
{
	uint8_t o[1024];

	if (opt4(m, len, 53, o) < 0)
		return -1;
	return o[0];
}

/* DHCPv4 tests */

START_TEST(test_discover_offer)
{
	static const uint8_t prl[] = { 1, 3, 6, 15, 26, 119 };
	const uint8_t *r;
	struct msg m;
	size_t len;

	m4_new(&m, 1);
	m_opt(&m, 55, prl, sizeof(prl));
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);

	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_uint_le(len, 576 - 28);
	ck_assert_int_eq(msg_type4(r, len), 2);
	ck_assert(addr4_eq(r + 16, "192.0.2.10"));	/* yiaddr */
	ck_assert(addr4_eq(r + 12, "0.0.0.0"));		/* ciaddr */
	ck_assert(addr4_eq(r + 20, "0.0.0.0"));		/* siaddr */
	check_config4(r, len, true);
	{
		uint8_t o[1024];

		ck_assert_int_eq(opt4(r, len, 80, o), -1);
	}
}
END_TEST

START_TEST(test_broadcast_flag_and_mac)
{
	struct msg m;
	size_t len;

	/* MAC still unknown: learnt from chaddr; flags echoed */
	guest_mac_set((const unsigned char [6]){ 0 });
	m4_new(&m, 1);
	m.b[10] = 0x80;
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_mem_eq(guest_mac(), tf_guest_mac, 6);
	ck_assert_uint_eq(reply4(0, "192.0.2.1", "255.255.255.255",
				 &len)[10], 0x80);
}
END_TEST

START_TEST(test_request_ack)
{
	const uint8_t *r;
	struct msg m;
	size_t len;

	/* Selecting */
	m4_new(&m, 3);
	m_addr(&m, 50, "192.0.2.10");
	m_addr(&m, 54, "192.0.2.1");
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 5);
	ck_assert(addr4_eq(r + 16, "192.0.2.10"));
	check_config4(r, len, true);

	/* Init-reboot */
	m4_new(&m, 3);
	m_addr(&m, 50, "192.0.2.10");
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 5);

	/* Renewing: ciaddr, unicast reply */
	m4_new(&m, 3);
	inet_pton(AF_INET, "192.0.2.10", m.b + 12);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 3);
	r = reply4(2, "192.0.2.1", "192.0.2.10", &len);
	ck_assert_int_eq(msg_type4(r, len), 5);
	ck_assert(addr4_eq(r + 12, "192.0.2.10"));
	ck_assert(addr4_eq(r + 16, "192.0.2.10"));
}
END_TEST

START_TEST(test_request_nak)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	m4_new(&m, 3);
	m_addr(&m, 50, "192.0.2.77");
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 6);
	ck_assert(addr4_eq(r + 16, "0.0.0.0"));
	ck_assert_int_eq(opt4(r, len, 54, o), 4);
	ck_assert_int_eq(opt4(r, len, 51, o), -1);
	ck_assert_int_eq(opt4(r, len, 1, o), -1);
	ck_assert_int_eq(opt4(r, len, 3, o), -1);

	/* Renewing a wrong address: NAK, broadcast */
	m4_new(&m, 3);
	inet_pton(AF_INET, "192.0.2.11", m.b + 12);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 6);
	ck_assert(addr4_eq(r + 12, "0.0.0.0"));

	/* No address at all */
	m4_new(&m, 3);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 3);
	r = reply4(2, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 6);

	/* For another server: silence, but consumed */
	m4_new(&m, 3);
	m_addr(&m, 50, "192.0.2.10");
	m_addr(&m, 54, "192.0.2.254");
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 3);
}
END_TEST

START_TEST(test_rapid_commit)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	m4_new(&m, 1);
	m_opt(&m, 80, NULL, 0);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), 5);
	ck_assert_int_eq(opt4(r, len, 80, o), 0);
	ck_assert(addr4_eq(r + 16, "192.0.2.10"));
	check_config4(r, len, true);

	/* Rapid commit with data: malformed */
	m4_new(&m, 1);
	m_opt(&m, 80, "x", 1);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
}
END_TEST

START_TEST(test_bootp)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	/* RFC 951 request: zeroed vendor area */
	m4_new(&m, 0);
	memset(m.b + 236, 0, 4);
	m.len = 300;
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), -1);
	ck_assert(addr4_eq(r + 16, "192.0.2.10"));
	ck_assert_int_eq(opt4(r, len, 1, o), 4);
	ck_assert_int_eq(opt4(r, len, 3, o), 4);
	ck_assert_int_eq(opt4(r, len, 6, o), 8);
	ck_assert_int_eq(opt4(r, len, 54, o), -1);
	ck_assert_int_eq(opt4(r, len, 51, o), -1);

	/* No vendor area at all */
	ck_assert(feed4(m.b, 236));
	ck_assert_uint_eq(sent.n, 2);

	/* Cookie, no message type */
	m4_new(&m, 0);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 3);
	r = reply4(2, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(msg_type4(r, len), -1);
}
END_TEST

START_TEST(test_inform)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	m4_new(&m, 8);
	inet_pton(AF_INET, "192.0.2.10", m.b + 12);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "192.0.2.1", "192.0.2.10", &len);
	ck_assert_int_eq(msg_type4(r, len), 5);
	ck_assert(addr4_eq(r + 16, "0.0.0.0"));
	ck_assert(addr4_eq(r + 12, "192.0.2.10"));
	check_config4(r, len, false);
	ck_assert_int_eq(opt4(r, len, 80, o), -1);
}
END_TEST

START_TEST(test_decline_release)
{
	struct msg m;

	m4_new(&m, 4);
	m_addr(&m, 50, "192.0.2.10");
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	m4_new(&m, 7);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 0);
}
END_TEST

START_TEST(test_classless_routes)
{
	static const uint8_t prl[] = { 1, 3, 121 };
	uint8_t o[1024];
	const uint8_t *r;
	struct in_addr gw;
	struct msg m;
	size_t len;

	inet_pton(AF_INET, "198.51.100.1", &ctx.ip4.gw);
	gw = ctx.ip4.gw;

	m4_new(&m, 1);
	m_opt(&m, 55, prl, sizeof(prl));
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	r = reply4(0, "198.51.100.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 121, o), 14);
	ck_assert_uint_eq(o[0], 32);
	ck_assert_mem_eq(o + 1, &gw, 4);
	ck_assert(addr4_eq(o + 5, "0.0.0.0"));
	ck_assert_uint_eq(o[9], 0);
	ck_assert_mem_eq(o + 10, &gw, 4);
	ck_assert_int_eq(opt4(r, len, 3, o), -1);
	ck_assert_int_eq(opt4(r, len, 54, o), 4);
	ck_assert_mem_eq(o, &gw, 4);

	/* A client that does not ask for option 121 gets option 3 too */
	m4_new(&m, 1);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
	r = reply4(1, "198.51.100.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 121, o), 14);
	ck_assert_int_eq(opt4(r, len, 3, o), 4);
	ck_assert_mem_eq(o, &gw, 4);
}
END_TEST

START_TEST(test_no_gateway)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	/* No gateway: first other address of the subnet answers */
	ctx.ip4.gw.s_addr = 0;
	m4_new(&m, 1);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 3, o), -1);
	ck_assert_int_eq(opt4(r, len, 121, o), -1);
	ck_assert_int_eq(opt4(r, len, 54, o), 4);
	ck_assert(addr4_eq(o, "192.0.2.1"));

	inet_pton(AF_INET, "192.0.2.1", &ctx.ip4.addr);
	m4_new(&m, 1);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(1, "192.0.2.2", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 54, o), 4);
	ck_assert(addr4_eq(o, "192.0.2.2"));
}
END_TEST

START_TEST(test_options_disabled)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	ctx.no_dhcp_dns = true;
	ctx.no_dhcp_search = true;
	ctx.mtu = 0;
	ctx.hostname[0] = 0;
	ctx.fqdn[0] = 0;
	m4_new(&m, 1);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 6, o), -1);
	ck_assert_int_eq(opt4(r, len, 15, o), -1);
	ck_assert_int_eq(opt4(r, len, 119, o), -1);
	ck_assert_int_eq(opt4(r, len, 26, o), -1);
	ck_assert_int_eq(opt4(r, len, 12, o), -1);
	ck_assert_int_eq(opt4(r, len, 81, o), -1);
	ck_assert_int_eq(opt4(r, len, 1, o), 4);

	/* The list conf/ made, in its order (a loopback resolver already
	 * replaced there), whatever --dns-forward says
	 */
	ctx.no_dhcp_dns = false;
	inet_pton(AF_INET, "192.0.2.2", &ctx.ip4.dns_match);
	inet_pton(AF_INET, "192.0.2.1", &ctx.ip4.dns[0]);
	inet_pton(AF_INET, "198.51.100.53", &ctx.ip4.dns[1]);
	ctx.ip4.dns_count = 2;
	ck_assert(feed4(m.b, m.len));
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 6, o), 8);
	ck_assert(addr4_eq(o, "192.0.2.1"));
	ck_assert(addr4_eq(o + 4, "198.51.100.53"));

	/* -D none, -S none */
	ctx.no_dns = true;
	ctx.no_search = true;
	ctx.no_dhcp_search = false;
	ck_assert(feed4(m.b, m.len));
	r = reply4(2, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 6, o), -1);
	ck_assert_int_eq(opt4(r, len, 119, o), -1);

	/* MTU limits: 68 and 65535 are fine, 67 is not */
	ctx.mtu = 68;
	ck_assert(feed4(m.b, m.len));
	r = reply4(3, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 26, o), 2);
	ck_assert_uint_eq(tf_get16(o), 68);
	memset(&sent, 0, sizeof(sent));
	ctx.mtu = 67;
	ck_assert(feed4(m.b, m.len));
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 26, o), -1);

	/* Disabled altogether */
	ctx.no_dhcp = true;
	ck_assert(!feed4(m.b, m.len));
	ctx.no_dhcp = false;
	ctx.ip4.enabled = false;
	ck_assert(!feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
}
END_TEST

START_TEST(test_fqdn_option)
{
	static const uint8_t ascii_s[] = { 0x01, 0, 0, 'x' };
	static const uint8_t wire[] = { 0x04, 0, 0, 1, 'x', 0 };
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;

	/* ASCII encoding asked, and S: override */
	m4_new(&m, 1);
	m_opt(&m, 81, ascii_s, sizeof(ascii_s));
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 81, o), 3 + 17);
	ck_assert_uint_eq(o[0], 0x08 | 0x02);
	ck_assert_mem_eq(o + 3, "guest.example.com", 17);

	/* Client sends one, we have no name: flags only */
	ctx.fqdn[0] = 0;
	m4_new(&m, 1);
	m_opt(&m, 81, wire, sizeof(wire));
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 81, o), 3);
	ck_assert_uint_eq(o[0], 0x0c);

	/* Too short */
	m4_new(&m, 1);
	m_opt(&m, 81, wire, 2);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 2);
}
END_TEST

START_TEST(test_long_search_list)
{
	uint8_t o[1024];
	const uint8_t *r;
	struct msg m;
	size_t len;
	int i, n;

	/* Six names of 200 bytes: options beyond 255 bytes are split,
	 * names beyond the client's maximum size are left out
	 */
	for (i = 0; i < SEARCH_MAX; i++) {
		char *s = ctx.search[i];
		int j;

		for (j = 0; j < 200; j += 50) {
			memset(s + j, 'a' + i, 49);
			s[j + 49] = '.';
		}
		s[199] = 0;
	}
	ctx.search_count = SEARCH_MAX;

	m4_new(&m, 1);
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(0, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_uint_le(len + 28, 576);
	ck_assert_int_eq(opt4(r, len, 15, o), 199);
	n = opt4(r, len, 119, o);
	ck_assert(n == -1 || (n > 0 && n % 201 == 0));

	/* Larger maximum message size: more names, in parts */
	m4_new(&m, 1);
	{
		uint8_t ms[2];

		tf_put16(ms, 1500);
		m_opt(&m, 57, ms, 2);
	}
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_uint_le(len + 28, 1500);
	n = opt4(r, len, 119, o);
	ck_assert_int_ge(n, 201 * 4);
	ck_assert_int_eq(n % 201, 0);
	for (i = 0; i < n / 201; i++) {
		ck_assert_uint_eq(o[201 * i], 49);
		ck_assert_uint_eq(o[201 * i + 1], 'a' + i);
		ck_assert_uint_eq(o[201 * i + 200], 0);
	}
}
END_TEST

/**
 * struct bad_hdr4 - a fixed header field of a valid DISCOVER made wrong
 * @name:	what is wrong
 * @at:		offset of the byte
 * @val:	its value
 */
struct bad_hdr4 {
	const char *name;
	size_t at;
	uint8_t val;
};

static const struct bad_hdr4 bad_hdr4_cases[] = {
	{ "BOOTREPLY",			0,	2 },
	{ "hardware type 6",		1,	6 },
	{ "hardware address length 16",	2,	16 },
	{ "bad magic cookie",		239,	98 },
};

/**
 * struct bad_opt4 - a message with an option we read of a bad length, or
 *		     a duplicate
 * @name:	what is wrong
 * @type:	message type option to start with, 0 for none
 * @code:	code of the option appended
 * @data:	its data
 * @len:	its length
 */
struct bad_opt4 {
	const char *name;
	uint8_t type;
	uint8_t code;
	const char *data;
	size_t len;
};

static const struct bad_opt4 bad_opt4_cases[] = {
	{ "message type of 2 bytes",	0, 53, "\x01\x01", 2 },
	{ "message type twice",		1, 53, "\x01", 1 },
	{ "requested address of 3 bytes", 1, 50, "\xc0\x00\x02", 3 },
	{ "server identifier of 5 bytes", 3, 54, "\xc0\x00\x02\x01\x00", 5 },
	{ "maximum message size of 1 byte", 1, 57, "\x05", 1 },
	{ "empty message type",		0, 53, "", 0 },
};

/**
 * discover4() - the valid DISCOVER the malformed cases start from
 * @v:		message, built
 */
static void discover4(struct msg *v)
{
	m4_new(v, 1);
	m_addr(v, 50, "192.0.2.10");
	m_opt(v, 55, "\x01\x03\x06", 3);
	m4_end(v);
}

START_TEST(test_malformed4)
{
	struct msg m, v;
	size_t i;

	/* Server messages and unknown types */
	for (i = 0; i < 20; i++) {
		if (i == 1 || i == 3 || i == 4 || i == 7 || i == 8)
			continue;
		m4_new(&m, (uint8_t)i);
		m4_end(&m);
		ck_assert_msg(!feed4(m.b, m.len) || i == 0,
			      "message type %zu accepted", i);
	}
	memset(&sent, 0, sizeof(sent));

	discover4(&v);
	for (i = 0; i < sizeof(bad_hdr4_cases) / sizeof(bad_hdr4_cases[0]);
	     i++) {
		const struct bad_hdr4 *b = &bad_hdr4_cases[i];

		m = v;
		m.b[b->at] = b->val;
		ck_assert_msg(!feed4(m.b, m.len), "%s: accepted", b->name);
	}

	/* Option running past the end */
	m = v;
	m.len = 240;
	m.b[m.len++] = 53;
	m.b[m.len++] = 1;
	m.b[m.len++] = 1;
	m.b[m.len++] = 12;
	m.b[m.len++] = 10;
	ck_assert(!feed4(m.b, m.len + 5));
	ck_assert(!feed4(m.b, m.len));
	ck_assert(!feed4(m.b, m.len - 1));

	for (i = 0; i < sizeof(bad_opt4_cases) / sizeof(bad_opt4_cases[0]);
	     i++) {
		const struct bad_opt4 *b = &bad_opt4_cases[i];

		m4_new(&m, b->type);
		m_opt(&m, b->code, b->data, b->len);
		m4_end(&m);
		ck_assert_msg(!feed4(m.b, m.len), "%s: accepted", b->name);
	}
	ck_assert_uint_eq(sent.n, 0);
}
END_TEST

START_TEST(test_truncated4)
{
	struct msg v;
	size_t i;

	/* Every truncation: short ones rejected, none read past the end */
	discover4(&v);
	for (i = 0; i <= v.len; i++) {
		bool ok = feed4(v.b, i);

		if (i < 236)
			ck_assert(!ok);
		if (ok)
			ck_assert_uint_ge(sent.len[0], 342);
		memset(&sent, 0, sizeof(sent));
	}
}
END_TEST

START_TEST(test_fuzz4)
{
	struct msg v, m;
	unsigned int seed = 12345;
	size_t i, accepted = 0;

	m4_new(&v, 3);
	m_addr(&v, 50, "192.0.2.10");
	m_addr(&v, 54, "192.0.2.1");
	m_opt(&v, 55, "\x01\x03\x06\x0f\x1a\x77\x79", 7);
	m_opt(&v, 81, "\x05\x00\x00\x01x\x00", 6);
	m_opt(&v, 57, "\x05\xdc", 2);
	v.b[v.len++] = 255;

	for (i = 0; i < 200000; i++) {
		size_t len = v.len, j, n;

		m = v;
		n = 1 + (size_t)rand_r(&seed) % 4;
		for (j = 0; j < n; j++) {
			size_t at = 236 + (size_t)rand_r(&seed) % (v.len - 236);

			m.b[at] = (uint8_t)rand_r(&seed);
		}
		if (rand_r(&seed) % 4 == 0)
			len = (size_t)rand_r(&seed) % (v.len + 1);

		sent.n = 0;
		if (feed4(m.b, len)) {
			accepted++;
			if (sent.n) {
				ck_assert_uint_eq(sent.n, 1);
				ck_assert_uint_ge(sent.len[0], 342);
				ck_assert_uint_le(sent.len[0], 14 + 1500);
			}
		} else {
			ck_assert_uint_eq(sent.n, 0);
		}
	}
	ck_assert_uint_gt(accepted, 0);
}
END_TEST

/**
 * dhcp_suite() - the test suite
 *
 * Return: suite
 */
static Suite *dhcp_suite(void)
{
	Suite *s = suite_create("dhcp");
	TCase *tc = tcase_create("dhcpv4");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_discover_offer);
	tcase_add_test(tc, test_broadcast_flag_and_mac);
	tcase_add_test(tc, test_request_ack);
	tcase_add_test(tc, test_request_nak);
	tcase_add_test(tc, test_rapid_commit);
	tcase_add_test(tc, test_bootp);
	tcase_add_test(tc, test_inform);
	tcase_add_test(tc, test_decline_release);
	tcase_add_test(tc, test_classless_routes);
	tcase_add_test(tc, test_no_gateway);
	tcase_add_test(tc, test_options_disabled);
	tcase_add_test(tc, test_fqdn_option);
	tcase_add_test(tc, test_long_search_list);
	tcase_add_test(tc, test_malformed4);
	tcase_add_test(tc, test_truncated4);
	tcase_add_test(tc, test_fuzz4);
	suite_add_tcase(s, tc);

	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(dhcp_suite());
	int failed;

	/* Format every message, print none */
	log_set_level(LOG_TRACE);
	log_to_stderr(false);

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
