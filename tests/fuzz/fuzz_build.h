/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_build.h - frame builders shared by the fuzz targets and gen_seeds
 *
 * Theory of operation: the fuzz targets other than fuzz_frame wrap fuzzed
 * bytes in valid Ethernet, IP and transport headers, with correct lengths
 * and checksums, so that the bytes reach the protocol code behind the
 * parsers instead of being dropped as malformed. The same builders make
 * the seed corpus (gen_seeds.c). Everything here is self-contained (no
 * relay headers): addresses are byte arrays, values are in host order and
 * written big-endian.
 */
#ifndef TESTS_FUZZ_FUZZ_BUILD_H
#define TESTS_FUZZ_FUZZ_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The relay's fixed configuration in every harness (fuzz_common.c) */
#define FZ_TCP_PORT		8000	/* harness TCP server on loopback */
#define FZ_UDP_PORT		5300	/* harness UDP echo on loopback */
#define FZ_TCP_FWD_PORT		8080	/* -t: forwarded to the guest */
#define FZ_UDP_FWD_PORT		5353	/* -u: forwarded to the guest */
#define FZ_FRAME_MAX		(14 + 4 + 65535)

#define FZ_ETH_IP4		0x0800
#define FZ_ETH_ARP		0x0806
#define FZ_ETH_IP6		0x86dd

#define FZ_PROTO_ICMP		1
#define FZ_PROTO_TCP		6
#define FZ_PROTO_UDP		17
#define FZ_PROTO_ICMP6		58

#define FZ_TCP_FIN		0x01
#define FZ_TCP_SYN		0x02
#define FZ_TCP_RST		0x04
#define FZ_TCP_PSH		0x08
#define FZ_TCP_ACK		0x10

static const uint8_t fz_our_mac[6] = { 0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55 };
static const uint8_t fz_guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t fz_bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static const uint8_t fz_guest4[4] = { 10, 0, 2, 15 };
static const uint8_t fz_gw4[4] = { 10, 0, 2, 2 };
static const uint8_t fz_dns4[4] = { 10, 0, 2, 3 };
static const uint8_t fz_any4[4] = { 0, 0, 0, 0 };
static const uint8_t fz_bcast4[4] = { 255, 255, 255, 255 };

static const uint8_t fz_guest6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 0x15 };
static const uint8_t fz_gw6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				    0, 0, 0, 0, 0, 0, 0, 0x02 };
static const uint8_t fz_guest_ll6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					  0x50, 0x54, 0x00, 0xff,
					  0xfe, 0x12, 0x34, 0x56 };
static const uint8_t fz_our_ll6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0x01 };
static const uint8_t fz_any6[16] = { 0 };
static const uint8_t fz_allrouters6[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					    0, 0, 0, 0, 0, 0, 0, 0x02 };
static const uint8_t fz_dhcp6_mc[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 1, 0, 2 };

/**
 * fz_put16() - write a 16-bit value big-endian
 * @p:		destination
 * @v:		value
 */
static inline void fz_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * fz_put32() - write a 32-bit value big-endian
 * @p:		destination
 * @v:		value
 */
static inline void fz_put32(uint8_t *p, uint32_t v)
{
	fz_put16(p, (uint16_t)(v >> 16));
	fz_put16(p + 2, (uint16_t)v);
}

/**
 * fz_get16() - read a 16-bit big-endian value
 * @p:		source
 *
 * Return: the value
 */
static inline uint16_t fz_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * fz_get32() - read a 32-bit big-endian value
 * @p:		source
 *
 * Return: the value
 */
static inline uint32_t fz_get32(const uint8_t *p)
{
	return (uint32_t)fz_get16(p) << 16 | fz_get16(p + 2);
}

/**
 * fz_sum() - add bytes to a one's complement sum, as 16-bit words
 * @p:		bytes
 * @len:	length
 * @sum:	sum so far
 *
 * Return: unfolded sum
 */
static inline uint32_t fz_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += fz_get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/**
 * fz_fold() - fold and complement a sum into a checksum
 * @sum:	unfolded sum
 *
 * Return: checksum, host order
 */
static inline uint16_t fz_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * fz_eth() - write an Ethernet header
 * @f:		frame
 * @dst:	destination MAC
 * @src:	source MAC
 * @type:	EtherType
 *
 * Return: header length
 */
static inline size_t fz_eth(uint8_t *f, const uint8_t *dst,
			    const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	fz_put16(f + 12, type);
	return 14;
}

/**
 * fz_l4() - wrap a transport message in IPv4 or IPv6 and Ethernet
 * @f:		frame, FZ_FRAME_MAX bytes
 * @v6:		IPv6 (else IPv4)
 * @src:	source address, 4 or 16 bytes
 * @dst:	destination address, 4 or 16 bytes
 * @proto:	IP protocol
 * @l4:		transport header and payload, checksum field zero
 * @l4len:	its length, at most 65515
 * @csum_off:	offset of the checksum field in @l4, or -1 for none
 * @hop:	TTL or hop limit
 *
 * Return: frame length
 */
static inline size_t fz_l4(uint8_t *f, int v6, const uint8_t *src,
			   const uint8_t *dst, uint8_t proto,
			   const uint8_t *l4, size_t l4len, int csum_off,
			   uint8_t hop)
{
	const uint8_t *dmac = fz_our_mac;
	size_t off = 0, ihl;
	uint32_t sum = 0;
	uint8_t *ip, *th;

	if (v6 ? dst[0] == 0xff : !memcmp(dst, fz_bcast4, 4))
		dmac = fz_bcast_mac;

	off = fz_eth(f, dmac, fz_guest_mac, v6 ? FZ_ETH_IP6 : FZ_ETH_IP4);
	ip = f + off;
	if (v6) {
		ihl = 40;
		memset(ip, 0, ihl);
		ip[0] = 0x60;
		fz_put16(ip + 4, (uint16_t)l4len);
		ip[6] = proto;
		ip[7] = hop;
		memcpy(ip + 8, src, 16);
		memcpy(ip + 24, dst, 16);
		sum = fz_sum(src, 16, 0);
		sum = fz_sum(dst, 16, sum);
	} else {
		ihl = 20;
		memset(ip, 0, ihl);
		ip[0] = 0x45;
		fz_put16(ip + 2, (uint16_t)(ihl + l4len));
		ip[6] = 0x40;			/* DF */
		ip[8] = hop;
		ip[9] = proto;
		memcpy(ip + 12, src, 4);
		memcpy(ip + 16, dst, 4);
		fz_put16(ip + 10, fz_fold(fz_sum(ip, ihl, 0)));
		sum = fz_sum(src, 4, 0);
		sum = fz_sum(dst, 4, sum);
	}

	th = ip + ihl;
	memcpy(th, l4, l4len);
	if (csum_off >= 0) {
		if (v6 || proto != FZ_PROTO_ICMP) {
			sum += (uint32_t)l4len + proto;
		} else {
			sum = 0;	/* ICMPv4: no pseudo-header */
		}
		fz_put16(th + csum_off, 0);
		fz_put16(th + csum_off, fz_fold(fz_sum(th, l4len, sum)));
	}

	return off + ihl + l4len;
}

/**
 * fz_udp() - build a UDP datagram frame
 * @f:		frame, FZ_FRAME_MAX bytes
 * @v6:		IPv6 (else IPv4)
 * @src:	source address
 * @dst:	destination address
 * @sport:	source port
 * @dport:	destination port
 * @data:	payload
 * @len:	payload length, at most 65000
 *
 * Return: frame length
 */
static inline size_t fz_udp(uint8_t *f, int v6, const uint8_t *src,
			    const uint8_t *dst, uint16_t sport,
			    uint16_t dport, const uint8_t *data, size_t len)
{
	static uint8_t l4[8 + 65536];

	fz_put16(l4, sport);
	fz_put16(l4 + 2, dport);
	fz_put16(l4 + 4, (uint16_t)(8 + len));
	fz_put16(l4 + 6, 0);
	memcpy(l4 + 8, data, len);
	return fz_l4(f, v6, src, dst, FZ_PROTO_UDP, l4, 8 + len, 6, 64);
}

/**
 * fz_icmp() - build an ICMP or ICMPv6 message frame
 * @f:		frame, FZ_FRAME_MAX bytes
 * @v6:		ICMPv6 over IPv6 (else ICMP over IPv4)
 * @src:	source address
 * @dst:	destination address
 * @hop:	TTL or hop limit (255 for NDP)
 * @type:	message type
 * @code:	message code
 * @body:	what follows the 4-byte header
 * @len:	its length, at most 65000
 *
 * Return: frame length
 */
static inline size_t fz_icmp(uint8_t *f, int v6, const uint8_t *src,
			     const uint8_t *dst, uint8_t hop, uint8_t type,
			     uint8_t code, const uint8_t *body, size_t len)
{
	static uint8_t l4[4 + 65536];

	l4[0] = type;
	l4[1] = code;
	fz_put16(l4 + 2, 0);
	memcpy(l4 + 4, body, len);
	return fz_l4(f, v6, src, dst, v6 ? FZ_PROTO_ICMP6 : FZ_PROTO_ICMP,
		     l4, 4 + len, 2, hop);
}

/**
 * struct fz_tcp_seg - fields of one TCP segment to build
 * @sport:	source port
 * @dport:	destination port
 * @seq:	sequence number
 * @ack:	acknowledgement number
 * @flags:	TCP flags (FZ_TCP_*)
 * @win:	window field
 * @opts:	options, NULL if none
 * @optlen:	options length, multiple of 4, at most 40
 * @data:	payload
 * @len:	payload length
 */
struct fz_tcp_seg {
	uint16_t sport;
	uint16_t dport;
	uint32_t seq;
	uint32_t ack;
	uint8_t flags;
	uint16_t win;
	const uint8_t *opts;
	size_t optlen;
	const uint8_t *data;
	size_t len;
};

/**
 * fz_tcp() - build a TCP segment frame
 * @f:		frame, FZ_FRAME_MAX bytes
 * @v6:		IPv6 (else IPv4)
 * @src:	source address
 * @dst:	destination address
 * @s:		segment fields
 *
 * Return: frame length
 */
static inline size_t fz_tcp(uint8_t *f, int v6, const uint8_t *src,
			    const uint8_t *dst, const struct fz_tcp_seg *s)
{
	static uint8_t l4[60 + 65536];
	size_t hl = 20 + s->optlen;

	fz_put16(l4, s->sport);
	fz_put16(l4 + 2, s->dport);
	fz_put32(l4 + 4, s->seq);
	fz_put32(l4 + 8, s->ack);
	l4[12] = (uint8_t)((hl / 4) << 4);
	l4[13] = s->flags;
	fz_put16(l4 + 14, s->win);
	fz_put16(l4 + 16, 0);
	fz_put16(l4 + 18, 0);
	if (s->optlen)
		memcpy(l4 + 20, s->opts, s->optlen);
	if (s->len)
		memcpy(l4 + hl, s->data, s->len);
	return fz_l4(f, v6, src, dst, FZ_PROTO_TCP, l4, hl + s->len, 16, 64);
}

#endif /* TESTS_FUZZ_FUZZ_BUILD_H */
