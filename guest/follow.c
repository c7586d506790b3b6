// SPDX-License-Identifier: GPL-2.0-or-later
/* follow.c - what was derived from the host, as it follows the host
 *
 * Theory of operation: struct ctx is read-only after start-up, but part
 * of it was only derived from the host (the template interface, the
 * guest's addresses and prefix lengths, the gateways, the mapping of the
 * gateway to the host's loopback, the DNS servers, the --dns-host target
 * and the search list), and the host may change it while we run. This
 * module owns a copy of the two address family blocks of the context
 * (struct ip4_ctx, ip6_ctx), and of the search list, filled from it by
 * follow_init(), and the
 * readers of those settings (flow/nat.c, net/ ARP, NDP, DHCP, DHCPv6,
 * neighbours, tcp/ and udp/ loopback paths) read them here: follow_ip4(),
 * follow_ip6(), follow_search_count(), follow_search_name(). Until
 * follow_init() ran for a context (unit tests), the context's own blocks
 * are returned.
 *
 * follow_watch.c derives the settings again when the host's addresses,
 * routes or links change, or its resolver file (follow_resolv.c), with
 * conf/'s start-up functions, and hands the outcome to follow_apply()
 * (the search list first to follow_search_set()), which logs what
 * changed, once, at info level, puts it in force, moves the guest's
 * source addresses that were the old derived ones (guest.c) and tells
 * the observers that higher layers registered (follow_register(): main()
 * registers pasta's namespace update). Options the user gave were never
 * derived: conf/ starts every derivation from the command line's
 * settings, so they stay.
 */

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "follow.h"
#include "guest.h"
#include "../util/log.h"

/**
 * struct follow_state - the derived settings in force, and who to tell
 * @c:		context follow_init() copied, NULL before
 * @ip4:	IPv4 settings in force
 * @ip6:	IPv6 settings in force
 * @obs:	observers, called after every change
 * @n_obs:	number of @obs
 * @told:	the guest is told of changes at once (pasta --config-net)
 * @retired4:	IPv4 address the guest was moved from, any if none
 * @retired6:	IPv6 address the guest was moved from, :: if none
 * @search:	search list in force
 * @search_count: entries in @search
 * @search_new:	the search list changed since the last follow_apply()
 */
static struct follow_state {
	const struct ctx *c;
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;
	bool told;
	struct in_addr retired4;
	struct in6_addr retired6;
	char search[SEARCH_MAX][SEARCH_LEN_MAX + 1];
	int search_count;
	bool search_new;
	follow_fn obs[FOLLOW_OBSERVERS_MAX];
	unsigned int n_obs;
} follow;

/**
 * follow_init() - start from what start-up derived
 * @c:		execution context, complete
 */
void follow_init(const struct ctx *c)
{
	follow.c = c;
	follow.ip4 = c->ip4;
	follow.ip6 = c->ip6;
	follow.n_obs = 0;
	follow.told = c->mode == MODE_PASTA && c->pasta_conf_ns;
	follow.retired4.s_addr = 0;
	follow.retired6 = in6addr_any;
	memcpy(follow.search, c->search, sizeof(follow.search));
	follow.search_count = c->search_count;
	follow.search_new = false;
}

/**
 * follow_search_count() - number of search domains in force
 * @c:		execution context
 *
 * Return: the followed count, @c's own before follow_init(@c)
 */
int follow_search_count(const struct ctx *c)
{
	return follow.c == c ? follow.search_count : c->search_count;
}

/**
 * follow_search_name() - one search domain in force
 * @c:		execution context
 * @i:		index, below follow_search_count()
 *
 * Return: the domain, at most SEARCH_LEN_MAX + 1 bytes with its NUL
 */
const char *follow_search_name(const struct ctx *c, int i)
{
	return follow.c == c ? follow.search[i] : c->search[i];
}

/**
 * follow_search_changed() - did the change being applied move the list?
 *
 * Return: true while observers run for a change of the search list
 */
bool follow_search_changed(void)
{
	return follow.search_new;
}

/**
 * follow_search_set() - a search list derived again, for follow_apply()
 * @c:		execution context
 * @search:	the list
 * @count:	entries in @search
 */
void follow_search_set(const struct ctx *c,
		       const char (*search)[SEARCH_LEN_MAX + 1], int count)
{
	int i;

	if (follow.c != c || count < 0 || count > SEARCH_MAX)
		return;
	if (count == follow.search_count &&
	    !memcmp(search, follow.search, sizeof(follow.search[0]) * count))
		return;

	for (i = 0; i < count; i++)
		memcpy(follow.search[i], search[i], sizeof(follow.search[i]));
	follow.search_count = count;
	follow.search_new = true;
	info("Host network changed: search list now %d domain%s%s%s",
	     count, count == 1 ? "" : "s", count ? ", first " : "",
	     count ? follow.search[0] : "");
}

/**
 * follow_retired4() - is this the IPv4 address the guest was moved from?
 * @a:		address the guest sent from
 *
 * pasta --config-net moves the namespace to a new address and keeps the
 * old one, deprecated, for the connections using it: those don't make it
 * the guest's address again (guest_addr4_set()).
 *
 * Return: true if it is, and the guest was moved
 */
bool follow_retired4(struct in_addr a)
{
	return follow.told && a.s_addr && a.s_addr == follow.retired4.s_addr;
}

/**
 * follow_retired6() - is this the IPv6 address the guest was moved from?
 * @a:		address the guest sent from
 *
 * Return: true if it is, and the guest was moved (see follow_retired4())
 */
bool follow_retired6(const struct in6_addr *a)
{
	return follow.told && !IN6_IS_ADDR_UNSPECIFIED(a) &&
	       IN6_ARE_ADDR_EQUAL(a, &follow.retired6);
}

/**
 * follow_ip4() - IPv4 settings in force
 * @c:		execution context
 *
 * Return: the followed settings, @c's own before follow_init(@c)
 */
const struct ip4_ctx *follow_ip4(const struct ctx *c)
{
	return follow.c == c ? &follow.ip4 : &c->ip4;
}

/**
 * follow_ip6() - IPv6 settings in force
 * @c:		execution context
 *
 * Return: the followed settings, @c's own before follow_init(@c)
 */
const struct ip6_ctx *follow_ip6(const struct ctx *c)
{
	return follow.c == c ? &follow.ip6 : &c->ip6;
}

/**
 * follow_register() - be told of every change, after it is in force
 * @fn:		observer
 *
 * Return: 0 on success, -1 if FOLLOW_OBSERVERS_MAX are registered
 */
int follow_register(follow_fn fn)
{
	if (follow.n_obs >= FOLLOW_OBSERVERS_MAX)
		return -1;
	follow.obs[follow.n_obs++] = fn;
	return 0;
}

/**
 * follow_ntop() - an address for a message, "(none)" if unspecified
 * @af:		AF_INET or AF_INET6
 * @a:		address
 * @buf:	output, INET6_ADDRSTRLEN bytes
 *
 * A gateway is none when the host's default route has none (a VPN's tun
 * device): "(none)" says so better than 0.0.0.0.
 */
static void follow_ntop(int af, const void *a, char *buf)
{
	static const struct in6_addr zero = IN6ADDR_ANY_INIT;
	size_t len = af == AF_INET ? sizeof(struct in_addr) : sizeof(zero);

	if (!memcmp(a, &zero, len))
		snprintf(buf, INET6_ADDRSTRLEN, "(none)");
	else
		inet_ntop(af, a, buf, INET6_ADDRSTRLEN);
}

/**
 * follow_log_change() - one line for one setting that changed
 * @af:		AF_INET or AF_INET6
 * @what:	the setting
 * @old:	old address
 * @old_len:	its prefix length, -1 for none
 * @new:	new address
 * @new_len:	its prefix length, -1 for none
 */
static void follow_log_change(int af, const char *what, const void *old,
			      int old_len, const void *new, int new_len)
{
	char o[INET6_ADDRSTRLEN], n[INET6_ADDRSTRLEN];
	char ol[16] = "", nl[16] = "";

	follow_ntop(af, old, o);
	follow_ntop(af, new, n);
	if (old_len >= 0)
		snprintf(ol, sizeof(ol), "/%d", old_len);
	if (new_len >= 0)
		snprintf(nl, sizeof(nl), "/%d", new_len);
	info("Host network changed: %s %s%s -> %s%s", what, o, ol, n, nl);
}

/**
 * follow_log4() - log what changed in IPv4
 * @o:		old settings
 * @n:		new settings
 */
static void follow_log4(const struct ip4_ctx *o, const struct ip4_ctx *n)
{
	if (strcmp(o->ifname, n->ifname) != 0)
		info("Host network changed: IPv4 template interface %s -> %s",
		     *o->ifname ? o->ifname : "(none)",
		     *n->ifname ? n->ifname : "(none)");
	if (o->addr.s_addr != n->addr.s_addr || o->prefix_len != n->prefix_len)
		follow_log_change(AF_INET, "IPv4 address", &o->addr,
				  o->prefix_len, &n->addr, n->prefix_len);
	if (o->gw.s_addr != n->gw.s_addr)
		follow_log_change(AF_INET, "IPv4 gateway", &o->gw, -1,
				  &n->gw, -1);
	if (o->dns_count != n->dns_count ||
	    memcmp(o->dns, n->dns, sizeof(o->dns)) != 0)
		follow_log_change(AF_INET, "first IPv4 DNS server", &o->dns[0],
				  -1, &n->dns[0], -1);
	if (o->dns_match.s_addr != n->dns_match.s_addr)
		follow_log_change(AF_INET, "IPv4 DNS stand-in",
				  &o->dns_match, -1, &n->dns_match, -1);
	if (o->dns_host.s_addr != n->dns_host.s_addr)
		follow_log_change(AF_INET, "IPv4 DNS forwarding target",
				  &o->dns_host, -1, &n->dns_host, -1);
}

/**
 * follow_log6() - log what changed in IPv6
 * @o:		old settings
 * @n:		new settings
 */
static void follow_log6(const struct ip6_ctx *o, const struct ip6_ctx *n)
{
	if (strcmp(o->ifname, n->ifname) != 0)
		info("Host network changed: IPv6 template interface %s -> %s",
		     *o->ifname ? o->ifname : "(none)",
		     *n->ifname ? n->ifname : "(none)");
	if (!IN6_ARE_ADDR_EQUAL(&o->addr, &n->addr) ||
	    o->prefix_len != n->prefix_len)
		follow_log_change(AF_INET6, "IPv6 address", &o->addr,
				  o->prefix_len, &n->addr, n->prefix_len);
	if (!IN6_ARE_ADDR_EQUAL(&o->gw, &n->gw))
		follow_log_change(AF_INET6, "IPv6 gateway", &o->gw, -1,
				  &n->gw, -1);
	if (!IN6_ARE_ADDR_EQUAL(&o->our_tap_ll, &n->our_tap_ll))
		follow_log_change(AF_INET6, "IPv6 router address",
				  &o->our_tap_ll, -1, &n->our_tap_ll, -1);
	if (o->dns_count != n->dns_count ||
	    memcmp(o->dns, n->dns, sizeof(o->dns)) != 0)
		follow_log_change(AF_INET6, "first IPv6 DNS server",
				  &o->dns[0], -1, &n->dns[0], -1);
	if (!IN6_ARE_ADDR_EQUAL(&o->dns_match, &n->dns_match))
		follow_log_change(AF_INET6, "IPv6 DNS stand-in",
				  &o->dns_match, -1, &n->dns_match, -1);
	if (!IN6_ARE_ADDR_EQUAL(&o->dns_host, &n->dns_host))
		follow_log_change(AF_INET6, "IPv6 DNS forwarding target",
				  &o->dns_host, -1, &n->dns_host, -1);
}

/**
 * follow_same4() - are two IPv4 blocks the same in what can be derived?
 * @a:		one
 * @b:		the other
 *
 * Return: true if they are
 */
static bool follow_same4(const struct ip4_ctx *a, const struct ip4_ctx *b)
{
	return a->ifindex == b->ifindex && !strcmp(a->ifname, b->ifname) &&
	       a->addr.s_addr == b->addr.s_addr &&
	       a->prefix_len == b->prefix_len &&
	       a->gw.s_addr == b->gw.s_addr &&
	       a->map_host_lo.s_addr == b->map_host_lo.s_addr &&
	       a->dns_count == b->dns_count &&
	       a->dns_match.s_addr == b->dns_match.s_addr &&
	       a->dns_host.s_addr == b->dns_host.s_addr &&
	       !memcmp(a->dns, b->dns, sizeof(a->dns));
}

/**
 * follow_same6() - are two IPv6 blocks the same in what can be derived?
 * @a:		one
 * @b:		the other
 *
 * Return: true if they are
 */
static bool follow_same6(const struct ip6_ctx *a, const struct ip6_ctx *b)
{
	return a->ifindex == b->ifindex && !strcmp(a->ifname, b->ifname) &&
	       IN6_ARE_ADDR_EQUAL(&a->addr, &b->addr) &&
	       a->prefix_len == b->prefix_len &&
	       IN6_ARE_ADDR_EQUAL(&a->gw, &b->gw) &&
	       IN6_ARE_ADDR_EQUAL(&a->our_tap_ll, &b->our_tap_ll) &&
	       IN6_ARE_ADDR_EQUAL(&a->map_host_lo, &b->map_host_lo) &&
	       a->dns_count == b->dns_count &&
	       IN6_ARE_ADDR_EQUAL(&a->dns_match, &b->dns_match) &&
	       IN6_ARE_ADDR_EQUAL(&a->dns_host, &b->dns_host) &&
	       !memcmp(a->dns, b->dns, sizeof(a->dns));
}

/**
 * follow_apply() - put settings derived again in force, if they differ
 * @c:		execution context
 * @ip4:	IPv4 settings derived now
 * @ip6:	IPv6 settings derived now
 *
 * A search list given to follow_search_set() before counts as a change.
 *
 * Return: true if anything changed (then logged, and observers told)
 */
bool follow_apply(const struct ctx *c, const struct ip4_ctx *ip4,
		  const struct ip6_ctx *ip6)
{
	struct ip4_ctx old4 = follow.ip4;
	struct ip6_ctx old6 = follow.ip6;
	unsigned int i;

	if (follow.c != c)
		return false;
	if (follow_same4(ip4, &old4) && follow_same6(ip6, &old6) &&
	    !follow.search_new)
		return false;

	follow_log4(&old4, ip4);
	follow_log6(&old6, ip6);
	follow.ip4 = *ip4;
	follow.ip6 = *ip6;

	/* A guest still seen at the old address is told the new one */
	if (old4.addr.s_addr != ip4->addr.s_addr)
		follow.retired4 = old4.addr;
	if (!IN6_ARE_ADDR_EQUAL(&old6.addr, &ip6->addr))
		follow.retired6 = old6.addr;
	if (guest_addr4().s_addr == old4.addr.s_addr)
		guest_addr4_set(ip4->addr);
	if (IN6_ARE_ADDR_EQUAL(guest_addr6(), &old6.addr))
		guest_addr6_set(&ip6->addr);

	for (i = 0; i < follow.n_obs; i++)
		follow.obs[i](c, &old4, &old6);
	follow.search_new = false;

	return true;
}
