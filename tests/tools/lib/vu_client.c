// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_client.c - the front-end side of vhost-user, for tests (vu_client.h)
 *
 * Theory of operation: every request that sets something asks for a
 * REPLY_ACK status (negotiated first, as QEMU does), so a refusal is seen
 * where it happens instead of as a queue that never starts. The device
 * set-up follows QEMU's order: features, owner, protocol features,
 * acknowledged features, memory table, then per queue its size, base,
 * addresses, kick and call eventfds, and finally both queues enabled.
 *
 * Migration (vhost-user specification, "Migrating back-end state"): with
 * the queues stopped (GET_VRING_BASE), SET_DEVICE_STATE_FD hands the
 * back-end one end of a pipe, and once it has answered, the state is read
 * from the other end to its end (save) or written into it and the end
 * closed (load); CHECK_DEVICE_STATE then says whether it went well.
 *
 * Return convention: 0 on success, a positive status the back-end
 * returned, or a negative errno (socket failure, unexpected reply).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "vu_client.h"


/**
 * struct vuc_hdr - message header as on the wire
 * @req:	request
 * @flags:	version and flags
 * @size:	payload size
 */
struct vuc_hdr {
	uint32_t req;
	uint32_t flags;
	uint32_t size;
};

/**
 * vuc_sendmsg() - send bytes with descriptors attached, without waiting
 *		   unless told to
 * @fd:		socket
 * @iov:	bytes
 * @iovcnt:	entries in @iov
 * @fds:	descriptors to pass, NULL for none
 * @nfds:	their number, at most VUC_FDS_MAX
 * @flags:	send flags besides MSG_NOSIGNAL (MSG_DONTWAIT)
 *
 * Return: bytes sent, or negative errno
 */
ssize_t vuc_sendmsg(int fd, const struct iovec *iov, size_t iovcnt,
		    const int *fds, unsigned int nfds, int flags)
{
	union {
		char buf[CMSG_SPACE(VUC_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = (struct iovec *)iov,
			     .msg_iovlen = iovcnt };
	ssize_t n;

	if (nfds > VUC_FDS_MAX)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}

	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/**
 * vuc_send() - send one message, descriptors along with its header
 * @fd:		socket
 * @req:	request
 * @flags:	flags besides the version (VUC_FLAG_NEED_REPLY)
 * @p:		payload
 * @size:	its length
 * @fds:	descriptors to pass, NULL for none
 * @nfds:	their number, at most VUC_FDS_MAX
 *
 * Return: 0, or negative errno
 */
int vuc_send(int fd, uint32_t req, uint32_t flags, const void *p,
	     size_t size, const int *fds, unsigned int nfds)
{
	struct vuc_hdr h = { req, VUC_VERSION | flags, (uint32_t)size };
	struct iovec iov[2] = {
		{ .iov_base = &h, .iov_len = sizeof(h) },
		{ .iov_base = (void *)p, .iov_len = size },
	};
	ssize_t n = vuc_sendmsg(fd, iov, 2, fds, nfds, 0);

	if (n < 0)
		return (int)n;
	return n == (ssize_t)(sizeof(h) + size) ? 0 : -EPIPE;
}

/**
 * vuc_read_all() - read exactly @len bytes
 * @fd:		socket
 * @buf:	destination
 * @len:	bytes to read
 *
 * Return: 0, -ECONNRESET at the end of the stream, other negative errno
 */
static int vuc_read_all(int fd, void *buf, size_t len)
{
	uint8_t *b = buf;

	while (len) {
		ssize_t n = recv(fd, b, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ECONNRESET;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * vuc_reply() - read the reply to a request
 * @fd:		socket
 * @req:	request it must answer
 * @p:		payload, filled
 * @size:	payload size it must have
 *
 * Return: 0, -EPROTO for a reply that is not that one, other negative errno
 */
int vuc_reply(int fd, uint32_t req, void *p, size_t size)
{
	struct vuc_hdr h;
	int rc;

	rc = vuc_read_all(fd, &h, sizeof(h));
	if (rc)
		return rc;
	if (h.req != req || h.flags != (VUC_VERSION | VUC_FLAG_REPLY) ||
	    h.size != size)
		return -EPROTO;
	return vuc_read_all(fd, p, size);
}

/**
 * vuc_ack() - read a REPLY_ACK status
 * @fd:		socket
 * @req:	request it answers
 *
 * Return: the status (0: success), or negative errno
 */
static int vuc_ack(int fd, uint32_t req)
{
	uint64_t v;
	int rc = vuc_reply(fd, req, &v, sizeof(v));

	if (rc)
		return rc;
	return v ? (v > 0x7fffffff ? 0x7fffffff : (int)v) : 0;
}

/**
 * vuc_call() - send a request asking for a status, read it
 * @fd:		socket
 * @req:	request
 * @p:		payload
 * @size:	its length
 * @fds:	descriptors, NULL for none
 * @nfds:	their number
 *
 * Return: status, or negative errno
 */
static int vuc_call(int fd, uint32_t req, const void *p, size_t size,
		    const int *fds, unsigned int nfds)
{
	int rc = vuc_send(fd, req, VUC_FLAG_NEED_REPLY, p, size, fds, nfds);

	return rc ? rc : vuc_ack(fd, req);
}

/**
 * vuc_get_u64() - a request answered with a 64-bit value
 * @fd:		socket
 * @req:	request (GET_FEATURES, GET_PROTOCOL_FEATURES, GET_QUEUE_NUM)
 * @v:		value, set
 *
 * Return: 0, or negative errno
 */
int vuc_get_u64(int fd, uint32_t req, uint64_t *v)
{
	int rc = vuc_send(fd, req, 0, NULL, 0, NULL, 0);

	return rc ? rc : vuc_reply(fd, req, v, sizeof(*v));
}

/**
 * vuc_set_u64() - a request with a 64-bit payload, acknowledged
 * @fd:		socket
 * @req:	request
 * @v:		value
 * @fds:	descriptors, NULL for none
 * @nfds:	their number
 *
 * Return: status, or negative errno
 */
int vuc_set_u64(int fd, uint32_t req, uint64_t v, const int *fds,
		unsigned int nfds)
{
	return vuc_call(fd, req, &v, sizeof(v), fds, nfds);
}

/**
 * vuc_set_state() - a request with a ring index and a number, acknowledged
 * @fd:		socket
 * @req:	request (SET_VRING_NUM, _BASE, _ENABLE)
 * @index:	queue
 * @num:	number
 *
 * Return: status, or negative errno
 */
int vuc_set_state(int fd, uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t st[2] = { index, num };

	return vuc_call(fd, req, st, sizeof(st), NULL, 0);
}

/**
 * vuc_get_vring_base() - stop a queue, read where it stopped
 * @fd:		socket
 * @index:	queue
 * @base:	next available index it would have taken, set
 *
 * Return: 0, or negative errno
 */
int vuc_get_vring_base(int fd, uint32_t index, uint32_t *base)
{
	uint32_t st[2] = { index, 0 };
	int rc;

	rc = vuc_send(fd, VUC_GET_VRING_BASE, 0, st, sizeof(st), NULL, 0);
	if (!rc)
		rc = vuc_reply(fd, VUC_GET_VRING_BASE, st, sizeof(st));
	if (!rc && st[0] != index)
		rc = -EPROTO;
	*base = st[1];
	return rc;
}

/**
 * vuc_mem_table() - SET_MEM_TABLE: the device's one region
 * @d:		device
 *
 * Return: status, or negative errno
 */
int vuc_mem_table(const struct vuc_dev *d)
{
	uint64_t t[1 + 4] = { 1, d->gpa, d->size, d->uva, 0 };

	return vuc_call(d->fd, VUC_SET_MEM_TABLE, t, sizeof(t), &d->memfd, 1);
}

/**
 * vuc_queue_setup() - size, base, addresses and eventfds of one queue
 * @d:		device
 * @qi:		queue index
 *
 * Return: status of the first request refused, or negative errno
 */
int vuc_queue_setup(const struct vuc_dev *d, unsigned int qi)
{
	const struct vuc_queue *q = &d->q[qi];
	uint64_t a[5] = { qi, d->uva + q->desc, d->uva + q->used,
			  d->uva + q->avail, 0 };
	int rc;

	rc = vuc_set_state(d->fd, VUC_SET_VRING_NUM, qi, q->num);
	if (!rc)
		rc = vuc_set_state(d->fd, VUC_SET_VRING_BASE, qi, q->base);
	if (!rc)
		rc = vuc_call(d->fd, VUC_SET_VRING_ADDR, a, sizeof(a), NULL, 0);
	if (!rc)
		rc = vuc_set_u64(d->fd, VUC_SET_VRING_KICK, qi, &q->kick, 1);
	if (!rc)
		rc = vuc_set_u64(d->fd, VUC_SET_VRING_CALL, qi, &q->call, 1);
	return rc;
}

/**
 * vuc_dev_negotiate() - features, owner, protocol features (REPLY_ACK)
 * @d:		device: socket and wanted features filled in; features set
 *
 * Return: status of the first request refused, or negative errno
 */
int vuc_dev_negotiate(struct vuc_dev *d)
{
	uint64_t offered, pf;
	int rc;

	rc = vuc_get_u64(d->fd, VUC_GET_FEATURES, &offered);
	if (!rc)
		rc = vuc_send(d->fd, VUC_SET_OWNER, 0, NULL, 0, NULL, 0);
	if (!rc && !(offered & VUC_F_PROTOCOL_FEATURES))
		rc = -EPROTONOSUPPORT;
	if (!rc)
		rc = vuc_get_u64(d->fd, VUC_GET_PROTOCOL_FEATURES, &pf);
	if (!rc && (pf & (VUC_PF_REPLY_ACK | d->want_pf)) !=
	    (VUC_PF_REPLY_ACK | d->want_pf))
		rc = -EPROTONOSUPPORT;
	if (!rc) {
		pf = VUC_PF_REPLY_ACK | d->want_pf;
		rc = vuc_send(d->fd, VUC_SET_PROTOCOL_FEATURES, 0, &pf,
			      sizeof(pf), NULL, 0);
	}
	if (rc)
		return rc;

	d->features = (d->want | VUC_F_PROTOCOL_FEATURES) & offered;
	return vuc_set_u64(d->fd, VUC_SET_FEATURES, d->features, NULL, 0);
}

/**
 * vuc_dev_setup() - negotiate, share the memory, set up and enable queues
 * @d:		device: socket, memory and queues filled in; features set
 *
 * Return: status of the first request refused, or negative errno
 */
int vuc_dev_setup(struct vuc_dev *d)
{
	int rc;

	rc = vuc_dev_negotiate(d);
	if (!rc)
		rc = vuc_mem_table(d);
	return rc ? rc : vuc_queues_start(d);
}

/**
 * vuc_queues_start() - set up both queues, from their bases, and enable
 *			them
 * @d:		device, negotiated, memory shared
 *
 * Return: status of the first request refused, or negative errno
 */
int vuc_queues_start(const struct vuc_dev *d)
{
	unsigned int qi;
	int rc = 0;

	for (qi = 0; qi < 2 && !rc; qi++)
		rc = vuc_queue_setup(d, qi);
	for (qi = 0; qi < 2 && !rc; qi++)
		rc = vuc_set_state(d->fd, VUC_SET_VRING_ENABLE, qi, 1);
	return rc;
}

/**
 * vuc_state_fd() - SET_DEVICE_STATE_FD: hand the back-end its end of a
 *		    pipe, read its answer
 * @fd:		socket
 * @dir:	VUC_TRANSFER_SAVE or VUC_TRANSFER_LOAD
 * @end:	the back-end's end of the pipe, closed here
 *
 * Return: the status of the answer (0: go on), or negative errno
 */
static int vuc_state_fd(int fd, uint32_t dir, int end)
{
	uint32_t t[2] = { dir, VUC_TRANSFER_STOPPED };
	uint64_t v = 0;
	int rc;

	rc = vuc_send(fd, VUC_SET_DEVICE_STATE_FD, 0, t, sizeof(t), &end, 1);
	close(end);
	if (!rc)
		rc = vuc_reply(fd, VUC_SET_DEVICE_STATE_FD, &v, sizeof(v));
	if (!rc && !(v & VUC_TRANSFER_NOFD))
		rc = -EPROTO;	/* a descriptor of its own: not supported */
	return rc ? rc : (int)(v & 0xff);
}

/**
 * vuc_state_check() - CHECK_DEVICE_STATE: did the transfer work?
 * @fd:		socket
 *
 * Return: the back-end's answer (0: success), or negative errno
 */
static int vuc_state_check(int fd)
{
	uint64_t v;
	int rc = vuc_send(fd, VUC_CHECK_DEVICE_STATE, 0, NULL, 0, NULL, 0);

	if (!rc)
		rc = vuc_reply(fd, VUC_CHECK_DEVICE_STATE, &v, sizeof(v));
	return rc ? rc : (v ? 1 : 0);
}

/**
 * vuc_state_save() - the back-end's state, queues stopped, read whole
 * @fd:		socket
 * @state:	set to the state (malloc()ed, the caller's to free)
 * @len:	set to its length
 *
 * Return: 0, a status (refused, or failed), or negative errno
 */
int vuc_state_save(int fd, uint8_t **state, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *buf = malloc(cap);
	int p[2], rc;

	*state = NULL;
	*len = 0;
	if (!buf || pipe2(p, O_CLOEXEC)) {
		free(buf);
		return -errno;
	}
	rc = vuc_state_fd(fd, VUC_TRANSFER_SAVE, p[1]);
	while (!rc) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		ssize_t r;

		if (n == cap) {
			uint8_t *more = cap * 2 <= VUC_STATE_MAX ?
					realloc(buf, cap * 2) : NULL;

			if (!more) {
				rc = -ENOMEM;
				break;
			}
			buf = more;
			cap *= 2;
		}
		if (poll(&pfd, 1, VUC_STATE_TIMEOUT_MS) != 1) {
			rc = -ETIMEDOUT;
			break;
		}
		r = read(p[0], buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = -errno;
		else if (!r)
			break;
		else
			n += (size_t)r;
	}
	close(p[0]);
	if (!rc)
		rc = vuc_state_check(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*state = buf;
	*len = n;
	return 0;
}

/**
 * vuc_state_load() - give the back-end a state, queues not started yet
 * @fd:		socket
 * @state:	the state
 * @len:	its length
 *
 * Return: 0 if the back-end took it, its status if it refused it, or
 *	   negative errno
 */
int vuc_state_load(int fd, const uint8_t *state, size_t len)
{
	size_t done = 0;
	int p[2], rc;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	rc = vuc_state_fd(fd, VUC_TRANSFER_LOAD, p[0]);
	while (!rc && done < len) {
		ssize_t w = write(p[1], state + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EPIPE)
			rc = -errno;
		if (w < 0)
			break;	/* EPIPE: it stopped reading, CHECK says why */
		done += (size_t)w;
	}
	close(p[1]);
	if (rc < 0)
		return rc;
	return rc ? rc : vuc_state_check(fd);
}

/**
 * vuc_log_set() - start or stop the dirty page log, as QEMU does when a
 *		   migration begins and when it is over or cancelled
 * @d:		device, negotiated with LOG_SHMFD and VHOST_F_LOG_ALL offered
 * @on:		share a log (a new memfd, one bit per 4 KiB page of guest
 *		physical memory up to the end of @d's, as QEMU sizes it) and
 *		set VHOST_F_LOG_ALL; else clear that feature
 *
 * Return: status of the first request refused, or negative errno
 */
int vuc_log_set(const struct vuc_dev *d, bool on)
{
	uint64_t log[2] = { ((d->gpa + d->size) / VUC_LOG_PAGE + 7) / 8, 0 };
	uint64_t v;
	int fd, rc;

	if (!on)
		return vuc_set_u64(d->fd, VUC_SET_FEATURES, d->features, NULL,
				   0);

	fd = memfd_create("vu_client log", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)log[0])) {
		rc = -errno;
		close(fd);
		return rc;
	}
	/* With LOG_SHMFD the back-end answers SET_LOG_BASE in any case; as
	 * QEMU, only its arrival counts (upstream passt echoes the size)
	 */
	rc = vuc_send(d->fd, VUC_SET_LOG_BASE, 0, log, sizeof(log), &fd, 1);
	close(fd);
	if (!rc)
		rc = vuc_reply(d->fd, VUC_SET_LOG_BASE, &v, sizeof(v));
	return rc ? rc : vuc_set_u64(d->fd, VUC_SET_FEATURES,
				     d->features | VUC_F_LOG_ALL, NULL, 0);
}
