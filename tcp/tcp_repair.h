/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_repair.h - a host TCP socket's kernel state, out of and into a socket
 *
 * Self-contained (system headers only): tests/probes/repair_move.c builds
 * with tcp_repair.c to move a live connection between sockets on the
 * running kernel. See tcp_repair.c for the theory of operation.
 */

#ifndef TCP_TCP_REPAIR_H
#define TCP_TCP_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* SO_BUF_LOCK (Linux 5.14) and its bits, for older headers */
#ifndef SO_BUF_LOCK
#define SO_BUF_LOCK		72
#endif
#ifndef SOCK_SNDBUF_LOCK
#define SOCK_SNDBUF_LOCK	1
#endif
#ifndef SOCK_RCVBUF_LOCK
#define SOCK_RCVBUF_LOCK	2
#endif

/* Largest queue, each way, of a socket that can move: the send queue is
 * read in one piece (the kernel copies it whole), so this also bounds the
 * buffer the source needs
 */
#define TCP_REPAIR_QUEUE_MAX	(64U << 20)

/* Restoring a queue: one write at most this long (an skb's worth of pages
 * per write for the receive queue; shorter writes after ENOBUFS, down to
 * TCP_REPAIR_CHUNK_MIN)
 */
#define TCP_REPAIR_CHUNK	(64U * 1024)
#define TCP_REPAIR_CHUNK_MIN	1024U

/* A restored socket's timestamp clock starts this far ahead of the old
 * one's when it was read: more than the state's journey usually takes
 */
#define TCP_REPAIR_TS_JUMP_MS	1000U

/* MSS values TCP_MAXSEG takes (the kernel's TCP_MIN_MSS, MAX_TCP_WINDOW) */
#define TCP_REPAIR_MSS_MIN	88U
#define TCP_REPAIR_MSS_MAX	32767U

/* tcp_repair_state.options: what the handshake agreed (TCPI_OPT_*) */
#define TCP_REPAIR_OPT_TS	1	/* TCPI_OPT_TIMESTAMPS */
#define TCP_REPAIR_OPT_SACK	2	/* TCPI_OPT_SACK */
#define TCP_REPAIR_OPT_WSCALE	4	/* TCPI_OPT_WSCALE */
#define TCP_REPAIR_OPTS		(TCP_REPAIR_OPT_TS | TCP_REPAIR_OPT_SACK | \
				 TCP_REPAIR_OPT_WSCALE)

/* Largest window scale shift (RFC 7323) */
#define TCP_REPAIR_WSCALE_MAX	14

/**
 * struct tcp_repair_state - what a connected TCP socket is, to the kernel
 * @state:	tcpi_state: TCP_ESTABLISHED, TCP_CLOSE_WAIT, TCP_FIN_WAIT1,
 *		TCP_FIN_WAIT2, TCP_LAST_ACK or TCP_CLOSING
 * @options:	TCP_REPAIR_OPT_*
 * @snd_wscale:	window scale of the peer (what we shift its windows by)
 * @rcv_wscale:	our window scale
 * @mss:	segment size clamp (TCP_MAXSEG)
 * @timestamp:	current RFC 7323 timestamp (TCP_TIMESTAMP), 0 without
 * @snd_wl1:	TCP_REPAIR_WINDOW: sequence of the last window update
 * @snd_wnd:	the peer's window
 * @max_window:	largest window the peer offered
 * @rcv_wnd:	our window, as last advertised
 * @rcv_wup:	rcv_nxt when it was advertised
 * @snd_seq:	sequence of the first byte of the send queue (oldest byte
 *		not acknowledged by the peer)
 * @rcv_seq:	sequence of the first byte of the receive queue (next byte
 *		the application reads)
 * @sndq:	bytes in the send queue, a FIN not counted
 * @notsent:	of those, bytes never transmitted
 * @rcvq:	bytes in the receive queue, a FIN not counted
 * @sndbuf:	send buffer size (SO_SNDBUF, as the kernel reports it)
 * @rcvbuf:	receive buffer size (SO_RCVBUF)
 * @wnd_clamp:	TCP_WINDOW_CLAMP
 */
struct tcp_repair_state {
	uint8_t state;
	uint8_t options;
	uint8_t snd_wscale;
	uint8_t rcv_wscale;
	uint32_t mss;
	uint32_t timestamp;
	uint32_t snd_wl1;
	uint32_t snd_wnd;
	uint32_t max_window;
	uint32_t rcv_wnd;
	uint32_t rcv_wup;
	uint32_t snd_seq;
	uint32_t rcv_seq;
	uint32_t sndq;
	uint32_t notsent;
	uint32_t rcvq;
	uint32_t sndbuf;
	uint32_t rcvbuf;
	uint32_t wnd_clamp;
};

int tcp_repair_freeze(int s);
int tcp_repair_thaw(int s);
int tcp_repair_absorb(const struct sockaddr *local, socklen_t len,
		      const struct sockaddr *peer);
int tcp_repair_queued(int s, uint32_t *sndq, uint32_t *rcvq);
int tcp_repair_dump(int s, struct tcp_repair_state *st, uint8_t *sbuf,
		    uint8_t *rbuf, uint32_t cap);
int tcp_repair_rcv_nxt(int s, uint32_t *seq);
int tcp_repair_peek(int s, bool send_queue, uint8_t *buf, uint32_t len);
bool tcp_repair_state_valid(const struct tcp_repair_state *st);
bool tcp_repair_fin_received(const struct tcp_repair_state *st);
bool tcp_repair_fin_sent(const struct tcp_repair_state *st);
int tcp_repair_seq(int s, const struct tcp_repair_state *st);
int tcp_repair_bufs(int s, const struct tcp_repair_state *st, bool rcv_auto);
int tcp_repair_fill(int s, bool send_queue, const uint8_t *data, size_t len,
		    size_t *done);
int tcp_repair_finish(int s, const struct tcp_repair_state *st);
int tcp_repair_sndbuf_auto(int s);
int tcp_repair_done(int s, const struct tcp_repair_state *st, bool snd_auto);

#endif /* TCP_TCP_REPAIR_H */
