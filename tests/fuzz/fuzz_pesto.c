// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_pesto.c - libFuzzer target: updates on the -c configuration socket
 *
 * Theory of operation
 *
 * The first byte sets up the relay the update is for: bit 0 pasta (the
 * SPLICE table exists), bit 1 IPv4 disabled, bit 2 IPv6 disabled (not
 * both: bit 2 is ignored then), bit 3 unused (it once chose the tables
 * in force, which reading a table no longer depends on), bits 4-6 the size of the pieces the bytes arrive in (1 to 128 bytes, as
 * a client writing slowly would send them). The rest is what a client
 * sends: it goes through pesto_update_feed() piece by piece, as
 * fwd/fwd_ctl.c feeds it, then every table of a complete update through
 * fwd_rules_from_wire(), as the relay checks it before applying it.
 *
 * What must hold, besides no crash and no sanitizer report: once the
 * parser fails it stays failed; a table the relay accepts is shown back
 * (fwd_rules_to_wire()) with rules that pass the parser's own checks, and
 * reading those again gives the same table. Sockets are never opened:
 * applying the table (fwd/fwd_listen.c) is the integration test's job.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "../../conf/fwd_spec.h"
#include "../../fwd/fwd_rules.h"
#include "../../fwd/pesto_wire.h"
#include "../../util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct pesto_update fuzz_pesto_update;
static struct fwd_spec fuzz_pesto_next, fuzz_pesto_again;
static struct pesto_pif fuzz_pesto_shown;

/**
 * fuzz_pesto_check() - a table the relay accepted must round-trip
 * @env:	pif and families
 * @proto:	protocol
 */
static void fuzz_pesto_check(const struct fwd_rules_env *env, uint8_t proto)
{
	char err[160];
	unsigned int i;
	int n;

	n = fwd_rules_to_wire(env, &fuzz_pesto_next, proto,
			      fuzz_pesto_shown.rules, PESTO_PIF_RULES_MAX);
	if (n < 0)	/* At most FWD_RULES_MAX rules, fewer than the room */
		abort();

	fuzz_pesto_shown.pif = env->pif;
	fuzz_pesto_shown.count = (unsigned int)n;
	for (i = 0; i < fuzz_pesto_shown.count; i++) {
		char buf[192];

		if (pesto_rule_check(&fuzz_pesto_shown.rules[i], err,
				     sizeof(err)))
			abort();
		pesto_rule_fmt(&fuzz_pesto_shown.rules[i], buf, sizeof(buf));
	}

	if (fwd_rules_from_wire(env, &fuzz_pesto_shown, proto,
				&fuzz_pesto_again, err, sizeof(err)))
		abort();
	if (fuzz_pesto_again.n_rules != fuzz_pesto_next.n_rules ||
	    fuzz_pesto_again.mode != fuzz_pesto_next.mode)
		abort();
}

/**
 * fuzz_pesto_tables() - check every table of a complete update
 * @u:		parsed update
 * @ipv4:	IPv4 enabled
 * @ipv6:	IPv6 enabled
 */
static void fuzz_pesto_tables(const struct pesto_update *u, bool ipv4,
			      bool ipv6)
{
	unsigned int i, k;

	for (i = 0; i < u->n; i++) {
		struct fwd_rules_env env = {
			.pif = u->tables[i].pif, .ipv4 = ipv4, .ipv6 = ipv6,
		};

		for (k = 0; k < 2; k++) {
			uint8_t proto = k ? IPPROTO_UDP : IPPROTO_TCP;
			char err[160];

			if (fwd_rules_from_wire(&env, &u->tables[i], proto,
						&fuzz_pesto_next, err,
						sizeof(err)))
				continue;
			fuzz_pesto_check(&env, proto);
		}
	}
}

/**
 * LLVMFuzzerTestOneInput() - feed one client's update to the relay's parser
 * @data:	set-up byte, then the bytes a client sends
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool quiet;
	bool pasta, ipv4, ipv6;
	size_t chunk, off;
	uint8_t reply[PESTO_REPLY_HDR_LEN + PESTO_REPLY_MSG_MAX];
	int ret = 0;

	if (!quiet) {
		log_init("passt");
		log_to_stderr(false);
		quiet = true;
	}
	if (!size)
		return 0;

	pasta = data[0] & 1;
	ipv4 = !(data[0] & 2);
	ipv6 = !(data[0] & 4) || !ipv4;
	chunk = (size_t)1 << ((data[0] >> 4) & 7);

	data++;
	size--;

	pesto_update_init(&fuzz_pesto_update, (1U << PESTO_PIF_HOST) |
			  (pasta ? 1U << PESTO_PIF_SPLICE : 0));
	for (off = 0; off < size && ret == 0; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;

		ret = pesto_update_feed(&fuzz_pesto_update, data + off, n);
	}

	if (ret < 0) {
		/* A failed parser stays failed, and says why */
		if (!fuzz_pesto_update.err[0] ||
		    pesto_update_feed(&fuzz_pesto_update, data, size ? 1 : 0) >= 0)
			abort();
		pesto_reply_encode(reply, sizeof(reply), 71,
				   fuzz_pesto_update.err);
		return 0;
	}
	if (ret == 1)
		fuzz_pesto_tables(&fuzz_pesto_update, ipv4, ipv6);
	return 0;
}
