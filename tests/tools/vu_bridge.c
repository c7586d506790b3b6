// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_bridge.c - a vhost-user "guest" for passt without a VM: tap <-> rings
 *
 * Usage: vu_bridge [OPTIONS] SOCKET_PATH TAPNAME
 *
 * Run inside a network namespace (ip netns exec NS vu_bridge ...): it
 * creates the tap device TAPNAME there and connects to passt's vhost-user
 * socket (passt --vhost-user), where it is both what QEMU is (the
 * front-end: it negotiates features, shares a memfd as the guest's memory
 * and sets up the two virtqueues in it, tests/tools/lib/vu_client.c) and
 * what the guest's virtio-net driver is (it posts receive buffers, puts
 * the frames it reads from the tap device on the transmit queue, and
 * writes what passt puts in its receive buffers to the tap device). The
 * namespace's kernel is then the guest: DHCP, TCP, IPv6 all real, at the
 * cost of a namespace rather than a VM boot. QEMU 7.2 under TCG moves a
 * guest's frames too slowly for storms and reconnection loops (see
 * /work/shared/rig-facts.md), and can't disconnect and reconnect a
 * running device at all.
 *
 * Theory of operation
 *
 * The tap device has a 12-byte virtio-net header (IFF_VNET_HDR,
 * TUNSETVNETHDRSZ): the header of virtio 1.x with mergeable receive
 * buffers, so frames move between the tap device and the rings as they
 * are, header included. With --offload, the checksum and TSO offloads are
 * negotiated both ways and turned on for the tap device (TUNSETOFFLOAD),
 * and 64 KiB TSO frames go through, as with a Linux guest under QEMU.
 *
 * Memory (one memfd, VB_MEM_SIZE): both queues' rings, VB_RXQ receive
 * buffers of VB_RX_BUF bytes, VB_TXQ transmit buffers large enough for a
 * TSO frame, and one buffer for injected frames. Descriptor i of a queue
 * always points to buffer i of that queue (but for the injected frame).
 *
 * The driver: split rings, no event index, notifications as the rings
 * say (we kick unless the used ring has VRING_USED_F_NO_NOTIFY, after a
 * full fence; we never suppress interrupts, and poll the call eventfds).
 * Receive: every buffer is posted once at start; used entries are taken
 * in order, num_buffers of the first one says how many make the frame,
 * the frame goes to the tap device with one writev(), and the buffers are
 * posted again. Transmit: frames read from the tap device go into free
 * buffers, one descriptor each; buffers come back with the used ring.
 *
 * --inject PATH binds a datagram socket (tests/tools/lib/bridge.c): each
 * datagram becomes one transmit chain behind a zero virtio-net header,
 * whatever its length (0 bytes, or far more than a frame), one at a time.
 *
 * Reconnection (--cycles N, on SIGUSR1): N times, the connection runs for
 * --cycle-ms milliseconds, then goes in one of four ways, in turn: the
 * socket is closed while frames flow; the queues are stopped first
 * (GET_VRING_BASE, as QEMU does when the guest resets); the memory table
 * is sent again first, then the socket closed; or the socket is closed
 * and a new connection is left half set up (memory and the receive queue
 * only) and closed too. A fresh connection (new memory, new eventfds)
 * follows each time. Then "vu_bridge: N reconnections done" is printed.
 *
 * Migration (--migrate-to SOCKET, on SIGUSR2), as QEMU migrates a guest
 * whose network is vhost-user (QEMU 7.2 can't): first the source logs its
 * writes to guest memory (SET_LOG_BASE, VHOST_F_LOG_ALL) while the guest
 * runs on for --migrate-precopy-ms, as while QEMU copies the memory; then
 * the guest is paused (we
 * stop moving frames: the tap device holds what its kernel sends), the
 * source's queues are disabled and stopped (GET_VRING_BASE), its state is
 * saved (SET_DEVICE_STATE_FD, CHECK_DEVICE_STATE), the guest's memory is
 * copied into a new memfd, a connection to the target is set up with that
 * memory and the state loaded into it before its queues exist; then
 * --migrate-hook runs (the test moves the network over: both back-ends'
 * sockets are frozen meanwhile), the source's connection is closed and the
 * target's queues start where the source's stopped, as the rings in
 * memory say. "vu_bridge: migrated to SOCKET" is printed. If the target
 * refuses the state, the source's queues start again instead (the guest
 * resumes there, its log stopped) and "vu_bridge: the target refused the
 * state" is
 * printed. --migrate-corrupt truncate|flip damages the state on the way,
 * for that case.
 *
 * --qemu-order sets the target up in the order of QEMU 10's messages
 * (logged from a real migration): on connecting, before the state comes,
 * features and protocol features are read, each queue gets a call eventfd
 * of its own that nobody reads (QEMU's "masked notifier"), and both queues
 * are enabled; after the state is loaded, SEND_RARP with the tap device's
 * MAC address, then the queues are enabled again, features and memory
 * table set, and each queue gets its size, base, ring addresses and kick
 * eventfd, and only then, --qemu-call-ms later (QEMU sends it without
 * waiting: the back-end may well run between the two), the call eventfd
 * we read. A back-end that puts the state in force on the kick and
 * signals the first call eventfd has lost that signal.
 *
 * --event-idx negotiates VIRTIO_RING_F_EVENT_IDX and makes the driver
 * behave like a guest's: it looks at its receive queue only when its call
 * eventfd fires (an interrupt), then asks for the next one by writing the
 * used index it has seen as used_event, and looks once more; kicks follow
 * avail_event. A lost signal then stops the receive queue for good, as
 * it does a Linux guest's.
 *
 * Once a connection is set up (both queues started, every request
 * acknowledged), "vu_bridge: device running on SOCKET" is printed.
 *
 * Exit status: 0 when passt closes the connection (outside a cycle), 1 on
 * errors.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_ring.h>
#include <sys/ioctl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include "lib/bridge.h"
#include "lib/vu_client.h"

#define VB_HDR_LEN	12		/* virtio-net header, VERSION_1 */
#define VB_RXQ		512		/* receive queue size */
#define VB_TXQ		256		/* transmit queue size */
#define VB_RX_BUF	4096		/* receive buffer size */
#define VB_TX_BUF	(VB_HDR_LEN + 65536 + 64)	/* a TSO frame */
#define VB_GPA		0x40000000ULL	/* guest physical address of memory */
#define VB_UVA		0x7f3300000000ULL	/* "QEMU's" address of it */

/* Memory layout: offsets in the memfd */
#define VB_RING(q)	((uint64_t)(q) * 0x10000)	/* desc, then */
#define VB_AVAIL	0x4000				/* avail, */
#define VB_USED		0x8000				/* used */
#define VB_RX_OFF	0x20000ULL
#define VB_TX_OFF	(VB_RX_OFF + (uint64_t)VB_RXQ * VB_RX_BUF)
#define VB_INJ_OFF	(VB_TX_OFF + (uint64_t)VB_TXQ * VB_TX_BUF)
#define VB_MEM_SIZE	((VB_INJ_OFF + VB_HDR_LEN + BRIDGE_INJECT_MAX + \
			  0xfffff) & ~0xfffffULL)

#define VB_TAP_BATCH	64		/* frames read from the tap per turn */
#define VB_SOCK_TIMEOUT_S 5		/* replies from passt */
#define VB_CYCLES	100		/* --cycles default */
#define VB_CYCLE_MS	50		/* --cycle-ms default */
#define VB_PRECOPY_MS	1000		/* --migrate-precopy-ms default */
#define VB_QEMU_CALL_MS	100		/* --qemu-call-ms default */
#define VB_PF_RARP	(1ULL << 2)	/* VHOST_USER_PROTOCOL_F_RARP */

/**
 * struct vb_queue - the driver's side of one queue
 * @desc:	descriptor table, in our mapping
 * @avail:	available ring
 * @used:	used ring
 * @num:	size
 * @avail_idx:	our next available index
 * @used_seen:	used entries taken so far
 * @kicked:	available index at our last kick decision (--event-idx)
 */
struct vb_queue {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	unsigned int num;
	uint16_t avail_idx;
	uint16_t used_seen;
	uint16_t kicked;
};

/**
 * struct vb_conn - one connection to passt and the memory it shares
 * @dev:	front-end view: socket, memfd, features, queue layout
 * @mem:	our mapping of the memory
 * @q:		receive (0) and transmit (1) queues, driver view
 * @tx_free:	free transmit descriptors, a stack
 * @tx_nfree:	entries in @tx_free
 * @inj_desc:	descriptor carrying the injected frame, -1 if none
 * @first_call:	call eventfds of --qemu-order before the real ones, -1
 * @err:	error eventfds of --qemu-order, -1 if none
 * @rarp:	the back-end takes SEND_RARP (--qemu-order)
 */
struct vb_conn {
	struct vuc_dev dev;
	uint8_t *mem;
	struct vb_queue q[2];
	uint16_t tx_free[VB_TXQ];
	unsigned int tx_nfree;
	int inj_desc;
	int first_call[2];
	int err[2];
	bool rarp;
};

/**
 * struct vb_counters - what went through, reported at exit
 * @to_relay:	frames from the tap device to the transmit queue
 * @to_tap:	frames from the receive queue to the tap device
 * @injected:	injected frames
 * @tap_drops:	frames the tap device refused
 * @cycles:	reconnections done
 */
static struct vb_counters {
	unsigned long long to_relay;
	unsigned long long to_tap;
	unsigned long long injected;
	unsigned long long tap_drops;
	unsigned long long cycles;
} cnt;

static struct vb_conn conn;
static const char *sock_path;
static const char *mig_to;		/* --migrate-to */
static const char *mig_hook;		/* --migrate-hook */
static const char *mig_corrupt;		/* --migrate-corrupt */
static long long mig_precopy_ms = VB_PRECOPY_MS; /* --migrate-precopy-ms */
static volatile sig_atomic_t migrate_request;
static int wait_s = 5;
static bool offload;
static bool event_idx;			/* --event-idx */
static bool qemu_order;			/* --qemu-order */
static long long qemu_call_ms = VB_QEMU_CALL_MS; /* --qemu-call-ms */
static bool rx_irq;			/* the receive call eventfd fired */
static uint8_t tap_mac[6];		/* the tap device's MAC address */
static unsigned long long drop_kicks;	/* --drop-kicks: every Nth not sent */
static unsigned long long kicks_made;	/* kicks due so far */
static volatile sig_atomic_t cycle_request;

/**
 * vb_check() - exit with a message if a set-up step failed
 * @rc:		its result (vu_client.h convention)
 * @what:	the step
 */
static void vb_check(int rc, const char *what)
{
	if (!rc)
		return;
	if (rc > 0) {
		fprintf(stderr, "vu_bridge: passt refused %s (status %i)\n",
			what, rc);
		exit(1);
	}
	errno = -rc;
	bridge_fail(what, NULL);
}

/**
 * vb_eventfd() - a non-blocking eventfd, or exit
 *
 * Return: descriptor
 */
static int vb_eventfd(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd < 0)
		bridge_fail("eventfd", NULL);
	return fd;
}

/**
 * vb_signal() - write to an eventfd
 * @fd:		eventfd
 */
static void vb_signal(int fd)
{
	uint64_t one = 1;

	if (write(fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		bridge_fail("write to an eventfd", NULL);
}

/**
 * vb_drain() - reset an eventfd
 * @fd:		eventfd
 */
static void vb_drain(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		bridge_fail("read from an eventfd", NULL);
}

/**
 * vb_kick() - publish the available index, kick passt if it wants that
 * @c:		connection
 * @qi:		queue
 */
static void vb_kick(struct vb_conn *c, unsigned int qi)
{
	struct vb_queue *q = &c->q[qi];

	uint16_t old = q->kicked;

	__atomic_store_n(&q->avail->idx, q->avail_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q->kicked = q->avail_idx;
	if (event_idx) {
		/* avail_event, right after the used ring's entries */
		uint16_t ev = __atomic_load_n((uint16_t *)&q->used->ring[q->num],
					      __ATOMIC_RELAXED);

		if ((uint16_t)(q->avail_idx - ev - 1) >=
		    (uint16_t)(q->avail_idx - old))
			return;
	} else if (__atomic_load_n(&q->used->flags, __ATOMIC_RELAXED) &
		   VRING_USED_F_NO_NOTIFY) {
		return;
	}
	if (drop_kicks && ++kicks_made % drop_kicks == 0)
		return;		/* a lost notification, on purpose */
	vb_signal(c->dev.q[qi].kick);
}

/**
 * vb_post() - make one single-descriptor chain available (not published)
 * @q:		queue
 * @i:		descriptor index
 * @off:	buffer offset in memory
 * @len:	buffer length (receive) or bytes to send
 * @flags:	VRING_DESC_F_WRITE for receive buffers, 0 to transmit
 */
static void vb_post(struct vb_queue *q, unsigned int i, uint64_t off,
		    uint32_t len, uint16_t flags)
{
	q->desc[i].addr = VB_GPA + off;
	q->desc[i].len = len;
	q->desc[i].flags = flags;
	q->desc[i].next = 0;
	q->avail->ring[q->avail_idx % q->num] = (uint16_t)i;
	q->avail_idx++;
}

/**
 * vb_mem_new() - new guest memory and eventfds for a connection, driver
 *		  state kept
 * @c:		connection
 */
static void vb_mem_new(struct vb_conn *c)
{
	unsigned int qi;

	c->dev.memfd = memfd_create("vu_bridge", MFD_CLOEXEC);
	if (c->dev.memfd < 0 || ftruncate(c->dev.memfd, VB_MEM_SIZE))
		bridge_fail("guest memory (memfd)", NULL);
	c->mem = mmap(NULL, VB_MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      c->dev.memfd, 0);
	if (c->mem == MAP_FAILED)
		bridge_fail("map the guest memory", NULL);

	c->dev.size = VB_MEM_SIZE;
	c->dev.gpa = VB_GPA;
	c->dev.uva = VB_UVA;
	c->dev.want = VUC_F_VERSION_1 | VUC_F_MRG_RXBUF |
		      (offload ? VUC_F_OFFLOADS : 0) |
		      (event_idx ? VUC_F_EVENT_IDX : 0);
	c->dev.want_pf = mig_to ? VUC_PF_DEVICE_STATE | VUC_PF_LOG_SHMFD : 0;

	for (qi = 0; qi < 2; qi++) {
		struct vuc_queue *dq = &c->dev.q[qi];
		struct vb_queue *q = &c->q[qi];

		c->first_call[qi] = c->err[qi] = -1;
		dq->num = qi ? VB_TXQ : VB_RXQ;
		dq->desc = VB_RING(qi);
		dq->avail = VB_RING(qi) + VB_AVAIL;
		dq->used = VB_RING(qi) + VB_USED;
		dq->kick = vb_eventfd();
		dq->call = vb_eventfd();
		dq->base = 0;

		q->num = dq->num;
		q->desc = (struct vring_desc *)(c->mem + dq->desc);
		q->avail = (struct vring_avail *)(c->mem + dq->avail);
		q->used = (struct vring_used *)(c->mem + dq->used);
	}
}

/**
 * vb_layout() - create the memory and eventfds of a new connection, post
 *		 the receive buffers
 * @c:		connection, socket set
 */
static void vb_layout(struct vb_conn *c)
{
	unsigned int i;

	memset(c->q, 0, sizeof(c->q));
	vb_mem_new(c);

	for (i = 0; i < VB_RXQ; i++)
		vb_post(&c->q[0], i, VB_RX_OFF + (uint64_t)i * VB_RX_BUF,
			VB_RX_BUF, VRING_DESC_F_WRITE);
	__atomic_store_n(&c->q[0].avail->idx, c->q[0].avail_idx,
			 __ATOMIC_RELEASE);

	for (i = 0; i < VB_TXQ; i++)
		c->tx_free[i] = (uint16_t)(VB_TXQ - 1 - i);
	c->tx_nfree = VB_TXQ;
	c->inj_desc = -1;
}

/**
 * vb_conn_free() - close our side of a connection: socket, memory, fds
 * @c:		connection
 */
static void vb_conn_free(struct vb_conn *c)
{
	unsigned int qi;

	if (c->dev.fd >= 0)
		close(c->dev.fd);
	for (qi = 0; qi < 2; qi++) {
		close(c->dev.q[qi].kick);
		close(c->dev.q[qi].call);
		if (c->first_call[qi] >= 0)
			close(c->first_call[qi]);
		if (c->err[qi] >= 0)
			close(c->err[qi]);
	}
	munmap(c->mem, VB_MEM_SIZE);
	close(c->dev.memfd);
	memset(c, 0, sizeof(*c));
	c->dev.fd = -1;
}

/**
 * vb_connect() - connect to passt and lay out a fresh device
 * @c:		connection, filled
 */
static void vb_connect(struct vb_conn *c)
{
	struct timeval tv = { .tv_sec = VB_SOCK_TIMEOUT_S };

	c->dev.fd = bridge_connect(sock_path, wait_s);
	if (setsockopt(c->dev.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		bridge_fail("set a receive timeout", NULL);
	vb_layout(c);
}

/**
 * vb_up() - connect and set the device up completely
 * @c:		connection, filled
 */
static void vb_up(struct vb_conn *c)
{
	vb_connect(c);
	vb_check(vuc_dev_setup(&c->dev), "the device set-up");
	if (offload && (c->dev.features & VUC_F_OFFLOADS) != VUC_F_OFFLOADS) {
		fprintf(stderr, "vu_bridge: passt offers no offloads\n");
		exit(1);
	}
	vb_kick(c, 0);
	fprintf(stderr, "vu_bridge: device running on %s\n", sock_path);
}

/**
 * vb_tx_reclaim() - take back transmit buffers passt is done with
 * @c:		connection
 */
static void vb_tx_reclaim(struct vb_conn *c)
{
	struct vb_queue *q = &c->q[1];
	uint16_t used = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);

	while (q->used_seen != used) {
		uint32_t id = q->used->ring[q->used_seen % q->num].id;

		q->used_seen++;
		if (id >= VB_TXQ || c->tx_nfree == VB_TXQ) {
			fprintf(stderr, "vu_bridge: passt returned transmit "
				"descriptor %u, not ours\n", id);
			exit(1);
		}
		if ((int)id == c->inj_desc)
			c->inj_desc = -1;
		c->tx_free[c->tx_nfree++] = (uint16_t)id;
	}
	if (event_idx)	/* used_event: an interrupt for the next one */
		__atomic_store_n(&q->avail->ring[q->num], q->used_seen,
				 __ATOMIC_RELEASE);
}

/**
 * vb_tap_read() - frames from the tap device to the transmit queue
 * @c:		connection
 * @tap:	tap device
 *
 * Return: true if the tap device may have more (stopped for buffers)
 */
static bool vb_tap_read(struct vb_conn *c, int tap)
{
	struct vb_queue *q = &c->q[1];
	unsigned int n = 0;

	while (n < VB_TAP_BATCH && c->tx_nfree) {
		unsigned int d = c->tx_free[c->tx_nfree - 1];
		uint64_t off = VB_TX_OFF + (uint64_t)d * VB_TX_BUF;
		ssize_t r = read(tap, c->mem + off, VB_TX_BUF);

		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			bridge_fail("read from the tap device", NULL);
		}
		c->tx_nfree--;
		vb_post(q, d, off, (uint32_t)r, 0);
		n++;
	}
	if (n) {
		cnt.to_relay += n;
		vb_kick(c, 1);
	}
	return n == VB_TAP_BATCH || !c->tx_nfree;
}

/**
 * vb_inject() - one injected frame to the transmit queue, if room
 * @c:		connection
 * @fd:		injection socket
 */
static void vb_inject(struct vb_conn *c, int fd)
{
	uint8_t *b = c->mem + VB_INJ_OFF;
	unsigned int d;
	ssize_t n;

	if (c->inj_desc >= 0 || !c->tx_nfree)
		return;

	n = bridge_inject_recv(fd, b + VB_HDR_LEN);
	if (n < 0)
		return;

	memset(b, 0, VB_HDR_LEN);
	d = c->tx_free[--c->tx_nfree];
	c->inj_desc = (int)d;
	vb_post(&c->q[1], d, VB_INJ_OFF, (uint32_t)(VB_HDR_LEN + n), 0);
	vb_kick(c, 1);
	cnt.injected++;
}

/**
 * vb_rx_frame() - one frame from used receive buffers to the tap device
 * @c:		connection
 * @tap:	tap device
 * @avail:	used entries not taken yet
 *
 * Return: used entries taken (0: the frame is not all there)
 */
static unsigned int vb_rx_frame(struct vb_conn *c, int tap, uint16_t avail)
{
	struct vb_queue *q = &c->q[0];
	struct iovec iov[VB_RXQ];
	unsigned int nb, k;
	uint16_t num_buffers;

	for (k = 0; ; k++) {
		const struct vring_used_elem *e =
			&q->used->ring[(uint16_t)(q->used_seen + k) % q->num];
		uint8_t *buf;

		if (e->id >= VB_RXQ || e->len > VB_RX_BUF) {
			fprintf(stderr, "vu_bridge: bad used entry %u, "
				"length %u\n", e->id, e->len);
			exit(1);
		}
		buf = c->mem + VB_RX_OFF + (uint64_t)e->id * VB_RX_BUF;
		if (!k) {
			memcpy(&num_buffers, buf + 10, sizeof(num_buffers));
			nb = num_buffers;
			if (!nb || nb > VB_RXQ) {
				fprintf(stderr, "vu_bridge: num_buffers %u\n",
					nb);
				exit(1);
			}
			if (nb > avail)
				return 0;
		}
		iov[k].iov_base = buf;
		iov[k].iov_len = e->len;
		if (k + 1 == nb)
			break;
	}

	if (writev(tap, iov, (int)nb) < 0) {
		if (errno != EAGAIN && errno != EIO && errno != EINVAL &&
		    errno != ENOBUFS)
			bridge_fail("write to the tap device", NULL);
		cnt.tap_drops++;
	} else {
		cnt.to_tap++;
	}

	for (k = 0; k < nb; k++) {
		uint32_t id = q->used->ring[(uint16_t)(q->used_seen + k) %
					    q->num].id;

		vb_post(q, id, VB_RX_OFF + (uint64_t)id * VB_RX_BUF,
			VB_RX_BUF, VRING_DESC_F_WRITE);
	}
	return nb;
}

/**
 * vb_rx() - frames passt put in receive buffers to the tap device
 * @c:		connection
 * @tap:	tap device
 */
static void vb_rx(struct vb_conn *c, int tap)
{
	struct vb_queue *q = &c->q[0];
	bool posted = false;
	uint16_t used;

	if (event_idx && !rx_irq)
		return;		/* a guest looks when interrupted */
	rx_irq = false;

	do {
		used = __atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE);
		while (q->used_seen != used) {
			unsigned int n;

			n = vb_rx_frame(c, tap, (uint16_t)(used - q->used_seen));
			if (!n)
				break;
			q->used_seen += (uint16_t)n;
			posted = true;
		}
		if (!event_idx)
			break;
		/* used_event: interrupt me for the next entry; then look
		 * again, for one that came before the device saw it
		 */
		__atomic_store_n(&q->avail->ring[q->num], q->used_seen,
				 __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	} while (__atomic_load_n(&q->used->idx, __ATOMIC_ACQUIRE) != used);
	if (posted)
		vb_kick(c, 0);
}

/**
 * vb_down() - end the connection in the way of cycle @k (see the top)
 * @c:		connection
 * @k:		cycle number
 */
static void vb_down(struct vb_conn *c, unsigned long long k)
{
	uint32_t base;
	unsigned int qi;

	switch (k % 4) {
	case 1:
		for (qi = 0; qi < 2; qi++)
			vb_check(vuc_get_vring_base(c->dev.fd, qi, &base),
				 "GET_VRING_BASE");
		break;
	case 2:
		vb_check(vuc_mem_table(&c->dev), "a second memory table");
		break;
	default:
		break;
	}
	vb_conn_free(c);

	if (k % 4 == 3) {
		/* Half set up: memory and the receive queue, no more */
		vb_connect(c);
		vb_check(vuc_dev_negotiate(&c->dev), "the negotiation");
		vb_check(vuc_mem_table(&c->dev), "the memory table");
		vb_check(vuc_queue_setup(&c->dev, 0), "the receive queue");
		vb_conn_free(c);
	}
}

/**
 * vb_corrupt() - damage a state as --migrate-corrupt says
 * @state:	the state
 * @len:	its length, updated
 */
static void vb_corrupt(uint8_t *state, size_t *len)
{
	if (!mig_corrupt || !*len)
		return;
	if (!strcmp(mig_corrupt, "truncate"))
		*len /= 2;
	else
		state[*len / 2] ^= 0x40;
	fprintf(stderr, "vu_bridge: state %s (%s), %zu bytes now\n",
		mig_corrupt, !strcmp(mig_corrupt, "truncate") ?
		"half of it" : "one byte flipped in the middle", *len);
}

/**
 * vb_restart() - start the queues of a connection where they stopped
 * @c:		connection, negotiated, memory shared
 * @base:	next available index of each queue
 * @what:	for messages
 */
static void vb_restart(struct vb_conn *c, const uint32_t *base,
		       const char *what)
{
	unsigned int qi;

	for (qi = 0; qi < 2; qi++)
		c->dev.q[qi].base = base[qi];
	vb_check(vuc_queues_start(&c->dev), what);
	vb_kick(c, 0);
	vb_kick(c, 1);
}

/**
 * vb_qemu_connect() - a target's first requests, in QEMU 10's order: the
 *		       device is there, the guest isn't yet
 * @c:		connection, socket connected
 */
static void vb_qemu_connect(struct vb_conn *c)
{
	uint64_t f, pf;
	unsigned int qi;
	int fd = c->dev.fd;

	vb_check(vuc_get_u64(fd, VUC_GET_FEATURES, &f), "GET_FEATURES");
	vb_check(vuc_get_u64(fd, VUC_GET_PROTOCOL_FEATURES, &pf),
		 "GET_PROTOCOL_FEATURES");
	if (!(f & VUC_F_PROTOCOL_FEATURES) ||
	    (pf & (VUC_PF_REPLY_ACK | c->dev.want_pf)) !=
	    (VUC_PF_REPLY_ACK | c->dev.want_pf)) {
		fprintf(stderr, "vu_bridge: the target lacks protocol "
			"features we need\n");
		exit(1);
	}
	if (!(pf & VB_PF_RARP))
		fprintf(stderr, "vu_bridge: the target offers no "
			"VHOST_USER_PROTOCOL_F_RARP (QEMU: \"fails to "
			"broadcast fake RARP\")\n");
	pf &= VUC_PF_REPLY_ACK | VB_PF_RARP | c->dev.want_pf;
	vb_check(vuc_send(fd, VUC_SET_PROTOCOL_FEATURES, 0, &pf, sizeof(pf),
			  NULL, 0), "SET_PROTOCOL_FEATURES");
	vb_check(vuc_send(fd, VUC_SET_OWNER, 0, NULL, 0, NULL, 0),
		 "SET_OWNER");
	vb_check(vuc_get_u64(fd, VUC_GET_FEATURES, &f), "GET_FEATURES");
	c->dev.features = (c->dev.want | VUC_F_PROTOCOL_FEATURES) & f;
	c->rarp = pf & VB_PF_RARP;

	for (qi = 0; qi < 2; qi++) {
		c->first_call[qi] = vb_eventfd();
		c->err[qi] = vb_eventfd();
		vb_check(vuc_set_u64(fd, VUC_SET_VRING_CALL, qi,
				     &c->first_call[qi], 1), "SET_VRING_CALL");
		vb_check(vuc_set_u64(fd, VUC_SET_VRING_ERR, qi, &c->err[qi], 1),
			 "SET_VRING_ERR");
	}
	for (qi = 0; qi < 2; qi++)
		vb_check(vuc_set_state(fd, VUC_SET_VRING_ENABLE, qi, 1),
			 "SET_VRING_ENABLE");
}

/**
 * vb_qemu_start() - the guest runs on the target: the rest of QEMU 10's
 *		     requests, the call eventfd we read last
 * @c:		connection, the state loaded
 * @base:	next available index of each queue
 */
static void vb_qemu_start(struct vb_conn *c, const uint32_t *base)
{
	uint64_t rarp = 0;
	unsigned int qi;
	int fd = c->dev.fd;

	if (c->rarp) {
		memcpy(&rarp, tap_mac, sizeof(tap_mac));
		vb_check(vuc_set_u64(fd, VUC_SEND_RARP, rarp, NULL, 0),
			 "SEND_RARP");
	}
	for (qi = 0; qi < 2; qi++)
		vb_check(vuc_set_state(fd, VUC_SET_VRING_ENABLE, qi, 1),
			 "SET_VRING_ENABLE");
	vb_check(vuc_set_u64(fd, VUC_SET_FEATURES, c->dev.features, NULL, 0),
		 "SET_FEATURES");
	vb_check(vuc_mem_table(&c->dev), "SET_MEM_TABLE");

	for (qi = 0; qi < 2; qi++) {
		const struct vuc_queue *q = &c->dev.q[qi];
		uint64_t a[5] = { qi, c->dev.uva + q->desc,
				  c->dev.uva + q->used,
				  c->dev.uva + q->avail, 0 };

		vb_check(vuc_set_state(fd, VUC_SET_VRING_NUM, qi, q->num),
			 "SET_VRING_NUM");
		vb_check(vuc_set_state(fd, VUC_SET_VRING_BASE, qi, base[qi]),
			 "SET_VRING_BASE");
		vb_check(vuc_send(fd, VUC_SET_VRING_ADDR, 0, a, sizeof(a),
				  NULL, 0), "SET_VRING_ADDR");
		vb_check(vuc_set_u64(fd, VUC_SET_VRING_KICK, qi, &q->kick, 1),
			 "SET_VRING_KICK");
		/* QEMU doesn't wait: the back-end may run meanwhile */
		usleep((useconds_t)qemu_call_ms * 1000);
		vb_check(vuc_set_u64(fd, VUC_SET_VRING_CALL, qi, &q->call, 1),
			 "SET_VRING_CALL");
	}
	vb_kick(c, 0);
	vb_kick(c, 1);
}

/**
 * vb_migrate() - move the device to the --migrate-to back-end (see top)
 * @c:		connection to the source, replaced by one to the target
 */
static void vb_migrate(struct vb_conn *c)
{
	struct timeval tv = { .tv_sec = VB_SOCK_TIMEOUT_S };
	struct vb_conn old = *c;
	uint32_t base[2];
	uint8_t *state;
	unsigned int qi;
	size_t len;
	int rc;

	for (qi = 0; qi < 2; qi++)
		vb_check(vuc_set_state(c->dev.fd, VUC_SET_VRING_ENABLE, qi, 0),
			 "disabling a queue of the source");
	for (qi = 0; qi < 2; qi++)
		vb_check(vuc_get_vring_base(c->dev.fd, qi, &base[qi]),
			 "stopping a queue of the source (GET_VRING_BASE)");
	vb_check(vuc_state_save(c->dev.fd, &state, &len),
		 "saving the source's state");
	fprintf(stderr, "vu_bridge: source state saved, %zu bytes, queues "
		"stopped at %u and %u\n", len, base[0], base[1]);
	vb_corrupt(state, &len);

	vb_mem_new(c);
	memcpy(c->mem, old.mem, VB_MEM_SIZE);
	c->dev.fd = bridge_connect(mig_to, wait_s);
	if (setsockopt(c->dev.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		bridge_fail("set a receive timeout", NULL);
	if (qemu_order) {
		vb_qemu_connect(c);
	} else {
		vb_check(vuc_dev_negotiate(&c->dev),
			 "the target's negotiation");
		vb_check(vuc_mem_table(&c->dev), "the target's memory table");
	}
	rc = vuc_state_load(c->dev.fd, state, len);
	free(state);

	if (rc) {
		fprintf(stderr, "vu_bridge: the target refused the state (%s "
			"%i): the guest resumes on the source\n",
			rc < 0 ? "error" : "status", rc);
		vb_conn_free(c);
		*c = old;
		vb_restart(c, base, "restarting the source's queues");
		vb_check(vuc_log_set(&c->dev, false),
			 "stopping the source's dirty page log");
		return;
	}

	if (mig_hook && system(mig_hook)) {
		fprintf(stderr, "vu_bridge: --migrate-hook failed: %s\n",
			mig_hook);
		exit(1);
	}
	vb_conn_free(&old);
	if (qemu_order)
		vb_qemu_start(c, base);
	else
		vb_restart(c, base, "starting the target's queues");
	fprintf(stderr, "vu_bridge: migrated to %s%s\n", mig_to,
		qemu_order ? " (QEMU 10's order)" : "");
}

/**
 * vb_tap_mac() - read the tap device's MAC address (SEND_RARP's payload)
 * @tap:	tap device
 * @name:	its name
 */
static void vb_tap_mac(int tap, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(tap, SIOCGIFHWADDR, &ifr))
		bridge_fail("read the tap device's MAC address", NULL);
	memcpy(tap_mac, ifr.ifr_hwaddr.sa_data, sizeof(tap_mac));
}

/**
 * vb_on_usr2() - SIGUSR2: migrate to the --migrate-to back-end
 * @sig:	signal number (unused)
 */
static void vb_on_usr2(int sig)
{
	(void)sig;
	migrate_request = 1;
}

/**
 * vb_on_usr1() - SIGUSR1: start the reconnection cycles
 * @sig:	signal number (unused)
 */
static void vb_on_usr1(int sig)
{
	(void)sig;
	cycle_request = 1;
}

/**
 * usage() - print usage and exit
 * @name:	program name
 * @status:	exit status
 */
static void __attribute__((noreturn)) usage(const char *name, int status)
{
	fprintf(status ? stderr : stdout,
		"Usage: %s [OPTIONS] SOCKET_PATH TAPNAME\n"
		"Bridge a new tap device in this namespace to passt's "
		"vhost-user socket.\n\n"
		"  --offload         checksum and TSO offloads both ways\n"
		"  --drop-kicks N    leave out every Nth kick passt asks for\n"
		"  --inject PATH     datagrams arriving at PATH go to passt "
		"as frames\n"
		"  --cycles N        on SIGUSR1, reconnect N times (default "
		"%d)\n"
		"  --cycle-ms MS     connected time per cycle (default %d)\n"
		"  --wait S          retry connecting for S seconds "
		"(default 5)\n"
		"  --migrate-to SOCK on SIGUSR2, migrate to the vhost-user "
		"back-end at SOCK\n"
		"  --migrate-hook CMD  run CMD once the target has the state, "
		"before it runs\n"
		"  --migrate-corrupt truncate|flip  damage the state on the "
		"way\n"
		"  --migrate-precopy-ms MS  the guest runs MS milliseconds "
		"with the log on first (default %d)\n"
		"  --qemu-order      set the target up in QEMU 10's order\n"
		"  --qemu-call-ms MS  with it, wait MS milliseconds between "
		"a queue's kick and call\n"
		"                    eventfds (default %d)\n"
		"  --event-idx       event indices; the receive queue is "
		"looked at on interrupts\n"
		"  --help            this text\n",
		name, VB_CYCLES, VB_CYCLE_MS, VB_PRECOPY_MS, VB_QEMU_CALL_MS);
	exit(status);
}

/**
 * vb_poll() - wait for the tap device, the call eventfds, the socket
 * @c:		connection
 * @tap:	tap device
 * @inject:	injection socket, -1 if none
 * @tap_more:	the tap device may have frames already
 * @timeout:	milliseconds, -1 for none
 *
 * Return: false if passt closed the connection
 */
static bool vb_poll(struct vb_conn *c, int tap, int inject, bool tap_more,
		    int timeout)
{
	struct pollfd pfd[5] = {
		{ .fd = c->dev.fd, .events = POLLIN },
		{ .fd = tap, .events = c->tx_nfree ? POLLIN : 0 },
		{ .fd = c->dev.q[0].call, .events = POLLIN },
		{ .fd = c->dev.q[1].call, .events = POLLIN },
		{ .fd = inject, .events = POLLIN },
	};

	if (tap_more && c->tx_nfree)
		timeout = 0;
	if (c->inj_desc >= 0)
		pfd[4].events = 0;

	if (poll(pfd, 5, timeout) < 0) {
		if (errno == EINTR)
			return true;
		bridge_fail("poll", NULL);
	}
	if (pfd[0].revents)
		return false;	/* passt never sends unasked */

	if (pfd[2].revents) {
		vb_drain(c->dev.q[0].call);
		rx_irq = true;
	}
	if (pfd[3].revents)
		vb_drain(c->dev.q[1].call);
	return true;
}

/**
 * struct vb_opts - command line
 * @cycles:	--cycles
 * @cycle_ms:	--cycle-ms
 * @inject:	--inject socket, -1 if none
 * @tap:	tap device name
 */
struct vb_opts {
	long long cycles;
	long long cycle_ms;
	int inject;
	const char *tap;
};

/**
 * vb_parse_driver() - options of how the front-end and the driver behave
 * @opt:	option: 'q' (--qemu-order), 'Q' (--qemu-call-ms), 'e'
 *		(--event-idx)
 * @arg:	its argument, if any
 */
static void vb_parse_driver(int opt, const char *arg)
{
	if (opt == 'q')
		qemu_order = true;
	else if (opt == 'Q')
		qemu_call_ms = bridge_parse_num("qemu-call-ms", arg);
	else
		event_idx = true;
}

/**
 * vb_parse() - parse the command line, or exit
 * @argc:	argument count
 * @argv:	arguments
 * @o:		options, filled
 */
static void vb_parse(int argc, char **argv, struct vb_opts *o)
{
	static const struct option opts[] = {
		{ "offload",	no_argument,	   NULL, 'o' },
		{ "drop-kicks",	required_argument, NULL, 'k' },
		{ "inject",	required_argument, NULL, 'i' },
		{ "cycles",	required_argument, NULL, 'c' },
		{ "cycle-ms",	required_argument, NULL, 'm' },
		{ "wait",	required_argument, NULL, 'w' },
		{ "migrate-to",	required_argument, NULL, 'M' },
		{ "migrate-hook", required_argument, NULL, 'H' },
		{ "migrate-corrupt", required_argument, NULL, 'C' },
		{ "migrate-precopy-ms", required_argument, NULL, 'P' },
		{ "qemu-order",	no_argument,	   NULL, 'q' },
		{ "qemu-call-ms", required_argument, NULL, 'Q' },
		{ "event-idx",	no_argument,	   NULL, 'e' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ 0 },
	};
	int opt;

	o->cycles = VB_CYCLES;
	o->cycle_ms = VB_CYCLE_MS;
	o->inject = -1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			offload = true;
			break;
		case 'k':
			drop_kicks = (unsigned long long)bridge_parse_num(
				"drop-kicks", optarg);
			break;
		case 'i':
			o->inject = bridge_inject_open(optarg);
			break;
		case 'c':
			o->cycles = bridge_parse_num("cycles", optarg);
			break;
		case 'm':
			o->cycle_ms = bridge_parse_num("cycle-ms", optarg);
			break;
		case 'w':
			wait_s = (int)bridge_parse_num("wait", optarg);
			break;
		case 'M':
			mig_to = optarg;
			break;
		case 'H':
			mig_hook = optarg;
			break;
		case 'C':
			if (strcmp(optarg, "truncate") != 0 &&
			    strcmp(optarg, "flip") != 0)
				usage(argv[0], 1);
			mig_corrupt = optarg;
			break;
		case 'P':
			mig_precopy_ms = bridge_parse_num(
				"migrate-precopy-ms", optarg);
			break;
		case 'q':
		case 'Q':
		case 'e':
			vb_parse_driver(opt, optarg);
			break;
		case 'h':
			usage(argv[0], 0);
		default:
			usage(argv[0], 1);
		}
	}
	if (argc - optind != 2)
		usage(argv[0], 1);
	sock_path = argv[optind];
	o->tap = argv[optind + 1];
}

/**
 * main() - set up, then move frames until passt closes the connection
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 when passt closed the connection
 */
int main(int argc, char **argv)
{
	long long left = 0, cycle_end = 0, precopy_end = 0;
	bool tap_more = false;
	struct vb_opts o;
	int tap;

	bridge_name = "vu_bridge";
	vb_parse(argc, argv, &o);

	signal(SIGPIPE, SIG_IGN);
	signal(SIGUSR1, vb_on_usr1);
	signal(SIGUSR2, vb_on_usr2);
	tap = bridge_tap_open(o.tap, VB_HDR_LEN, offload ?
			      TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 : 0);
	vb_tap_mac(tap, o.tap);
	conn.dev.fd = -1;
	vb_up(&conn);

	for (;;) {
		int timeout = left ? (int)(cycle_end - bridge_now_ms()) : -1;

		if (migrate_request && mig_to && !left && !precopy_end) {
			migrate_request = 0;
			vb_check(vuc_log_set(&conn.dev, true),
				 "starting the source's dirty page log");
			fprintf(stderr, "vu_bridge: migration begins: the "
				"source logs its writes, the guest runs %lld "
				"ms more\n", mig_precopy_ms);
			precopy_end = bridge_now_ms() + mig_precopy_ms;
		}
		if (precopy_end) {
			timeout = (int)(precopy_end - bridge_now_ms());
			if (timeout <= 0) {
				precopy_end = 0;
				vb_migrate(&conn);
				continue;
			}
		}
		if (cycle_request && !left) {
			cycle_request = 0;
			left = o.cycles;
			cycle_end = bridge_now_ms() + o.cycle_ms;
			continue;
		}
		if (left && timeout <= 0) {
			vb_down(&conn, cnt.cycles++);
			vb_up(&conn);
			if (--left) {
				cycle_end = bridge_now_ms() + o.cycle_ms;
			} else {
				fprintf(stderr, "vu_bridge: %llu reconnections "
					"done\n", cnt.cycles);
			}
			continue;
		}

		if (!vb_poll(&conn, tap, o.inject, tap_more,
			     timeout < 0 ? -1 : timeout))
			break;

		vb_rx(&conn, tap);
		vb_tx_reclaim(&conn);
		tap_more = vb_tap_read(&conn, tap);
		if (o.inject >= 0)
			vb_inject(&conn, o.inject);
	}

	fprintf(stderr, "vu_bridge: passt closed the connection; %llu frames "
		"to passt (and %llu injected), %llu to the tap device, %llu "
		"refused by it, %llu reconnections\n", cnt.to_relay,
		cnt.injected, cnt.to_tap, cnt.tap_drops, cnt.cycles);
	return 0;
}
