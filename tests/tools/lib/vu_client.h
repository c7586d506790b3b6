/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_client.h - the front-end side of vhost-user, for tests
 *
 * Theory of operation: what QEMU does on a vhost-user socket, written
 * from the vhost-user specification, for the test tools (vu_bridge) and
 * the fuzz targets: messages (a 12-byte header, the payload, descriptors
 * as SCM_RIGHTS), replies, REPLY_ACK statuses, and the whole set-up of a
 * device with one memory region and two split virtqueues. Nothing here
 * knows the relay's code: it speaks the protocol only. The socket must be
 * blocking (a receive timeout keeps a silent back-end from hanging us).
 */
#ifndef TESTS_TOOLS_LIB_VU_CLIENT_H
#define TESTS_TOOLS_LIB_VU_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Requests (vhost-user specification) */
#define VUC_GET_FEATURES		1
#define VUC_SET_FEATURES		2
#define VUC_SET_OWNER			3
#define VUC_RESET_OWNER			4
#define VUC_SET_MEM_TABLE		5
#define VUC_SET_LOG_BASE		6
#define VUC_SET_VRING_NUM		8
#define VUC_SET_VRING_ADDR		9
#define VUC_SET_VRING_BASE		10
#define VUC_GET_VRING_BASE		11
#define VUC_SET_VRING_KICK		12
#define VUC_SET_VRING_CALL		13
#define VUC_SET_VRING_ERR		14
#define VUC_GET_PROTOCOL_FEATURES	15
#define VUC_SET_PROTOCOL_FEATURES	16
#define VUC_GET_QUEUE_NUM		17
#define VUC_SET_VRING_ENABLE		18
#define VUC_SEND_RARP			19
#define VUC_NET_SET_MTU			20
#define VUC_RESET_DEVICE		34
#define VUC_SET_DEVICE_STATE_FD		42
#define VUC_CHECK_DEVICE_STATE		43

/* SET_DEVICE_STATE_FD: direction, phase, and the reply's "no descriptor
 * back" flag (bits 0-7 are the status)
 */
#define VUC_TRANSFER_SAVE		0
#define VUC_TRANSFER_LOAD		1
#define VUC_TRANSFER_STOPPED		0
#define VUC_TRANSFER_NOFD		(1ULL << 8)

/* Header flags */
#define VUC_VERSION			0x1U
#define VUC_FLAG_REPLY			(1U << 2)
#define VUC_FLAG_NEED_REPLY		(1U << 3)

/* SET_VRING_KICK/CALL/ERR: no descriptor comes with it */
#define VUC_VRING_NOFD			(1ULL << 8)

/* Feature bits */
#define VUC_F_CSUM			(1ULL << 0)
#define VUC_F_GUEST_CSUM		(1ULL << 1)
#define VUC_F_GUEST_TSO4		(1ULL << 7)
#define VUC_F_GUEST_TSO6		(1ULL << 8)
#define VUC_F_HOST_TSO4			(1ULL << 11)
#define VUC_F_HOST_TSO6			(1ULL << 12)
#define VUC_F_MRG_RXBUF			(1ULL << 15)
#define VUC_F_LOG_ALL			(1ULL << 26)
#define VUC_F_EVENT_IDX			(1ULL << 29)
#define VUC_F_PROTOCOL_FEATURES		(1ULL << 30)
#define VUC_F_VERSION_1			(1ULL << 32)
#define VUC_F_OFFLOADS			(VUC_F_CSUM | VUC_F_GUEST_CSUM |    \
					 VUC_F_GUEST_TSO4 |		    \
					 VUC_F_GUEST_TSO6 |		    \
					 VUC_F_HOST_TSO4 | VUC_F_HOST_TSO6)
#define VUC_PF_LOG_SHMFD		(1ULL << 1)
#define VUC_PF_REPLY_ACK		(1ULL << 3)
#define VUC_PF_DEVICE_STATE		(1ULL << 19)

/* Bytes of guest memory per bit of the dirty page log */
#define VUC_LOG_PAGE			4096ULL

/* Largest device state a transfer takes, and how long the back-end may
 * be silent while it writes one
 */
#define VUC_STATE_MAX			(512ULL << 20)
#define VUC_STATE_TIMEOUT_MS		20000

/* Descriptors one message may carry (more than a back-end takes) */
#define VUC_FDS_MAX			16

/**
 * struct vuc_queue - where a queue is, in the one memory region
 * @num:	size, a power of two
 * @desc:	offset of the descriptor table in the region
 * @avail:	offset of the available ring
 * @used:	offset of the used ring
 * @base:	first available index to take (SET_VRING_BASE): 0 for a
 *		new device, where the queue stopped after a migration
 * @kick:	kick eventfd (ours to write)
 * @call:	call eventfd (the back-end's to write)
 */
struct vuc_queue {
	unsigned int num;
	uint64_t desc;
	uint64_t avail;
	uint64_t used;
	uint32_t base;
	int kick;
	int call;
};

/**
 * struct vuc_dev - a device as the front-end sets it up
 * @fd:		connected socket to the back-end
 * @memfd:	the guest's memory
 * @size:	its size
 * @gpa:	guest physical address of its first byte
 * @uva:	"front-end" address of its first byte (ring addresses)
 * @want:	features to acknowledge, if offered
 * @want_pf:	protocol features needed besides REPLY_ACK (DEVICE_STATE)
 * @features:	features acknowledged (set by vuc_dev_setup())
 * @q:		receive queue (0), transmit queue (1)
 */
struct vuc_dev {
	int fd;
	int memfd;
	uint64_t size;
	uint64_t gpa;
	uint64_t uva;
	uint64_t want;
	uint64_t want_pf;
	uint64_t features;
	struct vuc_queue q[2];
};

ssize_t vuc_sendmsg(int fd, const struct iovec *iov, size_t iovcnt,
		    const int *fds, unsigned int nfds, int flags);
int vuc_send(int fd, uint32_t req, uint32_t flags, const void *p,
	     size_t size, const int *fds, unsigned int nfds);
int vuc_reply(int fd, uint32_t req, void *p, size_t size);
int vuc_get_u64(int fd, uint32_t req, uint64_t *v);
int vuc_set_u64(int fd, uint32_t req, uint64_t v, const int *fds,
		unsigned int nfds);
int vuc_set_state(int fd, uint32_t req, uint32_t index, uint32_t num);
int vuc_get_vring_base(int fd, uint32_t index, uint32_t *base);
int vuc_mem_table(const struct vuc_dev *d);
int vuc_queue_setup(const struct vuc_dev *d, unsigned int qi);
int vuc_dev_negotiate(struct vuc_dev *d);
int vuc_dev_setup(struct vuc_dev *d);
int vuc_queues_start(const struct vuc_dev *d);
int vuc_state_save(int fd, uint8_t **state, size_t *len);
int vuc_state_load(int fd, const uint8_t *state, size_t len);
int vuc_log_set(const struct vuc_dev *d, bool on);

#endif /* TESTS_TOOLS_LIB_VU_CLIENT_H */
