// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink_follow.c - pasta --config-net: the namespace follows the host
 *
 * Theory of operation: when the settings derived from the host change at
 * run time (guest/follow.c), main() has nl_ns_follow() bring the tap
 * device in the namespace to what nl_ns_configure() would set up now,
 * in place: the link stays up, the new address comes before the old one
 * goes, and the default route is replaced, not deleted and added. Per
 * family, as start-up:
 *
 *   - addresses: every address of the template interface again
 *     (netlink_copy.c: those already there are left), or with
 *     --no-copy-addrs or -a the guest's address only; an address we
 *     deprecated before that the host gives again is removed first, so
 *     that it comes back with the host's prefix length and peer now;
 *   - the default route through the new gateway (NLM_F_REPLACE, after an
 *     on-link route to it when nothing else makes it reachable); with
 *     routes copied, every route of the template interface again;
 *   - then the old address is deprecated (preferred lifetime 0): no new
 *     connection picks it, those using it go on, and the kernel removes
 *     it NL_FOLLOW_OLD_VALID_S later. For IPv4, the tap promotes
 *     secondary addresses, so that the new address, if in the old one's
 *     subnet, doesn't go with it. The new address is set with an infinite
 *     lifetime, even if it was there (the host may come back to an
 *     address it left: that one was deprecated);
 *   - last, the default routes of the tap that the new settings don't
 *     give go: those through another gateway, or with none (a VPN's tun
 *     device has none) when there is a gateway now, or with one when
 *     there is none now. Otherwise the old template's, copied with a
 *     lower metric (a VPN's), would still win once it went, and a guest
 *     that saw the change would differ from one started now. Only once a
 *     default route of the new settings is there: with none (a tun's
 *     route and --no-copy-routes), the old ones stay. Multipath routes
 *     are left.
 *
 * The requests run in pasta's worker thread, in the namespace (ns_run()):
 * the kernel checks CAP_NET_ADMIN of the sending thread, and the worker is
 * the only thread that keeps it, and only when the namespace follows the
 * host (isolation/sandbox.c). Other routes and addresses copied before
 * that the host dropped are left (they lead to the tap all the same):
 * only the guest's address is aged, and default routes replaced.
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/if_addr.h>
#include <linux/ip.h>

#include "netlink.h"
#include "netlink_internal.h"
#include "ctx.h"
#include "../util/log.h"
#include "../util/ns_worker.h"

/* Lifetime of an address the host no longer gives: deprecated at once (no
 * new connection picks it), valid this long for those that use it
 */
#define NL_FOLLOW_OLD_VALID_S	120
/* Lifetime "for ever", as netlink says it */
#define NL_FOLLOW_FOREVER	0xffffffffU
/* Default routes of the tap removed at most per change and family: the
 * old template's, usually one
 */
#define NL_FOLLOW_STALE_MAX	8
/* Entries of one address (a peer each) whose lifetimes a change sets */
#define NL_FOLLOW_PEERS_MAX	4

/**
 * struct nl_follow_af - one family's change
 * @af:		AF_INET or AF_INET6
 * @old_addr:	address in force before
 * @old_len:	its prefix length
 * @addr:	address now
 * @len:	its prefix length
 * @old_gw:	gateway before
 * @gw:		gateway now, none if all zero
 * @host_if:	template interface now
 * @copy_addrs:	copy every address of @host_if
 * @copy_routes: copy every route through @host_if
 */
struct nl_follow_af {
	int af;
	const void *old_addr;
	int old_len;
	const void *addr;
	int len;
	const void *old_gw;
	const void *gw;
	unsigned int host_if;
	bool copy_addrs;
	bool copy_routes;
};

/**
 * struct nl_follow - what the worker does
 * @ifname:	tap device in the namespace
 * @f:		families that changed
 * @n:		number of @f
 */
struct nl_follow {
	const char *ifname;
	struct nl_follow_af f[2];
	unsigned int n;
};

/**
 * nl_follow_zero() - is an address all zero?
 * @af:		AF_INET or AF_INET6
 * @a:		address
 *
 * Return: true if it is
 */
static bool nl_follow_zero(int af, const void *a)
{
	static const struct in6_addr zero = IN6ADDR_ANY_INIT;

	return !memcmp(a, &zero, nl_af_len(af));
}

/**
 * nl_follow_route() - replace the default route, or add an on-link route
 * @s:		netlink socket in the namespace
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap device
 * @gw:		gateway (for the on-link route: its destination)
 * @onlink:	add an on-link host route to @gw instead
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_route(int s, int af, unsigned int ifindex,
			   const void *gw, bool onlink)
{
	size_t alen = nl_af_len(af);
	struct nl_req req;

	nl_req_init(&req, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE,
		    sizeof(struct rtmsg));
	req.body.rtm.rtm_family = (unsigned char)af;
	req.body.rtm.rtm_table = RT_TABLE_MAIN;
	req.body.rtm.rtm_protocol = RTPROT_BOOT;
	req.body.rtm.rtm_type = RTN_UNICAST;
	if (onlink) {
		req.body.rtm.rtm_scope = RT_SCOPE_LINK;
		req.body.rtm.rtm_dst_len = (unsigned char)(alen * 8);
		nl_attr_put(&req, RTA_DST, gw, alen);
	} else {
		req.body.rtm.rtm_scope = RT_SCOPE_UNIVERSE;
		nl_attr_put(&req, RTA_GATEWAY, gw, alen);
	}
	nl_attr_u32(&req, RTA_OIF, ifindex);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_follow_default() - the default route through the new gateway
 * @s:		netlink socket in the namespace
 * @f:		the family's change
 * @ifindex:	tap device
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_default(int s, const struct nl_follow_af *f,
			     unsigned int ifindex)
{
	int ret;

	if (nl_follow_zero(f->af, f->gw))
		return 0;

	ret = nl_follow_route(s, f->af, ifindex, f->gw, false);
	if (ret == -ENETUNREACH || ret == -EHOSTUNREACH) {
		ret = nl_follow_route(s, f->af, ifindex, f->gw, true);
		if (!ret)
			ret = nl_follow_route(s, f->af, ifindex, f->gw, false);
	}
	return ret;
}

/**
 * struct nl_follow_peers - entries of one address on the tap
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap device
 * @addr:	the address
 * @len:	its prefix length, -1 for deprecated entries of any length
 * @n:		number of @peer
 * @peer:	the peer address of each entry (the address itself if none)
 * @plen:	the prefix length of each entry
 */
struct nl_follow_peers {
	int af;
	unsigned int ifindex;
	const void *addr;
	int len;
	unsigned int n;
	uint8_t peer[NL_FOLLOW_PEERS_MAX][sizeof(struct in6_addr)];
	unsigned char plen[NL_FOLLOW_PEERS_MAX];
};

/**
 * nl_follow_peers_cb() - note one entry of the address, from the dump
 * @nh:		RTM_NEWADDR message
 * @arg:	struct nl_follow_peers
 */
static void nl_follow_peers_cb(const struct nlmsghdr *nh, void *arg)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
	const uint8_t *local, *address;
	struct nl_follow_peers *p = arg;
	size_t alen = nl_af_len(p->af);
	uint32_t flags;

	if (nh->nlmsg_type != RTM_NEWADDR ||
	    nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return;
	if (ifa->ifa_family != p->af || ifa->ifa_index != p->ifindex ||
	    (p->len >= 0 && ifa->ifa_prefixlen != p->len))
		return;

	nl_addr_read(nh, alen, &local, &address, &flags);
	if (!local || memcmp(local, p->addr, alen) != 0 ||
	    p->n >= NL_FOLLOW_PEERS_MAX)
		return;
	if (p->len < 0 && !(flags & IFA_F_DEPRECATED))
		return;
	p->plen[p->n] = ifa->ifa_prefixlen;
	memcpy(p->peer[p->n++], address ? address : local, alen);
}

/**
 * nl_follow_peers_find() - dump the tap's addresses, note those wanted
 * @s:		netlink socket in the namespace
 * @p:		what is wanted; @n and the entries set
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_peers_find(int s, struct nl_follow_peers *p)
{
	struct nl_req req;

	nl_req_init(&req, RTM_GETADDR, NLM_F_DUMP, sizeof(struct ifaddrmsg));
	req.body.ifa.ifa_family = (unsigned char)p->af;
	return nl_exchange(s, &req, nl_follow_peers_cb, p);
}

/**
 * nl_follow_addr_clear() - remove entries of an address we deprecated
 * @s:		netlink socket in the namespace
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap device
 * @addr:	address the host gives again
 *
 * The host may come back to an address it left with another prefix
 * length or peer (a VPN that is a WireGuard-like /128 one time, an
 * OpenVPN /64 the next): the kernel would keep the old entry's (IPv6:
 * an address is one entry, whatever its prefix length), or add the new
 * one beside it (IPv4). The deprecated entries go, so that the address
 * is added again as start-up would add it.
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_addr_clear(int s, int af, unsigned int ifindex,
				const void *addr)
{
	struct nl_follow_peers p = { .af = af, .ifindex = ifindex,
				     .addr = addr, .len = -1 };
	size_t alen = nl_af_len(af);
	unsigned int i;
	int ret;

	ret = nl_follow_peers_find(s, &p);
	for (i = 0; i < p.n && !ret; i++) {
		struct nl_req req;

		nl_req_init(&req, RTM_DELADDR, 0, sizeof(struct ifaddrmsg));
		req.body.ifa.ifa_family = (unsigned char)af;
		req.body.ifa.ifa_prefixlen = p.plen[i];
		req.body.ifa.ifa_index = ifindex;
		nl_attr_put(&req, IFA_LOCAL, addr, alen);
		nl_attr_put(&req, IFA_ADDRESS, p.peer[i], alen);
		ret = nl_exchange(s, &req, NULL, NULL);
		if (ret == -EADDRNOTAVAIL || ret == -ENODEV)
			ret = 0;
	}
	return ret;
}

/**
 * nl_follow_addr_one() - add an address with a peer, or change its
 *			  lifetimes
 * @s:		netlink socket in the namespace
 * @p:		the address, its prefix length
 * @peer:	its peer (the address itself if it has none)
 * @valid_s:	valid lifetime, seconds, NL_FOLLOW_FOREVER for ever
 * @pref_s:	preferred lifetime, seconds (0: deprecated)
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_addr_one(int s, const struct nl_follow_peers *p,
			      const void *peer, uint32_t valid_s,
			      uint32_t pref_s)
{
	struct ifa_cacheinfo ci = { .ifa_prefered = pref_s,
				    .ifa_valid = valid_s };
	size_t alen = nl_af_len(p->af);
	struct nl_req req;

	nl_req_init(&req, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE,
		    sizeof(struct ifaddrmsg));
	req.body.ifa.ifa_family = (unsigned char)p->af;
	req.body.ifa.ifa_prefixlen = (unsigned char)p->len;
	req.body.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	req.body.ifa.ifa_index = p->ifindex;
	nl_attr_put(&req, IFA_LOCAL, p->addr, alen);
	nl_attr_put(&req, IFA_ADDRESS, peer, alen);
	if (p->af == AF_INET6) {
		req.body.ifa.ifa_flags = IFA_F_NODAD;
		nl_attr_u32(&req, IFA_FLAGS, IFA_F_NODAD);
	}
	nl_attr_put(&req, IFA_CACHEINFO, &ci, sizeof(ci));
	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_follow_addr_set() - add an address, or change its lifetimes
 * @s:		netlink socket in the namespace
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap device
 * @addr:	address
 * @len:	its prefix length
 * @valid_s:	valid lifetime, seconds, NL_FOLLOW_FOREVER for ever
 * @pref_s:	preferred lifetime, seconds (0: deprecated)
 *
 * Every entry of the address with that prefix length gets the lifetimes,
 * whatever its peer: one copied from a point-to-point link (a VPN's tun,
 * "198.51.100.10 peer 198.51.100.9") is another entry than the address
 * alone, for the kernel, which would add that one beside it. If there is
 * none, the address alone is added.
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_addr_set(int s, int af, unsigned int ifindex,
			      const void *addr, int len, uint32_t valid_s,
			      uint32_t pref_s)
{
	struct nl_follow_peers p = { .af = af, .ifindex = ifindex,
				     .addr = addr, .len = len };
	unsigned int i;
	int ret;

	ret = nl_follow_peers_find(s, &p);
	if (ret)
		return ret;

	if (!p.n)
		return nl_follow_addr_one(s, &p, addr, valid_s, pref_s);
	for (i = 0; i < p.n && !ret; i++)
		ret = nl_follow_addr_one(s, &p, p.peer[i], valid_s, pref_s);
	return ret;
}

/**
 * nl_follow_promote() - IPv4: a primary address that expires promotes
 *			 the secondary ones of its subnet
 * @s:		netlink socket in the namespace
 * @ifindex:	tap device
 *
 * Without it, the kernel removes them along with it: a new address in
 * the subnet of the old one would go when the old one expires.
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_promote(int s, unsigned int ifindex)
{
	struct nl_req req;
	size_t spec, inet, conf;

	nl_req_init(&req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	req.body.ifi.ifi_family = AF_UNSPEC;
	req.body.ifi.ifi_index = (int)ifindex;
	spec = nl_attr_nest(&req, IFLA_AF_SPEC);
	inet = nl_attr_nest(&req, AF_INET);
	conf = nl_attr_nest(&req, IFLA_INET_CONF);
	nl_attr_u32(&req, IPV4_DEVCONF_PROMOTE_SECONDARIES, 1);
	nl_attr_nest_end(&req, conf);
	nl_attr_nest_end(&req, inet);
	nl_attr_nest_end(&req, spec);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * struct nl_follow_stale - default routes of the tap, against the new
 *			    settings
 * @af:		AF_INET or AF_INET6
 * @ifindex:	tap device
 * @gw:		gateway now, none if all zero
 * @kept:	default routes of the tap that the new settings give
 * @n:		number of @r
 * @more:	more than NL_FOLLOW_STALE_MAX others were found
 * @r:		the others: metric, scope, gateway (@has_gw: it has one)
 */
struct nl_follow_stale {
	int af;
	unsigned int ifindex;
	const void *gw;
	unsigned int kept;
	unsigned int n;
	bool more;
	struct {
		uint32_t metric;
		unsigned char scope;
		bool has_gw;
		uint8_t gw[sizeof(struct in6_addr)];
	} r[NL_FOLLOW_STALE_MAX];
};

/**
 * nl_follow_stale_cb() - sort one route of the namespace's dump
 * @nh:		RTM_NEWROUTE message
 * @arg:	struct nl_follow_stale
 *
 * Only single-hop unicast default routes of the main table through the
 * tap count: a default route is kept if it has the new gateway, or, when
 * there is none now, if it has none either.
 */
static void nl_follow_stale_cb(const struct nlmsghdr *nh, void *arg)
{
	struct nl_follow_stale *st = arg;
	size_t alen = nl_af_len(st->af);
	struct nl_default_route r;

	if (!nl_default_route_read(nh, st->af, &r) || r.multipath ||
	    r.table != RT_TABLE_MAIN || r.oif != st->ifindex)
		return;

	if (nl_follow_zero(st->af, st->gw) ? !r.has_gw :
	    (r.has_gw && !memcmp(r.gw, st->gw, alen))) {
		st->kept++;
		return;
	}
	if (st->n >= NL_FOLLOW_STALE_MAX) {
		st->more = true;
		return;
	}
	st->r[st->n].metric = r.metric;
	st->r[st->n].scope = r.scope;
	st->r[st->n].has_gw = r.has_gw;
	if (r.has_gw)
		memcpy(st->r[st->n].gw, r.gw, alen);
	st->n++;
}

/**
 * nl_follow_route_del() - remove one default route found stale
 * @s:		netlink socket in the namespace
 * @st:		what nl_follow_stale_cb() found
 * @i:		which one
 *
 * Its metric, scope and gateway (or none) tell it from those kept: the
 * kernel matches a deletion on what it is given.
 *
 * Return: 0 on success or if it is gone already, negative errno
 */
static int nl_follow_route_del(int s, const struct nl_follow_stale *st,
			       unsigned int i)
{
	struct nl_req req;
	int ret;

	nl_req_init(&req, RTM_DELROUTE, 0, sizeof(struct rtmsg));
	req.body.rtm.rtm_family = (unsigned char)st->af;
	req.body.rtm.rtm_table = RT_TABLE_MAIN;
	req.body.rtm.rtm_type = RTN_UNICAST;
	req.body.rtm.rtm_scope = st->r[i].scope;
	nl_attr_u32(&req, RTA_OIF, st->ifindex);
	nl_attr_u32(&req, RTA_PRIORITY, st->r[i].metric);
	if (st->r[i].has_gw)
		nl_attr_put(&req, RTA_GATEWAY, st->r[i].gw, nl_af_len(st->af));

	ret = nl_exchange(s, &req, NULL, NULL);
	return ret == -ESRCH || ret == -ENOENT ? 0 : ret;
}

/**
 * nl_follow_prune() - remove the default routes the new settings don't
 *		       give, once one they give is there
 * @s:		netlink socket in the namespace
 * @f:		the family's change
 * @ifindex:	tap device
 *
 * Return: 0 on success, negative errno
 */
static int nl_follow_prune(int s, const struct nl_follow_af *f,
			   unsigned int ifindex)
{
	struct nl_follow_stale st = { .af = f->af, .ifindex = ifindex,
				      .gw = f->gw };
	struct nl_req req;
	unsigned int i;
	int ret;

	nl_req_init(&req, RTM_GETROUTE, NLM_F_DUMP, sizeof(struct rtmsg));
	req.body.rtm.rtm_family = (unsigned char)f->af;
	ret = nl_exchange(s, &req, nl_follow_stale_cb, &st);
	if (ret || !st.kept)
		return ret;

	if (st.more)
		warn("More than %d old %s default routes in the namespace: some stay",
		     NL_FOLLOW_STALE_MAX, f->af == AF_INET ? "IPv4" : "IPv6");
	for (i = 0; i < st.n && !ret; i++)
		ret = nl_follow_route_del(s, &st, i);
	return ret;
}

/**
 * nl_follow_af_apply() - bring one family of the tap device up to date
 * @s:		netlink socket in the namespace
 * @f:		the family's change
 * @ifindex:	tap device
 * @ifname:	its name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_follow_af_apply(int s, const struct nl_follow_af *f,
			      unsigned int ifindex, const char *ifname)
{
	size_t alen = nl_af_len(f->af);
	bool moved = memcmp(f->old_addr, f->addr, alen) != 0;
	const char *what = "addresses";
	int ret = 0;

	if (!moved && f->old_len == f->len && !memcmp(f->old_gw, f->gw, alen))
		return 0;

	if (f->af == AF_INET && moved)
		(void)nl_follow_promote(s, ifindex);
	if (moved && (what = "address"))
		ret = nl_follow_addr_clear(s, f->af, ifindex, f->addr);
	if (!ret && f->copy_addrs && f->host_if && (what = "addresses"))
		ret = nl_copy_all(s, RTM_GETADDR, f->af, f->host_if, ifindex,
				  ifname);
	if (!ret && !nl_follow_zero(f->af, f->addr) && (what = "address"))
		ret = nl_follow_addr_set(s, f->af, ifindex, f->addr, f->len,
					 NL_FOLLOW_FOREVER, NL_FOLLOW_FOREVER);
	if (!ret && (what = "default route"))
		ret = nl_follow_default(s, f, ifindex);
	if (!ret && moved && !nl_follow_zero(f->af, f->old_addr) &&
	    (what = "old address"))
		ret = nl_follow_addr_set(s, f->af, ifindex, f->old_addr,
					 f->old_len, NL_FOLLOW_OLD_VALID_S, 0);
	if (!ret && f->copy_routes && f->host_if && (what = "routes"))
		ret = nl_copy_all(s, RTM_GETROUTE, f->af, f->host_if, ifindex,
				  ifname);
	if (!ret && (what = "old default routes"))
		ret = nl_follow_prune(s, f, ifindex);

	if (ret) {
		warn("Can't update the %s %s of %s in the namespace: %s",
		     f->af == AF_INET ? "IPv4" : "IPv6", what, ifname,
		     nl_strerror(ret));
	}
	return ret;
}

/**
 * nl_follow_worker() - in the namespace's worker: apply the changes
 * @arg:	struct nl_follow
 *
 * Return: 0 on success, negative errno of the first failure
 */
static int nl_follow_worker(void *arg)
{
	const struct nl_follow *nf = arg;
	struct nl_link_info tap;
	int s = nl_ns_sock(), ret = 0;
	unsigned int i;

	if (nl_link_get(s, 0, nf->ifname, &tap)) {
		warn("Can't find %s in the namespace: its addresses stay",
		     nf->ifname);
		return -ENODEV;
	}

	for (i = 0; i < nf->n; i++) {
		int r = nl_follow_af_apply(s, &nf->f[i], tap.ifindex,
					   nf->ifname);

		if (r && !ret)
			ret = r;
	}
	return ret;
}

/**
 * nl_follow_prefix() - the prefix length start-up would use
 * @af:		AF_INET or AF_INET6
 * @len:	derived prefix length
 *
 * Return: @len, or the full length if it is out of range
 */
static int nl_follow_prefix(int af, int len)
{
	int max_len = (int)nl_af_len(af) * 8;

	return len <= 0 || len > max_len ? max_len : len;
}

/**
 * nl_ns_follow() - pasta --config-net: move the namespace to new settings
 * @c:		execution context
 * @ifname:	tap device in the namespace
 * @o4:		IPv4 settings before
 * @n4:		IPv4 settings now
 * @o6:		IPv6 settings before
 * @n6:		IPv6 settings now
 *
 * Return: 0 on success, negative errno (logged)
 */
int nl_ns_follow(const struct ctx *c, const char *ifname,
		 const struct ip4_ctx *o4, const struct ip4_ctx *n4,
		 const struct ip6_ctx *o6, const struct ip6_ctx *n6)
{
	struct nl_follow nf = { .ifname = ifname };

	if (nl_ns_sock() < 0 || !c->pasta_conf_ns)
		return 0;

	if (c->ip4.enabled) {
		nf.f[nf.n++] = (struct nl_follow_af){
			.af = AF_INET,
			.old_addr = &o4->addr,
			.old_len = nl_follow_prefix(AF_INET, o4->prefix_len),
			.addr = &n4->addr,
			.len = nl_follow_prefix(AF_INET, n4->prefix_len),
			.old_gw = &o4->gw, .gw = &n4->gw,
			.host_if = n4->ifindex,
			.copy_addrs = !n4->no_copy_addrs,
			.copy_routes = !n4->no_copy_routes,
		};
	}
	if (c->ip6.enabled) {
		nf.f[nf.n++] = (struct nl_follow_af){
			.af = AF_INET6,
			.old_addr = &o6->addr,
			.old_len = nl_follow_prefix(AF_INET6, o6->prefix_len),
			.addr = &n6->addr,
			.len = nl_follow_prefix(AF_INET6, n6->prefix_len),
			.old_gw = &o6->gw, .gw = &n6->gw,
			.host_if = n6->ifindex,
			.copy_addrs = !n6->no_copy_addrs,
			.copy_routes = !n6->no_copy_routes,
		};
	}

	return ns_run(nl_follow_worker, &nf);
}
