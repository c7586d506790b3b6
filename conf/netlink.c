// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink.c - rtnetlink queries on the host and set-up in the namespace
 *
 * Theory of operation
 *
 * Two NETLINK_ROUTE sockets, both used only at start-up:
 *
 * - the host socket, opened in the relay's own network namespace, answers
 *   queries: which interface carries the default route with the lowest
 *   metric and through which gateway, the first usable global address of
 *   an interface, its MTU and its IPv6 link-local address;
 *
 * - the namespace socket, opened from a short-lived thread that entered the
 *   target network namespace with setns() (a netlink socket stays bound to
 *   the namespace it was created in), configures pasta's tap device there.
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
#include "ctx.h"
#include "../util/log.h"
#include "../util/util.h"

/* Receive buffer: the kernel sends dumps in chunks of at most 32 KiB */
#define NL_BUF_SIZE		65536
/* Room for the attributes of any request we build */
#define NL_REQ_ATTR_SIZE	512
/* Give up on a reply after this long: the kernel answers at once */
#define NL_TIMEOUT_S		5
/* Longest kernel explanation (extended ack) we keep */
#define NL_EXTACK_LEN		256
/* Longest error string we format */
#define NL_ERRSTR_LEN		(NL_EXTACK_LEN + 64)
/* Address text: address, slash, prefix length */
#define NL_ADDRSTR_LEN		(INET6_ADDRSTRLEN + 16)

static int nl_host = -1;		/* socket in the host namespace */
static int nl_ns = -1;			/* socket in the target namespace */
static uint32_t nl_seq;			/* last sequence number used */
static char nl_extack[NL_EXTACK_LEN];	/* kernel's text for the last error */
static char nl_buf[NL_BUF_SIZE] __attribute__((aligned(8)));

/**
 * struct nl_req - a request being built
 * @nh:		netlink header
 * @body:	family header (ifinfomsg, ifaddrmsg, rtmsg) and attributes
 * @overflow:	an attribute did not fit
 * @dump:	a dump request (NLM_F_DUMP on RTM_GET*), answered by a
 *		multipart reply ending with NLMSG_DONE
 */
struct nl_req {
	struct nlmsghdr nh;
	union {
		struct ifinfomsg ifi;
		struct ifaddrmsg ifa;
		struct rtmsg rtm;
		char raw[NLMSG_ALIGN(sizeof(struct ifinfomsg)) +
			 NL_REQ_ATTR_SIZE];
	} body;
	bool overflow;
	bool dump;
};

/**
 * typedef nl_cb - called for each reply message of an exchange
 * @nh:		the message
 * @arg:	caller's state
 */
typedef void (*nl_cb)(const struct nlmsghdr *nh, void *arg);

/**
 * nl_req_init() - start a request
 * @req:	request to initialise
 * @type:	message type (RTM_*)
 * @flags:	NLM_F_* flags besides NLM_F_REQUEST
 * @hdr_len:	size of the family header that follows the netlink header
 */
static void nl_req_init(struct nl_req *req, uint16_t type, uint16_t flags,
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
static void nl_attr_put(struct nl_req *req, uint16_t type, const void *data,
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
	memcpy(RTA_DATA(rta), data, len);
	req->nh.nlmsg_len = off + RTA_SPACE(len);
}

/**
 * nl_attr_u32() - append a 32-bit attribute to a request
 * @req:	request
 * @type:	attribute type
 * @val:	value, host order
 */
static void nl_attr_u32(struct nl_req *req, uint16_t type, uint32_t val)
{
	nl_attr_put(req, type, &val, sizeof(val));
}

/**
 * nl_strerror() - describe a failed exchange
 * @ret:	negative errno from nl_exchange()
 *
 * Return: static string: strerror(), plus the kernel's explanation if any
 */
static const char *nl_strerror(int ret)
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
static int nl_exchange(int s, struct nl_req *req, nl_cb cb, void *arg)
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
static int nl_sock_open(void)
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
 * struct nl_ns_open - what the namespace thread gets and returns
 * @netns_fd:	network namespace to enter
 * @ret:	socket, or negative errno
 * @setns_failed: the failure was entering the namespace
 */
struct nl_ns_open {
	int netns_fd;
	int ret;
	bool setns_failed;
};

/**
 * nl_ns_open_thread() - enter a namespace, open a netlink socket there
 * @arg:	struct nl_ns_open
 *
 * Return: NULL
 */
static void *nl_ns_open_thread(void *arg)
{
	struct nl_ns_open *o = arg;

	if (setns(o->netns_fd, CLONE_NEWNET)) {
		o->ret = -errno;
		o->setns_failed = true;
		return NULL;
	}

	o->ret = nl_sock_open();
	return NULL;
}

/**
 * nl_sock_init_ns() - open the netlink socket inside the target namespace
 * @netns_fd:	descriptor of the target network namespace
 *
 * The socket is opened by a thread that joins the namespace and ends; the
 * socket stays bound to that namespace. Idempotent.
 *
 * Return: socket, or negative errno (logged)
 */
int nl_sock_init_ns(int netns_fd)
{
	struct nl_ns_open o = { .netns_fd = netns_fd, .ret = -EINVAL };
	pthread_t t;
	int ret;

	if (nl_ns >= 0)
		return nl_ns;

	ret = pthread_create(&t, NULL, nl_ns_open_thread, &o);
	if (ret) {
		err("can't start thread to open netlink socket in the "
		    "namespace: %s", strerror(ret));
		return -ret;
	}
	pthread_join(t, NULL);

	if (o.ret < 0) {
		if (o.setns_failed)
			err("can't enter the target network namespace: %s",
			    strerror(-o.ret));
		else
			err("can't open netlink socket in the namespace: %s",
			    strerror(-o.ret));
		return o.ret;
	}

	nl_ns = o.ret;
	return nl_ns;
}

/**
 * nl_host_sock() - the host socket, opened on first use
 *
 * Return: socket, or negative errno
 */
static int nl_host_sock(void)
{
	return nl_host >= 0 ? nl_host : nl_sock_init_host();
}

/**
 * nl_af_len() - address length for a family
 * @af:		AF_INET or AF_INET6
 *
 * Return: 4, 16, or 0 for other families
 */
static size_t nl_af_len(int af)
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
 * @af:		address family
 * @ifindex:	set to the hop's interface
 * @gw:		set to the hop's gateway, if it has one
 */
static void nl_route_nexthop(const struct rtattr *rta, int af,
			     unsigned int *ifindex, uint8_t *gw)
{
	const struct rtnexthop *rtnh = RTA_DATA(rta);
	size_t alen = nl_af_len(af);
	const struct rtattr *a;
	int len;

	if (RTA_PAYLOAD(rta) < sizeof(*rtnh) ||
	    rtnh->rtnh_len < sizeof(*rtnh) || rtnh->rtnh_len > RTA_PAYLOAD(rta))
		return;

	*ifindex = (unsigned int)rtnh->rtnh_ifindex;

	len = (int)(rtnh->rtnh_len - RTNH_LENGTH(0));
	a = (const struct rtattr *)RTNH_DATA(rtnh);
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == RTA_GATEWAY && RTA_PAYLOAD(a) == alen)
			memcpy(gw, RTA_DATA(a), alen);
	}
}

/**
 * nl_route_cb() - consider one route of the dump as the default route
 * @nh:		RTM_NEWROUTE message
 * @arg:	struct nl_route_pick
 */
static void nl_route_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	struct nl_route_pick *p = arg;
	uint8_t gw[sizeof(struct in6_addr)] = { 0 };
	size_t alen = nl_af_len(p->af);
	uint32_t table, metric = 0;
	unsigned int ifindex = 0;
	const struct rtattr *rta;
	int len;

	if (nh->nlmsg_type != RTM_NEWROUTE ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return;
	if (rtm->rtm_family != p->af || rtm->rtm_dst_len ||
	    rtm->rtm_type != RTN_UNICAST || (rtm->rtm_flags & RTM_F_CLONED))
		return;

	table = rtm->rtm_table;
	len = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		switch (rta->rta_type) {
		case RTA_TABLE:
			if (plen == sizeof(uint32_t))
				memcpy(&table, RTA_DATA(rta), plen);
			break;
		case RTA_OIF:
			if (plen == sizeof(uint32_t))
				memcpy(&ifindex, RTA_DATA(rta), plen);
			break;
		case RTA_PRIORITY:
			if (plen == sizeof(uint32_t))
				memcpy(&metric, RTA_DATA(rta), plen);
			break;
		case RTA_GATEWAY:
			if (plen == alen)
				memcpy(gw, RTA_DATA(rta), alen);
			break;
		case RTA_MULTIPATH:
			if (!ifindex)
				nl_route_nexthop(rta, p->af, &ifindex, gw);
			break;
		default:
			break;
		}
	}

	if (table != RT_TABLE_MAIN || !ifindex)
		return;
	if (p->found && metric >= p->metric)
		return;

	p->found = true;
	p->metric = metric;
	p->ifindex = ifindex;
	memcpy(p->gw, gw, sizeof(p->gw));
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
 * nl_addr_cb() - consider one address of the dump
 * @nh:		RTM_NEWADDR message
 * @arg:	struct nl_addr_pick
 *
 * A usable address (IPv4: primary; IPv6: neither tentative nor deprecated)
 * ranks above others; among equals, the first one wins.
 */
static void nl_addr_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const uint8_t *local = NULL, *address = NULL;
	struct nl_addr_pick *p = arg;
	size_t alen = nl_af_len(p->af);
	const struct rtattr *rta;
	uint32_t flags;
	int len, rank;

	if (nh->nlmsg_type != RTM_NEWADDR ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return;
	if (ifa->ifa_family != p->af || ifa->ifa_index != p->ifindex ||
	    ifa->ifa_scope != p->scope)
		return;

	flags = ifa->ifa_flags;
	len = (int)IFA_PAYLOAD(nh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		if (rta->rta_type == IFA_LOCAL && plen == alen)
			local = RTA_DATA(rta);
		else if (rta->rta_type == IFA_ADDRESS && plen == alen)
			address = RTA_DATA(rta);
		else if (rta->rta_type == IFA_FLAGS && plen == sizeof(flags))
			memcpy(&flags, RTA_DATA(rta), plen);
	}

	if (!local)
		local = address;
	if (!local || (flags & IFA_F_DADFAILED))
		return;

	if (p->af == AF_INET6 && p->scope == RT_SCOPE_LINK &&
	    !IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)local))
		return;

	if (p->af == AF_INET)
		rank = (flags & IFA_F_SECONDARY) ? 1 : 2;
	else
		rank = (flags & (IFA_F_TENTATIVE | IFA_F_DEPRECATED)) ? 1 : 2;

	if (rank <= p->rank)
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
 * first.
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
 * nl_link_ll_addr() - IPv6 link-local address of a host interface
 * @ifindex:	interface index
 * @ll:		set to the address
 *
 * Return: 0 on success, -ENOENT if it has none, other negative errno
 */
int nl_link_ll_addr(unsigned int ifindex, struct in6_addr *ll)
{
	struct nl_addr_pick p = {
		.af = AF_INET6, .ifindex = ifindex, .scope = RT_SCOPE_LINK,
	};
	int s, ret;

	if ((s = nl_host_sock()) < 0)
		return s;

	ret = nl_addr_find(s, &p);
	if (ret)
		return ret;

	memcpy(ll, p.addr, sizeof(*ll));
	return 0;
}

/**
 * struct nl_link_info - what we read from an RTM_NEWLINK reply
 * @found:	a reply came
 * @ifindex:	interface index
 * @mtu:	MTU, 0 if not reported
 */
struct nl_link_info {
	bool found;
	unsigned int ifindex;
	unsigned int mtu;
};

/**
 * nl_link_cb() - read index and MTU from an RTM_NEWLINK message
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
		if (rta->rta_type == IFLA_MTU &&
		    RTA_PAYLOAD(rta) == sizeof(uint32_t))
			memcpy(&l->mtu, RTA_DATA(rta), sizeof(uint32_t));
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
static int nl_link_get(int s, unsigned int ifindex, const char *name,
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
	ret = nl_exchange(s, &req, nl_link_cb, l);
	if (ret)
		return ret;

	return l->found ? 0 : -ENODEV;
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

/**
 * nl_link_set() - change one property of a link
 * @s:		netlink socket
 * @ifindex:	interface index
 * @up:		bring the link up
 * @attr:	attribute to set (IFLA_MTU, IFLA_ADDRESS), or 0 for none
 * @data:	its payload
 * @len:	payload length
 *
 * Return: 0 on success, negative errno
 */
static int nl_link_set(int s, unsigned int ifindex, bool up, uint16_t attr,
		       const void *data, size_t len)
{
	struct nl_req req;

	nl_req_init(&req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	req.body.ifi.ifi_family = AF_UNSPEC;
	req.body.ifi.ifi_index = (int)ifindex;
	if (up) {
		req.body.ifi.ifi_flags = IFF_UP;
		req.body.ifi.ifi_change = IFF_UP;
	}
	if (attr)
		nl_attr_put(&req, attr, data, len);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_addr_add() - add an address to a link
 * @s:		netlink socket
 * @af:		AF_INET or AF_INET6
 * @ifindex:	interface index
 * @addr:	address (struct in_addr or in6_addr)
 * @prefix_len:	prefix length
 *
 * IPv6 addresses skip duplicate address detection, so that they are usable
 * at once.
 *
 * Return: 0 on success, negative errno
 */
static int nl_addr_add(int s, int af, unsigned int ifindex, const void *addr,
		       int prefix_len)
{
	size_t alen = nl_af_len(af);
	struct nl_req req;

	nl_req_init(&req, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL,
		    sizeof(struct ifaddrmsg));
	req.body.ifa.ifa_family = (unsigned char)af;
	req.body.ifa.ifa_prefixlen = (unsigned char)prefix_len;
	req.body.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	req.body.ifa.ifa_index = ifindex;

	nl_attr_put(&req, IFA_LOCAL, addr, alen);
	nl_attr_put(&req, IFA_ADDRESS, addr, alen);
	if (af == AF_INET6) {
		req.body.ifa.ifa_flags = IFA_F_NODAD;
		nl_attr_u32(&req, IFA_FLAGS, IFA_F_NODAD);
	}

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_route_add() - add a unicast route in the main table
 * @s:		netlink socket
 * @af:		AF_INET or AF_INET6
 * @ifindex:	output interface
 * @dst:	destination, NULL for a default route
 * @dst_len:	destination prefix length (ignored if @dst is NULL)
 * @gw:		gateway, NULL for an on-link route
 *
 * Return: 0 on success, negative errno
 */
static int nl_route_add(int s, int af, unsigned int ifindex, const void *dst,
			int dst_len, const void *gw)
{
	size_t alen = nl_af_len(af);
	struct nl_req req;

	nl_req_init(&req, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL,
		    sizeof(struct rtmsg));
	req.body.rtm.rtm_family = (unsigned char)af;
	req.body.rtm.rtm_table = RT_TABLE_MAIN;
	req.body.rtm.rtm_protocol = RTPROT_BOOT;
	req.body.rtm.rtm_type = RTN_UNICAST;
	req.body.rtm.rtm_scope = gw ? RT_SCOPE_UNIVERSE : RT_SCOPE_LINK;

	if (dst) {
		req.body.rtm.rtm_dst_len = (unsigned char)dst_len;
		nl_attr_put(&req, RTA_DST, dst, alen);
	}
	if (gw)
		nl_attr_put(&req, RTA_GATEWAY, gw, alen);
	nl_attr_u32(&req, RTA_OIF, ifindex);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_addr_str() - format an address, with a prefix length if not negative
 * @af:		AF_INET or AF_INET6
 * @addr:	address
 * @prefix_len:	prefix length, or -1 for none
 * @buf:	output, NL_ADDRSTR_LEN bytes
 *
 * Return: @buf
 */
static const char *nl_addr_str(int af, const void *addr, int prefix_len,
			       char *buf)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(af, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");

	if (prefix_len >= 0)
		snprintf(buf, NL_ADDRSTR_LEN, "%s/%i", a, prefix_len);
	else
		snprintf(buf, NL_ADDRSTR_LEN, "%s", a);

	return buf;
}

/**
 * nl_in_prefix() - is an address inside a prefix?
 * @af:		AF_INET or AF_INET6
 * @a:		address
 * @net:	any address of the prefix
 * @prefix_len:	prefix length
 *
 * Return: true if the first @prefix_len bits of @a and @net match
 */
static bool nl_in_prefix(int af, const void *a, const void *net,
			 int prefix_len)
{
	const uint8_t *x = a, *y = net;
	int bits = MIN(prefix_len, (int)nl_af_len(af) * 8);
	int i;

	for (i = 0; i < bits / 8; i++) {
		if (x[i] != y[i])
			return false;
	}
	if (bits % 8) {
		uint8_t mask = (uint8_t)(0xff << (8 - bits % 8));

		if ((x[i] ^ y[i]) & mask)
			return false;
	}

	return true;
}

/**
 * nl_is_zero() - is an address all zero?
 * @af:		AF_INET or AF_INET6
 * @addr:	address
 *
 * Return: true if unspecified
 */
static bool nl_is_zero(int af, const void *addr)
{
	static const uint8_t zero[sizeof(struct in6_addr)];

	return !memcmp(addr, zero, nl_af_len(af));
}

/**
 * nl_ns_conf_af() - add the address and default route of one family
 * @s:		netlink socket in the namespace
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 * @addr:	address to add, skipped if all zero
 * @prefix_len:	its prefix length
 * @gw:		default gateway, no route if all zero
 *
 * A gateway outside the address's prefix first gets an on-link host
 * route, so that the default route through it is accepted.
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_conf_af(int s, int af, unsigned int ifindex,
			 const char *ifname, const void *addr, int prefix_len,
			 const void *gw)
{
	int max_len = (int)nl_af_len(af) * 8;
	char as[NL_ADDRSTR_LEN];
	bool have_addr;
	int ret;

	if (prefix_len <= 0 || prefix_len > max_len)
		prefix_len = max_len;

	have_addr = !nl_is_zero(af, addr);
	if (have_addr) {
		ret = nl_addr_add(s, af, ifindex, addr, prefix_len);
		if (ret) {
			err("can't add address %s to %s in the namespace: %s",
			    nl_addr_str(af, addr, prefix_len, as), ifname,
			    nl_strerror(ret));
			return ret;
		}
	}

	if (nl_is_zero(af, gw))
		return 0;

	if ((!have_addr || !nl_in_prefix(af, gw, addr, prefix_len)) &&
	    !(af == AF_INET6 && IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)gw))) {
		ret = nl_route_add(s, af, ifindex, gw, max_len, NULL);
		if (ret && ret != -EEXIST) {
			err("can't add route to gateway %s on %s in the "
			    "namespace: %s", nl_addr_str(af, gw, -1, as),
			    ifname, nl_strerror(ret));
			return ret;
		}
	}

	ret = nl_route_add(s, af, ifindex, NULL, 0, gw);
	if (ret) {
		err("can't add default route via %s dev %s in the namespace: "
		    "%s", nl_addr_str(af, gw, -1, as), ifname,
		    nl_strerror(ret));
		return ret;
	}

	return 0;
}

/**
 * nl_ns_configure() - set up the tap device and loopback in the namespace
 * @c:		execution context
 * @ifname:	name of the tap device in the namespace
 *
 * Always: loopback up; the tap's MAC address set to c->ns_mac (if set),
 * its MTU to c->mtu (if not zero), and the tap up. With --config-net also
 * c->ip4 and c->ip6 addresses and default routes (for enabled families).
 * nl_sock_init_ns() must have been called.
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int nl_ns_configure(const struct ctx *c, const char *ifname)
{
	static const unsigned char zero_mac[ETH_ALEN_];
	struct nl_link_info tap, lo;
	int s = nl_ns, ret;

	if (s < 0) {
		err("no netlink socket in the namespace: can't configure %s",
		    ifname);
		return -EBADF;
	}

	ret = nl_link_get(s, 0, "lo", &lo);
	if (!ret)
		ret = nl_link_set(s, lo.ifindex, true, 0, NULL, 0);
	if (ret) {
		err("can't bring up loopback in the namespace: %s",
		    nl_strerror(ret));
		return ret;
	}

	ret = nl_link_get(s, 0, ifname, &tap);
	if (ret) {
		err("can't find %s in the namespace: %s", ifname,
		    nl_strerror(ret));
		return ret;
	}

	if (memcmp(c->ns_mac, zero_mac, sizeof(zero_mac)) != 0) {
		ret = nl_link_set(s, tap.ifindex, false, IFLA_ADDRESS,
				  c->ns_mac, sizeof(c->ns_mac));
		if (ret) {
			const unsigned char *m = c->ns_mac;

			err("can't set MAC address "
			    "%02x:%02x:%02x:%02x:%02x:%02x of %s in the "
			    "namespace: %s", m[0], m[1], m[2], m[3], m[4],
			    m[5], ifname, nl_strerror(ret));
			return ret;
		}
	}

	if (c->mtu) {
		uint32_t mtu = c->mtu;

		ret = nl_link_set(s, tap.ifindex, false, IFLA_MTU,
				  &mtu, sizeof(mtu));
		if (ret) {
			err("can't set MTU %u on %s in the namespace: %s",
			    c->mtu, ifname, nl_strerror(ret));
			return ret;
		}
	}

	ret = nl_link_set(s, tap.ifindex, true, 0, NULL, 0);
	if (ret) {
		err("can't bring up %s in the namespace: %s", ifname,
		    nl_strerror(ret));
		return ret;
	}

	if (!c->pasta_conf_ns)
		return 0;

	if (c->ip4.enabled) {
		ret = nl_ns_conf_af(s, AF_INET, tap.ifindex, ifname,
				    &c->ip4.addr, c->ip4.prefix_len,
				    &c->ip4.gw);
		if (ret)
			return ret;
	}

	if (c->ip6.enabled) {
		ret = nl_ns_conf_af(s, AF_INET6, tap.ifindex, ifname,
				    &c->ip6.addr, c->ip6.prefix_len,
				    &c->ip6.gw);
		if (ret)
			return ret;
	}

	return 0;
}

/**
 * nl_ns_link_txqlen() - set the transmit queue length of a link in the
 *			 namespace
 * @ifname:	interface name in the namespace
 * @qlen:	queue length, frames
 *
 * Netlink, unlike the SIOCSIFTXQLEN ioctl, only needs CAP_NET_ADMIN in the
 * user namespace owning the network namespace.
 *
 * Return: 0 on success, negative errno (logged as a warning)
 */
int nl_ns_link_txqlen(const char *ifname, unsigned int qlen)
{
	struct nl_link_info l;
	uint32_t q = qlen;
	int ret;

	ret = nl_link_get(nl_ns, 0, ifname, &l);
	if (!ret)
		ret = nl_link_set(nl_ns, l.ifindex, false, IFLA_TXQLEN,
				  &q, sizeof(q));
	if (ret) {
		warn("can't set transmit queue length of %s in the namespace "
		     "to %u: %s", ifname, qlen, nl_strerror(ret));
	}

	return ret;
}
