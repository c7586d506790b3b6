/* SPDX-License-Identifier: GPL-2.0-or-later */
/* frame.h - Ethernet and IP headers of the frames the relay sends the guest
 *
 * See net/frame.c for the theory of operation.
 */
#ifndef NET_FRAME_H
#define NET_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "../util/inany.h"

struct ctx;

#define ETH_HDR_LEN		14
#define IP4_HDR_LEN		20
#define IP6_HDR_LEN		40
#define L2L3_HDR_MAX		(ETH_HDR_LEN + IP6_HDR_LEN)

size_t net_l2l3_len(const union inany_addr *src);
size_t net_fill_l2l3(const struct ctx *c, uint8_t *buf,
		     const union inany_addr *src, const union inany_addr *dst,
		     uint8_t proto, size_t l4len);

#endif /* NET_FRAME_H */
