// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_unimpl.c - features not provided yet, and forwarding defaults
 *
 * Theory of operation: some upstream options are accepted by the parser
 * (so that feature probes and integrations see the familiar interface)
 * but their feature does not exist yet in this version. Asking for one
 * must fail loudly instead of being silently ignored. conf_unimplemented()
 * walks one table of predicates over the parsed configuration and names
 * the first such option found; conf() turns that into an error. When a
 * feature lands, its line in the table goes away.
 *
 * The table runs before host-derived defaults are filled in, so that a
 * predicate sees only what the command line asked for.
 */

#include <string.h>

#include "conf_internal.h"
#include "../util/util.h"

/* Predicates for conf_unimplemented(): is the feature requested? None
 * is missing in this version: the table only has its end marker
 */

/**
 * struct conf_unimpl - a feature this version does not provide yet
 * @opt:	option(s) asking for it, as shown to the user
 * @requested:	tells if the parsed configuration asks for it
 *
 * Delete a line when its feature lands; the last entry ends the table.
 */
static const struct conf_unimpl {
	const char *opt;
	bool (*requested)(const struct ctx *c);
} conf_unimpl[] = {
	{ NULL,				NULL },
};

/**
 * conf_unimplemented() - find a requested feature not implemented yet
 * @c:		configuration as left by conf_parse(), before host defaults
 *
 * Return: the option asking for it, NULL if everything is available
 */
const char *conf_unimplemented(const struct ctx *c)
{
	const struct conf_unimpl *u;

	for (u = conf_unimpl; u->opt; u++) {
		if (u->requested(c))
			return u->opt;
	}

	return NULL;
}

/**
 * conf_ports_default() - apply the mode's default to unset specifications
 * @c:		configuration
 *
 * passt forwards nothing unless asked; pasta follows listening ports in
 * both directions ("auto").
 */
void conf_ports_default(struct ctx *c)
{
	struct fwd_spec *specs[] = {
		&c->tcp_to_guest, &c->udp_to_guest,
		&c->tcp_to_host, &c->udp_to_host,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		if (specs[i]->mode != FWD_UNSET)
			continue;
		if (c->mode != MODE_PASTA ||
		    fwd_parse(specs[i], "auto", NULL, 0))
			specs[i]->mode = FWD_NONE;
	}
}
