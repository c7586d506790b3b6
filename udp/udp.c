// SPDX-License-Identifier: GPL-2.0-or-later
/* udp.c - guest UDP datagrams <-> host UDP sockets: flows and events
 *
 * Theory of operation
 *
 * UDP has no connections, but a conversation between one guest address and
 * port and one remote address and port is a flow all the same (found
 * through the flow table by the addresses and ports as the guest sees
 * them), and each flow the guest starts owns one host UDP socket:
 *
 * - guest to host: the first datagram of a new (guest address, guest port,
 *   remote address, remote port) creates a socket bound to the guest's
 *   source port when that port is free on the host (an ephemeral port
 *   otherwise) and connect()ed to the destination as flow/nat.c maps it
 *   (gateway to loopback, --map-guest-addr, --dns-forward). Datagrams of
 *   the flow from one batch of guest frames leave together, in one
 *   sendmsg() with UDP segmentation (udp_gso.c).
 *
 * - host to guest: replies arrive on the connected socket, whose epoll
 *   reference carries the flow index, so no lookup is needed. The socket
 *   is edge-triggered: an event puts the flow on the output scheduler's
 *   ready list, and when its turn comes the datagrams are read with
 *   recvmmsg() straight into frame buffers of the output queue, behind
 *   room for the headers (udp_emit.c). Replies carry the flow's addresses
 *   as the guest knows them, so a --dns-forward answer comes from the
 *   --dns-forward address.
 *
 * - ICMP errors: flow sockets have IP_RECVERR/IPV6_RECVERR set; the error
 *   queue is read on EPOLLERR and unreachable errors are reflected to the
 *   guest as ICMP messages quoting its own datagram (udp_err.c), so that a
 *   connected socket in the guest sees ECONNREFUSED.
 *
 * - forwarded ports: -u and -U listening sockets are in udp_fwd.c, and the
 *   -U loopback path, which never touches the guest interface, in
 *   udp_splice.c.
 *
 * A flow is closed after UDP_FLOW_TIMEOUT_MS without a datagram in either
 * direction, or earlier if a new flow needs its place and it has been idle
 * for a second (flow/flow_evict.c, udp_evict.c). Traffic only stores the
 * time of the last datagram; the timer (util/timer.h) stays armed at its
 * old deadline and, when it fires on a flow that saw traffic since, moves
 * itself to the new deadline. Keeping a flow alive thus costs one store
 * per datagram.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp.h"
#include "udp_internal.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../net/net.h"
#include "../net/sock.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: flow sockets for guest datagrams (opened,
 * bound and connected by net/sock.c)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("SO_RCVBUFFORCE, SO_RCVBUF", SOL_SOCKET),
	 SYSCALLS_CALL("epoll_ctl", "watch a flow's socket, or stop"),
	 SYSCALLS_CALL("close", "the socket of a flow that ended"));

struct udp_counters udp_stats;

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
 * udp_stats_log() - log the module's counters (SIGUSR1, --stats)
 */
void udp_stats_log(void)
{
	const struct udp_counters *u = &udp_stats;

	info("udp: flows_out=%llu flows_in=%llu flows_splice=%llu "
	     "to_guest=%llu from_guest=%llu drop_mtu=%llu drop_send=%llu "
	     "gso_runs=%llu gso_refused=%llu "
	     "drop_no_flow=%llu drop_splice=%llu icmp_errors=%llu "
	     "evicted=%llu",
	     (unsigned long long)u->flows_out, (unsigned long long)u->flows_in,
	     (unsigned long long)u->flows_splice,
	     (unsigned long long)u->to_guest,
	     (unsigned long long)u->from_guest,
	     (unsigned long long)u->drop_mtu,
	     (unsigned long long)u->drop_send,
	     (unsigned long long)u->gso_runs,
	     (unsigned long long)u->gso_refused,
	     (unsigned long long)u->drop_no_flow,
	     (unsigned long long)u->drop_splice,
	     (unsigned long long)u->icmp_errors,
	     (unsigned long long)u->evicted);
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
 * udp_sock_out() - open the host socket of a flow the guest starts
 * @c:		execution context
 * @key:	flow as the guest sees it
 * @dst:	host-side destination (mapped by nat_outbound())
 *
 * Return: connected socket, or -errno
 */
static int udp_sock_out(const struct ctx *c, const struct flow_key *key,
			const union inany_addr *dst)
{
	bool v4 = inany_v4(dst) != NULL;
	const char *ifname = v4 ? c->ip4.outbound_if : c->ip6.outbound_if;
	union inany_addr src;
	int s;

	/* SO_REUSEADDR: flows of the same guest port to different remotes
	 * share the port, connected sockets match their own peer first
	 */
	s = sock_open(SOCK_DGRAM, IPPROTO_UDP, v4, ifname, false);
	if (s < 0)
		return s;
	if (udp_sock_recverr(s, v4))
		debug_perror("UDP: can't enable ICMP error reports");
	udp_sock_rcvbuf(s);

	nat_outbound_src(c, dst, &src);
	return sock_bind_connect(s, &src, key->guest_port, dst,
				 key->remote_port, nat_host_scope(c, dst));
}

/**
 * udp_flow_out() - start a flow for a new datagram from the guest
 * @c:		execution context
 * @key:	flow as the guest sees it
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE on failure (logged, counted)
 */
static uint32_t udp_flow_out(const struct ctx *c, const struct flow_key *key,
			     uint64_t now_ms)
{
	union inany_addr dst;
	struct udp_flow *uf;
	char buf[INANY_STRLEN];
	uint32_t idx;
	int s;

	nat_outbound(c, &key->remote_addr, key->remote_port, &dst);

	s = udp_sock_out(c, key, &dst);
	if ((s == -EMFILE || s == -ENFILE) && flow_evict(c, now_ms))
		s = udp_sock_out(c, key, &dst);
	if (s < 0) {
		udp_stats.drop_no_flow++;
		debug("UDP: can't open a socket toward %s port %u: %s",
		      inany_ntop(&dst, buf), key->remote_port, strerror(-s));
		return FLOW_IDX_NONE;
	}

	idx = udp_flow_new(c, UDP_KIND_OUT, inany_v4(&dst) != NULL, now_ms);
	if (idx == FLOW_IDX_NONE) {
		close(s);
		return FLOW_IDX_NONE;
	}

	uf = &udp_flows[idx];
	uf->sock = s;
	if (udp_epoll_add(c, s, idx, true) || flow_hash_insert(idx, key)) {
		udp_stats.drop_no_flow++;
		udp_flow_close(c, idx);
		return FLOW_IDX_NONE;
	}

	udp_stats.flows_out++;
	trace("UDP flow %u: guest port %u to %s port %u", idx,
	      key->guest_port, inany_ntop(&dst, buf), key->remote_port);
	return idx;
}

/**
 * udp_guest_input() - a UDP datagram from the guest
 * @c:		execution context
 * @saddr:	source address (the guest's), unicast
 * @daddr:	destination address, unicast
 * @udp:	UDP header, followed by the payload, any alignment
 * @l4len:	length from the IP header
 * @now_ms:	current time
 */
void udp_guest_input(const struct ctx *c, const union inany_addr *saddr,
		     const union inany_addr *daddr, const uint8_t *udp,
		     size_t l4len, uint64_t now_ms)
{
	const struct udp_lsn *l;
	struct flow_key key;
	struct udp_flow *uf;
	struct iovec iov;
	size_t ulen;
	uint32_t idx;

	if (l4len < UDP_HDR_LEN)
		return;
	ulen = (size_t)(udp[4] << 8 | udp[5]);
	if (ulen < UDP_HDR_LEN || ulen > l4len)
		return;

	memset(&key, 0, sizeof(key));
	key.guest_addr = *saddr;
	key.remote_addr = *daddr;
	key.guest_port = (uint16_t)(udp[0] << 8 | udp[1]);
	key.remote_port = (uint16_t)(udp[2] << 8 | udp[3]);
	key.proto = IPPROTO_UDP;
	if (!key.guest_port || !key.remote_port)
		return;

	idx = flow_lookup(&key);
	if (idx == FLOW_IDX_NONE) {
		idx = udp_flow_out(c, &key, now_ms);
		if (idx == FLOW_IDX_NONE) {
			/* Flow table full, or no socket: refuse it */
			udp_err_refuse(c, &key, udp + UDP_HDR_LEN,
				       ulen - UDP_HDR_LEN);
			return;
		}
	}
	uf = udp_flow_at(idx);
	if (!uf)
		return;

	udp_flow_touch(uf, now_ms);

	if (uf->kind == UDP_KIND_OUT) {
		/* Counted when it leaves, with the datagrams after it */
		udp_gso_queue(idx, uf->sock, udp + UDP_HDR_LEN,
			      ulen - UDP_HDR_LEN);
		return;
	}
	if (uf->kind != UDP_KIND_IN)
		return;

	/* A reply to a -u peer: from the listening socket, at once */
	l = udp_lsn_at(uf->lsn);
	iov.iov_base = (void *)(udp + UDP_HDR_LEN);
	iov.iov_len = ulen - UDP_HDR_LEN;
	udp_gso_count(idx, 1, l ? udp_gso_send(l->fd, &iov, 1, 0, &uf->peer)
		      : -EBADF);
}

/**
 * udp_sock_handler() - events on a UDP socket
 * @c:		execution context
 * @ref:	epoll reference: flow index, or UDP_REF_LSN | listener index
 * @events:	epoll events
 * @now_ms:	current time
 */
void udp_sock_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		      uint64_t now_ms)
{
	struct udp_flow *uf;

	if (ref.data & UDP_REF_LSN) {
		udp_lsn_handler(c, ref.data & ~UDP_REF_LSN, events, now_ms);
		return;
	}

	/* The flow may have closed earlier in this batch of events */
	uf = udp_flow_at(ref.data);
	if (!uf || uf->sock != (int)ref.fd)
		return;

	if (uf->kind == UDP_KIND_SPLICE) {
		udp_splice_to_ns(c, ref.data, now_ms);
		return;
	}

	if (events & EPOLLERR)
		udp_err_drain(c, ref.data);
	if (events & EPOLLIN)
		qdisc_wake(ref.data);
}

/**
 * udp_net_input_done() - write the runs of guest datagrams still queued
 * @c:		execution context (unused)
 */
static void udp_net_input_done(const struct ctx *c)
{
	(void)c;
	udp_gso_flush();
}

static const struct net_l4_ops udp_net_ops = {
	.input = udp_guest_input,
	.input_done = udp_net_input_done,
};

/**
 * udp_init() - allocate flow state, open the forwarded ports
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int udp_init(const struct ctx *c)
{
	udp_fwd_register();
	net_l4_register(NET_L4_UDP, &udp_net_ops);
	if (c->no_udp)
		return 0;

	udp_cap = flow_capacity();
	udp_flows = calloc(udp_cap, sizeof(*udp_flows));
	if (!udp_flows) {
		err("UDP: can't allocate state for %u flows: lower --max-flows",
		    udp_cap);
		udp_cap = 0;
		return -ENOMEM;
	}

	qdisc_register(FLOW_TYPE_UDP, udp_pull);
	udp_splice_init();
	udp_evict_init();

	return udp_fwd_init(c);
}
