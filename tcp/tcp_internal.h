/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tcp_internal.h - TCP connection state shared by the files of tcp/
 *
 * Private to tcp/: no other module includes this header. Besides the
 * state, it holds the transitions of a connection's flags (tcp_conn_*()
 * inlines named for events): the files of tcp/ change the flags through
 * them, or in the core, tcp_conn.c, only (doc/tcp.md, "File order").
 */
#ifndef TCP_TCP_INTERNAL_H
#define TCP_TCP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/tcp.h>

#include "../util/inany.h"
#include "../util/timer.h"

struct ctx;

#define TCP_HDR_LEN		20
#define TCP_OPT_MAX		40
#define TCP_WS_OURS		8	/* window scale we offer the guest */
#define TCP_WS_MAX		14
#define TCP_MSS_DEFAULT4	536
#define TCP_MSS_DEFAULT6	1220
#define TCP_WND_INIT		65535
#define TCP_RTO_INIT_MS		1000
#define TCP_RTO_MIN_MS		200
#define TCP_RTO_MAX_MS		60000
#define TCP_SYN_RETRIES		6
#define TCP_DATA_RETRIES	15
#define TCP_DUP_ACK_THRESHOLD	3
#define TCP_PERSIST_MS		500
#define TCP_CONNECT_TIMEOUT_MS	30000
#define TCP_FRAMES_PER_PULL	64
#define TCP_STATS_CONNS		8	/* connections in --stats, SIGUSR1 */
/* Guest data held after holes (tcp_ooo.c): connections at once, bytes of
 * sequence space each, and runs of held bytes each
 */
#define TCP_OOO_BUFS		16
#define TCP_OOO_BUF_SIZE	(4 * 1024 * 1024)
#define TCP_OOO_RANGES		32
#define TCP_LISTEN_BACKLOG	128
#define TCP_LISTEN_MAX		1024

/**
 * enum tcp_conn_state - where a connection is in its life
 * @CONN_CLOSED:		slot unused
 * @CONN_CONNECTING:	guest sent SYN, host socket connect() in progress
 * @CONN_SYN_ACK_SENT:	SYN-ACK sent to the guest, waiting for its ACK
 * @CONN_SYN_SENT:	host connection accepted, SYN sent to the guest
 * @CONN_ESTABLISHED:	data flows (FIN flags track each direction's end)
 */
enum tcp_conn_state {
	CONN_CLOSED = 0,
	CONN_CONNECTING,
	CONN_SYN_ACK_SENT,
	CONN_SYN_SENT,
	CONN_ESTABLISHED,
};

/* Flags of struct tcp_conn */
#define TCP_F_GUEST_FIN		(1U << 0)	/* FIN from guest seen */
#define TCP_F_SOCK_EOF		(1U << 1)	/* host peer closed its side */
#define TCP_F_FIN_SENT		(1U << 2)	/* our FIN sent to guest */
#define TCP_F_FIN_ACKED		(1U << 3)	/* guest acknowledged our FIN */
#define TCP_F_ACK_PENDING	(1U << 4)	/* send an ACK at batch end */
#define TCP_F_DIRTY		(1U << 5)	/* on the deferred list */
#define TCP_F_EPOLLOUT		(1U << 6)	/* EPOLLOUT in the epoll mask */
#define TCP_F_WND_CLOSED	(1U << 7)	/* window to guest was small */
#define TCP_F_RCVBUF_RAISED	(1U << 8)	/* tcp_rcvwnd.c grew SO_RCVBUF */
#define TCP_F_INBOUND		(1U << 9)	/* host side started it */
#define TCP_F_WND_UPDATE	(1U << 10)	/* ACK wanted for window only */
#define TCP_F_WQ_FIN		(1U << 11)	/* FIN queued after wq data */
#define TCP_F_RETX_ONE		(1U << 12)	/* resend one segment, resume */
#define TCP_F_RECOVERY		(1U << 13)	/* fast recovery until recover */
#define TCP_F_SACK		(1U << 14)	/* guest takes SACK blocks */
#define TCP_F_PEEK_OFF		(1U << 15)	/* SO_PEEK_OFF set on socket */
#define TCP_F_MIGRATED		(1U << 16)	/* source: saved, frozen */
#define TCP_F_RESTORING		(1U << 17)	/* target: loaded, not live */
#define TCP_F_PENDING		(1U << 18)	/* target: send queue bytes of
						 * the source still to write */
#define TCP_F_WND_HELD		(1U << 19)	/* window's end kept free: wait */
#define TCP_F_WQ_MORE		(1U << 20)	/* last queued segment: no PSH */
#define TCP_F_SOCK_DRAINED	(1U << 21)	/* last peek read all, no EPOLLIN
						 * since: nothing new queued */

/**
 * struct tcp_conn - one TCP connection: guest segments <-> host socket
 * @timer:		handshake, retransmission, persist and linger timer
 * @sock:		host socket, -1 if none
 * @flow:		index in the flow table (and in the tcp_conn array)
 * @state:		enum tcp_conn_state
 * @tail_held:		bytes at the end of the last turn's peek left in the
 *			socket for the next turn (tcp_pull_tail()), 0 if none
 * @host_seg:		payload of the host peer's segments, as the socket
 *			measured it (tcpi_rcv_mss), 0 until first needed
 * @flags:		TCP_F_*
 * @retries:		retransmissions of the current segment or handshake
 * @dup_acks:		duplicate ACKs counted since the last progress
 * @ws_from_guest:	guest's window scale (shift)
 * @ws_to_guest:	our window scale toward the guest (shift)
 * @mss:		payload size of segments to the guest
 * @v4:			IPv4 connection (else IPv6)
 * @guest_addr:		guest's address
 * @remote_addr:	remote address as the guest sees it
 * @guest_port:		guest's port
 * @remote_port:	remote port as the guest sees it
 * @seq_isn:		our initial sequence number toward the guest
 * @seq_to_guest:	next sequence number we send (snd_nxt)
 * @seq_acked:		oldest unacknowledged sequence (snd_una)
 * @seq_max_sent:	highest sequence sent, for RTT and recovery
 * @seq_resume:		where sending resumes after a fast retransmission
 * @seq_recover:	fast recovery ends when the guest acknowledges this
 * @wnd_from_guest:	guest's receive window, bytes
 * @wnd_max:		largest window the guest advertised, bytes
 * @seq_from_guest:	next sequence expected from the guest (rcv_nxt)
 * @seq_ack_sent:	last acknowledgement number sent to the guest
 * @wnd_to_guest:	last window advertised to the guest, bytes
 * @discard:		acknowledged bytes still to drop from the socket
 * @wq_segs:		guest segments queued for this batch's sendmsg()
 * @wq_bytes:		their payload bytes
 * @rto_ms:		current retransmission timeout
 * @srtt_ms:		smoothed round trip time, 1/8 ms units
 * @rttvar_ms:		round trip time variance, 1/4 ms units
 * @rtt_seq:		sequence being timed, valid if @rtt_ts
 * @rtt_ts:		when @rtt_seq was sent, 0 if none
 * @ho_seq:		sequence number in the half-open ring (tcp_limits.c),
 *			0 if not there
 * @guest_seen_ms:	when the last segment from the guest came
 * @ka_idle_s:		keepalive time set on the host socket, following the
 *			guest's keepalives (tcp_keepalive.c), 0 if none
 */
struct tcp_conn {
	struct wheel_timer timer;
	int sock;
	uint32_t flow;
	uint8_t state;
	uint16_t tail_held;
	uint16_t host_seg;
	uint32_t flags;
	uint8_t retries;
	uint8_t dup_acks;
	uint8_t ws_from_guest;
	uint8_t ws_to_guest;
	uint16_t mss;
	bool v4;

	union inany_addr guest_addr;
	union inany_addr remote_addr;
	uint16_t guest_port;
	uint16_t remote_port;

	uint32_t seq_isn;
	uint32_t seq_to_guest;
	uint32_t seq_acked;
	uint32_t seq_max_sent;
	uint32_t seq_resume;
	uint32_t seq_recover;
	uint32_t wnd_from_guest;
	uint32_t wnd_max;

	uint32_t seq_from_guest;
	uint32_t seq_ack_sent;
	uint32_t wnd_to_guest;

	uint32_t discard;
	uint32_t wq_segs;
	uint32_t wq_bytes;

	uint32_t rto_ms;
	uint32_t srtt_ms;
	uint32_t rttvar_ms;
	uint32_t rtt_seq;
	uint64_t rtt_ts;
	uint32_t ho_seq;
	uint64_t guest_seen_ms;
	uint16_t ka_idle_s;
};

/**
 * struct tcp_stats - TCP counters
 * @conns_out:		connections started by the guest
 * @conns_in:		connections started from the host side
 * @conns_refused:	guest connections refused (host connect failed,
 *			table full)
 * @retrans:		segments retransmitted to the guest
 * @fast_retrans:	fast retransmissions (duplicate ACKs)
 * @rto:		retransmission timeouts
 * @overrun:		guest bytes the host socket did not take
 * @wnd_updates:	window updates sent because socket space freed
 * @wnd_forced:		host window updates the kernel held back, released
 *			(tcp_rcvwnd.c)
 * @wnd_held:		host window updates held back, release failed
 * @rst_unknown:	RSTs sent for segments of unknown connections
 * @probes_acked:	guest window probes and keepalives answered
 * @ooo_held:		guest bytes held after a hole (tcp_ooo.c)
 * @tails_held:		short last segments of a turn left in the socket
 *			for the next one (tcp_pull_tail())
 * @evicted:		half-open guest connections reset to make room
 * @mig_out:		connections saved for a migration target, in all
 * @mig_in:		connections restored from a migration source
 * @mig_lost:		connections a migration could not move (reset)
 * @keepalives:		guest keepalives, mirrored onto the host socket
 *			(tcp_keepalive.c)
 */
struct tcp_stats {
	uint64_t conns_out;
	uint64_t conns_in;
	uint64_t conns_refused;
	uint64_t retrans;
	uint64_t fast_retrans;
	uint64_t rto;
	uint64_t overrun;
	uint64_t wnd_updates;
	uint64_t wnd_forced;
	uint64_t wnd_held;
	uint64_t rst_unknown;
	uint64_t probes_acked;
	uint64_t ooo_held;
	uint64_t tails_held;
	uint64_t evicted;
	uint64_t mig_out;
	uint64_t mig_in;
	uint64_t mig_lost;
	uint64_t keepalives;
};

/**
 * enum tcp_limit - resources whose exhaustion refuses connections
 * @TCP_LIMIT_FLOWS:	flow table entries (--max-flows)
 * @TCP_LIMIT_NOFILE:	file descriptors (RLIMIT_NOFILE)
 * @TCP_LIMIT_MAX:	number of causes
 */
enum tcp_limit {
	TCP_LIMIT_FLOWS,
	TCP_LIMIT_NOFILE,
	TCP_LIMIT_MAX,
};

extern struct tcp_stats tcp_stats;

/* Flag transitions: every change of a connection's TCP_F_* flags outside
 * tcp_conn.c (which allocates, closes, parks, lists and polls a
 * connection) is one of these, each named for the event it records
 */

/**
 * tcp_conn_ack_due() - an ACK is due to the guest at the end of the batch
 * @conn:	connection
 */
static inline void tcp_conn_ack_due(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_ACK_PENDING;
}

/**
 * tcp_conn_ack_clear() - the ACK due went out, rode on a segment, or is not
 *			needed
 * @conn:	connection
 */
static inline void tcp_conn_ack_clear(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_ACK_PENDING;
}

/**
 * tcp_conn_wnd_update_due() - the window to the guest may have grown: a window
 *			update is due at the end of the batch
 * @conn:	connection
 */
static inline void tcp_conn_wnd_update_due(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_ACK_PENDING | TCP_F_WND_UPDATE;
}

/**
 * tcp_conn_wnd_update_clear() - the batch's ACK, if any, was weighed as a
 *			window update
 * @conn:	connection
 */
static inline void tcp_conn_wnd_update_clear(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_WND_UPDATE;
}

/**
 * tcp_conn_rto_fired() - the retransmission timer fired: fast recovery and a
 *			single resend end, a rewind follows
 * @conn:	connection
 */
static inline void tcp_conn_rto_fired(struct tcp_conn *conn)
{
	conn->flags &= ~(TCP_F_RECOVERY | TCP_F_RETX_ONE);
}

/**
 * tcp_conn_recovery_start() - fast retransmission: resend one segment, then
 *			     resume; recovery lasts until seq_recover is acked
 * @conn:	connection
 */
static inline void tcp_conn_recovery_start(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_RETX_ONE | TCP_F_RECOVERY;
}

/**
 * tcp_conn_recovery_end() - fast recovery is over (all of it acknowledged, or
 *			a plain rewind instead)
 * @conn:	connection
 */
static inline void tcp_conn_recovery_end(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_RECOVERY;
}

/**
 * tcp_conn_retx_one_done() - the single segment of a fast retransmission went
 *			out
 * @conn:	connection
 */
static inline void tcp_conn_retx_one_done(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_RETX_ONE;
}

/**
 * tcp_conn_wnd_hold_start() - the end of the guest's window is kept free: wait
 *			for its update
 * @conn:	connection
 */
static inline void tcp_conn_wnd_hold_start(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_WND_HELD;
}

/**
 * tcp_conn_wnd_hold_end() - no longer waiting for a window update from the
 *			guest
 * @conn:	connection
 */
static inline void tcp_conn_wnd_hold_end(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_WND_HELD;
}

/**
 * tcp_conn_sock_eof() - the host peer closed its side (end of data)
 * @conn:	connection
 */
static inline void tcp_conn_sock_eof(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_SOCK_EOF;
}

/**
 * tcp_conn_sock_readable() - the socket may have new data: the last peek's end
 *			is not all
 * @conn:	connection
 */
static inline void tcp_conn_sock_readable(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_SOCK_DRAINED;
}

/**
 * tcp_conn_sock_drained() - a peek read all the socket had, and no EPOLLIN
 *			came since
 * @conn:	connection
 */
static inline void tcp_conn_sock_drained(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_SOCK_DRAINED;
}

/**
 * tcp_conn_fin_sent() - our FIN went to the guest, after the host peer's last
 *			byte
 * @conn:	connection
 */
static inline void tcp_conn_fin_sent(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_FIN_SENT | TCP_F_SOCK_EOF;
}

/**
 * tcp_conn_fin_unsent() - a rewind before our FIN was acknowledged: it goes
 *			again
 * @conn:	connection
 */
static inline void tcp_conn_fin_unsent(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_FIN_SENT;
}

/**
 * tcp_conn_fin_acked() - the guest acknowledged our FIN
 * @conn:	connection
 */
static inline void tcp_conn_fin_acked(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_FIN_ACKED;
}

/**
 * tcp_conn_guest_fin() - the guest's FIN was taken: the socket's writing side
 *			is shut
 * @conn:	connection
 */
static inline void tcp_conn_guest_fin(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_GUEST_FIN;
}

/**
 * tcp_conn_sack_on() - the guest's SYN offered SACK: it gets SACK blocks
 * @conn:	connection
 */
static inline void tcp_conn_sack_on(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_SACK;
}

/**
 * tcp_conn_wq_fin() - the guest's FIN waits for the data queued before it
 * @conn:	connection
 */
static inline void tcp_conn_wq_fin(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_WQ_FIN;
}

/**
 * tcp_conn_wq_reset() - the batch's write queue of the connection is empty
 *			again
 * @conn:	connection
 */
static inline void tcp_conn_wq_reset(struct tcp_conn *conn)
{
	conn->flags &= ~(TCP_F_WQ_FIN | TCP_F_WQ_MORE);
}

/**
 * tcp_conn_wq_more() - the last segment queued has no PSH, or has one
 * @conn:	connection
 * @more:		the guest has more right behind it (no PSH)
 */
static inline void tcp_conn_wq_more(struct tcp_conn *conn, bool more)
{
	if (more)
		conn->flags |= TCP_F_WQ_MORE;
	else
		conn->flags &= ~TCP_F_WQ_MORE;
}

/**
 * tcp_conn_peek_off() - SO_PEEK_OFF was set on the socket, or taken back
 * @conn:	connection
 * @on:		set
 */
static inline void tcp_conn_peek_off(struct tcp_conn *conn, bool on)
{
	if (on)
		conn->flags |= TCP_F_PEEK_OFF;
	else
		conn->flags &= ~TCP_F_PEEK_OFF;
}

/**
 * tcp_conn_wnd_closed() - the window offered to the guest was small, or is not
 * @conn:	connection
 * @closed:	window below the low mark
 */
static inline void tcp_conn_wnd_closed(struct tcp_conn *conn, bool closed)
{
	if (closed)
		conn->flags |= TCP_F_WND_CLOSED;
	else
		conn->flags &= ~TCP_F_WND_CLOSED;
}

/**
 * tcp_conn_rcvbuf_raised() - tcp_rcvwnd.c grew SO_RCVBUF above the user's
 *			size, or put it back
 * @conn:	connection
 * @raised:	grown
 */
static inline void tcp_conn_rcvbuf_raised(struct tcp_conn *conn, bool raised)
{
	if (raised)
		conn->flags |= TCP_F_RCVBUF_RAISED;
	else
		conn->flags &= ~TCP_F_RCVBUF_RAISED;
}

/**
 * tcp_conn_mig_saved() - source: saved for a migration target, frozen and
 *			parked
 * @conn:	connection
 */
static inline void tcp_conn_mig_saved(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_MIGRATED;
}

/**
 * tcp_conn_mig_resumed() - source: the migration failed, the connection runs
 *			here again
 * @conn:	connection
 */
static inline void tcp_conn_mig_resumed(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_MIGRATED;
}

/**
 * tcp_conn_mig_restoring() - target: loaded from a migration source, not live
 *			yet
 * @conn:	connection
 */
static inline void tcp_conn_mig_restoring(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_RESTORING;
}

/**
 * tcp_conn_mig_live() - target: the guest runs here, the connection goes live
 * @conn:	connection
 */
static inline void tcp_conn_mig_live(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_RESTORING;
}

/**
 * tcp_conn_mig_pending() - target: send queue bytes of the source are still to
 *			write
 * @conn:	connection
 */
static inline void tcp_conn_mig_pending(struct tcp_conn *conn)
{
	conn->flags |= TCP_F_PENDING;
}

/**
 * tcp_conn_mig_pending_done() - target: the source's send queue bytes are
 *			written, or dropped
 * @conn:	connection
 */
static inline void tcp_conn_mig_pending_done(struct tcp_conn *conn)
{
	conn->flags &= ~TCP_F_PENDING;
}

/**
 * tcp_conn_mig_flags() - target: the flags a migration record carried
 * @conn:	connection
 * @flags:	TCP_F_* of the record (tcp_mig_rec.c)
 */
static inline void tcp_conn_mig_flags(struct tcp_conn *conn, uint32_t flags)
{
	conn->flags |= flags;
}

/* tcp_conn.c */

/**
 * struct tcp_conn_hooks - what files above the core do on its events,
 *			   registered at start-up (tcp_conn_register())
 * @timer:		a connection's timer expired (tcp.c)
 * @sock_new:		a host socket got the core's options (tcp_sock_opts()):
 *			its send buffer is capped while a migration is under
 *			way (tcp_mig_sndbuf.c, registered by tcp_migrate.c)
 * @queue_drop:		a connection closes or is parked: the guest data
 *			queued for its socket goes (tcp_guest.c)
 * @pending_drop:	a connection with TCP_F_PENDING closes: the bytes of
 *			a migration source still to write go (tcp_migrate.c)
 */
struct tcp_conn_hooks {
	timer_fn timer;
	void (*sock_new)(int s);
	void (*queue_drop)(struct tcp_conn *conn);
	void (*pending_drop)(struct tcp_conn *conn);
};

int tcp_conn_init(const struct ctx *c);
void tcp_conn_register(const struct tcp_conn_hooks *h);
struct tcp_conn *tcp_conn_at(uint32_t flow);
unsigned int tcp_conns_capacity(void);
unsigned int tcp_conns_active(void);
struct tcp_conn *tcp_conn_new(const struct ctx *c, int sock, bool inbound);
void tcp_conn_close(const struct ctx *c, struct tcp_conn *conn, bool rst);
void tcp_conn_park(const struct ctx *c, struct tcp_conn *conn);
void tcp_conn_dirty(struct tcp_conn *conn);
void tcp_conn_dirty_run(const struct ctx *c, uint64_t now_ms,
			void (*fn)(const struct ctx *c, struct tcp_conn *conn,
				   uint64_t now_ms));
void tcp_conn_state(struct tcp_conn *conn, enum tcp_conn_state state);
int tcp_epoll_add(const struct ctx *c, struct tcp_conn *conn, bool out);
int tcp_epoll_set(const struct ctx *c, struct tcp_conn *conn, bool out);
void tcp_timer_arm(struct tcp_conn *conn, uint64_t now_ms, uint32_t ms);
void tcp_sock_opts(const struct ctx *c, int s);

/* tcp_emit.c */
void tcp_emit_init(void);
void tcp_send_ctrl(const struct ctx *c, struct tcp_conn *conn, uint8_t flags);
void tcp_send_syn(const struct ctx *c, struct tcp_conn *conn, bool ack);
void tcp_send_rst_unknown(const struct ctx *c, const union inany_addr *saddr,
			  const union inany_addr *daddr,
			  const struct tcphdr *th, size_t plen);
enum qdisc_pull_result tcp_pull(const struct ctx *c, uint32_t flow,
				size_t budget, uint64_t now_ms);
void tcp_rewind(struct tcp_conn *conn);
void tcp_retransmit_first(struct tcp_conn *conn);

/* tcp_ooo.c */

/* SACK blocks in one segment: 4 fit in the 40 bytes of options */
#define TCP_SACK_BLOCKS_MAX	4

/**
 * struct tcp_sack_block - a run of sequence space, as in a SACK block
 * @start:	sequence number of its first byte
 * @end:	sequence number just past its last byte
 */
struct tcp_sack_block {
	uint32_t start;
	uint32_t end;
};

struct iovec;
int tcp_ooo_init(void);
void tcp_ooo_hold(const struct tcp_conn *conn, uint32_t seq,
		  const uint8_t *payload, size_t len);
size_t tcp_ooo_take(const struct tcp_conn *conn, uint32_t next,
		    struct iovec iov[2], unsigned int *niov);
bool tcp_ooo_holds(const struct tcp_conn *conn);
unsigned int tcp_ooo_sack(const struct tcp_conn *conn,
			  struct tcp_sack_block *blocks, unsigned int max);
void tcp_ooo_flushed(const struct tcp_conn *conn);
void tcp_ooo_release(const struct tcp_conn *conn);
void tcp_ooo_describe(const struct tcp_conn *conn, char *buf, size_t size);

/* tcp_window.c */
int tcp_window_init(void);
uint32_t tcp_wnd_for_guest(const struct ctx *c, struct tcp_conn *conn);
uint32_t tcp_wnd_query(const struct ctx *c, struct tcp_conn *conn,
		       uint32_t *rmem);
int tcp_discard_acked(const struct ctx *c, struct tcp_conn *conn);
bool tcp_peek_off_supported(void);
int tcp_peek_off_reset(const struct tcp_conn *conn);
int tcp_peek_off_enable(struct tcp_conn *conn);
void tcp_rtt_sample(struct tcp_conn *conn, uint64_t now_ms);

/* tcp_guest.c */
void tcp_guest_init(uint64_t now_ms);
void tcp_connect_done(const struct ctx *c, struct tcp_conn *conn, int error,
		      uint64_t now_ms);
uint32_t tcp_isn(const struct tcp_conn *conn, uint64_t now_ms);
void tcp_wq_purge(struct tcp_conn *conn);
void tcp_guest_held_push(const struct ctx *c, struct tcp_conn *conn);

/* tcp_migrate.c */
int tcp_migrate_init(const struct ctx *c);
bool tcp_mig_pending_push(const struct ctx *c, struct tcp_conn *conn);
void tcp_mig_pending_drop(struct tcp_conn *conn);
unsigned int tcp_mig_idle(void);

/* tcp_mig_sndbuf.c */
void tcp_mig_sndbuf_sock(int s);
void tcp_mig_sndbuf_set(const struct ctx *c, bool on);

/* tcp_keepalive.c */
void tcp_keepalive_init(void);
bool tcp_keepalive_is(const struct tcp_conn *conn, uint32_t skip,
		      size_t plen);
void tcp_keepalive_mirror(struct tcp_conn *conn, uint64_t now_ms);

/* tcp_limits.c */
int tcp_limits_init(const struct ctx *c);
void tcp_halfopen_add(struct tcp_conn *conn);
bool tcp_halfopen_evict(const struct ctx *c);
bool tcp_make_room(const struct ctx *c, uint64_t now_ms);
void tcp_limit_warn(const struct ctx *c, enum tcp_limit why, uint64_t now_ms);
bool tcp_accept_refuse(int lfd);
void tcp_sock_reset(int s);

#endif /* TCP_TCP_INTERNAL_H */
