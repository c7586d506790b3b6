// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_splice.c - loopback to loopback between host and namespace, socket to
 *		  socket: -U, and -u from the host's loopback (pasta)
 *
 * Theory of operation
 *
 * A datagram arriving on a listening socket that splices (a -U socket,
 * bound inside the namespace, see udp_fwd.c; with --splice-only, also a -u
 * socket on the host) belongs to a flow keyed by the peer's address and
 * port and the address and port it was sent to. A socket bound to a
 * wildcard (@pktinfo: a -U socket on every loopback address, a -u socket
 * of pasta) learns that address from each datagram (IP_PKTINFO,
 * IPV6_PKTINFO), and sends the replies from it with the same control
 * message: a client's socket connected to 127.0.0.53 only takes answers
 * from 127.0.0.53. A new flow gets a socket on the other side, connect()ed
 * to:
 *
 * - -U (namespace to host): the rule's target address, or else the same
 *   loopback address on the host (or, for a socket bound to another
 *   address, the host's loopback of the family), from the peer's own
 *   loopback address and port, as upstream's (a socket in the relay's
 *   namespace);
 * - -u (host to namespace, pasta): the guest's own address of the
 *   family, as for TCP (the datagram then crosses the namespace's loopback
 *   interface, but services bound to its loopback only are not exposed),
 *   or with --host-lo-to-ns-lo (implied by --splice-only) the loopback
 *   address the datagram was sent to, from the peer's port (a socket the
 *   worker thread opens in the namespace, ns_run()). Only peers on the
 *   host's loopback, to rules without a target address, are spliced; with
 *   a target address, datagrams go through the tap device, as upstream's
 *   (and --splice-only drops them).
 *
 * The peer's port is kept if it can be bound on the other side (else the
 * kernel picks one), so that protocols answering to a fixed port work;
 * unless it is the target port itself (upstream keeps that one too: its
 * socket would then take what it sends to a server sharing the port).
 * The target port is the one the rule listening where the datagram came
 * maps to (rules at several addresses may share a port).
 *
 * -U sockets and, with --splice-only, -u sockets are read here, with
 * recvmmsg() through one static batch of buffers; datagrams to the
 * namespace's other addresses, which cross its loopback interface too,
 * are dropped; so are those of a -u peer that is not on the host's
 * loopback (--splice-only forwards loopback traffic only). Otherwise, -u
 * sockets are read into frames by udp_fwd.c, which hands the datagrams
 * of loopback peers to udp_splice_from_host(), one send() each. Datagrams
 * then move between the two sockets with no guest interface and no frames
 * involved:
 *
 * - from the peer: read a batch from the listening socket; consecutive
 *   datagrams of the same flow leave in one sendmmsg() on its socket;
 * - back to the peer: read a batch from the flow's socket (its epoll
 *   reference carries the flow index) and send it with sendmmsg() from the
 *   listening socket to the peer.
 *
 * Both sockets are level-triggered and each event moves at most one batch,
 * so a busy flow can't hold up the others. Datagrams the destination can't
 * take (its buffer is full) are dropped and counted, as UDP allows.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp.h"
#include "udp_internal.h"
#include "../conf/fwd_spec.h"
#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/idle_trim.h"
#include "../fwd/fwd_listen.h"
#include "../util/ns_worker.h"
#include "../guest/follow.h"
#include "../guest/guest.h"

/* System calls after start-up: loopback datagrams between host and
 * namespace
 */
SYSCALLS(SYSCALLS_PASTA,
	 SYSCALLS_SOCKET("a spliced flow, IPv4", AF_INET, SOCK_DGRAM,
			 IPPROTO_UDP),
	 SYSCALLS_SOCKET("a spliced flow, IPv6", AF_INET6, SOCK_DGRAM,
			 IPPROTO_UDP),
	 SYSCALLS_SETSOCKOPT("SO_REUSEADDR", SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT("IPV6_V6ONLY", IPPROTO_IPV6),
	 SYSCALLS_CALL("bind", "the flow's source address"),
	 SYSCALLS_CALL("connect", "the flow's destination"),
	 SYSCALLS_CALL("recvmmsg", "a batch of datagrams"),
	 SYSCALLS_CALL("sendmmsg", "a run of them, to the other side"),
	 SYSCALLS_CALL("sendto", "one datagram (send())"),
	 SYSCALLS_CALL("close", "a socket that failed to set up"));

static uint8_t udp_splice_buf[UDP_SPLICE_BATCH][UDP_DGRAM_MAX];
static struct iovec udp_splice_iov[UDP_SPLICE_BATCH];
static struct mmsghdr udp_splice_mm[UDP_SPLICE_BATCH];
static union sockaddr_inany udp_splice_names[UDP_SPLICE_BATCH];
static struct udp_ctl udp_splice_ctl[UDP_SPLICE_BATCH];

/**
 * udp_splice_init() - let the idle hand-back take the batch buffers' pages
 *
 * A batch is read and written within one event: datagrams sendmmsg()
 * refuses are dropped and counted, never kept, so the buffers hold nothing
 * between events and need no busy check.
 */
void udp_splice_init(void)
{
	idle_trim_register(udp_splice_buf, sizeof(udp_splice_buf), NULL);
}

/**
 * udp_splice_recv() - read a batch of datagrams into the splice buffers
 * @fd:		socket
 * @names:	store source addresses in udp_splice_names, and control
 *		messages (destination addresses) in udp_splice_ctl
 *
 * Return: number of datagrams read, 0 if none or on error
 */
static unsigned int udp_splice_recv(int fd, bool names)
{
	unsigned int i;
	int n;

	for (i = 0; i < UDP_SPLICE_BATCH; i++) {
		struct msghdr *mh = &udp_splice_mm[i].msg_hdr;

		udp_splice_iov[i].iov_base = udp_splice_buf[i];
		udp_splice_iov[i].iov_len = UDP_DGRAM_MAX;

		memset(&udp_splice_mm[i], 0, sizeof(udp_splice_mm[i]));
		mh->msg_iov = &udp_splice_iov[i];
		mh->msg_iovlen = 1;
		if (names) {
			mh->msg_name = &udp_splice_names[i];
			mh->msg_namelen = sizeof(udp_splice_names[i]);
			mh->msg_control = udp_splice_ctl[i].buf;
			mh->msg_controllen = sizeof(udp_splice_ctl[i].buf);
		}
	}

	n = recvmmsg(fd, udp_splice_mm, UDP_SPLICE_BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return 0;

	/* Send exactly what was received */
	for (i = 0; i < (unsigned int)n; i++) {
		udp_splice_iov[i].iov_len = udp_splice_mm[i].msg_len;
		udp_splice_ctl[i].len = names ?
			udp_splice_mm[i].msg_hdr.msg_controllen : 0;
	}

	return (unsigned int)n;
}

/**
 * udp_ctl_dst() - destination address of a datagram on a listening socket
 * @l:		listening socket
 * @ctl:	control messages received with the datagram, NULL if none
 * @dst:	set to the destination: the socket's address, or for a
 *		socket bound to a wildcard (@pktinfo), the one the datagram
 *		was sent to
 */
void udp_ctl_dst(const struct udp_lsn *l, const struct udp_ctl *ctl,
		 union inany_addr *dst)
{
	struct msghdr mh = { 0 };
	struct cmsghdr *cm;

	*dst = l->addr;
	if (!l->pktinfo || !ctl)
		return;

	mh.msg_control = (void *)ctl->buf;
	mh.msg_controllen = ctl->len;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			inany_from_v4(dst, pi.ipi_addr);
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
			   cm->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			dst->a6 = pi.ipi6_addr;
		}
	}
}

/**
 * udp_splice_src_ctl() - control message setting the source of datagrams
 * @buf:	room for it, UDP_CTL_LEN bytes, aligned
 * @src:	source address
 *
 * Return: length of the control message
 */
static size_t udp_splice_src_ctl(uint8_t *buf, const union inany_addr *src)
{
	struct cmsghdr *cm = (struct cmsghdr *)(void *)buf;
	const struct in_addr *v4 = inany_v4(src);

	memset(buf, 0, UDP_CTL_LEN);
	if (v4) {
		struct in_pktinfo pi = { .ipi_spec_dst = *v4 };

		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_addr = src->a6 };

		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		return CMSG_SPACE(sizeof(pi));
	}
}

/**
 * udp_splice_send() - send received datagrams on a socket
 * @fd:		socket
 * @first:	first datagram of the batch to send
 * @n:		number of datagrams
 * @to:		destination, NULL if @fd is connected
 * @from:	source address to set, NULL to leave it to the kernel
 */
static void udp_splice_send(int fd, unsigned int first, unsigned int n,
			    const union sockaddr_inany *to,
			    const union inany_addr *from)
{
	union {
		struct cmsghdr align;
		uint8_t buf[UDP_CTL_LEN];
	} ctl;
	struct mmsghdr mm[UDP_SPLICE_BATCH];
	size_t ctl_len = 0;
	socklen_t sl = 0;
	unsigned int i;
	int sent;

	if (to)
		sl = to->sa.sa_family == AF_INET ? sizeof(to->sa4)
						 : sizeof(to->sa6);
	if (from)
		ctl_len = udp_splice_src_ctl(ctl.buf, from);

	for (i = 0; i < n; i++) {
		memset(&mm[i], 0, sizeof(mm[i]));
		mm[i].msg_hdr.msg_iov = &udp_splice_iov[first + i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = (void *)to;
		mm[i].msg_hdr.msg_namelen = sl;
		if (ctl_len) {
			mm[i].msg_hdr.msg_control = ctl.buf;
			mm[i].msg_hdr.msg_controllen = ctl_len;
		}
	}

	for (i = 0; i < n; i += (unsigned int)sent) {
		sent = sendmmsg(fd, mm + i, n - i, MSG_DONTWAIT);
		if (sent <= 0) {
			/* Skip the datagram that failed, go on with the rest */
			udp_stats.drop_splice++;
			sent = 1;
		}
	}
}

/**
 * struct udp_splice_conn - a socket to open and connect
 * @sa:		destination
 * @sl:		its length
 * @src:	source to bind to: address, and the peer's port
 * @src_len:	its length, 0 to leave the source to the kernel
 */
struct udp_splice_conn {
	union sockaddr_inany sa;
	socklen_t sl;
	union sockaddr_inany src;
	socklen_t src_len;
};

/**
 * udp_splice_bind() - bind a flow socket to the peer's address and port
 * @s:		socket
 * @conn:	source, set
 *
 * As upstream's flow sockets: IPv6 only for IPv6, and SO_REUSEADDR, so
 * that flows of one peer port to two addresses may both keep it. The port
 * may still be taken (by a server without SO_REUSEADDR): then the address
 * alone, with a port the kernel picks.
 */
static void udp_splice_bind(int s, struct udp_splice_conn *conn)
{
	int one = 1;

	if (conn->src.sa.sa_family == AF_INET6 &&
	    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		debug("UDP splice: can't set IPV6_V6ONLY: %s", strerror(errno));
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		debug("UDP splice: can't set SO_REUSEADDR: %s", strerror(errno));
	if (!bind(s, &conn->src.sa, conn->src_len))
		return;

	if (conn->src.sa.sa_family == AF_INET)
		conn->src.sa4.sin_port = 0;
	else
		conn->src.sa6.sin6_port = 0;
	if (bind(s, &conn->src.sa, conn->src_len))
		debug("UDP splice: can't bind the flow's source: %s",
		      strerror(errno));
}

/**
 * udp_splice_connect() - open a UDP socket connected to a destination
 * @arg:	struct udp_splice_conn
 *
 * Runs in the relay's namespace (-U flows), or inside the target namespace
 * through ns_run() (-u flows).
 *
 * Return: connected socket, or -errno
 */
static int udp_splice_connect(void *arg)
{
	struct udp_splice_conn *conn = arg;
	int s, ret;

	s = socket(conn->sa.sa.sa_family,
		   SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s < 0)
		return -errno;
	udp_sock_rcvbuf(s);
	if (conn->src_len)
		udp_splice_bind(s, conn);

	if (connect(s, &conn->sa.sa, conn->sl)) {
		ret = -errno;
		close(s);
		return ret;
	}

	return s;
}

/**
 * udp_splice_ns_dst() - destination in the namespace of a -u flow
 * @c:		execution context
 * @v4:		IPv4 (else IPv6)
 * @lo_dst:	loopback address the datagram was sent to on the host
 * @dst:	set to the guest's address of the family, or with
 *		--host-lo-to-ns-lo @lo_dst (or the namespace's loopback
 *		address, if @lo_dst isn't one)
 */
static void udp_splice_ns_dst(const struct ctx *c, bool v4,
			      const union inany_addr *lo_dst,
			      union inany_addr *dst)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);

	if (c->host_lo_to_ns_lo) {
		if (inany_is_loopback(lo_dst))
			*dst = *lo_dst;
		else
			inany_lo_or_any(dst, v4, true);
		return;
	}

	if (v4) {
		struct in_addr a = guest_addr4();

		if (!a.s_addr)
			a = ip4->addr;
		if (!a.s_addr)
			a.s_addr = htonl(INADDR_LOOPBACK);
		inany_from_v4(dst, a);
		return;
	}

	memset(dst, 0, sizeof(*dst));
	dst->a6 = *guest_addr6();
	if (IN6_IS_ADDR_UNSPECIFIED(&dst->a6))
		dst->a6 = ip6->addr;
	if (IN6_IS_ADDR_UNSPECIFIED(&dst->a6))
		dst->a6 = in6addr_loopback;
}

/**
 * udp_splice_sock() - open the other side's socket of a spliced flow
 * @c:		execution context
 * @l:		listening socket the flow arrived on: -U in the namespace,
 *		or -u on the host
 * @peer:	the peer
 * @dst:	destination of the datagram on the listening side
 *
 * Return: connected socket, or -errno (-ENETUNREACH: a -u rule with a
 *	   target address, not spliced)
 */
static int udp_splice_sock(const struct ctx *c, const struct udp_lsn *l,
			   const union sockaddr_inany *peer,
			   const union inany_addr *dst)
{
	const struct fwd_spec *spec = fwd_dir_spec(l->in_ns ? FWD_DIR_UDP_OUT :
							      FWD_DIR_UDP_IN);
	const struct fwd_rule *r = fwd_rule_at(spec, l->port, &l->addr);
	bool to_addr = r && !inany_is_unspecified(&r->to_addr);
	struct udp_splice_conn conn = { .src_len = 0 };
	union inany_addr to, from;
	uint16_t peer_port, port;

	inany_from_sockaddr(&from, &peer_port, peer);
	if (!l->in_ns) {
		if (to_addr)
			return -ENETUNREACH;
		udp_splice_ns_dst(c, l->v4, dst, &to);
		inany_lo_or_any(&from, l->v4, false);
	} else if (to_addr) {
		to = r->to_addr;
	} else if (inany_is_loopback(dst)) {
		to = *dst;
	} else {
		inany_lo_or_any(&to, l->v4, true);
	}

	port = r ? fwd_rule_target(r, l->port) : l->port;
	conn.sl = sockaddr_from_inany(&conn.sa, &to, port, 0);

	/* The peer's port, but not the target's own: our socket, connected
	 * to the server's address and port, would take the server's replies
	 * and the datagrams we send it, if the server lets us share its port
	 */
	if (peer_port == port)
		peer_port = 0;
	if (!inany_v4(&from) == !inany_v4(&to))
		conn.src_len = sockaddr_from_inany(&conn.src, &from,
						   peer_port, 0);
	if (l->in_ns)
		return udp_splice_connect(&conn);
	return ns_run(udp_splice_connect, &conn);
}

/**
 * udp_splice_peer_ok() - may a peer start a spliced flow?
 * @l:		listening socket
 * @peer:	the peer
 *
 * Return: true for a peer of the socket's family, which for a -u socket on
 *	   the host must also be on the host's loopback
 */
static bool udp_splice_peer_ok(const struct udp_lsn *l,
			       const union sockaddr_inany *peer)
{
	if (peer->sa.sa_family != (l->v4 ? AF_INET : AF_INET6))
		return false;
	if (l->in_ns)
		return true;
	if (l->v4)
		return (ntohl(peer->sa4.sin_addr.s_addr) >> IN_CLASSA_NSHIFT) ==
		       IN_LOOPBACKNET;
	return IN6_IS_ADDR_LOOPBACK(&peer->sa6.sin6_addr);
}

/**
 * udp_splice_flow() - find or start the spliced flow of a peer
 * @c:		execution context
 * @l:		listening socket (-U, or -u)
 * @li:		its index
 * @peer:	the peer
 * @dst:	destination of the datagram on the listening side
 * @now_ms:	current time
 *
 * Return: flow index, FLOW_IDX_NONE if the datagram must be dropped
 */
static uint32_t udp_splice_flow(const struct ctx *c, const struct udp_lsn *l,
				uint32_t li, const union sockaddr_inany *peer,
				const union inany_addr *dst, uint64_t now_ms)
{
	struct flow_key key;
	struct udp_flow *uf;
	uint32_t idx;
	int s;

	if (!udp_splice_peer_ok(l, peer)) {
		udp_stats.drop_no_flow++;
		return FLOW_IDX_NONE;
	}

	/* Bound to the whole loopback interface: the namespace's own other
	 * addresses arrive there too, and are not ours to forward
	 */
	if (l->lo_all && !inany_is_loopback(dst)) {
		udp_stats.drop_no_flow++;
		return FLOW_IDX_NONE;
	}

	/* Loopback addresses: never the key of a guest flow */
	memset(&key, 0, sizeof(key));
	inany_from_sockaddr(&key.guest_addr, &key.guest_port, peer);
	key.remote_addr = *dst;
	key.remote_port = l->port;
	key.proto = IPPROTO_UDP;

	idx = flow_lookup(&key);
	if (idx != FLOW_IDX_NONE) {
		uf = udp_flow_at(idx);
		if (!uf || uf->kind != UDP_KIND_SPLICE)
			return FLOW_IDX_NONE;
		udp_flow_touch(uf, now_ms);
		return idx;
	}

	s = udp_splice_sock(c, l, peer, dst);
	if (s < 0) {
		udp_stats.drop_no_flow++;
		debug("%s: can't open a socket toward the %s for port %u: %s",
		      l->in_ns ? "-U" : "-u", l->in_ns ? "host" : "namespace",
		      l->port, strerror(-s));
		return FLOW_IDX_NONE;
	}

	idx = udp_flow_new(c, UDP_KIND_SPLICE, l->v4, now_ms);
	if (idx == FLOW_IDX_NONE) {
		close(s);
		return FLOW_IDX_NONE;
	}

	uf = udp_flow_at(idx);
	uf->sock = s;
	uf->lsn = li;
	uf->peer = *peer;
	if (udp_epoll_add(c, s, idx, false) || flow_hash_insert(idx, &key)) {
		udp_stats.drop_no_flow++;
		udp_flow_close(c, idx);
		return FLOW_IDX_NONE;
	}

	udp_stats.flows_splice++;
	trace("UDP flow %u: %s port %u spliced from the %s", idx,
	      l->in_ns ? "-U" : "-u", l->port, l->in_ns ? "namespace" : "host");
	return idx;
}

/**
 * udp_splice_from_host() - splice one datagram of a -u socket, if it comes
 *			    from the host's loopback
 * @c:		execution context
 * @l:		-u socket, whose rule has no target address
 * @li:		its index
 * @peer:	source of the datagram
 * @ctl:	control messages received with it, NULL if none
 * @data:	payload
 * @len:	its length, SIZE_MAX if it was truncated
 * @now_ms:	current time
 *
 * Return: true if the datagram was taken here (sent, or dropped), false if
 *	   it goes to the guest through the tap device
 */
bool udp_splice_from_host(const struct ctx *c, const struct udp_lsn *l,
			  uint32_t li, const union sockaddr_inany *peer,
			  const struct udp_ctl *ctl, const uint8_t *data,
			  size_t len, uint64_t now_ms)
{
	const struct udp_flow *uf;
	union inany_addr dst;

	if (!udp_splice_peer_ok(l, peer))
		return false;

	if (len == SIZE_MAX) {
		udp_stats.drop_splice++;
		return true;
	}

	udp_ctl_dst(l, ctl, &dst);
	uf = udp_flow_at(udp_splice_flow(c, l, li, peer, &dst, now_ms));
	if (uf && send(uf->sock, data, len, MSG_DONTWAIT) < 0)
		udp_stats.drop_splice++;
	return true;
}

/**
 * udp_splice_from_ns() - datagrams on a listening socket that splices: to
 *			  the other side's loopback
 * @c:		execution context
 * @l:		-U socket, or -u socket with --splice-only
 * @li:		its index
 * @now_ms:	current time
 */
void udp_splice_from_ns(const struct ctx *c, struct udp_lsn *l, uint32_t li,
			uint64_t now_ms)
{
	unsigned int n = udp_splice_recv(l->fd, true), i, run = 0;
	const struct udp_flow *prev = NULL;

	/* Runs of consecutive datagrams of one flow leave in one call */
	for (i = 0; i < n; i++) {
		const struct udp_flow *uf;
		union inany_addr dst;
		uint32_t idx;

		udp_ctl_dst(l, &udp_splice_ctl[i], &dst);
		idx = udp_splice_flow(c, l, li, &udp_splice_names[i], &dst,
				      now_ms);
		uf = udp_flow_at(idx);
		if (uf != prev && prev && run) {
			udp_splice_send(prev->sock, i - run, run, NULL, NULL);
			run = 0;
		}
		prev = uf;
		if (uf)
			run++;
	}

	if (prev && run)
		udp_splice_send(prev->sock, n - run, run, NULL, NULL);
}

/**
 * udp_splice_to_ns() - datagrams on a spliced flow's own socket: to the
 *			peer, from the listening socket
 * @c:		execution context
 * @idx:	flow index
 * @l:		its listening socket (udp_lsn_at() of the flow's @lsn), or
 *		NULL if that is closed
 * @now_ms:	current time
 */
void udp_splice_to_ns(const struct ctx *c, uint32_t idx,
		      const struct udp_lsn *l, uint64_t now_ms)
{
	struct udp_flow *uf = udp_flow_at(idx);
	const struct flow_key *key;
	unsigned int n;

	(void)c;

	if (!uf || !l)
		return;

	/* An error (a refused datagram) is consumed by this read */
	n = udp_splice_recv(uf->sock, false);
	if (!n)
		return;

	udp_flow_touch(uf, now_ms);
	key = flow_key_of(idx);
	udp_splice_send(l->fd, 0, n, &uf->peer,
			l->pktinfo && key ? &key->remote_addr : NULL);
}
