// SPDX-License-Identifier: GPL-2.0-or-later
/* vhost_user.c - passt's vhost-user backend (passt --vhost-user)
 *
 * Theory of operation
 *
 * With vhost-user, QEMU (the front-end) hands the guest's virtio-net
 * queues to us: the guest's memory is shared, frames go through the
 * virtqueues there (vu_virtq.c copies them), and notifications are
 * eventfds. QEMU configures us over a UNIX socket (vu_msg.c handles the
 * messages); this file owns the connection, the epoll registrations and
 * the data path.
 *
 * Connection set-up is the stream backend's, shared through
 * tap/guest_sock.c: with -F/--fd, a connected socket given by the caller
 * (QEMU 10.1 "-netdev passt"), for one connection; otherwise we listen at
 * the -s path or at the first free /tmp/passt_N.socket, one front-end at
 * a time, and only from the user who started us or root.
 *
 * The front-end can't hold the loop: its socket is non-blocking, a message
 * is read as it comes, and one not complete VU_MSG_TIMEOUT_MS after its
 * first byte drops the front-end (vu_msg.c); the eventfds we signal are
 * non-blocking, and a signal to a full one is counted as lost
 * (vu_eventfd.c: signals_lost, logged when the front-end goes). When the front-end
 * goes, the queues stop, the guest's memory is unmapped, every eventfd is
 * closed, and we exit with -1/--one-off, or listen again (guest_sock.c,
 * which also knows what a migration away changes).
 *
 * Queues: 0 receives (our output), 1 transmits (our input). A queue
 * starts when vu_msg.c gave it a size, ring addresses, a kick eventfd and
 * the memory table (vu_queue_update()); its kick eventfd then joins the
 * epoll set (EPOLL_TYPE_VHOST_KICK, with the queue index and the
 * connection number in the reference, so that events of an older
 * connection are ignored).
 *
 * Input (queue 1): on a kick, we read the eventfd, turn the guest's
 * notifications off, and take frames: each is copied (without its
 * virtio-net header) into a slot of a static batch buffer and handed to
 * tap_frame_in(); after a batch, tap_frames_done() lets TCP finish with the
 * slots. Then notifications go back on; if frames arrived meanwhile, we go
 * on. The guest hears that its frames were taken (call eventfd, if it
 * wants to) at the end of the loop iteration, right after the receive
 * queue's signal (notify()), not after each batch: with legacy interrupts
 * one interrupt then serves both queues, the acknowledgements TCP sent for
 * those frames included, and with MSI-X the two at least come together.
 * After VU_TX_BATCHES batches we stop and write to the kick eventfd
 * ourselves, so that the rest waits for one turn of the main loop, not
 * for the guest.
 * While the queue is disabled (SET_VRING_ENABLE 0), frames are taken and
 * dropped, as the protocol asks.
 *
 * Output (queue 0): send_frames() copies frames into the guest's receive
 * buffers (vu_virtq_push_frame()) until it runs out of them. Then it arms
 * the output wake-up: the receive queue's kick eventfd joins the epoll set
 * for input and the guest's notifications are turned on, for the next
 * buffer it adds (asked again at every stop: not for one we took since).
 * If buffers came in the meantime, it tries once more. On the kick,
 * notifications go off again, the wake-up is disarmed, and qdisc_flush()
 * continues (design.md invariant 2). A frame the queue can never take
 * (too long for the guest's buffers, bad buffers) counts as sent and as a
 * tx_error. Without a started and enabled receive queue, frames are
 * dropped (tx_errors), as without a guest. TCP data frames usually skip
 * that copy: with offloads on, the receive queue lends its buffers
 * (lend(), vu_virtq_lend_frame()), TCP reads the socket into them and
 * writes the headers in place, and each frame is published as TCP
 * commits it. Either way, the guest is signalled (call eventfd, if it
 * wants a signal) once per main loop iteration, when qdisc/ is done with
 * its output (notify()), not after every batch: fewer, larger bursts for
 * its interrupt handler.
 *
 * Offloads: we offer checksum and TCP segmentation offloads both ways
 * (VU_GUEST_OFFLOADS, VU_HOST_OFFLOADS in vu_dev.h). If the guest took
 * all of GUEST_CSUM, GUEST_TSO4 and GUEST_TSO6, offload() says so and
 * tap.c hands us each frame behind its struct virtio_net_hdr (partial
 * checksum, TSO super-frames up to 64 KiB, as for pasta's tap device),
 * which becomes the virtio-net header in guest memory; otherwise frames
 * are plain and the header is all zeroes but for the number of buffers.
 * From the guest, with CSUM and HOST_TSO4/6, frames may have a partial
 * checksum and be TCP super-frames: like pasta's, they go to net_input()
 * as they are (nothing there verifies TCP or UDP checksums, and TCP
 * writes the payload to its socket in one piece). A frame whose header
 * asks for a segmentation we did not agree to (UDP, ECN, or TCP without
 * HOST_TSO4/6) is dropped (rx_bad_offload). vu_off_stats counts
 * offloaded frames, logged when the front-end goes.
 *
 * Bad frames from the guest: a chain vu_virtq can't read, one with fewer
 * bytes than the virtio-net and Ethernet headers, or a frame longer than
 * VU_FRAME_MAX is given back to the guest as used, dropped and counted
 * by reason (tap_rx_drop()); the queue goes on with the next chain.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "vhost_user.h"
#include "../tap/tap.h"
#include "../tap/tap_backend.h"
#include "../tap/guest_sock.h"
#include "vu_dev.h"
#include "../conf/ctx.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/timer.h"

/* Longest frame from the guest: the largest IP packet with a VLAN tag, an
 * IPv6 TSO super-frame (65535 bytes of payload after its 40-byte header)
 */
#define VU_FRAME_MAX		(ETH_HLEN + 4 + 40 + 65535)
/* Frames taken from the transmit queue per batch, and batches per kick */
#define VU_TX_BATCH		TAP_FRAMES_BATCH
#define VU_TX_BATCHES		4
/* A slot of the batch buffer: the frame starts 2 bytes past a 4-byte
 * boundary, so that its IP header is aligned
 */
#define VU_TX_OFF		2
#define VU_TX_SLOT		(((VU_TX_OFF + VU_HDR_LEN + VU_FRAME_MAX) + \
				  63) / 64 * 64)

/* Bytes of frames toward the guest gathered in one run of the scheduler
 * (tap_batch_bytes()): the guest is signalled once a run, and TCP reads a
 * flow's socket once a turn, so larger runs mean fewer of both; frames
 * written in its buffers reach the guest as they are made anyway
 */
#define VU_BATCH_BYTES		(1024 * 1024)

/* While a front-end is attached, the rings are looked at this often: chains
 * that stayed available a whole period without being taken mean a kick
 * that never came (a guest's notification can be lost), and are taken as
 * if it had. A lost kick then costs at most this long, not the guest's
 * network for good
 */
#define VU_RING_CHECK_MS	200

static struct vu_dev vu_dev = { .fd = -1, .log_fd = -1 };
static bool vu_out_armed;		/* receive kick eventfd watched */
static struct tap_stats vu_stats;
static struct wheel_timer vu_ring_timer;	/* vu_ring_check() */

/**
 * struct vu_off_stats - offloaded frames of the current connection
 * @rx_csum:	frames from the guest with a partial checksum
 * @rx_gso:	TSO super-frames from the guest
 * @rx_bad:	frames from the guest with offloads we did not agree to
 * @tx_csum:	frames to the guest with a partial checksum
 * @tx_gso:	TSO super-frames to the guest
 * @tx_lent:	frames to the guest written in place (vu_lend())
 * @kicks_lost:	times chains waited a whole VU_RING_CHECK_MS with no kick
 */
struct vu_off_stats {
	uint64_t rx_csum;
	uint64_t rx_gso;
	uint64_t rx_bad;
	uint64_t tx_csum;
	uint64_t tx_gso;
	uint64_t tx_lent;
	uint64_t kicks_lost;
};
static struct vu_off_stats vu_off_stats;

/* Receive chains lent for frames written in place, between vu_lend() and
 * vu_lend_end()
 */
static struct vu_rx_lend vu_lent;

/* Input: frames of one batch, each in its slot until tap_frames_done() */
static uint8_t vu_tx_buf[VU_TX_BATCH][VU_TX_SLOT] __attribute__((aligned(64)));

/**
 * vu_kick_ref() - epoll reference of a queue's kick eventfd
 * @qi:		queue index
 *
 * Return: reference, with the queue index and the connection number
 */
static union epoll_ref vu_kick_ref(unsigned int qi)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_VHOST_KICK };

	ref.fd = (uint32_t)vu_dev.q[qi].kick_fd;
	ref.data = qi | (vu_dev.gen << 8);
	return ref;
}

/**
 * vu_kick_watch() - add a queue's kick eventfd to epoll, or change events
 * @c:		execution context
 * @qi:		queue index
 * @events:	EPOLLIN to be woken up, 0 to keep it registered but quiet
 *
 * Return: 0 on success, negative errno (logged)
 */
static int vu_kick_watch(const struct ctx *c, unsigned int qi,
			 uint32_t events)
{
	struct vu_queue *q = &vu_dev.q[qi];
	struct epoll_event ev = { .events = events };
	union epoll_ref ref = vu_kick_ref(qi);

	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, q->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD,
		      q->kick_fd, &ev)) {
		int ret = -errno;

		err("vhost-user: can't watch the kick eventfd of queue %u: "
		    "%s", qi, strerror(-ret));
		return ret;
	}
	q->watched = true;
	return 0;
}

/**
 * vu_call() - notify the guest of used buffers, if it asked for it
 * @q:		queue we used buffers of
 */
static void vu_call(struct vu_queue *q)
{
	if (vu_virtq_need_notify(&q->vq) && q->call_fd >= 0)
		vu_eventfd_signal(&vu_dev, q->call_fd, "call eventfd");
}

/**
 * vu_queue_call_new() - a queue has a new call eventfd: signal it once
 * @dev:	device
 * @qi:		queue index
 *
 * What was signalled on the old one may never reach the guest: QEMU gives
 * a queue its guest notifier only after the kick eventfd (which starts
 * the queue, and after a migration puts the state loaded in force), and
 * while the guest masks a vector, and meanwhile signals go to an eventfd
 * nobody forwards. With event indices, such a lost signal stops the
 * queue for good: the guest waits for it, and our next one only comes
 * when the guest asks again. So a running queue's new call eventfd is
 * signalled at once, whether the guest asked or not: a spurious interrupt
 * costs it a look at its rings.
 */
void vu_queue_call_new(struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];

	if (!q->vq.started || q->call_fd < 0)
		return;
	q->unsignalled = false;
	vu_virtq_notified(&q->vq);
	vu_eventfd_signal(dev, q->call_fd, "call eventfd");
}

/**
 * vu_queue_stop() - stop a queue and its kick wake-up, remember where it was
 * @c:		execution context
 * @dev:	device
 * @qi:		queue index
 */
void vu_queue_stop(const struct ctx *c, struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];

	if (q->watched) {
		epoll_ctl(c->epollfd, EPOLL_CTL_DEL, q->kick_fd, NULL);
		q->watched = false;
	}
	if (qi == VU_RX_Q)
		vu_out_armed = false;

	if (!q->vq.started)
		return;

	q->base = q->vq.last_avail;
	vu_virtq_stop(&q->vq);
	debug("vhost-user: queue %u stopped", qi);
}

/**
 * vu_queue_reset() - stop a queue, close its eventfds, forget its set-up
 * @c:		execution context
 * @dev:	device
 * @qi:		queue index
 */
void vu_queue_reset(const struct ctx *c, struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];

	vu_queue_stop(c, dev, qi);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	if (q->call_fd >= 0)
		close(q->call_fd);
	if (q->err_fd >= 0)
		close(q->err_fd);
	memset(q, 0, sizeof(*q));
	q->kick_fd = q->call_fd = q->err_fd = -1;
}

/**
 * vu_queue_start() - start a queue if its configuration is complete
 * @c:		execution context
 * @dev:	device
 * @qi:		queue index
 */
static void vu_queue_start(const struct ctx *c, struct vu_dev *dev,
			   unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];
	int ret;

	if (q->vq.started || !q->num || !q->addr_set || q->kick_fd < 0 ||
	    !dev->mem.n)
		return;

	ret = vu_virtq_start(&q->vq, &dev->mem, q->num, q->desc, q->avail,
			     q->used, q->base);
	if (ret) {
		warn_rl("vhost-user: can't start queue %u (size %u, rings at %#"
			PRIx64 ", %#" PRIx64 ", %#" PRIx64 "): %s", qi, q->num,
			q->desc, q->avail, q->used, strerror(-ret));
		return;
	}
	q->vq.event_idx = !!(dev->features & VU_BIT(VU_F_EVENT_IDX));
	q->vq.mrg_rxbuf = !!(dev->features & VU_BIT(VU_F_MRG_RXBUF));
	vu_mig_log_update(dev);

	if (qi == VU_RX_Q) {
		/* Quiet until we run out of receive buffers */
		vu_virtq_kick_enable(&q->vq, false);
		vu_kick_watch(c, qi, 0);
	} else if (!vu_kick_watch(c, qi, EPOLLIN)) {
		/* Frames may be there already: look once */
		vu_eventfd_write(q->kick_fd);
	}

	info_rl("vhost-user: queue %u (%s) started: %u entries, from index %u",
		qi, qi == VU_RX_Q ? "receive" : "transmit", q->num, q->base);
}

/**
 * vu_queue_update() - start a queue if its configuration is complete, and
 *		       end a migration step waiting for a running queue
 * @c:		execution context
 * @dev:	device
 * @qi:		queue index
 */
void vu_queue_update(const struct ctx *c, struct vu_dev *dev, unsigned int qi)
{
	vu_queue_start(c, dev, qi);
	if (dev->q[qi].vq.started && dev->q[qi].enabled)
		vu_mig_running(c, dev);
}

/**
 * vu_rx_ready() - can frames go to the guest?
 *
 * Return: true if the receive queue is started and enabled
 */
static bool vu_rx_ready(void)
{
	const struct vu_queue *q = &vu_dev.q[VU_RX_Q];

	return vu_dev.fd >= 0 && q->vq.started && q->enabled;
}

/**
 * vu_rx_arm() - arm the output wake-up: the guest's kick on new buffers
 * @c:		execution context
 *
 * Return: true if buffers are available already (no kick will come for
 *	   them)
 */
static bool vu_rx_arm(const struct ctx *c)
{
	struct vu_queue *q = &vu_dev.q[VU_RX_Q];

	if (!vu_rx_ready())
		return false;

	if (!vu_out_armed && !vu_kick_watch(c, VU_RX_Q, EPOLLIN))
		vu_out_armed = true;

	return vu_virtq_kick_enable(&q->vq, true);
}

/**
 * vu_want_output() - arm or disarm the output wake-up
 * @c:		execution context
 * @on:		true to be woken up when the guest adds receive buffers
 */
static void vu_want_output(const struct ctx *c, bool on)
{
	struct vu_queue *q = &vu_dev.q[VU_RX_Q];

	if (on) {
		/* Buffers came before notifications were on: wake up now */
		if (vu_rx_arm(c))
			vu_eventfd_write(q->kick_fd);
		return;
	}

	if (!vu_out_armed)
		return;
	vu_out_armed = false;
	if (q->watched)
		vu_kick_watch(c, VU_RX_Q, 0);
	if (q->vq.started)
		vu_virtq_kick_enable(&q->vq, false);
}

/**
 * vu_tx_count() - count a frame the guest has now
 * @len:	its length
 * @vh:		its offload description, NULL for a plain frame
 */
static void vu_tx_count(size_t len, const struct virtio_net_hdr *vh)
{
	vu_stats.tx_frames++;
	vu_stats.tx_bytes += len;
	if (vh && (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		vu_off_stats.tx_csum++;
	if (vh && vh->gso_type != VIRTIO_NET_HDR_GSO_NONE)
		vu_off_stats.tx_gso++;
}

/**
 * vu_avail_warn() - say once per connection that a ring's index is broken
 * @q:		queue
 * @qi:		its index
 */
static void vu_avail_warn(struct vu_queue *q, unsigned int qi)
{
	if (!q->vq.stats.bad_avail || q->avail_warned)
		return;

	q->avail_warned = true;
	warn_rl("vhost-user: the guest claims more available chains on queue "
		"%u than its %u entries: its driver is broken, the queue is "
		"ignored while that lasts (a reset restarts it)", qi, q->num);
}

/**
 * vu_offload() - tell if frames to the guest may be offloaded
 *
 * Return: true if the guest took GUEST_CSUM, GUEST_TSO4 and GUEST_TSO6:
 *	   send_frames() then gets a struct virtio_net_hdr before each frame
 */
static bool vu_offload(void)
{
	return vu_dev.fd >= 0 &&
	       (vu_dev.features & VU_GUEST_OFFLOADS) == VU_GUEST_OFFLOADS;
}

/**
 * vu_send_frames() - copy frames to the guest's receive queue
 * @c:			execution context
 * @iov:		@nframes groups of @bufs_per_frame buffers; if
 *			vu_offload(), each group starts with the frame's
 *			struct virtio_net_hdr
 * @bufs_per_frame:	buffers per frame
 * @nframes:		frames to write
 *
 * Return: frames written or dropped for good; fewer than @nframes if the
 *	   guest has no more buffers, with the wake-up armed
 */
static size_t vu_send_frames(const struct ctx *c, const struct iovec *iov,
			     size_t bufs_per_frame, size_t nframes)
{
	struct vu_queue *q = &vu_dev.q[VU_RX_Q];
	bool retried = false, off = vu_offload();
	size_t done = 0;

	if (!vu_rx_ready()) {
		vu_stats.tx_errors += nframes;
		return nframes;
	}

	while (done < nframes) {
		const struct iovec *f = iov + done * bufs_per_frame;
		const struct virtio_net_hdr *vh = NULL;
		size_t nbuf = bufs_per_frame, len;
		int ret;

		if (off && nbuf > 1 &&
		    f[0].iov_len == sizeof(struct virtio_net_hdr)) {
			vh = f[0].iov_base;
			f++;
			nbuf--;
		}
		len = iov_size(f, nbuf);

		ret = vu_virtq_push_frame(&q->vq, &vu_dev.mem, vu_dev.hdrlen,
					  vh, f, nbuf);
		if (ret == -EAGAIN) {
			/* Out of buffers: arm (again: the kick must be for
			 * the guest's next buffer, not one we took since),
			 * and try once more if some came meanwhile
			 */
			if (vu_rx_arm(c) && !retried) {
				retried = true;
				continue;
			}
			vu_avail_warn(q, VU_RX_Q);
			vu_stats.tx_backpressure++;
			break;
		}

		if (ret < 0) {
			tap_tx_error(&vu_stats, len, -ret);
		} else {
			vu_tx_count(len, vh);
		}
		done++;
	}

	if (done)
		q->unsignalled = true;
	vu_mig_log_kick(&vu_dev);

	/* Sent all after arming: the wake-up stays armed, and harmless */
	return done;
}

/**
 * vu_lend() - reserve the guest's receive buffers for frames written in
 *	       place
 * @l:		filled with each frame's header and payload areas
 * @frames:	frames wanted, at most TAP_LEND_FRAMES
 * @room:	header bytes of each frame, in its first buffer
 * @payload:	payload bytes each frame may carry
 *
 * Return: frames reserved, 0 if the receive queue can't lend now (not
 *	   ready, too few or bad buffers, or writes logged for a migration)
 */
static size_t vu_lend(struct tap_lend *l, size_t frames, size_t room,
		      size_t payload)
{
	struct vu_queue *q = &vu_dev.q[VU_RX_Q];
	size_t f, used = 0;

	if (!vu_rx_ready() || !vu_offload())
		return 0;

	vu_virtq_lend_start(&q->vq, &vu_lent, vu_dev.hdrlen);
	for (f = 0; f < frames && f < VU_LEND_FRAMES; f++) {
		size_t n;

		n = vu_virtq_lend_frame(&q->vq, &vu_dev.mem, &vu_lent, room,
					payload, l->iov + used,
					TAP_LEND_IOV - used, &l->hdr[f]);
		if (!n)
			break;
		l->first[f] = used;
		used += n;
	}
	l->first[f] = used;
	l->frames = f;
	return f;
}

/**
 * vu_lend_commit() - give a frame written in place to the guest
 * @f:		frame, in order
 * @len:	its length, from the Ethernet header
 * @vh:		its offload description
 *
 * Return: true if it was published, false if dropped (counted)
 */
static bool vu_lend_commit(size_t f, size_t len,
			   const struct virtio_net_hdr *vh)
{
	struct vu_queue *q = &vu_dev.q[VU_RX_Q];
	int ret;

	ret = vu_virtq_lend_commit(&q->vq, &vu_lent, (unsigned int)f, len, vh);
	if (ret < 0) {
		tap_tx_error(&vu_stats, len, -ret);
		return false;
	}

	vu_tx_count(len, vh);
	vu_off_stats.tx_lent++;
	return true;
}

/**
 * vu_lend_end() - done with lent buffers: the rest stays the guest's
 *
 * Chains reserved but not committed were never published: the ring still
 * offers them, for the next frame.
 */
static void vu_lend_end(void)
{
	if (vu_lent.published)
		vu_dev.q[VU_RX_Q].unsignalled = true;
	vu_lent.frames = 0;
}

/**
 * vu_notify() - the loop iteration's output is done: signal the guest once
 *		 for it and once for the frames taken from it, if it wants
 *		 the signals
 */
static void vu_notify(void)
{
	unsigned int qi;

	/* Receive queue first: the frames taken come with their answers.
	 * Without a call eventfd, nothing counts as signalled: the first one
	 * to come gets the signal (vu_queue_call_new())
	 */
	for (qi = 0; qi < VU_QUEUES; qi++) {
		struct vu_queue *q = &vu_dev.q[qi];

		if (q->unsignalled && q->call_fd >= 0) {
			q->unsignalled = false;
			vu_call(q);
		}
	}
}

/**
 * vu_rx_kick() - the guest added receive buffers: continue the output
 * @c:		execution context
 */
static void vu_rx_kick(const struct ctx *c)
{
	if (vu_dev.q[VU_RX_Q].kick_fd >= 0)
		vu_eventfd_read(vu_dev.q[VU_RX_Q].kick_fd);
	vu_want_output(c, false);
	tap_writable(c);
}

/**
 * vu_tx_offload_ok() - check the offloads of a frame from the guest
 * @vh:		its virtio-net header, host order
 * @len:	frame length
 *
 * Return: true if the frame can go to net_input() as it is: no
 *	   segmentation, or TCP segmentation the guest may ask for
 */
static bool vu_tx_offload_ok(const struct virtio_net_hdr *vh, size_t len)
{
	uint64_t need;

	switch (vh->gso_type) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			vu_off_stats.rx_csum++;
		return true;
	case VIRTIO_NET_HDR_GSO_TCPV4:
		need = VU_BIT(VU_F_HOST_TSO4);
		break;
	case VIRTIO_NET_HDR_GSO_TCPV6:
		need = VU_BIT(VU_F_HOST_TSO6);
		break;
	default:		/* UDP, ECN: never offered */
		need = 0;
		break;
	}

	if (need && (vu_dev.features & need)) {
		if (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			vu_off_stats.rx_csum++;
		vu_off_stats.rx_gso++;
		return true;
	}

	vu_off_stats.rx_bad++;
	tap_rx_drop(&vu_stats, TAP_DROP_OFFLOAD, len, vh->gso_type);
	return false;
}

/**
 * vu_tx_drop() - count a frame from the guest that vu_virtq refused
 * @q:		transmit queue
 * @rc:		what vu_virtq_pop_frame() returned, negative
 * @len:	the frame's length, as far as it was read
 */
static void vu_tx_drop(const struct vu_queue *q, int rc, size_t len)
{
	if (rc == -EBADMSG)
		tap_rx_drop(&vu_stats, TAP_DROP_SHORT, len, ETH_HLEN);
	else if (rc == -EMSGSIZE)
		tap_rx_drop(&vu_stats, TAP_DROP_LONG, len, VU_FRAME_MAX);
	else if (rc < 0)
		tap_rx_drop(&vu_stats, TAP_DROP_CHAIN, len, q->num);
}

/**
 * vu_tx_kick() - the guest sent frames: take them
 * @c:		execution context
 * @now_ms:	current time, milliseconds
 */
static void vu_tx_kick(const struct ctx *c, uint64_t now_ms)
{
	struct vu_queue *q = &vu_dev.q[VU_TX_Q];
	uint32_t gen = vu_dev.gen;
	unsigned int b;

	vu_eventfd_read(q->kick_fd);

	for (b = 0; b < VU_TX_BATCHES; b++) {
		unsigned int i, n = 0;
		bool used = false;

		vu_virtq_kick_enable(&q->vq, false);

		for (i = 0; i < VU_TX_BATCH && vu_virtq_has_avail(&q->vq);
		     i++) {
			uint8_t *frame = vu_tx_buf[n] + VU_TX_OFF;
			struct virtio_net_hdr vh;
			size_t len;
			int rc;

			rc = vu_virtq_pop_frame(&q->vq, &vu_dev.mem,
						vu_dev.hdrlen, &vh, frame,
						VU_FRAME_MAX, &len);
			used = true;
			if (rc <= 0) {
				/* Given back already: count, go on */
				vu_tx_drop(q, rc, len);
				continue;
			}
			if (!q->enabled)
				continue;	/* disabled: take and drop */
			if (!vu_tx_offload_ok(&vh, len))
				continue;

			vu_stats.rx_frames++;
			vu_stats.rx_bytes += len;
			tap_frame_in(c, frame, len, now_ms);
			n++;

			/* Answering may have closed the connection */
			if (gen != vu_dev.gen || !q->vq.started)
				return;
		}

		if (n)
			tap_frames_done(c);	/* slots are reused now */
		if (used)
			q->unsignalled = true;
		vu_mig_log_kick(&vu_dev);

		/* Nothing arrived while notifications were off: done */
		if (!vu_virtq_kick_enable(&q->vq, true)) {
			vu_avail_warn(q, VU_TX_Q);
			return;
		}
	}

	/* More to take: after one turn of the main loop */
	vu_eventfd_write(q->kick_fd);
}

/**
 * vu_dev_clear() - initial state of the device, no connection
 * @dev:	device
 */
static void vu_dev_clear(struct vu_dev *dev)
{
	unsigned int qi;

	dev->features = dev->pfeatures = 0;
	dev->hdrlen = VU_HDR_LEN;
	dev->unknown = 0;
	dev->signals_lost = 0;
	vu_msg_discard(dev);
	vu_mig_clear(dev);
	for (qi = 0; qi < VU_QUEUES; qi++) {
		struct vu_queue *q = &dev->q[qi];

		memset(q, 0, sizeof(*q));
		q->kick_fd = q->call_fd = q->err_fd = -1;
	}
}

/**
 * vu_ring_stalled() - tell if a queue's chains waited a whole period
 * @qi:		queue index
 *
 * Return: true if chains are available and none was taken since the last
 *	   look, which would have found them too
 */
static bool vu_ring_stalled(unsigned int qi)
{
	struct vu_queue *q = &vu_dev.q[qi];
	bool had = q->check_had, same = q->check_last == q->vq.last_avail;

	if (!q->vq.started || q->kick_fd < 0)
		return false;

	q->check_had = vu_virtq_has_avail(&q->vq);
	q->check_last = q->vq.last_avail;
	return q->check_had && had && same;
}

/**
 * vu_ring_check() - timer: take chains whose kick never came
 * @c:		execution context
 * @t:		the ring timer
 * @now_ms:	current time
 *
 * The transmit queue always, the receive queue while output waits for
 * buffers (otherwise, its chains wait for frames, not for a kick): a
 * queue whose chains stayed there since the last look gets the kick the
 * guest's notification should have been, through its own eventfd.
 */
static void vu_ring_check(const struct ctx *c, struct wheel_timer *t,
			  uint64_t now_ms)
{
	(void)c;

	if (vu_dev.fd < 0)
		return;		/* armed again by the next attach */

	if (vu_dev.exit_at && now_ms >= vu_dev.exit_at) {
		info("Migration complete, the front-end is still there: "
		     "exiting (--migrate-exit)");
		exit(EXIT_SUCCESS);
	}

	if (vu_ring_stalled(VU_TX_Q)) {
		vu_off_stats.kicks_lost++;
		vu_eventfd_write(vu_dev.q[VU_TX_Q].kick_fd);
	}
	if (vu_ring_stalled(VU_RX_Q) && vu_out_armed) {
		vu_off_stats.kicks_lost++;
		vu_eventfd_write(vu_dev.q[VU_RX_Q].kick_fd);
	}

	timer_arm(t, now_ms + VU_RING_CHECK_MS);
}

/**
 * vu_guest_attach() - vu_dev.fd is a connected front-end: serve it
 * @c:		execution context
 *
 * Return: its epoll reference
 */
static union epoll_ref vu_guest_attach(const struct ctx *c)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_VHOST_CMD };
	int fd = vu_dev.fd;

	(void)c;
	vu_dev_clear(&vu_dev);
	vu_dev.gen++;
	vu_out_armed = false;
	memset(&vu_off_stats, 0, sizeof(vu_off_stats));

	ref.fd = (uint32_t)fd;
	ref.data = vu_dev.gen;
	timer_arm(&vu_ring_timer, timer_now_ms() + VU_RING_CHECK_MS);
	return ref;
}

static const struct guest_sock_ops vu_sock_ops = {
	.peer		= "vhost-user front-end",
	.suffix		= " (vhost-user)",
	.hint		= { "-chardev socket,id=c,path=", " -netdev vhost-user,"
			    "id=v,chardev=c -device virtio-net-pci,netdev=v "
			    "-object memory-backend-memfd,id=m,share=on,"
			    "size=RAM -numa node,memdev=m" },
	.listen_type	= EPOLL_TYPE_VHOST_LISTEN,
	.conn_refused	= &vu_stats.conn_refused,
	.fd		= &vu_dev.fd,
	.attach		= vu_guest_attach,
};

static struct guest_sock vu_sock = GUEST_SOCK_INIT(&vu_sock_ops);

/**
 * vu_guest_close() - the front-end is gone, or must go: clean up, then
 *		      exit or listen
 * @c:		execution context
 * @why:	reason, for the log
 */
void vu_guest_close(const struct ctx *c, const char *why)
{
	unsigned int qi;
	bool away;

	if (vu_dev.fd < 0)
		return;

	away = vu_mig_closed(c, &vu_dev);
	for (qi = 0; qi < VU_QUEUES; qi++)
		vu_queue_reset(c, &vu_dev, qi);
	if (vu_dev.mem.n)
		vu_mem_unmap(&vu_dev.mem);

	info("vhost-user: offloaded frames: from the guest %llu with a "
	     "partial checksum, %llu TSO, %llu refused; to the guest %llu "
	     "with a partial checksum, %llu TSO, %llu written in place; "
	     "%llu kicks lost; %llu signals lost",
	     (unsigned long long)vu_off_stats.rx_csum,
	     (unsigned long long)vu_off_stats.rx_gso,
	     (unsigned long long)vu_off_stats.rx_bad,
	     (unsigned long long)vu_off_stats.tx_csum,
	     (unsigned long long)vu_off_stats.tx_gso,
	     (unsigned long long)vu_off_stats.tx_lent,
	     (unsigned long long)vu_off_stats.kicks_lost,
	     (unsigned long long)vu_dev.signals_lost);

	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, vu_dev.fd, NULL);
	close(vu_dev.fd);
	vu_dev.fd = -1;
	vu_dev.gen++;
	vu_dev_clear(&vu_dev);
	vu_out_armed = false;

	guest_sock_gone(c, &vu_sock, why, away);
}

/**
 * vu_handler() - events on the listening, front-end or kick descriptors
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 * @now_ms:	current time, milliseconds
 */
static void vu_handler(const struct ctx *c, union epoll_ref ref,
		       uint32_t events, uint64_t now_ms)
{
	int ret;

	switch (ref.type) {
	case EPOLL_TYPE_VHOST_LISTEN:
		guest_sock_accept(c, &vu_sock);
		return;
	case EPOLL_TYPE_VHOST_CMD:
		if (vu_dev.fd < 0 || ref.data != vu_dev.gen)
			return;	/* an earlier connection */

		ret = 0;
		if (events & EPOLLIN)
			ret = vu_msg_handle(c, &vu_dev, now_ms);
		if (!ret && (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) &&
		    !(events & EPOLLIN))
			ret = -ECONNRESET;
		if (ret == -ECONNRESET)
			vu_guest_close(c, "front-end closed the connection");
		else if (ret)
			vu_guest_close(c, strerror(-ret));
		return;
	case EPOLL_TYPE_VHOST_KICK:
		if (vu_dev.fd < 0 || (ref.data >> 8) != (vu_dev.gen & 0xffffff))
			return;
		if ((ref.data & 0xff) == VU_TX_Q) {
			if (vu_dev.q[VU_TX_Q].vq.started)
				vu_tx_kick(c, now_ms);
		} else if ((ref.data & 0xff) == VU_RX_Q) {
			vu_rx_kick(c);
		}
		return;
	default:
		return;
	}
}

/**
 * vu_mem_idle() - drop our page table entries of the guest's memory
 *
 * Called when traffic stopped (util/idle_trim.c): the regions are shared
 * mappings of the front-end's file, so MADV_DONTNEED loses nothing, it
 * only stops counting the pages we touched as ours; the next access maps
 * them again from the file. The mappings themselves stay, with every
 * pointer into them (rings, lent chains).
 */
static void vu_mem_idle(void)
{
	unsigned int i;

	for (i = 0; i < vu_dev.mem.n; i++) {
		const struct vu_mem_region *r = &vu_dev.mem.r[i];

		if (r->mmap_base &&
		    madvise(r->mmap_base, r->mmap_len, MADV_DONTNEED))
			debug_perror("vhost-user: madvise() of region %u", i);
	}
}

/**
 * vu_init() - listen for the front-end, or adopt the -F socket
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int vu_init(struct ctx *c)
{
	vu_eventfd_init();
	vu_msg_init(&vu_dev);
	vu_dev_clear(&vu_dev);
	timer_init(&vu_ring_timer, vu_ring_check);
	/* Frames popped from the TX queue are done with (tap_frames_done())
	 * within the kick event that read them: no busy check needed
	 */
	idle_trim_register(vu_tx_buf, sizeof(vu_tx_buf), NULL);
	idle_trim_register_fn(vu_mem_idle);

	return guest_sock_init(c, &vu_sock);
}

/**
 * vu_connected() - is a guest there to receive frames?
 *
 * Return: true if the receive queue is started and enabled
 */
static bool vu_connected(void)
{
	return vu_rx_ready();
}

/**
 * vu_output_armed() - tell if the output wake-up is armed
 *
 * Return: true if the receive queue's kick eventfd is watched
 */
static bool vu_output_armed(void)
{
	return vu_out_armed;
}

/**
 * vu_get_stats() - counters of the vhost-user backend
 *
 * Return: the counters
 */
static const struct tap_stats *vu_get_stats(void)
{
	return &vu_stats;
}

static const struct tap_backend vu_backend = {
	.name = "vhost-user", .init = vu_init, .handler = vu_handler,
	/* Output: copied, or written in place in lent buffers */
	.send_frames = vu_send_frames, .offload = vu_offload,
	.lend = vu_lend, .lend_commit = vu_lend_commit, .lend_end = vu_lend_end,
	.notify = vu_notify, .batch_bytes = VU_BATCH_BYTES,
	/* State, for tap.c and the invariant checks */
	.connected = vu_connected, .want_output = vu_want_output,
	.output_armed = vu_output_armed, .stats = vu_get_stats,
};

/**
 * vu_register() - offer the vhost-user backend to tap/ (main(), at start-up)
 */
void vu_register(void)
{
	tap_backend_register(TAP_KIND_VHOST_USER, &vu_backend);
}
