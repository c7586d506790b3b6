// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - the guest-facing backend, whichever it is
 *
 * Theory of operation
 *
 * A thin dispatcher. tap_init() chooses the backend once, from the mode:
 * pasta uses the tuntap device (tuntap.c); passt uses the UNIX stream
 * socket (stream.c), or vhost-user with --vhost-user. Every other tap_*()
 * call goes straight to the chosen backend's operations (backend.h).
 * Before tap_init(), or if it failed, there is no backend: output is
 * refused (nothing written) and nothing is connected.
 *
 * Contract of the output side, for every backend: tap_send_frames() writes
 * frames in order and returns how many it wrote; a frame the backend
 * rejects for good (malformed, too long) counts as written and as a
 * tx_error, so it never blocks the queue; when it stops early because the
 * guest is not taking more, it arms the output wake-up first. On that
 * wake-up, the backend disarms it and calls qdisc_flush(), which writes
 * again and so re-arms it if needed (design.md invariant 2).
 *
 * Capture (-p/--pcap, util/pcap.c) happens here for every backend: frames
 * from the guest pass through tap_frame_in() on their way to net_input(),
 * and frames the backend took from tap_send_frames() are recorded once it
 * returns.
 */

#include <errno.h>
#include <stddef.h>

#include "tap.h"
#include "backend.h"
#include "../passt.h"
#include "../net/net.h"
#include "../util/log.h"
#include "../util/pcap.h"
#include "../util/util.h"

static const struct tap_backend *tap_be;	/* chosen at tap_init() */

/**
 * tap_backend_for() - the backend for our mode
 * @c:		execution context
 *
 * Return: backend, or NULL if it isn't built in
 */
static const struct tap_backend *tap_backend_for(const struct ctx *c)
{
	if (c->mode == MODE_PASTA)
		return &tap_tuntap_backend;

	if (c->vhost_user)
		return &tap_vu_backend;

	return &tap_stream_backend;
}

/**
 * tap_init() - choose and start the backend for our mode
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int tap_init(struct ctx *c)
{
	const struct tap_backend *be = tap_backend_for(c);
	int ret;

	if (!be) {
		err("%s backend is not built in this version",
		    c->vhost_user ? "vhost-user" : "stream socket");
		return -ENOSYS;
	}

	/* Before the backend: the capture starts with the guest's first frame */
	if (*c->pcap && !pcap_active()) {
		ret = pcap_init(c->pcap);
		if (ret)
			return ret;
	}

	ret = be->init(c);
	if (ret)
		return ret;

	tap_be = be;
	debug("guest backend: %s", be->name);
	return 0;
}

/**
 * tap_handler() - epoll events on a descriptor of the backend
 * @c:		execution context
 * @ref:	epoll reference (EPOLL_TYPE_TAP_*)
 * @events:	epoll events
 * @now_ms:	current time, milliseconds
 */
void tap_handler(struct ctx *c, union epoll_ref ref, uint32_t events,
		 uint64_t now_ms)
{
	if (tap_be)
		tap_be->handler(c, ref, events, now_ms);
}

/**
 * tap_send_frames() - write frames to the guest
 * @c:			execution context
 * @iov:		@nframes groups of @bufs_per_frame buffers, one group
 *			per frame, each frame starting with its Ethernet header
 * @bufs_per_frame:	buffers making up each frame
 * @nframes:		number of frames
 *
 * Return: number of frames written (or dropped for good); if less than
 *	   @nframes, the output wake-up is armed
 */
size_t tap_send_frames(struct ctx *c, const struct iovec *iov,
		       size_t bufs_per_frame, size_t nframes)
{
	size_t sent;

	if (!tap_be || !nframes || !bufs_per_frame)
		return 0;

	sent = tap_be->send_frames(c, iov, bufs_per_frame, nframes);
	if (pcap_active())
		pcap_frames(iov, bufs_per_frame, MIN(sent, nframes));

	return sent;
}

/**
 * tap_offload() - tell if the backend takes offloaded frames
 * @c:		execution context
 *
 * Return: true if frames may carry partial checksums and be larger than
 *	   the MTU (segmented by the receiving kernel, as with virtio-net)
 */
bool tap_offload(const struct ctx *c)
{
	(void)c;

	return tap_be && tap_be->offload && tap_be->offload();
}

/**
 * tap_send_frames_vnet() - write frames that each come with a virtio-net
 *			    header describing their offloads
 * @c:		execution context
 * @iov:	two buffers per frame: struct virtio_net_hdr, then the frame
 *		from its Ethernet header
 * @nframes:	number of frames
 *
 * A backend with offloads gets the header with each frame; other backends
 * get the frames alone (the caller only asks for offloads when
 * tap_offload() said yes, so their headers are zero then).
 *
 * Return: number of frames fully sent, as tap_send_frames()
 */
size_t tap_send_frames_vnet(struct ctx *c, const struct iovec *iov,
			    size_t nframes)
{
	struct iovec plain[TAP_SEND_MAX];
	size_t i, sent;

	if (!tap_be || !nframes)
		return 0;

	if (tap_offload(c)) {
		sent = tap_be->send_frames(c, iov, 2, nframes);
	} else {
		nframes = MIN(nframes, (size_t)TAP_SEND_MAX);
		for (i = 0; i < nframes; i++)
			plain[i] = iov[i * 2 + 1];
		sent = tap_be->send_frames(c, plain, 1, nframes);
	}

	if (pcap_active()) {
		for (i = 0; i < MIN(sent, nframes); i++)
			pcap_frames(&iov[i * 2 + 1], 1, 1);
	}

	return sent;
}

/**
 * tap_frame_in() - a frame from the guest: capture it, hand it to net/
 * @c:		execution context
 * @frame:	frame, starting with the Ethernet header
 * @len:	its length
 * @now_ms:	current time, milliseconds
 *
 * Backends call this for every frame they receive.
 */
void tap_frame_in(struct ctx *c, const uint8_t *frame, size_t len,
		  uint64_t now_ms)
{
	if (pcap_active())
		pcap_frame(frame, len);

	net_input(c, frame, len, now_ms);
}

/**
 * tap_connected() - is there a guest to send frames to?
 * @c:		execution context
 *
 * Return: true once the backend has a device or a connected guest
 */
bool tap_connected(const struct ctx *c)
{
	(void)c;

	return tap_be && tap_be->connected();
}

/**
 * tap_want_output() - arm or disarm the wake-up for writable output
 * @c:		execution context
 * @on:		true to be woken up (EPOLLOUT) when the guest takes frames
 */
void tap_want_output(struct ctx *c, bool on)
{
	if (tap_be)
		tap_be->want_output(c, on);
}

/**
 * tap_output_armed() - tell if the output wake-up is armed
 * @c:		execution context
 *
 * Return: true if the backend will be woken up when the guest takes
 *	   frames again (EPOLLOUT registered on its descriptor)
 */
bool tap_output_armed(const struct ctx *c)
{
	(void)c;

	return tap_be && tap_be->output_armed && tap_be->output_armed();
}

/**
 * tap_output_held() - tell if the backend keeps output of its own
 * @c:		execution context
 *
 * Return: true if part of a frame reported as sent is still to be written
 */
bool tap_output_held(const struct ctx *c)
{
	(void)c;

	return tap_be && tap_be->output_held && tap_be->output_held();
}

/**
 * tap_stats_get() - counters of the active backend
 *
 * Return: the counters, all zero before tap_init()
 */
const struct tap_stats *tap_stats_get(void)
{
	static const struct tap_stats none;

	return tap_be ? tap_be->stats() : &none;
}
