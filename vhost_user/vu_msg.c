// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_msg.c - vhost-user protocol messages from the front-end (QEMU)
 *
 * Theory of operation
 *
 * The front-end configures us with messages on the UNIX socket: a 12-byte
 * header (request, flags, payload size; all native-endian u32), then the
 * payload, with file descriptors (guest memory, eventfds) passed as
 * SCM_RIGHTS along with the header. vu_msg_handle() reads messages that
 * are there (a few per call), checks each against the table vu_msg_types
 * (payload size, number of descriptors), and applies it to struct vu_dev.
 * Requests that return data (GET_*) get their reply; with the REPLY_ACK
 * protocol feature and the need_reply flag, the others get a u64 status
 * (0: success). Descriptors a message brings and its handler does not
 * keep are closed.
 *
 * What the front-end sends is checked, not trusted: a message that can't
 * be parsed (bad version, payload too large or too short, the wrong
 * number of descriptors) ends the connection with an error message; a
 * request we don't know is logged once and refused (or ignored, if no
 * reply is expected). A request we know but can't satisfy (a bad ring
 * index, polling instead of a kick eventfd) fails: it is logged, and the
 * front-end learns it from the status if it asked for one.
 *
 * Queue life cycle (vhost_user.c starts and stops them): a queue starts
 * once it has a size, ring addresses, a kick eventfd and guest memory;
 * GET_VRING_BASE stops it, returns the next index it would have taken,
 * and closes its kick eventfd (so that only a new SET_VRING_KICK starts it
 * again). With VHOST_USER_F_PROTOCOL_FEATURES acknowledged, queues start
 * disabled until SET_VRING_ENABLE; otherwise enabled.
 *
 * The front-end can't hold the main loop. The socket is non-blocking: a
 * message is read as its bytes come, over as many wake-ups as it takes,
 * into a buffer that keeps it between them (descriptors may come with any
 * of its pieces), and handled once complete. It must be complete within
 * VU_MSG_TIMEOUT_MS of its first byte (dev->msg_since): a timer is armed
 * then, and drops the front-end (vu_guest_close()) if it expires first.
 * Replies are written without waiting, too: a front-end whose socket
 * can't take one (it does not read what it asked for) is dropped.
 * Eventfds it gives must be eventfds or pipes, and are made non-blocking
 * (vu_eventfd.c): a full counter is a lost signal, counted, never a wait.
 */

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_ether.h>

#include "vu_dev.h"
#include "vu_msg.h"
#include "../guest/guest.h"
#include "../util/log.h"
#include "../util/timer.h"
#include "../util/util.h"
#include "../util/syscalls.h"

/* System calls after start-up, for the whole backend: the front-end's
 * messages (vhost_user.c, here); its connection: tap/guest_sock.c; the
 * eventfds: vu_eventfd.c; the guest's memory: vu_mem.c; who the peer is:
 * util/unix_sock.c
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_CALL("recvmsg", "a message, with its descriptors"),
	 SYSCALLS_CALL("sendmsg", "a reply"),
	 SYSCALLS_CALL("read", "reset a kick eventfd"),
	 SYSCALLS_CALL("write", "signal a call or kick eventfd, the log's"),
	 SYSCALLS_CALL("epoll_ctl", "watch the front-end, the kick eventfds"),
	 SYSCALLS_CALL("close", "descriptors replaced, the front-end gone"));

/* Messages handled in one call before returning to the main loop */
#define VU_MSG_BATCH		32

/* The message being received, kept between wake-ups (dev->msg_got) */
static struct vu_msg vu_msg_rx;

/* Deadline of the message being received (vu_msg_expired()) */
static struct wheel_timer vu_msg_timer;
static struct vu_dev *vu_msg_dev;		/* the device it is for */

/**
 * struct vu_msg_type - what we know about a request
 * @name:	for messages
 * @size:	smallest valid payload
 * @fds:	descriptors it must come with, or VU_FDS_ANY
 * @fn:		handler
 */
struct vu_msg_type {
	const char *name;
	size_t size;
	int fds;
	enum vu_res (*fn)(const struct ctx *c, struct vu_dev *dev,
			  struct vu_msg *m);
};


/**
 * vu_msg_send() - send a message to the front-end
 * @dev:	device
 * @request:	request being answered
 * @payload:	payload
 * @size:	its length
 *
 * Return: VU_REPLIED, or VU_BAD if the socket failed (logged)
 */
enum vu_res vu_msg_send(const struct vu_dev *dev, uint32_t request,
			       const void *payload, size_t size)
{
	struct vu_msg_hdr hdr = {
		.request = request,
		.flags = VU_VERSION | VU_FLAG_REPLY,
		.size = (uint32_t)size,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	do
		n = sendmsg(dev->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);

	if (n != (ssize_t)(sizeof(hdr) + size)) {
		err("vhost-user: can't send the reply to request %u: %s",
		    request, n >= 0 || errno == EAGAIN ?
		    "the front-end does not read its replies" :
		    strerror(errno));
		return VU_BAD;
	}
	return VU_REPLIED;
}

/**
 * vu_msg_reply_u64() - reply with a 64-bit value
 * @dev:	device
 * @m:		request
 * @v:		value
 *
 * Return: VU_REPLIED, or VU_BAD if the socket failed
 */
enum vu_res vu_msg_reply_u64(const struct vu_dev *dev,
				    const struct vu_msg *m, uint64_t v)
{
	return vu_msg_send(dev, m->hdr.request, &v, sizeof(v));
}

/**
 * vu_msg_take_fd() - take the first descriptor of a message
 * @m:		message
 *
 * Return: descriptor, now the caller's, or -1 if there is none
 */
int vu_msg_take_fd(struct vu_msg *m)
{
	int fd;

	if (!m->nfds || m->fds[0] < 0)
		return -1;
	fd = m->fds[0];
	m->fds[0] = -1;
	return fd;
}

/**
 * vu_msg_take_eventfd() - take the first descriptor, an eventfd we signal
 *			   or read (vu_eventfd.c)
 * @m:		message
 * @what:	what it is for, for messages
 *
 * Return: descriptor, non-blocking, now the caller's, or -1 if there is
 *	   none or it is refused (closed, logged)
 */
int vu_msg_take_eventfd(struct vu_msg *m, const char *what)
{
	int fd = vu_msg_take_fd(m), ret;

	if (fd < 0)
		return -1;

	ret = vu_eventfd_check(fd);
	if (ret) {
		err("vhost-user: refused the %s of request %u: %s", what,
		    m->hdr.request, ret == -ENODEV ?
		    "no eventfd (a write to it could block)" : strerror(-ret));
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * vu_msg_queue() - check a queue index given by the front-end
 * @m:		request, for messages
 * @index:	index
 *
 * Return: the index, or -1 if out of range (logged)
 */
int vu_msg_queue(const struct vu_msg *m, uint64_t index)
{
	if (index < VU_QUEUES)
		return (int)index;

	warn_rl("vhost-user: request %u for queue %llu, but we have only %u "
		"queues (one pair, no multiqueue)", m->hdr.request,
		(unsigned long long)index, VU_QUEUES);
	return -1;
}

/**
 * vu_msg_stop_all() - stop every started queue (before changing memory)
 * @c:		execution context
 * @dev:	device
 */
static void vu_msg_stop_all(const struct ctx *c, struct vu_dev *dev)
{
	unsigned int qi;

	for (qi = 0; qi < VU_QUEUES; qi++)
		vu_queue_stop(c, dev, qi);
}

/**
 * vu_msg_get_features() - GET_FEATURES: what we offer
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
static enum vu_res vu_msg_get_features(const struct ctx *c, struct vu_dev *dev,
				       struct vu_msg *m)
{
	(void)c;
	return vu_msg_reply_u64(dev, m, VU_FEATURES);
}

/**
 * vu_msg_set_features() - SET_FEATURES: what the guest and front-end took
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK, VU_FAIL if features we did not offer are set
 */
static enum vu_res vu_msg_set_features(const struct ctx *c, struct vu_dev *dev,
				       struct vu_msg *m)
{
	bool logged = dev->features & VU_BIT(VU_F_LOG_ALL);
	uint64_t f = m->p.u64;
	unsigned int qi;

	if (f & ~VU_FEATURES) {
		warn_rl("vhost-user: front-end acknowledged features %#llx we "
			"did not offer (we offer %#llx)",
			(unsigned long long)(f & ~VU_FEATURES),
			(unsigned long long)VU_FEATURES);
		return VU_FAIL;
	}

	dev->features = f;
	if (f & (VU_BIT(VU_F_VERSION_1) | VU_BIT(VU_F_MRG_RXBUF)))
		dev->hdrlen = VU_HDR_LEN;
	else
		dev->hdrlen = VU_HDR_LEN_LEGACY;

	/* Without protocol features, rings are enabled from the start; with
	 * them, they stay as SET_VRING_ENABLE left them (disabled at first)
	 */
	for (qi = 0; qi < VU_QUEUES; qi++) {
		if (!(f & VU_BIT(VU_F_PROTOCOL_FEATURES)))
			dev->q[qi].enabled = true;
		vu_queue_update(c, dev, qi);
	}
	vu_mig_log_update(dev);
	vu_mig_log_changed(c, dev, logged);

	debug("vhost-user: features %#llx, header %zu bytes",
	      (unsigned long long)f, dev->hdrlen);
	info_rl("vhost-user: offloads to the guest: %s; from the guest: "
		"checksum %s, TSO4 %s, TSO6 %s",
		(f & VU_GUEST_OFFLOADS) == VU_GUEST_OFFLOADS ?
		"checksum, TSO4, TSO6" : "none (plain frames)",
		f & VU_BIT(VU_F_CSUM) ? "on" : "off",
		f & VU_BIT(VU_F_HOST_TSO4) ? "on" : "off",
		f & VU_BIT(VU_F_HOST_TSO6) ? "on" : "off");
	return VU_OK;
}

/**
 * vu_msg_get_protocol_features() - GET_PROTOCOL_FEATURES
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
static enum vu_res vu_msg_get_protocol_features(const struct ctx *c,
						struct vu_dev *dev,
						struct vu_msg *m)
{
	(void)c;
	return vu_msg_reply_u64(dev, m, VU_PROTOCOL_FEATURES);
}

/**
 * vu_msg_set_protocol_features() - SET_PROTOCOL_FEATURES
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK (bits we did not offer are ignored, and logged)
 */
static enum vu_res vu_msg_set_protocol_features(const struct ctx *c,
						struct vu_dev *dev,
						struct vu_msg *m)
{
	(void)c;

	if (m->p.u64 & ~VU_PROTOCOL_FEATURES) {
		debug("vhost-user: ignoring protocol features %#llx we did "
		      "not offer",
		      (unsigned long long)(m->p.u64 & ~VU_PROTOCOL_FEATURES));
	}
	dev->pfeatures = m->p.u64 & VU_PROTOCOL_FEATURES;
	return VU_OK;
}

/**
 * vu_msg_set_owner() - SET_OWNER: nothing to do, one front-end at a time
 * @c:		execution context (unused)
 * @dev:	device (unused)
 * @m:		request (unused)
 *
 * Return: VU_OK
 */
static enum vu_res vu_msg_set_owner(const struct ctx *c, struct vu_dev *dev,
				    struct vu_msg *m)
{
	(void)c;
	(void)dev;
	(void)m;
	return VU_OK;
}

/**
 * vu_msg_reset() - RESET_OWNER, RESET_DEVICE: back to the initial state
 * @c:		execution context
 * @dev:	device
 * @m:		request (unused)
 *
 * The queues stop and forget their configuration and eventfds; the
 * memory table stays (the front-end sends a new one before starting).
 *
 * Return: VU_OK
 */
static enum vu_res vu_msg_reset(const struct ctx *c, struct vu_dev *dev,
				struct vu_msg *m)
{
	unsigned int qi;

	(void)m;

	for (qi = 0; qi < VU_QUEUES; qi++)
		vu_queue_reset(c, dev, qi);
	dev->features = 0;
	dev->hdrlen = VU_HDR_LEN;
	return VU_OK;
}

/**
 * vu_msg_set_mem_table() - SET_MEM_TABLE: map the guest's memory
 * @c:		execution context
 * @dev:	device
 * @m:		request, one descriptor per region
 *
 * Started queues point into the old mapping: they stop, and start again
 * on the new one (or the old one, if the new one can't be mapped) where
 * they were.
 *
 * Return: VU_OK, VU_FAIL if the memory can't be mapped, VU_BAD for a
 *	   malformed table
 */
static enum vu_res vu_msg_set_mem_table(const struct ctx *c, struct vu_dev *dev,
					struct vu_msg *m)
{
	struct vu_mem_region_desc d[VU_MEM_REGIONS_MAX];
	const struct vu_msg_mem *mem = &m->p.mem;
	unsigned int i, qi;
	int ret;

	if (!mem->nregions || mem->nregions > VU_MEM_REGIONS_MAX ||
	    m->hdr.size < offsetof(struct vu_msg_mem, r) +
			  mem->nregions * sizeof(mem->r[0]) ||
	    mem->nregions != m->nfds) {
		err("vhost-user: malformed memory table: %u regions (at most "
		    "%u), %u bytes, %u descriptors", mem->nregions,
		    VU_MEM_REGIONS_MAX, m->hdr.size, m->nfds);
		return VU_BAD;
	}

	for (i = 0; i < mem->nregions; i++) {
		d[i].gpa = mem->r[i].gpa;
		d[i].size = mem->r[i].size;
		d[i].uva = mem->r[i].uva;
		d[i].offset = mem->r[i].offset;
		d[i].fd = m->fds[i];
		debug("vhost-user: memory region %u: guest %#llx, %llu bytes, "
		      "front-end %#llx, offset %llu", i,
		      (unsigned long long)d[i].gpa,
		      (unsigned long long)d[i].size,
		      (unsigned long long)d[i].uva,
		      (unsigned long long)d[i].offset);
	}

	/* The new table replaces the old one, which stays if it fails. The
	 * mappings keep the memory: descriptors are closed after this.
	 */
	vu_msg_stop_all(c, dev);
	ret = vu_mem_map(&dev->mem, d, mem->nregions);
	if (ret == -ERANGE || ret == -ENODEV) {
		err("vhost-user: can't map the guest's memory (%u regions): "
		    "%s", mem->nregions, ret == -ERANGE ?
		    "a region goes past the end of its file" :
		    "a region's descriptor is no memfd or file");
	} else if (ret) {
		err("vhost-user: can't map the guest's memory (%u regions): "
		    "%s", mem->nregions, strerror(-ret));
	}

	for (qi = 0; qi < VU_QUEUES; qi++)
		vu_queue_update(c, dev, qi);
	return ret ? VU_FAIL : VU_OK;
}

/**
 * vu_msg_set_vring_num() - SET_VRING_NUM: size of a queue
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK, VU_FAIL for a bad index or size
 */
static enum vu_res vu_msg_set_vring_num(const struct ctx *c, struct vu_dev *dev,
					struct vu_msg *m)
{
	int qi = vu_msg_queue(m, m->p.state.index);
	unsigned int num = m->p.state.num;

	if (qi < 0)
		return VU_FAIL;
	if (!num || num > VU_QUEUE_SIZE_MAX || (num & (num - 1))) {
		warn_rl("vhost-user: invalid size %u for queue %i (a power of "
			"two, at most %u)", num, qi, VU_QUEUE_SIZE_MAX);
		return VU_FAIL;
	}

	vu_queue_stop(c, dev, (unsigned int)qi);
	dev->q[qi].num = num;
	vu_queue_update(c, dev, (unsigned int)qi);
	return VU_OK;
}

/**
 * vu_msg_set_vring_addr() - SET_VRING_ADDR: where a queue's rings are
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK, VU_FAIL for a bad index
 */
static enum vu_res vu_msg_set_vring_addr(const struct ctx *c,
					 struct vu_dev *dev, struct vu_msg *m)
{
	int qi = vu_msg_queue(m, m->p.addr.index);
	struct vu_queue *q;

	if (qi < 0)
		return VU_FAIL;

	q = &dev->q[qi];
	vu_queue_stop(c, dev, (unsigned int)qi);
	q->desc = m->p.addr.desc;
	q->used = m->p.addr.used;
	q->avail = m->p.addr.avail;
	q->log_used = m->p.addr.flags & VU_VRING_F_LOG;
	q->log_gpa = m->p.addr.log;
	q->addr_set = true;
	vu_queue_update(c, dev, (unsigned int)qi);
	return VU_OK;
}

/**
 * vu_msg_set_vring_base() - SET_VRING_BASE: first available index to take
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK, VU_FAIL for a bad index
 */
static enum vu_res vu_msg_set_vring_base(const struct ctx *c,
					 struct vu_dev *dev, struct vu_msg *m)
{
	int qi = vu_msg_queue(m, m->p.state.index);

	if (qi < 0)
		return VU_FAIL;

	vu_queue_stop(c, dev, (unsigned int)qi);
	dev->q[qi].base = (uint16_t)m->p.state.num;
	vu_queue_update(c, dev, (unsigned int)qi);
	return VU_OK;
}

/**
 * vu_msg_get_vring_base() - GET_VRING_BASE: stop a queue, say where it was
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
static enum vu_res vu_msg_get_vring_base(const struct ctx *c,
					 struct vu_dev *dev, struct vu_msg *m)
{
	struct vu_vring_state st = { .index = m->p.state.index };
	int qi = vu_msg_queue(m, m->p.state.index);

	if (qi >= 0) {
		struct vu_queue *q = &dev->q[qi];

		vu_queue_stop(c, dev, (unsigned int)qi);
		st.num = q->base;
		/* Stopped until the next SET_VRING_KICK */
		if (q->kick_fd >= 0) {
			close(q->kick_fd);
			q->kick_fd = -1;
		}
		debug("vhost-user: queue %i stopped at index %u", qi, st.num);
	}

	return vu_msg_send(dev, m->hdr.request, &st, sizeof(st));
}

/**
 * vu_msg_set_vring_fd() - SET_VRING_KICK, _CALL, _ERR: a queue's eventfd
 * @c:		execution context
 * @dev:	device
 * @m:		request: queue index and flags, the eventfd unless
 *		VU_VRING_NOFD
 *
 * Return: VU_OK, VU_FAIL for a bad index or a kick without eventfd
 *	   (polling is not supported), VU_BAD if the descriptor count is
 *	   wrong
 */
static enum vu_res vu_msg_set_vring_fd(const struct ctx *c, struct vu_dev *dev,
				       struct vu_msg *m)
{
	bool nofd = m->p.u64 & VU_VRING_NOFD;
	int qi, *slot, fd;
	struct vu_queue *q;

	if (m->nfds != (nofd ? 0U : 1U)) {
		err("vhost-user: request %u came with %u descriptors, "
		    "expected %u", m->hdr.request, m->nfds, nofd ? 0U : 1U);
		return VU_BAD;
	}

	qi = vu_msg_queue(m, m->p.u64 & VU_VRING_IDX_MASK);
	if (qi < 0)
		return VU_FAIL;
	q = &dev->q[qi];

	if (m->hdr.request == VU_SET_VRING_KICK && nofd) {
		warn_rl("vhost-user: the front-end asks us to poll queue %i "
			"instead of giving a kick eventfd: not supported, the "
			"queue stays stopped", qi);
		vu_queue_stop(c, dev, (unsigned int)qi);
		if (q->kick_fd >= 0)
			close(q->kick_fd);
		q->kick_fd = -1;
		return VU_FAIL;
	}

	if (m->hdr.request == VU_SET_VRING_KICK)
		slot = &q->kick_fd;
	else if (m->hdr.request == VU_SET_VRING_CALL)
		slot = &q->call_fd;
	else
		slot = &q->err_fd;

	fd = -1;
	if (!nofd) {
		fd = vu_msg_take_eventfd(m, slot == &q->kick_fd ? "kick eventfd" :
					 slot == &q->call_fd ? "call eventfd" :
					 "error eventfd");
		if (fd < 0)
			return VU_FAIL;	/* the queue keeps what it had */
	}

	/* A new kick eventfd: stop watching the old one first */
	if (slot == &q->kick_fd)
		vu_queue_stop(c, dev, (unsigned int)qi);
	if (*slot >= 0)
		close(*slot);
	*slot = fd;

	if (slot == &q->call_fd)
		vu_queue_call_new(dev, (unsigned int)qi);
	vu_queue_update(c, dev, (unsigned int)qi);
	return VU_OK;
}

/**
 * vu_msg_get_queue_num() - GET_QUEUE_NUM: one queue pair
 * @c:		execution context (unused)
 * @dev:	device
 * @m:		request
 *
 * Return: VU_REPLIED, VU_BAD on socket failure
 */
static enum vu_res vu_msg_get_queue_num(const struct ctx *c, struct vu_dev *dev,
					struct vu_msg *m)
{
	(void)c;
	return vu_msg_reply_u64(dev, m, 1);
}

/**
 * vu_msg_set_vring_enable() - SET_VRING_ENABLE: enable or disable a queue
 * @c:		execution context
 * @dev:	device
 * @m:		request
 *
 * Return: VU_OK, VU_FAIL for a bad index
 */
static enum vu_res vu_msg_set_vring_enable(const struct ctx *c,
					   struct vu_dev *dev, struct vu_msg *m)
{
	int qi = vu_msg_queue(m, m->p.state.index);

	if (qi < 0)
		return VU_FAIL;

	dev->q[qi].enabled = !!m->p.state.num;
	debug("vhost-user: queue %i %s", qi,
	      dev->q[qi].enabled ? "enabled" : "disabled");
	vu_queue_update(c, dev, (unsigned int)qi);
	return VU_OK;
}

/**
 * vu_msg_send_rarp() - SEND_RARP: the guest's MAC address, once it runs
 *			after a migration
 * @c:		execution context (unused)
 * @dev:	device (unused)
 * @m:		request: the MAC address in the first 6 bytes of a u64
 *
 * QEMU asks a back-end to announce the guest (for a guest without
 * VIRTIO_NET_F_GUEST_ANNOUNCE) once it runs on the target, so that the
 * switches of the network learn where its MAC address is now. The
 * relay is the guest's only link, and nothing beyond it ever sees that
 * address: the host's network sees the host's sockets. What is left to
 * learn is ours, where frames to the guest go: taken here, before the
 * guest sends anything (without a device state, frames would go to the
 * broadcast address until then). See doc/vhost-user.md.
 *
 * Return: VU_OK, VU_FAIL for a multicast or all-zero address (logged)
 */
static enum vu_res vu_msg_send_rarp(const struct ctx *c, struct vu_dev *dev,
				    struct vu_msg *m)
{
	static const uint8_t zero[ETH_ALEN];
	const uint8_t *mac = m->p.raw;

	(void)c;
	(void)dev;

	if ((mac[0] & 1) || !memcmp(mac, zero, ETH_ALEN)) {
		warn_rl("vhost-user: SEND_RARP for MAC address "
			"%02x:%02x:%02x:%02x:%02x:%02x, not a guest's: ignored",
			mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		return VU_FAIL;
	}
	if (memcmp(mac, guest_mac(), ETH_ALEN) != 0) {
		info("vhost-user: the front-end announces the guest at "
		     "%02x:%02x:%02x:%02x:%02x:%02x: frames to it go there",
		     mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		guest_mac_set(mac);
	}
	return VU_OK;
}

/**
 * vu_msg_ignore() - NET_SET_MTU: nothing to do for us
 * @c:		execution context (unused)
 * @dev:	device (unused)
 * @m:		request
 *
 * Return: VU_OK
 */
static enum vu_res vu_msg_ignore(const struct ctx *c, struct vu_dev *dev,
				 struct vu_msg *m)
{
	(void)c;
	(void)dev;
	debug("vhost-user: ignoring request %u", m->hdr.request);
	return VU_OK;
}

/* Requests we handle, by number */
static const struct vu_msg_type vu_msg_types[VU_REQUEST_MAX] = {
	[VU_GET_FEATURES] = { "GET_FEATURES", 0, 0, vu_msg_get_features },
	[VU_SET_FEATURES] = { "SET_FEATURES", sizeof(uint64_t), 0,
			      vu_msg_set_features },
	[VU_SET_OWNER] = { "SET_OWNER", 0, 0, vu_msg_set_owner },
	[VU_RESET_OWNER] = { "RESET_OWNER", 0, 0, vu_msg_reset },
	[VU_SET_MEM_TABLE] = { "SET_MEM_TABLE",
			       offsetof(struct vu_msg_mem, r), VU_FDS_ANY,
			       vu_msg_set_mem_table },
	[VU_SET_VRING_NUM] = { "SET_VRING_NUM", sizeof(struct vu_vring_state),
			       0, vu_msg_set_vring_num },
	[VU_SET_VRING_ADDR] = { "SET_VRING_ADDR", sizeof(struct vu_vring_addr),
				0, vu_msg_set_vring_addr },
	[VU_SET_VRING_BASE] = { "SET_VRING_BASE",
				sizeof(struct vu_vring_state), 0,
				vu_msg_set_vring_base },
	[VU_GET_VRING_BASE] = { "GET_VRING_BASE",
				sizeof(struct vu_vring_state), 0,
				vu_msg_get_vring_base },
	[VU_SET_VRING_KICK] = { "SET_VRING_KICK", sizeof(uint64_t),
				VU_FDS_ANY, vu_msg_set_vring_fd },
	[VU_SET_VRING_CALL] = { "SET_VRING_CALL", sizeof(uint64_t),
				VU_FDS_ANY, vu_msg_set_vring_fd },
	[VU_SET_VRING_ERR] = { "SET_VRING_ERR", sizeof(uint64_t),
			       VU_FDS_ANY, vu_msg_set_vring_fd },
	[VU_GET_PROTOCOL_FEATURES] = { "GET_PROTOCOL_FEATURES", 0, 0,
				       vu_msg_get_protocol_features },
	[VU_SET_PROTOCOL_FEATURES] = { "SET_PROTOCOL_FEATURES",
				       sizeof(uint64_t), 0,
				       vu_msg_set_protocol_features },
	[VU_GET_QUEUE_NUM] = { "GET_QUEUE_NUM", 0, 0, vu_msg_get_queue_num },
	[VU_SET_VRING_ENABLE] = { "SET_VRING_ENABLE",
				  sizeof(struct vu_vring_state), 0,
				  vu_msg_set_vring_enable },
	[VU_SEND_RARP] = { "SEND_RARP", sizeof(uint64_t), 0,
			   vu_msg_send_rarp },
	[VU_NET_SET_MTU] = { "NET_SET_MTU", sizeof(uint64_t), 0,
			     vu_msg_ignore },
	[VU_RESET_DEVICE] = { "RESET_DEVICE", 0, 0, vu_msg_reset },
	[VU_SET_LOG_BASE] = { "SET_LOG_BASE", sizeof(struct vu_msg_log), 1,
			      vu_mig_set_log_base },
	[VU_SET_LOG_FD] = { "SET_LOG_FD", 0, 1, vu_mig_set_log_fd },
	[VU_SET_DEVICE_STATE_FD] = { "SET_DEVICE_STATE_FD",
				     sizeof(struct vu_msg_transfer), 1,
				     vu_mig_set_state_fd },
	[VU_CHECK_DEVICE_STATE] = { "CHECK_DEVICE_STATE", 0, 0,
				    vu_mig_check_state },
};

/**
 * vu_msg_close_fds() - close the descriptors a message still holds
 * @m:		message
 */
static void vu_msg_close_fds(struct vu_msg *m)
{
	unsigned int i;

	for (i = 0; i < m->nfds; i++) {
		if (m->fds[i] >= 0)
			close(m->fds[i]);
		m->fds[i] = -1;
	}
	m->nfds = 0;
}

/**
 * vu_msg_recv_fds() - collect the descriptors of a received header
 * @mh:		message header of the recvmsg() call
 * @m:		message: descriptors go to @m->fds
 *
 * Return: 0, or -EPROTO if descriptors were cut off or unexpected
 *	   control data came (everything received is closed then)
 */
static int vu_msg_recv_fds(struct msghdr *mh, struct vu_msg *m)
{
	struct cmsghdr *cmsg;
	bool bad = mh->msg_flags & MSG_CTRUNC;

	for (cmsg = CMSG_FIRSTHDR(mh); cmsg; cmsg = CMSG_NXTHDR(mh, cmsg)) {
		size_t n, i;

		if (cmsg->cmsg_level != SOL_SOCKET ||
		    cmsg->cmsg_type != SCM_RIGHTS) {
			bad = true;
			continue;
		}

		n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int),
			       sizeof(fd));
			if (m->nfds < VU_MSG_FDS_MAX) {
				m->fds[m->nfds++] = fd;
			} else {
				close(fd);
				bad = true;
			}
		}
	}

	if (bad) {
		vu_msg_close_fds(m);
		return -EPROTO;
	}
	return 0;
}

/**
 * vu_msg_hdr_check() - a header is complete: can its message be read?
 * @m:		message, header complete
 *
 * Return: 0, or -EPROTO, -EMSGSIZE (logged)
 */
static int vu_msg_hdr_check(struct vu_msg *m)
{
	if ((m->hdr.flags & VU_FLAG_VERSION_MASK) != VU_VERSION) {
		err("vhost-user: message version %u, we speak version %u",
		    m->hdr.flags & VU_FLAG_VERSION_MASK, VU_VERSION);
		return -EPROTO;
	}
	if (m->hdr.size > VU_MSG_PAYLOAD_MAX) {
		err("vhost-user: request %u has a payload of %u bytes, more "
		    "than any request we know (%u)", m->hdr.request,
		    m->hdr.size, VU_MSG_PAYLOAD_MAX);
		return -EMSGSIZE;
	}

	memset(&m->p, 0, sizeof(m->p));
	return 0;
}

/**
 * vu_msg_rest() - where the next bytes of a message go
 * @dev:	device: @dev->msg_got bytes of @m received
 * @m:		message
 * @len:	set to the bytes still missing from the part being read
 *
 * Return: destination, NULL if the message is complete
 */
static uint8_t *vu_msg_rest(const struct vu_dev *dev, struct vu_msg *m,
			    size_t *len)
{
	size_t got = dev->msg_got;

	if (got < sizeof(m->hdr)) {
		*len = sizeof(m->hdr) - got;
		return (uint8_t *)&m->hdr + got;
	}

	got -= sizeof(m->hdr);
	if (got >= m->hdr.size)
		return NULL;
	*len = m->hdr.size - got;
	return m->p.raw + got;
}

/**
 * vu_msg_recv() - read what is there of a message, without waiting
 * @dev:	device: @dev->msg_got and @dev->msg_since are updated
 * @m:		message being received, kept between calls
 * @now_ms:	current time, milliseconds
 *
 * Return: 1 if the message is complete, 0 if more has to come,
 *	   -ECONNRESET if the front-end closed the connection, other
 *	   negative errno for an unusable message (logged; the caller drops
 *	   the connection)
 */
static int vu_msg_recv(struct vu_dev *dev, struct vu_msg *m, uint64_t now_ms)
{
	union {
		char buf[CMSG_SPACE(VU_MSG_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	uint8_t *dst;
	size_t len;

	while ((dst = vu_msg_rest(dev, m, &len))) {
		struct iovec iov = { .iov_base = dst, .iov_len = len };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf,
			.msg_controllen = sizeof(ctl.buf),
		};
		ssize_t n;
		int ret;

		n = recvmsg(dev->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return n ? -errno : -ECONNRESET;

		ret = vu_msg_recv_fds(&mh, m);
		if (ret) {
			err("vhost-user: message came with unexpected control "
			    "data or too many descriptors (at most %u)",
			    VU_MSG_FDS_MAX);
			return ret;
		}

		if (!dev->msg_got)
			dev->msg_since = now_ms;
		dev->msg_got += (size_t)n;

		if (dev->msg_got == sizeof(m->hdr) &&
		    (ret = vu_msg_hdr_check(m)))
			return ret;
	}

	return 1;
}

/**
 * vu_msg_discard() - forget a message being received, close its
 *		      descriptors (the connection is new, or gone)
 * @dev:	device
 */
void vu_msg_discard(struct vu_dev *dev)
{
	vu_msg_close_fds(&vu_msg_rx);
	dev->msg_got = 0;
	dev->msg_since = 0;
	timer_cancel(&vu_msg_timer);
}

/**
 * vu_msg_expired() - timer: a message is not complete in time, drop the
 *		      front-end
 * @c:		execution context
 * @t:		the message timer
 * @now_ms:	current time
 */
static void vu_msg_expired(const struct ctx *c, struct wheel_timer *t,
			   uint64_t now_ms)
{
	struct vu_dev *dev = vu_msg_dev;

	if (!dev || dev->fd < 0 || !dev->msg_got)
		return;
	if (now_ms < dev->msg_since + VU_MSG_TIMEOUT_MS) {
		timer_arm(t, dev->msg_since + VU_MSG_TIMEOUT_MS);
		return;
	}

	err("vhost-user: a message from the front-end is not complete %u ms "
	    "after its first byte (%zu bytes came): dropping the front-end",
	    VU_MSG_TIMEOUT_MS, dev->msg_got);
	vu_guest_close(c, "message not complete in time");
}

/**
 * vu_msg_init() - set up the message deadline (at start-up)
 * @dev:	the device messages come for
 */
void vu_msg_init(struct vu_dev *dev)
{
	vu_msg_dev = dev;
	timer_init(&vu_msg_timer, vu_msg_expired);
}

/**
 * vu_msg_dispatch() - check and apply one message, reply as needed
 * @c:		execution context
 * @dev:	device
 * @m:		message
 *
 * Return: 0, or negative errno if the connection must be closed
 */
static int vu_msg_dispatch(const struct ctx *c, struct vu_dev *dev,
			   struct vu_msg *m)
{
	uint32_t req = m->hdr.request;
	const struct vu_msg_type *t = NULL;
	enum vu_res res;

	if (req < VU_REQUEST_MAX && vu_msg_types[req].fn)
		t = &vu_msg_types[req];

	if (m->hdr.flags & VU_FLAG_REPLY) {
		err("vhost-user: front-end sent a reply (request %u) we did "
		    "not ask for", req);
		res = VU_BAD;
	} else if (!t) {
		bool logged = req < VU_REQUEST_MAX &&
			      (dev->unknown & VU_BIT(req));

		if (!logged) {
			warn_rl("vhost-user: unsupported request %u, refused",
				req);
			if (req < VU_REQUEST_MAX)
				dev->unknown |= VU_BIT(req);
		}
		res = VU_FAIL;
	} else if (m->hdr.size < t->size) {
		err("vhost-user: %s with a payload of %u bytes, expected %zu",
		    t->name, m->hdr.size, t->size);
		res = VU_BAD;
	} else if (t->fds != VU_FDS_ANY && m->nfds != (unsigned int)t->fds) {
		err("vhost-user: %s came with %u descriptors, expected %i",
		    t->name, m->nfds, t->fds);
		res = VU_BAD;
	} else {
		debug("vhost-user: %s", t->name);
		res = t->fn(c, dev, m);
	}

	vu_msg_close_fds(m);

	if (res == VU_BAD)
		return -EPROTO;

	if (res != VU_REPLIED && (m->hdr.flags & VU_FLAG_NEED_REPLY) &&
	    (dev->pfeatures & VU_BIT(VU_PF_REPLY_ACK))) {
		if (vu_msg_reply_u64(dev, m, res == VU_OK ? 0 : 1) == VU_BAD)
			return -EPIPE;
	}

	return 0;
}

/**
 * vu_msg_handle() - handle the messages waiting on the front-end socket
 * @c:		execution context
 * @dev:	device, @dev->fd connected
 * @now_ms:	current time, milliseconds
 *
 * Return: 0 to go on (@dev->msg_got says if a message is incomplete),
 *	   -ECONNRESET if the front-end closed the connection, other
 *	   negative errno if it must be closed (logged)
 */
int vu_msg_handle(const struct ctx *c, struct vu_dev *dev, uint64_t now_ms)
{
	struct vu_msg *m = &vu_msg_rx;
	unsigned int i;

	for (i = 0; i < VU_MSG_BATCH && dev->fd >= 0; i++) {
		int ret = vu_msg_recv(dev, m, now_ms);

		if (ret < 0)
			return ret;
		if (!ret)
			break;

		dev->msg_got = 0;
		ret = vu_msg_dispatch(c, dev, m);
		if (ret)
			return ret;
	}

	/* A message begun and not complete: its deadline */
	if (dev->fd >= 0 && dev->msg_got)
		timer_arm(&vu_msg_timer, dev->msg_since + VU_MSG_TIMEOUT_MS);
	else
		timer_cancel(&vu_msg_timer);
	return 0;
}
