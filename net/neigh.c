// SPDX-License-Identifier: GPL-2.0-or-later
/* neigh.c - the host's LAN neighbours, for ARP and NDP answers
 *
 * Theory of operation
 *
 * The guest has the host's address and sees the host's LAN through us, so
 * when it asks (ARP, Neighbour Solicitation) for the address of another
 * host on that LAN, it gets that host's real MAC address, as upstream
 * does since 2025-10: tools that read the guest's neighbour table (network
 * discovery, Wake-on-LAN) then see the LAN as the host does. Every other
 * address, and the addresses the relay itself stands for (the
 * --map-host-loopback and --map-guest-addr addresses: the gateway by
 * default), gets the gateway's real MAC address if the host knows it and
 * the relay does not stand for the gateway, else our own. Frames the
 * guest sends to a neighbour's MAC address reach us all the same: we
 * take any destination address.
 *
 * Where the addresses come from: the host's neighbour table (ARP and NDP
 * caches) for the template interface of each family, over one
 * NETLINK_ROUTE socket opened at start-up and subscribed to the neighbour
 * group: a dump at start-up, read at once, then the kernel's
 * notifications, read in the main loop (neigh_handler()). An entry is
 * kept while the kernel holds a link-layer address for it (NUD_VALID
 * states), and dropped when the kernel deletes it or marks it failed. A
 * new entry, or a new MAC address for one, is announced to the guest
 * (a gratuitous ARP, RFC 5227 2.3; an unsolicited Neighbour
 * Advertisement, RFC 4861 7.2.6), so that it doesn't keep our address
 * for that host. If notifications were lost (ENOBUFS), the table is
 * dumped again.
 *
 * The table holds NEIGH_MAX entries in a static array, searched linearly:
 * lookups happen for ARP and NDP requests and for neighbour changes only,
 * never per data frame. A full table ignores new neighbours (they get our
 * MAC address, as before this feature), with a debug message.
 *
 * Not done, unlike upstream: frames from a neighbour's address to the
 * guest still carry our MAC address as source (Linux guests don't learn
 * from it; doc/design.md).
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "../conf/ctx.h"
#include "../guest/follow.h"
#include "../tap/tap.h"
#include "../util/epoll_ref.h"
#include "../util/log.h"
#include "../util/syscalls.h"
#include "arp.h"
#include "ip.h"
#include "ndp.h"
#include "neigh.h"

/* System calls after start-up: neighbour notifications, a new dump */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("recvfrom", "netlink neighbour messages (recv())"),
	 SYSCALLS_CALL("sendto", "ask the kernel for a new dump"));

/* Neighbours remembered, both families */
#define NEIGH_MAX		512
/* Receive buffer of the netlink socket: dumps come in 32 KiB chunks */
#define NEIGH_NL_BUF		65536
/* Give up reading the start-up dump after this long */
#define NEIGH_DUMP_TIMEOUT_MS	2000
/* States in which the kernel holds a link-layer address (its NUD_VALID) */
#define NEIGH_NUD_VALID		(NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | \
				 NUD_PROBE | NUD_STALE | NUD_DELAY)

/**
 * struct neigh_entry - a neighbour of the host
 * @addr:	its address
 * @mac:	its MAC address
 * @used:	the slot holds a neighbour
 */
struct neigh_entry {
	union inany_addr addr;
	uint8_t mac[ETH_ADDR_LEN];
	bool used;
};

static struct neigh_entry neigh_table[NEIGH_MAX];
static int neigh_sock = -1;
static uint32_t neigh_seq;
static unsigned int neigh_ifindex4;	/* template interfaces */
static unsigned int neigh_ifindex6;
static bool neigh_quiet;		/* reading the start-up dump */
static char neigh_buf[NEIGH_NL_BUF] __attribute__((aligned(8)));

/**
 * neigh_find() - the entry of an address
 * @a:		address
 *
 * Return: the entry, NULL if none
 */
static struct neigh_entry *neigh_find(const union inany_addr *a)
{
	unsigned int i;

	for (i = 0; i < NEIGH_MAX; i++) {
		if (neigh_table[i].used && inany_equals(&neigh_table[i].addr, a))
			return &neigh_table[i];
	}
	return NULL;
}

/**
 * neigh_ours() - tell if the relay itself stands for an address
 * @c:		execution context
 * @a:		address
 *
 * Return: true for the mapping addresses and the guest's own address
 */
static bool neigh_ours(const struct ctx *c, const union inany_addr *a)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);
	const struct in_addr *v4 = inany_v4(a);

	if (v4) {
		return v4->s_addr == ip4->map_host_lo.s_addr ||
		       v4->s_addr == ip4->map_guest_addr.s_addr ||
		       v4->s_addr == ip4->addr.s_addr;
	}

	return IN6_ARE_ADDR_EQUAL(&a->a6, &ip6->map_host_lo) ||
	       IN6_ARE_ADDR_EQUAL(&a->a6, &ip6->map_guest_addr) ||
	       IN6_ARE_ADDR_EQUAL(&a->a6, &ip6->addr) ||
	       IN6_ARE_ADDR_EQUAL(&a->a6, &ip6->our_tap_ll);
}

/**
 * neigh_set() - remember a neighbour, announce it if it is new or moved
 * @c:		execution context
 * @a:		its address, as the guest sees it (the host's)
 * @mac:	its MAC address
 *
 * Addresses the relay stands for, and unusable ones, are left out.
 */
void neigh_set(const struct ctx *c, const union inany_addr *a,
	       const uint8_t *mac)
{
	const struct in_addr *v4 = inany_v4(a);
	struct neigh_entry *e;
	unsigned int i;

	if ((v4 ? !net_ip4_is_unicast(*v4) : !net_ip6_is_unicast(&a->a6)) ||
	    (mac[0] & 1) || net_mac_is_zero(mac) || neigh_ours(c, a))
		return;

	e = neigh_find(a);
	if (e && !memcmp(e->mac, mac, ETH_ADDR_LEN))
		return;

	for (i = 0; !e && i < NEIGH_MAX; i++) {
		if (!neigh_table[i].used)
			e = &neigh_table[i];
	}
	if (!e) {
		debug("neighbours: table full (%d), not remembering one more",
		      NEIGH_MAX);
		return;
	}

	e->addr = *a;
	memcpy(e->mac, mac, ETH_ADDR_LEN);
	e->used = true;
	if (log_get_level() >= LOG_DEBUG && !neigh_quiet) {
		char b[INANY_STRLEN];

		debug("neighbours: %s at %02x:%02x:%02x:%02x:%02x:%02x",
		      inany_ntop(a, b), mac[0], mac[1], mac[2], mac[3], mac[4],
		      mac[5]);
	}

	if (neigh_quiet || !tap_connected(c))
		return;
	if (v4)
		arp_announce(c, *v4);
	else
		ndp_na_unsolicited(c, &a->a6);
}

/**
 * neigh_del() - forget a neighbour
 * @a:		its address
 */
void neigh_del(const union inany_addr *a)
{
	struct neigh_entry *e = neigh_find(a);

	if (e)
		memset(e, 0, sizeof(*e));
}

/**
 * neigh_mac() - the MAC address to give the guest for an address
 * @c:		execution context
 * @a:		address the guest asks about
 * @mac:	set to the neighbour's MAC address, else the gateway's, else
 *		ours (see the top of this file)
 */
void neigh_mac(const struct ctx *c, const union inany_addr *a, uint8_t *mac)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);
	const struct neigh_entry *e = neigh_find(a);

	if (!e) {
		union inany_addr gw;

		if (inany_v4(a)) {
			inany_from_v4(&gw, ip4->gw);
		} else {
			memset(&gw, 0, sizeof(gw));
			gw.a6 = ip6->gw;
		}
		e = neigh_find(&gw);
	}

	memcpy(mac, e ? e->mac : c->our_mac, ETH_ADDR_LEN);
}

/**
 * neigh_nl_msg() - handle one RTM_NEWNEIGH or RTM_DELNEIGH message
 * @c:		execution context
 * @nh:		the message, length checked by the caller
 */
static void neigh_nl_msg(const struct ctx *c, const struct nlmsghdr *nh)
{
	const struct ndmsg *ndm = NLMSG_DATA(nh);
	const uint8_t *mac = NULL;
	const struct rtattr *rta;
	const void *dst = NULL;
	size_t dlen = 0, len;
	union inany_addr a;

	if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ndm)))
		return;
	if (ndm->ndm_family == AF_INET ?
	    ndm->ndm_ifindex != (int)neigh_ifindex4 :
	    ndm->ndm_family != AF_INET6 ||
	    ndm->ndm_ifindex != (int)neigh_ifindex6)
		return;

	len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ndm));
	for (rta = (const struct rtattr *)((const char *)ndm +
					   NLMSG_ALIGN(sizeof(*ndm)));
	     RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == NDA_DST) {
			dst = RTA_DATA(rta);
			dlen = RTA_PAYLOAD(rta);
		} else if (rta->rta_type == NDA_LLADDR &&
			   RTA_PAYLOAD(rta) == ETH_ADDR_LEN) {
			mac = RTA_DATA(rta);
		}
	}

	if (ndm->ndm_family == AF_INET && dst && dlen == 4) {
		struct in_addr a4;

		memcpy(&a4, dst, sizeof(a4));
		inany_from_v4(&a, a4);
	} else if (ndm->ndm_family == AF_INET6 && dst && dlen == 16) {
		memset(&a, 0, sizeof(a));
		memcpy(&a.a6, dst, sizeof(a.a6));
	} else {
		return;
	}

	if (nh->nlmsg_type == RTM_NEWNEIGH && (ndm->ndm_state & NEIGH_NUD_VALID) &&
	    mac && ndm->ndm_type == RTN_UNICAST)
		neigh_set(c, &a, mac);
	else if (nh->nlmsg_type == RTM_DELNEIGH ||
		 nh->nlmsg_type == RTM_NEWNEIGH)
		neigh_del(&a);
}

/**
 * neigh_dump_request() - ask for the whole neighbour table of both families
 *
 * Return: 0 on success, negative errno on failure
 */
static int neigh_dump_request(void)
{
	struct {
		struct nlmsghdr nh;
		struct ndmsg ndm;
	} req = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof(struct ndmsg)),
		.nh.nlmsg_type = RTM_GETNEIGH,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.ndm.ndm_family = AF_UNSPEC,
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	req.nh.nlmsg_seq = ++neigh_seq;
	if (sendto(neigh_sock, &req, sizeof(req), 0,
		   (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

/**
 * neigh_read() - read what the socket holds, handle every message
 * @c:		execution context
 * @flags:	recv() flags (MSG_DONTWAIT in the main loop)
 *
 * Return: 1 once the end of our dump was read, 0 if the socket is empty,
 *	   negative errno on failure
 */
static int neigh_read(const struct ctx *c, int flags)
{
	for (;;) {
		const struct nlmsghdr *nh;
		ssize_t n = recv(neigh_sock, neigh_buf, sizeof(neigh_buf),
				 flags);
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}

		left = (size_t)n;
		for (nh = (const struct nlmsghdr *)(void *)neigh_buf;
		     NLMSG_OK(nh, left); nh = NLMSG_NEXT(nh, left)) {
			if (nh->nlmsg_type == NLMSG_DONE &&
			    nh->nlmsg_seq == neigh_seq)
				return 1;
			if (nh->nlmsg_type == RTM_NEWNEIGH ||
			    nh->nlmsg_type == RTM_DELNEIGH)
				neigh_nl_msg(c, nh);
		}
	}
}

/**
 * neigh_handler() - neighbour notifications from the kernel
 * @c:		execution context
 */
void neigh_handler(const struct ctx *c)
{
	int ret = neigh_read(c, MSG_DONTWAIT);

	if (ret != -ENOBUFS)
		return;

	/* Notifications were lost: read the table again */
	debug("neighbours: notifications lost, reading the table again");
	if (neigh_dump_request())
		debug("neighbours: can't ask for the table: %s",
		      strerror(errno));
}

/**
 * neigh_open() - open the netlink socket, subscribed to neighbour changes
 *
 * Return: 0 on success, negative errno on failure
 */
static int neigh_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK,
				    .nl_groups = RTMGRP_NEIGH };
	struct timeval tv = { .tv_sec = NEIGH_DUMP_TIMEOUT_MS / 1000,
			      .tv_usec = NEIGH_DUMP_TIMEOUT_MS % 1000 * 1000 };

	neigh_sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			    NETLINK_ROUTE);
	if (neigh_sock < 0)
		return -errno;
	if (bind(neigh_sock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    setsockopt(neigh_sock, SOL_SOCKET, SO_RCVTIMEO, &tv,
		       sizeof(tv))) {
		int ret = -errno;

		close(neigh_sock);
		neigh_sock = -1;
		return ret;
	}
	return 0;
}

/**
 * neigh_init() - read the host's neighbours, follow their changes
 * @c:		execution context
 *
 * Failures leave the feature off (every answer carries our MAC address),
 * with a message: the relay works without it.
 */
void neigh_init(const struct ctx *c)
{
	const struct ip4_ctx *ip4 = follow_ip4(c);
	const struct ip6_ctx *ip6 = follow_ip6(c);
	union epoll_ref ref = { .type = EPOLL_TYPE_NEIGH };
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i, n;
	int ret;

	neigh_ifindex4 = c->ip4.enabled && *ip4->ifname ?
			 if_nametoindex(ip4->ifname) : 0;
	neigh_ifindex6 = c->ip6.enabled ? ip6->ifindex : 0;
	if (!neigh_ifindex4 && !neigh_ifindex6)
		return;

	ret = neigh_open();
	if (!ret)
		ret = neigh_dump_request();
	if (ret)
		goto fail;

	neigh_quiet = true;
	ret = neigh_read(c, 0);
	neigh_quiet = false;
	if (ret < 0)
		goto fail;

	for (i = 0, n = 0; i < NEIGH_MAX; i++)
		n += neigh_table[i].used;
	debug("neighbours: %u from the host's tables", n);

	ref.fd = (uint32_t)neigh_sock;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, neigh_sock, &ev)) {
		ret = -errno;
		goto fail;
	}
	return;

fail:
	warn("Can't read the host's neighbours (%s): ARP and NDP answers give our MAC address for every host",
	     strerror(-ret));
	if (neigh_sock >= 0)
		close(neigh_sock);
	neigh_sock = -1;
}
