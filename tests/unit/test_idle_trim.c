// SPDX-License-Identifier: GPL-2.0-or-later
/* test_idle_trim.c - unit tests for the idle hand-back (util/idle_trim.c)
 *
 * Theory of operation: buffers in our own zeroed data segment are
 * registered, written and handed back with idle_trim_now(): a buffer not
 * busy reads as zeroes afterwards (its pages were dropped), a busy one
 * keeps its contents. The sparse helpers must give memset()'s and
 * memcpy()'s results, and must not write pages that already hold them
 * (checked with the "Anonymous" figure of /proc/self/smaps: a page only
 * read maps the kernel's zero page, which is not counted there).
 */

#include <check.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../../util/idle_trim.h"

#define BUF_PAGES	4
#define PAGE		4096

static uint8_t buf_free[BUF_PAGES * PAGE] __attribute__((aligned(PAGE)));
static uint8_t buf_busy[BUF_PAGES * PAGE] __attribute__((aligned(PAGE)));
static bool busy_now = true;

/**
 * busy() - the busy check of buf_busy
 *
 * Return: busy_now
 */
static bool busy(void)
{
	return busy_now;
}

/**
 * all_zero() - tell if memory holds only zeroes
 * @p:		memory
 * @len:	length
 *
 * Return: true if it does
 */
static bool all_zero(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i])
			return false;
	}
	return true;
}

/**
 * anon_kb() - anonymous memory of the mapping holding an address
 * @p:		address
 *
 * Return: its "Anonymous:" figure in /proc/self/smaps, in kB
 */
static unsigned long anon_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	unsigned long kb = 0;
	bool in = false;
	char line[512];

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		uintptr_t a, b;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2) {
			in = a <= (uintptr_t)p && (uintptr_t)p < b;
			continue;
		}
		if (in && sscanf(line, "Anonymous: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

START_TEST(test_hand_back)
{
	idle_trim_register(buf_free, sizeof(buf_free), NULL);
	idle_trim_register(buf_busy, sizeof(buf_busy), busy);
	idle_trim_register(buf_free, sizeof(buf_free), NULL);	/* again */
	ck_assert_uint_eq(idle_trim_count(), 2);

	memset(buf_free, 0xa5, sizeof(buf_free));
	memset(buf_busy, 0x5a, sizeof(buf_busy));
	idle_trim_now();
	ck_assert(all_zero(buf_free, sizeof(buf_free)));
	ck_assert_uint_eq(buf_busy[0], 0x5a);
	ck_assert_uint_eq(buf_busy[sizeof(buf_busy) - 1], 0x5a);

	busy_now = false;
	idle_trim_now();
	ck_assert(all_zero(buf_busy, sizeof(buf_busy)));
}
END_TEST

START_TEST(test_partial_pages)
{
	static uint8_t odd[3 * PAGE] __attribute__((aligned(PAGE)));

	/* Only the whole pages inside the range go: the first and last
	 * partial pages may hold other variables
	 */
	memset(odd, 1, sizeof(odd));
	idle_trim_register(odd + 10, sizeof(odd) - 20, NULL);
	idle_trim_now();
	ck_assert_uint_eq(odd[PAGE - 1], 1);
	ck_assert(all_zero(odd + PAGE, PAGE));
	ck_assert_uint_eq(odd[2 * PAGE], 1);
}
END_TEST

/**
 * map_alone() - map pages no other mapping can merge with
 * @pages:	number of read-write pages
 *
 * Return: the pages, between two inaccessible ones
 */
static uint8_t *map_alone(unsigned int pages)
{
	uint8_t *g = mmap(NULL, (size_t)(pages + 2) * PAGE, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(g != MAP_FAILED);
	ck_assert(mmap(g + PAGE, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		  g + PAGE);
	return g + PAGE;
}

START_TEST(test_sparse_helpers)
{
	uint8_t *m = map_alone(BUF_PAGES), *n = map_alone(BUF_PAGES);
	unsigned long before;
	uint8_t src[300];
	unsigned int i;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i + 1);
	before = anon_kb(m);

	/* Clearing zeroes writes nothing */
	idle_trim_zero(m, BUF_PAGES * PAGE);
	ck_assert_uint_eq(anon_kb(m), before);

	/* Copying zeroes over zeroes neither; a difference is copied */
	idle_trim_copy(m, n, BUF_PAGES * PAGE);
	ck_assert_uint_eq(anon_kb(m), before);
	idle_trim_copy(m + PAGE + 7, src, sizeof(src));
	ck_assert(!memcmp(m + PAGE + 7, src, sizeof(src)));
	ck_assert_uint_eq(anon_kb(m), before + PAGE / 1024);

	/* Clearing what was written */
	idle_trim_zero(m, BUF_PAGES * PAGE);
	ck_assert(all_zero(m, BUF_PAGES * PAGE));

	munmap(m - PAGE, (BUF_PAGES + 2) * PAGE);
	munmap(n - PAGE, (BUF_PAGES + 2) * PAGE);
}
END_TEST

/**
 * idle_trim_suite() - the test cases
 *
 * Return: the suite
 */
static Suite *idle_trim_suite(void)
{
	Suite *s = suite_create("idle_trim");
	TCase *tc = tcase_create("idle_trim");

	tcase_add_test(tc, test_hand_back);
	tcase_add_test(tc, test_partial_pages);
	tcase_add_test(tc, test_sparse_helpers);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the idle_trim suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(idle_trim_suite());
	int failed;

	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
