// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_migrate.c - libFuzzer target: the parser of a migration's state
 *
 * Theory of operation
 *
 * The input is a state as a source passt writes it into the front-end's
 * pipe (doc/migration.md): migrate_check() reads it from memory through
 * the same checks a target runs on its pipe, every section's reader
 * included (the guest record, TCP connection and data records), with
 * check_only set, so nothing is applied: no socket is created, no flow
 * inserted. The relay is the harness's, in vhost-user mode, so that TCP's
 * section is registered as in a real passt. Refusals are the normal
 * outcome: what must never happen is a crash, a read beyond the input, an
 * accepted state whose refusal message is empty, or a refused one
 * without a message.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "../../migrate/migrate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * LLVMFuzzerTestOneInput() - check one state
 * @data:	the state
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	int rc;

	fuzz_init_vhost_user();
	why[0] = '\0';
	rc = migrate_check(&fuzz_ctx, data, size, why, sizeof(why));
	if (rc && !why[0]) {
		fprintf(stderr, "fuzz_migrate: state refused (%i) without a "
			"message\n", rc);
		abort();
	}
	if (!rc && why[0]) {
		fprintf(stderr, "fuzz_migrate: state accepted, with a "
			"message: %s\n", why);
		abort();
	}
	return 0;
}
