// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_conf.c - libFuzzer target: the command-line option parser
 *
 * Theory of operation
 *
 * The first byte picks the program (even: passt, odd: pasta, which
 * accepts other options); the rest is split on NUL bytes into arguments.
 * They go through the parsing stages of conf() that depend on nothing but
 * the command line: conf_parse() (every option and value check),
 * conf_unimplemented(), conf_ports_default() and conf_ports_finalise() on
 * the four forwarding specs, then conf_print() formats the outcome. The
 * host-derived stages (netlink, resolv.conf, opening -l files) are left
 * out on purpose: they would make the fuzzer create files.
 *
 * The parser reports errors with die(), --help and --version exit: exit()
 * jumps back here (fuzz_common.c, __wrap_exit()), and getopt_long() is
 * restarted with optind = 0 for every input. Messages are formatted but
 * written nowhere; standard output (the help text) goes to /dev/null.
 */

#include <fcntl.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "../../conf/ctx.h"
#include "../../conf/conf.h"
#include "../../conf/conf_internal.h"
#include "../../util/log.h"

#define FUZZ_CONF_ARGS		64	/* arguments after the program name */
#define FUZZ_CONF_LEN		4096	/* bytes of arguments */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct ctx fuzz_conf_ctx;

/**
 * fuzz_conf_quiet() - silence logs and standard output, once
 */
static void fuzz_conf_quiet(void)
{
	static bool done;
	int fd;

	if (done)
		return;
	done = true;

	log_init("passt");
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}

/**
 * LLVMFuzzerTestOneInput() - parse one command line
 * @data:	mode byte, then NUL-separated arguments
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[FUZZ_CONF_LEN + 1];
	struct ctx *c = &fuzz_conf_ctx;
	char *argv[FUZZ_CONF_ARGS + 2];
	volatile int argc = 1;
	struct conf_given g;
	jmp_buf env;
	bool pasta;
	size_t i;

	if (!size)
		return 0;
	fuzz_conf_quiet();

	pasta = data[0] & 1;
	data++;
	size--;
	if (size > FUZZ_CONF_LEN)
		size = FUZZ_CONF_LEN;
	memcpy(buf, data, size);
	buf[size] = '\0';

	argv[0] = pasta ? "pasta" : "passt";
	if (size)
		argv[argc++] = buf;
	for (i = 0; i < size && argc <= FUZZ_CONF_ARGS; i++) {
		if (!buf[i] && i + 1 < size)
			argv[argc++] = buf + i + 1;
	}
	argv[argc] = NULL;

	conf_defaults(c, pasta ? MODE_PASTA : MODE_PASST);
	memset(&g, 0, sizeof(g));
	log_to_stderr(false);
	log_set_level(LOG_DEBUG);
	optind = 0;
	opterr = 0;

	if (setjmp(env)) {
		fuzz_exit_jmp = NULL;
		return 0;
	}
	fuzz_exit_jmp = &env;

	conf_parse(c, argc, argv, &g);
	(void)conf_unimplemented(c);
	conf_ports_default(c);
	conf_ports_finalise(c);
	conf_print(c);

	fuzz_exit_jmp = NULL;
	return 0;
}
