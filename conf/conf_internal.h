/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf_internal.h - pieces of the command-line layer, for conf/ and tests
 *
 * Theory of operation: conf() runs in stages, each in its own file:
 * conf_parse() (conf_parse.c) reads argv into struct ctx and records what
 * was given explicitly in struct conf_given, without asking the host
 * anything; conf_unimplemented() names a requested feature this version
 * cannot provide yet; conf.c then completes the configuration from the
 * host (netlink, /etc/resolv.conf). Value parsers (numbers, addresses,
 * MAC addresses, users) live in conf_value.c, the help text in
 * conf_usage.c. Unit tests drive the stages directly, so that they never
 * depend on the host's network configuration.
 */
#ifndef CONF_CONF_INTERNAL_H
#define CONF_CONF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>
#include <sys/types.h>

#include "ctx.h"

#define CONF_FLOW_MIN		16
#define CONF_FLOW_MAX		1048576
#define CONF_BUF_MAX		(1 << 30)	/* socket buffers: 1 GiB */
#define CONF_LOG_SIZE_MIN	4096
#define CONF_STATS_MAX		86400		/* --stats: one day */
/* --dhcp-lease: bounds, and the default while following the host: a guest
 * renews at half of it, so it has the host's new address within 5 minutes,
 * for a request every 5 minutes
 */
#define CONF_DHCP_LEASE_MIN	60
#define CONF_DHCP_LEASE_MAX	0xfffffffeUL
#define CONF_DHCP_LEASE_DEFAULT	600
#define CONF_BUSY_POLL_MAX	10000		/* --busy-poll: 10 ms */
#define CONF_NETNS_DIR		"/run/netns"
#define CONF_RUNAS_DEFAULT	"nobody"
#define CONF_NOBODY_ID		65534

/* getopt_long() values of options without a short form */
enum conf_opt_id {
	OPT_TRACE = 256,
	OPT_STATS,
	OPT_LOG_SIZE,
	OPT_RUNAS,
	OPT_CHROOT_FALLBACK,
	OPT_VERSION,
	OPT_VHOST_USER,
	OPT_PRINT_CAPS,
	OPT_REPAIR_PATH,
	OPT_MIGRATE_EXIT,
	OPT_MIGRATE_NO_LINGER,
	OPT_NETNS,
	OPT_USERNS,
	OPT_NETNS_ONLY,
	OPT_NO_NETNS_QUIT,
	OPT_CONFIG_NET,
	OPT_NS_MAC_ADDR,
	OPT_NO_COPY_ROUTES,
	OPT_NO_COPY_ADDRS,
	OPT_NO_SPLICE,
	OPT_SPLICE_ONLY,
	OPT_HOST_LO_TO_NS_LO,
	OPT_OUTBOUND_IF4,
	OPT_OUTBOUND_IF6,
	OPT_FQDN,
	OPT_DNS_FORWARD,
	OPT_DNS_HOST,
	OPT_NO_DHCP_DNS,
	OPT_NO_DHCP_SEARCH,
	OPT_DHCP_DNS,
	OPT_DHCP_SEARCH,
	OPT_MAP_HOST_LO,
	OPT_MAP_GUEST_ADDR,
	OPT_NO_MAP_GW,
	OPT_NO_FOLLOW_HOST,
	OPT_FOLLOW_HOST,
	OPT_DHCP_LEASE,
	OPT_FREEBIND,
	OPT_NO_TCP,
	OPT_NO_UDP,
	OPT_NO_ICMP,
	OPT_NO_DHCP,
	OPT_NO_NDP,
	OPT_NO_DHCPV6,
	OPT_NO_RA,
	OPT_MAX_FLOWS,
	OPT_TCP_RMEM,
	OPT_TCP_WMEM,
	OPT_TAP_RMEM,
	OPT_TAP_WMEM,
	OPT_MCAST_PORTS,
	OPT_BUSY_POLL,
};

/**
 * struct conf_given - what the command line set explicitly
 * @ifname:		-i: template interface, empty if not given
 * @addr4:		-a gave an IPv4 address
 * @addr6:		-a gave an IPv6 address
 * @prefix4:		IPv4 prefix length given (-a ADDR/LEN or -n)
 * @prefix6:		IPv6 prefix length given (-a ADDR/LEN)
 * @gw4:		-g gave an IPv4 gateway
 * @gw6:		-g gave an IPv6 gateway
 * @dns:		-D gave at least one address
 * @search:		-S gave a list
 * @map_host_lo4:	--map-host-loopback set the IPv4 mapping (or none)
 * @map_host_lo6:	--map-host-loopback set the IPv6 mapping (or none)
 * @dns_host4:		--dns-host gave an IPv4 address
 * @dns_host6:		--dns-host gave an IPv6 address
 * @runas:		--runas given
 * @pasta_ifname:	-I given
 * @v4_only:		-4 given
 * @v6_only:		-6 given
 * @dhcp_lease:		--dhcp-lease given
 * @follow_host:	--follow-host given
 */
struct conf_given {
	char ifname[IFNAMSIZ];
	bool addr4;
	bool addr6;
	bool prefix4;
	bool prefix6;
	bool gw4;
	bool gw6;
	bool dns;
	bool search;
	bool map_host_lo4;
	bool map_host_lo6;
	bool dns_host4;
	bool dns_host6;
	bool runas;
	bool pasta_ifname;
	bool v4_only;
	bool v6_only;
	bool dhcp_lease;
	bool follow_host;
};

/* conf.c: the explicit settings conf() saved */
const struct conf_given *conf_given_saved(void);

/* conf_parse.c */
void conf_parse(struct ctx *c, int argc, char **argv, struct conf_given *g);
void conf_follow_default(struct ctx *c, const struct conf_given *g);
const char *conf_optname(int opt);
const char *conf_optlong(int opt);

/* conf_addr.c */
bool conf_opt_net(struct ctx *c, struct conf_given *g, int opt,
		  const char *arg);
void conf_check_af(struct ctx *c, const struct conf_given *g);

/* conf_unimpl.c */
const char *conf_unimplemented(const struct ctx *c);
void conf_ports_default(struct ctx *c);
void conf_ports_finalise(struct ctx *c);

/* conf.c */
void conf_saved_get(const struct conf_given **g, const struct ip4_ctx **ip4,
		    const struct ip6_ctx **ip6);

/* conf_resolv.c */
int conf_resolv_read(struct ctx *c, const char *path,
		     const struct conf_given *g);

/* conf_usage.c */
void conf_version(enum passt_mode mode) __attribute__((noreturn));
void conf_print_capabilities(void) __attribute__((noreturn));

/* conf_value.c */
int conf_ulong(const char *s, unsigned long min, unsigned long max,
	       unsigned long *out);
int conf_bytes(const char *s, unsigned long long min, unsigned long long max,
	       unsigned long long *out);
int conf_inet(const char *s, int *af, void *addr);
int conf_inet_prefix(const char *s, int *af, void *addr, int *prefix_len);
int conf_netmask(const char *s, int *prefix_len);
int conf_mac(const char *s, unsigned char *mac);
int conf_runas(const char *s, uid_t *uid, gid_t *gid);
int conf_strcpy(char *dst, size_t size, const char *s);
int conf_prefix_classful(struct in_addr a);

#endif /* CONF_CONF_INTERNAL_H */
