// SPDX-License-Identifier: GPL-2.0-or-later
/* epollout_free.c - probe: EPOLLOUT once send buffer space frees
 *
 * Theory of operation: when the window tcp/tcp_window.c can offer the
 * guest falls below 1/TCP_WND_LOW_FRACTION of the host socket's send
 * buffer, the relay arms EPOLLOUT (edge-triggered) and sends the guest a
 * window update when it fires. That needs two things from the kernel: the
 * event comes once the peer takes data (no update is ever lost), and when
 * it comes, at least that fraction of the buffer is free, so that the
 * update opens the window instead of arming the wait again. This probe
 * fills a socket whose peer does not read, arms EPOLLOUT as the relay
 * does, then lets the peer read a little at a time and notes, at the first
 * event, how much of the buffer is free.
 *
 * Usage: epollout_free [SNDBUF] (default: kernel autotuning). Exit status:
 * 0 if the event came with enough space free, 1 if not, 2 on set-up
 * failure.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>

#include "probe.h"
#include "tcp/tcp_window.h"

#define PROBE_CHUNK		65536
#define PROBE_PEER_READ		4096	/* the peer reads this much a time */
#define PROBE_PEER_RCVBUF	(64 * 1024)

/**
 * main() - run the probe
 * @argc:	argument count
 * @argv:	optional SO_SNDBUF
 *
 * Return: 0 if the relay's assumption holds
 */
int main(int argc, char **argv)
{
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLET };
	unsigned int sndbuf, queued, free_at_event;
	static char buf[PROBE_CHUNK];
	unsigned long long peer_read = 0;
	int s, r, ep, n, sb = 0;

	if (argc > 1)
		sb = atoi(argv[1]);
	if (probe_pair(&s, &r, sb, PROBE_PEER_RCVBUF))
		return PROBE_SETUP;
	ep = epoll_create1(0);
	if (ep < 0)
		return PROBE_SETUP;

	/* Fill until the socket refuses more */
	while (send(s, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
	if (errno != EAGAIN || probe_meminfo(s, &sndbuf, &queued))
		return PROBE_SETUP;
	printf("full: send buffer %u, queued %u\n", sndbuf, queued);

	ev.data.fd = s;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev))
		return PROBE_SETUP;
	/* Registering reports the current state: consume that first */
	epoll_wait(ep, &ev, 1, 0);

	for (;;) {
		ssize_t got = recv(r, buf, PROBE_PEER_READ, 0);

		if (got <= 0) {
			printf("the peer read everything (%llu bytes), "
			       "no EPOLLOUT: DOES NOT HOLD\n", peer_read);
			return PROBE_FAILED;
		}
		peer_read += (unsigned long long)got;

		n = epoll_wait(ep, &ev, 1, 0);
		if (n == 1 && (ev.events & EPOLLOUT))
			break;
	}

	if (probe_meminfo(s, &sndbuf, &queued))
		return PROBE_SETUP;
	free_at_event = sndbuf > queued ? sndbuf - queued : 0;
	printf("EPOLLOUT after the peer read %llu bytes: %u of %u free "
	       "(the relay needs at least 1/%d)\n", peer_read, free_at_event,
	       sndbuf, TCP_WND_LOW_FRACTION);

	if (free_at_event < sndbuf / TCP_WND_LOW_FRACTION) {
		printf("DOES NOT HOLD\n");
		return PROBE_FAILED;
	}
	printf("holds\n");
	return PROBE_OK;
}
