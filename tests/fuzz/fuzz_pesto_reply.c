// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_pesto_reply.c - libFuzzer target: pesto reading a hostile relay
 *
 * Theory of operation
 *
 * pesto (client/pesto.c) trusts its user, not the relay it talks to
 * (doc/security.md). Here pesto_session(), what pesto runs once connected,
 * talks to a fake relay whose every byte comes from the input: the
 * greeting, the tables pesto shows and changes, the derived configuration
 * after them (when their capabilities announce it), the reply to the
 * update.
 * Input format:
 *
 *   byte 0, bits 0-2	k: the fake relay's reads deliver up to 2^k bytes
 *			(1 to 128), as a socket delivers what a relay wrote
 *			in pieces
 *   bit 3		ragged: each read delivers 1 to 2^k bytes, varying
 *   bits 4-5		pesto's command line: 0 show the tables; 1 "-s -t
 *			8080" (replace HOST, show before and after); 2 "-A
 *			-t 9000-9001 -U 53" (add); 3 "-D -t 8080 -C SPLICE"
 *			(delete, clear)
 *   bit 6		the relay resets the connection at the end of the
 *			input (ECONNRESET) instead of closing it (end of file)
 *   the rest		what the relay sends
 *
 * What pesto sends is kept; what it prints is shown with FUZZ_LOG set. Its
 * exits (die(), a malformed message from the relay is a normal outcome) come
 * back here through __wrap_exit() (fuzz_common.c). What must hold, besides no
 * crash and no sanitizer report:
 * - everything pesto prints, the tables, the derived configuration and
 *   the relay's refusal, is printable ASCII in lines: nothing the relay
 *   sends reaches the user's terminal as a control character or an escape
 *   sequence;
 * - a session that returns has status 0 or 1, and 1 comes with the
 *   refusal printed;
 * - what pesto sends is a complete update, as the relay's own parser
 *   (pesto_update_feed()) frames it: never cut short.
 */

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "../../client/pesto_session.h"
#include "../../fwd/pesto_wire.h"
#include "../../util/log.h"

#define FUZZ_PR_OUT_SIZE	(1 << 20)	/* what pesto prints */
#define FUZZ_PR_PATH		"/fuzz/pesto.sock"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *fuzz_pr_in;	/* what the relay sends */
static size_t fuzz_pr_left;
static size_t fuzz_pr_piece;		/* most bytes per read */
static bool fuzz_pr_ragged;		/* reads of varying sizes */
static bool fuzz_pr_reset;		/* ECONNRESET at the end */
static unsigned int fuzz_pr_reads;

static uint8_t fuzz_pr_sent[PESTO_UPDATE_MAX];
static size_t fuzz_pr_sent_len;
static char fuzz_pr_out[FUZZ_PR_OUT_SIZE], fuzz_pr_err[FUZZ_PR_OUT_SIZE];
static struct pesto_update fuzz_pr_update;

/**
 * fuzz_pr_fail() - something that must hold did not: say it, abort
 * @what:	what
 */
static void __attribute__((noreturn)) fuzz_pr_fail(const char *what)
{
	fprintf(stderr, "fuzz_pesto_reply: %s\n", what);
	abort();
}

/**
 * fuzz_pr_read() - the fake relay: the next piece of the input
 * @fd:		unused
 * @buf:	destination
 * @len:	bytes wanted
 *
 * Return: bytes delivered, 0 at the end (or -1, ECONNRESET)
 */
static ssize_t fuzz_pr_read(int fd, void *buf, size_t len)
{
	size_t n = fuzz_pr_piece;

	(void)fd;
	if (!fuzz_pr_left) {
		if (fuzz_pr_reset) {
			errno = ECONNRESET;
			return -1;
		}
		return 0;
	}
	if (fuzz_pr_ragged)
		n = 1 + (fuzz_pr_reads * 2654435761U >> 7) % fuzz_pr_piece;
	fuzz_pr_reads++;
	if (n > len)
		n = len;
	if (n > fuzz_pr_left)
		n = fuzz_pr_left;
	memcpy(buf, fuzz_pr_in, n);
	fuzz_pr_in += n;
	fuzz_pr_left -= n;
	return (ssize_t)n;
}

/**
 * fuzz_pr_write() - keep what pesto sends to the relay
 * @fd:		unused
 * @buf:	bytes
 * @len:	their number
 */
static void fuzz_pr_write(int fd, const void *buf, size_t len)
{
	(void)fd;
	if (len > sizeof(fuzz_pr_sent) - fuzz_pr_sent_len)
		fuzz_pr_fail("pesto sent more than the longest update");
	memcpy(fuzz_pr_sent + fuzz_pr_sent_len, buf, len);
	fuzz_pr_sent_len += len;
}

/**
 * fuzz_pr_text() - close an output stream, check the text pesto printed
 * @f:		stream on @buf
 * @buf:	its buffer
 * @what:	what it is, for the report
 *
 * Return: the text, NUL-terminated
 */
static const char *fuzz_pr_text(FILE *f, char *buf, const char *what)
{
	long len;
	long i;

	fflush(f);
	len = ftell(f);
	fclose(f);
	if (len < 0 || len >= FUZZ_PR_OUT_SIZE)
		fuzz_pr_fail("can't tell what pesto printed");
	buf[len] = '\0';

	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)buf[i];

		if ((ch < 0x20 || ch > 0x7e) && ch != '\n') {
			fprintf(stderr, "fuzz_pesto_reply: byte 0x%02x in %s, "
				"offset %li:\n", ch, what, i);
			fwrite(buf, 1, (size_t)len, stderr);
			abort();
		}
	}
	return buf;
}

/**
 * fuzz_pr_check_sent() - what pesto sent must be a whole update
 */
static void fuzz_pr_check_sent(void)
{
	int ret;

	if (!fuzz_pr_sent_len)
		return;
	pesto_update_init(&fuzz_pr_update, 0xff);
	ret = pesto_update_feed(&fuzz_pr_update, fuzz_pr_sent,
				fuzz_pr_sent_len);
	if (ret == 0)
		fuzz_pr_fail("pesto sent an update cut short");
}

/**
 * fuzz_pr_run() - one session of pesto against the fake relay
 * @io:		the fake relay, output streams
 * @cmd:	command line number (see the top of this file)
 *
 * Return: pesto_session()'s status, -1 if pesto exited (die())
 */
static int fuzz_pr_run(const struct pesto_io *io, unsigned int cmd)
{
	static char *argv[][8] = {
		{ "pesto", FUZZ_PR_PATH, NULL },
		{ "pesto", "-s", "-t", "8080", FUZZ_PR_PATH, NULL },
		{ "pesto", "-A", "-t", "9000-9001", "-U", "53", FUZZ_PR_PATH,
		  NULL },
		{ "pesto", "-D", "-t", "8080", "-C", "SPLICE", FUZZ_PR_PATH,
		  NULL },
	};
	static const int argc[] = { 2, 5, 7, 7 };
	static jmp_buf env;
	volatile int ret = -1;

	if (!setjmp(env)) {
		fuzz_exit_jmp = &env;
		ret = pesto_session(io, FUZZ_PR_PATH, argc[cmd], argv[cmd],
				    cmd != 0, cmd == 1);
		if (ret != 0 && ret != 1)
			fuzz_pr_fail("a status other than 0 or 1");
	}
	fuzz_exit_jmp = NULL;
	return ret;
}

/**
 * LLVMFuzzerTestOneInput() - pesto against one relay
 * @data:	set-up byte, then what the relay sends
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool quiet;
	struct pesto_io io = { .read = fuzz_pr_read, .write = fuzz_pr_write };
	unsigned int cmd;
	int ret;

	if (!quiet) {
		log_init("pesto");
		log_to_stderr(getenv("FUZZ_LOG"));
		quiet = true;
	}
	if (!size)
		return 0;

	fuzz_pr_piece = (size_t)1 << (data[0] & 7);
	fuzz_pr_ragged = data[0] & 8;
	cmd = (data[0] >> 4) & 3;
	fuzz_pr_reset = data[0] & 0x40;
	fuzz_pr_in = data + 1;
	fuzz_pr_left = size - 1;
	fuzz_pr_reads = 0;
	fuzz_pr_sent_len = 0;

	io.out = fmemopen(fuzz_pr_out, sizeof(fuzz_pr_out), "w");
	io.err = fmemopen(fuzz_pr_err, sizeof(fuzz_pr_err), "w");
	if (!io.out || !io.err)
		fuzz_pr_fail("fmemopen() failed");

	ret = fuzz_pr_run(&io, cmd);
	fuzz_pr_text(io.out, fuzz_pr_out, "the tables shown");
	fuzz_pr_text(io.err, fuzz_pr_err, "the refusal shown");
	if (getenv("FUZZ_LOG"))
		fprintf(stderr, "status %i, sent %zu bytes\n%s%s", ret,
			fuzz_pr_sent_len, fuzz_pr_out, fuzz_pr_err);
	if (ret == 1 && !strstr(fuzz_pr_err, "refused"))
		fuzz_pr_fail("status 1 without the refusal shown");
	fuzz_pr_check_sent();
	return 0;
}
