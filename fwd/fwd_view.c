// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_view.c - the derived configuration, as text for a -c client
 *
 * Theory of operation
 *
 * A -c client (pesto) shows the forwarding tables, and with them what the
 * relay derived from the host as it stands now: per family the template
 * interface, the guest's address and prefix length, the gateway, the
 * address that reaches the host's loopback, the DNS servers and where
 * forwarded DNS queries go; then the MTU and the search list. The
 * addresses are the ones in force (guest/follow.h: follow_ip4(),
 * follow_ip6()), not those of start-up. Each value derived from the host
 * ends with "(host)", each the command line fixed with "(option)"
 * (conf_fixed_get()); defaults that never depend on the host (the MTU,
 * the IPv6 prefix length) have no mark. The first line says whether the
 * relay follows the host: if not, the "(host)" values are those of
 * start-up.
 *
 * This is text, lines ending with '\n', at most PESTO_VIEW_MAX bytes
 * (fwd/pesto_wire.c frames it; doc/pesto.md): the client prints it as it
 * comes, after replacing any byte that is not printable ASCII. Nothing
 * here does I/O: it is called when a client is accepted.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "fwd_view.h"
#include "pesto_wire.h"
#include "../conf/conf.h"
#include "../conf/ctx.h"
#include "../guest/follow.h"

/**
 * struct fwd_view_buf - text being written
 * @buf:	output
 * @size:	its size
 * @len:	bytes written, at most @size - 1
 */
struct fwd_view_buf {
	char *buf;
	size_t size;
	size_t len;
};

/**
 * fwd_view_put() - append formatted text, cut at the end of the buffer
 * @b:		text being written
 * @fmt:	format
 * @...:	arguments
 */
__attribute__((format(printf, 2, 3)))
static void fwd_view_put(struct fwd_view_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->len + 1 >= b->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->buf + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	b->len += (size_t)n;
	if (b->len >= b->size)
		b->len = b->size - 1;
}

/**
 * fwd_view_mark() - how a value came to be
 * @fixed:	the command line gave it
 *
 * Return: "option" or "host"
 */
static const char *fwd_view_mark(bool fixed)
{
	return fixed ? "option" : "host";
}

/**
 * fwd_view_dns() - the DNS servers of one family, on one line
 * @b:		text being written
 * @af:		AF_INET or AF_INET6
 * @dns:	array of addresses
 * @count:	number of entries
 * @fixed:	-D gave them
 */
static void fwd_view_dns(struct fwd_view_buf *b, int af, const void *dns,
			 int count, bool fixed)
{
	size_t sz = af == AF_INET ? sizeof(struct in_addr) :
				    sizeof(struct in6_addr);
	char a[INET6_ADDRSTRLEN];
	int i;

	fwd_view_put(b, "    DNS:");
	for (i = 0; i < count && i < DNS_MAX; i++) {
		inet_ntop(af, (const char *)dns + i * sz, a, sizeof(a));
		fwd_view_put(b, "%s %s", i ? "," : "", a);
	}
	fwd_view_put(b, "%s (%s)\n", count ? "" : " none",
		     fwd_view_mark(fixed));
}

/**
 * fwd_view_ip4() - the IPv4 settings in force
 * @b:		text being written
 * @c:		execution context
 * @f:		what the command line fixed
 */
static void fwd_view_ip4(struct fwd_view_buf *b, const struct ctx *c,
			 const struct conf_fixed *f)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	char a[INET_ADDRSTRLEN], h[INET_ADDRSTRLEN];

	if (!c->ip4.enabled || c->splice_only) {
		fwd_view_put(b, "IPv4: %s\n", c->splice_only ?
			     "loopback only (--splice-only)" : "disabled");
		return;
	}

	fwd_view_put(b, "IPv4: template interface %s (%s)\n",
		     *ip4->ifname ? ip4->ifname : "none",
		     fwd_view_mark(f->if4));
	fwd_view_put(b, "    address: %s/%d (%s)\n",
		     inet_ntop(AF_INET, &ip4->addr, a, sizeof(a)),
		     ip4->prefix_len, fwd_view_mark(f->addr4));
	fwd_view_put(b, "    gateway: %s (%s)\n",
		     ip4->gw.s_addr ? inet_ntop(AF_INET, &ip4->gw, a,
						sizeof(a)) : "none",
		     fwd_view_mark(f->gw4));
	if (ip4->map_host_lo.s_addr)
		fwd_view_put(b, "    %s reaches the host's loopback (%s)\n",
			     inet_ntop(AF_INET, &ip4->map_host_lo, a,
				       sizeof(a)),
			     fwd_view_mark(f->map4));
	fwd_view_dns(b, AF_INET, ip4->dns, ip4->dns_count, f->dns);
	if (ip4->dns_match.s_addr)
		fwd_view_put(b, "    DNS queries to %s go to %s (%s)\n",
			     inet_ntop(AF_INET, &ip4->dns_match, a, sizeof(a)),
			     inet_ntop(AF_INET, &ip4->dns_host, h, sizeof(h)),
			     fwd_view_mark(f->dns_host4));
}

/**
 * fwd_view_ip6() - the IPv6 settings in force
 * @b:		text being written
 * @c:		execution context
 * @f:		what the command line fixed
 */
static void fwd_view_ip6(struct fwd_view_buf *b, const struct ctx *c,
			 const struct conf_fixed *f)
{
	const struct ip6_ctx *ip6 = follow_ip6(c);
	char a[INET6_ADDRSTRLEN], h[INET6_ADDRSTRLEN];

	if (!c->ip6.enabled || c->splice_only) {
		fwd_view_put(b, "IPv6: %s\n", c->splice_only ?
			     "loopback only (--splice-only)" : "disabled");
		return;
	}

	fwd_view_put(b, "IPv6: template interface %s (%s)\n",
		     *ip6->ifname ? ip6->ifname : "none",
		     fwd_view_mark(f->if6));
	fwd_view_put(b, "    address: %s/%d (%s)\n",
		     inet_ntop(AF_INET6, &ip6->addr, a, sizeof(a)),
		     ip6->prefix_len, fwd_view_mark(f->addr6));
	fwd_view_put(b, "    gateway: %s (%s)\n",
		     IN6_IS_ADDR_UNSPECIFIED(&ip6->gw) ? "none" :
		     inet_ntop(AF_INET6, &ip6->gw, a, sizeof(a)),
		     fwd_view_mark(f->gw6));
	fwd_view_put(b, "    our link-local address: %s (%s)\n",
		     inet_ntop(AF_INET6, &ip6->our_tap_ll, a, sizeof(a)),
		     fwd_view_mark(f->gw6 && IN6_IS_ADDR_LINKLOCAL(&ip6->gw)));
	if (!IN6_IS_ADDR_UNSPECIFIED(&ip6->map_host_lo))
		fwd_view_put(b, "    %s reaches the host's loopback (%s)\n",
			     inet_ntop(AF_INET6, &ip6->map_host_lo, a,
				       sizeof(a)),
			     fwd_view_mark(f->map6));
	fwd_view_dns(b, AF_INET6, ip6->dns, ip6->dns_count, f->dns);
	if (!IN6_IS_ADDR_UNSPECIFIED(&ip6->dns_match))
		fwd_view_put(b, "    DNS queries to %s go to %s (%s)\n",
			     inet_ntop(AF_INET6, &ip6->dns_match, a, sizeof(a)),
			     inet_ntop(AF_INET6, &ip6->dns_host, h, sizeof(h)),
			     fwd_view_mark(f->dns_host6));
}

/**
 * fwd_view_text() - the derived configuration in force, as text
 * @c:		execution context
 * @buf:	output, NUL-terminated
 * @size:	its size
 *
 * Return: length of the text, cut to fit @size - 1
 */
size_t fwd_view_text(const struct ctx *c, char *buf, size_t size)
{
	struct fwd_view_buf b = { .buf = buf, .size = size, .len = 0 };
	struct conf_fixed f;
	int i;

	if (!size)
		return 0;
	*buf = '\0';
	conf_fixed_get(c, &f);

	if (follow_watch_on())
		fwd_view_put(&b, "Following the host: on\n");
	else
		fwd_view_put(&b, "Following the host: off, values from the host are those of start-up\n");

	fwd_view_ip4(&b, c, &f);
	fwd_view_ip6(&b, c, &f);

	if (c->mtu)
		fwd_view_put(&b, "MTU: %u\n", c->mtu);
	else
		fwd_view_put(&b, "MTU: not advertised\n");

	fwd_view_put(&b, "DNS search list:");
	for (i = 0; i < follow_search_count(c) && i < SEARCH_MAX; i++)
		fwd_view_put(&b, " %.*s", SEARCH_LEN_MAX,
			     follow_search_name(c, i));
	fwd_view_put(&b, "%s (%s)\n", follow_search_count(c) ? "" : " none",
		     fwd_view_mark(f.search));

	return b.len;
}
