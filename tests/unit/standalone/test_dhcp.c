// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dhcp.c - DHCPv4 and DHCPv6 servers, with doubles for net/ output
 *
 * Build (not linked against the other modules: it defines its own
 * qdisc_send(), net_fill_l2l3() and net_l2l3_len()):
 *
 *   cc $(CFLAGS) -I. -o build/tests/test_dhcp \
 *	tests/unit/standalone/test_dhcp.c net/dhcp.c net/dhcpv6.c \
 *	net/checksum.c util/log.c $(pkg-config --cflags --libs check)
 *
 * Theory of operation: client messages are built byte by byte here and
 * passed to dhcp_input() and dhcpv6_input() from heap buffers of their
 * exact size, so that AddressSanitizer sees any read past the end. The
 * qdisc_send() double captures the replies; each is checked at every
 * layer (Ethernet, IP header checksum, UDP ports, length and checksum with
 * the naive reference of net_frames.h) and its options decoded and
 * compared with the configuration. net_fill_l2l3() is a plain reference
 * version, so that this test does not drag in net/net.c and what it
 * dispatches to. Truncations at every length and seeded random mutations
 * check that malformed messages are rejected without a crash, and that
 * whatever is accepted gets a well-formed reply.
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
#include "../../../net/dhcpv6.h"
#include "../../../net/net.h"
#include "../../../qdisc/qdisc.h"
#include "../../../util/log.h"
#include "../net_frames.h"

#define SENT_MAX	4
#define SENT_SIZE	2048
#define MSG_MAX		1500

static struct ctx ctx;

/**
 * struct sent - frames captured from qdisc_send()
 * @n:		number of frames
 * @len:	length of each
 * @buf:	copies
 */
static struct {
	size_t n;
	size_t len[SENT_MAX];
	uint8_t buf[SENT_MAX][SENT_SIZE];
} sent;

/**
 * qdisc_send() - test double: record the frame
 * @c:		execution context
 * @frame:	frame
 * @len:	length
 */
void qdisc_send(struct ctx *c, const void *frame, size_t len)
{
	(void)c;
	ck_assert_uint_le(len, SENT_SIZE);
	ck_assert_uint_ge(len, 14);
	if (sent.n < SENT_MAX) {
		memcpy(sent.buf[sent.n], frame, len);
		sent.len[sent.n] = len;
	}
	sent.n++;
}

/**
 * net_l2l3_len() - test double: Ethernet and IP header length
 * @src:	source address
 *
 * Return: 34 for IPv4, 54 for IPv6
 */
size_t net_l2l3_len(const union inany_addr *src)
{
	return inany_v4(src) ? 34 : 54;
}

/**
 * net_fill_l2l3() - test double: reference Ethernet and IP headers
 * @c:		execution context
 * @buf:	frame
 * @src:	source address
 * @dst:	destination address
 * @proto:	L4 protocol
 * @l4len:	L4 length
 *
 * Return: offset of the L4 header
 */
size_t net_fill_l2l3(const struct ctx *c, uint8_t *buf,
		     const union inany_addr *src, const union inany_addr *dst,
		     uint8_t proto, size_t l4len)
{
	static const uint8_t zero[6];
	const struct in_addr *s4 = inany_v4(src), *d4 = inany_v4(dst);
	uint8_t *ip = buf + 14;

	if (memcmp(c->guest_mac, zero, 6) != 0)
		memcpy(buf, c->guest_mac, 6);
	else
		memset(buf, 0xff, 6);
	memcpy(buf + 6, c->our_mac, 6);

	if (s4) {
		ck_assert_ptr_nonnull(d4);
		tf_put16(buf + 12, 0x0800);
		memset(ip, 0, 20);
		ip[0] = 0x45;
		tf_put16(ip + 2, (uint16_t)(20 + l4len));
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, s4, 4);
		memcpy(ip + 16, d4, 4);
		tf_put16(ip + 10, tf_finish(tf_sum(ip, 20, 0)));
		return 34;
	}

	ck_assert_ptr_null(d4);
	tf_put16(buf + 12, 0x86dd);
	memset(ip, 0, 8);
	ip[0] = 0x60;
	tf_put16(ip + 4, (uint16_t)l4len);
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, &src->a6, 16);
	memcpy(ip + 24, &dst->a6, 16);
	return 54;
}

/**
 * setup() - fresh configuration and captures for each test
 */
static void setup(void)
{
	tf_ctx(&ctx);
	memcpy(ctx.guest_mac, tf_guest_mac, 6);
	inet_pton(AF_INET, "192.0.2.53", &ctx.ip4.dns[0]);
	inet_pton(AF_INET, "198.51.100.53", &ctx.ip4.dns[1]);
	ctx.ip4.dns_count = 2;
	snprintf(ctx.hostname, sizeof(ctx.hostname), "%s", "guest");
	snprintf(ctx.fqdn, sizeof(ctx.fqdn), "%s", "guest.example.com");
	memset(&sent, 0, sizeof(sent));
}

/* Helpers: DHCPv4 */

/**
 * struct msg - a client message being built
 * @b:		bytes
 * @len:	length so far
 */
struct msg {
	uint8_t b[MSG_MAX];
	size_t len;
};

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

/* Wire form of "example.com" and "lab.example.org" */
static const uint8_t search_wire[] = {
	7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
	3, 'l', 'a', 'b', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	3, 'o', 'r', 'g', 0,
};

/* Wire form of "guest.example.com" */
static const uint8_t fqdn_wire[] = {
	5, 'g', 'u', 'e', 's', 't', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
	3, 'c', 'o', 'm', 0,
};

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
	memset(ctx.guest_mac, 0, 6);
	m4_new(&m, 1);
	m.b[10] = 0x80;
	m4_end(&m);
	ck_assert(feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 1);
	ck_assert_mem_eq(ctx.guest_mac, tf_guest_mac, 6);
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

	/* --dns-forward address offered instead of the host's */
	ctx.no_dhcp_dns = false;
	inet_pton(AF_INET, "192.0.2.2", &ctx.ip4.dns_match);
	ck_assert(feed4(m.b, m.len));
	r = reply4(1, "192.0.2.1", "255.255.255.255", &len);
	ck_assert_int_eq(opt4(r, len, 6, o), 4);
	ck_assert(addr4_eq(o, "192.0.2.2"));

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
		ck_assert(!feed4(m.b, m.len) || i == 0);
	}
	memset(&sent, 0, sizeof(sent));

	m4_new(&v, 1);
	m_addr(&v, 50, "192.0.2.10");
	m_opt(&v, 55, "\x01\x03\x06", 3);
	m4_end(&v);

	m = v;
	m.b[0] = 2;
	ck_assert(!feed4(m.b, m.len));
	m = v;
	m.b[1] = 6;
	ck_assert(!feed4(m.b, m.len));
	m = v;
	m.b[2] = 16;
	ck_assert(!feed4(m.b, m.len));
	m = v;
	m.b[239] = 98;
	ck_assert(!feed4(m.b, m.len));

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

	/* Bad lengths of options we read, duplicates */
	m4_new(&m, 0);
	m_opt(&m, 53, "\x01\x01", 2);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	m4_new(&m, 1);
	m_opt(&m, 53, "\x01", 1);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	m4_new(&m, 1);
	m_opt(&m, 50, "\xc0\x00\x02", 3);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	m4_new(&m, 3);
	m_opt(&m, 54, "\xc0\x00\x02\x01\x00", 5);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	m4_new(&m, 1);
	m_opt(&m, 57, "\x05", 1);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	m4_new(&m, 0);
	m_opt(&m, 53, "", 0);
	m4_end(&m);
	ck_assert(!feed4(m.b, m.len));
	ck_assert_uint_eq(sent.n, 0);

	/* Every truncation: short ones rejected, none read past the end */
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

	/* --dns-forward */
	ctx.no_dhcp_dns = false;
	inet_pton(AF_INET6, "2001:db8:1:2::53", &ctx.ip6.dns_match);
	ck_assert(feed6(m.b, m.len));
	r = reply6(3, 7, &len);
	ck_assert_ptr_nonnull(opt6(r + 4, len - 4, 23, 0, &l));
	ck_assert_uint_eq(l, 16);

	ctx.no_dhcpv6 = true;
	ck_assert(!feed6(m.b, m.len));
	ck_assert_uint_eq(sent.n, 4);
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

START_TEST(test_malformed6)
{
	struct msg m, v;
	uint8_t t;
	size_t i;

	memset(&v, 0, sizeof(v));

	/* Server messages, relay messages, unknown types */
	for (t = 0; t < 40; t++) {
		if ((t >= 1 && t <= 6) || t == 8 || t == 9 || t == 11)
			continue;
		m6_new(&m, t);
		m6_opt(&m, 1, client_duid, sizeof(client_duid));
		ck_assert(!feed6(m.b, m.len));
	}

	/* Solicit: Client Identifier needed, Server Identifier forbidden */
	m6_new(&m, 1);
	ck_assert(!feed6(m.b, m.len));
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 2, our_duid, sizeof(our_duid));
	ck_assert(!feed6(m.b, m.len));

	/* Duplicate Client Identifier, too short, too long */
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	ck_assert(!feed6(m.b, m.len));
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, 2);
	ck_assert(!feed6(m.b, m.len));
	m6_new(&m, 1);
	m6_opt(&m, 1, v.b, 131);
	ck_assert(!feed6(m.b, m.len));

	/* IA_NA too short, IA Address too short, sub-option overrun */
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 3, "\0\0\0\1\0\0\0\0\0\0\0", 11);
	ck_assert(!feed6(m.b, m.len));
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_ia_na(&m, 1, "2001:db8:1:2::10");
	tf_put16(m.b + m.len - 26, 23);
	ck_assert(!feed6(m.b, m.len));
	tf_put16(m.b + m.len - 26, 25);
	ck_assert(!feed6(m.b, m.len));
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 4, "\0\0\0", 3);
	ck_assert(!feed6(m.b, m.len));

	/* Rapid Commit with data, empty FQDN */
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 14, "x", 1);
	ck_assert(!feed6(m.b, m.len));
	m6_new(&m, 1);
	m6_opt(&m, 1, client_duid, sizeof(client_duid));
	m6_opt(&m, 39, NULL, 0);
	ck_assert(!feed6(m.b, m.len));

	/* Bad sources */
	m6_new(&m, 11);
	{
		struct in6_addr s;

		inet_pton(AF_INET6, "::", &s);
		ck_assert(!dhcpv6_input(&ctx, &s, m.b, m.len));
		inet_pton(AF_INET6, "ff02::1:2", &s);
		ck_assert(!dhcpv6_input(&ctx, &s, m.b, m.len));
	}
	ck_assert_uint_eq(sent.n, 0);

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
 * dhcp_suite() - the test suite
 *
 * Return: suite
 */
static Suite *dhcp_suite(void)
{
	Suite *s = suite_create("dhcp");
	TCase *tc = tcase_create("dhcpv4");
	TCase *tc6 = tcase_create("dhcpv6");

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
	tcase_add_test(tc, test_fuzz4);
	suite_add_tcase(s, tc);

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
