/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcpv6.h - DHCPv6 server for the guest
 *
 * See net/dhcpv6.c for the theory of operation.
 */
#ifndef NET_DHCPV6_H
#define NET_DHCPV6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct ctx;

#define DHCPV6_SERVER_PORT	547
#define DHCPV6_CLIENT_PORT	546

bool dhcpv6_input(const struct ctx *c, const struct in6_addr *saddr,
		  const uint8_t *payload, size_t len);

#endif /* NET_DHCPV6_H */
