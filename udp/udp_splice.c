// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_splice.c - loopback to loopback between host and namespace, socket to
 *		  socket: -U, and -u with --splice-only
 *
 * Theory of operation
 *
 * A datagram arriving on a listening socket that splices (a -U socket,
 * bound inside the namespace, see udp_fwd.c; with --splice-only, also a -u
 * socket on the host) belongs to a flow keyed by the peer's address and
 * port and the address and port it was sent to. A -U socket bound to every
 * loopback address (@lo_all) learns that address from each datagram
 * (IP_PKTINFO, IPV6_PKTINFO), and sends the replies from it with the same
 * control message: a client's socket connected to 127.0.0.53 only takes
 * answers from 127.0.0.53. A new flow gets a socket on the other side,
 * connect()ed to the same loopback address (or to the rule's target
 * address, or else that side's loopback of the family) at the port
 * fwd_port_target() maps to: for -U, a socket in the relay's (host)
 * namespace; for -u, one opened inside the namespace by the worker thread
 * (ns_run()). Datagrams to the namespace's other addresses, which cross
 * its loopback interface too, are dropped; so are those of a -u peer that
 * is not on the host's loopback (--splice-only forwards loopback traffic
 * only). Datagrams then move between the two sockets with recvmmsg() and
 * sendmmsg(), through one static batch of buffers, with no guest
 * interface and no frames involved:
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
#include "../conf/fwd.h"
#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../fwd/fwd_listen.h"
#include "../util/ns_worker.h"

/* System calls after start-up: Loopback datagrams between host and namespace */
SYSCALLS(SYSCALLS_PASTA, "recvmmsg", "sendmmsg", "socket", "connect", "close");

/* Room for the one control message we ask for: the destination */
#define UDP_SPLICE_CTL_LEN	CMSG_SPACE(sizeof(struct in6_pktinfo))

static uint8_t udp_splice_buf[UDP_SPLICE_BATCH][UDP_DGRAM_MAX];
static struct iovec udp_splice_iov[UDP_SPLICE_BATCH];
static struct mmsghdr udp_splice_mm[UDP_SPLICE_BATCH];
static union sockaddr_inany udp_splice_names[UDP_SPLICE_BATCH];
static union {
	struct cmsghdr align;
	uint8_t buf[UDP_SPLICE_CTL_LEN];
} udp_splice_ctl[UDP_SPLICE_BATCH];

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
	for (i = 0; i < (unsigned int)n; i++)
		udp_splice_iov[i].iov_len = udp_splice_mm[i].msg_len;

	return (unsigned int)n;
}

/**
 * udp_splice_dst() - destination address of a datagram read from a -U socket
 * @l:		-U socket
 * @mh:		its message header, from udp_splice_recv()
 * @dst:	set to the destination
 */
static void udp_splice_dst(const struct udp_lsn *l, struct msghdr *mh,
			   union inany_addr *dst)
{
	struct cmsghdr *cm;

	*dst = l->addr;
	if (!l->lo_all)
		return;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
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
 * @buf:	room for it, UDP_SPLICE_CTL_LEN bytes, aligned
 * @src:	source address
 *
 * Return: length of the control message
 */
static size_t udp_splice_src_ctl(uint8_t *buf, const union inany_addr *src)
{
	struct cmsghdr *cm = (struct cmsghdr *)(void *)buf;
	const struct in_addr *v4 = inany_v4(src);

	memset(buf, 0, UDP_SPLICE_CTL_LEN);
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
		uint8_t buf[UDP_SPLICE_CTL_LEN];
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
 */
struct udp_splice_conn {
	union sockaddr_inany sa;
	socklen_t sl;
};

/**
 * udp_splice_connect() - open a UDP socket connected to a destination
 * @arg:	struct udp_splice_conn
 *
 * Runs in the relay's namespace (-U flows), or inside the target namespace
 * through ns_run() (-u flows with --splice-only).
 *
 * Return: connected socket, or -errno
 */
static int udp_splice_connect(void *arg)
{
	const struct udp_splice_conn *conn = arg;
	int s, ret;

	s = socket(conn->sa.sa.sa_family,
		   SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s < 0)
		return -errno;
	udp_sock_rcvbuf(s);

	if (connect(s, &conn->sa.sa, conn->sl)) {
		ret = -errno;
		close(s);
		return ret;
	}

	return s;
}

/**
 * udp_splice_sock() - open the other side's socket of a spliced flow
 * @l:		listening socket the flow arrived on: -U in the namespace,
 *		or -u on the host (--splice-only)
 * @ns_dst:	destination of the datagram on the listening side
 *
 * The destination is the rule's target address, if any, else the same
 * loopback address, else (a socket bound to another address) the other
 * side's loopback of the family.
 *
 * Return: connected socket, or -errno
 */
static int udp_splice_sock(const struct udp_lsn *l,
			   const union inany_addr *ns_dst)
{
	const struct fwd_spec *spec = fwd_dir_spec(l->in_ns ? FWD_DIR_UDP_OUT :
							      FWD_DIR_UDP_IN);
	const struct fwd_rule *r = fwd_port_rule(spec, l->port);
	struct udp_splice_conn conn;
	union inany_addr dst;

	if (r && !inany_is_unspecified(&r->to_addr))
		dst = r->to_addr;
	else if (inany_is_loopback(ns_dst))
		dst = *ns_dst;
	else
		inany_lo_or_any(&dst, l->v4, true);

	conn.sl = sockaddr_from_inany(&conn.sa, &dst,
				      fwd_port_target(spec, l->port), 0);
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
 * @l:		listening socket (-U, or -u with --splice-only)
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

	s = udp_splice_sock(l, dst);
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

		udp_splice_dst(l, &udp_splice_mm[i].msg_hdr, &dst);
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
 * @now_ms:	current time
 */
void udp_splice_to_ns(const struct ctx *c, uint32_t idx, uint64_t now_ms)
{
	struct udp_flow *uf = udp_flow_at(idx);
	const struct flow_key *key;
	const struct udp_lsn *l;
	unsigned int n;

	(void)c;

	if (!uf)
		return;
	l = udp_lsn_at(uf->lsn);
	if (!l)
		return;

	/* An error (a refused datagram) is consumed by this read */
	n = udp_splice_recv(uf->sock, false);
	if (!n)
		return;

	udp_flow_touch(uf, now_ms);
	key = flow_key_of(idx);
	udp_splice_send(l->fd, 0, n, &uf->peer,
			l->lo_all && key ? &key->remote_addr : NULL);
}
