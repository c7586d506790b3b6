// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vu_mem.c - guest memory tables and the dirty log, against a model
 *		   guest
 *
 * Build: see the Makefile's standalone rule; sources: this file,
 * vhost_user/vu_mem.c, vhost_user/vu_virtq.c.
 *
 * Theory of operation: guest memory is the memfd of tests/unit/
 * vu_guest.h, mapped by vu_mem_map() as the vhost-user back-end would and
 * a second time as the guest's view. Tables of regions at unaligned
 * offsets must map each region where its offset says, translate guest
 * and front-end addresses exactly to its edges and never across two
 * regions; bad tables (overlaps, wrapping, empty regions, offsets past
 * the file, descriptors that are not regular files, too many regions)
 * must be refused and leave the current table, and nothing of
 * themselves, mapped, which /proc/self/maps tells. The dirty log must
 * mark the pages a frame was written to, and the used ring's only when
 * asked to.
 */

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "../vu_guest.h"

/**
 * memfd_mapped() - bytes of the test's memfd mapped in this process
 *
 * Return: sum of the lengths of its mappings in /proc/self/maps
 */
static unsigned long memfd_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long sum = 0, a, b;
	char line[512];

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "memfd:" T_MEMFD_NAME) &&
		    sscanf(line, "%lx-%lx", &a, &b) == 2)
			sum += b - a;
	}
	fclose(f);
	return sum;
}

/**
 * log_bit() - is a page marked in a dirty log?
 * @log:	log
 * @gpa:	guest address in the page
 *
 * Return: true if marked
 */
static bool log_bit(const struct vu_log *log, uint64_t gpa)
{
	uint64_t page = gpa / VU_LOG_PAGE;

	return log->map[page / 8] & (1U << (page % 8));
}

START_TEST(dirty_log)
{
	static uint8_t map[(T_GPA + T_MEM_SIZE) / VU_LOG_PAGE / 8];
	struct vu_log log = { .map = map, .size = sizeof(map) };
	uint64_t used_gpa = T_GPA + T_USED, page;
	static uint8_t frame[T_BIG];
	struct iovec iov = { frame, 9000 };
	unsigned int marked = 0, want = 1, k;
	uint32_t id, len;

	q_start(T_NUM, 0, false);
	memset(map, 0, sizeof(map));
	vq.log = &log;
	vq.used_log = used_gpa;
	vq.log_used = true;

	/* A frame over three 4 KiB chains: those buffers and the used
	 * ring's pages are marked, nothing else
	 */
	g_rx_bufs(3, 4096);
	pattern(frame, sizeof(frame), 5);
	rx_ok(&iov, 1, 3);
	ck_assert(log.dirty);
	for (page = 0; page < sizeof(map) * 8; page++)
		marked += !!(map[page / 8] & (1U << (page % 8)));
	ck_assert(log_bit(&log, used_gpa));
	for (k = 0; k < 3; k++) {
		uint64_t a;

		g_used((uint16_t)k, &id, &len);
		a = le64toh(gd(id)->addr);
		ck_assert(log_bit(&log, a));
		ck_assert(log_bit(&log, a + len - 1));
		/* its pages, and the used ring's (entries, index: one) */
		want += (unsigned int)((a + 4095) / VU_LOG_PAGE - a /
				       VU_LOG_PAGE + 1);
	}
	ck_assert_uint_le(marked, want);
	ck_assert_uint_eq(log.missed, 0);

	/* Without VHOST_VRING_F_LOG, the used ring is not marked */
	memset(map, 0, sizeof(map));
	vq.log_used = false;
	g_rx_bufs(1, 4096);
	iov.iov_len = 100;
	rx_ok(&iov, 1, 1);
	ck_assert(!log_bit(&log, used_gpa));

	/* A write the log doesn't cover is counted, not marked */
	log.size = 1;
	vu_log_write(&log, T_GPA + T_MEM_SIZE - 1, 1);
	ck_assert_uint_eq(log.missed, 1);
	vu_log_write(&log, UINT64_MAX - 10, 20);
	ck_assert_uint_eq(log.missed, 2);
	vq.log = NULL;
}
END_TEST

/**
 * regions_init() - a table of two regions, the second at an unaligned
 *		    offset, then copies of it up to one past the limit
 * @d:		table, VU_MEM_REGIONS_MAX + 1 entries, set
 * @page:	page size
 *
 * Return: bytes mapped for the second region (and each copy of it): from
 *	   the start of the page its offset is in
 */
static unsigned long regions_init(struct vu_mem_region_desc *d, long page)
{
	unsigned int i;

	memset(d, 0, sizeof(*d) * (VU_MEM_REGIONS_MAX + 1));
	d[0] = (struct vu_mem_region_desc){
		.gpa = 0x100000, .size = 0x10000, .uva = 0x7000000000ULL,
		.offset = 0, .fd = memfd,
	};
	d[1] = (struct vu_mem_region_desc){
		.gpa = 0x300000, .size = 0x5000, .uva = 0x7000100000ULL,
		.offset = (uint64_t)page * 17 + 0x123, .fd = memfd,
	};
	for (i = 2; i <= VU_MEM_REGIONS_MAX; i++) {
		d[i] = d[1];
		d[i].gpa = 0x400000 + i * 0x5000ULL;	/* adjacent */
		d[i].uva = 0x7000200000ULL + i * 0x10000ULL;
	}
	return ((0x5000 + 0x123) + page - 1) / page * page;
}

/**
 * regions_map_two() - map the first two regions of the table, replacing
 *		       the fixture's, with markers at the ends of the second
 * @d:		table, from regions_init()
 * @r1:		bytes mapped for the second region
 */
static void regions_map_two(const struct vu_mem_region_desc *d,
			    unsigned long r1)
{
	ck_assert_uint_eq(memfd_mapped(), 2 * T_MEM_SIZE);
	ck_assert_int_eq(vu_mem_map(&mem, d, 2), 0);
	ck_assert_uint_eq(mem.n, 2);
	/* The old table is gone */
	ck_assert_uint_eq(memfd_mapped(), T_MEM_SIZE + 0x10000 + r1);

	g[d[1].offset] = 0xab;
	g[d[1].offset + 0x5000 - 1] = 0xcd;
}

START_TEST(mem_regions)
{
	struct vu_mem_region_desc d[VU_MEM_REGIONS_MAX + 1];
	unsigned long r1 = regions_init(d, sysconf(_SC_PAGESIZE));
	uint64_t end1 = 0x300000 + 0x5000;
	uint8_t *p;

	regions_map_two(d, r1);

	/* Unaligned offset: the region starts where the offset says */
	p = vu_mem_gpa(&mem, 0x300000, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(*p, 0xab);
	p = vu_mem_uva(&mem, 0x7000100000ULL, 0x5000);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(*p, 0xab);
	*p = 0x12;
	ck_assert_uint_eq(g[d[1].offset], 0x12);

	/* Edges: last byte inside, one past outside */
	p = vu_mem_gpa(&mem, end1 - 1, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(*p, 0xcd);
	ck_assert_ptr_nonnull(vu_mem_gpa(&mem, end1 - 1, 0));
	ck_assert_ptr_null(vu_mem_gpa(&mem, end1 - 1, 2));
	ck_assert_ptr_null(vu_mem_gpa(&mem, end1, 0));
	ck_assert_ptr_null(vu_mem_gpa(&mem, end1, 1));
	ck_assert_ptr_null(vu_mem_gpa(&mem, 0x300000 - 1, 1));
	ck_assert_ptr_null(vu_mem_gpa(&mem, 0x300000 - 1, 2));
	ck_assert_ptr_nonnull(vu_mem_gpa(&mem, 0x300000, 0x5000));
	ck_assert_ptr_null(vu_mem_gpa(&mem, 0x300000, 0x5001));
	ck_assert_ptr_nonnull(vu_mem_uva(&mem, 0x7000100000ULL + 0x4fff, 1));
	ck_assert_ptr_null(vu_mem_uva(&mem, 0x7000100000ULL + 0x5000, 0));
	ck_assert_ptr_null(vu_mem_uva(&mem, 0x300000, 1));

	/* Wrapping */
	ck_assert_ptr_null(vu_mem_gpa(&mem, 0x300010, UINT64_MAX));
	ck_assert_ptr_null(vu_mem_gpa(&mem, 0x300010, UINT64_MAX - 0xf));
	ck_assert_ptr_null(vu_mem_gpa(&mem, UINT64_MAX, 2));
}
END_TEST

/* Fields of the second region a bad table changes */
#define SET_GPA		(1U << 0)
#define SET_SIZE	(1U << 1)
#define SET_UVA		(1U << 2)
#define SET_OFFSET	(1U << 3)
#define SET_FD		(1U << 4)

/* A pipe's read end, for a bad table's @fd */
#define FD_PIPE		(-2)

/**
 * struct bad_table - a table of two regions, the second one wrong
 * @name:	what is wrong
 * @gpa:	guest physical address
 * @size:	size
 * @uva:	front-end address
 * @offset:	offset in the file, plus @offset_pages pages
 * @set:	fields changed, SET_*
 * @offset_pages: pages added to @offset
 * @fd:		file descriptor, -1 or FD_PIPE
 * @err:	error vu_mem_map() must return
 */
struct bad_table {
	const char *name;
	uint64_t gpa, size, uva, offset;
	unsigned int set;
	unsigned int offset_pages;
	int fd;
	int err;
};

static const struct bad_table bad_tables[] = {
	{ .name = "overlapping the first region",
	  .set = SET_GPA, .gpa = 0x10f000, .err = -EINVAL },
	{ .name = "overlapping its start",
	  .set = SET_GPA, .gpa = 0x0ff000, .err = -EINVAL },
	{ .name = "inside it",
	  .set = SET_GPA | SET_SIZE, .gpa = 0x100000 + 0x1000, .size = 0x1000,
	  .err = -EINVAL },
	{ .name = "empty",
	  .set = SET_SIZE, .size = 0, .err = -EINVAL },
	{ .name = "guest addresses wrapping",
	  .set = SET_GPA, .gpa = UINT64_MAX - 0x1000, .err = -EINVAL },
	{ .name = "front-end addresses wrapping",
	  .set = SET_UVA, .uva = UINT64_MAX - 0x1000, .err = -EINVAL },
	{ .name = "fstat() failing",
	  .set = SET_FD, .fd = -1, .err = -EBADF },
	/* Past the end of the file: mapped, it would be a SIGBUS */
	{ .name = "past the end of the file",
	  .set = SET_OFFSET, .offset = T_MEM_SIZE - 0x1000, .err = -ERANGE },
	{ .name = "offset past the end of the file",
	  .set = SET_OFFSET, .offset = T_MEM_SIZE, .offset_pages = 1,
	  .err = -ERANGE },
	{ .name = "larger than the file",
	  .set = SET_OFFSET | SET_SIZE, .offset = 0, .size = T_MEM_SIZE + 1,
	  .err = -ERANGE },
	{ .name = "not a regular file",
	  .set = SET_FD, .fd = FD_PIPE, .err = -ENODEV },
};

/**
 * bad_table_try() - try to map a bad table, check it is refused
 * @d:		valid table, from regions_init()
 * @b:		what to change in its second region
 * @page:	page size
 */
static void bad_table_try(const struct vu_mem_region_desc *d,
			  const struct bad_table *b, long page)
{
	struct vu_mem_region_desc bad[2];
	int p2[2] = { -1, -1 }, rc;

	memcpy(bad, d, sizeof(bad));
	if (b->set & SET_GPA)
		bad[1].gpa = b->gpa;
	if (b->set & SET_SIZE)
		bad[1].size = b->size;
	if (b->set & SET_UVA)
		bad[1].uva = b->uva;
	if (b->set & SET_OFFSET)
		bad[1].offset = b->offset + (uint64_t)page * b->offset_pages;
	if (b->set & SET_FD)
		bad[1].fd = b->fd;
	if (b->fd == FD_PIPE) {
		ck_assert_int_eq(pipe(p2), 0);
		bad[1].fd = p2[0];
	}

	rc = vu_mem_map(&mem, bad, 2);
	ck_assert_msg(rc == b->err, "%s: vu_mem_map() returned %d, not %d",
		      b->name, rc, b->err);

	if (p2[0] >= 0) {
		close(p2[0]);
		close(p2[1]);
	}
}

START_TEST(mem_bad_tables)
{
	struct vu_mem_region_desc d[VU_MEM_REGIONS_MAX + 1];
	long page = sysconf(_SC_PAGESIZE);
	unsigned long r1 = regions_init(d, page);
	unsigned int i;
	uint8_t *p;

	regions_map_two(d, r1);
	g[d[1].offset] = 0x12;

	/* Bad tables leave the current one alone */
	for (i = 0; i < sizeof(bad_tables) / sizeof(bad_tables[0]); i++)
		bad_table_try(d, &bad_tables[i], page);
	ck_assert_int_eq(vu_mem_map(&mem, d, VU_MEM_REGIONS_MAX + 1),
			 -EINVAL);

	ck_assert_uint_eq(mem.n, 2);
	p = vu_mem_gpa(&mem, 0x300000, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(*p, 0x12);
	/* Nothing of the failed tables stays mapped */
	ck_assert_uint_eq(memfd_mapped(), T_MEM_SIZE + 0x10000 + r1);
}
END_TEST

START_TEST(mem_largest_table)
{
	struct vu_mem_region_desc d[VU_MEM_REGIONS_MAX + 1];
	unsigned long r1 = regions_init(d, sysconf(_SC_PAGESIZE));
	uint8_t *p;

	regions_map_two(d, r1);

	/* The largest table is fine; the fd stays open */
	ck_assert_int_eq(vu_mem_map(&mem, d, VU_MEM_REGIONS_MAX), 0);
	ck_assert_uint_eq(mem.n, VU_MEM_REGIONS_MAX);
	p = vu_mem_gpa(&mem, d[VU_MEM_REGIONS_MAX - 1].gpa + 0x4fff, 1);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(*p, 0xcd);
	ck_assert_int_ne(fcntl(memfd, F_GETFD), -1);

	/* Ranges spanning two regions are refused, even adjacent ones */
	ck_assert_ptr_nonnull(vu_mem_gpa(&mem, d[2].gpa + 0x4fff, 1));
	ck_assert_ptr_nonnull(vu_mem_gpa(&mem, d[3].gpa, 1));
	ck_assert_ptr_null(vu_mem_gpa(&mem, d[2].gpa + 0x4fff, 2));
	ck_assert_ptr_null(vu_mem_gpa(&mem, d[2].gpa, 0x5001));

	ck_assert_uint_eq(memfd_mapped(), T_MEM_SIZE + 0x10000 +
			  (VU_MEM_REGIONS_MAX - 1) * r1);

	vu_mem_unmap(&mem);
	ck_assert_uint_eq(mem.n, 0);
	ck_assert_ptr_null(vu_mem_gpa(&mem, d[2].gpa, 1));
	ck_assert_uint_eq(memfd_mapped(), T_MEM_SIZE);
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	Suite *s = suite_create("vu_mem");
	TCase *tc = tcase_create("vu_mem");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, mem_regions);
	tcase_add_test(tc, mem_bad_tables);
	tcase_add_test(tc, mem_largest_table);
	tcase_add_test(tc, dirty_log);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
