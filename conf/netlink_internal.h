/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netlink_internal.h - requests and exchanges shared by conf/netlink*.c
 *
 * Theory of operation: netlink.c builds requests (struct nl_req, filled by
 * nl_req_init() and nl_attr_put()) and runs one blocking exchange at a
 * time over a socket (nl_exchange()), with the kernel's explanation of a
 * failure kept for nl_strerror(). It also opens sockets (nl_sock_open())
 * and looks up links (nl_link_get()). netlink_ns.c uses all of it on the
 * socket it opens inside pasta's namespace, and netlink_copy.c to copy the
 * template interface's addresses and routes there. Nothing here is for
 * other modules: their interface is netlink.h.
 */
#ifndef CONF_NETLINK_INTERNAL_H
#define CONF_NETLINK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/if_addr.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>

/* Room for the attributes of any request we build, routes copied from the
 * host with their multipath next hops included
 */
#define NL_REQ_ATTR_SIZE	1024

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
 * struct nl_link_info - what we read from an RTM_NEWLINK reply
 * @found:	a reply came
 * @ifindex:	interface index
 * @mtu:	MTU, 0 if not reported
 * @has_mac:	@mac was reported
 * @mac:	link-layer address
 * @gen_mode:	IPv6 link-local address generation mode (IN6_ADDR_GEN_MODE_*),
 *		-1 if not reported (IPv6 disabled)
 * @name:	interface name, empty if not reported
 */
struct nl_link_info {
	bool found;
	unsigned int ifindex;
	unsigned int mtu;
	bool has_mac;
	unsigned char mac[ETH_ALEN];
	int gen_mode;
	char name[IFNAMSIZ];
};

/**
 * struct nl_default_route - a default route of a dump, as read
 * @table:	routing table
 * @oif:	output interface (a multipath route's first hop's), 0 if none
 * @metric:	priority
 * @scope:	scope
 * @has_gw:	it has a gateway
 * @multipath:	it has next hops (RTA_MULTIPATH)
 * @gw:		the gateway, nl_af_len() bytes, zero if none
 */
struct nl_default_route {
	uint32_t table;
	unsigned int oif;
	uint32_t metric;
	unsigned char scope;
	bool has_gw;
	bool multipath;
	uint8_t gw[sizeof(struct in6_addr)];
};

/* netlink.c */
void nl_addr_read(const struct nlmsghdr *nh, size_t alen,
		  const uint8_t **local, const uint8_t **address,
		  uint32_t *flags);
bool nl_default_route_read(const struct nlmsghdr *nh, int af,
			   struct nl_default_route *r);
void nl_req_init(struct nl_req *req, uint16_t type, uint16_t flags,
		 size_t hdr_len);
void nl_attr_put(struct nl_req *req, uint16_t type, const void *data,
		 size_t len);
size_t nl_attr_nest(struct nl_req *req, uint16_t type);
void nl_attr_nest_end(struct nl_req *req, size_t off);
int nl_exchange(int s, struct nl_req *req, nl_cb cb, void *arg);
const char *nl_strerror(int ret);
int nl_sock_open(void);
int nl_host_sock(void);
size_t nl_af_len(int af);
int nl_link_get(int s, unsigned int ifindex, const char *name,
		struct nl_link_info *l);
int nl_addr_ll(int s, unsigned int ifindex, struct in6_addr *ll);

/* netlink_ns.c */
void nl_attr_u32(struct nl_req *req, uint16_t type, uint32_t val);
void nl_addr_req(struct nl_req *req, uint16_t flags, int af,
		 unsigned int ifindex, const void *addr, int prefix_len,
		 unsigned char scope);
int nl_addr_add(int s, int af, unsigned int ifindex, const void *addr,
		int prefix_len, unsigned char scope);
int nl_ns_sock(void);

/* netlink_copy.c */
int nl_copy_all(int s, uint16_t type, int af, unsigned int host_if,
		unsigned int ns_if, const char *ifname);

#endif /* CONF_NETLINK_INTERNAL_H */
