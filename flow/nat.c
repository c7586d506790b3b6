// SPDX-License-Identifier: GPL-2.0-or-later
/* nat.c - address mapping between the guest's view and the host's
 *
 * Theory of operation: the guest uses the host's own addresses, so almost
 * every address passes unchanged. A flow's addresses are mapped once, when
 * the flow starts, by three rules per family, all read from struct ctx
 * (an unspecified address turns a rule off; conf/ already folded
 * --no-map-gw into map_host_lo):
 *
 * Outbound (the guest starts the flow; we pick the host-side destination),
 * first match wins:
 *   1. port 53 (DNS) or 853 (DNS over TLS) of dns_match: to dns_host, or
 *      if unset the first offered DNS server that is not dns_match itself.
 *      conf/ sets dns_match to the map_host_lo address when it offers that
 *      in place of a resolver on the host's loopback (or of the gateway
 *      when it is a resolver itself), so that DNS goes to the resolver and
 *      everything else to the host's loopback;
 *   2. map_host_lo: to the host's loopback, 127.0.0.1 or ::1;
 *   3. map_guest_addr: to the host's address the guest also has (addr).
 *
 * Inbound (the host side starts the flow; we pick the source the guest
 * sees):
 *   1. a loopback source (127.0.0.0/8, ::1): appears as map_host_lo, or if
 *      unset as the gateway (for IPv6 without gateway: our link-local
 *      address);
 *   2. a source equal to the guest's own address (addr): appears as
 *      map_guest_addr, or if unset as the gateway (same fallback);
 *   3. anything else: unchanged.
 * The guest's address a flow goes to has the scope of that source: a
 * link-local source goes to the guest's link-local address, once the guest
 * sent from it (nat_guest_addr()).
 */

#include <string.h>

#include "nat.h"
#include "../conf/ctx.h"
#include "../guest/follow.h"
#include "../guest/guest.h"

#define NAT_PORT_DNS		53	/* DNS over UDP and TCP */
#define NAT_PORT_DOT		853	/* DNS over TLS (RFC 7858) */

/**
 * nat_dns_port() - tell if a destination port is one DNS forwarding maps
 * @port:	destination port
 *
 * Return: true for DNS and DNS over TLS
 */
static inline bool nat_dns_port(uint16_t port)
{
	return port == NAT_PORT_DNS || port == NAT_PORT_DOT;
}

/**
 * nat_v4_set() - tell if an IPv4 address is specified (a rule is on)
 * @a:		address
 *
 * Return: true unless @a is 0.0.0.0
 */
static inline bool nat_v4_set(struct in_addr a)
{
	return a.s_addr != htonl(INADDR_ANY);
}

/**
 * nat_v4_eq() - compare two IPv4 addresses
 * @a:		first
 * @b:		second
 *
 * Return: true if equal
 */
static inline bool nat_v4_eq(struct in_addr a, struct in_addr b)
{
	return a.s_addr == b.s_addr;
}

/**
 * nat_v6_set() - tell if an IPv6 address is specified (a rule is on)
 * @a:		address
 *
 * Return: true unless @a is ::
 */
static inline bool nat_v6_set(const struct in6_addr *a)
{
	return !IN6_IS_ADDR_UNSPECIFIED(a);
}

/**
 * nat_v6_from() - make an inany address from an IPv6 one
 * @out:	output
 * @a:		IPv6 address
 */
static inline void nat_v6_from(union inany_addr *out, const struct in6_addr *a)
{
	out->a6 = *a;
}

/**
 * nat_dns_v4() - where forwarded IPv4 DNS queries go
 * @c:		execution context
 * @out:	output address
 *
 * Return: true if there is a destination
 */
static bool nat_dns_v4(const struct ctx *c, struct in_addr *out)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	int i;

	if (nat_v4_set(ip4->dns_host)) {
		*out = ip4->dns_host;
		return true;
	}
	for (i = 0; i < ip4->dns_count && i < DNS_MAX; i++) {
		if (nat_v4_set(ip4->dns[i]) &&
		    !nat_v4_eq(ip4->dns[i], ip4->dns_match)) {
			*out = ip4->dns[i];
			return true;
		}
	}
	return false;
}

/**
 * nat_dns_v6() - where forwarded IPv6 DNS queries go
 * @c:		execution context
 * @out:	output address
 *
 * Return: true if there is a destination
 */
static bool nat_dns_v6(const struct ctx *c, struct in6_addr *out)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	int i;

	if (nat_v6_set(&ip6->dns_host)) {
		*out = ip6->dns_host;
		return true;
	}
	for (i = 0; i < ip6->dns_count && i < DNS_MAX; i++) {
		if (nat_v6_set(&ip6->dns[i]) &&
		    !IN6_ARE_ADDR_EQUAL(&ip6->dns[i], &ip6->dns_match)) {
			*out = ip6->dns[i];
			return true;
		}
	}
	return false;
}

/**
 * nat_outbound_v4() - outbound rules for an IPv4 destination
 * @c:		execution context
 * @dst:	destination the guest used
 * @dport:	destination port
 * @out:	mapped destination, set only if a rule applies
 *
 * Return: true if a rule applied
 */
static bool nat_outbound_v4(const struct ctx *c, struct in_addr dst,
			    uint16_t dport, union inany_addr *out)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	struct in_addr a;

	if (nat_dns_port(dport) && nat_v4_set(ip4->dns_match) &&
	    nat_v4_eq(dst, ip4->dns_match) && nat_dns_v4(c, &a)) {
		inany_from_v4(out, a);
		return true;
	}

	if (nat_v4_set(ip4->map_host_lo) &&
	    nat_v4_eq(dst, ip4->map_host_lo)) {
		a.s_addr = htonl(INADDR_LOOPBACK);
		inany_from_v4(out, a);
		return true;
	}

	if (nat_v4_set(ip4->map_guest_addr) &&
	    nat_v4_eq(dst, ip4->map_guest_addr)) {
		inany_from_v4(out, ip4->addr);
		return true;
	}

	return false;
}

/**
 * nat_outbound_v6() - outbound rules for an IPv6 destination
 * @c:		execution context
 * @dst:	destination the guest used
 * @dport:	destination port
 * @out:	mapped destination, set only if a rule applies
 *
 * Return: true if a rule applied
 */
static bool nat_outbound_v6(const struct ctx *c, const struct in6_addr *dst,
			    uint16_t dport, union inany_addr *out)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	struct in6_addr a;

	if (nat_dns_port(dport) && nat_v6_set(&ip6->dns_match) &&
	    IN6_ARE_ADDR_EQUAL(dst, &ip6->dns_match) && nat_dns_v6(c, &a)) {
		nat_v6_from(out, &a);
		return true;
	}

	if (nat_v6_set(&ip6->map_host_lo) &&
	    IN6_ARE_ADDR_EQUAL(dst, &ip6->map_host_lo)) {
		nat_v6_from(out, &in6addr_loopback);
		return true;
	}

	if (nat_v6_set(&ip6->map_guest_addr) &&
	    IN6_ARE_ADDR_EQUAL(dst, &ip6->map_guest_addr)) {
		nat_v6_from(out, &ip6->addr);
		return true;
	}

	return false;
}

/**
 * nat_outbound() - host-side destination for a flow the guest starts
 * @c:		execution context
 * @guest_dst:	destination address the guest used
 * @dport:	destination port, host order
 * @host_dst:	output: address to connect or send to (may be @guest_dst)
 *
 * Return: true if a mapping applied, false if @host_dst is @guest_dst
 */
bool nat_outbound(const struct ctx *c, const union inany_addr *guest_dst,
		  uint16_t dport, union inany_addr *host_dst)
{
	union inany_addr dst = *guest_dst;
	const struct in_addr *v4 = inany_v4(&dst);
	bool mapped;

	if (v4)
		mapped = nat_outbound_v4(c, *v4, dport, host_dst);
	else
		mapped = nat_outbound_v6(c, &dst.a6, dport, host_dst);

	if (!mapped)
		*host_dst = dst;
	return mapped;
}

/**
 * nat_inbound_v4() - source the guest sees for an IPv4 host-side source
 * @c:		execution context
 * @src:	host-side source
 * @out:	mapped source, set only if a rule applies
 *
 * Return: true if a rule applied
 */
static bool nat_inbound_v4(const struct ctx *c, struct in_addr src,
			   union inany_addr *out)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	struct in_addr to;

	if ((ntohl(src.s_addr) >> IN_CLASSA_NSHIFT) == IN_LOOPBACKNET)
		to = nat_v4_set(ip4->map_host_lo) ? ip4->map_host_lo
						   : ip4->gw;
	else if (nat_v4_set(ip4->addr) && nat_v4_eq(src, ip4->addr))
		to = nat_v4_set(ip4->map_guest_addr) ? ip4->map_guest_addr
						      : ip4->gw;
	else
		return false;

	if (!nat_v4_set(to))
		return false;

	inany_from_v4(out, to);
	return true;
}

/**
 * nat_inbound_v6() - source the guest sees for an IPv6 host-side source
 * @c:		execution context
 * @src:	host-side source
 * @out:	mapped source, set only if a rule applies
 *
 * Return: true if a rule applied
 */
static bool nat_inbound_v6(const struct ctx *c, const struct in6_addr *src,
			   union inany_addr *out)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	const struct in6_addr *to;

	if (IN6_IS_ADDR_LOOPBACK(src))
		to = &ip6->map_host_lo;
	else if (nat_v6_set(&ip6->addr) &&
		 IN6_ARE_ADDR_EQUAL(src, &ip6->addr))
		to = &ip6->map_guest_addr;
	else
		return false;

	if (!nat_v6_set(to))
		to = &ip6->gw;
	if (!nat_v6_set(to))
		to = &ip6->our_tap_ll;
	if (!nat_v6_set(to))
		return false;

	nat_v6_from(out, to);
	return true;
}

/**
 * nat_inbound() - source the guest sees for a flow the host side starts
 * @c:		execution context
 * @host_src:	source address on the host side
 * @guest_src:	output: source address shown to the guest (may be @host_src)
 *
 * Return: true if the address changed
 */
bool nat_inbound(const struct ctx *c, const union inany_addr *host_src,
		 union inany_addr *guest_src)
{
	union inany_addr src = *host_src, out;
	const struct in_addr *v4 = inany_v4(&src);
	bool mapped;

	if (v4)
		mapped = nat_inbound_v4(c, *v4, &out);
	else
		mapped = nat_inbound_v6(c, &src.a6, &out);

	if (!mapped) {
		*guest_src = src;
		return false;
	}

	*guest_src = out;
	return !inany_equals(&out, &src);
}

/**
 * nat_guest_addr() - the guest's address to send a flow's frames to
 * @c:		execution context
 * @src:	source of the flow as the guest sees it (nat_inbound())
 * @guest:	output: for IPv4, and IPv6 from a global source, the last
 *		address seen from the guest, else the configured one (for
 *		IPv6 without one, the link-local one seen); for IPv6 from a
 *		link-local source, the guest's link-local address once it
 *		sent from it, else as for a global source
 *
 * A guest application that answers by connect()ing to the source (socat's
 * UDP-LISTEN does) gets the source address its kernel picks for that
 * peer, which for a link-local peer is its link-local address: datagrams
 * of the flow sent to its global address no longer reach the socket. So
 * the destination has the scope of the source. A link-local address the
 * guest has not sent from may still be tentative (duplicate address
 * detection), and the guest's kernel drops frames to it: until then, the
 * global address, which the guest's kernel also picks while its
 * link-local one is tentative.
 */
void nat_guest_addr(const struct ctx *c, const union inany_addr *src,
		    union inany_addr *guest)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);

	if (inany_v4(src)) {
		inany_from_v4(guest, nat_v4_set(guest_addr4()) ?
				     guest_addr4() : ip4->addr);
		return;
	}

	if (IN6_IS_ADDR_LINKLOCAL(&src->a6) && nat_v6_set(guest_addr6_ll()))
		nat_v6_from(guest, guest_addr6_ll());
	else if (nat_v6_set(guest_addr6()))
		nat_v6_from(guest, guest_addr6());
	else if (nat_v6_set(&ip6->addr) || !nat_v6_set(guest_addr6_ll()))
		nat_v6_from(guest, &ip6->addr);
	else
		nat_v6_from(guest, guest_addr6_ll());
}

/**
 * nat_host_scope() - scope of a host-side destination address
 * @c:		execution context
 * @dst:	host-side destination
 *
 * A link-local address is only meaningful on one link: the guest's link
 * is the host's template interface (the relay's own link-local address
 * is the host's there, and so is the gateway's), so that is where such a
 * destination is reached.
 *
 * Return: the IPv6 template interface index for a link-local address, 0
 *	   otherwise
 */
uint32_t nat_host_scope(const struct ctx *c, const union inany_addr *dst)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);

	if (inany_v4(dst) || !IN6_IS_ADDR_LINKLOCAL(&dst->a6))
		return 0;
	return ip6->ifindex;
}

/**
 * nat_outbound_src() - source address for a host socket toward a target
 * @c:		execution context
 * @dst:	host-side destination
 * @src:	output: the -o/--outbound address of the family, or the
 *		unspecified address for loopback, which it could not reach
 */
void nat_outbound_src(const struct ctx *c, const union inany_addr *dst,
		      union inany_addr *src)
{
	const struct in_addr *d4 = inany_v4(dst);

	if (d4) {
		struct in_addr any = { .s_addr = htonl(INADDR_ANY) };
		bool lo = (ntohl(d4->s_addr) >> IN_CLASSA_NSHIFT) ==
			  IN_LOOPBACKNET;

		inany_from_v4(src, lo ? any : c->ip4.outbound);
	} else if (IN6_IS_ADDR_LOOPBACK(&dst->a6)) {
		memset(src, 0, sizeof(*src));
	} else {
		src->a6 = c->ip6.outbound;
	}
}
