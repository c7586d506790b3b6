/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_vu.h - a vhost-user front-end for the fuzz targets (fuzz_vu.c)
 *
 * Theory of operation: the vhost-user targets start the relay with
 * --vhost-user (fuzz_init_vhost_user()) and play a new front-end for every
 * input: fuzz_vu_connect() connects and lets the relay accept, the target
 * sends whatever it likes (tests/tools/lib/vu_client.h for the protocol),
 * and fuzz_vu_end() hangs up and runs the relay until it has closed its
 * side. Every input must leave the process with the descriptors it had
 * before: a front-end that goes away takes everything it gave with it.
 */
#ifndef TESTS_FUZZ_FUZZ_VU_H
#define TESTS_FUZZ_FUZZ_VU_H

#include <stddef.h>
#include <stdint.h>

/* The guest memory the targets share, a sparse memfd */
#define FUZZ_VU_MEM_SIZE	(64ULL << 20)

int fuzz_vu_connect(void);
void fuzz_vu_drain(int fd);
void fuzz_vu_end(int fd);
int fuzz_vu_memfd(void);
uint8_t *fuzz_vu_mem(void);
int fuzz_vu_eventfd(void);

#endif /* TESTS_FUZZ_FUZZ_VU_H */
