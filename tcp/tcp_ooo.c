// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_ooo.c - guest data that arrives after a hole, held until it fills
 *
 * Theory of operation
 *
 * Guest payload is written to the host socket only in order. When a guest
 * segment is lost on its way to us (a full tap queue, a lossy link), the
 * segments after it arrive out of order. Dropping them, as a receiver
 * without a reassembly queue would, makes every loss expensive: the guest
 * has to send everything after the hole again.
 *
 * So data after a hole is kept, and reported to the guest with SACK
 * blocks (RFC 2018) when the guest asked for them in its SYN: the guest
 * then resends exactly the holes. The first out-of-order segment of a
 * connection claims one of TCP_OOO_BUFS buffers, a ring of
 * TCP_OOO_BUF_SIZE bytes where the byte with sequence number S lives at
 * S modulo the size. The ring covers the sequence space from the next
 * byte the socket has not taken (the connection's seq_from_guest) on:
 * bytes beyond that span are not kept. Up to TCP_OOO_RANGES runs of held
 * bytes are tracked, so that several holes in one window are all
 * repaired.
 *
 * When in-order data reaches a held run, the rest of the run is appended
 * to the connection's write queue (tcp_guest.c) and goes to the socket in
 * the same sendmsg(); our cumulative ACK then covers it. Held bytes are
 * forgotten only once the socket took them (tcp_ooo_flushed()), so data
 * we reported in a SACK block is never dropped: what a full socket did
 * not take is sent from here when it has room (tcp_guest_held_push()).
 * The buffer is released when no run is left, or when the connection
 * closes.
 *
 * Buffers are allocated once at start; pages are only touched when a loss
 * happens. Nothing is acknowledged before it is in the socket.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "tcp_internal.h"
#include "../flow/flow.h"
#include "../util/idle_trim.h"
#include "../util/util.h"

#define TCP_OOO_MASK	(TCP_OOO_BUF_SIZE - 1)

_Static_assert(!(TCP_OOO_BUF_SIZE & TCP_OOO_MASK),
	       "TCP_OOO_BUF_SIZE must be a power of two");

/**
 * struct tcp_ooo_buf - guest data held beyond holes, for one connection
 * @flow:	connection's flow index, FLOW_IDX_NONE if the buffer is free
 * @nranges:	runs held, in @ranges, in sequence order, not touching
 * @ranges:	the runs
 * @last:	the most recently held bytes, for the first SACK block
 * @data:	TCP_OOO_BUF_SIZE bytes, a ring indexed by sequence number
 */
struct tcp_ooo_buf {
	uint32_t flow;
	unsigned int nranges;
	struct tcp_sack_block ranges[TCP_OOO_RANGES];
	struct tcp_sack_block last;
	uint8_t *data;
};

static struct tcp_ooo_buf tcp_ooo[TCP_OOO_BUFS];
static unsigned int tcp_ooo_used;	/* buffers with a flow */
static uint8_t *tcp_ooo_mem;

/**
 * tcp_ooo_busy() - tell if any connection holds data in the buffers
 *
 * Return: true if a buffer is claimed: its held runs must survive, so none
 *	   is handed back (they are all claimed and released together, rarely)
 */
static bool tcp_ooo_busy(void)
{
	return tcp_ooo_used;
}

/**
 * tcp_ooo_init() - allocate the buffers (their pages are touched on use)
 *
 * Return: 0 on success, -1 if out of memory
 */
int tcp_ooo_init(void)
{
	unsigned int i;

	if (!tcp_ooo_mem)
		tcp_ooo_mem = malloc((size_t)TCP_OOO_BUFS * TCP_OOO_BUF_SIZE);
	if (!tcp_ooo_mem)
		return -1;
	for (i = 0; i < TCP_OOO_BUFS; i++) {
		tcp_ooo[i].flow = FLOW_IDX_NONE;
		tcp_ooo[i].data = tcp_ooo_mem + (size_t)i * TCP_OOO_BUF_SIZE;
	}
	tcp_ooo_used = 0;
	idle_trim_register(tcp_ooo_mem, (size_t)TCP_OOO_BUFS * TCP_OOO_BUF_SIZE,
			   tcp_ooo_busy);
	return 0;
}

/**
 * tcp_ooo_find() - the buffer a connection holds data in
 * @conn:	connection
 *
 * Return: the buffer, NULL if none
 */
static struct tcp_ooo_buf *tcp_ooo_find(const struct tcp_conn *conn)
{
	unsigned int i;

	if (!tcp_ooo_used)
		return NULL;
	for (i = 0; i < TCP_OOO_BUFS; i++) {
		if (tcp_ooo[i].flow == conn->flow)
			return &tcp_ooo[i];
	}
	return NULL;
}

/**
 * tcp_ooo_claim() - take a free buffer for a connection
 * @conn:	connection
 *
 * Return: the buffer, NULL if all are in use
 */
static struct tcp_ooo_buf *tcp_ooo_claim(const struct tcp_conn *conn)
{
	unsigned int i;

	if (tcp_ooo_used == TCP_OOO_BUFS)
		return NULL;
	for (i = 0; tcp_ooo[i].flow != FLOW_IDX_NONE; i++)
		;
	tcp_ooo[i].flow = conn->flow;
	tcp_ooo[i].nranges = 0;
	tcp_ooo_used++;
	return &tcp_ooo[i];
}

/**
 * tcp_ooo_add_range() - record held bytes, merging runs that touch
 * @b:		buffer
 * @start:	first sequence number
 * @end:	just past the last one
 *
 * Return: 0 on success, -1 if a new run does not fit in the table
 */
static int tcp_ooo_add_range(struct tcp_ooo_buf *b, uint32_t start,
			     uint32_t end)
{
	unsigned int i, j;

	/* First run that ends at or after @start */
	for (i = 0; i < b->nranges && SEQ_LT(b->ranges[i].end, start); i++)
		;

	if (i == b->nranges || SEQ_LT(end, b->ranges[i].start)) {
		/* Touches nothing: a new run at i */
		if (b->nranges == TCP_OOO_RANGES)
			return -1;
		memmove(&b->ranges[i + 1], &b->ranges[i],
			(b->nranges - i) * sizeof(b->ranges[0]));
		b->ranges[i].start = start;
		b->ranges[i].end = end;
		b->nranges++;
		return 0;
	}

	/* Merge with run i and every later one it reaches */
	if (SEQ_LT(start, b->ranges[i].start))
		b->ranges[i].start = start;
	for (j = i + 1; j < b->nranges && SEQ_LE(b->ranges[j].start, end); j++)
		;
	if (SEQ_LT(end, b->ranges[j - 1].end))
		end = b->ranges[j - 1].end;
	b->ranges[i].end = end;
	memmove(&b->ranges[i + 1], &b->ranges[j],
		(b->nranges - j) * sizeof(b->ranges[0]));
	b->nranges -= j - i - 1;
	return 0;
}

/**
 * tcp_ooo_copy() - copy bytes into the ring, wrapping at its end
 * @b:		buffer
 * @seq:	sequence number of the first byte
 * @payload:	the bytes
 * @len:	how many, at most TCP_OOO_BUF_SIZE
 */
static void tcp_ooo_copy(struct tcp_ooo_buf *b, uint32_t seq,
			 const uint8_t *payload, size_t len)
{
	size_t off = seq & TCP_OOO_MASK;
	size_t first = MIN(len, TCP_OOO_BUF_SIZE - off);

	memcpy(b->data + off, payload, first);
	memcpy(b->data, payload + first, len - first);
}

/**
 * tcp_ooo_hold() - keep an out-of-order segment's payload
 * @conn:	connection
 * @seq:	sequence number of the payload, beyond the in-order data
 * @payload:	the bytes
 * @len:	how many
 *
 * Bytes more than TCP_OOO_BUF_SIZE beyond the connection's seq_from_guest
 * are not kept.
 */
void tcp_ooo_hold(const struct tcp_conn *conn, uint32_t seq,
		  const uint8_t *payload, size_t len)
{
	uint32_t off = seq - conn->seq_from_guest;
	struct tcp_ooo_buf *b;

	if (!len || SEQ_LT(seq, conn->seq_from_guest) ||
	    off >= TCP_OOO_BUF_SIZE)
		return;
	len = MIN(len, (size_t)(TCP_OOO_BUF_SIZE - off));

	b = tcp_ooo_find(conn);
	if (!b && !(b = tcp_ooo_claim(conn)))
		return;

	if (tcp_ooo_add_range(b, seq, seq + (uint32_t)len)) {
		if (!b->nranges)
			tcp_ooo_release(conn);
		return;
	}
	tcp_ooo_copy(b, seq, payload, len);
	b->last.start = seq;
	b->last.end = seq + (uint32_t)len;
	tcp_stats.ooo_held += len;
}

/**
 * tcp_ooo_take() - held data that continues in-order data, if any
 * @conn:	connection
 * @next:	sequence number just past the in-order data queued so far
 * @iov:	two entries, set to the held bytes from @next on (the ring
 *		may wrap), valid until tcp_ooo_flushed(): later holds
 *		are beyond the in-order data, they don't touch these
 * @niov:	set to the entries used
 *
 * The bytes stay held until tcp_ooo_flushed() finds them in the socket.
 *
 * Return: bytes in @iov, 0 if nothing held continues at @next
 */
size_t tcp_ooo_take(const struct tcp_conn *conn, uint32_t next,
		    struct iovec iov[2], unsigned int *niov)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);
	size_t len, off, first;
	unsigned int i;

	*niov = 0;
	if (!b)
		return 0;

	/* The run that holds @next, if any */
	for (i = 0; i < b->nranges && SEQ_LE(b->ranges[i].end, next); i++)
		;
	if (i == b->nranges || SEQ_GT(b->ranges[i].start, next))
		return 0;

	len = b->ranges[i].end - next;
	off = next & TCP_OOO_MASK;
	first = MIN(len, TCP_OOO_BUF_SIZE - off);
	iov[0].iov_base = b->data + off;
	iov[0].iov_len = first;
	*niov = 1;
	if (first < len) {
		iov[1].iov_base = b->data;
		iov[1].iov_len = len - first;
		*niov = 2;
	}
	return len;
}

/**
 * tcp_ooo_flushed() - forget held bytes the socket took, release an empty
 *		       buffer
 * @conn:	connection, seq_from_guest updated after its write
 */
void tcp_ooo_flushed(const struct tcp_conn *conn)
{
	struct tcp_ooo_buf *b = tcp_ooo_find(conn);
	uint32_t from = conn->seq_from_guest;
	unsigned int i;

	if (!b)
		return;

	for (i = 0; i < b->nranges && SEQ_LE(b->ranges[i].end, from); i++)
		;
	memmove(&b->ranges[0], &b->ranges[i],
		(b->nranges - i) * sizeof(b->ranges[0]));
	b->nranges -= i;
	if (b->nranges && SEQ_LT(b->ranges[0].start, from))
		b->ranges[0].start = from;

	if (!b->nranges)
		tcp_ooo_release(conn);
}

/**
 * tcp_ooo_release() - forget a connection's held data
 * @conn:	connection (flushed, or closing)
 */
void tcp_ooo_release(const struct tcp_conn *conn)
{
	struct tcp_ooo_buf *b = tcp_ooo_find(conn);

	if (!b)
		return;
	b->flow = FLOW_IDX_NONE;
	tcp_ooo_used--;
}

/**
 * tcp_ooo_holds() - tell if a connection holds data beyond a hole
 * @conn:	connection
 *
 * Return: true if it does (its ACKs carry SACK blocks, if permitted)
 */
bool tcp_ooo_holds(const struct tcp_conn *conn)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);

	return b && b->nranges;
}

/**
 * tcp_ooo_sack() - SACK blocks for the data held (RFC 2018, 4)
 * @conn:	connection
 * @blocks:	output
 * @max:	room in @blocks
 *
 * The first block is the run with the most recently held bytes, the
 * others follow in sequence order.
 *
 * Return: number of blocks written
 */
unsigned int tcp_ooo_sack(const struct tcp_conn *conn,
			  struct tcp_sack_block *blocks, unsigned int max)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);
	unsigned int i, n = 0, recent = TCP_OOO_RANGES;

	if (!b || !max)
		return 0;

	for (i = 0; i < b->nranges; i++) {
		if (SEQ_LE(b->ranges[i].start, b->last.start) &&
		    SEQ_LT(b->last.start, b->ranges[i].end)) {
			blocks[n++] = b->ranges[i];
			recent = i;
			break;
		}
	}
	for (i = 0; i < b->nranges && n < max; i++) {
		if (i != recent)
			blocks[n++] = b->ranges[i];
	}
	return n;
}

/**
 * tcp_ooo_describe() - held data of a connection, for the log
 * @conn:	connection
 * @buf:	where to write, e.g. "none" or "runs=2 first=A-B"
 * @size:	its size
 */
void tcp_ooo_describe(const struct tcp_conn *conn, char *buf, size_t size)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);

	if (!b || !b->nranges)
		snprintf(buf, size, "none");
	else
		snprintf(buf, size, "runs=%u first=%u-%u", b->nranges,
			 b->ranges[0].start, b->ranges[0].end);
}
