/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp_doubles.h - test doubles and shared parts of the DHCP server tests
 *
 * Theory of operation: tests/unit/standalone/test_dhcp.c (DHCPv4) and
 * test_dhcpv6.c (DHCPv6) are linked with net/dhcp.c, net/dhcpv6.c and
 * what they need, and not with net/net.c or qdisc/: this header gives each
 * of them the same doubles for the functions those modules call. The
 * qdisc_send() double captures the replies for the tests to check, and
 * net_fill_l2l3() is a plain reference version of the Ethernet and IP
 * headers. setup() is the configuration every test starts from, and the
 * wire forms of its search list and FQDN are what both servers must send.
 * Included by exactly one file of each test binary: it defines functions
 * and variables.
 */
#ifndef TESTS_UNIT_DHCP_DOUBLES_H
#define TESTS_UNIT_DHCP_DOUBLES_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../conf/ctx.h"
#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "net_frames.h"

#define SENT_MAX	5
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
void qdisc_send(const struct ctx *c, const void *frame, size_t len)
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

	if (memcmp(guest_mac(), zero, 6) != 0)
		memcpy(buf, guest_mac(), 6);
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
static inline void setup(void)
{
	tf_ctx(&ctx);
	guest_mac_set(tf_guest_mac);
	inet_pton(AF_INET, "192.0.2.53", &ctx.ip4.dns[0]);
	inet_pton(AF_INET, "198.51.100.53", &ctx.ip4.dns[1]);
	ctx.ip4.dns_count = 2;
	snprintf(ctx.hostname, sizeof(ctx.hostname), "%s", "guest");
	snprintf(ctx.fqdn, sizeof(ctx.fqdn), "%s", "guest.example.com");
	memset(&sent, 0, sizeof(sent));
}

/**
 * struct msg - a client message being built
 * @b:		bytes
 * @len:	length so far
 */
struct msg {
	uint8_t b[MSG_MAX];
	size_t len;
};

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

#endif /* TESTS_UNIT_DHCP_DOUBLES_H */
