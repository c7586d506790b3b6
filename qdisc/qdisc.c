// SPDX-License-Identifier: GPL-2.0-or-later
/* qdisc.c - frame scheduler and output queue toward the guest
 *
 * Theory of operation
 *
 * Everything the relay sends to the guest passes through two rings of
 * frame buffers, allocated once. Control frames (ARP, NDP, DHCP, TCP
 * SYN/ACK/RST, window updates) are small copies in the control ring, and
 * leave before any data frame. Data frames use the data ring of
 * QDISC_FRAMES full-size buffers: protocol modules write
 * frames in place (qdisc_frame_buf() gives the next free buffers,
 * qdisc_frame_commit() appends one to the queue), so that socket data is
 * read straight into the frame that carries it. qdisc_flush() hands all
 * queued frames to the backend in one call; what the backend refuses stays
 * queued in order, and the backend arms its own wake-up (EPOLLOUT) before
 * returning, so output resumes exactly where it stopped.
 *
 * Flows with data for the guest do not copy it here in advance: they call
 * qdisc_wake(), which puts them on a ready list, and qdisc_run() serves the
 * list by deficit round robin, calling each flow's pull function with its
 * byte budget. TCP data is thus read from the socket only when the flow's
 * turn comes, and a bulk flow cannot starve an interactive one. A flow
 * woken from idle goes to the head of the list (as the new-flow list of
 * RFC 8290): a ping-pong reply leaves before the bulk flow's next quantum,
 * and if it has more, it continues at the tail like everybody else.
 * Frames leave in batches of tap_batch_bytes() during a run, not only at
 * its end: the tap takes one frame per write anyway, and a frame written
 * right after the socket read that filled it is still in the cache. A
 * stream socket takes a whole batch per write and wakes its reader once
 * for it, so its backend asks for larger batches; a run, and a flow's
 * quantum, grow to one batch then, so that a single flow fills it. For
 * the same reason, a turn that finds the queue empty starts over at the
 * first buffers of the ring (qdisc_rewind()): walking all QDISC_FRAMES
 * buffers (16 MiB) would make every socket read write to memory the cache
 * has long dropped, while the few buffers of one turn stay in the cache.
 * When the backend is full (its wake-up armed), flows fill one more batch
 * for the moment it fires, and no more (qdisc_backlogged()): the rest
 * waits in their sockets, where the scheduler still chooses among flows,
 * instead of in a first-in first-out ring an interactive flow would wait
 * behind.
 * A backend whose buffers are the guest's (vhost-user) may lend them
 * instead (qdisc_lend()): the frames of the turn are then written where
 * the guest reads them and reach it as they are committed. That is only
 * allowed with nothing queued (a flush first), so that they can't
 * overtake a queued frame; when the backend lends nothing, the turn uses
 * the ring as always.
 *
 * qdisc_run() ends every main loop iteration with a flush, so a frame
 * queued into an empty ring leaves in the same iteration it was made
 * (design.md invariant 1). If the ready list is not empty when the run's
 * budget is spent, qdisc_has_ready() tells the main loop not to sleep
 * (invariant 2: pending output always has a wake-up). qdisc_wakeup_ok()
 * checks that invariant; debug builds (make DEBUG=1, make sanitize) call
 * it after every loop iteration, and the unit model test after every
 * simulated one.
 *
 * Counters: global ones (struct qdisc_stats), and a few per flow (struct
 * qdisc_flow_stats). Each queued frame remembers the flow whose turn made
 * it, so that the flush can charge frames, bytes and backpressure to that
 * flow. qdisc_stats_log() prints the QDISC_STATS_TOP flows with the most
 * bytes, with their addresses and ports, so that the log stays short with
 * many flows.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "qdisc.h"
#include "../tap/tap.h"
#include "../util/idle_trim.h"
#include "../util/log.h"
#include "../util/util.h"

/* Ready-list membership of a flow */
#define QDISC_IDLE		0
#define QDISC_QUEUED		1
#define QDISC_CANCELLED		2

/* Control frames: small, sent before any data frame */
static uint8_t qdisc_ctrl[QDISC_CTRL_FRAMES][QDISC_CTRL_SIZE]
	__attribute__((aligned(64)));
static size_t qdisc_ctrl_len[QDISC_CTRL_FRAMES];
static uint32_t qdisc_ctrl_flow[QDISC_CTRL_FRAMES];	/* for counters */
static const struct virtio_net_hdr qdisc_vnet_none;	/* no offload */
static size_t qdisc_ctrl_head;		/* oldest queued control frame */
static size_t qdisc_ctrl_count;		/* control frames queued */

static uint8_t qdisc_frames[QDISC_FRAMES][QDISC_FRAME_SIZE]
	__attribute__((aligned(64)));
static size_t qdisc_frame_len[QDISC_FRAMES];
static struct virtio_net_hdr qdisc_frame_vnet[QDISC_FRAMES];
static uint32_t qdisc_frame_flow[QDISC_FRAMES];	/* for counters */
static size_t qdisc_head;		/* oldest queued frame */
static size_t qdisc_count;		/* frames queued, not yet written */
static size_t qdisc_queued_bytes;	/* their bytes */
static uint64_t qdisc_committed_bytes;
static uint64_t qdisc_flushed_bytes;	/* committed bytes at the last flush */

static uint32_t *qdisc_ready;		/* ring of flow indices */
static uint8_t *qdisc_ready_state;	/* QDISC_IDLE/QUEUED/CANCELLED */
static uint32_t *qdisc_deficit;		/* DRR deficit per flow, bytes */
static unsigned int qdisc_ready_cap;
static unsigned int qdisc_ready_head;
static unsigned int qdisc_ready_count;

static qdisc_pull_fn qdisc_pull[FLOW_TYPE_MAX];
static struct qdisc_stats qdisc_counters;
static struct qdisc_flow_stats *qdisc_flow_counters;	/* per flow */
static uint32_t qdisc_cur_flow = FLOW_IDX_NONE;	/* whose turn it is */

/**
 * qdisc_trim_busy() - tell if frames are queued toward the guest
 *
 * Return: true if any data or control frame waits to be written: buffers
 *	   are only handed back with the queue empty (free buffers hold
 *	   nothing: a protocol fills and commits one within a call)
 */
static bool qdisc_trim_busy(void)
{
	return qdisc_count || qdisc_ctrl_count;
}

/**
 * qdisc_init() - allocate the ready list for the flow table's capacity
 * @flow_max:	capacity of the flow table
 *
 * Return: 0 on success, -ENOMEM on failure
 */
int qdisc_init(unsigned int flow_max)
{
	qdisc_ready = calloc(flow_max, sizeof(*qdisc_ready));
	qdisc_ready_state = calloc(flow_max, sizeof(*qdisc_ready_state));
	qdisc_deficit = calloc(flow_max, sizeof(*qdisc_deficit));
	qdisc_flow_counters = calloc(flow_max, sizeof(*qdisc_flow_counters));
	if (!qdisc_ready || !qdisc_ready_state || !qdisc_deficit ||
	    !qdisc_flow_counters)
		return -ENOMEM;

	qdisc_ready_cap = flow_max;
	idle_trim_register(qdisc_frames, sizeof(qdisc_frames), qdisc_trim_busy);
	idle_trim_register(qdisc_ctrl, sizeof(qdisc_ctrl), qdisc_trim_busy);
	return 0;
}

/**
 * qdisc_register() - set the pull function for a type of flow
 * @type:	flow type
 * @fn:		pull function
 */
void qdisc_register(enum flow_type type, qdisc_pull_fn fn)
{
	qdisc_pull[type] = fn;
}

/**
 * qdisc_frames_avail() - number of free frame buffers
 *
 * Return: free buffers, usable as qdisc_frame_buf(0 .. n - 1)
 */
size_t qdisc_frames_avail(void)
{
	return QDISC_FRAMES - qdisc_count;
}

/**
 * qdisc_frame_buf() - the i-th free frame buffer
 * @i:		index among free buffers, below qdisc_frames_avail()
 *
 * Return: buffer of QDISC_FRAME_SIZE bytes
 */
uint8_t *qdisc_frame_buf(size_t i)
{
	return qdisc_frames[(qdisc_head + qdisc_count + i) % QDISC_FRAMES];
}

/**
 * qdisc_frame_commit() - queue the first free buffer as a frame
 * @len:	frame length, bytes
 */
void qdisc_frame_commit(size_t len)
{
	qdisc_frame_commit_offload(len, &qdisc_vnet_none);
}

/**
 * qdisc_frame_commit_offload() - queue the first free buffer as a frame
 *				  whose checksum or segmentation is left
 *				  to the guest's side
 * @len:	frame length, bytes
 * @vh:		offload description (only when tap_offload() said yes)
 */
void qdisc_frame_commit_offload(size_t len, const struct virtio_net_hdr *vh)
{
	size_t slot = (qdisc_head + qdisc_count) % QDISC_FRAMES;

	qdisc_frame_len[slot] = len;
	qdisc_frame_vnet[slot] = *vh;
	qdisc_frame_flow[slot] = qdisc_cur_flow;
	qdisc_count++;
	qdisc_queued_bytes += len;
	qdisc_committed_bytes += len;
}

/**
 * qdisc_flow_st() - counters of a flow
 * @flow:	flow index, FLOW_IDX_NONE for frames of no flow
 *
 * Return: pointer to the flow's counters, NULL if none
 */
static struct qdisc_flow_stats *qdisc_flow_st(uint32_t flow)
{
	if (flow >= qdisc_ready_cap || !qdisc_flow_counters)
		return NULL;
	return &qdisc_flow_counters[flow];
}

/**
 * qdisc_count_out() - count a frame the backend took
 * @flow:	flow whose turn made it, FLOW_IDX_NONE for none
 * @len:	its length
 */
static void qdisc_count_out(uint32_t flow, size_t len)
{
	struct qdisc_flow_stats *fs = qdisc_flow_st(flow);

	qdisc_counters.frames++;
	qdisc_counters.bytes += len;
	if (fs) {
		fs->frames++;
		fs->bytes += len;
	}
}

/**
 * qdisc_drop() - count a frame dropped because the queue was full
 */
static void qdisc_drop(void)
{
	struct qdisc_flow_stats *fs = qdisc_flow_st(qdisc_cur_flow);

	qdisc_counters.drops++;
	if (fs)
		fs->drops++;
}

/**
 * qdisc_flush() - write queued frames to the backend: control frames first
 * @c:		execution context
 *
 * Frames the backend does not take stay queued, in order; the backend
 * arms its wake-up in that case.
 */
void qdisc_flush(const struct ctx *c)
{
	struct iovec iov[(QDISC_CTRL_FRAMES + QDISC_FRAMES) * 2];
	uint32_t owner[QDISC_CTRL_FRAMES + QDISC_FRAMES];
	size_t i, n = 0, sent, sent_ctrl;

	/* Two buffers a frame: its virtio-net header, then the frame */
	for (i = 0; i < qdisc_ctrl_count; i++, n++) {
		size_t slot = (qdisc_ctrl_head + i) % QDISC_CTRL_FRAMES;

		iov[n * 2].iov_base = (void *)&qdisc_vnet_none;
		iov[n * 2].iov_len = sizeof(qdisc_vnet_none);
		iov[n * 2 + 1].iov_base = qdisc_ctrl[slot];
		iov[n * 2 + 1].iov_len = qdisc_ctrl_len[slot];
		owner[n] = qdisc_ctrl_flow[slot];
	}
	for (i = 0; i < qdisc_count; i++, n++) {
		size_t slot = (qdisc_head + i) % QDISC_FRAMES;

		iov[n * 2].iov_base = &qdisc_frame_vnet[slot];
		iov[n * 2].iov_len = sizeof(qdisc_frame_vnet[slot]);
		iov[n * 2 + 1].iov_base = qdisc_frames[slot];
		iov[n * 2 + 1].iov_len = qdisc_frame_len[slot];
		owner[n] = qdisc_frame_flow[slot];
	}

	qdisc_flushed_bytes = qdisc_committed_bytes;
	if (!n)
		return;

	sent = tap_send_frames_vnet(c, iov, n);
	sent = MIN(sent, n);
	qdisc_counters.flushes++;

	for (i = 0; i < sent; i++)
		qdisc_count_out(owner[i], iov[i * 2 + 1].iov_len);
	if (sent < n) {
		struct qdisc_flow_stats *fs = qdisc_flow_st(owner[sent]);

		qdisc_counters.backpressure++;
		if (fs)
			fs->backpressure++;
	}

	sent_ctrl = MIN(sent, qdisc_ctrl_count);
	qdisc_ctrl_head = (qdisc_ctrl_head + sent_ctrl) % QDISC_CTRL_FRAMES;
	qdisc_ctrl_count -= sent_ctrl;
	sent -= sent_ctrl;

	for (i = 0; i < sent; i++)
		qdisc_queued_bytes -= qdisc_frame_len[(qdisc_head + i) %
						      QDISC_FRAMES];
	qdisc_head = (qdisc_head + sent) % QDISC_FRAMES;
	qdisc_count -= sent;
	if (!qdisc_ctrl_count)
		qdisc_ctrl_head = 0;	/* copies: nobody points into it */
}

/**
 * qdisc_lend() - the guest's own buffers for frames written in place
 * @c:		execution context
 * @l:		filled with each frame's header and payload areas
 * @frames:	frames wanted
 * @room:	header bytes of each frame, in one piece
 * @payload:	payload bytes each frame may carry
 *
 * Only with nothing queued: lent frames reach the guest as they are
 * committed, so they must not overtake queued ones. Offloaded frames only
 * (see tap_lend()).
 *
 * Return: frames lent, 0 if none: the caller uses qdisc_frame_buf()
 */
size_t qdisc_lend(const struct ctx *c, struct tap_lend *l, size_t frames,
		  size_t room, size_t payload)
{
	l->frames = 0;
	if (!tap_lends(c))
		return 0;
	if (qdisc_count || qdisc_ctrl_count)
		qdisc_flush(c);
	if (qdisc_count || qdisc_ctrl_count)
		return 0;

	return tap_lend(c, l, frames, room, payload);
}

/**
 * qdisc_lend_commit() - give a frame written in lent buffers to the guest
 * @c:		execution context
 * @l:		lent buffers
 * @f:		frame, in order (see tap_lend_commit())
 * @len:	frame length, headers and payload
 * @vh:		its offload description
 *
 * Return: true if the guest has it, false if it was dropped
 */
bool qdisc_lend_commit(const struct ctx *c, const struct tap_lend *l,
		       size_t f, size_t len, const struct virtio_net_hdr *vh)
{
	if (!tap_lend_commit(c, l, f, len, vh))
		return false;

	/* Made in this turn (budgets, deficits) and already out (flushes) */
	qdisc_committed_bytes += len;
	qdisc_flushed_bytes += len;
	qdisc_count_out(qdisc_cur_flow, len);
	return true;
}

/**
 * qdisc_lend_end() - done with lent buffers
 * @c:		execution context
 * @l:		lent buffers, released
 */
void qdisc_lend_end(const struct ctx *c, struct tap_lend *l)
{
	if (l->frames)
		qdisc_counters.flushes++;
	tap_lend_end(c, l);
}

/**
 * qdisc_rewind() - start over at the first data buffer if none is queued
 *
 * Only between turns of qdisc_run(): a caller of qdisc_frame_buf() keeps
 * pointers to free buffers until it commits them, and a flush in between
 * (a full control ring) must not move them.
 */
static void qdisc_rewind(void)
{
	if (!qdisc_count)
		qdisc_head = 0;
}

/**
 * qdisc_send_ordered() - queue a copy of a frame behind the data frames
 * @c:		execution context
 * @frame:	frame, starting with the Ethernet header
 * @len:	its length
 *
 * For frames that must not overtake data already queued (a TCP FIN), and
 * for control frames too large for a control slot.
 */
void qdisc_send_ordered(const struct ctx *c, const void *frame, size_t len)
{
	if (len > QDISC_FRAME_SIZE) {
		qdisc_drop();
		return;
	}

	if (!qdisc_frames_avail())
		qdisc_flush(c);

	if (!qdisc_frames_avail()) {
		qdisc_drop();
		return;
	}

	memcpy(qdisc_frame_buf(0), frame, len);
	qdisc_frame_commit(len);
}

/**
 * qdisc_send() - queue a copy of a control frame (ARP, NDP, DHCP, TCP ACK,
 *		  SYN, RST): it leaves before any queued data frame
 * @c:		execution context
 * @frame:	frame, starting with the Ethernet header
 * @len:	its length
 */
void qdisc_send(const struct ctx *c, const void *frame, size_t len)
{
	size_t slot;

	if (len > QDISC_CTRL_SIZE) {
		qdisc_send_ordered(c, frame, len);
		return;
	}

	if (qdisc_ctrl_count == QDISC_CTRL_FRAMES)
		qdisc_flush(c);

	if (qdisc_ctrl_count == QDISC_CTRL_FRAMES) {
		qdisc_drop();
		return;
	}

	slot = (qdisc_ctrl_head + qdisc_ctrl_count) % QDISC_CTRL_FRAMES;
	memcpy(qdisc_ctrl[slot], frame, len);
	qdisc_ctrl_len[slot] = len;
	qdisc_ctrl_flow[slot] = qdisc_cur_flow;
	qdisc_ctrl_count++;
}

/**
 * qdisc_wake() - a flow has something to send: put it on the ready list
 * @flow:	flow index
 */
void qdisc_wake(uint32_t flow)
{
	if (flow >= qdisc_ready_cap)
		return;

	if (qdisc_ready_state[flow] == QDISC_CANCELLED) {
		qdisc_ready_state[flow] = QDISC_QUEUED;
		return;
	}
	if (qdisc_ready_state[flow] == QDISC_QUEUED)
		return;

	/* A flow that was idle goes first: one quantum, then the tail */
	qdisc_ready_head = (qdisc_ready_head + qdisc_ready_cap - 1) %
			   qdisc_ready_cap;
	qdisc_ready[qdisc_ready_head] = flow;
	qdisc_ready_count++;
	qdisc_ready_state[flow] = QDISC_QUEUED;
	qdisc_deficit[flow] = 0;
}

/**
 * qdisc_forget() - take a flow off the ready list (it is being closed)
 * @flow:	flow index
 *
 * Its counters start again from zero: the index will be another flow.
 */
void qdisc_forget(uint32_t flow)
{
	if (flow >= qdisc_ready_cap)
		return;

	memset(&qdisc_flow_counters[flow], 0, sizeof(qdisc_flow_counters[flow]));

	if (qdisc_ready_state[flow] == QDISC_QUEUED)
		qdisc_ready_state[flow] = QDISC_CANCELLED;
}

/**
 * qdisc_pop() - take the next flow from the ready list
 *
 * Return: flow index, FLOW_IDX_NONE if the list is empty
 */
static uint32_t qdisc_pop(void)
{
	while (qdisc_ready_count) {
		uint32_t flow = qdisc_ready[qdisc_ready_head];

		qdisc_ready_head = (qdisc_ready_head + 1) % qdisc_ready_cap;
		qdisc_ready_count--;

		if (qdisc_ready_state[flow] == QDISC_QUEUED)
			return flow;

		qdisc_ready_state[flow] = QDISC_IDLE;
	}

	return FLOW_IDX_NONE;
}

/**
 * qdisc_push_back() - put a flow that still has data back at the tail
 * @flow:	flow index, already marked QDISC_QUEUED
 */
static void qdisc_push_back(uint32_t flow)
{
	qdisc_ready[(qdisc_ready_head + qdisc_ready_count) % qdisc_ready_cap] =
		flow;
	qdisc_ready_count++;
}

/**
 * qdisc_backlogged() - tell if the backend is full and a batch waits for it
 * @c:		execution context
 *
 * While the backend waits for its wake-up, flows may still fill one batch,
 * which leaves as soon as it fires (the socket's buffer alone may drain
 * before the relay runs again); beyond that, data stays in the flows'
 * sockets, where the scheduler can still choose among them.
 *
 * Return: true if flows must wait for the backend's wake-up
 */
static bool qdisc_backlogged(const struct ctx *c)
{
	return tap_output_armed(c) && qdisc_queued_bytes >= tap_batch_bytes(c);
}

/**
 * qdisc_run() - serve ready flows by deficit round robin, then flush
 * @c:		execution context
 * @now_ms:	current time
 *
 * Stops when the ready list is empty, when the backend is full with a
 * batch waiting for it, or after QDISC_RUN_FRAMES turns or QDISC_RUN_BYTES
 * bytes (one batch, if the backend's is larger), so that input
 * keeps being served. Without the byte limit, a bulk flow that never runs
 * out of window would fill whole loop iterations with its frames, each
 * write to the tap running the guest's receive path: a request waiting
 * in the tap and the reply of an interactive flow waiting in its socket
 * would both wait for the iteration to end. QDISC_RUN_BYTES bounds that
 * wait to about one quantum of frames (the measurements behind the value
 * are in doc/perf-notes/scheduler-run-bytes.md). The main loop does not
 * sleep while qdisc_has_ready().
 */
void qdisc_run(const struct ctx *c, uint64_t now_ms)
{
	uint64_t start = qdisc_committed_bytes;
	size_t batch = tap_batch_bytes(c);
	size_t budget = MAX(batch, (size_t)QDISC_RUN_BYTES);
	size_t quantum = MAX(batch, (size_t)QDISC_QUANTUM);
	unsigned int turns;

	for (turns = 0; turns < QDISC_RUN_FRAMES && qdisc_ready_count &&
	     qdisc_committed_bytes - start < budget && !qdisc_backlogged(c);
	     turns++) {
		enum qdisc_pull_result res = QDISC_DONE;
		uint64_t before;
		uint32_t flow;
		enum flow_type type;

		if (!qdisc_frames_avail()) {
			qdisc_flush(c);
			if (!qdisc_frames_avail())
				break;
		}

		flow = qdisc_pop();
		if (flow == FLOW_IDX_NONE)
			break;

		/* The next socket read lands in cache-warm memory */
		qdisc_rewind();

		type = flow_type_of(flow);
		qdisc_deficit[flow] += quantum;
		before = qdisc_committed_bytes;

		qdisc_cur_flow = flow;
		if (type < FLOW_TYPE_MAX && qdisc_pull[type])
			res = qdisc_pull[type](c, flow, qdisc_deficit[flow],
					       now_ms);
		qdisc_cur_flow = FLOW_IDX_NONE;

		if (qdisc_ready_state[flow] != QDISC_QUEUED) {
			/* Closed or forgotten during its turn */
			qdisc_ready_state[flow] = QDISC_IDLE;
			continue;
		}

		/* More, but nothing made while there was room: a flow that
		 * can't progress must wait for its own wake-up, not spin
		 */
		if (res == QDISC_MORE && qdisc_committed_bytes == before &&
		    qdisc_frames_avail())
			res = QDISC_DONE;

		if (res == QDISC_MORE) {
			uint64_t sent = qdisc_committed_bytes - before;

			qdisc_deficit[flow] = sent >= qdisc_deficit[flow] ?
					      0 : qdisc_deficit[flow] - sent;
			qdisc_push_back(flow);
		} else {
			qdisc_ready_state[flow] = QDISC_IDLE;
			qdisc_deficit[flow] = 0;
		}

		if (qdisc_committed_bytes - qdisc_flushed_bytes >= batch)
			qdisc_flush(c);
	}

	qdisc_flush(c);
	tap_notify(c);
}

/**
 * qdisc_has_ready() - tell if flows are waiting for their turn
 *
 * Return: true if the main loop must not sleep
 */
bool qdisc_has_ready(const struct ctx *c)
{
	return qdisc_ready_count && qdisc_frames_avail() &&
	       !qdisc_backlogged(c);
}

/**
 * qdisc_has_queued() - tell if frames wait for the backend
 *
 * Return: true if frames are queued
 */
bool qdisc_has_queued(void)
{
	return qdisc_count || qdisc_ctrl_count;
}

/**
 * qdisc_stats() - output counters
 *
 * Return: pointer to the counters
 */
const struct qdisc_stats *qdisc_stats(void)
{
	return &qdisc_counters;
}

/**
 * qdisc_flow_stats() - output counters of one flow
 * @flow:	flow index
 *
 * Return: pointer to the counters, NULL if @flow is out of range
 */
const struct qdisc_flow_stats *qdisc_flow_stats(uint32_t flow)
{
	return qdisc_flow_st(flow);
}

/**
 * qdisc_wakeup_ok() - check design.md invariant 2 at the end of a loop
 *		       iteration: pending output implies an armed wake-up
 * @c:		execution context
 *
 * Output is pending if frames wait in the rings, or if the backend holds
 * the rest of a frame of its own: then the backend's output wake-up must
 * be armed. Flows on the ready list must either find free buffers (the
 * main loop does not sleep then: qdisc_has_ready()) or wait for that same
 * wake-up.
 *
 * Return: true if the invariant holds
 */
bool qdisc_wakeup_ok(const struct ctx *c)
{
	bool pending = qdisc_has_queued() || tap_output_held(c);

	if (pending && !tap_output_armed(c))
		return false;

	if (qdisc_ready_count && !qdisc_has_ready(c) && !tap_output_armed(c))
		return false;

	return true;
}

/**
 * qdisc_stats_top() - pick the flows with the most bytes
 * @top:	output, QDISC_STATS_TOP flow indices, most bytes first
 *
 * Return: number of flows picked (flows with no bytes are skipped)
 */
static unsigned int qdisc_stats_top(uint32_t *top)
{
	unsigned int n = 0, i, j;
	uint32_t f;

	for (f = 0; f < qdisc_ready_cap; f++) {
		uint64_t b = qdisc_flow_counters[f].bytes;

		if (!b)
			continue;
		if (n == QDISC_STATS_TOP &&
		    b <= qdisc_flow_counters[top[n - 1]].bytes)
			continue;

		/* Insertion into the sorted list, dropping its last entry
		 * when full
		 */
		i = n < QDISC_STATS_TOP ? n++ : n - 1;
		for (j = i; j && qdisc_flow_counters[top[j - 1]].bytes < b;
		     j--)
			top[j] = top[j - 1];
		top[j] = f;
	}

	return n;
}

/**
 * qdisc_flow_name() - describe a flow for the log: protocol, addresses,
 *		       ports as the guest sees them
 * @flow:	flow index
 * @buf:	output
 * @size:	its size
 */
static void qdisc_flow_name(uint32_t flow, char *buf, size_t size)
{
	const struct flow_key *k = flow_key_of(flow);
	char ga[INANY_STRLEN], ra[INANY_STRLEN];
	const char *proto;

	if (!k) {
		snprintf(buf, size, "flow %u", flow);
		return;
	}

	switch (k->proto) {
	case IPPROTO_TCP:
		proto = "tcp";
		break;
	case IPPROTO_UDP:
		proto = "udp";
		break;
	default:
		proto = "icmp";
		break;
	}

	snprintf(buf, size, "flow %u %s [%s]:%u <-> [%s]:%u", flow, proto,
		 inany_ntop(&k->guest_addr, ga), k->guest_port,
		 inany_ntop(&k->remote_addr, ra), k->remote_port);
}

/**
 * qdisc_stats_log() - log the output counters, one line of key=value
 *		       pairs, then one line for each of the QDISC_STATS_TOP
 *		       flows with the most bytes
 */
void qdisc_stats_log(void)
{
	const struct qdisc_stats *q = &qdisc_counters;
	uint32_t top[QDISC_STATS_TOP];
	unsigned int n, i;

	info("qdisc: frames=%llu bytes=%llu flushes=%llu backpressure=%llu "
	     "drops=%llu queued=%zu ready=%u",
	     (unsigned long long)q->frames, (unsigned long long)q->bytes,
	     (unsigned long long)q->flushes,
	     (unsigned long long)q->backpressure,
	     (unsigned long long)q->drops, qdisc_count + qdisc_ctrl_count,
	     qdisc_ready_count);

	if (!qdisc_flow_counters)
		return;

	n = qdisc_stats_top(top);
	for (i = 0; i < n; i++) {
		const struct qdisc_flow_stats *fs = &qdisc_flow_counters[top[i]];
		char name[32 + 2 * INANY_STRLEN];

		qdisc_flow_name(top[i], name, sizeof(name));
		info("qdisc: %s: frames=%llu bytes=%llu drops=%u "
		     "backpressure=%u", name,
		     (unsigned long long)fs->frames,
		     (unsigned long long)fs->bytes, fs->drops,
		     fs->backpressure);
	}
}
