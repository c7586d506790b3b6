/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_guest.h - a model guest driver for the vhost-user memory and queue tests
 *
 * Theory of operation: guest memory is a memfd, mapped by vu_mem_map() as
 * the vhost-user back-end would (guest physical address T_GPA, a made-up
 * front-end address T_UVA), and mapped a second time here: through that
 * second view the tests play the guest driver, writing descriptors and
 * the available ring and reading the used ring and the buffers, with
 * canary bytes after every buffer to catch writes past its end. setup()
 * and teardown() are the fixture; q_start() starts the queue under test,
 * rx_ok() pushes a frame through it and checks what the guest reads back.
 * Used by tests/unit/standalone/test_vu_virtq.c and test_vu_mem.c;
 * included by exactly one file of each test binary: it defines variables.
 */
#ifndef TESTS_UNIT_VU_GUEST_H
#define TESTS_UNIT_VU_GUEST_H

#include <check.h>
#include <endian.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include "../../vhost_user/vu_virtq.h"

#define T_GPA		0x100000ULL		/* guest physical base */
#define T_UVA		0x7f5a00000000ULL	/* front-end address base */
#define T_MEM_SIZE	(4UL << 20)
#define T_DESC		0x0000			/* offsets in guest memory */
#define T_AVAIL		0x1000
#define T_USED		0x2000
#define T_BUF		0x10000			/* buffers from here */
#define T_NUM		256
#define T_HDR		12			/* virtio-net, mergeable */
#define T_BIG		65536
#define T_FILL		0xa5			/* fresh buffers */
#define T_CANARY	0x5a			/* after each buffer */
#define T_GAP		16			/* canary bytes, at least */
#define T_MEMFD_NAME	"vu_guest"		/* guest memory */

static int memfd = -1;
static uint8_t *g;			/* the guest's view of its memory */
static struct vu_mem mem;
static struct vu_virtq vq;

static unsigned int g_num;		/* queue size */
static uint16_t g_aidx;			/* guest's avail->idx */
static unsigned int g_desc_next;	/* next free descriptor */
static size_t g_buf;			/* next free buffer offset */

static uint8_t t_in[T_BIG + 4096];	/* frames as sent */
static uint8_t t_out[T_BIG + 4096];	/* frames as received */

/**
 * gd() - guest view of a descriptor
 * @i:		index
 *
 * Return: pointer to descriptor @i
 */
static inline struct vring_desc *gd(unsigned int i)
{
	return (struct vring_desc *)(g + T_DESC) + i;
}

/**
 * ga() - guest view of the available ring
 *
 * Return: pointer to it
 */
static inline struct vring_avail *ga(void)
{
	return (struct vring_avail *)(g + T_AVAIL);
}

/**
 * gu() - guest view of the used ring
 *
 * Return: pointer to it
 */
static inline struct vring_used *gu(void)
{
	return (struct vring_used *)(g + T_USED);
}

/**
 * g_used_idx() - used->idx as the guest reads it
 *
 * Return: index, host order
 */
static inline uint16_t g_used_idx(void)
{
	return le16toh(gu()->idx);
}

/**
 * g_used() - a used-ring entry as the guest reads it
 * @i:		used-ring counter
 * @id:		set to the chain head
 * @len:	set to the length written
 */
static inline void g_used(uint16_t i, uint32_t *id, uint32_t *len)
{
	const struct vring_used_elem *e = &gu()->ring[i & (g_num - 1)];

	*id = le32toh(e->id);
	*len = le32toh(e->len);
}

/**
 * pattern() - fill a buffer with bytes that depend on position and seed
 * @p:		buffer
 * @len:	length
 * @seed:	seed
 */
static inline void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed * 13 + (i >> 8));
}

/**
 * g_alloc() - take guest buffer space, filled, followed by canary bytes
 * @len:	bytes
 *
 * Return: offset in guest memory, 16-byte aligned
 */
static inline size_t g_alloc(size_t len)
{
	size_t off, end;

	if (g_buf + len + 15 + T_GAP > T_MEM_SIZE)
		g_buf = T_BUF;
	off = g_buf;
	end = off + ((len + 15) & ~(size_t)15) + T_GAP;
	memset(g + off, T_FILL, len);
	memset(g + off + len, T_CANARY, end - off - len);
	g_buf = end;
	return off;
}

/**
 * g_canary_ok() - check that nothing was written just past a buffer
 * @gpa:	buffer address
 * @len:	buffer length
 */
static inline void g_canary_ok(uint64_t gpa, size_t len)
{
	size_t off = gpa - T_GPA + len, i;

	for (i = 0; i < T_GAP && off + i < T_MEM_SIZE; i++)
		ck_assert_uint_eq(g[off + i], T_CANARY);
}

/**
 * g_desc() - write a descriptor, as the guest
 * @i:		index
 * @gpa:	buffer address
 * @len:	buffer length
 * @flags:	VRING_DESC_F_*
 * @next:	next index
 */
static inline void g_desc(unsigned int i, uint64_t gpa, uint32_t len,
			  uint16_t flags, uint16_t next)
{
	gd(i)->addr = htole64(gpa);
	gd(i)->len = htole32(len);
	gd(i)->flags = htole16(flags);
	gd(i)->next = htole16(next);
}

/**
 * g_avail() - make a chain available, as the guest
 * @head:	head index, not necessarily valid
 */
static inline void g_avail(unsigned int head)
{
	ga()->ring[g_aidx & (g_num - 1)] = htole16(head);
	g_aidx++;
	__atomic_store_n(&ga()->idx, htole16(g_aidx), __ATOMIC_RELEASE);
}

/**
 * g_chain() - build a chain over fresh buffers, not yet available
 * @segs:	buffer lengths
 * @nseg:	number of buffers
 * @flags:	flags for every descriptor (NEXT is added as needed)
 * @data:	bytes to put in the buffers, NULL to leave them
 *
 * Return: head index
 */
static inline unsigned int g_chain(const size_t *segs, unsigned int nseg,
				   uint16_t flags, const uint8_t *data)
{
	unsigned int k, head = g_desc_next % g_num;

	for (k = 0; k < nseg; k++) {
		unsigned int i = g_desc_next++ % g_num;
		size_t off = g_alloc(segs[k]);
		uint16_t f = flags;

		if (k + 1 < nseg)
			f |= VRING_DESC_F_NEXT;
		g_desc(i, T_GPA + off, segs[k], f, g_desc_next % g_num);
		if (data) {
			memcpy(g + off, data, segs[k]);
			data += segs[k];
		}
	}

	return head;
}

/**
 * g_read_chain() - read what the device wrote into a chain, as the guest
 * @head:	head index
 * @len:	bytes written, from the used entry
 * @dst:	copy here
 */
static inline void g_read_chain(unsigned int head, size_t len, uint8_t *dst)
{
	unsigned int i = head;

	while (len) {
		size_t n = le32toh(gd(i)->len);

		g_canary_ok(le64toh(gd(i)->addr), n);
		if (n > len)
			n = len;
		memcpy(dst, g + (le64toh(gd(i)->addr) - T_GPA), n);
		dst += n;
		len -= n;
		ck_assert((le16toh(gd(i)->flags) & VRING_DESC_F_NEXT) || !len);
		i = le16toh(gd(i)->next);
	}
}

/**
 * setup() - fixture: create and map guest memory
 */
static inline void setup(void)
{
	struct vu_mem_region_desc d = {
		.gpa = T_GPA, .size = T_MEM_SIZE, .uva = T_UVA, .offset = 0,
	};

	memfd = memfd_create(T_MEMFD_NAME, 0);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, T_MEM_SIZE), 0);
	g = mmap(NULL, T_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 memfd, 0);
	ck_assert(g != MAP_FAILED);

	d.fd = memfd;
	memset(&mem, 0, sizeof(mem));
	ck_assert_int_eq(vu_mem_map(&mem, &d, 1), 0);
	memset(&vq, 0, sizeof(vq));
	g_buf = T_BUF;
	g_desc_next = 0;
}

/**
 * teardown() - fixture: unmap and close guest memory
 */
static inline void teardown(void)
{
	vu_mem_unmap(&mem);
	munmap(g, T_MEM_SIZE);
	close(memfd);
	memfd = -1;
}

/**
 * q_start() - start the queue under test, rings zeroed
 * @num:	queue size
 * @base:	first index
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 */
static inline void q_start(unsigned int num, uint16_t base, bool event_idx)
{
	memset(g, 0, T_BUF);
	g_num = num;
	g_aidx = base;
	g_desc_next = 0;
	ga()->idx = htole16(base);
	gu()->idx = htole16(base);
	vq.event_idx = event_idx;
	vq.mrg_rxbuf = true;
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, num, T_UVA + T_DESC,
					T_UVA + T_AVAIL, T_UVA + T_USED,
					base), 0);
	ck_assert(vq.started);
}

/**
 * g_rx_bufs() - post receive buffers, one descriptor each, as the guest
 * @n:		number of buffers
 * @size:	size of each
 */
static inline void g_rx_bufs(unsigned int n, size_t size)
{
	while (n--)
		g_avail(g_chain(&size, 1, VRING_DESC_F_WRITE, NULL));
}

/**
 * hdr_le() - the virtio-net header the guest must read for an offload
 *	      description: little-endian, whatever the host order
 * @vh:		offload description, NULL for none
 * @h:		ten bytes, filled
 */
static inline void hdr_le(const struct virtio_net_hdr *vh, uint8_t *h)
{
	const struct virtio_net_hdr z = { 0 };

	if (!vh)
		vh = &z;
	h[0] = vh->flags;
	h[1] = vh->gso_type;
	h[2] = vh->hdr_len & 0xff;
	h[3] = vh->hdr_len >> 8;
	h[4] = vh->gso_size & 0xff;
	h[5] = vh->gso_size >> 8;
	h[6] = vh->csum_start & 0xff;
	h[7] = vh->csum_start >> 8;
	h[8] = vh->csum_offset & 0xff;
	h[9] = vh->csum_offset >> 8;
}

/**
 * g_read_used() - read the chains of one received frame into t_out, as the
 *		   guest
 * @used0:	used-ring counter of its first chain
 * @nbuf:	chains it took
 *
 * Return: bytes read, virtio-net header included
 */
static inline size_t g_read_used(uint16_t used0, unsigned int nbuf)
{
	uint32_t id, len;
	size_t got = 0;
	unsigned int k;

	memset(t_out, 0xee, sizeof(t_out));
	for (k = 0; k < nbuf; k++) {
		g_used((uint16_t)(used0 + k), &id, &len);
		ck_assert_uint_lt(id, g_num);
		ck_assert_uint_le(got + len, sizeof(t_out));
		g_read_chain(id, len, t_out + got);
		got += len;
	}
	return got;
}

/**
 * rx_ok_vh() - push a frame with an offload description, check that the
 *		guest reads back the header and the frame exactly, and that
 *		nothing was written past a buffer (g_read_chain())
 * @vh:		offload description, NULL for a plain frame
 * @iov:	frame pieces
 * @iovcnt:	number of pieces
 * @nbuf:	chains the frame must take
 */
static inline void rx_ok_vh(const struct virtio_net_hdr *vh,
			    const struct iovec *iov, size_t iovcnt,
			    unsigned int nbuf)
{
	uint16_t used0 = g_used_idx(), last0 = vq.last_avail;
	uint64_t frames0 = vq.stats.frames, bytes0 = vq.stats.bytes;
	size_t flen = 0, i;
	uint8_t h[10];

	for (i = 0; i < iovcnt; i++) {
		memcpy(t_in + flen, iov[i].iov_base, iov[i].iov_len);
		flen += iov[i].iov_len;
	}

	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, vh, iov,
					     iovcnt), 0);
	ck_assert_uint_eq(g_used_idx(), (uint16_t)(used0 + nbuf));
	ck_assert_uint_eq(vq.last_avail, (uint16_t)(last0 + nbuf));

	ck_assert_uint_eq(g_read_used(used0, nbuf), T_HDR + flen);
	hdr_le(vh, h);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(t_out[i], h[i]);
	ck_assert_uint_eq(t_out[10] | t_out[11] << 8, nbuf);
	ck_assert(!memcmp(t_out + T_HDR, t_in, flen));
	ck_assert_uint_eq(vq.stats.frames, frames0 + 1);
	ck_assert_uint_eq(vq.stats.bytes, bytes0 + flen);
}

/**
 * rx_ok() - push a plain frame, check that the guest reads it back exactly
 * @iov:	frame pieces
 * @iovcnt:	number of pieces
 * @nbuf:	chains the frame must take
 */
static inline void rx_ok(const struct iovec *iov, size_t iovcnt,
			 unsigned int nbuf)
{
	rx_ok_vh(NULL, iov, iovcnt, nbuf);
}

#endif /* TESTS_UNIT_VU_GUEST_H */
