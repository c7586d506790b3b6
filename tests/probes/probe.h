/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe.h - shared set-up of the kernel probes: a loopback TCP pair
 *
 * Theory of operation: every probe in tests/probes/ checks one kernel
 * behaviour that tcp/ relies on (doc/tcp.md lists them). Each needs a
 * connected TCP pair on loopback, non-blocking, with optional buffer
 * sizes set before the connection exists (so that the window scale
 * matches them). The sender uses Reno congestion control: pacing (BBR,
 * the default on some systems) would delay transmissions to timers, and
 * the probes rely on loopback delivering data and ACKs within the system
 * call that causes them. Exit status of every probe: 0 the behaviour
 * holds, 1 it does not, 2 the probe could not set itself up.
 */

#ifndef PROBE_H
#define PROBE_H

#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>

#ifndef SO_MEMINFO
#define SO_MEMINFO		55
#endif

#define PROBE_OK		0
#define PROBE_FAILED		1
#define PROBE_SETUP		2

/**
 * probe_pair() - connect two TCP sockets over loopback, non-blocking
 * @snd:	sending end, set on return
 * @rcv:	receiving (accepted) end, set on return
 * @sndbuf:	SO_SNDBUF for the sender, 0 for the default
 * @rcvbuf:	SO_RCVBUF for the receiver, 0 for the default
 *
 * Return: 0 on success, -1 on failure
 */
static inline int probe_pair(int *snd, int *rcv, int sndbuf, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(a);
	int l, s, r;

	l = socket(AF_INET, SOCK_STREAM, 0);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || s < 0)
		return -1;
	if (rcvbuf)
		setsockopt(l, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (sndbuf)
		setsockopt(s, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	setsockopt(s, IPPROTO_TCP, TCP_CONGESTION, "reno", strlen("reno"));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(l, (struct sockaddr *)&a, &sl) || listen(l, 1) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	r = accept(l, NULL, NULL);
	close(l);
	if (r < 0)
		return -1;
	fcntl(s, F_SETFL, O_NONBLOCK);
	fcntl(r, F_SETFL, O_NONBLOCK);
	*snd = s;
	*rcv = r;
	return 0;
}

/**
 * probe_meminfo() - send buffer size and queued memory of a socket
 * @s:		socket
 * @sndbuf:	SK_MEMINFO_SNDBUF, set on return
 * @queued:	SK_MEMINFO_WMEM_QUEUED, set on return
 *
 * Return: 0 on success, -1 if SO_MEMINFO failed
 */
static inline int probe_meminfo(int s, unsigned int *sndbuf,
				unsigned int *queued)
{
	unsigned int mem[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mem);

	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mem, &sl) ||
	    sl < (SK_MEMINFO_WMEM_QUEUED + 1) * sizeof(mem[0]))
		return -1;
	*sndbuf = mem[SK_MEMINFO_SNDBUF];
	*queued = mem[SK_MEMINFO_WMEM_QUEUED];
	return 0;
}

/**
 * probe_peek_start() - set the peek offset, as the relay does, if it can
 * @r:		receiving socket
 *
 * SO_PEEK_OFF works on TCP from Linux 6.9: without it, the relay peeks
 * from the front of the queue every time, which changes nothing for the
 * window (peeking keeps the data queued either way).
 *
 * Return: true if peeks continue where the last one ended
 */
static inline bool probe_peek_start(int r)
{
	int zero = 0;

	return !setsockopt(r, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero));
}

/**
 * probe_peek_new() - peek what arrived since the last call, count it
 * @r:		receiving socket
 * @peek_off:	probe_peek_start() succeeded
 * @seen:	bytes seen in all, queued or dropped; updated
 * @dropped:	bytes dropped from the queue so far
 * @buf:	scratch buffer
 * @len:	its size
 *
 * Return: true if new data arrived
 */
static inline bool probe_peek_new(int r, bool peek_off, long long *seen,
				  long long dropped, char *buf, size_t len)
{
	long long before = *seen;
	ssize_t n;
	int inq;

	if (!peek_off) {
		if (!ioctl(r, SIOCINQ, &inq) && dropped + inq > *seen)
			*seen = dropped + inq;
		return *seen != before;
	}
	while ((n = recv(r, buf, len, MSG_PEEK | MSG_DONTWAIT)) > 0)
		*seen += n;
	return *seen != before;
}

#endif /* PROBE_H */
