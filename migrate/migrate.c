// SPDX-License-Identifier: GPL-2.0-or-later
/* migrate.c - live migration: the state of passt, moved with its guest
 *
 * Theory of operation
 *
 * When QEMU migrates a guest whose network is passt over vhost-user, the
 * source passt writes its state into a pipe QEMU gives it, QEMU carries
 * the bytes to the target host, and the target passt reads them from its
 * own pipe (vhost_user/vu_migrate.c speaks the protocol; struct tap_state_ops is
 * what this file registers there). The state (doc/migration.md) is the
 * guest's MAC and addresses, which this file handles, and the records of
 * the sections modules register (migrate_register()): TCP connections,
 * with their queued data (tcp/tcp_migrate.c). A section reads the record
 * types of its range; anything else unknown is refused, unless the writer
 * marked it optional.
 *
 * Nothing takes effect until the migration's outcome is known:
 * - source: saving freezes what it saves (TCP: sockets in repair mode,
 *   dropping all input). A device that runs again afterwards means the
 *   migration failed and the guest resumes here: every section resumes.
 *   The front-end leaving means the guest runs on the target: sections
 *   finish (TCP: sockets kept idle, or closed with --migrate-no-linger).
 * - target: loading checks every record and prepares what it describes
 *   (TCP: sockets built in repair mode, frozen) but puts nothing in
 *   force. The state is refused as a whole, with a message saying what
 *   and where, if any record is malformed, inconsistent or names
 *   something that can't be set up here; this passt then goes on as
 *   before. The device running means the guest runs here: sections start
 *   (TCP: the connections go live). The front-end leaving first means
 *   the guest won't come: what was prepared is dropped without a trace.
 * The passt-repair helper (repair.c) stays connected until then: the
 * source needs it to resume, the target to start.
 *
 * migrate_check() runs the target's reading and checks on a state in
 * memory without applying anything: the fuzz target of the parser.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "migrate.h"
#include "mig_io.h"
#include "repair.h"
#include "../conf/ctx.h"
#include "../tap/tap.h"
#include "../util/log.h"
#include "../guest/guest.h"

/* The guest record: MAC, two bytes of padding, addresses it used */
#define MIGRATE_GUEST_LEN	(6 + 2 + 4 + 16 + 16)

static const struct migrate_section *migrate_sections[MIGRATE_SECTIONS_MAX];
static unsigned int migrate_nsections;

static struct mig_out migrate_out;
static struct mig_in migrate_in;

/**
 * struct migrate_guest - the guest as the source saw it
 * @mac:	its MAC address, zero if it sent nothing
 * @addr4:	last IPv4 source address it used
 * @addr6:	last global IPv6 source address
 * @addr6_ll:	last link-local IPv6 source address
 */
static struct migrate_guest {
	uint8_t mac[6];
	struct in_addr addr4;
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
} migrate_guest;

/**
 * migrate_register() - a module has state to move
 * @s:		its section
 */
void migrate_register(const struct migrate_section *s)
{
	if (migrate_nsections < MIGRATE_SECTIONS_MAX)
		migrate_sections[migrate_nsections++] = s;
}

/**
 * migrate_owner() - the section reading a record type
 * @type:	MIG_REC_*
 *
 * Return: section, NULL if none
 */
static const struct migrate_section *migrate_owner(uint16_t type)
{
	unsigned int i;

	for (i = 0; i < migrate_nsections; i++) {
		if (type >= migrate_sections[i]->rec_first &&
		    type <= migrate_sections[i]->rec_last)
			return migrate_sections[i];
	}
	return NULL;
}

/**
 * migrate_guest_save() - write the guest record (guest/: what we learnt)
 * @o:		stream
 */
static void migrate_guest_save(struct mig_out *o)
{
	uint8_t buf[MIGRATE_GUEST_LEN];
	struct mig_buf b = { .p = buf, .size = sizeof(buf) };
	struct in_addr addr4 = guest_addr4();

	mig_put_bytes(&b, guest_mac(), 6);
	mig_put_u16(&b, 0);
	mig_put_bytes(&b, &addr4, 4);
	mig_put_bytes(&b, guest_addr6(), 16);
	mig_put_bytes(&b, guest_addr6_ll(), 16);
	mig_out_small(o, MIG_REC_GUEST, &b);
}

/**
 * migrate_guest_load() - read and check the guest record
 * @in:		stream, its header just read
 * @r:		that header
 *
 * Return: 0, or negative errno (why recorded)
 */
static int migrate_guest_load(struct mig_in *in, const struct mig_rec *r)
{
	uint8_t buf[MIG_REC_SMALL_MAX];
	struct migrate_guest g;
	struct mig_buf b;
	int rc;

	if ((rc = mig_in_small(in, r, "guest", MIGRATE_GUEST_LEN, buf, &b)))
		return rc;
	mig_get_bytes(&b, g.mac, sizeof(g.mac));
	if (mig_get_u16(&b))
		return mig_in_fail(in, "guest record: padding not zero");
	mig_get_bytes(&b, &g.addr4, sizeof(g.addr4));
	mig_get_bytes(&b, &g.addr6, sizeof(g.addr6));
	mig_get_bytes(&b, &g.addr6_ll, sizeof(g.addr6_ll));
	if (g.mac[0] & 1)
		return mig_in_fail(in, "guest record: multicast MAC address");
	if (!in->check_only)
		migrate_guest = g;
	return 0;
}

/**
 * migrate_records() - read and check a whole state
 * @c:		execution context
 * @in:		stream
 *
 * Return: 0, or negative errno (why recorded in @in)
 */
static int migrate_records(const struct ctx *c, struct mig_in *in)
{
	const struct migrate_section *s;
	bool guest = false;
	struct mig_rec r;
	unsigned int i;
	int rc;

	if ((rc = mig_in_header(in)))
		return rc;

	for (;;) {
		if ((rc = mig_in_rec(in, &r)))
			return rc;
		if (r.type == MIG_REC_END) {
			if ((rc = mig_in_end(in, &r)))
				return rc;
			break;
		}

		if (r.type == MIG_REC_GUEST) {
			if (guest)
				return mig_in_fail(in, "two guest records");
			guest = true;
			rc = migrate_guest_load(in, &r);
		} else if ((s = migrate_owner(r.type))) {
			if (!guest)
				return mig_in_fail(in, "record of type %u "
						   "before the guest record",
						   r.type);
			rc = s->load(c, in, &r);
		} else if (r.flags & MIG_REC_OPTIONAL) {
			rc = mig_in_skip(in, r.len);
		} else {
			return mig_in_fail(in, "unknown record type %u (state "
					   "version %u.%u, this relay knows "
					   "%u.%u)", r.type, MIG_VERSION_MAJOR,
					   in->minor, MIG_VERSION_MAJOR,
					   MIG_VERSION_MINOR);
		}
		if (rc)
			return rc;
	}

	if (!guest)
		return mig_in_fail(in, "no guest record");
	for (i = 0; i < migrate_nsections; i++) {
		if ((rc = migrate_sections[i]->loaded(c, in)))
			return rc;
	}
	return 0;
}

/**
 * migrate_discard_all() - every section forgets what it loaded
 * @c:		execution context
 */
static void migrate_discard_all(const struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < migrate_nsections; i++)
		migrate_sections[i]->discard(c);
}

/**
 * migrate_save() - source: write our state (tap_state_ops.save)
 * @c:		execution context
 * @fd:		the front-end's pipe
 *
 * Return: 0 on success, negative errno on failure (logged; everything as
 *	   before)
 */
static int migrate_save(const struct ctx *c, int fd)
{
	struct mig_out *o = &migrate_out;
	unsigned int i, j;
	int rc = 0;

	info("Migration: saving the state for the target");
	mig_out_init(o, fd);
	migrate_guest_save(o);
	for (i = 0; i < migrate_nsections && !rc; i++) {
		rc = migrate_sections[i]->save(c, o);
		if (rc)
			break;
	}
	if (!rc)
		rc = mig_out_end(o);

	if (rc) {
		/* Sections that saved go back; one that failed did already */
		for (j = 0; j < i && j < migrate_nsections; j++)
			migrate_sections[j]->resume(c);
		repair_close(c);
		err("Migration: can't save the state: %s; the guest's "
		    "connections stay here", strerror(-rc));
		return rc;
	}

	info("Migration: state saved, %llu bytes in %u records",
	     (unsigned long long)o->bytes, o->records);
	return 0;
}

/**
 * migrate_load() - target: read a state (tap_state_ops.load)
 * @c:		execution context
 * @fd:		the front-end's pipe
 *
 * Return: 0 if the state was read and prepared, negative errno if it was
 *	   refused (logged; nothing changed)
 */
static int migrate_load(const struct ctx *c, int fd)
{
	struct mig_in *in = &migrate_in;
	int rc;

	info("Migration: loading the state from the source");
	migrate_discard_all(c);
	mig_in_init(in, fd, NULL, 0);
	rc = migrate_records(c, in);
	if (rc) {
		migrate_discard_all(c);
		repair_close(c);
		err("Migration: refusing the state from the source: %s. "
		    "Nothing of it is used, this passt goes on as before",
		    in->why[0] ? in->why : strerror(-rc));
		return rc;
	}

	info("Migration: state loaded, %llu bytes in %u records: waiting "
	     "for the guest to run here", (unsigned long long)in->pos,
	     in->records);
	return 0;
}

/**
 * migrate_precopy() - source: a migration began, or it is over without a
 *		       save (tap_state_ops.precopy)
 * @c:		execution context
 * @on:		it began
 */
static void migrate_precopy(const struct ctx *c, bool on)
{
	unsigned int i;

	for (i = 0; i < migrate_nsections; i++) {
		if (migrate_sections[i]->precopy)
			migrate_sections[i]->precopy(c, on);
	}
}

/**
 * migrate_resume() - source: the guest goes on here (tap_state_ops.resume)
 * @c:		execution context
 */
static void migrate_resume(const struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < migrate_nsections; i++)
		migrate_sections[i]->resume(c);
	repair_close(c);
}

/**
 * migrate_finish() - source: the guest runs on the target now
 *		      (tap_state_ops.finish)
 * @c:		execution context
 */
static void migrate_finish(const struct ctx *c)
{
	unsigned int i;

	for (i = 0; i < migrate_nsections; i++)
		migrate_sections[i]->finish(c);
	repair_close(c);
	info("Migration complete: the guest runs on the target");
}

/**
 * migrate_start() - target: the guest runs here (tap_state_ops.start)
 * @c:		execution context
 */
static void migrate_start(const struct ctx *c)
{
	unsigned int i;

	guest_mac_set(migrate_guest.mac);
	guest_addr4_set(migrate_guest.addr4);
	guest_addr6_set(&migrate_guest.addr6);
	guest_addr6_ll_set(&migrate_guest.addr6_ll);

	for (i = 0; i < migrate_nsections; i++)
		migrate_sections[i]->start(c);
	repair_close(c);
	info("Migration complete: the guest runs here");
}

/**
 * migrate_discard() - target: no guest came (tap_state_ops.discard)
 * @c:		execution context
 */
static void migrate_discard(const struct ctx *c)
{
	migrate_discard_all(c);
	repair_close(c);
	warn("Migration: the front-end left before the guest ran here: the "
	     "state loaded is dropped");
}

static const struct tap_state_ops migrate_ops = {
	.save		= migrate_save,
	.load		= migrate_load,
	.precopy	= migrate_precopy,
	.resume		= migrate_resume,
	.finish		= migrate_finish,
	.start		= migrate_start,
	.discard	= migrate_discard,
};

/**
 * migrate_init() - vhost-user: take part in migrations, listen for the
 *		    passt-repair helper
 * @c:		execution context, after tap_init() chose the socket path
 *
 * Return: 0 on success, negative errno if the repair socket can't be set
 *	   up (logged)
 */
int migrate_init(const struct ctx *c)
{
	char path[sizeof(c->repair_path)];

	if (!c->vhost_user)
		return 0;
	tap_state_register(&migrate_ops);

	if (c->no_repair) {
		info("No passt-repair socket (--repair-path none): TCP "
		     "connections won't migrate");
		return 0;
	}
	if (*c->repair_path) {
		snprintf(path, sizeof(path), "%s", c->repair_path);
	} else if (*c->sock_path) {
		if (snprintf(path, sizeof(path), "%s.repair", c->sock_path) >=
		    (int)sizeof(path))
			return -ENAMETOOLONG;
	} else {
		info("No passt-repair socket with --fd unless --repair-path "
		     "gives one: TCP connections won't migrate");
		return 0;
	}
	return repair_init(c, path);
}

/**
 * migrate_check() - read and check a state in memory, apply nothing
 * @c:		execution context
 * @state:	the state
 * @len:	its length
 * @why:	filled with what is wrong, if anything
 * @why_len:	its size
 *
 * Return: 0 if a target would accept it, negative errno if not
 */
int migrate_check(const struct ctx *c, const uint8_t *state, size_t len,
		  char *why, size_t why_len)
{
	struct mig_in *in = &migrate_in;
	int rc;

	migrate_discard_all(c);
	mig_in_init(in, -1, state, len);
	in->check_only = true;
	rc = migrate_records(c, in);
	migrate_discard_all(c);
	if (why_len)
		snprintf(why, why_len, "%s", in->why);
	return rc;
}
