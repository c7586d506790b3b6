/* SPDX-License-Identifier: GPL-2.0-or-later */
/* util.h - small helpers shared by every module
 *
 * Theory of operation: compile-time helpers only (array sizes, min/max,
 * branch hints, alignment). Nothing here keeps state.
 */
#ifndef UTIL_UTIL_H
#define UTIL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/uio.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)		((a) < (b) ? (a) : (b))
#define MAX(a, b)		((a) > (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define ROUND_UP(n, a)		(DIV_ROUND_UP((n), (a)) * (a))
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define UNUSED			__attribute__((unused))
#define PACKED			__attribute__((packed))

#define STRINGIFY_(x)		#x
#define STRINGIFY(x)		STRINGIFY_(x)

/* Sequence number comparison, modulo 2^32 (RFC 1982 style) */
#define SEQ_LT(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LE(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define SEQ_GE(a, b)		((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)

/**
 * iov_size() - total length of a frame's buffers
 * @iov:	buffers
 * @n:		their number
 *
 * Return: sum of the lengths
 */
static inline size_t iov_size(const struct iovec *iov, size_t n)
{
	size_t len = 0, i;

	for (i = 0; i < n; i++)
		len += iov[i].iov_len;

	return len;
}

#endif /* UTIL_UTIL_H */
