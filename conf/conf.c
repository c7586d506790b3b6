// SPDX-License-Identifier: GPL-2.0-or-later
/* conf.c - configuration: defaults, command line, host-derived settings
 *
 * Theory of operation: conf_defaults() gives struct ctx the values that
 * hold when nothing is said. conf() then runs the stages:
 *
 *   1. conf_parse(): the command line, checked but not completed;
 *   2. logging set up as asked (-d, --trace, -q, -l, --log-size);
 *   3. conf_unimplemented(): refuse features this version lacks;
 *   4. --runas default (nobody when started as root of the initial user
 *      namespace);
 *   5. host-derived defaults, per address family: the template interface
 *      (-i, else --outbound-if4/6, else the one of the default route), its
 *      gateway and first address, unless given; a family with no address
 *      is disabled, and at least one must remain (pasta --splice-only
 *      skips this stage: no tap device, see conf_splice_only());
 *   6. MTU against IPv6, gateway-to-loopback mapping, DNS servers and
 *      search domains from /etc/resolv.conf, pasta's tap name;
 *   7. forwarding: mode defaults, then the per-port tables.
 *
 * Stage 5 and the gateway mapping of stage 6 can run again at run time:
 * conf_host_rederive() starts from the command line's settings, saved by
 * conf_host(), and derives what a start now would (guest/follow.c puts it
 * in force). So can the DNS part of stage 6 (conf_resolv.c):
 * conf_resolv_rederive() parses the resolver file's new text
 * (guest/follow_resolv.c reads it) with the functions conf_resolv_read()
 * uses at start-up, from the command line's DNS settings.
 *
 * conf_print() logs the outcome for the user (not for a pasta that runs a
 * command of its own, unless -d: that command has the terminal).
 */

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>

#include "conf.h"
#include "conf_internal.h"
#include "netlink.h"
#include "../util/userns.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/outfile.h"
#include "../util/util.h"

#define CONF_FWD_STR_MAX	256	/* forwarding summary in conf_print() */
/* IPv4 placeholders while the host has no network: link-local, as
 * upstream's "local mode" (conf_fallback_ip4())
 */
#define CONF_FALLBACK_ADDR4	"169.254.2.1"
#define CONF_FALLBACK_GW4	"169.254.2.2"
#define CONF_FALLBACK_PREFIX4	16

/**
 * struct conf_saved - what conf_host_rederive() starts from again
 * @g:		explicit settings of the command line
 * @ip4:	IPv4 settings as the command line left them
 * @ip6:	IPv6 settings as the command line left them
 * @if4:	index of the interface -i or --outbound-if4 named, 0 if none
 * @if6:	index of the interface -i or --outbound-if6 named, 0 if none
 */
static struct conf_saved {
	struct conf_given g;
	struct ip4_ctx ip4;
	struct ip6_ctx ip6;
	unsigned int if4;
	unsigned int if6;
} conf_saved;

static const unsigned char conf_mac_default[ETH_ALEN] = {
	0x9a, 0x55, 0x9a, 0x55, 0x9a, 0x55
};

/**
 * conf_defaults() - set every field to its default
 * @c:		configuration, cleared entirely first
 * @mode:	passt or pasta
 *
 * The context is large (forwarding tables) and mostly zero: clearing it
 * stores only where it isn't zero yet, so the pages of tables left empty
 * stay untouched (the relay's context is in the zeroed data segment).
 */
void conf_defaults(struct ctx *c, enum passt_mode mode)
{
	idle_trim_zero(c, sizeof(*c));

	c->mode = mode;
	c->epollfd = -1;
	c->log_size = LOG_SIZE_DEFAULT;
	c->uid = geteuid();
	c->gid = getegid();
	c->fd_tap_preopened = -1;

	c->mtu = MTU_DEFAULT;
	memcpy(c->our_mac, conf_mac_default, sizeof(c->our_mac));
	c->ip4.enabled = true;
	c->ip6.enabled = true;

	/* pasta passes no DNS information over DHCP unless asked */
	c->no_dhcp_dns = c->no_dhcp_search = (mode == MODE_PASTA);

	c->tcp_to_guest.mode = c->tcp_to_host.mode = FWD_UNSET;
	c->udp_to_guest.mode = c->udp_to_host.mode = FWD_UNSET;

	c->flow_max = FLOW_MAX_DEFAULT;
	c->dhcp_lease = CONF_DHCP_LEASE_DEFAULT;
}

/**
 * conf_log_setup() - apply -d, --trace, -q, -l and --log-size
 * @c:		configuration
 */
static void conf_log_setup(const struct ctx *c)
{
	int ret;

	if (c->trace)
		log_set_level(LOG_TRACE);
	else if (c->debug)
		log_set_level(LOG_DEBUG);
	else if (c->quiet)
		log_set_level(LOG_WARNING);
	else
		log_set_level(LOG_INFO);

	if (!*c->log_file)
		return;

	ret = log_open_file(c->log_file, c->log_size, VERSION);
	if (ret < 0)
		die("-l/--log-file: can't open %s: %s", c->log_file,
		    outfile_strerror(ret));
}

/**
 * conf_runas_default() - run as nobody when started as root
 * @c:		configuration
 * @g:		explicit settings
 *
 * Only as root of the initial user namespace: in any other one, nobody
 * may not exist (unshare -r maps only root), and root there has no power
 * beyond the namespace anyway, so the IDs stay as they are.
 */
static void conf_runas_default(struct ctx *c, const struct conf_given *g)
{
	const struct passwd *pw;

	if (g->runas || geteuid())
		return;

	if (!userns_initial()) {
		debug("Not in the initial user namespace: keeping UID %u "
		      "and GID %u (no --runas given)", (unsigned int)c->uid,
		      (unsigned int)c->gid);
		return;
	}

	pw = getpwnam(CONF_RUNAS_DEFAULT);
	if (pw) {
		c->uid = pw->pw_uid;
		c->gid = pw->pw_gid;
	} else {
		c->uid = CONF_NOBODY_ID;
		c->gid = CONF_NOBODY_ID;
	}
}

/**
 * union conf_inaddr - an address of either family, for netlink results
 * @a4:		IPv4
 * @a6:		IPv6
 */
union conf_inaddr {
	struct in_addr a4;
	struct in6_addr a6;
};

/**
 * conf_template() - choose the template interface of one address family
 * @af:		AF_INET or AF_INET6
 * @named_if:	index of the interface -i or --outbound-if4/6 named, 0 if none
 * @nl_ok:	the host netlink socket is usable
 * @gw:		set to the default gateway through the interface, if any
 * @have_gw:	set if @gw was found
 * @ifname:	set to the interface name, IFNAMSIZ bytes, empty if none
 *
 * Start-up and conf_host_rederive() both call it: it asks the host only
 * over netlink (no socket of its own, as if_indextoname() would open).
 *
 * Return: interface index, 0 if there is no template interface
 */
static unsigned int conf_template(int af, unsigned int named_if, bool nl_ok,
				  union conf_inaddr *gw, bool *have_gw,
				  char *ifname)
{
	union conf_inaddr rgw = { 0 };
	unsigned int ifindex = named_if, rt_if = 0;

	*have_gw = false;
	*ifname = '\0';

	if (nl_ok && !nl_default_route(af, &rt_if, &rgw) && rt_if) {
		if (!ifindex)
			ifindex = rt_if;
		if (rt_if == ifindex) {
			*gw = rgw;
			*have_gw = af == AF_INET ? rgw.a4.s_addr != 0 :
				   !IN6_IS_ADDR_UNSPECIFIED(&rgw.a6);
		}
	}

	if (ifindex && (!nl_ok || nl_link_name(ifindex, ifname)))
		*ifname = '\0';

	return ifindex;
}

/**
 * conf_named_if() - the interface -i or --outbound-if4/6 names, if any
 * @name:	its name, empty for none
 * @optname:	option that named it, for the message
 *
 * Return: interface index, 0 if @name is empty; exits if there's none
 */
static unsigned int conf_named_if(const char *name, const char *optname)
{
	unsigned int ifindex;

	if (!*name)
		return 0;
	ifindex = if_nametoindex(name);
	if (!ifindex)
		die("%s: no interface named %s on the host", optname, name);
	return ifindex;
}

/**
 * conf_derive_ip4() - template interface, gateway, address of IPv4
 * @ip4:	IPv4 settings as the command line left them, completed
 * @g:		explicit settings
 * @named_if:	index of the interface the command line named, 0 if none
 * @nl_ok:	the host netlink socket is usable
 */
static void conf_derive_ip4(struct ip4_ctx *ip4, const struct conf_given *g,
			    unsigned int named_if, bool nl_ok)
{
	union conf_inaddr gw, a;
	bool have_gw, have_addr = false;
	int plen = 0;

	ip4->ifindex = conf_template(AF_INET, named_if, nl_ok, &gw, &have_gw,
				     ip4->ifname);

	if (!g->gw4 && have_gw)
		ip4->gw = gw.a4;

	if (ip4->ifindex && nl_ok &&
	    !nl_first_addr(AF_INET, ip4->ifindex, &a, &plen))
		have_addr = true;

	if (!g->addr4) {
		if (have_addr) {
			ip4->addr = a.a4;
			if (!g->prefix4)
				ip4->prefix_len = plen;
		}
	} else if (!g->prefix4) {
		if (have_addr && a.a4.s_addr == ip4->addr.s_addr)
			ip4->prefix_len = plen;
		else
			ip4->prefix_len = conf_prefix_classful(ip4->addr);
	}
}

/**
 * conf_derive_ip6() - template interface, gateway, addresses of IPv6
 * @ip6:	IPv6 settings as the command line left them, completed
 * @g:		explicit settings
 * @named_if:	index of the interface the command line named, 0 if none
 * @nl_ok:	the host netlink socket is usable
 */
static void conf_derive_ip6(struct ip6_ctx *ip6, const struct conf_given *g,
			    unsigned int named_if, bool nl_ok)
{
	union conf_inaddr gw, a;
	bool have_gw;
	int plen = 0;

	ip6->ifindex = conf_template(AF_INET6, named_if, nl_ok, &gw, &have_gw,
				     ip6->ifname);

	if (!g->gw6 && have_gw)
		ip6->gw = gw.a6;

	/* The guest's prefix is a /64, whatever the host's: NDP advertises
	 * it so, and so does upstream's pasta for the namespace's address
	 */
	if (!g->addr6 && ip6->ifindex && nl_ok &&
	    !nl_first_addr(AF_INET6, ip6->ifindex, &a, &plen))
		ip6->addr = a.a6;
	if (!g->prefix6)
		ip6->prefix_len = 64;

	if (!ip6->ifindex || !nl_ok ||
	    nl_link_ll_addr(ip6->ifindex, &ip6->our_tap_ll))
		inet_pton(AF_INET6, "fe80::1", &ip6->our_tap_ll);
	/* A link-local gateway is the router the guest knows: speak as it */
	if (IN6_IS_ADDR_LINKLOCAL(&ip6->gw))
		ip6->our_tap_ll = ip6->gw;
}

/**
 * conf_host_ip4() - complete IPv4 settings from the host
 * @c:		configuration
 * @g:		explicit settings
 * @nl_ok:	the host netlink socket is usable
 */
static void conf_host_ip4(struct ctx *c, const struct conf_given *g,
			  bool nl_ok)
{
	const char *name = *g->ifname ? g->ifname : c->ip4.outbound_if;
	const char *optname = *g->ifname ? "-i/--interface" :
					   "--outbound-if4";

	conf_saved.if4 = conf_named_if(name, optname);
	conf_derive_ip4(&c->ip4, g, conf_saved.if4, nl_ok);
	c->ip4.no_copy_addrs = c->no_copy_addrs || g->addr4;
	c->ip4.no_copy_routes = c->no_copy_routes || g->gw4;

	if (!c->ip4.addr.s_addr) {
		if (g->v4_only)
			die("-4/--ipv4-only: %s%s has no usable IPv4 address: give one with -a/--address and -g/--gateway",
			    *c->ip4.ifname ? "interface " :
			    "the host (no default route)",
			    c->ip4.ifname);
		info("IPv4 disabled: %s%s has no usable IPv4 address (use -a and -g to configure one)",
		     *c->ip4.ifname ? "interface " :
		     "the host (no default route)",
		     c->ip4.ifname);
		c->ip4.enabled = false;
	}
}

/**
 * conf_host_ip6() - complete IPv6 settings from the host
 * @c:		configuration
 * @g:		explicit settings
 * @nl_ok:	the host netlink socket is usable
 */
static void conf_host_ip6(struct ctx *c, const struct conf_given *g,
			  bool nl_ok)
{
	const char *name = *g->ifname ? g->ifname : c->ip6.outbound_if;
	const char *optname = *g->ifname ? "-i/--interface" :
					   "--outbound-if6";

	conf_saved.if6 = conf_named_if(name, optname);
	conf_derive_ip6(&c->ip6, g, conf_saved.if6, nl_ok);
	c->ip6.no_copy_addrs = c->no_copy_addrs || g->addr6;
	c->ip6.no_copy_routes = c->no_copy_routes || g->gw6;

	if (IN6_IS_ADDR_UNSPECIFIED(&c->ip6.addr)) {
		if (g->v6_only)
			die("-6/--ipv6-only: %s%s has no usable IPv6 address: give one with -a/--address and -g/--gateway",
			    *c->ip6.ifname ? "interface " :
			    "the host (no default route)",
			    c->ip6.ifname);
		info("IPv6 disabled: %s%s has no usable IPv6 address (use -a and -g to configure one)",
		     *c->ip6.ifname ? "interface " :
		     "the host (no default route)",
		     c->ip6.ifname);
		c->ip6.enabled = false;
	}
}

/**
 * conf_saved_get() - the command line's settings, saved by conf_host()
 * @g:		set to the explicit settings
 * @ip4:	set to the IPv4 settings as the command line left them
 * @ip6:	set to the IPv6 settings as the command line left them
 */
void conf_saved_get(const struct conf_given **g, const struct ip4_ctx **ip4,
		    const struct ip6_ctx **ip6)
{
	*g = &conf_saved.g;
	*ip4 = &conf_saved.ip4;
	*ip6 = &conf_saved.ip6;
}

/**
 * conf_fallback_ip4() - IPv4 placeholders until the host has a network
 * @c:		configuration
 * @g:		explicit settings
 *
 * The host has no default route with an address (yet: a container
 * started at boot before the network is up). Rather than exit, the guest
 * gets link-local placeholders, and the relay, which follows the host,
 * moves it to what the host gets (guest/follow.c).
 */
static void conf_fallback_ip4(struct ctx *c, const struct conf_given *g)
{
	inet_pton(AF_INET, CONF_FALLBACK_ADDR4, &c->ip4.addr);
	if (!g->prefix4)
		c->ip4.prefix_len = CONF_FALLBACK_PREFIX4;
	if (!g->gw4)
		inet_pton(AF_INET, CONF_FALLBACK_GW4, &c->ip4.gw);
	c->ip4.enabled = true;
	warn("The host has no default route with an address yet: the guest gets %s/%d via %s until it has one (--no-follow-host: exit instead)",
	     CONF_FALLBACK_ADDR4, c->ip4.prefix_len, CONF_FALLBACK_GW4);
}

/**
 * conf_map_gw() - the gateway maps to the host's loopback, by default
 * @c:		configuration (--no-map-gw)
 * @g:		explicit settings
 * @ip4:	IPv4 settings, gateway decided
 * @ip6:	IPv6 settings, gateway decided
 */
static void conf_map_gw(const struct ctx *c, const struct conf_given *g,
			struct ip4_ctx *ip4, struct ip6_ctx *ip6)
{
	if (c->no_map_gw)
		return;
	if (!g->map_host_lo4)
		ip4->map_host_lo = ip4->gw;
	if (!g->map_host_lo6)
		ip6->map_host_lo = ip6->gw;
}

/**
 * conf_dns_follow4() - a loopback resolver's stand-in follows the mapping
 * @old:	IPv4 settings in force
 * @ip4:	IPv4 settings derived again, DNS fields copied from @old
 *
 * A resolver on the host's loopback is offered as the --map-host-loopback
 * address when --dns-forward isn't given (conf_resolv_ns4()): when that
 * address follows the gateway, the server offered follows it too.
 */
static void conf_dns_follow4(const struct ip4_ctx *old, struct ip4_ctx *ip4)
{
	int i;

	if (conf_saved.ip4.dns_match.s_addr || !old->dns_match.s_addr ||
	    old->dns_match.s_addr != old->map_host_lo.s_addr)
		return;

	ip4->dns_match = ip4->map_host_lo;
	for (i = 0; i < ip4->dns_count && i < DNS_MAX; i++) {
		if (ip4->dns[i].s_addr == old->dns_match.s_addr)
			ip4->dns[i] = ip4->dns_match;
	}
}

/**
 * conf_dns_follow6() - as conf_dns_follow4(), for IPv6
 * @old:	IPv6 settings in force
 * @ip6:	IPv6 settings derived again, DNS fields copied from @old
 */
static void conf_dns_follow6(const struct ip6_ctx *old, struct ip6_ctx *ip6)
{
	int i;

	if (!IN6_IS_ADDR_UNSPECIFIED(&conf_saved.ip6.dns_match) ||
	    IN6_IS_ADDR_UNSPECIFIED(&old->dns_match) ||
	    !IN6_ARE_ADDR_EQUAL(&old->dns_match, &old->map_host_lo))
		return;

	ip6->dns_match = ip6->map_host_lo;
	for (i = 0; i < ip6->dns_count && i < DNS_MAX; i++) {
		if (IN6_ARE_ADDR_EQUAL(&ip6->dns[i], &old->dns_match))
			ip6->dns[i] = ip6->dns_match;
	}
}

/**
 * conf_dns_keep4() - copy the DNS settings, which phase one doesn't re-read
 * @old:	IPv4 settings in force
 * @ip4:	IPv4 settings derived again
 */
static void conf_dns_keep4(const struct ip4_ctx *old, struct ip4_ctx *ip4)
{
	memcpy(ip4->dns, old->dns, sizeof(ip4->dns));
	ip4->dns_count = old->dns_count;
	ip4->dns_match = old->dns_match;
	ip4->dns_host = old->dns_host;
}

/**
 * conf_dns_keep6() - as conf_dns_keep4(), for IPv6
 * @old:	IPv6 settings in force
 * @ip6:	IPv6 settings derived again
 */
static void conf_dns_keep6(const struct ip6_ctx *old, struct ip6_ctx *ip6)
{
	memcpy(ip6->dns, old->dns, sizeof(ip6->dns));
	ip6->dns_count = old->dns_count;
	ip6->dns_match = old->dns_match;
	ip6->dns_host = old->dns_host;
}

/**
 * conf_host_rederive() - derive the host's part of the settings again
 * @c:		configuration of start-up (what the command line fixed)
 * @old4:	IPv4 settings in force
 * @old6:	IPv6 settings in force
 * @ip4:	set to the IPv4 settings a start now would derive
 * @ip6:	set to the IPv6 settings a start now would derive
 *
 * The same functions as start-up's, from the command line's settings
 * saved then, so that a relay that follows the host converges on what a
 * fresh start would choose. Families keep their start-up state (enabled
 * or not): a family with no address now keeps the one in force. The
 * resolver file is not read here (conf_resolv_rederive() is, when it
 * changes): the DNS servers stay, but for the
 * stand-in of a loopback resolver, which follows the gateway mapping.
 */
void conf_host_rederive(const struct ctx *c, const struct ip4_ctx *old4,
			const struct ip6_ctx *old6, struct ip4_ctx *ip4,
			struct ip6_ctx *ip6)
{
	const struct conf_given *g = &conf_saved.g;
	bool nl_ok = nl_host_ok();

	*ip4 = conf_saved.ip4;
	*ip6 = conf_saved.ip6;
	conf_derive_ip4(ip4, g, conf_saved.if4, nl_ok);
	conf_derive_ip6(ip6, g, conf_saved.if6, nl_ok);
	conf_map_gw(c, g, ip4, ip6);

	ip4->enabled = old4->enabled;
	ip4->no_copy_addrs = old4->no_copy_addrs;
	ip4->no_copy_routes = old4->no_copy_routes;
	ip6->enabled = old6->enabled;
	ip6->no_copy_addrs = old6->no_copy_addrs;
	ip6->no_copy_routes = old6->no_copy_routes;
	conf_dns_keep4(old4, ip4);
	conf_dns_keep6(old6, ip6);
	conf_dns_follow4(old4, ip4);
	conf_dns_follow6(old6, ip6);

	/* No address now: keep what the guest has, until there is one */
	if (!ip4->addr.s_addr)
		*ip4 = *old4;
	if (IN6_IS_ADDR_UNSPECIFIED(&ip6->addr))
		*ip6 = *old6;
}

/**
 * conf_host() - complete the configuration from the host
 * @c:		configuration
 * @g:		explicit settings
 */
static void conf_host(struct ctx *c, const struct conf_given *g)
{
	bool nl_ok = nl_sock_init_host() >= 0;

	conf_saved.g = *g;
	conf_saved.ip4 = c->ip4;
	conf_saved.ip6 = c->ip6;

	if (!nl_ok)
		warn("Can't read the host's addresses and routes: give them with -a and -g");

	if (c->ip4.enabled)
		conf_host_ip4(c, g, nl_ok);
	if (c->ip6.enabled)
		conf_host_ip6(c, g, nl_ok);

	if (!c->ip4.enabled && !c->ip6.enabled) {
		if (c->no_follow_host || !conf_saved.ip4.enabled)
			die("No usable IPv4 or IPv6 configuration: the host has no default route with an address. Give the guest an address and gateway with -a and -g");
		conf_fallback_ip4(c, g);
	}

	if (c->ip6.enabled && c->mtu && c->mtu < MTU_MIN_IPV6) {
		if (!c->ip4.enabled)
			die("-m/--mtu %u is below %d, the minimum for IPv6, and IPv4 is not available",
			    c->mtu, MTU_MIN_IPV6);
		warn("MTU %u is below %d, the minimum for IPv6: IPv6 disabled",
		     c->mtu, MTU_MIN_IPV6);
		c->ip6.enabled = false;
	}

	conf_map_gw(c, g, &c->ip4, &c->ip6);
	conf_resolv_read(c, CONF_RESOLV_PATH, g);

	/* Until the guest speaks, assume it uses what it was given */

	if (c->mode == MODE_PASTA && !g->pasta_ifname) {
		const char *n = c->ip4.enabled ? c->ip4.ifname : "";

		if (!*n && c->ip6.enabled)
			n = c->ip6.ifname;
		if (!*n)
			n = "tap0";
		conf_strcpy(c->pasta_ifname, sizeof(c->pasta_ifname), n);
	}
}

/**
 * conf_splice_only() - pasta --splice-only: loopback forwarding, no tap
 * @c:		configuration
 *
 * Nothing reaches the namespace but spliced loopback connections and
 * datagrams: no tap device, so nothing to learn from the host's addresses
 * and routes, and no ICMP, DHCP, NDP or DNS for a guest. Connections from
 * the host's loopback arrive at the namespace's loopback.
 */
static void conf_splice_only(struct ctx *c)
{
	c->host_lo_to_ns_lo = true;
	c->no_icmp = c->no_dhcp = c->no_dhcpv6 = true;
	c->no_ndp = c->no_ra = true;
	c->no_dns = c->no_search = true;
	c->no_dhcp_dns = c->no_dhcp_search = true;
}

/**
 * conf_ports_finalise() - expand the four forwarding specifications
 * @c:		configuration, address families known
 */
void conf_ports_finalise(struct ctx *c)
{
	struct fwd_spec *specs[] = {
		&c->tcp_to_guest, &c->udp_to_guest,
		&c->tcp_to_host, &c->udp_to_host,
	};
	static const char *const opts[] = { "-t", "-u", "-T", "-U" };
	char errbuf[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		if (fwd_finalise(specs[i], c->ip4.enabled, c->ip6.enabled,
				 errbuf, sizeof(errbuf)))
			die("%s: %s", opts[i], errbuf);
	}
}

/**
 * conf() - parse the command line and complete the configuration
 * @c:		configuration, set up by conf_defaults()
 * @argc:	argument count
 * @argv:	arguments; pasta's command (c->pasta_cmd) points into it
 *
 * Exits with status 1 and a message on any error.
 */
void conf(struct ctx *c, int argc, char **argv)
{
	struct conf_given g;
	const char *unimpl;

	conf_parse(c, argc, argv, &g);
	conf_log_setup(c);

	unimpl = conf_unimplemented(c);
	if (unimpl)
		die("%s: not implemented yet in this version", unimpl);

	if (c->fd_tap_preopened >= 0 &&
	    fcntl(c->fd_tap_preopened, F_GETFD) < 0)
		die("-F/--fd: %d is not an open file descriptor",
		    c->fd_tap_preopened);

	conf_runas_default(c, &g);
	conf_follow_default(c, &g);
	/* A lease that ends only matters if the configuration can change */
	if (c->no_follow_host && !g.dhcp_lease)
		c->dhcp_lease = 0;
	if (c->splice_only)
		conf_splice_only(c);
	else
		conf_host(c, &g);

	conf_ports_default(c);
	conf_ports_finalise(c);
}

/**
 * conf_append() - append formatted text to a buffer, tracking its length
 * @buf:	buffer
 * @size:	size of @buf
 * @n:		length used so far, updated (may reach @size on truncation)
 * @fmt:	printf-style format
 */
__attribute__((format(printf, 4, 5)))
static void conf_append(char *buf, size_t size, size_t *n, const char *fmt,
			...)
{
	va_list ap;
	int w;

	if (*n >= size)
		return;

	va_start(ap, fmt);
	w = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);

	if (w < 0)
		*n = size;
	else
		*n = MIN(size, *n + (size_t)w);
}

/**
 * conf_append_range() - append a port range, or a single port
 * @buf:	buffer
 * @size:	size of @buf
 * @n:		length used so far, updated
 * @first:	first port
 * @last:	last port
 */
static void conf_append_range(char *buf, size_t size, size_t *n,
			      unsigned int first, unsigned int last)
{
	if (first == last)
		conf_append(buf, size, n, "%u", first);
	else
		conf_append(buf, size, n, "%u-%u", first, last);
}

/**
 * conf_append_addr() - append an address, IPv6 in brackets
 * @buf:	buffer
 * @size:	size of @buf
 * @n:		length used so far, updated
 * @a:		address
 */
static void conf_append_addr(char *buf, size_t size, size_t *n,
			     const union inany_addr *a)
{
	char s[INANY_STRLEN];

	inany_ntop(a, s);
	if (inany_v4(a))
		conf_append(buf, size, n, "%s", s);
	else
		conf_append(buf, size, n, "[%s]", s);
}

/**
 * conf_fwd_str_rule() - append one rule of a specification
 * @buf:	buffer
 * @size:	size of @buf
 * @n:		length used so far, updated
 * @r:		rule
 */
static void conf_fwd_str_rule(char *buf, size_t size, size_t *n,
			      const struct fwd_rule *r)
{
	if (!r->bind_any)
		conf_append_addr(buf, size, n, &r->bind_addr);
	if (*r->ifname)
		conf_append(buf, size, n, "%%%s", r->ifname);
	if (!r->bind_any || *r->ifname)
		conf_append(buf, size, n, "/");
	conf_append_range(buf, size, n, r->first, r->last);

	if (r->to_first != r->first || !inany_is_unspecified(&r->to_addr)) {
		conf_append(buf, size, n, " -> ");
		if (!inany_is_unspecified(&r->to_addr)) {
			conf_append_addr(buf, size, n, &r->to_addr);
			conf_append(buf, size, n, "/");
		}
		conf_append_range(buf, size, n, r->to_first,
				  r->to_first + r->last - r->first);
	}
	if (r->weak || r->scan)
		conf_append(buf, size, n, " (%s%s%s)",
			    r->weak ? "best effort" : "",
			    r->weak && r->scan ? ", " : "",
			    r->scan ? "auto" : "");
}

/**
 * conf_fwd_str() - describe a finalised forwarding specification
 * @spec:	specification
 * @buf:	output
 * @size:	size of @buf, at least 4 bytes
 *
 * Return: @buf, or a constant string for "none"
 */
static const char *conf_fwd_str(const struct fwd_spec *spec, char *buf,
				size_t size)
{
	unsigned int i;
	size_t n = 0;

	*buf = '\0';
	if (!spec->n_rules)
		return "none";

	for (i = 0; i < spec->n_rules; i++) {
		if (i)
			conf_append(buf, size, &n, ", ");
		conf_fwd_str_rule(buf, size, &n, &spec->rules[i]);
	}

	if (n >= size)
		memcpy(buf + size - 4, "...", 4);

	return buf;
}

/**
 * conf_print_dns() - log the DNS servers of one family
 * @af:		AF_INET or AF_INET6
 * @dns:	array of addresses
 * @count:	number of entries
 */
static void conf_print_dns(int af, const void *dns, int count)
{
	size_t sz = af == AF_INET ? sizeof(struct in_addr) :
				    sizeof(struct in6_addr);
	char a[INET6_ADDRSTRLEN];
	int i;

	for (i = 0; i < count; i++) {
		inet_ntop(af, (const char *)dns + i * sz, a, sizeof(a));
		info("    DNS: %s", a);
	}
}

/**
 * conf_print_link() - log pasta's namespace, our MAC address and the MTU
 * @c:		configuration, complete
 */
static void conf_print_link(const struct ctx *c)
{
	const unsigned char *m = c->our_mac;

	if (c->mode == MODE_PASTA) {
		if (*c->pasta_netns)
			info("Namespace: %s", c->pasta_netns);
		else if (c->pasta_target_pid)
			info("Namespace: of PID %d", (int)c->pasta_target_pid);
		else if (c->pasta_cmd)
			info("Namespace: new, running %s", c->pasta_cmd[0]);
		else
			info("Namespace: new, running a shell");
		if (c->splice_only)
			info("Tap device in the namespace: none "
			     "(--splice-only)");
		else
			info("Tap device in the namespace: %s%s",
			     c->pasta_ifname,
			     c->pasta_conf_ns ? " (configured by us)" : "");
	}

	info("Our MAC address: %02x:%02x:%02x:%02x:%02x:%02x",
	     m[0], m[1], m[2], m[3], m[4], m[5]);
	if (c->mtu)
		info("MTU: %u", c->mtu);
	else
		info("MTU: not advertised");
}

/**
 * conf_print_ip4() - log the IPv4 configuration
 * @c:		configuration, complete
 */
static void conf_print_ip4(const struct ctx *c)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (!c->ip4.enabled) {
		info("IPv4: disabled");
		return;
	}
	if (c->splice_only) {
		info("IPv4: loopback only (--splice-only)");
		return;
	}

	info("IPv4: template interface %s",
	     *c->ip4.ifname ? c->ip4.ifname : "(none)");
	info("    address: %s/%d",
	     inet_ntop(AF_INET, &c->ip4.addr, a, sizeof(a)),
	     c->ip4.prefix_len);
	if (c->ip4.gw.s_addr)
		info("    gateway: %s",
		     inet_ntop(AF_INET, &c->ip4.gw, a, sizeof(a)));
	if (c->ip4.map_host_lo.s_addr)
		info("    %s reaches the host's loopback",
		     inet_ntop(AF_INET, &c->ip4.map_host_lo, a, sizeof(a)));
	if (c->ip4.map_guest_addr.s_addr)
		info("    %s reaches the host's address",
		     inet_ntop(AF_INET, &c->ip4.map_guest_addr, a, sizeof(a)));
	conf_print_dns(AF_INET, c->ip4.dns, c->ip4.dns_count);
	if (c->ip4.dns_match.s_addr)
		info("    DNS queries to %s go to %s",
		     inet_ntop(AF_INET, &c->ip4.dns_match, a, sizeof(a)),
		     inet_ntop(AF_INET, &c->ip4.dns_host, b, sizeof(b)));
}

/**
 * conf_print_ip6() - log the IPv6 configuration
 * @c:		configuration, complete
 */
static void conf_print_ip6(const struct ctx *c)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (!c->ip6.enabled) {
		info("IPv6: disabled");
		return;
	}
	if (c->splice_only) {
		info("IPv6: loopback only (--splice-only)");
		return;
	}

	info("IPv6: template interface %s",
	     *c->ip6.ifname ? c->ip6.ifname : "(none)");
	info("    address: %s/%d",
	     inet_ntop(AF_INET6, &c->ip6.addr, a, sizeof(a)),
	     c->ip6.prefix_len);
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.gw))
		info("    gateway: %s",
		     inet_ntop(AF_INET6, &c->ip6.gw, a, sizeof(a)));
	info("    our link-local address: %s",
	     inet_ntop(AF_INET6, &c->ip6.our_tap_ll, a, sizeof(a)));
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_host_lo))
		info("    %s reaches the host's loopback",
		     inet_ntop(AF_INET6, &c->ip6.map_host_lo, a, sizeof(a)));
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.map_guest_addr))
		info("    %s reaches the host's address",
		     inet_ntop(AF_INET6, &c->ip6.map_guest_addr, a,
			       sizeof(a)));
	conf_print_dns(AF_INET6, c->ip6.dns, c->ip6.dns_count);
	if (!IN6_IS_ADDR_UNSPECIFIED(&c->ip6.dns_match))
		info("    DNS queries to %s go to %s",
		     inet_ntop(AF_INET6, &c->ip6.dns_match, a, sizeof(a)),
		     inet_ntop(AF_INET6, &c->ip6.dns_host, b, sizeof(b)));
}

/**
 * conf_print_fwd() - log the forwarded TCP and UDP ports
 * @c:		configuration, complete
 */
static void conf_print_fwd(const struct ctx *c)
{
	char fwd[CONF_FWD_STR_MAX];

	if (!c->no_tcp) {
		info("TCP ports forwarded from the host: %s",
		     conf_fwd_str(&c->tcp_to_guest, fwd, sizeof(fwd)));
		if (c->mode == MODE_PASTA)
			info("TCP ports forwarded from the namespace: %s",
			     conf_fwd_str(&c->tcp_to_host, fwd, sizeof(fwd)));
	}
	if (!c->no_udp) {
		info("UDP ports forwarded from the host: %s",
		     conf_fwd_str(&c->udp_to_guest, fwd, sizeof(fwd)));
		if (c->mode == MODE_PASTA)
			info("UDP ports forwarded from the namespace: %s",
			     conf_fwd_str(&c->udp_to_host, fwd, sizeof(fwd)));
	}
}

/**
 * conf_print() - log the resulting configuration
 * @c:		configuration, complete
 *
 * As upstream: at the default level, passt and a pasta joining a namespace
 * (--netns, PID) show it; a pasta running a command of its own keeps the
 * terminal for that command, and shows it with -d only.
 */
void conf_print(const struct ctx *c)
{
	int i;

	if (c->mode == MODE_PASTA && !*c->pasta_netns &&
	    !c->pasta_target_pid && !c->debug)
		return;

	conf_print_link(c);
	conf_print_ip4(c);
	conf_print_ip6(c);

	for (i = 0; i < c->search_count; i++)
		info("DNS search domain: %s", c->search[i]);
	if (c->no_dhcp_dns)
		info("DNS servers: not sent to the guest");
	if (c->no_dhcp_search)
		info("DNS search domains: not sent to the guest");

	conf_print_fwd(c);

	info("Flow table: %u entries", c->flow_max);
	if (c->busy_poll_us)
		info("Busy polling: %u us after traffic", c->busy_poll_us);
}

/**
 * conf_given_saved() - the explicit settings of the command line
 *
 * Return: what conf() saved of them, for conf_fixed_get()
 */
const struct conf_given *conf_given_saved(void)
{
	return &conf_saved.g;
}
