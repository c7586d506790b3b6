// SPDX-License-Identifier: GPL-2.0-or-later
/* pesto.c - show and change the port forwarding of a running passt or
 * pasta, through its -c configuration socket
 *
 * Theory of operation
 *
 * The same command line as upstream's pesto (doc/pesto.1): a socket
 * path, and a sequence of operations: -A (add what follows), -D (delete
 * what follows), -C PIF (clear a table), and -t, -u, -T, -U with the port
 * specifications of passt and pasta. Without any operation, the tables
 * are shown.
 *
 * The relay sends its tables as soon as we connect (fwd/pesto_wire.c,
 * doc/pesto.md). The operations are applied here, in order, to a copy of
 * them: a specification is parsed with the relay's own parser
 * (conf/fwd.c) and turned into protocol rules (fwd/fwd_rules.c) the way
 * the relay shows its own; a rule is added if it conflicts with none, and
 * deleted if one matches it exactly. Before the first -A, -D or -C, a
 * specification replaces the table it goes to (-t and -u: HOST, -T and
 * -U: SPLICE). The whole new set of tables is then sent, and the relay
 * applies it at once, or not at all, and says which in its reply. A relay
 * that sends no reply (upstream's) gets the update all the same.
 *
 * Every read has a deadline (PESTO_TIMEOUT_S): a relay that doesn't answer
 * doesn't leave us hanging.
 *
 * Once connected, before reading anything the relay sends, we load a
 * seccomp filter (util/syscalls.h) allowing only the calls listed below:
 * a relay that found a bug in our parsing has no more to play with.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "../conf/fwd.h"
#include "../fwd/fwd_rules.h"
#include "../fwd/pesto_wire.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* System calls once connected (with exit_group, and write and
 * clock_gettime for messages: util/syscalls.c, util/log.c)
 */
SYSCALLS(SYSCALLS_PESTO,
	 SYSCALLS_CALL("read", "the relay's greeting, tables, reply"),
	 SYSCALLS_CALL("sendto", "the new tables (send())"),
	 SYSCALLS_CALL("close", "the socket, when done"));

/* Tables a relay may send (upstream's client takes three as well) */
#define PESTO_TABLES_MAX	3
/* Deadline of each read from the relay, seconds */
#define PESTO_TIMEOUT_S		15
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

/**
 * pesto_usage() - print usage and exit
 * @name:	program name
 * @f:		stdout or stderr
 * @status:	exit status
 */
static void __attribute__((noreturn)) pesto_usage(const char *name, FILE *f,
						  int status)
{
	fprintf(f,
		"Usage: %s [OPTION]... PATH\n"
		"Show or change the port forwarding of the passt or pasta\n"
		"listening on the configuration socket PATH (its -c option).\n"
		"\n"
		"  -A, --add             add the specifications that follow\n"
		"  -D, --delete          delete the specifications that follow\n"
		"  -C, --clear PIF       clear the table of PIF (HOST, SPLICE)\n"
		"  -t, --tcp-ports SPEC  TCP ports of the host (table HOST)\n"
		"  -u, --udp-ports SPEC  UDP ports of the host (table HOST)\n"
		"  -T, --tcp-ns SPEC     TCP ports of the namespace (SPLICE)\n"
		"  -U, --udp-ns SPEC     UDP ports of the namespace (SPLICE)\n"
		"  -s, --show            show the tables before and after\n"
		"  -d, --debug           print debugging messages\n"
		"  -h, --help            show this help and exit\n"
		"      --version         show the version and exit\n"
		"\n"
		"SPEC is as for passt and pasta: none, or a list of\n"
		"[ADDR[%%IFACE]/]FIRST[-LAST][:[TOADDR/]TOFIRST[-TOLAST]],\n"
		"all[:TOADDR], auto and ~FIRST[-LAST]. Without -A, -D or -C\n"
		"before it, a SPEC replaces its table. Without any of these\n"
		"options, the tables are shown.\n", name);
	exit(status);
}

/**
 * pesto_read_all() - read exactly a number of bytes
 * @fd:		socket
 * @buf:	destination
 * @len:	bytes
 *
 * Return: 0 on success, 1 on end of file before any byte, -1 on error or
 *	   end of file later (errno set)
 */
static int pesto_read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

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
 * pesto_write_all() - write a whole buffer
 * @fd:		socket
 * @buf:	source
 * @len:	bytes
 */
static void pesto_write_all(int fd, const void *buf, size_t len)
{
	size_t sent = 0;

	while (sent < len) {
		ssize_t n = send(fd, (const char *)buf + sent, len - sent,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die_perror("Can't send the update to the relay");
		sent += (size_t)n;
	}
}

/**
 * pesto_connect() - connect to the relay's configuration socket
 * @path:	socket path
 *
 * Return: connected socket
 */
static int pesto_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = PESTO_TIMEOUT_S };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		die("Socket path too long: %s", path);
	memcpy(a.sun_path, path, strlen(path) + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die_perror("Can't create a UNIX socket");
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die_perror("Can't connect to %s (is passt or pasta running with -c %s?)",
			   path, path);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		debug_perror("SO_RCVTIMEO");

	return fd;
}

/**
 * pesto_sandbox() - allow only the calls we make from now on
 *
 * What would need more calls later is done first: the buffer of stdout
 * (malloc()), the ephemeral port range the parser of "all" reads (open()).
 */
static void pesto_sandbox(void)
{
	static char out[BUFSIZ];
	unsigned int first, last;

	setvbuf(stdout, out, _IOLBF, sizeof(out));
	fwd_ephemeral_range(&first, &last);

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die_perror("Can't set no-new-privs");
	if (syscalls_filter_load(SYSCALLS_PESTO))
		die("Can't install the seccomp filter");
}

/**
 * pesto_read_table() - read one table from the relay
 * @fd:		socket
 *
 * Return: false once the end mark is read
 */
static bool pesto_read_table(int fd)
{
	uint8_t info[PESTO_PIF_INFO_LEN], rule[PESTO_RULE_LEN];
	struct pesto_table *pt;
	uint32_t count, i;
	uint8_t pif;

	if (pesto_read_all(fd, &pif, 1))
		die_perror("Can't read the tables from the relay");
	if (pif == PESTO_PIF_NONE)
		return false;
	if (pesto_n_tables == PESTO_TABLES_MAX)
		die("The relay sent more than %d tables", PESTO_TABLES_MAX);

	pt = &pesto_tables[pesto_n_tables];
	if (pesto_read_all(fd, info, sizeof(info)))
		die_perror("Can't read the tables from the relay");
	if (pesto_pif_info_decode(info, pt->name, &pt->t.caps, &count))
		die("The relay sent a table with a bad name or %u rules", count);

	for (i = 0; i < pesto_n_tables; i++) {
		if (pesto_tables[i].t.pif == pif ||
		    !strcmp(pesto_tables[i].name, pt->name))
			die("The relay sent table %s twice", pt->name);
	}

	pt->t.pif = pif;
	pt->t.count = count;
	for (i = 0; i < count; i++) {
		if (pesto_read_all(fd, rule, sizeof(rule)))
			die_perror("Can't read the tables from the relay");
		pesto_rule_decode(rule, &pt->t.rules[i]);
	}

	debug("Table %s (pif %u): %u rules, capabilities 0x%x", pt->name, pif,
	      count, pt->t.caps);
	pesto_n_tables++;
	return true;
}

/**
 * pesto_show() - print the tables
 * @title:	first line
 * @path:	socket path
 */
static void pesto_show(const char *title, const char *path)
{
	unsigned int i, j;

	printf("%s (%s)\n", title, path);
	for (i = 0; i < pesto_n_tables; i++) {
		const struct pesto_table *pt = &pesto_tables[i];

		printf("  %s\n", pt->name);
		for (j = 0; j < pt->t.count; j++) {
			char buf[PESTO_RULE_STR];

			printf("    %s\n", pesto_rule_fmt(&pt->t.rules[j], buf,
						       sizeof(buf)));
		}
	}
	fflush(stdout);
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
				    pesto_rule_fmt(&rules[i], a, sizeof(a)),
				    pesto_rule_fmt(&pt->t.rules[j], b,
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
				    pesto_rule_fmt(&rules[i], a, sizeof(a)),
				    pesto_rule_fmt(&pt->t.rules[j], b,
						   sizeof(b)), pt->name);
		}
		if (j == pt->t.count)
			die("No rule %s in %s to delete",
			    pesto_rule_fmt(&rules[i], a, sizeof(a)), pt->name);

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

static const char pesto_optstring[] = "dhADC:t:u:T:U:s";
static const struct option pesto_options[] = {
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
 * @fd:		socket
 */
static void pesto_send(int fd)
{
	uint8_t buf[PESTO_RULE_LEN];
	unsigned int i, j;

	for (i = 0; i < pesto_n_tables; i++) {
		const struct pesto_pif *t = &pesto_tables[i].t;
		uint32_t count = htonl(t->count);

		pesto_write_all(fd, &t->pif, 1);
		pesto_write_all(fd, &count, sizeof(count));
		for (j = 0; j < t->count; j++) {
			pesto_rule_encode(buf, &t->rules[j]);
			pesto_write_all(fd, buf, sizeof(buf));
		}
	}
	buf[0] = PESTO_PIF_NONE;
	pesto_write_all(fd, buf, 1);
}

/**
 * pesto_reply() - read the relay's reply to the update
 * @fd:		socket
 *
 * Return: exit status: 0 if applied (or no reply), 1 if refused
 */
static int pesto_reply(int fd)
{
	uint8_t hdr[PESTO_REPLY_HDR_LEN];
	char msg[PESTO_REPLY_MSG_MAX + 1];
	uint32_t status, len;
	int ret;

	ret = pesto_read_all(fd, hdr, sizeof(hdr));
	if (ret == 1 || (ret < 0 && errno == ECONNRESET)) {
		warn("The relay sent no reply (it may not report one, as upstream passt): the update was sent");
		return 0;
	}
	if (ret)
		die_perror("Can't read the reply of the relay");
	if (pesto_reply_decode(hdr, &status, &len))
		die("The relay sent a malformed reply");
	if (pesto_read_all(fd, msg, len))
		die_perror("Can't read the reply of the relay");
	msg[len] = '\0';

	if (status) {
		fprintf(stderr, "pesto: the relay refused the update, nothing changed: %s\n",
			msg);
		return 1;
	}
	debug("The relay applied the update: %s", msg);
	return 0;
}

/**
 * main() - show or change the forwarding tables of a relay
 * @argc:	argument count
 * @argv:	options, operations and the socket path
 *
 * Return: 0 on success, 1 on failure
 */
int main(int argc, char **argv)
{
	uint8_t hello[PESTO_HELLO_LEN];
	bool update = false, show = false;
	char errbuf[160];
	const char *path;
	int opt, fd, ret;

	log_init("pesto");
	while ((opt = getopt_long(argc, argv, pesto_optstring, pesto_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'A':
		case 'D':
		case 'C':
		case 't':
		case 'u':
		case 'T':
		case 'U':
			update = true;
			break;
		case 's':
			show = true;
			break;
		case 'd':
			log_set_level(LOG_DEBUG);
			break;
		case 'h':
			pesto_usage(argv[0], stdout, EXIT_SUCCESS);
		case 1:
			printf("pesto (passt %s)\n", VERSION);
			return EXIT_SUCCESS;
		default:
			pesto_usage(argv[0], stderr, EXIT_FAILURE);
		}
	}
	if (argc - optind != 1)
		pesto_usage(argv[0], stderr, EXIT_FAILURE);
	path = argv[optind];

	fd = pesto_connect(path);
	pesto_sandbox();
	ret = pesto_read_all(fd, hello, sizeof(hello));
	if (ret)
		die("Can't read the greeting of the relay at %s: %s", path,
		    ret > 0 ? "it closed the connection" : strerror(errno));
	if (pesto_hello_check(hello, errbuf, sizeof(errbuf)))
		die("%s: %s", path, errbuf);
	while (pesto_read_table(fd))
		;

	if (!update) {
		pesto_show("passt/pasta configuration", path);
		close(fd);
		return EXIT_SUCCESS;
	}

	if (show)
		pesto_show("Previous configuration", path);
	pesto_operations(argc, argv);
	if (show)
		pesto_show("Updated configuration", path);

	pesto_send(fd);
	ret = pesto_reply(fd);
	close(fd);
	return ret;
}
