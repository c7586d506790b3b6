/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_rules.h - forwarding tables to and from the rules of the
 * configuration protocol
 *
 * See fwd/fwd_rules.c for the theory of operation.
 */
#ifndef FWD_FWD_RULES_H
#define FWD_FWD_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pesto_wire.h"

struct fwd_spec;

/**
 * struct fwd_rules_env - what the meaning of a rule depends on
 * @pif:	PESTO_PIF_HOST or PESTO_PIF_SPLICE
 * @ipv4:	IPv4 is enabled
 * @ipv6:	IPv6 is enabled
 */
struct fwd_rules_env {
	uint8_t pif;
	bool ipv4;
	bool ipv6;
};

int fwd_rules_to_wire(const struct fwd_rules_env *env,
		      const struct fwd_spec *spec, uint8_t proto,
		      struct pesto_rule *out, unsigned int max);
int fwd_rules_from_wire(const struct fwd_rules_env *env,
			const struct pesto_pif *t, uint8_t proto,
			struct fwd_spec *next, char *errbuf, size_t errlen);
bool fwd_rules_conflict(const struct pesto_rule *a,
			const struct pesto_rule *b);

#endif /* FWD_FWD_RULES_H */
