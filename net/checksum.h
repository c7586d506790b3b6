/* SPDX-License-Identifier: GPL-2.0-or-later */
/* checksum.h - Internet checksum (RFC 1071) and pseudo-header helpers
 *
 * See net/checksum.c for the theory of operation.
 *
 * Conventions: a "partial sum" (uint32_t) is an unfolded one's complement
 * sum of the data taken as 16-bit words in memory order, so that it can be
 * computed with native loads on any byte order. A final checksum
 * (uint16_t) is already inverted and in memory order: store it into the
 * header with memcpy() or a plain 16-bit store, without htons().
 */
#ifndef NET_CHECKSUM_H
#define NET_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "../util/inany.h"

uint32_t csum_unfolded(const void *buf, size_t len, uint32_t init);
uint16_t csum_fold(uint32_t sum);
uint16_t csum(const void *buf, size_t len, uint32_t init);
uint32_t csum_iov_unfolded(const struct iovec *iov, size_t n, size_t skip,
			   size_t len, uint32_t init);
uint16_t csum_iov(const struct iovec *iov, size_t n, size_t skip,
		  uint32_t init);
uint16_t csum_ip4_header(const void *iph, size_t hlen);
uint32_t csum_pseudo4(struct in_addr saddr, struct in_addr daddr,
		      uint8_t proto, size_t l4len);
uint32_t csum_pseudo6(const struct in6_addr *saddr,
		      const struct in6_addr *daddr, uint8_t proto,
		      size_t l4len);
uint16_t csum_l4(const union inany_addr *src, const union inany_addr *dst,
		 uint8_t proto, const struct iovec *iov, size_t n,
		 size_t l4len);

void csum_udp_header(uint8_t *uh, const union inany_addr *src,
		     const union inany_addr *dst, uint16_t sport,
		     uint16_t dport, size_t l4len);

#endif /* NET_CHECKSUM_H */
