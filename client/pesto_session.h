/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pesto_session.h - what pesto reads from the relay and sends back
 *
 * Theory of operation: see client/pesto_session.c. pesto.c connects and
 * sandboxes, then hands the connection to pesto_session(); the fuzz
 * target tests/fuzz/fuzz_pesto_reply.c does the same with a fake relay.
 */
#ifndef CLIENT_PESTO_SESSION_H
#define CLIENT_PESTO_SESSION_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/**
 * struct pesto_io - the connection to the relay, and where pesto prints
 * @read:	reads up to @len bytes from @fd, as read(2)
 * @write:	writes all of @len bytes to @fd, or dies
 * @fd:		socket
 * @out:	tables shown (stdout)
 * @err:	the relay's refusal (stderr)
 */
struct pesto_io {
	ssize_t (*read)(int fd, void *buf, size_t len);
	void (*write)(int fd, const void *buf, size_t len);
	int fd;
	FILE *out;
	FILE *err;
};

extern const char pesto_optstring[];
extern const struct option pesto_options[];

int pesto_session(const struct pesto_io *io, const char *path, int argc,
		  char **argv, bool update, bool show);

#endif /* CLIENT_PESTO_SESSION_H */
