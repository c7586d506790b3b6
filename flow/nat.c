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
 *   1. port 53 to dns_match: to dns_host, or if unset the first offered
 *      DNS server that is not dns_match itself;
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
 *
 * The guest's address a flow from the host goes to is the last one it was
 * seen sending from, or the configured one; a link-local source goes to
 * the guest's link-local address (nat_guest_addr_from()), because the
 * guest answers a link-local peer from that one.
 */

#include <string.h>

#include "nat.h"
#include "../conf/ctx.h"
#include "../guest/guest.h"

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
	int i;

	if (nat_v4_set(c->ip4.dns_host)) {
		*out = c->ip4.dns_host;
		return true;
	}
	for (i = 0; i < c->ip4.dns_count && i < DNS_MAX; i++) {
		if (nat_v4_set(c->ip4.dns[i]) &&
		    !nat_v4_eq(c->ip4.dns[i], c->ip4.dns_match)) {
			*out = c->ip4.dns[i];
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
	int i;

	if (nat_v6_set(&c->ip6.dns_host)) {
		*out = c->ip6.dns_host;
		return true;
	}
	for (i = 0; i < c->ip6.dns_count && i < DNS_MAX; i++) {
		if (nat_v6_set(&c->ip6.dns[i]) &&
		    !IN6_ARE_ADDR_EQUAL(&c->ip6.dns[i], &c->ip6.dns_match)) {
			*out = c->ip6.dns[i];
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
	struct in_addr a;

	if (dport == 53 && nat_v4_set(c->ip4.dns_match) &&
	    nat_v4_eq(dst, c->ip4.dns_match) && nat_dns_v4(c, &a)) {
		inany_from_v4(out, a);
		return true;
	}

	if (nat_v4_set(c->ip4.map_host_lo) &&
	    nat_v4_eq(dst, c->ip4.map_host_lo)) {
		a.s_addr = htonl(INADDR_LOOPBACK);
		inany_from_v4(out, a);
		return true;
	}

	if (nat_v4_set(c->ip4.map_guest_addr) &&
	    nat_v4_eq(dst, c->ip4.map_guest_addr)) {
		inany_from_v4(out, c->ip4.addr);
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
	struct in6_addr a;

	if (dport == 53 && nat_v6_set(&c->ip6.dns_match) &&
	    IN6_ARE_ADDR_EQUAL(dst, &c->ip6.dns_match) && nat_dns_v6(c, &a)) {
		nat_v6_from(out, &a);
		return true;
	}

	if (nat_v6_set(&c->ip6.map_host_lo) &&
	    IN6_ARE_ADDR_EQUAL(dst, &c->ip6.map_host_lo)) {
		nat_v6_from(out, &in6addr_loopback);
		return true;
	}

	if (nat_v6_set(&c->ip6.map_guest_addr) &&
	    IN6_ARE_ADDR_EQUAL(dst, &c->ip6.map_guest_addr)) {
		nat_v6_from(out, &c->ip6.addr);
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
	struct in_addr to;

	if ((ntohl(src.s_addr) >> IN_CLASSA_NSHIFT) == IN_LOOPBACKNET)
		to = nat_v4_set(c->ip4.map_host_lo) ? c->ip4.map_host_lo
						    : c->ip4.gw;
	else if (nat_v4_set(c->ip4.addr) && nat_v4_eq(src, c->ip4.addr))
		to = nat_v4_set(c->ip4.map_guest_addr) ? c->ip4.map_guest_addr
						       : c->ip4.gw;
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
	const struct in6_addr *to;

	if (IN6_IS_ADDR_LOOPBACK(src))
		to = &c->ip6.map_host_lo;
	else if (nat_v6_set(&c->ip6.addr) &&
		 IN6_ARE_ADDR_EQUAL(src, &c->ip6.addr))
		to = &c->ip6.map_guest_addr;
	else
		return false;

	if (!nat_v6_set(to))
		to = &c->ip6.gw;
	if (!nat_v6_set(to))
		to = &c->ip6.our_tap_ll;
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
 * nat_guest_addr() - the guest's address to send to
 * @c:		execution context
 * @v4:		true for IPv4, false for IPv6
 * @guest:	output: last address seen from the guest, else the
 *		configured one (for IPv6, else the link-local one seen)
 */
void nat_guest_addr(const struct ctx *c, bool v4, union inany_addr *guest)
{
	if (v4) {
		inany_from_v4(guest, nat_v4_set(guest_addr4()) ?
				     guest_addr4() : c->ip4.addr);
		return;
	}

	if (nat_v6_set(guest_addr6()))
		nat_v6_from(guest, guest_addr6());
	else if (nat_v6_set(&c->ip6.addr) || !nat_v6_set(guest_addr6_ll()))
		nat_v6_from(guest, &c->ip6.addr);
	else
		nat_v6_from(guest, guest_addr6_ll());
}

/**
 * nat_guest_addr_from() - the guest's address to send to from a source
 * @c:		execution context
 * @src:	source address as the guest sees it
 * @guest:	output: for a link-local IPv6 source, the guest's link-local
 *		address if known (it answers from the address of the
 *		source's scope, which must be the one its flow has), else as
 *		nat_guest_addr()
 */
void nat_guest_addr_from(const struct ctx *c, const union inany_addr *src,
			 union inany_addr *guest)
{
	if (!inany_v4(src) && IN6_IS_ADDR_LINKLOCAL(&src->a6) &&
	    nat_v6_set(guest_addr6_ll())) {
		nat_v6_from(guest, guest_addr6_ll());
		return;
	}

	nat_guest_addr(c, inany_v4(src) != NULL, guest);
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
	if (inany_v4(dst) || !IN6_IS_ADDR_LINKLOCAL(&dst->a6))
		return 0;
	return c->ip6.ifindex;
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
