/* SPDX-License-Identifier: GPL-2.0-or-later */
/* neigh.h - the host's LAN neighbours, for ARP and NDP answers
 *
 * See net/neigh.c for the theory of operation.
 */
#ifndef NET_NEIGH_H
#define NET_NEIGH_H

#include <stdint.h>

#include "../util/inany.h"

struct ctx;

void neigh_init(const struct ctx *c);
void neigh_handler(const struct ctx *c);
void neigh_mac(const struct ctx *c, const union inany_addr *a, uint8_t *mac);
void neigh_set(const struct ctx *c, const union inany_addr *a,
	       const uint8_t *mac);
void neigh_del(const union inany_addr *a);

#endif /* NET_NEIGH_H */
