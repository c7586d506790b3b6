// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_addr.c - options giving addresses: -a -n -g -o -D -S, DNS, mapping
 *
 * Theory of operation: these options take IPv4 or IPv6 values and most
 * may be given once per family; the family is read from the value itself.
 * Each handler checks the address is usable for its purpose (no
 * unspecified or multicast address, no loopback where the guest could not
 * reach it), stores it in the family's part of struct ctx, and notes in
 * struct conf_given that it was given explicitly, and which option first
 * gave a value of each family, so that -4 and -6 can refuse settings of
 * the family they disable. conf_check_af() applies -4/-6 once the whole
 * command line is known.
 */

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "conf_internal.h"
#include "../util/log.h"
#include "../util/util.h"

/**
 * conf_addr_ok() - check an address is usable as a unicast host address
 * @af:		AF_INET or AF_INET6
 * @addr:	address
 * @loopback:	accept loopback addresses
 *
 * Return: true if not unspecified, not multicast (or broadcast), and not
 *	   loopback unless allowed
 */
static bool conf_addr_ok(int af, const void *addr, bool loopback)
{
	if (af == AF_INET) {
		uint32_t h = ntohl(((const struct in_addr *)addr)->s_addr);

		if (h == INADDR_ANY || h == INADDR_BROADCAST ||
		    IN_MULTICAST(h))
			return false;
		return loopback || (h >> 24) != IN_LOOPBACKNET;
	}

	if (IN6_IS_ADDR_UNSPECIFIED(addr) || IN6_IS_ADDR_MULTICAST(addr))
		return false;
	return loopback || !IN6_IS_ADDR_LOOPBACK(addr);
}

/**
 * conf_addr_opt() - parse an address option given at most once per family
 * @opt:	option value, for messages
 * @arg:	option argument
 * @a4:		IPv4 destination
 * @a6:		IPv6 destination
 * @loopback:	accept loopback addresses
 *
 * Return: AF_INET or AF_INET6, whichever was set
 */
static int conf_addr_opt(int opt, const char *arg,
			 struct in_addr *a4, struct in6_addr *a6,
			 bool loopback)
{
	struct in6_addr a;
	int af;

	if (conf_inet(arg, &af, &a) || !conf_addr_ok(af, &a, loopback))
		die("%s: invalid address '%s'", conf_optname(opt), arg);

	if (af == AF_INET) {
		if (a4->s_addr)
			die("%s: only one IPv4 address can be given",
			    conf_optname(opt));
		memcpy(a4, &a, sizeof(*a4));
	} else {
		if (!IN6_IS_ADDR_UNSPECIFIED(a6))
			die("%s: only one IPv6 address can be given",
			    conf_optname(opt));
		*a6 = a;
	}

	return af;
}

/**
 * conf_opt_address() - -a/--address ADDR[/LEN]
 * @c:		configuration
 * @g:		explicit settings
 * @arg:	option argument
 */
static void conf_opt_address(struct ctx *c, struct conf_given *g,
			     const char *arg)
{
	struct in6_addr a;
	int af, len;

	if (conf_inet_prefix(arg, &af, &a, &len) ||
	    !conf_addr_ok(af, &a, false))
		die("-a/--address: invalid address '%s'", arg);

	if (af == AF_INET) {
		if (g->addr4)
			die("-a/--address: only one IPv4 address can be given");
		memcpy(&c->ip4.addr, &a, sizeof(c->ip4.addr));
		g->addr4 = true;
		if (len >= 0) {
			if (g->prefix4 && c->ip4.prefix_len != len)
				die("-a/--address: prefix length /%d conflicts with -n/--netmask",
				    len);
			c->ip4.prefix_len = len;
			g->prefix4 = true;
		}
	} else {
		if (g->addr6)
			die("-a/--address: only one IPv6 address can be given");
		c->ip6.addr = a;
		g->addr6 = true;
		if (len >= 0) {
			c->ip6.prefix_len = len;
			g->prefix6 = true;
		}
	}
}

/**
 * conf_opt_dns() - -D/--dns ADDR|none
 * @c:		configuration
 * @g:		explicit settings
 * @arg:	option argument
 */
static void conf_opt_dns(struct ctx *c, struct conf_given *g,
			 const char *arg)
{
	struct in6_addr a;
	int af;

	if (!strcmp(arg, "none")) {
		if (g->dns)
			die("-D/--dns: 'none' conflicts with addresses given before");
		c->no_dns = true;
		return;
	}

	if (c->no_dns)
		die("-D/--dns: '%s' conflicts with 'none' given before", arg);

	if (conf_inet(arg, &af, &a) || !conf_addr_ok(af, &a, true))
		die("-D/--dns: invalid address '%s'", arg);

	if (af == AF_INET) {
		if (c->ip4.dns_count >= DNS_MAX)
			die("-D/--dns: at most %d IPv4 servers can be given",
			    DNS_MAX);
		memcpy(&c->ip4.dns[c->ip4.dns_count++], &a,
		       sizeof(struct in_addr));
	} else {
		if (c->ip6.dns_count >= DNS_MAX)
			die("-D/--dns: at most %d IPv6 servers can be given",
			    DNS_MAX);
		c->ip6.dns[c->ip6.dns_count++] = a;
	}

	g->dns = true;
}

/**
 * conf_opt_search() - -S/--search LIST|none
 * @c:		configuration
 * @g:		explicit settings
 * @arg:	option argument: domains separated by spaces
 */
static void conf_opt_search(struct ctx *c, struct conf_given *g,
			    const char *arg)
{
	const char *p = arg;

	if (!strcmp(arg, "none")) {
		if (g->search)
			die("-S/--search: 'none' conflicts with domains given before");
		c->no_search = true;
		return;
	}

	if (c->no_search)
		die("-S/--search: '%s' conflicts with 'none' given before", arg);

	for (;;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;

		len = strcspn(p, " \t");
		if (len > SEARCH_LEN_MAX)
			die("-S/--search: domain too long (at most %d characters) in '%s'",
			    SEARCH_LEN_MAX, arg);
		if (c->search_count >= SEARCH_MAX)
			die("-S/--search: at most %d domains can be given",
			    SEARCH_MAX);

		memcpy(c->search[c->search_count], p, len);
		c->search[c->search_count][len] = '\0';
		c->search_count++;
		p += len;
	}

	if (!c->search_count)
		die("-S/--search: empty domain list");

	g->search = true;
}

/**
 * conf_opt_map() - --map-host-loopback / --map-guest-addr ADDR|none
 * @opt:	option value
 * @arg:	option argument
 * @a4:		IPv4 mapping
 * @a6:		IPv6 mapping
 *
 * Return: AF_INET or AF_INET6 for an address, AF_UNSPEC for "none"
 */
static int conf_opt_map(int opt, const char *arg,
			struct in_addr *a4, struct in6_addr *a6)
{
	struct in6_addr a;
	int af;

	if (!strcmp(arg, "none")) {
		a4->s_addr = htonl(INADDR_ANY);
		*a6 = in6addr_any;
		return AF_UNSPEC;
	}

	if (conf_inet(arg, &af, &a) || !conf_addr_ok(af, &a, false))
		die("%s: invalid address '%s'", conf_optname(opt), arg);

	if (af == AF_INET)
		memcpy(a4, &a, sizeof(*a4));
	else
		*a6 = a;

	return af;
}

/**
 * conf_opt_net() - handle an address, DNS or mapping option
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument
 *
 * Return: true if @opt is one of these options (and was handled)
 */
bool conf_opt_net(struct ctx *c, struct conf_given *g, int opt,
		  const char *arg)
{
	int len;

	switch (opt) {
	case 'a':
		conf_opt_address(c, g, arg);
		break;
	case 'n':
		if (conf_netmask(arg, &len))
			die("-n/--netmask: invalid IPv4 netmask '%s': use a dotted mask or a length from 0 to 32",
			    arg);
		if (g->prefix4 && c->ip4.prefix_len != len)
			die("-n/--netmask: '%s' conflicts with the prefix length given with -a/--address",
			    arg);
		c->ip4.prefix_len = len;
		g->prefix4 = true;
		break;
	case 'g':
		if (conf_addr_opt(opt, arg, &c->ip4.gw, &c->ip6.gw,
				  false) == AF_INET)
			g->gw4 = true;
		else
			g->gw6 = true;
		break;
	case 'o':
		conf_addr_opt(opt, arg, &c->ip4.outbound,
			      &c->ip6.outbound, true);
		break;
	case 'D':
		conf_opt_dns(c, g, arg);
		break;
	case 'S':
		conf_opt_search(c, g, arg);
		break;
	case OPT_DNS_FORWARD:
		conf_addr_opt(opt, arg, &c->ip4.dns_match,
			      &c->ip6.dns_match, false);
		break;
	case OPT_DNS_HOST:
		if (conf_addr_opt(opt, arg, &c->ip4.dns_host,
				  &c->ip6.dns_host, true) == AF_INET)
			g->dns_host4 = true;
		else
			g->dns_host6 = true;
		break;
	case OPT_MAP_HOST_LO:
		switch (conf_opt_map(opt, arg, &c->ip4.map_host_lo,
				     &c->ip6.map_host_lo)) {
		case AF_INET:
			g->map_host_lo4 = true;
			break;
		case AF_INET6:
			g->map_host_lo6 = true;
			break;
		default:
			g->map_host_lo4 = g->map_host_lo6 = true;
		}
		break;
	case OPT_MAP_GUEST_ADDR:
		conf_opt_map(opt, arg, &c->ip4.map_guest_addr,
			     &c->ip6.map_guest_addr);
		break;
	default:
		return false;
	}

	return true;
}

/**
 * conf_af_rule_check() - refuse a rule that only a disabled family could serve
 * @opt:	option of the specification, for messages ("-t", ...)
 * @r:		rule
 * @v4_off:	-6 was given
 * @v6_off:	-4 was given
 */
static void conf_af_rule_check(const char *opt, const struct fwd_rule *r,
			       bool v4_off, bool v6_off)
{
	const char *why = v4_off ? "-6/--ipv6-only disables IPv4" :
				   "-4/--ipv4-only disables IPv6";
	char a[INANY_STRLEN], what[32];

	snprintf(what, sizeof(what), "ports %u-%u", r->first, r->last);

	if (!r->bind_any && (r->bind_v4 ? v4_off : v6_off))
		die("%s: %s listen on %s, but %s", opt, what,
		    inany_ntop(&r->bind_addr, a), why);

	if (!inany_is_unspecified(&r->to_addr) &&
	    (inany_v4(&r->to_addr) ? v4_off : v6_off))
		die("%s: %s go to %s, but %s", opt, what,
		    inany_ntop(&r->to_addr, a), why);
}

/**
 * conf_af_fwd_check() - check forwarding rules against -4 or -6
 * @c:		configuration, specifications parsed
 * @v4_off:	-6 was given
 * @v6_off:	-4 was given
 */
static void conf_af_fwd_check(const struct ctx *c, bool v4_off, bool v6_off)
{
	const struct fwd_spec *specs[] = {
		&c->tcp_to_guest, &c->udp_to_guest,
		&c->tcp_to_host, &c->udp_to_host,
	};
	static const char *const opts[] = { "-t", "-u", "-T", "-U" };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		const struct fwd_spec *spec = specs[i];

		for (j = 0; j < spec->n_rules; j++)
			conf_af_rule_check(opts[i], &spec->rules[j], v4_off,
					   v6_off);
	}
}

/**
 * conf_check_af() - apply -4/-6 once the whole command line is known
 * @c:		configuration
 * @g:		explicit settings
 *
 * Addresses, DNS servers and mappings of the disabled family are dropped
 * silently, as upstream does; forwarding rules bound to it, and an outbound
 * interface for it, are refused, as upstream refuses them.
 */
void conf_check_af(struct ctx *c, const struct conf_given *g)
{
	if (g->v4_only && g->v6_only)
		die("-4/--ipv4-only and -6/--ipv6-only are mutually exclusive");

	if (!g->v4_only && !g->v6_only)
		return;

	conf_af_fwd_check(c, g->v6_only, g->v4_only);

	/* As upstream: an outbound interface the relay can't use is an error */
	if (g->v6_only && *c->ip4.outbound_if)
		die("--outbound-if4 %s: -6/--ipv6-only disables IPv4",
		    c->ip4.outbound_if);
	if (g->v4_only && *c->ip6.outbound_if)
		die("--outbound-if6 %s: -4/--ipv4-only disables IPv6",
		    c->ip6.outbound_if);

	if (g->v4_only)
		memset(&c->ip6, 0, sizeof(c->ip6));
	else
		memset(&c->ip4, 0, sizeof(c->ip4));
}
