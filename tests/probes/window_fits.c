// SPDX-License-Identifier: GPL-2.0-or-later
/* window_fits.c - probe: does the window offered to the guest always fit?
 *
 * Theory of operation: tcp/tcp_window.c offers the guest a window equal to
 * the host socket's free send buffer (SO_MEMINFO: SK_MEMINFO_SNDBUF minus
 * SK_MEMINFO_WMEM_QUEUED) less a margin of 1/TCP_WND_OVERHEAD_DIV for the
 * kernel's per-buffer overhead, and relies on the socket accepting all of
 * it: guest data is never dropped for lack of socket buffer (design.md
 * invariant 5). This probe plays the relay: its peer reads slowly, so
 * data piles up in the sending socket; every round it computes the window
 * exactly as the relay does and writes that much, in writes of a given
 * size (one write per guest segment is the worst case: the relay writes
 * once per batch). Every write must be taken whole. Rounds stop when the
 * window drops below 1/TCP_WND_LOW_FRACTION of the buffer, where the
 * relay waits for EPOLLOUT; then the peer reads a little and it goes on.
 *
 * Usage: window_fits [SNDBUF [WRITE_SIZE]] (defaults: kernel autotuning,
 * 1448 bytes). Exit status: 0 if every window fit, 1 if not, 2 on set-up
 * failure.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "tcp/tcp_window.h"

#define PROBE_ROUNDS		2000
#define PROBE_MAX_WRITE		65536
#define PROBE_PEER_READ		(16 * 1024)	/* per round, by the peer */
#define PROBE_PEER_RCVBUF	(64 * 1024)

/**
 * relay_window() - the window the relay would offer for a socket
 * @s:		sending socket
 * @sndbuf:	send buffer size, set on return
 *
 * Return: window in bytes, 0 on error
 */
static unsigned int relay_window(int s, unsigned int *sndbuf)
{
	unsigned int queued, wnd;

	if (probe_meminfo(s, sndbuf, &queued))
		return 0;
	wnd = *sndbuf > queued ? *sndbuf - queued : 0;
	return wnd - wnd / TCP_WND_OVERHEAD_DIV;
}

/**
 * main() - run the probe
 * @argc:	argument count
 * @argv:	optional SO_SNDBUF and write size
 *
 * Return: 0 if the relay's assumption holds
 */
int main(int argc, char **argv)
{
	static char buf[PROBE_MAX_WRITE];
	unsigned long long offered = 0, rounds_full = 0;
	unsigned int sndbuf, wnd;
	size_t wsize = 1448;
	int s, r, sb = 0, i;

	if (argc > 1)
		sb = atoi(argv[1]);
	if (argc > 2)
		wsize = (size_t)atoi(argv[2]);
	if (!wsize || wsize > sizeof(buf))
		return PROBE_SETUP;

	if (probe_pair(&s, &r, sb, PROBE_PEER_RCVBUF))
		return PROBE_SETUP;
	if (!relay_window(s, &sndbuf)) {
		printf("SO_MEMINFO not available\n");
		return PROBE_SETUP;
	}

	for (i = 0; i < PROBE_ROUNDS; i++) {
		wnd = relay_window(s, &sndbuf);
		if (wnd < sndbuf / TCP_WND_LOW_FRACTION) {
			/* The relay would wait for EPOLLOUT: peer reads */
			rounds_full++;
			while (recv(r, buf, PROBE_PEER_READ, 0) > 0 &&
			       relay_window(s, &sndbuf) <
			       sndbuf / TCP_WND_LOW_FRACTION)
				;
			continue;
		}

		while (wnd) {
			size_t len = wnd < wsize ? wnd : wsize;
			ssize_t n = send(s, buf, len, MSG_DONTWAIT);

			if (n != (ssize_t)len) {
				printf("round %d: window %u of send buffer %u:"
				       " a write of %zu bytes took %zd (%s)\n",
				       i, wnd, sndbuf, len, n,
				       n < 0 ? strerror(errno) : "short");
				printf("DOES NOT HOLD\n");
				return PROBE_FAILED;
			}
			offered += len;
			wnd -= (unsigned int)len;
		}

		/* The peer reads a little now and then */
		if (i % 3 == 0)
			recv(r, buf, PROBE_PEER_READ, 0);
	}

	printf("holds: %llu bytes written in windows of %zu-byte writes, "
	       "send buffer %u at the end, %llu waits for space\n",
	       offered, wsize, sndbuf, rounds_full);
	return PROBE_OK;
}
