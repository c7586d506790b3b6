// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_rcvwnd.c - the host socket's receive window after a drop: release an
 * update the kernel holds back
 *
 * Theory of operation
 *
 * Data for the guest stays in the host socket until the guest acknowledges
 * it; then recv(MSG_TRUNC) drops it, and the space freed must reach the
 * host peer as a window update (design.md invariant 3). Linux sends that
 * update from the read itself, but only if the window it can offer now is
 * at least twice the window the peer still has (tcp_cleanup_rbuf()). The
 * rule saves ACKs, and it fails in one state: the peer has a window left
 * that is smaller than one of its segments, so it sends nothing (sender
 * side silly window avoidance), and the socket has room for a segment, but
 * not for twice that window. Nothing moves then until the peer's probe
 * timer fires (200 ms at least, doubling while nothing changes) or the
 * guest acknowledges more.
 *
 * After a drop, tcp_rcvwnd_release() looks for that state. TCP_INFO gives
 * the window last advertised (tcpi_rcv_wnd, Linux 6.2 and later) and the
 * peer's segment size as the socket saw it (tcpi_rcv_mss); SO_MEMINFO, and
 * the bytes queued (received, less what the caller consumed), give the free
 * buffer and the payload carried per buffer byte. A
 * peer window below one segment with room in the buffer for one segment
 * is an update held back. The release makes the kernel's rule true: it
 * grows the buffer just enough that the window on offer is twice the
 * peer's (SO_RCVBUF for a buffer the user sized, which stays locked;
 * SO_RCVLOWAT for an autotuned one, which the kernel then grows the same
 * way while it keeps autotuning), and peeks one byte at the front of the
 * queue: a read that
 * copies data is what makes the kernel weigh the window and send the
 * update. The peek offset goes back where it was. A user-sized buffer
 * grown this way goes back to the user's size once its queue and the
 * window promised fit in it again (tcp_rcvwnd_restore()); the growth is at
 * most TCP_RCVWND_RAISE_SEGS segments' worth of buffer. The kernel's own
 * limits on the window (how far received data lets it grow, rcv_ssthresh,
 * and receiver side silly window avoidance) are left alone: they lift as
 * the guest acknowledges more, and working around them would only lower
 * the window later. A user-sized buffer cannot grow beyond twice
 * net.core.rmem_max (SO_RCVBUFFORCE needs CAP_NET_ADMIN): a buffer sized
 * at that limit leaves the update held.
 *
 * Kernels before 6.2 do not report the window last advertised. There the
 * caller measures the free window before the drop (tcp_rcvwnd_free()): the
 * kernel cannot have advertised more than that. If it was below two
 * segments (with more, the kernel's rule would have sent an update for
 * any window below one), and the drop made room for a segment but not for
 * twice the old free window, the same release applies, for twice that
 * free window: sometimes an update the peer did not need.
 *
 * This file uses nothing but the kernel: tests/probes/trunc_hold.c links
 * it to show the kernel holding an update back and this code releasing it.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>

#include "tcp_rcvwnd.h"

#ifndef SO_MEMINFO
#define SO_MEMINFO		55
#endif

/**
 * struct tcp_info_rcv_wnd - struct tcp_info and the field Linux 6.2 added
 * @ti:		struct tcp_info as the system headers know it
 * @rcv_wnd:	window last advertised to the peer (tcpi_rcv_wnd)
 *
 * The kernel copies as much of its struct as the caller asks for and
 * reports the length it filled: @rcv_wnd is valid only if that covers it.
 */
struct tcp_info_rcv_wnd {
	struct tcp_info ti;
	uint32_t rcv_wnd;
};

static bool tcp_rcvwnd_reported;

/**
 * tcp_rcvwnd_info() - TCP_INFO of a socket, with the advertised window
 * @s:		socket
 * @t:		filled on success
 *
 * Return: true if @t->rcv_wnd is valid
 */
static bool tcp_rcvwnd_info(int s, struct tcp_info_rcv_wnd *t)
{
	socklen_t sl = sizeof(*t);

	memset(t, 0, sizeof(*t));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, t, &sl))
		return false;
	return sl >= offsetof(struct tcp_info_rcv_wnd, rcv_wnd) +
		     sizeof(t->rcv_wnd);
}

/**
 * tcp_rcvwnd_init() - find out if the kernel reports the advertised window
 *
 * Return: 0 on success, -1 if no TCP socket can be created
 */
int tcp_rcvwnd_init(void)
{
	struct tcp_info_rcv_wnd t;
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);

	if (s < 0)
		return -1;
	tcp_rcvwnd_reported = tcp_rcvwnd_info(s, &t);
	close(s);
	return 0;
}

/**
 * tcp_rcvwnd_precise() - does the kernel report the advertised window?
 *
 * Return: true if tcp_rcvwnd_release() needs no tcp_rcvwnd_free() before
 *	   the drop
 */
bool tcp_rcvwnd_precise(void)
{
	return tcp_rcvwnd_reported;
}

/**
 * struct tcp_rcvwnd_mem - what the receive buffer holds
 * @rcvbuf:	buffer size (the kernel's, twice what SO_RCVBUF set)
 * @rmem:	memory of the queued data
 * @inq:	bytes queued
 */
struct tcp_rcvwnd_mem {
	uint32_t rcvbuf;
	uint32_t rmem;
	uint32_t inq;
};

/**
 * tcp_rcvwnd_mem() - read what the receive buffer holds
 * @s:		socket
 * @ti:		its TCP_INFO, just read
 * @consumed:	bytes read or dropped from it so far (modulo 2^32)
 * @m:		filled on success
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_rcvwnd_mem(int s, const struct tcp_info *ti, uint32_t consumed,
			  struct tcp_rcvwnd_mem *m)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t sl = sizeof(mem);

	memset(m, 0, sizeof(*m));
	if (getsockopt(s, SOL_SOCKET, SO_MEMINFO, mem, &sl))
		return -errno;
	m->rcvbuf = mem[SK_MEMINFO_RCVBUF];
	m->rmem = mem[SK_MEMINFO_RMEM_ALLOC];
	m->inq = (uint32_t)ti->tcpi_bytes_received - consumed;
	if (m->inq > INT32_MAX)
		m->inq = 0;	/* a FIN counted by the caller: nothing queued */
	return 0;
}

/**
 * tcp_rcvwnd_of() - window bytes that buffer bytes hold, at the queue's rate
 * @m:		buffer state, with data queued
 * @bytes:	buffer bytes
 *
 * Return: payload bytes
 */
static uint32_t tcp_rcvwnd_of(const struct tcp_rcvwnd_mem *m, uint64_t bytes)
{
	return (uint32_t)(bytes * m->inq / m->rmem);
}

/**
 * tcp_rcvwnd_seg() - the peer's segment: what it needs in its window to send
 * @ti:		TCP_INFO of the socket
 * @clamp:	the socket's window clamp (TCP_WINDOW_CLAMP)
 *
 * A Linux sender sends nothing into a window smaller than its segment
 * size, which is the MSS we advertised, but at most half the largest
 * window it was offered, and no window exceeds the clamp. Segments seen
 * arriving can be smaller (a write of a few bytes): they only set a
 * floor. Too large an estimate costs an update the peer did not need.
 *
 * Return: segment size, bytes
 */
static uint32_t tcp_rcvwnd_seg(const struct tcp_info *ti, uint32_t clamp)
{
	uint32_t seg = clamp / 2;

	if (ti->tcpi_advmss && seg > ti->tcpi_advmss)
		seg = ti->tcpi_advmss;
	if (seg < ti->tcpi_rcv_mss)
		seg = ti->tcpi_rcv_mss;
	return seg;
}

/**
 * tcp_rcvwnd_free() - free window of a socket: buffer room as payload
 * @s:		socket
 * @consumed:	bytes read or dropped from it so far (modulo 2^32)
 * @wnd:	set to the free window, bytes (0 if nothing is queued: then
 *		no update can be held back)
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_rcvwnd_free(int s, uint32_t consumed, uint32_t *wnd)
{
	struct tcp_info_rcv_wnd t;
	struct tcp_rcvwnd_mem m;
	int rc;

	*wnd = 0;
	tcp_rcvwnd_info(s, &t);
	rc = tcp_rcvwnd_mem(s, &t.ti, consumed, &m);
	if (rc)
		return rc;
	if (m.inq && m.rmem && m.rcvbuf > m.rmem)
		*wnd = tcp_rcvwnd_of(&m, m.rcvbuf - m.rmem);
	return 0;
}

/**
 * tcp_rcvwnd_grow() - make the buffer hold a window, at most one segment more
 * @s:		socket
 * @m:		buffer state, with data queued
 * @user_rcvbuf:	SO_RCVBUF the user set, 0 if autotuned
 * @target:	window the kernel should be able to offer, bytes
 * @seg:	the peer's segment size: the buffer grows by at most
 *		TCP_RCVWND_RAISE_SEGS of them, counted as memory at the rate
 *		of the queue
 *
 * Return: 0 on success (also if no growth was needed), 1 if the kernel
 *	   capped a user-sized buffer (net.core.rmem_max), -errno on failure
 */
static int tcp_rcvwnd_grow(int s, const struct tcp_rcvwnd_mem *m,
			   int user_rcvbuf, uint32_t target, uint32_t seg)
{
	uint64_t need = (uint64_t)target * m->rmem / m->inq + m->rmem;
	uint64_t base = user_rcvbuf ? 2 * (uint64_t)user_rcvbuf : m->rcvbuf;
	uint64_t cap = base + (uint64_t)TCP_RCVWND_RAISE_SEGS * seg *
			      m->rmem / m->inq;
	int val;

	if (need > cap)
		need = cap;
	if (need <= m->rcvbuf)
		return 0;
	if (need > (uint64_t)INT32_MAX / 2)
		return -EINVAL;

	if (user_rcvbuf) {
		socklen_t sl = sizeof(val);

		/* The kernel doubles what SO_RCVBUF asks for, up to twice
		 * net.core.rmem_max
		 */
		val = (int)((need + 1) / 2);
		if (setsockopt(s, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)) ||
		    getsockopt(s, SOL_SOCKET, SO_RCVBUF, &val, &sl))
			return -errno;
		return (uint64_t)val < need;
	}

	/* Autotuned: the kernel sizes the buffer to hold a low mark's worth
	 * of payload, keeps it, and goes on autotuning; the mark goes back
	 * to one byte at once, so readiness is unchanged
	 */
	val = (int)tcp_rcvwnd_of(m, need);
	if (setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &val, sizeof(val)))
		return -errno;
	val = 1;
	if (setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &val, sizeof(val)))
		return -errno;
	return 0;
}

/**
 * tcp_rcvwnd_kick() - make the kernel weigh the window: a one-byte peek
 * @s:		socket, data queued
 * @peek_off:	the socket's peek offset to put back, -1 if SO_PEEK_OFF is
 *		not in use on it
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_rcvwnd_kick(int s, int peek_off)
{
	int zero = 0;
	char byte;

	if (peek_off >= 0 &&
	    setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &zero, sizeof(zero)))
		return -errno;
	if (recv(s, &byte, 1, MSG_PEEK | MSG_DONTWAIT) < 0 && errno != EAGAIN)
		return -errno;
	if (peek_off >= 0 &&
	    setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &peek_off,
		       sizeof(peek_off)))
		return -errno;
	return 0;
}

/**
 * tcp_rcvwnd_release() - after a drop: send the update the kernel holds
 * @s:		socket
 * @consumed:	bytes read or dropped from it so far (modulo 2^32)
 * @peek_off:	its peek offset (bytes peeked and not dropped), -1 if
 *		SO_PEEK_OFF is not in use on it
 * @user_rcvbuf:	SO_RCVBUF the user set, 0 if autotuned
 * @free_before:	free window before the drop (tcp_rcvwnd_free()), used
 *			only if !tcp_rcvwnd_precise()
 * @raised:	set to true if a user-sized buffer was grown (then call
 *		tcp_rcvwnd_restore() after later drops)
 *
 * Return: TCP_RCVWND_OPEN if no update was held back, TCP_RCVWND_RELEASED
 *	   if one was and went out, TCP_RCVWND_HELD if the kick did not
 *	   release it, TCP_RCVWND_LIMITED if the kernel's own limits hold it
 *	   (not the rule this releases), TCP_RCVWND_CAPPED if it would take
 *	   a buffer larger than net.core.rmem_max, -errno on failure
 */
int tcp_rcvwnd_release(int s, uint32_t consumed, int peek_off,
		       int user_rcvbuf, uint32_t free_before, bool *raised)
{
	struct tcp_info_rcv_wnd t;
	struct tcp_rcvwnd_mem m;
	uint32_t seg, peer, room, target;
	socklen_t sl = sizeof(int);
	int rc, clamp, round;
	bool precise;

	/* Without tcpi_rcv_wnd, the free window before the drop bounds what
	 * the peer has: below two segments, it may have less than one
	 */
	precise = tcp_rcvwnd_info(s, &t);
	peer = precise ? t.rcv_wnd : free_before;
	if (!peer)
		return TCP_RCVWND_OPEN;	/* closed: any room reopens it */
	if (precise && peer >= t.ti.tcpi_rcv_mss && peer >= t.ti.tcpi_advmss)
		return TCP_RCVWND_OPEN;	/* the peer can send a segment */

	rc = tcp_rcvwnd_mem(s, &t.ti, consumed, &m);
	if (rc)
		return rc;
	if (!m.inq || !m.rmem || m.rcvbuf <= m.rmem)
		return TCP_RCVWND_OPEN;	/* empty: the update went out */

	if (getsockopt(s, IPPROTO_TCP, TCP_WINDOW_CLAMP, &clamp, &sl))
		return -errno;
	seg = tcp_rcvwnd_seg(&t.ti, (uint32_t)clamp);
	room = tcp_rcvwnd_of(&m, m.rcvbuf - m.rmem);
	if (peer >= (precise ? seg : 2 * seg) || room < seg)
		return TCP_RCVWND_OPEN;	/* not blocked, or no room */
	if (!precise && room >= 2 * peer)
		return TCP_RCVWND_OPEN;	/* the kernel's rule sent it */

	/* The kernel's own limits, not the rule: a window grown no further
	 * than received data allows (rcv_ssthresh), or room below a
	 * sixteenth of a large buffer (receiver silly window avoidance).
	 * They lift as the guest acknowledges more; a larger buffer would
	 * not lift them, and a lower clamp would lower the first for good.
	 */
	if (t.ti.tcpi_rcv_ssthresh < 2 * peer ||
	    (room < tcp_rcvwnd_of(&m, m.rcvbuf) / 16 &&
	     room < (uint32_t)clamp / 2))
		return TCP_RCVWND_LIMITED;

	/* Twice the peer's window: the least the kernel sends, and less than
	 * two segments, so the peer's segment size (half the largest window
	 * it saw) does not grow. The kernel counts memory per byte from the
	 * last segment, not the whole queue as here: if that was smaller, a
	 * round asks for twice as much as the one before.
	 */
	target = 2 * peer + (1U << t.ti.tcpi_rcv_wscale);
	for (round = 0; round < TCP_RCVWND_ROUNDS; round++) {
		rc = tcp_rcvwnd_grow(s, &m, user_rcvbuf, target << round, seg);
		if (user_rcvbuf && rc >= 0)
			*raised = true;
		if (rc > 0)
			return TCP_RCVWND_CAPPED;
		if (!rc)
			rc = tcp_rcvwnd_kick(s, peek_off);
		if (rc)
			return rc;
		if (!precise)
			return TCP_RCVWND_RELEASED;
		if (tcp_rcvwnd_info(s, &t) && t.rcv_wnd > peer)
			return TCP_RCVWND_RELEASED;
	}
	return TCP_RCVWND_HELD;
}

/**
 * tcp_rcvwnd_restore() - a grown user-sized buffer back to the user's size
 * @s:		socket
 * @consumed:	bytes read or dropped from it so far (modulo 2^32)
 * @user_rcvbuf:	SO_RCVBUF the user set
 * @raised:	cleared once the buffer is back to the user's size
 *
 * Only once the queue, and the window the peer may still fill, fit in the
 * user's size (without tcpi_rcv_wnd: once the queue is empty): the kernel
 * never takes back a window it advertised.
 *
 * Return: 0 on success (or nothing to do yet), -errno on failure
 */
int tcp_rcvwnd_restore(int s, uint32_t consumed, int user_rcvbuf,
		       bool *raised)
{
	struct tcp_info_rcv_wnd t;
	struct tcp_rcvwnd_mem m;
	uint64_t promised;
	bool precise = tcp_rcvwnd_info(s, &t);
	int rc = tcp_rcvwnd_mem(s, &t.ti, consumed, &m);

	if (rc)
		return rc;
	if (m.inq) {
		if (!precise || !m.rmem)
			return 0;
		promised = m.rmem + (uint64_t)t.rcv_wnd * m.rmem / m.inq;
		if (promised > 2 * (uint64_t)user_rcvbuf)
			return 0;
	}
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUF, &user_rcvbuf,
		       sizeof(user_rcvbuf)))
		return -errno;
	*raised = false;
	return 0;
}
