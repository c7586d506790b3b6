/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - command line parsing and defaults
 *
 * Theory of operation: conf() parses the upstream passt/pasta command line
 * with getopt_long, validates every value, fills struct ctx, and completes
 * what was not given from the host's own configuration (addresses, routes,
 * resolvers) read over netlink and /etc/resolv.conf. Errors exit with
 * status 1 and a message naming the option and what is wrong.
 */
#ifndef CONF_CONF_H
#define CONF_CONF_H

#include <stdbool.h>

#include "ctx.h"

/* The resolver file start-up reads, and the most of it read */
#define CONF_RESOLV_PATH	"/etc/resolv.conf"
#define CONF_RESOLV_MAX		16384

/**
 * struct conf_fixed - what the command line fixed, of what start-up
 *		       otherwise derives from the host (shown by -c clients)
 * @if4:	-i or --outbound-if4 named the IPv4 template interface
 * @addr4:	-a gave an IPv4 address
 * @gw4:	-g gave an IPv4 gateway
 * @map4:	--map-host-loopback set the IPv4 mapping
 * @dns_host4:	--dns-host gave an IPv4 address
 * @if6:	-i or --outbound-if6 named the IPv6 template interface
 * @addr6:	-a gave an IPv6 address
 * @gw6:	-g gave an IPv6 gateway
 * @map6:	--map-host-loopback set the IPv6 mapping
 * @dns_host6:	--dns-host gave an IPv6 address
 * @dns:	-D gave the DNS servers (or none)
 * @search:	-S gave the search list (or none)
 */
struct conf_fixed {
	bool if4;
	bool addr4;
	bool gw4;
	bool map4;
	bool dns_host4;
	bool if6;
	bool addr6;
	bool gw6;
	bool map6;
	bool dns_host6;
	bool dns;
	bool search;
};

void conf(struct ctx *c, int argc, char **argv);
void conf_defaults(struct ctx *c, enum passt_mode mode);
void conf_print(const struct ctx *c);
void conf_fixed_get(const struct ctx *c, struct conf_fixed *f);
void conf_host_rederive(const struct ctx *c, const struct ip4_ctx *old4,
			const struct ip6_ctx *old6, struct ip4_ctx *ip4,
			struct ip6_ctx *ip6);
bool conf_resolv_followed(const struct ctx *c);
void conf_resolv_rederive(const struct ctx *c, char *buf,
			  struct ip4_ctx *ip4, struct ip6_ctx *ip6,
			  char (*search)[SEARCH_LEN_MAX + 1],
			  int *search_count);
int conf_mcast_ports(const char *arg, uint16_t *ports, unsigned int *n,
		     char *errbuf, size_t errlen);
void conf_usage(const char *name, int status) __attribute__((noreturn));

#endif /* CONF_CONF_H */
