// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_flow.c - UDP flows: their table, kinds and lifecycle
 *
 * Theory of operation
 *
 * This is the ground floor of udp/ (doc/udp.md gives the order of the
 * files): every other file finds, starts, keeps alive and closes UDP
 * flows through it, and it calls nothing of udp/ above it but the flush
 * of a closing flow's run of datagrams (udp_gso.c, below it).
 *
 * The state of a UDP flow (struct udp_flow, udp_internal.h) sits in an
 * array indexed like the flow table (flow/), allocated at start-up and
 * zeroed: UDP_KIND_NONE is zero, so an entry is unused until
 * udp_flow_new() sets it up, and only entries used become resident. A
 * flow's kind (enum udp_kind) says who started it and which sockets carry
 * it: the guest (UDP_KIND_GUEST, its own connected socket), a host peer on
 * a -u port (UDP_KIND_FWD, the listening socket), a peer of a -U port or a
 * loopback peer of pasta's -u (UDP_KIND_SPLICE), or none at all, the entry
 * standing for the -u sockets in the output scheduler (UDP_KIND_PROXY).
 *
 * A flow is closed after UDP_FLOW_TIMEOUT_MS without a datagram in either
 * direction. Traffic only stores the time of the last datagram
 * (udp_flow_touch()); the timer (util/timer.h) stays armed at its old
 * deadline and, when it fires on a flow that saw traffic since, moves
 * itself to the new deadline. Keeping a flow alive thus costs one store
 * per datagram. udp_flow_close() releases everything a flow holds: its
 * pending run of datagrams, its socket and epoll entry, its timer, its
 * place in the output scheduler and in the flow table.
 *
 * The socket helpers every kind of flow and listener uses are here too:
 * the epoll registration (udp_epoll_add()) and the receive buffer
 * (udp_sock_rcvbuf()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "udp_internal.h"
#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* System calls after start-up: receive buffers of UDP sockets, and the
 * epoll entries and sockets of flows
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("SO_RCVBUFFORCE, SO_RCVBUF", SOL_SOCKET),
	 SYSCALLS_CALL("epoll_ctl", "watch a flow's socket, or stop"),
	 SYSCALLS_CALL("close", "the socket of a flow that ended"));

/* Zeroed, never walked at start-up (UDP_KIND_NONE is zero): udp_flow_new()
 * sets an entry up, so only entries used become resident.
 */
static struct udp_flow *udp_flows;	/* indexed like the flow table */
static unsigned int udp_cap;

/**
 * udp_flow_at() - UDP state of a flow
 * @idx:	flow index
 *
 * Return: state, or NULL if @idx is not a live UDP flow
 */
struct udp_flow *udp_flow_at(uint32_t idx)
{
	if (idx >= udp_cap || flow_type_of(idx) != FLOW_TYPE_UDP)
		return NULL;
	if (udp_flows[idx].kind == UDP_KIND_NONE)
		return NULL;
	return &udp_flows[idx];
}

/**
 * udp_flow_touch() - note traffic on a flow, keeping it alive
 * @uf:		flow
 * @now_ms:	current time
 */
void udp_flow_touch(struct udp_flow *uf, uint64_t now_ms)
{
	uf->last_ms = now_ms;
}

/**
 * udp_timer_fn() - idle timer of a flow expired
 * @c:		execution context
 * @t:		timer, embedded in a struct udp_flow
 * @now_ms:	current time
 */
static void udp_timer_fn(const struct ctx *c, struct wheel_timer *t,
			 uint64_t now_ms)
{
	struct udp_flow *uf = (struct udp_flow *)((char *)t -
			      offsetof(struct udp_flow, timer));
	uint32_t idx = (uint32_t)(uf - udp_flows);

	if (uf->kind == UDP_KIND_PROXY)
		return;

	if (now_ms < uf->last_ms + UDP_FLOW_TIMEOUT_MS) {
		timer_arm(&uf->timer, uf->last_ms + UDP_FLOW_TIMEOUT_MS);
		return;
	}

	debug("UDP flow %u: idle for %u s, closing", idx,
	      UDP_FLOW_TIMEOUT_MS / 1000);
	udp_flow_close(c, idx);
}

/**
 * udp_flow_new() - allocate a UDP flow and arm its idle timer
 * @c:		execution context
 * @kind:	enum udp_kind
 * @v4:		IPv4 (else IPv6)
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE if the flow table is full
 */
uint32_t udp_flow_new(const struct ctx *c, enum udp_kind kind, bool v4,
		      uint64_t now_ms)
{
	uint32_t idx = flow_alloc(FLOW_TYPE_UDP);
	struct udp_flow *uf;

	if (idx == FLOW_IDX_NONE && kind != UDP_KIND_PROXY &&
	    flow_evict(c, now_ms))
		idx = flow_alloc(FLOW_TYPE_UDP);

	if (idx == FLOW_IDX_NONE || idx >= udp_cap) {
		if (idx != FLOW_IDX_NONE)
			flow_free(idx);
		udp_stats.drop_no_flow++;
		debug("UDP: flow table full, dropping datagram");
		return FLOW_IDX_NONE;
	}

	uf = &udp_flows[idx];
	memset(&uf->peer, 0, sizeof(uf->peer));
	uf->sock = -1;
	uf->lsn = 0;
	uf->kind = (uint8_t)kind;
	uf->v4 = v4;
	uf->last_ms = now_ms;
	timer_init(&uf->timer, udp_timer_fn);
	if (kind != UDP_KIND_PROXY)
		timer_arm(&uf->timer, now_ms + UDP_FLOW_TIMEOUT_MS);

	return idx;
}

/**
 * udp_flow_close() - close a flow: its socket, timer and table entry
 * @c:		execution context
 * @idx:	flow index
 */
void udp_flow_close(const struct ctx *c, uint32_t idx)
{
	struct udp_flow *uf = udp_flow_at(idx);

	if (!uf)
		return;

	udp_gso_forget(idx);
	if (uf->sock >= 0) {
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, uf->sock, NULL);
		close(uf->sock);
		uf->sock = -1;
	}
	timer_cancel(&uf->timer);
	qdisc_forget(idx);
	uf->kind = UDP_KIND_NONE;
	flow_free(idx);
}

/**
 * udp_epoll_add() - add a UDP socket to the epoll set
 * @c:		execution context
 * @fd:		socket
 * @data:	reference data word: flow index, or UDP_REF_LSN | listener
 * @edge:	edge-triggered (reading is scheduled, and goes on until
 *		the socket is empty)
 *
 * Return: 0 on success, -errno on failure
 */
int udp_epoll_add(const struct ctx *c, int fd, uint32_t data, bool edge)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_UDP };
	struct epoll_event ev = { .events = EPOLLIN };

	ref.fd = (uint32_t)fd;
	ref.data = data;
	ev.data.u64 = ref.u64;
	if (edge)
		ev.events |= EPOLLET;

	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

/**
 * udp_sock_rcvbuf() - give a UDP socket a receive buffer for bursts
 * @s:		socket
 *
 * With CAP_NET_ADMIN over the host's network namespace, the buffer is set
 * past net.core.rmem_max; otherwise the kernel caps it there.
 */
void udp_sock_rcvbuf(int s)
{
	int v = UDP_SOCK_RCVBUF;

	if (!setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
		return;
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		debug_perror("UDP: can't set SO_RCVBUF");
}

/**
 * udp_flow_init() - allocate the UDP state of every flow table entry
 *
 * Return: 0 on success, -ENOMEM (logged)
 */
int udp_flow_init(void)
{
	udp_cap = flow_capacity();
	udp_flows = calloc(udp_cap, sizeof(*udp_flows));
	if (!udp_flows) {
		err("UDP: can't allocate state for %u flows: lower --max-flows",
		    udp_cap);
		udp_cap = 0;
		return -ENOMEM;
	}
	return 0;
}
