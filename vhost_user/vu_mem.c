// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_mem.c - the guest's memory, shared with us by the vhost-user front-end
 *
 * Theory of operation
 *
 * VHOST_USER_SET_MEM_TABLE describes up to VU_MEM_REGIONS_MAX regions,
 * each with a file descriptor, an offset in it, the region's guest
 * physical address (descriptors use these) and its address in the
 * front-end's process (vring addresses use these). vu_mem_map() maps
 * every region shared and writable; mmap() wants a page-aligned offset,
 * so a mapping starts at the offset rounded down and the region starts
 * that many bytes into it.
 *
 * A new table is checked and mapped entirely before the old one goes: on
 * any failure, whatever was mapped of the new table is unmapped again and
 * the old table stays usable. The file descriptors stay the caller's.
 *
 * A region must lie within its file (fstat()): mmap() maps past the end
 * of a file without complaint, and the first access there is a SIGBUS,
 * so a table claiming more memory than its memfd holds would let the
 * front-end (or a guest placing its rings there) kill us. Guest memory is
 * a memfd or a file (hugetlbfs, tmpfs), so anything else is refused too.
 * A front-end that shrinks the file once it is mapped can still do that:
 * nothing short of a SIGBUS handler (or sealed memfds, which QEMU does
 * not use) prevents it.
 *
 * Translation (vu_mem_gpa(), vu_mem_uva()) gives a pointer only for a
 * range that lies entirely inside one region. Region ends never wrap
 * (checked when mapping), and the check is written as "offset below size,
 * length at most what is left", so no addition can overflow whatever the
 * guest asks for.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "vu_virtq.h"
#include "../util/syscalls.h"

/* System calls after start-up: the guest's memory (and the dirty page log
 * of vu_migrate.c), mapped shared, readable and writable, never
 * executable, where the kernel chooses
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_CALL_IF("newfstatat", "does a region lie within its file?",
			  SYSCALLS_ARG_EQ(3, AT_EMPTY_PATH)),
	 SYSCALLS_CALL_IF("mmap", "a memory region, the dirty page log",
			  SYSCALLS_ARG_EQ(0, 0),
			  SYSCALLS_ARG_EQ(2, PROT_READ | PROT_WRITE),
			  SYSCALLS_ARG_EQ(3, MAP_SHARED)),
	 SYSCALLS_CALL("munmap", "regions and the log, when replaced"));

/**
 * vu_mem_end_ok() - check that a range is not empty and does not wrap
 * @start:	first byte
 * @len:	length, bytes
 *
 * Return: true if @len > 0 and @start + @len - 1 fits 64 bits
 */
static bool vu_mem_end_ok(uint64_t start, uint64_t len)
{
	return len && start <= UINT64_MAX - (len - 1);
}

/**
 * vu_mem_overlap() - check whether two guest physical ranges overlap
 * @a:		first region
 * @b:		second region
 *
 * Both ranges are known not to wrap.
 *
 * Return: true if they share at least one byte
 */
static bool vu_mem_overlap(const struct vu_mem_region_desc *a,
			   const struct vu_mem_region_desc *b)
{
	return a->gpa <= b->gpa + (b->size - 1) &&
	       b->gpa <= a->gpa + (a->size - 1);
}

/**
 * vu_mem_check() - check a table of regions before mapping it
 * @d:		regions
 * @n:		number of regions
 *
 * Return: 0 if every region is usable, -EINVAL otherwise
 */
static int vu_mem_check(const struct vu_mem_region_desc *d, unsigned int n)
{
	unsigned int i, j;

	if (n > VU_MEM_REGIONS_MAX)
		return -EINVAL;

	for (i = 0; i < n; i++) {
		if (!vu_mem_end_ok(d[i].gpa, d[i].size) ||
		    !vu_mem_end_ok(d[i].uva, d[i].size) ||
		    d[i].offset > (uint64_t)INT64_MAX ||
		    d[i].size > SIZE_MAX / 2)
			return -EINVAL;

		for (j = 0; j < i; j++) {
			if (vu_mem_overlap(&d[i], &d[j]))
				return -EINVAL;
		}
	}

	return 0;
}

/**
 * vu_mem_in_file() - check that a region lies within its file
 * @d:		region
 *
 * Return: 0 if it does, -ENODEV if the descriptor is no regular file,
 *	   -ERANGE if the region goes past its end, other negative errno
 */
static int vu_mem_in_file(const struct vu_mem_region_desc *d)
{
	struct stat st;

	/* fstatat(), not fstat(): the same call whatever the C library */
	if (fstatat(d->fd, "", &st, AT_EMPTY_PATH))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	if (st.st_size < 0 || d->offset > (uint64_t)st.st_size ||
	    d->size > (uint64_t)st.st_size - d->offset)
		return -ERANGE;
	return 0;
}

/**
 * vu_mem_unmap_regions() - unmap the first regions of a table
 * @r:		regions
 * @n:		how many of them are mapped
 */
static void vu_mem_unmap_regions(struct vu_mem_region *r, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		munmap(r[i].mmap_base, r[i].mmap_len);
		r[i].mmap_base = NULL;
		r[i].map = NULL;
	}
}

/**
 * vu_mem_map() - map a new memory table, replacing the current one
 * @m:		memory table, updated only on success
 * @d:		regions as the front-end describes them
 * @n:		number of regions, at most VU_MEM_REGIONS_MAX
 *
 * The file descriptors in @d are not closed: they stay the caller's.
 *
 * Return: 0 on success, -EINVAL for a bad table (too many regions, an
 *	   empty one, a range that wraps, overlapping guest physical
 *	   ranges), -ENODEV for a descriptor that is no regular file,
 *	   -ERANGE for a region past the end of its file, or the negative
 *	   errno of a failed fstat() or mmap(). On failure the current
 *	   table is left as it was.
 */
int vu_mem_map(struct vu_mem *m, const struct vu_mem_region_desc *d,
	       unsigned int n)
{
	long page = sysconf(_SC_PAGESIZE);
	struct vu_mem new = { .n = 0 };
	unsigned int i;
	int rc;

	if (page <= 0)
		page = 4096;

	rc = vu_mem_check(d, n);
	if (rc)
		return rc;

	for (i = 0; i < n; i++) {
		struct vu_mem_region *r = &new.r[i];
		uint64_t lead = d[i].offset % (uint64_t)page;
		void *p;

		rc = vu_mem_in_file(&d[i]);
		if (rc) {
			vu_mem_unmap_regions(new.r, i);
			return rc;
		}

		r->mmap_len = d[i].size + lead;
		p = mmap(NULL, r->mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 d[i].fd, (off_t)(d[i].offset - lead));
		if (p == MAP_FAILED) {
			rc = -errno;
			vu_mem_unmap_regions(new.r, i);
			return rc;
		}

		r->mmap_base = p;
		r->map = (uint8_t *)p + lead;
		r->gpa = d[i].gpa;
		r->uva = d[i].uva;
		r->size = d[i].size;
	}
	new.n = n;

	vu_mem_unmap(m);
	*m = new;
	return 0;
}

/**
 * vu_mem_unmap() - unmap every region of a memory table
 * @m:		memory table, left empty
 */
void vu_mem_unmap(struct vu_mem *m)
{
	vu_mem_unmap_regions(m->r, m->n);
	m->n = 0;
}

/**
 * vu_mem_find() - translate a range given by guest physical or front-end
 *		   address
 * @m:		memory table
 * @addr:	first byte
 * @len:	length, bytes, may be zero
 * @uva:	@addr is a front-end (QEMU) virtual address, not a guest
 *		physical one
 *
 * Return: pointer to @addr in our mapping if [@addr, @addr + @len) lies
 *	   entirely in one region, NULL otherwise
 */
static void *vu_mem_find(const struct vu_mem *m, uint64_t addr, uint64_t len,
			 bool uva)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		const struct vu_mem_region *r = &m->r[i];
		uint64_t base = uva ? r->uva : r->gpa;
		uint64_t off;

		if (addr < base)
			continue;

		off = addr - base;
		if (off >= r->size || len > r->size - off)
			continue;

		return r->map + off;
	}

	return NULL;
}

/**
 * vu_mem_gpa() - translate a guest physical range
 * @m:		memory table
 * @gpa:	guest physical address of the first byte
 * @len:	length, bytes, may be zero
 *
 * Return: pointer into our mapping, NULL if the range is not entirely in
 *	   one region (including if it wraps)
 */
void *vu_mem_gpa(const struct vu_mem *m, uint64_t gpa, uint64_t len)
{
	return vu_mem_find(m, gpa, len, false);
}

/**
 * vu_mem_uva() - translate a range of the front-end's address space
 * @m:		memory table
 * @uva:	front-end (QEMU) virtual address of the first byte
 * @len:	length, bytes, may be zero
 *
 * Return: pointer into our mapping, NULL if the range is not entirely in
 *	   one region (including if it wraps)
 */
void *vu_mem_uva(const struct vu_mem *m, uint64_t uva, uint64_t len)
{
	return vu_mem_find(m, uva, len, true);
}
