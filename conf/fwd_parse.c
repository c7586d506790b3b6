// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_parse.c - the parser of port forwarding specifications (-t, -u,
 *		 -T, -U), into the types of fwd_spec.h
 *
 * Theory of operation: fwd_parse() turns one option argument into rules
 * and appends them to a struct fwd_spec; repeated options for the same
 * specification call it again and accumulate. A call either succeeds
 * completely or leaves the specification untouched, and explains a
 * failure in the caller's error buffer. The keyword none stands alone: it
 * may be repeated, and come before port lists (which then replace it, as
 * upstream's "-t none -t 22"), never after them.
 *
 * An argument may start with a bind part ending at a slash (IPv4, IPv6
 * bare or in brackets, optionally followed by %IFACE, or %IFACE alone, or
 * "*" for any address): as in upstream's grammar, it applies to every item
 * of the list. An item of the list is "all" with an optional target
 * address, an exclusion, or a range, which may carry a bind part of its
 * own (an extension of this implementation), then after a colon a target:
 * an address ending at a slash and a range, a range, or an address alone.
 * As a bare IPv6 address also contains colons, text before the first
 * slash is taken as a bind address unless it starts like "PORT:" and is
 * not a valid IPv6 address; brackets always resolve the ambiguity.
 *
 * Each argument stands by itself, as upstream's: "all", and a list without
 * ranges (exclusions only, or "auto" alone), is every port below and above
 * the ephemeral range (best effort: a port that can't be bound is
 * skipped); the exclusions of an argument split its own rules, so that
 * each rule is one contiguous range; "auto" marks every rule of its
 * argument "scan" (followed: forwarded only while the target port is
 * bound on the other side, fwd/fwd_auto.c). "auto" alone, "auto,~80" and
 * "::1/auto" follow every non-ephemeral port (but 80; on ::1 only),
 * "80-90,auto" these eleven ports only.
 *
 * The rules of an argument must not conflict with each other or with the
 * rules of the arguments before (fwd_rule_conflicts(), upstream's test):
 * a port is forwarded again only at an address that doesn't overlap, say
 * "-t 127.0.0.1/8080 -t ::1/8080" (what podman passes for two -p options
 * with host addresses), or "-t 192.0.2.1/8080 -t 192.0.2.2/8080:80".
 *
 * conf/fwd_table.c finalises the specification once the address families
 * are known, and builds the index the data path and fwd/ use.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "fwd_spec.h"
#include "../util/log.h"

#define FWD_PORT_MIN		1U
#define FWD_PORT_MAX		65535U
#define FWD_ITEM_MAX		128	/* longest single list item */
#define FWD_EPHEMERAL_FALLBACK	32768
#define FWD_EPHEMERAL_PATH	"/proc/sys/net/ipv4/ip_local_port_range"

/**
 * struct fwd_range - an inclusive port range while parsing
 * @first:	first port
 * @last:	last port
 */
struct fwd_range {
	unsigned int first;
	unsigned int last;
};

/**
 * fwd_err() - format an error message into the caller's buffer
 * @errbuf:	buffer, not NULL
 * @errlen:	its size, not 0
 * @...:	printf-style format and arguments
 *
 * Return: -1, for use in return statements
 */
#define fwd_err(errbuf, errlen, ...)					\
	(snprintf((errbuf), (errlen), __VA_ARGS__), -1)

/**
 * fwd_bit_set() - set a port in an exclusion bitmap
 * @map:	bitmap of FWD_PORTS bits
 * @port:	port
 */
static void fwd_bit_set(uint8_t *map, unsigned int port)
{
	map[port / 8] |= (uint8_t)(1U << (port % 8));
}

/**
 * fwd_bit_get() - test a port in an exclusion bitmap
 * @map:	bitmap of FWD_PORTS bits
 * @port:	port
 *
 * Return: true if set
 */
static bool fwd_bit_get(const uint8_t *map, unsigned int port)
{
	return map[port / 8] & (1U << (port % 8));
}

/**
 * fwd_parse_port() - parse one port number at the start of a string
 * @s:		text, must start with a decimal digit
 * @end:	set to the first character after the number
 * @port:	parsed port
 *
 * Return: 0 on success, -1 if there is no number or it is out of range
 */
static int fwd_parse_port(const char *s, const char **end, unsigned int *port)
{
	unsigned long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;

	errno = 0;
	v = strtoul(s, &e, 10);
	if (errno || v < FWD_PORT_MIN || v > FWD_PORT_MAX)
		return -1;

	*end = e;
	*port = (unsigned int)v;
	return 0;
}

/**
 * fwd_parse_range() - parse a whole FIRST[-LAST] string
 * @s:		text, nothing else may follow the range
 * @r:		parsed range
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_range(const char *s, struct fwd_range *r,
			   char *errbuf, size_t errlen)
{
	const char *p;

	if (!*s)
		return fwd_err(errbuf, errlen, "missing port number");

	if (fwd_parse_port(s, &p, &r->first))
		goto bad;

	if (*p == '-') {
		if (fwd_parse_port(p + 1, &p, &r->last))
			goto bad;
	} else {
		r->last = r->first;
	}

	if (*p)
		goto bad;

	if (r->last < r->first)
		return fwd_err(errbuf, errlen,
			       "invalid port range '%s': last port is lower than first",
			       s);
	return 0;

bad:
	return fwd_err(errbuf, errlen,
		       "invalid port range '%s': ports are %u-%u", s,
		       FWD_PORT_MIN, FWD_PORT_MAX);
}

/**
 * fwd_parse_ifname() - check and copy an interface name
 * @s:		name
 * @ifname:	output, IFNAMSIZ bytes
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_ifname(const char *s, char *ifname,
			    char *errbuf, size_t errlen)
{
	size_t len = strlen(s), i;

	if (!len || len >= IFNAMSIZ)
		return fwd_err(errbuf, errlen,
			       "invalid interface name '%s': 1 to %d characters",
			       s, IFNAMSIZ - 1);

	for (i = 0; i < len; i++) {
		if (s[i] == '/' || s[i] == ':' || s[i] == '%' ||
		    isspace((unsigned char)s[i]))
			return fwd_err(errbuf, errlen,
				       "invalid interface name '%s'", s);
	}

	memcpy(ifname, s, len + 1);
	return 0;
}

/**
 * fwd_parse_addr() - parse an IPv4 or IPv6 address
 * @s:		text, without brackets
 * @v6_only:	the address was in brackets: accept IPv6 only
 * @addr:	output
 * @v4:		set if the address is IPv4
 *
 * Return: 0 on success, -1 if @s is not an address
 */
static int fwd_parse_addr(const char *s, bool v6_only, union inany_addr *addr,
			  bool *v4)
{
	struct in_addr a4;

	if (!v6_only && inet_pton(AF_INET, s, &a4) == 1) {
		inany_from_v4(addr, a4);
		*v4 = true;
		return 0;
	}

	if (inet_pton(AF_INET6, s, &addr->a6) == 1) {
		*v4 = false;
		return 0;
	}

	return -1;
}


/**
 * fwd_parse_bind() - parse the bind part of an argument or an item
 * @s:		text before the slash: ADDR, [ADDR], ADDR%IFACE, [ADDR]%IFACE,
 *		[ADDR%IFACE], %IFACE, * or *%IFACE; modified in place
 * @rule:	rule to fill (bind fields)
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_bind(char *s, struct fwd_rule *rule,
			  char *errbuf, size_t errlen)
{
	char *addr = s, *ifname = NULL, *pct, *close;
	bool bracket = false;

	if (*s == '[') {
		close = strchr(s, ']');
		if (!close)
			return fwd_err(errbuf, errlen,
				       "missing ']' in address '%s'", s);
		pct = strchr(s, '%');
		if (pct && pct < close) {		/* [ADDR%IFACE] */
			if (close[1])
				goto bad;
			*pct = '\0';
			ifname = pct + 1;
		} else if (pct) {			/* [ADDR]%IFACE */
			if (pct != close + 1)
				goto bad;
			ifname = pct + 1;
		} else if (close[1]) {
			goto bad;
		}
		*close = '\0';
		addr = s + 1;
		bracket = true;
	} else {
		pct = strchr(s, '%');
		if (pct) {
			*pct = '\0';
			ifname = pct + 1;
		}
	}

	rule->ifname[0] = '\0';
	if (ifname && fwd_parse_ifname(ifname, rule->ifname, errbuf, errlen))
		return -1;

	if (!bracket && !strcmp(addr, "*")) {
		rule->bind_any = true;
		return 0;
	}

	if (!*addr) {
		if (!ifname || bracket)
			return fwd_err(errbuf, errlen,
				       "missing address or interface before '/'");
		rule->bind_any = true;
		return 0;
	}

	if (fwd_parse_addr(addr, bracket, &rule->bind_addr, &rule->bind_v4))
		return fwd_err(errbuf, errlen, "invalid address '%s'", addr);

	rule->bind_any = false;
	return 0;

bad:
	return fwd_err(errbuf, errlen, "unexpected text after ']' in '%s'", s);
}

/**
 * fwd_is_port_part() - tell if text before a slash starts with "PORT:"
 * @s:		text before the first slash of an item
 *
 * Return: true if @s is the source range and the start of a target (so
 *	   that the slash belongs to a target address), false if @s is a
 *	   bind address
 */
static bool fwd_is_port_part(const char *s)
{
	char addr[INET6_ADDRSTRLEN];
	struct in6_addr a6;
	const char *p = s;
	size_t len;

	if (!strncmp(s, "all:", strlen("all:")))
		return true;

	while (isdigit((unsigned char)*p) || *p == '-')
		p++;

	if (p == s || *p != ':')
		return false;

	/* Looks like "PORT:...", but "1::2" (or "2001:db8::1%eth0", with an
	 * interface) is also an IPv6 address: prefer the address, as in
	 * upstream's grammar. Brackets disambiguate.
	 */
	len = strcspn(s, "%");
	if (len >= sizeof(addr))
		return true;
	memcpy(addr, s, len);
	addr[len] = '\0';
	return inet_pton(AF_INET6, addr, &a6) != 1;
}

/**
 * fwd_bind_slash() - find the slash ending the bind part of an item
 * @item:	item text
 * @slash:	set to the slash, NULL if the item has no bind part
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_bind_slash(char *item, char **slash, char *errbuf,
			  size_t errlen)
{
	char *s;
	bool port;

	*slash = NULL;
	if (*item == '[') {
		s = strchr(item, ']');
		s = s ? strchr(s, '/') : NULL;
		if (!s)
			return fwd_err(errbuf, errlen,
				       "missing '/' after address in '%s'",
				       item);
		*slash = s;
		return 0;
	}

	s = strchr(item, '/');
	if (!s)
		return 0;

	*s = '\0';
	port = fwd_is_port_part(item);
	*s = '/';
	if (!port)
		*slash = s;
	return 0;
}

/**
 * fwd_parse_to_addr() - parse a target address, bare or in brackets
 * @s:		text, nothing else may follow
 * @bracket:	@s was in brackets: IPv6 only
 * @rule:	rule to fill (to_addr)
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_to_addr(const char *s, bool bracket,
			     struct fwd_rule *rule, char *errbuf,
			     size_t errlen)
{
	bool v4;

	if (fwd_parse_addr(s, bracket, &rule->to_addr, &v4) ||
	    inany_is_unspecified(&rule->to_addr))
		return fwd_err(errbuf, errlen, "invalid target address '%s'",
			       s);
	return 0;
}

/**
 * fwd_parse_target() - parse [TOADDR/]TOFIRST[-TOLAST] or TOADDR alone
 * @s:		text after the colon, modified in place
 * @rule:	rule to fill (to_addr)
 * @r:		parsed target range, left alone for an address alone
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 1 if a range was given, 0 for an address alone, -1 with a
 *	   message on error
 */
static int fwd_parse_target(char *s, struct fwd_rule *rule,
			    struct fwd_range *r, char *errbuf, size_t errlen)
{
	char *slash, *addr = s;
	bool bracket = false;

	if (*s == '[') {
		slash = strchr(s, ']');
		if (!slash)
			return fwd_err(errbuf, errlen,
				       "missing ']' in target address '%s'", s);
		*slash++ = '\0';
		addr = s + 1;
		bracket = true;
		if (!*slash)		/* [TOADDR] alone */
			return fwd_parse_to_addr(addr, true, rule, errbuf,
						 errlen);
		if (*slash != '/')
			return fwd_err(errbuf, errlen,
				       "missing '/' after target address '%s]'",
				       s);
	} else {
		slash = strrchr(s, '/');
	}

	if (!slash) {
		struct fwd_range tmp;

		if (isdigit((unsigned char)*s) &&
		    !fwd_parse_range(s, &tmp, errbuf, errlen)) {
			*r = tmp;
			return 1;
		}

		/* Not a range: TOADDR alone, same ports */
		if (fwd_parse_to_addr(s, false, rule, errbuf, errlen))
			return fwd_err(errbuf, errlen,
				       "invalid target '%s': expected a port range or an address",
				       s);
		return 0;
	}

	*slash = '\0';
	if (fwd_parse_to_addr(addr, bracket, rule, errbuf, errlen))
		return -1;

	return fwd_parse_range(slash + 1, r, errbuf, errlen) ? -1 : 1;
}

/**
 * fwd_parse_item() - parse one rule item (not an exclusion, not "all")
 * @item:	text, modified in place
 * @rule:	rule to fill, holding the bind part of the argument
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_item(char *item, struct fwd_rule *rule,
			  char *errbuf, size_t errlen)
{
	struct fwd_range src = { 0 }, dst = { 0 };
	char *ports = item, *colon, *slash;
	int ret;

	if (fwd_bind_slash(item, &slash, errbuf, errlen))
		return -1;
	if (slash) {
		*slash = '\0';
		if (fwd_parse_bind(item, rule, errbuf, errlen))
			return -1;
		ports = slash + 1;
	}

	colon = strchr(ports, ':');
	if (colon)
		*colon = '\0';

	if (fwd_parse_range(ports, &src, errbuf, errlen))
		return -1;
	dst = src;

	if (colon) {
		if (!colon[1])
			return fwd_err(errbuf, errlen,
				       "missing target port after ':'");
		ret = fwd_parse_target(colon + 1, rule, &dst, errbuf, errlen);
		if (ret < 0)
			return -1;
		if (ret && dst.last - dst.first != src.last - src.first)
			return fwd_err(errbuf, errlen,
				       "target range %u-%u has %u ports, but source range %u-%u has %u",
				       dst.first, dst.last,
				       dst.last - dst.first + 1,
				       src.first, src.last,
				       src.last - src.first + 1);
	}

	rule->first = (uint16_t)src.first;
	rule->last = (uint16_t)src.last;
	rule->to_first = (uint16_t)dst.first;

	return 0;
}

/**
 * fwd_parse_all() - parse the rest of an "all" item: nothing, or :TOADDR
 * @s:		text after "all", modified in place
 * @rule:	rule to fill (to_addr)
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_all(char *s, struct fwd_rule *rule, char *errbuf,
			 size_t errlen)
{
	size_t len;

	if (!*s)
		return 0;
	if (*s != ':' || !s[1])
		return fwd_err(errbuf, errlen,
			       "'all' takes a target address only, as all:ADDR");

	s++;
	len = strlen(s);
	if (*s == '[' && len > 2 && s[len - 1] == ']') {
		s[len - 1] = '\0';
		return fwd_parse_to_addr(s + 1, true, rule, errbuf, errlen);
	}
	return fwd_parse_to_addr(s, false, rule, errbuf, errlen);
}

/**
 * fwd_keyword() - recognise a whole-specification keyword
 * @s:		text
 *
 * Return: FWD_NONE, or FWD_UNSET if not a keyword
 */
static enum fwd_mode fwd_keyword(const char *s)
{
	if (!strcmp(s, "none"))
		return FWD_NONE;
	return FWD_UNSET;
}

/**
 * struct fwd_list - one argument while it is parsed, before it is kept
 * @rules:	rules of its ranges
 * @n:		number of @rules
 * @excluded:	ports it excludes
 * @any_excl:	it has exclusions
 * @all:	an "all" item was given
 * @scan:	an "auto" item was given
 * @bind:	bind part of the argument, and target address of "all"
 */
struct fwd_list {
	struct fwd_rule rules[FWD_RULES_MAX];
	unsigned int n;
	uint8_t excluded[FWD_PORTS / 8];
	bool any_excl;
	bool all;
	bool scan;
	struct fwd_rule bind;
};

/**
 * fwd_list_item() - parse one item of a list into the list being built
 * @l:		list being built
 * @item:	item text, modified in place
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_list_item(struct fwd_list *l, char *item, char *errbuf,
			 size_t errlen)
{
	struct fwd_range r = { 0 };
	struct fwd_rule *rule;

	if (!strcmp(item, "auto")) {
		l->scan = true;
		return 0;
	}
	if (fwd_keyword(item) != FWD_UNSET)
		return fwd_err(errbuf, errlen,
			       "'%s' must be given alone, not in a list", item);

	if (!strncmp(item, "all", strlen("all")) &&
	    (!item[3] || item[3] == ':')) {
		if (l->all)
			return fwd_err(errbuf, errlen,
				       "'all' given twice in one list");
		l->all = true;
		return fwd_parse_all(item + 3, &l->bind, errbuf, errlen);
	}

	if (item[0] == '~') {
		unsigned int port;

		if (fwd_parse_range(item + 1, &r, errbuf, errlen))
			return -1;
		for (port = r.first; port <= r.last; port++)
			fwd_bit_set(l->excluded, port);
		l->any_excl = true;
		return 0;
	}

	if (l->n >= FWD_RULES_MAX)
		return fwd_err(errbuf, errlen,
			       "too many port ranges: at most %d",
			       FWD_RULES_MAX);

	rule = &l->rules[l->n];
	*rule = l->bind;
	memset(&rule->to_addr, 0, sizeof(rule->to_addr));
	if (fwd_parse_item(item, rule, errbuf, errlen))
		return -1;
	l->n++;
	return 0;
}

/**
 * fwd_list_prefix() - take the bind part at the start of an argument
 * @arg:	argument
 * @l:		list being built: bind part set
 * @rest:	set to the list after the bind part
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_list_prefix(const char *arg, struct fwd_list *l,
			   const char **rest, char *errbuf, size_t errlen)
{
	size_t len = strcspn(arg, ",");
	char item[FWD_ITEM_MAX], *slash;

	l->bind.bind_any = true;
	*rest = arg;
	if (len >= FWD_ITEM_MAX)
		return fwd_err(errbuf, errlen,
			       "item too long in port list '%s'", arg);
	memcpy(item, arg, len);
	item[len] = '\0';

	if (fwd_bind_slash(item, &slash, errbuf, errlen))
		return -1;
	if (!slash)
		return 0;

	*rest = arg + (slash - item) + 1;
	*slash = '\0';
	if (fwd_parse_bind(item, &l->bind, errbuf, errlen))
		return -1;
	if (!**rest || **rest == ',')
		return fwd_err(errbuf, errlen,
			       "missing port number after '%s/'", item);
	return 0;
}

/**
 * fwd_list_parse() - parse a whole list argument
 * @arg:	argument
 * @l:		list to build
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_list_parse(const char *arg, struct fwd_list *l, char *errbuf,
			  size_t errlen)
{
	const char *p, *comma;
	unsigned int i;

	memset(l, 0, sizeof(*l));
	if (fwd_list_prefix(arg, l, &p, errbuf, errlen))
		return -1;

	do {
		char item[FWD_ITEM_MAX];
		size_t len;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len)
			return fwd_err(errbuf, errlen,
				       "empty item in port list '%s'", arg);
		if (len >= FWD_ITEM_MAX)
			return fwd_err(errbuf, errlen,
				       "item too long in port list '%s'", arg);
		memcpy(item, p, len);
		item[len] = '\0';
		p = comma ? comma + 1 : NULL;

		if (fwd_list_item(l, item, errbuf, errlen))
			return -1;
	} while (p);

	if (l->all && l->n)
		return fwd_err(errbuf, errlen,
			       "'all' cannot be combined with port ranges in '%s'",
			       arg);

	/* "auto" applies to every rule of the argument, and to "all" */
	l->bind.scan = l->scan;
	for (i = 0; i < l->n; i++)
		l->rules[i].scan = l->scan;
	return 0;
}

/**
 * fwd_expand_all() - the rules of "all": every non-ephemeral port
 * @tmpl:	bind and target addresses, "auto" flag
 * @out:	rules, two at most
 *
 * Return: number of rules
 */
static unsigned int fwd_expand_all(const struct fwd_rule *tmpl,
				   struct fwd_rule *out)
{
	unsigned int first, last, n = 1;

	fwd_ephemeral_range(&first, &last);

	out[0] = *tmpl;
	out[0].first = out[0].to_first = FWD_PORT_MIN;
	out[0].last = (uint16_t)(first - 1);
	out[0].weak = true;

	if (last < FWD_PORT_MAX) {
		out[1] = out[0];
		out[1].first = out[1].to_first = (uint16_t)(last + 1);
		out[1].last = FWD_PORT_MAX;
		n = 2;
	}
	return n;
}

/**
 * fwd_split() - split rules around excluded ports
 * @in:		rules
 * @n_in:	number of @in
 * @excl:	bitmap of excluded ports, NULL for none
 * @out:	pieces, each one contiguous range
 * @room:	most pieces @out may take
 * @n:		set to the number of pieces
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message if the pieces don't fit
 */
static int fwd_split(const struct fwd_rule *in, unsigned int n_in,
		     const uint8_t *excl, struct fwd_rule *out,
		     unsigned int room, unsigned int *n, char *errbuf,
		     size_t errlen)
{
	unsigned int i, p;

	*n = 0;
	for (i = 0; i < n_in; i++) {
		const struct fwd_rule *r = &in[i];

		for (p = r->first; p <= r->last; p++) {
			unsigned int end = p;

			if (excl && fwd_bit_get(excl, p))
				continue;
			while (end < r->last &&
			       !(excl && fwd_bit_get(excl, end + 1)))
				end++;

			if (*n == room)
				return fwd_err(errbuf, errlen,
					       "too many port ranges (exclusions split them): at most %d for one option",
					       FWD_RULES_MAX);
			out[*n] = *r;
			out[*n].first = (uint16_t)p;
			out[*n].last = (uint16_t)end;
			out[*n].to_first = (uint16_t)(r->to_first +
						      (p - r->first));
			(*n)++;
			p = end;
		}
	}
	return 0;
}

/**
 * fwd_rule_ports() - number of ports of some rules
 * @rules:	rules
 * @n:		number of @rules
 *
 * Return: sum of their widths
 */
static unsigned long fwd_rule_ports(const struct fwd_rule *rules,
				    unsigned int n)
{
	unsigned long ports = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		ports += (unsigned long)rules[i].last - rules[i].first + 1;
	return ports;
}

/**
 * fwd_list_keep() - expand a parsed argument, check it, add it to the
 *		     specification
 * @spec:	specification
 * @l:		parsed list
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * As upstream: an argument without ranges is "all" (every non-ephemeral
 * port), its exclusions split its own rules, and its rules must not
 * conflict with one another or with the rules given before.
 *
 * Return: 0 on success, -1 with a message (and @spec unchanged) on error
 */
static int fwd_list_keep(struct fwd_spec *spec, const struct fwd_list *l,
			 char *errbuf, size_t errlen)
{
	static struct fwd_rule out[FWD_RULES_MAX];
	const struct fwd_rule *in = l->rules;
	struct fwd_rule all[2];
	unsigned int n_in = l->n, n, i, j;

	if (!l->n) {		/* "all", "auto", or exclusions only */
		n_in = fwd_expand_all(&l->bind, all);
		in = all;
	}
	if (fwd_split(in, n_in, l->any_excl ? l->excluded : NULL, out,
		      FWD_RULES_MAX - spec->n_rules, &n, errbuf, errlen))
		return -1;

	for (i = 0; i < n; i++) {
		for (j = 0; j < spec->n_rules; j++) {
			if (fwd_rule_conflicts(&out[i], &spec->rules[j]))
				return fwd_conflict_msg(errbuf, errlen,
							&out[i],
							&spec->rules[j]);
		}
		for (j = 0; j < i; j++) {
			if (fwd_rule_conflicts(&out[i], &out[j]))
				return fwd_conflict_msg(errbuf, errlen,
							&out[i], &out[j]);
		}
	}

	if (fwd_rule_ports(spec->rules, spec->n_rules) +
	    fwd_rule_ports(out, n) > FWD_SLOTS_MAX)
		return fwd_err(errbuf, errlen,
			       "too many ports: the rules of one option may cover %u ports in all (a port counts once per listening address)",
			       FWD_SLOTS_MAX);

	memcpy(spec->rules + spec->n_rules, out, n * sizeof(out[0]));
	spec->n_rules += n;
	spec->mode = FWD_SPEC;
	return 0;
}

/**
 * fwd_parse() - parse one forwarding option argument into a specification
 * @spec:	specification, accumulates over calls for the same option
 * @optarg:	option argument
 * @errbuf:	buffer for a message explaining a failure, may be NULL
 * @errlen:	size of @errbuf
 *
 * "none" may only come before any rule (upstream: "-t none -t 22" is port
 * 22, "-t 22 -t none" an error), and is repeated freely.
 *
 * Return: 0 on success, -1 on error (with @spec unchanged)
 */
int fwd_parse(struct fwd_spec *spec, const char *optarg, char *errbuf,
	      size_t errlen)
{
	static struct fwd_list list;
	char dummy[1];

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}

	if (!optarg || !*optarg)
		return fwd_err(errbuf, errlen, "empty port specification");

	if (fwd_keyword(optarg) == FWD_NONE) {
		if (spec->n_rules)
			return fwd_err(errbuf, errlen,
				       "'none' cannot be combined with ports given before (it may only come first)");
		if (spec->mode == FWD_UNSET)
			spec->mode = FWD_NONE;
		return 0;
	}

	if (fwd_list_parse(optarg, &list, errbuf, errlen))
		return -1;

	return fwd_list_keep(spec, &list, errbuf, errlen);
}

/**
 * fwd_ephemeral_range() - the kernel's ephemeral port range
 * @first:	set to its first port
 * @last:	set to its last port
 *
 * If it can't be read, or makes no sense, FWD_EPHEMERAL_FALLBACK and the
 * ports above it. Read once: pesto calls this before its seccomp filter,
 * which allows no open(), so that "all" can be parsed later.
 */
void fwd_ephemeral_range(unsigned int *first, unsigned int *last)
{
	static unsigned int range[2];
	FILE *f;

	if (range[0]) {
		*first = range[0];
		*last = range[1];
		return;
	}

	f = fopen(FWD_EPHEMERAL_PATH, "r");
	*first = FWD_EPHEMERAL_FALLBACK;
	*last = FWD_PORT_MAX;
	if (!f) {
		debug("Can't open %s, ephemeral ports start at %u",
		      FWD_EPHEMERAL_PATH, FWD_EPHEMERAL_FALLBACK);
	} else {
		if (fscanf(f, "%u %u", first, last) != 2 || *first < 2 ||
		    *first > FWD_PORT_MAX || *last < *first ||
		    *last > FWD_PORT_MAX) {
			*first = FWD_EPHEMERAL_FALLBACK;
			*last = FWD_PORT_MAX;
		}
		fclose(f);
	}

	range[0] = *first;
	range[1] = *last;
}

