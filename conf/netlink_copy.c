// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink_copy.c - copy the template interface's addresses and routes
 *		    from the host into pasta's namespace (--config-net)
 *
 * Theory of operation
 *
 * With --config-net, unless --no-copy-addrs or -a says otherwise for a
 * family, the tap device gets every address of the host's template
 * interface of that family, and unless --no-copy-routes or -g, every
 * route through it. Both are read with one dump on the host socket and
 * written with one request per entry on the namespace socket.
 *
 * The two can't overlap: replies of the dump sit in netlink.c's receive
 * buffer, which the next exchange overwrites. So the dump's callback turns
 * each entry it keeps into the request that recreates it in the namespace
 * and packs it into a static buffer (nl_copy_buf); the requests are sent
 * once the dump is over. A template with more entries than fit is an
 * error that names --no-copy-routes and --no-copy-addrs.
 *
 * Addresses: all but link-local and deprecated ones, in the order of the
 * dump, with their prefix length, flags, broadcast address and metric; the
 * label and the lifetimes are left out (the copies don't expire), and
 * IPv6 ones skip duplicate address detection (IFA_F_NODAD), so that they
 * are usable as soon as they are there.
 *
 * Routes: unicast routes of the main table whose next hops all leave
 * through the template interface, each next hop moved to the tap device.
 * Preferred source addresses are left out (with -a, the namespace may not
 * have them), and so are next hop object IDs, which mean nothing in the
 * namespace. Kernel routes come along too: the namespace's own prefix
 * routes differ from them by their preferred source, so that both stay,
 * as with upstream's pasta. A route may need another one first (a
 * gateway that only a later route makes reachable): requests are sent in
 * rounds, each retrying what the kernel refused with "unreachable", until
 * a round adds nothing; what is left then is skipped with a warning. Any
 * other refusal is an error. An entry that exists already counts as done.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "netlink.h"
#include "netlink_internal.h"
#include "../util/log.h"
#include "../util/util.h"

/* Requests waiting to be sent to the namespace: one dump's worth of
 * addresses or routes of the template interface
 */
#define NL_COPY_BUF_SIZE	65536

/* Route flags that describe a next hop's state on the host, never valid in
 * a request
 */
#define NL_COPY_NH_STATE	(RTNH_F_DEAD | RTNH_F_LINKDOWN | \
				 RTNH_F_OFFLOAD | RTNH_F_TRAP)

static char nl_copy_buf[NL_COPY_BUF_SIZE] __attribute__((aligned(8)));

/**
 * struct nl_copy - state of one copy
 * @af:		address family
 * @host_if:	template interface on the host
 * @ns_if:	tap device in the namespace
 * @used:	bytes of nl_copy_buf holding requests
 * @count:	number of requests
 * @full:	an entry didn't fit in nl_copy_buf, or in a request
 */
struct nl_copy {
	int af;
	unsigned int host_if;
	unsigned int ns_if;
	size_t used;
	unsigned int count;
	bool full;
};

/**
 * nl_copy_keep() - append a request to nl_copy_buf
 * @cp:		copy state
 * @req:	request, complete
 */
static void nl_copy_keep(struct nl_copy *cp, const struct nl_req *req)
{
	size_t len = NLMSG_ALIGN(req->nh.nlmsg_len);

	if (req->overflow || cp->used + len > sizeof(nl_copy_buf)) {
		cp->full = true;
		return;
	}

	memcpy(nl_copy_buf + cp->used, req, req->nh.nlmsg_len);
	cp->used += len;
	cp->count++;
}

/**
 * nl_copy_addr_cb() - keep one address of the template interface
 * @nh:		RTM_NEWADDR message of the dump
 * @arg:	struct nl_copy
 */
static void nl_copy_addr_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	struct nl_copy *cp = arg;
	const struct rtattr *rta;
	uint32_t flags;
	struct nl_req req;
	int len;

	if (nh->nlmsg_type != RTM_NEWADDR ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return;
	if (ifa->ifa_family != cp->af || ifa->ifa_index != cp->host_if ||
	    ifa->ifa_scope == RT_SCOPE_LINK)
		return;

	flags = ifa->ifa_flags;
	len = (int)IFA_PAYLOAD(nh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFA_FLAGS &&
		    RTA_PAYLOAD(rta) == sizeof(flags))
			memcpy(&flags, RTA_DATA(rta), sizeof(flags));
	}
	if (flags & IFA_F_DEPRECATED)
		return;

	nl_req_init(&req, RTM_NEWADDR, NLM_F_CREATE, sizeof(*ifa));
	req.body.ifa = *ifa;
	req.body.ifa.ifa_index = cp->ns_if;
	req.body.ifa.ifa_flags |= IFA_F_NODAD;

	len = (int)IFA_PAYLOAD(nh);
	for (rta = IFA_RTA(ifa); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFA_LABEL ||
		    rta->rta_type == IFA_CACHEINFO)
			continue;
		if (rta->rta_type == IFA_FLAGS) {
			uint32_t f = flags | IFA_F_NODAD;

			nl_attr_put(&req, IFA_FLAGS, &f, sizeof(f));
			continue;
		}
		nl_attr_put(&req, rta->rta_type, RTA_DATA(rta),
			    RTA_PAYLOAD(rta));
	}

	nl_copy_keep(cp, &req);
}

/**
 * nl_copy_hops_ok() - do all next hops of a route use the template?
 * @rta:	RTA_MULTIPATH attribute
 * @host_if:	template interface
 *
 * Return: true if there is at least one hop, and all of them leave
 *	   through @host_if
 */
static bool nl_copy_hops_ok(const struct rtattr *rta, unsigned int host_if)
{
	const struct rtnexthop *rtnh = RTA_DATA(rta);
	int len = (int)RTA_PAYLOAD(rta);
	bool any = false;

	for (; RTNH_OK(rtnh, len); len -= RTNH_ALIGN(rtnh->rtnh_len),
	     rtnh = RTNH_NEXT(rtnh)) {
		if ((unsigned int)rtnh->rtnh_ifindex != host_if)
			return false;
		any = true;
	}

	return any;
}

/**
 * nl_copy_hops_put() - append RTA_MULTIPATH, next hops moved to the tap
 * @req:	request
 * @rta:	RTA_MULTIPATH attribute of the host's route
 * @ns_if:	tap device
 */
static void nl_copy_hops_put(struct nl_req *req, const struct rtattr *rta,
			     unsigned int ns_if)
{
	const struct rtnexthop *rtnh = RTA_DATA(rta);
	size_t start = NLMSG_ALIGN(req->nh.nlmsg_len);
	int len = (int)RTA_PAYLOAD(rta);
	struct rtnexthop *out;

	nl_attr_put(req, RTA_MULTIPATH, rtnh, (size_t)len);
	if (req->overflow)
		return;

	out = RTA_DATA((struct rtattr *)((char *)req + start));
	for (; RTNH_OK(out, len); len -= RTNH_ALIGN(out->rtnh_len),
	     out = RTNH_NEXT(out)) {
		out->rtnh_ifindex = (int)ns_if;
		out->rtnh_flags &= (unsigned char)~NL_COPY_NH_STATE;
	}
}

/**
 * nl_copy_route_wanted() - is a route of the dump one we copy?
 * @nh:		RTM_NEWROUTE message
 * @cp:		copy state
 *
 * Return: true for a unicast route of the main table whose next hops (one,
 *	   or all of a multipath route) leave through the template interface
 */
static bool nl_copy_route_wanted(const struct nlmsghdr *nh,
				 const struct nl_copy *cp)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	uint32_t table = rtm->rtm_table, oif = 0;
	const struct rtattr *rta;
	bool hops_ok = false;
	int len;

	if (rtm->rtm_family != cp->af || rtm->rtm_type != RTN_UNICAST ||
	    (rtm->rtm_flags & RTM_F_CLONED))
		return false;

	len = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_TABLE &&
		    RTA_PAYLOAD(rta) == sizeof(table))
			memcpy(&table, RTA_DATA(rta), sizeof(table));
		else if (rta->rta_type == RTA_OIF &&
			 RTA_PAYLOAD(rta) == sizeof(oif))
			memcpy(&oif, RTA_DATA(rta), sizeof(oif));
		else if (rta->rta_type == RTA_MULTIPATH)
			hops_ok = nl_copy_hops_ok(rta, cp->host_if);
	}

	if (table != RT_TABLE_MAIN)
		return false;
	if (oif)
		return oif == cp->host_if;
	return hops_ok;
}

/**
 * nl_copy_route_cb() - keep one route through the template interface
 * @nh:		RTM_NEWROUTE message of the dump
 * @arg:	struct nl_copy
 */
static void nl_copy_route_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	struct nl_copy *cp = arg;
	const struct rtattr *rta;
	struct nl_req req;
	int len;

	if (nh->nlmsg_type != RTM_NEWROUTE ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    !nl_copy_route_wanted(nh, cp))
		return;

	nl_req_init(&req, RTM_NEWROUTE, NLM_F_CREATE, sizeof(*rtm));
	req.body.rtm = *rtm;
	req.body.rtm.rtm_flags &= ~(unsigned int)NL_COPY_NH_STATE;

	len = (int)RTM_PAYLOAD(nh);
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case RTA_OIF:
			nl_attr_put(&req, RTA_OIF, &cp->ns_if,
				    sizeof(cp->ns_if));
			break;
		case RTA_MULTIPATH:
			nl_copy_hops_put(&req, rta, cp->ns_if);
			break;
		case RTA_PREFSRC:
		case RTA_NH_ID:
		case RTA_CACHEINFO:
			break;
		default:
			nl_attr_put(&req, rta->rta_type, RTA_DATA(rta),
				    RTA_PAYLOAD(rta));
		}
	}

	nl_copy_keep(cp, &req);
}

/**
 * nl_copy_dump() - dump addresses or routes of a family on the host, keep
 *		    the requests that recreate ours in the namespace
 * @cp:		copy state, @af, @host_if and @ns_if set
 * @type:	RTM_GETADDR or RTM_GETROUTE
 * @ifname:	tap device name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_copy_dump(struct nl_copy *cp, uint16_t type, const char *ifname)
{
	bool addr = type == RTM_GETADDR;
	const char *fam = cp->af == AF_INET ? "IPv4" : "IPv6";
	struct nl_req req;
	int s, ret;

	if ((s = nl_host_sock()) < 0)
		return s;

	nl_req_init(&req, type, NLM_F_DUMP,
		    addr ? sizeof(struct ifaddrmsg) : sizeof(struct rtmsg));
	if (addr)
		req.body.ifa.ifa_family = (unsigned char)cp->af;
	else
		req.body.rtm.rtm_family = (unsigned char)cp->af;

	ret = nl_exchange(s, &req, addr ? nl_copy_addr_cb : nl_copy_route_cb,
			  cp);
	if (ret) {
		err("can't read the host's %s %s: %s", fam,
		    addr ? "addresses" : "routes", nl_strerror(ret));
		return ret;
	}
	if (cp->full) {
		err("too many %s %s on the template interface to copy to %s: "
		    "give %s", fam, addr ? "addresses" : "routes", ifname,
		    addr ? "--no-copy-addrs, or -a" :
			   "--no-copy-routes, or -g");
		return -E2BIG;
	}

	return 0;
}

/**
 * nl_copy_describe() - describe a kept request, for messages
 * @nh:		RTM_NEWADDR or RTM_NEWROUTE request in nl_copy_buf
 * @buf:	output
 * @size:	size of @buf
 *
 * Return: @buf: "ADDR/LEN", or "to DST/LEN" with " via GW" if any
 */
static const char *nl_copy_describe(const struct nlmsghdr *nh, char *buf,
				    size_t size)
{
	char a[INET6_ADDRSTRLEN] = "default", g[INET6_ADDRSTRLEN] = "";
	bool route = nh->nlmsg_type == RTM_NEWROUTE;
	const struct rtmsg *rtm = NLMSG_DATA(nh);
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	int af = route ? rtm->rtm_family : ifa->ifa_family;
	int plen = route ? rtm->rtm_dst_len : ifa->ifa_prefixlen;
	const struct rtattr *rta;
	int len;

	if (route) {
		rta = RTM_RTA(rtm);
		len = (int)RTM_PAYLOAD(nh);
	} else {
		rta = IFA_RTA(ifa);
		len = (int)IFA_PAYLOAD(nh);
	}

	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (RTA_PAYLOAD(rta) != nl_af_len(af))
			continue;
		if (route && rta->rta_type == RTA_DST)
			inet_ntop(af, RTA_DATA(rta), a, sizeof(a));
		else if (route && rta->rta_type == RTA_GATEWAY)
			inet_ntop(af, RTA_DATA(rta), g, sizeof(g));
		else if (!route && rta->rta_type == IFA_ADDRESS)
			inet_ntop(af, RTA_DATA(rta), a, sizeof(a));
	}

	snprintf(buf, size, "%s%s/%i%s%s", route ? "to " : "", a, plen,
		 *g ? " via " : "", g);
	return buf;
}

/**
 * nl_copy_round() - send the kept requests not done yet, once each
 * @s:		netlink socket in the namespace
 * @used:	bytes of nl_copy_buf holding requests
 * @left:	set to the number of requests still not done
 * @last:	set to the last request that failed, NULL if none
 *
 * A request the kernel took, or whose entry exists already, is done: its
 * type becomes NLMSG_NOOP. "Unreachable" refusals are left for the next
 * round.
 *
 * Return: number of requests done in this round, or negative errno on
 *	   any other refusal, with @last set
 */
static int nl_copy_round(int s, size_t used, unsigned int *left,
			 struct nlmsghdr **last)
{
	size_t off = 0;
	int done = 0;

	*left = 0;
	*last = NULL;
	while (off < used) {
		struct nlmsghdr *nh = (struct nlmsghdr *)(nl_copy_buf + off);
		struct nl_req req;
		int ret;

		off += NLMSG_ALIGN(nh->nlmsg_len);
		if (nh->nlmsg_type == NLMSG_NOOP)
			continue;

		memset(&req, 0, sizeof(req));
		memcpy(&req, nh, nh->nlmsg_len);
		ret = nl_exchange(s, &req, NULL, NULL);
		if (!ret || ret == -EEXIST) {
			nh->nlmsg_type = NLMSG_NOOP;
			done++;
			continue;
		}

		*last = nh;
		if (ret != -ENETUNREACH && ret != -EHOSTUNREACH)
			return ret;
		(*left)++;
	}

	return done;
}

/**
 * nl_copy_apply() - send the kept requests to the namespace
 * @s:		netlink socket in the namespace
 * @cp:		copy state
 * @ifname:	tap device name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_copy_apply(int s, const struct nl_copy *cp, const char *ifname)
{
	char what[INET6_ADDRSTRLEN * 2 + 32];
	struct nlmsghdr *last;
	unsigned int left;
	int ret;

	do
		ret = nl_copy_round(s, cp->used, &left, &last);
	while (ret > 0 && left);

	if (ret < 0) {
		err("can't copy %s %s to %s in the namespace: %s",
		    last->nlmsg_type == RTM_NEWROUTE ? "route" : "address",
		    nl_copy_describe(last, what, sizeof(what)), ifname,
		    nl_strerror(ret));
		return ret;
	}

	if (left) {
		warn("%u route%s of the template interface can't be used on "
		     "%s in the namespace (unreachable), skipped; the last: "
		     "%s", left, left == 1 ? "" : "s", ifname,
		     nl_copy_describe(last, what, sizeof(what)));
	}

	return 0;
}

/**
 * nl_copy_all() - copy the addresses of a host interface, or the routes
 *		   through it, to the tap
 * @s:		netlink socket in the namespace
 * @type:	RTM_GETADDR (addresses) or RTM_GETROUTE (routes)
 * @af:		AF_INET or AF_INET6
 * @host_if:	template interface on the host
 * @ns_if:	tap device in the namespace
 * @ifname:	its name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
int nl_copy_all(int s, uint16_t type, int af, unsigned int host_if,
		unsigned int ns_if, const char *ifname)
{
	struct nl_copy cp = { .af = af, .host_if = host_if, .ns_if = ns_if };
	bool addr = type == RTM_GETADDR;
	int ret;

	ret = nl_copy_dump(&cp, type, ifname);
	if (ret)
		return ret;

	debug("copying %u %s %s%s of the template interface to %s",
	      cp.count, af == AF_INET ? "IPv4" : "IPv6",
	      addr ? "address" : "route",
	      cp.count == 1 ? "" : (addr ? "es" : "s"), ifname);
	return nl_copy_apply(s, &cp, ifname);
}
