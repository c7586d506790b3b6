// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_virtq.c - virtio 1.x split virtqueues in guest memory (vhost-user)
 *
 * Theory of operation
 *
 * A split virtqueue is three areas in guest memory: the descriptor table
 * (num entries: buffer address, length, flags, next), the available ring
 * (the guest's: flags, idx, num descriptor-chain heads, used_event) and
 * the used ring (ours: flags, idx, num {id, len} entries, avail_event).
 * Indices are free-running 16-bit counters, a ring slot is the counter
 * modulo num (a power of two). Everything is little-endian.
 *
 * Ordering: the guest fills descriptors and ring entries, then bumps
 * avail->idx; we read avail->idx, then an acquire fence, then the entries.
 * We write buffers and used entries, then store used->idx with release
 * semantics. Notification decisions (vu_virtq_need_notify(),
 * vu_virtq_kick_enable()) need a full fence between our store and the
 * read of the guest's field, or both sides could decide not to notify.
 * With event indices, each vu_virtq_need_notify() looks at the entries
 * used since its previous call and signals if used_event is among them:
 * counted from the last signal instead, the 16-bit distance wraps after
 * 65536 entries without one, and a signal the guest waits for is lost.
 *
 * The guest is hostile: every field is read once into a local variable
 * (relaxed atomic loads, so the compiler can't read it twice) and checked
 * before use. The available index may not run more than num entries ahead
 * of ours (vu_avail_count(): otherwise the ring counts as empty). A chain
 * is walked by vu_chain_next(): an index must be below num, a chain has
 * at most min(num, VU_CHAIN_MAX) descriptors (which also ends loops),
 * indirect descriptors are refused (never offered), the direction must be
 * the queue's (device-readable for TX, device-writable for RX), and every
 * buffer must lie in one mapped region. A bad chain is counted and given
 * back as used with length 0, so the guest can reuse its descriptors.
 *
 * TX (guest to us, vu_virtq_pop_frame()): one chain is one frame behind a
 * virtio-net header, which is copied out (host order) for the caller to
 * see the guest's offloads, and not into the frame. Each chain is given
 * back at once, also when the frame is dropped: a bad chain, fewer bytes
 * than the virtio-net and Ethernet headers, or more than the caller's
 * buffer (counted to the end of the chain, copied only as far as the
 * buffer goes) cost the guest that frame, never the queue.
 *
 * RX (us to guest, vu_virtq_push_frame()): the virtio-net header (the
 * caller's offload description, little-endian, or zeroes) and the frame
 * are written across as many chains as needed with mergeable receive
 * buffers, into one chain without, and the header's num_buffers tells the
 * guest how many. Every chain is written up to its descriptors' lengths,
 * never past them. Chains are filled as they are walked, but nothing is
 * published (no used entry, no used->idx, no last_avail change) until the
 * whole frame is in: if the guest gave too few buffers, the frame is
 * refused with -EAGAIN and the ring is as it was, so the same frame can
 * be pushed again later, once. A frame that can never fit (one chain
 * without mergeable buffers, more than VU_RX_CHAINS_MAX chains, or every
 * descriptor of the ring) is refused with -EINVAL, nothing published. A
 * bad chain found while filling drops the frame: it and the chains before
 * it (already taken in ring order, so they can't be skipped) are given
 * back with length 0.
 *
 * RX in place (vu_virtq_lend_frame(), vu_virtq_lend_commit()): instead of
 * copying a frame in, the caller may reserve chains for it and have its
 * payload read straight into them. Reserving walks and checks the chains
 * from the available ring as pushing would, and gives the caller the
 * frame's header area (behind the virtio-net header, in the first buffer,
 * in one piece) and its payload areas, but publishes nothing. Committing
 * a frame, in order, writes the virtio-net header and num_buffers and
 * publishes the chains its bytes took; reserved chains that were never
 * committed simply stay the ring's next ones. Reservations all come
 * before the first commit, which is what lets a frame's chain indices be
 * counted from where the reservation started.
 *
 * Dirty page logging, during a migration (vq->log set): every write to
 * guest memory marks the pages it touched in the front-end's log, so that
 * they are copied to the target again. Receive buffers are marked as
 * they are written (published or not: the memory changed either way), and
 * so is the used ring, at the guest address the front-end gave for it,
 * when it asked for that (vq->log_used).
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "vu_virtq.h"

/* Chains (receive buffers) one RX frame may use: 64 KiB frames in
 * buffers of at least ~1.5 KiB, as guests post, fit comfortably
 */
#define VU_RX_CHAINS_MAX	64

/* Offset of num_buffers in the virtio-net header (mergeable buffers) */
#define VU_HDR_NUM_BUFFERS	10
/* Longest virtio-net header: struct virtio_net_hdr_mrg_rxbuf */
#define VU_HDR_MAX		12
/* Length of the offload fields: struct virtio_net_hdr */
#define VU_HDR_OFFLOAD		10

/* Ethernet header: the shortest frame a guest may send */
#define VU_FRAME_MIN		14

/**
 * struct vu_chain - position while walking a descriptor chain
 * @next:	index of the next descriptor to read
 * @left:	descriptors we may still read
 * @end:	the last descriptor was read
 * @gpa:	guest address of the buffer vu_chain_next() returned last
 */
struct vu_chain {
	unsigned int next;
	unsigned int left;
	bool end;
	uint64_t gpa;
};

/**
 * vu_log_write() - mark the pages of a write to guest memory as dirty
 * @log:	the front-end's log
 * @gpa:	guest address written
 * @len:	bytes written
 */
void vu_log_write(struct vu_log *log, uint64_t gpa, uint64_t len)
{
	uint64_t page, last;

	if (!log->map || !len)
		return;

	last = (gpa + len - 1) / VU_LOG_PAGE;
	if (last < gpa / VU_LOG_PAGE || last / 8 >= log->size) {
		log->missed++;
		return;
	}
	for (page = gpa / VU_LOG_PAGE; page <= last; page++)
		__atomic_fetch_or(&log->map[page / 8],
				  (uint8_t)(1U << (page % 8)),
				  __ATOMIC_RELAXED);
	log->dirty = true;
}

/**
 * vu_log_used() - mark a write to the used ring, if the front-end asked
 * @vq:		queue, started
 * @p:		what was written, in our mapping of the used ring
 * @len:	bytes written
 */
static void vu_log_used(const struct vu_virtq *vq, const void *p, size_t len)
{
	if (vq->log && vq->log_used)
		vu_log_write(vq->log, vq->used_log + (uint64_t)
			     ((const uint8_t *)p - (const uint8_t *)vq->used),
			     len);
}

/**
 * vu_load16() - read a 16-bit little-endian field the guest may change
 * @p:		field in guest memory
 *
 * Return: value, host order
 */
static uint16_t vu_load16(const uint16_t *p)
{
	return le16toh(__atomic_load_n(p, __ATOMIC_RELAXED));
}

/**
 * vu_avail_idx() - read avail->idx, then order the reads of entries after
 * @vq:		queue, started
 *
 * Return: the guest's available index
 */
static uint16_t vu_avail_idx(const struct vu_virtq *vq)
{
	uint16_t idx = vu_load16(&vq->avail->idx);

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return idx;
}

/**
 * vu_avail_count() - how many chains the guest made available
 * @vq:		queue, started
 *
 * A guest can't have more chains available than the ring has slots: a
 * larger count is a broken (or hostile) driver, and taking what it claims
 * would mean reading the same slots again and again, up to 65535 chains
 * per kick. Such a ring counts as empty as long as the count is
 * impossible (a device reset through the front-end starts it again at a
 * sane index): stats.bad_avail.
 *
 * Return: chains available, 0 if none or if the count is impossible
 */
static uint16_t vu_avail_count(struct vu_virtq *vq)
{
	uint16_t n = vu_avail_idx(vq) - vq->last_avail;

	if (n <= vq->num)
		return n;
	vq->stats.bad_avail++;
	return 0;
}

/**
 * vu_avail_head() - read a chain head from the available ring
 * @vq:		queue, started
 * @i:		available-ring counter (not reduced modulo num)
 *
 * Return: descriptor index as the guest wrote it, not checked
 */
static unsigned int vu_avail_head(const struct vu_virtq *vq, uint16_t i)
{
	return vu_load16(&vq->avail->ring[i & (vq->num - 1)]);
}

/**
 * vu_used_put() - fill the next used-ring entry, without publishing it
 * @vq:		queue, started
 * @k:		entry after the last published one (0 for the next)
 * @head:	head of the chain given back
 * @len:	bytes written into the chain
 */
static void vu_used_put(struct vu_virtq *vq, uint16_t k, unsigned int head,
			uint32_t len)
{
	struct vring_used_elem *e;

	e = &vq->used->ring[(uint16_t)(vq->used_idx + k) & (vq->num - 1)];
	e->id = htole32(head);
	e->len = htole32(len);
	vu_log_used(vq, e, sizeof(*e));
}

/**
 * vu_used_publish() - publish used entries and take their chains
 * @vq:		queue, started
 * @k:		entries filled by vu_used_put()
 *
 * The chains came from the available ring in order, so last_avail moves
 * on by as many.
 */
static void vu_used_publish(struct vu_virtq *vq, uint16_t k)
{
	vq->used_idx += k;
	vq->last_avail += k;
	__atomic_store_n(&vq->used->idx, htole16(vq->used_idx),
			 __ATOMIC_RELEASE);
	vu_log_used(vq, &vq->used->idx, sizeof(vq->used->idx));
}

/**
 * vu_chain_start() - start walking a chain
 * @vq:		queue, started
 * @c:		walk state to initialise
 * @head:	head index as the guest gave it (checked by vu_chain_next())
 */
static void vu_chain_start(const struct vu_virtq *vq, struct vu_chain *c,
			   unsigned int head)
{
	c->next = head;
	c->left = vq->num < VU_CHAIN_MAX ? vq->num : VU_CHAIN_MAX;
	c->end = false;
}

/**
 * vu_chain_next() - take the next buffer of a chain, checked
 * @vq:		queue, started
 * @m:		guest memory
 * @c:		walk state
 * @write:	buffers must be device-writable (RX), not readable (TX)
 * @p:		set to the buffer, in our mapping
 * @len:	set to its length
 *
 * Return: 1 with a buffer, 0 at the end of the chain, -1 if the chain is
 *	   bad (index out of range, too long, indirect, wrong direction,
 *	   buffer outside guest memory)
 */
static int vu_chain_next(const struct vu_virtq *vq, const struct vu_mem *m,
			 struct vu_chain *c, bool write, uint8_t **p,
			 uint32_t *len)
{
	const struct vring_desc *d;
	uint16_t flags;
	uint64_t addr;

	if (c->end)
		return 0;

	if (c->next >= vq->num || !c->left)
		return -1;
	c->left--;

	d = &vq->desc[c->next];
	addr = le64toh(__atomic_load_n(&d->addr, __ATOMIC_RELAXED));
	*len = le32toh(__atomic_load_n(&d->len, __ATOMIC_RELAXED));
	flags = vu_load16(&d->flags);
	c->next = vu_load16(&d->next);

	if (flags & VRING_DESC_F_INDIRECT)
		return -1;
	if (!!(flags & VRING_DESC_F_WRITE) != write)
		return -1;

	*p = vu_mem_gpa(m, addr, *len);
	if (!*p)
		return -1;
	c->gpa = addr;

	if (!(flags & VRING_DESC_F_NEXT))
		c->end = true;

	return 1;
}

/**
 * vu_virtq_start() - translate the rings of a queue and start it
 * @vq:		queue (event_idx as negotiated, other fields set here)
 * @m:		guest memory
 * @num:	queue size, a power of two up to VU_QUEUE_SIZE_MAX
 * @desc_uva:	descriptor table, front-end address
 * @avail_uva:	available ring, front-end address
 * @used_uva:	used ring, front-end address
 * @base:	first available-ring index to take (VHOST_USER_SET_VRING_BASE)
 *
 * Return: 0 on success, -EINVAL (and the queue is stopped) if the size is
 *	   bad or a ring is misaligned or not entirely in one region
 */
int vu_virtq_start(struct vu_virtq *vq, const struct vu_mem *m,
		   unsigned int num, uint64_t desc_uva, uint64_t avail_uva,
		   uint64_t used_uva, uint16_t base)
{
	void *desc, *avail, *used;

	vq->started = false;

	if (!num || num > VU_QUEUE_SIZE_MAX || (num & (num - 1)))
		return -EINVAL;

	if (desc_uva % VRING_DESC_ALIGN_SIZE ||
	    avail_uva % VRING_AVAIL_ALIGN_SIZE ||
	    used_uva % VRING_USED_ALIGN_SIZE)
		return -EINVAL;

	desc = vu_mem_uva(m, desc_uva, sizeof(struct vring_desc) * num);
	avail = vu_mem_uva(m, avail_uva, 4 + 2 * num + 2);
	used = vu_mem_uva(m, used_uva,
			  4 + sizeof(struct vring_used_elem) * num + 2);
	if (!desc || !avail || !used)
		return -EINVAL;

	/* Our mapping could shift the alignment if the front-end's offsets
	 * and addresses disagree: we access these fields atomically
	 */
	if ((uintptr_t)desc % VRING_DESC_ALIGN_SIZE ||
	    (uintptr_t)avail % VRING_AVAIL_ALIGN_SIZE ||
	    (uintptr_t)used % VRING_USED_ALIGN_SIZE)
		return -EINVAL;

	vq->num = num;
	vq->desc = desc;
	vq->avail = avail;
	vq->used = used;
	/* The next used entry goes where the used ring in memory says, as
	 * the specification asks (the rings may come from another back-end,
	 * migrated); this device gives chains back in order, so it equals
	 * @base unless the guest wrote over it
	 */
	vq->last_avail = base;
	vq->used_idx = vu_load16(&((const struct vring_used *)used)->idx);
	vq->signalled_valid = false;
	vq->started = true;
	return 0;
}

/**
 * vu_virtq_stop() - stop using a queue
 * @vq:		queue, last_avail is kept for VHOST_USER_GET_VRING_BASE
 */
void vu_virtq_stop(struct vu_virtq *vq)
{
	vq->started = false;
}

/**
 * vu_virtq_has_avail() - check whether the guest made chains available
 * @vq:		queue
 *
 * Return: true if the queue is started and has chains we did not take
 *	   (none if the guest claims more than the ring holds)
 */
bool vu_virtq_has_avail(struct vu_virtq *vq)
{
	if (!vq->started)
		return false;

	return vu_avail_count(vq) != 0;
}

/**
 * vu_hdr_get() - offload fields of a virtio-net header, host order
 * @h:		header as read from guest memory (little-endian)
 * @vh:		filled
 */
static void vu_hdr_get(const uint8_t *h, struct virtio_net_hdr *vh)
{
	vh->flags = h[0];
	vh->gso_type = h[1];
	vh->hdr_len = (uint16_t)(h[2] | h[3] << 8);
	vh->gso_size = (uint16_t)(h[4] | h[5] << 8);
	vh->csum_start = (uint16_t)(h[6] | h[7] << 8);
	vh->csum_offset = (uint16_t)(h[8] | h[9] << 8);
}

/**
 * vu_hdr_put() - write offload fields as a little-endian header
 * @vh:		offload description, host order; NULL for none (zeroes)
 * @h:		header, at least VU_HDR_OFFLOAD bytes
 */
static void vu_hdr_put(const struct virtio_net_hdr *vh, uint8_t *h)
{
	if (!vh) {
		memset(h, 0, VU_HDR_OFFLOAD);
		return;
	}

	h[0] = vh->flags;
	h[1] = vh->gso_type;
	h[2] = (uint8_t)vh->hdr_len;
	h[3] = (uint8_t)(vh->hdr_len >> 8);
	h[4] = (uint8_t)vh->gso_size;
	h[5] = (uint8_t)(vh->gso_size >> 8);
	h[6] = (uint8_t)vh->csum_start;
	h[7] = (uint8_t)(vh->csum_start >> 8);
	h[8] = (uint8_t)vh->csum_offset;
	h[9] = (uint8_t)(vh->csum_offset >> 8);
}

/**
 * vu_virtq_pop_frame() - take one frame the guest sent (TX queue)
 * @vq:		queue
 * @m:		guest memory
 * @hdrlen:	virtio-net header length, not copied into @buf
 * @vh:		set to the header's offload fields (host order; zeroes if
 *		the chain is too short for them), NULL if not needed
 * @buf:	buffer for the frame
 * @size:	size of @buf
 * @len:	set to the frame's length: what was copied, or for a frame
 *		too long for @buf, what the chain holds (nothing copied
 *		past @size)
 *
 * The chain is given back as used (length 0) in any case: a bad one
 * costs the guest that frame only.
 *
 * Return: 1 with a frame of at least an Ethernet header, 0 if nothing is
 *	   available or the queue is stopped; -EINVAL for a bad chain
 *	   (stats.bad_chain), -EBADMSG for a chain shorter than the
 *	   virtio-net and Ethernet headers (stats.short_frame), -EMSGSIZE
 *	   for a frame longer than @size (stats.long_frame)
 */
int vu_virtq_pop_frame(struct vu_virtq *vq, const struct vu_mem *m,
		       size_t hdrlen, struct virtio_net_hdr *vh, uint8_t *buf,
		       size_t size, size_t *len)
{
	uint8_t h[VU_HDR_MAX] = { 0 };
	size_t skip = hdrlen, n = 0;
	struct vu_chain c;
	unsigned int head;
	uint32_t dlen;
	uint8_t *p;
	int rc;

	*len = 0;
	if (vh)
		memset(vh, 0, sizeof(*vh));

	if (!vq->started || !vu_avail_count(vq))
		return 0;

	head = vu_avail_head(vq, vq->last_avail);
	vu_chain_start(vq, &c, head);

	while ((rc = vu_chain_next(vq, m, &c, false, &p, &dlen)) > 0) {
		size_t at = hdrlen - skip, k;

		/* Header bytes: keep the ones we know, skip them all */
		for (k = 0; k < skip && k < dlen && at + k < sizeof(h); k++)
			h[at + k] = p[k];

		if (skip >= dlen) {
			skip -= dlen;
			continue;
		}

		p += skip;
		dlen -= skip;
		skip = 0;

		/* Too long: count the rest, copy nothing more */
		if (n <= size && dlen <= size - n)
			memcpy(buf + n, p, dlen);
		n += dlen;
	}

	vu_used_put(vq, 0, head, 0);
	vu_used_publish(vq, 1);

	*len = n;
	if (rc < 0) {
		vq->stats.bad_chain++;
		return -EINVAL;
	}
	if (n > size) {
		vq->stats.long_frame++;
		return -EMSGSIZE;
	}
	if (n < VU_FRAME_MIN) {
		vq->stats.short_frame++;
		return -EBADMSG;
	}

	if (vh && hdrlen >= VU_HDR_OFFLOAD)
		vu_hdr_get(h, vh);

	vq->stats.frames++;
	vq->stats.bytes += n;
	return 1;
}

/**
 * struct vu_rx_src - what is left to write of an RX header and frame
 * @iov:	frame buffers
 * @iovcnt:	number of entries in @iov
 * @i:		current entry
 * @off:	offset in the current entry
 * @hdrlen:	virtio-net header length, at most VU_HDR_MAX
 * @hdr:	the header, little-endian, num_buffers still zero
 * @pos:	bytes of header and frame written so far
 * @total:	header and frame length
 * @nb:		the two bytes of num_buffers in guest memory, once written
 */
struct vu_rx_src {
	const struct iovec *iov;
	size_t iovcnt;
	size_t i;
	size_t off;
	size_t hdrlen;
	uint8_t hdr[VU_HDR_MAX];
	size_t pos;
	size_t total;
	uint8_t *nb[2];
};

/**
 * vu_rx_hdr() - write part of the virtio-net header into a buffer
 * @s:		source state, @pos below @hdrlen
 * @p:		buffer in guest memory
 * @len:	room in @p
 *
 * Return: bytes written
 */
static size_t vu_rx_hdr(struct vu_rx_src *s, uint8_t *p, size_t len)
{
	size_t n = s->hdrlen - s->pos, b;

	if (n > len)
		n = len;

	memcpy(p, s->hdr + s->pos, n);

	if (s->hdrlen >= VU_HDR_NUM_BUFFERS + 2) {
		for (b = 0; b < 2; b++) {
			size_t at = VU_HDR_NUM_BUFFERS + b;

			if (at >= s->pos && at < s->pos + n)
				s->nb[b] = p + (at - s->pos);
		}
	}

	return n;
}

/**
 * vu_rx_data() - copy part of the frame into a buffer
 * @s:		source state, @pos at or past @hdrlen
 * @p:		buffer in guest memory
 * @len:	room in @p
 *
 * Return: bytes written
 */
static size_t vu_rx_data(struct vu_rx_src *s, uint8_t *p, size_t len)
{
	size_t done = 0;

	while (done < len && s->i < s->iovcnt) {
		const struct iovec *v = &s->iov[s->i];
		size_t n = v->iov_len - s->off;

		if (n > len - done)
			n = len - done;

		memcpy(p + done, (const uint8_t *)v->iov_base + s->off, n);
		done += n;
		s->off += n;

		if (s->off == v->iov_len) {
			s->i++;
			s->off = 0;
		}
	}

	return done;
}

/**
 * vu_rx_fill() - write as much of the header and frame as fits a chain
 * @vq:		queue, started
 * @m:		guest memory
 * @head:	chain head as the guest gave it
 * @s:		source state, advanced
 * @ndesc:	incremented by the number of descriptors walked
 *
 * Return: bytes written into the chain, -1 if the chain is bad
 */
static int64_t vu_rx_fill(const struct vu_virtq *vq, const struct vu_mem *m,
			  unsigned int head, struct vu_rx_src *s,
			  unsigned int *ndesc)
{
	int64_t written = 0;
	unsigned int left0;
	struct vu_chain c;
	uint32_t len;
	uint8_t *p;
	int rc;

	vu_chain_start(vq, &c, head);
	left0 = c.left;

	while ((rc = vu_chain_next(vq, m, &c, true, &p, &len)) > 0) {
		uint64_t gpa = c.gpa;

		while (len && s->pos < s->total) {
			size_t n;

			if (s->pos < s->hdrlen)
				n = vu_rx_hdr(s, p, len);
			else
				n = vu_rx_data(s, p, len);
			if (!n)
				return -1;	/* iov shorter than counted */

			if (vq->log)
				vu_log_write(vq->log, gpa, n);
			p += n;
			gpa += n;
			len -= n;
			s->pos += n;
			written += n;
		}

		if (s->pos == s->total)
			break;
	}

	*ndesc += left0 - c.left;
	if (rc < 0)
		return -1;

	return written;
}

/**
 * vu_virtq_push_frame() - give a frame to the guest (RX queue)
 * @vq:		queue
 * @m:		guest memory
 * @hdrlen:	virtio-net header length, 10 or 12 (num_buffers set if 12)
 * @vh:		offload description for the header (host order), NULL for
 *		a plain frame (header all zeroes but num_buffers)
 * @iov:	frame, in pieces
 * @iovcnt:	number of pieces
 *
 * Return: 0 on success, -EAGAIN if the guest gave too few buffers (or the
 *	   queue is stopped): nothing was published, try again after a
 *	   kick; -EINVAL if the frame was dropped: a bad chain (given back
 *	   with length 0, with the chains taken before it), an empty frame,
 *	   a bad header length, or a frame that can never fit (counted in
 *	   stats.too_long, nothing published)
 */
int vu_virtq_push_frame(struct vu_virtq *vq, const struct vu_mem *m,
			size_t hdrlen, const struct virtio_net_hdr *vh,
			const struct iovec *iov, size_t iovcnt)
{
	struct vu_rx_src s = { .iov = iov, .iovcnt = iovcnt, .hdrlen = hdrlen };
	unsigned int heads[VU_RX_CHAINS_MAX], ndesc = 0;
	uint32_t lens[VU_RX_CHAINS_MAX];
	uint16_t avail, k, j;
	size_t frame = 0, i;

	if (hdrlen < VU_HDR_OFFLOAD || hdrlen > VU_HDR_MAX)
		return -EINVAL;
	vu_hdr_put(vh, s.hdr);

	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > SIZE_MAX - hdrlen - frame)
			return -EINVAL;
		frame += iov[i].iov_len;
	}
	if (!frame)
		return -EINVAL;
	s.total = hdrlen + frame;

	if (!vq->started) {
		vq->stats.no_buffers++;
		return -EAGAIN;
	}

	avail = vu_avail_count(vq);

	for (k = 0; s.pos < s.total; k++) {
		int64_t n;

		/* Can never fit: one chain only, too many chains, or the
		 * whole ring is ours and not enough
		 */
		if ((k && !vq->mrg_rxbuf) || k == VU_RX_CHAINS_MAX ||
		    ndesc >= vq->num) {
			vq->stats.too_long++;
			return -EINVAL;
		}
		if (k == avail) {
			vq->stats.no_buffers++;
			return -EAGAIN;
		}

		heads[k] = vu_avail_head(vq, vq->last_avail + k);
		n = vu_rx_fill(vq, m, heads[k], &s, &ndesc);
		if (n < 0) {
			for (j = 0; j <= k; j++)
				vu_used_put(vq, j, heads[j], 0);
			vu_used_publish(vq, k + 1);
			vq->stats.bad_chain++;
			return -EINVAL;
		}
		lens[k] = (uint32_t)n;
	}

	if (s.nb[0] && s.nb[1]) {
		*s.nb[0] = k & 0xff;
		*s.nb[1] = k >> 8;
	}

	for (j = 0; j < k; j++)
		vu_used_put(vq, j, heads[j], lens[j]);
	vu_used_publish(vq, k);

	vq->stats.frames++;
	vq->stats.bytes += frame;
	return 0;
}

/**
 * vu_virtq_lend_start() - start reserving receive chains (RX queue)
 * @vq:		queue
 * @r:		reservation, reset here
 * @hdrlen:	virtio-net header length, 10 or 12 (num_buffers set if 12)
 */
void vu_virtq_lend_start(const struct vu_virtq *vq, struct vu_rx_lend *r,
			 size_t hdrlen)
{
	r->hdrlen = hdrlen;
	r->base = vq->last_avail;
	r->chains = 0;
	r->published = 0;
	r->frames = 0;
	r->first[0] = 0;
}

/**
 * vu_lend_area() - add the part of a buffer the payload may use to the iov
 * @p:		buffer, or what follows the headers in the frame's first one
 * @len:	its length
 * @left:	payload bytes still without a buffer, decreased here
 * @iov:	payload areas of the frame
 * @n:		entries of @iov used, increased here
 * @iov_max:	entries @iov has
 *
 * Return: 0 on success, -1 if @iov is full
 */
static int vu_lend_area(uint8_t *p, size_t len, size_t *left,
			struct iovec *iov, size_t *n, size_t iov_max)
{
	size_t take = len < *left ? len : *left;

	if (!take)
		return 0;
	if (*n == iov_max)
		return -1;
	iov[*n].iov_base = p;
	iov[*n].iov_len = take;
	(*n)++;
	*left -= take;
	return 0;
}

/**
 * vu_virtq_lend_frame() - reserve receive chains for one more frame
 * @vq:		queue, with no chain published since vu_virtq_lend_start()
 * @m:		guest memory
 * @r:		reservation
 * @room:	bytes of frame headers (Ethernet on) the frame's first buffer
 *		must hold, in one piece, behind the virtio-net header
 * @payload:	payload bytes the frame may carry after them
 * @iov:	set to the payload areas, in guest memory
 * @iov_max:	entries @iov has
 * @hdr:	set to the frame's header area, @room bytes in guest memory
 *
 * The chains stay available to the guest's ring (nothing is published)
 * until vu_virtq_lend_commit() gives them back as used; a frame never
 * committed leaves them for the next frame, lent or copied. Not while
 * writes to guest memory are logged (a migration): those go through
 * vu_virtq_push_frame().
 *
 * Return: entries of @iov used, 0 if the frame can't be reserved: too few
 *	   buffers, a first buffer too short, a bad chain, a limit reached
 *	   (@iov_max, VU_LEND_CHAINS, VU_LEND_FRAMES, VU_RX_CHAINS_MAX, one
 *	   chain a frame without mergeable buffers)
 */
size_t vu_virtq_lend_frame(struct vu_virtq *vq, const struct vu_mem *m,
			   struct vu_rx_lend *r, size_t room, size_t payload,
			   struct iovec *iov, size_t iov_max, uint8_t **hdr)
{
	unsigned int k0 = r->chains, k = r->chains;
	size_t left = payload, n = 0;
	uint16_t avail;

	if (!vq->started || vq->log || r->published ||
	    r->frames == VU_LEND_FRAMES || !payload)
		return 0;
	avail = vu_avail_count(vq);

	while (left) {
		struct vu_chain c;
		uint32_t len;
		uint8_t *p;
		int rc = 0;

		if (k == avail || k == VU_LEND_CHAINS ||
		    k - k0 == VU_RX_CHAINS_MAX || (k > k0 && !vq->mrg_rxbuf))
			return 0;

		r->head[k] = vu_avail_head(vq, (uint16_t)(r->base + k));
		r->cap[k] = 0;
		vu_chain_start(vq, &c, r->head[k]);
		while (left && (rc = vu_chain_next(vq, m, &c, true, &p,
						   &len)) > 0) {
			size_t skip = 0;

			if (k == k0 && !r->cap[k]) {
				/* Headers: virtio-net, then the frame's */
				if (len < r->hdrlen + room)
					return 0;
				r->vnet[r->frames] = p;
				*hdr = p + r->hdrlen;
				skip = r->hdrlen + room;
			}
			r->cap[k] += len;
			if (vu_lend_area(p + skip, len - skip, &left, iov, &n,
					 iov_max))
				return 0;
		}
		if (left && rc < 0)
			return 0;
		if (!r->cap[k])
			return 0;	/* a chain of empty buffers */
		k++;
	}

	r->chains = k;
	r->frames++;
	r->first[r->frames] = k;
	return n;
}

/**
 * vu_virtq_lend_commit() - give a frame written in place to the guest
 * @vq:		queue
 * @r:		reservation
 * @f:		frame, in reservation order: all frames before it committed,
 *		and filled (only the last committed frame may be shorter)
 * @len:	frame length, from its Ethernet header
 * @vh:		offload description for the header (host order), NULL for
 *		none
 *
 * Return: 0 on success, -EINVAL if the frame can't be given: out of
 *	   order, after a shorter frame, longer than its chains, or the
 *	   queue stopped meanwhile (nothing published)
 */
int vu_virtq_lend_commit(struct vu_virtq *vq, struct vu_rx_lend *r,
			 unsigned int f, size_t len,
			 const struct virtio_net_hdr *vh)
{
	size_t left = r->hdrlen + len;
	uint8_t h[VU_HDR_MAX];
	unsigned int k, j;

	if (!vq->started || f >= r->frames || r->first[f] != r->published)
		return -EINVAL;

	for (k = r->first[f], j = 0; left && k < r->first[f + 1]; k++, j++) {
		uint32_t n = (uint32_t)(r->cap[k] < left ? r->cap[k] : left);

		vu_used_put(vq, (uint16_t)j, r->head[k], n);
		left -= n;
	}
	if (left)
		return -EINVAL;

	vu_hdr_put(vh, h);
	if (r->hdrlen >= VU_HDR_NUM_BUFFERS + 2) {
		h[VU_HDR_NUM_BUFFERS] = j & 0xff;
		h[VU_HDR_NUM_BUFFERS + 1] = (uint8_t)(j >> 8);
	}
	memcpy(r->vnet[f], h, r->hdrlen);

	vu_used_publish(vq, (uint16_t)j);
	r->published += j;
	vq->stats.frames++;
	vq->stats.bytes += len;
	return 0;
}

/**
 * vu_virtq_need_notify() - check whether the guest wants an interrupt now
 * @vq:		queue, after a batch of pushes or pops
 *
 * Return: true if the caller should signal the call eventfd
 */
bool vu_virtq_need_notify(struct vu_virtq *vq)
{
	bool notify;

	if (!vq->started)
		return false;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	if (!vq->event_idx) {
		uint16_t flags = vu_load16(&vq->avail->flags);

		notify = !(flags & VRING_AVAIL_F_NO_INTERRUPT);
	} else {
		uint16_t event = vu_load16(&vq->avail->ring[vq->num]);
		uint16_t new = vq->used_idx, old = vq->signalled_used;

		/* Entries [old, new) were used since the last check: the
		 * guest wants to hear if one of them is at used_event
		 */
		notify = !vq->signalled_valid ||
			 (uint16_t)(new - event - 1) < (uint16_t)(new - old);
		vq->signalled_used = new;
		vq->signalled_valid = true;
	}

	return notify;
}

/**
 * vu_virtq_notified() - the guest was signalled regardless of what it asked
 * @vq:		queue
 *
 * It looks at every used entry so far: event index bookkeeping restarts
 * from here.
 */
void vu_virtq_notified(struct vu_virtq *vq)
{
	vq->signalled_used = vq->used_idx;
	vq->signalled_valid = true;
}

/**
 * vu_virtq_kick_enable() - ask the guest for kicks, or to stop sending them
 * @vq:		queue
 * @on:		true to ask for kicks, false to suppress them
 *
 * Return: with @on, true if chains are available already (they may have
 *	   arrived before the guest saw our request: the caller takes them
 *	   instead of waiting); false otherwise
 */
bool vu_virtq_kick_enable(struct vu_virtq *vq, bool on)
{
	uint16_t *avail_event;
	uint16_t flags;

	if (!vq->started)
		return false;

	flags = le16toh(vq->used->flags);

	if (!on) {
		if (!vq->event_idx) {
			flags |= VRING_USED_F_NO_NOTIFY;
			__atomic_store_n(&vq->used->flags, htole16(flags),
					 __ATOMIC_RELAXED);
			vu_log_used(vq, &vq->used->flags,
				    sizeof(vq->used->flags));
		}
		return false;
	}

	flags &= ~VRING_USED_F_NO_NOTIFY;
	__atomic_store_n(&vq->used->flags, htole16(flags), __ATOMIC_RELAXED);
	vu_log_used(vq, &vq->used->flags, sizeof(vq->used->flags));

	/* Kick on the next chain the guest adds: its index is avail->idx,
	 * not last_avail, as chains may be there that we can't use yet (too
	 * few receive buffers for a frame)
	 */
	if (vq->event_idx) {
		avail_event = (uint16_t *)&vq->used->ring[vq->num];
		__atomic_store_n(avail_event, htole16(vu_avail_idx(vq)),
				 __ATOMIC_RELAXED);
		vu_log_used(vq, avail_event, sizeof(*avail_event));
	}

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return vu_virtq_has_avail(vq);
}
