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
 * direction (udp_flow.c), or earlier if a new flow needs its place and it
 * has been idle for a second (flow/flow_evict.c, udp_evict.c).
 *
 * This file is the roof of udp/ (doc/udp.md gives the order of the
 * files): the entry points the rest of the relay calls (socket events,
 * datagrams from the guest, the output scheduler's turns, init) and the
 * start of the flows the guest initiates. It dispatches to the files
 * below it; none of them calls up into it.
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

/**
 * udp_guest_sock() - open the host socket of a flow the guest starts
 * @c:		execution context
 * @key:	flow as the guest sees it
 * @dst:	host-side destination (mapped by nat_outbound())
 *
 * Return: connected socket, or -errno
 */
static int udp_guest_sock(const struct ctx *c, const struct flow_key *key,
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
 * udp_guest_flow() - start a flow for a new datagram from the guest
 * @c:		execution context
 * @key:	flow as the guest sees it
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE on failure (logged, counted)
 */
static uint32_t udp_guest_flow(const struct ctx *c,
			       const struct flow_key *key, uint64_t now_ms)
{
	union inany_addr dst;
	struct udp_flow *uf;
	char buf[INANY_STRLEN];
	uint32_t idx;
	int s;

	nat_outbound(c, &key->remote_addr, key->remote_port, &dst);

	s = udp_guest_sock(c, key, &dst);
	if ((s == -EMFILE || s == -ENFILE) && flow_evict(c, now_ms))
		s = udp_guest_sock(c, key, &dst);
	if (s < 0) {
		udp_stats.drop_no_flow++;
		debug("UDP: can't open a socket toward %s port %u: %s",
		      inany_ntop(&dst, buf), key->remote_port, strerror(-s));
		return FLOW_IDX_NONE;
	}

	idx = udp_flow_new(c, UDP_KIND_GUEST, inany_v4(&dst) != NULL, now_ms);
	if (idx == FLOW_IDX_NONE) {
		close(s);
		return FLOW_IDX_NONE;
	}

	uf = udp_flow_at(idx);
	uf->sock = s;
	if (udp_epoll_add(c, s, idx, true) || flow_hash_insert(idx, key)) {
		udp_stats.drop_no_flow++;
		udp_flow_close(c, idx);
		return FLOW_IDX_NONE;
	}

	udp_stats.flows_guest++;
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
		idx = udp_guest_flow(c, &key, now_ms);
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

	if (uf->kind == UDP_KIND_GUEST) {
		/* Counted when it leaves, with the datagrams after it */
		udp_gso_queue(idx, uf->sock, udp + UDP_HDR_LEN,
			      ulen - UDP_HDR_LEN);
		return;
	}
	if (uf->kind != UDP_KIND_FWD)
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
		udp_splice_to_ns(c, ref.data, udp_lsn_at(uf->lsn), now_ms);
		return;
	}

	if (events & EPOLLERR)
		udp_err_drain(c, ref.data);
	if (events & EPOLLIN)
		qdisc_wake(ref.data);
}

/**
 * udp_pull() - output scheduler's turn for a UDP flow
 * @c:		execution context
 * @idx:	flow index
 * @budget:	bytes to send in this turn
 * @now_ms:	current time
 *
 * Return: enum qdisc_pull_result
 */
static enum qdisc_pull_result udp_pull(const struct ctx *c, uint32_t idx,
				       size_t budget, uint64_t now_ms)
{
	struct udp_flow *uf = udp_flow_at(idx);

	if (!uf)
		return QDISC_DONE;

	switch (uf->kind) {
	case UDP_KIND_GUEST:
		return udp_emit_pull(c, idx, uf, budget, now_ms);
	case UDP_KIND_PROXY:
		return udp_proxy_pull(c, budget, now_ms);
	default:
		return QDISC_DONE;
	}
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
	int ret;

	udp_fwd_register();
	net_l4_register(NET_L4_UDP, &udp_net_ops);
	if (c->no_udp)
		return 0;

	ret = udp_flow_init();
	if (ret)
		return ret;

	qdisc_register(FLOW_TYPE_UDP, udp_pull);
	udp_splice_init();
	udp_evict_init();

	return udp_fwd_init(c);
}
