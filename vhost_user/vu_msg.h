/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_msg.h - vhost-user messages, shared by the request handlers (tap/)
 *
 * Theory of operation: vu_msg.c reads and checks messages and dispatches
 * them through its table of requests; the handlers of the requests for
 * migration (dirty page logging, device state) live in vu_migrate.c.
 * Both use the message layout and the reply helpers declared here.
 */
#ifndef VHOST_USER_VU_MSG_H
#define VHOST_USER_VU_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "vu_dev.h"

struct ctx;

/* Header flags */
#define VU_FLAG_VERSION_MASK	0x3U
#define VU_VERSION		0x1U
#define VU_FLAG_REPLY		(1U << 2)
#define VU_FLAG_NEED_REPLY	(1U << 3)

/* SET_VRING_ADDR flags: log the used ring (VHOST_VRING_F_LOG) */
#define VU_VRING_F_LOG		(1U << 0)

/* SET_VRING_KICK/CALL/ERR payload: queue index, and "no descriptor" */
#define VU_VRING_IDX_MASK	0xffULL
#define VU_VRING_NOFD		(1ULL << 8)

/* Largest payload accepted: more than any request we handle needs */
#define VU_MSG_PAYLOAD_MAX	4096
/* Descriptors in one message (VHOST_MEMORY_BASELINE_NREGIONS) */
#define VU_MSG_FDS_MAX		8

/**
 * enum vu_request - front-end requests (vhost-user specification)
 */
enum vu_request {
	VU_GET_FEATURES		= 1,
	VU_SET_FEATURES		= 2,
	VU_SET_OWNER		= 3,
	VU_RESET_OWNER		= 4,
	VU_SET_MEM_TABLE	= 5,
	VU_SET_LOG_BASE		= 6,
	VU_SET_LOG_FD		= 7,
	VU_SET_VRING_NUM	= 8,
	VU_SET_VRING_ADDR	= 9,
	VU_SET_VRING_BASE	= 10,
	VU_GET_VRING_BASE	= 11,
	VU_SET_VRING_KICK	= 12,
	VU_SET_VRING_CALL	= 13,
	VU_SET_VRING_ERR	= 14,
	VU_GET_PROTOCOL_FEATURES = 15,
	VU_SET_PROTOCOL_FEATURES = 16,
	VU_GET_QUEUE_NUM	= 17,
	VU_SET_VRING_ENABLE	= 18,
	VU_SEND_RARP		= 19,
	VU_NET_SET_MTU		= 20,
	VU_RESET_DEVICE		= 34,
	VU_SET_DEVICE_STATE_FD	= 42,
	VU_CHECK_DEVICE_STATE	= 43,
	VU_REQUEST_MAX		= 64,	/* for the table; bitmap of logged */
};

/**
 * struct vu_msg_hdr - message header, as on the wire
 * @request:	enum vu_request
 * @flags:	version and VU_FLAG_*
 * @size:	payload length, bytes
 */
struct vu_msg_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
};

/**
 * struct vu_vring_state - payload: a ring index and a number
 * @index:	queue index
 * @num:	size, base index, or enable flag
 */
struct vu_vring_state {
	uint32_t index;
	uint32_t num;
};

/**
 * struct vu_vring_addr - payload of SET_VRING_ADDR
 * @index:	queue index
 * @flags:	VU_VRING_F_LOG: log writes to the used ring, at @log
 * @desc:	descriptor table, front-end's virtual address
 * @used:	used ring
 * @avail:	available ring
 * @log:	guest address used ring writes are logged at
 */
struct vu_vring_addr {
	uint32_t index;
	uint32_t flags;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	uint64_t log;
};

/**
 * struct vu_msg_region - one memory region of SET_MEM_TABLE
 * @gpa:	guest physical address
 * @size:	length, bytes
 * @uva:	front-end's virtual address
 * @offset:	offset in the region's file descriptor
 */
struct vu_msg_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t offset;
};

/**
 * struct vu_msg_mem - payload of SET_MEM_TABLE
 * @nregions:	number of regions, one descriptor each
 * @padding:	unused
 * @r:		regions
 */
struct vu_msg_mem {
	uint32_t nregions;
	uint32_t padding;
	struct vu_msg_region r[VU_MEM_REGIONS_MAX];
};

/**
 * struct vu_msg_log - payload of SET_LOG_BASE (with LOG_SHMFD)
 * @size:	length of the log, bytes
 * @offset:	where it starts in the descriptor
 */
struct vu_msg_log {
	uint64_t size;
	uint64_t offset;
};

/**
 * struct vu_msg_transfer - payload of SET_DEVICE_STATE_FD
 * @direction:	VU_TRANSFER_SAVE (we write) or VU_TRANSFER_LOAD (we read)
 * @phase:	VU_TRANSFER_STOPPED: the device is suspended
 */
struct vu_msg_transfer {
	uint32_t direction;
	uint32_t phase;
};

#define VU_TRANSFER_SAVE	0
#define VU_TRANSFER_LOAD	1
#define VU_TRANSFER_STOPPED	0

/**
 * struct vu_msg - a message being handled
 * @hdr:	header
 * @p:		payload, by request
 * @p.u64:	a 64-bit value (features, kick/call index and flags)
 * @p.state:	ring index and number
 * @p.addr:	ring addresses
 * @p.mem:	memory table
 * @p.log:	dirty page log
 * @p.transfer:	device state transfer
 * @p.raw:	as bytes
 * @fds:	descriptors received, -1 once taken or closed
 * @nfds:	number received
 */
struct vu_msg {
	struct vu_msg_hdr hdr;
	union {
		uint64_t u64;
		struct vu_vring_state state;
		struct vu_vring_addr addr;
		struct vu_msg_mem mem;
		struct vu_msg_log log;
		struct vu_msg_transfer transfer;
		uint8_t raw[VU_MSG_PAYLOAD_MAX];
	} p;
	int fds[VU_MSG_FDS_MAX];
	unsigned int nfds;
};

/**
 * enum vu_res - outcome of a request
 * @VU_OK:	done (status 0 if the front-end asked for one)
 * @VU_FAIL:	refused, logged (status 1 if asked for)
 * @VU_REPLIED:	the request has its own reply, already sent
 * @VU_BAD:	unusable message or broken connection: close it
 */
enum vu_res {
	VU_OK,
	VU_FAIL,
	VU_REPLIED,
	VU_BAD,
};

/* Number of descriptors: the handler checks it */
#define VU_FDS_ANY		(-1)


enum vu_res vu_msg_send(const struct vu_dev *dev, uint32_t request,
			const void *payload, size_t size);
enum vu_res vu_msg_reply_u64(const struct vu_dev *dev, const struct vu_msg *m,
			     uint64_t v);
int vu_msg_take_fd(struct vu_msg *m);
int vu_msg_take_eventfd(struct vu_msg *m, const char *what);
int vu_msg_queue(const struct vu_msg *m, uint64_t index);

/* vu_migrate.c */
enum vu_res vu_mig_set_log_base(const struct ctx *c, struct vu_dev *dev,
				struct vu_msg *m);
enum vu_res vu_mig_set_log_fd(const struct ctx *c, struct vu_dev *dev,
			      struct vu_msg *m);
enum vu_res vu_mig_set_state_fd(const struct ctx *c, struct vu_dev *dev,
				struct vu_msg *m);
enum vu_res vu_mig_check_state(const struct ctx *c, struct vu_dev *dev,
			       struct vu_msg *m);

#endif /* VHOST_USER_VU_MSG_H */
