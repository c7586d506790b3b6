// SPDX-License-Identifier: GPL-2.0-or-later
/* ndp.c - NDP responder: neighbour and router advertisements (RFC 4861)
 *
 * Theory of operation: as for ARP, the relay is the only other node on the
 * guest's link and owns every IPv6 address but the guest's own.
 *
 * - A Neighbour Solicitation for any target but the guest's addresses is
 *   answered with a Neighbour Advertisement carrying our MAC address, or
 *   for a neighbour of the host on its LAN that neighbour's real one
 *   (net/neigh.c), from our MAC address (router, solicited and override
 *   flags). ndp_na_unsolicited() announces a neighbour that appears or
 *   moves to all-nodes (router and override flags: never solicited on a
 *   multicast destination, RFC 4861 7.2.6, which Linux would drop). Duplicate Address Detection
 *   probes (unspecified source) are answered only for the addresses the
 *   relay itself uses on the link (our link-local address and the
 *   gateway), to all-nodes: any other target may be an address the guest
 *   is about to configure, which we must not claim.
 * - A Router Solicitation is answered with a Router Advertisement from our
 *   link-local address (the gateway's, if that is link-local): the
 *   guest's /64 prefix for SLAAC, our MAC address, the MTU, DNS servers
 *   (RDNSS) and, with them, search domains (DNSSL, RFC 8106), the M flag
 *   when DHCPv6 is on (which makes O redundant), and the longest router
 *   lifetime RFC 8319 allows, as upstream's passt sends them.
 *   net_ndp_unsolicited() sends the same advertisement to all-nodes; the
 *   caller repeats it every NET_RA_INTERVAL_MS, well within that lifetime.
 *   When the host's prefix moved (guest/follow.c), net_ndp_follow() sends
 *   it at once, and until NDP_RETIRED_VALID_S have passed, every
 *   advertisement also carries the old prefix, deprecated.
 * - No advertisement at all goes into a namespace pasta configured itself
 *   (--config-net: its addresses and routes are the host's, a router
 *   would add an autoconfigured address and a second default route), nor
 *   with --splice-only (no tap device), --no-ra or --no-ndp.
 *
 * Solicitations are validated as RFC 4861 sections 6.1.1 and 7.1.1 ask:
 * hop limit 255, code 0, minimum length, ICMPv6 checksum, non-zero option
 * lengths within the message, no source link-layer address option with
 * an unspecified source. Advertisements are built in a stack buffer with
 * net_fill_l2l3(), get hop limit 255 and their checksum from csum_l4(),
 * and leave through qdisc_send(), which copies them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "checksum.h"
#include "dns_name.h"
#include "../util/inany.h"
#include "ip.h"
#include "ndp.h"
#include "neigh.h"
#include "net.h"
#include "../guest/follow.h"
#include "../guest/guest.h"
#include "frame.h"

/* Message layouts: ICMPv6 header, then type-specific fields, then options */
#define NDP_RS_LEN		8
#define NDP_NS_LEN		24
#define NDP_NS_OFF_TARGET	8
#define NDP_NA_OFF_FLAGS	4
#define NDP_NA_OFF_TARGET	8
#define NDP_NA_LEN		(24 + 8)	/* with target link-layer opt */
#define NDP_RA_HDR_LEN		16

#define NDP_NA_FLAG_ROUTER	0x80
#define NDP_NA_FLAG_SOLICITED	0x40
#define NDP_NA_FLAG_OVERRIDE	0x20
#define NDP_RA_FLAG_MANAGED	0x80
#define NDP_PIO_FLAG_ONLINK	0x80
#define NDP_PIO_FLAG_AUTO	0x40

/* Option types, lengths are in units of 8 bytes */
#define NDP_OPT_SLLA		1
#define NDP_OPT_TLLA		2
#define NDP_OPT_PREFIX		3
#define NDP_OPT_MTU		5
#define NDP_OPT_RDNSS		25
#define NDP_OPT_DNSSL		31
#define NDP_OPT_UNIT		8
#define NDP_OPT_LLA_LEN		8
#define NDP_OPT_MTU_LEN		8
#define NDP_OPT_PREFIX_LEN	32
#define NDP_OPT_DNS_HDR_LEN	8	/* RDNSS and DNSSL, before the data */

/* Hop limit advertised for the guest's packets: the maximum, as upstream's
 * passt advertises (it only ever reaches the relay, which sets its own)
 */
#define NDP_RA_CUR_HOP_LIMIT	255
/* Router lifetime: the maximum RFC 8319 allows */
#define NDP_ROUTER_LIFETIME_S	65535
/* Prefix, RDNSS, DNSSL lifetimes: infinite, the relay's setup is static */
#define NDP_LIFETIME_INFINITE	0xffffffffU
#define NDP_PREFIX_LEN		64
/* A prefix the host left stays advertised, deprecated (preferred lifetime
 * 0), this long: the shortest valid lifetime RFC 4862 (5.5.3 e) lets a
 * router give the addresses a guest made from it, so that connections
 * using them can end
 */
#define NDP_RETIRED_VALID_S	7200

/* Keep advertisements within the IPv6 minimum MTU: options that do not
 * fit (search domains) are left out
 */
#define NDP_RA_MAX		(MTU_MIN_IPV6 - IP6_HDR_LEN)

/* All-nodes multicast address ff02::1, and its Ethernet mapping */
/**
 * struct ndp_retired - the prefix the guest was moved from (guest/follow.c)
 * @prefix:	its first NDP_PREFIX_LEN bits, the rest zero
 * @until_s:	CLOCK_MONOTONIC seconds when it is no longer advertised, 0
 *		if there is none
 */
static struct ndp_retired {
	struct in6_addr prefix;
	uint64_t until_s;
} ndp_retired;

static const struct in6_addr ndp_all_nodes = {
	.s6_addr = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }
};

/**
 * ndp_mcast_mac() - Ethernet address for an IPv6 multicast address
 * @mac:	output, ETH_ADDR_LEN bytes
 * @a:		IPv6 multicast address
 *
 * RFC 2464, section 7: 33:33 followed by the last 32 bits of @a.
 */
static void ndp_mcast_mac(uint8_t *mac, const struct in6_addr *a)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, &a->s6_addr[12], 4);
}

/**
 * ndp_is_guest_addr() - tell if an address is one the guest uses
 * @c:		execution context
 * @a:		address
 *
 * Return: true for the guest's configured and last seen addresses
 */
static bool ndp_is_guest_addr(const struct ctx *c, const struct in6_addr *a)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);

	return IN6_ARE_ADDR_EQUAL(a, &ip6->addr) ||
	       IN6_ARE_ADDR_EQUAL(a, guest_addr6()) ||
	       IN6_ARE_ADDR_EQUAL(a, guest_addr6_ll());
}

/**
 * ndp_is_our_addr() - tell if the relay itself uses an address on the link
 * @c:		execution context
 * @a:		address
 *
 * Return: true for our link-local address and the guest's gateway
 */
static bool ndp_is_our_addr(const struct ctx *c, const struct in6_addr *a)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);

	return IN6_ARE_ADDR_EQUAL(a, &ip6->our_tap_ll) ||
	       IN6_ARE_ADDR_EQUAL(a, &ip6->gw);
}

/**
 * ndp_is_solicited_node() - tell if an address is a solicited-node group
 * @a:		address
 *
 * Return: true for ff02::1:ffXX:XXXX (RFC 4291, section 2.7.1)
 */
static bool ndp_is_solicited_node(const struct in6_addr *a)
{
	static const uint8_t pfx[13] = {
		0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff
	};

	return !memcmp(a->s6_addr, pfx, sizeof(pfx));
}

/**
 * ndp_opts_check() - validate the options of a received NDP message
 * @opt:	first option
 * @len:	bytes from @opt to the end of the message
 * @has_slla:	set if a source link-layer address option is present
 *
 * Return: true if every option has a non-zero length within @len
 */
static bool ndp_opts_check(const uint8_t *opt, size_t len, bool *has_slla)
{
	*has_slla = false;

	while (len) {
		size_t olen;

		if (len < 2)
			return false;

		olen = (size_t)opt[1] * NDP_OPT_UNIT;
		if (!olen || olen > len)
			return false;

		if (opt[0] == NDP_OPT_SLLA)
			*has_slla = true;

		opt += olen;
		len -= olen;
	}

	return true;
}

/**
 * ndp_send() - finish an NDP message and queue its frame
 * @c:		execution context
 * @buf:	frame, with room for headers and @l4len bytes of message at
 *		net_l2l3_len() of an IPv6 source
 * @src:	IPv6 source address
 * @dst:	IPv6 destination address
 * @eth_dst:	Ethernet destination, NULL to map @dst (multicast)
 * @l4len:	ICMPv6 message length, message already written, checksum
 *		field zero
 */
static void ndp_send(const struct ctx *c, uint8_t *buf,
		     const struct in6_addr *src, const struct in6_addr *dst,
		     const uint8_t *eth_dst, size_t l4len)
{
	union inany_addr s, d;
	struct iovec iov;
	size_t l2l3;
	uint16_t sum;

	s.a6 = *src;
	d.a6 = *dst;
	l2l3 = net_fill_l2l3(c, buf, &s, &d, IPPROTO_ICMPV6, l4len);
	buf[ETH_HDR_LEN + IP6_OFF_HOP_LIMIT] = IP6_HOP_LIMIT_NDP;

	if (eth_dst)
		memcpy(buf + ETH_OFF_DST, eth_dst, ETH_ADDR_LEN);
	else
		ndp_mcast_mac(buf + ETH_OFF_DST, dst);

	iov.iov_base = buf + l2l3;
	iov.iov_len = l4len;
	sum = csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, l4len);
	memcpy(buf + l2l3 + ICMP6_OFF_CSUM, &sum, sizeof(sum));

	qdisc_send(c, buf, l2l3 + l4len);
	net_stats.ndp_replies++;
}

/**
 * ndp_na_send() - answer a Neighbour Solicitation
 * @c:		execution context
 * @eth_src:	Ethernet source of the solicitation, NULL if unsolicited
 * @saddr:	source of the solicitation, :: for DAD (or unsolicited)
 * @target:	target address of the solicitation
 */
static void ndp_na_send(const struct ctx *c, const uint8_t *eth_src,
			const struct in6_addr *saddr,
			const struct in6_addr *target)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	uint8_t buf[ETH_HDR_LEN + IP6_HDR_LEN + NDP_NA_LEN];
	uint8_t *na = buf + ETH_HDR_LEN + IP6_HDR_LEN;
	const struct in6_addr *src = target, *dst = saddr;
	uint8_t flags = NDP_NA_FLAG_ROUTER | NDP_NA_FLAG_OVERRIDE;
	const uint8_t *eth_dst = eth_src;
	union inany_addr tgt;

	if (IN6_IS_ADDR_LINKLOCAL(target) &&
	    !IN6_IS_ADDR_UNSPECIFIED(&ip6->our_tap_ll))
		src = &ip6->our_tap_ll;

	if (IN6_IS_ADDR_UNSPECIFIED(saddr)) {
		dst = &ndp_all_nodes;
		eth_dst = NULL;
	} else {
		flags |= NDP_NA_FLAG_SOLICITED;
	}

	na[ICMP6_OFF_TYPE] = ICMP6_NEIGH_ADV;
	na[ICMP6_OFF_CODE] = 0;
	net_put16(na + ICMP6_OFF_CSUM, 0);
	na[NDP_NA_OFF_FLAGS] = flags;
	na[NDP_NA_OFF_FLAGS + 1] = 0;
	na[NDP_NA_OFF_FLAGS + 2] = 0;
	na[NDP_NA_OFF_FLAGS + 3] = 0;
	memcpy(na + NDP_NA_OFF_TARGET, target, sizeof(*target));
	na[NDP_NS_LEN] = NDP_OPT_TLLA;
	na[NDP_NS_LEN + 1] = NDP_OPT_LLA_LEN / NDP_OPT_UNIT;
	tgt.a6 = *target;
	neigh_mac(c, &tgt, na + NDP_NS_LEN + 2);

	ndp_send(c, buf, src, dst, eth_dst, NDP_NA_LEN);
}

/**
 * ndp_na_unsolicited() - announce a neighbour's MAC address to all-nodes
 * @c:		execution context
 * @target:	its address
 */
void ndp_na_unsolicited(const struct ctx *c, const struct in6_addr *target)
{
	if (c->no_ndp || !c->ip6.enabled)
		return;

	ndp_na_send(c, NULL, &in6addr_any, target);
}

/**
 * ndp_ra_opt_dnssl() - write the DNS Search List option (RFC 8106)
 * @c:		execution context
 * @opt:	where the option goes
 * @room:	bytes available at @opt
 *
 * Return: option length, 0 if there is nothing to put in it
 */
static size_t ndp_ra_opt_dnssl(const struct ctx *c, uint8_t *opt,
			       size_t room)
{
	size_t len = NDP_OPT_DNS_HDR_LEN, padded, ends[SEARCH_MAX], n;

	if (room < NDP_OPT_DNS_HDR_LEN + NDP_OPT_UNIT)
		return 0;

	/* Keep room for padding to a multiple of 8 bytes */
	room -= NDP_OPT_UNIT - 1;

	n = dns_search_encode(c, opt + len, room - len, ends);
	if (n)
		len += ends[n - 1];

	if (len == NDP_OPT_DNS_HDR_LEN)
		return 0;

	padded = ROUND_UP(len, NDP_OPT_UNIT);
	memset(opt + len, 0, padded - len);

	opt[0] = NDP_OPT_DNSSL;
	opt[1] = (uint8_t)(padded / NDP_OPT_UNIT);
	net_put16(opt + 2, 0);
	net_put32(opt + 4, NDP_LIFETIME_INFINITE);

	return padded;
}

/**
 * ndp_ra_opt_rdnss() - write the Recursive DNS Server option (RFC 8106)
 * @c:		execution context
 * @opt:	where the option goes, room for DNS_MAX servers
 *
 * Return: option length, 0 if there is no server to advertise
 */
static size_t ndp_ra_opt_rdnss(const struct ctx *c, uint8_t *opt)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	size_t len = NDP_OPT_DNS_HDR_LEN;
	int i;

	for (i = 0; i < ip6->dns_count && i < DNS_MAX; i++) {
		if (IN6_IS_ADDR_UNSPECIFIED(&ip6->dns[i]))
			continue;
		memcpy(opt + len, &ip6->dns[i], sizeof(ip6->dns[i]));
		len += sizeof(ip6->dns[i]);
	}

	if (len == NDP_OPT_DNS_HDR_LEN)
		return 0;

	opt[0] = NDP_OPT_RDNSS;
	opt[1] = (uint8_t)(len / NDP_OPT_UNIT);
	net_put16(opt + 2, 0);
	net_put32(opt + 4, NDP_LIFETIME_INFINITE);

	return len;
}

/**
 * ndp_ra_off() - tell if router advertisements are off
 * @c:		execution context
 *
 * Return: true with --no-ndp, --no-ra, IPv6 disabled, and for a namespace
 *	   pasta configured (--config-net) or has no tap device in
 *	   (--splice-only)
 */
static bool ndp_ra_off(const struct ctx *c)
{
	return c->no_ndp || c->no_ra || !c->ip6.enabled ||
	       (c->mode == MODE_PASTA && (c->pasta_conf_ns || c->splice_only));
}

/**
 * ndp_now_s() - monotonic clock, seconds
 *
 * Return: seconds
 */
static uint64_t ndp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec;
}

/**
 * ndp_ra_pio() - write one Prefix Information option
 * @opt:	where the option goes
 * @addr:	address in the prefix (bits after the prefix are zeroed)
 * @valid_s:	valid lifetime, seconds
 * @pref_s:	preferred lifetime, seconds
 *
 * Return: option length
 */
static size_t ndp_ra_pio(uint8_t *opt, const struct in6_addr *addr,
			 uint32_t valid_s, uint32_t pref_s)
{
	opt[0] = NDP_OPT_PREFIX;
	opt[1] = NDP_OPT_PREFIX_LEN / NDP_OPT_UNIT;
	opt[2] = NDP_PREFIX_LEN;
	opt[3] = NDP_PIO_FLAG_ONLINK | NDP_PIO_FLAG_AUTO;
	net_put32(opt + 4, valid_s);
	net_put32(opt + 8, pref_s);
	net_put32(opt + 12, 0);				/* reserved */
	memcpy(opt + 16, addr, NDP_PREFIX_LEN / 8);
	memset(opt + 16 + NDP_PREFIX_LEN / 8, 0,
	       sizeof(struct in6_addr) - NDP_PREFIX_LEN / 8);

	return NDP_OPT_PREFIX_LEN;
}

/**
 * ndp_ra_opt_prefix() - write the Prefix Information options
 * @c:		execution context
 * @opt:	where the options go
 *
 * The guest's /64, on-link and for autoconfiguration, lifetimes infinite;
 * the bits after the prefix are zero (RFC 4861, section 4.6.2). After the
 * host moved, the prefix it left too, deprecated, until NDP_RETIRED_VALID_S
 * have passed.
 *
 * Return: length of the options, 0 if the guest has no global address
 */
static size_t ndp_ra_opt_prefix(const struct ctx *c, uint8_t *opt)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	uint64_t now = ndp_now_s();
	size_t len;

	if (!net_ip6_is_unicast(&ip6->addr) ||
	    IN6_IS_ADDR_LINKLOCAL(&ip6->addr))
		return 0;

	len = ndp_ra_pio(opt, &ip6->addr, NDP_LIFETIME_INFINITE,
			 NDP_LIFETIME_INFINITE);
	if (ndp_retired.until_s > now) {
		len += ndp_ra_pio(opt + len, &ndp_retired.prefix,
				  (uint32_t)(ndp_retired.until_s - now), 0);
	}

	return len;
}

/**
 * net_ndp_follow() - the host moved: advertise the new prefix at once,
 *		      the old one deprecated; or new RDNSS, DNSSL at once
 * @c:		execution context
 * @old6:	IPv6 settings before the move
 */
void net_ndp_follow(const struct ctx *c, const struct ip6_ctx *old6)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);

	if (!memcmp(&old6->addr, &ip6->addr, NDP_PREFIX_LEN / 8)) {
		/* Same prefix: new DNS servers or domains still go at once */
		if (old6->dns_count != ip6->dns_count ||
		    memcmp(old6->dns, ip6->dns, sizeof(ip6->dns)) != 0 ||
		    follow_search_changed())
			net_ndp_unsolicited(c);
		return;
	}

	if (!memcmp(&ndp_retired.prefix, &ip6->addr, NDP_PREFIX_LEN / 8))
		ndp_retired.until_s = 0;	/* back to it: not retired */
	if (net_ip6_is_unicast(&old6->addr) &&
	    !IN6_IS_ADDR_LINKLOCAL(&old6->addr)) {
		memset(&ndp_retired.prefix, 0, sizeof(ndp_retired.prefix));
		memcpy(&ndp_retired.prefix, &old6->addr, NDP_PREFIX_LEN / 8);
		ndp_retired.until_s = ndp_now_s() + NDP_RETIRED_VALID_S;
	}

	net_ndp_unsolicited(c);
}

/**
 * ndp_ra_send() - send a Router Advertisement
 * @c:		execution context
 * @dst:	IPv6 destination: all-nodes, or the soliciting node
 * @eth_dst:	Ethernet destination, NULL to map @dst (multicast)
 *
 * Options in upstream's order: prefix, our MAC address, MTU, DNS servers,
 * and search domains if there are DNS servers.
 *
 * Return: true if sent, false if we have no link-local address to send from
 */
static bool ndp_ra_send(const struct ctx *c, const struct in6_addr *dst,
			const uint8_t *eth_dst)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	uint8_t buf[ETH_HDR_LEN + IP6_HDR_LEN + NDP_RA_MAX];
	uint8_t *ra = buf + ETH_HDR_LEN + IP6_HDR_LEN;
	size_t len = NDP_RA_HDR_LEN, rdnss = 0;

	if (!IN6_IS_ADDR_LINKLOCAL(&ip6->our_tap_ll)) {
		debug("ndp: no link-local address of ours, can't send a "
		      "router advertisement");
		return false;
	}

	ra[ICMP6_OFF_TYPE] = ICMP6_ROUTER_ADV;
	ra[ICMP6_OFF_CODE] = 0;
	net_put16(ra + ICMP6_OFF_CSUM, 0);
	ra[4] = NDP_RA_CUR_HOP_LIMIT;
	ra[5] = c->no_dhcpv6 ? 0 : NDP_RA_FLAG_MANAGED;
	net_put16(ra + 6, NDP_ROUTER_LIFETIME_S);
	net_put32(ra + 8, 0);		/* Reachable Time: unspecified */
	net_put32(ra + 12, 0);		/* Retrans Timer: unspecified */

	len += ndp_ra_opt_prefix(c, ra + len);

	ra[len] = NDP_OPT_SLLA;
	ra[len + 1] = NDP_OPT_LLA_LEN / NDP_OPT_UNIT;
	memcpy(ra + len + 2, c->our_mac, ETH_ADDR_LEN);
	len += NDP_OPT_LLA_LEN;

	if (c->mtu >= MTU_MIN_IPV6) {
		ra[len] = NDP_OPT_MTU;
		ra[len + 1] = NDP_OPT_MTU_LEN / NDP_OPT_UNIT;
		net_put16(ra + len + 2, 0);
		net_put32(ra + len + 4, c->mtu);
		len += NDP_OPT_MTU_LEN;
	}

	if (!c->no_dns && !c->no_dhcp_dns)
		rdnss = ndp_ra_opt_rdnss(c, ra + len);
	len += rdnss;

	if (rdnss && !c->no_search && !c->no_dhcp_search)
		len += ndp_ra_opt_dnssl(c, ra + len, NDP_RA_MAX - len);

	ndp_send(c, buf, &ip6->our_tap_ll, dst, eth_dst, len);
	return true;
}

/**
 * net_ndp_unsolicited() - send an unsolicited Router Advertisement
 * @c:		execution context
 *
 * Does nothing when advertisements are off (see ndp_ra_off()). Call every
 * NET_RA_INTERVAL_MS: the router lifetime must not run out.
 */
void net_ndp_unsolicited(const struct ctx *c)
{
	if (ndp_ra_off(c))
		return;

	(void)ndp_ra_send(c, &ndp_all_nodes, NULL);
}

/**
 * ndp_ns_input() - answer a validated Neighbour Solicitation, if we should
 * @c:		execution context
 * @eth_src:	Ethernet source address of the frame
 * @saddr:	IPv6 source address, :: for DAD
 * @daddr:	IPv6 destination address
 * @ns:		ICMPv6 message, at least NDP_NS_LEN bytes
 */
static void ndp_ns_input(const struct ctx *c, const uint8_t *eth_src,
			 const struct in6_addr *saddr,
			 const struct in6_addr *daddr, const uint8_t *ns)
{
	bool dad = IN6_IS_ADDR_UNSPECIFIED(saddr);
	struct in6_addr target;

	memcpy(&target, ns + NDP_NS_OFF_TARGET, sizeof(target));

	if (!net_ip6_is_unicast(&target) ||
	    (dad && !ndp_is_solicited_node(daddr))) {
		net_stats.drop_malformed++;
		trace("ndp: bad neighbour solicitation, dropping");
		return;
	}

	/* Never claim the guest's addresses, nor, for DAD, one it may be
	 * trying out: only the ones we use ourselves
	 */
	if (ndp_is_guest_addr(c, &target) ||
	    (dad && !ndp_is_our_addr(c, &target))) {
		net_stats.drop_unsupported++;
		return;
	}

	ndp_na_send(c, eth_src, saddr, &target);
}

/**
 * ndp_input() - handle a Router or Neighbour Solicitation from the guest
 * @c:		execution context
 * @eth_src:	Ethernet source address of the frame
 * @saddr:	IPv6 source address
 * @daddr:	IPv6 destination address
 * @hop_limit:	hop limit from the IPv6 header
 * @icmp:	ICMPv6 message
 * @len:	ICMPv6 message length, at least ICMP6_HDR_LEN
 *
 * Drops are counted in net_stats.
 */
void ndp_input(const struct ctx *c, const uint8_t *eth_src,
	       const struct in6_addr *saddr, const struct in6_addr *daddr,
	       uint8_t hop_limit, const uint8_t *icmp, size_t len)
{
	uint8_t type = icmp[ICMP6_OFF_TYPE];
	size_t min = type == ICMP6_NEIGH_SOL ? NDP_NS_LEN : NDP_RS_LEN;
	union inany_addr s, d;
	struct iovec iov;
	bool has_slla;

	if (c->no_ndp || (type == ICMP6_ROUTER_SOL && ndp_ra_off(c))) {
		net_stats.drop_unsupported++;
		return;
	}

	if (hop_limit != IP6_HOP_LIMIT_NDP || icmp[ICMP6_OFF_CODE] ||
	    len < min) {
		net_stats.drop_malformed++;
		trace("ndp: bad hop limit, code or length, dropping");
		return;
	}

	s.a6 = *saddr;
	d.a6 = *daddr;
	iov.iov_base = (void *)icmp;
	iov.iov_len = len;
	if (csum_l4(&s, &d, IPPROTO_ICMPV6, &iov, 1, len)) {
		net_stats.drop_malformed++;
		trace("ndp: bad ICMPv6 checksum, dropping");
		return;
	}

	if (!ndp_opts_check(icmp + min, len - min, &has_slla) ||
	    (has_slla && IN6_IS_ADDR_UNSPECIFIED(saddr))) {
		net_stats.drop_malformed++;
		trace("ndp: bad options, dropping");
		return;
	}

	if (type == ICMP6_ROUTER_SOL) {
		bool sent;

		if (IN6_IS_ADDR_UNSPECIFIED(saddr))
			sent = ndp_ra_send(c, &ndp_all_nodes, NULL);
		else
			sent = ndp_ra_send(c, saddr, eth_src);
		if (!sent)
			net_stats.drop_unsupported++;
		return;
	}

	ndp_ns_input(c, eth_src, saddr, daddr, icmp);
}

