// SPDX-License-Identifier: GPL-2.0-or-later
/* netlink_ns.c - set-up of pasta's tap device and loopback in the namespace
 *
 * Theory of operation
 *
 * A netlink socket stays bound to the network namespace it was created in,
 * so the namespace socket is opened by a short-lived thread that entered
 * the target namespace with setns() (only that thread moves: the relay
 * stays in its own namespace) and ends once the socket is open. Requests
 * and exchanges are netlink.c's (netlink_internal.h).
 *
 * At start-up, nl_ns_configure() brings loopback up (and does nothing
 * else with --splice-only, which has no tap device), sets the tap device's
 * MAC address and MTU and brings it up. With --config-net it then gives
 * it, for each enabled family, every address and route of the host's
 * template interface (netlink_copy.c), or with --no-copy-addrs or -a the
 * guest's address only, and with --no-copy-routes or -g a default route
 * only; a gateway that nothing makes reachable then first gets an on-link
 * host route, so that the kernel accepts the default route through it.
 *
 * No address we configure goes through duplicate address detection, which
 * would leave it tentative, unusable, for a second or more after we are
 * ready: global ones are added with IFA_F_NODAD, and so is the link-local
 * address, which we add ourselves while the kernel is told to make none
 * (nl_ns_tap_up()). Every step is one request/acknowledge exchange; the
 * first failure stops the set-up and is logged with what failed on which
 * device, and the kernel's explanation.
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include "netlink.h"
#include "netlink_internal.h"
#include "ctx.h"
#include "../util/log.h"
#include "../util/util.h"

/* Address text: address, slash, prefix length */
#define NL_ADDRSTR_LEN		(INET6_ADDRSTRLEN + 16)

static int nl_ns = -1;			/* socket in the target namespace */

/**
 * nl_attr_u32() - append a 32-bit attribute to a request
 * @req:	request
 * @type:	attribute type
 * @val:	value, host order
 */
void nl_attr_u32(struct nl_req *req, uint16_t type, uint32_t val)
{
	nl_attr_put(req, type, &val, sizeof(val));
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
 * nl_ns_sock() - the socket in the target namespace
 *
 * Return: socket, -1 if none
 */
int nl_ns_sock(void)
{
	return nl_ns;
}

/**
 * nl_link_set() - change flags or one property of a link
 * @s:		netlink socket
 * @ifindex:	interface index
 * @flags:	flags to set (IFF_UP, IFF_NOARP), within @change
 * @change:	flags to change, 0 for none
 * @attr:	attribute to set (IFLA_MTU, IFLA_ADDRESS), or 0 for none
 * @data:	its payload
 * @len:	payload length
 *
 * Return: 0 on success, negative errno
 */
static int nl_link_set(int s, unsigned int ifindex, unsigned int flags,
		       unsigned int change, uint16_t attr, const void *data,
		       size_t len)
{
	struct nl_req req;

	nl_req_init(&req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	req.body.ifi.ifi_family = AF_UNSPEC;
	req.body.ifi.ifi_index = (int)ifindex;
	req.body.ifi.ifi_flags = flags;
	req.body.ifi.ifi_change = change;
	if (attr)
		nl_attr_put(&req, attr, data, len);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_link_gen_mode() - set how the kernel makes a link's IPv6 link-local
 *			address
 * @s:		netlink socket
 * @ifindex:	interface index
 * @mode:	IN6_ADDR_GEN_MODE_*
 *
 * Return: 0 on success, negative errno
 */
static int nl_link_gen_mode(int s, unsigned int ifindex, uint8_t mode)
{
	struct nl_req req;
	size_t spec, inet6;

	nl_req_init(&req, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	req.body.ifi.ifi_family = AF_UNSPEC;
	req.body.ifi.ifi_index = (int)ifindex;
	spec = nl_attr_nest(&req, IFLA_AF_SPEC);
	inet6 = nl_attr_nest(&req, AF_INET6);
	nl_attr_put(&req, IFLA_INET6_ADDR_GEN_MODE, &mode, sizeof(mode));
	nl_attr_nest_end(&req, inet6);
	nl_attr_nest_end(&req, spec);

	return nl_exchange(s, &req, NULL, NULL);
}

/**
 * nl_addr_req() - start an RTM_NEWADDR request for an address of a link
 * @req:	request to fill
 * @flags:	NLM_F_* flags besides the request and its acknowledgement
 * @af:		AF_INET or AF_INET6
 * @ifindex:	interface index
 * @addr:	address (struct in_addr or in6_addr)
 * @prefix_len:	prefix length
 * @scope:	RT_SCOPE_UNIVERSE, or RT_SCOPE_LINK for a link-local one
 *
 * IPv6 addresses skip duplicate address detection, so that they are usable
 * at once: with IFA_F_NODAD, the kernel never marks them tentative.
 */
void nl_addr_req(struct nl_req *req, uint16_t flags, int af,
		 unsigned int ifindex, const void *addr, int prefix_len,
		 unsigned char scope)
{
	size_t alen = nl_af_len(af);

	nl_req_init(req, RTM_NEWADDR, flags, sizeof(struct ifaddrmsg));
	req->body.ifa.ifa_family = (unsigned char)af;
	req->body.ifa.ifa_prefixlen = (unsigned char)prefix_len;
	req->body.ifa.ifa_scope = scope;
	req->body.ifa.ifa_index = ifindex;

	nl_attr_put(req, IFA_LOCAL, addr, alen);
	nl_attr_put(req, IFA_ADDRESS, addr, alen);
	if (af == AF_INET6) {
		req->body.ifa.ifa_flags = IFA_F_NODAD;
		nl_attr_u32(req, IFA_FLAGS, IFA_F_NODAD);
	}
}

/**
 * nl_addr_add() - add an address to a link
 * @s:		netlink socket
 * @af:		AF_INET or AF_INET6
 * @ifindex:	interface index
 * @addr:	address (struct in_addr or in6_addr)
 * @prefix_len:	prefix length
 * @scope:	RT_SCOPE_UNIVERSE, or RT_SCOPE_LINK for a link-local one
 *
 * Return: 0 on success, negative errno
 */
int nl_addr_add(int s, int af, unsigned int ifindex, const void *addr,
		       int prefix_len, unsigned char scope)
{
	struct nl_req req;

	nl_addr_req(&req, NLM_F_CREATE | NLM_F_EXCL, af, ifindex, addr,
		    prefix_len, scope);
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
 * struct nl_ns_af - what --config-net sets up for one address family
 * @af:		AF_INET or AF_INET6
 * @addr:	the guest's address, skipped if all zero
 * @prefix_len:	its prefix length
 * @gw:		default gateway, no default route if all zero
 * @host_if:	template interface on the host, 0 if none
 * @copy_addrs:	copy every address of @host_if instead of setting @addr
 * @copy_routes: copy every route through @host_if instead of a default
 *		route via @gw
 */
struct nl_ns_af {
	int af;
	const void *addr;
	int prefix_len;
	const void *gw;
	unsigned int host_if;
	bool copy_addrs;
	bool copy_routes;
};

/**
 * nl_ns_addr_one() - add the guest's address of one family
 * @s:		netlink socket in the namespace
 * @f:		what to set up
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_addr_one(int s, const struct nl_ns_af *f,
			  unsigned int ifindex, const char *ifname)
{
	char as[NL_ADDRSTR_LEN];
	int ret;

	if (nl_is_zero(f->af, f->addr))
		return 0;

	ret = nl_addr_add(s, f->af, ifindex, f->addr, f->prefix_len,
			  RT_SCOPE_UNIVERSE);
	if (ret) {
		err("can't add address %s to %s in the namespace: %s",
		    nl_addr_str(f->af, f->addr, f->prefix_len, as), ifname,
		    nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_route_default() - add the default route of one family
 * @s:		netlink socket in the namespace
 * @f:		what to set up
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 *
 * A gateway that no address or route of the namespace makes reachable
 * first gets an on-link host route, so that the default route through it
 * is accepted.
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_route_default(int s, const struct nl_ns_af *f,
			       unsigned int ifindex, const char *ifname)
{
	int max_len = (int)nl_af_len(f->af) * 8;
	char as[NL_ADDRSTR_LEN];
	int ret;

	if (nl_is_zero(f->af, f->gw))
		return 0;

	ret = nl_route_add(s, f->af, ifindex, NULL, 0, f->gw);
	if (ret == -ENETUNREACH || ret == -EHOSTUNREACH) {
		ret = nl_route_add(s, f->af, ifindex, f->gw, max_len, NULL);
		if (ret && ret != -EEXIST) {
			err("can't add route to gateway %s on %s in the "
			    "namespace: %s", nl_addr_str(f->af, f->gw, -1, as),
			    ifname, nl_strerror(ret));
			return ret;
		}
		ret = nl_route_add(s, f->af, ifindex, NULL, 0, f->gw);
	}
	if (ret) {
		err("can't add default route via %s dev %s in the namespace: "
		    "%s", nl_addr_str(f->af, f->gw, -1, as), ifname,
		    nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_conf_af() - addresses and routes of one family (--config-net)
 * @s:		netlink socket in the namespace
 * @f:		what to set up
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_conf_af(int s, struct nl_ns_af *f, unsigned int ifindex,
			 const char *ifname)
{
	int max_len = (int)nl_af_len(f->af) * 8;
	int ret;

	if (f->prefix_len <= 0 || f->prefix_len > max_len)
		f->prefix_len = max_len;

	if (f->copy_addrs && f->host_if)
		ret = nl_copy_all(s, RTM_GETADDR, f->af, f->host_if, ifindex,
				  ifname);
	else
		ret = nl_ns_addr_one(s, f, ifindex, ifname);
	if (ret)
		return ret;

	if (f->copy_routes && f->host_if)
		return nl_copy_all(s, RTM_GETROUTE, f->af, f->host_if,
				   ifindex, ifname);
	return nl_ns_route_default(s, f, ifindex, ifname);
}

/**
 * nl_ns_lo_up() - bring up loopback in the namespace
 * @s:		netlink socket in the namespace
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_lo_up(int s)
{
	struct nl_link_info lo;
	int ret;

	ret = nl_link_get(s, 0, "lo", &lo);
	if (!ret)
		ret = nl_link_set(s, lo.ifindex, IFF_UP, IFF_UP, 0, NULL, 0);
	if (ret) {
		err("can't bring up loopback in the namespace: %s",
		    nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_tap_link() - set the tap's MAC address and MTU
 * @s:		netlink socket in the namespace
 * @c:		execution context
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 *
 * The MAC address is set only if c->ns_mac is, the MTU only if c->mtu is
 * not zero.
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_tap_link(int s, const struct ctx *c, unsigned int ifindex,
			  const char *ifname)
{
	static const unsigned char zero_mac[ETH_ALEN];
	int ret;

	if (memcmp(c->ns_mac, zero_mac, sizeof(zero_mac)) != 0) {
		ret = nl_link_set(s, ifindex, 0, 0, IFLA_ADDRESS,
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

		ret = nl_link_set(s, ifindex, 0, 0, IFLA_MTU,
				  &mtu, sizeof(mtu));
		if (ret) {
			err("can't set MTU %u on %s in the namespace: %s",
			    c->mtu, ifname, nl_strerror(ret));
			return ret;
		}
	}

	return 0;
}

/**
 * nl_ns_ll_eui64() - the link-local address the kernel would make from a
 *		      MAC address (RFC 4291, appendix A)
 * @mac:	MAC address
 * @ll:		set to fe80::/64 with the modified EUI-64 identifier
 */
static void nl_ns_ll_eui64(const unsigned char *mac, struct in6_addr *ll)
{
	memset(ll, 0, sizeof(*ll));
	ll->s6_addr[0] = 0xfe;
	ll->s6_addr[1] = 0x80;
	ll->s6_addr[8] = mac[0] ^ 0x02;
	ll->s6_addr[9] = mac[1];
	ll->s6_addr[10] = mac[2];
	ll->s6_addr[11] = 0xff;
	ll->s6_addr[12] = 0xfe;
	ll->s6_addr[13] = mac[3];
	ll->s6_addr[14] = mac[4];
	ll->s6_addr[15] = mac[5];
}

/**
 * nl_ns_ll_own() - bring the tap up with a link-local address of ours
 * @s:		netlink socket in the namespace
 * @l:		the tap, as nl_link_get() read it
 * @ifname:	its name, for messages
 *
 * The kernel would make the same address (EUI-64 mode) when the link comes
 * up, marked tentative until duplicate address detection ends, a second
 * or more later: until then the namespace can't use it, and drops what is
 * sent to it. Made with IFA_F_NODAD, it is never tentative. So the kernel
 * is told to make none (IN6_ADDR_GEN_MODE_NONE) while we bring the link up
 * and add it, then to go back to EUI-64, which makes a new one if the link
 * goes down and up again later.
 *
 * Return: 0 on success, 1 if the kernel refused the mode (nothing done),
 *	   negative errno on failure (logged)
 */
static int nl_ns_ll_own(int s, const struct nl_link_info *l,
			const char *ifname)
{
	char as[NL_ADDRSTR_LEN];
	struct in6_addr ll;
	int ret;

	if (nl_link_gen_mode(s, l->ifindex, IN6_ADDR_GEN_MODE_NONE))
		return 1;

	ret = nl_link_set(s, l->ifindex, IFF_UP, IFF_UP, 0, NULL, 0);
	if (ret) {
		err("can't bring up %s in the namespace: %s", ifname,
		    nl_strerror(ret));
		return ret;
	}

	nl_ns_ll_eui64(l->mac, &ll);
	ret = nl_addr_add(s, AF_INET6, l->ifindex, &ll, 64, RT_SCOPE_LINK);
	if (ret && ret != -EEXIST) {
		err("can't add link-local address %s to %s in the namespace: "
		    "%s", nl_addr_str(AF_INET6, &ll, 64, as), ifname,
		    nl_strerror(ret));
		return ret;
	}

	ret = nl_link_gen_mode(s, l->ifindex, IN6_ADDR_GEN_MODE_EUI64);
	if (ret)
		debug("can't set address generation mode of %s back to "
		      "EUI-64: %s", ifname, nl_strerror(ret));
	return 0;
}

/**
 * nl_ns_tap_up() - bring the tap up, its link-local address usable at once
 * @s:		netlink socket in the namespace
 * @c:		execution context
 * @ifindex:	tap interface index
 * @ifname:	its name, for messages
 *
 * With IPv6, the link-local address skips duplicate address detection: see
 * nl_ns_ll_own(). If the kernel makes another kind of address (stable
 * privacy, random), or won't let us choose, the link comes up with
 * IFF_NOARP, which makes the kernel skip detection for the address it
 * makes then; the flag goes away once it's up.
 *
 * Return: 0 on success, negative errno (logged)
 */
static int nl_ns_tap_up(int s, const struct ctx *c, unsigned int ifindex,
			const char *ifname)
{
	unsigned int flags = IFF_UP;
	struct nl_link_info l;
	int ret;

	if (c->ip6.enabled && !nl_link_get(s, ifindex, NULL, &l)) {
		if (l.has_mac && l.gen_mode == IN6_ADDR_GEN_MODE_EUI64) {
			ret = nl_ns_ll_own(s, &l, ifname);
			if (ret <= 0)
				return ret;
		}
		flags |= IFF_NOARP;
	}

	ret = nl_link_set(s, ifindex, flags, flags, 0, NULL, 0);
	if (!ret && (flags & IFF_NOARP))
		ret = nl_link_set(s, ifindex, 0, IFF_NOARP, 0, NULL, 0);
	if (ret) {
		err("can't bring up %s in the namespace: %s", ifname,
		    nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_configure() - set up the tap device and loopback in the namespace
 * @c:		execution context
 * @ifname:	name of the tap device in the namespace, NULL for none
 *		(--splice-only: loopback only)
 *
 * Always: loopback up; the tap's MAC address set to c->ns_mac (if set),
 * its MTU to c->mtu (if not zero), and the tap up, with a link-local
 * address that skips duplicate address detection. With --config-net also,
 * for each enabled family, the addresses and routes of the template
 * interface, or the guest's address and a default route (--no-copy-addrs,
 * --no-copy-routes, -a, -g). nl_sock_init_ns() must have been called.
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int nl_ns_configure(const struct ctx *c, const char *ifname)
{
	struct nl_ns_af f4 = {
		.af = AF_INET, .addr = &c->ip4.addr,
		.prefix_len = c->ip4.prefix_len, .gw = &c->ip4.gw,
		.host_if = c->ip4.ifindex,
		.copy_addrs = !c->ip4.no_copy_addrs,
		.copy_routes = !c->ip4.no_copy_routes,
	};
	struct nl_ns_af f6 = {
		.af = AF_INET6, .addr = &c->ip6.addr,
		.prefix_len = c->ip6.prefix_len, .gw = &c->ip6.gw,
		.host_if = c->ip6.ifindex,
		.copy_addrs = !c->ip6.no_copy_addrs,
		.copy_routes = !c->ip6.no_copy_routes,
	};
	struct nl_link_info tap;
	int s = nl_ns, ret;

	if (s < 0) {
		err("no netlink socket in the namespace: can't configure it");
		return -EBADF;
	}

	ret = nl_ns_lo_up(s);
	if (ret || !ifname)
		return ret;

	ret = nl_link_get(s, 0, ifname, &tap);
	if (ret) {
		err("can't find %s in the namespace: %s", ifname,
		    nl_strerror(ret));
		return ret;
	}

	ret = nl_ns_tap_link(s, c, tap.ifindex, ifname);
	if (!ret)
		ret = nl_ns_tap_up(s, c, tap.ifindex, ifname);
	if (ret || !c->pasta_conf_ns)
		return ret;

	if (c->ip4.enabled && (ret = nl_ns_conf_af(s, &f4, tap.ifindex,
						   ifname)))
		return ret;
	if (c->ip6.enabled && (ret = nl_ns_conf_af(s, &f6, tap.ifindex,
						   ifname)))
		return ret;

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
		ret = nl_link_set(nl_ns, l.ifindex, 0, 0, IFLA_TXQLEN,
				  &q, sizeof(q));
	if (ret) {
		warn("can't set transmit queue length of %s in the namespace "
		     "to %u: %s", ifname, qlen, nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_link_ll() - IPv6 link-local address of a link in the namespace
 * @ifname:	interface name in the namespace
 * @ll:		set to the address
 *
 * Return: 0 on success, negative errno (-ENOENT: it has none)
 */
int nl_ns_link_ll(const char *ifname, struct in6_addr *ll)
{
	struct nl_link_info l;
	int ret;

	ret = nl_link_get(nl_ns, 0, ifname, &l);
	if (ret)
		return ret;

	return nl_addr_ll(nl_ns, l.ifindex, ll);
}
