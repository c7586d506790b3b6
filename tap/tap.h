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
 * rest and waits for the wake-up the backend arms (EPOLLOUT). A backend
 * whose buffers are the guest's (vhost-user) may also lend them, so that
 * a frame is written where the guest reads it (tap_lend()).
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
#define TAP_LEND_FRAMES		64	/* frames in one tap_lend() */
#define TAP_LEND_IOV		512	/* their payload areas, in all */
#define TAP_BATCH_BYTES		(64 * 1024)	/* see tap_batch_bytes() */

struct virtio_net_hdr;

/**
 * struct tap_lend - frames to be written in place, in the guest's buffers
 * @frames:	frames lent
 * @room:	header bytes of each frame, as asked for
 * @hdr:	each frame's header area (Ethernet on), in one piece
 * @first:	index in @iov of each frame's first payload area, and one
 *		past the last frame's last
 * @iov:	payload areas, frame after frame: the payload of frame i
 *		goes to iov[first[i]] .. iov[first[i + 1] - 1], in order
 */
struct tap_lend {
	size_t frames;
	size_t room;
	uint8_t *hdr[TAP_LEND_FRAMES];
	size_t first[TAP_LEND_FRAMES + 1];
	struct iovec iov[TAP_LEND_IOV];
};

/**
 * enum tap_drop - why a backend dropped a frame from the guest before net/
 * @TAP_DROP_SHORT:	shorter than an Ethernet header (after the
 *			virtio-net header, where there is one)
 * @TAP_DROP_LONG:	longer than the largest frame the backend takes
 * @TAP_DROP_CHAIN:	vhost-user: a descriptor chain that can't be read
 *			(index out of range, loop, wrong direction, buffer
 *			outside guest memory)
 * @TAP_DROP_OFFLOAD:	vhost-user: a segmentation offload the guest did
 *			not negotiate
 * @TAP_DROPS:		number of reasons
 */
enum tap_drop {
	TAP_DROP_SHORT,
	TAP_DROP_LONG,
	TAP_DROP_CHAIN,
	TAP_DROP_OFFLOAD,
	TAP_DROPS,
};

/**
 * struct tap_stats - counters of the active backend
 * @rx_frames:		frames read from the guest and handed to net/
 * @rx_bytes:		their bytes
 * @rx_errors:		failed reads
 * @rx_drop:		frames read from the guest and dropped, by reason
 *			(enum tap_drop): every frame the guest sent is in
 *			@rx_frames or in one of these
 * @tx_frames:		frames written to the guest
 * @tx_bytes:		bytes written to the guest
 * @tx_errors:		frames the backend rejected (dropped)
 * @tx_backpressure:	writes that found the backend full (wake-up armed)
 * @conn_refused:	connections to the guest's socket refused: the peer
 *			runs as another user than ours, or root
 */
struct tap_stats {
	uint64_t rx_frames;
	uint64_t rx_bytes;
	uint64_t rx_errors;
	uint64_t rx_drop[TAP_DROPS];
	uint64_t tx_frames;
	uint64_t tx_bytes;
	uint64_t tx_errors;
	uint64_t tx_backpressure;
	uint64_t conn_refused;
};

/**
 * struct tap_state_ops - the device state of a migration (vhost-user),
 *			  what migrate/ registers
 * @save:	source: write the state to @fd, blocking; 0 or -errno
 * @load:	target: read a state from @fd up to its end and prepare it,
 *		nothing in force yet; 0, or -errno if refused
 * @precopy:	source: the front-end started (@on) or stopped logging our
 *		writes to guest memory: a migration began, or it is over
 *		without a save (or the front-end left)
 * @resume:	source: the device runs again after a save: the migration
 *		failed, the guest goes on here
 * @finish:	source: the front-end left after a save: the guest runs on
 *		the target
 * @start:	target: the device runs after a load: the guest runs here,
 *		put the state in force
 * @discard:	target: the front-end left after a load, before the device
 *		ran: forget the state
 */
struct tap_state_ops {
	int (*save)(const struct ctx *c, int fd);
	int (*load)(const struct ctx *c, int fd);
	void (*precopy)(const struct ctx *c, bool on);
	void (*resume)(const struct ctx *c);
	void (*finish)(const struct ctx *c);
	void (*start)(const struct ctx *c);
	void (*discard)(const struct ctx *c);
};

void tap_state_register(const struct tap_state_ops *ops);

/**
 * struct tap_sink - where the backends hand what the guest sends, and whom
 *		     they tell that the guest's side has room again
 * @input:	one frame from the guest, starting with its Ethernet header
 * @input_done:	the backend is about to reuse the memory of the frames it
 *		handed over so far
 * @writable:	the backend can take frames again: send what waits
 *
 * main() sets it (net/ and qdisc/, above tap/) before any backend starts.
 */
struct tap_sink {
	void (*input)(const struct ctx *c, const uint8_t *frame, size_t len,
		      uint64_t now_ms);
	void (*input_done)(const struct ctx *c);
	void (*writable)(const struct ctx *c);
};

void tap_sink_set(const struct tap_sink *sink);
void tuntap_register(void);

int tap_init(struct ctx *c);
void tap_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		 uint64_t now_ms);
size_t tap_send_frames(const struct ctx *c, const struct iovec *iov,
		       size_t bufs_per_frame, size_t nframes);
size_t tap_send_frames_vnet(const struct ctx *c, const struct iovec *iov,
			    size_t nframes);
bool tap_offload(const struct ctx *c);
void tap_leave_to_netns(void);
void tap_notify(const struct ctx *c);
bool tap_lends(const struct ctx *c);
size_t tap_batch_bytes(const struct ctx *c);
size_t tap_lend(const struct ctx *c, struct tap_lend *l, size_t frames,
		size_t room, size_t payload);
bool tap_lend_commit(const struct ctx *c, const struct tap_lend *l,
		     size_t f, size_t len, const struct virtio_net_hdr *vh);
void tap_lend_end(const struct ctx *c, struct tap_lend *l);
bool tap_connected(const struct ctx *c);
void tap_want_output(const struct ctx *c, bool on);
bool tap_output_armed(const struct ctx *c);
bool tap_output_held(const struct ctx *c);
const struct tap_stats *tap_stats_get(void);
void tap_stats_log(void);

#endif /* TAP_TAP_H */
