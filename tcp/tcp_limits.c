// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_limits.c - TCP under resource exhaustion: half-open eviction, fds
 *
 * Theory of operation
 *
 * A guest can ask for connections faster than they complete: a SYN flood
 * from spoofed addresses leaves connections the relay has answered with a
 * SYN-ACK that no one will acknowledge, each holding a flow table entry
 * and a host socket for the whole handshake timeout (about two minutes of
 * SYN-ACK retransmissions). So every connection the guest starts is
 * remembered, in order, in a ring of (flow, sequence) pairs sized like
 * the flow table. When the table is full, or socket() fails for lack of
 * file descriptors, tcp_halfopen_evict() resets the oldest connection
 * that is still half-open (host connect() in progress, or SYN-ACK sent
 * and not acknowledged), and the new connection takes its place. Ring
 * entries are not removed when a handshake completes or fails: an entry
 * is stale unless its flow is still half-open and carries the entry's
 * sequence number, and stale entries are skipped. When the ring is full
 * the oldest entry is overwritten (that connection then simply times out).
 * With no half-open connection to reset, tcp_make_room() asks the flow
 * table for an idle UDP or ICMP echo flow to close (flow/flow_evict.c):
 * a guest that filled the table with datagram flows, or pings, does not
 * keep TCP out once those are idle. Established connections are never
 * evicted: with the table full of them, new connections are refused with
 * a RST.
 *
 * When accept() on a forwarded port fails with EMFILE or ENFILE, the
 * pending connection would keep the listening socket readable and the
 * event loop spinning. A reserve descriptor, opened at start-up, is
 * closed to accept that connection and reset it at once, then opened
 * again.
 *
 * Running out of flow table entries or file descriptors is logged as a
 * warning at most once every TCP_LIMIT_WARN_MS per cause, with the number
 * of refusals since the last message and what the user can change.
 *
 * System calls used after start-up: listed with SYSCALLS() below (socket
 * for the reserve descriptor, accept4 and setsockopt for SO_LINGER, and
 * getrlimit, which glibc makes with prlimit64).
 */

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "../flow/flow.h"
#include "../util/syscalls.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"

/* System calls after start-up: the reserve descriptor, resets, the open
 * files limit in a warning
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SOCKET("the reserve descriptor, back", AF_INET,
			 SOCK_DGRAM, 0),
	 SYSCALLS_CALL("close", "the reserve, for one accept4(); resets"),
	 SYSCALLS_CALL("accept4", "the connection to refuse"),
	 SYSCALLS_SETSOCKOPT("SO_LINGER: refuse it with a reset", SOL_SOCKET),
	 SYSCALLS_CALL_IF("prlimit64", "read our own open files limit",
			  SYSCALLS_ARG_EQ(0, 0),
			  SYSCALLS_ARG_EQ(1, RLIMIT_NOFILE),
			  SYSCALLS_ARG_EQ(2, 0)));

/* At most one warning per cause in this interval */
#define TCP_LIMIT_WARN_MS	10000

/**
 * struct tcp_ho_entry - a connection the guest started, in start order
 * @flow:	flow index
 * @seq:	sequence number given to the connection when it started
 */
struct tcp_ho_entry {
	uint32_t flow;
	uint32_t seq;
};

static struct tcp_ho_entry *tcp_ho_ring;
static unsigned int tcp_ho_cap;
static unsigned int tcp_ho_head;
static unsigned int tcp_ho_len;
static uint32_t tcp_ho_seq;

static int tcp_reserve_fd = -1;

/**
 * struct tcp_limit_warn_state - rate limit of one warning
 * @last_ms:	when it was last logged, 0 if never
 * @count:	refusals since then
 */
struct tcp_limit_warn_state {
	uint64_t last_ms;
	uint64_t count;
};

static struct tcp_limit_warn_state tcp_limit_warns[TCP_LIMIT_MAX];

/**
 * tcp_reserve_open() - open the reserve descriptor if it is not open
 */
static void tcp_reserve_open(void)
{
	if (tcp_reserve_fd < 0)
		tcp_reserve_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/**
 * tcp_limits_init() - allocate the half-open ring, open the reserve fd
 * @c:		execution context
 *
 * Return: 0 on success, -ENOMEM on failure
 */
int tcp_limits_init(const struct ctx *c)
{
	tcp_ho_cap = c->flow_max;
	tcp_ho_ring = calloc(tcp_ho_cap, sizeof(*tcp_ho_ring));
	if (!tcp_ho_ring)
		return -ENOMEM;
	tcp_ho_head = tcp_ho_len = 0;
	tcp_reserve_open();
	return 0;
}

/**
 * tcp_halfopen_add() - remember a connection the guest just started
 * @conn:	connection, in CONN_CONNECTING state
 */
void tcp_halfopen_add(struct tcp_conn *conn)
{
	struct tcp_ho_entry *e;

	if (!tcp_ho_cap)
		return;

	if (!++tcp_ho_seq)
		tcp_ho_seq = 1;		/* 0: never in the ring */
	conn->ho_seq = tcp_ho_seq;

	if (tcp_ho_len == tcp_ho_cap) {
		tcp_ho_head = (tcp_ho_head + 1) % tcp_ho_cap;
		tcp_ho_len--;
	}
	e = &tcp_ho_ring[(tcp_ho_head + tcp_ho_len) % tcp_ho_cap];
	e->flow = conn->flow;
	e->seq = conn->ho_seq;
	tcp_ho_len++;
}

/**
 * tcp_halfopen_evict() - reset the oldest connection still in its handshake
 * @c:		execution context
 *
 * Return: true if a connection was reset (a flow entry and a descriptor
 *	   are free now), false if there was none
 */
bool tcp_halfopen_evict(const struct ctx *c)
{
	while (tcp_ho_len) {
		struct tcp_ho_entry e = tcp_ho_ring[tcp_ho_head];
		struct tcp_conn *conn;

		tcp_ho_head = (tcp_ho_head + 1) % tcp_ho_cap;
		tcp_ho_len--;

		conn = tcp_conn_at(e.flow);
		if (!conn || conn->ho_seq != e.seq ||
		    (conn->state != CONN_CONNECTING &&
		     conn->state != CONN_SYN_ACK_SENT))
			continue;

		debug("TCP flow %u: evicted in its handshake to make room",
		      conn->flow);
		tcp_stats.evicted++;
		tcp_send_ctrl(c, conn, TH_RST | TH_ACK);
		tcp_conn_close(c, conn, true);
		return true;
	}
	return false;
}

/**
 * tcp_make_room() - free a flow entry and a descriptor for a connection
 * @c:		execution context
 * @now_ms:	current time
 *
 * Return: true if a half-open connection was reset or an idle UDP or
 *	   ICMP echo flow closed, false if there was nothing to take
 */
bool tcp_make_room(const struct ctx *c, uint64_t now_ms)
{
	return tcp_halfopen_evict(c) || flow_evict(c, now_ms);
}

/**
 * tcp_limit_warn() - count a refusal, warn at most every TCP_LIMIT_WARN_MS
 * @c:		execution context
 * @why:	enum tcp_limit, the resource that ran out
 * @now_ms:	current time
 */
void tcp_limit_warn(const struct ctx *c, enum tcp_limit why, uint64_t now_ms)
{
	struct tcp_limit_warn_state *w = &tcp_limit_warns[why];
	struct rlimit rl;

	w->count++;
	if (w->last_ms && now_ms < w->last_ms + TCP_LIMIT_WARN_MS)
		return;

	if (why == TCP_LIMIT_FLOWS) {
		warn("TCP: flow table full (%u entries), refusing new "
		     "connections (%llu since the last such warning): "
		     "raise --max-flows", c->flow_max,
		     (unsigned long long)w->count);
	} else {
		/* prlimit(), not getrlimit(): one call whatever the libc */
		if (prlimit(0, RLIMIT_NOFILE, NULL, &rl))
			rl.rlim_cur = 0;
		warn("TCP: out of file descriptors (open files limit %llu),"
		     " refusing new connections (%llu since the last such"
		     " warning): raise the limit (ulimit -n, prlimit"
		     " --nofile, LimitNOFILE=) or lower --max-flows",
		     (unsigned long long)rl.rlim_cur,
		     (unsigned long long)w->count);
	}
	w->last_ms = now_ms ? now_ms : 1;
	w->count = 0;
}

/**
 * tcp_sock_reset() - close a host socket with a RST to its peer
 * @s:		socket
 */
void tcp_sock_reset(int s)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(s);
}

/**
 * tcp_accept_refuse() - accept() failed for lack of descriptors: reset
 *			 one pending connection with the reserve descriptor
 * @lfd:	listening socket
 *
 * Return: true if a pending connection was reset
 */
bool tcp_accept_refuse(int lfd)
{
	int s;

	if (tcp_reserve_fd < 0)
		return false;

	close(tcp_reserve_fd);
	tcp_reserve_fd = -1;
	s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (s >= 0)
		tcp_sock_reset(s);
	tcp_reserve_open();
	return s >= 0;
}
