// SPDX-License-Identifier: GPL-2.0-or-later
/* bridge.c - what the "guest without a VM" tools share (see bridge.h)
 *
 * Theory of operation: small helpers, each exiting with a message on
 * failure, since a test tool that can't set itself up has nothing better
 * to do. The tap device is non-blocking, with a transmit queue longer
 * than the default: a VM's virtio queue makes the guest wait when it is
 * full, a tap device drops instead, and those drops, which no VM would
 * see, must stay out of the tests.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "bridge.h"

#define BRIDGE_TXQUEUELEN	20000	/* frames, see above */

const char *bridge_name = "bridge";

/**
 * bridge_fail() - print what failed with the errno text, exit with status 1
 * @what:	what failed
 * @arg:	its object (a name, a path), or NULL
 */
void bridge_fail(const char *what, const char *arg)
{
	int e = errno;

	fprintf(stderr, "%s: %s%s%s: %s\n", bridge_name, what, arg ? " " : "",
		arg ? arg : "", strerror(e));
	exit(1);
}

/**
 * bridge_now_ms() - monotonic time
 *
 * Return: milliseconds
 */
long long bridge_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * bridge_parse_num() - parse a non-negative decimal option value, or exit
 * @opt:	option name, for messages
 * @arg:	value
 *
 * Return: the value
 */
long long bridge_parse_num(const char *opt, const char *arg)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 0) {
		fprintf(stderr, "%s: bad value for --%s: %s\n", bridge_name,
			opt, arg);
		exit(1);
	}
	return v;
}

/**
 * bridge_txqueuelen() - lengthen a device's transmit queue
 * @name:	device name
 */
static void bridge_txqueuelen(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_qlen = BRIDGE_TXQUEUELEN;
	if (ioctl(s, SIOCSIFTXQLEN, &ifr))
		fprintf(stderr, "%s: SIOCSIFTXQLEN: %s\n", bridge_name,
			strerror(errno));
	close(s);
}

/**
 * bridge_tap_open() - create the tap device in the current namespace
 * @name:		device name
 * @vnet_hdr_len:	0 for plain frames, else the length of the virtio-net
 *			header before each frame (IFF_VNET_HDR)
 * @offloads:		TUN_F_* flags for TUNSETOFFLOAD (with a header)
 *
 * Return: non-blocking descriptor
 */
int bridge_tap_open(const char *name, size_t vnet_hdr_len,
		    unsigned int offloads)
{
	struct ifreq ifr;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		bridge_fail("open /dev/net/tun", NULL);

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (vnet_hdr_len)
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (strlen(name) >= sizeof(ifr.ifr_name)) {
		errno = ENAMETOOLONG;
		bridge_fail("tap device name", name);
	}
	memcpy(ifr.ifr_name, name, strlen(name) + 1);
	if (ioctl(fd, TUNSETIFF, &ifr))
		bridge_fail("create tap device", name);

	if (vnet_hdr_len) {
		int sz = (int)vnet_hdr_len;

		if (ioctl(fd, TUNSETVNETHDRSZ, &sz))
			bridge_fail("set the virtio-net header length of",
				    name);
		if (ioctl(fd, TUNSETOFFLOAD, (unsigned long)offloads))
			bridge_fail("set the offloads of", name);
	}

	bridge_txqueuelen(name);
	return fd;
}

/**
 * bridge_connect() - connect to the relay, retrying while it is not there
 * @path:	socket path
 * @wait_s:	seconds to keep retrying
 *
 * Return: connected socket, blocking
 */
int bridge_connect(const char *path, int wait_s)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	long long deadline = bridge_now_ms() + (long long)wait_s * 1000;
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		bridge_fail("socket path", path);
	}
	memcpy(a.sun_path, path, strlen(path) + 1);

	for (;;) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			bridge_fail("socket", NULL);
		if (!connect(fd, (const struct sockaddr *)&a, sizeof(a)))
			return fd;
		if ((errno != ENOENT && errno != ECONNREFUSED) ||
		    bridge_now_ms() >= deadline)
			bridge_fail("connect to", path);
		close(fd);
		usleep(50 * 1000);
	}
}

/**
 * bridge_inject_open() - the socket tests inject frames through
 * @path:	where to bind it (replaced if it exists)
 *
 * Each datagram that arrives there is one frame for the relay, sent as it
 * is, whatever its length (up to BRIDGE_INJECT_MAX).
 *
 * Return: non-blocking datagram socket
 */
int bridge_inject_open(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		bridge_fail("injection socket path", path);
	}
	memcpy(a.sun_path, path, strlen(path) + 1);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		bridge_fail("injection socket", NULL);
	unlink(path);
	if (bind(fd, (const struct sockaddr *)&a, sizeof(a)))
		bridge_fail("bind the injection socket to", path);
	return fd;
}

/**
 * bridge_inject_recv() - take one injected frame, if one is there
 * @fd:		injection socket
 * @buf:	room for BRIDGE_INJECT_MAX bytes
 *
 * Return: its length (0 is a frame too), -1 if none is waiting; exits
 *	   if the socket fails or the frame is longer than BRIDGE_INJECT_MAX
 */
ssize_t bridge_inject_recv(int fd, void *buf)
{
	ssize_t n = recv(fd, buf, BRIDGE_INJECT_MAX, MSG_TRUNC);

	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return -1;
		bridge_fail("read from the injection socket", NULL);
	}
	if (n > BRIDGE_INJECT_MAX) {
		errno = EMSGSIZE;
		bridge_fail("injected frame", NULL);
	}
	return n;
}
