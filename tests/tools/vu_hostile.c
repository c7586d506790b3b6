// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_hostile.c - a vhost-user front-end that tries to hold passt's loop
 *
 * Usage: vu_hostile trickle [--stream] [--interval-ms N] [--payload N] SOCKET
 *        vu_hostile callfull SOCKET
 *
 * Theory of operation
 *
 * passt serves everything from one loop: a front-end that makes it wait
 * holds every guest connection and the -c configuration socket with it.
 * This tool plays two such front-ends, for tests/integration/
 * access_control.sh:
 *
 * trickle: sends one message (SET_OWNER with a payload of --payload
 * bytes, zeroes) a byte every --interval-ms, never letting the gap between
 * two bytes reach a second. A relay that waits for the rest of a message
 * with a timeout per read is held until the last byte; one that keeps a
 * deadline from the first byte drops us. Prints "trickling" once the
 * first byte is out, then "dropped after N of M bytes" when the relay
 * closed the connection (exit status 0), or "complete: M bytes sent" if it
 * never did (exit status 2). With --stream, the message is one frame for
 * passt's stream socket instead (QEMU's -netdev stream: a 4-byte
 * big-endian length, then --payload bytes of zeroes), as a guest would
 * trickle it: passt reads that socket without waiting, and keeps it.
 *
 * callfull: sets a device up as QEMU would (tests/tools/lib/vu_client.c),
 * then gives queue 0 a new call eventfd: a blocking one whose counter is
 * at its maximum (0xfffffffffffffffe), which a running queue's new call
 * eventfd is signalled on at once. A relay that writes it as it is
 * blocks until someone reads the counter: nobody does. Prints "call
 * eventfd full" once the message is out, then waits to be killed, never
 * reading the eventfd (exit status 0 if passt closed the connection).
 *
 * Exit status 1 on errors.
 */

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <arpa/inet.h>

#include "lib/vu_client.h"

#define VH_INTERVAL_MS	200		/* --interval-ms default */
#define VH_PAYLOAD	64		/* --payload default */
#define VH_PAYLOAD_MAX	4096		/* what passt takes at most */
#define VH_MEM_SIZE	(1ULL << 20)	/* guest memory of callfull */
#define VH_QSIZE	256		/* its queues' size */
#define VH_GPA		0x40000000ULL
#define VH_UVA		0x7f4400000000ULL
#define VH_SOCK_TIMEOUT_S 5		/* replies from passt, set-up */
#define VH_FULL		0xfffffffffffffffeULL	/* largest eventfd count */

/**
 * vh_fail() - print an error with errno and exit 1
 * @what:	what failed
 * @err_no:	error number (positive)
 */
static void vh_fail(const char *what, int err_no)
{
	fprintf(stderr, "vu_hostile: %s: %s\n", what, strerror(err_no));
	exit(1);
}

/**
 * vh_connect() - connect to passt's vhost-user socket
 * @path:	socket path
 *
 * Return: blocking socket, with a receive timeout
 */
static int vh_connect(const char *path)
{
	struct timeval tv = { .tv_sec = VH_SOCK_TIMEOUT_S };
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		vh_fail("socket path", ENAMETOOLONG);
	memcpy(a.sun_path, path, strlen(path) + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		vh_fail("connect", errno);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		vh_fail("SO_RCVTIMEO", errno);
	return fd;
}

/**
 * vh_closed() - wait up to a time for passt to close the connection
 * @fd:		socket
 * @ms:		milliseconds to wait
 *
 * Return: true if it closed it (end of stream, or an error)
 */
static bool vh_closed(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char b;

	if (poll(&p, 1, ms) <= 0)
		return false;
	return recv(fd, &b, 1, MSG_DONTWAIT) <= 0 || (p.revents & POLLRDHUP);
}

/**
 * vh_trickle() - send one message a byte at a time
 * @path:	socket path
 * @stream:	a frame of the stream socket, not a vhost-user message
 * @interval:	milliseconds between bytes
 * @payload:	payload bytes
 *
 * Return: 0 if passt dropped us, 2 if the whole message went out
 */
static int vh_trickle(const char *path, bool stream, int interval,
		      size_t payload)
{
	static uint8_t msg[12 + VH_PAYLOAD_MAX];
	uint32_t hdr[3] = { VUC_SET_OWNER, VUC_VERSION, (uint32_t)payload };
	uint32_t be = htonl((uint32_t)payload);
	size_t len, i;
	int fd = vh_connect(path);

	if (stream) {
		memcpy(msg, &be, sizeof(be));
		len = sizeof(be) + payload;
	} else {
		memcpy(msg, hdr, sizeof(hdr));
		len = sizeof(hdr) + payload;
	}
	for (i = 0; i < len; i++) {
		if (i && vh_closed(fd, interval))
			break;
		if (send(fd, msg + i, 1, MSG_NOSIGNAL) != 1)
			break;
		if (!i) {
			printf("trickling\n");
			fflush(stdout);
		}
	}

	if (i < len) {
		printf("dropped after %zu of %zu bytes\n", i, len);
		return 0;
	}
	printf("complete: %zu bytes sent\n", len);
	return 2;
}

/**
 * vh_dev() - a device with one memory region and two small queues
 * @d:		filled
 * @fd:		connected socket
 */
static void vh_dev(struct vuc_dev *d, int fd)
{
	unsigned int qi;

	memset(d, 0, sizeof(*d));
	d->fd = fd;
	d->memfd = memfd_create("vu_hostile", MFD_CLOEXEC);
	if (d->memfd < 0 || ftruncate(d->memfd, (off_t)VH_MEM_SIZE))
		vh_fail("guest memory (memfd)", errno);
	d->size = VH_MEM_SIZE;
	d->gpa = VH_GPA;
	d->uva = VH_UVA;
	d->want = VUC_F_VERSION_1 | VUC_F_MRG_RXBUF;

	for (qi = 0; qi < 2; qi++) {
		struct vuc_queue *q = &d->q[qi];

		q->num = VH_QSIZE;
		q->desc = (uint64_t)qi * 0x10000;
		q->avail = q->desc + 0x4000;
		q->used = q->desc + 0x8000;
		q->kick = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		q->call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (q->kick < 0 || q->call < 0)
			vh_fail("eventfd", errno);
	}
}

/**
 * vh_callfull() - set a device up, then give it a full, blocking call
 *		   eventfd
 * @path:	socket path
 *
 * Return: 0 once passt closed the connection
 */
static int vh_callfull(const char *path)
{
	uint64_t full = VH_FULL, idx = 0;
	struct vuc_dev d;
	int rc, efd;

	vh_dev(&d, vh_connect(path));
	rc = vuc_dev_setup(&d);
	if (rc) {
		fprintf(stderr, "vu_hostile: device set-up failed: %s\n",
			rc > 0 ? "refused" : strerror(-rc));
		return 1;
	}

	efd = eventfd(0, EFD_CLOEXEC);		/* blocking */
	if (efd < 0 || write(efd, &full, sizeof(full)) != sizeof(full))
		vh_fail("a full eventfd", errno);

	/* No reply asked for: a relay blocked in write() would never send
	 * it, and we want to stay connected and silent
	 */
	rc = vuc_send(d.fd, VUC_SET_VRING_CALL, 0, &idx, sizeof(idx), &efd,
		      1);
	if (rc)
		vh_fail("SET_VRING_CALL", -rc);
	printf("call eventfd full\n");
	fflush(stdout);

	while (!vh_closed(d.fd, 1000))
		;
	printf("passt closed the connection\n");
	return 0;
}

/**
 * usage() - print usage and exit 1
 */
static void usage(void)
{
	fprintf(stderr, "Usage: vu_hostile trickle [--stream] "
		"[--interval-ms N] [--payload N] SOCKET\n"
		"       vu_hostile callfull SOCKET\n");
	exit(1);
}

/**
 * main() - parse options, play the front-end asked for
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: see the theory of operation
 */
int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "payload", required_argument, NULL, 'p' },
		{ "stream", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	long interval = VH_INTERVAL_MS, payload = VH_PAYLOAD;
	bool stream = false;
	const char *mode;
	int o;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'i')
			interval = strtol(optarg, NULL, 0);
		else if (o == 'p')
			payload = strtol(optarg, NULL, 0);
		else if (o == 's')
			stream = true;
		else
			usage();
	}
	if (optind != argc - 1 || interval < 1 || interval > 900 ||
	    payload < 0 || payload > VH_PAYLOAD_MAX)
		usage();

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "trickle"))
		return vh_trickle(argv[optind], stream, (int)interval,
				  (size_t)payload);
	if (!strcmp(mode, "callfull"))
		return vh_callfull(argv[optind]);
	usage();
	return 1;
}
