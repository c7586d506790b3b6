/* SPDX-License-Identifier: GPL-2.0-or-later */
/* migrate.h - live migration: the state of passt, moved with its guest
 *
 * See migrate/migrate.c for the theory of operation.
 */
#ifndef MIGRATE_MIGRATE_H
#define MIGRATE_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;
struct mig_in;
struct mig_out;
struct mig_rec;

/* Sections: modules with state to move */
#define MIGRATE_SECTIONS_MAX	4

/**
 * struct migrate_section - what a module moves, and when it lets go
 * @name:	for messages
 * @rec_first:	first record type it reads
 * @rec_last:	last record type it reads
 * @save:	source: write its records (it rolls its own part back on
 *		failure); 0 or -errno
 * @load:	target: one of its records, header read; with
 *		@in->check_only, validate only; 0 or -errno (why recorded
 *		in @in)
 * @loaded:	target: all records read and the stream verified: check
 *		what needs all of them; 0 or -errno (why in @in)
 * @precopy:	source: a migration began (@on), the guest still runs
 *		here, or it is over without a save; optional
 * @resume:	source: the guest goes on here (a save failed, or the
 *		migration did): everything as before the save
 * @finish:	source: the guest runs on the target now
 * @start:	target: the guest runs here now: put the state in force
 * @discard:	target: forget what was loaded (refused, or no guest came)
 */
struct migrate_section {
	const char *name;
	uint16_t rec_first;
	uint16_t rec_last;
	int (*save)(const struct ctx *c, struct mig_out *o);
	int (*load)(const struct ctx *c, struct mig_in *in,
		    const struct mig_rec *r);
	int (*loaded)(const struct ctx *c, struct mig_in *in);
	void (*precopy)(const struct ctx *c, bool on);
	void (*resume)(const struct ctx *c);
	void (*finish)(const struct ctx *c);
	void (*start)(const struct ctx *c);
	void (*discard)(const struct ctx *c);
};

void migrate_register(const struct migrate_section *s);
int migrate_init(const struct ctx *c);
int migrate_check(const struct ctx *c, const uint8_t *state, size_t len,
		  char *why, size_t why_len);

#endif /* MIGRATE_MIGRATE_H */
