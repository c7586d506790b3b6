/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_virtq.h - guest memory and split virtqueues for the vhost-user backend
 *
 * Theory of operation: with vhost-user, the guest's memory is shared with
 * us (file descriptors passed with VHOST_USER_SET_MEM_TABLE, mapped by
 * vu_mem_map()), and frames travel through virtqueues in that memory
 * (virtio 1.x split rings). This module only touches memory: it
 * translates addresses, takes descriptor chains from the available ring,
 * copies frames in and out, and fills the used ring. The protocol and the
 * eventfds are vhost_user/vhost_user.c's business.
 *
 * Everything in guest memory is hostile: every index, address, length and
 * chain is checked, a bad chain is counted (struct vu_virtq_stats) and
 * given back as used with length 0, and nothing is ever read or written
 * outside the mapped regions.
 */
#ifndef VHOST_USER_VU_VIRTQ_H
#define VHOST_USER_VU_VIRTQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#define VU_MEM_REGIONS_MAX	8	/* VHOST_MEMORY_BASELINE_NREGIONS */
#define VU_QUEUE_SIZE_MAX	1024	/* virtio-net's largest queue */
#define VU_CHAIN_MAX		VU_QUEUE_SIZE_MAX /* descriptors in a chain */

/**
 * struct vu_mem_region - one region of guest memory, mapped
 * @gpa:	guest physical address of its start
 * @size:	length, bytes
 * @uva:	its address in QEMU's process (vring addresses use these)
 * @map:	our mapping of the region's first byte
 * @mmap_base:	what mmap() returned (the mapping starts at the file
 *		offset rounded down), for munmap()
 * @mmap_len:	length of that mapping
 */
struct vu_mem_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint8_t *map;
	void *mmap_base;
	size_t mmap_len;
};

/**
 * struct vu_mem - the guest's memory table
 * @r:		regions
 * @n:		number of regions in use
 */
struct vu_mem {
	struct vu_mem_region r[VU_MEM_REGIONS_MAX];
	unsigned int n;
};

/**
 * struct vu_mem_region_desc - a region as the front-end describes it
 * @gpa:	guest physical address
 * @size:	length, bytes
 * @uva:	QEMU's virtual address
 * @offset:	offset of the region in @fd
 * @fd:		file descriptor of the memory (memfd, hugetlbfs file)
 */
struct vu_mem_region_desc {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t offset;
	int fd;
};

int vu_mem_map(struct vu_mem *m, const struct vu_mem_region_desc *d,
	       unsigned int n);
void vu_mem_unmap(struct vu_mem *m);
void *vu_mem_gpa(const struct vu_mem *m, uint64_t gpa, uint64_t len);
void *vu_mem_uva(const struct vu_mem *m, uint64_t uva, uint64_t len);

/* Dirty page logging (migration): one bit per page of guest memory */
#define VU_LOG_PAGE		4096

/**
 * struct vu_log - the front-end's log of guest pages we wrote (migration)
 * @map:	the log, mapped (shared with the front-end), NULL if none
 * @size:	its length, bytes: it covers guest addresses below
 *		@size * 8 * VU_LOG_PAGE
 * @dirty:	pages were marked since the front-end was last told
 * @missed:	writes the log didn't cover (outside @size), not marked
 *
 * Set up by VHOST_USER_SET_LOG_BASE, used while VHOST_F_LOG_ALL is
 * negotiated: every write to guest memory marks its pages, as the
 * front-end copies marked pages to the migration target again.
 */
struct vu_log {
	uint8_t *map;
	uint64_t size;
	bool dirty;
	uint64_t missed;
};

void vu_log_write(struct vu_log *log, uint64_t gpa, uint64_t len);

/**
 * struct vu_virtq_stats - what a queue saw
 * @frames:	frames taken (TX) or given (RX)
 * @bytes:	their bytes, virtio-net header excluded
 * @bad_chain:	chains refused: index out of range, loop, too long,
 *		address outside guest memory, wrong direction
 * @short_frame:	TX chains with fewer bytes than the virtio-net and
 *		Ethernet headers
 * @long_frame:	TX frames longer than the caller's buffer
 * @bad_avail:	times the guest claimed more available chains than the
 *		ring holds (the ring counted as empty)
 * @no_buffers:	RX frames that found too few available buffers
 * @too_long:	RX frames dropped as longer than the guest's buffers can
 *		ever hold: one chain without mergeable buffers, more than
 *		VU_RX_CHAINS_MAX chains, or the whole ring
 */
struct vu_virtq_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t bad_chain;
	uint64_t short_frame;
	uint64_t long_frame;
	uint64_t bad_avail;
	uint64_t no_buffers;
	uint64_t too_long;
};

/**
 * struct vu_virtq - one split virtqueue
 * @num:		queue size (power of two, at most VU_QUEUE_SIZE_MAX)
 * @desc:		descriptor table, in our mapping
 * @avail:		available ring, in our mapping
 * @used:		used ring, in our mapping
 * @last_avail:		next available-ring index to take
 * @used_idx:		our copy of used->idx
 * @event_idx:		VIRTIO_RING_F_EVENT_IDX was negotiated
 * @mrg_rxbuf:		VIRTIO_NET_F_MRG_RXBUF was negotiated: an RX frame
 *			may span several chains (otherwise it must fit one)
 * @signalled_used:	used->idx at the last vu_virtq_need_notify() (event_idx)
 * @signalled_valid:	@signalled_used is meaningful
 * @started:		rings translated, the queue may be used
 * @log:		dirty page log to mark writes in, NULL if not logging
 * @used_log:		guest address the used ring's writes are logged at
 *			(VHOST_USER_SET_VRING_ADDR), if @log_used
 * @log_used:		log writes to the used ring too (VHOST_VRING_F_LOG)
 * @stats:		counters
 */
struct vu_virtq {
	unsigned int num;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_avail;
	uint16_t used_idx;
	bool event_idx;
	bool mrg_rxbuf;
	uint16_t signalled_used;
	bool signalled_valid;
	bool started;
	struct vu_log *log;
	uint64_t used_log;
	bool log_used;
	struct vu_virtq_stats stats;
};

/* Receive chains one lend may reserve, and frames it may hold */
#define VU_LEND_CHAINS		VU_QUEUE_SIZE_MAX
#define VU_LEND_FRAMES		64

/**
 * struct vu_rx_lend - receive chains reserved for frames written in place
 * @hdrlen:	virtio-net header length, 10 or 12
 * @base:	the available-ring index of the first chain reserved
 * @chains:	chains reserved, from @base on, in ring order
 * @published:	chains of them given back to the guest as used
 * @frames:	frames reserved
 * @head:	head of each chain, as the guest gave it
 * @cap:	bytes each chain takes, as far as it was walked
 * @first:	index in @head of each frame's first chain, and for the frame
 *		after the last one, one past the last chain
 * @vnet:	each frame's virtio-net header: its first buffer, in guest
 *		memory
 */
struct vu_rx_lend {
	size_t hdrlen;
	uint16_t base;
	unsigned int chains;
	unsigned int published;
	unsigned int frames;
	unsigned int head[VU_LEND_CHAINS];
	size_t cap[VU_LEND_CHAINS];
	unsigned int first[VU_LEND_FRAMES + 1];
	uint8_t *vnet[VU_LEND_FRAMES];
};

int vu_virtq_start(struct vu_virtq *vq, const struct vu_mem *m,
		   unsigned int num, uint64_t desc_uva, uint64_t avail_uva,
		   uint64_t used_uva, uint16_t base);
void vu_virtq_stop(struct vu_virtq *vq);
bool vu_virtq_has_avail(struct vu_virtq *vq);
int vu_virtq_pop_frame(struct vu_virtq *vq, const struct vu_mem *m,
		       size_t hdrlen, struct virtio_net_hdr *vh, uint8_t *buf,
		       size_t size, size_t *len);
int vu_virtq_push_frame(struct vu_virtq *vq, const struct vu_mem *m,
			size_t hdrlen, const struct virtio_net_hdr *vh,
			const struct iovec *iov, size_t iovcnt);
void vu_virtq_lend_start(const struct vu_virtq *vq, struct vu_rx_lend *r,
			 size_t hdrlen);
size_t vu_virtq_lend_frame(struct vu_virtq *vq, const struct vu_mem *m,
			   struct vu_rx_lend *r, size_t room, size_t payload,
			   struct iovec *iov, size_t iov_max, uint8_t **hdr);
int vu_virtq_lend_commit(struct vu_virtq *vq, struct vu_rx_lend *r,
			 unsigned int f, size_t len,
			 const struct virtio_net_hdr *vh);
bool vu_virtq_need_notify(struct vu_virtq *vq);
void vu_virtq_notified(struct vu_virtq *vq);
bool vu_virtq_kick_enable(struct vu_virtq *vq, bool on);

#endif /* VHOST_USER_VU_VIRTQ_H */
