/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fwd_listen.h - listening sockets of the forwarding rules, and switching
 * to a new table at run time
 *
 * See fwd/fwd_listen.c for the theory of operation.
 */
#ifndef FWD_FWD_LISTEN_H
#define FWD_FWD_LISTEN_H

#include <stdbool.h>
#include <stddef.h>

struct ctx;
struct fwd_spec;

/**
 * enum fwd_dir - the four forwarding directions
 * @FWD_DIR_TCP_IN:	-t: host TCP ports to the guest
 * @FWD_DIR_UDP_IN:	-u: host UDP ports to the guest
 * @FWD_DIR_TCP_OUT:	-T (pasta): namespace TCP ports to the host
 * @FWD_DIR_UDP_OUT:	-U (pasta): namespace UDP ports to the host
 * @FWD_DIRS:		number of directions
 */
enum fwd_dir {
	FWD_DIR_TCP_IN = 0,
	FWD_DIR_UDP_IN,
	FWD_DIR_TCP_OUT,
	FWD_DIR_UDP_OUT,
	FWD_DIRS,
};

struct fwd_spec *fwd_dir_spec(struct ctx *c, enum fwd_dir d);
bool fwd_dir_udp(enum fwd_dir d);
bool fwd_dir_out(enum fwd_dir d);
const char *fwd_dir_opt(enum fwd_dir d);
bool fwd_dir_on(const struct ctx *c, enum fwd_dir d);
int fwd_listen_init(struct ctx *c);
int fwd_listen_switch(struct ctx *c, struct fwd_spec *const next[FWD_DIRS],
		      char *errbuf, size_t errlen);

#endif /* FWD_FWD_LISTEN_H */
