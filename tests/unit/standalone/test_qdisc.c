// SPDX-License-Identifier: GPL-2.0-or-later
/* test_qdisc.c - the output scheduler against a sink that pushes back
 *
 * Build (not linked against the other modules: it defines its own
 * tap_send_frames_vnet(), tap_output_armed(), flow_type_of() ...): see
 * the Makefile's
 * test_qdisc rule; sources: this file, qdisc/qdisc.c.
 *
 * Theory of operation: model flows produce numbered frames through the
 * pull interface of qdisc/; a model backend accepts all, none or part of
 * every batch at random, and "arms EPOLLOUT" whenever it refuses
 * something. The main loop is simulated: an armed wake-up fires at random
 * later iterations, and every iteration ends with qdisc_run(), as in
 * passt.c. The checks are the ones of design.md invariants 1 and 2 and of
 * fair sharing: every frame leaves exactly once and in order per flow,
 * pending output always has an armed wake-up or a non-blocking next
 * iteration (qdisc_wakeup_ok(), the check debug builds of the relay run
 * after every loop iteration, called here after every simulated one),
 * backlogged flows get equal shares, also while the sink pushes back, and
 * a lone frame leaves in the iteration that made it. Per-flow counters
 * must match what the sink saw. Every frame reaches the backend behind its
 * virtio-net header: zero unless it was committed with an offload one.
 * A backend that lends its buffers gets them asked for only once the
 * queue is empty, so that lent frames never overtake queued ones.
 */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../conf/ctx.h"
#include "../../../qdisc/qdisc.h"
#include "../../../tap/tap.h"

#define T_FLOWS		32
#define T_FRAME_MIN	60
#define T_FRAME_MAX	9000

/* Model backend */
static int sink_mode;		/* 0: accept all, 1: random, 2: refuse all */
static bool sink_armed;		/* "EPOLLOUT" armed by the backend */
static unsigned int sink_calls;
static uint64_t sink_bytes[T_FLOWS];
static uint32_t sink_next[T_FLOWS];	/* next sequence expected per flow */
static unsigned int sink_errors;
static uint32_t sink_first_flow;	/* flow of the first frame of a batch */
static const void *sink_first_buf;	/* buffer of the first frame of one */
static unsigned int sink_vnet_set;	/* frames with a non-zero vnet header */
static struct virtio_net_hdr sink_vnet_last;	/* last non-zero one */
static uint32_t sink_watch = UINT32_MAX;	/* flow to watch for */
static uint64_t sink_watch_before;	/* flow 10's bytes before its frame */
static bool sink_lends;			/* the backend lends buffers */
static size_t sink_batch = TAP_BATCH_BYTES;	/* tap_batch_bytes() */
static unsigned int sink_lend_calls;
static unsigned int sink_lent;		/* lent frames committed */
static unsigned int sink_calls_at_lend;	/* sink_calls when it last lent */
static uint8_t sink_lend_hdr[TAP_LEND_FRAMES][8];	/* lent headers */

/* Model flows */
static uint32_t flow_backlog[T_FLOWS];	/* frames still to produce */
static uint32_t flow_seq[T_FLOWS];	/* next sequence to produce */
static size_t flow_size[T_FLOWS];	/* frame size, 0 for random */

/**
 * flow_type_of() - double: every flow is a TCP flow
 * @idx:	flow index
 *
 * Return: FLOW_TYPE_TCP
 */
enum flow_type flow_type_of(uint32_t idx)
{
	(void)idx;
	return FLOW_TYPE_TCP;
}

/**
 * flow_key_of() - double: model flows have no addresses
 * @idx:	flow index
 *
 * Return: NULL
 */
const struct flow_key *flow_key_of(uint32_t idx)
{
	(void)idx;
	return NULL;
}

/**
 * tap_output_armed() - double: the wake-up the model backend armed
 * @c:		execution context (unused)
 *
 * Return: true if armed
 */
bool tap_output_armed(const struct ctx *c)
{
	(void)c;
	return sink_armed;
}

/**
 * tap_batch_bytes() - double: the model backend's batch
 * @c:		execution context (unused)
 *
 * Return: sink_batch, TAP_BATCH_BYTES unless a test sets it
 */
size_t tap_batch_bytes(const struct ctx *c)
{
	(void)c;
	return sink_batch;
}

/**
 * tap_output_held() - double: the model backend keeps no partial frames
 * @c:		execution context (unused)
 *
 * Return: false
 */
bool tap_output_held(const struct ctx *c)
{
	(void)c;
	return false;
}

/**
 * tap_send_frames_vnet() - double: a backend that may refuse part of a
 *			    batch
 * @c:		execution context (unused)
 * @iov:	two buffers a frame: virtio-net header, then the frame
 * @nframes:	number of frames
 *
 * Return: frames accepted
 */
size_t tap_send_frames_vnet(const struct ctx *c, const struct iovec *iov,
			    size_t nframes)
{
	static const struct virtio_net_hdr zero;
	size_t n = nframes, i;

	(void)c;
	ck_assert_uint_le(nframes, TAP_SEND_MAX);
	for (i = 0; i < nframes; i++) {
		ck_assert_uint_eq(iov[i * 2].iov_len, sizeof(zero));
		ck_assert_uint_ge(iov[i * 2 + 1].iov_len, 8);
	}
	sink_calls++;

	if (sink_mode == 2)
		n = 0;
	if (sink_mode == 1) {
		switch (random() % 3) {
		case 0:
			n = 0;
			break;
		case 1:
			n = (size_t)random() % (nframes + 1);
			break;
		default:
			break;
		}
	}

	for (i = 0; i < n; i++) {
		const uint8_t *f = iov[i * 2 + 1].iov_base;
		uint32_t flow, seq;

		if (memcmp(iov[i * 2].iov_base, &zero, sizeof(zero)) != 0) {
			memcpy(&sink_vnet_last, iov[i * 2].iov_base,
			       sizeof(sink_vnet_last));
			sink_vnet_set++;
		}

		memcpy(&flow, f, sizeof(flow));
		memcpy(&seq, f + 4, sizeof(seq));
		if (!i) {
			sink_first_flow = flow;
			sink_first_buf = f;
		}
		if (flow >= T_FLOWS || seq != sink_next[flow]) {
			if (getenv("TQ_DEBUG"))
				fprintf(stderr, "flow %u seq %u expected %u\n",
					flow, seq, flow < T_FLOWS ?
					sink_next[flow] : 0);
			sink_errors++;
		}
		else
			sink_next[flow]++;
		if (flow == sink_watch)
			sink_watch_before = sink_bytes[10];
		if (flow < T_FLOWS)
			sink_bytes[flow] += iov[i * 2 + 1].iov_len;
	}

	if (n < nframes)
		sink_armed = true;
	return n;
}

/**
 * tap_notify() - double: the model backend needs no signal
 * @c:		execution context (unused)
 */
void tap_notify(const struct ctx *c)
{
	(void)c;
}

/**
 * tap_lends() - double: whether the model backend lends buffers
 * @c:		execution context (unused)
 *
 * Return: true if it does
 */
bool tap_lends(const struct ctx *c)
{
	(void)c;
	return sink_lends;
}

/**
 * tap_lend() - double: a backend that lends @frames buffers, if it lends
 * @c:		execution context (unused)
 * @l:		lent buffers, only counted here
 * @frames:	frames wanted
 * @room:	header bytes (unused)
 * @payload:	payload bytes (unused)
 *
 * Return: @frames if the model lends, 0 otherwise
 */
size_t tap_lend(const struct ctx *c, struct tap_lend *l, size_t frames,
		size_t room, size_t payload)
{
	(void)c;
	(void)room;
	(void)payload;
	size_t i;

	sink_lend_calls++;
	sink_calls_at_lend = sink_calls;
	l->frames = !sink_lends ? 0 : frames < TAP_LEND_FRAMES ? frames :
						  TAP_LEND_FRAMES;
	for (i = 0; i < l->frames; i++) {
		memset(sink_lend_hdr[i], 0xff, sizeof(sink_lend_hdr[i]));
		l->hdr[i] = sink_lend_hdr[i];
	}
	return l->frames;
}

/**
 * tap_lend_commit() - double: count a lent frame, check its order
 * @c:		execution context (unused)
 * @l:		lent buffers
 * @f:		frame
 * @len:	frame length
 * @vh:		offload description (unused)
 *
 * A model flow writes its index and sequence into the header, as for
 * queued frames; other callers leave it untouched (all ones).
 *
 * Return: true if @f was lent
 */
bool tap_lend_commit(const struct ctx *c, const struct tap_lend *l,
		     size_t f, size_t len, const struct virtio_net_hdr *vh)
{
	uint32_t flow, seq;

	(void)c;
	(void)vh;
	if (f >= l->frames)
		return false;
	sink_lent++;

	memcpy(&flow, l->hdr[f], sizeof(flow));
	memcpy(&seq, l->hdr[f] + 4, sizeof(seq));
	if (flow < T_FLOWS) {
		if (seq != sink_next[flow])
			sink_errors++;
		else
			sink_next[flow]++;
		sink_bytes[flow] += len;
	}
	return true;
}

/**
 * tap_lend_end() - double: forget lent buffers
 * @c:		execution context (unused)
 * @l:		lent buffers
 */
void tap_lend_end(const struct ctx *c, struct tap_lend *l)
{
	(void)c;
	l->frames = 0;
}

/**
 * model_pull_lent() - a model flow's turn in lent buffers, as TCP's
 * @c:		execution context
 * @flow:	flow index
 * @budget:	byte budget
 *
 * Return: QDISC_MORE while backlog remains, QDISC_DONE otherwise
 */
static enum qdisc_pull_result model_pull_lent(const struct ctx *c,
					      uint32_t flow, size_t budget)
{
	static struct tap_lend l;
	size_t n, f, used = 0;

	n = qdisc_lend(c, &l, 4, 8, T_FRAME_MAX);
	for (f = 0; f < n && flow_backlog[flow] && used < budget; f++) {
		size_t len = flow_size[flow] ? flow_size[flow] : T_FRAME_MAX;

		memcpy(l.hdr[f], &flow, sizeof(flow));
		memcpy(l.hdr[f] + 4, &flow_seq[flow], sizeof(uint32_t));
		if (!qdisc_lend_commit(c, &l, f, len, NULL))
			break;
		flow_seq[flow]++;
		flow_backlog[flow]--;
		used += len;
	}
	qdisc_lend_end(c, &l);

	return flow_backlog[flow] ? QDISC_MORE : QDISC_DONE;
}

/**
 * model_pull() - pull function of the model flows
 * @c:		execution context (unused)
 * @flow:	flow index
 * @budget:	byte budget
 * @now_ms:	unused
 *
 * Return: QDISC_MORE while backlog remains, QDISC_DONE otherwise
 */
static enum qdisc_pull_result model_pull(const struct ctx *c, uint32_t flow,
					 size_t budget, uint64_t now_ms)
{
	size_t used = 0;

	(void)c;
	(void)now_ms;

	if (sink_lends)
		return model_pull_lent(c, flow, budget);

	while (flow_backlog[flow] && qdisc_frames_avail()) {
		size_t len = flow_size[flow] ? flow_size[flow] :
			     T_FRAME_MIN + (size_t)random() %
					   (T_FRAME_MAX - T_FRAME_MIN);
		uint8_t *f = qdisc_frame_buf(0);

		if (used && used + len > budget)
			break;
		memcpy(f, &flow, sizeof(flow));
		memcpy(f + 4, &flow_seq[flow], sizeof(uint32_t));
		qdisc_frame_commit(len);
		flow_seq[flow]++;
		flow_backlog[flow]--;
		used += len;
		if (used >= budget)
			break;
	}

	return flow_backlog[flow] ? QDISC_MORE : QDISC_DONE;
}

/**
 * reset() - fresh model state
 */
static void reset(void)
{
	static bool inited;
	struct ctx c;
	uint32_t f;

	if (!inited) {
		ck_assert_int_eq(qdisc_init(T_FLOWS), 0);
		inited = true;
	}
	qdisc_register(FLOW_TYPE_TCP, model_pull);

	/* Tests share the module's state: let what a test left leave */
	memset(flow_backlog, 0, sizeof(flow_backlog));
	sink_mode = 0;
	while (qdisc_has_queued() || qdisc_has_ready(&c)) {
		sink_armed = false;	/* the wake-up fires */
		qdisc_run(&c, 0);
	}

	for (f = 0; f < T_FLOWS; f++)
		qdisc_forget(f);	/* counters start from zero */

	sink_mode = 0;
	sink_armed = false;
	sink_calls = 0;
	sink_errors = 0;
	sink_vnet_set = 0;
	sink_lends = false;
	sink_batch = TAP_BATCH_BYTES;
	sink_lend_calls = 0;
	sink_lent = 0;
	memset(&sink_vnet_last, 0, sizeof(sink_vnet_last));
	memset(sink_bytes, 0, sizeof(sink_bytes));
	memset(sink_next, 0, sizeof(sink_next));
	memset(flow_backlog, 0, sizeof(flow_backlog));
	memset(flow_seq, 0, sizeof(flow_seq));
	memset(flow_size, 0, sizeof(flow_size));
}

START_TEST(lone_frame_leaves_at_once)
{
	struct ctx c;
	uint8_t frame[64] = { 0 };

	reset();
	qdisc_send(&c, frame, sizeof(frame));
	qdisc_run(&c, 0);

	ck_assert_uint_eq(sink_calls, 1);
	ck_assert(!qdisc_has_queued());
	ck_assert_uint_eq(sink_next[0], 1);
}
END_TEST

START_TEST(random_pushback_exactly_once_in_order)
{
	unsigned int iter, f;
	uint32_t total[T_FLOWS];
	struct ctx c;

	reset();
	srandom(42);
	sink_mode = 1;

	for (iter = 0; iter < 20000; iter++) {
		/* New data for some flows, as socket events would bring */
		if (random() % 4 == 0) {
			f = (unsigned int)random() % T_FLOWS;
			flow_backlog[f] += 1 + (uint32_t)random() % 50;
			qdisc_wake(f);
		}

		/* An armed wake-up fires at some later iteration */
		if (sink_armed && random() % 2) {
			sink_armed = false;
			qdisc_flush(&c);
		}

		qdisc_run(&c, 0);

		/* Invariant 2: pending output has a wake-up, or the loop
		 * will not sleep: the relay's own check, then the model's
		 */
		ck_assert_msg(qdisc_wakeup_ok(&c),
			      "iteration %u: wake-up check fired", iter);
		if (qdisc_has_queued())
			ck_assert_msg(sink_armed, "frames queued, no wake-up");
		if (!sink_armed) {
			for (f = 0; f < T_FLOWS; f++) {
				if (flow_backlog[f])
					ck_assert(qdisc_has_ready(&c));
			}
		}
	}

	/* Drain: let every wake-up fire, accept everything */
	sink_mode = 0;
	for (iter = 0; iter < 100000 && (qdisc_has_queued() ||
					 qdisc_has_ready(&c)); iter++) {
		sink_armed = false;
		qdisc_flush(&c);
		qdisc_run(&c, 0);
	}

	ck_assert_uint_eq(sink_errors, 0);
	ck_assert_uint_eq(sink_vnet_set, 0);
	ck_assert(qdisc_wakeup_ok(&c));
	ck_assert_uint_gt(qdisc_stats()->backpressure, 0);
	for (f = 0; f < T_FLOWS; f++) {
		const struct qdisc_flow_stats *fs = qdisc_flow_stats(f);

		total[f] = flow_seq[f];
		ck_assert_uint_eq(flow_backlog[f], 0);
		ck_assert_uint_eq(sink_next[f], total[f]);
		ck_assert_uint_eq(fs->frames, total[f]);
		ck_assert_uint_eq(fs->bytes, sink_bytes[f]);
	}
}
END_TEST

START_TEST(backlogged_flows_share_equally)
{
	struct ctx c;
	double ratio;
	int i;

	reset();
	flow_backlog[3] = flow_backlog[7] = 100000000;
	flow_size[3] = 65000;	/* bulk, big frames */
	flow_size[7] = 1500;	/* small frames */
	qdisc_wake(3);
	qdisc_wake(7);

	for (i = 0; i < 20; i++)
		qdisc_run(&c, 0);

	ratio = (double)sink_bytes[3] / (double)sink_bytes[7];
	ck_assert_msg(ratio > 0.9 && ratio < 1.1,
		      "shares %llu vs %llu bytes",
		      (unsigned long long)sink_bytes[3],
		      (unsigned long long)sink_bytes[7]);
	ck_assert_uint_eq(sink_errors, 0);
}
END_TEST

START_TEST(backlogged_flows_share_equally_under_pushback)
{
	struct ctx c;
	double ratio;
	int i;

	reset();
	srandom(7);
	flow_backlog[1] = flow_backlog[2] = 100000000;
	flow_size[1] = 65000;
	flow_size[2] = 1500;
	qdisc_wake(1);
	qdisc_wake(2);
	sink_mode = 1;

	for (i = 0; i < 2000; i++) {
		if (sink_armed && random() % 2) {
			sink_armed = false;
			qdisc_flush(&c);
		}
		qdisc_run(&c, 0);
		ck_assert(qdisc_wakeup_ok(&c));
	}

	ratio = (double)sink_bytes[1] / (double)sink_bytes[2];
	ck_assert_msg(ratio > 0.9 && ratio < 1.1,
		      "shares %llu vs %llu bytes",
		      (unsigned long long)sink_bytes[1],
		      (unsigned long long)sink_bytes[2]);
	ck_assert_uint_eq(sink_errors, 0);
	ck_assert_uint_gt(qdisc_flow_stats(1)->backpressure +
			  qdisc_flow_stats(2)->backpressure, 0);

	/* Leave nothing backlogged for the next test */
	flow_backlog[1] = flow_backlog[2] = 0;
}
END_TEST

/**
 * model_backlog() - give a model flow frames to send, and wake it
 * @flow:	flow index
 * @frames:	frames it has
 * @size:	their length
 */
static void model_backlog(uint32_t flow, uint32_t frames, size_t size)
{
	flow_backlog[flow] = frames;
	flow_size[flow] = size;
	qdisc_wake(flow);
}

START_TEST(batching_backend_takes_a_run_in_one_call)
{
	struct ctx c;

	/* One frame a write (a tap): a flush after every turn */
	reset();
	model_backlog(4, 1000, 65000);
	qdisc_run(&c, 0);
	ck_assert_uint_ge(sink_calls, 2);
	ck_assert_uint_le(sink_bytes[4], QDISC_RUN_BYTES + QDISC_QUANTUM);

	/* A stream socket asks for 1 MiB batches: the run and the flow's
	 * turn grow to one batch, which leaves in one call
	 */
	reset();
	sink_batch = 1024 * 1024;
	model_backlog(4, 1000, 65000);
	qdisc_run(&c, 0);
	ck_assert_uint_eq(sink_calls, 1);
	ck_assert_uint_ge(sink_bytes[4], sink_batch);
	ck_assert_uint_lt(sink_bytes[4], 2 * sink_batch);
	ck_assert_uint_eq(sink_errors, 0);
	flow_backlog[4] = 0;
}
END_TEST

START_TEST(full_backend_holds_one_batch)
{
	unsigned int iter;
	struct ctx c;

	reset();
	model_backlog(5, 1000, 65000);

	/* The backend refuses everything: a batch (and what the turn that
	 * completed it made) waits for its wake-up, the rest stays with the
	 * flow, and the loop may sleep
	 */
	sink_mode = 2;
	for (iter = 0; iter < 50; iter++)
		qdisc_run(&c, 0);
	ck_assert(sink_armed);
	ck_assert_uint_le(QDISC_FRAMES - qdisc_frames_avail(),
			  (TAP_BATCH_BYTES + QDISC_QUANTUM) / 65000 + 1);
	ck_assert_uint_gt(flow_backlog[5], 900);
	ck_assert(!qdisc_has_ready(&c));
	ck_assert(qdisc_wakeup_ok(&c));

	/* The wake-up fires: the batch leaves, the flow goes on */
	sink_mode = 0;
	sink_armed = false;
	qdisc_flush(&c);
	ck_assert(!qdisc_has_queued());
	ck_assert(qdisc_has_ready(&c));
	qdisc_run(&c, 0);
	ck_assert_uint_gt(sink_next[5], TAP_BATCH_BYTES / 65000 + 1);
	ck_assert_uint_eq(sink_errors, 0);
	flow_backlog[5] = 0;
}
END_TEST

START_TEST(lone_data_frame_leaves_at_once)
{
	struct ctx c;

	reset();
	flow_backlog[6] = 1;
	flow_size[6] = 1500;
	qdisc_wake(6);
	qdisc_run(&c, 0);

	ck_assert_uint_eq(sink_calls, 1);
	ck_assert_uint_eq(sink_next[6], 1);
	ck_assert(!qdisc_has_queued());
	ck_assert(!qdisc_has_ready(&c));
	ck_assert(qdisc_wakeup_ok(&c));
	ck_assert_uint_eq(qdisc_flow_stats(6)->frames, 1);
	ck_assert_uint_eq(qdisc_flow_stats(6)->bytes, 1500);
}
END_TEST

START_TEST(emptied_queue_starts_over_at_first_buffer)
{
	const void *first = NULL;
	struct ctx c;
	int round;

	reset();
	for (round = 1; round <= 3; round++) {
		flow_backlog[6] = 3;
		flow_size[6] = 1500;
		qdisc_wake(6);
		qdisc_run(&c, 0);
		ck_assert(!qdisc_has_queued());
		/* Each turn's socket read landed in the same, warm buffer */
		if (!first)
			first = sink_first_buf;
		ck_assert_ptr_eq(sink_first_buf, first);
	}
	ck_assert_uint_eq(sink_next[6], 9);

	/* With frames left queued, new ones follow them */
	sink_mode = 2;
	flow_backlog[6] = 2;
	qdisc_wake(6);
	qdisc_run(&c, 0);
	ck_assert(qdisc_has_queued());
	sink_mode = 0;
	sink_armed = false;	/* the wake-up fires, before its flush */
	flow_backlog[6] = 1;
	qdisc_wake(6);
	qdisc_run(&c, 0);
	ck_assert(!qdisc_has_queued());
	ck_assert_uint_eq(sink_next[6], 12);
	ck_assert_uint_eq(sink_errors, 0);
}
END_TEST

START_TEST(buffer_taken_before_a_flush_stays_put)
{
	uint8_t ctrl[64] = { 0 };
	uint32_t flow = 7, seq = 1, i;
	struct ctx c;
	uint8_t *buf;

	reset();
	/* One frame queued, refused by the backend for now */
	sink_mode = 2;
	flow_backlog[7] = 1;
	flow_size[7] = 1500;
	qdisc_wake(7);
	qdisc_run(&c, 0);
	ck_assert(qdisc_has_queued());
	sink_mode = 0;

	/* A reader takes a free buffer and fills it... */
	buf = qdisc_frame_buf(0);
	memset(buf, 0, 1500);
	memcpy(buf, &flow, sizeof(flow));
	memcpy(buf + 4, &seq, sizeof(seq));

	/* ...control frames fill their ring and force a flush, which
	 * empties the data queue too...
	 */
	for (i = 0; i <= QDISC_CTRL_FRAMES; i++) {
		memcpy(ctrl + 4, &i, sizeof(i));
		qdisc_send(&c, ctrl, sizeof(ctrl));
	}

	/* ...and the buffer it holds is still the one it commits */
	ck_assert_ptr_eq(qdisc_frame_buf(0), buf);
	qdisc_frame_commit(1500);
	qdisc_flush(&c);
	ck_assert_uint_eq(sink_next[7], 2);
	ck_assert_uint_eq(sink_next[0], QDISC_CTRL_FRAMES + 1);
	ck_assert_uint_eq(sink_errors, 0);
}
END_TEST

START_TEST(interactive_frame_goes_first)
{
	uint64_t before;
	struct ctx c;

	reset();
	flow_backlog[10] = 100000000;
	flow_size[10] = 65000;
	qdisc_wake(10);
	qdisc_run(&c, 0);
	ck_assert(qdisc_has_ready(&c));	/* the bulk flow is not done */

	/* A frame of a flow that was idle leaves first in the next run,
	 * before any more of the bulk flow (the sink sees frames in order)
	 */
	flow_backlog[11] = 1;
	flow_size[11] = 100;
	qdisc_wake(11);
	before = sink_bytes[10];
	sink_watch = 11;
	qdisc_run(&c, 0);
	ck_assert_uint_eq(sink_next[11], 1);
	ck_assert_uint_eq(sink_watch_before - before, 0);
	sink_watch = UINT32_MAX;
	ck_assert_uint_eq(sink_errors, 0);
	flow_backlog[10] = 0;
}
END_TEST

START_TEST(wakeup_check_catches_a_lost_wakeup)
{
	struct ctx c;

	reset();
	flow_backlog[8] = 10;
	qdisc_wake(8);
	sink_mode = 2;
	qdisc_run(&c, 0);
	ck_assert(qdisc_has_queued());
	ck_assert(qdisc_wakeup_ok(&c));

	/* A backend that forgot to arm its wake-up: the check must say so */
	sink_armed = false;
	ck_assert(!qdisc_wakeup_ok(&c));
	sink_mode = 0;
}
END_TEST

START_TEST(control_frames_go_first)
{
	uint8_t ctrl[64];
	uint32_t flow = 9, seq = 0;
	struct ctx c;

	reset();
	flow_backlog[2] = 100;
	qdisc_wake(2);
	sink_mode = 2;
	qdisc_run(&c, 0);		/* the sink pushes back */
	ck_assert(qdisc_has_queued());

	/* A control frame queued behind data leaves before it */
	memcpy(ctrl, &flow, sizeof(flow));
	memcpy(ctrl + 4, &seq, sizeof(seq));
	qdisc_send(&c, ctrl, sizeof(ctrl));
	sink_mode = 0;
	sink_calls = 0;
	qdisc_flush(&c);
	ck_assert_uint_eq(sink_next[9], 1);
	ck_assert_uint_eq(sink_calls, 1);
	ck_assert_uint_eq(sink_errors, 0);
	ck_assert_uint_eq(sink_first_flow, 9);
}
END_TEST

START_TEST(lent_frames_never_overtake_queued_ones)
{
	static struct tap_lend l;
	uint8_t ctrl[64] = { 0 };
	uint32_t flow = 9;
	uint64_t bytes0;
	struct ctx c;

	reset();
	sink_lends = true;
	memcpy(ctrl, &flow, sizeof(flow));

	/* A backend that never lends: the queue is left alone */
	sink_lends = false;
	sink_mode = 2;
	qdisc_send(&c, ctrl, sizeof(ctrl));
	sink_calls = 0;
	ck_assert_uint_eq(qdisc_lend(&c, &l, 4, 54, 1000), 0);
	ck_assert_uint_eq(sink_calls, 0);
	sink_lends = true;

	/* Queued and refused: nothing may be lent */
	ck_assert_uint_eq(qdisc_lend(&c, &l, 4, 54, 1000), 0);
	ck_assert_uint_eq(sink_lend_calls, 0);
	ck_assert(qdisc_has_queued());

	/* Taken now: the queue is flushed before the buffers are lent */
	sink_mode = 0;
	sink_calls = 0;
	ck_assert_uint_eq(qdisc_lend(&c, &l, 4, 54, 1000), 4);
	ck_assert_uint_eq(sink_calls_at_lend, 1);
	ck_assert_uint_eq(sink_next[9], 1);
	ck_assert(!qdisc_has_queued());
	bytes0 = qdisc_stats()->bytes;

	/* Committed frames count as sent, the rest is released */
	ck_assert(qdisc_lend_commit(&c, &l, 0, 1054, NULL));
	ck_assert(qdisc_lend_commit(&c, &l, 1, 554, NULL));
	qdisc_lend_end(&c, &l);
	ck_assert_uint_eq(l.frames, 0);
	ck_assert_uint_eq(sink_lent, 2);
	ck_assert_uint_eq(qdisc_stats()->bytes - bytes0, 1054 + 554);
	ck_assert(qdisc_wakeup_ok(&c));
}
END_TEST

START_TEST(lending_flows_share_equally)
{
	uint64_t total;
	struct ctx c;
	int runs;

	reset();
	sink_lends = true;
	flow_backlog[1] = flow_backlog[2] = 1000;
	flow_size[1] = flow_size[2] = T_FRAME_MAX;
	qdisc_wake(1);
	qdisc_wake(2);

	/* Lent frames count against the run's budget and the deficits:
	 * both flows stay in the round, one run sends about its budget
	 */
	qdisc_run(&c, 0);
	total = sink_bytes[1] + sink_bytes[2];
	ck_assert(qdisc_has_ready(&c));
	ck_assert_uint_ge(total, QDISC_RUN_BYTES);
	ck_assert_uint_lt(total, QDISC_RUN_BYTES + 4 * T_FRAME_MAX);

	for (runs = 0; runs < 100 && qdisc_has_ready(&c); runs++) {
		qdisc_run(&c, 0);
		if (flow_backlog[1] && flow_backlog[2]) {
			int64_t d = (int64_t)sink_bytes[1] -
				    (int64_t)sink_bytes[2];

			ck_assert_int_le(d < 0 ? -d : d, QDISC_QUANTUM +
					 4 * T_FRAME_MAX);
		}
	}
	ck_assert_uint_eq(sink_next[1], 1000);
	ck_assert_uint_eq(sink_next[2], 1000);
	ck_assert_uint_eq(sink_errors, 0);
	ck_assert(qdisc_wakeup_ok(&c));
}
END_TEST

START_TEST(forgotten_flow_is_not_served)
{
	struct ctx c;

	reset();
	flow_backlog[5] = 10;
	qdisc_wake(5);
	qdisc_forget(5);
	qdisc_run(&c, 0);
	ck_assert_uint_eq(sink_next[5], 0);

	/* Woken again: served once, not twice */
	qdisc_wake(5);
	qdisc_wake(5);
	qdisc_run(&c, 0);
	ck_assert_uint_eq(sink_next[5], 10);
	ck_assert_uint_eq(sink_errors, 0);
}
END_TEST

START_TEST(offload_header_travels_with_frame)
{
	struct virtio_net_hdr vh;
	uint32_t flow = 4, seq;
	struct ctx c;
	uint8_t *f;

	reset();
	memset(&vh, 0, sizeof(vh));
	vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	vh.hdr_len = 54;
	vh.gso_size = 1448;
	vh.csum_start = 34;
	vh.csum_offset = 16;

	/* An offloaded frame between two plain ones, refused once */
	for (seq = 0; seq < 3; seq++) {
		f = qdisc_frame_buf(0);
		memcpy(f, &flow, sizeof(flow));
		memcpy(f + 4, &seq, sizeof(seq));
		if (seq == 1)
			qdisc_frame_commit_offload(9000, &vh);
		else
			qdisc_frame_commit(60);
	}
	sink_mode = 1;
	while (sink_next[4] < 3) {
		qdisc_flush(&c);
		ck_assert_uint_lt(sink_calls, 1000);
	}

	ck_assert_uint_eq(sink_errors, 0);
	ck_assert_uint_eq(sink_vnet_set, 1);
	ck_assert(memcmp(&sink_vnet_last, &vh, sizeof(vh)) == 0);
	ck_assert_uint_eq(sink_bytes[4], 60 + 9000 + 60);
	ck_assert(!qdisc_has_queued());
}
END_TEST

/**
 * main() - run the suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	Suite *s = suite_create("qdisc");
	TCase *tc = tcase_create("qdisc");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, lone_frame_leaves_at_once);
	tcase_add_test(tc, random_pushback_exactly_once_in_order);
	tcase_add_test(tc, backlogged_flows_share_equally);
	tcase_add_test(tc, backlogged_flows_share_equally_under_pushback);
	tcase_add_test(tc, lone_data_frame_leaves_at_once);
	tcase_add_test(tc, emptied_queue_starts_over_at_first_buffer);
	tcase_add_test(tc, buffer_taken_before_a_flush_stays_put);
	tcase_add_test(tc, interactive_frame_goes_first);
	tcase_add_test(tc, wakeup_check_catches_a_lost_wakeup);
	tcase_add_test(tc, control_frames_go_first);
	tcase_add_test(tc, lent_frames_never_overtake_queued_ones);
	tcase_add_test(tc, lending_flows_share_equally);
	tcase_add_test(tc, forgotten_flow_is_not_served);
	tcase_add_test(tc, offload_header_travels_with_frame);
	tcase_add_test(tc, batching_backend_takes_a_run_in_one_call);
	tcase_add_test(tc, full_backend_holds_one_batch);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
