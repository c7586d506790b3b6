/* SPDX-License-Identifier: GPL-2.0-or-later */
/* storm_frames.h - valid frame templates of frame_storm, seeded
 *
 * Theory of operation: tests/tools/frame_storm.c sends, among random and
 * mutated frames, well-formed ones aimed at the relay's gateway: an ARP
 * request, IPv4 and IPv6 TCP SYNs, UDP datagrams, ICMP and ICMPv6 echo
 * requests, a DHCP discover, a DHCPv6 solicit and an NDP neighbour
 * solicitation, every checksum right. They are built here byte by byte,
 * every varying field (ports and echo identifiers from small pools,
 * lengths, sequence numbers, IP identifiers) drawn from one seeded
 * xorshift64* generator, so that a run is reproduced by its seed: the
 * order of the draws is part of that, and must not change. Included by
 * frame_storm.c only: the functions are static.
 */
#ifndef TESTS_TOOLS_LIB_STORM_FRAMES_H
#define TESTS_TOOLS_LIB_STORM_FRAMES_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define STORM_FRAME_MAX		1514
#define STORM_ETH_LEN		14
#define STORM_IP4_LEN		20
#define STORM_IP6_LEN		40
#define STORM_PORTS_MAX		16
#define STORM_POOL		8	/* ports / echo identifiers per pool */

/* Floods (frame_storm --flood KIND), instead of the storm */
#define STORM_FLOOD_NONE	0
#define STORM_FLOOD_SYN		1	/* TCP SYNs from random sources */
#define STORM_FLOOD_DHCP	2	/* DHCP declines and requests, alternating */
#define STORM_FLOOD_ECHO	3	/* ICMP echo requests, new identifiers */

#define ETH_TYPE_ARP		0x0806
#define ETH_TYPE_IP4		0x0800
#define ETH_TYPE_IP6		0x86dd

/* Destination ports of templates: nothing listens there in the rig */
static const uint16_t storm_dports[STORM_POOL] = {
	7, 9, 13, 37, 79, 113, 7999, 40000
};

/**
 * struct storm_cfg - what to send, where
 * @count:	frames to send
 * @seed:	generator seed
 * @pps:	frames per second, 0 for no limit
 * @flood:	STORM_FLOOD_* instead of the storm, STORM_FLOOD_NONE for it
 * @gw_mac:	destination MAC address
 * @own_mac:	source MAC address (the interface's)
 * @src4:	IPv4 source
 * @dst4:	IPv4 destination
 * @src6:	IPv6 source
 * @dst6:	IPv6 destination
 * @ports:	SYN flood destination ports
 * @n_ports:	number of @ports
 * @short_fd:	--inject: datagram socket connected to it, -1 if none
 * @lengths:	--lengths, NULL for the storm
 */
struct storm_cfg {
	unsigned long count;
	uint64_t seed;
	unsigned long pps;
	unsigned int flood;
	uint8_t gw_mac[6];
	uint8_t own_mac[6];
	struct in_addr src4, dst4;
	struct in6_addr src6, dst6;
	uint16_t ports[STORM_PORTS_MAX];
	unsigned int n_ports;
	int short_fd;
	const char *lengths;
};

static uint64_t storm_rng_state;

/**
 * storm_rand() - next value of the xorshift64* generator
 *
 * Return: 64 pseudo-random bits
 */
static inline uint64_t storm_rand(void)
{
	uint64_t x = storm_rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	storm_rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/**
 * storm_below() - pseudo-random number below a bound
 * @n:		bound
 *
 * Return: value in [0, @n), 0 if @n is 0
 */
static inline unsigned int storm_below(unsigned int n)
{
	if (!n)
		return 0;
	return (unsigned int)((storm_rand() >> 16) % n);
}

/**
 * put16() - store a 16-bit value in network order
 * @p:		destination
 * @v:		value
 */
static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * put32() - store a 32-bit value in network order
 * @p:		destination
 * @v:		value
 */
static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/**
 * csum_add() - add bytes to a ones' complement sum
 * @sum:	running sum
 * @p:		bytes
 * @len:	length
 *
 * Return: new running sum (not folded)
 */
static inline uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/**
 * csum_fold() - fold a running sum into a checksum
 * @sum:	running sum
 *
 * Return: ones' complement of the folded sum, host order
 */
static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * l4_csum() - fill in a TCP, UDP or ICMPv6 checksum with its pseudo-header
 * @ip:		IP header (v4 or v6)
 * @v4:		IPv4
 * @proto:	L4 protocol
 * @l4:		L4 header, checksum field zero
 * @l4len:	L4 length
 * @off:	offset of the checksum field in @l4
 */
static inline void l4_csum(const uint8_t *ip, bool v4, uint8_t proto,
			   uint8_t *l4, size_t l4len, size_t off)
{
	uint32_t sum;

	if (v4)
		sum = csum_add(0, ip + 12, 8);
	else
		sum = csum_add(0, ip + 8, 32);
	sum += proto + (uint32_t)(l4len & 0xffff) + (uint32_t)(l4len >> 16);
	sum = csum_add(sum, l4, l4len);
	put16(l4 + off, csum_fold(sum));
}

/**
 * eth_hdr() - write the Ethernet header of a template
 * @cfg:	configuration
 * @f:		frame
 * @type:	EtherType
 * @dst:	destination MAC, NULL for the gateway's
 *
 * Return: offset past the header
 */
static inline size_t eth_hdr(const struct storm_cfg *cfg, uint8_t *f,
			     uint16_t type, const uint8_t *dst)
{
	memcpy(f, dst ? dst : cfg->gw_mac, 6);
	memcpy(f + 6, cfg->own_mac, 6);
	put16(f + 12, type);
	return STORM_ETH_LEN;
}

/**
 * ip4_hdr() - write an IPv4 header without options, checksum filled in
 * @ip:		header
 * @src:	source
 * @dst:	destination
 * @proto:	protocol
 * @l4len:	payload length
 */
static inline void ip4_hdr(uint8_t *ip, struct in_addr src, struct in_addr dst,
			   uint8_t proto, size_t l4len)
{
	memset(ip, 0, STORM_IP4_LEN);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(STORM_IP4_LEN + l4len));
	put16(ip + 4, (uint16_t)storm_rand());
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, STORM_IP4_LEN)));
}

/**
 * ip6_hdr() - write an IPv6 header
 * @ip:		header
 * @src:	source
 * @dst:	destination
 * @nh:		next header
 * @l4len:	payload length
 * @hops:	hop limit
 */
static inline void ip6_hdr(uint8_t *ip, const struct in6_addr *src,
			   const struct in6_addr *dst, uint8_t nh, size_t l4len,
			   uint8_t hops)
{
	memset(ip, 0, STORM_IP6_LEN);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)l4len);
	ip[6] = nh;
	ip[7] = hops;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
}

/**
 * tcp_syn() - write a TCP SYN with an MSS and a window scale option
 * @l4:		header
 * @sport:	source port
 * @dport:	destination port
 *
 * Return: header length
 */
static inline size_t tcp_syn(uint8_t *l4, uint16_t sport, uint16_t dport)
{
	memset(l4, 0, 28);
	put16(l4, sport);
	put16(l4 + 2, dport);
	put32(l4 + 4, (uint32_t)storm_rand());
	l4[12] = 7 << 4;		/* 28 bytes */
	l4[13] = 0x02;			/* SYN */
	put16(l4 + 14, 65535);
	l4[20] = 2;			/* MSS */
	l4[21] = 4;
	put16(l4 + 22, 1460);
	l4[24] = 1;			/* NOP */
	l4[25] = 3;			/* window scale */
	l4[26] = 3;
	l4[27] = 7;
	return 28;
}

/**
 * udp_dgram() - write a UDP datagram of a random length, zero payload
 * @l4:		header
 * @sport:	source port
 * @dport:	destination port
 *
 * Return: datagram length
 */
static inline size_t udp_dgram(uint8_t *l4, uint16_t sport, uint16_t dport)
{
	size_t l4len = 8 + storm_below(64);

	memset(l4, 0, l4len);
	put16(l4, sport);
	put16(l4 + 2, dport);
	put16(l4 + 4, (uint16_t)l4len);
	return l4len;
}

/**
 * echo_req() - write an ICMP or ICMPv6 echo request, identifier from a pool
 * @l4:		header
 * @v4:		ICMP (else ICMPv6)
 *
 * Return: message length
 */
static inline size_t echo_req(uint8_t *l4, bool v4)
{
	size_t l4len = 8 + storm_below(56);

	memset(l4, 0xa5, l4len);
	l4[0] = v4 ? 8 : 128;	/* echo request */
	l4[1] = 0;
	put16(l4 + 2, 0);
	put16(l4 + 4, (uint16_t)(0x5700 + storm_below(STORM_POOL)));
	put16(l4 + 6, (uint16_t)storm_rand());
	return l4len;
}

/**
 * dhcp_bootrequest() - write a client's UDP header and BOOTP fixed part,
 *			zeroing the options
 * @cfg:	configuration
 * @l4:		UDP header
 * @l4len:	datagram length, with the options
 *
 * Return: the first byte of the options
 */
static inline uint8_t *dhcp_bootrequest(const struct storm_cfg *cfg,
					uint8_t *l4, size_t l4len)
{
	uint8_t *d = l4 + 8;

	memset(l4, 0, l4len);
	put16(l4, 68);
	put16(l4 + 2, 67);
	put16(l4 + 4, (uint16_t)l4len);
	d[0] = 1;		/* BOOTREQUEST */
	d[1] = 1;
	d[2] = 6;
	put32(d + 4, (uint32_t)storm_rand());
	memcpy(d + 28, cfg->own_mac, 6);
	put32(d + 236, 0x63825363);	/* magic cookie */
	return d + 240;
}

/**
 * dhcp_discover() - write a DHCP discover, minimal and plausible
 * @cfg:	configuration
 * @l4:		UDP header
 *
 * Return: datagram length
 */
static inline size_t dhcp_discover(const struct storm_cfg *cfg, uint8_t *l4)
{
	size_t l4len = 8 + 240 + 4;
	uint8_t *d = dhcp_bootrequest(cfg, l4, l4len) - 240;

	d[240] = 53;		/* message type: discover */
	d[241] = 1;
	d[242] = 1;
	d[243] = 255;
	return l4len;
}

/**
 * dhcp6_solicit() - write a DHCPv6 solicit, minimal and plausible
 * @cfg:	configuration
 * @l4:		UDP header
 *
 * Return: datagram length
 */
static inline size_t dhcp6_solicit(const struct storm_cfg *cfg, uint8_t *l4)
{
	size_t l4len = 8 + 4 + 4 + 14;
	uint8_t *d = l4 + 8;

	memset(l4, 0, l4len);
	put16(l4, 546);
	put16(l4 + 2, 547);
	put16(l4 + 4, (uint16_t)l4len);
	d[0] = 1;		/* SOLICIT */
	put16(d + 1, (uint16_t)storm_rand());
	put16(d + 4, 1);	/* client identifier */
	put16(d + 6, 10);
	put16(d + 8, 3);	/* DUID-LL, Ethernet */
	put16(d + 10, 1);
	memcpy(d + 12, cfg->own_mac, 6);
	put16(d + 18, 8);	/* elapsed time */
	put16(d + 20, 2);
	return l4len;
}

/**
 * ndp_ns() - write a neighbour solicitation for the gateway
 * @cfg:	configuration
 * @l4:		ICMPv6 header
 *
 * Return: message length
 */
static inline size_t ndp_ns(const struct storm_cfg *cfg, uint8_t *l4)
{
	size_t l4len = 32;

	memset(l4, 0, l4len);
	l4[0] = 135;
	memcpy(l4 + 8, &cfg->dst6, 16);
	l4[24] = 1;			/* source link-layer address */
	l4[25] = 1;
	memcpy(l4 + 26, cfg->own_mac, 6);
	return l4len;
}

/**
 * build_ip() - write an IPv4 or IPv6 template with an L4 payload
 * @cfg:	configuration
 * @f:		frame
 * @v4:		IPv4 (else IPv6)
 * @kind:	0 TCP SYN, 1 UDP, 2 ICMP echo, 3 DHCP(v6), 4 NDP (IPv6 only)
 *
 * Return: frame length
 */
static inline size_t build_ip(const struct storm_cfg *cfg, uint8_t *f, bool v4,
			      unsigned int kind)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast6[6] = { 0x33, 0x33, 0, 1, 0, 2 };
	size_t off = eth_hdr(cfg, f, v4 ? ETH_TYPE_IP4 : ETH_TYPE_IP6, NULL);
	size_t iplen = v4 ? STORM_IP4_LEN : STORM_IP6_LEN, l4len, coff;
	uint8_t *ip = f + off, *l4 = ip + iplen;
	struct in6_addr s6 = cfg->src6, d6 = cfg->dst6;
	struct in_addr s4 = cfg->src4, d4 = cfg->dst4;
	uint8_t proto, hops = 64;
	uint16_t sport = (uint16_t)(32768 + storm_below(STORM_POOL));
	uint16_t dport = storm_dports[storm_below(STORM_POOL)];

	switch (kind) {
	case 0:
		proto = IPPROTO_TCP;
		l4len = tcp_syn(l4, sport, dport);
		coff = 16;
		break;
	case 1:
		proto = IPPROTO_UDP;
		l4len = udp_dgram(l4, sport, dport);
		coff = 6;
		break;
	case 2:
		proto = v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		l4len = echo_req(l4, v4);
		coff = 2;
		break;
	case 3:
		proto = IPPROTO_UDP;
		if (v4) {
			l4len = dhcp_discover(cfg, l4);
			s4.s_addr = htonl(INADDR_ANY);
			d4.s_addr = htonl(INADDR_BROADCAST);
			memcpy(f, bcast, 6);
		} else {
			l4len = dhcp6_solicit(cfg, l4);
			s6.s6_addr[0] = 0xfe;	/* link-local source */
			s6.s6_addr[1] = 0x80;
			memset(s6.s6_addr + 2, 0, 6);
			inet_pton(AF_INET6, "ff02::1:2", &d6);
			memcpy(f, mcast6, 6);
		}
		coff = 6;
		break;
	default:
		proto = IPPROTO_ICMPV6;
		l4len = ndp_ns(cfg, l4);
		hops = 255;
		coff = 2;
		v4 = false;
		break;
	}

	if (v4) {
		ip4_hdr(ip, s4, d4, proto, l4len);
		if (proto == IPPROTO_ICMP)
			put16(l4 + coff, csum_fold(csum_add(0, l4, l4len)));
		else
			l4_csum(ip, true, proto, l4, l4len, coff);
	} else {
		ip6_hdr(ip, &s6, &d6, proto, l4len, hops);
		l4_csum(ip, false, proto, l4, l4len, coff);
	}
	return off + iplen + l4len;
}

/**
 * build_arp() - write an ARP request for the gateway's IPv4 address
 * @cfg:	configuration
 * @f:		frame
 *
 * Return: frame length
 */
static inline size_t build_arp(const struct storm_cfg *cfg, uint8_t *f)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t *a = f + eth_hdr(cfg, f, ETH_TYPE_ARP, bcast);

	put16(a, 1);
	put16(a + 2, ETH_TYPE_IP4);
	a[4] = 6;
	a[5] = 4;
	put16(a + 6, 1);
	memcpy(a + 8, cfg->own_mac, 6);
	memcpy(a + 14, &cfg->src4, 4);
	memset(a + 18, 0, 6);
	memcpy(a + 24, &cfg->dst4, 4);
	return STORM_ETH_LEN + 28;
}

/**
 * build_template() - write one valid frame of a random kind
 * @cfg:	configuration
 * @f:		frame, STORM_FRAME_MAX bytes
 *
 * Return: frame length
 */
static inline size_t build_template(const struct storm_cfg *cfg, uint8_t *f)
{
	unsigned int k = storm_below(11);

	if (k == 10)
		return build_arp(cfg, f);
	if (k == 9)
		return build_ip(cfg, f, false, 4);
	return build_ip(cfg, f, k < 5, k % 5 == 4 ? 3 : k % 5);
}

#endif /* TESTS_TOOLS_LIB_STORM_FRAMES_H */
