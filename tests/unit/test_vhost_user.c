// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vhost_user.c - unit tests for passt's vhost-user backend
 *		       (vhost_user/vhost_user.c, vhost_user/vu_msg.c)
 *
 * Theory of operation: the backend is started through tap_init() with
 * --vhost-user and -F pointing to one end of a socket pair; the test plays
 * the front-end (QEMU) on the other end: it speaks the protocol, shares a
 * memfd as guest memory, lays out the two virtqueues there and plays the
 * guest's driver on them (posting receive buffers, sending frames, kicking
 * eventfds). It runs the epoll set itself.
 *
 * Checked: the feature and protocol feature negotiation, REPLY_ACK
 * statuses (success, and failure for an unknown request), frames to the
 * guest across mergeable buffers (contents, num_buffers, call eventfd),
 * the output wake-up when the guest runs out of buffers and its
 * disarming on the kick (with event index: the guest must kick once it
 * adds buffers, even if a few were there already), a frame from the guest
 * reaching the relay, and the guest signalled for it at the end of the
 * loop iteration (tap_notify()), not by the kick's handler,
 * GET_VRING_BASE and a restart from there, a new memory table while
 * running, and a malformed message closing the connection. Call
 * eventfds: one that comes for a running queue (QEMU sends it after the
 * kick eventfd, which starts the queue) is signalled at once, and a queue
 * without one counts nothing as signalled. SEND_RARP: offered, and its
 * MAC address becomes the guest's; a multicast one is refused. Offloads:
 * with all of GUEST_CSUM and GUEST_TSO4/6, tap_offload() is true and a
 * frame's struct virtio_net_hdr reaches the guest little-endian; with
 * none or some of them, frames are plain; from the guest, partial
 * checksums and the TCP segmentation it agreed to pass, other
 * segmentation types are dropped. Bad lengths from the guest: chains
 * shorter than the virtio-net and Ethernet headers, and frames longer
 * than the largest, are given back as used, dropped and counted by
 * reason, and the queue goes on. A front-end can't hold the loop: a
 * message trickled in pieces (its descriptor with a later one) is taken
 * as it comes and handled once whole; one not whole 1000 ms after its
 * first byte drops the front-end (timer); a blocking call eventfd at its
 * maximum count costs a lost signal, not a blocked write; a call "eventfd"
 * that is a file is refused.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../../conf/ctx.h"
#include "../../guest/guest.h"
#include "../../tap/tap.h"
#include "relay_sink.h"
#include "../../util/epoll_ref.h"
#include "../../util/timer.h"
#include "../../util/util.h"

#define MEM_SIZE	(1024 * 1024)
#define GPA_BASE	0x100000ULL	/* guest physical address of the memfd */
#define UVA_BASE	0x7f1200000000ULL	/* "QEMU's" address of it */
#define QSIZE		8
#define BUF_SIZE	2048		/* receive buffers posted */
#define HDR_LEN		12

/* Requests and flags (vhost-user specification) */
#define GET_FEATURES		1
#define SET_FEATURES		2
#define SET_OWNER		3
#define SET_MEM_TABLE		5
#define SET_VRING_NUM		8
#define SET_VRING_ADDR		9
#define SET_VRING_BASE		10
#define GET_VRING_BASE		11
#define SET_VRING_KICK		12
#define SET_VRING_CALL		13
#define GET_PROTOCOL_FEATURES	15
#define SET_PROTOCOL_FEATURES	16
#define SET_VRING_ENABLE	18
#define SEND_RARP		19
#define FLAG_VERSION		0x1U
#define FLAG_REPLY		(1U << 2)
#define FLAG_NEED_REPLY		(1U << 3)

/* Layout of a queue in guest memory, from its base offset */
#define Q_BASE(q)	((q) * 0x10000UL)
#define Q_AVAIL		0x1000UL
#define Q_USED		0x2000UL
#define BUF_OFF(q, i)	(0x40000UL + (q) * 0x20000UL + (i) * 4096UL)

static struct ctx c;
static int fe = -1;			/* front-end's end of the socket */
static int memfd = -1;
static uint8_t *mem;			/* our view of guest memory */
static int kick[2] = { -1, -1 }, call[2] = { -1, -1 };
static uint16_t avail_idx[2];

/**
 * struct msg - a message as the test sends or receives it
 * @req:	request
 * @flags:	flags
 * @size:	payload size
 * @p:		payload
 */
struct msg {
	uint32_t req;
	uint32_t flags;
	uint32_t size;
	uint8_t p[512];
} __attribute__((packed));

/**
 * pump() - run the backend's handlers for pending epoll events, and signal
 *	    the guest after each round, as the main loop does
 */
static void pump(void)
{
	struct epoll_event ev[8];
	int n, i, rounds;

	for (rounds = 0; rounds < 4; rounds++) {
		n = epoll_wait(c.epollfd, ev, 8, 0);
		for (i = 0; i < n; i++) {
			union epoll_ref ref = { .u64 = ev[i].data.u64 };

			tap_handler(&c, ref, ev[i].events, 0);
		}
		tap_notify(&c);		/* as the main loop, once a turn */
	}
}

/**
 * send_msg() - send a request, then let the backend handle it
 * @req:	request
 * @flags:	extra flags (FLAG_NEED_REPLY)
 * @p:		payload
 * @size:	payload size
 * @fds:	descriptors to pass
 * @nfds:	their number
 */
static void send_msg(uint32_t req, uint32_t flags, const void *p,
		     size_t size, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(8 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msg m = { .req = req, .flags = FLAG_VERSION | flags,
			 .size = (uint32_t)size };
	struct iovec iov = { .iov_base = &m, .iov_len = 12 + size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (size)
		memcpy(m.p, p, size);
	if (nfds) {
		struct cmsghdr *cm;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	ck_assert_int_eq(sendmsg(fe, &mh, 0), (ssize_t)(12 + size));
	pump();
}

/**
 * recv_reply() - read a reply to a request
 * @req:	request it must answer
 * @p:		payload, filled
 * @size:	expected payload size
 */
static void recv_reply(uint32_t req, void *p, size_t size)
{
	struct msg m;
	ssize_t n = recv(fe, &m, 12 + size, MSG_DONTWAIT);

	ck_assert_int_eq(n, (ssize_t)(12 + size));
	ck_assert_uint_eq(m.req, req);
	ck_assert_uint_eq(m.flags, FLAG_VERSION | FLAG_REPLY);
	ck_assert_uint_eq(m.size, size);
	memcpy(p, m.p, size);
}

/**
 * no_reply() - check that nothing came back
 */
static void no_reply(void)
{
	char b;

	ck_assert_int_eq(recv(fe, &b, 1, MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
}

/**
 * u64_req() - send a request with a u64 payload
 * @req:	request
 * @flags:	extra flags
 * @v:		value
 */
static void u64_req(uint32_t req, uint32_t flags, uint64_t v)
{
	send_msg(req, flags, &v, sizeof(v), NULL, 0);
}

/**
 * ack() - read a REPLY_ACK status
 * @req:	request it answers
 *
 * Return: the status
 */
static uint64_t ack(uint32_t req)
{
	uint64_t v;

	recv_reply(req, &v, sizeof(v));
	return v;
}

/**
 * state_req() - send a request with a vring state payload
 * @req:	request
 * @index:	queue
 * @num:	number
 */
static void state_req(uint32_t req, uint32_t index, uint32_t num)
{
	uint32_t st[2] = { index, num };

	send_msg(req, 0, st, sizeof(st), NULL, 0);
}

/**
 * desc_at() - a queue's descriptor in guest memory
 * @q:		queue
 * @i:		index
 *
 * Return: pointer to it
 */
static struct vring_desc *desc_at(int q, unsigned int i)
{
	return (struct vring_desc *)(mem + Q_BASE(q)) + i;
}

/**
 * avail_of() - a queue's available ring
 * @q:		queue
 *
 * Return: pointer to it
 */
static struct vring_avail *avail_of(int q)
{
	return (struct vring_avail *)(mem + Q_BASE(q) + Q_AVAIL);
}

/**
 * used_of() - a queue's used ring
 * @q:		queue
 *
 * Return: pointer to it
 */
static struct vring_used *used_of(int q)
{
	return (struct vring_used *)(mem + Q_BASE(q) + Q_USED);
}

/**
 * post() - make one single-buffer chain available, as the guest does
 * @q:		queue
 * @i:		descriptor (and buffer) index
 * @len:	buffer length (RX) or bytes to send (TX)
 */
static void post(int q, unsigned int i, uint32_t len)
{
	struct vring_desc *d = desc_at(q, i);

	d->addr = GPA_BASE + BUF_OFF(q, i);
	d->len = len;
	d->flags = q == 0 ? VRING_DESC_F_WRITE : 0;
	d->next = 0;
	avail_of(q)->ring[avail_idx[q] % QSIZE] = (uint16_t)i;
	__atomic_store_n(&avail_of(q)->idx, ++avail_idx[q], __ATOMIC_RELEASE);
}

/**
 * do_kick() - notify the backend of new buffers on a queue
 * @q:		queue
 */
static void do_kick(int q)
{
	uint64_t one = 1;

	ck_assert_int_eq(write(kick[q], &one, sizeof(one)), 8);
	pump();
}

/**
 * kick_only() - the guest kicks a queue; the backend handles the one event
 *		 it raised, without the end of the loop iteration
 *		 (tap_notify())
 * @q:		queue
 */
static void kick_only(int q)
{
	union epoll_ref ref = { .u64 = 0 };
	struct epoll_event ev;
	uint64_t one = 1;

	ck_assert_int_eq(write(kick[q], &one, sizeof(one)), 8);
	ck_assert_int_eq(epoll_wait(c.epollfd, &ev, 1, 0), 1);
	ref.u64 = ev.data.u64;
	tap_handler(&c, ref, ev.events, 0);
}

/**
 * called() - read and reset a call eventfd
 * @q:		queue
 *
 * Return: true if the backend signalled it
 */
static bool called(int q)
{
	uint64_t v;

	return read(call[q], &v, sizeof(v)) == 8;
}

/* Offload feature bits: CSUM, GUEST_CSUM, GUEST_TSO4/6, HOST_TSO4/6 */
#define F_CSUM		(1ULL << 0)
#define F_GUEST_CSUM	(1ULL << 1)
#define F_GUEST_TSO4	(1ULL << 7)
#define F_GUEST_TSO6	(1ULL << 8)
#define F_HOST_TSO4	(1ULL << 11)
#define F_HOST_TSO6	(1ULL << 12)
#define F_OFFLOADS	(F_CSUM | F_GUEST_CSUM | F_GUEST_TSO4 |		\
			 F_GUEST_TSO6 | F_HOST_TSO4 | F_HOST_TSO6)

/**
 * setup_queue() - size, base, rings and eventfds of a queue, as QEMU orders
 *		   them (the call eventfd after the kick eventfd)
 * @q:		queue
 */
static void setup_queue(int q)
{
	uint64_t a[4] = { 0 };
	uint32_t hdr[2] = { (uint32_t)q, 0 };
	uint8_t addr[40];
	uint64_t idx = (uint64_t)q;

	kick[q] = eventfd(0, EFD_NONBLOCK);
	call[q] = eventfd(0, EFD_NONBLOCK);
	state_req(SET_VRING_NUM, (uint32_t)q, QSIZE);
	state_req(SET_VRING_BASE, (uint32_t)q, 0);
	a[0] = UVA_BASE + Q_BASE(q);		/* descriptors */
	a[1] = UVA_BASE + Q_BASE(q) + Q_USED;	/* used */
	a[2] = UVA_BASE + Q_BASE(q) + Q_AVAIL;	/* available */
	memcpy(addr, hdr, sizeof(hdr));
	memcpy(addr + 8, a, sizeof(a));
	send_msg(SET_VRING_ADDR, 0, addr, sizeof(addr), NULL, 0);
	send_msg(SET_VRING_KICK, 0, &idx, sizeof(idx), &kick[q], 1);
	send_msg(SET_VRING_CALL, 0, &idx, sizeof(idx), &call[q], 1);
}

/**
 * setup_features() - start the backend, negotiate, set up both queues
 * @event_idx:	also acknowledge VIRTIO_RING_F_EVENT_IDX
 * @extra:	more feature bits to acknowledge (offloads)
 */
static void setup_features(bool event_idx, uint64_t extra)
{
	uint64_t f, pf;
	int sv[2], q;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&c, 0, sizeof(c));
	c.mode = MODE_PASST;
	c.vhost_user = true;
	c.epollfd = epoll_create1(0);
	ck_assert_int_ge(c.epollfd, 0);
	c.fd_tap_preopened = sv[0];
	relay_sink_set();
	ck_assert_int_eq(tap_init(&c), 0);
	ck_assert(!tap_connected(&c));	/* no queue yet */
	fe = sv[1];

	memfd = memfd_create("guest", 0);
	ck_assert_int_ge(memfd, 0);
	ck_assert_int_eq(ftruncate(memfd, MEM_SIZE), 0);
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   memfd, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	memset(avail_idx, 0, sizeof(avail_idx));

	send_msg(GET_FEATURES, 0, NULL, 0, NULL, 0);
	recv_reply(GET_FEATURES, &f, sizeof(f));
	ck_assert(f & (1ULL << 32));	/* VERSION_1 */
	ck_assert(f & (1ULL << 15));	/* MRG_RXBUF */
	ck_assert(f & (1ULL << 30));	/* PROTOCOL_FEATURES */
	ck_assert_uint_eq(f & F_OFFLOADS, F_OFFLOADS);

	send_msg(SET_OWNER, 0, NULL, 0, NULL, 0);
	send_msg(GET_PROTOCOL_FEATURES, 0, NULL, 0, NULL, 0);
	recv_reply(GET_PROTOCOL_FEATURES, &pf, sizeof(pf));
	ck_assert(pf & (1ULL << 3));	/* REPLY_ACK */
	u64_req(SET_PROTOCOL_FEATURES, 0, 1ULL << 3);
	no_reply();

	u64_req(SET_FEATURES, FLAG_NEED_REPLY,
		(1ULL << 32) | (1ULL << 15) | (1ULL << 30) |
		(event_idx ? 1ULL << 29 : 0) | extra);
	ck_assert_uint_eq(ack(SET_FEATURES), 0);

	{
		uint64_t t[1 + 4] = { 1, GPA_BASE, MEM_SIZE, UVA_BASE, 0 };

		send_msg(SET_MEM_TABLE, FLAG_NEED_REPLY, t, sizeof(t),
			 &memfd, 1);
		ck_assert_uint_eq(ack(SET_MEM_TABLE), 0);
	}

	for (q = 0; q < 2; q++)
		setup_queue(q);
	ck_assert(!tap_connected(&c));	/* disabled until enabled */
	state_req(SET_VRING_ENABLE, 0, 1);
	state_req(SET_VRING_ENABLE, 1, 1);
	ck_assert(tap_connected(&c));
	no_reply();
	/* Each call eventfd came after its queue started (at the kick, as
	 * QEMU orders them): signalled once, whatever went before it
	 */
	ck_assert(called(0));
	ck_assert(called(1));
}

/**
 * setup() - start the backend, set up both queues, without event index
 */
static void setup(void)
{
	setup_features(false, 0);
}

/**
 * teardown() - close everything
 */
static void teardown(void)
{
	int q;

	close(fe);
	pump();
	for (q = 0; q < 2; q++) {
		close(kick[q]);
		close(call[q]);
	}
	munmap(mem, MEM_SIZE);
	close(memfd);
	close(c.epollfd);
}

START_TEST(test_handshake_unknown)
{
	setup();

	/* An unknown request with need_reply: refused */
	send_msg(99, FLAG_NEED_REPLY, NULL, 0, NULL, 0);
	ck_assert_uint_ne(ack(99), 0);
	/* ... and without: ignored */
	send_msg(99, 0, NULL, 0, NULL, 0);
	no_reply();
	ck_assert(tap_connected(&c));

	teardown();
}
END_TEST

START_TEST(test_rx)
{
	static uint8_t f[3][3000];
	size_t lens[3] = { 60, 1500, 3000 };
	struct iovec iov[3];
	unsigned int i, k;
	uint16_t nb;

	setup();
	for (i = 0; i < 3; i++) {
		memset(f[i], 0xa0 + i, lens[i]);
		iov[i].iov_base = f[i];
		iov[i].iov_len = lens[i];
	}

	/* Four buffers: 1 + 1 + 2 for the third frame (3012 bytes) */
	for (i = 0; i < 4; i++)
		post(0, i, BUF_SIZE);
	ck_assert_uint_eq(tap_send_frames(&c, iov, 1, 3), 3);
	ck_assert_uint_eq(used_of(0)->idx, 4);

	/* One signal, once the loop iteration's output is done */
	ck_assert(!called(0));
	tap_notify(&c);
	ck_assert(called(0));
	tap_notify(&c);
	ck_assert(!called(0));

	for (i = 0, k = 0; i < 3; i++) {
		const uint8_t *b = mem + BUF_OFF(0, used_of(0)->ring[k].id);

		memcpy(&nb, b + 10, sizeof(nb));
		ck_assert_uint_eq(nb, i < 2 ? 1 : 2);
		ck_assert_uint_eq(b[HDR_LEN], 0xa0 + i);
		ck_assert_uint_eq(used_of(0)->ring[k].len,
				  MIN(HDR_LEN + lens[i], BUF_SIZE));
		k += nb;
	}
	/* The rest of the third frame, in the fourth buffer */
	ck_assert_uint_eq(used_of(0)->ring[3].len, HDR_LEN + 3000 - BUF_SIZE);
	ck_assert_uint_eq(mem[BUF_OFF(0, used_of(0)->ring[3].id)], 0xa2);

	/* Out of buffers: nothing taken, wake-up armed */
	ck_assert_uint_eq(tap_send_frames(&c, iov, 1, 3), 0);
	ck_assert(tap_output_armed(&c));

	/* New buffers and a kick: disarmed (the queue was empty: no flush) */
	for (i = 4; i < 8; i++)
		post(0, i, BUF_SIZE);
	do_kick(0);
	ck_assert(!tap_output_armed(&c));
	ck_assert_uint_eq(tap_send_frames(&c, iov, 1, 3), 3);
	ck_assert_uint_eq(tap_stats_get()->tx_frames, 6);

	teardown();
}
END_TEST

/**
 * guest_kicks() - would the guest kick after adding buffers, with event
 *		   index? (virtio: it kicks if avail_event is in [old, new))
 * @q:		queue
 * @old:	avail->idx before the guest added them
 *
 * Return: true if it would
 */
static bool guest_kicks(int q, uint16_t old)
{
	uint16_t event = *(uint16_t *)&used_of(q)->ring[QSIZE];
	uint16_t new = avail_idx[q];

	return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

START_TEST(test_rx_event_idx)
{
	static uint8_t f[3000];
	struct iovec iov = { .iov_base = f, .iov_len = sizeof(f) };
	uint16_t old;

	setup_features(true, 0);

	/* One buffer, for a frame needing two: armed, nothing taken */
	post(0, 0, BUF_SIZE);
	ck_assert_uint_eq(tap_send_frames(&c, &iov, 1, 1), 0);
	ck_assert(tap_output_armed(&c));

	/* The guest adds one more: it must kick us, or the frame waits */
	old = avail_idx[0];
	post(0, 1, BUF_SIZE);
	ck_assert_msg(guest_kicks(0, old), "avail_event %u: no kick for "
		      "buffers added from index %u",
		      *(uint16_t *)&used_of(0)->ring[QSIZE], old);
	do_kick(0);
	ck_assert(!tap_output_armed(&c));
	ck_assert_uint_eq(tap_send_frames(&c, &iov, 1, 1), 1);
	ck_assert_uint_eq(used_of(0)->idx, 2);

	teardown();
}
END_TEST

/**
 * call_fd_req() - SET_VRING_CALL, acknowledged
 * @q:		queue
 * @fd:		eventfd, -1 for none (VHOST_USER_VRING_NOFD_MASK)
 */
static void call_fd_req(int q, int fd)
{
	uint64_t idx = (uint64_t)q | (fd < 0 ? 1ULL << 8 : 0);

	send_msg(SET_VRING_CALL, FLAG_NEED_REPLY, &idx, sizeof(idx),
		 fd < 0 ? NULL : &fd, fd < 0 ? 0 : 1);
	ck_assert_uint_eq(ack(SET_VRING_CALL), 0);
}

START_TEST(test_call_late)
{
	static uint8_t f[100];
	struct iovec iov = { .iov_base = f, .iov_len = sizeof(f) };

	setup_features(true, 0);

	/* A signal to a call eventfd nobody forwards (QEMU's first one,
	 * until the guest's notifier comes, after the kick): with event
	 * index, the guest hears nothing more until it asks again, and it
	 * asks only once it heard. The new eventfd gets the signal at once
	 */
	post(0, 0, BUF_SIZE);
	ck_assert_uint_eq(tap_send_frames(&c, &iov, 1, 1), 1);
	tap_notify(&c);
	ck_assert(called(0));
	close(call[0]);
	call[0] = eventfd(0, EFD_NONBLOCK);
	call_fd_req(0, call[0]);
	ck_assert(called(0));

	/* No call eventfd at all: nothing counts as signalled; the next
	 * eventfd to come gets the signal
	 */
	call_fd_req(0, -1);
	post(0, 1, BUF_SIZE);
	*(uint16_t *)&avail_of(0)->ring[QSIZE] = used_of(0)->idx;
	ck_assert_uint_eq(tap_send_frames(&c, &iov, 1, 1), 1);
	tap_notify(&c);
	ck_assert(!called(0));
	call_fd_req(0, call[0]);
	ck_assert(called(0));
	tap_notify(&c);
	ck_assert(!called(0));

	teardown();
}
END_TEST

START_TEST(test_send_rarp)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	uint64_t pf, v = 0;

	setup();
	send_msg(GET_PROTOCOL_FEATURES, 0, NULL, 0, NULL, 0);
	recv_reply(GET_PROTOCOL_FEATURES, &pf, sizeof(pf));
	ck_assert(pf & (1ULL << 2));	/* VHOST_USER_PROTOCOL_F_RARP */

	/* The guest's MAC address: frames to the guest go there */
	memcpy(&v, mac, sizeof(mac));
	u64_req(SEND_RARP, FLAG_NEED_REPLY, v);
	ck_assert_uint_eq(ack(SEND_RARP), 0);
	ck_assert_mem_eq(guest_mac(), mac, sizeof(mac));

	/* Not a guest's: refused, the one known stays */
	v = 0;
	memcpy(&v, mcast, sizeof(mcast));
	u64_req(SEND_RARP, FLAG_NEED_REPLY, v);
	ck_assert_uint_ne(ack(SEND_RARP), 0);
	ck_assert_mem_eq(guest_mac(), mac, sizeof(mac));
	ck_assert(tap_connected(&c));

	teardown();
}
END_TEST

START_TEST(test_tx)
{
	uint32_t st[2];
	unsigned int i;
	uint8_t *b;

	setup();
	b = mem + BUF_OFF(1, 0);
	memset(b, 0, HDR_LEN);
	for (i = 0; i < 60; i++)
		b[HDR_LEN + i] = (uint8_t)i;
	post(1, 0, HDR_LEN + 60);
	kick_only(1);

	ck_assert_uint_eq(tap_stats_get()->rx_frames, 1);
	ck_assert_uint_eq(tap_stats_get()->rx_bytes, 60);
	ck_assert_uint_eq(used_of(1)->idx, 1);

	/* The guest hears of it once the loop iteration is done, with the
	 * receive queue's signal, not from the kick's handler
	 */
	ck_assert(!called(1));
	tap_notify(&c);
	ck_assert(called(1));
	tap_notify(&c);
	ck_assert(!called(1));

	/* Stop the queue: it took one chain */
	st[0] = 1;
	st[1] = 0;
	send_msg(GET_VRING_BASE, 0, st, sizeof(st), NULL, 0);
	recv_reply(GET_VRING_BASE, st, sizeof(st));
	ck_assert_uint_eq(st[0], 1);
	ck_assert_uint_eq(st[1], 1);

	/* Stopped: a kick does nothing */
	post(1, 1, HDR_LEN + 60);
	do_kick(1);
	ck_assert_uint_eq(used_of(1)->idx, 1);

	/* Started again (as after a guest reboot): from where it was, once
	 * a new kick eventfd comes; the frame waiting there is taken
	 */
	state_req(SET_VRING_BASE, 1, 1);
	{
		uint64_t idx = 1;

		close(kick[1]);
		kick[1] = eventfd(0, EFD_NONBLOCK);
		send_msg(SET_VRING_KICK, 0, &idx, sizeof(idx), &kick[1], 1);
	}
	pump();
	ck_assert_uint_eq(used_of(1)->idx, 2);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, 2);

	/* A new memory table while running: the queues go on where they
	 * were (same memory here, mapped again)
	 */
	{
		uint64_t t[1 + 4] = { 1, GPA_BASE, MEM_SIZE, UVA_BASE, 0 };

		send_msg(SET_MEM_TABLE, FLAG_NEED_REPLY, t, sizeof(t),
			 &memfd, 1);
		ck_assert_uint_eq(ack(SET_MEM_TABLE), 0);
	}
	post(1, 2, HDR_LEN + 60);
	do_kick(1);
	ck_assert_uint_eq(used_of(1)->idx, 3);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, 3);

	teardown();
}
END_TEST

/* A TSO super-frame's description, as tcp_emit.c makes it */
static const struct virtio_net_hdr vh_tso4 = {
	.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
	.hdr_len = 0x136,			/* high bytes set too */
	.gso_size = 0x5b4,
	.csum_start = 0x122,
	.csum_offset = 0x110,
};

/**
 * rx_vnet() - send one 3000-byte frame with its header through the
 *	       offload path (tap_send_frames_vnet()), read the guest's header
 * @h:		the first 12 bytes of the first receive buffer, filled
 */
static void rx_vnet(uint8_t *h)
{
	static uint8_t f[3000];
	struct iovec iov[2] = {
		{ (void *)&vh_tso4, sizeof(vh_tso4) }, { f, sizeof(f) },
	};
	uint16_t used0 = used_of(0)->idx;
	const uint8_t *b;

	memset(f, 0xc3, sizeof(f));
	post(0, used0 % QSIZE, BUF_SIZE);
	post(0, (used0 + 1) % QSIZE, BUF_SIZE);
	ck_assert_uint_eq(tap_send_frames_vnet(&c, iov, 1), 1);
	ck_assert_uint_eq(used_of(0)->idx, used0 + 2);

	b = mem + BUF_OFF(0, used_of(0)->ring[used0 % QSIZE].id);
	memcpy(h, b, HDR_LEN);
	ck_assert_uint_eq(b[HDR_LEN], 0xc3);
	ck_assert_uint_eq(used_of(0)->ring[used0 % QSIZE].len, BUF_SIZE);
	ck_assert_uint_eq(used_of(0)->ring[(used0 + 1) % QSIZE].len,
			  HDR_LEN + sizeof(f) - BUF_SIZE);
}

START_TEST(test_offload_rx)
{
	const uint8_t le[HDR_LEN] = { 1, 1, 0x36, 0x01, 0xb4, 0x05,
				      0x22, 0x01, 0x10, 0x01, 2, 0 };
	const uint8_t plain[HDR_LEN] = { [10] = 2 };
	uint8_t h[HDR_LEN];

	/* All offloads: the header goes to the guest, little-endian */
	setup_features(false, F_OFFLOADS);
	ck_assert(tap_offload(&c));
	rx_vnet(h);
	ck_assert(!memcmp(h, le, HDR_LEN));
	teardown();

	/* The guest takes none: plain frames, zero header */
	setup_features(false, 0);
	ck_assert(!tap_offload(&c));
	rx_vnet(h);
	ck_assert(!memcmp(h, plain, HDR_LEN));
	teardown();

	/* Only some of them (no GUEST_TSO6): plain frames too */
	setup_features(false, F_GUEST_CSUM | F_GUEST_TSO4 | F_CSUM);
	ck_assert(!tap_offload(&c));
	rx_vnet(h);
	ck_assert(!memcmp(h, plain, HDR_LEN));
	teardown();
}
END_TEST

/**
 * tx_vnet() - the guest sends a 60-byte frame behind the given header
 * @i:		descriptor (and buffer) index
 * @flags:	header flags
 * @gso_type:	header segmentation type
 */
static void tx_vnet(unsigned int i, uint8_t flags, uint8_t gso_type)
{
	uint8_t *b = mem + BUF_OFF(1, i);

	memset(b, 0, HDR_LEN + 60);
	b[0] = flags;
	b[1] = gso_type;
	b[4] = 0xb4;			/* gso_size 1460 */
	b[5] = 0x05;
	post(1, i, HDR_LEN + 60);
	do_kick(1);
}

START_TEST(test_offload_tx)
{
	const uint8_t csum = VIRTIO_NET_HDR_F_NEEDS_CSUM;

	setup_features(false, F_CSUM | F_HOST_TSO4);

	/* Partial checksum, TCP segmentation we agreed to: taken */
	tx_vnet(0, csum, VIRTIO_NET_HDR_GSO_NONE);
	tx_vnet(1, csum, VIRTIO_NET_HDR_GSO_TCPV4);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, 2);
	ck_assert_uint_eq(tap_stats_get()->rx_drop[TAP_DROP_OFFLOAD], 0);

	/* Not agreed to: TSO6 here, UDP and ECN never: dropped */
	tx_vnet(2, csum, VIRTIO_NET_HDR_GSO_TCPV6);
	tx_vnet(3, csum, VIRTIO_NET_HDR_GSO_UDP);
	tx_vnet(4, csum, 5);	/* VIRTIO_NET_HDR_GSO_UDP_L4 */
	tx_vnet(5, csum, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN);
	ck_assert_uint_eq(tap_stats_get()->rx_frames, 2);
	ck_assert_uint_eq(tap_stats_get()->rx_drop[TAP_DROP_OFFLOAD], 4);
	ck_assert_uint_eq(tap_stats_get()->rx_errors, 0);
	ck_assert_uint_eq(used_of(1)->idx, 6);	/* all given back */

	teardown();
}
END_TEST

/**
 * post_at() - make one single-buffer TX chain available, anywhere
 * @i:		descriptor index
 * @off:	buffer offset in guest memory
 * @len:	bytes to send, virtio-net header included
 */
static void post_at(unsigned int i, uint64_t off, uint32_t len)
{
	struct vring_desc *d = desc_at(1, i);

	d->addr = GPA_BASE + off;
	d->len = len;
	d->flags = 0;
	d->next = 0;
	avail_of(1)->ring[avail_idx[1] % QSIZE] = (uint16_t)i;
	__atomic_store_n(&avail_of(1)->idx, ++avail_idx[1], __ATOMIC_RELEASE);
}

/* Longest frame the backend takes from the guest (vhost_user.c) */
#define VU_FRAME_MAX	(14 + 4 + 40 + 65535)
/* Where the test puts long frames: past both queues' buffers */
#define LONG_OFF	0x80000UL

START_TEST(test_tx_bad_lengths)
{
	const struct tap_stats *t;
	uint16_t used0;
	unsigned int len, k = 0;

	setup();
	memset(mem + BUF_OFF(1, 0), 0, 4096);
	memset(mem + LONG_OFF, 0, MEM_SIZE - LONG_OFF);

	/* Chains shorter than the header, and every length of frame shorter
	 * than an Ethernet header behind it: QSIZE at a time
	 */
	for (len = 0; len < HDR_LEN + 14; len++) {
		post_at(k % QSIZE, BUF_OFF(1, 0), len);
		if (++k % QSIZE == 0)
			do_kick(1);
	}
	do_kick(1);
	t = tap_stats_get();
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_SHORT], HDR_LEN + 14);
	ck_assert_uint_eq(t->rx_frames, 0);
	ck_assert_uint_eq(used_of(1)->idx, HDR_LEN + 14);
	ck_assert(tap_connected(&c));

	/* Longer than the largest frame: one descriptor, or two (the second
	 * crossing the limit), or far more than any frame
	 */
	used0 = used_of(1)->idx;
	post_at(0, LONG_OFF, HDR_LEN + VU_FRAME_MAX + 1);
	{
		struct vring_desc *d = desc_at(1, 1);

		d->addr = GPA_BASE + LONG_OFF;
		d->len = HDR_LEN + 60000;
		d->flags = VRING_DESC_F_NEXT;
		d->next = 2;
		d = desc_at(1, 2);
		d->addr = GPA_BASE + LONG_OFF;
		d->len = 60000;
		d->flags = 0;
		avail_of(1)->ring[avail_idx[1] % QSIZE] = 1;
		__atomic_store_n(&avail_of(1)->idx, ++avail_idx[1],
				 __ATOMIC_RELEASE);
	}
	post_at(3, LONG_OFF, (uint32_t)(MEM_SIZE - LONG_OFF));
	do_kick(1);
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_LONG], 3);
	ck_assert_uint_eq(used_of(1)->idx, (uint16_t)(used0 + 3));

	/* The longest frame itself, and a short one, still go through */
	post_at(4, LONG_OFF, HDR_LEN + VU_FRAME_MAX);
	post_at(5, BUF_OFF(1, 0), HDR_LEN + 14);
	do_kick(1);
	ck_assert_uint_eq(t->rx_frames, 2);
	ck_assert_uint_eq(t->rx_bytes, VU_FRAME_MAX + 14);
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_SHORT], HDR_LEN + 14);
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_LONG], 3);
	ck_assert_uint_eq(t->rx_drop[TAP_DROP_CHAIN], 0);
	ck_assert_uint_eq(used_of(1)->idx, (uint16_t)(used0 + 5));
	ck_assert(called(1));
	ck_assert(tap_connected(&c));

	teardown();
}
END_TEST

/**
 * open_fds() - count this process's open descriptors
 *
 * Return: their number
 */
static unsigned int open_fds(void)
{
	unsigned int n = 0;
	int fd;

	for (fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

START_TEST(test_reply_flag_fds)
{
	unsigned int before;
	uint64_t idx = 0;
	int two[2];

	setup();
	two[0] = eventfd(0, 0);
	two[1] = eventfd(0, 0);
	before = open_fds();

	/* A "reply" from the front-end, with descriptors: the connection
	 * goes, and the relay keeps none of them
	 */
	send_msg(SET_VRING_KICK, FLAG_REPLY, &idx, sizeof(idx), two, 2);
	ck_assert(!tap_connected(&c));
	close(two[0]);
	close(two[1]);
	/* Gone: the relay's socket, its copies of both queues' kick and
	 * call eventfds (ours stay open), our two; the relay's copies of
	 * those two never stayed
	 */
	ck_assert_uint_eq(open_fds(), before - 1 - 4 - 2);

	teardown();
}
END_TEST

START_TEST(test_malformed)
{
	uint64_t idx = 0;
	int two[2];

	setup();
	two[0] = eventfd(0, 0);
	two[1] = eventfd(0, 0);

	/* A kick with two descriptors: the connection goes */
	send_msg(SET_VRING_KICK, 0, &idx, sizeof(idx), two, 2);
	ck_assert(!tap_connected(&c));
	{
		char b;

		ck_assert_int_eq(recv(fe, &b, 1, MSG_DONTWAIT), 0);
	}
	close(two[0]);
	close(two[1]);

	teardown();
}
END_TEST

/**
 * send_piece() - send part of a message, descriptors attached, and let
 *		  the backend handle what came
 * @p:		bytes
 * @len:	their number
 * @fd:		descriptor to attach, -1 for none
 */
static void send_piece(const void *p, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	ck_assert_int_eq(sendmsg(fe, &mh, 0), (ssize_t)len);
	pump();
}

START_TEST(test_trickled)
{
	struct msg m = { .req = SET_VRING_CALL,
			 .flags = FLAG_VERSION | FLAG_NEED_REPLY, .size = 8 };
	const uint8_t *b = (const uint8_t *)&m;

	setup();

	/* A message in five pieces, its descriptor with the fourth: each
	 * piece is taken as it comes (an older backend waited for the rest
	 * with a timeout per read, then dropped the front-end), and the
	 * message is handled once whole
	 */
	memset(m.p, 0, 8);		/* queue 0 */
	close(call[0]);
	call[0] = eventfd(0, EFD_NONBLOCK);
	send_piece(b, 5, -1);
	send_piece(b + 5, 4, -1);
	send_piece(b + 9, 3, -1);
	no_reply();
	send_piece(b + 12, 3, call[0]);
	no_reply();
	ck_assert(tap_connected(&c));
	send_piece(b + 15, 5, -1);
	ck_assert_uint_eq(ack(SET_VRING_CALL), 0);
	ck_assert(called(0));		/* a running queue's new call eventfd */

	teardown();
}
END_TEST

START_TEST(test_deadline)
{
	uint32_t hdr[3] = { GET_FEATURES, FLAG_VERSION, 0 };
	union epoll_ref ref = { .u64 = 0 };
	struct epoll_event ev;
	uint64_t t0;
	char b;

	setup();

	/* A header cut short: the front-end has 1000 ms (the deadline of
	 * doc/vhost-user.md) from its first byte to send the rest, then it
	 * is dropped; the loop never waits meanwhile
	 */
	ck_assert_int_eq(send(fe, hdr, 7, 0), 7);
	t0 = timer_now_ms();
	ck_assert_int_eq(epoll_wait(c.epollfd, &ev, 1, 0), 1);
	ref.u64 = ev.data.u64;
	tap_handler(&c, ref, ev.events, t0);
	ck_assert(tap_connected(&c));
	timer_handler(&c, t0 + 999);
	ck_assert(tap_connected(&c));
	ck_assert_int_eq(recv(fe, &b, 1, MSG_DONTWAIT), -1);
	timer_handler(&c, t0 + 1000);
	ck_assert(!tap_connected(&c));
	ck_assert_int_eq(recv(fe, &b, 1, MSG_DONTWAIT), 0);

	teardown();
}
END_TEST

START_TEST(test_call_full)
{
	uint64_t full = 0xfffffffffffffffeULL, v = 0;
	int efd, mfd;

	setup();

	/* A blocking call eventfd whose counter is at its maximum: the new
	 * call eventfd of a running queue is signalled at once, which would
	 * block for good; the backend makes it non-blocking, and the
	 * signal is lost (counted), the request acknowledged
	 */
	efd = eventfd(0, 0);
	ck_assert_int_eq(write(efd, &full, sizeof(full)), 8);
	call_fd_req(0, efd);
	ck_assert(fcntl(efd, F_GETFL) & O_NONBLOCK);
	ck_assert_int_eq(read(efd, &v, sizeof(v)), 8);
	ck_assert(v == full);
	close(efd);

	/* Something else than an eventfd or a pipe (a write to a file may
	 * block whatever O_NONBLOCK says): refused, the connection stays
	 */
	mfd = memfd_create("not an eventfd", 0);
	ck_assert_int_ge(mfd, 0);
	{
		uint64_t idx = 0;

		send_msg(SET_VRING_CALL, FLAG_NEED_REPLY, &idx, sizeof(idx),
			 &mfd, 1);
	}
	ck_assert_uint_ne(ack(SET_VRING_CALL), 0);
	ck_assert(tap_connected(&c));
	close(mfd);

	teardown();
}
END_TEST

/**
 * vhost_user_suite() - the tests
 *
 * Return: suite
 */
static Suite *vhost_user_suite(void)
{
	Suite *s = suite_create("vhost_user");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_handshake_unknown);
	tcase_add_test(tc, test_rx);
	tcase_add_test(tc, test_rx_event_idx);
	tcase_add_test(tc, test_tx);
	tcase_add_test(tc, test_call_late);
	tcase_add_test(tc, test_send_rarp);
	tcase_add_test(tc, test_offload_rx);
	tcase_add_test(tc, test_offload_tx);
	tcase_add_test(tc, test_tx_bad_lengths);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_reply_flag_fds);
	tcase_add_test(tc, test_trickled);
	tcase_add_test(tc, test_deadline);
	tcase_add_test(tc, test_call_full);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(vhost_user_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
