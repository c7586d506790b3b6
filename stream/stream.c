// SPDX-License-Identifier: GPL-2.0-or-later
/* stream.c - passt's backend: a UNIX stream socket (QEMU -netdev stream)
 *
 * Theory of operation
 *
 * The guest's frames travel over one stream connection, each preceded by
 * its length as a 4-byte big-endian integer (QEMU's "-netdev stream" and
 * "-netdev socket" framing).
 *
 * Connection set-up is tap/guest_sock.c's, shared with vhost-user: the
 * -F/--fd socket for one connection, or a UNIX socket at the -s path or
 * the first free /tmp/passt_N.socket, one guest at a time, from our user
 * or root only; when the guest goes, we exit (-1/--one-off) or listen
 * again.
 *
 * Why not in tap/: this is not a tap device but a protocol over a socket,
 * as vhost-user is; both register with tap/ (tap_backend_register()) as
 * tuntap.c does, and share the socket's life through tap/ (doc/design.md,
 * "Layers").
 *
 * Input: the socket is non-blocking; one read() per wake-up into a large
 * static buffer takes whatever the socket holds, then every complete frame
 * in it goes to tap_frame_in() in place. A frame cut by the end of the
 * read is moved to the start of the buffer and completed by the next
 * read: a guest that sends a frame a byte at a time costs a wake-up per
 * byte, never a wait, so no deadline is needed. The buffer starts 2 bytes
 * past a 4-byte boundary, so the first frame of a read (and any frame
 * after frames of lengths multiple of 4) has its IP header 4-byte aligned.
 *
 * Bad frames: the length prefix says how many bytes follow, and they
 * follow, so a frame shorter than an Ethernet header (0 to 13 bytes) or
 * longer than the largest frame (STREAM_FRAME_MAX) leaves the framing
 * intact: it is read like any other, dropped and counted (tap_rx_drop()),
 * and the next frame is served. Closing would cost the guest every
 * connection it has, and QEMU's -netdev stream client does not reconnect.
 * A length beyond STREAM_SKIP_MAX is different: no network device makes
 * such frames, so the stream lost its framing (a writer that skipped or
 * repeated bytes), and whatever follows would be read as garbage lengths.
 * That alone closes the connection, logged with the numbers (and counted
 * as rx_long). Up to STREAM_SKIP_MAX, a long frame is waited for whole in
 * the input buffer, which is larger, then skipped.
 *
 * Output: one sendmsg() carries as many frames as fit STREAM_TX_IOV
 * buffers, each frame preceded by a length from a static array. The socket
 * may take only part of it. Frames sent entirely are done; of a frame
 * sent partly, the unsent rest (length prefix included) is copied to a
 * small buffer, and the frame counts as sent: the caller may reuse its
 * buffers, and the rest leaves before any other byte, so the framing
 * holds. In both cases EPOLLOUT is armed. On EPOLLOUT, the rest of a
 * partial frame is written first, then qdisc_flush() continues the queue
 * (which re-arms the wake-up if the socket is full again). While the rest
 * of a partial frame is pending, a new batch puts it first in its
 * sendmsg().
 *
 * With no guest connected, frames are dropped (counted in tx_errors).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "stream.h"
#include "../tap/tap.h"
#include "../tap/tap_backend.h"
#include "../tap/guest_sock.h"
#include "../conf/ctx.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/sockbuf.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up: reading frames, sending batches of them
 * (buffer sizes: util/sockbuf.c); accepting a guest: tap/guest_sock.c
 */
SYSCALLS(SYSCALLS_PASST,
	 SYSCALLS_CALL("read", "length-prefixed frames from the guest"),
	 SYSCALLS_CALL("sendmsg", "a batch of frames to the guest"),
	 SYSCALLS_CALL("sendto", "the rest of a frame cut short (send())"),
	 SYSCALLS_CALL("epoll_ctl", "watch the guest, the listening socket"),
	 SYSCALLS_CALL("close", "the guest, when it is gone"));

/* Length prefix of each frame, bytes */
#define STREAM_LEN_SIZE		sizeof(uint32_t)
/* Shortest frame: an Ethernet header */
#define STREAM_FRAME_MIN	ETH_HLEN
/* Longest frame: Ethernet header, a VLAN tag, the largest IP packet */
#define STREAM_FRAME_MAX	(ETH_HLEN + 4 + 65535)
/* Longest frame skipped (read and dropped) instead of closing the stream:
 * sixteen times the largest frame, far beyond what any device sends
 */
#define STREAM_SKIP_MAX		(16 * STREAM_FRAME_MAX)

/* Input buffer: what one read() can take */
#define STREAM_RX_SIZE		(8 * 1024 * 1024)
/* Offset of the buffer from a 64-byte boundary: puts the first frame's
 * Ethernet header at 2 mod 4, so that its IP header is 4-byte aligned
 */
#define STREAM_RX_OFF		2

/* Frames gathered for one sendmsg(): the scheduler's run, and a flow's
 * turn, grow to it (see tap_batch_bytes())
 */
#define STREAM_BATCH_BYTES	(1024 * 1024)

/* Socket buffers without --tap-rmem/--tap-wmem: room for a whole batch when
 * EPOLLOUT fires (a UNIX stream socket is writable again at three quarters
 * free), as the kernel's net.core.wmem_max and rmem_max allow
 */
#define STREAM_SOCK_BUF		(1024 * 1024)

/* Buffers in one sendmsg(), and frames (length prefixes) in one batch */
#define STREAM_TX_IOV		1024
#define STREAM_TX_FRAMES	(STREAM_TX_IOV / 2)

static int stream_fd = -1;		/* connected guest, -1 if none */
static uint32_t stream_gen;		/* connection number, in epoll refs */
static uint64_t stream_conn_frames;	/* frames read on this connection */
static bool stream_out_armed;		/* EPOLLOUT is in the epoll set */
static struct tap_stats stream_stats;
static bool stream_rmem_reported, stream_wmem_reported;

/* Input: bytes read and not yet handed over start at stream_rx_base() */
static uint8_t stream_rx[STREAM_RX_OFF + STREAM_RX_SIZE]
	__attribute__((aligned(64)));
static size_t stream_rx_fill;

/* Output: unsent rest of a frame reported as sent (prefix included) */
static uint8_t stream_tail[STREAM_LEN_SIZE + STREAM_FRAME_MAX];
static size_t stream_tail_len;		/* bytes in stream_tail */
static size_t stream_tail_done;		/* of which already written */

/* Output: length prefixes (network order) and buffers of one batch */
static uint32_t stream_tx_len[STREAM_TX_FRAMES];
static struct iovec stream_tx_iov[STREAM_TX_IOV];

/**
 * stream_rx_busy() - tell if the input buffer holds part of a frame
 *
 * Return: true if bytes read wait for the rest of their frame
 */
static bool stream_rx_busy(void)
{
	return stream_rx_fill;
}

/**
 * stream_tail_busy() - tell if the rest of a frame waits to be written
 *
 * Return: true if it does: its bytes were reported as sent, they must stay
 */
static bool stream_tail_busy(void)
{
	return stream_tail_len;
}

/**
 * stream_rx_base() - start of the input buffer
 *
 * Return: pointer to the first byte not yet handed over
 */
static inline uint8_t *stream_rx_base(void)
{
	return stream_rx + STREAM_RX_OFF;
}

/**
 * stream_epoll_ref() - epoll reference of the connected guest socket
 *
 * Return: reference, with the connection number in @data
 */
static union epoll_ref stream_epoll_ref(void)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TAP_STREAM };

	ref.fd = (uint32_t)stream_fd;
	ref.data = stream_gen;
	return ref;
}

/**
 * stream_guest_attach() - stream_fd is a connected guest: serve it
 * @c:		execution context
 *
 * Return: its epoll reference
 */
static union epoll_ref stream_guest_attach(const struct ctx *c)
{
	int fd = stream_fd;

	if (c->tap_rmem > 0)
		sockbuf_set(fd, SO_RCVBUF, c->tap_rmem, "--tap-rmem",
			    &stream_rmem_reported);
	else
		sockbuf_set_quiet(fd, SO_RCVBUF, STREAM_SOCK_BUF);
	if (c->tap_wmem > 0)
		sockbuf_set(fd, SO_SNDBUF, c->tap_wmem, "--tap-wmem",
			    &stream_wmem_reported);
	else
		sockbuf_set_quiet(fd, SO_SNDBUF, STREAM_SOCK_BUF);

	stream_gen++;
	stream_conn_frames = 0;
	stream_rx_fill = 0;
	stream_tail_len = stream_tail_done = 0;
	stream_out_armed = false;

	return stream_epoll_ref();
}

static const struct guest_sock_ops stream_sock_ops = {
	.peer		= "guest",
	.suffix		= "",
	.hint		= { "-device virtio-net-pci,netdev=s -netdev stream,"
			    "id=s,server=off,addr.type=unix,addr.path=", "" },
	.listen_type	= EPOLL_TYPE_TAP_LISTEN,
	.conn_refused	= &stream_stats.conn_refused,
	.fd		= &stream_fd,
	.attach		= stream_guest_attach,
};

static struct guest_sock stream_sock = GUEST_SOCK_INIT(&stream_sock_ops);

/**
 * stream_guest_close() - the guest is gone: close, then exit or listen
 * @c:		execution context
 * @why:	reason, for the log
 */
static void stream_guest_close(const struct ctx *c, const char *why)
{
	if (stream_fd < 0)
		return;

	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, stream_fd, NULL);
	close(stream_fd);
	stream_fd = -1;
	stream_gen++;
	stream_rx_fill = 0;
	stream_tail_len = stream_tail_done = 0;
	stream_out_armed = false;

	guest_sock_gone(c, &stream_sock, why, false);
}

/**
 * stream_want_output() - arm or disarm EPOLLOUT on the guest socket
 * @c:		execution context
 * @on:		true to be woken up when the socket takes data again
 */
static void stream_want_output(const struct ctx *c, bool on)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	union epoll_ref ref;

	if (stream_fd < 0 || on == stream_out_armed)
		return;

	if (on)
		ev.events |= EPOLLOUT;
	ref = stream_epoll_ref();
	ev.data.u64 = ref.u64;

	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, stream_fd, &ev)) {
		err_perror("can't %s output wake-up for the guest socket",
			   on ? "arm" : "disarm");
		return;
	}

	stream_out_armed = on;
}

/**
 * stream_lost_framing() - a length no frame can have: close the stream
 * @c:		execution context
 * @len:	the length read
 */
static void stream_lost_framing(const struct ctx *c, uint32_t len)
{
	stream_stats.rx_drop[TAP_DROP_LONG]++;
	err("guest sent a frame length of %u bytes after %llu frames, beyond "
	    "the %u bytes up to which a frame is skipped (the largest frame "
	    "is %u bytes): the stream lost its framing, closing the "
	    "connection%s", len, (unsigned long long)stream_conn_frames,
	    (unsigned int)STREAM_SKIP_MAX, (unsigned int)STREAM_FRAME_MAX,
	    stream_conn_frames ? "" : " (does the peer speak QEMU's -netdev "
	    "stream protocol? vhost-user needs --vhost-user)");
	stream_guest_close(c, "lost framing");
}

/**
 * stream_input() - read what the guest sent, hand over complete frames
 * @c:		execution context
 * @now_ms:	current time, milliseconds
 */
static void stream_input(const struct ctx *c, uint64_t now_ms)
{
	uint8_t *base = stream_rx_base();
	uint32_t gen = stream_gen;
	size_t p = 0;
	ssize_t n;

	do
		n = read(stream_fd, base + stream_rx_fill,
			 STREAM_RX_SIZE - stream_rx_fill);
	while (n < 0 && errno == EINTR);

	if (n == 0) {
		stream_guest_close(c, "end of stream");
		return;
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		stream_stats.rx_errors++;
		stream_guest_close(c, strerror(errno));
		return;
	}

	stream_rx_fill += (size_t)n;

	while (stream_rx_fill - p >= STREAM_LEN_SIZE) {
		uint32_t be, len;

		memcpy(&be, base + p, sizeof(be));
		len = ntohl(be);

		if (len > STREAM_SKIP_MAX) {
			stream_lost_framing(c, len);
			return;
		}

		if (stream_rx_fill - p - STREAM_LEN_SIZE < len)
			break;	/* cut by the end of the read */

		stream_conn_frames++;
		if (len < STREAM_FRAME_MIN) {
			tap_rx_drop(&stream_stats, TAP_DROP_SHORT, len,
				    STREAM_FRAME_MIN);
		} else if (len > STREAM_FRAME_MAX) {
			tap_rx_drop(&stream_stats, TAP_DROP_LONG, len,
				    STREAM_FRAME_MAX);
		} else {
			stream_stats.rx_frames++;
			stream_stats.rx_bytes += len;
			tap_frame_in(c, base + p + STREAM_LEN_SIZE, len,
				     now_ms);

			/* A write error while answering may have closed it */
			if (gen != stream_gen)
				return;
		}

		p += STREAM_LEN_SIZE + len;
	}

	if (p) {
		tap_frames_done(c);	/* frames in [0, p) are reused now */
		memmove(base, base + p, stream_rx_fill - p);
		stream_rx_fill -= p;
	}
}

/**
 * stream_write_error() - a write to the guest failed
 * @c:		execution context
 * @err_no:	errno of the failure
 *
 * Return: true if the connection was closed, false for "try later" (the
 *	   output wake-up is armed then)
 */
static bool stream_write_error(const struct ctx *c, int err_no)
{
	if (err_no == EAGAIN || err_no == EWOULDBLOCK || err_no == ENOBUFS) {
		stream_stats.tx_backpressure++;
		stream_want_output(c, true);
		return false;
	}

	stream_guest_close(c, strerror(err_no));
	return true;
}

/**
 * stream_tail_flush() - write the rest of a partially sent frame
 * @c:		execution context
 *
 * Return: true if nothing is left of it, false if the socket is full
 *	   (wake-up armed) or the connection was closed
 */
static bool stream_tail_flush(const struct ctx *c)
{
	while (stream_tail_done < stream_tail_len) {
		ssize_t n = send(stream_fd, stream_tail + stream_tail_done,
				 stream_tail_len - stream_tail_done,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			stream_write_error(c, errno);
			return false;
		}
		stream_tail_done += (size_t)n;
	}

	stream_tail_len = stream_tail_done = 0;
	return true;
}

/**
 * stream_keep_tail() - copy the unsent rest of a frame
 * @prefix:		the frame's length prefix, network order
 * @f:			the frame's buffers
 * @bufs_per_frame:	their number
 * @skip:		bytes of prefix and frame already written
 */
static void stream_keep_tail(const uint32_t *prefix, const struct iovec *f,
			     size_t bufs_per_frame, size_t skip)
{
	const uint8_t *pfx = (const uint8_t *)prefix;
	size_t out = 0, j;

	for (; skip < STREAM_LEN_SIZE; skip++)
		stream_tail[out++] = pfx[skip];
	skip -= STREAM_LEN_SIZE;

	for (j = 0; j < bufs_per_frame; j++) {
		size_t l = f[j].iov_len;

		if (skip >= l) {
			skip -= l;
			continue;
		}
		memcpy(stream_tail + out, (const uint8_t *)f[j].iov_base + skip,
		       l - skip);
		out += l - skip;
		skip = 0;
	}

	stream_tail_len = out;
	stream_tail_done = 0;
}

/**
 * stream_tx_build() - fill stream_tx_iov with one batch for sendmsg()
 * @iov:		@nframes groups of @bufs_per_frame buffers
 * @bufs_per_frame:	buffers per frame
 * @nframes:		frames to write
 * @done:		frames already dealt with, advanced past frames of
 *			invalid length at the start of the batch (dropped)
 * @nbatch:		set to the number of frames in the batch
 * @tail:		set to the bytes of a pending rest put first, 0 if none
 *
 * The batch starts with the unsent rest of a partial frame, if any, then
 * holds length prefixes and frames, as many as fit, up to the first frame
 * of invalid length after the first valid one (it is dropped by the next
 * batch, after what precedes it is sent).
 *
 * Return: number of entries used in stream_tx_iov, 0 if nothing is left
 */
static size_t stream_tx_build(const struct iovec *iov, size_t bufs_per_frame,
			      size_t nframes, size_t *done, size_t *nbatch,
			      size_t *tail)
{
	size_t niov = 0, k = 0, len, i;

	*tail = 0;
	if (stream_tail_done < stream_tail_len) {
		*tail = stream_tail_len - stream_tail_done;
		stream_tx_iov[0].iov_base = stream_tail + stream_tail_done;
		stream_tx_iov[0].iov_len = *tail;
		niov = 1;
	}

	while (*done + k < nframes && k < STREAM_TX_FRAMES &&
	       niov + 1 + bufs_per_frame <= STREAM_TX_IOV) {
		const struct iovec *f = iov + (*done + k) * bufs_per_frame;

		len = iov_size(f, bufs_per_frame);
		if (len < STREAM_FRAME_MIN || len > STREAM_FRAME_MAX) {
			if (k)
				break;	/* send what precedes it */
			tap_tx_error(&stream_stats, len, EMSGSIZE);
			(*done)++;
			continue;
		}

		stream_tx_len[k] = htonl((uint32_t)len);
		stream_tx_iov[niov].iov_base = &stream_tx_len[k];
		stream_tx_iov[niov++].iov_len = STREAM_LEN_SIZE;
		for (i = 0; i < bufs_per_frame; i++)
			stream_tx_iov[niov++] = f[i];
		k++;
	}

	*nbatch = k;
	return niov;
}

/**
 * stream_tx_sent() - account for what one sendmsg() of a batch wrote
 * @c:			execution context
 * @iov:		@nframes groups of @bufs_per_frame buffers
 * @bufs_per_frame:	buffers per frame
 * @done:		frames already dealt with, advanced past those sent
 *			(entirely, or partly with the rest kept)
 * @nbatch:		frames in the batch
 * @tail:		bytes of a pending rest that came first in the batch
 * @n:			bytes the socket took
 *
 * Return: true if the whole batch left, false if the socket is full
 *	   (EPOLLOUT armed)
 */
static bool stream_tx_sent(const struct ctx *c, const struct iovec *iov,
			   size_t bufs_per_frame, size_t *done, size_t nbatch,
			   size_t tail, size_t n)
{
	size_t i;

	if (n < tail) {
		stream_tail_done += n;
		stream_stats.tx_backpressure++;
		stream_want_output(c, true);
		return false;
	}
	n -= tail;
	stream_tail_len = stream_tail_done = 0;

	for (i = 0; i < nbatch; i++) {
		const struct iovec *f = iov + *done * bufs_per_frame;
		size_t len = ntohl(stream_tx_len[i]);
		size_t flen = STREAM_LEN_SIZE + len;

		if (!n)
			break;
		if (n < flen)
			stream_keep_tail(&stream_tx_len[i], f, bufs_per_frame,
					 n);

		stream_stats.tx_frames++;
		stream_stats.tx_bytes += len;
		(*done)++;
		n -= MIN(n, flen);
	}

	if (i < nbatch || stream_tail_len) {
		stream_stats.tx_backpressure++;
		stream_want_output(c, true);
		return false;
	}

	return true;
}

/**
 * stream_send_frames() - write frames with their length prefixes
 * @c:			execution context
 * @iov:		@nframes groups of @bufs_per_frame buffers
 * @bufs_per_frame:	buffers per frame
 * @nframes:		frames to write
 *
 * Return: frames written, or kept as a pending rest, or dropped for good;
 *	   fewer than @nframes if the socket is full, with EPOLLOUT armed
 */
static size_t stream_send_frames(const struct ctx *c, const struct iovec *iov,
				 size_t bufs_per_frame, size_t nframes)
{
	size_t done = 0;

	if (stream_fd < 0 || bufs_per_frame + 2 > STREAM_TX_IOV) {
		stream_stats.tx_errors += nframes;
		return nframes;
	}

	while (done < nframes) {
		struct msghdr mh = { .msg_iov = stream_tx_iov };
		size_t nbatch, tail;
		ssize_t n;

		mh.msg_iovlen = stream_tx_build(iov, bufs_per_frame, nframes,
						&done, &nbatch, &tail);
		if (!mh.msg_iovlen)
			break;	/* only dropped frames were left */

		n = sendmsg(stream_fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (!stream_write_error(c, errno))
				return done;
			stream_stats.tx_errors += nframes - done;
			return nframes;	/* the guest is gone: drop */
		}

		if (!stream_tx_sent(c, iov, bufs_per_frame, &done, nbatch,
				    tail, (size_t)n))
			return done;
	}

	return done;
}

/**
 * stream_handler() - events on the listening or the guest socket
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 * @now_ms:	current time, milliseconds
 */
static void stream_handler(const struct ctx *c, union epoll_ref ref,
			   uint32_t events, uint64_t now_ms)
{
	if (ref.type == EPOLL_TYPE_TAP_LISTEN) {
		guest_sock_accept(c, &stream_sock);
		return;
	}

	/* Events of an earlier connection, queued before it was closed */
	if (ref.type != EPOLL_TYPE_TAP_STREAM || stream_fd < 0 ||
	    ref.data != stream_gen)
		return;

	if (events & EPOLLOUT) {
		/* One-shot: flushing re-arms it if the socket is full */
		stream_want_output(c, false);
		if (stream_tail_flush(c))
			tap_writable(c);
		if (stream_fd < 0 || ref.data != stream_gen)
			return;
	}

	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		stream_input(c, now_ms);
}

/**
 * stream_init() - listen for the guest, or adopt the -F socket
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int stream_init(struct ctx *c)
{
	idle_trim_register(stream_rx, sizeof(stream_rx), stream_rx_busy);
	idle_trim_register(stream_tail, sizeof(stream_tail), stream_tail_busy);

	return guest_sock_init(c, &stream_sock);
}

/**
 * stream_connected() - is a guest connected?
 *
 * Return: true while a guest socket is open
 */
static bool stream_connected(void)
{
	return stream_fd >= 0;
}

/**
 * stream_output_armed() - tell if EPOLLOUT is armed on the guest socket
 *
 * Return: true if it is in the epoll set with EPOLLOUT
 */
static bool stream_output_armed(void)
{
	return stream_out_armed;
}

/**
 * stream_output_held() - tell if the rest of a partly sent frame waits
 *
 * Return: true if bytes of a frame reported as sent are still to be written
 */
static bool stream_output_held(void)
{
	return stream_fd >= 0 && stream_tail_done < stream_tail_len;
}

/**
 * stream_get_stats() - counters of the stream backend
 *
 * Return: the counters
 */
static const struct tap_stats *stream_get_stats(void)
{
	return &stream_stats;
}

static const struct tap_backend stream_backend = {
	.name		= "stream",
	.init		= stream_init,
	.handler	= stream_handler,
	.send_frames	= stream_send_frames,
	.connected	= stream_connected,
	.want_output	= stream_want_output,
	.output_armed	= stream_output_armed,
	.output_held	= stream_output_held,
	.stats		= stream_get_stats,
	.batch_bytes	= STREAM_BATCH_BYTES,
};

/**
 * stream_register() - offer the stream backend to tap/ (main(), at start-up)
 */
void stream_register(void)
{
	tap_backend_register(TAP_KIND_STREAM, &stream_backend);
}
