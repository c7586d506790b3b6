// SPDX-License-Identifier: GPL-2.0-or-later
/* udp_err.c - ICMP errors of host sockets, reflected to the guest
 *
 * Theory of operation
 *
 * A datagram the relay sends for the guest may bounce: the destination
 * port is closed, or the host or network is unreachable. The kernel then
 * gets an ICMP error, which the guest must see too, or a connected UDP
 * socket in the guest waits forever instead of failing with ECONNREFUSED.
 *
 * Flow sockets have IP_RECVERR (IPV6_RECVERR) set, so each error is queued
 * on the socket's error queue with the payload of the datagram that caused
 * it, and the socket reports EPOLLERR. udp_err_drain() reads the queue and,
 * for "destination unreachable" errors (except "fragmentation needed",
 * which is about path MTU, not reachability), sends the guest the same
 * ICMP or ICMPv6 type and code, quoting an IP and UDP header rebuilt from
 * the flow (from the guest's address and port to the remote address and
 * port, as the guest sent it) and the start of the payload. The error
 * comes from the flow's remote address as the guest knows it, unless a
 * router on the way reported it: then from that router's address.
 *
 * udp_err_refuse() uses the same quoting for datagrams the relay itself
 * cannot carry, because the flow table is full or no socket can be
 * opened (out of file descriptors): the guest gets "communication
 * administratively prohibited" (ICMP type 3 code 13, ICMPv6 type 1 code
 * 1), so that a connected socket fails at once (EHOSTUNREACH, EACCES)
 * rather than waiting for an answer.
 */

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "udp.h"
#include "udp_internal.h"
#include "../flow/flow.h"
#include "../flow/nat.h"
#include "../net/checksum.h"
#include "../net/icmp.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../net/frame.h"

/* System calls after start-up: ICMP errors from the error queue
 * (MSG_ERRQUEUE)
 */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SETSOCKOPT("IP_RECVERR", IPPROTO_IP),
	 SYSCALLS_SETSOCKOPT("IPV6_RECVERR", IPPROTO_IPV6),
	 SYSCALLS_CALL("recvmsg", "an ICMP error, from the error queue"),
	 SYSCALLS_CALL("getpeername", "did the error come from the peer?"));

/* Errors read from one socket per event */
#define UDP_ERR_BATCH		16
/* Payload quoted: an IPv4 error then fits in 576 bytes (RFC 1812 4.3.2.3) */
#define UDP_ERR_DATA_MAX	520

/**
 * udp_sock_recverr() - have ICMP errors of a socket queued for us
 * @s:		socket
 * @v4:		IPv4 (else IPv6)
 *
 * Return: 0 on success, -1 with errno set on failure
 */
int udp_sock_recverr(int s, bool v4)
{
	int one = 1;

	if (v4)
		return setsockopt(s, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	return setsockopt(s, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
}

/**
 * udp_err_wanted() - tell if an error is one the guest must see
 * @ee:		extended error from the queue
 * @v4:		the flow is IPv4 (else IPv6)
 *
 * Return: true for ICMP destination unreachable errors of the flow's family
 */
static bool udp_err_wanted(const struct sock_extended_err *ee, bool v4)
{
	if (v4)
		return ee->ee_origin == SO_EE_ORIGIN_ICMP &&
		       ee->ee_type == ICMP_DEST_UNREACH &&
		       ee->ee_code != ICMP_FRAG_NEEDED;

	return ee->ee_origin == SO_EE_ORIGIN_ICMP6 &&
	       ee->ee_type == ICMP6_DST_UNREACH;
}

/**
 * udp_err_source() - source address of the error as the guest sees it
 * @c:		execution context
 * @s:		flow socket (connected)
 * @key:	flow
 * @ee:		extended error, followed by the offender's address
 * @src:	output: the address
 */
static void udp_err_source(const struct ctx *c, int s,
			   const struct flow_key *key,
			   const struct sock_extended_err *ee,
			   union inany_addr *src)
{
	const struct sockaddr *sa = SO_EE_OFFENDER(ee);
	union sockaddr_inany off, peer = { 0 };
	union inany_addr o, p;
	socklen_t sl = sizeof(peer);
	uint16_t port;

	*src = key->remote_addr;

	if (sa->sa_family == AF_INET) {
		memcpy(&off.sa4, sa, sizeof(off.sa4));
		inany_from_v4(&o, off.sa4.sin_addr);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(&off.sa6, sa, sizeof(off.sa6));
		o.a6 = off.sa6.sin6_addr;
	} else {
		return;
	}

	if (inany_is_unspecified(&o) ||
	    getpeername(s, &peer.sa, &sl))
		return;
	inany_from_sockaddr(&p, &port, &peer);
	if (inany_equals(&o, &p))
		return;

	/* A router on the way: its address, or as it appears to the guest */
	nat_inbound(c, &o, src);
}

/**
 * udp_err_send() - send the guest an ICMP error quoting one of its datagrams
 * @c:		execution context
 * @key:	flow of the datagram
 * @src:	source of the error, as the guest sees it
 * @type:	ICMP or ICMPv6 type
 * @code:	code
 * @data:	start of the payload of the datagram
 * @dlen:	length of @data
 */
static void udp_err_send(const struct ctx *c, const struct flow_key *key,
			 const union inany_addr *src, uint8_t type,
			 uint8_t code, const uint8_t *data, size_t dlen)
{
	uint8_t pkt[L2L3_HDR_MAX + UDP_HDR_LEN + UDP_ERR_DATA_MAX];
	size_t l4len, l4off;
	struct iovec iov;
	uint16_t v, sum;

	dlen = MIN(dlen, UDP_ERR_DATA_MAX);

	/* The guest's datagram as it left the guest, Ethernet header aside */
	l4len = UDP_HDR_LEN + dlen;
	l4off = net_fill_l2l3(c, pkt, &key->guest_addr, &key->remote_addr,
			      IPPROTO_UDP, l4len);
	v = htons(key->guest_port);
	memcpy(pkt + l4off, &v, sizeof(v));
	v = htons(key->remote_port);
	memcpy(pkt + l4off + 2, &v, sizeof(v));
	v = htons((uint16_t)l4len);
	memcpy(pkt + l4off + 4, &v, sizeof(v));
	memset(pkt + l4off + 6, 0, 2);
	memcpy(pkt + l4off + UDP_HDR_LEN, data, dlen);

	iov.iov_base = pkt + l4off;
	iov.iov_len = l4len;
	sum = csum_l4(&key->guest_addr, &key->remote_addr, IPPROTO_UDP, &iov,
		      1, l4len);
	memcpy(pkt + l4off + 6, &sum, sizeof(sum));

	icmp_guest_error(c, src, &key->guest_addr, type, code,
			 pkt + ETH_HDR_LEN, l4off - ETH_HDR_LEN + l4len);
	udp_stats.icmp_errors++;
}

/**
 * udp_err_reflect() - send the guest an ICMP error for one of its datagrams
 * @c:		execution context
 * @s:		flow socket
 * @key:	flow
 * @ee:		extended error
 * @data:	start of the payload of the datagram that caused it
 * @dlen:	length of @data
 */
static void udp_err_reflect(const struct ctx *c, int s,
			    const struct flow_key *key,
			    const struct sock_extended_err *ee,
			    const uint8_t *data, size_t dlen)
{
	union inany_addr src;

	udp_err_source(c, s, key, ee, &src);
	udp_err_send(c, key, &src, ee->ee_type, ee->ee_code, data, dlen);
}

/**
 * udp_err_refuse() - tell the guest a datagram was not sent: no flow for it
 * @c:		execution context
 * @key:	flow the datagram would have started
 * @data:	its payload
 * @dlen:	length of @data
 */
void udp_err_refuse(const struct ctx *c, const struct flow_key *key,
		    const uint8_t *data, size_t dlen)
{
	if (inany_v4(&key->guest_addr))
		udp_err_send(c, key, &key->remote_addr, ICMP_DEST_UNREACH,
			     ICMP_PKT_FILTERED, data, dlen);
	else
		udp_err_send(c, key, &key->remote_addr, ICMP6_DST_UNREACH,
			     ICMP6_DST_UNREACH_ADMIN, data, dlen);
}

/**
 * udp_err_drain() - read a flow socket's error queue, reflect ICMP errors
 * @c:		execution context
 * @idx:	flow index (a flow the guest started)
 */
void udp_err_drain(const struct ctx *c, uint32_t idx)
{
	const struct udp_flow *uf = udp_flow_at(idx);
	const struct flow_key *key = flow_key_of(idx);
	unsigned int i;

	if (!uf || !key || uf->sock < 0)
		return;

	for (i = 0; i < UDP_ERR_BATCH; i++) {
		union {
			char buf[CMSG_SPACE(sizeof(struct sock_extended_err) +
					    sizeof(struct sockaddr_in6))];
			struct cmsghdr align;
		} ctl;
		const struct sock_extended_err *ee = NULL;
		uint8_t data[UDP_ERR_DATA_MAX];
		struct iovec iov = { data, sizeof(data) };
		struct msghdr mh = { 0 };
		struct cmsghdr *cm;
		ssize_t n;

		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);

		n = recvmsg(uf->sock, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (n < 0)
			return;

		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if ((cm->cmsg_level == IPPROTO_IP &&
			     cm->cmsg_type == IP_RECVERR) ||
			    (cm->cmsg_level == IPPROTO_IPV6 &&
			     cm->cmsg_type == IPV6_RECVERR)) {
				ee = (const struct sock_extended_err *)
				     (const void *)CMSG_DATA(cm);
				break;
			}
		}

		if (!ee || !udp_err_wanted(ee, uf->v4))
			continue;

		trace("UDP flow %u: ICMP error type %u code %u from the host",
		      idx, ee->ee_type, ee->ee_code);
		udp_err_reflect(c, uf->sock, key, ee, data, (size_t)n);
	}
}
