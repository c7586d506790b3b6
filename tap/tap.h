/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap.h - the guest-facing backend, whichever it is
 *
 * Theory of operation: a backend moves whole Ethernet frames between the
 * guest and the relay. pasta uses a tuntap device inside the namespace
 * (one frame per read()/write()); passt uses a UNIX stream socket carrying
 * frames prefixed by a 4-byte big-endian length (QEMU's -netdev stream),
 * or vhost-user. The input side reads frames in batches and hands each to
 * net_input(); the output side takes frames as scatter-gather lists from
 * qdisc/ and reports how many it could write, so that the caller keeps the
 * rest and waits for the wake-up the backend arms (EPOLLOUT).
 */
#ifndef TAP_TAP_H
#define TAP_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "../util/epoll_ref.h"

struct ctx;

#define TAP_FRAMES_BATCH	64
#define TAP_SEND_MAX		512	/* frames in one tap_send_frames_vnet() */

/**
 * struct tap_stats - counters of the active backend
 * @rx_frames:		frames read from the guest
 * @rx_bytes:		bytes read from the guest
 * @rx_errors:		failed reads, frames with impossible lengths
 * @tx_frames:		frames written to the guest
 * @tx_bytes:		bytes written to the guest
 * @tx_errors:		frames the backend rejected (dropped)
 * @tx_backpressure:	writes that found the backend full (wake-up armed)
 */
struct tap_stats {
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t rx_errors;
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t tx_errors;
	uint64_t tx_backpressure;
};

int tap_init(struct ctx *c);
void tap_handler(struct ctx *c, union epoll_ref ref, uint32_t events,
		 uint64_t now_ms);
size_t tap_send_frames(struct ctx *c, const struct iovec *iov,
		       size_t bufs_per_frame, size_t nframes);
size_t tap_send_frames_vnet(struct ctx *c, const struct iovec *iov,
			    size_t nframes);
bool tap_offload(const struct ctx *c);
bool tap_connected(const struct ctx *c);
void tap_want_output(struct ctx *c, bool on);
bool tap_output_armed(const struct ctx *c);
bool tap_output_held(const struct ctx *c);
const struct tap_stats *tap_stats_get(void);

#endif /* TAP_TAP_H */
