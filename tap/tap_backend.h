/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap_backend.h - what a guest backend provides to tap.c, and what tap/
 *		   provides to backends (public to the backends: tuntap.c
 *		   here, stream/, vhost_user/)
 *
 * Theory of operation: every backend registers itself at start-up
 * (tap_backend_register(), called by main() through the backend's own
 * *_register() function), so that tap/ never names a backend of a higher
 * layer. tap.c picks one at tap_init() from the mode (pasta: tuntap;
 * passt: stream socket or vhost-user) and forwards every tap_*() call to
 * it through this table. A mode whose backend was not registered fails
 * tap_init() with a message.
 */
#ifndef TAP_TAP_BACKEND_H
#define TAP_TAP_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "tap.h"

struct ctx;

/**
 * struct tap_backend - operations of one guest backend
 * @name:		for messages
 * @init:		open the device or socket, register it for epoll
 * @handler:		epoll events on one of the backend's descriptors
 * @send_frames:	write frames (see tap_send_frames()); on a short
 *			count, the wake-up (EPOLLOUT) must be armed
 * @connected:		a guest is there to receive frames
 * @want_output:	arm (true) or disarm (false) the output wake-up
 * @output_armed:	the output wake-up is armed (for invariant checks)
 * @output_held:	the backend keeps bytes of a frame it reported as
 *			sent (NULL: never)
 * @stats:		the backend's counters
 * @offload:		frames carry a struct virtio_net_hdr (checksum and
 *			segmentation offload); NULL or false: plain frames
 * @lend:		reserve the guest's receive buffers for offloaded
 *			frames written in place (see tap_lend()); NULL:
 *			never
 * @lend_commit:	give a lent frame to the guest, in order
 * @lend_end:		done: release what was not committed
 * @notify:		tell the guest about frames given since the last
 *			time (NULL: the backend needs no such call)
 * @leave:		at exit, leave the device to the end of its network
 *			namespace instead of removing it (NULL: nothing to do)
 * @batch_bytes:	bytes worth gathering for one send_frames() call
 *			during a run of the scheduler (see tap_batch_bytes();
 *			0: TAP_BATCH_BYTES)
 */
struct tap_backend {
	const char *name;
	int (*init)(struct ctx *c);
	void (*handler)(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms);
	size_t (*send_frames)(const struct ctx *c, const struct iovec *iov,
			      size_t bufs_per_frame, size_t nframes);
	bool (*connected)(void);
	void (*want_output)(const struct ctx *c, bool on);
	bool (*output_armed)(void);
	bool (*output_held)(void);
	const struct tap_stats *(*stats)(void);
	bool (*offload)(void);
	size_t (*lend)(struct tap_lend *l, size_t frames, size_t room,
		       size_t payload);
	bool (*lend_commit)(size_t f, size_t len,
			    const struct virtio_net_hdr *vh);
	void (*lend_end)(void);
	void (*notify)(void);
	void (*leave)(void);
	size_t batch_bytes;
};

/**
 * enum tap_kind - the backends, one per way of reaching the guest
 * @TAP_KIND_TUNTAP:	pasta: tuntap device in the namespace (tap/tuntap.c)
 * @TAP_KIND_STREAM:	passt: UNIX stream socket, QEMU -netdev stream
 *			(stream/stream.c)
 * @TAP_KIND_VHOST_USER: passt --vhost-user (vhost_user/vhost_user.c)
 * @TAP_KINDS:		number of kinds
 */
enum tap_kind {
	TAP_KIND_TUNTAP,
	TAP_KIND_STREAM,
	TAP_KIND_VHOST_USER,
	TAP_KINDS,
};

void tap_backend_register(enum tap_kind kind, const struct tap_backend *be);

/* Every frame from the guest goes through this (tap.c): capture, net/ */
void tap_frames_done(const struct ctx *c);
void tap_writable(const struct ctx *c);
void tap_frame_in(const struct ctx *c, const uint8_t *frame, size_t len,
		  uint64_t now_ms);

/* A frame from the guest the backend can't hand over: count it, log the
 * first ones (tap.c)
 */
void tap_rx_drop(struct tap_stats *s, enum tap_drop why, size_t len,
		 size_t limit);
/* A frame for the guest the backend can't write: count it, log the first
 * ones (tap.c)
 */
void tap_tx_error(struct tap_stats *s, size_t len, int err_no);

/* The migration handlers registered with tap_state_register(), or NULL */
const struct tap_state_ops *tap_state_ops_get(void);

#endif /* TAP_TAP_BACKEND_H */
