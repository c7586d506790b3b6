/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ip.h - private to net/: wire layouts and byte access for L2/L3 headers
 *
 * Theory of operation: frames from the guest may sit at any alignment in
 * the backend's buffer, so net/ never casts them to header structures.
 * Fields are read and written through the byte helpers below, at offsets
 * named after the RFC layouts. Only net/ sources include it.
 */
#ifndef NET_IP_H
#define NET_IP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>

/* Ethernet (IEEE 802.3) */
#define ETH_OFF_DST		0
#define ETH_OFF_SRC		6
#define ETH_OFF_TYPE		12
#define ETH_ADDR_LEN		6
#define ETH_TYPE_IP4		0x0800
#define ETH_TYPE_ARP		0x0806
#define ETH_TYPE_IP6		0x86dd

/* IPv4 (RFC 791) */
#define IP4_OFF_VER_IHL		0
#define IP4_OFF_TOS		1
#define IP4_OFF_TOT_LEN		2
#define IP4_OFF_ID		4
#define IP4_OFF_FRAG		6
#define IP4_OFF_TTL		8
#define IP4_OFF_PROTO		9
#define IP4_OFF_CSUM		10
#define IP4_OFF_SADDR		12
#define IP4_OFF_DADDR		16
#define IP4_FRAG_DF		0x4000
#define IP4_FRAG_MF		0x2000
#define IP4_FRAG_OFFSET		0x1fff
#define IP4_TTL_DEFAULT		64

/* IPv6 (RFC 8200) */
#define IP6_OFF_VER_TC_FL	0
#define IP6_OFF_PLEN		4
#define IP6_OFF_NEXT		6
#define IP6_OFF_HOP_LIMIT	7
#define IP6_OFF_SADDR		8
#define IP6_OFF_DADDR		24
#define IP6_HOP_LIMIT_DEFAULT	64
#define IP6_HOP_LIMIT_NDP	255

/* Extension headers walked by net_input(): at most this many per packet */
#define IP6_EXT_MAX		8
#define IP6_NH_HOPOPTS		0
#define IP6_NH_ROUTING		43
#define IP6_NH_FRAGMENT		44
#define IP6_NH_DSTOPTS		60
#define IP6_NH_NONE		59

/* TCP (RFC 9293): only what net_input() validates */
#define TCP_HDR_MIN		20
#define TCP_OFF_DOFF		12

/* ICMPv6 (RFC 4443) */
#define ICMP6_OFF_TYPE		0
#define ICMP6_OFF_CODE		1
#define ICMP6_OFF_CSUM		2
#define ICMP6_HDR_LEN		4
#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129
#define ICMP6_ROUTER_SOL	133
#define ICMP6_ROUTER_ADV	134
#define ICMP6_NEIGH_SOL		135
#define ICMP6_NEIGH_ADV		136
#define ICMP6_MLD_QUERY		130
#define ICMP6_MLD_REPORT	131
#define ICMP6_MLD_DONE		132
#define ICMP6_MLD2_REPORT	143

/**
 * net_get16() - read a 16-bit big-endian field
 * @p:		first byte
 *
 * Return: value in host order
 */
static inline uint16_t net_get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/**
 * net_put16() - write a 16-bit big-endian field
 * @p:		first byte
 * @v:		value in host order
 */
static inline void net_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * net_get32() - read a 32-bit big-endian field
 * @p:		first byte
 *
 * Return: value in host order
 */
static inline uint32_t net_get32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | p[3];
}

/**
 * net_put32() - write a 32-bit big-endian field
 * @p:		first byte
 * @v:		value in host order
 */
static inline void net_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/**
 * net_mac_is_zero() - tell if a MAC address is all zeroes
 * @mac:	address
 *
 * Return: true if 00:00:00:00:00:00
 */
static inline bool net_mac_is_zero(const uint8_t *mac)
{
	static const uint8_t zero[ETH_ADDR_LEN];

	return !memcmp(mac, zero, ETH_ADDR_LEN);
}

/**
 * net_ip4_is_unicast() - tell if an IPv4 address can be a host's source
 * @a:		address
 *
 * Return: false for 0.0.0.0, 127/8, multicast and 255.255.255.255
 */
static inline bool net_ip4_is_unicast(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	return h && (h >> 24) != IN_LOOPBACKNET && !IN_MULTICAST(h) &&
	       h != INADDR_BROADCAST;
}

/**
 * net_ip6_is_unicast() - tell if an IPv6 address can be a host's source
 * @a:		address
 *
 * Return: false for ::, ::1, multicast and IPv4-mapped addresses
 */
static inline bool net_ip6_is_unicast(const struct in6_addr *a)
{
	return !IN6_IS_ADDR_UNSPECIFIED(a) && !IN6_IS_ADDR_LOOPBACK(a) &&
	       !IN6_IS_ADDR_MULTICAST(a) && !IN6_IS_ADDR_V4MAPPED(a);
}

#endif /* NET_IP_H */
