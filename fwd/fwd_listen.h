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

#include <stdint.h>

struct ctx;
struct fwd_rule;
struct fwd_spec;

/**
 * enum fwd_proto - protocols whose ports are forwarded
 * @FWD_TCP:		TCP
 * @FWD_UDP:		UDP
 * @FWD_PROTOS:		number of protocols
 */
enum fwd_proto {
	FWD_TCP = 0,
	FWD_UDP,
	FWD_PROTOS,
};

/**
 * struct fwd_sock_ops - how a protocol opens and closes its sockets for a
 *			 forwarded port: tcp/ and udp/ register them
 * @rule_open:	open the sockets of a port of a rule, in the namespace if
 *		@in_ns (-T, -U), with IP_FREEBIND if @freebind (host side
 *		only); set up to two handles (-1: none); return 0 or a
 *		negative errno
 * @auto_open:	the same for a port found by "auto" forwarding
 * @close:	close what a handle refers to
 *
 * A handle is what the protocol gives back for one socket: a descriptor
 * for TCP, a slot of its socket table for UDP.
 */
struct fwd_sock_ops {
	int (*rule_open)(const struct ctx *c, const struct fwd_rule *r,
			 uint16_t port, bool in_ns, bool freebind, int h[2]);
	int (*auto_open)(const struct ctx *c, uint16_t port, bool in_ns,
			 int h[2]);
	void (*close)(const struct ctx *c, int h);
};

void fwd_sock_register(enum fwd_proto p, const struct fwd_sock_ops *ops);
const struct fwd_sock_ops *fwd_sock_ops(enum fwd_proto p);

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

const struct fwd_spec *fwd_dir_spec(enum fwd_dir d);
bool fwd_dir_udp(enum fwd_dir d);
bool fwd_dir_out(enum fwd_dir d);
const char *fwd_dir_opt(enum fwd_dir d);
bool fwd_dir_on(const struct ctx *c, enum fwd_dir d);
int fwd_listen_init(const struct ctx *c);
int fwd_listen_switch(const struct ctx *c,
		      struct fwd_spec *const next[FWD_DIRS], char *errbuf,
		      size_t errlen);

#endif /* FWD_FWD_LISTEN_H */
