// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vu_lend.c - receive buffers lent for frames written in place
 *
 * Build: see the Makefile's standalone rule; sources: this file,
 * vhost_user/vu_mem.c, vhost_user/vu_virtq.c.
 *
 * Theory of operation: the model guest of tests/unit/vu_guest.h posts
 * receive buffers; the test plays the relay, reserving them for frames
 * (vu_virtq_lend_frame()), writing headers and payload where it was told,
 * as the TCP reader and the kernel's socket read would, and committing
 * them (vu_virtq_lend_commit()). The guest must read back exactly the
 * virtio-net header, the number of buffers and the frame, with nothing
 * written past a buffer; reserved buffers that were not committed must
 * stay available, for the next frame; chains the guest made bad and
 * limits must end the reservation, never be written through.
 */

#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../vu_guest.h"

#define T_ROOM		66		/* Ethernet, IPv4, TCP headers */
#define T_SEG		65000		/* payload of a full frame */
#define T_IOV		512

static struct vu_rx_lend lend;
static struct iovec t_iov[T_IOV];
static size_t t_first[VU_LEND_FRAMES + 1];
static uint8_t *t_hdr[VU_LEND_FRAMES];

/**
 * lend_frames() - reserve up to @n frames, as the vhost-user backend does
 * @n:		frames wanted
 * @payload:	payload each may carry
 * @iov_max:	payload areas for all of them
 *
 * Return: frames reserved
 */
static unsigned int lend_frames(unsigned int n, size_t payload,
				size_t iov_max)
{
	size_t used = 0;
	unsigned int f;

	vu_virtq_lend_start(&vq, &lend, T_HDR);
	for (f = 0; f < n; f++) {
		size_t k = vu_virtq_lend_frame(&vq, &mem, &lend, T_ROOM,
					       payload, t_iov + used,
					       iov_max - used, &t_hdr[f]);
		if (!k)
			break;
		t_first[f] = used;
		used += k;
	}
	t_first[f] = used;
	return f;
}

/**
 * write_frame() - write a frame into its lent areas, as TCP and the
 *		   kernel would, and keep a copy in t_in
 * @f:		frame
 * @plen:	payload bytes, at most what was lent
 * @seed:	pattern seed
 *
 * Return: frame length
 */
static size_t write_frame(unsigned int f, size_t plen, unsigned int seed)
{
	size_t i, off = T_ROOM, left = plen;

	pattern(t_in, T_ROOM + plen, seed);
	memcpy(t_hdr[f], t_in, T_ROOM);
	for (i = t_first[f]; left && i < t_first[f + 1]; i++) {
		size_t n = t_iov[i].iov_len < left ? t_iov[i].iov_len : left;

		memcpy(t_iov[i].iov_base, t_in + off, n);
		off += n;
		left -= n;
	}
	ck_assert_uint_eq(left, 0);
	return T_ROOM + plen;
}

/**
 * read_frame() - check what the guest reads for the next frame
 * @used:	used-ring counter of its first chain
 * @vh:		offload description it was committed with
 * @len:	frame length
 * @nbuf:	chains it must take
 */
static void read_frame(uint16_t used, const struct virtio_net_hdr *vh,
		       size_t len, unsigned int nbuf)
{
	uint8_t h[10];

	ck_assert_uint_eq(g_read_used(used, nbuf), T_HDR + len);
	hdr_le(vh, h);
	ck_assert(!memcmp(t_out, h, sizeof(h)));
	ck_assert_uint_eq(t_out[10] | t_out[11] << 8, nbuf);
	ck_assert(!memcmp(t_out + T_HDR, t_in, len));
}

START_TEST(lend_mergeable)
{
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = 1448,
		.hdr_len = T_ROOM, .csum_start = 34, .csum_offset = 16,
	};
	struct iovec iov = { t_out, 1000 };
	uint16_t used0;
	size_t len;

	q_start(T_NUM, 65530, false);	/* indices wrap */
	g_rx_bufs(80, 4096);

	/* 65012 bytes a frame in 4096-byte buffers: 16 chains each */
	ck_assert_uint_eq(lend_frames(4, T_SEG, T_IOV), 4);
	ck_assert_uint_eq(lend.chains, 64);
	ck_assert_uint_eq(t_hdr[0] - lend.vnet[0], T_HDR);
	ck_assert_uint_eq(g_used_idx(), 65530);	/* nothing published */

	used0 = g_used_idx();
	len = write_frame(0, T_SEG, 1);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 0, len, &vh), 0);
	read_frame(used0, &vh, len, 16);

	used0 = g_used_idx();
	len = write_frame(1, T_SEG, 2);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 1, len, &vh), 0);
	read_frame(used0, &vh, len, 16);

	/* The last one shorter: 3 chains, the rest stays available */
	used0 = g_used_idx();
	len = write_frame(2, 9000, 3);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 2, len, NULL), 0);
	read_frame(used0, NULL, len, 3);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 3, len, NULL),
			 -EINVAL);
	ck_assert_uint_eq(vq.last_avail, (uint16_t)(65530 + 35));
	ck_assert_uint_eq(vq.stats.frames, 3);
	ck_assert_uint_eq(vq.stats.bytes, 2 * (T_ROOM + T_SEG) + T_ROOM + 9000);

	/* A copied frame takes the next chain, one not committed */
	pattern(t_out, iov.iov_len, 9);
	rx_ok(&iov, 1, 1);
}
END_TEST

START_TEST(lend_too_few_buffers)
{
	q_start(T_NUM, 0, false);
	g_rx_bufs(20, 4096);

	/* 16 chains a frame: one frame, and nothing is taken */
	ck_assert_uint_eq(lend_frames(2, T_SEG, T_IOV), 1);
	ck_assert_uint_eq(lend.chains, 16);
	ck_assert_uint_eq(vq.last_avail, 0);
	ck_assert_uint_eq(g_used_idx(), 0);

	/* None at all */
	q_start(T_NUM, 0, false);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);
}
END_TEST

START_TEST(lend_small_first_buffer)
{
	size_t s = T_HDR + T_ROOM - 1;

	q_start(T_NUM, 0, false);
	g_rx_bufs(1, s);
	g_rx_bufs(4, 4096);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);

	/* Exactly the headers: the payload goes to the next buffers */
	q_start(T_NUM, 0, false);
	g_rx_bufs(1, s + 1);
	g_rx_bufs(4, 4096);
	ck_assert_uint_eq(lend_frames(1, 5000, T_IOV), 1);
	ck_assert_uint_eq(lend.chains, 3);
	ck_assert_uint_eq(t_first[1], 2);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 0,
					      write_frame(0, 5000, 4), NULL),
			 0);
	read_frame(0, NULL, T_ROOM + 5000, 3);
}
END_TEST

START_TEST(lend_without_mrg_rxbuf)
{
	size_t big[17], s = 4096;
	unsigned int i;

	for (i = 0; i < 17; i++)
		big[i] = 4096;

	/* One-descriptor chains can't hold a 64 KiB frame */
	q_start(T_NUM, 0, false);
	vq.mrg_rxbuf = false;
	g_rx_bufs(40, s);
	ck_assert_uint_eq(lend_frames(1, T_SEG, T_IOV), 0);
	ck_assert_uint_eq(lend_frames(1, 1000, T_IOV), 1);

	/* Big chains ("big packets"): one chain a frame */
	q_start(T_NUM, 0, false);
	vq.mrg_rxbuf = false;
	g_avail(g_chain(big, 17, VRING_DESC_F_WRITE, NULL));
	g_avail(g_chain(big, 17, VRING_DESC_F_WRITE, NULL));
	ck_assert_uint_eq(lend_frames(3, T_SEG, T_IOV), 2);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 0,
					      write_frame(0, T_SEG, 5), NULL),
			 0);
	read_frame(0, NULL, T_ROOM + T_SEG, 1);
}
END_TEST

START_TEST(lend_limits)
{
	q_start(T_NUM, 0, false);
	g_rx_bufs(T_NUM, 4096);

	/* Payload areas: 16 a frame, room for two */
	ck_assert_uint_eq(lend_frames(4, T_SEG, 40), 2);

	/* VU_RX_CHAINS_MAX chains a frame at most */
	q_start(T_NUM, 0, false);
	g_rx_bufs(T_NUM, 256);
	ck_assert_uint_eq(lend_frames(1, T_SEG, T_IOV), 0);

	/* Not while writes are logged */
	q_start(T_NUM, 0, false);
	g_rx_bufs(4, 4096);
	vq.log = (struct vu_log *)&lend;	/* not dereferenced */
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);
	vq.log = NULL;

	/* Stopped queue */
	vu_virtq_stop(&vq);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);
}
END_TEST

START_TEST(lend_commit_order)
{
	q_start(T_NUM, 0, false);
	g_rx_bufs(40, 4096);
	ck_assert_uint_eq(lend_frames(2, 8000, T_IOV), 2);

	/* Out of order, longer than lent, beyond the frames */
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 1, 100, NULL),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 0,
					      T_ROOM + 8000 + 4096, NULL),
			 -EINVAL);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 2, 100, NULL),
			 -EINVAL);
	ck_assert_uint_eq(g_used_idx(), 0);

	/* Frame 0 short, so frame 1 would leave a hole: refused */
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 0,
					      write_frame(0, 10, 6), NULL),
			 0);
	read_frame(0, NULL, T_ROOM + 10, 1);
	ck_assert_int_eq(vu_virtq_lend_commit(&vq, &lend, 1, T_ROOM + 10,
					      NULL), -EINVAL);
	ck_assert_uint_eq(g_used_idx(), 1);

	/* No reservation after a commit (the base moved) */
	ck_assert_uint_eq(vu_virtq_lend_frame(&vq, &mem, &lend, T_ROOM, 100,
					      t_iov, T_IOV, &t_hdr[0]), 0);
}
END_TEST

START_TEST(lend_hostile)
{
	size_t s = 4096, part = 1000;
	unsigned int h;

	/* A read-only buffer after two frames' worth: two frames */
	q_start(T_NUM, 0, false);
	g_rx_bufs(6, s);
	g_avail(g_chain(&s, 1, 0, NULL));
	g_rx_bufs(6, s);
	ck_assert_uint_eq(lend_frames(4, 3 * 4096 - 200, T_IOV), 2);
	ck_assert_uint_eq(lend.chains, 6);

	/* Index out of range, loop, outside guest memory, indirect */
	q_start(T_NUM, 0, false);
	g_avail(T_NUM + 1);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);

	q_start(T_NUM, 0, false);
	g_desc(101, T_GPA + T_BUF, 200, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT,
	       101);
	g_avail(101);
	ck_assert_uint_eq(lend_frames(1, 100000, T_IOV), 0);

	q_start(T_NUM, 0, false);
	h = g_chain(&part, 1, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, NULL);
	g_desc(102, 0xffffffffffffff00ULL, 0x200, VRING_DESC_F_WRITE, 0);
	gd(h)->next = htole16(102);
	g_avail(h);
	ck_assert_uint_eq(lend_frames(1, 2000, T_IOV), 0);

	q_start(T_NUM, 0, false);
	g_avail(g_chain(&s, 1, VRING_DESC_F_WRITE | VRING_DESC_F_INDIRECT,
			NULL));
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);

	/* Zero-length buffers only */
	q_start(T_NUM, 0, false);
	g_desc(103, T_GPA + T_BUF, 0, VRING_DESC_F_WRITE, 0);
	g_avail(103);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);

	/* More available than the ring holds */
	q_start(T_NUM, 0, false);
	g_rx_bufs(4, s);
	ga()->idx = htole16(T_NUM + 10);
	ck_assert_uint_eq(lend_frames(1, 100, T_IOV), 0);

	/* Nothing was ever published */
	ck_assert_uint_eq(g_used_idx(), 0);
	ck_assert_uint_eq(vq.stats.frames, 0);
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	Suite *s = suite_create("vu_lend");
	TCase *tc = tcase_create("vu_lend");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lend_mergeable);
	tcase_add_test(tc, lend_too_few_buffers);
	tcase_add_test(tc, lend_small_first_buffer);
	tcase_add_test(tc, lend_without_mrg_rxbuf);
	tcase_add_test(tc, lend_limits);
	tcase_add_test(tc, lend_commit_order);
	tcase_add_test(tc, lend_hostile);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
