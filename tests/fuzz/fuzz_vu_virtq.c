// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vu_virtq.c - libFuzzer target: virtqueues in hostile guest memory
 *
 * Theory of operation
 *
 * Each input is one vhost-user connection (fuzz_vu.c) set up as QEMU
 * would, with the features and ring layout the input chooses, then a
 * program of operations on the guest's side: bytes written anywhere in
 * guest memory, descriptors (any address, length, flags, next), entries
 * and indices of the available rings (beyond the ring size, backwards),
 * whole transmit chains behind a virtio-net header (any gso_type,
 * csum_start, hdr_len, num_buffers), receive buffers, kicks, frames the
 * relay sends to the guest, and vhost-user requests in the middle of it
 * all. The relay reads the rings and buffers through its own mapping of
 * the same memfd; we write through ours. Guest memory is FUZZ_VQ_MEM
 * bytes at guest address FUZZ_VQ_GPA, emptied before every input.
 *
 * Input:
 *   byte 0	features: bit 0 MRG_RXBUF, 1 EVENT_IDX, 2 VERSION_1 (no
 *		header of 12 bytes without it or MRG_RXBUF), 3 the offloads
 *		to the guest, 4 the offloads from it, 5 PROTOCOL_FEATURES
 *		(queues start disabled), 6 leave the receive queue
 *		disabled, 7 the transmit queue
 *   byte 1	queue sizes: log2 of the receive queue's in bits 0-3, the
 *		transmit queue's in bits 4-7 (above 10 is refused)
 *   bytes 2-13	ring offsets in guest memory, six little-endian u16 times
 *		8: descriptors, available, used ring of the receive queue,
 *		then of the transmit queue
 *   then operations, each a byte (low four bits: what; bit 4: which
 *   queue, 0 receive, 1 transmit) and its arguments (little-endian):
 *   0 write	u24 offset, u8 n, n bytes: into guest memory
 *   1 desc	u16 index, u32 address (from the start of guest memory),
 *		u32 length, u16 flags, u16 next
 *   2 avail	u16 head: the next available entry, index moved on
 *   3 idx	u16: the available index, as is
 *   4 kick	write the queue's kick eventfd, run the relay
 *   5 frame	u16 length, u8 fill, 10 bytes of struct virtio_net_hdr: a
 *		frame the relay sends to the guest (with the header if the
 *		offloads to the guest were negotiated)
 *   6 run	run the relay (1 to 4 loop iterations, bits 5-6)
 *   7 request	u8 what, u16 value: GET_VRING_BASE, SET_VRING_BASE,
 *		SET_VRING_ENABLE, SET_MEM_TABLE again, SET_VRING_NUM,
 *		SET_VRING_ADDR (value: a new descriptor table offset),
 *		SET_VRING_KICK (a new eventfd), SET_FEATURES (value: byte
 *		0 again)
 *   8 chain	u8 pieces (1 to 4), 12 bytes of virtio-net header, u16
 *		frame length, that many bytes (or the rest of the input):
 *		a transmit chain in the scratch area, made available and
 *		kicked
 *   9 bufs	u8 count, u16 size: receive buffers in the scratch area,
 *		made available
 *   10 lend	u8 frames, u16 payload, u8 fill, u16 bytes, 10 bytes of
 *		struct virtio_net_hdr: the receive queue lends buffers for
 *		up to that many frames (tap_lend(), as TCP asks), the
 *		headers and that many bytes of payload are written where it
 *		says, frame after frame, and each frame is committed; then
 *		the rest is released
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>

#include "fuzz.h"
#include "fuzz_vu.h"
#include "../tools/lib/vu_client.h"
#include "../../tap/tap.h"

#define FUZZ_VQ_MEM		(2U << 20)	/* guest memory in use */
#define FUZZ_VQ_GPA		0x100000ULL
#define FUZZ_VQ_UVA		0x7f5500000000ULL
#define FUZZ_VQ_SCRATCH		(1U << 20)	/* chains and buffers here */
#define FUZZ_VQ_SCRATCH_LEN	(FUZZ_VQ_MEM - FUZZ_VQ_SCRATCH)
#define FUZZ_VQ_HDR		14		/* bytes 0 to 13 */
#define FUZZ_VQ_OPS_MAX		256		/* operations per input */
#define FUZZ_VQ_FRAME_MAX	(14 + 4 + 65535)
#define FUZZ_VQ_LEND_ROOM	54		/* Ethernet, IPv4, TCP */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * struct fuzz_vq - the harness's view of one connection
 * @d:		front-end view: socket, memory, queues
 * @mem:	guest memory, our mapping
 * @avail:	our next available index, per queue
 * @next_desc:	next descriptor the chain and bufs operations use
 * @scratch:	next free byte of the scratch area (wraps)
 * @in:		input
 * @left:	bytes of input left
 */
struct fuzz_vq {
	struct vuc_dev d;
	uint8_t *mem;
	uint16_t avail[2];
	uint16_t next_desc[2];
	size_t scratch;
	const uint8_t *in;
	size_t left;
};

/**
 * fuzz_vq_take() - take bytes of input
 * @v:		state
 * @n:		how many
 *
 * Return: pointer to them, NULL if fewer are left (none taken then)
 */
static const uint8_t *fuzz_vq_take(struct fuzz_vq *v, size_t n)
{
	const uint8_t *p = v->in;

	if (v->left < n)
		return NULL;
	v->in += n;
	v->left -= n;
	return p;
}

/**
 * fuzz_vq_u16() - a little-endian u16 of the input, 0 past its end
 * @v:		state
 *
 * Return: value
 */
static uint16_t fuzz_vq_u16(struct fuzz_vq *v)
{
	const uint8_t *p = fuzz_vq_take(v, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

/**
 * fuzz_vq_u32() - a little-endian u32 of the input, 0 past its end
 * @v:		state
 *
 * Return: value
 */
static uint32_t fuzz_vq_u32(struct fuzz_vq *v)
{
	uint32_t lo = fuzz_vq_u16(v);

	return lo | (uint32_t)fuzz_vq_u16(v) << 16;
}

/**
 * fuzz_vq_features() - the features an input byte asks for
 * @b:		byte 0 of the input (or of a SET_FEATURES request)
 *
 * Return: feature bits
 */
static uint64_t fuzz_vq_features(uint8_t b)
{
	uint64_t f = 0;

	f |= b & 1 ? VUC_F_MRG_RXBUF : 0;
	f |= b & 2 ? VUC_F_EVENT_IDX : 0;
	f |= b & 4 ? VUC_F_VERSION_1 : 0;
	f |= b & 8 ? VUC_F_GUEST_CSUM | VUC_F_GUEST_TSO4 |
		     VUC_F_GUEST_TSO6 : 0;
	f |= b & 16 ? VUC_F_CSUM | VUC_F_HOST_TSO4 | VUC_F_HOST_TSO6 : 0;
	f |= b & 32 ? VUC_F_PROTOCOL_FEATURES : 0;
	return f;
}

/**
 * fuzz_vq_setup() - connect and set the device up from the input header
 * @v:		state, input at its start
 *
 * Requests ask for no REPLY_ACK: the relay runs in this thread, after
 * them. Replies to GET_* are read and dropped.
 *
 * Return: false if the input is too short for the header
 */
static bool fuzz_vq_setup(struct fuzz_vq *v)
{
	const uint8_t *h = fuzz_vq_take(v, FUZZ_VQ_HDR);
	uint64_t t[1 + 4] = { 1, FUZZ_VQ_GPA, FUZZ_VQ_MEM, FUZZ_VQ_UVA, 0 };
	unsigned int qi;
	uint64_t f;
	int fd;

	if (!h)
		return false;

	fd = v->d.fd;
	f = fuzz_vq_features(h[0]);
	vuc_send(fd, VUC_GET_FEATURES, 0, NULL, 0, NULL, 0);
	vuc_send(fd, VUC_SET_OWNER, 0, NULL, 0, NULL, 0);
	vuc_send(fd, VUC_SET_FEATURES, 0, &f, sizeof(f), NULL, 0);
	vuc_send(fd, VUC_SET_MEM_TABLE, 0, t, sizeof(t), &v->d.memfd, 1);

	for (qi = 0; qi < 2; qi++) {
		struct vuc_queue *q = &v->d.q[qi];
		uint32_t lg = qi ? h[1] >> 4 : h[1] & 0xf;
		uint32_t st[2] = { qi, 1U << (lg > 15 ? 15 : lg) };
		uint64_t a[5] = { qi, 0, 0, 0, 0 }, idx = qi;

		q->num = st[1];
		q->desc = (uint64_t)(h[2 + qi * 6] | h[3 + qi * 6] << 8) * 8;
		q->avail = (uint64_t)(h[4 + qi * 6] | h[5 + qi * 6] << 8) * 8;
		q->used = (uint64_t)(h[6 + qi * 6] | h[7 + qi * 6] << 8) * 8;
		a[1] = FUZZ_VQ_UVA + q->desc;
		a[2] = FUZZ_VQ_UVA + q->used;
		a[3] = FUZZ_VQ_UVA + q->avail;
		q->kick = fuzz_vu_eventfd();
		q->call = fuzz_vu_eventfd();

		vuc_send(fd, VUC_SET_VRING_NUM, 0, st, sizeof(st), NULL, 0);
		st[1] = 0;
		vuc_send(fd, VUC_SET_VRING_BASE, 0, st, sizeof(st), NULL, 0);
		vuc_send(fd, VUC_SET_VRING_ADDR, 0, a, sizeof(a), NULL, 0);
		vuc_send(fd, VUC_SET_VRING_KICK, 0, &idx, sizeof(idx),
			 &q->kick, 1);
		vuc_send(fd, VUC_SET_VRING_CALL, 0, &idx, sizeof(idx),
			 &q->call, 1);
		st[1] = !(h[0] & (0x40 << qi));
		vuc_send(fd, VUC_SET_VRING_ENABLE, 0, st, sizeof(st), NULL, 0);
	}

	fuzz_pump(2);
	fuzz_vu_drain(fd);
	return true;
}

/**
 * fuzz_vq_desc() - write a descriptor of a queue, as the guest
 * @v:		state
 * @qi:		queue
 * @i:		index (anything: past the table is other guest memory)
 * @addr:	buffer offset in guest memory
 * @len:	length
 * @flags:	flags
 * @next:	next index
 */
static void fuzz_vq_desc(struct fuzz_vq *v, unsigned int qi, unsigned int i,
			 uint64_t addr, uint32_t len, uint16_t flags,
			 uint16_t next)
{
	uint64_t at = v->d.q[qi].desc + (uint64_t)i * 16;
	uint8_t d[16];

	if (at > FUZZ_VQ_MEM - sizeof(d))
		return;
	addr += FUZZ_VQ_GPA;
	memcpy(d, &addr, 8);
	memcpy(d + 8, &len, 4);
	memcpy(d + 12, &flags, 2);
	memcpy(d + 14, &next, 2);
	memcpy(v->mem + at, d, sizeof(d));
}

/**
 * fuzz_vq_avail() - make a chain available (index moved on, published)
 * @v:		state
 * @qi:		queue
 * @head:	head index, as the guest writes it
 */
static void fuzz_vq_avail(struct fuzz_vq *v, unsigned int qi, uint16_t head)
{
	const struct vuc_queue *q = &v->d.q[qi];
	uint64_t slot;
	uint16_t idx;

	if (!q->num)
		return;
	slot = q->avail + 4 + 2 * (v->avail[qi] % q->num);
	idx = ++v->avail[qi];

	if (slot <= FUZZ_VQ_MEM - 2)
		memcpy(v->mem + slot, &head, 2);
	if (q->avail + 4 <= FUZZ_VQ_MEM) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		memcpy(v->mem + q->avail + 2, &idx, 2);
	}
}

/**
 * fuzz_vq_kick() - notify the relay of a queue, run it
 * @v:		state
 * @qi:		queue
 */
static void fuzz_vq_kick(const struct fuzz_vq *v, unsigned int qi)
{
	uint64_t one = 1;

	if (write(v->d.q[qi].kick, &one, sizeof(one)) < 0)
		return;
	fuzz_pump(2);
}

/**
 * fuzz_vq_scratch() - room in the scratch area
 * @v:		state
 * @n:		bytes wanted, at most FUZZ_VQ_SCRATCH_LEN
 *
 * Return: offset in guest memory
 */
static uint64_t fuzz_vq_scratch(struct fuzz_vq *v, size_t n)
{
	if (v->scratch + n > FUZZ_VQ_SCRATCH_LEN)
		v->scratch = 0;
	v->scratch += n;
	return FUZZ_VQ_SCRATCH + v->scratch - n;
}

/**
 * fuzz_vq_chain() - a whole transmit chain: header, frame, in pieces
 * @v:		state
 */
static void fuzz_vq_chain(struct fuzz_vq *v)
{
	const uint8_t *np = fuzz_vq_take(v, 1), *hdr = fuzz_vq_take(v, 12);
	size_t flen = fuzz_vq_u16(v), len, k, nseg, at = 0;
	uint16_t head = v->next_desc[1];
	const uint8_t *frame;
	uint64_t off;

	if (!np || !hdr)
		return;
	if (flen > v->left)
		flen = v->left;
	frame = fuzz_vq_take(v, flen);
	len = 12 + flen;
	nseg = 1 + (*np & 3);

	off = fuzz_vq_scratch(v, len);
	memcpy(v->mem + off, hdr, 12);
	memcpy(v->mem + off + 12, frame, flen);

	for (k = 0; k < nseg; k++) {
		size_t piece = k + 1 == nseg ? len - at : len / nseg;
		uint16_t i = v->next_desc[1]++ % v->d.q[1].num;

		fuzz_vq_desc(v, 1, i, off + at, (uint32_t)piece,
			     k + 1 < nseg ? 1 /* NEXT */ : 0,
			     (uint16_t)(v->next_desc[1] % v->d.q[1].num));
		at += piece;
	}
	fuzz_vq_avail(v, 1, (uint16_t)(head % v->d.q[1].num));
	fuzz_vq_kick(v, 1);
}

/**
 * fuzz_vq_bufs() - receive buffers in the scratch area, made available
 * @v:		state
 */
static void fuzz_vq_bufs(struct fuzz_vq *v)
{
	const uint8_t *n = fuzz_vq_take(v, 1);
	uint16_t size = fuzz_vq_u16(v);
	unsigned int k;

	if (!n)
		return;
	for (k = 0; k < *n; k++) {
		uint16_t i = v->next_desc[0]++ % v->d.q[0].num;

		fuzz_vq_desc(v, 0, i, fuzz_vq_scratch(v, size), size,
			     2 /* WRITE */, 0);
		fuzz_vq_avail(v, 0, i);
	}
}

/**
 * fuzz_vq_frame() - the relay sends the guest a frame
 * @v:		state
 */
static void fuzz_vq_frame(struct fuzz_vq *v)
{
	static uint8_t frame[FUZZ_VQ_FRAME_MAX];
	struct virtio_net_hdr vh;
	uint16_t len = fuzz_vq_u16(v);
	const uint8_t *fill = fuzz_vq_take(v, 1), *h = fuzz_vq_take(v, 10);
	struct iovec iov[2] = {
		{ .iov_base = &vh, .iov_len = sizeof(vh) },
		{ .iov_base = frame, .iov_len = len },
	};

	if (!fill || !h)
		return;
	memset(frame, *fill, len);
	memcpy(&vh, h, sizeof(vh));
	if (tap_offload(&fuzz_ctx))
		tap_send_frames_vnet(&fuzz_ctx, iov, 1);
	else
		tap_send_frames(&fuzz_ctx, &iov[1], 1, 1);
	fuzz_pump(1);
}

/**
 * fuzz_vq_lend() - the relay writes frames in the guest's own buffers
 * @v:		state
 */
static void fuzz_vq_lend(struct fuzz_vq *v)
{
	static struct tap_lend l;
	const uint8_t *nf = fuzz_vq_take(v, 1);
	uint16_t payload = fuzz_vq_u16(v);
	const uint8_t *fill = fuzz_vq_take(v, 1);
	size_t bytes = fuzz_vq_u16(v), f, i;
	const uint8_t *h = fuzz_vq_take(v, 10);
	struct virtio_net_hdr vh;

	if (!nf || !fill || !h)
		return;
	memcpy(&vh, h, sizeof(vh));

	tap_lend(&fuzz_ctx, &l, *nf % (TAP_LEND_FRAMES + 1),
		 FUZZ_VQ_LEND_ROOM, payload);
	for (f = 0; f < l.frames && bytes; f++) {
		size_t plen = 0;

		memset(l.hdr[f], *fill, FUZZ_VQ_LEND_ROOM);
		for (i = l.first[f]; i < l.first[f + 1] && bytes; i++) {
			size_t n = l.iov[i].iov_len < bytes ?
				   l.iov[i].iov_len : bytes;

			memset(l.iov[i].iov_base, *fill, n);
			plen += n;
			bytes -= n;
		}
		if (!tap_lend_commit(&fuzz_ctx, &l, f,
				     FUZZ_VQ_LEND_ROOM + plen, &vh))
			break;
	}
	tap_lend_end(&fuzz_ctx, &l);
	fuzz_pump(1);
}

/**
 * fuzz_vq_request() - a vhost-user request in the middle of the traffic
 * @v:		state
 * @qi:		queue it is about
 */
static void fuzz_vq_request(struct fuzz_vq *v, unsigned int qi)
{
	const uint8_t *what = fuzz_vq_take(v, 1);
	uint16_t val = fuzz_vq_u16(v);
	uint64_t t[1 + 4] = { 1, FUZZ_VQ_GPA, FUZZ_VQ_MEM, FUZZ_VQ_UVA, 0 };
	uint32_t st[2] = { qi, val };
	uint64_t a[5] = { qi, 0, 0, 0, 0 }, u = qi;
	int fd = v->d.fd, e;

	if (!what)
		return;
	switch (*what & 7) {
	case 0:
		vuc_send(fd, VUC_GET_VRING_BASE, 0, st, sizeof(st), NULL, 0);
		break;
	case 1:
		vuc_send(fd, VUC_SET_VRING_BASE, 0, st, sizeof(st), NULL, 0);
		break;
	case 2:
		st[1] = val & 1;
		vuc_send(fd, VUC_SET_VRING_ENABLE, 0, st, sizeof(st), NULL, 0);
		break;
	case 3:
		vuc_send(fd, VUC_SET_MEM_TABLE, 0, t, sizeof(t), &v->d.memfd,
			 1);
		break;
	case 4:
		st[1] = 1U << (val & 15);
		v->d.q[qi].num = st[1];
		vuc_send(fd, VUC_SET_VRING_NUM, 0, st, sizeof(st), NULL, 0);
		break;
	case 5:
		v->d.q[qi].desc = (uint64_t)val * 8;
		a[1] = FUZZ_VQ_UVA + v->d.q[qi].desc;
		a[2] = FUZZ_VQ_UVA + v->d.q[qi].used;
		a[3] = FUZZ_VQ_UVA + v->d.q[qi].avail;
		vuc_send(fd, VUC_SET_VRING_ADDR, 0, a, sizeof(a), NULL, 0);
		break;
	case 6:
		e = fuzz_vu_eventfd();
		vuc_send(fd, VUC_SET_VRING_KICK, 0, &u, sizeof(u), &e, 1);
		close(v->d.q[qi].kick);
		v->d.q[qi].kick = e;
		break;
	default:
		u = fuzz_vq_features((uint8_t)val);
		vuc_send(fd, VUC_SET_FEATURES, 0, &u, sizeof(u), NULL, 0);
		break;
	}
	fuzz_pump(1);
	fuzz_vu_drain(fd);
}

/**
 * fuzz_vq_op() - one operation of the program
 * @v:		state
 *
 * Return: false at the end of the input
 */
static bool fuzz_vq_op(struct fuzz_vq *v)
{
	const uint8_t *op = fuzz_vq_take(v, 1), *p;
	unsigned int qi, n;
	uint32_t off, len;
	uint16_t flags;

	if (!op)
		return false;
	qi = (*op >> 4) & 1;

	switch (*op & 0xf) {
	case 0:
		off = fuzz_vq_u16(v);
		p = fuzz_vq_take(v, 1);
		off |= p ? (uint32_t)*p << 16 : 0;
		p = fuzz_vq_take(v, 1);
		n = p ? *p : 0;
		if (n > v->left)
			n = (unsigned int)v->left;
		p = fuzz_vq_take(v, n);
		off %= FUZZ_VQ_MEM;
		if (n > FUZZ_VQ_MEM - off)
			n = FUZZ_VQ_MEM - off;
		if (p)
			memcpy(v->mem + off, p, n);
		break;
	case 1:
		n = fuzz_vq_u16(v);
		off = fuzz_vq_u32(v);
		len = fuzz_vq_u32(v);
		flags = fuzz_vq_u16(v);
		fuzz_vq_desc(v, qi, n, off, len, flags, fuzz_vq_u16(v));
		break;
	case 2:
		fuzz_vq_avail(v, qi, fuzz_vq_u16(v));
		break;
	case 3:
		v->avail[qi] = (uint16_t)(fuzz_vq_u16(v) - 1);
		fuzz_vq_avail(v, qi, 0);
		break;
	case 4:
		fuzz_vq_kick(v, qi);
		break;
	case 5:
		fuzz_vq_frame(v);
		break;
	case 6:
		fuzz_pump(1 + ((*op >> 5) & 3));
		break;
	case 7:
		fuzz_vq_request(v, qi);
		break;
	case 8:
		fuzz_vq_chain(v);
		break;
	case 9:
		fuzz_vq_bufs(v);
		break;
	case 10:
		fuzz_vq_lend(v);
		break;
	default:
		break;
	}
	return true;
}

/**
 * LLVMFuzzerTestOneInput() - one connection, one program on its queues
 * @data:	header, then operations
 * @size:	input length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_vq v = { .in = data, .left = size };
	unsigned int ops = 0, qi;

	v.d.fd = fuzz_vu_connect();
	v.d.memfd = fuzz_vu_memfd();
	v.mem = fuzz_vu_mem();
	if (fallocate(v.d.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      0, FUZZ_VQ_MEM))
		memset(v.mem, 0, FUZZ_VQ_MEM);

	if (fuzz_vq_setup(&v)) {
		while (ops++ < FUZZ_VQ_OPS_MAX && fuzz_vq_op(&v))
			fuzz_vu_drain(v.d.fd);
		for (qi = 0; qi < 2; qi++) {
			close(v.d.q[qi].kick);
			close(v.d.q[qi].call);
		}
	}

	fuzz_vu_end(v.d.fd);
	fuzz_tick();
	return 0;
}
