// SPDX-License-Identifier: GPL-2.0-or-later
/* trunc_window.c - probe: does the receive window reopen after MSG_TRUNC?
 *
 * Theory of operation: the relay keeps data for the guest in the host
 * socket, reads it with MSG_PEEK, and drops it with recv(MSG_TRUNC) once
 * the guest acknowledges it. This probe builds that situation on loopback:
 * a receiver peeks (SO_PEEK_OFF, where the kernel has it) without
 * consuming until the sender sees
 * a zero window, then drops everything with MSG_TRUNC. It reads the
 * sender's view of the window (TCP_INFO tcpi_snd_wnd) right after the
 * drop: the sender still has data queued, so a reopened window shows as
 * new data arriving at the receiver (SIOCINQ). If nothing arrived, it
 * sets TCP_QUICKACK on the receiver, as tcp/tcp_window.c does, and looks
 * again. Loopback usually delivers segments and ACKs within the system
 * call, but on a busy machine the delivery can wait for a CPU (the
 * backlog queue is then processed by ksoftirqd): so it looks for up to
 * PROBE_ARRIVE_MS, well below the sender's own zero-window probe timer
 * (200 ms at least), which would reopen the window without the update.
 *
 * Exit status: 0 if the window reopened (by itself or after the kick),
 * 1 if the sender stays stuck, 2 on set-up failure.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>

#include "probe.h"

#define PROBE_CHUNK		(1 << 16)
#define PROBE_ROUNDS		10000
#define PROBE_WAIT_US		100	/* after a full send buffer */
#define PROBE_ARRIVE_MS		100	/* for new data after the drop */

/**
 * snd_wnd() - the window a socket's peer advertised, as it sees it
 * @s:		socket
 *
 * Return: window in bytes
 */
static unsigned int snd_wnd(int s)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		return 0;
	return ti.tcpi_snd_wnd;
}

/**
 * new_bytes() - wait up to PROBE_ARRIVE_MS for bytes beyond those held
 * @r:		receiving socket
 * @held:	bytes queued before, peeked and kept (SIOCINQ counts them)
 *
 * Return: new bytes queued, 0 if none came in time
 */
static int new_bytes(int r, long long held)
{
	int inq = 0, ms;

	for (ms = 0; ms <= PROBE_ARRIVE_MS; ms++) {
		if (ioctl(r, SIOCINQ, &inq))
			return 0;
		if (inq - held > 0)
			return (int)(inq - held);
		usleep(1000);
	}
	return 0;
}

/**
 * main() - run the probe
 * @argc:	argument count
 * @argv:	optional receive buffer size (SO_RCVBUF), bytes to drop
 *
 * Return: 0 if the relay's assumption holds
 */
int main(int argc, char **argv)
{
	static char buf[PROBE_CHUNK];
	int s, r, one = 1, rcvbuf = 0, i;
	bool peek_off;
	int before = 0, after = 0;
	long long held = 0;
	ssize_t n;

	if (argc > 1)
		rcvbuf = atoi(argv[1]);

	if (probe_pair(&s, &r, 0, rcvbuf))
		return PROBE_SETUP;
	peek_off = probe_peek_start(r);

	/* Fill until the sender sees a closed window, peeking everything */
	for (i = 0; i < PROBE_ROUNDS && (i < 2 || snd_wnd(s)); i++) {
		if (send(s, buf, sizeof(buf), 0) < 0) {
			if (errno != EAGAIN)
				return PROBE_SETUP;
			usleep(PROBE_WAIT_US);	/* a busy machine */
		}
		probe_peek_new(r, peek_off, &held, 0, buf, sizeof(buf));
	}
	if (snd_wnd(s)) {
		printf("window never closed: nothing to probe\n");
		return PROBE_SETUP;
	}

	n = recv(r, NULL, argc > 2 ? (size_t)atoi(argv[2]) : (size_t)held,
		 MSG_TRUNC);
	before = new_bytes(r, held - n);
	if (!before) {
		setsockopt(r, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof(one));
		after = new_bytes(r, held - n);
	}

	printf("held %lld bytes, dropped %zd with MSG_TRUNC\n", held, n);
	printf("new data within %d ms of the drop: %d bytes (%s)\n",
	       PROBE_ARRIVE_MS, before,
	       before ? "kernel reopened the window itself" :
			"window not reopened yet");
	if (!before)
		printf("new data after TCP_QUICKACK: %d bytes\n", after);

	return (before || after) ? PROBE_OK : PROBE_FAILED;
}
