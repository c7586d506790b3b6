/* SPDX-License-Identifier: GPL-2.0-or-later */
/* netlink.h - rtnetlink queries on the host and set-up in the namespace
 *
 * Theory of operation: two NETLINK_ROUTE sockets, one opened in the
 * relay's own (host) network namespace and one opened inside the target
 * namespace (pasta), each used with blocking request/acknowledge
 * exchanges at start-up only. The host socket answers "which interface
 * carries the default route, through which gateway, with which
 * addresses"; the namespace socket sets the tap device's addresses, MTU,
 * routes and state (with --config-net, the template interface's addresses
 * and routes, read on the host socket), and brings loopback up.
 */
#ifndef CONF_NETLINK_H
#define CONF_NETLINK_H

#include <stdbool.h>
#include <netinet/in.h>

struct ctx;
struct ip4_ctx;
struct ip6_ctx;

int nl_sock_init_host(void);
int nl_sock_init_ns(int netns_fd);
int nl_default_route(int af, unsigned int *ifindex, void *gw);
int nl_first_addr(int af, unsigned int ifindex, void *addr, int *prefix_len);
int nl_link_mtu(unsigned int ifindex);
int nl_link_name(unsigned int ifindex, char *name);
bool nl_host_ok(void);
int nl_link_ll_addr(unsigned int ifindex, struct in6_addr *ll);
int nl_ns_configure(const struct ctx *c, const char *ifname);
int nl_ns_link_txqlen(const char *ifname, unsigned int qlen);
int nl_ns_link_ll(const char *ifname, struct in6_addr *ll);
int nl_ns_follow(const struct ctx *c, const char *ifname,
		 const struct ip4_ctx *o4, const struct ip4_ctx *n4,
		 const struct ip6_ctx *o6, const struct ip6_ctx *n6);

#endif /* CONF_NETLINK_H */
