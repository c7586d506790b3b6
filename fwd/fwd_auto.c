// SPDX-License-Identifier: GPL-2.0-or-later
/* fwd_auto.c - pasta "auto" forwarding: follow ports listening on the
 * other side
 *
 * Theory of operation
 *
 * With "auto" (pasta's default for -t, -u, -T and -U), the ports to
 * forward are those bound on the other side, followed at run time:
 *
 *   -t: TCP ports listening in the namespace get a listening socket on
 *       the host;
 *   -T: TCP ports listening on the host get one on the namespace's
 *       loopback;
 *   -u, -U: the same for UDP sockets bound and not connected (state
 *       TCP_CLOSE in procfs), and, as upstream does, for the ports of TCP
 *       listeners on the same side: a few protocols set up a transfer on
 *       the UDP port of the same number as their TCP control port
 *       (iperf3). TCP listeners that are the relay's own (the reverse
 *       TCP direction's sockets) are left out, where upstream follows them
 *       too, forwarding UDP ports where nothing listens.
 *
 * The protocols open and close those sockets with the functions they
 * registered (fwd_sock_register(), fwd/fwd_listen.c).
 *
 * Which ports are followed, where the sockets listen and where they
 * forward to, is said by the "auto" (scan) rules of the direction's table
 * in force (conf/fwd_parse.c, fwd/fwd_listen.c): "auto" alone is every
 * non-ephemeral port, on any address, to the same port; "80-90,auto" only
 * those ports, "::1/auto" on ::1 only, "8080:80,auto" port 8080 while 80
 * is bound on the other side; "-t 127.0.0.1/auto -t ::1/auto" both, each
 * port with sockets of each rule. State is kept per slot of the table
 * (one port of one rule, fwd_rule_slot()). A port whose rule is plain
 * (any address, no interface, no target address) gets the sockets of
 * "auto" of its protocol (auto_open), any other the sockets of its rule
 * (rule_open). Fixed rules of the same table are fwd/fwd_listen.c's.
 *
 * Finding the listening sockets is fwd/fwd_auto_list.c's: socket
 * diagnostics over netlink, or procfs tables, of each side, opened at
 * start-up in that side's namespace.
 *
 * A timer (util/timer.h) scans every FWD_AUTO_SCAN_MS, well within the
 * second in which a new listener must be followed: for each direction,
 * the set of ports wanted is compared with the set forwarded, and sockets
 * are opened or closed for the difference only. Sockets that belong in
 * the namespace are opened by one call into it per scan, for all new
 * ports at once. A port that can't be opened (say, another program on
 * this side has it) is tried again every FWD_AUTO_RETRY_SCANS scans.
 *
 * The relay's own sockets must not be followed, or ports would bounce
 * from side to side forever: on the side a direction scans, the relay
 * listens for the reverse direction (-T sockets in the namespace are seen
 * by the -t scan). Ports forwarded by the reverse direction, fixed (a port
 * list) or followed ("auto", as of the scan), are therefore left out;
 * ports excluded in the specification itself (~PORT) have no rule.
 *
 * With -c, a client may turn "auto" on at run time: every direction that
 * can forward at all is made ready at start-up (table of sockets, procfs
 * tables opened: the sandbox leaves no file system later), and merely
 * switched on and off by fwd/fwd_listen.c when the table changes. When
 * the table of a followed direction changes, a port keeps its sockets if
 * a rule of the new table follows it with the same address, interface and
 * families; they move to that rule's slot once the new table is in force
 * (fwd_auto_release_changed(), fwd_auto_commit()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../conf/fwd_spec.h"
#include "fwd_auto.h"
#include "fwd_auto_list.h"
#include "fwd_listen.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/timer.h"
#include "../util/util.h"
#include "../util/ns_worker.h"

/* Scans between two attempts at a port that could not be opened */
#define FWD_AUTO_RETRY_SCANS	10
/* 64-bit words in a bitmap of every port */
#define FWD_AUTO_WORDS		(FWD_PORTS / 64)
/* 64-bit words in a bitmap of every slot of a table */
#define FWD_AUTO_SLOT_WORDS	(FWD_SLOTS_MAX / 64)

/**
 * enum fwd_auto_id - the four directions
 * @FWD_AUTO_T_IN:	-t: namespace TCP listeners, sockets on the host
 * @FWD_AUTO_T_OUT:	-T: host TCP listeners, sockets in the namespace
 * @FWD_AUTO_U_IN:	-u: namespace UDP sockets, sockets on the host
 * @FWD_AUTO_U_OUT:	-U: host UDP sockets, sockets in the namespace
 * @FWD_AUTO_DIRS:	number of directions
 */
enum fwd_auto_id {
	FWD_AUTO_T_IN = 0,
	FWD_AUTO_T_OUT,
	FWD_AUTO_U_IN,
	FWD_AUTO_U_OUT,
	FWD_AUTO_DIRS,
};

/**
 * struct fwd_auto_dir - state of one direction
 * @opt:	option, for messages ("-t", ...)
 * @udp:	UDP (else TCP)
 * @in_ns:	our sockets go in the namespace (we scan the host)
 * @on:		"auto" is in use for this direction
 * @ready:	state allocated and @scan opened: "auto" can be switched on
 * @staged:	@nh and @nhave hold the state for a table being switched to
 * @rev:	the reverse direction (same protocol)
 * @rev_tcp:	UDP: the TCP direction whose sockets are on the scanned side
 * @excl:	ports never followed: forwarded by fixed rules of the
 *		reverse direction
 * @excl_tcp:	UDP: TCP ports never taken: fixed rules of @rev_tcp
 * @have_port:	ports with sockets now, whatever the rule
 * @want:	per slot of the table in force: its "auto" rule's target
 *		port was found bound in the last scan
 * @have:	per slot, sockets are open
 * @failed:	per slot, wanted but could not be opened
 * @h:		per slot, the sockets (TCP) or listening slots (UDP) opened,
 *		plus one: 0 means none ([0] IPv4, [1] IPv6)
 * @nhave:	@have for the slots of the table being switched to
 * @nh:		@h for the slots of the table being switched to
 */
struct fwd_auto_dir {
	const char *opt;
	bool udp;
	bool in_ns;
	bool on;
	bool ready;
	bool staged;
	enum fwd_auto_id rev;
	enum fwd_auto_id rev_tcp;
	uint64_t excl[FWD_AUTO_WORDS];
	uint64_t excl_tcp[FWD_AUTO_WORDS];
	uint64_t have_port[FWD_AUTO_WORDS];
	uint64_t *want;
	uint64_t *have;
	uint64_t *failed;
	int (*h)[2];
	uint64_t *nhave;
	int (*nh)[2];
};

static struct fwd_auto_dir fwd_auto_dirs[FWD_AUTO_DIRS] = {
	[FWD_AUTO_T_IN]  = { .opt = "-t", .udp = false, .in_ns = false,
			     .rev = FWD_AUTO_T_OUT },
	[FWD_AUTO_T_OUT] = { .opt = "-T", .udp = false, .in_ns = true,
			     .rev = FWD_AUTO_T_IN },
	[FWD_AUTO_U_IN]  = { .opt = "-u", .udp = true, .in_ns = false,
			     .rev = FWD_AUTO_U_OUT, .rev_tcp = FWD_AUTO_T_OUT },
	[FWD_AUTO_U_OUT] = { .opt = "-U", .udp = true, .in_ns = true,
			     .rev = FWD_AUTO_U_IN, .rev_tcp = FWD_AUTO_T_IN },
};

static struct wheel_timer fwd_auto_timer;
static unsigned long fwd_auto_scans;		/* scans done so far */
static uint64_t fwd_auto_bound[FWD_AUTO_WORDS];	/* ports found, one scan */
static uint64_t fwd_auto_tcp[FWD_AUTO_WORDS];	/* UDP: TCP ports found */

/**
 * struct fwd_auto_call - what a call into the namespace works on
 * @c:		execution context
 * @d:		direction
 * @retry:	try ports that failed before, too
 */
static struct fwd_auto_call {
	const struct ctx *c;
	struct fwd_auto_dir *d;
	bool retry;
} fwd_auto_call;

/**
 * fwd_auto_bit() - test a port in a bitmap
 * @map:	bitmap
 * @port:	port
 *
 * Return: true if set
 */
static bool fwd_auto_bit(const uint64_t *map, unsigned int port)
{
	return map[port / 64] & (1ULL << (port % 64));
}

/**
 * fwd_auto_set() - set or clear a port in a bitmap
 * @map:	bitmap
 * @port:	port
 * @on:		set, else clear
 */
static void fwd_auto_set(uint64_t *map, unsigned int port, bool on)
{
	if (on)
		map[port / 64] |= 1ULL << (port % 64);
	else
		map[port / 64] &= ~(1ULL << (port % 64));
}

/**
 * fwd_auto_fdir() - the forwarding table of a direction
 * @d:		direction
 *
 * Return: its enum fwd_dir, for fwd_dir_spec()
 */
static enum fwd_dir fwd_auto_fdir(const struct fwd_auto_dir *d)
{
	if (d->udp)
		return d->in_ns ? FWD_DIR_UDP_OUT : FWD_DIR_UDP_IN;
	return d->in_ns ? FWD_DIR_TCP_OUT : FWD_DIR_TCP_IN;
}

/**
 * fwd_auto_rule_plain() - tell if a rule takes the sockets of "auto"
 * @r:		rule
 *
 * Return: true for any address, no interface and no target address
 */
static bool fwd_auto_rule_plain(const struct fwd_rule *r)
{
	return r->bind_any && !*r->ifname && inany_is_unspecified(&r->to_addr);
}

/**
 * fwd_auto_slot_words() - 64-bit words of a bitmap of a table's slots
 * @spec:	table
 *
 * Return: number of words covering its slots
 */
static unsigned int fwd_auto_slot_words(const struct fwd_spec *spec)
{
	return (spec->n_slots + 63) / 64;
}

/**
 * fwd_auto_have_ports() - recompute the ports a direction has sockets for
 * @d:		direction
 */
static void fwd_auto_have_ports(struct fwd_auto_dir *d)
{
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	unsigned int i, p;

	memset(d->have_port, 0, sizeof(d->have_port));
	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		if (!r->scan)
			continue;
		for (p = r->first; p <= r->last; p++) {
			if (fwd_auto_bit(d->have,
					 fwd_rule_slot(spec, i, (uint16_t)p)))
				fwd_auto_set(d->have_port, p, true);
		}
	}
}

/**
 * fwd_auto_want_rules() - from the ports found bound, the slots to open
 * @d:		direction
 * @bound:	ports found bound on the other side (target ports)
 *
 * A port of an "auto" rule is forwarded if the rule maps it to a port
 * found bound.
 */
static void fwd_auto_want_rules(struct fwd_auto_dir *d, const uint64_t *bound)
{
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	unsigned int i, w;

	memset(d->want, 0, fwd_auto_slot_words(spec) * sizeof(*d->want));
	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];
		unsigned int lo = fwd_rule_target(r, r->first);
		unsigned int hi = lo + (unsigned int)(r->last - r->first);

		if (!r->scan)
			continue;
		if (hi >= FWD_PORTS)		/* a range past 65535: cut */
			hi = FWD_PORTS - 1;

		/* Only the ports found bound: a few, among thousands */
		for (w = lo / 64; w <= hi / 64; w++) {
			uint64_t bits = bound[w];

			while (bits) {
				unsigned int to = w * 64 +
					(unsigned int)__builtin_ctzll(bits);
				uint16_t p;

				bits &= bits - 1;
				if (to < lo || to > hi)
					continue;
				p = (uint16_t)(r->first + (to - lo));
				fwd_auto_set(d->want, fwd_rule_slot(spec, i, p),
					     true);
			}
		}
	}
}

/**
 * fwd_auto_sock_open() - open the sockets of a followed port
 * @c:		execution context
 * @d:		direction
 * @r:		"auto" rule of the table in force
 * @port:	port of @r
 * @h:		handles opened, -1 for none: [0] IPv4, [1] IPv6
 *
 * Return: 0 on success, negative errno on failure
 */
static int fwd_auto_sock_open(const struct ctx *c,
			      const struct fwd_auto_dir *d,
			      const struct fwd_rule *r, unsigned int port,
			      int h[2])
{
	const struct fwd_sock_ops *ops = fwd_sock_ops(d->udp ? FWD_UDP
							     : FWD_TCP);

	if (fwd_auto_rule_plain(r))
		return ops->auto_open(c, (uint16_t)port, d->in_ns, h);
	return ops->rule_open(c, r, (uint16_t)port, d->in_ns, false, h);
}

/**
 * fwd_auto_close_slot() - close the sockets of one followed slot
 * @c:		execution context
 * @d:		direction
 * @s:		slot
 */
static void fwd_auto_close_slot(const struct ctx *c, struct fwd_auto_dir *d,
				uint32_t s)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		int h = d->h[s][i] - 1;

		if (h < 0)
			continue;
		fwd_sock_ops(d->udp ? FWD_UDP : FWD_TCP)->close(c, h);
		d->h[s][i] = 0;
	}

	fwd_auto_set(d->have, s, false);
}

/**
 * fwd_auto_open_port() - open the sockets forwarding one port of a rule
 * @c:		execution context
 * @d:		direction
 * @i:		index of the "auto" rule in the table in force
 * @port:	port
 */
static void fwd_auto_open_port(const struct ctx *c, struct fwd_auto_dir *d,
			       unsigned int i, unsigned int port)
{
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	uint32_t s = fwd_rule_slot(spec, i, (uint16_t)port);
	int h[2], ret;

	ret = fwd_auto_sock_open(c, d, &spec->rules[i], port, h);
	if (ret < 0) {
		if (!fwd_auto_bit(d->failed, s))
			debug("%s auto: can't forward port %u: %s", d->opt,
			      port, strerror(-ret));
		fwd_auto_set(d->failed, s, true);
		return;
	}

	d->h[s][0] = h[0] + 1;
	d->h[s][1] = h[1] + 1;
	fwd_auto_set(d->have, s, true);
	fwd_auto_set(d->failed, s, false);
	debug("%s auto: forwarding port %u", d->opt, port);
}

/**
 * fwd_auto_open_new() - open sockets for slots wanted and not open
 * @arg:	struct fwd_auto_call
 *
 * Runs inside the namespace for -T and -U (see ns_run()).
 *
 * Return: 0
 */
static int fwd_auto_open_new(void *arg)
{
	const struct fwd_auto_call *call = arg;
	struct fwd_auto_dir *d = call->d;
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	unsigned int i, p;

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		if (!r->scan)
			continue;
		for (p = r->first; p <= r->last; p++) {
			uint32_t s = fwd_rule_slot(spec, i, (uint16_t)p);

			if (!fwd_auto_bit(d->want, s) ||
			    fwd_auto_bit(d->have, s) ||
			    (!call->retry && fwd_auto_bit(d->failed, s)))
				continue;
			fwd_auto_open_port(call->c, d, i, p);
		}
	}

	return 0;
}

/**
 * fwd_auto_find() - the target ports found bound on the scanned side
 * @d:		direction
 * @bound:	bitmap of ports, set
 *
 * Ports of the relay's own sockets there are left out: those of the
 * reverse direction's fixed rules, and those it follows. UDP directions
 * add the ports of TCP listeners, but for the relay's own.
 */
static void fwd_auto_find(const struct fwd_auto_dir *d, uint64_t *bound)
{
	const struct fwd_auto_dir *rev = &fwd_auto_dirs[d->rev];
	const struct fwd_auto_dir *rtcp = &fwd_auto_dirs[d->rev_tcp];
	bool side = !d->in_ns;			/* we scan the other side */
	unsigned int i, w;

	memset(bound, 0, FWD_AUTO_WORDS * sizeof(*bound));
	memset(fwd_auto_tcp, 0, sizeof(fwd_auto_tcp));
	for (i = 0; i < 2; i++) {
		int ret = fwd_auto_list(side, d->udp, i, bound);

		if (!ret && d->udp)
			ret = fwd_auto_list(side, false, i, fwd_auto_tcp);
		if (ret)
			debug("%s auto: can't list listening sockets: %s",
			      d->opt, strerror(-ret));
	}

	for (w = 0; w < FWD_AUTO_WORDS; w++) {
		bound[w] &= ~d->excl[w];
		if (rev->on)
			bound[w] &= ~rev->have_port[w];
		if (!d->udp)
			continue;
		fwd_auto_tcp[w] &= ~d->excl_tcp[w];
		if (rtcp->on)
			fwd_auto_tcp[w] &= ~rtcp->have_port[w];
		bound[w] |= fwd_auto_tcp[w];
	}
}

/**
 * fwd_auto_scan_dir() - scan one direction, follow what changed
 * @c:		execution context
 * @d:		direction
 * @retry:	try ports that failed before, too
 */
static void fwd_auto_scan_dir(const struct ctx *c, struct fwd_auto_dir *d,
			      bool retry)
{
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	unsigned int w, words = fwd_auto_slot_words(spec);
	bool open = false, changed = false;

	fwd_auto_find(d, fwd_auto_bound);
	fwd_auto_want_rules(d, fwd_auto_bound);

	for (w = 0; w < words; w++) {
		uint64_t gone;

		d->failed[w] &= d->want[w];

		gone = d->have[w] & ~d->want[w];
		changed |= gone != 0;
		while (gone) {
			unsigned int bit = (unsigned int)__builtin_ctzll(gone);

			gone &= gone - 1;
			fwd_auto_close_slot(c, d, w * 64 + bit);
		}

		if (d->want[w] & ~d->have[w] & (retry ? ~0ULL : ~d->failed[w]))
			open = true;
	}
	if (changed)
		debug("%s auto: ports no longer bound released", d->opt);

	if (open) {
		fwd_auto_call.c = c;
		fwd_auto_call.d = d;
		fwd_auto_call.retry = retry;
		if (d->in_ns)
			ns_run(fwd_auto_open_new, &fwd_auto_call);
		else
			fwd_auto_open_new(&fwd_auto_call);
	}
	if (open || changed)
		fwd_auto_have_ports(d);
}

/**
 * fwd_auto_scan() - scan every "auto" direction once, follow changes
 * @c:		execution context
 */
void fwd_auto_scan(const struct ctx *c)
{
	bool retry = !(++fwd_auto_scans % FWD_AUTO_RETRY_SCANS);
	unsigned int i;

	for (i = 0; i < FWD_AUTO_DIRS; i++) {
		if (fwd_auto_dirs[i].on)
			fwd_auto_scan_dir(c, &fwd_auto_dirs[i], retry);
	}
}

/**
 * fwd_auto_timer_fn() - periodic scan
 * @c:		execution context
 * @t:		our timer
 * @now_ms:	current time
 */
static void fwd_auto_timer_fn(const struct ctx *c, struct wheel_timer *t,
			      uint64_t now_ms)
{
	fwd_auto_scan(c);
	timer_arm(t, now_ms + FWD_AUTO_SCAN_MS);
}

/**
 * fwd_auto_open_tables() - get ready to list the ports bound on our side
 * @arg:	true (bool) if called in the target namespace
 *
 * Called directly for the host, and by a thread inside the target
 * namespace for the namespace (fwd/fwd_auto_list.c opens what shows the
 * namespace of the thread that opens it). Only for a side some ready
 * direction scans; UDP directions also list TCP listeners.
 *
 * Return: 0
 */
static int fwd_auto_open_tables(void *arg)
{
	const bool *in_ns = arg;
	bool any = false, udp = false;
	unsigned int i;

	for (i = 0; i < FWD_AUTO_DIRS; i++) {
		const struct fwd_auto_dir *d = &fwd_auto_dirs[i];

		/* We scan the side opposite to the one we open sockets on */
		if (!d->ready || d->in_ns == *in_ns)
			continue;
		any = true;
		udp |= d->udp;
	}
	if (any)
		fwd_auto_list_open(*in_ns, udp);

	return 0;
}

/**
 * fwd_auto_excl_fixed() - the ports of the fixed rules of a table
 * @map:	bitmap of ports, set (port 0 always)
 * @spec:	table
 */
static void fwd_auto_excl_fixed(uint64_t *map, const struct fwd_spec *spec)
{
	unsigned int i, port;

	memset(map, 0, FWD_AUTO_WORDS * sizeof(*map));
	fwd_auto_set(map, 0, true);

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		if (r->scan)
			continue;
		for (port = r->first; port <= r->last; port++)
			fwd_auto_set(map, port, true);
	}
}

/**
 * fwd_auto_dir_of() - the direction for a protocol and side
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 *
 * Return: the direction
 */
static struct fwd_auto_dir *fwd_auto_dir_of(bool udp, bool in_ns)
{
	unsigned int i;

	for (i = 0; i < FWD_AUTO_DIRS - 1; i++) {
		const struct fwd_auto_dir *d = &fwd_auto_dirs[i];

		if (d->udp == udp && d->in_ns == in_ns)
			break;
	}
	return &fwd_auto_dirs[i];
}

/**
 * fwd_auto_release() - close every socket of an "auto" direction
 * @c:		execution context
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 *
 * The direction keeps following: the next scan opens them again, unless
 * fwd_auto_stop() is called first.
 */
void fwd_auto_release(const struct ctx *c, bool udp, bool in_ns)
{
	struct fwd_auto_dir *d = fwd_auto_dir_of(udp, in_ns);
	const struct fwd_spec *spec = fwd_dir_spec(fwd_auto_fdir(d));
	uint32_t s;

	if (!d->on)
		return;

	for (s = 0; s < spec->n_slots; s++) {
		if (fwd_auto_bit(d->have, s))
			fwd_auto_close_slot(c, d, s);
	}
	memset(d->have_port, 0, sizeof(d->have_port));
	debug("%s auto: every followed port released", d->opt);
}

/**
 * fwd_auto_stop() - stop following listening ports in one direction
 * @c:		execution context
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 *
 * Its sockets are closed; its state stays allocated.
 */
void fwd_auto_stop(const struct ctx *c, bool udp, bool in_ns)
{
	struct fwd_auto_dir *d = fwd_auto_dir_of(udp, in_ns);

	fwd_auto_release(c, udp, in_ns);
	if (d->on)
		debug("%s auto: stopped", d->opt);
	d->on = false;
	d->staged = false;
}

/**
 * fwd_auto_excl_update() - recompute the ports each direction leaves out,
 *			    from the tables now in force
 *
 * For a change of the tables at run time (fwd/fwd_listen.c): ports
 * forwarded by fixed rules of the reverse direction are never followed;
 * for UDP, neither are TCP ports of the reverse TCP direction's.
 */
void fwd_auto_excl_update(void)
{
	unsigned int i;

	for (i = 0; i < FWD_AUTO_DIRS; i++) {
		struct fwd_auto_dir *d = &fwd_auto_dirs[i];
		const struct fwd_auto_dir *rev = &fwd_auto_dirs[d->rev];
		const struct fwd_auto_dir *rtcp = &fwd_auto_dirs[d->rev_tcp];

		if (!d->on)
			continue;
		fwd_auto_excl_fixed(d->excl, fwd_dir_spec(fwd_auto_fdir(rev)));
		if (d->udp)
			fwd_auto_excl_fixed(d->excl_tcp,
					    fwd_dir_spec(fwd_auto_fdir(rtcp)));
	}
}

/**
 * fwd_auto_ready() - tell if a direction can follow ports
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 *
 * Return: true if fwd_auto_start() can switch it on
 */
bool fwd_auto_ready(bool udp, bool in_ns)
{
	return fwd_auto_dir_of(udp, in_ns)->ready;
}

/**
 * fwd_auto_start() - follow ports in a direction, as its new table says
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 *
 * The next scan (fwd_auto_scan()) opens what the table in force wants.
 *
 * Return: 0 on success, -ENOTSUP if the direction was not made ready
 */
int fwd_auto_start(bool udp, bool in_ns)
{
	struct fwd_auto_dir *d = fwd_auto_dir_of(udp, in_ns);

	if (!d->ready)
		return -ENOTSUP;
	if (!d->on)
		debug("%s auto: started", d->opt);
	d->on = true;
	return 0;
}

/**
 * fwd_auto_release_changed() - before a switch of tables, close the
 *				followed ports the new table changes
 * @c:		execution context
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 * @next:	table about to be put in force, finalised
 *
 * A port keeps its sockets only if a rule of the new table follows it too,
 * with sockets of the same address, interface and families, both plain or
 * both not; they are noted for that rule's slot, which fwd_auto_commit()
 * puts in force with the table. Other sockets are closed, so that a new
 * fixed rule, or other sockets, can take the port. If the switch fails,
 * the next scan opens them again.
 */
void fwd_auto_release_changed(const struct ctx *c, bool udp, bool in_ns,
			      const struct fwd_spec *next)
{
	struct fwd_auto_dir *d = fwd_auto_dir_of(udp, in_ns);
	const struct fwd_spec *cur = fwd_dir_spec(fwd_auto_fdir(d));
	unsigned int o, p;

	if (!d->on)
		return;

	memset(d->nh, 0, next->n_slots * sizeof(*d->nh));
	memset(d->nhave, 0, fwd_auto_slot_words(next) * sizeof(*d->nhave));
	d->staged = true;

	for (o = 0; o < cur->n_rules; o++) {
		const struct fwd_rule *r = &cur->rules[o];

		if (!r->scan)
			continue;
		for (p = r->first; p <= r->last; p++) {
			uint32_t s = fwd_rule_slot(cur, o, (uint16_t)p), ns;
			int n;

			if (!fwd_auto_bit(d->have, s))
				continue;
			n = fwd_port_same(next, (uint16_t)p, r);
			if (n >= 0 && fwd_auto_rule_plain(r) ==
				      fwd_auto_rule_plain(&next->rules[n])) {
				ns = fwd_rule_slot(next, (unsigned int)n,
						   (uint16_t)p);
				d->nh[ns][0] = d->h[s][0];
				d->nh[ns][1] = d->h[s][1];
				fwd_auto_set(d->nhave, ns, true);
				continue;
			}
			fwd_auto_close_slot(c, d, s);
		}
	}
	fwd_auto_have_ports(d);
}

/**
 * fwd_auto_commit() - after a switch of tables, the followed ports kept
 *		       by fwd_auto_release_changed() move to their new slots
 * @udp:	UDP (else TCP)
 * @in_ns:	sockets in the namespace (-T, -U)
 */
void fwd_auto_commit(bool udp, bool in_ns)
{
	struct fwd_auto_dir *d = fwd_auto_dir_of(udp, in_ns);
	uint64_t *have = d->have;
	int (*h)[2] = d->h;

	if (!d->staged)
		return;

	d->have = d->nhave;
	d->nhave = have;
	d->h = d->nh;
	d->nh = h;
	memset(d->failed, 0, FWD_AUTO_SLOT_WORDS * sizeof(*d->failed));
	d->staged = false;
	fwd_auto_have_ports(d);
}

/**
 * fwd_auto_alloc() - allocate the state of a direction
 * @d:		direction
 *
 * Return: 0 on success, -ENOMEM (logged)
 */
static int fwd_auto_alloc(struct fwd_auto_dir *d)
{
	d->want = calloc(FWD_AUTO_SLOT_WORDS, sizeof(*d->want));
	d->have = calloc(FWD_AUTO_SLOT_WORDS, sizeof(*d->have));
	d->failed = calloc(FWD_AUTO_SLOT_WORDS, sizeof(*d->failed));
	d->nhave = calloc(FWD_AUTO_SLOT_WORDS, sizeof(*d->nhave));
	d->h = calloc(FWD_SLOTS_MAX, sizeof(*d->h));
	d->nh = calloc(FWD_SLOTS_MAX, sizeof(*d->nh));
	if (!d->want || !d->have || !d->failed || !d->nhave || !d->h ||
	    !d->nh) {
		err("%s auto: can't allocate port table", d->opt);
		return -ENOMEM;
	}
	return 0;
}

/**
 * fwd_auto_init() - start following listening ports, for "auto"
 * @c:		execution context
 *
 * Needs the namespace, and the TCP and UDP modules set up. The first scan
 * runs here, so that ports already listening are forwarded before the
 * namespace is declared ready.
 *
 * Return: 0 on success (also if nothing is "auto"), negative errno on
 *	   failure (logged)
 */
int fwd_auto_init(const struct ctx *c)
{
	bool any = false, in_ns;
	unsigned int i;

	if (c->mode != MODE_PASTA)
		return 0;

	for (i = 0; i < FWD_AUTO_DIRS; i++) {
		struct fwd_auto_dir *d = &fwd_auto_dirs[i];
		enum fwd_dir fd = fwd_auto_fdir(d);

		/* With -c, "auto" may be switched on at run time */
		d->on = fwd_dir_on(c, fd) &&
			fwd_dir_spec(fd)->mode == FWD_AUTO;
		d->ready = d->on || (*c->conf_path && fwd_dir_on(c, fd));
		if (!d->ready)
			continue;

		if (fwd_auto_alloc(d))
			return -ENOMEM;
		any = true;
	}
	fwd_auto_excl_update();

	if (!any)
		return 0;

	in_ns = false;
	fwd_auto_open_tables(&in_ns);
	in_ns = true;
	if (ns_run(fwd_auto_open_tables, &in_ns))
		return -EIO;

	fwd_auto_scan(c);

	timer_init(&fwd_auto_timer, fwd_auto_timer_fn);
	timer_arm(&fwd_auto_timer, timer_now_ms() + FWD_AUTO_SCAN_MS);
	return 0;
}
