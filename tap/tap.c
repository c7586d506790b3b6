// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - the guest-facing backend, whichever it is
 *
 * Theory of operation
 *
 * A thin dispatcher. Backends register at start-up, each for its kind
 * (tap_backend_register(), tap_backend.h): tap/ names none of them, and
 * two of them live in higher layers. tap_init() chooses the backend once,
 * from the mode: pasta uses the tuntap device (tuntap.c); passt uses the
 * UNIX stream socket (stream/), or vhost-user with --vhost-user. Every
 * other tap_*() call goes straight to the chosen backend's operations.
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
 *
 * The end of a batch has one owner, this file: frames handed over stay
 * valid until the sink's input_done(), which tap_frames_done() calls, once
 * for whatever came since the last call. A backend calls it before it
 * reuses the memory within an event; tap_handler() calls it when the
 * backend's event is over, so a backend that reuses nothing within an
 * event (tuntap) needs no call of its own.
 *
 * Input side, for every backend: one bad frame never costs the guest its
 * connection. A frame the backend can't hand to net/ (shorter than an
 * Ethernet header, longer than the largest frame, an unreadable vhost-user
 * chain, an offload that was not negotiated) is read, dropped, and counted
 * by reason with tap_rx_drop(), which logs the first few of each reason;
 * the backend goes on with the next frame. Only input that breaks the
 * transport itself (a stream whose framing is lost, a vhost-user message
 * that can't be parsed) ends the connection (design.md, "Hostile guest").
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "tap_backend.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/pcap.h"
#include "../util/util.h"

/* Log this many dropped input frames of each reason at warning level */
#define TAP_DROP_LOG_MAX	8

/* Log this many frames for the guest dropped by a backend at warning level */
#define TAP_TX_ERR_LOG_MAX	8

static const struct tap_backend *tap_backends[TAP_KINDS];	/* registered */
static const struct tap_backend *tap_be;	/* chosen at tap_init() */
static const struct tap_sink *tap_sink;	/* set by main(), tap_sink_set() */
static const struct tap_state_ops *tap_state;	/* tap_state_register() */
static bool tap_in_pending;	/* frames handed over, input_done() due */
static unsigned int tap_drop_logged[TAP_DROPS];
static unsigned int tap_tx_err_logged;

/**
 * struct tap_drop_desc - how a reason of enum tap_drop reads in messages
 * @name:	counter name in tap_stats_log()
 * @before:	text before the limit the frame broke
 * @after:	text after it
 */
struct tap_drop_desc {
	const char *name;
	const char *before;
	const char *after;
};

static const struct tap_drop_desc tap_drop_desc[TAP_DROPS] = {
	[TAP_DROP_SHORT]   = { "rx_short", "shorter than ", " bytes" },
	[TAP_DROP_LONG]	   = { "rx_long", "longer than ", " bytes" },
	[TAP_DROP_CHAIN]   = { "rx_bad_chain", "an unusable descriptor "
			       "chain (index, loop, direction or address) "
			       "in a queue of ", " entries" },
	[TAP_DROP_OFFLOAD] = { "rx_bad_offload", "segmentation type ",
			       ", which was not negotiated" },
};

/**
 * tap_backend_register() - make a backend available to tap_init()
 * @kind:	the way to the guest it implements
 * @be:		its operations, static storage
 */
void tap_backend_register(enum tap_kind kind, const struct tap_backend *be)
{
	tap_backends[kind] = be;
}

/**
 * tap_kind_for() - the kind of backend our mode needs
 * @c:		execution context
 *
 * Return: kind of backend
 */
static enum tap_kind tap_kind_for(const struct ctx *c)
{
	if (c->mode == MODE_PASTA)
		return TAP_KIND_TUNTAP;

	return c->vhost_user ? TAP_KIND_VHOST_USER : TAP_KIND_STREAM;
}

/**
 * tap_init() - choose and start the backend for our mode
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int tap_init(struct ctx *c)
{
	static const char *const what[TAP_KINDS] = {
		[TAP_KIND_TUNTAP] = "tuntap", [TAP_KIND_STREAM] = "stream socket",
		[TAP_KIND_VHOST_USER] = "vhost-user",
	};
	enum tap_kind kind = tap_kind_for(c);
	const struct tap_backend *be = tap_backends[kind];
	int ret;

	if (!be) {
		err("the %s backend was not registered (tap_backend_register())",
		    what[kind]);
		return -ENOSYS;
	}
	if (!tap_sink) {
		err("no frame sink set for the guest's backend (tap_sink_set())");
		return -EINVAL;
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
void tap_handler(const struct ctx *c, union epoll_ref ref, uint32_t events,
		 uint64_t now_ms)
{
	if (!tap_be)
		return;

	tap_be->handler(c, ref, events, now_ms);
	tap_frames_done(c);	/* the end of the event ends its batch */
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
size_t tap_send_frames(const struct ctx *c, const struct iovec *iov,
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
 * tap_leave_to_netns() - at exit, let the guest's device go with its
 *			  namespace, which is ending too
 *
 * Closing pasta's tap device removes it, and the kernel's removal waits
 * for RCU grace periods (10 to 25 ms here) before our exit completes: the
 * caller of `pasta -- CMD` waits for that. Call only when the namespace
 * ends with us (pasta created it for a command that has exited): the
 * device then goes with the namespace, in the kernel's own time.
 */
void tap_leave_to_netns(void)
{
	if (tap_be && tap_be->leave)
		tap_be->leave();
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
 * tap_notify() - the output of this loop iteration is done: the backend
 *		  may tell the guest now, once, about all of it
 * @c:		execution context
 */
void tap_notify(const struct ctx *c)
{
	(void)c;

	if (tap_be && tap_be->notify)
		tap_be->notify();
}

/**
 * tap_batch_bytes() - bytes of frames worth gathering for one write
 * @c:		execution context
 *
 * A device that takes one frame per write (tuntap) gains nothing from a
 * large batch, and a frame written right after the socket read that made
 * it is still in the cache: TAP_BATCH_BYTES. A stream socket takes a whole
 * batch in one call, and the fewer calls, the fewer times it is found full
 * and the fewer wake-ups of its reader; vhost-user signals the guest once
 * per batch: their backends ask for more.
 *
 * Return: bytes the scheduler may queue before it writes them, in a run
 */
size_t tap_batch_bytes(const struct ctx *c)
{
	(void)c;

	if (tap_be && tap_be->batch_bytes)
		return tap_be->batch_bytes;
	return TAP_BATCH_BYTES;
}

/**
 * tap_lends() - tell if the backend may lend buffers (see tap_lend())
 * @c:		execution context
 *
 * Return: true if it has buffers to lend, now or later
 */
bool tap_lends(const struct ctx *c)
{
	return tap_be && tap_be->lend && tap_offload(c);
}

/**
 * tap_lend() - the guest's receive buffers, for frames written in place
 * @c:		execution context
 * @l:		filled: a header area and payload areas for each frame
 * @frames:	frames wanted, at most TAP_LEND_FRAMES
 * @room:	header bytes of each frame (Ethernet, IP, TCP), in one piece
 * @payload:	payload bytes each frame may carry
 *
 * Only for offloaded frames (tap_offload()): the caller writes their
 * headers with a partial checksum, and never reads the payload back. Until
 * tap_lend_end(), nothing else may be sent to the guest. The caller
 * copies instead, through the output queue, if fewer frames come than it
 * wants.
 *
 * Return: frames lent, 0 if the backend lends no buffers or has none now
 */
size_t tap_lend(const struct ctx *c, struct tap_lend *l, size_t frames,
		size_t room, size_t payload)
{
	l->frames = 0;
	l->room = room;
	if (!tap_lends(c))
		return 0;

	return tap_be->lend(l, MIN(frames, (size_t)TAP_LEND_FRAMES), room,
			    payload);
}

/**
 * tap_lend_commit() - give a frame written in place to the guest
 * @c:		execution context
 * @l:		lent buffers
 * @f:		frame, in order: every frame before it committed, with all
 *		its payload areas filled (the last one committed may be
 *		shorter)
 * @len:	frame length: the header bytes as lent, and the payload
 * @vh:		its offload description
 *
 * Return: true if the guest has it, false if it was dropped
 */
bool tap_lend_commit(const struct ctx *c, const struct tap_lend *l,
		     size_t f, size_t len, const struct virtio_net_hdr *vh)
{
	(void)c;

	if (len < l->room || !tap_be->lend_commit(f, len, vh))
		return false;

	if (pcap_active()) {
		struct iovec iov[TAP_LEND_IOV + 1];
		size_t i, n = 1, left = len - l->room;

		iov[0].iov_base = l->hdr[f];
		iov[0].iov_len = l->room;
		for (i = l->first[f]; left && i < l->first[f + 1]; i++, n++) {
			iov[n].iov_base = l->iov[i].iov_base;
			iov[n].iov_len = MIN(l->iov[i].iov_len, left);
			left -= iov[n].iov_len;
		}
		pcap_frames(iov, n, 1);
	}
	return true;
}

/**
 * tap_lend_end() - done with lent buffers: release the rest
 * @c:		execution context
 * @l:		lent buffers, forgotten here
 */
void tap_lend_end(const struct ctx *c, struct tap_lend *l)
{
	(void)c;

	if (l->frames)
		tap_be->lend_end();
	l->frames = 0;
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
size_t tap_send_frames_vnet(const struct ctx *c, const struct iovec *iov,
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
void tap_frame_in(const struct ctx *c, const uint8_t *frame, size_t len,
		  uint64_t now_ms)
{
	if (pcap_active())
		pcap_frame(frame, len);

	tap_in_pending = true;
	tap_sink->input(c, frame, len, now_ms);
}

/**
 * tap_frames_done() - the end of a batch: the frames handed over so far may
 *		       be reused
 * @c:		execution context
 *
 * Backends call this before they overwrite frames handed to
 * tap_frame_in() within an event: whoever took them may still point there.
 * tap_handler() calls it after every event of a backend.
 */
void tap_frames_done(const struct ctx *c)
{
	if (!tap_in_pending)
		return;

	tap_in_pending = false;
	tap_sink->input_done(c);
}

/**
 * tap_writable() - the backend can take frames again
 * @c:		execution context
 */
void tap_writable(const struct ctx *c)
{
	tap_sink->writable(c);
}

/**
 * tap_sink_set() - set where the backends hand the guest's frames
 * @sink:	the sink, static storage
 */
void tap_sink_set(const struct tap_sink *sink)
{
	tap_sink = sink;
}

/**
 * tap_rx_drop() - count a frame from the guest that can't go to net/
 * @s:		the backend's counters
 * @why:	reason
 * @len:	the frame's length, bytes (after any virtio-net header)
 * @limit:	the bound it broke (TAP_DROP_SHORT, TAP_DROP_LONG: bytes;
 *		TAP_DROP_CHAIN: descriptors; TAP_DROP_OFFLOAD: the type)
 *
 * The first TAP_DROP_LOG_MAX drops of each reason are logged as warnings,
 * later ones at debug level: a broken guest driver is worth knowing about,
 * a hostile one must not fill the log.
 */
void tap_rx_drop(struct tap_stats *s, enum tap_drop why, size_t len,
		 size_t limit)
{
	const struct tap_drop_desc *d = &tap_drop_desc[why];

	s->rx_drop[why]++;

	if (tap_drop_logged[why] >= TAP_DROP_LOG_MAX) {
		debug("dropped a frame of %zu bytes from the guest: %s%zu%s",
		      len, d->before, limit, d->after);
		return;
	}

	tap_drop_logged[why]++;
	warn("dropped a frame of %zu bytes from the guest: %s%zu%s; its "
	     "connection stays up (counted in %s%s)", len, d->before, limit,
	     d->after, d->name, tap_drop_logged[why] == TAP_DROP_LOG_MAX ?
	     ", further ones logged at debug level" : "");
}

/**
 * tap_tx_error() - count a frame for the guest that a backend can't write
 * @s:		the backend's counters
 * @len:	the frame's length, bytes
 * @err_no:	why, as an errno
 *
 * The frame is dropped for good (it counts as written). The first
 * TAP_TX_ERR_LOG_MAX are logged as warnings, later ones at debug level.
 */
void tap_tx_error(struct tap_stats *s, size_t len, int err_no)
{
	const char *name = tap_be ? tap_be->name : "guest";

	s->tx_errors++;

	if (tap_tx_err_logged >= TAP_TX_ERR_LOG_MAX) {
		debug("%s: dropping a frame of %zu bytes for the guest: %s",
		      name, len, strerror(err_no));
		return;
	}

	tap_tx_err_logged++;
	warn("%s: dropping a frame of %zu bytes for the guest: %s (counted in "
	     "tx_errors%s)", name, len, strerror(err_no),
	     tap_tx_err_logged == TAP_TX_ERR_LOG_MAX ?
	     ", further ones logged at debug level" : "");
}

/**
 * tap_state_register() - take migrate/'s handlers of the device state
 * @ops:	handlers, static storage
 *
 * The backend that migrates (vhost-user) finds them with
 * tap_state_ops_get(): migrate/ and vhost_user/ share a layer, and
 * neither may call the other.
 */
void tap_state_register(const struct tap_state_ops *ops)
{
	tap_state = ops;
}

/**
 * tap_state_ops_get() - the handlers of the device state of a migration
 *
 * Return: what migrate/ registered, NULL if nothing
 */
const struct tap_state_ops *tap_state_ops_get(void)
{
	return tap_state;
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
void tap_want_output(const struct ctx *c, bool on)
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

/**
 * tap_stats_log() - log the backend's counters, one line of key=value pairs
 */
void tap_stats_log(void)
{
	const struct tap_stats *t = tap_stats_get();
	char drops[TAP_DROPS * 48];
	size_t n = 0;
	int i;

	for (i = 0; i < TAP_DROPS && n < sizeof(drops); i++) {
		n += (size_t)snprintf(drops + n, sizeof(drops) - n,
				      " %s=%llu", tap_drop_desc[i].name,
				      (unsigned long long)t->rx_drop[i]);
	}

	info("tap: rx_frames=%llu rx_bytes=%llu rx_errors=%llu%s "
	     "tx_frames=%llu tx_bytes=%llu tx_errors=%llu "
	     "tx_backpressure=%llu conn_refused=%llu",
	     (unsigned long long)t->rx_frames,
	     (unsigned long long)t->rx_bytes,
	     (unsigned long long)t->rx_errors, drops,
	     (unsigned long long)t->tx_frames,
	     (unsigned long long)t->tx_bytes,
	     (unsigned long long)t->tx_errors,
	     (unsigned long long)t->tx_backpressure,
	     (unsigned long long)t->conn_refused);
}
