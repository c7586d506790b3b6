/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backend.h - what a guest backend provides to tap.c (private to tap/)
 *
 * Theory of operation: tap.c picks one backend at tap_init() from the mode
 * (pasta: tuntap; passt: stream socket or vhost-user) and forwards every
 * tap_*() call to it through this table. A backend is one file defining
 * one const struct tap_backend. Backends that are not built yet are weak
 * references: tap_init() reports them as missing instead of failing to
 * link.
 */
#ifndef TAP_BACKEND_H
#define TAP_BACKEND_H

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

/* pasta: tuntap device in the namespace (tap/tuntap.c) */
extern const struct tap_backend tap_tuntap_backend;

/* passt: UNIX stream socket, QEMU -netdev stream (tap/stream.c) */
extern const struct tap_backend tap_stream_backend __attribute__((weak));

/* passt --vhost-user (vhost_user/vhost_user.c) */
extern const struct tap_backend tap_vu_backend __attribute__((weak));

#endif /* TAP_BACKEND_H */
