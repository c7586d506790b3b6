// SPDX-License-Identifier: GPL-2.0-or-later
/* peek_trunc.c - probe: SO_PEEK_OFF on TCP, and MSG_TRUNC moving it back
 *
 * Theory of operation: tcp/tcp_emit.c reads data for the guest with
 * MSG_PEEK at the socket's peek offset (SO_PEEK_OFF), so that data already
 * sent to the guest is not copied again; tcp/tcp.c drops what the guest
 * acknowledged with recv(MSG_TRUNC) and expects the kernel to move the
 * peek offset back by as much, so that the next peek continues where the
 * last one stopped. This probe sends a known byte pattern over loopback,
 * peeks twice, drops part of the peeked data, and checks the offset and
 * the bytes of every read.
 *
 * Exit status: 0 if both behaviours hold, 1 if not, 2 on set-up failure
 * (including a kernel without SO_PEEK_OFF for TCP: the relay then falls
 * back to peeking from the start, which this probe reports).
 */

#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "probe.h"

#define PROBE_LEN		3000	/* bytes sent */
#define PROBE_PEEK		1000	/* bytes per peek */
#define PROBE_DROP		1500	/* bytes dropped after two peeks */

/**
 * pattern() - the byte at a stream offset
 * @off:	offset in the stream
 *
 * Return: the byte the sender put there
 */
static unsigned char pattern(size_t off)
{
	return (unsigned char)(off * 7 + off / 251);
}

/**
 * check_bytes() - compare received bytes with the pattern
 * @buf:	bytes read
 * @len:	how many
 * @off:	stream offset of the first one
 *
 * Return: true if they match
 */
static int check_bytes(const unsigned char *buf, size_t len, size_t off)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != pattern(off + i))
			return 0;
	}
	return 1;
}

/**
 * peek_off() - current SO_PEEK_OFF of a socket
 * @s:		socket
 *
 * Return: the offset, -1 on error
 */
static int peek_off(int s)
{
	socklen_t sl = sizeof(int);
	int off;

	if (getsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &off, &sl))
		return -1;
	return off;
}

/**
 * main() - run the probe
 *
 * Return: 0 if the relay's assumptions hold
 */
int main(void)
{
	unsigned char out[PROBE_LEN], in[PROBE_PEEK];
	int s, r, zero = 0, ok = 1, inq = 0;
	ssize_t n;
	size_t i;

	for (i = 0; i < sizeof(out); i++)
		out[i] = pattern(i);

	if (probe_pair(&s, &r, 0, 0))
		return PROBE_SETUP;
	if (setsockopt(r, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero))) {
		printf("SO_PEEK_OFF not supported on TCP sockets\n");
		return PROBE_SETUP;
	}
	if (send(s, out, sizeof(out), 0) != (ssize_t)sizeof(out))
		return PROBE_SETUP;

	/* Two peeks: the second continues where the first stopped */
	for (i = 0; i < 2; i++) {
		n = recv(r, in, sizeof(in), MSG_PEEK);
		if (n != PROBE_PEEK || !check_bytes(in, n, i * PROBE_PEEK)) {
			printf("peek %zu: got %zd bytes, %s\n", i + 1, n,
			       n > 0 ? "wrong data" : "nothing");
			ok = 0;
		}
	}
	printf("after two peeks: peek offset %d (expected %d)\n",
	       peek_off(r), 2 * PROBE_PEEK);
	ok &= peek_off(r) == 2 * PROBE_PEEK;

	/* Drop part of what was peeked: the offset moves back as much */
	n = recv(r, NULL, PROBE_DROP, MSG_TRUNC);
	ioctl(r, SIOCINQ, &inq);
	printf("MSG_TRUNC dropped %zd bytes; peek offset %d (expected %d), "
	       "%d bytes left (expected %d)\n", n, peek_off(r),
	       2 * PROBE_PEEK - PROBE_DROP, inq, PROBE_LEN - PROBE_DROP);
	ok &= n == PROBE_DROP && inq == PROBE_LEN - PROBE_DROP &&
	      peek_off(r) == 2 * PROBE_PEEK - PROBE_DROP;

	/* The next peek returns the first byte never peeked */
	n = recv(r, in, sizeof(in), MSG_PEEK);
	if (n != PROBE_LEN - 2 * PROBE_PEEK ||
	    !check_bytes(in, n, 2 * PROBE_PEEK)) {
		printf("peek after the drop: got %zd bytes, %s\n", n,
		       n > 0 ? "not the continuation" : "nothing");
		ok = 0;
	}

	printf("%s\n", ok ? "holds: peeks continue, MSG_TRUNC moves the "
			    "peek offset back" : "DOES NOT HOLD");
	return ok ? PROBE_OK : PROBE_FAILED;
}
