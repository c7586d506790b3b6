// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink.c - rtnetlink requests, and the queries on the host
 *
 * Theory of operation
 *
 * Two NETLINK_ROUTE sockets, both used only at start-up: the host socket,
 * opened here in the relay's own network namespace, and the namespace
 * socket, opened and used by netlink_ns.c to configure pasta's tap device.
 * This file holds what both need, building requests and running exchanges,
 * and the queries on the host: which interface carries the default route
 * with the lowest metric and through which gateway, the first usable
 * global address of an interface, its MTU and its IPv6 link-local address.
 *
 * Every exchange is blocking and synchronous: one request goes out with a
 * fresh sequence number, and replies are read into one static buffer until
 * the acknowledgement (NLMSG_ERROR, zero or a negative errno) or the end of
 * a multipart dump (NLMSG_DONE) for that sequence number arrives. Replies
 * with another sequence number (left over from an earlier exchange) are
 * skipped. Dumps are always read to their end, even once the answer is
 * known, so that the next exchange starts on a clean socket. Sockets ask
 * for extended acknowledgements, and the kernel's explanation of a failure,
 * if any, is appended to error messages.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "netlink.h"
#include "netlink_internal.h"
#include "ctx.h"
#include "../util/log.h"
#include "../util/util.h"

/* Receive buffer: the kernel sends dumps in chunks of at most 32 KiB */
#define NL_BUF_SIZE		65536
/* Give up on a reply after this long: the kernel answers at once */
#define NL_TIMEOUT_S		5
/* Longest kernel explanation (extended ack) we keep */
#define NL_EXTACK_LEN		256
/* Longest error string we format */
#define NL_ERRSTR_LEN		(NL_EXTACK_LEN + 64)

static int nl_host = -1;		/* socket in the host namespace */
static uint32_t nl_seq;			/* last sequence number used */
static char nl_extack[NL_EXTACK_LEN];	/* kernel's text for the last error */
static char nl_buf[NL_BUF_SIZE] __attribute__((aligned(8)));

/**
 * nl_req_init() - start a request
 * @req:	request to initialise
 * @type:	message type (RTM_*)
 * @flags:	NLM_F_* flags besides NLM_F_REQUEST
 * @hdr_len:	size of the family header that follows the netlink header
 */
void nl_req_init(struct nl_req *req, uint16_t type, uint16_t flags,
		 size_t hdr_len)
{
	memset(req, 0, sizeof(*req));
	req->nh.nlmsg_type = type;
	req->nh.nlmsg_flags = NLM_F_REQUEST | flags;
	req->nh.nlmsg_len = NLMSG_LENGTH(hdr_len);

	/* NLM_F_DUMP bits mean NLM_F_EXCL and NLM_F_REPLACE on RTM_NEW* */
	req->dump = (type == RTM_GETLINK || type == RTM_GETADDR ||
		     type == RTM_GETROUTE) &&
		    (flags & NLM_F_DUMP) == NLM_F_DUMP;
}

/**
 * nl_attr_put() - append an attribute to a request
 * @req:	request
 * @type:	attribute type
 * @data:	payload
 * @len:	payload length
 *
 * Sets @req->overflow instead if the attribute does not fit.
 */
void nl_attr_put(struct nl_req *req, uint16_t type, const void *data,
		 size_t len)
{
	size_t off = NLMSG_ALIGN(req->nh.nlmsg_len);
	struct rtattr *rta;

	if (off + RTA_SPACE(len) > sizeof(req->nh) + sizeof(req->body)) {
		req->overflow = true;
		return;
	}

	rta = (struct rtattr *)((char *)req + off);
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = off + RTA_SPACE(len);
}

/**
 * nl_attr_nest() - open a nested attribute in a request
 * @req:	request
 * @type:	attribute type
 *
 * Return: offset of the nested attribute, for nl_attr_nest_end(), or 0
 *	   (and @req->overflow set) if it does not fit
 */
size_t nl_attr_nest(struct nl_req *req, uint16_t type)
{
	size_t off = NLMSG_ALIGN(req->nh.nlmsg_len);

	nl_attr_put(req, type, NULL, 0);
	return req->overflow ? 0 : off;
}

/**
 * nl_attr_nest_end() - close a nested attribute: its length covers what
 *			was added since nl_attr_nest()
 * @req:	request
 * @off:	what nl_attr_nest() returned
 */
void nl_attr_nest_end(struct nl_req *req, size_t off)
{
	struct rtattr *rta = (struct rtattr *)((char *)req + off);

	if (!off || req->overflow)
		return;
	rta->rta_len = (unsigned short)(req->nh.nlmsg_len - off);
}

/**
 * nl_strerror() - describe a failed exchange
 * @ret:	negative errno from nl_exchange()
 *
 * Return: static string: strerror(), plus the kernel's explanation if any
 */
const char *nl_strerror(int ret)
{
	static char s[NL_ERRSTR_LEN];

	if (nl_extack[0])
		snprintf(s, sizeof(s), "%s (%s)", strerror(-ret), nl_extack);
	else
		snprintf(s, sizeof(s), "%s", strerror(-ret));

	return s;
}

/**
 * nl_extack_parse() - keep the kernel's message from an error reply
 * @nh:		NLMSG_ERROR message
 */
static void nl_extack_parse(const struct nlmsghdr *nh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	const struct rtattr *rta;
	int len;

	if (!(nh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;

	if (!(nh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len - NLMSG_HDRLEN);

	if (off >= nh->nlmsg_len)
		return;

	len = (int)(nh->nlmsg_len - off);
	rta = (const struct rtattr *)((const char *)nh + off);
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t n = RTA_PAYLOAD(rta);

		if (rta->rta_type != NLMSGERR_ATTR_MSG || !n)
			continue;

		n = MIN(n, sizeof(nl_extack) - 1);
		memcpy(nl_extack, RTA_DATA(rta), n);
		nl_extack[n] = '\0';
		/* The kernel's string may end with a newline */
		nl_extack[strcspn(nl_extack, "\n")] = '\0';
	}
}

/**
 * nl_exchange() - send a request, read replies up to its end
 * @s:		netlink socket
 * @req:	request (NLM_F_ACK is added unless it is a dump)
 * @cb:		called for each reply that is not NLMSG_ERROR/DONE, or NULL
 * @arg:	passed to @cb
 *
 * Return: 0 on success, negative errno (from the kernel or a local failure)
 */
int nl_exchange(int s, struct nl_req *req, nl_cb cb, void *arg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t seq;

	nl_extack[0] = '\0';

	if (s < 0)
		return -EBADF;
	if (req->overflow)
		return -EMSGSIZE;

	if (!req->dump)
		req->nh.nlmsg_flags |= NLM_F_ACK;
	seq = ++nl_seq;
	req->nh.nlmsg_seq = seq;

	while (sendto(s, req, req->nh.nlmsg_len, 0,
		      (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		if (errno != EINTR)
			return -errno;
	}

	for (;;) {
		struct iovec iov = { nl_buf, sizeof(nl_buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		const struct nlmsghdr *nh;
		ssize_t n;
		unsigned int len;

		n = recvmsg(s, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -ETIMEDOUT;
			return -errno;
		}
		if (mh.msg_flags & MSG_TRUNC)
			return -EMSGSIZE;

		len = (unsigned int)n;
		nh = (const struct nlmsghdr *)nl_buf;
		for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != seq)
				continue;

			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				if (e->error)
					nl_extack_parse(nh);
				return e->error;
			}

			if (nh->nlmsg_type == NLMSG_DONE) {
				const int *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
				    *e < 0)
					return *e;
				return 0;
			}

			if (nh->nlmsg_type == NLMSG_NOOP ||
			    nh->nlmsg_type == NLMSG_OVERRUN)
				continue;

			if (cb)
				cb(nh, arg);
		}
	}
}

/**
 * nl_sock_open() - open a NETLINK_ROUTE socket in the current namespace
 *
 * Return: socket, or negative errno
 */
int nl_sock_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = NL_TIMEOUT_S };
	int one = 1;
	int s, ret;

	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return -errno;

	if (bind(s, (struct sockaddr *)&addr, sizeof(addr))) {
		ret = -errno;
		close(s);
		return ret;
	}

	/* Both are optional: without them, errors just say less */
	(void)setsockopt(s, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(s, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	if (setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		debug_perror("netlink: can't set receive timeout");

	return s;
}

/**
 * nl_sock_init_host() - open the netlink socket in the host namespace
 *
 * Idempotent: returns the open socket if there is one already.
 *
 * Return: socket, or negative errno (logged)
 */
int nl_sock_init_host(void)
{
	if (nl_host >= 0)
		return nl_host;

	nl_host = nl_sock_open();
	if (nl_host < 0) {
		int ret = nl_host;

		err("can't open netlink socket: %s", strerror(-ret));
		nl_host = -1;
		return ret;
	}

	return nl_host;
}

/**
 * nl_host_sock() - the host socket, opened on first use
 *
 * Return: socket, or negative errno
 */
int nl_host_sock(void)
{
	return nl_host >= 0 ? nl_host : nl_sock_init_host();
}

/**
 * nl_af_len() - address length for a family
 * @af:		AF_INET or AF_INET6
 *
 * Return: 4, 16, or 0 for other families
 */
size_t nl_af_len(int af)
{
	if (af == AF_INET)
		return sizeof(struct in_addr);
	if (af == AF_INET6)
		return sizeof(struct in6_addr);
	return 0;
}

/**
 * struct nl_route_pick - state of the default route search
 * @af:		address family
 * @found:	a candidate was found
 * @metric:	its metric
 * @ifindex:	its output interface
 * @gw:		its gateway, all zero if none
 */
struct nl_route_pick {
	int af;
	bool found;
	uint32_t metric;
	unsigned int ifindex;
	uint8_t gw[sizeof(struct in6_addr)];
};

/**
 * nl_route_nexthop() - interface and gateway of the first multipath hop
 * @rta:	RTA_MULTIPATH attribute
 * @r:		route read so far: oif set, gw and has_gw if the hop has one
 * @alen:	address length of the family
 */
static void nl_route_nexthop(const struct rtattr *rta,
			     struct nl_default_route *r, size_t alen)
{
	const struct rtnexthop *rtnh = RTA_DATA(rta);
	const struct rtattr *a;
	int len;

	if (RTA_PAYLOAD(rta) < sizeof(*rtnh) ||
	    rtnh->rtnh_len < sizeof(*rtnh) || rtnh->rtnh_len > RTA_PAYLOAD(rta))
		return;

	r->oif = (unsigned int)rtnh->rtnh_ifindex;

	len = (int)(rtnh->rtnh_len - RTNH_LENGTH(0));
	a = (const struct rtattr *)RTNH_DATA(rtnh);
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == alen) {
			memcpy(r->gw, RTA_DATA(a), alen);
			r->has_gw = true;
		}
	}
}

/**
 * nl_default_route_read() - a default route of a dump, if it is one
 * @nh:		message of a route dump
 * @af:		address family wanted
 * @r:		filled in: table, interface, metric, gateway, hops
 *
 * Return: true for a unicast default route of @af (not a cached one)
 */
bool nl_default_route_read(const struct nlmsghdr *nh, int af,
			   struct nl_default_route *r)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	size_t alen = nl_af_len(af);
	const struct rtattr *rta;
	int len;

	if (nh->nlmsg_type != RTM_NEWROUTE ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return false;
	if (rtm->rtm_family != af || rtm->rtm_dst_len ||
	    rtm->rtm_type != RTN_UNICAST || (rtm->rtm_flags & RTM_F_CLONED))
		return false;

	memset(r, 0, sizeof(*r));
	r->table = rtm->rtm_table;
	r->scope = rtm->rtm_scope;
	len = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		if (rta->rta_type == RTA_TABLE && plen == sizeof(uint32_t)) {
			memcpy(&r->table, RTA_DATA(rta), plen);
		} else if (rta->rta_type == RTA_OIF &&
			   plen == sizeof(uint32_t)) {
			memcpy(&r->oif, RTA_DATA(rta), plen);
		} else if (rta->rta_type == RTA_PRIORITY &&
			   plen == sizeof(uint32_t)) {
			memcpy(&r->metric, RTA_DATA(rta), plen);
		} else if (rta->rta_type == RTA_GATEWAY && plen == alen) {
			memcpy(r->gw, RTA_DATA(rta), alen);
			r->has_gw = true;
		} else if (rta->rta_type == RTA_MULTIPATH) {
			r->multipath = true;
			if (!r->oif)
				nl_route_nexthop(rta, r, alen);
		}
	}
	return true;
}

/**
 * nl_route_cb() - consider one route of the dump as the default route
 * @nh:		RTM_NEWROUTE message
 * @arg:	struct nl_route_pick
 */
static void nl_route_cb(const struct nlmsghdr *nh, void *arg)
{
	struct nl_route_pick *p = arg;
	struct nl_default_route r;

	if (!nl_default_route_read(nh, p->af, &r))
		return;
	if (r.table != RT_TABLE_MAIN || !r.oif)
		return;
	if (p->found && r.metric >= p->metric)
		return;

	p->found = true;
	p->metric = r.metric;
	p->ifindex = r.oif;
	memcpy(p->gw, r.gw, sizeof(p->gw));
}

/**
 * nl_default_route() - interface and gateway of the host's default route
 * @af:		AF_INET or AF_INET6
 * @ifindex:	set to the interface of the route with the lowest metric
 * @gw:		set to its gateway (struct in_addr or in6_addr), all zero if
 *		the route has none
 *
 * Return: 0 on success, -ENOENT if there is no default route, other
 *	   negative errno on failure
 */
int nl_default_route(int af, unsigned int *ifindex, void *gw)
{
	struct nl_route_pick p = { .af = af };
	struct nl_req req;
	int s, ret;

	if (!nl_af_len(af))
		return -EAFNOSUPPORT;
	if ((s = nl_host_sock()) < 0)
		return s;

	nl_req_init(&req, RTM_GETROUTE, NLM_F_DUMP, sizeof(struct rtmsg));
	req.body.rtm.rtm_family = (unsigned char)af;

	ret = nl_exchange(s, &req, nl_route_cb, &p);
	if (ret) {
		err("can't read %s routes: %s", af == AF_INET ? "IPv4" : "IPv6",
		    nl_strerror(ret));
		return ret;
	}
	if (!p.found)
		return -ENOENT;

	*ifindex = p.ifindex;
	memcpy(gw, p.gw, nl_af_len(af));
	return 0;
}

/**
 * struct nl_addr_pick - state of an address search
 * @af:		address family
 * @ifindex:	interface
 * @scope:	wanted scope (RT_SCOPE_UNIVERSE or RT_SCOPE_LINK)
 * @rank:	rank of the best candidate so far, 0 if none
 * @prefix_len:	its prefix length
 * @addr:	the address
 */
struct nl_addr_pick {
	int af;
	unsigned int ifindex;
	unsigned char scope;
	int rank;
	int prefix_len;
	uint8_t addr[sizeof(struct in6_addr)];
};

/**
 * nl_addr_read() - the addresses and flags of an RTM_NEWADDR message
 * @nh:		the message, its header checked by the caller
 * @alen:	address length of its family
 * @local:	set to IFA_LOCAL, or IFA_ADDRESS without it; NULL if neither
 * @address:	set to IFA_ADDRESS (the peer of a point-to-point one), or NULL
 * @flags:	set to IFA_FLAGS, or the header's flags without it
 */
void nl_addr_read(const struct nlmsghdr *nh, size_t alen,
		  const uint8_t **local, const uint8_t **address,
		  uint32_t *flags)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const struct rtattr *rta;
	int len = (int)IFA_PAYLOAD(nh);

	*local = *address = NULL;
	*flags = ifa->ifa_flags;
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		if (rta->rta_type == IFA_LOCAL && plen == alen)
			*local = RTA_DATA(rta);
		else if (rta->rta_type == IFA_ADDRESS && plen == alen)
			*address = RTA_DATA(rta);
		else if (rta->rta_type == IFA_FLAGS && plen == sizeof(*flags))
			memcpy(flags, RTA_DATA(rta), plen);
	}
	if (!*local)
		*local = *address;
}

/**
 * nl_addr_cb() - consider one address of the dump
 * @nh:		RTM_NEWADDR message
 * @arg:	struct nl_addr_pick
 *
 * A usable address (IPv4: primary; IPv6: neither tentative nor deprecated)
 * ranks above others; among equals, the one with the longest prefix, then
 * the first one, wins: upstream's pasta picks the most specific address
 * too.
 */
static void nl_addr_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const uint8_t *local, *address;
	struct nl_addr_pick *p = arg;
	size_t alen = nl_af_len(p->af);
	uint32_t flags;
	int rank;

	if (nh->nlmsg_type != RTM_NEWADDR ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return;
	if (ifa->ifa_family != p->af || ifa->ifa_index != p->ifindex ||
	    ifa->ifa_scope != p->scope)
		return;

	nl_addr_read(nh, alen, &local, &address, &flags);
	if (!local || (flags & IFA_F_DADFAILED))
		return;

	if (p->af == AF_INET6 && p->scope == RT_SCOPE_LINK &&
	    !IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)local))
		return;

	if (p->af == AF_INET)
		rank = (flags & IFA_F_SECONDARY) ? 1 : 2;
	else
		rank = (flags & (IFA_F_TENTATIVE | IFA_F_DEPRECATED)) ? 1 : 2;

	/* Among equals, the most specific (longest prefix) wins */
	if (rank < p->rank ||
	    (rank == p->rank && ifa->ifa_prefixlen <= p->prefix_len))
		return;

	p->rank = rank;
	p->prefix_len = ifa->ifa_prefixlen;
	memcpy(p->addr, local, alen);
}

/**
 * nl_addr_find() - dump addresses of a family, pick one on an interface
 * @s:		netlink socket
 * @p:		search state, @af, @ifindex and @scope filled in
 *
 * Return: 0 if found, -ENOENT if not, other negative errno on failure
 */
static int nl_addr_find(int s, struct nl_addr_pick *p)
{
	struct nl_req req;
	int ret;

	nl_req_init(&req, RTM_GETADDR, NLM_F_DUMP, sizeof(struct ifaddrmsg));
	req.body.ifa.ifa_family = (unsigned char)p->af;

	ret = nl_exchange(s, &req, nl_addr_cb, p);
	if (ret) {
		err("can't read %s addresses: %s",
		    p->af == AF_INET ? "IPv4" : "IPv6", nl_strerror(ret));
		return ret;
	}

	return p->rank ? 0 : -ENOENT;
}

/**
 * nl_first_addr() - first usable global address of a host interface
 * @af:		AF_INET or AF_INET6
 * @ifindex:	interface index
 * @addr:	set to the address (struct in_addr or in6_addr)
 * @prefix_len:	set to its prefix length, if not NULL
 *
 * IPv4: primary addresses come before secondary ones. IPv6: link-local
 * addresses never qualify; addresses neither tentative nor deprecated come
 * first. Then the longest prefix wins, then the first address.
 *
 * Return: 0 on success, -ENOENT if the interface has none, other negative
 *	   errno on failure
 */
int nl_first_addr(int af, unsigned int ifindex, void *addr, int *prefix_len)
{
	struct nl_addr_pick p = {
		.af = af, .ifindex = ifindex, .scope = RT_SCOPE_UNIVERSE,
	};
	int s, ret;

	if (!nl_af_len(af))
		return -EAFNOSUPPORT;
	if ((s = nl_host_sock()) < 0)
		return s;

	ret = nl_addr_find(s, &p);
	if (ret)
		return ret;

	memcpy(addr, p.addr, nl_af_len(af));
	if (prefix_len)
		*prefix_len = p.prefix_len;
	return 0;
}

/**
 * nl_addr_ll() - IPv6 link-local address of an interface, on any socket
 * @s:		netlink socket (host or namespace)
 * @ifindex:	interface index
 * @ll:		set to the address
 *
 * Return: 0 on success, -ENOENT if it has none, other negative errno
 */
int nl_addr_ll(int s, unsigned int ifindex, struct in6_addr *ll)
{
	struct nl_addr_pick p = {
		.af = AF_INET6, .ifindex = ifindex, .scope = RT_SCOPE_LINK,
	};
	int ret;

	ret = nl_addr_find(s, &p);
	if (ret)
		return ret;

	memcpy(ll, p.addr, sizeof(*ll));
	return 0;
}

/**
 * nl_link_ll_addr() - IPv6 link-local address of a host interface
 * @ifindex:	interface index
 * @ll:		set to the address
 *
 * Return: 0 on success, -ENOENT if it has none, other negative errno
 */
int nl_link_ll_addr(unsigned int ifindex, struct in6_addr *ll)
{
	int s;

	if ((s = nl_host_sock()) < 0)
		return s;

	return nl_addr_ll(s, ifindex, ll);
}

/**
 * nl_link_inet6() - read the IPv6 address generation mode of a link
 * @rta:	IFLA_AF_SPEC attribute
 * @l:		@gen_mode set if the attribute holds it
 */
static void nl_link_inet6(const struct rtattr *rta, struct nl_link_info *l)
{
	const struct rtattr *af = RTA_DATA(rta);
	int len = (int)RTA_PAYLOAD(rta);

	for (; RTA_OK(af, len); af = RTA_NEXT(af, len)) {
		const struct rtattr *a = RTA_DATA(af);
		int alen = (int)RTA_PAYLOAD(af);

		if (af->rta_type != AF_INET6)
			continue;
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type == IFLA_INET6_ADDR_GEN_MODE &&
			    RTA_PAYLOAD(a) == sizeof(uint8_t))
				l->gen_mode = *(const uint8_t *)RTA_DATA(a);
		}
	}
}

/**
 * nl_link_cb() - read index, MTU, MAC address and IPv6 address generation
 *		  mode from an RTM_NEWLINK message
 * @nh:		the message
 * @arg:	struct nl_link_info
 */
static void nl_link_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	struct nl_link_info *l = arg;
	const struct rtattr *rta;
	int len;

	if (nh->nlmsg_type != RTM_NEWLINK ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;

	l->found = true;
	l->ifindex = (unsigned int)ifi->ifi_index;

	len = (int)IFLA_PAYLOAD(nh);
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		if (rta->rta_type == IFLA_MTU && plen == sizeof(uint32_t)) {
			memcpy(&l->mtu, RTA_DATA(rta), sizeof(uint32_t));
		} else if (rta->rta_type == IFLA_ADDRESS &&
			   plen == sizeof(l->mac)) {
			memcpy(l->mac, RTA_DATA(rta), sizeof(l->mac));
			l->has_mac = true;
		} else if (rta->rta_type == IFLA_AF_SPEC) {
			nl_link_inet6(rta, l);
		} else if (rta->rta_type == IFLA_IFNAME && plen &&
			   plen <= sizeof(l->name)) {
			memcpy(l->name, RTA_DATA(rta), plen);
			l->name[plen - 1] = '\0';
		}
	}
}

/**
 * nl_link_get() - look up a link by index or by name
 * @s:		netlink socket
 * @ifindex:	interface index, or 0 to look up @name
 * @name:	interface name, used if @ifindex is 0
 * @l:		filled with what the kernel reports
 *
 * Return: 0 on success, negative errno (-ENODEV: no such link)
 */
int nl_link_get(int s, unsigned int ifindex, const char *name,
		struct nl_link_info *l)
{
	struct nl_req req;
	int ret;

	if (!ifindex && !name)
		return -ENODEV;

	nl_req_init(&req, RTM_GETLINK, 0, sizeof(struct ifinfomsg));
	req.body.ifi.ifi_family = AF_UNSPEC;
	req.body.ifi.ifi_index = (int)ifindex;
	if (!ifindex && name)
		nl_attr_put(&req, IFLA_IFNAME, name, strlen(name) + 1);

	memset(l, 0, sizeof(*l));
	l->gen_mode = -1;
	ret = nl_exchange(s, &req, nl_link_cb, l);
	if (ret)
		return ret;

	return l->found ? 0 : -ENODEV;
}

/**
 * nl_link_name() - name of a host interface, over netlink
 * @ifindex:	interface index
 * @name:	set to the name, IFNAMSIZ bytes
 *
 * Unlike if_indextoname(), no socket is opened: it works in the sandbox.
 *
 * Return: 0 on success, negative errno
 */
int nl_link_name(unsigned int ifindex, char *name)
{
	struct nl_link_info l;
	int s, ret;

	if ((s = nl_host_sock()) < 0)
		return s;

	ret = nl_link_get(s, ifindex, NULL, &l);
	if (ret)
		return ret;
	if (!*l.name)
		return -ENODATA;

	memcpy(name, l.name, IFNAMSIZ);
	return 0;
}

/**
 * nl_host_ok() - is the host socket open (start-up could open it)?
 *
 * Return: true if it is
 */
bool nl_host_ok(void)
{
	return nl_host >= 0;
}

/**
 * nl_link_mtu() - MTU of a host interface
 * @ifindex:	interface index
 *
 * Return: MTU, or negative errno
 */
int nl_link_mtu(unsigned int ifindex)
{
	struct nl_link_info l;
	int s, ret;

	if ((s = nl_host_sock()) < 0)
		return s;

	ret = nl_link_get(s, ifindex, NULL, &l);
	if (ret) {
		err("can't read MTU of interface %u: %s", ifindex,
		    nl_strerror(ret));
		return ret;
	}
	if (!l.mtu)
		return -ENODATA;

	return (int)l.mtu;
}
