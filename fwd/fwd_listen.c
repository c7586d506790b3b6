// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_listen.c - listening sockets of the forwarding rules, and switching
 * to a new table at run time
 *
 * Theory of operation
 *
 * Each of the four directions (-t, -u, -T, -U) has a table of rules
 * (struct fwd_spec in struct ctx, contiguous ranges once finalised) and,
 * here, the sockets listening for them: per port of a rule (a slot of the
 * table, see fwd_rule_slot(): rules at different addresses may share a
 * port), up to two sockets (one per address family) for TCP, or two
 * listening slots of udp/udp_fwd.c for UDP. The protocol modules open and close them, through the functions
 * they register at start-up (fwd_sock_register(): fwd/ sits below tcp/
 * and udp/ and never calls them by name); -T and -U sockets are opened by
 * a thread inside the namespace (ns_run()).
 *
 * Start-up and a change at run time (the -c socket, fwd/fwd_ctl.c) are
 * the same operation: switching from the current table (none at start-up)
 * to a new one, all directions at once, atomically:
 *
 * 1. Stage: for every port of every rule of the new table, the sockets of
 *    the current table are kept if a current rule listens for that port
 *    on the same address, interface and families (its target may differ:
 *    targets are looked up when a connection or datagram arrives);
 *    otherwise new sockets are opened. Current sockets of that port whose
 *    address overlaps the new rule's (fwd_rule_conflicts()) are closed
 *    first, since the new ones would conflict with them (the port is
 *    "rebound"). A port that can't be bound fails the whole switch, except
 *    in a best-effort rule ("all"), which only fails if none of its ports
 *    can be bound.
 * 2. On failure, roll back: close what was opened, reopen the rebound
 *    ports for their current rule, and leave the current table in force.
 *    Only a rebound port can be lost this way, if another program took it
 *    in between; that is logged.
 * 3. Commit: close the sockets the new table doesn't keep, and put the
 *    new table in force.
 *
 * A rule bound to an explicit address on the host (-t, -u) while the relay
 * follows the host (no --no-follow-host) waits for that address: if the
 * host doesn't have it (EADDRNOTAVAIL), the port is bound again with
 * IP_FREEBIND, logged once per rule, and works as soon as the host has
 * the address; the kernel keeps the socket bound while the address goes
 * and comes back, so nothing is re-bound later. Wildcard rules, and -T
 * and -U (the relay sets up the namespace's addresses itself), bind as
 * they always did.
 *
 * A best-effort rule ("all") covers tens of thousands of ports: such rules
 * stop short of the open files limit (they may hold three quarters of it),
 * so that connections can still be accepted and made.
 *
 * Connections already accepted are sockets of their own: closing a
 * listener doesn't end them. UDP flows reply through the listening
 * socket, so the flows of a closed UDP socket end with it.
 *
 * "auto" rules (scan) are fwd/fwd_auto.c's: it follows the ports they
 * cover with sockets of its own, and they are never staged here. Before a
 * switch, the followed ports whose rule changes have their sockets closed
 * (a failed switch leaves them to the next scan, within
 * FWD_AUTO_SCAN_MS), the others are noted for the slots of the new table;
 * once a table is in force, they take those slots (fwd_auto_commit()), a
 * direction with "auto" rules is followed, one without isn't any more, and
 * the exclusions of every "auto" direction are recomputed from the new
 * tables.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "fwd_listen.h"
#include "../conf/fwd_spec.h"
#include "fwd_auto.h"
#include "../conf/ctx.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/ns_worker.h"

/* System calls after start-up: none of its own; the sockets of a rule are
 * opened and closed by tcp/ and udp/ (fwd_sock_ops), which list the calls
 */

/* Descriptors that best-effort rules leave for everything else (flows,
 * spliced pipes, files): a quarter of the open files limit, at least this
 */
#define FWD_LISTEN_SPARE_MIN	1024

/* Tables in force, by enum fwd_dir: the configured ones, until a change */
static struct fwd_spec fwd_tables[FWD_DIRS];

/* Protocols' functions for their forwarding sockets, by enum fwd_proto */
static const struct fwd_sock_ops *fwd_sock_table[FWD_PROTOS];

static unsigned long fwd_listen_socks;	/* listening sockets held */
static unsigned long fwd_listen_budget;	/* most best-effort rules may fill */

/**
 * struct fwd_listen_dir - sockets of one direction
 * @h:		per slot of the table in force, sockets (TCP) or listening
 *		slots (UDP), plus one: 0 means none ([0] IPv4, [1] IPv6)
 * @nh:		the same for the table being switched to
 * @kept:	bitmap of the slots of @h whose sockets @nh takes over
 * @rebound:	bitmap of the slots of @h closed while staging
 * @fresh:	bitmap of the slots of @nh opened while staging
 * @staged:	@nh is filled, for this switch
 */
struct fwd_listen_dir {
	int (*h)[2];
	int (*nh)[2];
	uint8_t *kept;
	uint8_t *rebound;
	uint8_t *fresh;
	bool staged;
};

static struct fwd_listen_dir fwd_listen_dirs[FWD_DIRS];

/**
 * struct fwd_listen_call - what a call (maybe into the namespace) works on
 * @c:		execution context
 * @d:		direction
 * @cur:	table in force, NULL at start-up
 * @next:	table to switch to
 * @errbuf:	message explaining a failure
 * @errlen:	size of @errbuf
 */
struct fwd_listen_call {
	const struct ctx *c;
	enum fwd_dir d;
	const struct fwd_spec *cur;
	const struct fwd_spec *next;
	char *errbuf;
	size_t errlen;
};

/**
 * fwd_dir_conf() - the table a direction was configured with at start-up
 * @c:		execution context
 * @d:		direction
 *
 * Return: pointer to the specification in @c
 */
static const struct fwd_spec *fwd_dir_conf(const struct ctx *c,
					   enum fwd_dir d)
{
	switch (d) {
	case FWD_DIR_TCP_IN:
		return &c->tcp_to_guest;
	case FWD_DIR_UDP_IN:
		return &c->udp_to_guest;
	case FWD_DIR_TCP_OUT:
		return &c->tcp_to_host;
	default:
		return &c->udp_to_host;
	}
}

/**
 * fwd_dir_spec() - the table in force for a direction
 * @d:		direction
 *
 * Return: the table: the configured one from fwd_listen_init() on, until
 *	   fwd_listen_switch() puts another in force
 */
const struct fwd_spec *fwd_dir_spec(enum fwd_dir d)
{
	return &fwd_tables[d];
}

/**
 * fwd_dir_udp() - tell if a direction forwards UDP
 * @d:		direction
 *
 * Return: true for -u and -U
 */
bool fwd_dir_udp(enum fwd_dir d)
{
	return d == FWD_DIR_UDP_IN || d == FWD_DIR_UDP_OUT;
}

/**
 * fwd_dir_out() - tell if a direction listens in the namespace
 * @d:		direction
 *
 * Return: true for -T and -U
 */
bool fwd_dir_out(enum fwd_dir d)
{
	return d == FWD_DIR_TCP_OUT || d == FWD_DIR_UDP_OUT;
}

/**
 * fwd_dir_opt() - the option of a direction, for messages
 * @d:		direction
 *
 * Return: "-t", "-u", "-T" or "-U"
 */
const char *fwd_dir_opt(enum fwd_dir d)
{
	static const char *const opt[FWD_DIRS] = { "-t", "-u", "-T", "-U" };

	return opt[d];
}

/**
 * fwd_dir_on() - tell if a direction can have listening sockets
 * @c:		execution context
 * @d:		direction
 *
 * Return: false if its protocol is disabled, and for -T and -U in passt
 */
bool fwd_dir_on(const struct ctx *c, enum fwd_dir d)
{
	if (fwd_dir_udp(d) ? c->no_udp : c->no_tcp)
		return false;
	if (fwd_dir_out(d) && c->mode != MODE_PASTA)
		return false;
	return true;
}

/**
 * fwd_listen_hint() - a hint for the user about a listening error
 * @e:		errno
 * @in_ns:	the socket was for the namespace
 *
 * Return: text to append to the error message, possibly empty
 */
static const char *fwd_listen_hint(int e, bool in_ns)
{
	switch (e) {
	case EADDRINUSE:
		return in_ns ? " (is another program in the namespace using it?)"
			     : " (is another program using it?)";
	case EADDRNOTAVAIL:
		return in_ns ? " (is the address configured, and loopback up, in the namespace?)"
			     : " (is the address configured? see --freebind)";
	case EACCES:
		return " (ports below net.ipv4.ip_unprivileged_port_start need CAP_NET_BIND_SERVICE)";
	case ENODEV:
		return " (no such interface)";
	case EMFILE:
	case ENFILE:
		return " (raise the open files limit, or forward fewer ports)";
	case ENOSPC:
		return " (no listening socket slot left: forward fewer UDP ports)";
	default:
		return "";
	}
}

/**
 * fwd_listen_where() - describe where a rule listens, for messages
 * @r:		rule
 * @buf:	output
 * @size:	size of @buf
 *
 * Return: @buf: " at ADDR", " on IFACE", both, or empty
 */
static const char *fwd_listen_where(const struct fwd_rule *r, char *buf,
				    size_t size)
{
	char a[INANY_STRLEN];
	int n = 0;

	*buf = '\0';
	if (!r->bind_any)
		n = snprintf(buf, size, " at %s", inany_ntop(&r->bind_addr, a));
	if (*r->ifname && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " on %s", r->ifname);
	return buf;
}

/**
 * fwd_sock_register() - take a protocol's way to open and close its
 *			 forwarding sockets
 * @p:		protocol
 * @ops:	its functions, static storage
 */
void fwd_sock_register(enum fwd_proto p, const struct fwd_sock_ops *ops)
{
	fwd_sock_table[p] = ops;
}

/**
 * fwd_sock_ops() - a protocol's functions for its forwarding sockets
 * @p:		protocol
 *
 * Return: what the protocol registered
 */
const struct fwd_sock_ops *fwd_sock_ops(enum fwd_proto p)
{
	if (!fwd_sock_table[p])
		die("no socket functions for forwarding protocol %i", (int)p);
	return fwd_sock_table[p];
}

/**
 * fwd_dir_ops() - functions for the sockets of a direction's protocol
 * @d:		direction
 *
 * Return: the protocol's registered functions
 */
static const struct fwd_sock_ops *fwd_dir_ops(enum fwd_dir d)
{
	return fwd_sock_ops(fwd_dir_udp(d) ? FWD_UDP : FWD_TCP);
}

/**
 * fwd_listen_waits() - tell if a rule may listen for an address the host
 *			doesn't have (yet)
 * @c:		execution context
 * @d:		direction
 * @r:		rule
 *
 * Return: true for a rule of -t or -u with an address, while the relay
 *	   follows the host
 */
static bool fwd_listen_waits(const struct ctx *c, enum fwd_dir d,
			     const struct fwd_rule *r)
{
	return !fwd_dir_out(d) && !r->bind_any && !c->no_follow_host &&
	       !c->splice_only;
}

/**
 * fwd_listen_open() - open the sockets of one port for its rule
 * @c:		execution context
 * @d:		direction
 * @r:		rule
 * @port:	port
 * @h:		handles opened, plus one (0: none)
 *
 * Return: 0 on success, 1 if bound for an address the host doesn't have
 *	   yet (see fwd_listen_waits()), negative errno on failure
 */
static int fwd_listen_open(const struct ctx *c, enum fwd_dir d,
			   const struct fwd_rule *r, uint16_t port, int h[2])
{
	const struct fwd_sock_ops *ops = fwd_dir_ops(d);
	int fds[2], ret;

	ret = ops->rule_open(c, r, port, fwd_dir_out(d), false, fds);
	if (ret == -EADDRNOTAVAIL && fwd_listen_waits(c, d, r)) {
		ret = ops->rule_open(c, r, port, false, true, fds);
		if (!ret)
			ret = 1;
	}

	if (ret < 0)
		return ret;

	h[0] = fds[0] + 1;
	h[1] = fds[1] + 1;
	fwd_listen_socks += (fds[0] >= 0) + (fds[1] >= 0);
	return ret;
}

/**
 * fwd_listen_close() - close the sockets of one port
 * @c:		execution context
 * @d:		direction
 * @h:		handles, plus one, set to 0 on return
 */
static void fwd_listen_close(const struct ctx *c, enum fwd_dir d, int h[2])
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!h[i])
			continue;
		fwd_dir_ops(d)->close(c, h[i] - 1);
		h[i] = 0;
		fwd_listen_socks--;
	}
}

/**
 * fwd_bit() - test a bit of a bitmap of slots
 * @map:	bitmap
 * @i:		slot
 *
 * Return: true if set
 */
static bool fwd_bit(const uint8_t *map, uint32_t i)
{
	return map[i / 8] & (1U << (i % 8));
}

/**
 * fwd_bit_on() - set a bit of a bitmap of slots
 * @map:	bitmap
 * @i:		slot
 */
static void fwd_bit_on(uint8_t *map, uint32_t i)
{
	map[i / 8] |= (uint8_t)(1U << (i % 8));
}

/**
 * fwd_listen_any() - tell if a handle pair holds a socket
 * @h:		handles, plus one
 *
 * Return: true if one of them is set
 */
static bool fwd_listen_any(const int h[2])
{
	return h[0] || h[1];
}

/**
 * struct fwd_listen_skips - ports a best-effort rule could not bind
 * @bound:	ports bound (or kept)
 * @skipped:	ports skipped
 * @first:	first port skipped
 * @err:	errno for @first
 * @budget:	some were skipped for the descriptor budget
 * @waiting:	ports bound for an address the host doesn't have (yet)
 */
struct fwd_listen_skips {
	unsigned int bound;
	unsigned int skipped;
	unsigned int first;
	int err;
	bool budget;
	unsigned int waiting;
};

/**
 * struct fwd_listen_weak - what a table being staged bound, for its
 *			    best-effort rules
 * @bound:	ports its rules bound (or kept) so far
 * @err:	negative errno of the first best-effort rule that bound none,
 *		0 if none
 */
struct fwd_listen_weak {
	unsigned int bound;
	int err;
};

/**
 * fwd_listen_clear() - close the current sockets in the way of a new rule
 * @call:	the switch
 * @r:		rule of @call->next
 * @p:		port
 *
 * Sockets of current rules for @p whose address overlaps @r's would make
 * its bind() fail: they are closed, and reopened if the switch fails.
 */
static void fwd_listen_clear(const struct fwd_listen_call *call,
			     const struct fwd_rule *r, unsigned int p)
{
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	int o;

	for (o = fwd_port_next(call->cur, (uint16_t)p, -1); o >= 0;
	     o = fwd_port_next(call->cur, (uint16_t)p, o)) {
		uint32_t os = fwd_rule_slot(call->cur, (unsigned int)o,
					    (uint16_t)p);

		if (call->cur->rules[o].scan || fwd_bit(ld->kept, os) ||
		    !fwd_listen_any(ld->h[os]) ||
		    !fwd_rule_conflicts(&call->cur->rules[o], r))
			continue;
		fwd_listen_close(call->c, call->d, ld->h[os]);
		fwd_bit_on(ld->rebound, os);
	}
}

/**
 * fwd_listen_port() - stage the sockets of one port of a new rule
 * @call:	the switch
 * @i:		index of the rule in @call->next
 * @p:		port
 * @sk:		counts, updated
 *
 * Return: 0 if bound, kept or skipped (best effort), else negative errno
 */
static int fwd_listen_port(const struct fwd_listen_call *call,
			   unsigned int i, unsigned int p,
			   struct fwd_listen_skips *sk)
{
	const struct fwd_rule *r = &call->next->rules[i];
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	uint32_t ns = fwd_rule_slot(call->next, i, (uint16_t)p);
	int o = -1, ret;

	if (call->cur) {
		o = fwd_port_same(call->cur, (uint16_t)p, r);
		if (o >= 0) {
			uint32_t os = fwd_rule_slot(call->cur, (unsigned int)o,
						    (uint16_t)p);

			if (fwd_listen_any(ld->h[os]) &&
			    !fwd_bit(ld->kept, os)) {
				ld->nh[ns][0] = ld->h[os][0];
				ld->nh[ns][1] = ld->h[os][1];
				fwd_bit_on(ld->kept, os);
				sk->bound++;
				return 0;
			}
		}
		fwd_listen_clear(call, r, p);
	}

	if (r->weak && fwd_listen_socks + 2 > fwd_listen_budget) {
		sk->budget = true;
		ret = -EMFILE;
	} else {
		ret = fwd_listen_open(call->c, call->d, r, (uint16_t)p,
				      ld->nh[ns]);
	}
	if (ret >= 0) {
		fwd_bit_on(ld->fresh, ns);
		sk->bound++;
		sk->waiting += (unsigned int)ret;
		return 0;
	}
	if (!r->weak)
		return ret;

	if (!sk->skipped++) {
		sk->first = p;
		sk->err = -ret;
	}
	return 0;
}

/**
 * fwd_listen_waiting() - tell the user a rule waits for its address
 * @call:	the switch
 * @r:		rule of @call->next
 * @sk:		what staging its ports did
 */
static void fwd_listen_waiting(const struct fwd_listen_call *call,
			       const struct fwd_rule *r,
			       const struct fwd_listen_skips *sk)
{
	const char *proto = fwd_dir_udp(call->d) ? "UDP" : "TCP";
	char a[INANY_STRLEN];

	inany_ntop(&r->bind_addr, a);
	if (r->first == r->last)
		info("%s: %s is not on the host (yet): %s port %u listens for it, and works once the host has it",
		     fwd_dir_opt(call->d), a, proto, r->first);
	else
		info("%s: %s is not on the host (yet): %u of %s ports %u-%u listen for it, and work once the host has it",
		     fwd_dir_opt(call->d), a, sk->waiting, proto, r->first,
		     r->last);
}

/**
 * fwd_listen_stage_rule() - stage the sockets of one rule of a new table
 * @call:	the switch
 * @i:		index of the rule in @call->next
 * @weak:	what the table bound so far, updated
 *
 * A best-effort rule of which no port could be bound is an error only if
 * no rule of the table binds any (upstream: "unless no ports could be
 * forwarded at all"): "all" is two rules, below and above the
 * ephemeral range, and the first may use up the descriptor budget. Its
 * message is kept in @call->errbuf, and the error in @weak, for
 * fwd_listen_stage() to decide.
 *
 * Return: 0 on success, negative errno with a message in @call->errbuf
 */
static int fwd_listen_stage_rule(const struct fwd_listen_call *call,
				 unsigned int i, struct fwd_listen_weak *weak)
{
	const struct fwd_rule *r = &call->next->rules[i];
	const char *proto = fwd_dir_udp(call->d) ? "UDP" : "TCP";
	const char *opt = fwd_dir_opt(call->d);
	bool in_ns = fwd_dir_out(call->d);
	struct fwd_listen_skips sk = { 0 };
	char where[INANY_STRLEN + IFNAMSIZ + 8];
	const char *ns = in_ns ? " in the namespace" : "";
	unsigned int p;
	int ret;

	fwd_listen_where(r, where, sizeof(where));
	for (p = r->first; p <= r->last; p++) {
		ret = fwd_listen_port(call, i, p, &sk);
		if (ret) {
			snprintf(call->errbuf, call->errlen,
				 "%s: can't listen on %s port %u%s%s: %s%s",
				 opt, proto, p, where, ns, strerror(-ret),
				 fwd_listen_hint(-ret, in_ns));
			return ret;
		}
	}

	weak->bound += sk.bound;
	if (sk.waiting)
		fwd_listen_waiting(call, r, &sk);
	if (!sk.skipped)
		return 0;

	if (!sk.bound) {
		if (!weak->err)
			snprintf(call->errbuf, call->errlen,
				 "%s: none of %s ports %u-%u%s could be bound%s (port %u: %s%s)",
				 opt, proto, r->first, r->last, where, ns,
				 sk.first, strerror(sk.err),
				 fwd_listen_hint(sk.err, in_ns));
		if (!weak->err)
			weak->err = -sk.err;
		return 0;
	}

	if (sk.budget)
		warn("%s: not forwarding %u %s ports from %u: best-effort rules may hold %lu listening sockets, the rest of the open files limit is kept for connections (raise the limit to forward more)",
		     opt, sk.skipped, proto, sk.first, fwd_listen_budget);
	else
		warn("%s: not forwarding %u %s ports that can't be bound%s (first: %u, %s%s)",
		     opt, sk.skipped, proto, ns, sk.first, strerror(sk.err),
		     fwd_listen_hint(sk.err, in_ns));
	return 0;
}

/**
 * fwd_listen_stage() - open what a new table needs in one direction
 * @arg:	struct fwd_listen_call
 *
 * Runs inside the namespace for -T and -U.
 *
 * Return: 0 on success, negative errno with a message in the call's error
 *	   buffer
 */
static int fwd_listen_stage(void *arg)
{
	const struct fwd_listen_call *call = arg;
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	uint32_t cur_slots = call->cur ? call->cur->n_slots : 0;
	struct fwd_listen_weak weak = { 0 };
	unsigned int i;
	int ret;

	/* Stored only where not zero yet: an "auto" rule spans most ports,
	 * and the pages of slots never used stay untouched
	 */
	idle_trim_zero(ld->nh, call->next->n_slots * sizeof(*ld->nh));
	idle_trim_zero(ld->fresh, (call->next->n_slots + 7) / 8);
	idle_trim_zero(ld->kept, (cur_slots + 7) / 8);
	idle_trim_zero(ld->rebound, (cur_slots + 7) / 8);
	ld->staged = true;

	for (i = 0; i < call->next->n_rules; i++) {
		if (call->next->rules[i].scan)	/* fwd/fwd_auto.c's */
			continue;
		ret = fwd_listen_stage_rule(call, i, &weak);
		if (ret)
			return ret;
	}

	if (weak.err && !weak.bound)
		return weak.err;
	*call->errbuf = '\0';		/* a message of weak.err, if any */
	return 0;
}

/**
 * fwd_listen_reopen() - open the rebound ports of a current rule again
 * @call:	the switch being undone
 * @o:		index of the rule in @call->cur
 */
static void fwd_listen_reopen(const struct fwd_listen_call *call,
			      unsigned int o)
{
	const struct fwd_rule *r = &call->cur->rules[o];
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	unsigned int p;

	for (p = r->first; p <= r->last; p++) {
		uint32_t os = fwd_rule_slot(call->cur, o, (uint16_t)p);
		int ret;

		if (!fwd_bit(ld->rebound, os))
			continue;
		ret = fwd_listen_open(call->c, call->d, r, (uint16_t)p,
				      ld->h[os]);
		if (ret < 0)
			warn("%s: port %u lost its listening socket while undoing a change: %s",
			     fwd_dir_opt(call->d), p, strerror(-ret));
	}
}

/**
 * fwd_listen_rollback() - undo a staged direction
 * @arg:	struct fwd_listen_call
 *
 * Runs inside the namespace for -T and -U: rebound ports are opened again.
 *
 * Return: 0
 */
static int fwd_listen_rollback(void *arg)
{
	const struct fwd_listen_call *call = arg;
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	unsigned int o;
	uint32_t ns;

	for (ns = 0; ns < call->next->n_slots; ns++) {
		if (fwd_bit(ld->fresh, ns))
			fwd_listen_close(call->c, call->d, ld->nh[ns]);
	}

	for (o = 0; call->cur && o < call->cur->n_rules; o++) {
		if (!call->cur->rules[o].scan)
			fwd_listen_reopen(call, o);
	}
	ld->staged = false;
	return 0;
}

/**
 * fwd_listen_commit() - close what a staged direction drops, keep the rest
 * @call:	the switch
 */
static void fwd_listen_commit(const struct fwd_listen_call *call)
{
	struct fwd_listen_dir *ld = &fwd_listen_dirs[call->d];
	uint32_t os, cur_slots = call->cur ? call->cur->n_slots : 0;
	int (*h)[2] = ld->h;

	for (os = 0; os < cur_slots; os++) {
		if (!fwd_bit(ld->kept, os))
			fwd_listen_close(call->c, call->d, ld->h[os]);
	}
	ld->h = ld->nh;
	ld->nh = h;
	ld->staged = false;
}

/**
 * fwd_listen_run() - run a step for a direction, in the namespace if needed
 * @fn:		fwd_listen_stage() or fwd_listen_rollback()
 * @call:	the switch
 *
 * Return: what @fn returned
 */
static int fwd_listen_run(int (*fn)(void *), struct fwd_listen_call *call)
{
	if (fwd_dir_out(call->d))
		return ns_run(fn, call);
	return fn(call);
}

/**
 * fwd_listen_apply() - switch every direction given to a new table
 * @c:		execution context
 * @cur:	tables in force, NULL entries (or NULL) at start-up
 * @next:	tables to switch to, NULL for a direction left alone
 * @errbuf:	message explaining a failure
 * @errlen:	size of @errbuf
 *
 * Return: 0 on success, negative errno (nothing changed) with a message
 */
static int fwd_listen_apply(const struct ctx *c,
			    const struct fwd_spec *const *cur,
			    const struct fwd_spec *const *next, char *errbuf,
			    size_t errlen)
{
	struct fwd_listen_call calls[FWD_DIRS];
	unsigned int d, staged;
	int ret = 0;

	*errbuf = '\0';
	for (d = 0; d < FWD_DIRS; d++) {
		calls[d] = (struct fwd_listen_call){
			.c = c, .d = d, .cur = cur ? cur[d] : NULL,
			.next = next[d], .errbuf = errbuf, .errlen = errlen,
		};
		if (!next[d] || !fwd_listen_dirs[d].h)
			continue;
		ret = fwd_listen_run(fwd_listen_stage, &calls[d]);
		if (ret)
			break;
	}

	if (ret) {
		if (!*errbuf)
			snprintf(errbuf, errlen, "%s: %s", fwd_dir_opt(d),
				 strerror(ret < 0 ? -ret : EIO));
		for (staged = 0; staged <= d && staged < FWD_DIRS; staged++) {
			if (fwd_listen_dirs[staged].staged)
				fwd_listen_run(fwd_listen_rollback,
					       &calls[staged]);
		}
		return ret < 0 ? ret : -EIO;
	}

	for (d = 0; d < FWD_DIRS; d++) {
		if (fwd_listen_dirs[d].staged)
			fwd_listen_commit(&calls[d]);
	}
	return 0;
}

/**
 * fwd_listen_init() - open the listening sockets of the start-up tables
 * @c:		execution context, specifications finalised
 *
 * Return: 0 on success, -1 on failure (logged)
 */
int fwd_listen_init(const struct ctx *c)
{
	const struct fwd_spec *next[FWD_DIRS] = { 0 };
	unsigned long spare;
	struct rlimit lim;
	char errbuf[256];
	unsigned int d;

	if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_cur == RLIM_INFINITY)
		lim.rlim_cur = FWD_PORTS * 4;
	spare = MAX(lim.rlim_cur / 4, FWD_LISTEN_SPARE_MIN);
	fwd_listen_budget = lim.rlim_cur > spare ? lim.rlim_cur - spare : 0;

	for (d = 0; d < FWD_DIRS; d++) {
		struct fwd_listen_dir *ld = &fwd_listen_dirs[d];

		if (!fwd_dir_on(c, d))
			continue;

		ld->h = calloc(FWD_SLOTS_MAX, sizeof(*ld->h));
		ld->nh = calloc(FWD_SLOTS_MAX, sizeof(*ld->nh));
		ld->kept = calloc(FWD_SLOTS_MAX / 8, 1);
		ld->rebound = calloc(FWD_SLOTS_MAX / 8, 1);
		ld->fresh = calloc(FWD_SLOTS_MAX / 8, 1);
		if (!ld->h || !ld->nh || !ld->kept || !ld->rebound ||
		    !ld->fresh) {
			err("%s: can't allocate the table of listening sockets",
			    fwd_dir_opt(d));
			return -1;
		}
		/* Copied where it differs: empty parts stay untouched */
		idle_trim_copy(&fwd_tables[d], fwd_dir_conf(c, d),
			       sizeof(fwd_tables[d]));
		next[d] = &fwd_tables[d];
	}

	if (fwd_listen_apply(c, NULL, next, errbuf, sizeof(errbuf))) {
		err("%s", errbuf);
		return -1;
	}
	return 0;
}

/**
 * fwd_listen_switch() - put new tables in force, atomically
 * @c:		execution context
 * @next:	new tables (finalised, checked), NULL for a direction left
 *		alone; copied to the tables in force on success
 * @errbuf:	message explaining a failure
 * @errlen:	size of @errbuf
 *
 * Return: 0 on success, negative errno (nothing changed) with a message
 */
int fwd_listen_switch(const struct ctx *c,
		      struct fwd_spec *const next[FWD_DIRS], char *errbuf,
		      size_t errlen)
{
	const struct fwd_spec *cur[FWD_DIRS], *nx[FWD_DIRS];
	bool follow = false, released[FWD_DIRS] = { false };
	unsigned int d;
	int ret;

	for (d = 0; d < FWD_DIRS; d++) {
		cur[d] = &fwd_tables[d];
		nx[d] = next[d];
		if (next[d] && next[d]->mode == FWD_AUTO &&
		    !fwd_auto_ready(fwd_dir_udp(d), fwd_dir_out(d))) {
			snprintf(errbuf, errlen,
				 "%s: 'auto' (auto-scan) rules need pasta",
				 fwd_dir_opt(d));
			return -ENOTSUP;
		}
	}

	/* Ports followed now could be in the way of new rules */
	for (d = 0; d < FWD_DIRS; d++) {
		if (!next[d] || cur[d]->mode != FWD_AUTO)
			continue;
		fwd_auto_release_changed(c, fwd_dir_udp(d), fwd_dir_out(d),
					 next[d]);
		released[d] = true;
	}

	ret = fwd_listen_apply(c, cur, nx, errbuf, errlen);
	if (ret)
		return ret;

	for (d = 0; d < FWD_DIRS; d++) {
		struct fwd_spec *spec = &fwd_tables[d];

		if (!next[d])
			continue;
		if (spec->mode == FWD_AUTO && next[d]->mode != FWD_AUTO)
			fwd_auto_stop(c, fwd_dir_udp(d), fwd_dir_out(d));
		idle_trim_copy(spec, next[d], sizeof(*spec));
		if (released[d])
			fwd_auto_commit(fwd_dir_udp(d), fwd_dir_out(d));
		if (spec->mode == FWD_AUTO &&
		    !fwd_auto_start(fwd_dir_udp(d), fwd_dir_out(d)))
			follow = true;
	}
	fwd_auto_excl_update();
	if (follow)		/* At once, not at the next scan */
		fwd_auto_scan(c);
	return 0;
}
