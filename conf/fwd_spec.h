/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_spec.h - port forwarding specifications (-t, -u, -T, -U)
 *
 * Theory of operation: each option argument is parsed, as upstream does,
 * into rules of its own: ranges of ports, optionally bound to an address
 * and an interface, mapped to a range of target ports (and optionally a
 * target address). Exclusions (~FIRST[-LAST]) remove ports from the rules
 * of the same argument, which are split around them at once, so that a
 * rule is one contiguous range (the form the run-time configuration socket
 * exchanges, see fwd/). Rules of a specification may share ports as long
 * as their listening addresses don't overlap (fwd_rule_conflicts()): one
 * port on 127.0.0.1 and on ::1, or on two addresses of one family, each
 * with a target of its own. Lookups by port use a per-port table built
 * from the rules, so the data path never walks the list unless a port is
 * shared; then the local address of a connection picks its rule.
 *
 * Grammar: none | [BIND/]LIST, where BIND is ADDR[%IFACE], %IFACE
 * or *[%IFACE] and applies to every item of LIST, and LIST is a
 * comma-separated list of
 *   all[:TOADDR]
 *   auto
 *   [BIND/]FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]]
 *   [BIND/]FIRST[-LAST]:TOADDR
 *   ~FIRST[-LAST]
 * A list without ranges stands for every non-ephemeral port ("all"); with
 * "auto" (pasta), the ports of the list are forwarded only while their
 * target port is bound on the other side: "auto" alone follows every
 * non-ephemeral port, "80-90,auto" those eleven, "::1/auto" every port, on
 * ::1 only.
 */
#ifndef CONF_FWD_H
#define CONF_FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "../util/inany.h"

#define FWD_RULES_MAX		256	/* rules of one specification */
#define FWD_PORTS		65536
#define FWD_NO_RULE		0
/* Ports of all the rules of a specification, a port counted once per rule
 * (so per listening address): each may hold sockets (fwd/)
 */
#define FWD_SLOTS_MAX		(4U * FWD_PORTS)

/* Address families a rule listens on, see fwd_rule_families() */
#define FWD_V4			(1U << 0)
#define FWD_V6			(1U << 1)

/**
 * enum fwd_mode - what a specification asks for
 * @FWD_UNSET:	not given on the command line (mode default applies)
 * @FWD_NONE:	forward nothing
 * @FWD_SPEC:	forward the ports of the rules
 * @FWD_AUTO:	after fwd_finalise(): at least one rule follows the ports
 *		bound on the other side ("auto", see @scan of struct fwd_rule)
 */
enum fwd_mode {
	FWD_UNSET = 0,
	FWD_NONE,
	FWD_SPEC,
	FWD_AUTO,
};

/**
 * struct fwd_rule - one range of forwarded ports
 * @bind_addr:	address to listen on, if not @bind_any: may be the
 *		unspecified address of one family (0.0.0.0/PORT, ::/PORT)
 * @bind_any:	true if no address was given: any address of both families
 *		(of the target address's family, if one is given)
 * @bind_v4:	true if @bind_addr is IPv4 (IPv4-mapped in @bind_addr)
 * @ifname:	interface to bind to, empty if none
 * @first:	first port
 * @last:	last port (inclusive)
 * @to_first:	target port for @first (others follow in order)
 * @to_addr:	target address, unspecified if none given
 * @weak:	best effort ("all"): ports that can't be bound are skipped,
 *		as long as one port of the rule is
 * @scan:	"auto" (pasta): a port is forwarded only while its target
 *		port is bound on the other side (fwd/fwd_auto.c listens)
 */
struct fwd_rule {
	union inany_addr bind_addr;
	bool bind_any;
	bool bind_v4;
	char ifname[IFNAMSIZ];
	uint16_t first;
	uint16_t last;
	uint16_t to_first;
	union inany_addr to_addr;
	bool weak;
	bool scan;
};

/**
 * struct fwd_spec - a whole -t/-u/-T/-U specification (all given for it)
 * @mode:	enum fwd_mode
 * @rules:	rules, in command-line order
 * @n_rules:	number of rules in use
 * @slot:	for each rule, the slot of its first port: a rule's ports
 *		have consecutive slots, and the rules of a specification
 *		FWD_SLOTS_MAX in all (built by fwd_index())
 * @n_slots:	slots in use
 * @rule_of:	for each port, index of the first rule forwarding it plus
 *		one, FWD_NO_RULE (zero) if not forwarded (built by
 *		fwd_index(), only beyond a few rules: conf/fwd_table.c)
 * @shared:	bitmap of the ports more than one rule forwards (at
 *		addresses that don't overlap)
 */
struct fwd_spec {
	enum fwd_mode mode;
	struct fwd_rule rules[FWD_RULES_MAX];
	unsigned int n_rules;
	uint32_t slot[FWD_RULES_MAX];
	uint32_t n_slots;
	uint16_t rule_of[FWD_PORTS];
	uint8_t shared[FWD_PORTS / 8];
};

int fwd_parse(struct fwd_spec *spec, const char *optarg, char *errbuf,
	      size_t errlen);
int fwd_finalise(struct fwd_spec *spec, bool ipv4, bool ipv6, char *errbuf,
		 size_t errlen);
void fwd_index(struct fwd_spec *spec);
void fwd_ephemeral_range(unsigned int *first, unsigned int *last);
bool fwd_spec_scans(const struct fwd_spec *spec);
bool fwd_rule_same_bind(const struct fwd_rule *a, const struct fwd_rule *b);
bool fwd_rule_conflicts(const struct fwd_rule *a, const struct fwd_rule *b);
int fwd_conflict_msg(char *errbuf, size_t errlen, const struct fwd_rule *a,
		     const struct fwd_rule *b);
unsigned int fwd_rule_families(const struct fwd_rule *r);
bool fwd_port_is_forwarded(const struct fwd_spec *spec, uint16_t port);
bool fwd_port_shared(const struct fwd_spec *spec, uint16_t port);
int fwd_port_next(const struct fwd_spec *spec, uint16_t port, int after);
int fwd_port_same(const struct fwd_spec *spec, uint16_t port,
		  const struct fwd_rule *r);
uint16_t fwd_port_target(const struct fwd_spec *spec, uint16_t port);
uint16_t fwd_rule_target(const struct fwd_rule *r, uint16_t port);
uint32_t fwd_rule_slot(const struct fwd_spec *spec, unsigned int i,
		       uint16_t port);
const struct fwd_rule *fwd_port_rule(const struct fwd_spec *spec,
				     uint16_t port);
const struct fwd_rule *fwd_rule_at(const struct fwd_spec *spec,
				   uint16_t port,
				   const union inany_addr *local);

#endif /* CONF_FWD_H */
