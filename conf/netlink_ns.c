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
 * At start-up, nl_ns_configure() brings loopback up, sets the tap device's
 * MAC address and MTU and brings it up; with --config-net it also adds,
 * for each enabled family, the address and the default route. A gateway
 * outside the address's prefix first gets an on-link host route, so that
 * the kernel accepts the default route through it. Every step is one
 * request/acknowledge exchange; the first failure stops the set-up and is
 * logged with what failed on which device, and the kernel's explanation.
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
static void nl_attr_u32(struct nl_req *req, uint16_t type, uint32_t val)
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
		ret = nl_link_set(s, lo.ifindex, true, 0, NULL, 0);
	if (ret) {
		err("can't bring up loopback in the namespace: %s",
		    nl_strerror(ret));
	}

	return ret;
}

/**
 * nl_ns_tap_link() - set the tap's MAC address and MTU, bring it up
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
		ret = nl_link_set(s, ifindex, false, IFLA_ADDRESS,
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

		ret = nl_link_set(s, ifindex, false, IFLA_MTU,
				  &mtu, sizeof(mtu));
		if (ret) {
			err("can't set MTU %u on %s in the namespace: %s",
			    c->mtu, ifname, nl_strerror(ret));
			return ret;
		}
	}

	ret = nl_link_set(s, ifindex, true, 0, NULL, 0);
	if (ret) {
		err("can't bring up %s in the namespace: %s", ifname,
		    nl_strerror(ret));
	}

	return ret;
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
	struct nl_link_info tap;
	int s = nl_ns, ret;

	if (s < 0) {
		err("no netlink socket in the namespace: can't configure %s",
		    ifname);
		return -EBADF;
	}

	ret = nl_ns_lo_up(s);
	if (ret)
		return ret;

	ret = nl_link_get(s, 0, ifname, &tap);
	if (ret) {
		err("can't find %s in the namespace: %s", ifname,
		    nl_strerror(ret));
		return ret;
	}

	ret = nl_ns_tap_link(s, c, tap.ifindex, ifname);
	if (ret || !c->pasta_conf_ns)
		return ret;

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
