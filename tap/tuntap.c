// SPDX-License-Identifier: GPL-2.0-or-later
/* tuntap.c - pasta's backend: a tap device inside the target namespace
 *
 * Theory of operation
 *
 * The device is created by opening /dev/net/tun from a thread that entered
 * the target network namespace (ns_run()): a tuntap device lives
 * in the namespace its descriptor was opened in, and disappears when the
 * descriptor is closed. With --fd, the caller created it there and hands
 * us its descriptor; if that has no virtio-net header (IFF_VNET_HDR),
 * frames go without offloads. It is a tap (Ethernet frames) without packet
 * information header, non-blocking, with a longer transmit queue than the
 * default so that bursts from the namespace's kernel are not dropped. Once
 * it exists, nl_ns_configure() sets it up over netlink. With --splice-only
 * there is no device at all: only the namespace's loopback is brought up.
 *
 * Input: each read() returns one frame. On EPOLLIN, up to TAP_FRAMES_BATCH
 * frames are read into static buffers first, then handed to net_input() in
 * order, so that all frames of a batch stay valid while any of them is
 * processed. The device stays in the epoll set level-triggered: frames
 * beyond the batch wake us up again in the next loop iteration.
 *
 * Output: one writev() per frame. A write that fails with EAGAIN or ENOBUFS
 * stops the batch and arms EPOLLOUT; any other failure drops that frame
 * (counted). On EPOLLOUT, the wake-up is disarmed and qdisc_flush() writes
 * what is queued, which re-arms it if the device is still full.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/uio.h>

#include "tap.h"
#include "tap_backend.h"
#include "../conf/ctx.h"
#include "../conf/netlink.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/ns_worker.h"

/* System calls after start-up: frames from and to the tap device */
SYSCALLS(SYSCALLS_PASTA,
	 SYSCALLS_CALL_IF("ioctl", "at exit, leave the device to the end "
			  "of the namespace (TUNSETPERSIST)",
			  SYSCALLS_ARG_EQ(1, TUNSETPERSIST)),
	 SYSCALLS_CALL("read", "a frame from the tap device"),
	 SYSCALLS_CALL("writev", "a frame to it, virtio-net header first"),
	 SYSCALLS_CALL("epoll_ctl", "output wake-up on, off; device gone"));

/* The tuntap character device */
#define TUNTAP_DEV		"/dev/net/tun"
/* Transmit queue of the device, frames (the kernel's default is 1000): one
 * full relay window (4 MiB) of 1514-byte frames, with room to spare, for a
 * namespace without segmentation offloads; see
 * doc/perf-notes/tap-txqueue.md
 */
#define TUNTAP_TXQUEUELEN	5000
/* Room beyond Ethernet header and MTU: VLAN tags, a virtio-net header */
#define TUNTAP_FRAME_SLACK	64
/* Largest frame we read: one buffer of the input batch */
#define TUNTAP_FRAME_MAX	ROUND_UP(ETH_HLEN + MTU_MAX + \
					 TUNTAP_FRAME_SLACK, 64)

static int tuntap_fd = -1;		/* the device, -1 before init */
static bool tuntap_vnet = true;		/* frames carry a virtio-net header */
static char tuntap_name[IFNAMSIZ];	/* its name in the namespace */
static bool tuntap_out_armed;		/* EPOLLOUT is in the epoll set */
static struct tap_stats tuntap_stats;

/* Input batch: frames read, before any is processed */
static uint8_t tuntap_rx[TAP_FRAMES_BATCH][TUNTAP_FRAME_MAX]
	__attribute__((aligned(64)));

/**
 * struct tuntap_open - request to, and result from, the namespace thread
 * @name:	wanted name, empty for the kernel's choice (tapN)
 * @fd:		the device, or -1
 * @ifname:	name the device got
 * @step:	what failed, for messages, NULL on success
 * @step_buf:	room for @step
 * @opened:	the device was opened: a failure was in creating the tap
 * @err:	errno of the failure
 */
struct tuntap_open {
	const char *name;
	int fd;
	char ifname[IFNAMSIZ];
	const char *step;
	char step_buf[IFNAMSIZ + 32];
	bool opened;
	int err;
};

/**
 * tuntap_offload_setup() - enable checksum and segmentation offloads
 * @fd:		tap descriptor opened with IFF_VNET_HDR
 *
 * Every frame, both ways, starts with a struct virtio_net_hdr. With the
 * offloads on, the namespace's kernel also hands us TSO super-frames with
 * partial checksums; without them (old kernel), it does not, but it still
 * takes super-frames and partial checksums from us, which is what makes
 * the relay fast at any MTU.
 */
static void tuntap_offload_setup(int fd)
{
	int hdrlen = sizeof(struct virtio_net_hdr);
	unsigned int off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;

	if (ioctl(fd, TUNSETVNETHDRSZ, &hdrlen))
		debug_perror("TUNSETVNETHDRSZ");
	if (ioctl(fd, TUNSETOFFLOAD, off))
		debug_perror("TUNSETOFFLOAD: frames from the namespace will "
			     "not be offloaded");
}

/**
 * tuntap_open_in_ns() - create the tap device (runs inside the namespace)
 * @arg:	struct tuntap_open
 *
 * Return: 0 on success, negative errno
 */
static int tuntap_open_in_ns(void *arg)
{
	struct tuntap_open *o = arg;
	struct ifreq ifr;
	int fd;

	fd = open(TUNTAP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		o->step = "open " TUNTAP_DEV;
		o->err = errno;
		return -o->err;
	}

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", o->name);
	o->opened = true;
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		snprintf(o->step_buf, sizeof(o->step_buf),
			 "create tap device%s%s", o->name[0] ? " " : "",
			 o->name);
		o->step = o->step_buf;
		o->err = errno;
		close(fd);
		return -o->err;
	}
	snprintf(o->ifname, sizeof(o->ifname), "%s", ifr.ifr_name);
	o->fd = fd;
	tuntap_offload_setup(fd);

	return 0;
}

/**
 * tuntap_open_fail_hint() - what the user can do about a failure
 * @o:		result of the namespace thread
 *
 * Return: hint text, possibly empty
 */
static const char *tuntap_open_fail_hint(const struct tuntap_open *o)
{
	if (!o->opened && o->err == ENOENT)
		return " (is the tun module loaded?)";
	if (!o->opened && o->err == EACCES)
		return " (check the permissions of " TUNTAP_DEV ")";
	if (o->err == EBUSY || o->err == EINVAL)
		return " (is the name used by another interface there?)";
	if (o->err == EPERM)
		return " (we need CAP_NET_ADMIN in the namespace's owner user "
		       "namespace)";
	return "";
}

/**
 * tuntap_adopt() - take the tap device of the caller (--fd)
 * @fd:		descriptor
 * @o:		result: descriptor and name
 *
 * The caller created the device in the namespace. If it opened it with
 * IFF_VNET_HDR, offloads are set up as for ours; otherwise frames come and
 * go without header, within the MTU, with full checksums.
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int tuntap_adopt(int fd, struct tuntap_open *o)
{
	struct ifreq ifr;
	int fl;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr)) {
		err("--fd %d is not a tap device: %s", fd, strerror(errno));
		return -ENODEV;
	}
	if ((ifr.ifr_flags & (IFF_TAP | IFF_TUN)) != IFF_TAP ||
	    !(ifr.ifr_flags & IFF_NO_PI)) {
		err("--fd %d: %s is not a tap device without packet information (open it with IFF_TAP | IFF_NO_PI)",
		    fd, ifr.ifr_name);
		return -EINVAL;
	}

	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		err_perror("--fd %d: can't make it non-blocking", fd);
		return -EBADF;
	}

	tuntap_vnet = ifr.ifr_flags & IFF_VNET_HDR;
	if (tuntap_vnet)
		tuntap_offload_setup(fd);
	o->fd = fd;
	snprintf(o->ifname, sizeof(o->ifname), "%s", ifr.ifr_name);
	info("Tap device %s from --fd %d%s", o->ifname, fd,
	     tuntap_vnet ? ", with offloads" : "");
	return 0;
}

/**
 * tuntap_splice_only() - --splice-only: no tap device, loopback up only
 * @c:		execution context
 *
 * The backend then stays without a device: nothing is connected, and
 * frames for the guest are dropped and counted (tuntap_send_frames()).
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int tuntap_splice_only(const struct ctx *c)
{
	int ret = nl_sock_init_ns(ns_target_fd());

	if (ret < 0)
		return ret;

	debug("--splice-only: no tap device in the namespace");
	return nl_ns_configure(c, NULL);
}

/**
 * tuntap_init() - create, register and configure the tap device
 * @c:		execution context; c->pasta_ifname is set to the device's
 *		name if it was empty
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int tuntap_init(struct ctx *c)
{
	struct tuntap_open o = { .name = c->pasta_ifname, .fd = -1 };
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_PASTA };
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	if (ns_target_fd() < 0) {
		err("no target network namespace to create the tap device in");
		return -EBADF;
	}

	if (c->splice_only)
		return tuntap_splice_only(c);

	/* A batch is read and handed over in one event, whole frames only,
	 * and the frames are done with (tap_frames_done(), from tap_handler())
	 * before the event ends: nothing stays in it between events, no busy check.
	 */
	idle_trim_register(tuntap_rx, sizeof(tuntap_rx), NULL);

	if (c->fd_tap_preopened >= 0) {
		ret = tuntap_adopt(c->fd_tap_preopened, &o);
		if (ret)
			return ret;
		if (strcmp(c->pasta_ifname, o.ifname) != 0)
			memcpy(c->pasta_ifname, o.ifname,
			       sizeof(c->pasta_ifname));
	} else {
		ret = ns_run(tuntap_open_in_ns, &o);
		if (ret) {
			if (o.step) {
				err("can't %s in the namespace: %s%s", o.step,
				    strerror(o.err), tuntap_open_fail_hint(&o));
			}
			return ret;
		}
	}

	tuntap_fd = o.fd;
	memcpy(tuntap_name, o.ifname, sizeof(tuntap_name));
	if (!c->pasta_ifname[0])
		memcpy(c->pasta_ifname, o.ifname, sizeof(c->pasta_ifname));

	ref.fd = (uint32_t)tuntap_fd;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, tuntap_fd, &ev)) {
		ret = -errno;
		err("can't add tap device %s to epoll: %s", tuntap_name,
		    strerror(-ret));
		goto fail;
	}
	tuntap_out_armed = false;

	ret = nl_sock_init_ns(ns_target_fd());
	if (ret < 0)
		goto fail_epoll;

	ret = nl_ns_configure(c, tuntap_name);
	if (ret)
		goto fail_epoll;

	/* Not fatal: only more drops in bursts from the namespace */
	(void)nl_ns_link_txqlen(tuntap_name, TUNTAP_TXQUEUELEN);

	debug("tap device %s ready in the namespace", tuntap_name);
	return 0;

fail_epoll:
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, tuntap_fd, NULL);
fail:
	close(tuntap_fd);
	tuntap_fd = -1;
	return ret;
}

/**
 * tuntap_want_output() - arm or disarm EPOLLOUT on the device
 * @c:		execution context
 * @on:		true to be woken up when the device takes frames again
 */
static void tuntap_want_output(const struct ctx *c, bool on)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_PASTA };
	struct epoll_event ev = { .events = EPOLLIN };

	if (tuntap_fd < 0 || on == tuntap_out_armed)
		return;

	if (on)
		ev.events |= EPOLLOUT;
	ref.fd = (uint32_t)tuntap_fd;
	ev.data.u64 = ref.u64;

	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, tuntap_fd, &ev)) {
		err_perror("can't %s output wake-up for tap device %s",
			   on ? "arm" : "disarm", tuntap_name);
		return;
	}

	tuntap_out_armed = on;
}

/**
 * tuntap_gone() - the device was deleted from the namespace: nothing to do
 * @err_no:	errno of the failed read or write
 */
static void __attribute__((noreturn)) tuntap_gone(int err_no)
{
	die("tap device %s is gone from the namespace (%s), exiting",
	    tuntap_name, strerror(err_no));
}

/**
 * tuntap_frame_bad() - check the length of what one read() returned
 * @r:		bytes the frame had (virtio-net header included): the kernel
 *		returns the whole length even if it copied only the buffer
 *
 * Return: true if the frame is dropped (counted): shorter than the
 *	   virtio-net and Ethernet headers, or cut by the end of the buffer
 */
static bool tuntap_frame_bad(size_t r)
{
	const size_t vh = sizeof(struct virtio_net_hdr);

	if (r < vh + ETH_HLEN) {
		tap_rx_drop(&tuntap_stats, TAP_DROP_SHORT,
			    r < vh ? 0 : r - vh, ETH_HLEN);
		return true;
	}
	if (r > TUNTAP_FRAME_MAX) {
		tap_rx_drop(&tuntap_stats, TAP_DROP_LONG, r - vh,
			    TUNTAP_FRAME_MAX - vh);
		return true;
	}
	return false;
}

/**
 * tuntap_input() - read a batch of frames, hand each to net_input()
 * @c:		execution context
 * @now_ms:	current time, milliseconds
 */
static void tuntap_input(const struct ctx *c, uint64_t now_ms)
{
	size_t len[TAP_FRAMES_BATCH];
	size_t n = 0, i;

	while (n < TAP_FRAMES_BATCH) {
		ssize_t r = read(tuntap_fd, tuntap_rx[n], TUNTAP_FRAME_MAX);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EBADFD)
				tuntap_gone(errno);

			tuntap_stats.rx_errors++;
			debug_perror("read from tap device %s", tuntap_name);
			break;
		}

		if (tuntap_frame_bad((size_t)r))
			continue;

		len[n++] = (size_t)r;
	}

	for (i = 0; i < n; i++) {
		const size_t vh = tuntap_vnet ? sizeof(struct virtio_net_hdr)
					      : 0;

		tuntap_stats.rx_frames++;
		tuntap_stats.rx_bytes += len[i] - vh;
		/* Checksums may be partial (offloaded): nothing here
		 * verifies TCP or UDP checksums of guest frames anyway
		 */
		tap_frame_in(c, tuntap_rx[i] + vh, len[i] - vh, now_ms);
	}
}

/**
 * tuntap_handler() - events on the tap device
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 * @now_ms:	current time, milliseconds
 */
static void tuntap_handler(const struct ctx *c, union epoll_ref ref,
			   uint32_t events, uint64_t now_ms)
{
	if (ref.type != EPOLL_TYPE_TAP_PASTA || tuntap_fd < 0)
		return;

	if (events & EPOLLOUT) {
		/* One-shot: tap_writable() re-arms it if the device is full */
		tuntap_want_output(c, false);
		tap_writable(c);
	}

	if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
		tuntap_input(c, now_ms);
}

/**
 * tuntap_send_frames() - write frames to the device, one writev() each
 * @c:			execution context
 * @iov:		@nframes groups of @bufs_per_frame buffers
 * @bufs_per_frame:	buffers per frame
 * @nframes:		frames to write
 *
 * Return: frames written or dropped for good; fewer than @nframes if the
 *	   device is full, with EPOLLOUT armed
 */
static size_t tuntap_send_frames(const struct ctx *c, const struct iovec *iov,
				 size_t bufs_per_frame, size_t nframes)
{
	size_t i = 0;

	/* No device (--splice-only): nothing can be written, ever; drop
	 * (counted) rather than keep the frames queued
	 */
	if (tuntap_fd < 0) {
		tuntap_stats.tx_errors += nframes;
		return nframes;
	}

	while (i < nframes) {
		const struct iovec *f = iov + i * bufs_per_frame;
		ssize_t n = writev(tuntap_fd, f, (int)bufs_per_frame);

		if (n < 0) {
			if (errno == EINTR)
				continue;

			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS) {
				tuntap_stats.tx_backpressure++;
				tuntap_want_output(c, true);
				break;
			}

			if (errno == EBADFD)
				tuntap_gone(errno);

			tap_tx_error(&tuntap_stats,
				     iov_size(f, bufs_per_frame), errno);
		} else {
			tuntap_stats.tx_frames++;
			tuntap_stats.tx_bytes += (size_t)n;
		}
		i++;
	}

	return i;
}

/**
 * tuntap_connected() - is the device there?
 *
 * Return: true once it was created
 */
static bool tuntap_connected(void)
{
	return tuntap_fd >= 0;
}

/**
 * tuntap_output_armed() - tell if EPOLLOUT is armed on the device
 *
 * Return: true if it is in the epoll set with EPOLLOUT
 */
static bool tuntap_output_armed(void)
{
	return tuntap_out_armed;
}

/**
 * tuntap_get_stats() - counters of the tuntap backend
 *
 * Return: the counters
 */
static const struct tap_stats *tuntap_get_stats(void)
{
	return &tuntap_stats;
}

/**
 * tuntap_offload() - tell if the device takes offloaded frames
 *
 * Return: true if the device is opened with IFF_VNET_HDR (always, unless
 *	   it came from --fd without it): every frame written carries a
 *	   struct virtio_net_hdr
 */
static bool tuntap_offload(void)
{
	return tuntap_vnet;
}

/**
 * tuntap_leave() - at exit, leave the device to the end of its namespace
 *
 * A persistent device outlives our descriptor: closing it at exit no
 * longer removes it (which waits for RCU grace periods), and the kernel
 * deletes it with its network namespace, as it does every virtual device
 * there. See tap_leave_to_netns() for when this is right.
 */
static void tuntap_leave(void)
{
	if (tuntap_fd >= 0 && ioctl(tuntap_fd, TUNSETPERSIST, 1))
		debug_perror("TUNSETPERSIST at exit");
}

static const struct tap_backend tuntap_backend = {
	.name		= "tuntap",
	.init		= tuntap_init,
	.handler	= tuntap_handler,
	.send_frames	= tuntap_send_frames,
	.connected	= tuntap_connected,
	.want_output	= tuntap_want_output,
	.output_armed	= tuntap_output_armed,
	.stats		= tuntap_get_stats,
	.offload	= tuntap_offload,
	.leave		= tuntap_leave,
};

/**
 * tuntap_register() - offer the tuntap backend to tap.c (main(), at start-up)
 */
void tuntap_register(void)
{
	tap_backend_register(TAP_KIND_TUNTAP, &tuntap_backend);
}
