// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_ooo.c - guest data that arrives after a hole, held until it fills
 *
 * Theory of operation
 *
 * Guest payload is written to the host socket only in order. When a guest
 * segment is lost on its way to us (a full tap queue, a lossy link), the
 * segments after it arrive out of order. Dropping them, as a receiver
 * without a reassembly queue would, makes every loss expensive: the guest
 * retransmits the lost segment on our duplicate ACKs, our ACK then covers
 * only that segment, and, without SACK, the guest resends everything after
 * it one segment per round trip (NewReno) or waits for its timeout.
 *
 * So data after a hole is kept: the first out-of-order segment of a
 * connection claims one of TCP_OOO_BUFS buffers, which then maps the
 * sequence space from the hole on, TCP_OOO_BUF_SIZE bytes of it: a
 * byte goes at its offset from the start, and up to TCP_OOO_RANGES runs
 * of held bytes are tracked, so that several holes in one window are all
 * repaired. When in-order data reaches a held run, the rest of the run is
 * appended to the connection's write queue (tcp_guest.c) and goes to the
 * socket in the same sendmsg(); our cumulative ACK then covers it, and the
 * guest's recovery moves to the next hole, or ends. The buffer is released
 * once no run is left and the write queue went out, or when the
 * connection closes. Whatever the socket did not take is not acknowledged
 * and comes again.
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
#include "../util/util.h"

/**
 * struct tcp_ooo_range - a run of held bytes
 * @start:	sequence number of its first byte
 * @end:	sequence number just past its last byte
 */
struct tcp_ooo_range {
	uint32_t start;
	uint32_t end;
};

/**
 * struct tcp_ooo_buf - guest data held beyond holes, for one connection
 * @flow:	connection's flow index, FLOW_IDX_NONE if the buffer is free
 * @base:	sequence number stored at offset 0 of @data
 * @nranges:	runs held, in @ranges, in sequence order, not touching
 * @ranges:	the runs
 * @data:	TCP_OOO_BUF_SIZE bytes, sequence space from @base on
 */
struct tcp_ooo_buf {
	uint32_t flow;
	uint32_t base;
	unsigned int nranges;
	struct tcp_ooo_range ranges[TCP_OOO_RANGES];
	uint8_t *data;
};

static struct tcp_ooo_buf tcp_ooo[TCP_OOO_BUFS];
static unsigned int tcp_ooo_used;	/* buffers with a flow */
static uint8_t *tcp_ooo_mem;

/**
 * tcp_ooo_init() - allocate the buffers (their pages are touched on use)
 *
 * Return: 0 on success, -1 if out of memory
 */
int tcp_ooo_init(void)
{
	unsigned int i;

	tcp_ooo_mem = malloc((size_t)TCP_OOO_BUFS * TCP_OOO_BUF_SIZE);
	if (!tcp_ooo_mem)
		return -1;
	for (i = 0; i < TCP_OOO_BUFS; i++) {
		tcp_ooo[i].flow = FLOW_IDX_NONE;
		tcp_ooo[i].data = tcp_ooo_mem + (size_t)i * TCP_OOO_BUF_SIZE;
	}
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
 * @base:	first sequence number it will hold
 *
 * Return: the buffer, NULL if all are in use
 */
static struct tcp_ooo_buf *tcp_ooo_claim(const struct tcp_conn *conn,
					 uint32_t base)
{
	unsigned int i;

	if (tcp_ooo_used == TCP_OOO_BUFS)
		return NULL;
	for (i = 0; tcp_ooo[i].flow != FLOW_IDX_NONE; i++)
		;
	tcp_ooo[i].flow = conn->flow;
	tcp_ooo[i].base = base;
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
 * tcp_ooo_hold() - keep an out-of-order segment's payload
 * @conn:	connection
 * @expected:	next sequence number expected in order (start of the hole)
 * @seq:	sequence number of the payload, beyond @expected
 * @payload:	the bytes
 * @len:	how many
 *
 * Bytes before the buffer's start or beyond its end are not kept.
 */
void tcp_ooo_hold(const struct tcp_conn *conn, uint32_t expected,
		  uint32_t seq, const uint8_t *payload, size_t len)
{
	struct tcp_ooo_buf *b;
	uint32_t off;

	if (!len)
		return;
	b = tcp_ooo_find(conn);
	if (!b && !(b = tcp_ooo_claim(conn, expected)))
		return;

	if (SEQ_LT(seq, b->base)) {
		uint32_t skip = b->base - seq;

		if (skip >= len)
			return;
		payload += skip;
		len -= skip;
		seq = b->base;
	}
	off = seq - b->base;
	if (off >= TCP_OOO_BUF_SIZE)
		return;
	len = MIN(len, (size_t)(TCP_OOO_BUF_SIZE - off));

	if (tcp_ooo_add_range(b, seq, seq + (uint32_t)len))
		return;
	memcpy(b->data + off, payload, len);
	tcp_stats.ooo_held += len;
}

/**
 * tcp_ooo_take() - held data that continues in-order data, if any
 * @conn:	connection
 * @next:	sequence number just past the in-order data queued so far
 * @iov:	set to the held bytes from @next on, valid until the write
 *		queue is flushed
 *
 * Return: bytes in @iov, 0 if nothing held continues at @next
 */
size_t tcp_ooo_take(const struct tcp_conn *conn, uint32_t next,
		    struct iovec *iov)
{
	struct tcp_ooo_buf *b = tcp_ooo_find(conn);
	unsigned int i;
	size_t len = 0;

	if (!b)
		return 0;

	/* Runs that end at or before @next are already in the socket */
	for (i = 0; i < b->nranges && SEQ_LE(b->ranges[i].end, next); i++)
		;
	if (i < b->nranges && SEQ_LE(b->ranges[i].start, next)) {
		iov->iov_base = b->data + (next - b->base);
		iov->iov_len = len = b->ranges[i].end - next;
		i++;
	}

	memmove(&b->ranges[0], &b->ranges[i],
		(b->nranges - i) * sizeof(b->ranges[0]));
	b->nranges -= i;
	return len;
}

/**
 * tcp_ooo_flushed() - the write queue went out: release an empty buffer
 * @conn:	connection
 */
void tcp_ooo_flushed(const struct tcp_conn *conn)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);

	if (b && !b->nranges)
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
 * tcp_ooo_describe() - held data of a connection, for the log
 * @conn:	connection
 * @buf:	where to write, e.g. "none" or "base=N runs=2 first=A-B"
 * @size:	its size
 */
void tcp_ooo_describe(const struct tcp_conn *conn, char *buf, size_t size)
{
	const struct tcp_ooo_buf *b = tcp_ooo_find(conn);

	if (!b)
		snprintf(buf, size, "none");
	else if (!b->nranges)
		snprintf(buf, size, "base=%u runs=0", b->base);
	else
		snprintf(buf, size, "base=%u runs=%u first=%u-%u", b->base,
			 b->nranges, b->ranges[0].start, b->ranges[0].end);
}
