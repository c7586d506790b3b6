/* SPDX-License-Identifier: GPL-2.0-or-later */
/* arp.h - private to net/: ARP responder
 *
 * See net/arp.c for the theory of operation.
 */
#ifndef NET_ARP_H
#define NET_ARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

struct ctx;

bool arp_input(const struct ctx *c, const uint8_t *frame, size_t len);
void arp_announce(const struct ctx *c, struct in_addr a);

#endif /* NET_ARP_H */
