/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ndp.h - private to net/: NDP responder (RFC 4861)
 *
 * See net/ndp.c for the theory of operation.
 */
#ifndef NET_NDP_H
#define NET_NDP_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct ctx;

void ndp_input(const struct ctx *c, const uint8_t *eth_src,
	       const struct in6_addr *saddr, const struct in6_addr *daddr,
	       uint8_t hop_limit, const uint8_t *icmp, size_t len);
void ndp_na_unsolicited(const struct ctx *c, const struct in6_addr *target);

#endif /* NET_NDP_H */
