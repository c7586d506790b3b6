/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dhcp.h - DHCPv4 server for the guest
 *
 * See net/dhcp.c for the theory of operation.
 */
#ifndef NET_DHCP_H
#define NET_DHCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctx;

#define DHCP_SERVER_PORT	67
#define DHCP_CLIENT_PORT	68

bool dhcp_input(const struct ctx *c, const uint8_t *payload, size_t len);

#endif /* NET_DHCP_H */
