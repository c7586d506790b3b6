// SPDX-License-Identifier: GPL-2.0-or-later
/* mcast.c - multicast proxy: groups the guest joins, on the host's link
 *
 * Theory of operation
 *
 * With --mcast-ports (default none, and then nothing here runs), the relay
 * forwards UDP multicast of those ports between the guest and the host's
 * link (the template interface of each family), for the groups the guest
 * wants. mDNS (224.0.0.251 and ff02::fb, port 5353) is the usual case.
 *
 *   - Membership: the guest's IGMP and MLD reports (net/mcast_msg.c) say
 *     which groups it joins and leaves. For a group it joins, the relay
 *     opens one host socket per configured port, bound to the group and
 *     port, and joins the group with it on the template interface; a leave,
 *     or no report for MCAST_MEMBER_MS, closes them. To hear the reports
 *     again, the relay sends the guest general queries every
 *     MCAST_QUERY_MS, as the link's querier would (fwd/mcast_table.c keeps
 *     the deadlines).
 *   - Host to guest: a datagram on such a socket becomes a frame to the
 *     group's Ethernet and IP address, from the sender (as flow/nat.c shows
 *     host addresses to the guest), with a TTL of 255 for link-local groups
 *     (mDNS responders send with it), else 1.
 *   - Guest to host: a datagram of the guest to a group, on a configured
 *     port, leaves from a socket connected to the group and port, on the
 *     template interface, with a TTL of MCAST_HOST_HOPS: the host's own
 *     address and an ephemeral port as source (no translation is possible
 *     there). The guest needn't be a member to send; the socket is closed
 *     MCAST_SEND_IDLE_MS after its last datagram. Sockets on the host see
 *     the relay's own datagrams looped back: those, recognised by their
 *     source (the sending socket's own address), are not sent back to the
 *     guest. Unicast answers to these datagrams are not forwarded.
 *
 * What the guest can make the relay open is bounded: MCAST_GROUPS_MAX
 * groups, two sockets per configured port each. Frames of a group beyond
 * that are dropped and counted.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "mcast.h"
#include "mcast_table.h"
#include "../flow/nat.h"
#include "../net/checksum.h"
#include "../net/ip.h"
#include "../net/mcast_msg.h"
#include "../net/net.h"
#include "../conf/ctx.h"
#include "../qdisc/qdisc.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/timer.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../net/frame.h"

/* System calls after start-up: sockets of the groups the guest joins */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_SOCKET("a group's UDP socket", AF_INET, SOCK_DGRAM,
			 IPPROTO_UDP),
	 SYSCALLS_SOCKET("a group's UDP socket", AF_INET6, SOCK_DGRAM,
			 IPPROTO_UDP),
	 SYSCALLS_SETSOCKOPT("SO_REUSEADDR", SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT("IP_ADD_MEMBERSHIP, IP_MULTICAST_*", IPPROTO_IP),
	 SYSCALLS_SETSOCKOPT("IPV6_V6ONLY, IPV6_ADD_MEMBERSHIP, ...",
			     IPPROTO_IPV6),
	 SYSCALLS_CALL("bind", "the group's port, to receive"),
	 SYSCALLS_CALL("connect", "the group, to send to it"),
	 SYSCALLS_CALL("getsockname", "our source address toward the group"),
	 SYSCALLS_CALL("recvfrom", "datagrams sent to the group"),
	 SYSCALLS_CALL("sendto", "the guest's datagrams to it (send())"),
	 SYSCALLS_CALL("epoll_ctl", "watch a group's socket, or stop"),
	 SYSCALLS_CALL("close", "a socket of a group the guest left"));

/* Interval of general queries to the guest (RFC 3376 default) */
#define MCAST_QUERY_MS		125000
/* First query, once the guest had time to come up */
#define MCAST_FIRST_QUERY_MS	1000
/* Period of the timer: queries and deadlines */
#define MCAST_TICK_MS		1000
/* Hop limit of the datagrams we send on the host's link */
#define MCAST_HOST_HOPS		1
/* Hop limit of the frames to the guest, link-local groups and others */
#define MCAST_GUEST_TTL_LL	255
#define MCAST_GUEST_TTL		1
/* Datagrams read from a socket per event (level-triggered: more later) */
#define MCAST_READ_BATCH	32

/**
 * struct mcast_socks - host sockets of one group, per configured port
 * @rx:		bound to the group and port, member on the host's link
 * @tx:		connected to the group and port, for the guest's datagrams
 * @tx_name:	address of @tx, the source of our own looped datagrams
 */
struct mcast_socks {
	int rx[MCAST_PORTS_MAX];
	int tx[MCAST_PORTS_MAX];
	union sockaddr_inany tx_name[MCAST_PORTS_MAX];
};

/**
 * struct mcast_stats - counters of the multicast proxy
 * @joins:	groups the guest joined
 * @leaves:	groups the guest left
 * @expired:	memberships ended by the timeout
 * @to_guest:	datagrams forwarded to the guest
 * @to_host:	datagrams of the guest sent on the host's link
 * @looped:	our own datagrams, seen again on the host and dropped
 * @dropped:	datagrams or joins dropped: table full, no socket, too big
 * @queries:	general queries sent to the guest
 */
struct mcast_stats {
	uint64_t joins;
	uint64_t leaves;
	uint64_t expired;
	uint64_t to_guest;
	uint64_t to_host;
	uint64_t looped;
	uint64_t dropped;
	uint64_t queries;
};

static struct mcast_socks mcast_socks[MCAST_GROUPS_MAX];
static struct mcast_stats mcast_stats;
static unsigned int mcast_ifindex4, mcast_ifindex6;
static struct wheel_timer mcast_timer;
static uint64_t mcast_query_at;
static bool mcast_on;
static uint8_t mcast_frame[L2L3_HDR_MAX + sizeof(struct udphdr) + MTU_MAX];

/**
 * mcast_port_index() - the index of a configured port
 * @c:		execution context
 * @port:	port
 *
 * Return: index, -1 if the port is not configured
 */
static int mcast_port_index(const struct ctx *c, uint16_t port)
{
	unsigned int i;

	for (i = 0; i < c->mcast_nports; i++) {
		if (c->mcast_ports[i] == port)
			return (int)i;
	}
	return -1;
}

/**
 * mcast_close() - close one socket of a group, if open
 * @c:		execution context
 * @fd:		socket, set to -1
 * @in_epoll:	it is in the epoll set
 */
static void mcast_close(const struct ctx *c, int *fd, bool in_epoll)
{
	if (*fd < 0)
		return;
	if (in_epoll)
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, *fd, NULL);
	close(*fd);
	*fd = -1;
}

/**
 * mcast_sockaddr() - socket address of a group and port on our link
 * @sa:		output
 * @group:	group
 * @port:	port
 *
 * Return: length of the address
 */
static socklen_t mcast_sockaddr(union sockaddr_inany *sa,
				const union inany_addr *group, uint16_t port)
{
	return sockaddr_from_inany(sa, group, port, mcast_ifindex6);
}

/**
 * mcast_sock() - a UDP socket for a group's family, with a hop limit
 * @v4:		IPv4, else IPv6
 *
 * Return: socket, or -errno
 */
static int mcast_sock(bool v4)
{
	int s, one = 1;

	s = socket(v4 ? AF_INET : AF_INET6,
		   SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_UDP);
	if (s < 0)
		return -errno;
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (!v4 && setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			       sizeof(one)))) {
		int ret = -errno;

		close(s);
		return ret;
	}
	return s;
}

/**
 * mcast_rx_open() - a socket bound to a group and port, member of it
 * @c:		execution context
 * @i:		group entry
 * @pi:		port index
 *
 * Return: 0 on success, negative errno on failure
 */
static int mcast_rx_open(const struct ctx *c, int i, unsigned int pi)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_MCAST };
	const union inany_addr *g = mcast_table_group(i);
	const struct in_addr *g4 = inany_v4(g);
	struct epoll_event ev = { .events = EPOLLIN };
	union sockaddr_inany sa;
	socklen_t sl;
	int s, ret;

	s = mcast_sock(g4);
	if (s < 0)
		return s;

	sl = mcast_sockaddr(&sa, g, c->mcast_ports[pi]);
	if (bind(s, &sa.sa, sl))
		goto fail;

	if (g4) {
		struct ip_mreqn m = { .imr_multiaddr = *g4,
				      .imr_ifindex = (int)mcast_ifindex4 };

		if (setsockopt(s, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m,
			       sizeof(m)))
			goto fail;
	} else {
		struct ipv6_mreq m = { .ipv6mr_multiaddr = g->a6,
				       .ipv6mr_interface = mcast_ifindex6 };

		if (setsockopt(s, IPPROTO_IPV6, IPV6_ADD_MEMBERSHIP, &m,
			       sizeof(m)))
			goto fail;
	}

	ref.fd = (uint32_t)s;
	ref.data = ((uint32_t)i << 8) | pi;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, s, &ev))
		goto fail;

	mcast_socks[i].rx[pi] = s;
	return 0;

fail:
	ret = -errno;
	close(s);
	return ret;
}

/**
 * mcast_tx_open() - a socket connected to a group and port, on our link
 * @c:		execution context
 * @i:		group entry
 * @pi:		port index
 *
 * Return: 0 on success, negative errno on failure
 */
static int mcast_tx_open(const struct ctx *c, int i, unsigned int pi)
{
	const union inany_addr *g = mcast_table_group(i);
	struct mcast_socks *ms = &mcast_socks[i];
	int s, ret, hops = MCAST_HOST_HOPS;
	bool v4 = inany_v4(g) != NULL;
	union sockaddr_inany sa;
	socklen_t sl;

	s = mcast_sock(v4);
	if (s < 0)
		return s;

	if (v4) {
		struct ip_mreqn m = { .imr_ifindex = (int)mcast_ifindex4 };

		if (setsockopt(s, IPPROTO_IP, IP_MULTICAST_IF, &m, sizeof(m)) ||
		    setsockopt(s, IPPROTO_IP, IP_MULTICAST_TTL, &hops,
			       sizeof(hops)))
			goto fail;
	} else {
		int ifi = (int)mcast_ifindex6;

		if (setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifi,
			       sizeof(ifi)) ||
		    setsockopt(s, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops,
			       sizeof(hops)))
			goto fail;
	}

	sl = mcast_sockaddr(&sa, g, c->mcast_ports[pi]);
	if (connect(s, &sa.sa, sl))
		goto fail;
	sl = sizeof(ms->tx_name[pi]);
	if (getsockname(s, &ms->tx_name[pi].sa, &sl))
		goto fail;

	ms->tx[pi] = s;
	return 0;

fail:
	ret = -errno;
	close(s);
	return ret;
}

/**
 * mcast_member_start() - the guest joined a group: listen for it on the host
 * @c:		execution context
 * @i:		group entry
 */
static void mcast_member_start(const struct ctx *c, int i)
{
	char a[INANY_STRLEN];
	unsigned int pi;

	inany_ntop(mcast_table_group(i), a);
	for (pi = 0; pi < c->mcast_nports; pi++) {
		int ret = mcast_rx_open(c, i, pi);

		if (ret)
			warn_rl("multicast: can't join %s port %u on the "
				"host: %s", a, c->mcast_ports[pi],
				strerror(-ret));
	}
	mcast_stats.joins++;
	debug("multicast: guest joined %s", a);
}

/**
 * mcast_member_stop() - the guest left a group: stop listening for it
 * @c:		execution context
 * @i:		group entry
 */
static void mcast_member_stop(const struct ctx *c, int i)
{
	char a[INANY_STRLEN];
	unsigned int pi;

	for (pi = 0; pi < c->mcast_nports; pi++)
		mcast_close(c, &mcast_socks[i].rx[pi], true);
	debug("multicast: guest left %s",
	      inany_ntop(mcast_table_group(i), a));
}

/**
 * mcast_send_stop() - the guest stopped sending to a group
 * @c:		execution context
 * @i:		group entry
 */
static void mcast_send_stop(const struct ctx *c, int i)
{
	unsigned int pi;

	for (pi = 0; pi < c->mcast_nports; pi++)
		mcast_close(c, &mcast_socks[i].tx[pi], false);
}

/**
 * mcast_events() - act on the changes a report of the guest carries
 * @c:		execution context
 * @ev:		changes
 * @n:		number of changes
 * @now_ms:	current time
 */
static void mcast_events(const struct ctx *c, const struct mcast_event *ev,
			 int n, uint64_t now_ms)
{
	int k;

	for (k = 0; k < n; k++) {
		int i;

		if (ev[k].join) {
			i = mcast_table_get(&ev[k].group);
			if (i < 0) {
				mcast_stats.dropped++;
				continue;
			}
			if (mcast_table_joined(i, now_ms))
				mcast_member_start(c, i);
			continue;
		}

		i = mcast_table_lookup(&ev[k].group);
		if (i < 0 || !mcast_table_member(i))
			continue;
		mcast_table_left(i);
		mcast_member_stop(c, i);
		mcast_stats.leaves++;
		mcast_table_release(i);
	}
}

/**
 * mcast_guest_igmp() - an IGMP message from the guest
 * @c:		execution context
 * @msg:	message, after the IPv4 header
 * @len:	its length
 * @now_ms:	current time
 *
 * Return: 0 if handled, -1 if malformed
 */
int mcast_guest_igmp(const struct ctx *c, const uint8_t *msg, size_t len,
		     uint64_t now_ms)
{
	struct mcast_event ev[MCAST_EVENTS_MAX];
	int n = mcast_igmp_parse(msg, len, ev, MCAST_EVENTS_MAX);

	if (n < 0)
		return -1;
	mcast_events(c, ev, n, now_ms);
	return 0;
}

/**
 * mcast_guest_mld() - an MLD message from the guest
 * @c:		execution context
 * @src:	IPv6 source
 * @dst:	IPv6 destination
 * @msg:	ICMPv6 message
 * @len:	its length
 * @now_ms:	current time
 *
 * Return: 0 if handled, -1 if malformed
 */
int mcast_guest_mld(const struct ctx *c, const struct in6_addr *src,
		    const struct in6_addr *dst, const uint8_t *msg,
		    size_t len, uint64_t now_ms)
{
	struct mcast_event ev[MCAST_EVENTS_MAX];
	int n = mcast_mld_parse(src, dst, msg, len, ev, MCAST_EVENTS_MAX);

	if (n < 0)
		return -1;
	mcast_events(c, ev, n, now_ms);
	return 0;
}

/**
 * mcast_guest_udp() - a UDP datagram of the guest to a multicast group
 * @c:		execution context
 * @daddr:	destination: the group
 * @l4:		UDP header, length checked by the caller
 * @ulen:	UDP length, from its header
 * @now_ms:	current time
 *
 * Return: true if taken (sent or counted as dropped), false if the port is
 *	   not one of --mcast-ports
 */
bool mcast_guest_udp(const struct ctx *c, const union inany_addr *daddr,
		     const uint8_t *l4, size_t ulen, uint64_t now_ms)
{
	int pi = mcast_port_index(c, net_get16(l4 + 2)), i;
	struct mcast_socks *ms;

	if (!mcast_on || pi < 0)
		return false;

	i = mcast_group_ok(daddr) ? mcast_table_get(daddr) : -1;
	if (i < 0) {
		mcast_stats.dropped++;
		return true;
	}
	ms = &mcast_socks[i];
	mcast_table_sent(i, now_ms);

	if (ms->tx[pi] < 0) {
		int ret = mcast_tx_open(c, i, (unsigned int)pi);

		if (ret) {
			char a[INANY_STRLEN];

			debug("multicast: can't send to %s port %u: %s",
			      inany_ntop(daddr, a), c->mcast_ports[pi],
			      strerror(-ret));
			mcast_stats.dropped++;
			return true;
		}
	}

	if (send(ms->tx[pi], l4 + sizeof(struct udphdr),
		 ulen - sizeof(struct udphdr), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		mcast_stats.dropped++;
	else
		mcast_stats.to_host++;
	return true;
}

/**
 * mcast_to_guest() - a datagram from the host's link, as a frame
 * @c:		execution context
 * @g:		group
 * @port:	destination port
 * @peer:	source on the host's side
 * @len:	payload length, the payload at its place in mcast_frame
 */
static void mcast_to_guest(const struct ctx *c, const union inany_addr *g,
			   uint16_t port, const union sockaddr_inany *peer,
			   size_t len)
{
	size_t l2l3 = net_l2l3_len(g), l4len = sizeof(struct udphdr) + len;
	unsigned int mtu = c->mtu ? c->mtu : MTU_DEFAULT;
	uint8_t *ip = mcast_frame + ETH_HDR_LEN, *uh = mcast_frame + l2l3;
	union inany_addr src;
	uint16_t sport, sum;

	inany_from_sockaddr(&src, &sport, peer);
	if (!inany_v4(&src) != !inany_v4(g) ||
	    l2l3 - ETH_HDR_LEN + l4len > mtu) {
		mcast_stats.dropped++;
		return;
	}
	nat_inbound(c, &src, &src);

	net_fill_l2l3(c, mcast_frame, &src, g, IPPROTO_UDP, l4len);
	mcast_mac(mcast_frame + ETH_OFF_DST, g);
	if (inany_v4(g)) {
		ip[IP4_OFF_TTL] = mcast_group_link_local(g) ? MCAST_GUEST_TTL_LL
							    : MCAST_GUEST_TTL;
		net_put16(ip + IP4_OFF_CSUM, 0);
		sum = csum_ip4_header(ip, IP4_HDR_LEN);
		memcpy(ip + IP4_OFF_CSUM, &sum, sizeof(sum));
	} else {
		ip[IP6_OFF_HOP_LIMIT] = mcast_group_link_local(g) ?
					MCAST_GUEST_TTL_LL : MCAST_GUEST_TTL;
	}

	csum_udp_header(uh, &src, g, sport, port, l4len);
	qdisc_send_ordered(c, mcast_frame, l2l3 + l4len);
	mcast_stats.to_guest++;
}

/**
 * mcast_sock_handler() - datagrams on a group's socket on the host
 * @c:		execution context
 * @ref:	epoll reference: group entry and port index in @data
 * @events:	epoll events
 * @now_ms:	current time (unused)
 */
void mcast_sock_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms)
{
	unsigned int i = ref.data >> 8, pi = ref.data & 0xff, n;
	const union inany_addr *g;
	size_t off;

	(void)events;
	(void)now_ms;
	if (i >= MCAST_GROUPS_MAX || pi >= c->mcast_nports ||
	    mcast_socks[i].rx[pi] != (int)ref.fd)
		return;		/* closed earlier in this batch */

	g = mcast_table_group((int)i);
	off = net_l2l3_len(g) + sizeof(struct udphdr);
	for (n = 0; n < MCAST_READ_BATCH; n++) {
		union sockaddr_inany peer;
		socklen_t sl = sizeof(peer);
		ssize_t len;

		len = recvfrom((int)ref.fd, mcast_frame + off,
			       sizeof(mcast_frame) - off, MSG_DONTWAIT,
			       &peer.sa, &sl);
		if (len < 0)
			return;

		if (mcast_socks[i].tx[pi] >= 0 &&
		    sockaddr_inany_eq(&peer, &mcast_socks[i].tx_name[pi])) {
			mcast_stats.looped++;
			continue;
		}
		mcast_to_guest(c, g, c->mcast_ports[pi], &peer, (size_t)len);
	}
}

/**
 * mcast_query() - send the guest general queries of both families
 * @c:		execution context
 */
static void mcast_query(const struct ctx *c)
{
	uint8_t buf[MCAST_QUERY_MAX];
	size_t len;

	if (c->ip4.enabled) {
		struct in_addr src = c->ip4.gw.s_addr ? c->ip4.gw
						      : c->ip4.map_host_lo;

		len = mcast_igmp_query(buf, c->our_mac, src);
		qdisc_send(c, buf, len);
	}
	if (c->ip6.enabled) {
		len = mcast_mld_query(buf, c->our_mac, &c->ip6.our_tap_ll);
		qdisc_send(c, buf, len);
	}
	mcast_stats.queries++;
}

/**
 * mcast_timer_fn() - queries, and the deadlines of groups
 * @c:		execution context
 * @t:		our timer
 * @now_ms:	current time
 */
static void mcast_timer_fn(const struct ctx *c, struct wheel_timer *t,
			   uint64_t now_ms)
{
	int i;

	for (i = 0; i < MCAST_GROUPS_MAX; i++) {
		unsigned int ended = mcast_table_expire(i, now_ms);

		if (ended & MCAST_EXP_MEMBER) {
			mcast_member_stop(c, i);
			mcast_stats.expired++;
		}
		if (ended & MCAST_EXP_SEND)
			mcast_send_stop(c, i);
		if (ended)
			mcast_table_release(i);
	}

	if (now_ms >= mcast_query_at) {
		mcast_query(c);
		mcast_query_at = now_ms + MCAST_QUERY_MS;
	}
	timer_arm(t, now_ms + MCAST_TICK_MS);
}

/**
 * mcast_stats_log() - log the counters, if the proxy is on
 */
void mcast_stats_log(void)
{
	const struct mcast_stats *s = &mcast_stats;

	if (!mcast_on)
		return;
	info("mcast: groups=%u joins=%llu leaves=%llu expired=%llu "
	     "to_guest=%llu to_host=%llu looped=%llu dropped=%llu "
	     "queries=%llu", mcast_table_count(),
	     (unsigned long long)s->joins, (unsigned long long)s->leaves,
	     (unsigned long long)s->expired, (unsigned long long)s->to_guest,
	     (unsigned long long)s->to_host, (unsigned long long)s->looped,
	     (unsigned long long)s->dropped, (unsigned long long)s->queries);
}

static const struct net_mcast_ops mcast_net_ops = {
	.igmp = mcast_guest_igmp,
	.mld = mcast_guest_mld,
	.udp = mcast_guest_udp,
};

/**
 * mcast_init() - start the proxy, if --mcast-ports names ports
 * @c:		execution context
 *
 * Return: 0
 */
int mcast_init(const struct ctx *c)
{
	unsigned int i, pi;

	if (!c->mcast_nports)
		return 0;

	for (i = 0; i < MCAST_GROUPS_MAX; i++) {
		for (pi = 0; pi < MCAST_PORTS_MAX; pi++)
			mcast_socks[i].rx[pi] = mcast_socks[i].tx[pi] = -1;
	}
	if (*c->ip4.ifname)
		mcast_ifindex4 = if_nametoindex(c->ip4.ifname);
	if (*c->ip6.ifname)
		mcast_ifindex6 = if_nametoindex(c->ip6.ifname);
	if (c->ip6.enabled && !mcast_ifindex6)
		warn("multicast: no IPv6 template interface: link-local groups can't be joined on the host");

	mcast_on = true;
	net_mcast_register(&mcast_net_ops);
	timer_init(&mcast_timer, mcast_timer_fn);
	mcast_query_at = timer_now_ms() + MCAST_FIRST_QUERY_MS;
	timer_arm(&mcast_timer, mcast_query_at);
	info("Multicast: %u UDP ports, groups the guest joins on %s%s%s",
	     c->mcast_nports, *c->ip4.ifname ? c->ip4.ifname : "",
	     *c->ip4.ifname && *c->ip6.ifname &&
	     strcmp(c->ip4.ifname, c->ip6.ifname) != 0 ? ", " : "",
	     *c->ip6.ifname && strcmp(c->ip4.ifname, c->ip6.ifname) != 0 ?
	     c->ip6.ifname : "");
	return 0;
}
