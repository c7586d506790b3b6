// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_listen.c - forwarded ports: listening sockets and accepted flows
 *
 * Theory of operation
 *
 * For every port of the -t specification, a listening socket is opened on
 * the host (tcp_listen_rule(), called by fwd/fwd_listen.c at start-up and
 * when the table changes at run time): bound to the rule's address (and
 * interface) if it names one, otherwise one socket for each enabled
 * family on the wildcard address. The epoll reference carries the port;
 * the rule, and so the target port in the guest, is looked up when a
 * connection is accepted, in the table in force then: the rule of the
 * port, or, for a port that rules at several addresses share (127.0.0.1
 * and ::1, say), the one listening at the address the connection came to
 * (getsockname()).
 *
 * An accepted connection becomes a flow toward the guest's address (or the
 * rule's target address, if it names one): the relay sends the guest a
 * SYN from the peer's address (loopback and the
 * host's own address are shown as the mapped addresses of flow/nat.c),
 * and data starts to flow once the guest answers.
 *
 * pasta, connections from the host's loopback (127.0.0.0/8, ::1) to a
 * rule without a target address: unless --no-splice, they never touch the
 * tap device, as upstream's. tcp_splice.c connects a socket created inside
 * the namespace to the target port there, and splices the two sockets
 * together. The target address in the namespace is the guest's own
 * address of the peer's family (the connection then goes over the
 * namespace's loopback interface, but services bound to loopback only are
 * not exposed), or, with --host-lo-to-ns-lo, the namespace's loopback
 * address itself. A rule with a target address goes through the tap
 * device, as upstream's does. --splice-only refuses (resets) every
 * connection that is not spliced.
 *
 * "auto" forwarding (fwd/fwd_auto.c) opens and closes the listening
 * sockets of single ports at run time with tcp_listen_auto(); a rule-less
 * port maps to itself.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_internal.h"
#include "tcp_splice.h"
#include "../conf/fwd_spec.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../fwd/fwd_listen.h"
#include "../net/sock.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../guest/follow.h"
#include "../guest/guest.h"

/* System calls after start-up: accepting connections, and their local
 * address on ports several rules share; listening sockets opened at run
 * time by -c or "auto" forwarding (the socket itself: net/sock.c)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("accept4", "a connection to a forwarded port"),
	 SYSCALLS_CALL("getsockname", "its local address: which rule?"),
	 SYSCALLS_CALL("listen", "a port forwarded at run time"),
	 SYSCALLS_SETSOCKOPT("SO_LINGER: refuse with a reset", SOL_SOCKET),
	 SYSCALLS_CALL("epoll_ctl", "watch a listening socket"),
	 SYSCALLS_CALL("close", "refused connections, closed ports"));

#define TCP_ACCEPT_BATCH	32

/**
 * tcp_listen_one() - open one listening socket
 * @c:		execution context
 * @v4:		IPv4 (else IPv6, v6-only)
 * @addr:	address to bind, NULL for the wildcard
 * @ifname:	interface to bind to, empty for none
 * @port:	port
 * @freebind:	bind even if the host doesn't have @addr (yet)
 *
 * Return: socket, or -errno on failure
 */
static int tcp_listen_one(const struct ctx *c, bool v4,
			  const union inany_addr *addr, const char *ifname,
			  uint16_t port, bool freebind)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP_LISTEN, .data = port };
	union inany_addr any;
	struct epoll_event ev;
	int s, ret;

	if (!addr) {
		if (v4)
			inany_from_v4(&any, (struct in_addr){ INADDR_ANY });
		else
			memset(&any, 0, sizeof(any));
		addr = &any;
	}

	s = sock_open(SOCK_STREAM, IPPROTO_TCP, v4, ifname,
		      c->freebind || freebind);
	if (s < 0)
		return s;

	ret = sock_bind(s, addr, port);
	if (!ret && listen(s, TCP_LISTEN_BACKLOG))
		ret = -errno;
	if (ret)
		goto fail;

	ref.fd = s;
	ev.events = EPOLLIN;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, s, &ev)) {
		ret = -errno;
		goto fail;
	}
	return s;

fail:
	close(s);
	return ret;
}

/**
 * tcp_listen_any() - listen on the wildcard address of each enabled family
 * @c:		execution context
 * @fam:	families wanted, FWD_V4 and FWD_V6
 * @ifname:	interface to bind to, NULL or empty for none
 * @port:	port
 * @fds:	results, socket or -errno: [0] IPv4, [1] IPv6 (-1: not tried)
 */
static void tcp_listen_any(const struct ctx *c, unsigned int fam,
			   const char *ifname, uint16_t port, int fds[2])
{
	fds[0] = fds[1] = -1;
	if (c->ip4.enabled && (fam & FWD_V4))
		fds[0] = tcp_listen_one(c, true, NULL, ifname, port, false);
	if (c->ip6.enabled && (fam & FWD_V6))
		fds[1] = tcp_listen_one(c, false, NULL, ifname, port, false);
}

/**
 * tcp_listen_rule() - listen on one -t port, for its rule
 * @c:		execution context
 * @r:		rule forwarding @port
 * @port:	port
 * @freebind:	bind the rule's address even if the host doesn't have it
 * @fds:	sockets opened, -1 for a family not opened: [0] IPv4, [1] IPv6
 *
 * A rule with an address gets one socket; without one, a socket on the
 * wildcard address of each enabled family (of the target address's family
 * only, if the rule names one): both must work, unless one family can't
 * be used on this host at all.
 *
 * Return: 0 on success, negative errno otherwise (nothing left open)
 */
int tcp_listen_rule(const struct ctx *c, const struct fwd_rule *r,
		    uint16_t port, bool freebind, int fds[2])
{
	fds[0] = fds[1] = -1;

	if (!r->bind_any) {
		int s = tcp_listen_one(c, r->bind_v4, &r->bind_addr, r->ifname,
				       port, freebind);

		fds[r->bind_v4 ? 0 : 1] = s;
		return sock_pair_result(fds);
	}

	tcp_listen_any(c, fwd_rule_families(r), r->ifname, port, fds);
	return sock_pair_missing_close(fds);
}

/**
 * tcp_listen_auto() - listen on one -t port found by "auto"
 * @c:		execution context
 * @port:	port, listening in the namespace
 * @fds:	sockets opened, -1 for a family not opened: [0] IPv4, [1] IPv6
 *		(both on the wildcard address)
 *
 * Return: 0 if at least one socket was opened, negative errno otherwise
 */
int tcp_listen_auto(const struct ctx *c, uint16_t port, int fds[2])
{
	tcp_listen_any(c, FWD_V4 | FWD_V6, NULL, port, fds);
	return sock_pair_result(fds);
}

/**
 * tcp_listen_is_loopback() - tell if an address is a loopback address
 * @a:		address
 *
 * Return: true for 127.0.0.0/8 and ::1
 */
static bool tcp_listen_is_loopback(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		return (ntohl(v4->s_addr) >> IN_CLASSA_NSHIFT) ==
		       IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(&a->a6);
}

/**
 * tcp_listen_splice_addr() - address in the namespace for a spliced
 *			      connection from the host's loopback
 * @c:		execution context
 * @v4:		the peer is IPv4
 * @addr:	target address, set on return
 */
static void tcp_listen_splice_addr(const struct ctx *c, bool v4,
				   union inany_addr *addr)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);

	if (v4) {
		struct in_addr a = guest_addr4();

		if (!a.s_addr)
			a = ip4->addr;
		if (c->host_lo_to_ns_lo || !a.s_addr)
			a.s_addr = htonl(INADDR_LOOPBACK);
		inany_from_v4(addr, a);
		return;
	}

	memset(addr, 0, sizeof(*addr));
	addr->a6 = *guest_addr6();
	if (IN6_IS_ADDR_UNSPECIFIED(&addr->a6))
		addr->a6 = ip6->addr;
	if (c->host_lo_to_ns_lo || IN6_IS_ADDR_UNSPECIFIED(&addr->a6))
		addr->a6 = in6addr_loopback;
}

/**
 * tcp_listen_splice() - splice a connection from the host's loopback
 * @c:		execution context
 * @s:		accepted socket; owned by this function if it returns true
 * @peer:	peer address
 * @r:		rule the connection came to, NULL if none
 * @port:	forwarded (listening) port
 *
 * As upstream: a connection is spliced if it comes from the host's
 * loopback, to a rule without a target address.
 *
 * Return: true if the connection was handled here (spliced, or refused
 *	   for --splice-only), false if it goes through the tap device
 */
static bool tcp_listen_splice(const struct ctx *c, int s,
			      const union sockaddr_inany *peer,
			      const struct fwd_rule *r, uint16_t port)
{
	struct tcp_splice_target t = { .in_ns = true };
	union inany_addr a;
	uint16_t peer_port;

	if (c->mode != MODE_PASTA)
		return false;

	inany_from_sockaddr(&a, &peer_port, peer);
	if (c->no_splice || !tcp_listen_is_loopback(&a) ||
	    (r && !inany_is_unspecified(&r->to_addr))) {
		const struct linger lin = { .l_onoff = 1, .l_linger = 0 };

		if (!c->splice_only)
			return false;

		/* --splice-only: nothing but loopback is forwarded */
		setsockopt(s, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
		close(s);
		return true;
	}

	tcp_listen_splice_addr(c, inany_v4(&a) != NULL, &t.addr);
	t.port = r ? fwd_rule_target(r, port) : port;
	tcp_splice_conn_new(c, s, &t);
	return true;
}

/**
 * tcp_listen_target() - the guest's address for a connection to a -t port
 * @c:		execution context
 * @r:		rule the connection came to, NULL if none
 * @src:	source of the connection as the guest sees it
 * @addr:	the rule's target address if it names one, else the guest's
 *		address of the same scope (nat_guest_addr())
 *
 * Return: 0 on success, -1 if the rule's target is of the other family
 */
static int tcp_listen_target(const struct ctx *c, const struct fwd_rule *r,
			     const union inany_addr *src,
			     union inany_addr *addr)
{
	bool v4 = inany_v4(src) != NULL;

	if (!r || inany_is_unspecified(&r->to_addr)) {
		nat_guest_addr(c, src, addr);
		return 0;
	}
	if (!inany_v4(&r->to_addr) != !v4)
		return -1;
	*addr = r->to_addr;
	return 0;
}

/**
 * tcp_listen_rule_of() - the rule an accepted connection came to
 * @s:		accepted socket
 * @port:	forwarded (listening) port
 *
 * Return: the rule in the table in force, NULL if none
 */
static const struct fwd_rule *tcp_listen_rule_of(int s, uint16_t port)
{
	const struct fwd_spec *spec = fwd_dir_spec(FWD_DIR_TCP_IN);
	union sockaddr_inany local = { .sa.sa_family = AF_UNSPEC };
	socklen_t sl = sizeof(local);
	union inany_addr a;
	uint16_t p;

	if (!fwd_port_shared(spec, port))
		return fwd_port_rule(spec, port);

	if (getsockname(s, &local.sa, &sl) ||
	    (local.sa.sa_family != AF_INET && local.sa.sa_family != AF_INET6))
		return NULL;
	inany_from_sockaddr(&a, &p, &local);
	return fwd_rule_at(spec, port, &a);
}

/**
 * tcp_conn_from_host() - a forwarded port accepted a connection
 * @c:		execution context
 * @s:		accepted socket
 * @peer:	peer address
 * @r:		rule the connection came to, NULL if none
 * @port:	forwarded (listening) port
 * @now_ms:	current time
 */
static void tcp_conn_from_host(const struct ctx *c, int s,
			       const union sockaddr_inany *peer,
			       const struct fwd_rule *r, uint16_t port,
			       uint64_t now_ms)
{
	struct tcp_conn *conn;
	struct flow_key key;
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT;
	uint16_t peer_port;
	bool v4;

	memset(&key, 0, sizeof(key));
	inany_from_sockaddr(&key.remote_addr, &peer_port, peer);
	v4 = inany_v4(&key.remote_addr) != NULL;
	if ((v4 && !c->ip4.enabled) || (!v4 && !c->ip6.enabled)) {
		close(s);
		return;
	}

	nat_inbound(c, &key.remote_addr, &key.remote_addr);
	if (tcp_listen_target(c, r, &key.remote_addr, &key.guest_addr)) {
		close(s);
		return;
	}
	key.remote_port = peer_port;
	key.guest_port = r ? fwd_rule_target(r, port) : port;
	key.proto = IPPROTO_TCP;

	if (flow_lookup(&key) != FLOW_IDX_NONE) {
		close(s);
		return;
	}

	tcp_sock_opts(c, s);
	conn = tcp_conn_new(c, s, true);
	if (!conn) {
		/* The host peer sees the connection refused (reset) */
		tcp_limit_warn(c, TCP_LIMIT_FLOWS, now_ms);
		tcp_stats.conns_refused++;
		tcp_sock_reset(s);
		return;
	}

	conn->v4 = v4;
	conn->guest_addr = key.guest_addr;
	conn->remote_addr = key.remote_addr;
	conn->guest_port = key.guest_port;
	conn->remote_port = key.remote_port;
	conn->ws_to_guest = TCP_WS_OURS;
	conn->mss = (uint16_t)MIN(mtu - (v4 ? 20 : 40) - TCP_HDR_LEN, 65535U);
	conn->seq_acked = tcp_isn(conn, now_ms);
	conn->seq_to_guest = conn->seq_acked + 1;
	conn->seq_max_sent = conn->seq_to_guest;
	conn->state = CONN_SYN_SENT;
	conn->wnd_to_guest = tcp_wnd_for_guest(c, conn);

	if (flow_hash_insert(conn->flow, &key)) {
		tcp_conn_close(c, conn, true);
		return;
	}

	tcp_stats.conns_in++;
	tcp_send_syn(c, conn, false);
	tcp_timer_arm(conn, now_ms, TCP_RTO_INIT_MS);
}

/**
 * tcp_listen_handler() - connections to accept on a forwarded port
 * @c:		execution context
 * @ref:	epoll reference: listening socket and its port
 * @events:	epoll events
 * @now_ms:	current time
 */
void tcp_listen_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms)
{
	int i;

	(void)events;

	for (i = 0; i < TCP_ACCEPT_BATCH; i++) {
		union sockaddr_inany peer = { 0 };
		const struct fwd_rule *r;
		socklen_t sl = sizeof(peer);
		int s;

		s = accept4((int)ref.fd, &peer.sa, &sl,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (s < 0 && (errno == EMFILE || errno == ENFILE)) {
			/* A half-open guest connection, or an idle UDP or
			 * echo flow, can give up its descriptor; if none,
			 * reset the pending connection, or the listening
			 * socket stays readable for ever
			 */
			if (tcp_make_room(c, now_ms))
				continue;
			tcp_limit_warn(c, TCP_LIMIT_NOFILE, now_ms);
			tcp_stats.conns_refused++;
			if (tcp_accept_refuse((int)ref.fd))
				continue;
			return;
		}
		if (s < 0) {
			/* EBADF, EINVAL, ENOTSOCK: "auto" closed the socket
			 * earlier in this batch of events
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EBADF && errno != EINVAL &&
			    errno != ENOTSOCK)
				warn_perror_rl("TCP: accept on port %u",
					       ref.data);
			return;
		}

		r = tcp_listen_rule_of(s, (uint16_t)ref.data);
		if (tcp_listen_splice(c, s, &peer, r, (uint16_t)ref.data))
			continue;
		tcp_conn_from_host(c, s, &peer, r, (uint16_t)ref.data, now_ms);
	}
}

/**
 * tcp_fwd_rule_open() - listen on a port of a forwarding rule
 * @c:		execution context
 * @r:		rule
 * @port:	port
 * @in_ns:	in the namespace (-T), else on the host (-t)
 * @freebind:	-t: bind the rule's address even if the host doesn't have it
 * @h:		descriptors set, -1 for none
 *
 * Return: 0 on success, negative errno on failure
 */
static int tcp_fwd_rule_open(const struct ctx *c, const struct fwd_rule *r,
			     uint16_t port, bool in_ns, bool freebind,
			     int h[2])
{
	if (in_ns)
		return tcp_splice_listen_rule(c, r, port, h);
	return tcp_listen_rule(c, r, port, freebind, h);
}

/**
 * tcp_fwd_auto_open() - listen on a port found by "auto" forwarding
 * @c:		execution context
 * @port:	port
 * @in_ns:	in the namespace (-T), else on the host (-t)
 * @h:		descriptors set, -1 for none
 *
 * Return: 0 on success, negative errno on failure
 */
static int tcp_fwd_auto_open(const struct ctx *c, uint16_t port, bool in_ns,
			     int h[2])
{
	if (in_ns)
		return tcp_splice_listen_auto(c, port, h);
	return tcp_listen_auto(c, port, h);
}

/**
 * tcp_fwd_close() - close a listening socket of a forwarded port
 * @c:		execution context (unused)
 * @h:		its descriptor
 */
static void tcp_fwd_close(const struct ctx *c, int h)
{
	(void)c;
	close(h);
}

static const struct fwd_sock_ops tcp_fwd_sock_ops = {
	.rule_open = tcp_fwd_rule_open,
	.auto_open = tcp_fwd_auto_open,
	.close = tcp_fwd_close,
};

/**
 * tcp_listen_register() - give fwd/ the functions for TCP's listeners
 */
void tcp_listen_register(void)
{
	fwd_sock_register(FWD_TCP, &tcp_fwd_sock_ops);
}
