/* SPDX-License-Identifier: GPL-2.0-or-later */
/* idle_trim.h - give the pages of large buffers back when traffic stops
 *
 * Theory of operation: see idle_trim.c. The two inline helpers here keep
 * pages that hold only zeroes untouched when a table is cleared or copied
 * at start-up: reading a page never written maps the kernel's shared zero
 * page, which is not resident memory of ours, while any store, even of a
 * zero, makes the page ours for good.
 */
#ifndef UTIL_IDLE_TRIM_H
#define UTIL_IDLE_TRIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ctx;

/* Without traffic for this long, registered buffers are handed back */
#define IDLE_TRIM_MS		10000
/* Most buffers modules can register */
#define IDLE_TRIM_MAX		16
/* Most hand-back functions modules can register */
#define IDLE_TRIM_FNS_MAX	4
/* Allocations from this size on get pages of their own (mmap()) */
#define IDLE_TRIM_MMAP_MIN	4096
/* glibc's default M_TOP_PAD, put back once the tables are allocated */
#define IDLE_TRIM_TOP_PAD	(128 * 1024)
/* Bytes compared at a time by the sparse helpers below */
#define IDLE_TRIM_BLOCK		64

/**
 * typedef idle_trim_busy_fn - tell if a buffer holds data to keep
 *
 * Return: true if the buffer must not be handed back now
 */
typedef bool (*idle_trim_busy_fn)(void);

/**
 * typedef idle_trim_fn - hand back memory a module maps and unmaps itself
 */
typedef void (*idle_trim_fn)(void);

void idle_trim_init(void);
void idle_trim_init_end(void);
void idle_trim_register(void *p, size_t len, idle_trim_busy_fn busy);
void idle_trim_register_fn(idle_trim_fn fn);
void idle_trim_traffic(uint64_t now_ms);
void idle_trim_now(void);
unsigned int idle_trim_count(void);

/**
 * idle_trim_zero() - clear memory, storing only where it isn't zero yet
 * @p:		memory
 * @len:	its length
 *
 * Same result as memset(@p, 0, @len), but pages already all zero (never
 * touched, in the zeroed data segment or from calloc()) stay untouched.
 */
static inline void idle_trim_zero(void *p, size_t len)
{
	static const uint8_t zero[IDLE_TRIM_BLOCK];
	uint8_t *d = p;
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < IDLE_TRIM_BLOCK ? len - off : IDLE_TRIM_BLOCK;
		if (memcmp(d + off, zero, n))
			memset(d + off, 0, n);
	}
}

/**
 * idle_trim_copy() - copy memory, storing only where it differs
 * @dst:	destination, not overlapping @src
 * @src:	source
 * @len:	length
 *
 * Same result as memcpy(), but pages of @dst that already hold what @src
 * does (zeroes on both sides, typically) stay untouched.
 */
static inline void idle_trim_copy(void *dst, const void *src, size_t len)
{
	const uint8_t *s = src;
	uint8_t *d = dst;
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < IDLE_TRIM_BLOCK ? len - off : IDLE_TRIM_BLOCK;
		if (memcmp(d + off, s + off, n))
			memcpy(d + off, s + off, n);
	}
}

#endif /* UTIL_IDLE_TRIM_H */
