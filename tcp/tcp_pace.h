/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_pace.h - TCP pacing policies: how much to send or write, and when
 *
 * Pure functions of plain numbers (tcp_pace.c): the lowest file of tcp/,
 * it includes no other.
 */
#ifndef TCP_TCP_PACE_H
#define TCP_TCP_PACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The end of a turn may wait for the next (tcp_pace_tail_end()) if it is
 * shorter than a segment by this many times, and this many full segments
 * are in flight with the turn's
 */
#define TCP_TAIL_DIV		16
#define TCP_TAIL_INFLIGHT_SEGS	2

/* A window opening within the last 1/TCP_WND_RESERVE_DIV of the largest
 * window the guest advertised waits for more (tcp_pace_wnd_room()), at
 * most TCP_WND_HOLD_MS with nothing in flight
 */
#define TCP_WND_RESERVE_DIV	4
#define TCP_WND_HOLD_MS		1

/* A batch ending in a segment without PSH is written with MSG_MORE only if
 * the window left to the guest takes at least this many more segments: the
 * guest must be able to send what completes the socket's segment
 */
#define TCP_MORE_WND_SEGS	2

/* Within a batch, acknowledge at least every this many bytes. Each ACK
 * makes the guest's kernel free and send (run in our write() to the tap),
 * and each sendmsg() wakes the host's reader: fewer of both cost less CPU
 * (doc/performance.md, "Where the speed comes from"), while the guest
 * still gets several ACKs per batch of 64 frames of 64 KiB
 */
#define TCP_ACK_INTERVAL	(1024 * 1024)

/**
 * struct tcp_pace_tail - one turn's peek, as the tail hold weighs it
 * @n:		bytes peeked, more than zero
 * @want:	bytes the peek asked for at most
 * @seg:	payload of one frame to the guest, more than zero
 * @in_flight:	bytes in flight to the guest before this turn's
 * @held:	bytes the previous turn left at its end
 * @peek_off:	the peek started where the last one stopped (SO_PEEK_OFF),
 *		not at the front of the queue
 * @resend:	the peek resends data the guest was sent before
 * @eof:	the host peer closed
 */
struct tcp_pace_tail {
	size_t n;
	size_t want;
	size_t seg;
	size_t in_flight;
	size_t held;
	bool peek_off;
	bool resend;
	bool eof;
};

size_t tcp_pace_tail_end(const struct tcp_pace_tail *t);
size_t tcp_pace_tail_hold(const struct tcp_pace_tail *t, size_t tail,
			  size_t host_seg);
size_t tcp_pace_wnd_room(size_t room, size_t wnd_max, bool resend_one);
bool tcp_pace_more(bool no_push, uint32_t edge, uint32_t next, uint32_t mss);
bool tcp_pace_ack_now(size_t queued, bool fin);

#endif /* TCP_TCP_PACE_H */
