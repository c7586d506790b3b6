// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vu_virtq.c - split virtqueues, against a model guest
 *
 * Build: see the Makefile's standalone rule; sources: this file,
 * vhost_user/vu_mem.c, vhost_user/vu_virtq.c.
 *
 * Theory of operation: guest memory is a memfd, mapped by vu_mem_map() as
 * the vhost-user back-end would (guest physical address T_GPA, a made-up
 * front-end address T_UVA), and mapped a second time by the model guest
 * of tests/unit/vu_guest.h: through that second view the test plays the
 * guest driver, writing descriptors and the available ring and reading
 * the used ring and the buffers. The queue under test only ever sees
 * guest addresses. Hostile chains (indices out of range, loops, addresses
 * outside the memory, wrong directions, bad lengths) must be refused,
 * counted and given back, and the queue must keep working for the next
 * good chain. Built with sanitizers, any access outside the mappings is
 * reported.
 *
 * Guest memory tables and the dirty log are tested by test_vu_mem.c.
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
 * t_pop() - take a frame from the TX queue into t_out
 * @vh:		offload fields, filled, or NULL
 * @size:	room for the frame
 *
 * Return: frame length, 0 if none, or the error of vu_virtq_pop_frame()
 */
static ssize_t t_pop(struct virtio_net_hdr *vh, size_t size)
{
	size_t len;
	int rc = vu_virtq_pop_frame(&vq, &mem, T_HDR, vh, t_out, size, &len);

	return rc > 0 ? (ssize_t)len : rc;
}

/**
 * tx_ok() - the guest sends a frame in given pieces, check what we take
 * @segs:	descriptor lengths, summing to T_HDR + @flen
 * @nseg:	number of descriptors
 * @flen:	frame length
 * @seed:	pattern seed
 */
static void tx_ok(const size_t *segs, unsigned int nseg, size_t flen,
		  unsigned int seed)
{
	struct virtio_net_hdr vh;
	uint16_t used0 = g_used_idx(), last0 = vq.last_avail;
	uint64_t frames0 = vq.stats.frames, bytes0 = vq.stats.bytes;
	size_t sum = 0;
	unsigned int k, head;
	uint32_t id, len;

	for (k = 0; k < nseg; k++)
		sum += segs[k];
	ck_assert_uint_eq(sum, T_HDR + flen);

	pattern(t_in, sum, seed);
	head = g_chain(segs, nseg, 0, t_in);
	g_avail(head);
	ck_assert(vu_virtq_has_avail(&vq));

	memset(t_out, 0, flen);
	memset(&vh, 0xff, sizeof(vh));
	ck_assert_int_eq(t_pop(&vh, sizeof(t_out)), flen);
	ck_assert(!memcmp(t_out, t_in + T_HDR, flen));

	/* The header's offload fields, little-endian in guest memory */
	ck_assert_uint_eq(vh.flags, t_in[0]);
	ck_assert_uint_eq(vh.gso_type, t_in[1]);
	ck_assert_uint_eq(vh.hdr_len, t_in[2] | t_in[3] << 8);
	ck_assert_uint_eq(vh.gso_size, t_in[4] | t_in[5] << 8);
	ck_assert_uint_eq(vh.csum_start, t_in[6] | t_in[7] << 8);
	ck_assert_uint_eq(vh.csum_offset, t_in[8] | t_in[9] << 8);

	ck_assert_uint_eq(g_used_idx(), (uint16_t)(used0 + 1));
	g_used(used0, &id, &len);
	ck_assert_uint_eq(id, head);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(vq.last_avail, (uint16_t)(last0 + 1));
	ck_assert_uint_eq(vq.used_idx, (uint16_t)(used0 + 1));
	ck_assert_uint_eq(vq.stats.frames, frames0 + 1);
	ck_assert_uint_eq(vq.stats.bytes, bytes0 + flen);
}

/**
 * tx_refused() - make a chain available, check that it is refused for the
 *		  given reason and given back, then that a good frame still
 *		  goes through
 * @head:	head of the refused chain
 * @size:	room for the frame
 * @err:	error vu_virtq_pop_frame() must return
 * @flen:	frame length it must report
 */
static void tx_refused(unsigned int head, size_t size, int err, size_t flen)
{
	uint64_t frames0 = vq.stats.frames;
	struct vu_virtq_stats st0 = vq.stats;
	uint16_t used0 = g_used_idx(), last0 = vq.last_avail;
	size_t seg = T_HDR + 60, got;
	uint32_t id, len;

	g_avail(head);
	ck_assert_int_eq(vu_virtq_pop_frame(&vq, &mem, T_HDR, NULL, t_out,
					    size, &got), err);
	if (err != -EINVAL)
		ck_assert_uint_eq(got, flen);
	ck_assert_uint_eq(vq.stats.bad_chain,
			  st0.bad_chain + (err == -EINVAL));
	ck_assert_uint_eq(vq.stats.short_frame,
			  st0.short_frame + (err == -EBADMSG));
	ck_assert_uint_eq(vq.stats.long_frame,
			  st0.long_frame + (err == -EMSGSIZE));
	ck_assert_uint_eq(vq.stats.frames, frames0);
	ck_assert_uint_eq(g_used_idx(), (uint16_t)(used0 + 1));
	g_used(used0, &id, &len);
	ck_assert_uint_eq(id, head);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(vq.last_avail, (uint16_t)(last0 + 1));
	ck_assert(!vu_virtq_has_avail(&vq));

	tx_ok(&seg, 1, 60, head);
}

/**
 * tx_bad() - a bad chain is refused and given back, the queue goes on
 * @head:	head of the bad chain
 * @size:	room for the frame
 */
static void tx_bad(unsigned int head, size_t size)
{
	tx_refused(head, size, -EINVAL, 0);
}

/**
 * rx_bad() - push a frame into a bad chain (after @good good ones)
 * @head:	head of the bad chain, already built
 * @good:	good chains available before it
 */
static void rx_bad(unsigned int head, unsigned int good)
{
	uint64_t bad0 = vq.stats.bad_chain, frames0 = vq.stats.frames;
	uint16_t used0 = g_used_idx(), last0 = vq.last_avail;
	uint8_t frame[3000];
	struct iovec iov = { frame, sizeof(frame) };
	uint32_t id, len;
	unsigned int k;

	g_rx_bufs(good, 1024);
	g_avail(head);
	pattern(frame, sizeof(frame), 5);

	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EINVAL);
	ck_assert_uint_eq(vq.stats.bad_chain, bad0 + 1);
	ck_assert_uint_eq(vq.stats.frames, frames0);
	ck_assert_uint_eq(g_used_idx(), (uint16_t)(used0 + good + 1));
	ck_assert_uint_eq(vq.last_avail, (uint16_t)(last0 + good + 1));
	for (k = 0; k <= good; k++) {
		g_used(used0 + k, &id, &len);
		ck_assert_uint_eq(len, 0);
	}
	ck_assert_uint_eq(id, head);

	/* The queue still works */
	g_rx_bufs(1, 4096);
	rx_ok(&iov, 1, 1);
}

START_TEST(tx_descriptor_layouts)
{
	size_t one[] = { T_HDR + 100 };
	size_t two[] = { 5, T_HDR + 100 - 5 };
	size_t five[] = { 3, 4, 6, 50, T_HDR + 100 - 63 };
	size_t split[] = { T_HDR, 1, 1, 20, 38 };

	q_start(T_NUM, 0, false);
	ck_assert(!vu_virtq_has_avail(&vq));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 0);

	tx_ok(one, 1, 100, 1);
	tx_ok(two, 2, 100, 2);
	tx_ok(five, 5, 100, 3);
	tx_ok(split, 5, 60, 4);
	ck_assert(!vu_virtq_has_avail(&vq));
	ck_assert_uint_eq(vq.stats.bad_chain, 0);
}
END_TEST

START_TEST(tx_index_wraps)
{
	size_t seg[] = { 30, T_HDR + 1500 - 30 };
	unsigned int i;

	q_start(T_NUM, 65533, false);
	for (i = 0; i < 6; i++)
		tx_ok(seg, 2, 1500, i);
	ck_assert_uint_eq(vq.last_avail, 3);
	ck_assert_uint_eq(g_used_idx(), 3);

	/* Several available at once */
	for (i = 0; i < 5; i++) {
		size_t s = T_HDR + 64;

		g_avail(g_chain(&s, 1, 0, NULL));
	}
	for (i = 0; i < 5; i++)
		ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 64);
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 0);
	ck_assert_uint_eq(g_used_idx(), 8);
}
END_TEST

START_TEST(tx_stopped_queue)
{
	size_t s = T_HDR + 64;

	q_start(T_NUM, 10, false);
	g_avail(g_chain(&s, 1, 0, NULL));
	vu_virtq_stop(&vq);
	ck_assert(!vu_virtq_has_avail(&vq));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 0);
	ck_assert_uint_eq(vq.last_avail, 10);
	ck_assert_uint_eq(g_used_idx(), 10);
}
END_TEST

START_TEST(rx_small_and_big_frames)
{
	uint8_t a[20], b[40];
	struct iovec small[] = { { a, sizeof(a) }, { b, sizeof(b) } };
	struct iovec big[3], many[10];
	static uint8_t frame[T_BIG];
	unsigned int i;

	q_start(T_NUM, 0, false);
	pattern(a, sizeof(a), 1);
	pattern(b, sizeof(b), 2);

	g_rx_bufs(4, 4096);
	rx_ok(small, 2, 1);
	ck_assert(vu_virtq_has_avail(&vq));

	/* 12 + 65536 bytes in 4 KiB buffers: 17 chains */
	pattern(frame, sizeof(frame), 3);
	big[0] = (struct iovec){ frame, 1 };
	big[1] = (struct iovec){ frame + 1, 40000 };
	big[2] = (struct iovec){ frame + 40001, T_BIG - 40001 };
	g_rx_bufs(14, 4096);
	rx_ok(big, 3, 17);
	ck_assert(!vu_virtq_has_avail(&vq));

	/* Pieces smaller than a buffer, crossing buffer ends */
	for (i = 0; i < 10; i++)
		many[i] = (struct iovec){ frame + i * 1000, 1000 };
	g_rx_bufs(3, 4096);
	rx_ok(many, 10, 3);
}
END_TEST

START_TEST(rx_header_split_across_descriptors)
{
	size_t segs[] = { 8, 100 };
	uint8_t frame[200];
	struct iovec iov = { frame, sizeof(frame) };

	q_start(T_NUM, 65535, false);
	g_avail(g_chain(segs, 2, VRING_DESC_F_WRITE, NULL));
	g_rx_bufs(1, 4096);
	pattern(frame, sizeof(frame), 9);
	rx_ok(&iov, 1, 2);
	ck_assert_uint_eq(vq.last_avail, 1);
}
END_TEST

START_TEST(rx_too_few_buffers)
{
	static uint8_t frame[T_BIG];
	struct iovec iov = { frame, sizeof(frame) };
	uint16_t used0;

	q_start(T_NUM, 100, false);
	pattern(frame, sizeof(frame), 4);

	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EAGAIN);
	g_rx_bufs(3, 4096);
	used0 = g_used_idx();
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EAGAIN);
	ck_assert_uint_eq(vq.stats.no_buffers, 2);
	ck_assert_uint_eq(g_used_idx(), used0);
	ck_assert_uint_eq(vq.used_idx, used0);
	ck_assert_uint_eq(vq.last_avail, 100);
	ck_assert_uint_eq(vq.stats.frames, 0);
	ck_assert_uint_eq(vq.stats.bad_chain, 0);

	g_rx_bufs(14, 4096);
	rx_ok(&iov, 1, 17);
}
END_TEST

START_TEST(rx_too_many_chains)
{
	static uint8_t frame[T_BIG];
	struct iovec iov = { frame, sizeof(frame) };

	q_start(T_NUM, 0, false);
	g_rx_bufs(200, 256);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EINVAL);
	ck_assert_uint_eq(g_used_idx(), 0);
	ck_assert_uint_eq(vq.last_avail, 0);

	ck_assert_uint_eq(vq.stats.too_long, 1);
	ck_assert_uint_eq(vq.stats.no_buffers, 0);

	iov.iov_len = 1000;
	rx_ok(&iov, 1, 4);
}
END_TEST

/* A TSO super-frame as tcp_emit.c describes it: IPv4, MSS 1460 */
static const struct virtio_net_hdr t_vh_tso4 = {
	.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
	.hdr_len = 54,
	.gso_size = 1460,
	.csum_start = 34,
	.csum_offset = 16,
};

START_TEST(rx_offload_header)
{
	static const struct virtio_net_hdr vh6 = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV6,
		/* Not a real frame's: every byte differs, high ones too */
		.hdr_len = 0x124a,
		.gso_size = 0x35a8,
		.csum_start = 0x5636,
		.csum_offset = 0x7810,
	};
	size_t segs[] = { 3, 4, 1, 200 };	/* header in three pieces */
	uint8_t frame[1200];
	struct iovec iov = { frame, sizeof(frame) };
	uint8_t h[10];
	uint32_t id, len;

	q_start(T_NUM, 0, false);
	pattern(frame, sizeof(frame), 11);

	g_rx_bufs(1, 2048);
	rx_ok_vh(&t_vh_tso4, &iov, 1, 1);

	g_avail(g_chain(segs, 4, VRING_DESC_F_WRITE, NULL));
	g_rx_bufs(1, 2048);
	rx_ok_vh(&vh6, &iov, 1, 2);

	/* Partial checksum alone, no segmentation */
	g_rx_bufs(1, 2048);
	{
		struct virtio_net_hdr csum = t_vh_tso4;

		csum.gso_type = VIRTIO_NET_HDR_GSO_NONE;
		csum.gso_size = csum.hdr_len = 0;
		rx_ok_vh(&csum, &iov, 1, 1);
	}

	/* Legacy header, 10 bytes: no num_buffers, frame right after */
	g_rx_bufs(1, 2048);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, 10, &vh6, &iov, 1),
			 0);
	g_used(g_used_idx() - 1, &id, &len);
	ck_assert_uint_eq(len, 10 + sizeof(frame));
	g_read_chain(id, len, t_out);
	hdr_le(&vh6, h);
	ck_assert(!memcmp(t_out, h, 10));
	ck_assert(!memcmp(t_out + 10, frame, sizeof(frame)));

	/* Header lengths we can't write: refused, nothing taken */
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, 8, NULL, &iov, 1),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, 13, NULL, &iov, 1),
			 -EINVAL);
	ck_assert_uint_eq(vq.last_avail, g_aidx);
}
END_TEST

START_TEST(rx_tso_frame_small_buffers)
{
	static uint8_t frame[T_BIG - 1];	/* 14 + 20 + 65501, say */
	struct iovec iov[2] = { { frame, 54 }, { frame + 54, T_BIG - 55 } };
	unsigned int i;

	/* Mergeable buffers of 1536 bytes, as a guest with a small MTU
	 * posts them: 12 + 65535 bytes take 43 of them
	 */
	q_start(T_NUM, 65500, true);
	pattern(frame, sizeof(frame), 12);
	g_rx_bufs(43, 1536);
	rx_ok_vh(&t_vh_tso4, iov, 2, 43);
	ck_assert(!vu_virtq_has_avail(&vq));

	/* Odd sizes, down to one byte, twice over */
	for (i = 0; i < 2; i++) {
		static const size_t sz[] = { 1, 7, 1535, 4096, 13, 9000 };
		unsigned int n = 0;
		size_t room = 0;

		while (room < T_HDR + sizeof(frame)) {
			room += sz[n % 6];
			g_rx_bufs(1, sz[n++ % 6]);
		}
		rx_ok_vh(&t_vh_tso4, iov, 2, n);
	}
}
END_TEST

START_TEST(rx_backpressure_mid_frame)
{
	static uint8_t frame[T_BIG - 1];
	struct iovec iov = { frame, sizeof(frame) };
	uint16_t heads[43], used0, last0;
	uint32_t id, len;
	unsigned int k;

	q_start(64, 100, false);
	pattern(frame, sizeof(frame), 13);

	/* 20 of the 43 buffers the frame needs: refused, nothing published,
	 * several times over
	 */
	for (k = 0; k < 20; k++) {
		heads[k] = (uint16_t)(g_desc_next % g_num);
		g_rx_bufs(1, 1536);
	}
	used0 = g_used_idx();
	last0 = vq.last_avail;
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR,
						     &t_vh_tso4, &iov, 1),
				 -EAGAIN);
		ck_assert_uint_eq(g_used_idx(), used0);
		ck_assert_uint_eq(vq.used_idx, used0);
		ck_assert_uint_eq(vq.last_avail, last0);
	}
	ck_assert_uint_eq(vq.stats.no_buffers, 3);
	ck_assert_uint_eq(vq.stats.frames, 0);

	/* The rest comes: the frame goes once, into the same buffers first,
	 * in ring order
	 */
	for (k = 20; k < 43; k++) {
		heads[k] = (uint16_t)(g_desc_next % g_num);
		g_rx_bufs(1, 1536);
	}
	rx_ok_vh(&t_vh_tso4, &iov, 1, 43);
	for (k = 0; k < 43; k++) {
		g_used((uint16_t)(used0 + k), &id, &len);
		ck_assert_uint_eq(id, heads[k]);
	}
	ck_assert_uint_eq(vq.stats.frames, 1);

	/* Nothing left: refused again, not sent twice */
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, &t_vh_tso4,
					     &iov, 1), -EAGAIN);
	ck_assert_uint_eq(g_used_idx(), (uint16_t)(used0 + 43));
	ck_assert_uint_eq(vq.stats.frames, 1);
}
END_TEST

START_TEST(rx_ring_too_small)
{
	static uint8_t frame[T_BIG - 1];
	struct iovec iov = { frame, sizeof(frame) };

	/* Every descriptor of a 16-entry ring, and not enough: it can never
	 * fit, so it is dropped rather than waited for
	 */
	q_start(16, 0, false);
	g_rx_bufs(16, 1536);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, &t_vh_tso4,
					     &iov, 1), -EINVAL);
	ck_assert_uint_eq(vq.stats.too_long, 1);
	ck_assert_uint_eq(vq.stats.no_buffers, 0);
	ck_assert_uint_eq(g_used_idx(), 0);
	ck_assert_uint_eq(vq.last_avail, 0);

	/* The buffers are still there for frames that fit */
	iov.iov_len = 3000;
	rx_ok_vh(&t_vh_tso4, &iov, 1, 2);
}
END_TEST

START_TEST(rx_without_mrg_rxbuf)
{
	static uint8_t frame[T_BIG - 1];
	struct iovec iov = { frame, sizeof(frame) };
	size_t big[17], small = 1536;
	unsigned int k;

	q_start(T_NUM, 0, false);
	vq.mrg_rxbuf = false;
	pattern(frame, sizeof(frame), 14);

	/* Big-packet chains, as guests without mergeable buffers post them
	 * for TSO: one chain takes the whole frame, num_buffers is 1
	 */
	for (k = 0; k < 17; k++)
		big[k] = 4096;
	g_avail(g_chain(big, 17, VRING_DESC_F_WRITE, NULL));
	rx_ok_vh(&t_vh_tso4, &iov, 1, 1);

	/* A chain too short: the frame is dropped, not spread over more
	 * chains, and the chains stay for the next frames
	 */
	g_rx_bufs(50, small);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, &t_vh_tso4,
					     &iov, 1), -EINVAL);
	ck_assert_uint_eq(vq.stats.too_long, 1);
	ck_assert_uint_eq(vq.last_avail, 1);
	iov.iov_len = small - T_HDR;
	rx_ok_vh(NULL, &iov, 1, 1);
	iov.iov_len = small - T_HDR + 1;
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EINVAL);
	ck_assert_uint_eq(vq.last_avail, 2);
}
END_TEST

START_TEST(tx_hostile)
{
	size_t s = T_HDR + 60, big = T_HDR + 200, tiny = T_HDR + 10;
	unsigned int i, h;

	q_start(T_NUM, 0, false);

	/* Head index out of range */
	tx_bad(T_NUM, sizeof(t_out));
	tx_bad(0xffff, sizeof(t_out));

	/* Next index out of range */
	h = g_chain(&s, 1, VRING_DESC_F_NEXT, NULL);
	gd(h)->next = htole16(T_NUM + 3);
	tx_bad(h, sizeof(t_out));

	/* Loop of two descriptors */
	g_desc(200, T_GPA + T_BUF, 16, VRING_DESC_F_NEXT, 201);
	g_desc(201, T_GPA + T_BUF, 16, VRING_DESC_F_NEXT, 200);
	tx_bad(200, sizeof(t_out));

	/* Outside guest memory: below, across the end, at the end */
	g_desc(210, 0x1000, 100, 0, 0);
	tx_bad(210, sizeof(t_out));
	g_desc(210, T_GPA + T_MEM_SIZE - 50, 100, 0, 0);
	tx_bad(210, sizeof(t_out));
	g_desc(210, T_GPA + T_MEM_SIZE, 0, 0, 0);
	tx_bad(210, sizeof(t_out));

	/* Address + length overflowing */
	g_desc(211, 0xfffffffffffffff0ULL, 0x100, 0, 0);
	tx_bad(211, sizeof(t_out));
	g_desc(211, T_GPA + 0x1000, 0xffffffff, 0, 0);
	tx_bad(211, sizeof(t_out));

	/* Device-writable descriptor in a TX chain, first or later */
	tx_bad(g_chain(&s, 1, VRING_DESC_F_WRITE, NULL), sizeof(t_out));
	h = g_chain(&s, 1, VRING_DESC_F_NEXT, NULL);
	g_desc(220, T_GPA + T_BUF, 100, VRING_DESC_F_WRITE, 0);
	gd(h)->next = htole16(220);
	tx_bad(h, sizeof(t_out));

	/* Indirect, even pointing to a plausible table */
	for (i = 0; i < 4; i++)
		g_desc(230 + i, T_GPA + T_BUF, 100, 0, 0);
	g_desc(225, T_GPA + T_DESC + 230 * 16, 4 * 16, VRING_DESC_F_INDIRECT,
	       0);
	tx_bad(225, sizeof(t_out));

	/* Frame too long for the buffer (its whole length reported), too
	 * short, shorter than the header: counted apart from bad chains
	 */
	tx_refused(g_chain(&big, 1, 0, NULL), 199, -EMSGSIZE, 200);
	tx_refused(g_chain(&tiny, 1, 0, NULL), sizeof(t_out), -EBADMSG, 10);
	tiny = 8;
	tx_refused(g_chain(&tiny, 1, 0, NULL), sizeof(t_out), -EBADMSG, 0);

	ck_assert_uint_eq(vq.stats.bad_chain, 12);
	ck_assert_uint_eq(vq.stats.short_frame, 2);
	ck_assert_uint_eq(vq.stats.long_frame, 1);
	ck_assert_uint_eq(vq.stats.frames, 15);
}
END_TEST

START_TEST(avail_beyond_ring)
{
	size_t s = T_HDR + 60;
	uint8_t frame[3000];
	struct iovec iov = { frame, sizeof(frame) };
	unsigned int h, i;

	/* The guest claims num + 1 chains: more than the ring holds. The
	 * ring counts as empty, both ways, nothing is taken or published
	 */
	q_start(8, 100, false);
	h = g_chain(&s, 1, 0, NULL);
	g_aidx = 100 + 9;
	__atomic_store_n(&ga()->idx, htole16(g_aidx), __ATOMIC_RELEASE);
	ck_assert(!vu_virtq_has_avail(&vq));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 0);
	ck_assert_uint_eq(vq.last_avail, 100);
	ck_assert_uint_eq(g_used_idx(), 100);
	ck_assert_uint_ge(vq.stats.bad_avail, 2);

	/* Backwards (65535 ahead) too */
	g_aidx = 99;
	__atomic_store_n(&ga()->idx, htole16(g_aidx), __ATOMIC_RELEASE);
	ck_assert(!vu_virtq_has_avail(&vq));
	pattern(frame, sizeof(frame), 3);
	ck_assert_int_eq(vu_virtq_push_frame(&vq, &mem, T_HDR, NULL, &iov, 1),
			 -EAGAIN);
	ck_assert_uint_eq(g_used_idx(), 100);

	/* Exactly num is fine, and the queue goes on from there */
	g_aidx = 100;
	for (i = 0; i < 8; i++)
		g_avail(h);
	ck_assert(vu_virtq_has_avail(&vq));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 60);
	ck_assert_uint_eq(vq.last_avail, 101);
}
END_TEST

START_TEST(tx_chain_limit)
{
	size_t s = T_HDR + 60;
	unsigned int i;

	/* Eight descriptors, all different, then the first again: the
	 * ninth read is one more than the queue can hold
	 */
	q_start(8, 0, false);
	for (i = 0; i < 8; i++)
		g_desc(i, T_GPA + T_BUF + i * 64, 64, VRING_DESC_F_NEXT,
		       (i + 1) % 8);
	g_desc_next = 0;
	tx_bad(0, sizeof(t_out));

	/* A chain of exactly eight is fine */
	for (i = 0; i < 8; i++)
		g_desc(i, T_GPA + T_BUF + i * 64, 64,
		       i < 7 ? VRING_DESC_F_NEXT : 0, i + 1);
	g_avail(0);
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 8 * 64 - T_HDR);

	/* Index num itself, as head or next, with a plausible descriptor
	 * there (this queue is smaller than the table we write)
	 */
	g_desc(8, T_GPA + T_BUF, 100, 0, 0);
	tx_bad(8, sizeof(t_out));
	g_desc(0, T_GPA + T_BUF, 64, VRING_DESC_F_NEXT, 8);
	g_desc_next = 1;
	tx_bad(0, sizeof(t_out));

	/* Ring slots are indices modulo the queue size */
	for (i = 0; i < 20; i++)
		tx_ok(&s, 1, 60, i);
	ck_assert_uint_eq(vq.stats.bad_chain, 3);
}
END_TEST

START_TEST(rx_hostile)
{
	size_t s = 4096, part = 1000;
	unsigned int h;

	q_start(T_NUM, 0, false);

	/* Read-only descriptor, alone or after a good one, in the first
	 * or a later chain
	 */
	rx_bad(g_chain(&s, 1, 0, NULL), 0);
	h = g_chain(&part, 1, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, NULL);
	g_desc(100, T_GPA + T_BUF, 100, 0, 0);
	gd(h)->next = htole16(100);
	rx_bad(h, 0);
	rx_bad(g_chain(&s, 1, 0, NULL), 2);

	/* Indirect */
	rx_bad(g_chain(&s, 1, VRING_DESC_F_WRITE | VRING_DESC_F_INDIRECT,
		       NULL), 0);

	/* Indices out of range, loop */
	rx_bad(T_NUM + 1, 0);
	h = g_chain(&part, 1, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, NULL);
	gd(h)->next = htole16(0xffff);
	rx_bad(h, 1);
	g_desc(101, T_GPA + T_BUF, 8, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT,
	       101);
	rx_bad(101, 0);

	/* Outside guest memory, overflowing */
	g_desc(102, T_GPA - 4096, 4096, VRING_DESC_F_WRITE, 0);
	rx_bad(102, 0);
	g_desc(102, 0xffffffffffffff00ULL, 0x200, VRING_DESC_F_WRITE, 0);
	rx_bad(102, 1);

	ck_assert_uint_eq(vq.stats.bad_chain, 9);
	ck_assert_uint_eq(vq.stats.frames, 9);
}
END_TEST

START_TEST(notify_without_event_idx)
{
	size_t s = T_HDR + 64;

	q_start(T_NUM, 0, false);
	g_avail(g_chain(&s, 1, 0, NULL));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 64);
	ck_assert(vu_virtq_need_notify(&vq));

	ga()->flags = htole16(VRING_AVAIL_F_NO_INTERRUPT);
	ck_assert(!vu_virtq_need_notify(&vq));
	ga()->flags = 0;
	ck_assert(vu_virtq_need_notify(&vq));
}
END_TEST

/**
 * t_use() - the guest sends one-buffer frames, we take them
 * @n:		number of frames
 */
static void t_use(unsigned int n)
{
	size_t s = T_HDR + 64;

	while (n--) {
		g_avail(g_chain(&s, 1, 0, NULL));
		ck_assert_int_gt(t_pop(NULL, sizeof(t_out)), 0);
	}
}

/**
 * q_start_event_idx() - start a queue with event indices, at index 0
 *
 * Return: the guest's used_event field
 */
static uint16_t *q_start_event_idx(void)
{
	q_start(T_NUM, 0, true);
	return &ga()->ring[T_NUM];
}

START_TEST(notify_with_event_idx)
{
	uint16_t *used_event = q_start_event_idx();

	/* First time: always */
	ck_assert(vu_virtq_need_notify(&vq));
	ck_assert(vq.signalled_valid);
	/* Nothing used since */
	ck_assert(!vu_virtq_need_notify(&vq));

	/* The flag is ignored with event_idx */
	ga()->flags = htole16(VRING_AVAIL_F_NO_INTERRUPT);
	*used_event = htole16(0);
	t_use(1);
	ck_assert(vu_virtq_need_notify(&vq));	/* used 0 -> 1 crosses 0 */
	ck_assert_uint_eq(vq.signalled_used, 1);

	/* The guest wants to hear at 5: used 1 -> 3 doesn't cross */
	*used_event = htole16(5);
	t_use(2);
	ck_assert(!vu_virtq_need_notify(&vq));
	ck_assert_uint_eq(vq.signalled_used, 3);	/* checked up to 3 */

	/* 3 -> 7 crosses 5 */
	t_use(4);
	ck_assert(vu_virtq_need_notify(&vq));
	ck_assert_uint_eq(vq.signalled_used, 7);

	/* An event index already passed (guest lagging) doesn't fire... */
	*used_event = htole16(6);
	t_use(1);
	ck_assert(!vu_virtq_need_notify(&vq));
	/* ...nor does moving it back onto an entry checked already (the
	 * guest reads the used index itself after moving it)...
	 */
	*used_event = htole16(7);
	ck_assert(!vu_virtq_need_notify(&vq));
	/* ...but the next entry, at the event index, does: 8 -> 9 */
	*used_event = htole16(8);
	t_use(1);
	ck_assert(vu_virtq_need_notify(&vq));

	/* Restart: the first one after start fires again */
	q_start(T_NUM, 8, true);
	*used_event = htole16(100);
	ck_assert(vu_virtq_need_notify(&vq));
}
END_TEST

/* A used_event far ahead, reached after more than 65535 entries without a
 * notification, by a batch that passes it: the guest must hear of it.
 * Counting from the last notification instead of the last check, the
 * 16-bit distance wrapped and this one was missed.
 */
START_TEST(notify_after_index_wrap)
{
	uint16_t *used_event = q_start_event_idx();
	unsigned int i;

	ck_assert(vu_virtq_need_notify(&vq));	/* the first, at 0 */

	*used_event = htole16(65532);
	for (i = 0; i < 65532; i++) {
		t_use(1);
		ck_assert(!vu_virtq_need_notify(&vq));
	}

	/* A batch of 8 uses the entry at 65532, and wraps */
	t_use(8);
	ck_assert_uint_eq(vq.used_idx, 4);
	ck_assert(vu_virtq_need_notify(&vq));
}
END_TEST

START_TEST(kick_enable_flags)
{
	size_t s = T_HDR + 64;

	q_start(T_NUM, 0, false);
	ck_assert(!vu_virtq_kick_enable(&vq, false));
	ck_assert(le16toh(gu()->flags) & VRING_USED_F_NO_NOTIFY);
	ck_assert(!vu_virtq_kick_enable(&vq, true));
	ck_assert(!(le16toh(gu()->flags) & VRING_USED_F_NO_NOTIFY));

	/* A chain arrived while kicks were off */
	ck_assert(!vu_virtq_kick_enable(&vq, false));
	g_avail(g_chain(&s, 1, 0, NULL));
	ck_assert(vu_virtq_kick_enable(&vq, true));
	ck_assert(!(le16toh(gu()->flags) & VRING_USED_F_NO_NOTIFY));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 64);
	ck_assert(!vu_virtq_kick_enable(&vq, true));
}
END_TEST

START_TEST(kick_enable_event_idx)
{
	uint16_t *avail_event;
	size_t s = T_HDR + 64;

	q_start(T_NUM, 7, true);
	avail_event = (uint16_t *)&gu()->ring[T_NUM];
	*avail_event = htole16(0x5555);

	ck_assert(!vu_virtq_kick_enable(&vq, false));
	ck_assert_uint_eq(le16toh(*avail_event), 0x5555);
	ck_assert(!(le16toh(gu()->flags) & VRING_USED_F_NO_NOTIFY));

	ck_assert(!vu_virtq_kick_enable(&vq, true));
	ck_assert_uint_eq(le16toh(*avail_event), 7);

	g_avail(g_chain(&s, 1, 0, NULL));
	ck_assert_int_eq(t_pop(NULL, sizeof(t_out)), 64);
	/* One chain there (reported): the kick is for the one after it */
	g_avail(g_chain(&s, 1, 0, NULL));
	ck_assert(vu_virtq_kick_enable(&vq, true));
	ck_assert_uint_eq(le16toh(*avail_event), 9);
}
END_TEST

START_TEST(virtq_start_checks)
{
	struct vu_mem_region_desc d = {
		.gpa = T_GPA, .size = T_MEM_SIZE - 4096, .uva = T_UVA,
		.offset = 0, .fd = memfd,
	};
	unsigned int bad_num[] = { 0, 3, 12, VU_QUEUE_SIZE_MAX * 2 };
	unsigned int i;

	for (i = 0; i < sizeof(bad_num) / sizeof(bad_num[0]); i++) {
		vq.started = true;
		ck_assert_int_eq(vu_virtq_start(&vq, &mem, bad_num[i],
						T_UVA + T_DESC,
						T_UVA + T_AVAIL,
						T_UVA + T_USED, 0), -EINVAL);
		ck_assert(!vq.started);
	}

	/* Misaligned rings */
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA + 8,
					T_UVA + T_AVAIL, T_UVA + T_USED, 0),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA,
					T_UVA + T_AVAIL + 1, T_UVA + T_USED,
					0), -EINVAL);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA,
					T_UVA + T_AVAIL, T_UVA + T_USED + 2,
					0), -EINVAL);

	/* Rings not entirely in guest memory, or given as guest physical */
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 1024,
					T_UVA + T_MEM_SIZE - 8192,
					T_UVA + T_AVAIL, T_UVA + T_USED, 0),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA,
					T_UVA + T_MEM_SIZE - 4 - 2 * 256,
					T_UVA + T_USED, 0), -EINVAL);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA,
					T_UVA + T_AVAIL,
					T_UVA + T_MEM_SIZE - 2048, 0),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_GPA,
					T_GPA + T_AVAIL, T_GPA + T_USED, 0),
			 -EINVAL);
	ck_assert(!vq.started);

	/* Sizes 1 and the largest are fine, base and event_idx kept; the
	 * used index comes from the used ring in memory (as after a
	 * migration), not from the base
	 */
	vq.event_idx = true;
	((struct vring_used *)vu_mem_uva(&mem, T_UVA + T_USED, 4))->idx =
		htole16(7);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 1, T_UVA, T_UVA + T_AVAIL,
					T_UVA + T_USED, 42), 0);
	ck_assert(vq.started && vq.event_idx);
	ck_assert_uint_eq(vq.last_avail, 42);
	ck_assert_uint_eq(vq.used_idx, 7);
	((struct vring_used *)vu_mem_uva(&mem, T_UVA + T_USED, 4))->idx = 0;
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, VU_QUEUE_SIZE_MAX,
					T_UVA + T_BUF, T_UVA + T_AVAIL,
					T_UVA + T_USED, 0), 0);
	ck_assert_ptr_eq(vq.desc, vu_mem_uva(&mem, T_UVA + T_BUF, 16));
	vu_virtq_stop(&vq);
	ck_assert(!vq.started);
	ck_assert_uint_eq(vq.last_avail, 0);

	/* Front-end addresses aligned, but not our mapping of them */
	d.uva = T_UVA + 4;
	ck_assert_int_eq(vu_mem_map(&mem, &d, 1), 0);
	ck_assert_int_eq(vu_virtq_start(&vq, &mem, 256, T_UVA + 16,
					T_UVA + T_AVAIL, T_UVA + T_USED, 0),
			 -EINVAL);
	ck_assert(!vq.started);
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	Suite *s = suite_create("vu_virtq");
	TCase *tc = tcase_create("vu_virtq");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, tx_descriptor_layouts);
	tcase_add_test(tc, tx_index_wraps);
	tcase_add_test(tc, tx_stopped_queue);
	tcase_add_test(tc, rx_small_and_big_frames);
	tcase_add_test(tc, rx_header_split_across_descriptors);
	tcase_add_test(tc, rx_too_few_buffers);
	tcase_add_test(tc, rx_too_many_chains);
	tcase_add_test(tc, rx_offload_header);
	tcase_add_test(tc, rx_tso_frame_small_buffers);
	tcase_add_test(tc, rx_backpressure_mid_frame);
	tcase_add_test(tc, rx_ring_too_small);
	tcase_add_test(tc, rx_without_mrg_rxbuf);
	tcase_add_test(tc, tx_hostile);
	tcase_add_test(tc, tx_chain_limit);
	tcase_add_test(tc, avail_beyond_ring);
	tcase_add_test(tc, rx_hostile);
	tcase_add_test(tc, notify_without_event_idx);
	tcase_add_test(tc, notify_with_event_idx);
	tcase_add_test(tc, notify_after_index_wrap);
	tcase_add_test(tc, kick_enable_flags);
	tcase_add_test(tc, kick_enable_event_idx);
	tcase_add_test(tc, virtq_start_checks);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
