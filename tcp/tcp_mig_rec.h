/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_mig_rec.h - a TCP connection's record in the migration state
 *
 * See tcp_mig_rec.c for the theory of operation.
 */

#ifndef TCP_TCP_MIG_REC_H
#define TCP_TCP_MIG_REC_H

#include <stdint.h>

#include "tcp_internal.h"
#include "tcp_repair.h"
#include "../flow/flow.h"
#include "../migrate/mig_io.h"
#include "../util/inany.h"

/* MIG_REC_TCP_CONN: length of the record (doc/migration.md) */
#define TCP_MIG_CONN_LEN	184

/* Flags of a connection in the record (not the TCP_F_* bits) */
#define TCP_MIG_F_GUEST_FIN	(1U << 0)
#define TCP_MIG_F_SOCK_EOF	(1U << 1)
#define TCP_MIG_F_FIN_SENT	(1U << 2)
#define TCP_MIG_F_FIN_ACKED	(1U << 3)
#define TCP_MIG_F_INBOUND	(1U << 4)
#define TCP_MIG_F_SACK		(1U << 5)
#define TCP_MIG_F_RCVBUF_RAISED	(1U << 6)
#define TCP_MIG_F_ALL		((1U << 7) - 1)

/**
 * struct tcp_mig_rec - a MIG_REC_TCP_CONN record, decoded
 * @af:		4 or 6
 * @flags:	TCP_MIG_F_*
 * @key:	the flow as the guest sees it
 * @local:	the socket's local address
 * @local_port:	its port
 * @peer:	the peer's address
 * @peer_port:	its port
 * @c:		our state toward the guest (fields as in struct tcp_conn)
 * @st:		kernel state
 */
struct tcp_mig_rec {
	uint8_t af;
	uint16_t flags;
	struct flow_key key;
	union inany_addr local;
	uint16_t local_port;
	union inany_addr peer;
	uint16_t peer_port;
	struct tcp_conn c;
	struct tcp_repair_state st;
};

void tcp_mig_rec_put(struct mig_out *o, const struct tcp_conn *conn,
		     const struct tcp_repair_state *st,
		     const union sockaddr_inany *local,
		     const union sockaddr_inany *peer);
void tcp_mig_rec_get(struct mig_buf *b, struct tcp_mig_rec *r);
const char *tcp_mig_rec_check(const struct tcp_mig_rec *r);
void tcp_mig_rec_to_conn(const struct tcp_mig_rec *r, struct tcp_conn *conn);

#endif /* TCP_TCP_MIG_REC_H */
