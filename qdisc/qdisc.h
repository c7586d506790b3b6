/* SPDX-License-Identifier: GPL-2.0-or-later */
/* qdisc.h - frame scheduler and output queue toward the guest
 *
 * See qdisc/qdisc.c for the theory of operation.
 */
#ifndef QDISC_QDISC_H
#define QDISC_QDISC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

#include "../flow/flow.h"
#include "../conf/ctx.h"
#include "../tap/tap.h"

/* Room for Ethernet + IPv6 + TCP with options + the largest payload */
#define QDISC_FRAME_SIZE	(14 + 40 + 60 + MTU_MAX + 64)
#define QDISC_FRAMES		256
#define QDISC_CTRL_SIZE		2048
#define QDISC_CTRL_FRAMES	128
#define QDISC_QUANTUM		(256 * 1024)
#define QDISC_RUN_FRAMES	(QDISC_FRAMES * 4)
#define QDISC_RUN_BYTES		(256 * 1024)	/* see qdisc_run() */
/* Flows listed by qdisc_stats_log(), the ones with the most bytes */
#define QDISC_STATS_TOP		8

/**
 * enum qdisc_pull_result - what a flow says after its turn
 * @QDISC_DONE:		nothing more to send for now (it will call
 *			qdisc_wake() when that changes)
 * @QDISC_MORE:		still has data and room: keep it in the round
 */
enum qdisc_pull_result {
	QDISC_DONE,
	QDISC_MORE,
};

/**
 * typedef qdisc_pull_fn - emit up to @budget bytes of frames for a flow
 * @c:		execution context
 * @flow:	flow index
 * @budget:	byte quantum for this turn
 * @now_ms:	current time
 *
 * Return: enum qdisc_pull_result
 */
typedef enum qdisc_pull_result (*qdisc_pull_fn)(const struct ctx *c,
						uint32_t flow, size_t budget,
						uint64_t now_ms);

/**
 * struct qdisc_stats - output counters
 * @frames:		frames written to the backend
 * @bytes:		bytes written to the backend
 * @backpressure:	times the backend refused part of a batch
 * @drops:		control frames dropped because the queue was full
 * @flushes:		backend writes (batches)
 */
struct qdisc_stats {
	uint64_t frames;
	uint64_t bytes;
	uint64_t backpressure;
	uint64_t drops;
	uint64_t flushes;
};

/**
 * struct qdisc_flow_stats - output counters of one flow
 * @frames:		frames of the flow written to the backend
 * @bytes:		their bytes
 * @drops:		frames of the flow dropped because the queue was full
 * @backpressure:	times a frame of the flow was the first one the
 *			backend refused
 *
 * A frame belongs to the flow whose turn (pull function) queued it; frames
 * queued outside any turn (ACKs sent from socket handlers, ARP, DHCP) are
 * only in the global counters.
 */
struct qdisc_flow_stats {
	uint64_t frames;
	uint64_t bytes;
	uint32_t drops;
	uint32_t backpressure;
};

int qdisc_init(unsigned int flow_max);
void qdisc_register(enum flow_type type, qdisc_pull_fn fn);
size_t qdisc_frames_avail(void);
uint8_t *qdisc_frame_buf(size_t i);
void qdisc_frame_commit(size_t len);
void qdisc_frame_commit_offload(size_t len, const struct virtio_net_hdr *vh);
size_t qdisc_lend(const struct ctx *c, struct tap_lend *l, size_t frames,
		  size_t room, size_t payload);
bool qdisc_lend_commit(const struct ctx *c, const struct tap_lend *l,
		       size_t f, size_t len, const struct virtio_net_hdr *vh);
void qdisc_lend_end(const struct ctx *c, struct tap_lend *l);
void qdisc_send(const struct ctx *c, const void *frame, size_t len);
void qdisc_send_ordered(const struct ctx *c, const void *frame, size_t len);
void qdisc_wake(uint32_t flow);
void qdisc_forget(uint32_t flow);
void qdisc_run(const struct ctx *c, uint64_t now_ms);
void qdisc_flush(const struct ctx *c);
bool qdisc_has_ready(const struct ctx *c);
bool qdisc_has_queued(void);
const struct qdisc_stats *qdisc_stats(void);
const struct qdisc_flow_stats *qdisc_flow_stats(uint32_t flow);
bool qdisc_wakeup_ok(const struct ctx *c);
void qdisc_stats_log(void);

#endif /* QDISC_QDISC_H */
