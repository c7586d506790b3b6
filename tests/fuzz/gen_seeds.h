/* SPDX-License-Identifier: GPL-2.0-or-later */
/* gen_seeds.h - what the two files of gen_seeds share
 *
 * Theory of operation: gen_seeds.c writes the seeds of the frame, TCP,
 * UDP/ICMP, DHCP, NDP and option targets and calls gen_vu()
 * (gen_seeds_vu.c) for the vhost-user ones, gen_stream()
 * (gen_seeds_stream.c) for the stream socket's, gen_pesto_reply()
 * (gen_seeds_pesto.c) for pesto's limits; all write through
 * gen_write().
 */
#ifndef TESTS_FUZZ_GEN_SEEDS_H
#define TESTS_FUZZ_GEN_SEEDS_H

#include <stddef.h>

void gen_write(const char *target, const char *name, const void *data,
	       size_t len);
void gen_vu(void);
void gen_stream(void);
void gen_pesto_reply(void);

#endif /* TESTS_FUZZ_GEN_SEEDS_H */
