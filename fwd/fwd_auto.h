/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_auto.h - pasta "auto" forwarding: follow ports listening on the
 * other side
 *
 * See fwd/fwd_auto.c for the theory of operation.
 */
#ifndef FWD_FWD_AUTO_H
#define FWD_FWD_AUTO_H

#include <stdbool.h>
#include <stdint.h>

struct ctx;
struct fwd_spec;

/* Period of the scan of listening sockets, milliseconds */
#define FWD_AUTO_SCAN_MS	500

int fwd_auto_init(const struct ctx *c);
void fwd_auto_scan(const struct ctx *c);
void fwd_auto_release(const struct ctx *c, bool udp, bool in_ns);
void fwd_auto_stop(const struct ctx *c, bool udp, bool in_ns);
void fwd_auto_excl_update(void);
bool fwd_auto_ready(bool udp, bool in_ns);
int fwd_auto_start(bool udp, bool in_ns);
void fwd_auto_release_changed(const struct ctx *c, bool udp, bool in_ns,
			      const struct fwd_spec *next);
void fwd_auto_commit(bool udp, bool in_ns);

#endif /* FWD_FWD_AUTO_H */
