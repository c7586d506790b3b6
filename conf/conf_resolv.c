// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_resolv.c - DNS servers and search list from the resolver file
 *
 * Theory of operation: conf_resolv_read() reads /etc/resolv.conf at
 * start-up (stage 6 of conf.c) into a buffer, and conf_resolv_parse()
 * takes its "nameserver", "search" and "domain" lines, with the rules of
 * conf_resolv_ns4() for servers the guest can't reach as they are (on the
 * host's loopback, or behind the address mapped to it). While the relay
 * runs, guest/follow_resolv.c reads the file again when it changes and
 * conf_resolv_rederive() applies the same rules to the new text, from
 * the command line's DNS settings (conf_saved_get()): -D, -S,
 * --dns-forward and --dns-host stay as given.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "conf.h"
#include "conf_internal.h"
#include "../util/log.h"
#include "../util/util.h"

#define CONF_LINE_MAX		512	/* longest resolv.conf line read */

/**
 * struct conf_resolv - where a resolver file's settings go
 * @ip4:	IPv4 settings: DNS servers, --dns-host default
 * @ip6:	IPv6 settings: DNS servers, --dns-host default
 * @search:	search list
 * @search_count: entries in @search
 * @want4:	fill the IPv4 server list (no -D of that family)
 * @want6:	fill the IPv6 server list
 * @want_search: fill the search list (no -S)
 * @servers:	set to the number of "nameserver" lines seen
 */
struct conf_resolv {
	struct ip4_ctx *ip4;
	struct ip6_ctx *ip6;
	char (*search)[SEARCH_LEN_MAX + 1];
	int *search_count;
	bool want4;
	bool want6;
	bool want_search;
	int servers;
};

/**
 * conf_dns_add4() - add an IPv4 server to the guest's list, once
 * @ip4:	IPv4 settings
 * @a:		server
 */
static void conf_dns_add4(struct ip4_ctx *ip4, struct in_addr a)
{
	int i;

	for (i = 0; i < ip4->dns_count; i++) {
		if (ip4->dns[i].s_addr == a.s_addr)
			return;
	}
	if (ip4->dns_count < DNS_MAX)
		ip4->dns[ip4->dns_count++] = a;
}

/**
 * conf_dns_add6() - add an IPv6 server to the guest's list, once
 * @ip6:	IPv6 settings
 * @a:		server
 */
static void conf_dns_add6(struct ip6_ctx *ip6, const struct in6_addr *a)
{
	int i;

	for (i = 0; i < ip6->dns_count; i++) {
		if (IN6_ARE_ADDR_EQUAL(&ip6->dns[i], a))
			return;
	}
	if (ip6->dns_count < DNS_MAX)
		ip6->dns[ip6->dns_count++] = *a;
}

/**
 * conf_resolv_ns4() - handle one IPv4 "nameserver" line of resolv.conf
 * @ip4:	IPv4 settings, map_host_lo already decided
 * @g:		explicit settings
 * @a:		the server
 * @want_dns:	fill the guest's server list
 *
 * A server the guest can't reach as it is, on the host's loopback (say,
 * systemd-resolved's 127.0.0.53), or one hidden behind the address that
 * maps to the host's loopback (the gateway, when it is the resolver too),
 * is offered as the --dns-forward address, or if none was given as the
 * --map-host-loopback address, which then also forwards DNS: flow/nat.c
 * sends those queries to --dns-host, by default the first server read.
 * Without either address, such a server is left out.
 */
static void conf_resolv_ns4(struct ip4_ctx *ip4, const struct conf_given *g,
			    struct in_addr a, bool want_dns)
{
	if (!g->dns_host4 && !ip4->dns_host.s_addr)
		ip4->dns_host = a;
	if (!want_dns || !a.s_addr)
		return;

	if ((ntohl(a.s_addr) >> IN_CLASSA_NSHIFT) == IN_LOOPBACKNET ||
	    (ip4->map_host_lo.s_addr &&
	     a.s_addr == ip4->map_host_lo.s_addr)) {
		if (!ip4->dns_match.s_addr) {
			if (!ip4->map_host_lo.s_addr)
				return;
			ip4->dns_match = ip4->map_host_lo;
		}
		a = ip4->dns_match;
	}

	conf_dns_add4(ip4, a);
}

/**
 * conf_resolv_ns6() - handle one IPv6 "nameserver" line of resolv.conf
 * @ip6:	IPv6 settings, map_host_lo already decided
 * @g:		explicit settings
 * @a:		the server
 * @want_dns:	fill the guest's server list
 *
 * As conf_resolv_ns4(), for ::1 and the IPv6 mapping addresses.
 */
static void conf_resolv_ns6(struct ip6_ctx *ip6, const struct conf_given *g,
			    const struct in6_addr *a, bool want_dns)
{
	if (!g->dns_host6 && IN6_IS_ADDR_UNSPECIFIED(&ip6->dns_host))
		ip6->dns_host = *a;
	if (!want_dns || IN6_IS_ADDR_UNSPECIFIED(a))
		return;

	if (IN6_IS_ADDR_LOOPBACK(a) ||
	    (!IN6_IS_ADDR_UNSPECIFIED(&ip6->map_host_lo) &&
	     IN6_ARE_ADDR_EQUAL(a, &ip6->map_host_lo))) {
		if (IN6_IS_ADDR_UNSPECIFIED(&ip6->dns_match)) {
			if (IN6_IS_ADDR_UNSPECIFIED(&ip6->map_host_lo))
				return;
			ip6->dns_match = ip6->map_host_lo;
		}
		a = &ip6->dns_match;
	}

	conf_dns_add6(ip6, a);
}

/**
 * conf_resolv_ns() - handle one "nameserver" line of resolv.conf
 * @r:		where the settings go
 * @g:		explicit settings
 * @addr:	the address text
 */
static void conf_resolv_ns(struct conf_resolv *r, const struct conf_given *g,
			   const char *addr)
{
	union {
		struct in_addr a4;
		struct in6_addr a6;
	} a;
	int af;

	if (conf_inet(addr, &af, &a))
		return;

	r->servers++;
	if (af == AF_INET && r->ip4->enabled)
		conf_resolv_ns4(r->ip4, g, a.a4, r->want4);
	else if (af == AF_INET6 && r->ip6->enabled)
		conf_resolv_ns6(r->ip6, g, &a.a6, r->want6);
}

/**
 * conf_resolv_search() - handle one "search" or "domain" line
 * @r:		where the search list goes
 * @list:	rest of the line: domains separated by blanks
 *
 * As for the resolver, the last such line wins.
 */
static void conf_resolv_search(const struct conf_resolv *r, char *list)
{
	char *save = NULL, *tok;

	*r->search_count = 0;
	for (tok = strtok_r(list, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		size_t len = strlen(tok);

		if (len > SEARCH_LEN_MAX || *r->search_count >= SEARCH_MAX)
			continue;
		memcpy(r->search[*r->search_count], tok, len + 1);
		(*r->search_count)++;
	}
}

/**
 * conf_resolv_line() - handle one line of resolv.conf
 * @r:		where the settings go
 * @g:		explicit settings
 * @line:	the line, without its end, modified
 */
static void conf_resolv_line(struct conf_resolv *r, const struct conf_given *g,
			     char *line)
{
	char *save = NULL, *key, *val;

	line[strcspn(line, "\r#;")] = '\0';
	key = strtok_r(line, " \t", &save);
	if (!key)
		return;

	if (!strcmp(key, "nameserver")) {
		val = strtok_r(NULL, " \t", &save);
		if (val)
			conf_resolv_ns(r, g, val);
	} else if (r->want_search &&
		   (!strcmp(key, "search") || !strcmp(key, "domain"))) {
		conf_resolv_search(r, save ? save : key + strlen(key));
	}
}

/**
 * conf_resolv_parse() - settings from the text of a resolv.conf file
 * @r:		where the settings go
 * @g:		explicit settings
 * @buf:	the text, NUL-terminated, modified
 *
 * Lines longer than CONF_LINE_MAX are cut there.
 */
static void conf_resolv_parse(struct conf_resolv *r,
			      const struct conf_given *g, char *buf)
{
	char line[CONF_LINE_MAX];

	while (*buf) {
		size_t len = strcspn(buf, "\n");
		size_t n = MIN(len, sizeof(line) - 1);

		memcpy(line, buf, n);
		line[n] = '\0';
		conf_resolv_line(r, g, line);
		buf += len;
		if (*buf)
			buf++;
	}
}

/**
 * conf_resolv_read() - DNS defaults from a resolv.conf file
 * @c:		configuration, address families already decided
 * @path:	file to read, normally CONF_RESOLV_PATH
 * @g:		explicit settings
 *
 * Fills the guest's DNS servers of a family unless -D gave one of that
 * family (loopback resolvers through the --dns-forward or
 * --map-host-loopback address, see conf_resolv_ns4()), the search list
 * unless -S was given, and --dns-host defaults with the first server of
 * each family. Call once the mapping addresses are known. Only the first
 * CONF_RESOLV_MAX bytes are read.
 *
 * Return: 0 on success, -1 if @path can't be read
 */
int conf_resolv_read(struct ctx *c, const char *path,
		     const struct conf_given *g)
{
	static char buf[CONF_RESOLV_MAX + 1];
	struct conf_resolv r = {
		.ip4 = &c->ip4, .ip6 = &c->ip6,
		.search = c->search, .search_count = &c->search_count,
		.want4 = !c->no_dns && !c->ip4.dns_count,
		.want6 = !c->no_dns && !c->ip6.dns_count,
		.want_search = !c->no_search && !g->search,
	};
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		debug("Can't open %s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, buf, CONF_RESOLV_MAX);
	close(fd);
	if (n < 0) {
		debug("Can't read %s: %s", path, strerror(errno));
		return -1;
	}
	buf[n] = '\0';

	conf_resolv_parse(&r, g, buf);
	return 0;
}

/**
 * conf_resolv_followed() - is anything derived from the resolver file?
 * @c:		configuration of start-up
 *
 * Return: true unless -D, -S and --dns-host fixed everything it gives
 */
bool conf_resolv_followed(const struct ctx *c)
{
	const struct conf_given *g;
	const struct ip4_ctx *s4;
	const struct ip6_ctx *s6;
	bool dns4, dns6;

	conf_saved_get(&g, &s4, &s6);
	dns4 = !c->no_dns && !s4->dns_count;
	dns6 = !c->no_dns && !s6->dns_count;

	if (c->splice_only)
		return false;
	return dns4 || dns6 || (!c->no_search && !g->search) ||
	       (c->ip4.enabled && !g->dns_host4) ||
	       (c->ip6.enabled && !g->dns_host6);
}

/**
 * conf_resolv_rederive() - DNS settings from the resolver file's new text
 * @c:		configuration of start-up (what the command line fixed)
 * @buf:	the file's text, NUL-terminated, modified
 * @ip4:	IPv4 settings in force, DNS fields updated
 * @ip6:	IPv6 settings in force, DNS fields updated
 * @search:	search list in force, updated unless -S fixed it
 * @search_count: entries in @search, updated
 *
 * Start-up's rules, from the command line's DNS settings, with the
 * mapping addresses in force (the stand-in of a loopback resolver). A
 * file with no "nameserver" line at all (one being rewritten, or
 * emptied) leaves the servers in force.
 */
void conf_resolv_rederive(const struct ctx *c, char *buf,
			  struct ip4_ctx *ip4, struct ip6_ctx *ip6,
			  char (*search)[SEARCH_LEN_MAX + 1],
			  int *search_count)
{
	struct ip4_ctx n4 = *ip4;
	struct ip6_ctx n6 = *ip6;
	const struct conf_given *g;
	const struct ip4_ctx *s4;
	const struct ip6_ctx *s6;
	struct conf_resolv r;
	int n_search = 0;

	conf_saved_get(&g, &s4, &s6);
	r = (struct conf_resolv){
		.ip4 = &n4, .ip6 = &n6,
		.search = search, .search_count = &n_search,
		.want4 = !c->no_dns && !s4->dns_count,
		.want6 = !c->no_dns && !s6->dns_count,
		.want_search = !c->no_search && !g->search,
	};

	memcpy(n4.dns, s4->dns, sizeof(n4.dns));
	n4.dns_count = s4->dns_count;
	n4.dns_match = s4->dns_match;
	n4.dns_host = s4->dns_host;
	memcpy(n6.dns, s6->dns, sizeof(n6.dns));
	n6.dns_count = s6->dns_count;
	n6.dns_match = s6->dns_match;
	n6.dns_host = s6->dns_host;

	conf_resolv_parse(&r, g, buf);
	if (r.want_search)
		*search_count = n_search;
	if (!r.servers)
		return;
	*ip4 = n4;
	*ip6 = n6;
}
