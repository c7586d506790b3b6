// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_fwd.c - forwarded UDP ports: listening sockets, flows host peers start
 *
 * Theory of operation
 *
 * -u (both modes): for every forwarded port a UDP socket is bound on the
 * host (udp_fwd_rule_open(), called by fwd/fwd_listen.c at start-up and
 * when the table changes at run time), to the rule's address (and
 * interface) if it names one, otherwise one per enabled family on the
 * wildcard address (of the target address's family only, if the rule
 * names one). A datagram from a peer we have no flow for starts one
 * toward the guest's address (or the rule's target address), at the port
 * its rule maps to (the rule listening where the socket is bound: rules
 * at several addresses may share a port), coming from the peer's address
 * as
 * flow/nat.c shows it to the guest (loopback as the gateway, and so on).
 * The guest's replies find that flow by their addresses and leave with
 * sendmsg() from the listening socket, toward the peer's real address.
 *
 * Listening sockets are shared by many flows, so they can't take a turn
 * in the output scheduler as a flow. One flow (the proxy, allocated only
 * if there are -u sockets) stands for all of them: a listening socket with
 * datagrams goes on the proxy's list and wakes the proxy, whose turn reads
 * the sockets on the list, in order, straight into frames (udp_emit.c).
 * The sockets are edge-triggered and read until empty, or until the turn's
 * budget or the output queue runs out: then the socket moves to the end of
 * the list and the proxy asks for another turn.
 *
 * -U (pasta): the listening sockets are opened inside the namespace, on
 * every loopback address (the wildcard on the loopback interface, see
 * sock_open_lo(); with an interface in the rule, 127.0.0.1 and ::1 on it),
 * or on the rule's address, and their datagrams go to the same loopback
 * address of the host (127.0.0.53 to 127.0.0.53) without touching the
 * guest interface (udp_splice.c).
 *
 * "auto" (pasta): fwd/fwd_auto.c follows the ports bound on the other
 * side and opens or closes the listening sockets of single ports at run
 * time (udp_fwd_auto_open(), udp_fwd_close()). Room for them is
 * reserved at start-up, UDP_FWD_AUTO_LSN slots per "auto" specification
 * (and UDP_FWD_CONF_LSN per direction for rules set at run time), and
 * slots of closed sockets are reused. Closing a socket closes the flows
 * that reply through it. A rule-less port maps to itself.
 *
 * pasta, datagrams from the host's loopback (127.0.0.0/8, ::1) to a rule
 * without a target address: unless --no-splice, they never touch the tap
 * device, as upstream's. They are read with the others, in the proxy's
 * turn, and handed to udp_splice.c, which sends them from a socket in the
 * namespace to the guest's own address (or, with --host-lo-to-ns-lo, to
 * the loopback address they were sent to: wildcard -u sockets of pasta
 * learn it with IP_PKTINFO), from the peer's port. With --splice-only
 * there is no guest interface: -u sockets splice the same way, straight
 * from their events, and other datagrams are dropped.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "udp.h"
#include "udp_internal.h"
#include "../conf/fwd_spec.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../fwd/fwd_listen.h"
#include "../net/sock.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/ns_worker.h"

/* System calls after start-up: forwarded ports, opened at run time by -c
 * or "auto" forwarding (sockets: net/sock.c)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("IP_PKTINFO", IPPROTO_IP),
	 SYSCALLS_SETSOCKOPT("IPV6_RECVPKTINFO", IPPROTO_IPV6),
	 SYSCALLS_CALL("getsockopt", "a port's socket error (SO_ERROR)"),
	 SYSCALLS_CALL("epoll_ctl", "watch a port's socket, or stop"),
	 SYSCALLS_CALL("close", "the socket of a port no longer forwarded"));

/* Listening socket slots reserved per "auto" specification (-u, -U) */
#define UDP_FWD_AUTO_LSN	4096
/* Ports of rules added at run time (-c), per direction (-u, -U) */
#define UDP_FWD_CONF_LSN	4096

static struct udp_lsn *udp_lsns;
static unsigned int udp_lsn_count;	/* slots ever used (high mark) */
static unsigned int udp_lsn_cap;

/* Slots below udp_lsn_count freed by udp_fwd_close(): a stack */
static uint32_t *udp_lsn_free;
static unsigned int udp_lsn_free_count;

/* Listening sockets (-u) with datagrams to read: ring of indices */
static uint32_t *udp_lsn_ring;
static unsigned int udp_lsn_ring_head;
static unsigned int udp_lsn_ring_count;

/* Flow standing for all -u sockets in the output scheduler */
static uint32_t udp_proxy = FLOW_IDX_NONE;

/**
 * udp_lsn_at() - a listening socket by index
 * @i:		index
 *
 * Return: the socket's state, NULL if @i is out of range or closed
 */
struct udp_lsn *udp_lsn_at(uint32_t i)
{
	if (i >= udp_lsn_count || udp_lsns[i].fd < 0)
		return NULL;
	return &udp_lsns[i];
}

/**
 * udp_lsn_pktinfo() - ask for the destination of each datagram
 * @s:		socket
 * @v4:		IPv4 (else IPv6)
 *
 * Return: 0 on success, -1 with errno set
 */
static int udp_lsn_pktinfo(int s, bool v4)
{
	int one = 1;

	return setsockopt(s, v4 ? IPPROTO_IP : IPPROTO_IPV6,
			  v4 ? IP_PKTINFO : IPV6_RECVPKTINFO, &one,
			  sizeof(one));
}

/**
 * udp_lsn_open_lo() - a -U socket for every loopback address of a family
 * @v4:		IPv4 (else IPv6)
 * @addr:	set to the address to bind it to
 * @lo_all:	set if that is the wildcard (on the loopback interface):
 *		each datagram then tells its destination (IP_PKTINFO)
 *
 * Return: the socket, or -errno
 */
static int udp_lsn_open_lo(bool v4, union inany_addr *addr, bool *lo_all)
{
	int s = sock_open_lo(SOCK_DGRAM, IPPROTO_UDP, v4, addr);

	*lo_all = s >= 0 && inany_is_unspecified(addr);
	if (*lo_all && udp_lsn_pktinfo(s, v4)) {
		int ret = -errno;

		close(s);
		return ret;
	}
	return s;
}

/**
 * udp_lsn_open() - open one listening socket and add it to the epoll set
 * @c:		execution context
 * @addr:	address to bind, NULL for every loopback address (-U)
 * @v4:		IPv4 (else IPv6), for a NULL @addr
 * @ifname:	interface to bind to, empty for none
 * @port:	port
 * @in_ns:	-U: we run inside the namespace, the socket stays there
 * @freebind:	-u: bind @addr even if the host doesn't have it (yet)
 *
 * Return: index of the socket's slot on success, -errno on failure
 */
static int udp_lsn_open(const struct ctx *c, const union inany_addr *addr,
			bool v4, const char *ifname, uint16_t port, bool in_ns,
			bool freebind)
{
	bool lo_all = false, pktinfo;
	union inany_addr lo;
	struct udp_lsn *l;
	uint32_t li;
	int s, ret;

	if (udp_lsn_free_count)
		li = udp_lsn_free[udp_lsn_free_count - 1];
	else if (udp_lsn_count < udp_lsn_cap)
		li = udp_lsn_count;
	else
		return -ENOSPC;

	/* SO_REUSEADDR: flow sockets of the guest may need the same port
	 * (see udp.c)
	 */
	if (addr) {
		v4 = inany_v4(addr) != NULL;
		s = sock_open(SOCK_DGRAM, IPPROTO_UDP, v4, ifname,
			      (c->freebind || freebind) && !in_ns);
	} else {
		s = udp_lsn_open_lo(v4, &lo, &lo_all);
		addr = &lo;
	}
	if (s < 0)
		return s;
	udp_sock_rcvbuf(s);

	pktinfo = lo_all || (!in_ns && c->mode == MODE_PASTA &&
			     !c->no_splice && inany_is_unspecified(addr));
	if (pktinfo && !lo_all && udp_lsn_pktinfo(s, v4)) {
		ret = -errno;
		goto fail;
	}

	ret = sock_bind(s, addr, port);
	if (ret)
		goto fail;

	ret = udp_epoll_add(c, s, UDP_REF_LSN | li,
			    !in_ns && !c->splice_only);
	if (ret)
		goto fail;

	if (li == udp_lsn_count)
		udp_lsn_count++;
	else
		udp_lsn_free_count--;

	/* A reused slot may still be on the proxy's list: @queued stays */
	l = &udp_lsns[li];
	l->addr = *addr;
	l->fd = s;
	l->port = port;
	l->v4 = v4;
	l->in_ns = in_ns;
	l->lo_all = lo_all;
	l->pktinfo = pktinfo;
	return (int)li;

fail:
	close(s);
	return ret;
}

/**
 * udp_fwd_any() - addresses of a port without a bind address in its rule
 * @in_ns:	-U: loopback addresses (in the namespace), else wildcards
 * @ifname:	interface of the rule, empty or NULL for none
 * @a4:		IPv4 address, set
 * @a6:		IPv6 address, set
 *
 * Return: true if the addresses apply, false for every loopback address
 *	   (a -U port without interface: see udp_lsn_open_lo())
 */
static bool udp_fwd_any(bool in_ns, const char *ifname, union inany_addr *a4,
			union inany_addr *a6)
{
	inany_lo_or_any(a4, true, in_ns);
	inany_lo_or_any(a6, false, in_ns);
	return !in_ns || (ifname && *ifname);
}

/**
 * udp_fwd_rule_open() - open the listening sockets of one forwarded port
 * @c:		execution context
 * @r:		rule forwarding the port
 * @port:	port
 * @in_ns:	-U: loopback addresses of the namespace (we run inside it)
 * @freebind:	-u: bind the rule's address even if the host doesn't have it
 * @idx:	slots of the sockets opened, -1 if none: [0] IPv4, [1] IPv6
 *
 * Without an address in the rule, one socket per enabled family: on the
 * wildcard address for -u, on loopback for -U. One family missing (no
 * IPv6 in the namespace, say) is fine if the other works.
 *
 * Return: 0 on success, -errno on failure (then no socket is left open)
 */
int udp_fwd_rule_open(const struct ctx *c, const struct fwd_rule *r,
		      uint16_t port, bool in_ns, bool freebind, int idx[2])
{
	union inany_addr a4, a6;
	bool fixed;
	int ret;

	idx[0] = idx[1] = -1;
	if (!udp_lsns ||
	    (!in_ns && !c->splice_only && udp_proxy == FLOW_IDX_NONE))
		return -ENOSPC;

	if (!r->bind_any) {
		idx[r->bind_v4 ? 0 : 1] = udp_lsn_open(c, &r->bind_addr,
						       r->bind_v4, r->ifname,
						       port, in_ns, freebind);
		return sock_pair_result(idx);
	}

	fixed = udp_fwd_any(in_ns, r->ifname, &a4, &a6);
	if (c->ip4.enabled && (fwd_rule_families(r) & FWD_V4))
		idx[0] = udp_lsn_open(c, fixed ? &a4 : NULL, true, r->ifname,
				      port, in_ns, false);
	if (c->ip6.enabled && (fwd_rule_families(r) & FWD_V6))
		idx[1] = udp_lsn_open(c, fixed ? &a6 : NULL, false, r->ifname,
				      port, in_ns, false);

	ret = sock_pair_missing(idx);
	if (!ret)
		return 0;

	if (idx[0] >= 0)
		udp_fwd_close(c, (uint32_t)idx[0]);
	if (idx[1] >= 0)
		udp_fwd_close(c, (uint32_t)idx[1]);
	idx[0] = idx[1] = -1;
	return ret;
}

/**
 * udp_fwd_ports() - number of ports a specification forwards by fixed rules
 * @spec:	specification
 *
 * Return: port count, a port counted once per rule (so per address), 0 for
 *	   "none"; "auto" ports have slots of their own
 */
static unsigned int udp_fwd_ports(const struct fwd_spec *spec)
{
	unsigned int i, n = 0;

	for (i = 0; i < spec->n_rules; i++) {
		const struct fwd_rule *r = &spec->rules[i];

		if (!r->scan)
			n += (unsigned int)(r->last - r->first) + 1;
	}
	return n;
}

/**
 * udp_fwd_init() - allocate the listening socket slots and the proxy
 * @c:		execution context
 *
 * Slots: two per port of the -u and -U specifications, UDP_FWD_AUTO_LSN
 * per "auto" specification, and UDP_FWD_CONF_LSN per direction if the
 * table can change at run time (-c). fwd/fwd_listen.c opens the sockets.
 *
 * Return: 0 on success, -errno on failure (logged)
 */
int udp_fwd_init(const struct ctx *c)
{
	/* -u: host ports to the guest; -U: namespace ports to the host */
	const struct fwd_spec *to_guest = &c->udp_to_guest;
	const struct fwd_spec *to_host = &c->udp_to_host;
	unsigned int n_conf = *c->conf_path ? UDP_FWD_CONF_LSN : 0;
	unsigned int n_guest = udp_fwd_ports(to_guest), n_host = 0;
	bool auto_guest = false, guest = false;
	unsigned int n_auto = 0;

	if (c->mode == MODE_PASTA) {
		n_host = udp_fwd_ports(to_host) + n_conf;
		auto_guest = to_guest->mode == FWD_AUTO;
		n_auto = (auto_guest ? UDP_FWD_AUTO_LSN : 0) +
			 (to_host->mode == FWD_AUTO ? UDP_FWD_AUTO_LSN : 0);
	}
	n_guest += n_conf;
	guest = n_guest || auto_guest;
	if (!guest && !n_host && !n_auto)
		return 0;

	udp_lsn_cap = 2 * (n_guest + n_host) + n_auto;
	udp_lsns = calloc(udp_lsn_cap, sizeof(*udp_lsns));
	udp_lsn_ring = calloc(udp_lsn_cap, sizeof(*udp_lsn_ring));
	udp_lsn_free = calloc(udp_lsn_cap, sizeof(*udp_lsn_free));
	if (!udp_lsns || !udp_lsn_ring || !udp_lsn_free) {
		err("UDP: can't allocate %u listening sockets", udp_lsn_cap);
		return -ENOMEM;
	}

	/* --splice-only: -u sockets splice, no flow goes to a guest */
	if (guest && !c->splice_only) {
		udp_proxy = udp_flow_new(c, UDP_KIND_PROXY, true, 0);
		if (udp_proxy == FLOW_IDX_NONE) {
			err("UDP: no flow left for forwarded ports: raise --max-flows");
			return -ENOSPC;
		}
	}

	return 0;
}

/**
 * udp_fwd_flow() - find or start the flow of a datagram on a -u socket
 * @c:		execution context
 * @l:		listening socket
 * @li:		its index
 * @r:		rule of the socket, NULL if none
 * @peer:	source of the datagram
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE if the datagram must be dropped (then
 *	   it is counted, as drop_no_flow)
 */
static uint32_t udp_fwd_flow(const struct ctx *c, const struct udp_lsn *l,
			     uint32_t li, const struct fwd_rule *r,
			     const union sockaddr_inany *peer, uint64_t now_ms)
{
	union inany_addr src;
	struct flow_key key;
	struct udp_flow *uf;
	uint16_t port;
	uint32_t idx;

	if (peer->sa.sa_family != (l->v4 ? AF_INET : AF_INET6))
		goto drop;

	if (r && !inany_is_unspecified(&r->to_addr) &&
	    !inany_v4(&r->to_addr) != !l->v4)
		goto drop;

	memset(&key, 0, sizeof(key));
	inany_from_sockaddr(&src, &port, peer);
	nat_inbound(c, &src, &key.remote_addr);
	if (r && !inany_is_unspecified(&r->to_addr))
		key.guest_addr = r->to_addr;
	else
		nat_guest_addr(c, &key.remote_addr, &key.guest_addr);
	key.remote_port = port;
	key.guest_port = r ? fwd_rule_target(r, l->port) : l->port;
	key.proto = IPPROTO_UDP;

	idx = flow_lookup(&key);
	if (idx != FLOW_IDX_NONE) {
		uf = udp_flow_at(idx);
		/* Two peers that look the same to the guest: first one wins */
		if (!uf || (uf->kind == UDP_KIND_FWD &&
			    !sockaddr_inany_eq(&uf->peer, peer)))
			goto drop;
		udp_flow_touch(uf, now_ms);
		return idx;
	}

	idx = udp_flow_new(c, UDP_KIND_FWD, l->v4, now_ms);
	if (idx == FLOW_IDX_NONE)
		return FLOW_IDX_NONE;

	uf = udp_flow_at(idx);
	uf->lsn = li;
	uf->peer = *peer;
	if (flow_hash_insert(idx, &key)) {
		udp_stats.drop_no_flow++;
		udp_flow_close(c, idx);
		return FLOW_IDX_NONE;
	}

	udp_stats.flows_fwd++;
	trace("UDP flow %u: from the host to guest port %u", idx,
	      key.guest_port);
	return idx;

drop:
	udp_stats.drop_no_flow++;
	return FLOW_IDX_NONE;
}

/**
 * udp_lsn_splices() - may datagrams of a -u socket be spliced?
 * @c:		execution context
 * @r:		rule of the socket, NULL if none
 *
 * Return: true for pasta without --no-splice, and a rule without a target
 *	   address (as upstream: those go through the tap device)
 */
static bool udp_lsn_splices(const struct ctx *c, const struct fwd_rule *r)
{
	return c->mode == MODE_PASTA && !c->no_splice &&
	       (!r || inany_is_unspecified(&r->to_addr));
}

/**
 * udp_lsn_read() - read a -u socket into frames for the guest
 * @c:		execution context
 * @l:		listening socket
 * @li:		its index
 * @budget:	bytes to send in this turn
 * @sent:	bytes sent in this turn, updated
 * @now_ms:	current time
 *
 * Datagrams from the host's loopback are spliced instead (pasta), see
 * udp_splice_from_host().
 *
 * Return: true if the socket is empty, false if it may still hold data
 */
static bool udp_lsn_read(const struct ctx *c, const struct udp_lsn *l,
			 uint32_t li, size_t budget, size_t *sent,
			 uint64_t now_ms)
{
	const struct fwd_rule *r = fwd_rule_at(fwd_dir_spec(FWD_DIR_UDP_IN),
					       l->port, &l->addr);
	static struct udp_ctl ctls[UDP_RECV_BATCH];
	size_t off = udp_payload_off(l->v4);
	bool splice = udp_lsn_splices(c, r);

	for (;;) {
		union sockaddr_inany names[UDP_RECV_BATCH];
		uint8_t *bufs[UDP_RECV_BATCH];
		size_t lens[UDP_RECV_BATCH];
		unsigned int n, i, j = 0, got;
		int ret;

		n = (unsigned int)MIN(qdisc_frames_avail(), UDP_RECV_BATCH);
		if (!n)
			return false;

		ret = udp_recv_frames(l->fd, off, n, names,
				      l->pktinfo ? ctls : NULL, bufs, lens,
				      &got);
		if (ret < 0) {
			if (ret != -EAGAIN && ret != -EWOULDBLOCK)
				debug("UDP: receive on port %u failed: %s",
				      l->port, strerror(-ret));
			return true;
		}

		for (i = 0; i < got; i++) {
			const struct flow_key *key;
			uint32_t idx;

			/* Spliced bytes count in the turn's budget too */
			if (splice &&
			    udp_splice_from_host(c, l, li, &names[i],
						 l->pktinfo ? &ctls[i] : NULL,
						 bufs[i] + off, lens[i],
						 now_ms)) {
				*sent += lens[i] == SIZE_MAX ? 0 : lens[i];
				continue;
			}

			idx = udp_fwd_flow(c, l, li, r, &names[i], now_ms);
			key = flow_key_of(idx);
			if (idx == FLOW_IDX_NONE)
				continue;
			if (!key) {
				udp_stats.drop_no_flow++;
				continue;
			}
			if (udp_emit(c, bufs, i, &j, key, lens[i]))
				*sent += lens[i];
		}

		if (got < n)
			return true;
		if (*sent >= budget)
			return false;
	}
}

/**
 * udp_proxy_pull() - output scheduler's turn for the -u sockets
 * @c:		execution context
 * @budget:	bytes to send in this turn
 * @now_ms:	current time
 *
 * Return: QDISC_MORE if a socket may still hold data, else QDISC_DONE
 */
enum qdisc_pull_result udp_proxy_pull(const struct ctx *c, size_t budget,
				      uint64_t now_ms)
{
	size_t sent = 0;

	while (udp_lsn_ring_count) {
		uint32_t li = udp_lsn_ring[udp_lsn_ring_head];
		struct udp_lsn *l = &udp_lsns[li];
		bool empty = true;

		/* Closed by "auto" since it was queued: nothing to read */
		if (l->fd >= 0)
			empty = udp_lsn_read(c, l, li, budget, &sent, now_ms);

		udp_lsn_ring_head = (udp_lsn_ring_head + 1) % udp_lsn_cap;
		udp_lsn_ring_count--;
		if (empty) {
			l->queued = false;
			continue;
		}

		/* Budget or queue used up: to the end of the list */
		udp_lsn_ring[(udp_lsn_ring_head + udp_lsn_ring_count) %
			     udp_lsn_cap] = li;
		udp_lsn_ring_count++;
		return QDISC_MORE;
	}

	return QDISC_DONE;
}

/**
 * udp_lsn_handler() - events on a listening socket
 * @c:		execution context
 * @i:		listening socket index
 * @events:	epoll events
 * @now_ms:	current time
 */
void udp_lsn_handler(const struct ctx *c, uint32_t i, uint32_t events,
		     uint64_t now_ms)
{
	struct udp_lsn *l = udp_lsn_at(i);

	if (!l)
		return;

	if (events & EPOLLERR) {
		socklen_t sl = sizeof(int);
		int e = 0;

		/* Clear it, or a level-triggered socket reports it again */
		if (!getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &e, &sl) && e)
			trace("UDP: error on port %u: %s", l->port,
			      strerror(e));
	}
	if (!(events & EPOLLIN))
		return;

	if (l->in_ns || c->splice_only) {
		udp_splice_from_ns(c, l, i, now_ms);
		return;
	}

	if (!l->queued) {
		udp_lsn_ring[(udp_lsn_ring_head + udp_lsn_ring_count) %
			     udp_lsn_cap] = i;
		udp_lsn_ring_count++;
		l->queued = true;
	}
	qdisc_wake(udp_proxy);
}

/**
 * udp_fwd_auto_open() - open the listening sockets of one "auto" port
 * @c:		execution context
 * @port:	port
 * @in_ns:	-U: every loopback address in the namespace (we run inside
 *		it, see ns_run()); else -u: wildcard addresses on the host
 * @idx:	slots of the sockets opened, -1 if none: [0] IPv4, [1] IPv6
 *
 * Return: 0 if at least one socket was opened, -errno otherwise
 */
int udp_fwd_auto_open(const struct ctx *c, uint16_t port, bool in_ns,
		      int idx[2])
{
	union inany_addr a4, a6;
	bool fixed;

	idx[0] = idx[1] = -1;
	if (!udp_lsns ||
	    (!in_ns && !c->splice_only && udp_proxy == FLOW_IDX_NONE))
		return -ENOSPC;

	fixed = udp_fwd_any(in_ns, NULL, &a4, &a6);
	if (c->ip4.enabled)
		idx[0] = udp_lsn_open(c, fixed ? &a4 : NULL, true, NULL, port,
				      in_ns, false);
	if (c->ip6.enabled)
		idx[1] = udp_lsn_open(c, fixed ? &a6 : NULL, false, NULL, port,
				      in_ns, false);
	return sock_pair_result(idx);
}

/**
 * udp_fwd_close() - close a listening socket
 * @c:		execution context
 * @i:		its slot, from udp_fwd_auto_open() or udp_fwd_rule_open()
 *
 * Flows replying through the socket (-u from host peers, -U from
 * namespace peers) end with it. The slot is reused by a later open.
 */
void udp_fwd_close(const struct ctx *c, uint32_t i)
{
	unsigned int idx, cap = flow_capacity();
	struct udp_lsn *l = udp_lsn_at(i);

	if (!l)
		return;

	for (idx = 0; idx < cap; idx++) {
		const struct udp_flow *uf = udp_flow_at(idx);

		if (uf && uf->lsn == i &&
		    (uf->kind == UDP_KIND_FWD || uf->kind == UDP_KIND_SPLICE))
			udp_flow_close(c, idx);
	}

	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, l->fd, NULL);
	close(l->fd);
	l->fd = -1;
	udp_lsn_free[udp_lsn_free_count++] = i;
}

/**
 * udp_fwd_close_slot() - close the socket of a forwarded port
 * @c:		execution context
 * @h:		its slot, from udp_fwd_rule_open() or udp_fwd_auto_open()
 */
static void udp_fwd_close_slot(const struct ctx *c, int h)
{
	udp_fwd_close(c, (uint32_t)h);
}

static const struct fwd_sock_ops udp_fwd_sock_ops = {
	.rule_open = udp_fwd_rule_open,
	.auto_open = udp_fwd_auto_open,
	.close = udp_fwd_close_slot,
};

/**
 * udp_fwd_register() - give fwd/ the functions for UDP's bound sockets
 */
void udp_fwd_register(void)
{
	fwd_sock_register(FWD_UDP, &udp_fwd_sock_ops);
}
