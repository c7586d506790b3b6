// SPDX-License-Identifier: GPL-2.0-or-later
/* checksum.c - Internet checksum (RFC 1071) and pseudo-header helpers
 *
 * Theory of operation: the one's complement sum of 16-bit words does not
 * depend on the order in which words are added, nor on how they are
 * grouped: adding 64-bit words with end-around carry and folding the
 * result down to 16 bits gives the same value as adding 16-bit words one
 * by one. It does not depend on byte order either, as long as every word
 * is loaded and the result stored in the same (native) order. So the data
 * is loaded 8 bytes at a time with memcpy() (no alignment assumption), two
 * independent accumulators hide the carry chain, and the tail is loaded
 * into a zeroed word, which pads an odd length with a zero byte as the
 * RFC requires.
 *
 * Data split over several buffers (iovecs) may have a segment starting at
 * an odd offset of the checksummed stream: its bytes then sit in the other
 * half of each 16-bit word, and its folded sum is byte-swapped before
 * being added (RFC 1071, section 2(B)).
 *
 * Pseudo-header fields that are not addresses (protocol, length) are added
 * in network byte order, so that they line up with the data words.
 *
 * On x86_64 CPUs with AVX2 (checked once, at the first call), long buffers
 * are summed 64 bytes at a time with vector instructions: each 32-bit word
 * is zero-extended into a 64-bit lane and added there, where it can't
 * carry out, and the lanes are added with end-around carry at the end.
 * A 32-bit word is congruent to the sum of its two 16-bit halves modulo
 * 0xffff, as a 64-bit one is, so this is the same sum again. The scalar
 * loop takes what is left, and every buffer where AVX2 is missing.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "checksum.h"
#include "../util/inany.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define CSUM_AVX2	1
#endif

/* Bytes summed by one step of the vector loop: two 32-byte loads */
#define CSUM_VEC_STEP		64
/* Shortest buffer given to the vector loop: shorter ones don't repay it */
#define CSUM_VEC_MIN		256
/* Most bytes given to the vector loop in one call: its 64-bit lanes add
 * 32-bit words, far from overflowing with a million of them
 */
#define CSUM_VEC_MAX		(1UL << 22)

/**
 * csum_add64() - add with end-around carry, 64 bits
 * @a:		accumulator
 * @b:		value to add
 *
 * Return: @a + @b in one's complement arithmetic (carry wrapped around)
 */
static inline uint64_t csum_add64(uint64_t a, uint64_t b)
{
	a += b;
	return a + (a < b);
}

/**
 * csum_fold64() - fold a 64-bit partial sum into 32 bits
 * @sum:	64-bit one's complement partial sum
 *
 * Return: equivalent 32-bit partial sum
 */
static inline uint32_t csum_fold64(uint64_t sum)
{
	sum = (sum & 0xffffffffULL) + (sum >> 32);
	sum = (sum & 0xffffffffULL) + (sum >> 32);
	return (uint32_t)sum;
}

/**
 * csum_add32() - add two 32-bit partial sums
 * @a:		first partial sum
 * @b:		second partial sum
 *
 * Return: 32-bit partial sum of both
 */
static inline uint32_t csum_add32(uint32_t a, uint32_t b)
{
	return csum_fold64((uint64_t)a + b);
}

#ifdef CSUM_AVX2
/**
 * csum_vec_blocks() - partial sum of whole 64-byte blocks, with AVX2
 * @p:		data, any alignment
 * @len:	length, a multiple of CSUM_VEC_STEP, at most CSUM_VEC_MAX
 *
 * Return: 64-bit one's complement partial sum
 */
__attribute__((target("avx2")))
static uint64_t csum_vec_blocks(const uint8_t *p, size_t len)
{
	const __m256i zero = _mm256_setzero_si256();
	__m256i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
	uint64_t lane[4], sum = 0;
	int i;

	for (; len; len -= CSUM_VEC_STEP, p += CSUM_VEC_STEP) {
		__m256i a = _mm256_loadu_si256((const void *)p);
		__m256i b = _mm256_loadu_si256((const void *)(p + 32));

		s0 = _mm256_add_epi64(s0, _mm256_unpacklo_epi32(a, zero));
		s1 = _mm256_add_epi64(s1, _mm256_unpackhi_epi32(a, zero));
		s2 = _mm256_add_epi64(s2, _mm256_unpacklo_epi32(b, zero));
		s3 = _mm256_add_epi64(s3, _mm256_unpackhi_epi32(b, zero));
	}

	s0 = _mm256_add_epi64(_mm256_add_epi64(s0, s1),
			      _mm256_add_epi64(s2, s3));
	_mm256_storeu_si256((void *)lane, s0);
	for (i = 0; i < 4; i++)
		sum = csum_add64(sum, lane[i]);

	return sum;
}

/**
 * csum_vec_ok() - tell if the CPU runs the vector loop (asked once)
 *
 * Return: true with AVX2
 */
static bool csum_vec_ok(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = __builtin_cpu_supports("avx2") ? 1 : 0;

	return ok;
}
#endif /* CSUM_AVX2 */

/**
 * csum_unfolded() - one's complement partial sum of a buffer
 * @buf:	data, any alignment
 * @len:	length in bytes, odd lengths padded with a zero byte
 * @init:	partial sum to start from (e.g. a pseudo-header sum)
 *
 * The first byte of @buf is taken as the high-order byte of a 16-bit word,
 * that is, @buf starts at an even offset of the checksummed data.
 *
 * Return: 32-bit partial sum, not folded, not inverted
 */
uint32_t csum_unfolded(const void *buf, size_t len, uint32_t init)
{
	const uint8_t *p = buf;
	uint64_t a0 = init, a1 = 0;

#ifdef CSUM_AVX2
	while (len >= CSUM_VEC_MIN && csum_vec_ok()) {
		size_t n = len < CSUM_VEC_MAX ? len : CSUM_VEC_MAX;

		n &= ~(size_t)(CSUM_VEC_STEP - 1);

		a1 = csum_add64(a1, csum_vec_blocks(p, n));
		p += n;
		len -= n;
	}
#endif

	while (len >= 32) {
		uint64_t w[4];

		memcpy(w, p, sizeof(w));
		a0 = csum_add64(a0, w[0]);
		a1 = csum_add64(a1, w[1]);
		a0 = csum_add64(a0, w[2]);
		a1 = csum_add64(a1, w[3]);
		p += 32;
		len -= 32;
	}

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, sizeof(w));
		a0 = csum_add64(a0, w);
		p += 8;
		len -= 8;
	}

	if (len) {
		uint64_t w = 0;

		memcpy(&w, p, len);
		a1 = csum_add64(a1, w);
	}

	return csum_fold64(csum_add64(a0, a1));
}

/**
 * csum_fold() - fold a 32-bit partial sum into 16 bits
 * @sum:	partial sum
 *
 * Return: 16-bit one's complement sum, not inverted
 */
uint16_t csum_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * csum() - final checksum of a buffer
 * @buf:	data, any alignment
 * @len:	length in bytes
 * @init:	partial sum to start from
 *
 * Return: inverted 16-bit checksum, in memory order (store as is)
 */
uint16_t csum(const void *buf, size_t len, uint32_t init)
{
	return (uint16_t)~csum_fold(csum_unfolded(buf, len, init));
}

/**
 * csum_bswap16() - swap the two bytes of a 16-bit value
 * @v:		value
 *
 * Return: @v with its bytes swapped
 */
static inline uint16_t csum_bswap16(uint16_t v)
{
	return (uint16_t)((v << 8) | (v >> 8));
}

/**
 * csum_iov_unfolded() - partial sum of data spread over an iovec array
 * @iov:	array of buffers
 * @n:		number of entries in @iov
 * @skip:	bytes to skip at the start of the data (e.g. L2/L3 headers)
 * @len:	bytes to sum after @skip, stops early at the end of @iov;
 *		SIZE_MAX for all of it
 * @init:	partial sum to start from
 *
 * Segments may have any length, odd ones included: offsets are counted
 * from the first byte after @skip.
 *
 * Return: 32-bit partial sum, not folded, not inverted
 */
uint32_t csum_iov_unfolded(const struct iovec *iov, size_t n, size_t skip,
			   size_t len, uint32_t init)
{
	uint32_t sum = init;
	size_t off = 0, i;

	for (i = 0; i < n && len; i++) {
		const uint8_t *base = iov[i].iov_base;
		size_t seg = iov[i].iov_len;
		uint32_t s;

		if (skip >= seg) {
			skip -= seg;
			continue;
		}
		base += skip;
		seg -= skip;
		skip = 0;

		if (seg > len)
			seg = len;

		s = csum_unfolded(base, seg, 0);
		if (off & 1)
			s = csum_bswap16(csum_fold(s));
		sum = csum_add32(sum, s);

		off += seg;
		len -= seg;
	}

	return sum;
}

/**
 * csum_iov() - final checksum of data spread over an iovec array
 * @iov:	array of buffers
 * @n:		number of entries in @iov
 * @skip:	bytes to skip at the start of the data
 * @init:	partial sum to start from (e.g. a pseudo-header sum)
 *
 * Return: inverted 16-bit checksum, in memory order (store as is)
 */
uint16_t csum_iov(const struct iovec *iov, size_t n, size_t skip,
		  uint32_t init)
{
	uint32_t sum = csum_iov_unfolded(iov, n, skip, SIZE_MAX, init);

	return (uint16_t)~csum_fold(sum);
}

/**
 * csum_ip4_header() - checksum of an IPv4 header
 * @iph:	IPv4 header, any alignment
 * @hlen:	header length in bytes (IHL * 4)
 *
 * With the checksum field zeroed, the result is the value to store in it;
 * with the field filled in, the result is zero if the header is intact.
 *
 * Return: inverted 16-bit checksum, in memory order
 */
uint16_t csum_ip4_header(const void *iph, size_t hlen)
{
	return csum(iph, hlen, 0);
}

/**
 * csum_pseudo4() - partial sum of an IPv4 pseudo-header (RFC 793, 768)
 * @saddr:	source address, network order
 * @daddr:	destination address, network order
 * @proto:	protocol number (IPPROTO_TCP, IPPROTO_UDP...)
 * @l4len:	length of the L4 header and payload, at most 65535
 *
 * Return: 32-bit partial sum, to be used as init of the L4 data sum
 */
uint32_t csum_pseudo4(struct in_addr saddr, struct in_addr daddr,
		      uint8_t proto, size_t l4len)
{
	uint64_t sum;

	sum = (uint64_t)saddr.s_addr + daddr.s_addr;
	sum += htons(proto);
	sum += htons((uint16_t)l4len);

	return csum_fold64(sum);
}

/**
 * csum_pseudo6() - partial sum of an IPv6 pseudo-header (RFC 8200, 8.1)
 * @saddr:	source address
 * @daddr:	destination address
 * @proto:	upper-layer protocol number (IPPROTO_TCP, IPPROTO_ICMPV6...)
 * @l4len:	upper-layer packet length
 *
 * Return: 32-bit partial sum, to be used as init of the L4 data sum
 */
uint32_t csum_pseudo6(const struct in6_addr *saddr,
		      const struct in6_addr *daddr, uint8_t proto,
		      size_t l4len)
{
	uint32_t w[8];
	uint64_t sum = 0;
	size_t i;

	memcpy(&w[0], saddr, sizeof(*saddr));
	memcpy(&w[4], daddr, sizeof(*daddr));
	for (i = 0; i < 8; i++)
		sum += w[i];

	sum += htonl((uint32_t)l4len);
	sum += htonl(proto);

	return csum_fold64(sum);
}

/**
 * csum_l4() - full TCP, UDP or ICMPv6 checksum
 * @src:	source address (IPv4-mapped for IPv4)
 * @dst:	destination address, same family as @src
 * @proto:	protocol number
 * @iov:	L4 header and payload, checksum field zeroed by the caller
 * @n:		number of entries in @iov
 * @l4len:	L4 header and payload length: bytes summed from @iov, and
 *		length in the pseudo-header
 *
 * For IPPROTO_UDP, a computed zero is returned as 0xffff (RFC 768, RFC
 * 8200 section 8.1): zero means "no checksum". Checking a received
 * TCP/ICMPv6 packet with its checksum in place gives zero if intact.
 *
 * Return: inverted 16-bit checksum, in memory order (store as is)
 */
uint16_t csum_l4(const union inany_addr *src, const union inany_addr *dst,
		 uint8_t proto, const struct iovec *iov, size_t n,
		 size_t l4len)
{
	const struct in_addr *s4 = inany_v4(src), *d4 = inany_v4(dst);
	uint32_t sum;
	uint16_t c;

	if (s4 && d4)
		sum = csum_pseudo4(*s4, *d4, proto, l4len);
	else
		sum = csum_pseudo6(&src->a6, &dst->a6, proto, l4len);

	sum = csum_iov_unfolded(iov, n, 0, l4len, sum);
	c = (uint16_t)~csum_fold(sum);

	if (proto == IPPROTO_UDP && !c)
		c = 0xffff;

	return c;
}

/**
 * csum_udp_header() - write a UDP header, with the checksum of the datagram
 * @uh:		UDP header, followed by the payload
 * @src:	IP source
 * @dst:	IP destination, same family
 * @sport:	source port
 * @dport:	destination port
 * @l4len:	UDP header and payload length
 */
void csum_udp_header(uint8_t *uh, const union inany_addr *src,
		     const union inany_addr *dst, uint16_t sport,
		     uint16_t dport, size_t l4len)
{
	struct iovec iov = { .iov_base = uh, .iov_len = l4len };
	uint16_t sum;

	uh[0] = (uint8_t)(sport >> 8);
	uh[1] = (uint8_t)sport;
	uh[2] = (uint8_t)(dport >> 8);
	uh[3] = (uint8_t)dport;
	uh[4] = (uint8_t)(l4len >> 8);
	uh[5] = (uint8_t)l4len;
	uh[6] = uh[7] = 0;
	sum = csum_l4(src, dst, IPPROTO_UDP, &iov, 1, l4len);
	memcpy(uh + 6, &sum, sizeof(sum));
}
