/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - the relay harness shared by the libFuzzer targets
 *
 * Theory of operation: fuzz_common.c starts one real relay in the fuzzer's
 * process (passt mode, fixed addresses, the guest on one end of a stream
 * socket pair, or listening on a socket path with the stream backend or
 * --vhost-user) and keeps it for the
 * whole run, like a long-running relay.
 * A target hands frames to fuzz_frame_in(), which feeds them to the same
 * input path as the stream backend and then runs what one main loop
 * iteration runs. Frames the relay sends to the guest are read back and
 * shown to the target's output hook, if any.
 */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

/**
 * typedef fuzz_out_fn - sees one frame the relay sent to the guest
 * @frame:	the frame, from its Ethernet header
 * @len:	its length
 */
typedef void (*fuzz_out_fn)(const uint8_t *frame, size_t len);

extern struct ctx fuzz_ctx;
extern jmp_buf *fuzz_exit_jmp;
extern bool fuzz_verbose;

void fuzz_init(void);
const char *fuzz_init_vhost_user(void);
const char *fuzz_init_stream(void);
void fuzz_guest_set(int fd);
bool fuzz_guest_hung_up(void);
void fuzz_frame_in(const uint8_t *frame, size_t len);
void fuzz_pump(unsigned int rounds);
void fuzz_advance(uint64_t ms);
void fuzz_tick(void);
void fuzz_set_out(fuzz_out_fn fn);
uint16_t fuzz_connect(bool v6, uint16_t port);

#endif /* TESTS_FUZZ_FUZZ_H */
