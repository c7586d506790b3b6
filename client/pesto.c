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
 * are shown, and the configuration the relay derived from the host, if it
 * sends it (ours does).
 *
 * The relay sends its tables as soon as we connect (fwd/pesto_wire.c,
 * doc/pesto.md). This file connects and sandboxes; the conversation from the
 * greeting on is client/pesto_session.c. The operations are applied in order to
 * a copy of the tables: a specification is parsed with the relay's own parser
 * (conf/fwd_parse.c) and turned into protocol rules (fwd/fwd_rules.c) the way the
 * relay shows its own; a rule is added if it conflicts with none, and deleted
 * if one matches it exactly. Before the first -A, -D or -C, a specification
 * replaces the table it goes to (-t and -u: HOST, -T and -U: SPLICE). The whole
 * new set of tables is then sent, and the relay applies it at once, or not at
 * all, and says which in its reply. A relay that sends no reply (upstream's)
 * gets the update all the same.
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

#include "pesto_session.h"
#include "../conf/fwd_spec.h"
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

/* Deadline of each read from the relay, seconds */
#define PESTO_TIMEOUT_S		15

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
		"options, the tables are shown, and below them what the\n"
		"relay derived from the host, as it stands now.\n", name);
	exit(status);
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
 * main() - show or change the forwarding tables of a relay
 * @argc:	argument count
 * @argv:	options, operations and the socket path
 *
 * Return: 0 on success, 1 on failure
 */
int main(int argc, char **argv)
{
	struct pesto_io io = {
		.read = read, .write = pesto_write_all, .out = stdout,
		.err = stderr,
	};
	bool update = false, show = false;
	const char *path;
	int opt, ret;

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

	io.fd = pesto_connect(path);
	pesto_sandbox();
	ret = pesto_session(&io, path, argc, argv, update, show);
	close(io.fd);
	return ret;
}
