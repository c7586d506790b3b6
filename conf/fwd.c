// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd.c - port forwarding specifications (-t, -u, -T, -U)
 *
 * Theory of operation: fwd_parse() turns one option argument into rules
 * and exclusions and appends them to a struct fwd_spec; repeated options
 * for the same specification call it again and accumulate. A call either
 * succeeds completely or leaves the specification untouched, and explains
 * a failure in the caller's error buffer. The keyword none stands alone:
 * it may be repeated but never mixed with port lists.
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
 * "all", and a list made of exclusions only, forward what the ephemeral
 * range leaves, below and above it, as upstream does (best effort: a port
 * that can't be bound is skipped). Both keep the bind and target addresses
 * of their argument as a template in the specification until the ports
 * are known.
 *
 * "auto" is an item too, as in upstream's grammar: it marks every rule of
 * its argument "scan" (followed: forwarded only while the target port is
 * bound on the other side, fwd/fwd_auto.c). Without ranges in the same
 * argument, it applies to "all": "auto" alone, "auto,~80" and "::1/auto"
 * follow every non-ephemeral port (but 80; on ::1 only), "80-90,auto"
 * these eleven ports only.
 *
 * fwd_finalise() runs once the address families are known: it expands
 * that template to the non-ephemeral ports, splits every rule around the
 * excluded ports (so that each rule is one contiguous range), drops rules
 * bound to a disabled family, and fills the per-port rule index that the
 * data path uses (fwd_index(), also used for tables set at run time). A
 * finalised specification with "scan" rules has mode FWD_AUTO, whether or
 * not other rules are fixed.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "fwd.h"
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
 * fwd_overlap() - find a rule in a list that covers ports of a range
 * @rules:	rules
 * @n:		number of rules
 * @r:		range
 *
 * Return: index of the first overlapping rule, -1 if none
 */
static int fwd_overlap(const struct fwd_rule *rules, unsigned int n,
		       const struct fwd_range *r)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (r->first <= rules[i].last && rules[i].first <= r->last)
			return (int)i;
	}

	return -1;
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
 * @spec:	specification so far (for overlaps with earlier options)
 * @l:		list being built
 * @item:	item text, modified in place
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_list_item(const struct fwd_spec *spec, struct fwd_list *l,
			 char *item, char *errbuf, size_t errlen)
{
	struct fwd_range r = { 0 };
	struct fwd_rule *rule;
	int o;

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

	if (spec->n_rules + l->n >= FWD_RULES_MAX)
		return fwd_err(errbuf, errlen,
			       "too many port ranges: at most %d",
			       FWD_RULES_MAX);

	rule = &l->rules[l->n];
	*rule = l->bind;
	memset(&rule->to_addr, 0, sizeof(rule->to_addr));
	if (fwd_parse_item(item, rule, errbuf, errlen))
		return -1;

	r.first = rule->first;
	r.last = rule->last;
	o = fwd_overlap(spec->rules, spec->n_rules, &r);
	if (o < 0)
		o = fwd_overlap(l->rules, l->n, &r);
	if (o >= 0) {
		if (r.first == r.last)
			return fwd_err(errbuf, errlen,
				       "port %u is forwarded twice", r.first);
		return fwd_err(errbuf, errlen,
			       "port range %u-%u overlaps a range given before",
			       r.first, r.last);
	}
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
 * @spec:	specification so far
 * @arg:	argument
 * @l:		list to build
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_list_parse(const struct fwd_spec *spec, const char *arg,
			  struct fwd_list *l, char *errbuf, size_t errlen)
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

		if (fwd_list_item(spec, l, item, errbuf, errlen))
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
 * fwd_same_all() - compare the "all" templates of two arguments
 * @a:		first
 * @b:		second
 *
 * Return: true if they bind and forward to the same addresses, and are
 *	   both "auto" or both not
 */
static bool fwd_same_all(const struct fwd_rule *a, const struct fwd_rule *b)
{
	return fwd_rule_same_bind(a, b) && a->scan == b->scan &&
	       inany_equals(&a->to_addr, &b->to_addr);
}

/**
 * fwd_list_keep() - check a parsed list against the specification, add it
 * @spec:	specification
 * @l:		parsed list
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message (and @spec unchanged) on error
 */
static int fwd_list_keep(struct fwd_spec *spec, const struct fwd_list *l,
			 char *errbuf, size_t errlen)
{
	/* "auto" without ranges is "all", followed */
	bool all = l->all || (l->scan && !l->n);
	size_t i;

	if (all && spec->mode == FWD_SPEC)
		return fwd_err(errbuf, errlen,
			       "'%s' cannot be combined with a port list given before",
			       l->all ? "all" : "auto");
	if (!all && spec->mode == FWD_ALL)
		return fwd_err(errbuf, errlen,
			       "a port list cannot be combined with '%s' given before",
			       spec->all.scan ? "auto" : "all");

	if (!l->n) {		/* "all", "auto", or exclusions only */
		if (spec->all_given && spec->all.scan != l->bind.scan)
			return fwd_err(errbuf, errlen,
				       "'%s' cannot be combined with '%s' given before",
				       l->bind.scan ? "auto" : "all",
				       spec->all.scan ? "auto" : "all");
		if (spec->all_given && !fwd_same_all(&spec->all, &l->bind))
			return fwd_err(errbuf, errlen,
				       "'all' or 'auto' (or a list of exclusions only) given twice, with different addresses");
		spec->all = l->bind;
		spec->all_given = true;
	}

	memcpy(spec->rules + spec->n_rules, l->rules, l->n * sizeof(l->rules[0]));
	spec->n_rules += l->n;
	if (l->any_excl) {
		for (i = 0; i < sizeof(l->excluded); i++)
			spec->excluded[i] |= l->excluded[i];
	}
	spec->mode = all ? FWD_ALL : FWD_SPEC;
	return 0;
}

/**
 * fwd_parse() - parse one forwarding option argument into a specification
 * @spec:	specification, accumulates over calls for the same option
 * @optarg:	option argument
 * @errbuf:	buffer for a message explaining a failure, may be NULL
 * @errlen:	size of @errbuf
 *
 * Return: 0 on success, -1 on error (with @spec unchanged)
 */
int fwd_parse(struct fwd_spec *spec, const char *optarg, char *errbuf,
	      size_t errlen)
{
	static struct fwd_list list;
	enum fwd_mode kw;
	char dummy[1];

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}

	if (!optarg || !*optarg)
		return fwd_err(errbuf, errlen, "empty port specification");

	kw = fwd_keyword(optarg);
	if (kw != FWD_UNSET) {
		if (spec->mode != FWD_UNSET && spec->mode != kw) {
			return fwd_err(errbuf, errlen,
				       "'%s' cannot be combined with %s given before",
				       optarg,
				       spec->mode == FWD_SPEC ? "a port list" :
				       spec->all.scan ? "'auto'" : "'all'");
		}
		spec->mode = kw;
		return 0;
	}

	if (spec->mode == FWD_NONE)
		return fwd_err(errbuf, errlen,
			       "a port list cannot be combined with 'none' given before");

	if (fwd_list_parse(spec, optarg, &list, errbuf, errlen))
		return -1;

	return fwd_list_keep(spec, &list, errbuf, errlen);
}

/**
 * fwd_ephemeral_range() - the kernel's ephemeral port range
 * @first:	set to its first port
 * @last:	set to its last port
 *
 * If it can't be read, or makes no sense, FWD_EPHEMERAL_FALLBACK and the
 * ports above it.
 */
void fwd_ephemeral_range(unsigned int *first, unsigned int *last)
{
	FILE *f = fopen(FWD_EPHEMERAL_PATH, "r");

	*first = FWD_EPHEMERAL_FALLBACK;
	*last = FWD_PORT_MAX;
	if (!f) {
		debug("Can't open %s, ephemeral ports start at %u",
		      FWD_EPHEMERAL_PATH, FWD_EPHEMERAL_FALLBACK);
		return;
	}

	if (fscanf(f, "%u %u", first, last) != 2 || *first < 2 ||
	    *first > FWD_PORT_MAX || *last < *first || *last > FWD_PORT_MAX) {
		*first = FWD_EPHEMERAL_FALLBACK;
		*last = FWD_PORT_MAX;
	}

	fclose(f);
}

/**
 * fwd_spec_scans() - tell if a specification has "auto" ports
 * @spec:	specification, finalised or not
 *
 * Return: true if a rule, or the "all" template, is "auto"
 */
bool fwd_spec_scans(const struct fwd_spec *spec)
{
	unsigned int i;

	if (spec->all_given && spec->all.scan)
		return true;
	for (i = 0; i < spec->n_rules; i++) {
		if (spec->rules[i].scan)
			return true;
	}
	return false;
}

/**
 * fwd_expand_all() - the rules of "all": every non-ephemeral port
 * @spec:	specification with its template in @spec->all, no rules
 */
static void fwd_expand_all(struct fwd_spec *spec)
{
	unsigned int first, last;
	struct fwd_rule *r = &spec->rules[0];

	fwd_ephemeral_range(&first, &last);

	*r = spec->all;
	r->first = r->to_first = FWD_PORT_MIN;
	r->last = (uint16_t)(first - 1);
	r->weak = true;
	spec->n_rules = 1;

	if (last < FWD_PORT_MAX) {
		spec->rules[1] = *r;
		r[1].first = r[1].to_first = (uint16_t)(last + 1);
		r[1].last = FWD_PORT_MAX;
		spec->n_rules = 2;
	}
}

/**
 * fwd_split() - split the rules of a specification around excluded ports
 * @spec:	specification
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message if the pieces don't fit
 */
static int fwd_split(struct fwd_spec *spec, char *errbuf, size_t errlen)
{
	static struct fwd_rule out[FWD_RULES_MAX];
	unsigned int i, n = 0, p;

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		for (p = r->first; p <= r->last; p++) {
			unsigned int end = p;

			if (fwd_bit_get(spec->excluded, p))
				continue;
			while (end < r->last &&
			       !fwd_bit_get(spec->excluded, end + 1))
				end++;

			if (n == FWD_RULES_MAX)
				return fwd_err(errbuf, errlen,
					       "exclusions split the port ranges into more than %d ranges",
					       FWD_RULES_MAX);
			out[n] = *r;
			out[n].first = (uint16_t)p;
			out[n].last = (uint16_t)end;
			out[n].to_first = (uint16_t)(r->to_first +
						     (p - r->first));
			n++;
			p = end;
		}
	}

	memcpy(spec->rules, out, n * sizeof(out[0]));
	spec->n_rules = n;
	return 0;
}

/**
 * fwd_drop_disabled() - drop rules bound to an address of a disabled family
 * @spec:	specification
 * @ipv4:	IPv4 is enabled
 * @ipv6:	IPv6 is enabled
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message if a rule without a bind address
 *	   forwards to an address of a disabled family (nothing could listen)
 */
static int fwd_drop_disabled(struct fwd_spec *spec, bool ipv4, bool ipv6,
			     char *errbuf, size_t errlen)
{
	unsigned int i, n = 0;

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];
		bool to_v4 = inany_v4(&r->to_addr) != NULL;

		if (r->bind_any && !inany_is_unspecified(&r->to_addr) &&
		    (to_v4 ? !ipv4 : !ipv6)) {
			char buf[INANY_STRLEN];

			return fwd_err(errbuf, errlen,
				       "ports %u-%u go to %s, but %s is disabled",
				       r->first, r->last,
				       inany_ntop(&r->to_addr, buf),
				       to_v4 ? "IPv4" : "IPv6");
		}

		if (!r->bind_any && ((r->bind_v4 && !ipv4) ||
				     (!r->bind_v4 && !ipv6))) {
			char buf[INANY_STRLEN];

			warn("Not forwarding ports %u-%u bound to %s: %s is disabled",
			     r->first, r->last, inany_ntop(&r->bind_addr, buf),
			     r->bind_v4 ? "IPv4" : "IPv6");
			continue;
		}
		spec->rules[n++] = *r;
	}
	spec->n_rules = n;
	return 0;
}

/**
 * fwd_finalise() - expand a specification and build its per-port table
 * @spec:	specification, after all fwd_parse() calls
 * @ipv4:	IPv4 is enabled
 * @ipv6:	IPv6 is enabled
 * @errbuf:	buffer for a message explaining a failure, may be NULL
 * @errlen:	size of @errbuf
 *
 * Rules bound to an address of a disabled family are dropped, with a
 * warning; a rule listening on any address but forwarding to an address
 * of a disabled family is an error. Finalising again changes nothing.
 *
 * Return: 0 on success, -1 with a message on error
 */
int fwd_finalise(struct fwd_spec *spec, bool ipv4, bool ipv6, char *errbuf,
		 size_t errlen)
{
	unsigned int i;
	char dummy[1];
	int ret = 0;

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}

	switch (spec->mode) {
	case FWD_UNSET:
	case FWD_NONE:
		spec->n_rules = 0;
		break;
	case FWD_SPEC:
		if (spec->n_rules || !spec->all_given)
			break;
		/* Exclusions only: everything else, as for "all" */
		spec->mode = FWD_ALL;
		/* fall through */
	case FWD_ALL:
		if (!spec->n_rules)
			fwd_expand_all(spec);
		break;
	case FWD_AUTO:		/* finalised before */
		break;
	}

	if (spec->n_rules) {
		ret = fwd_split(spec, errbuf, errlen);
		if (!ret)
			ret = fwd_drop_disabled(spec, ipv4, ipv6, errbuf,
						errlen);
	}
	for (i = 0; !ret && i < spec->n_rules; i++) {
		if (spec->rules[i].scan)
			spec->mode = FWD_AUTO;
	}
	fwd_index(spec);
	return ret;
}

/**
 * fwd_index() - build the per-port rule index of a specification
 * @spec:	specification whose rules don't overlap
 */
void fwd_index(struct fwd_spec *spec)
{
	unsigned int i, port;

	memset(spec->rule_of, 0xff, sizeof(spec->rule_of));
	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		for (port = r->first; port <= r->last; port++)
			spec->rule_of[port] = (uint16_t)i;
	}
}

/**
 * fwd_rule_same_bind() - tell if two rules listen on the same sockets
 * @a:		first rule
 * @b:		second rule
 *
 * Return: true if address (or any address) and interface are the same
 */
bool fwd_rule_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (a->bind_any != b->bind_any || strcmp(a->ifname, b->ifname) != 0)
		return false;
	return a->bind_any || inany_equals(&a->bind_addr, &b->bind_addr);
}

/**
 * fwd_rule_families() - the address families a rule listens on
 * @r:		rule
 *
 * A bind address gives its family. Without one, a target address gives
 * its family (a connection can't change family on its way to the guest);
 * otherwise both, as far as they are enabled.
 *
 * Return: FWD_V4, FWD_V6, or both
 */
unsigned int fwd_rule_families(const struct fwd_rule *r)
{
	const union inany_addr *a = &r->bind_addr;

	if (r->bind_any) {
		if (inany_is_unspecified(&r->to_addr))
			return FWD_V4 | FWD_V6;
		a = &r->to_addr;
	}
	return inany_v4(a) ? FWD_V4 : FWD_V6;
}

/**
 * fwd_port_is_forwarded() - tell if a port is forwarded
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: true if a rule forwards @port
 */
bool fwd_port_is_forwarded(const struct fwd_spec *spec, uint16_t port)
{
	return spec->rule_of[port] != FWD_NO_RULE;
}

/**
 * fwd_port_rule() - the rule forwarding a port
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: the rule, NULL if @port is not forwarded
 */
const struct fwd_rule *fwd_port_rule(const struct fwd_spec *spec,
				     uint16_t port)
{
	uint16_t idx = spec->rule_of[port];

	if (idx == FWD_NO_RULE || idx >= spec->n_rules)
		return NULL;

	return &spec->rules[idx];
}

/**
 * fwd_port_target() - the port a forwarded port maps to
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: target port, or @port itself if not forwarded
 */
uint16_t fwd_port_target(const struct fwd_spec *spec, uint16_t port)
{
	const struct fwd_rule *r = fwd_port_rule(spec, port);

	if (!r)
		return port;

	return (uint16_t)(r->to_first + (port - r->first));
}
