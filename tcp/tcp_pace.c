// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_pace.c - TCP pacing policies, as pure functions
 *
 * Theory of operation
 *
 * The relay has no congestion control of its own: the guest's window and
 * the host socket pace each direction. What it decides is the shape of
 * what it sends within them, and each such decision is here, apart from
 * the code that carries it out: the mechanism (tcp_emit.c, tcp_guest.c)
 * gathers the numbers, calls the policy and applies its answer. A policy
 * reads only its arguments and returns a number or a yes/no: no system
 * call, no state, no connection. So each can be tested alone, edge by
 * edge (tests/unit/standalone/test_tcp_pace.c links this file only), and
 * changing one changes nothing else.
 *
 * - The short tail (tcp_pace_tail_end(), tcp_pace_tail_hold()): the few
 *   bytes the host peer's longer segments leave at the end of a turn
 *   that drained the socket wait for the next turn, which the guest's
 *   ACK of two full segments brings about one round trip later.
 * - The window reserve (tcp_pace_wnd_room()): a turn leaves the last
 *   quarter of the largest window the guest advertised free, so that a
 *   Linux guest's window never closes while its reader keeps up.
 * - MSG_MORE (tcp_pace_more()): a batch of guest data ending without PSH
 *   lets the host socket wait for the rest, if the guest's window lets
 *   the guest send it.
 * - The ACK interval (tcp_pace_ack_now()): a large batch is written and
 *   acknowledged before its end, as the guest's sending is clocked by our
 *   ACKs.
 *
 * doc/tcp.md (steps 6 and 7, and "Guest to host") gives the measurements
 * behind each.
 */

#include "tcp_pace.h"
#include "../util/util.h"

/**
 * tcp_pace_tail_end() - the end of a turn's peek that may wait, if the
 *			 host peer's segments explain it
 * @t:		the turn's peek
 *
 * An end may wait only if it is shorter than a segment by TCP_TAIL_DIV
 * times, the peek drained the socket (it read less than it asked for), at
 * least one full segment goes now, the peek read new data from where the
 * last one stopped (nothing resent), the host peer has not closed, and at
 * least TCP_TAIL_INFLIGHT_SEGS full segments are then in flight: a guest
 * acknowledges two full segments at once (RFC 5681, 4.2; Linux does while
 * its application reads), and that ACK gives the flow its next turn, so
 * the wait is about one round trip, not a delayed-ACK timer.
 *
 * Return: bytes at the end that may wait (tcp_pace_tail_hold() decides),
 *	   0 if all of @t->n goes now
 */
size_t tcp_pace_tail_end(const struct tcp_pace_tail *t)
{
	size_t tail = t->n % t->seg;

	if (!tail || tail > t->seg / TCP_TAIL_DIV || t->n < t->seg ||
	    t->n >= t->want || !t->peek_off || t->resend || t->eof)
		return 0;
	if (t->in_flight + t->n - tail < TCP_TAIL_INFLIGHT_SEGS * t->seg)
		return 0;
	return tail;
}

/**
 * tcp_pace_tail_hold() - is the end left by the host peer's longer segments?
 * @t:		the turn's peek
 * @tail:	the end that may wait, from tcp_pace_tail_end(), not zero
 * @host_seg:	payload of the host peer's full segments, 0 if unknown
 *
 * Each full host segment is longer than the guest's by some bytes, so k of
 * them leave k times that at the end, added to what the last turn left.
 * An end longer than that is where the sender's write ended, and nothing
 * follows it soon: holding it would only split the guest's acknowledgement
 * in two. Host segments of two guest segments or more leave ends of any
 * length, so none is held for them; nor when the host's segment is not
 * known, or not longer than the guest's.
 *
 * Return: bytes to hold back, @tail or 0
 */
size_t tcp_pace_tail_hold(const struct tcp_pace_tail *t, size_t tail,
			  size_t host_seg)
{
	size_t fresh;

	if (host_seg <= t->seg || host_seg >= 2 * t->seg)
		return 0;
	fresh = t->n > t->held ? t->n - t->held : 0;
	if (tail > t->held + DIV_ROUND_UP(fresh, host_seg) * (host_seg - t->seg))
		return 0;
	return tail;
}

/**
 * tcp_pace_wnd_room() - leave the end of the guest's window free
 * @room:	bytes the guest's window still takes, more than zero
 * @wnd_max:	largest window the guest advertised
 * @resend_one:	the turn resends the segment at a hole (fast
 *		retransmission), which never waits
 *
 * A Linux receiver advertises a zero window once its free buffer falls
 * below a segment, and opens it again only when a read frees as much: a
 * window always filled to its edge cycles through zero windows while the
 * guest's reader never lacks data. The last 1/TCP_WND_RESERVE_DIV of
 * @wnd_max stays free; an opening within it waits for the guest's next
 * window update.
 *
 * Return: bytes the turn may fill, 0 if it should send nothing yet
 */
size_t tcp_pace_wnd_room(size_t room, size_t wnd_max, bool resend_one)
{
	size_t reserve = wnd_max / TCP_WND_RESERVE_DIV;

	if (resend_one)
		return room;
	if (room <= reserve)
		return 0;
	return room - reserve;
}

/**
 * tcp_pace_more() - may the host socket wait for more data before sending?
 * @no_push:	the last segment queued came without PSH, and no data held
 *		after a hole went with it
 * @edge:	right edge of the window last advertised to the guest
 *		(sequence acknowledged plus window)
 * @next:	sequence after the bytes queued for the socket
 * @mss:	the guest's segment size
 *
 * A segment without PSH means the guest has more right behind it (Linux
 * sets PSH at the end of each write), and MSG_MORE lets the kernel fill
 * whole segments toward the host instead of sending (and waking the
 * host's reader) once per batch. The guest sends the rest only if the
 * window lets it: so only with room for TCP_MORE_WND_SEGS more segments.
 * Otherwise the socket would hold its data until the host acknowledges
 * what is in flight, or its probe timer (TCP_CORK's ceiling).
 *
 * Return: true to write with MSG_MORE
 */
bool tcp_pace_more(bool no_push, uint32_t edge, uint32_t next, uint32_t mss)
{
	if (!no_push || !SEQ_GT(edge, next))
		return false;
	return edge - next >= mss * TCP_MORE_WND_SEGS;
}

/**
 * tcp_pace_ack_now() - write and acknowledge a connection's queue at once?
 * @queued:	bytes queued for the socket in this batch
 * @fin:	the segment just queued carries the guest's FIN
 *
 * Past TCP_ACK_INTERVAL bytes, the guest doesn't wait for the end of the
 * batch: its sending is clocked by our ACKs. A FIN is handled, and
 * acknowledged, after its data is written.
 *
 * Return: true to write and acknowledge now
 */
bool tcp_pace_ack_now(size_t queued, bool fin)
{
	return queued >= TCP_ACK_INTERVAL && !fin;
}
