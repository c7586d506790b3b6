// SPDX-License-Identifier: GPL-2.0-or-later
/* tap_bridge.c - a "guest" for passt without a VM: tap device <-> socket
 *
 * Usage: tap_bridge [OPTIONS] SOCKET_PATH TAPNAME
 *
 * Run inside a network namespace (ip netns exec NS tap_bridge ...): it
 * creates the tap device TAPNAME there and connects to the relay's UNIX
 * socket, then moves frames both ways, with the framing of QEMU's
 * "-netdev stream": each frame preceded by its length, 4 bytes, big
 * endian. The namespace's kernel is then the guest: DHCP clients, TCP,
 * IPv6 all run for real. Configure the device with ip(8) once it exists.
 *
 * Theory of operation
 *
 * Both descriptors are non-blocking and served by one poll() loop, with a
 * buffer per direction. Frames read from the tap device are appended, with
 * their length prefix, to the buffer toward the socket, which is written
 * as far as the socket takes it. Bytes read from the socket go to the
 * buffer toward the tap device, which gets every complete frame. Neither
 * side ever waits for the other: when a buffer is full we stop reading
 * the side that fills it (for the tap device, the kernel then drops frames
 * as a full link would), so a relay that is blocked writing to us while we
 * write to it cannot deadlock us both.
 *
 * For backpressure tests, --stall-after-bytes B --stall-seconds S stop
 * reading the socket for S seconds once B bytes came from it (once). For
 * loss tests, --drop-every N discards every Nth frame of at least
 * BRIDGE_DROP_MIN_LEN bytes in each direction, as a lossy link would: the
 * sender's TCP never learns of it, so it must recover by retransmission.
 * For tests of bad frames, --inject PATH binds a datagram socket there:
 * each datagram goes to the relay as one frame, whatever its length (0
 * bytes, or more than any device takes), which no tap device can carry.
 * It is read only while the buffer toward the relay has room for the
 * largest one, so nothing injected is lost (the sender waits instead).
 *
 * Exit status: 0 when the relay closes the connection, 1 on errors.
 */

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/bridge.h"

#define BRIDGE_LEN_SIZE		4
#define BRIDGE_FRAME_MIN	14
#define BRIDGE_FRAME_MAX	(14 + 4 + 65535)
#define BRIDGE_BUF_SIZE		(4 * 1024 * 1024)
/* Frames read from the tap device per loop iteration, at most */
#define BRIDGE_TAP_BATCH	64
/* Frames shorter than this are never dropped by --drop-every (ARP, NDP,
 * bare ACKs and SYNs), so that set-up does not wait for timeouts
 */
#define BRIDGE_DROP_MIN_LEN	256
/* Default time to wait for the relay's socket to accept us, seconds */
#define BRIDGE_WAIT_DEFAULT	5

/**
 * struct bridge_buf - bytes in transit in one direction
 * @data:	storage
 * @head:	first byte not yet consumed
 * @tail:	end of the bytes stored
 */
struct bridge_buf {
	uint8_t data[BRIDGE_BUF_SIZE];
	size_t head;
	size_t tail;
};

static struct bridge_buf to_sock;	/* tap -> socket, framed */
static struct bridge_buf to_tap;	/* socket -> tap, framed */

/**
 * struct bridge_counters - what went through, reported at exit
 * @frames_to_sock:	frames read from the tap device
 * @frames_to_tap:	frames written to the tap device
 * @tap_drops:		frames the tap device refused
 * @bytes_from_sock:	bytes read from the socket
 * @seen_to_sock:	frames toward the socket --drop-every could drop
 * @seen_to_tap:	frames toward the tap device --drop-every could drop
 * @injected:		frames from the injection socket to the relay
 */
static struct bridge_counters {
	unsigned long long frames_to_sock;
	unsigned long long frames_to_tap;
	unsigned long long tap_drops;
	unsigned long long bytes_from_sock;
	unsigned long long seen_to_sock;
	unsigned long long seen_to_tap;
	unsigned long long injected;
} cnt;

static int quiet;
static long long drop_every;	/* --drop-every, 0: none */

/**
 * drop_now() - should this frame be lost (--drop-every)?
 * @seen:	frames of droppable size seen so far in this direction
 * @len:	length of the frame
 *
 * Return: 1 to drop the frame
 */
static int drop_now(unsigned long long *seen, size_t len)
{
	if (!drop_every || len < BRIDGE_DROP_MIN_LEN)
		return 0;
	return ++*seen % (unsigned long long)drop_every == 0;
}

/**
 * buf_compact() - move pending bytes to the start if room at the end is low
 * @b:		buffer
 * @need:	bytes wanted at the end
 */
static void buf_compact(struct bridge_buf *b, size_t need)
{
	if (b->head == b->tail) {
		b->head = b->tail = 0;
		return;
	}
	if (BRIDGE_BUF_SIZE - b->tail >= need || !b->head)
		return;

	memmove(b->data, b->data + b->head, b->tail - b->head);
	b->tail -= b->head;
	b->head = 0;
}

/**
 * tap_read() - read frames from the tap device into the socket buffer
 * @fd:		tap device
 */
static void tap_read(int fd)
{
	int i;

	for (i = 0; i < BRIDGE_TAP_BATCH; i++) {
		struct bridge_buf *b = &to_sock;
		uint32_t be;
		ssize_t n;

		buf_compact(b, BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX);
		if (BRIDGE_BUF_SIZE - b->tail <
		    BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX)
			return;

		n = read(fd, b->data + b->tail + BRIDGE_LEN_SIZE,
			 BRIDGE_FRAME_MAX);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			bridge_fail("read from tap device", NULL);
		}
		if (n < BRIDGE_FRAME_MIN ||
		    drop_now(&cnt.seen_to_sock, (size_t)n))
			continue;

		be = htonl((uint32_t)n);
		memcpy(b->data + b->tail, &be, sizeof(be));
		b->tail += BRIDGE_LEN_SIZE + (size_t)n;
		cnt.frames_to_sock++;
	}
}

/**
 * sock_write() - write buffered frames to the socket, as far as it takes
 * @fd:		socket
 */
static void sock_write(int fd)
{
	struct bridge_buf *b = &to_sock;

	while (b->head < b->tail) {
		ssize_t n = send(fd, b->data + b->head, b->tail - b->head,
				 MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			if (errno == EPIPE || errno == ECONNRESET)
				return;	/* the read side sees the end */
			bridge_fail("write to the relay", NULL);
		}
		b->head += (size_t)n;
	}
	buf_compact(b, BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX);
}

/**
 * sock_read() - read from the socket into the tap buffer
 * @fd:		socket
 *
 * Return: 0 if the relay closed the connection, 1 otherwise
 */
static int sock_read(int fd)
{
	struct bridge_buf *b = &to_tap;
	ssize_t n;

	buf_compact(b, BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX);
	if (b->tail == BRIDGE_BUF_SIZE)
		return 1;

	n = read(fd, b->data + b->tail, BRIDGE_BUF_SIZE - b->tail);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 1;
		if (errno == ECONNRESET)
			return 0;
		bridge_fail("read from the relay", NULL);
	}
	if (!n)
		return 0;

	b->tail += (size_t)n;
	cnt.bytes_from_sock += (unsigned long long)n;
	return 1;
}

/**
 * tap_write() - write complete frames from the socket to the tap device
 * @fd:		tap device
 *
 * Return: 1 if a frame waits for the device to take it, 0 otherwise
 */
static int tap_write(int fd)
{
	struct bridge_buf *b = &to_tap;

	while (b->tail - b->head >= BRIDGE_LEN_SIZE) {
		uint32_t be, len;
		ssize_t n;

		memcpy(&be, b->data + b->head, sizeof(be));
		len = ntohl(be);
		if (len < BRIDGE_FRAME_MIN || len > BRIDGE_FRAME_MAX) {
			char n[16];

			snprintf(n, sizeof(n), "%u", len);
			errno = EPROTO;
			bridge_fail("relay sent a frame length of", n);
		}
		if (b->tail - b->head - BRIDGE_LEN_SIZE < len)
			break;
		if (drop_now(&cnt.seen_to_tap, len)) {
			b->head += BRIDGE_LEN_SIZE + len;
			continue;
		}

		n = write(fd, b->data + b->head + BRIDGE_LEN_SIZE, len);
		if (n < 0) {
			if (errno == EAGAIN || errno == ENOBUFS)
				return 1;
			if (errno != EINTR)
				cnt.tap_drops++;	/* e.g. EIO: link down */
			else
				continue;
		} else {
			cnt.frames_to_tap++;
		}
		b->head += BRIDGE_LEN_SIZE + len;
	}

	buf_compact(b, BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX);
	return 0;
}

/**
 * inject_room() - can the buffer toward the relay take an injected frame?
 *
 * Return: true if the largest one fits, after compacting
 */
static bool inject_room(void)
{
	return BRIDGE_BUF_SIZE - to_sock.tail + to_sock.head >=
	       BRIDGE_LEN_SIZE + BRIDGE_INJECT_MAX;
}

/**
 * inject_read() - frames injected by the test, as they are, to the relay
 * @fd:		injection socket
 */
static void inject_read(int fd)
{
	struct bridge_buf *b = &to_sock;

	while (inject_room()) {
		uint32_t be;
		ssize_t n;

		buf_compact(b, BRIDGE_LEN_SIZE + BRIDGE_INJECT_MAX);
		n = bridge_inject_recv(fd, b->data + b->tail + BRIDGE_LEN_SIZE);
		if (n < 0)
			return;

		be = htonl((uint32_t)n);
		memcpy(b->data + b->tail, &be, sizeof(be));
		b->tail += BRIDGE_LEN_SIZE + (size_t)n;
		cnt.injected++;
	}
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
		"Bridge a new tap device in this namespace to the relay's "
		"UNIX socket.\n\n"
		"  --stall-after-bytes B  stop reading the socket once B bytes "
		"came from it...\n"
		"  --stall-seconds S      ...for S seconds (once)\n"
		"  --drop-every N         lose every Nth frame (of at least "
		"%d bytes) each way\n"
		"  --wait S               retry connecting for S seconds "
		"(default %d)\n"
		"  --inject PATH          datagrams arriving at PATH go to "
		"the relay as frames\n"
		"  --quiet                no counters at exit\n"
		"  --help                 this text\n",
		name, BRIDGE_DROP_MIN_LEN, BRIDGE_WAIT_DEFAULT);
	exit(status);
}

/**
 * struct bridge_opts - command line
 * @stall_after:	--stall-after-bytes, -1: none (or already stalled)
 * @stall_s:		--stall-seconds
 * @wait_s:		--wait
 * @inject:		--inject socket, -1 if none
 */
struct bridge_opts {
	long long stall_after;
	long long stall_s;
	int wait_s;
	int inject;
};

/**
 * parse_opts() - parse options, exit on errors or after --help
 * @argc:	argument count
 * @argv:	arguments
 * @o:		options, set
 */
static void parse_opts(int argc, char **argv, struct bridge_opts *o)
{
	static const struct option opts[] = {
		{ "stall-after-bytes",	required_argument, NULL, 'b' },
		{ "stall-seconds",	required_argument, NULL, 's' },
		{ "drop-every",		required_argument, NULL, 'd' },
		{ "wait",		required_argument, NULL, 'w' },
		{ "inject",		required_argument, NULL, 'i' },
		{ "quiet",		no_argument,	   NULL, 'q' },
		{ "help",		no_argument,	   NULL, 'h' },
		{ 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			o->stall_after = bridge_parse_num("stall-after-bytes",
							  optarg);
			break;
		case 's':
			o->stall_s = bridge_parse_num("stall-seconds", optarg);
			break;
		case 'd':
			drop_every = bridge_parse_num("drop-every", optarg);
			break;
		case 'w':
			o->wait_s = (int)bridge_parse_num("wait", optarg);
			break;
		case 'i':
			o->inject = bridge_inject_open(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(argv[0], 0);
		default:
			usage(argv[0], 1);
		}
	}
	if (argc - optind != 2)
		usage(argv[0], 1);
}

/**
 * poll_events() - what to wait for on each descriptor
 * @pfd:	socket, tap device, injection socket: events set
 * @stalled:	not reading the socket (--stall-seconds)
 * @tap_blocked: frames wait for room in the tap device
 */
static void poll_events(struct pollfd *pfd, int stalled, int tap_blocked)
{
	if (!stalled && to_tap.tail < BRIDGE_BUF_SIZE)
		pfd[0].events |= POLLIN;
	if (to_sock.head < to_sock.tail)
		pfd[0].events |= POLLOUT;
	if (BRIDGE_BUF_SIZE - to_sock.tail + to_sock.head >=
	    BRIDGE_LEN_SIZE + BRIDGE_FRAME_MAX)
		pfd[1].events |= POLLIN;
	if (tap_blocked)
		pfd[1].events |= POLLOUT;
	if (inject_room())
		pfd[2].events |= POLLIN;
}

/**
 * bridge_run() - move frames both ways until the relay closes the socket
 * @o:		options (stall_after is cleared once the stall started)
 * @tap:	tap device
 * @sock:	connected socket, non-blocking
 */
static void bridge_run(struct bridge_opts *o, int tap, int sock)
{
	int stalled = 0, tap_blocked = 0;
	long long stall_until = 0;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = sock }, { .fd = tap }, { .fd = o->inject },
		};
		int timeout = -1;

		if (stalled) {
			long long left = stall_until - bridge_now_ms();

			if (left <= 0)
				stalled = 0;
			else
				timeout = (int)left;
		}

		poll_events(pfd, stalled, tap_blocked);
		if (poll(pfd, 3, timeout) < 0) {
			if (errno == EINTR)
				continue;
			bridge_fail("poll", NULL);
		}

		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (stalled || !(pfd[0].events & POLLIN))
				break;	/* hang-up while not reading: done */
			if (!sock_read(sock))
				break;
			if (o->stall_after >= 0 &&
			    cnt.bytes_from_sock >=
			    (unsigned long long)o->stall_after) {
				o->stall_after = -1;
				stalled = 1;
				stall_until = bridge_now_ms() +
					      o->stall_s * 1000;
			}
		}

		tap_blocked = tap_write(tap);

		if (pfd[1].revents & POLLIN)
			tap_read(tap);
		if (pfd[2].revents & POLLIN)
			inject_read(o->inject);

		sock_write(sock);
	}
}

/**
 * main() - set up, then move frames until the relay closes the socket
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: 0 when the relay closed the connection
 */
int main(int argc, char **argv)
{
	struct bridge_opts o = {
		.stall_after = -1, .wait_s = BRIDGE_WAIT_DEFAULT, .inject = -1,
	};
	int tap, sock;

	parse_opts(argc, argv, &o);

	bridge_name = "tap_bridge";
	tap = bridge_tap_open(argv[optind + 1], 0, 0);
	sock = bridge_connect(argv[optind], o.wait_s);
	if (fcntl(sock, F_SETFL, O_NONBLOCK))
		bridge_fail("make the socket non-blocking", NULL);

	bridge_run(&o, tap, sock);

	if (!quiet) {
		fprintf(stderr, "tap_bridge: relay closed the connection; "
			"%llu frames to the relay (and %llu injected), %llu to "
			"the tap device, %llu refused by it\n",
			cnt.frames_to_sock, cnt.injected, cnt.frames_to_tap,
			cnt.tap_drops);
	}
	return 0;
}
