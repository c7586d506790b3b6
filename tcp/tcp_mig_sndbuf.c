// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_mig_sndbuf.c - while a migration is under way, keep what each host
 * socket has in flight within what a target can restore
 *
 * Theory of operation
 *
 * A target rebuilds a connection's send queue in repair mode, and counts
 * it as sent up to where the source's kernel had sent it (tcp_repair.c).
 * All of that must fit the new socket: the peer may have received it
 * all, and an acknowledgement beyond what the new socket has sent is
 * dropped by its kernel (RFC 9293, 3.10.7.4), data and all, so the
 * connection would hang. An unprivileged process can't give a socket a
 * send buffer above twice net.core.wmem_max, while one sized by the
 * kernel grows to net.ipv4.tcp_wmem's maximum, 4 MiB by default.
 *
 * So while the front-end logs our writes to guest memory (QEMU does from
 * the start of a migration, before the guest stops: vu_migrate.c), every
 * connection's send buffer is capped a little below what a target can
 * have (TCP_MIG_SNDBUF_MARGIN, for the per-segment overhead the kernel
 * counts), new connections' too: the guest's writes wait for room as
 * usual, and what is in flight drains to the cap while the guest's memory
 * is copied. When the log stops without a migration, or the guest goes
 * on here after a failed one, the kernel sizes the buffers again (or
 * --tcp-wmem does).
 */

#include <limits.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_repair.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/sockbuf.h"

/* Share of the largest send buffer a socket can have left for overhead:
 * 1/8 below it
 */
#define TCP_MIG_SNDBUF_MARGIN	8

static bool tcp_mig_capping;	/* a migration is under way */
static int tcp_mig_sndbuf_cap;	/* SO_SNDBUF value while it is, 0: unknown */

/**
 * tcp_mig_sndbuf_limit() - the SO_SNDBUF value of the cap, found once
 * @s:		a host TCP socket, to ask the kernel
 *
 * The kernel takes the largest value it allows for a request above it,
 * and doubles it: that is what a target's socket can have at most.
 *
 * Return: the value to set, 0 if the kernel doesn't tell
 */
static int tcp_mig_sndbuf_limit(int s)
{
	int big = INT_MAX / 2, max;
	socklen_t sl = sizeof(max);

	if (tcp_mig_sndbuf_cap)
		return tcp_mig_sndbuf_cap;
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big)) ||
	    getsockopt(s, SOL_SOCKET, SO_SNDBUF, &max, &sl) || max <= 0)
		return 0;
	tcp_mig_sndbuf_cap = max / 2 - max / 2 / TCP_MIG_SNDBUF_MARGIN;
	info("Migration: send buffers capped at %i bytes while it lasts "
	     "(what a target's socket can take, net.core.wmem_max)",
	     tcp_mig_sndbuf_cap * 2);
	return tcp_mig_sndbuf_cap;
}

/**
 * tcp_mig_sndbuf_sock() - cap a host socket's send buffer, if a migration
 *			   is under way
 * @s:		socket
 */
void tcp_mig_sndbuf_sock(int s)
{
	int v;

	if (!tcp_mig_capping || !(v = tcp_mig_sndbuf_limit(s)))
		return;
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)))
		debug_perror("Migration: can't cap a send buffer");
}

/**
 * tcp_mig_sndbuf_free() - size a host socket's send buffer as before
 * @c:		execution context
 * @s:		socket
 */
static void tcp_mig_sndbuf_free(const struct ctx *c, int s)
{
	static bool reported;

	if (c->tcp_wmem)
		sockbuf_set(s, SO_SNDBUF, c->tcp_wmem, "--tcp-wmem", &reported);
	else if (tcp_repair_sndbuf_auto(s))
		debug_perror("Migration: can't size a send buffer again");
}

/**
 * tcp_mig_sndbuf_set() - a migration begins, or it is over here
 * @c:		execution context
 * @on:		cap every connection's send buffer, else size them as before
 *
 * Connections moved away or restored from a migration are left alone: the
 * former are parked, the latter sized by tcp_repair_done().
 */
void tcp_mig_sndbuf_set(const struct ctx *c, bool on)
{
	unsigned int i, n = tcp_conns_capacity();

	if (tcp_mig_capping == on)
		return;
	tcp_mig_capping = on;
	for (i = 0; i < n; i++) {
		struct tcp_conn *conn = tcp_conn_at(i);

		if (!conn || conn->sock < 0 ||
		    (conn->flags & (TCP_F_MIGRATED | TCP_F_RESTORING)))
			continue;
		if (on)
			tcp_mig_sndbuf_sock(conn->sock);
		else
			tcp_mig_sndbuf_free(c, conn->sock);
	}
}
