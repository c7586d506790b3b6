// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_parse.c - the command line of passt and pasta, into struct ctx
 *
 * Theory of operation: one getopt_long() table holds every option of both
 * programs; a second small table marks the options that belong to one
 * mode only, so that using them in the other mode fails with a message
 * saying so rather than getopt's generic one. The option string starts
 * with '+': parsing stops at the first non-option argument, which for
 * pasta starts the command to run (or is a PID), so that the command's
 * own options are left alone.
 *
 * Options are handled in command-line order. --help, --version and
 * --print-capabilities print and exit as soon as they are met, which is
 * what feature probes such as "pasta --some-option --version" rely on: an
 * unknown option before them still fails, with getopt's own message and
 * exit status 1. Every value is checked here; nothing is looked up on the
 * host, except user and group names for --runas, and, for following the
 * host's network by default (conf_follow_default()), whether pasta runs in
 * the initial user namespace.
 *
 * Each option is handled by the handler of its group (conf_opt_groups[]):
 * one small switch per group (process, passt's link, pasta's link, ...),
 * which says whether the option is one of its own. The groups are
 * disjoint, so their order does not matter; addresses, DNS servers and
 * mappings are conf_opt_net()'s group, in conf_addr.c. An option no group
 * claims is a bug of this file, and reported as such.
 *
 * Only the combination of options is checked at the end; whether a
 * requested feature exists in this version is conf_unimplemented()'s
 * business (conf_unimpl.c), and address options are handled in
 * conf_addr.c.
 */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "conf.h"
#include "conf_internal.h"
#include "../util/log.h"
#include "../util/userns.h"
#include "../util/util.h"

#define CONF_NOARG	no_argument
#define CONF_ARG	required_argument

#define CONF_OPTSTRING	"+dqfel:hs:F:1I:p:P:m:a:n:M:g:i:o:D:S:H:46t:u:T:U:c:"

static const struct option conf_longopts[] = {
	/* Process and logging */
	{ "debug",		CONF_NOARG,	NULL, 'd' },
	{ "trace",		CONF_NOARG,	NULL, OPT_TRACE },
	{ "stats",		CONF_ARG,	NULL, OPT_STATS },
	{ "quiet",		CONF_NOARG,	NULL, 'q' },
	{ "foreground",		CONF_NOARG,	NULL, 'f' },
	{ "stderr",		CONF_NOARG,	NULL, 'e' },
	{ "log-file",		CONF_ARG,	NULL, 'l' },
	{ "log-size",		CONF_ARG,	NULL, OPT_LOG_SIZE },
	{ "pid",		CONF_ARG,	NULL, 'P' },
	{ "pcap",		CONF_ARG,	NULL, 'p' },
	{ "runas",		CONF_ARG,	NULL, OPT_RUNAS },
	{ "chroot-fallback",	CONF_NOARG,	NULL, OPT_CHROOT_FALLBACK },
	{ "conf-path",		CONF_ARG,	NULL, 'c' },
	{ "help",		CONF_NOARG,	NULL, 'h' },
	{ "version",		CONF_NOARG,	NULL, OPT_VERSION },
	/* Guest link, passt */
	{ "socket",		CONF_ARG,	NULL, 's' },
	{ "socket-path",	CONF_ARG,	NULL, 's' },
	{ "vhost-user",		CONF_NOARG,	NULL, OPT_VHOST_USER },
	{ "print-capabilities",	CONF_NOARG,	NULL, OPT_PRINT_CAPS },
	{ "fd",			CONF_ARG,	NULL, 'F' },
	{ "one-off",		CONF_NOARG,	NULL, '1' },
	{ "repair-path",	CONF_ARG,	NULL, OPT_REPAIR_PATH },
	{ "migrate-exit",	CONF_NOARG,	NULL, OPT_MIGRATE_EXIT },
	{ "migrate-no-linger",	CONF_NOARG,	NULL, OPT_MIGRATE_NO_LINGER },
	/* Guest link, pasta */
	{ "netns",		CONF_ARG,	NULL, OPT_NETNS },
	{ "userns",		CONF_ARG,	NULL, OPT_USERNS },
	{ "netns-only",		CONF_NOARG,	NULL, OPT_NETNS_ONLY },
	{ "no-netns-quit",	CONF_NOARG,	NULL, OPT_NO_NETNS_QUIT },
	{ "ns-ifname",		CONF_ARG,	NULL, 'I' },
	{ "config-net",		CONF_NOARG,	NULL, OPT_CONFIG_NET },
	{ "ns-mac-addr",	CONF_ARG,	NULL, OPT_NS_MAC_ADDR },
	{ "no-copy-routes",	CONF_NOARG,	NULL, OPT_NO_COPY_ROUTES },
	{ "no-copy-addrs",	CONF_NOARG,	NULL, OPT_NO_COPY_ADDRS },
	{ "no-splice",		CONF_NOARG,	NULL, OPT_NO_SPLICE },
	{ "splice-only",	CONF_NOARG,	NULL, OPT_SPLICE_ONLY },
	{ "host-lo-to-ns-lo",	CONF_NOARG,	NULL, OPT_HOST_LO_TO_NS_LO },
	/* Addresses */
	{ "mtu",		CONF_ARG,	NULL, 'm' },
	{ "address",		CONF_ARG,	NULL, 'a' },
	{ "netmask",		CONF_ARG,	NULL, 'n' },
	{ "mac-addr",		CONF_ARG,	NULL, 'M' },
	{ "gateway",		CONF_ARG,	NULL, 'g' },
	{ "interface",		CONF_ARG,	NULL, 'i' },
	{ "outbound",		CONF_ARG,	NULL, 'o' },
	{ "outbound-if4",	CONF_ARG,	NULL, OPT_OUTBOUND_IF4 },
	{ "outbound-if6",	CONF_ARG,	NULL, OPT_OUTBOUND_IF6 },
	{ "ipv4-only",		CONF_NOARG,	NULL, '4' },
	{ "ipv6-only",		CONF_NOARG,	NULL, '6' },
	{ "hostname",		CONF_ARG,	NULL, 'H' },
	{ "fqdn",		CONF_ARG,	NULL, OPT_FQDN },
	/* DNS */
	{ "dns",		CONF_ARG,	NULL, 'D' },
	{ "search",		CONF_ARG,	NULL, 'S' },
	{ "dns-forward",	CONF_ARG,	NULL, OPT_DNS_FORWARD },
	{ "dns-host",		CONF_ARG,	NULL, OPT_DNS_HOST },
	{ "no-dhcp-dns",	CONF_NOARG,	NULL, OPT_NO_DHCP_DNS },
	{ "no-dhcp-search",	CONF_NOARG,	NULL, OPT_NO_DHCP_SEARCH },
	{ "dhcp-dns",		CONF_NOARG,	NULL, OPT_DHCP_DNS },
	{ "dhcp-search",	CONF_NOARG,	NULL, OPT_DHCP_SEARCH },
	/* Mapping */
	{ "map-host-loopback",	CONF_ARG,	NULL, OPT_MAP_HOST_LO },
	{ "map-guest-addr",	CONF_ARG,	NULL, OPT_MAP_GUEST_ADDR },
	{ "no-map-gw",		CONF_NOARG,	NULL, OPT_NO_MAP_GW },
	{ "no-follow-host",	CONF_NOARG,	NULL, OPT_NO_FOLLOW_HOST },
	{ "follow-host",	CONF_NOARG,	NULL, OPT_FOLLOW_HOST },
	{ "dhcp-lease",		CONF_ARG,	NULL, OPT_DHCP_LEASE },
	{ "freebind",		CONF_NOARG,	NULL, OPT_FREEBIND },
	/* Protocols */
	{ "no-tcp",		CONF_NOARG,	NULL, OPT_NO_TCP },
	{ "no-udp",		CONF_NOARG,	NULL, OPT_NO_UDP },
	{ "no-icmp",		CONF_NOARG,	NULL, OPT_NO_ICMP },
	{ "no-dhcp",		CONF_NOARG,	NULL, OPT_NO_DHCP },
	{ "no-ndp",		CONF_NOARG,	NULL, OPT_NO_NDP },
	{ "no-dhcpv6",		CONF_NOARG,	NULL, OPT_NO_DHCPV6 },
	{ "no-ra",		CONF_NOARG,	NULL, OPT_NO_RA },
	/* Forwarding */
	{ "tcp-ports",		CONF_ARG,	NULL, 't' },
	{ "udp-ports",		CONF_ARG,	NULL, 'u' },
	{ "tcp-ns",		CONF_ARG,	NULL, 'T' },
	{ "udp-ns",		CONF_ARG,	NULL, 'U' },
	{ "mcast-ports",	CONF_ARG,	NULL, OPT_MCAST_PORTS },
	/* This project's additions */
	{ "max-flows",		CONF_ARG,	NULL, OPT_MAX_FLOWS },
	{ "tcp-rmem",		CONF_ARG,	NULL, OPT_TCP_RMEM },
	{ "tcp-wmem",		CONF_ARG,	NULL, OPT_TCP_WMEM },
	{ "tap-rmem",		CONF_ARG,	NULL, OPT_TAP_RMEM },
	{ "tap-wmem",		CONF_ARG,	NULL, OPT_TAP_WMEM },
	{ "busy-poll",		CONF_ARG,	NULL, OPT_BUSY_POLL },
	{ NULL,			0,		NULL, 0 },
};

/**
 * struct conf_mode_only - an option valid in one mode only
 * @opt:	option value, as returned by getopt_long()
 * @mode:	the mode it belongs to
 */
static const struct conf_mode_only {
	int opt;
	enum passt_mode mode;
} conf_mode_only[] = {
	{ 's',			MODE_PASST },
	{ OPT_VHOST_USER,	MODE_PASST },
	{ OPT_PRINT_CAPS,	MODE_PASST },
	{ '1',			MODE_PASST },
	{ OPT_REPAIR_PATH,	MODE_PASST },
	{ OPT_MIGRATE_EXIT,	MODE_PASST },
	{ OPT_MIGRATE_NO_LINGER, MODE_PASST },
	{ OPT_NO_DHCP_DNS,	MODE_PASST },
	{ OPT_NO_DHCP_SEARCH,	MODE_PASST },
	{ OPT_TAP_RMEM,		MODE_PASST },
	{ OPT_TAP_WMEM,		MODE_PASST },
	{ OPT_NETNS,		MODE_PASTA },
	{ OPT_USERNS,		MODE_PASTA },
	{ OPT_NETNS_ONLY,	MODE_PASTA },
	{ OPT_NO_NETNS_QUIT,	MODE_PASTA },
	{ 'I',			MODE_PASTA },
	{ OPT_CONFIG_NET,	MODE_PASTA },
	{ OPT_NS_MAC_ADDR,	MODE_PASTA },
	{ OPT_NO_COPY_ROUTES,	MODE_PASTA },
	{ OPT_NO_COPY_ADDRS,	MODE_PASTA },
	{ OPT_SPLICE_ONLY,	MODE_PASTA },
	{ OPT_HOST_LO_TO_NS_LO,	MODE_PASTA },
	{ OPT_DHCP_DNS,		MODE_PASTA },
	{ OPT_DHCP_SEARCH,	MODE_PASTA },
	{ 'T',			MODE_PASTA },
	{ 'U',			MODE_PASTA },
};

/**
 * conf_optname() - name an option for messages, as "-m/--mtu" or "--fqdn"
 * @opt:	option value, as returned by getopt_long()
 *
 * Return: pointer to a static buffer, overwritten by the next call
 */
const char *conf_optname(int opt)
{
	static char buf[64];
	const struct option *o;

	for (o = conf_longopts; o->name; o++) {
		if (o->val != opt)
			continue;
		if (opt < 256)
			snprintf(buf, sizeof(buf), "-%c/--%s", opt, o->name);
		else
			snprintf(buf, sizeof(buf), "--%s", o->name);
		return buf;
	}

	snprintf(buf, sizeof(buf), "-%c", opt);
	return buf;
}

/**
 * conf_optlong() - long name of an option, a constant string
 * @opt:	option value
 *
 * Return: the name, without dashes
 */
const char *conf_optlong(int opt)
{
	const struct option *o;

	for (o = conf_longopts; o->name; o++) {
		if (o->val == opt)
			return o->name;
	}

	return "?";
}

/**
 * conf_check_mode() - refuse an option of the other mode
 * @c:		configuration (mode)
 * @opt:	option value
 */
static void conf_check_mode(const struct ctx *c, int opt)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conf_mode_only); i++) {
		if (conf_mode_only[i].opt != opt ||
		    conf_mode_only[i].mode == c->mode)
			continue;

		if (conf_mode_only[i].mode == MODE_PASST)
			die("%s is a passt option, not valid for pasta",
			    conf_optname(opt));
		die("%s is a pasta option, not valid for passt",
		    conf_optname(opt));
	}
}

/**
 * conf_opt_fwd() - -t, -u, -T, -U
 * @c:		configuration
 * @opt:	option value
 * @spec:	specification to extend
 * @arg:	option argument
 */
static void conf_opt_fwd(const struct ctx *c, int opt, struct fwd_spec *spec,
			 const char *arg)
{
	char errbuf[256];

	if (fwd_parse(spec, arg, errbuf, sizeof(errbuf)))
		die("%s: %s", conf_optname(opt), errbuf);

	if (fwd_spec_scans(spec) && c->mode == MODE_PASST)
		die("%s: 'auto' is only valid for pasta", conf_optname(opt));
}

/**
 * conf_opt_bytes() - a socket buffer size option, 0 or bytes
 * @opt:	option value
 * @arg:	option argument
 *
 * Return: the size
 */
static int conf_opt_bytes(int opt, const char *arg)
{
	unsigned long long v;

	if (conf_bytes(arg, 0, CONF_BUF_MAX, &v))
		die("%s: invalid size '%s': 0 (kernel default) up to %d bytes",
		    conf_optname(opt), arg, CONF_BUF_MAX);

	return (int)v;
}

/**
 * conf_opt_path() - copy a path option value
 * @opt:	option value
 * @dst:	destination
 * @size:	its size
 * @arg:	option argument
 */
static void conf_opt_path(int opt, char *dst, size_t size, const char *arg)
{
	if (conf_strcpy(dst, size, arg))
		die("%s: empty or too long (at most %zu characters): '%s'",
		    conf_optname(opt), size - 1, arg);
}

/**
 * conf_opt_netns() - --netns PATH|NAME
 * @c:		configuration
 * @arg:	option argument; a NAME (no '/') is under CONF_NETNS_DIR
 */
static void conf_opt_netns(struct ctx *c, const char *arg)
{
	int n;

	if (strchr(arg, '/')) {
		conf_opt_path(OPT_NETNS, c->pasta_netns,
			      sizeof(c->pasta_netns), arg);
		return;
	}

	if (!*arg || !strcmp(arg, ".") || !strcmp(arg, ".."))
		die("--netns: invalid namespace name '%s'", arg);

	n = snprintf(c->pasta_netns, sizeof(c->pasta_netns), "%s/%s",
		     CONF_NETNS_DIR, arg);
	if (n < 0 || (size_t)n >= sizeof(c->pasta_netns))
		die("--netns: namespace name too long: '%s'", arg);
}

/**
 * conf_opt_mac() - -M/--mac-addr, --ns-mac-addr
 * @opt:	option value
 * @mac:	destination
 * @arg:	option argument
 */
static void conf_opt_mac(int opt, unsigned char *mac, const char *arg)
{
	if (conf_mac(arg, mac))
		die("%s: invalid MAC address '%s': use six hexadecimal bytes like 9a:55:9a:55:9a:55, not multicast",
		    conf_optname(opt), arg);
}

/**
 * conf_opt_ifname() - copy an interface name option value
 * @opt:	option value
 * @dst:	destination, IFNAMSIZ bytes
 * @arg:	option argument
 */
static void conf_opt_ifname(int opt, char *dst, const char *arg)
{
	if (conf_strcpy(dst, IFNAMSIZ, arg) || strchr(arg, '/') ||
	    strchr(arg, ' '))
		die("%s: invalid interface name '%s' (1 to %d characters)",
		    conf_optname(opt), arg, IFNAMSIZ - 1);
}

/**
 * conf_opt_ulong() - a bounded decimal option value
 * @opt:	option value
 * @arg:	option argument
 * @min:	smallest accepted value
 * @max:	largest accepted value
 *
 * Return: the value
 */
static unsigned long conf_opt_ulong(int opt, const char *arg,
				    unsigned long min, unsigned long max)
{
	unsigned long v;

	if (conf_ulong(arg, min, max, &v))
		die("%s: invalid value '%s': expected a number from %lu to %lu",
		    conf_optname(opt), arg, min, max);

	return v;
}

/**
 * conf_opt_process() - process and logging options
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_process(struct ctx *c, struct conf_given *g, int opt,
			     const char *arg)
{
	unsigned long long bytes;

	switch (opt) {
	case 'd':
		c->debug = true;
		break;
	case OPT_TRACE:
		c->trace = c->debug = true;
		break;
	case OPT_STATS:
		c->stats_delay = (int)conf_opt_ulong(opt, arg, 1,
						     CONF_STATS_MAX);
		break;
	case 'q':
		c->quiet = true;
		break;
	case 'f':
		c->foreground = true;
		break;
	case 'e':
		break;	/* deprecated, no effect */
	case 'l':
		conf_opt_path(opt, c->log_file, sizeof(c->log_file), arg);
		break;
	case OPT_LOG_SIZE:
		if (conf_bytes(arg, CONF_LOG_SIZE_MIN, LONG_MAX, &bytes))
			die("--log-size: invalid size '%s': at least %d bytes",
			    arg, CONF_LOG_SIZE_MIN);
		c->log_size = (size_t)bytes;
		break;
	case 'P':
		conf_opt_path(opt, c->pidfile, sizeof(c->pidfile), arg);
		break;
	case 'p':
		conf_opt_path(opt, c->pcap, sizeof(c->pcap), arg);
		break;
	case OPT_RUNAS:
		if (conf_runas(arg, &c->uid, &c->gid))
			die("--runas: unknown user or group, or invalid identifier, in '%s'",
			    arg);
		g->runas = true;
		break;
	case OPT_CHROOT_FALLBACK:
		c->chroot_fallback = true;
		break;
	case 'c':
		conf_opt_path(opt, c->conf_path, sizeof(c->conf_path), arg);
		break;
	case 'h':
		conf_usage(c->mode == MODE_PASTA ? "pasta" : "passt", 0);
	case OPT_VERSION:
		conf_version(c->mode);
	default:
		return false;
	}

	return true;
}

/**
 * conf_opt_passt() - options of passt's guest link
 * @c:		configuration
 * @g:		explicit settings (unused)
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_passt(struct ctx *c, struct conf_given *g, int opt,
			   const char *arg)
{
	(void)g;

	switch (opt) {
	case 's':
		conf_opt_path(opt, c->sock_path,
			      sizeof(((struct sockaddr_un *)0)->sun_path), arg);
		break;
	case OPT_VHOST_USER:
		c->vhost_user = true;
		break;
	case OPT_PRINT_CAPS:
		conf_print_capabilities();
	case 'F':
		c->fd_tap_preopened = (int)conf_opt_ulong(opt, arg, 0,
							  INT_MAX);
		c->one_off = true;
		break;
	case '1':
		c->one_off = true;
		break;
	case OPT_REPAIR_PATH:
		/* "./none" for a path named none, as upstream */
		c->no_repair = !strcmp(arg, "none");
		if (c->no_repair)
			*c->repair_path = '\0';
		else
			conf_opt_path(opt, c->repair_path,
				      sizeof(((struct sockaddr_un *)0)->sun_path),
				      arg);
		break;
	case OPT_MIGRATE_EXIT:
		c->migrate_exit = true;
		break;
	case OPT_MIGRATE_NO_LINGER:
		c->migrate_no_linger = true;
		break;
	default:
		return false;
	}

	return true;
}

/**
 * conf_opt_pasta() - options of pasta's guest link (the namespace)
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_pasta(struct ctx *c, struct conf_given *g, int opt,
			   const char *arg)
{
	switch (opt) {
	case OPT_NETNS:
		conf_opt_netns(c, arg);
		break;
	case OPT_USERNS:
		conf_opt_path(opt, c->pasta_userns, sizeof(c->pasta_userns),
			      arg);
		break;
	case OPT_NETNS_ONLY:
		c->netns_only = true;
		break;
	case OPT_NO_NETNS_QUIT:
		c->no_netns_quit = true;
		break;
	case 'I':
		conf_opt_ifname(opt, c->pasta_ifname, arg);
		g->pasta_ifname = true;
		break;
	case OPT_CONFIG_NET:
		c->pasta_conf_ns = true;
		break;
	case OPT_NS_MAC_ADDR:
		conf_opt_mac(opt, c->ns_mac, arg);
		break;
	case OPT_NO_COPY_ROUTES:
		c->no_copy_routes = true;
		break;
	case OPT_NO_COPY_ADDRS:
		c->no_copy_addrs = true;
		break;
	case OPT_NO_SPLICE:
		/* passt takes it and ignores it, as upstream's does */
		c->no_splice = c->mode == MODE_PASTA;
		break;
	case OPT_SPLICE_ONLY:
		c->splice_only = true;
		break;
	case OPT_HOST_LO_TO_NS_LO:
		c->host_lo_to_ns_lo = true;
		break;
	default:
		return false;
	}

	return true;
}

/**
 * conf_opt_link() - link and naming options: MTU, MAC, interfaces, names
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Addresses, gateways, DNS and mappings are conf_opt_net()'s (conf_addr.c).
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_link(struct ctx *c, struct conf_given *g, int opt,
			  const char *arg)
{
	switch (opt) {
	case 'm':
		c->mtu = (unsigned int)conf_opt_ulong(opt, arg, 0, MTU_MAX);
		break;
	case 'M':
		conf_opt_mac(opt, c->our_mac, arg);
		break;
	case 'i':
		conf_opt_ifname(opt, g->ifname, arg);
		break;
	case OPT_OUTBOUND_IF4:
		conf_opt_ifname(opt, c->ip4.outbound_if, arg);
		break;
	case OPT_OUTBOUND_IF6:
		conf_opt_ifname(opt, c->ip6.outbound_if, arg);
		break;
	case '4':
		g->v4_only = true;
		break;
	case '6':
		g->v6_only = true;
		break;
	case 'H':
		conf_opt_path(opt, c->hostname, sizeof(c->hostname), arg);
		break;
	case OPT_FQDN:
		conf_opt_path(opt, c->fqdn, sizeof(c->fqdn), arg);
		break;
	default:
		return false;
	}

	return true;
}

/**
 * conf_opt_proto() - switches: DHCP's DNS options, mapping, protocols
 * @c:		configuration
 * @g:		explicit settings (unused)
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument (unused: none of these takes one)
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_proto(struct ctx *c, struct conf_given *g, int opt,
			   const char *arg)
{
	switch (opt) {
	case OPT_DHCP_LEASE:
		g->dhcp_lease = true;
		c->dhcp_lease = !strcmp(arg, "infinite") ? 0 :
				(unsigned int)conf_opt_ulong(opt, arg,
							     CONF_DHCP_LEASE_MIN,
							     CONF_DHCP_LEASE_MAX);
		break;
	case OPT_NO_DHCP_DNS:
		c->no_dhcp_dns = true;
		break;
	case OPT_NO_DHCP_SEARCH:
		c->no_dhcp_search = true;
		break;
	case OPT_DHCP_DNS:
		c->no_dhcp_dns = false;
		break;
	case OPT_DHCP_SEARCH:
		c->no_dhcp_search = false;
		break;
	case OPT_NO_MAP_GW:
		c->no_map_gw = true;
		break;
	case OPT_NO_FOLLOW_HOST:
		c->no_follow_host = true;
		break;
	case OPT_FOLLOW_HOST:
		g->follow_host = true;
		break;
	case OPT_FREEBIND:
		c->freebind = true;
		break;
	case OPT_NO_TCP:
		c->no_tcp = true;
		break;
	case OPT_NO_UDP:
		c->no_udp = true;
		break;
	case OPT_NO_ICMP:
		c->no_icmp = true;
		break;
	case OPT_NO_DHCP:
		c->no_dhcp = true;
		break;
	case OPT_NO_NDP:
		c->no_ndp = true;
		break;
	case OPT_NO_DHCPV6:
		c->no_dhcpv6 = true;
		break;
	case OPT_NO_RA:
		c->no_ra = true;
		break;
	default:
		return false;
	}

	return true;
}

/**
 * conf_opt_ports() - forwarding options, flow table and buffer sizes
 * @c:		configuration
 * @g:		explicit settings (unused)
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Return: true if @opt is one of this group (and was handled)
 */
static bool conf_opt_ports(struct ctx *c, struct conf_given *g, int opt,
			   const char *arg)
{
	char errbuf[128];

	(void)g;

	switch (opt) {
	case 't':
		conf_opt_fwd(c, opt, &c->tcp_to_guest, arg);
		break;
	case 'u':
		conf_opt_fwd(c, opt, &c->udp_to_guest, arg);
		break;
	case 'T':
		conf_opt_fwd(c, opt, &c->tcp_to_host, arg);
		break;
	case 'U':
		conf_opt_fwd(c, opt, &c->udp_to_host, arg);
		break;
	case OPT_MCAST_PORTS:
		if (conf_mcast_ports(arg, c->mcast_ports, &c->mcast_nports,
				     errbuf, sizeof(errbuf)))
			die("--mcast-ports: %s", errbuf);
		break;
	case OPT_MAX_FLOWS:
		c->flow_max = (unsigned int)conf_opt_ulong(opt, arg,
							   CONF_FLOW_MIN,
							   CONF_FLOW_MAX);
		break;
	case OPT_TCP_RMEM:
		c->tcp_rmem = conf_opt_bytes(opt, arg);
		break;
	case OPT_TCP_WMEM:
		c->tcp_wmem = conf_opt_bytes(opt, arg);
		break;
	case OPT_TAP_RMEM:
		c->tap_rmem = conf_opt_bytes(opt, arg);
		break;
	case OPT_TAP_WMEM:
		c->tap_wmem = conf_opt_bytes(opt, arg);
		break;
	case OPT_BUSY_POLL:
		c->busy_poll_us = (unsigned int)conf_opt_ulong(opt, arg, 0,
							      CONF_BUSY_POLL_MAX);
		break;
	default:
		return false;
	}

	return true;
}

/**
 * typedef conf_opt_handler - handle the options of one group
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 *
 * Return: true if @opt belongs to the group (and was handled)
 */
typedef bool (*conf_opt_handler)(struct ctx *c, struct conf_given *g,
				 int opt, const char *arg);

/* Option groups, in the order of conf_longopts' sections; disjoint */
static const conf_opt_handler conf_opt_groups[] = {
	conf_opt_process,
	conf_opt_passt,
	conf_opt_pasta,
	conf_opt_link,
	conf_opt_net,		/* addresses, DNS, mapping: conf_addr.c */
	conf_opt_proto,
	conf_opt_ports,
};

/**
 * conf_opt_one() - handle one option, by the handler of its group
 * @c:		configuration
 * @g:		explicit settings
 * @opt:	option value, as returned by getopt_long()
 * @arg:	its argument, NULL if none
 */
static void conf_opt_one(struct ctx *c, struct conf_given *g, int opt,
			 const char *arg)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(conf_opt_groups); i++) {
		if (conf_opt_groups[i](c, g, opt, arg))
			return;
	}

	die("Option %s is not handled, please report this bug",
	    conf_optname(opt));
}

/**
 * conf_is_pid() - tell if an argument is a process identifier
 * @s:		argument
 * @pid:	parsed value
 *
 * Return: true if @s is a decimal number from 1 to INT_MAX
 */
static bool conf_is_pid(const char *s, pid_t *pid)
{
	unsigned long v;

	if (conf_ulong(s, 1, INT_MAX, &v))
		return false;

	*pid = (pid_t)v;
	return true;
}

/**
 * conf_positional() - handle what follows the options
 * @c:		configuration
 * @argc:	argument count
 * @argv:	arguments, NULL-terminated
 * @dashdash:	"--" ended the options
 */
static void conf_positional(struct ctx *c, int argc, char **argv,
			    bool dashdash)
{
	if (optind >= argc)
		return;

	if (c->mode == MODE_PASST)
		die("passt takes no arguments, '%s' given: see --help",
		    argv[optind]);

	if (!dashdash && optind == argc - 1 &&
	    conf_is_pid(argv[optind], &c->pasta_target_pid))
		return;

	c->pasta_cmd = argv + optind;
}

/**
 * conf_check() - check the combination of options after parsing
 * @c:		configuration
 * @g:		explicit settings
 */
static void conf_check(struct ctx *c, const struct conf_given *g)
{
	conf_check_af(c, g);

	if (*c->sock_path && c->fd_tap_preopened >= 0)
		die("-s/--socket and -F/--fd are mutually exclusive");

	if (c->no_splice && c->splice_only)
		die("--no-splice and --splice-only are mutually exclusive");

	if (*c->pasta_netns && (c->pasta_cmd || c->pasta_target_pid))
		die("--netns can't be combined with a PID or a command");

	if (*c->pasta_userns && !*c->pasta_netns && !c->pasta_target_pid)
		die("--userns needs --netns or a PID");

	/* Migration is vhost-user's (device state transfer) */
	if (!c->vhost_user && *c->repair_path)
		die("--repair-path is for vhost-user mode only: add "
		    "--vhost-user, or give 'none'");
	if (!c->vhost_user && (c->migrate_exit || c->migrate_no_linger))
		die("--migrate-exit and --migrate-no-linger are for vhost-user "
		    "mode only");
}

/**
 * conf_parse() - parse the command line into a configuration
 * @c:		configuration, set to defaults by conf_defaults()
 * @argc:	argument count
 * @argv:	arguments, NULL-terminated; pasta's command stays in it
 * @g:		filled with what was given explicitly
 *
 * Exits with status 0 for --help, --version and --print-capabilities, and
 * with status 1 on any error, after explaining it.
 */
void conf_parse(struct ctx *c, int argc, char **argv, struct conf_given *g)
{
	const char *last_arg = NULL;
	bool dashdash;
	int opt;

	memset(g, 0, sizeof(*g));

	optind = 0;		/* full re-initialisation, for repeated use */
	opterr = 1;

	while ((opt = getopt_long(argc, argv, CONF_OPTSTRING, conf_longopts,
				  NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			fprintf(stderr, "Try '%s --help' for more information.\n",
				c->mode == MODE_PASTA ? "pasta" : "passt");
			exit(EXIT_FAILURE);
		}

		conf_check_mode(c, opt);
		conf_opt_one(c, g, opt, optarg);
		last_arg = optarg;
	}

	dashdash = optind > 0 && optind <= argc &&
		   !strcmp(argv[optind - 1], "--") &&
		   argv[optind - 1] != last_arg;

	conf_positional(c, argc, argv, dashdash);
	conf_check(c, g);
}

/**
 * conf_follow_default() - pasta --config-net in the initial user namespace
 *			   follows the host only if told to (--follow-host)
 * @c:		configuration
 * @g:		explicit settings
 *
 * Moving the namespace's addresses and routes needs CAP_NET_ADMIN in
 * pasta's namespace thread. In a user namespace of pasta's own (rootless,
 * as Podman runs it) that reaches only the namespaces it owns; in the
 * initial one it reaches every network namespace, the host's included,
 * and a sandbox should not hold that unless the user asked for it.
 */
void conf_follow_default(struct ctx *c, const struct conf_given *g)
{
	if (g->follow_host && c->no_follow_host)
		die("--follow-host and --no-follow-host contradict each other: give one");
	if (c->mode != MODE_PASTA || !c->pasta_conf_ns || c->no_follow_host ||
	    g->follow_host || !userns_initial())
		return;

	debug("pasta runs in the initial user namespace: the namespace keeps the host's addresses and routes of start-up, as with --no-follow-host (following would leave CAP_NET_ADMIN over the host's own network in pasta); give --follow-host to follow anyway");
	c->no_follow_host = true;
}

/**
 * conf_fixed_get() - what the command line fixed, of what is derived
 * @c:		configuration, complete
 * @f:		set
 */
void conf_fixed_get(const struct ctx *c, struct conf_fixed *f)
{
	const struct conf_given *g = conf_given_saved();

	f->if4 = *g->ifname || *c->ip4.outbound_if;
	f->addr4 = g->addr4;
	f->gw4 = g->gw4;
	f->map4 = g->map_host_lo4;
	f->dns_host4 = g->dns_host4;
	f->if6 = *g->ifname || *c->ip6.outbound_if;
	f->addr6 = g->addr6;
	f->gw6 = g->gw6;
	f->map6 = g->map_host_lo6;
	f->dns_host6 = g->dns_host6;
	f->dns = g->dns || c->no_dns;
	f->search = g->search || c->no_search;
}
