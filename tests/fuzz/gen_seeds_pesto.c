// SPDX-License-Identifier: GPL-2.0-or-later
/* gen_seeds_pesto.c - the written seeds of fuzz_pesto_reply
 *
 * Theory of operation
 *
 * Most seeds of fuzz_pesto_reply are recorded (doc/fuzzing.md says how).
 * gen_pesto_reply() writes the ones at the limits, which no recording
 * had: a refusal whose message is as long as a reply's can be
 * (PESTO_REPLY_MSG_MAX, 1024 bytes), a table with as many rules as
 * pesto takes (PESTO_PIF_RULES_MAX, 512), and a derived configuration as
 * long as it can be (PESTO_VIEW_MAX, 4096 bytes), announced by the
 * tables' capability bit 31, lines with control characters in them.
 * Without them the fuzzer, whose
 * input length grows from the longest seed, would not reach those
 * lengths. The layout is doc/pesto.md's, written out here.
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_build.h"
#include "gen_seeds.h"

#define GEN_NAME_SIZE		128	/* table name field */
#define GEN_RULE_LEN		56
#define GEN_RULES_MAX		512
#define GEN_MSG_MAX		1024
#define GEN_VIEW_MAX		4096
#define GEN_CAP_VIEW		(1U << 31)

static uint8_t gen_pr[1 + 20 + 1 + 136 + GEN_RULES_MAX * GEN_RULE_LEN + 1 +
		      16 + GEN_MSG_MAX];

/**
 * gen_pr_hello() - set-up byte and the relay's greeting
 * @p:		output
 * @setup:	fuzz_pesto_reply's set-up byte
 *
 * Return: bytes written
 */
static size_t gen_pr_hello(uint8_t *p, uint8_t setup)
{
	p[0] = setup;
	memcpy(p + 1, "basil:s", 8);
	fz_put32(p + 9, 2);			/* version */
	fz_put32(p + 13, GEN_NAME_SIZE);
	fz_put32(p + 17, 16);			/* interface name size */
	return 21;
}

/**
 * gen_pr_table_caps() - a table's header with chosen capabilities
 * @p:		output
 * @pif:	1 HOST, 3 SPLICE
 * @name:	its name
 * @count:	rules that follow
 * @caps:	capabilities
 *
 * Return: bytes written
 */
static size_t gen_pr_table_caps(uint8_t *p, uint8_t pif, const char *name,
				uint32_t count, uint32_t caps)
{
	p[0] = pif;
	memset(p + 1, 0, GEN_NAME_SIZE);
	snprintf((char *)p + 1, GEN_NAME_SIZE, "%s", name);
	fz_put32(p + 1 + GEN_NAME_SIZE, caps);
	fz_put32(p + 5 + GEN_NAME_SIZE, count);
	return 9 + GEN_NAME_SIZE;
}

/**
 * gen_pr_table() - a table's header: pif, name, capabilities, rule count
 * @p:		output
 * @pif:	1 HOST, 3 SPLICE
 * @name:	its name
 * @count:	rules that follow
 *
 * Return: bytes written
 */
static size_t gen_pr_table(uint8_t *p, uint8_t pif, const char *name,
			   uint32_t count)
{
	return gen_pr_table_caps(p, pif, name, count, 0xf);
}

/**
 * gen_pr_rule() - a TCP rule for one port, any address of both families
 * @p:		output
 * @port:	the port
 *
 * Return: bytes written
 */
static size_t gen_pr_rule(uint8_t *p, uint16_t port)
{
	memset(p, 0, GEN_RULE_LEN);
	fz_put16(p + 48, port);
	fz_put16(p + 50, port);
	fz_put16(p + 52, port);
	p[54] = 6;
	p[55] = 1;
	return GEN_RULE_LEN;
}

/**
 * gen_pesto_view() - the longest derived configuration, after its tables
 */
static void gen_pesto_view(void)
{
	size_t n, i;

	/* Shown: one table announcing the block, then the block */
	n = gen_pr_hello(gen_pr, 0x07);
	n += gen_pr_table_caps(gen_pr + n, 1, "HOST", 1, 0xf | GEN_CAP_VIEW);
	n += gen_pr_rule(gen_pr + n, 8080);
	gen_pr[n++] = 0;
	memcpy(gen_pr + n, "basil:h", 8);
	fz_put32(gen_pr + n + 8, GEN_VIEW_MAX);
	n += 12;
	for (i = 0; i < GEN_VIEW_MAX; i++) {
		uint8_t ch = (uint8_t)('a' + i % 26);

		if (i % 64 == 63)
			ch = '\n';
		else if (i % 97 == 0)
			ch = 0x1b;		/* escape */
		gen_pr[n++] = ch;
	}
	gen_write("fuzz_pesto_reply", "view_longest", gen_pr, n);
}

/**
 * gen_pesto_reply() - the written seeds of fuzz_pesto_reply
 */
void gen_pesto_reply(void)
{
	size_t n, i;

	/* -s -t 8080 on a passt with one rule, refused at length */
	n = gen_pr_hello(gen_pr, 0x17);
	n += gen_pr_table(gen_pr + n, 1, "HOST", 1);
	n += gen_pr_rule(gen_pr + n, 8080);
	gen_pr[n++] = 0;
	memcpy(gen_pr + n, "basil:r", 8);
	fz_put32(gen_pr + n + 8, 98);		/* EADDRINUSE */
	fz_put32(gen_pr + n + 12, GEN_MSG_MAX);
	n += 16;
	for (i = 0; i < GEN_MSG_MAX; i++)
		gen_pr[n++] = (uint8_t)('a' + i % 26);
	gen_write("fuzz_pesto_reply", "refused_longest", gen_pr, n);

	/* Shown: a table as full as it gets */
	n = gen_pr_hello(gen_pr, 0x07);
	n += gen_pr_table(gen_pr + n, 1, "HOST", GEN_RULES_MAX);
	for (i = 0; i < GEN_RULES_MAX; i++)
		n += gen_pr_rule(gen_pr + n, (uint16_t)(10000 + i));
	gen_pr[n++] = 0;
	gen_write("fuzz_pesto_reply", "full_table", gen_pr, n);

	gen_pesto_view();
}
