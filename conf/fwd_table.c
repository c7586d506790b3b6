// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_table.c - forwarding tables: finalising, the per-port index, and the
 * lookups of the data path
 *
 * Theory of operation: conf/fwd_parse.c parses the options into the rules of a
 * struct fwd_spec; the functions here work on those rules, for the
 * relay (conf/, fwd/, tcp/, udp/) and for pesto alike.
 *
 * fwd_finalise() runs once the address families are known: it drops rules
 * bound to a disabled family and builds the index (fwd_index(), also run
 * for tables set at run time): for each port, the first rule forwarding
 * it, a bitmap of the ports more than one rule forwards, and for each
 * rule its first "slot", so that every port of every rule has a number of
 * its own, below FWD_SLOTS_MAX, under which fwd/ keeps its sockets.
 * With FWD_WALK_RULES rules or fewer, the per-port index and bitmap stay
 * empty and lookups walk the rules instead: a default "auto" rule spans
 * every port, and indexing it would make every page of the index (of
 * the context's tables, and of fwd/'s copies) resident for little gain.
 *
 * Rules may share a port when their addresses don't overlap
 * (fwd_rule_conflicts(), upstream's test): 127.0.0.1 and ::1, or
 * 192.0.2.1 and 192.0.2.2. A connection or datagram to a shared port finds
 * its rule by the address it came to, or the socket's bound address
 * (fwd_rule_at()); an unshared port's rule is a table lookup. Switching
 * tables, fwd/ keeps a port's sockets for a new rule with the same
 * address, interface and families (fwd_port_same()).
 */

#include <stdio.h>
#include <string.h>

#include "fwd_spec.h"
#include "../util/idle_trim.h"
#include "../util/log.h"

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

/* Up to this many rules, lookups walk the rules, without the port index */
#define FWD_WALK_RULES		8

/**
 * fwd_shared_set() - mark a port shared by more than one rule
 * @spec:	specification
 * @port:	port
 */
static void fwd_shared_set(struct fwd_spec *spec, unsigned int port)
{
	spec->shared[port / 8] |= (uint8_t)(1U << (port % 8));
}

/**
 * fwd_spec_scans() - tell if a specification has "auto" ports
 * @spec:	specification, finalised or not
 *
 * Return: true if a rule is "auto"
 */
bool fwd_spec_scans(const struct fwd_spec *spec)
{
	unsigned int i;

	for (i = 0; i < spec->n_rules; i++) {
		if (spec->rules[i].scan)
			return true;
	}
	return false;
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
 * fwd_finalise() - check a specification against the address families,
 *		    and build its per-port table
 * @spec:	specification, after all fwd_parse() calls
 * @ipv4:	IPv4 is enabled
 * @ipv6:	IPv6 is enabled
 * @errbuf:	buffer for a message explaining a failure, may be NULL
 * @errlen:	size of @errbuf
 *
 * Rules bound to an address of a disabled family are dropped, with a
 * warning; a rule listening on any address but forwarding to an address
 * of a disabled family is an error. A specification with "auto" rules
 * gets mode FWD_AUTO. Finalising again changes nothing.
 *
 * Return: 0 on success, -1 with a message on error
 */
int fwd_finalise(struct fwd_spec *spec, bool ipv4, bool ipv6, char *errbuf,
		 size_t errlen)
{
	char dummy[1];
	int ret = 0;

	if (!errbuf || !errlen) {
		errbuf = dummy;
		errlen = sizeof(dummy);
	}

	if (spec->mode == FWD_UNSET || spec->mode == FWD_NONE)
		spec->n_rules = 0;
	else
		ret = fwd_drop_disabled(spec, ipv4, ipv6, errbuf, errlen);

	if (!ret && spec->mode != FWD_UNSET && spec->mode != FWD_NONE)
		spec->mode = fwd_spec_scans(spec) ? FWD_AUTO : FWD_SPEC;
	fwd_index(spec);
	return ret;
}

/**
 * fwd_index() - build the per-port rule index and the slots of a
 *		 specification
 * @spec:	specification whose rules don't conflict, FWD_SLOTS_MAX
 *		ports in all at most
 */
void fwd_index(struct fwd_spec *spec)
{
	unsigned int i, port;
	uint32_t slot = 0;

	/* Ports no rule forwards stay zero: their pages stay untouched */
	idle_trim_zero(spec->rule_of, sizeof(spec->rule_of));
	idle_trim_zero(spec->shared, sizeof(spec->shared));
	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		spec->slot[i] = slot;
		slot += (uint32_t)(r->last - r->first) + 1;
		if (spec->n_rules <= FWD_WALK_RULES)
			continue;
		for (port = r->first; port <= r->last; port++) {
			if (spec->rule_of[port] == FWD_NO_RULE)
				spec->rule_of[port] = (uint16_t)(i + 1);
			else
				fwd_shared_set(spec, port);
		}
	}
	spec->n_slots = slot;
}

/**
 * fwd_rule_same_bind() - tell if two rules listen on the same sockets
 * @a:		first rule
 * @b:		second rule
 *
 * Return: true if address (or any address), interface and address
 *	   families are the same
 */
bool fwd_rule_same_bind(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (a->bind_any != b->bind_any || strcmp(a->ifname, b->ifname) != 0 ||
	    fwd_rule_families(a) != fwd_rule_families(b))
		return false;
	return a->bind_any || inany_equals(&a->bind_addr, &b->bind_addr);
}

/**
 * fwd_rule_wild() - tell if a rule listens on any address of its families
 * @r:		rule
 *
 * Return: true without a bind address, or with an unspecified one
 */
static bool fwd_rule_wild(const struct fwd_rule *r)
{
	return r->bind_any || inany_is_unspecified(&r->bind_addr);
}

/**
 * fwd_rule_conflicts() - tell if two rules would listen on the same port
 *			  and address
 * @a:		first rule
 * @b:		second rule
 *
 * As upstream: ports overlap, and so do the addresses: one of them is any
 * address of a family the other listens on (no address at all: both), or
 * both are the same. The interface plays no part: 127.0.0.1/80 and
 * ::1/80, or 192.0.2.1/80 and 192.0.2.2/80:8080 don't conflict;
 * 80 and 127.0.0.1/80, 0.0.0.0/80 and 192.0.2.1/80, %eth0/80 and %eth1/80
 * do.
 *
 * Return: true if they conflict
 */
bool fwd_rule_conflicts(const struct fwd_rule *a, const struct fwd_rule *b)
{
	if (a->last < b->first || b->last < a->first)
		return false;
	if (!(fwd_rule_families(a) & fwd_rule_families(b)))
		return false;
	if (fwd_rule_wild(a) || fwd_rule_wild(b))
		return true;
	return inany_equals(&a->bind_addr, &b->bind_addr);
}

/**
 * fwd_rule_where() - describe the ports and address of a rule
 * @r:		rule
 * @buf:	output
 * @size:	size of @buf
 *
 * Return: @buf: "port 80 at 127.0.0.1", "ports 80-90 at any address on
 *	   eth0", ...
 */
static const char *fwd_rule_where(const struct fwd_rule *r, char *buf,
				  size_t size)
{
	unsigned int fam = fwd_rule_families(r);
	char a[INANY_STRLEN], p[24];
	const char *at = a;

	if (r->first == r->last)
		snprintf(p, sizeof(p), "port %u", r->first);
	else
		snprintf(p, sizeof(p), "ports %u-%u", r->first, r->last);

	if (!fwd_rule_wild(r))
		inany_ntop(&r->bind_addr, a);
	else if (fam == (FWD_V4 | FWD_V6))
		at = "any address";
	else
		at = fam == FWD_V4 ? "any IPv4 address" : "any IPv6 address";

	snprintf(buf, size, "%s at %s%s%s", p, at, *r->ifname ? " on " : "",
		 r->ifname);
	return buf;
}

/**
 * fwd_conflict_msg() - explain a conflict between two rules
 * @errbuf:	error message buffer
 * @errlen:	its size
 * @a:		new rule
 * @b:		rule given before, which @a conflicts with
 *
 * Return: -1, for use in return statements
 */
int fwd_conflict_msg(char *errbuf, size_t errlen, const struct fwd_rule *a,
		     const struct fwd_rule *b)
{
	char wa[INANY_STRLEN + IFNAMSIZ + 32], wb[INANY_STRLEN + IFNAMSIZ + 32];

	return fwd_err(errbuf, errlen,
		       "conflicting rules: %s, and %s given before (a port can be forwarded again only at another address, say 127.0.0.1 and ::1)",
		       fwd_rule_where(a, wa, sizeof(wa)),
		       fwd_rule_where(b, wb, sizeof(wb)));
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
 * fwd_port_first() - the first rule forwarding a port
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: index of the rule, -1 if none
 */
static int fwd_port_first(const struct fwd_spec *spec, uint16_t port)
{
	unsigned int i;

	if (spec->n_rules > FWD_WALK_RULES) {
		if (spec->rule_of[port] == FWD_NO_RULE ||
		    spec->rule_of[port] > spec->n_rules)
			return -1;
		return spec->rule_of[port] - 1;
	}

	for (i = 0; i < spec->n_rules; i++) {
		if (spec->rules[i].first <= port && port <= spec->rules[i].last)
			return (int)i;
	}
	return -1;
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
	return fwd_port_first(spec, port) >= 0;
}

/**
 * fwd_port_shared() - tell if more than one rule forwards a port
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: true if rules at different addresses share @port
 */
bool fwd_port_shared(const struct fwd_spec *spec, uint16_t port)
{
	unsigned int i, n = 0;

	if (spec->n_rules > FWD_WALK_RULES)
		return spec->shared[port / 8] & (1U << (port % 8));

	for (i = 0; i < spec->n_rules; i++)
		n += spec->rules[i].first <= port && port <= spec->rules[i].last;
	return n > 1;
}

/**
 * fwd_port_next() - the next rule forwarding a port
 * @spec:	finalised specification
 * @port:	port
 * @after:	index of the rule found before, -1 to start
 *
 * Return: index of the next rule forwarding @port after @after, -1 if none
 */
int fwd_port_next(const struct fwd_spec *spec, uint16_t port, int after)
{
	unsigned int i;

	if (after < 0)
		return fwd_port_first(spec, port);
	if (!fwd_port_shared(spec, port))
		return -1;

	for (i = (unsigned int)after + 1; i < spec->n_rules; i++) {
		if (spec->rules[i].first <= port && port <= spec->rules[i].last)
			return (int)i;
	}
	return -1;
}

/**
 * fwd_port_same() - the rule of a specification that listens for a port
 *		     with the same sockets as a given rule
 * @spec:	finalised specification
 * @port:	port
 * @r:		rule, of any specification
 *
 * Return: index of a rule forwarding @port with the same address,
 *	   interface, families and "auto" flag as @r, -1 if none
 */
int fwd_port_same(const struct fwd_spec *spec, uint16_t port,
		  const struct fwd_rule *r)
{
	int i;

	for (i = fwd_port_next(spec, port, -1); i >= 0;
	     i = fwd_port_next(spec, port, i)) {
		const struct fwd_rule *o = &spec->rules[i];

		if (o->scan == r->scan && fwd_rule_same_bind(o, r))
			return i;
	}
	return -1;
}

/**
 * fwd_port_rule() - the (first) rule forwarding a port
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: the rule, NULL if @port is not forwarded; for a shared port, see
 *	   fwd_rule_at()
 */
const struct fwd_rule *fwd_port_rule(const struct fwd_spec *spec,
				     uint16_t port)
{
	int i = fwd_port_next(spec, port, -1);

	return i < 0 ? NULL : &spec->rules[i];
}

/**
 * fwd_rule_at() - the rule forwarding a port at a local address
 * @spec:	finalised specification
 * @port:	port
 * @local:	address a connection or datagram came to, or the address a
 *		socket is bound to (unspecified: the wildcard of a family);
 *		NULL if unknown, for a port fwd_port_shared() says isn't
 *
 * Rules sharing a port don't conflict, so one rule at most listens where
 * @local is: one of the same family, on any address or on @local itself.
 *
 * Return: the rule, NULL if none
 */
const struct fwd_rule *fwd_rule_at(const struct fwd_spec *spec,
				   uint16_t port,
				   const union inany_addr *local)
{
	unsigned int fam;
	int i;

	if (!local || !fwd_port_shared(spec, port))
		return fwd_port_rule(spec, port);

	fam = inany_v4(local) ? FWD_V4 : FWD_V6;
	for (i = fwd_port_next(spec, port, -1); i >= 0;
	     i = fwd_port_next(spec, port, i)) {
		const struct fwd_rule *r = &spec->rules[i];

		if (!(fwd_rule_families(r) & fam))
			continue;
		if (fwd_rule_wild(r) || inany_equals(&r->bind_addr, local))
			return r;
	}
	return NULL;
}

/**
 * fwd_rule_target() - the port a port of a rule maps to
 * @r:		rule
 * @port:	port of @r
 *
 * Return: target port
 */
uint16_t fwd_rule_target(const struct fwd_rule *r, uint16_t port)
{
	return (uint16_t)(r->to_first + (port - r->first));
}

/**
 * fwd_rule_slot() - the slot of a port of a rule
 * @spec:	finalised specification
 * @i:		index of the rule
 * @port:	port of that rule
 *
 * Return: slot, below @spec->n_slots
 */
uint32_t fwd_rule_slot(const struct fwd_spec *spec, unsigned int i,
		       uint16_t port)
{
	return spec->slot[i] + (uint32_t)(port - spec->rules[i].first);
}

/**
 * fwd_port_target() - the port a forwarded port maps to
 * @spec:	finalised specification
 * @port:	port
 *
 * Return: target port of the (first) rule forwarding @port, or @port
 *	   itself if not forwarded
 */
uint16_t fwd_port_target(const struct fwd_spec *spec, uint16_t port)
{
	const struct fwd_rule *r = fwd_port_rule(spec, port);

	if (!r)
		return port;

	return fwd_rule_target(r, port);
}
