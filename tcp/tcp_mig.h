/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_mig.h - shared by the files of TCP's migration section
 *
 * tcp_migrate.c registers the section, keeps what a connection's
 * migration needs (struct tcp_mig, by flow index) and reads states
 * (target); tcp_mig_save.c writes them (source). See tcp_migrate.c for
 * the theory of operation. Nothing outside tcp/tcp_mig*.c includes this.
 */

#ifndef TCP_TCP_MIG_H
#define TCP_TCP_MIG_H

#include <stdbool.h>
#include <stdint.h>

#include "tcp_internal.h"
#include "tcp_repair.h"
#include "../util/inany.h"

struct ctx;
struct mig_out;

/**
 * struct tcp_mig - what a connection's migration needs, besides tcp_conn
 * @st:		kernel state of the socket
 * @local:	the socket's local address and port
 * @peer:	its peer's
 * @pend_off:	target: offset in the pending area of send queue bytes the
 *		socket could not take yet
 * @pend_len:	their number
 * @dump_off:	source: offset of its queues in the dump area, send queue
 *		first, then the receive queue
 * @dump_cap:	source: room for each queue there
 * @saved:	source: dumped, to be written
 */
struct tcp_mig {
	struct tcp_repair_state st;
	union sockaddr_inany local;
	union sockaddr_inany peer;
	uint64_t pend_off;
	uint32_t pend_len;
	uint64_t dump_off;
	uint32_t dump_cap;
	bool saved;
};

extern struct tcp_mig *tcp_migs;
extern unsigned int tcp_mig_cap;

/* tcp_migrate.c */
struct tcp_conn *tcp_mig_each(unsigned int *i, uint32_t flags);
int tcp_mig_freeze_one(int s);

/* tcp_mig_save.c */
int tcp_mig_save_init(unsigned int cap);
int tcp_mig_save(const struct ctx *c, struct mig_out *o);
void tcp_mig_resume(const struct ctx *c);
void tcp_mig_finish(const struct ctx *c);

#endif /* TCP_TCP_MIG_H */
