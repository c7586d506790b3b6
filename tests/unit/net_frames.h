/* SPDX-License-Identifier: GPL-2.0-or-later */
/* net_frames.h - frame builders and a reference checksum for net/ tests
 *
 * Theory of operation: the tests build guest frames byte by byte here,
 * with their own naive checksum (16-bit big-endian words, one at a time),
 * so that net/checksum.c is checked against an independent reference.
 * Included by unit tests of net/, udp/ and the checksums, and by the
 * standalone net/ tests through dhcp_doubles.h and net_io_doubles.h.
 */
#ifndef TESTS_UNIT_NET_FRAMES_H
#define TESTS_UNIT_NET_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "../../conf/ctx.h"
#include "../../guest/guest.h"

#define TF_FRAME_MAX		2048

static const uint8_t tf_our_mac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
static const uint8_t tf_guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t tf_bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/**
 * tf_put16() - write a big-endian 16-bit value
 * @p:		destination
 * @v:		value
 */
static inline void tf_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * tf_get16() - read a big-endian 16-bit value
 * @p:		source
 *
 * Return: value
 */
static inline uint16_t tf_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/**
 * tf_get32() - read a big-endian 32-bit value
 * @p:		source
 *
 * Return: value
 */
static inline uint32_t tf_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/**
 * tf_sum() - naive one's complement sum, one big-endian word at a time
 * @p:		data
 * @len:	length, odd lengths padded with zero
 * @sum:	sum so far
 *
 * Return: new sum (host order, not folded)
 */
static inline uint32_t tf_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (len & 1) {
		sum += (uint32_t)p[len - 1] << 8;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return sum;
}

/**
 * tf_finish() - fold and invert a naive sum
 * @sum:	sum from tf_sum()
 *
 * Return: checksum, host order
 */
static inline uint16_t tf_finish(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * tf_pseudo6() - naive IPv6 pseudo-header sum
 * @s:		source
 * @d:		destination
 * @nh:		next header
 * @len:	upper-layer length
 *
 * Return: sum for tf_sum()
 */
static inline uint32_t tf_pseudo6(const struct in6_addr *s,
				  const struct in6_addr *d, uint8_t nh,
				  uint32_t len)
{
	uint8_t ph[40] = { 0 };

	memcpy(ph, s, 16);
	memcpy(ph + 16, d, 16);
	ph[32] = (uint8_t)(len >> 24);
	ph[33] = (uint8_t)(len >> 16);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[39] = nh;
	return tf_sum(ph, sizeof(ph), 0);
}

/**
 * tf_pseudo4() - naive IPv4 pseudo-header sum
 * @s:		source, network order
 * @d:		destination, network order
 * @proto:	protocol
 * @len:	L4 length
 *
 * Return: sum for tf_sum()
 */
static inline uint32_t tf_pseudo4(struct in_addr s, struct in_addr d,
				  uint8_t proto, uint16_t len)
{
	uint8_t ph[12] = { 0 };

	memcpy(ph, &s, 4);
	memcpy(ph + 4, &d, 4);
	ph[9] = proto;
	tf_put16(ph + 10, len);
	return tf_sum(ph, sizeof(ph), 0);
}

/**
 * tf_ctx() - a configuration for the tests
 * @c:		context to fill (zeroed first)
 */
static inline void tf_ctx(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	guest_init(c);		/* nothing learnt: all addresses unspecified */
	memcpy(c->our_mac, tf_our_mac, 6);
	c->mtu = 65520;

	c->ip4.enabled = true;
	inet_pton(AF_INET, "192.0.2.10", &c->ip4.addr);
	c->ip4.prefix_len = 24;
	inet_pton(AF_INET, "192.0.2.1", &c->ip4.gw);

	c->ip6.enabled = true;
	inet_pton(AF_INET6, "2001:db8:1:2::10", &c->ip6.addr);
	c->ip6.prefix_len = 64;
	inet_pton(AF_INET6, "fe80::1", &c->ip6.gw);
	inet_pton(AF_INET6, "fe80::9855:9aff:fe55:9a55", &c->ip6.our_tap_ll);
	inet_pton(AF_INET6, "2001:db8:53::1", &c->ip6.dns[0]);
	inet_pton(AF_INET6, "2001:db8:53::2", &c->ip6.dns[1]);
	c->ip6.dns_count = 2;

	snprintf(c->search[0], sizeof(c->search[0]), "%s", "example.com");
	snprintf(c->search[1], sizeof(c->search[1]), "%s",
		 "lab.example.org.");
	c->search_count = 2;
}

/**
 * tf_eth() - write an Ethernet header
 * @f:		frame
 * @dst:	destination MAC
 * @src:	source MAC
 * @type:	EtherType
 *
 * Return: 14
 */
static inline size_t tf_eth(uint8_t *f, const uint8_t *dst,
			    const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	tf_put16(f + 12, type);
	return 14;
}

/**
 * tf_ip4() - write an IPv4 header without options, checksum filled in
 * @ip:		where the header goes
 * @s:		source, dotted
 * @d:		destination, dotted
 * @proto:	protocol
 * @l4len:	payload length
 *
 * Return: 20
 */
static inline size_t tf_ip4(uint8_t *ip, const char *s, const char *d,
			    uint8_t proto, size_t l4len)
{
	memset(ip, 0, 20);
	ip[0] = 0x45;
	tf_put16(ip + 2, (uint16_t)(20 + l4len));
	tf_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	inet_pton(AF_INET, s, ip + 12);
	inet_pton(AF_INET, d, ip + 16);
	tf_put16(ip + 10, tf_finish(tf_sum(ip, 20, 0)));
	return 20;
}

/**
 * tf_ip6() - write an IPv6 header
 * @ip:		where the header goes
 * @s:		source, text
 * @d:		destination, text
 * @nh:		next header
 * @hop:	hop limit
 * @plen:	payload length
 *
 * Return: 40
 */
static inline size_t tf_ip6(uint8_t *ip, const char *s, const char *d,
			    uint8_t nh, uint8_t hop, size_t plen)
{
	memset(ip, 0, 40);
	ip[0] = 0x60;
	tf_put16(ip + 4, (uint16_t)plen);
	ip[6] = nh;
	ip[7] = hop;
	inet_pton(AF_INET6, s, ip + 8);
	inet_pton(AF_INET6, d, ip + 24);
	return 40;
}

/**
 * tf_tcp() - write a TCP header (SYN, no options) and some payload
 * @th:		where the header goes
 * @plen:	payload bytes after the header
 *
 * Return: header and payload length
 */
static inline size_t tf_tcp(uint8_t *th, size_t plen)
{
	size_t i;

	memset(th, 0, 20);
	tf_put16(th, 40000);
	tf_put16(th + 2, 80);
	th[4] = 0x12;
	th[12] = 5 << 4;
	th[13] = 0x02;
	tf_put16(th + 14, 65535);
	for (i = 0; i < plen; i++)
		th[20 + i] = (uint8_t)i;
	return 20 + plen;
}

/**
 * tf_tcp4_frame() - a whole valid IPv4 TCP frame from the guest
 * @f:		frame buffer
 * @plen:	TCP payload length
 *
 * Return: frame length
 */
static inline size_t tf_tcp4_frame(uint8_t *f, size_t plen)
{
	size_t l4len = 20 + plen;

	tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
	tf_ip4(f + 14, "192.0.2.10", "198.51.100.7", IPPROTO_TCP, l4len);
	return 14 + 20 + tf_tcp(f + 34, plen);
}

/**
 * tf_tcp6_frame() - a whole valid IPv6 TCP frame from the guest
 * @f:		frame buffer
 * @plen:	TCP payload length
 *
 * Return: frame length
 */
static inline size_t tf_tcp6_frame(uint8_t *f, size_t plen)
{
	size_t l4len = 20 + plen;

	tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
	tf_ip6(f + 14, "2001:db8:1:2::10", "2001:db8:9::7", IPPROTO_TCP, 64,
	       l4len);
	return 14 + 40 + tf_tcp(f + 54, plen);
}

/**
 * tf_icmp6_csum() - fill in the checksum of an ICMPv6 message in a frame
 * @f:		frame: Ethernet, IPv6 header without extensions, ICMPv6
 */
static inline void tf_icmp6_csum(uint8_t *f)
{
	uint8_t *ip = f + 14, *icmp = f + 54;
	size_t len = tf_get16(ip + 4);
	uint32_t sum;

	tf_put16(icmp + 2, 0);
	sum = tf_pseudo6((const struct in6_addr *)(const void *)(ip + 8),
			 (const struct in6_addr *)(const void *)(ip + 24),
			 IPPROTO_ICMPV6, (uint32_t)len);
	tf_put16(icmp + 2, tf_finish(tf_sum(icmp, len, sum)));
}

/**
 * tf_ns_frame() - a Neighbour Solicitation from the guest
 * @f:		frame buffer
 * @src:	IPv6 source, "::" for DAD
 * @target:	target address
 * @slla:	add a source link-layer address option
 *
 * Destination: the target's solicited-node multicast group.
 *
 * Return: frame length
 */
static inline size_t tf_ns_frame(uint8_t *f, const char *src,
				 const char *target, int slla)
{
	size_t len = 24 + (slla ? 8 : 0);
	uint8_t *icmp = f + 54, *ip = f + 14;
	struct in6_addr t;
	uint8_t mmac[6] = { 0x33, 0x33, 0xff };

	inet_pton(AF_INET6, target, &t);
	memcpy(mmac + 3, &t.s6_addr[13], 3);
	tf_eth(f, mmac, tf_guest_mac, 0x86dd);
	tf_ip6(ip, src, "ff02::1:ff00:0", IPPROTO_ICMPV6, 255, len);
	memcpy(ip + 24 + 13, &t.s6_addr[13], 3);

	memset(icmp, 0, len);
	icmp[0] = 135;
	memcpy(icmp + 8, &t, 16);
	if (slla) {
		icmp[24] = 1;
		icmp[25] = 1;
		memcpy(icmp + 26, tf_guest_mac, 6);
	}
	tf_icmp6_csum(f);
	return 54 + len;
}

/**
 * tf_rs_frame() - a Router Solicitation from the guest
 * @f:		frame buffer
 * @src:	IPv6 source
 *
 * Return: frame length
 */
static inline size_t tf_rs_frame(uint8_t *f, const char *src)
{
	static const uint8_t mmac[6] = { 0x33, 0x33, 0, 0, 0, 2 };
	uint8_t *icmp = f + 54;
	size_t len = 16;

	tf_eth(f, mmac, tf_guest_mac, 0x86dd);
	tf_ip6(f + 14, src, "ff02::2", IPPROTO_ICMPV6, 255, len);
	memset(icmp, 0, len);
	icmp[0] = 133;
	icmp[8] = 1;
	icmp[9] = 1;
	memcpy(icmp + 10, tf_guest_mac, 6);
	tf_icmp6_csum(f);
	return 54 + len;
}

/**
 * tf_arp_frame() - an ARP packet from the guest
 * @f:		frame buffer
 * @op:		1 request, 2 reply
 * @spa:	sender IPv4 address, dotted
 * @tpa:	target IPv4 address, dotted
 *
 * Return: frame length (42)
 */
static inline size_t tf_arp_frame(uint8_t *f, uint16_t op, const char *spa,
				  const char *tpa)
{
	uint8_t *a = f + 14;

	tf_eth(f, tf_bcast_mac, tf_guest_mac, 0x0806);
	tf_put16(a, 1);
	tf_put16(a + 2, 0x0800);
	a[4] = 6;
	a[5] = 4;
	tf_put16(a + 6, op);
	memcpy(a + 8, tf_guest_mac, 6);
	inet_pton(AF_INET, spa, a + 14);
	memset(a + 18, 0, 6);
	inet_pton(AF_INET, tpa, a + 24);
	return 42;
}

/**
 * tf_udp_frame() - a whole valid UDP frame from the guest, checksum filled
 * @f:		frame buffer
 * @v4:		IPv4 (else IPv6)
 * @s:		source address, text
 * @d:		destination address, text
 * @sport:	source port
 * @dport:	destination port
 * @plen:	UDP payload length
 *
 * Return: frame length
 */
static inline size_t tf_udp_frame(uint8_t *f, int v4, const char *s,
				  const char *d, uint16_t sport,
				  uint16_t dport, size_t plen)
{
	size_t l4len = 8 + plen, off = v4 ? 34 : 54, i;
	uint8_t *uh = f + off;
	uint16_t sum;
	uint32_t ps;

	if (v4) {
		struct in_addr sa, da;

		tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
		tf_ip4(f + 14, s, d, IPPROTO_UDP, l4len);
		memcpy(&sa, f + 26, 4);
		memcpy(&da, f + 30, 4);
		ps = tf_pseudo4(sa, da, IPPROTO_UDP, (uint16_t)l4len);
	} else {
		tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
		tf_ip6(f + 14, s, d, IPPROTO_UDP, 64, l4len);
		ps = tf_pseudo6((const struct in6_addr *)(const void *)(f + 22),
				(const struct in6_addr *)(const void *)(f + 38),
				IPPROTO_UDP, (uint32_t)l4len);
	}

	tf_put16(uh, sport);
	tf_put16(uh + 2, dport);
	tf_put16(uh + 4, (uint16_t)l4len);
	tf_put16(uh + 6, 0);
	for (i = 0; i < plen; i++)
		uh[8 + i] = (uint8_t)(0xa0 + i);
	sum = tf_finish(tf_sum(uh, l4len, ps));
	tf_put16(uh + 6, sum ? sum : 0xffff);

	return off + l4len;
}

/**
 * tf_echo_frame() - a whole valid ICMP or ICMPv6 echo request from the guest
 * @f:		frame buffer
 * @v4:		ICMP over IPv4 (else ICMPv6)
 * @s:		source address, text
 * @d:		destination address, text
 * @id:		echo identifier
 * @plen:	echo data length
 *
 * Return: frame length
 */
static inline size_t tf_echo_frame(uint8_t *f, int v4, const char *s,
				   const char *d, uint16_t id, size_t plen)
{
	size_t l4len = 8 + plen, off = v4 ? 34 : 54, i;
	uint8_t *icmp = f + off;

	if (v4) {
		tf_eth(f, tf_our_mac, tf_guest_mac, 0x0800);
		tf_ip4(f + 14, s, d, IPPROTO_ICMP, l4len);
	} else {
		tf_eth(f, tf_our_mac, tf_guest_mac, 0x86dd);
		tf_ip6(f + 14, s, d, IPPROTO_ICMPV6, 64, l4len);
	}

	memset(icmp, 0, 8);
	icmp[0] = v4 ? 8 : 128;
	tf_put16(icmp + 4, id);
	tf_put16(icmp + 6, 1);
	for (i = 0; i < plen; i++)
		icmp[8 + i] = (uint8_t)i;

	if (v4)
		tf_put16(icmp + 2, tf_finish(tf_sum(icmp, l4len, 0)));
	else
		tf_icmp6_csum(f);

	return off + l4len;
}

#endif /* TESTS_UNIT_NET_FRAMES_H */
