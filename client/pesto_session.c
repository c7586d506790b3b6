// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto_session.c - pesto's conversation with the relay: its tables read,
 * shown, changed as the command line says, sent back, and the reply
 *
 * Theory of operation
 *
 * The relay sends its greeting and its tables as soon as pesto connects
 * (fwd/pesto_wire.c, doc/pesto.md). pesto_session() reads them, then
 * shows them, or applies the operations of the command line to a copy
 * (pesto_operations(), see client/pesto.c), sends the whole new set of
 * tables and reads the relay's reply.
 *
 * Our relay announces in the tables' capabilities (PESTO_CAP_VIEW) that
 * its derived configuration follows them, as text (fwd/fwd_view.c):
 * pesto_read_view() reads it then, and only then, so that a relay that
 * doesn't send it (upstream's) isn't waited for. It is printed below the
 * tables whenever they are shown.
 *
 * The relay is not trusted (doc/security.md): everything read from it is
 * checked before use, and a malformed message ends the program with a
 * message. Its text never reaches the user's terminal raw: a table name
 * must be printable ASCII, and interface names in rules and the reply's
 * message are printed with any other byte as '?' (no escape sequences).
 * Reads and writes go through struct pesto_io: pesto.c gives it the
 * socket (read(), a send() loop), the fuzz target
 * tests/fuzz/fuzz_pesto_reply.c a fake relay delivering bytes in pieces.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include "pesto_session.h"
#include "../conf/fwd_spec.h"
#include "../fwd/fwd_rules.h"
#include "../fwd/pesto_wire.h"
#include "../util/log.h"

/* Tables a relay may send (upstream's client takes three as well) */
#define PESTO_TABLES_MAX	3
#define PESTO_RULE_STR		192

/**
 * struct pesto_table - one table as received from the relay
 * @name:	pif name
 * @t:		pif identifier, capabilities and rules
 */
struct pesto_table {
	char name[PESTO_PIF_NAME_SIZE];
	struct pesto_pif t;
};

static struct pesto_table pesto_tables[PESTO_TABLES_MAX];
static unsigned int pesto_n_tables;
static struct pesto_rule pesto_new[PESTO_PIF_RULES_MAX];
static char pesto_view[PESTO_VIEW_MAX + 1];	/* the derived configuration */
static bool pesto_has_view;			/* the relay sent it */

/**
 * pesto_read_all() - read exactly a number of bytes
 * @io:		connection
 * @buf:	destination
 * @len:	bytes
 *
 * Return: 0 on success, 1 on end of file before any byte, -1 on error or
 *	   end of file later (errno set)
 */
static int pesto_read_all(const struct pesto_io *io, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = io->read(io->fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (!n) {
			errno = ENODATA;
			return got ? -1 : 1;
		}
		got += (size_t)n;
	}
	return 0;
}

/**
 * pesto_printable() - make text from the relay safe for a terminal
 * @s:		NUL-terminated text, changed in place: every byte other than
 *		printable ASCII (control characters, escape sequences,
 *		newlines) becomes '?'
 *
 * Return: @s
 */
static char *pesto_printable(char *s)
{
	char *p;

	for (p = s; *p; p++) {
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	}
	return s;
}

/**
 * pesto_rule_str() - describe a rule, safe to print
 * @r:		rule, possibly the relay's (its interface name is anything)
 * @buf:	output
 * @size:	size of @buf
 *
 * Return: @buf
 */
static const char *pesto_rule_str(const struct pesto_rule *r, char *buf,
				  size_t size)
{
	pesto_rule_fmt(r, buf, size);
	return pesto_printable(buf);
}

/**
 * pesto_read_table() - read one table from the relay
 * @io:		connection
 *
 * Return: false once the end mark is read
 */
static bool pesto_read_table(const struct pesto_io *io)
{
	uint8_t info[PESTO_PIF_INFO_LEN], rule[PESTO_RULE_LEN];
	char name[PESTO_PIF_NAME_SIZE];
	struct pesto_table *pt;
	uint32_t count, i;
	uint8_t pif;

	if (pesto_read_all(io, &pif, 1))
		die_perror("Can't read the tables from the relay");
	if (pif == PESTO_PIF_NONE)
		return false;
	if (pesto_n_tables == PESTO_TABLES_MAX)
		die("The relay sent more than %d tables", PESTO_TABLES_MAX);

	pt = &pesto_tables[pesto_n_tables];
	if (pesto_read_all(io, info, sizeof(info)))
		die_perror("Can't read the tables from the relay");
	if (pesto_pif_info_decode(info, pt->name, &pt->t.caps, &count))
		die("The relay sent a table with a bad name or %u rules", count);
	memcpy(name, pt->name, sizeof(name));
	if (strcmp(pesto_printable(name), pt->name) != 0)
		die("The relay sent a table name that is not printable "
		    "text: %s", name);

	for (i = 0; i < pesto_n_tables; i++) {
		if (pesto_tables[i].t.pif == pif ||
		    !strcmp(pesto_tables[i].name, pt->name))
			die("The relay sent table %s twice", pt->name);
	}

	pt->t.pif = pif;
	pt->t.count = count;
	for (i = 0; i < count; i++) {
		if (pesto_read_all(io, rule, sizeof(rule)))
			die_perror("Can't read the tables from the relay");
		pesto_rule_decode(rule, &pt->t.rules[i]);
	}

	debug("Table %s (pif %u): %u rules, capabilities 0x%x", pt->name, pif,
	      count, pt->t.caps);
	pesto_n_tables++;
	return true;
}

/**
 * pesto_read_view() - read the derived configuration, if the relay sends it
 * @io:		connection, the tables read
 */
static void pesto_read_view(const struct pesto_io *io)
{
	uint8_t hdr[PESTO_VIEW_HDR_LEN];
	unsigned int i;
	uint32_t len;

	pesto_has_view = false;
	for (i = 0; i < pesto_n_tables; i++) {
		if (pesto_tables[i].t.caps & PESTO_CAP_VIEW)
			break;
	}
	if (i == pesto_n_tables)
		return;

	if (pesto_read_all(io, hdr, sizeof(hdr)))
		die_perror("Can't read the derived configuration from the relay");
	if (pesto_view_decode(hdr, &len))
		die("The relay sent a malformed derived configuration");
	if (pesto_read_all(io, pesto_view, len))
		die_perror("Can't read the derived configuration from the relay");
	pesto_view[len] = '\0';
	pesto_has_view = true;
	debug("Derived configuration: %u bytes", len);
}

/**
 * pesto_show_view() - print the derived configuration, if the relay sent it
 * @f:		where
 * @path:	socket path
 *
 * Every byte that is not printable ASCII or a line's end is printed as '?'.
 */
static void pesto_show_view(FILE *f, const char *path)
{
	const char *p = pesto_view;

	if (!pesto_has_view)
		return;

	fprintf(f, "Derived configuration (%s)\n", path);
	while (*p) {
		size_t n = strcspn(p, "\n");
		size_t k;

		fputs("  ", f);
		for (k = 0; k < n; k++)
			fputc(p[k] < 0x20 || p[k] > 0x7e ? '?' : p[k], f);
		fputc('\n', f);
		p += n;
		if (*p)
			p++;
	}
	fflush(f);
}

/**
 * pesto_show() - print the tables
 * @f:		where
 * @title:	first line
 * @path:	socket path
 */
static void pesto_show(FILE *f, const char *title, const char *path)
{
	unsigned int i, j;

	fprintf(f, "%s (%s)\n", title, path);
	for (i = 0; i < pesto_n_tables; i++) {
		const struct pesto_table *pt = &pesto_tables[i];

		fprintf(f, "  %s\n", pt->name);
		for (j = 0; j < pt->t.count; j++) {
			char buf[PESTO_RULE_STR];

			fprintf(f, "    %s\n",
				pesto_rule_str(&pt->t.rules[j], buf,
					       sizeof(buf)));
		}
	}
	fflush(f);
}

/**
 * pesto_table_named() - find a table by name
 * @name:	pif name
 *
 * Return: the table, NULL if the relay has none of that name
 */
static struct pesto_table *pesto_table_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < pesto_n_tables; i++) {
		if (!strcmp(pesto_tables[i].name, name))
			return &pesto_tables[i];
	}
	return NULL;
}

/**
 * pesto_add() - add rules to a table, refusing conflicts
 * @pt:		table
 * @rules:	rules
 * @n:		number of rules
 */
static void pesto_add(struct pesto_table *pt, const struct pesto_rule *rules,
		      unsigned int n)
{
	char a[PESTO_RULE_STR], b[PESTO_RULE_STR];
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < pt->t.count; j++) {
			if (fwd_rules_conflict(&rules[i], &pt->t.rules[j]))
				die("%s conflicts with rule %s of %s",
				    pesto_rule_str(&rules[i], a, sizeof(a)),
				    pesto_rule_str(&pt->t.rules[j], b,
						   sizeof(b)), pt->name);
		}
		if (pt->t.count == PESTO_PIF_RULES_MAX)
			die("Table %s can't hold more than %d rules", pt->name,
			    PESTO_PIF_RULES_MAX);
		pt->t.rules[pt->t.count++] = rules[i];
	}
}

/**
 * pesto_del() - delete rules from a table; each must match one exactly
 * @pt:		table
 * @rules:	rules
 * @n:		number of rules
 */
static void pesto_del(struct pesto_table *pt, const struct pesto_rule *rules,
		      unsigned int n)
{
	char a[PESTO_RULE_STR], b[PESTO_RULE_STR];
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < pt->t.count; j++) {
			if (pesto_rule_same(&rules[i], &pt->t.rules[j]))
				break;
			if (fwd_rules_conflict(&rules[i], &pt->t.rules[j]))
				die("%s overlaps rule %s of %s without matching it: give that rule as shown",
				    pesto_rule_str(&rules[i], a, sizeof(a)),
				    pesto_rule_str(&pt->t.rules[j], b,
						   sizeof(b)), pt->name);
		}
		if (j == pt->t.count)
			die("No rule %s in %s to delete",
			    pesto_rule_str(&rules[i], a, sizeof(a)), pt->name);

		pt->t.count--;
		memmove(&pt->t.rules[j], &pt->t.rules[j + 1],
			(pt->t.count - j) * sizeof(pt->t.rules[0]));
	}
}

/**
 * pesto_spec_rules() - turn a port specification into protocol rules
 * @opt:	option: 't', 'u', 'T' or 'U'
 * @arg:	specification
 * @pt:		table it goes to (capabilities)
 *
 * Return: number of rules in pesto_new
 */
static unsigned int pesto_spec_rules(int opt, const char *arg,
				     const struct pesto_table *pt)
{
	static struct fwd_spec spec;
	bool udp = opt == 'u' || opt == 'U';
	struct fwd_rules_env env = {
		.pif = pt->t.pif,
		.ipv4 = pt->t.caps & PESTO_CAP_IPV4,
		.ipv6 = pt->t.caps & PESTO_CAP_IPV6,
	};
	char errbuf[256];
	int n;

	if (!(pt->t.caps & (udp ? PESTO_CAP_UDP : PESTO_CAP_TCP)))
		die("-%c: the relay doesn't forward %s", opt,
		    udp ? "UDP" : "TCP");

	memset(&spec, 0, sizeof(spec));
	if (fwd_parse(&spec, arg, errbuf, sizeof(errbuf)))
		die("-%c: %s", opt, errbuf);
	if (fwd_spec_scans(&spec) && !(pt->t.caps & PESTO_CAP_SCAN))
		die("-%c: 'auto' is only valid for pasta", opt);
	if (fwd_finalise(&spec, env.ipv4, env.ipv6, errbuf, sizeof(errbuf)))
		die("-%c: %s", opt, errbuf);

	n = fwd_rules_to_wire(&env, &spec, udp ? IPPROTO_UDP : IPPROTO_TCP,
			      pesto_new, PESTO_PIF_RULES_MAX);
	if (n < 0)
		die("-%c %s: more than %d rules", opt, arg,
		    PESTO_PIF_RULES_MAX);
	return (unsigned int)n;
}

/**
 * enum pesto_mode - what a specification does
 * @PESTO_REPLACE:	replaces its table (before any -A, -D, -C)
 * @PESTO_ADD:		adds to it (-A)
 * @PESTO_DEL:		deletes from it (-D)
 */
enum pesto_mode {
	PESTO_REPLACE,
	PESTO_ADD,
	PESTO_DEL,
};

const char pesto_optstring[] = "dhADC:t:u:T:U:s";
const struct option pesto_options[] = {
	{ "debug",	no_argument,		NULL, 'd' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 1 },
	{ "add",	no_argument,		NULL, 'A' },
	{ "delete",	no_argument,		NULL, 'D' },
	{ "clear",	required_argument,	NULL, 'C' },
	{ "tcp-ports",	required_argument,	NULL, 't' },
	{ "udp-ports",	required_argument,	NULL, 'u' },
	{ "tcp-ns",	required_argument,	NULL, 'T' },
	{ "udp-ns",	required_argument,	NULL, 'U' },
	{ "show",	no_argument,		NULL, 's' },
	{ NULL,		0,			NULL, 0 },
};

/**
 * pesto_operations() - apply the operations of the command line, in order
 * @argc:	argument count
 * @argv:	arguments
 */
static void pesto_operations(int argc, char **argv)
{
	enum pesto_mode mode = PESTO_REPLACE;
	bool cleared[UINT8_MAX + 1] = { false };
	struct pesto_table *pt;
	unsigned int n;
	int opt;

	optind = 0;
	while ((opt = getopt_long(argc, argv, pesto_optstring, pesto_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'A':
			mode = PESTO_ADD;
			continue;
		case 'D':
			mode = PESTO_DEL;
			continue;
		case 'C':
			pt = pesto_table_named(optarg);
			if (!pt)
				die("-C: the relay has no table %s", optarg);
			pt->t.count = 0;
			cleared[pt->t.pif] = true;
			continue;
		case 't':
		case 'u':
		case 'T':
		case 'U':
			break;
		default:
			continue;
		}

		pt = pesto_table_named(opt == 't' || opt == 'u' ? "HOST"
								: "SPLICE");
		if (!pt)
			die("-%c: the relay has no %s table%s", opt,
			    opt == 't' || opt == 'u' ? "HOST" : "SPLICE",
			    opt == 'T' || opt == 'U' ? " (is it passt?)" : "");

		n = pesto_spec_rules(opt, optarg, pt);
		if (mode == PESTO_REPLACE && !cleared[pt->t.pif]) {
			pt->t.count = 0;
			cleared[pt->t.pif] = true;
		}
		if (mode == PESTO_DEL)
			pesto_del(pt, pesto_new, n);
		else
			pesto_add(pt, pesto_new, n);
	}
}

/**
 * pesto_send() - send every table to the relay
 * @io:		connection
 */
static void pesto_send(const struct pesto_io *io)
{
	uint8_t buf[PESTO_RULE_LEN];
	unsigned int i, j;

	for (i = 0; i < pesto_n_tables; i++) {
		const struct pesto_pif *t = &pesto_tables[i].t;
		uint32_t count = htonl(t->count);

		io->write(io->fd, &t->pif, 1);
		io->write(io->fd, &count, sizeof(count));
		for (j = 0; j < t->count; j++) {
			pesto_rule_encode(buf, &t->rules[j]);
			io->write(io->fd, buf, sizeof(buf));
		}
	}
	buf[0] = PESTO_PIF_NONE;
	io->write(io->fd, buf, 1);
}

/**
 * pesto_reply() - read the relay's reply to the update
 * @io:		connection
 *
 * Return: exit status: 0 if applied (or no reply), 1 if refused
 */
static int pesto_reply(const struct pesto_io *io)
{
	uint8_t hdr[PESTO_REPLY_HDR_LEN];
	char msg[PESTO_REPLY_MSG_MAX + 1];
	uint32_t status, len;
	int ret;

	ret = pesto_read_all(io, hdr, sizeof(hdr));
	if (ret == 1 || (ret < 0 && errno == ECONNRESET)) {
		warn("The relay sent no reply (it may not report one, as upstream passt): the update was sent");
		return 0;
	}
	if (ret)
		die_perror("Can't read the reply of the relay");
	if (pesto_reply_decode(hdr, &status, &len))
		die("The relay sent a malformed reply");
	if (pesto_read_all(io, msg, len))
		die_perror("Can't read the reply of the relay");
	msg[len] = '\0';
	pesto_printable(msg);

	if (status) {
		fprintf(io->err, "pesto: the relay refused the update, nothing changed: %s\n",
			msg);
		return 1;
	}
	debug("The relay applied the update: %s", msg);
	return 0;
}

/**
 * pesto_session() - read the relay's tables, show or change them
 * @io:		connection to the relay (connected, sandboxed)
 * @path:	its socket path, for messages
 * @argc:	argument count
 * @argv:	options and operations (pesto_optstring)
 * @update:	argv has operations: apply them, send the update
 * @show:	-s: show the tables before and after the update (and the
 *		derived configuration after them)
 *
 * Errors in what the relay sends end the program (die()).
 *
 * Return: exit status: 0, or 1 if the relay refused the update
 */
int pesto_session(const struct pesto_io *io, const char *path, int argc,
		  char **argv, bool update, bool show)
{
	uint8_t hello[PESTO_HELLO_LEN];
	char errbuf[160];
	int ret;

	pesto_n_tables = 0;
	ret = pesto_read_all(io, hello, sizeof(hello));
	if (ret)
		die("Can't read the greeting of the relay at %s: %s", path,
		    ret > 0 ? "it closed the connection" : strerror(errno));
	if (pesto_hello_check(hello, errbuf, sizeof(errbuf)))
		die("%s: %s", path, errbuf);
	while (pesto_read_table(io))
		;
	pesto_read_view(io);

	if (!update) {
		pesto_show(io->out, "passt/pasta configuration", path);
		pesto_show_view(io->out, path);
		return EXIT_SUCCESS;
	}

	if (show)
		pesto_show(io->out, "Previous configuration", path);
	pesto_operations(argc, argv);
	if (show) {
		pesto_show(io->out, "Updated configuration", path);
		pesto_show_view(io->out, path);
	}

	pesto_send(io);
	return pesto_reply(io);
}
