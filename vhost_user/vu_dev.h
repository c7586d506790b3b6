/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_dev.h - state of the vhost-user device (private to tap/)
 *
 * Theory of operation: the vhost-user back-end is two files sharing one
 * struct vu_dev. vu_msg.c speaks the protocol on the front-end's socket
 * and records what it configures (features, memory, ring sizes and
 * addresses, eventfds); vhost_user.c owns the connection and the epoll
 * registrations, starts and stops the queues when their configuration is
 * complete or taken back, and moves frames. Queue 0 receives (relay ->
 * guest), queue 1 transmits (guest -> relay): one queue pair.
 */
#ifndef VHOST_USER_VU_DEV_H
#define VHOST_USER_VU_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "vu_virtq.h"

struct ctx;

#define VU_QUEUES		2	/* one receive/transmit pair */
#define VU_RX_Q			0	/* the guest receives: our output */
#define VU_TX_Q			1	/* the guest transmits: our input */

/* Feature bits (virtio 1.x, virtio-net, vhost-user). Offloads: the
 * segmentation ones need the checksum one of their direction
 */
#define VU_F_CSUM		0	/* VIRTIO_NET_F_CSUM: guest's partial
					 * checksums, to us */
#define VU_F_GUEST_CSUM		1	/* VIRTIO_NET_F_GUEST_CSUM: ours, to
					 * the guest */
#define VU_F_GUEST_TSO4		7	/* VIRTIO_NET_F_GUEST_TSO4 */
#define VU_F_GUEST_TSO6		8	/* VIRTIO_NET_F_GUEST_TSO6 */
#define VU_F_HOST_TSO4		11	/* VIRTIO_NET_F_HOST_TSO4 */
#define VU_F_HOST_TSO6		12	/* VIRTIO_NET_F_HOST_TSO6 */
#define VU_F_MRG_RXBUF		15	/* VIRTIO_NET_F_MRG_RXBUF */
#define VU_F_LOG_ALL		26	/* VHOST_F_LOG_ALL: dirty page log */
#define VU_F_EVENT_IDX		29	/* VIRTIO_RING_F_EVENT_IDX */
#define VU_F_PROTOCOL_FEATURES	30	/* VHOST_USER_F_PROTOCOL_FEATURES */
#define VU_F_VERSION_1		32	/* VIRTIO_F_VERSION_1 */

/* Protocol feature bits */
#define VU_PF_LOG_SHMFD		1	/* VHOST_USER_PROTOCOL_F_LOG_SHMFD */
#define VU_PF_RARP		2	/* VHOST_USER_PROTOCOL_F_RARP */
#define VU_PF_REPLY_ACK		3	/* VHOST_USER_PROTOCOL_F_REPLY_ACK */
#define VU_PF_DEVICE_STATE	19	/* VHOST_USER_PROTOCOL_F_DEVICE_STATE */

#define VU_BIT(n)		(1ULL << (n))

/* Offloads to the guest: all three, or plain frames */
#define VU_GUEST_OFFLOADS	(VU_BIT(VU_F_GUEST_CSUM) |		\
				 VU_BIT(VU_F_GUEST_TSO4) |		\
				 VU_BIT(VU_F_GUEST_TSO6))
/* Offloads from the guest */
#define VU_HOST_OFFLOADS	(VU_BIT(VU_F_CSUM) |			\
				 VU_BIT(VU_F_HOST_TSO4) |		\
				 VU_BIT(VU_F_HOST_TSO6))

/* What we offer */
#define VU_FEATURES		(VU_BIT(VU_F_VERSION_1) |		\
				 VU_BIT(VU_F_MRG_RXBUF) |		\
				 VU_BIT(VU_F_EVENT_IDX) |		\
				 VU_BIT(VU_F_PROTOCOL_FEATURES) |	\
				 VU_BIT(VU_F_LOG_ALL) |			\
				 VU_GUEST_OFFLOADS | VU_HOST_OFFLOADS)
#define VU_PROTOCOL_FEATURES	(VU_BIT(VU_PF_REPLY_ACK) |		\
				 VU_BIT(VU_PF_LOG_SHMFD) |		\
				 VU_BIT(VU_PF_RARP) |			\
				 VU_BIT(VU_PF_DEVICE_STATE))

/* Length of the virtio-net header before each frame */
#define VU_HDR_LEN		12	/* struct virtio_net_hdr_mrg_rxbuf */
#define VU_HDR_LEN_LEGACY	10	/* no VERSION_1, no MRG_RXBUF */

/* --migrate-exit: a source exits this long after CHECK_DEVICE_STATE at
 * most, if the front-end doesn't leave first (vu_mig_check_state())
 */
#define VU_MIG_EXIT_LINGER_MS	2000

/**
 * struct vu_queue - one virtqueue as the front-end configured it
 * @vq:		the ring itself (vu_virtq.h), started or not
 * @num:	size given with SET_VRING_NUM, 0 if none yet
 * @desc:	descriptor table address (front-end's virtual address)
 * @used:	used ring address
 * @avail:	available ring address
 * @addr_set:	SET_VRING_ADDR received
 * @log_used:	SET_VRING_ADDR asked for used ring writes to be logged
 * @log_gpa:	guest address they are logged at
 * @base:	next available index to take, from SET_VRING_BASE or the
 *		last stop
 * @kick_fd:	eventfd the guest's notifications come on, -1 if none
 * @call_fd:	eventfd we signal the guest with, -1 if none (no interrupts)
 * @err_fd:	eventfd to report errors on, -1 if none (unused)
 * @enabled:	SET_VRING_ENABLE state
 * @watched:	@kick_fd is in the epoll set
 * @avail_warned: a broken available index was logged (vhost_user.c)
 * @check_last:	last_avail at the last ring check (vhost_user.c)
 * @check_had:	chains were available at the last ring check
 * @unsignalled: chains used since the guest was last signalled for this
 *		queue (vhost_user.c, vu_notify())
 */
struct vu_queue {
	struct vu_virtq vq;
	unsigned int num;
	uint64_t desc;
	uint64_t used;
	uint64_t avail;
	bool addr_set;
	bool log_used;
	uint64_t log_gpa;
	uint16_t base;
	int kick_fd;
	int call_fd;
	int err_fd;
	bool enabled;
	bool watched;
	bool avail_warned;
	uint16_t check_last;
	bool check_had;
	bool unsignalled;
};

/**
 * struct vu_dev - the vhost-user device
 * @fd:		connected front-end socket, -1 if none
 * @gen:	connection number, in epoll references
 * @features:	features the front-end acknowledged (SET_FEATURES)
 * @pfeatures:	protocol features it acknowledged (SET_PROTOCOL_FEATURES)
 * @hdrlen:	virtio-net header length for the acknowledged features
 * @unknown:	bitmap of unknown requests already logged (first 64)
 * @mem:	guest memory, mapped
 * @q:		the queues
 * @log:	dirty page log (SET_LOG_BASE), used while VU_F_LOG_ALL is on
 * @log_base:	its mapping, for munmap(), NULL if none
 * @log_len:	length of that mapping
 * @log_fd:	eventfd telling the front-end of new marks, -1 if none
 * @state_result: outcome of the last device state transfer, for
 *		CHECK_DEVICE_STATE: 0, or negative errno (-ENODATA: none)
 * @saved:	our state was saved (we are a migration source): a queue
 *		running again means the migration failed and the guest
 *		resumes here; the front-end leaving means it runs elsewhere
 * @loaded:	a state was loaded (we are a migration target): the first
 *		queue running means the guest runs here now
 * @exit_at:	--migrate-exit: exit at this time (timer_now_ms()), or when
 *		the front-end leaves; 0 if not due
 * @msg_got:	bytes of the message being received (header, then
 *		payload), 0 between messages (vu_msg.c)
 * @msg_since:	when its first byte came (timer_now_ms())
 * @signals_lost: signals not given because the eventfd's counter was
 *		full (call and log eventfds), this connection
 */
struct vu_dev {
	int fd;
	uint32_t gen;
	uint64_t features;
	uint64_t pfeatures;
	size_t hdrlen;
	uint64_t unknown;
	struct vu_mem mem;
	struct vu_queue q[VU_QUEUES];
	struct vu_log log;
	void *log_base;
	size_t log_len;
	int log_fd;
	int state_result;
	bool saved;
	bool loaded;
	uint64_t exit_at;
	size_t msg_got;
	uint64_t msg_since;
	uint64_t signals_lost;
};

/* A message must be complete this long after its first byte came */
#define VU_MSG_TIMEOUT_MS	1000

/* vu_msg.c */
void vu_msg_init(struct vu_dev *dev);
int vu_msg_handle(const struct ctx *c, struct vu_dev *dev, uint64_t now_ms);
void vu_msg_discard(struct vu_dev *dev);

/* vu_eventfd.c */
void vu_eventfd_init(void);
int vu_eventfd_check(int fd);
void vu_eventfd_read(int fd);
bool vu_eventfd_write(int fd);
void vu_eventfd_signal(struct vu_dev *dev, int fd, const char *what);

/* vu_migrate.c */
void vu_mig_log_update(struct vu_dev *dev);
void vu_mig_log_changed(const struct ctx *c, const struct vu_dev *dev,
			bool was);
void vu_mig_log_kick(struct vu_dev *dev);
void vu_mig_clear(struct vu_dev *dev);
void vu_mig_running(const struct ctx *c, struct vu_dev *dev);
bool vu_mig_closed(const struct ctx *c, struct vu_dev *dev);

/* vhost_user.c */
void vu_queue_update(const struct ctx *c, struct vu_dev *dev, unsigned int qi);
void vu_queue_stop(const struct ctx *c, struct vu_dev *dev, unsigned int qi);
void vu_queue_reset(const struct ctx *c, struct vu_dev *dev, unsigned int qi);
void vu_queue_call_new(struct vu_dev *dev, unsigned int qi);
void vu_guest_close(const struct ctx *c, const char *why);

#endif /* VHOST_USER_VU_DEV_H */
