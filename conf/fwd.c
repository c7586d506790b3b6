// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd.c - port forwarding specifications (-t, -u, -T, -U)
 *
 * Theory of operation: fwd_parse() turns one option argument into rules
 * and exclusions and appends them to a struct fwd_spec; repeated options
 * for the same specification call it again and accumulate. A call either
 * succeeds completely or leaves the specification untouched, and explains
 * a failure in the caller's error buffer. The keywords none, all and auto
 * stand alone: they may be repeated but never mixed with each other or
 * with port lists.
 *
 * An item of a list is split from the left: an optional bind address
 * (IPv4, IPv6 bare or in brackets, optionally followed by %IFACE, or just
 * %IFACE) ending at a slash, then the source range, then after a colon an
 * optional target address ending at a slash and the target range. As a
 * bare IPv6 address also contains colons, text before the first slash is
 * taken as a bind address unless it starts like "PORT:" and is not a valid
 * IPv6 address; brackets always resolve the ambiguity.
 *
 * fwd_finalise() runs once the address families are known: it expands
 * "all" (and a list made of exclusions only) to the non-ephemeral ports,
 * and fills the per-port rule index that the data path uses, leaving out
 * excluded ports and rules bound to a disabled family.
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
 * fwd_parse_bind() - parse the bind part of an item
 * @s:		text before the slash: ADDR, [ADDR], ADDR%IFACE, [ADDR]%IFACE,
 *		[ADDR%IFACE] or %IFACE; modified in place
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

	if (ifname && fwd_parse_ifname(ifname, rule->ifname, errbuf, errlen))
		return -1;

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
	struct in6_addr a6;
	const char *p = s;

	while (isdigit((unsigned char)*p) || *p == '-')
		p++;

	if (p == s || *p != ':')
		return false;

	/* Looks like "PORT:...", but "1::2" is also an IPv6 address: prefer
	 * the address, as in upstream's grammar. Brackets disambiguate.
	 */
	return inet_pton(AF_INET6, s, &a6) != 1;
}

/**
 * fwd_parse_target() - parse the [TOADDR/]TOFIRST[-TOLAST] part
 * @s:		text after the colon, modified in place
 * @rule:	rule to fill (to_addr)
 * @r:		parsed target range
 * @errbuf:	error message buffer
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message on error
 */
static int fwd_parse_target(char *s, struct fwd_rule *rule,
			    struct fwd_range *r, char *errbuf, size_t errlen)
{
	char *slash, *addr = s;
	bool v4, bracket = false;

	if (*s == '[') {
		slash = strchr(s, ']');
		if (!slash)
			return fwd_err(errbuf, errlen,
				       "missing ']' in target address '%s'", s);
		*slash++ = '\0';
		if (*slash != '/')
			return fwd_err(errbuf, errlen,
				       "missing '/' after target address '%s]'",
				       s);
		addr = s + 1;
		bracket = true;
	} else {
		slash = strrchr(s, '/');
	}

	if (slash) {
		*slash = '\0';
		if (fwd_parse_addr(addr, bracket, &rule->to_addr, &v4) ||
		    inany_is_unspecified(&rule->to_addr))
			return fwd_err(errbuf, errlen,
				       "invalid target address '%s'", addr);
		s = slash + 1;
	}

	return fwd_parse_range(s, r, errbuf, errlen);
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
 * fwd_parse_item() - parse one rule item (not an exclusion)
 * @item:	text, modified in place
 * @rule:	rule to fill, zeroed by the caller
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

	rule->bind_any = true;

	if (*item == '[') {
		slash = strchr(item, ']');
		slash = slash ? strchr(slash, '/') : NULL;
		if (!slash)
			return fwd_err(errbuf, errlen,
				       "missing '/' after address in '%s'", item);
	} else {
		slash = strchr(item, '/');
	}

	if (slash) {
		*slash = '\0';
		if (fwd_is_port_part(item)) {
			*slash = '/';
		} else {
			if (fwd_parse_bind(item, rule, errbuf, errlen))
				return -1;
			ports = slash + 1;
		}
	}

	colon = strchr(ports, ':');
	if (colon)
		*colon = '\0';

	if (fwd_parse_range(ports, &src, errbuf, errlen))
		return -1;

	if (colon) {
		if (!colon[1])
			return fwd_err(errbuf, errlen,
				       "missing target port after ':'");
		if (fwd_parse_target(colon + 1, rule, &dst, errbuf, errlen))
			return -1;
		if (dst.last - dst.first != src.last - src.first)
			return fwd_err(errbuf, errlen,
				       "target range %u-%u has %u ports, but source range %u-%u has %u",
				       dst.first, dst.last,
				       dst.last - dst.first + 1,
				       src.first, src.last,
				       src.last - src.first + 1);
	} else {
		dst = src;
	}

	rule->first = (uint16_t)src.first;
	rule->last = (uint16_t)src.last;
	rule->to_first = (uint16_t)dst.first;

	return 0;
}

/**
 * fwd_keyword() - recognise a whole-specification keyword
 * @s:		text
 *
 * Return: FWD_NONE, FWD_ALL, FWD_AUTO, or FWD_UNSET if not a keyword
 */
static enum fwd_mode fwd_keyword(const char *s)
{
	if (!strcmp(s, "none"))
		return FWD_NONE;
	if (!strcmp(s, "all"))
		return FWD_ALL;
	if (!strcmp(s, "auto"))
		return FWD_AUTO;
	return FWD_UNSET;
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
	static const char *const names[] = {
		[FWD_NONE] = "none", [FWD_ALL] = "all", [FWD_AUTO] = "auto",
	};
	struct fwd_rule rules[FWD_RULES_MAX];
	uint8_t excluded[FWD_PORTS / 8];
	const char *p = optarg, *comma;
	enum fwd_mode kw;
	unsigned int n = 0;
	bool any_excl = false;
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
				       names[spec->mode]);
		}
		spec->mode = kw;
		return 0;
	}

	if (spec->mode != FWD_UNSET && spec->mode != FWD_SPEC)
		return fwd_err(errbuf, errlen,
			       "a port list cannot be combined with '%s' given before",
			       names[spec->mode]);

	memset(excluded, 0, sizeof(excluded));

	do {
		char item[FWD_ITEM_MAX];
		struct fwd_range r = { 0 };
		size_t len;
		int o;

		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len)
			return fwd_err(errbuf, errlen,
				       "empty item in port list '%s'", optarg);
		if (len >= FWD_ITEM_MAX)
			return fwd_err(errbuf, errlen,
				       "item too long in port list '%s'",
				       optarg);
		memcpy(item, p, len);
		item[len] = '\0';
		p = comma ? comma + 1 : NULL;

		if (fwd_keyword(item) != FWD_UNSET)
			return fwd_err(errbuf, errlen,
				       "'%s' must be given alone, not in a list",
				       item);

		if (item[0] == '~') {
			unsigned int port;

			if (fwd_parse_range(item + 1, &r, errbuf, errlen))
				return -1;
			for (port = r.first; port <= r.last; port++)
				fwd_bit_set(excluded, port);
			any_excl = true;
			continue;
		}

		if (spec->n_rules + n >= FWD_RULES_MAX)
			return fwd_err(errbuf, errlen,
				       "too many port ranges: at most %d",
				       FWD_RULES_MAX);

		memset(&rules[n], 0, sizeof(rules[n]));
		if (fwd_parse_item(item, &rules[n], errbuf, errlen))
			return -1;

		r.first = rules[n].first;
		r.last = rules[n].last;
		o = fwd_overlap(spec->rules, spec->n_rules, &r);
		if (o < 0)
			o = fwd_overlap(rules, n, &r);
		if (o >= 0) {
			if (r.first == r.last)
				return fwd_err(errbuf, errlen,
					       "port %u is forwarded twice",
					       r.first);
			return fwd_err(errbuf, errlen,
				       "port range %u-%u overlaps a range given before",
				       r.first, r.last);
		}
		n++;
	} while (p);

	memcpy(spec->rules + spec->n_rules, rules, n * sizeof(rules[0]));
	spec->n_rules += n;
	if (any_excl) {
		size_t i;

		for (i = 0; i < sizeof(excluded); i++)
			spec->excluded[i] |= excluded[i];
	}
	spec->mode = FWD_SPEC;

	return 0;
}

/**
 * fwd_ephemeral_start() - first port of the kernel's ephemeral range
 *
 * Return: first ephemeral port, FWD_EPHEMERAL_FALLBACK if unknown
 */
static unsigned int fwd_ephemeral_start(void)
{
	unsigned int first = 0, last = 0;
	FILE *f = fopen(FWD_EPHEMERAL_PATH, "r");

	if (!f) {
		debug("Can't open %s, ephemeral ports start at %u",
		      FWD_EPHEMERAL_PATH, FWD_EPHEMERAL_FALLBACK);
		return FWD_EPHEMERAL_FALLBACK;
	}

	if (fscanf(f, "%u %u", &first, &last) != 2 || first < 2 ||
	    first > FWD_PORT_MAX)
		first = FWD_EPHEMERAL_FALLBACK;

	fclose(f);
	return first;
}

/**
 * fwd_finalise() - expand a specification and build its per-port table
 * @spec:	specification, after all fwd_parse() calls
 * @ipv4:	IPv4 is enabled
 * @ipv6:	IPv6 is enabled
 *
 * Rules bound to an address of a disabled family are kept in the list but
 * left out of the table, with a warning.
 */
void fwd_finalise(struct fwd_spec *spec, bool ipv4, bool ipv6)
{
	unsigned int i, port;
	bool any_excl = false;

	memset(spec->rule_of, 0xff, sizeof(spec->rule_of));

	for (i = 0; i < sizeof(spec->excluded); i++) {
		if (spec->excluded[i]) {
			any_excl = true;
			break;
		}
	}

	switch (spec->mode) {
	case FWD_UNSET:
	case FWD_NONE:
	case FWD_AUTO:
		spec->n_rules = 0;
		return;
	case FWD_SPEC:
		if (spec->n_rules || !any_excl)
			break;
		/* Exclusions only: everything else, as for "all" */
		spec->mode = FWD_ALL;
		/* fall through */
	case FWD_ALL: {
		struct fwd_rule *r = &spec->rules[0];

		memset(r, 0, sizeof(*r));
		r->bind_any = true;
		r->first = r->to_first = FWD_PORT_MIN;
		r->last = (uint16_t)(fwd_ephemeral_start() - 1);
		spec->n_rules = 1;
		break;
	}
	}

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		if (!r->bind_any && ((r->bind_v4 && !ipv4) ||
				     (!r->bind_v4 && !ipv6))) {
			char buf[INANY_STRLEN];

			warn("Not forwarding ports %u-%u bound to %s: %s is disabled",
			     r->first, r->last, inany_ntop(&r->bind_addr, buf),
			     r->bind_v4 ? "IPv4" : "IPv6");
			continue;
		}

		for (port = r->first; port <= r->last; port++) {
			if (!fwd_bit_get(spec->excluded, port))
				spec->rule_of[port] = (uint16_t)i;
		}
	}
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
