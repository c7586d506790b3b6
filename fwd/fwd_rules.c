// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_rules.c - forwarding tables to and from the rules of the
 * configuration protocol
 *
 * Theory of operation
 *
 * The relay keeps one table per direction (struct fwd_spec: -t, -u, -T,
 * -U); the protocol has one table per pif, holding both protocols: HOST
 * for -t and -u, SPLICE for -T and -U. A finalised rule of ours is one
 * contiguous range and maps to one protocol rule, written the way
 * upstream's pesto writes the same option, so that a rule the client
 * parses from "-D -t 8080" matches, byte for byte, the rule the relay
 * showed for "-t 8080":
 *
 *   - no bind address: "::" with the dual-stack flag if both families are
 *     enabled, else the unspecified address of the one family, flag unset
 *     (a rule with a target address listens on the target's family only);
 *   - SPLICE (-T, -U), no bind address and no interface: our sockets are on
 *     the namespace's loopback addresses, which upstream writes as any
 *     address on interface "lo";
 *   - "all" (and a list of exclusions only) is best effort (weak flag);
 *   - "auto" rules carry the "auto-scan" flag: "auto" alone is two
 *     best-effort rules, for the ports below and above the ephemeral
 *     range, as upstream shows it.
 *
 * The other way, rules from a client are checked against what this relay
 * can do: enabled families for the bind and target addresses, no
 * multicast target, no two rules of a direction on the same port at
 * overlapping addresses (fwd_rule_conflicts(), upstream's test: 8080 on
 * 127.0.0.1 and on ::1 is fine, on any address and on 127.0.0.1 is not),
 * at most FWD_RULES_MAX per direction, FWD_SLOTS_MAX ports in all. "auto-scan" rules become
 * "auto" rules of ours, alone or beside fixed ones (whether the relay can
 * follow ports at all is fwd/fwd_ctl.c's to check: pasta only).
 */

#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include "fwd_rules.h"
#include "../conf/fwd_spec.h"
#include "../util/idle_trim.h"

/**
 * fwd_rules_err() - format an error message
 * @errbuf:	buffer
 * @errlen:	its size
 * @...:	printf-style format and arguments
 *
 * Return: -1, for use in return statements
 */
#define fwd_rules_err(errbuf, errlen, ...)				\
	(snprintf((errbuf), (errlen), __VA_ARGS__), -1)

/**
 * fwd_rules_any() - write "any address" for a rule
 * @env:	pif and families
 * @fam:	families the rule listens on (FWD_V4, FWD_V6)
 * @w:		rule, address, flags and interface updated
 */
static void fwd_rules_any(const struct fwd_rules_env *env, unsigned int fam,
			  struct pesto_rule *w)
{
	bool v4 = env->ipv4 && (fam & FWD_V4), v6 = env->ipv6 && (fam & FWD_V6);

	memset(&w->addr, 0, sizeof(w->addr));
	if (v4 && v6)
		w->flags |= PESTO_RULE_DUAL;
	else if (v4)
		inany_from_v4(&w->addr, (struct in_addr){ INADDR_ANY });

	if (env->pif == PESTO_PIF_SPLICE && !*w->ifname)
		snprintf(w->ifname, sizeof(w->ifname), "lo");
}

/**
 * fwd_rule_to_wire() - one rule of ours as a protocol rule
 * @env:	pif and families
 * @r:		rule
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @w:		protocol rule, set
 */
static void fwd_rule_to_wire(const struct fwd_rules_env *env,
			     const struct fwd_rule *r, uint8_t proto,
			     struct pesto_rule *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->ifname, sizeof(w->ifname), "%s", r->ifname);
	if (r->bind_any)
		fwd_rules_any(env, fwd_rule_families(r), w);
	else
		w->addr = r->bind_addr;
	if (!inany_is_unspecified(&r->to_addr))
		w->taddr = r->to_addr;
	w->first = r->first;
	w->last = r->last;
	w->to = r->to_first;
	w->proto = proto;
	if (r->weak)
		w->flags |= PESTO_RULE_WEAK;
	if (r->scan)
		w->flags |= PESTO_RULE_SCAN;
}

/**
 * fwd_rules_to_wire() - the rules of a table, for the protocol
 * @env:	pif and families
 * @spec:	finalised specification
 * @proto:	IPPROTO_TCP or IPPROTO_UDP
 * @out:	rules, set
 * @max:	room in @out
 *
 * Return: number of rules, -1 if they don't fit
 */
int fwd_rules_to_wire(const struct fwd_rules_env *env,
		      const struct fwd_spec *spec, uint8_t proto,
		      struct pesto_rule *out, unsigned int max)
{
	unsigned int i;

	if (spec->n_rules > max)
		return -1;

	for (i = 0; i < spec->n_rules; i++)
		fwd_rule_to_wire(env, &spec->rules[i], proto, &out[i]);
	return (int)spec->n_rules;
}

/**
 * fwd_rules_ifname_ok() - check an interface name from a client
 * @name:	NUL-terminated name
 *
 * Return: true if empty or usable as an interface name
 */
static bool fwd_rules_ifname_ok(const char *name)
{
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return !strpbrk(name, "/:% \t\n");
}

/**
 * fwd_rules_bind() - the bind part of a client's rule
 * @env:	pif and families
 * @w:		protocol rule, checked by pesto_rule_check()
 * @r:		our rule, bind fields set
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message
 */
static int fwd_rules_bind(const struct fwd_rules_env *env,
			  const struct pesto_rule *w, struct fwd_rule *r,
			  char *errbuf, size_t errlen)
{
	bool v4 = inany_v4(&w->addr) != NULL;

	if (w->flags & PESTO_RULE_DUAL) {
		if (!env->ipv4 || !env->ipv6)
			return fwd_rules_err(errbuf, errlen,
					     "a rule for any address of both IP versions, but IPv%c is disabled",
					     env->ipv4 ? '6' : '4');
		r->bind_any = true;
	} else if ((v4 && !env->ipv4) || (!v4 && !env->ipv6)) {
		return fwd_rules_err(errbuf, errlen,
				     "a rule for an IPv%c address, but IPv%c is disabled",
				     v4 ? '4' : '6', v4 ? '4' : '6');
	} else if (inany_is_unspecified(&w->addr) &&
		   ((v4 ? !env->ipv6 : !env->ipv4) ||
		    (!inany_is_unspecified(&w->taddr) &&
		     !inany_v4(&w->taddr) == !v4))) {
		/* Any address of the one family enabled, or of the target */
		r->bind_any = true;
	} else {
		r->bind_addr = w->addr;
		r->bind_v4 = v4;
	}

	if (!fwd_rules_ifname_ok(w->ifname))
		return fwd_rules_err(errbuf, errlen,
				     "invalid interface name '%s'", w->ifname);
	snprintf(r->ifname, sizeof(r->ifname), "%s", w->ifname);

	if (env->pif != PESTO_PIF_SPLICE || !r->bind_any)
		return 0;
	if (!strcmp(r->ifname, "lo")) {
		r->ifname[0] = '\0';	/* the namespace's loopback */
		return 0;
	}
	if (!*r->ifname)
		return fwd_rules_err(errbuf, errlen,
				     "SPLICE rules without an address must name interface lo (this relay listens on the namespace's loopback addresses)");
	return 0;
}

/**
 * fwd_rule_from_wire() - one rule of a client as a rule of ours
 * @env:	pif and families
 * @w:		protocol rule, checked by pesto_rule_check()
 * @r:		our rule, set
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message
 */
static int fwd_rule_from_wire(const struct fwd_rules_env *env,
			      const struct pesto_rule *w, struct fwd_rule *r,
			      char *errbuf, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	if (fwd_rules_bind(env, w, r, errbuf, errlen))
		return -1;

	if (!inany_is_unspecified(&w->taddr)) {
		const struct in_addr *v4 = inany_v4(&w->taddr);

		if (v4 ? IN_MULTICAST(ntohl(v4->s_addr)) :
			 IN6_IS_ADDR_MULTICAST(&w->taddr.a6))
			return fwd_rules_err(errbuf, errlen,
					     "multicast target address");
		/* The guest can't be reached on a disabled family (and a
		 * rule without a bind address listens on the target's)
		 */
		if (v4 ? !env->ipv4 : !env->ipv6)
			return fwd_rules_err(errbuf, errlen,
					     "a target IPv%c address, but IPv%c is disabled",
					     v4 ? '4' : '6', v4 ? '4' : '6');
		r->to_addr = w->taddr;
	}

	r->first = w->first;
	r->last = w->last;
	r->to_first = w->to;
	r->weak = w->flags & PESTO_RULE_WEAK;
	r->scan = w->flags & PESTO_RULE_SCAN;
	return 0;
}

/**
 * fwd_rules_from_wire() - a client's table of one protocol, as our table
 * @env:	pif and families
 * @t:		client's table of the pif (both protocols)
 * @proto:	IPPROTO_TCP or IPPROTO_UDP: the rules taken from @t
 * @next:	new table, set (finalised)
 * @errbuf:	message on failure
 * @errlen:	its size
 *
 * Return: 0 on success, -1 with a message
 */
int fwd_rules_from_wire(const struct fwd_rules_env *env,
			const struct pesto_pif *t, uint8_t proto,
			struct fwd_spec *next, char *errbuf, size_t errlen)
{
	unsigned long ports = 0;
	unsigned int i;
	char why[320];

	idle_trim_zero(next, sizeof(*next));	/* empty parts stay untouched */
	for (i = 0; i < t->count; i++) {
		const struct pesto_rule *w = &t->rules[i];
		char rs[128];
		unsigned int j;

		if (w->proto != proto)
			continue;

		pesto_rule_fmt(w, rs, sizeof(rs));
		if (next->n_rules == FWD_RULES_MAX)
			return fwd_rules_err(errbuf, errlen,
					     "more than %d %s rules for %s",
					     FWD_RULES_MAX,
					     proto == IPPROTO_TCP ? "TCP" : "UDP",
					     pesto_pif_name(env->pif));
		if (fwd_rule_from_wire(env, w, &next->rules[next->n_rules],
				       why, sizeof(why)))
			return fwd_rules_err(errbuf, errlen, "%s: %s", rs, why);

		for (j = 0; j < next->n_rules; j++) {
			const struct fwd_rule *o = &next->rules[j];

			if (!fwd_rule_conflicts(&next->rules[next->n_rules],
						o))
				continue;
			fwd_conflict_msg(why, sizeof(why),
					 &next->rules[next->n_rules], o);
			return fwd_rules_err(errbuf, errlen, "%s: %s", rs, why);
		}
		ports += (unsigned long)w->last - w->first + 1;
		if (ports > FWD_SLOTS_MAX)
			return fwd_rules_err(errbuf, errlen,
					     "%s: the %s rules for %s cover more than %u ports (a port counts once per listening address)",
					     rs, proto == IPPROTO_TCP ? "TCP" : "UDP",
					     pesto_pif_name(env->pif),
					     FWD_SLOTS_MAX);
		next->n_rules++;
	}

	next->mode = next->n_rules ? FWD_SPEC : FWD_NONE;
	for (i = 0; i < next->n_rules; i++) {
		if (next->rules[i].scan)
			next->mode = FWD_AUTO;
	}
	fwd_index(next);
	return 0;
}

/**
 * fwd_rules_addr_match() - tell if two bind addresses can overlap
 * @a:		first rule
 * @b:		second rule
 *
 * Return: true if one is any address, or both are the same, or one is the
 *	   unspecified address of the other's family
 */
static bool fwd_rules_addr_match(const struct pesto_rule *a,
				 const struct pesto_rule *b)
{
	if ((a->flags & PESTO_RULE_DUAL) || (b->flags & PESTO_RULE_DUAL))
		return true;
	if (inany_is_unspecified(&a->addr) || inany_is_unspecified(&b->addr))
		return !inany_v4(&a->addr) == !inany_v4(&b->addr);
	return inany_equals(&a->addr, &b->addr);
}

/**
 * fwd_rules_conflict() - tell if two protocol rules would take the same
 *			  ports
 * @a:		first rule
 * @b:		second rule
 *
 * Return: true for the same protocol, overlapping ports and addresses
 */
bool fwd_rules_conflict(const struct pesto_rule *a,
			const struct pesto_rule *b)
{
	return a->proto == b->proto && a->first <= b->last &&
	       b->first <= a->last && fwd_rules_addr_match(a, b);
}
