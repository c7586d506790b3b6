// SPDX-License-Identifier: GPL-2.0-or-later
/* repair_move.c - probe: a live TCP connection moves to a new socket
 *
 * Usage: repair_move
 *
 * What migration relies on (tcp/tcp_repair.c), on the running kernel,
 * with the relay's own code: an accepted connection on loopback (the
 * "relay" end, its listening socket still open) carries data both ways,
 * with data queued that its peer has not read, part of it never sent.
 * Then:
 * 1. a socket in repair mode, without the filter, still acknowledges data
 *    from its peer (why tcp_repair_freeze() exists): checked on a second
 *    connection;
 * 2. tcp_repair_freeze(): the peer's next bytes are not acknowledged (its
 *    send queue keeps them);
 * 3. tcp_repair_dump(), close() in repair mode (the peer sees nothing),
 *    and a new socket built by the sequence of tcp_repair.c, bound to the
 *    listening socket's port;
 * 4. both directions then complete: every byte each end sent arrives in
 *    order at the other, no error (no reset) on either.
 * Setting TCP_REPAIR needs CAP_NET_ADMIN: run as root (the relay gets it
 * from the passt-repair helper instead).
 *
 * Exit status: 0 all of it holds, 1 something does not (said on stderr),
 * 2 set-up failed (no CAP_NET_ADMIN, for one).
 */

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe.h"
#include "../../tcp/tcp_repair.h"

#define MOVE_TO_PEER	(1024U * 1024)	/* relay end -> peer */
#define MOVE_TO_RELAY	(512U * 1024)	/* peer -> relay end */
#define MOVE_LATE	(64U * 1024)	/* peer -> relay end, when frozen */
#define MOVE_PEER_RCVBUF 16384		/* so that the relay end queues */

static uint8_t qbuf[2][TCP_REPAIR_QUEUE_MAX / 64];

/**
 * pattern() - byte N of a direction's stream
 * @dir:	0: relay end -> peer, 1: the other way
 * @n:		offset
 *
 * Return: the byte
 */
static uint8_t pattern(int dir, size_t n)
{
	return (uint8_t)((n * 7 + n / 251 + (size_t)dir * 101) & 0xff);
}

/**
 * repair() - set or clear repair mode, as passt-repair does
 * @s:		socket
 * @on:		TCP_REPAIR_ON or TCP_REPAIR_OFF
 *
 * Return: 0 on success, -1 on failure
 */
static int repair(int s, int on)
{
	return setsockopt(s, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on));
}

/**
 * send_pattern() - write as much of a stream as the socket takes
 * @s:		socket (non-blocking)
 * @dir:	stream
 * @sent:	bytes written so far, updated
 * @total:	stream length
 */
static void send_pattern(int s, int dir, size_t *sent, size_t total)
{
	uint8_t b[16384];

	while (*sent < total) {
		size_t i, len = total - *sent < sizeof(b) ? total - *sent
							  : sizeof(b);
		ssize_t n;

		for (i = 0; i < len; i++)
			b[i] = pattern(dir, *sent + i);
		n = send(s, b, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n <= 0)
			return;
		*sent += (size_t)n;
	}
}

/**
 * recv_pattern() - read what is there, check it against a stream
 * @s:		socket (non-blocking)
 * @dir:	stream
 * @got:	bytes read so far, updated
 * @max:	read up to this offset of the stream
 *
 * Return: 0 if all in order, 1 on a wrong byte, 2 on an error (reset)
 */
static int recv_pattern(int s, int dir, size_t *got, size_t max)
{
	uint8_t b[16384];

	while (*got < max) {
		size_t want = max - *got < sizeof(b) ? max - *got : sizeof(b);
		ssize_t n = recv(s, b, want, MSG_DONTWAIT);
		ssize_t i;

		if (n < 0)
			return errno == EAGAIN ? 0 : 2;
		if (!n)
			return 0;
		for (i = 0; i < n; i++) {
			if (b[i] != pattern(dir, *got + (size_t)i))
				return 1;
		}
		*got += (size_t)n;
	}
	return 0;
}

/**
 * move_pair() - a connection whose accepted end keeps its listening socket
 * @peer:	connecting end, small receive buffer, set
 * @relay:	accepted end, set
 * @lsock:	listening socket, left open, set
 *
 * Return: 0 on success, -1 on failure
 */
static int move_pair(int *peer, int *relay, int *lsock)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int rb = MOVE_PEER_RCVBUF;
	socklen_t sl = sizeof(a);

	*lsock = socket(AF_INET, SOCK_STREAM, 0);
	*peer = socket(AF_INET, SOCK_STREAM, 0);
	if (*lsock < 0 || *peer < 0 ||
	    setsockopt(*peer, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb)) ||
	    bind(*lsock, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(*lsock, (struct sockaddr *)&a, &sl) ||
	    listen(*lsock, 1) ||
	    connect(*peer, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*relay = accept(*lsock, NULL, NULL);
	if (*relay < 0)
		return -1;
	fcntl(*peer, F_SETFL, O_NONBLOCK);
	fcntl(*relay, F_SETFL, O_NONBLOCK);
	return 0;
}

/**
 * acks_when_repaired() - step 1: repair mode alone acknowledges data
 *
 * Return: PROBE_OK if it does (the filter is needed), PROBE_FAILED if not,
 *	   PROBE_SETUP if no pair or no repair mode
 */
static int acks_when_repaired(void)
{
	int c, a, out = 0;
	uint8_t b[1000] = { 0 };

	if (probe_pair(&c, &a, 0, 0))
		return PROBE_SETUP;
	if (repair(a, TCP_REPAIR_ON)) {
		perror("repair_move: TCP_REPAIR (needs CAP_NET_ADMIN)");
		return PROBE_SETUP;
	}
	if (send(c, b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return PROBE_SETUP;
	usleep(200 * 1000);
	ioctl(c, SIOCOUTQ, &out);
	printf("repair mode, no filter: %i of %zu bytes unacknowledged\n",
	       out, sizeof(b));
	close(a);
	close(c);
	return out ? PROBE_FAILED : PROBE_OK;
}

/**
 * rebuild() - step 3: a new socket for the connection, as the target does
 * @st:		state dumped
 * @local:	local address
 * @peer:	peer address
 * @later:	send queue bytes left for normal writes, set
 *
 * Return: the new socket, -1 on failure (said)
 */
static int rebuild(const struct tcp_repair_state *st,
		   const struct sockaddr_in *local,
		   const struct sockaddr_in *peer, size_t *later)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), rc;
	const char *what = "socket";
	size_t done;

	if (s < 0)
		goto fail;
	what = "TCP_REPAIR on";
	if (repair(s, TCP_REPAIR_ON))
		goto fail;
	what = "bind to the listening socket's port";
	if (bind(s, (const struct sockaddr *)local, sizeof(*local)))
		goto fail;
	what = "sequences";
	if ((rc = tcp_repair_seq(s, st)))
		goto fail_rc;
	what = "connect";
	if (connect(s, (const struct sockaddr *)peer, sizeof(*peer)))
		goto fail;
	what = "buffers";
	if ((rc = tcp_repair_bufs(s, st, true)))
		goto fail_rc;
	what = "receive queue";
	if ((rc = tcp_repair_fill(s, false, qbuf[1], st->rcvq, &done)))
		goto fail_rc;
	what = "send queue";
	rc = tcp_repair_fill(s, true, qbuf[0], st->sndq - st->notsent, &done);
	if (rc && rc != -ENOBUFS)
		goto fail_rc;
	*later = st->sndq - done;
	printf("send queue: %zu bytes in repair mode, %zu written after\n",
	       done, *later);
	what = "options and windows";
	if ((rc = tcp_repair_finish(s, st)))
		goto fail_rc;
	what = "TCP_REPAIR off";
	if (repair(s, TCP_REPAIR_OFF))
		goto fail;
	what = "buffers after";
	if ((rc = tcp_repair_done(s, st, true)))
		goto fail_rc;
	return s;

fail_rc:
	errno = -rc;
fail:
	fprintf(stderr, "repair_move: %s: %s\n", what, strerror(errno));
	return -1;
}

/**
 * finish() - step 4: both streams complete, in order, without errors
 * @c:		peer
 * @b:		relay end (new socket)
 * @to_peer:	relay end -> peer bytes written so far
 * @to_relay:	peer -> relay end bytes written so far
 * @got_relay:	bytes the relay end read so far
 * @later:	send queue bytes still to write at the relay end, first
 *
 * Return: PROBE_OK or PROBE_FAILED
 */
static int finish(int c, int b, size_t to_peer, size_t to_relay,
		  size_t got_relay, size_t later)
{
	size_t got_peer = 0, pos = to_peer - later;
	int i, rc;

	for (i = 0; i < 1000; i++) {
		struct pollfd p[2] = { { .fd = c, .events = POLLIN },
				       { .fd = b, .events = POLLIN } };

		send_pattern(b, 0, &pos, to_peer);
		if (pos == to_peer)
			send_pattern(b, 0, &to_peer, MOVE_TO_PEER);
		send_pattern(c, 1, &to_relay, MOVE_TO_RELAY + MOVE_LATE);
		if ((rc = recv_pattern(c, 0, &got_peer, SIZE_MAX)) ||
		    (rc = recv_pattern(b, 1, &got_relay, SIZE_MAX))) {
			fprintf(stderr, "repair_move: %s after the move\n",
				rc == 1 ? "wrong byte" : "read error (reset?)");
			return PROBE_FAILED;
		}
		if (got_peer == MOVE_TO_PEER &&
		    got_relay == MOVE_TO_RELAY + MOVE_LATE)
			break;
		poll(p, 2, 10);
	}
	printf("after the move: peer got %zu of %u bytes, relay end %zu of "
	       "%u\n", got_peer, MOVE_TO_PEER, got_relay,
	       MOVE_TO_RELAY + MOVE_LATE);
	return got_peer == MOVE_TO_PEER &&
	       got_relay == MOVE_TO_RELAY + MOVE_LATE ? PROBE_OK
						     : PROBE_FAILED;
}

/**
 * main() - the steps above
 *
 * Return: PROBE_OK, PROBE_FAILED or PROBE_SETUP
 */
int main(void)
{
	size_t to_peer = 0, to_relay = 0, got_relay = 0, late = 0, later;
	struct sockaddr_in local, peer;
	struct tcp_repair_state st;
	socklen_t sl = sizeof(local);
	int c, a, b, l, rc, out = 0;

	rc = acks_when_repaired();
	if (rc != PROBE_OK)
		return rc;

	if (move_pair(&c, &a, &l) ||
	    getsockname(a, (struct sockaddr *)&local, &sl))
		return PROBE_SETUP;
	sl = sizeof(peer);
	if (getpeername(a, (struct sockaddr *)&peer, &sl))
		return PROBE_SETUP;

	/* Data both ways; the relay end reads part of what it gets */
	send_pattern(a, 0, &to_peer, MOVE_TO_PEER);
	send_pattern(c, 1, &to_relay, MOVE_TO_RELAY);
	usleep(50 * 1000);
	send_pattern(a, 0, &to_peer, MOVE_TO_PEER);
	if (recv_pattern(a, 1, &got_relay, MOVE_TO_RELAY / 4))
		return PROBE_SETUP;
	printf("before: relay end wrote %zu, peer wrote %zu\n", to_peer,
	       to_relay);

	if ((rc = tcp_repair_freeze(a)) || repair(a, TCP_REPAIR_ON)) {
		fprintf(stderr, "repair_move: freeze or repair mode: %s\n",
			strerror(rc ? -rc : errno));
		return PROBE_SETUP;
	}
	send_pattern(c, 1, &to_relay, MOVE_TO_RELAY + MOVE_LATE);
	late = to_relay;
	usleep(200 * 1000);
	ioctl(c, SIOCOUTQ, &out);
	printf("frozen: peer has %i bytes unacknowledged\n", out);
	if (out < (int)MOVE_LATE) {
		fprintf(stderr, "repair_move: the frozen socket acknowledged "
			"data\n");
		return PROBE_FAILED;
	}

	if ((rc = tcp_repair_dump(a, &st, qbuf[0], qbuf[1],
				  sizeof(qbuf[0])))) {
		fprintf(stderr, "repair_move: dump: %s\n", strerror(-rc));
		return PROBE_FAILED;
	}
	printf("dumped: state %u, send queue %u (%u unsent), receive queue "
	       "%u, mss %u, wscale %u/%u, options %#x\n", st.state, st.sndq,
	       st.notsent, st.rcvq, st.mss, st.snd_wscale, st.rcv_wscale,
	       st.options);
	close(a);	/* repair mode: silent */

	/* What the relay end had read is gone with the old socket: the
	 * peer -> relay stream continues from the first byte queued
	 */
	got_relay = late - out - st.rcvq;
	b = rebuild(&st, &local, &peer, &later);
	if (b < 0)
		return PROBE_FAILED;
	rc = finish(c, b, to_peer, to_relay, got_relay, later);
	close(l);
	return rc;
}
