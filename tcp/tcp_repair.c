// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_repair.c - a host TCP socket's kernel state, out of and into a socket
 *
 * Theory of operation
 *
 * Linux can take a connected TCP socket apart and put one together again
 * without a packet on the wire: in repair mode (TCP_REPAIR, which needs
 * CAP_NET_ADMIN and is set by the passt-repair helper, migrate/repair.c),
 * the sequence numbers of both queues can be read and written
 * (TCP_QUEUE_SEQ, after TCP_REPAIR_QUEUE selects a queue), the queues can
 * be peeked and filled, connect() sets a connection up without a
 * handshake, and TCP_REPAIR_OPTIONS and TCP_REPAIR_WINDOW set what the
 * handshake and the peer's segments had set. Repair mode sends nothing:
 * data written to the send queue counts as sent, and leaving repair mode
 * (TCP_REPAIR_OFF) sends one window probe, whose answer tells the peer our
 * window and us its own.
 *
 * Moving a connection, on the source:
 * - tcp_repair_freeze() first: a socket filter that drops every segment
 *   for the socket. A socket in repair mode still takes and acknowledges
 *   data from the peer (checked by tests/probes/repair_move.c): data that
 *   came after its queue was read would be acknowledged here and never
 *   reach the new socket. Dropped instead, it is sent again by the peer,
 *   to wherever the connection lives by then. The same filter keeps the
 *   send queue as it was read: the peer's acknowledgements are dropped
 *   too, and the new socket gets them again. Where the kernel refuses
 *   socket filters to unprivileged processes (EPERM), a TCP-MD5 key
 *   (RFC 2385) for the peer's address does the same: the kernel drops
 *   every segment without a signature, and the peer every segment with
 *   one it does not expect, both silently. Shutting the receive window in
 *   repair mode (TCP_REPAIR_WINDOW) is no freeze: the kernel's fast path
 *   takes a segment at the expected sequence without looking at the
 *   window, and the acknowledgement it sends opens it again.
 * - repair mode on (the caller, through the helper), then
 *   tcp_repair_dump(): the state (struct tcp_repair_state) and a copy of
 *   both queues. The kernel copies its send queue in one piece, so the
 *   caller's buffer must hold it all (tcp_repair_queued() says how big).
 *   The socket stays frozen and in repair mode: it takes nothing, and
 *   its peer takes nothing from it (with the key) or it sends nothing
 *   (with the filter), so its peer never sees a reset from it, even when
 *   it is closed later (close() in repair mode is silent).
 *
 * On the target, in this order (each step needs the one before):
 * socket, repair mode on (helper), bind() to the same local address and
 * port (repair mode lets it share a port with a listening socket), then
 * tcp_repair_seq() (timestamp offset, both queues' sequences), connect()
 * (no handshake), tcp_repair_bufs() (buffers big enough for the queues and
 * the window advertised), tcp_repair_fill() for the receive queue and the
 * part of the send queue the peer may have seen, tcp_repair_finish()
 * (options, a FIN the peer acknowledged, windows), repair mode off
 * (helper), and tcp_repair_done(): buffers go back to automatic sizing.
 * The bytes never sent go out as normal writes, and so does whatever part
 * of the send queue the socket could not take in repair mode: the kernel
 * caps SO_SNDBUF at net.core.wmem_max, so an unprivileged process can't
 * give a new socket the buffer an automatically sized one had grown to.
 * The caller keeps what doesn't fit yet (tcp_migrate.c). That works for
 * bytes never sent, not for bytes the old socket had sent: the peer may
 * have them all, and the kernel drops an acknowledgement of more than the
 * new socket has sent, with the data it carries (the connection would
 * hang), so those must all fit. A FIN not acknowledged yet follows the
 * data.
 *
 * FINs take one sequence number each. A FIN from the peer is not part of
 * the receive queue: the new socket's receive sequence ends before it, and
 * the relay, which knows the peer closed, ends the guest's side itself
 * (tcp_pull_data()). Our own FIN is recorded as the state, its sequence
 * number just after the send queue, and queued again on the target.
 *
 * This file uses nothing but the kernel.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/filter.h>
#include <linux/sockios.h>

#include "tcp_repair.h"
#include "../util/syscalls.h"

/* System calls after start-up: sockets in repair mode, their queues and
 * options, the listening sockets of tcp_repair_absorb(); migration only,
 * so --vhost-user only
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_SOCKET("absorbing listener, IPv4", AF_INET, SOCK_STREAM,
			 IPPROTO_TCP),
	 SYSCALLS_SOCKET("absorbing listener, IPv6", AF_INET6, SOCK_STREAM,
			 IPPROTO_TCP),
	 SYSCALLS_CALL("bind", "the absorbing listener's address"),
	 SYSCALLS_CALL("listen", "the absorbing listener"),
	 SYSCALLS_SETSOCKOPT("SO_ATTACH_FILTER, SO_RCVBUF, SO_BUF_LOCK...",
			     SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT_TCP("TCP_REPAIR_QUEUE, TCP_QUEUE_SEQ, ..."),
	 SYSCALLS_CALL("getsockopt", "TCP_INFO, TCP_REPAIR_WINDOW, ..."),
	 SYSCALLS_CALL("getpeername", "the peer, for TCP_MD5SIG"),
	 SYSCALLS_CALL_IF("ioctl", "bytes in the send queue (SIOCOUTQ)",
			  SYSCALLS_ARG_EQ(1, SIOCOUTQ)),
	 SYSCALLS_CALL_IF("ioctl", "bytes in the receive queue (SIOCINQ)",
			  SYSCALLS_ARG_EQ(1, SIOCINQ)),
	 SYSCALLS_CALL_IF("ioctl", "bytes not sent yet (SIOCOUTQNSD)",
			  SYSCALLS_ARG_EQ(1, SIOCOUTQNSD)),
	 SYSCALLS_CALL("recvfrom", "a queue's contents (recv(), MSG_PEEK)"),
	 SYSCALLS_CALL("sendto", "a queue, restored (send())"),
	 SYSCALLS_CALL("shutdown", "a FIN the source had seen"),
	 SYSCALLS_CALL("close", "the absorbing listener"));

#define SEQ_AFTER(a, b)		((int32_t)((a) - (b)) > 0)

/* Key of the TCP-MD5 signature freezing a socket: the peer has none */
static const char tcp_repair_md5_key[] = "relay: frozen for migration";

/**
 * tcp_repair_md5() - add or remove a TCP-MD5 key for a socket's peer
 * @s:		connected TCP socket
 * @add:	add the key, else remove it
 *
 * Return: 0 on success, -errno on failure (-ENOENT: no key to remove)
 */
static int tcp_repair_md5(int s, bool add)
{
	struct tcp_md5sig md5;
	socklen_t sl = sizeof(md5.tcpm_addr);

	memset(&md5, 0, sizeof(md5));
	if (getpeername(s, (struct sockaddr *)&md5.tcpm_addr, &sl))
		return -errno;
	if (add) {
		md5.tcpm_keylen = sizeof(tcp_repair_md5_key) - 1;
		memcpy(md5.tcpm_key, tcp_repair_md5_key, md5.tcpm_keylen);
	}
	if (setsockopt(s, IPPROTO_TCP, TCP_MD5SIG, &md5, sizeof(md5)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_freeze() - drop every segment that arrives for a socket, and
 *			 have its peer drop every one it sends
 * @s:		TCP socket
 *
 * A socket filter if the kernel lets us, else a TCP-MD5 key for the
 * peer's address (the socket must be connected then).
 *
 * Return: 0 on success, -EPERM if no filter and not connected, other
 *	   -errno on failure
 */
int tcp_repair_freeze(int s)
{
	struct sock_filter drop[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_fprog prog = { .len = 1, .filter = drop };
	int rc;

	if (!setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		return 0;
	if (errno != EPERM)
		return -errno;
	rc = tcp_repair_md5(s, true);
	return rc == -ENOTCONN ? -EPERM : rc;
}

/**
 * tcp_repair_thaw() - take the filter or the key of tcp_repair_freeze() away
 * @s:		socket
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_thaw(int s)
{
	int zero = 0, rc;

	/* ENOENT: not frozen that way, nothing to take away */
	if (setsockopt(s, SOL_SOCKET, SO_DETACH_FILTER, &zero, sizeof(zero)) &&
	    errno != ENOENT)
		return -errno;
	rc = tcp_repair_md5(s, false);
	if (rc && rc != -ENOENT && rc != -ENOTCONN)
		return rc;
	return 0;
}

/**
 * tcp_repair_absorb() - a listening socket that silently drops every
 *			 segment to a local address and port
 * @local:	local address and port of a connection whose socket is gone
 * @len:	length of @local
 * @peer:	the connection's peer, keyed if no key for every address
 *
 * A socket closed in repair mode sends nothing, but its peer may still
 * send: a segment in flight, a retransmission, a probe. With no socket
 * there, the kernel answers with a reset, and the peer drops the
 * connection, which lives on elsewhere (a target on the same host, about
 * to take the addresses: the kernel won't let it while the old socket is
 * there). A segment for a local address and port with no connection goes
 * to a listening socket there, if any; one with a TCP-MD5 key for the
 * sender's address drops every unsigned segment, SYNs included, silently
 * (a key for every address where the kernel has TCP_MD5SIG_EXT). The
 * connection's own socket, once there, takes its segments first: the
 * kernel looks for a connection before a listener.
 *
 * Return: the socket, or -errno (then segments get resets)
 */
int tcp_repair_absorb(const struct sockaddr *local, socklen_t len,
		      const struct sockaddr *peer)
{
	struct tcp_md5sig md5;
	int s, one = 1, rc;

	s = socket(local->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   IPPROTO_TCP);
	if (s < 0)
		return -errno;

	memset(&md5, 0, sizeof(md5));
	md5.tcpm_keylen = sizeof(tcp_repair_md5_key) - 1;
	memcpy(md5.tcpm_key, tcp_repair_md5_key, md5.tcpm_keylen);
	md5.tcpm_addr.ss_family = local->sa_family;
	md5.tcpm_flags = TCP_MD5SIG_FLAG_PREFIX;	/* /0: any address */
	if (setsockopt(s, IPPROTO_TCP, TCP_MD5SIG_EXT, &md5, sizeof(md5))) {
		memset(&md5.tcpm_addr, 0, sizeof(md5.tcpm_addr));
		memcpy(&md5.tcpm_addr, peer, len);
		md5.tcpm_flags = 0;
		if (setsockopt(s, IPPROTO_TCP, TCP_MD5SIG, &md5, sizeof(md5)))
			goto fail;
	}
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s, local, len) || listen(s, 1))
		goto fail;
	return s;

fail:
	rc = -errno;
	close(s);
	return rc;
}

/**
 * tcp_repair_sockopt() - getsockopt() of a 32-bit value
 * @s:		socket
 * @level:	SOL_SOCKET or IPPROTO_TCP
 * @name:	option
 * @v:		value, set
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_repair_sockopt(int s, int level, int name, uint32_t *v)
{
	socklen_t sl = sizeof(*v);

	if (getsockopt(s, level, name, v, &sl))
		return -errno;
	return 0;
}

/**
 * tcp_repair_queue() - select the queue TCP_QUEUE_SEQ and data calls act on
 * @s:		socket in repair mode
 * @send_queue:	the send queue, else the receive queue
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_repair_queue(int s, bool send_queue)
{
	int q = send_queue ? TCP_SEND_QUEUE : TCP_RECV_QUEUE;

	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_fin_received() - did the peer close its side?
 * @st:		state
 *
 * Return: true if a FIN came from the peer
 */
bool tcp_repair_fin_received(const struct tcp_repair_state *st)
{
	return st->state == TCP_CLOSE_WAIT || st->state == TCP_LAST_ACK ||
	       st->state == TCP_CLOSING;
}

/**
 * tcp_repair_fin_sent() - did we close our side?
 * @st:		state
 *
 * Return: true if our FIN is queued (or sent, or acknowledged)
 */
bool tcp_repair_fin_sent(const struct tcp_repair_state *st)
{
	return st->state == TCP_FIN_WAIT1 || st->state == TCP_FIN_WAIT2 ||
	       st->state == TCP_LAST_ACK || st->state == TCP_CLOSING;
}

/**
 * tcp_repair_state_valid() - can a socket be made from this state?
 * @st:		state, from tcp_repair_dump() or from a migration stream
 *
 * Return: true if it is a state a connection can move in, with queues and
 *	   options in range
 */
bool tcp_repair_state_valid(const struct tcp_repair_state *st)
{
	uint32_t rcv_nxt = st->rcv_seq + st->rcvq;

	if (st->state != TCP_ESTABLISHED && !tcp_repair_fin_received(st) &&
	    !tcp_repair_fin_sent(st))
		return false;
	if (st->options & ~TCP_REPAIR_OPTS)
		return false;
	if ((st->options & TCP_REPAIR_OPT_WSCALE) &&
	    (st->snd_wscale > TCP_REPAIR_WSCALE_MAX ||
	     st->rcv_wscale > TCP_REPAIR_WSCALE_MAX))
		return false;
	if (!(st->options & TCP_REPAIR_OPT_WSCALE) &&
	    (st->snd_wscale || st->rcv_wscale))
		return false;
	if (!(st->options & TCP_REPAIR_OPT_TS) && st->timestamp)
		return false;
	if (st->mss < 64 || st->mss > 65535)
		return false;
	if (st->sndq > TCP_REPAIR_QUEUE_MAX ||
	    st->rcvq > TCP_REPAIR_QUEUE_MAX ||
	    st->notsent > st->sndq)
		return false;
	if (st->state == TCP_FIN_WAIT2 && st->sndq)
		return false;	/* our FIN acknowledged: so is all data */
	if (st->max_window < st->snd_wnd)
		return false;
	/* The kernel's own checks of TCP_REPAIR_WINDOW */
	if (SEQ_AFTER(st->rcv_wup, rcv_nxt) ||
	    SEQ_AFTER(st->snd_wl1, rcv_nxt + st->rcv_wnd))
		return false;
	return true;
}

/**
 * tcp_repair_queued() - bytes in the queues of a socket, at most
 * @s:		connected TCP socket
 * @sndq:	send queue, set
 * @rcvq:	receive queue, set
 *
 * Either may count a FIN as a byte: this is what a buffer for the queues
 * of tcp_repair_dump() must hold.
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_queued(int s, uint32_t *sndq, uint32_t *rcvq)
{
	int out, in;

	if (ioctl(s, SIOCOUTQ, &out) || ioctl(s, SIOCINQ, &in))
		return -errno;
	*sndq = (uint32_t)(out < 0 ? 0 : out);
	*rcvq = (uint32_t)(in < 0 ? 0 : in) + 1;
	return 0;
}

/**
 * tcp_repair_info() - state, options, segment size, timestamp, buffers
 * @s:		socket in repair mode
 * @st:		filled
 *
 * Return: 0 on success, -errno on failure
 */
static int tcp_repair_info(int s, struct tcp_repair_state *st)
{
	struct tcp_info ti;
	socklen_t sl = sizeof(ti);
	int rc;

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(s, IPPROTO_TCP, TCP_INFO, &ti, &sl))
		return -errno;
	st->state = ti.tcpi_state;
	st->options = ti.tcpi_options & TCP_REPAIR_OPTS;
	if (st->options & TCP_REPAIR_OPT_WSCALE) {
		st->snd_wscale = ti.tcpi_snd_wscale;
		st->rcv_wscale = ti.tcpi_rcv_wscale;
	}

	if ((rc = tcp_repair_sockopt(s, IPPROTO_TCP, TCP_MAXSEG, &st->mss)) ||
	    (rc = tcp_repair_sockopt(s, SOL_SOCKET, SO_SNDBUF, &st->sndbuf)) ||
	    (rc = tcp_repair_sockopt(s, SOL_SOCKET, SO_RCVBUF, &st->rcvbuf)) ||
	    (rc = tcp_repair_sockopt(s, IPPROTO_TCP, TCP_WINDOW_CLAMP,
				     &st->wnd_clamp)))
		return rc;
	if (st->options & TCP_REPAIR_OPT_TS)
		return tcp_repair_sockopt(s, IPPROTO_TCP, TCP_TIMESTAMP,
					  &st->timestamp);
	return 0;
}

/**
 * tcp_repair_rcv_nxt() - next sequence a socket in repair mode expects
 * @s:		socket
 * @seq:	set
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_rcv_nxt(int s, uint32_t *seq)
{
	int rc;

	if ((rc = tcp_repair_queue(s, false)))
		return rc;
	return tcp_repair_sockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, seq);
}

/**
 * tcp_repair_peek() - copy a queue of a socket in repair mode
 * @s:		socket
 * @send_queue:	the send queue, else the receive queue
 * @buf:	destination
 * @len:	its size: the whole send queue must fit
 *
 * Return: bytes copied, -errno on failure
 */
int tcp_repair_peek(int s, bool send_queue, uint8_t *buf, uint32_t len)
{
	ssize_t n;
	int rc;

	if ((rc = tcp_repair_queue(s, send_queue)))
		return rc;
	if (!len)
		return 0;
	n = recv(s, buf, len, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	return (int)n;
}

/**
 * tcp_repair_dump() - read the state and the queues of a frozen socket in
 *		       repair mode
 * @s:		socket
 * @st:		filled
 * @sbuf:	filled with the send queue
 * @rbuf:	filled with the receive queue
 * @cap:	size of each buffer, as tcp_repair_queued() reports (or more)
 *
 * Return: 0 on success, -EOPNOTSUPP for a state connections can't move in
 *	   (a handshake, TIME_WAIT), -ENOBUFS for queues over
 *	   TCP_REPAIR_QUEUE_MAX, other -errno on failure
 */
int tcp_repair_dump(int s, struct tcp_repair_state *st, uint8_t *sbuf,
		    uint8_t *rbuf, uint32_t cap)
{
	struct tcp_repair_window w;
	uint32_t write_seq, rcv_nxt, rcv_end;
	int minus_one = -1, nsd, n, rc;
	socklen_t sl = sizeof(w);

	memset(st, 0, sizeof(*st));
	if ((rc = tcp_repair_info(s, st)))
		return rc;
	if (st->state != TCP_ESTABLISHED && !tcp_repair_fin_received(st) &&
	    !tcp_repair_fin_sent(st))
		return -EOPNOTSUPP;

	if (getsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, &sl))
		return -errno;

	/* Peeks start at the front of the receive queue, whatever the relay
	 * set (kernels without SO_PEEK_OFF for TCP refuse: nothing to do)
	 */
	setsockopt(s, SOL_SOCKET, SO_PEEK_OFF, &minus_one, sizeof(minus_one));

	if ((n = tcp_repair_peek(s, true, sbuf, cap)) < 0)
		return n;
	st->sndq = (uint32_t)n;
	if ((rc = tcp_repair_sockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ,
				     &write_seq)))
		return rc;
	if (ioctl(s, SIOCOUTQNSD, &nsd))
		return -errno;
	st->notsent = nsd < 0 ? 0 : (uint32_t)nsd;
	if (st->notsent > st->sndq)	/* an unsent FIN */
		st->notsent = st->sndq;

	if ((n = tcp_repair_peek(s, false, rbuf, cap)) < 0)
		return n;
	st->rcvq = (uint32_t)n;
	if ((rc = tcp_repair_sockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &rcv_nxt)))
		return rc;

	if (st->sndq >= TCP_REPAIR_QUEUE_MAX ||
	    st->rcvq >= TCP_REPAIR_QUEUE_MAX)
		return -ENOBUFS;

	/* The FINs' sequence numbers are not part of the queues */
	st->snd_seq = write_seq - st->sndq - tcp_repair_fin_sent(st);
	st->rcv_seq = rcv_nxt - st->rcvq - tcp_repair_fin_received(st);

	/* The window as the new socket will see it: its receive sequence
	 * ends before the peer's FIN
	 */
	rcv_end = st->rcv_seq + st->rcvq;
	st->snd_wl1 = w.snd_wl1;
	st->snd_wnd = w.snd_wnd;
	st->max_window = w.max_window;
	st->rcv_wnd = w.rcv_wnd;
	st->rcv_wup = w.rcv_wup;
	if (SEQ_AFTER(st->rcv_wup, rcv_end)) {
		st->rcv_wnd += st->rcv_wup - rcv_end;
		st->rcv_wup = rcv_end;
	}
	if (SEQ_AFTER(st->snd_wl1, rcv_end + st->rcv_wnd))
		st->snd_wl1 = rcv_end;
	return 0;
}

/**
 * tcp_repair_seq() - timestamp (TCP_REPAIR_TS_JUMP_MS later), MSS and
 *		      queue sequences of a new socket
 * @s:		socket in repair mode, bound, not connected
 * @st:		state to restore
 *
 * The MSS goes in twice: TCP_REPAIR_OPTIONS (tcp_repair_finish()) sets
 * the clamp, but only connect() sizes the segments, from the clamp it
 * finds (536 bytes on a new socket): TCP_MAXSEG sets that clamp first.
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_seq(int s, const struct tcp_repair_state *st)
{
	uint32_t ts = st->timestamp;
	int rc;

	/* The old socket's clock ran on while the state travelled, and it
	 * may have answered its peer meanwhile: a timestamp below the last
	 * one the peer saw gets our segments dropped (PAWS, RFC 7323). Jump
	 * ahead, in the clock's unit (bit 0 set: microseconds)
	 */
	ts += (ts & 1) ? TCP_REPAIR_TS_JUMP_MS * 1000U : TCP_REPAIR_TS_JUMP_MS;
	if ((st->options & TCP_REPAIR_OPT_TS) &&
	    setsockopt(s, IPPROTO_TCP, TCP_TIMESTAMP, &ts, sizeof(ts)))
		return -errno;
	if (st->mss >= TCP_REPAIR_MSS_MIN && st->mss <= TCP_REPAIR_MSS_MAX &&
	    setsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &st->mss, sizeof(st->mss)))
		return -errno;

	if ((rc = tcp_repair_queue(s, true)))
		return rc;
	if (setsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &st->snd_seq,
		       sizeof(st->snd_seq)))
		return -errno;
	if ((rc = tcp_repair_queue(s, false)))
		return rc;
	if (setsockopt(s, IPPROTO_TCP, TCP_QUEUE_SEQ, &st->rcv_seq,
		       sizeof(st->rcv_seq)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_bufs() - buffers of a new socket, large enough for its queues
 * @s:		socket in repair mode, connected
 * @st:		state to restore
 * @rcv_auto:	the receive buffer is sized by the kernel (no --tcp-rmem)
 *
 * An automatic receive buffer grows through SO_RCVLOWAT, which doesn't lock
 * it, up to the source's size (the window promised to the peer fits in it);
 * a sized one gets the source's size, which may be above --tcp-rmem if
 * tcp_rcvwnd.c raised it there. The send buffer gets the source's size, or
 * what the queue needs if that is more: SO_SNDBUF locks it, and
 * tcp_repair_done() unlocks it again if it was automatic. The kernel caps
 * SO_SNDBUF at net.core.wmem_max: what doesn't fit is written later.
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_bufs(int s, const struct tcp_repair_state *st, bool rcv_auto)
{
	uint32_t need = st->sndq + st->sndq / 2 + TCP_REPAIR_CHUNK, have;
	int v, one = 1, rc;

	if (rcv_auto) {
		v = (int)(st->rcvbuf / 2);
		if (setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &v, sizeof(v)) ||
		    setsockopt(s, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof(one)))
			return -errno;
	} else {
		v = (int)(st->rcvbuf / 2);
		if (setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
			return -errno;
	}

	if ((rc = tcp_repair_sockopt(s, SOL_SOCKET, SO_SNDBUF, &have)))
		return rc;
	if (need < st->sndbuf)
		need = st->sndbuf;
	if (have >= need)
		return 0;
	v = (int)(need / 2);
	if (setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_fill() - write data into a queue of a socket in repair mode
 * @s:		socket
 * @send_queue:	the send queue, else the receive queue
 * @data:	bytes
 * @len:	their number
 * @done:	bytes written, set (all of them on success)
 *
 * Return: 0 on success, -ENOBUFS if the socket's buffer is full before the
 *	   end (what is left of a send queue can go as normal writes out of
 *	   repair mode), other -errno on failure
 */
int tcp_repair_fill(int s, bool send_queue, const uint8_t *data, size_t len,
		    size_t *done)
{
	size_t chunk = TCP_REPAIR_CHUNK;
	int rc;

	*done = 0;
	if ((rc = tcp_repair_queue(s, send_queue)))
		return rc;

	while (*done < len) {
		size_t left = len - *done;
		ssize_t n = send(s, data + *done, left < chunk ? left : chunk,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == ENOBUFS || errno == ENOMEM) &&
		    chunk > TCP_REPAIR_CHUNK_MIN) {
			chunk /= 2;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != ENOBUFS &&
		    errno != ENOMEM)
			return -errno;
		if (n <= 0)
			return -ENOBUFS;
		*done += (size_t)n;
	}
	return 0;
}

/**
 * tcp_repair_finish() - options, a FIN the peer had, and the windows
 * @s:		socket in repair mode, connected, queues filled
 * @st:		state to restore
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_finish(int s, const struct tcp_repair_state *st)
{
	struct tcp_repair_opt opts[4];
	struct tcp_repair_window w = {
		.snd_wl1 = st->snd_wl1, .snd_wnd = st->snd_wnd,
		.max_window = st->max_window, .rcv_wnd = st->rcv_wnd,
		.rcv_wup = st->rcv_wup,
	};
	unsigned int n = 0;
	int rc;

	if (st->options & TCP_REPAIR_OPT_WSCALE) {
		opts[n].opt_code = TCPOPT_WINDOW;
		opts[n++].opt_val = st->snd_wscale |
				    (uint32_t)st->rcv_wscale << 16;
	}
	opts[n].opt_code = TCPOPT_MAXSEG;
	opts[n++].opt_val = st->mss;
	if (st->options & TCP_REPAIR_OPT_SACK) {
		opts[n].opt_code = TCPOPT_SACK_PERMITTED;
		opts[n++].opt_val = 0;
	}
	if (st->options & TCP_REPAIR_OPT_TS) {
		opts[n].opt_code = TCPOPT_TIMESTAMP;
		opts[n++].opt_val = 0;
	}
	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_OPTIONS, opts,
		       (socklen_t)(n * sizeof(opts[0]))))
		return -errno;

	/* Our FIN was acknowledged: queue it again without sending it, the
	 * peer answers the retransmission as a duplicate
	 */
	if (st->state == TCP_FIN_WAIT2) {
		if ((rc = tcp_repair_queue(s, true)))
			return rc;
		if (shutdown(s, SHUT_WR))
			return -errno;
	}

	if (setsockopt(s, IPPROTO_TCP, TCP_REPAIR_WINDOW, &w, sizeof(w)))
		return -errno;
	return 0;
}

/**
 * tcp_repair_done() - after repair mode: the window clamp, automatic send
 *		       buffer sizing again
 * @s:		socket, out of repair mode
 * @st:		state restored
 * @snd_auto:	the send buffer was sized by the kernel on the source
 *
 * What is left to the caller: the send queue bytes tcp_repair_fill() did
 * not take, as normal writes, and then our FIN if the state had one not
 * acknowledged yet (tcp_repair_fin_sent(), but not TCP_FIN_WAIT2, which
 * tcp_repair_finish() queued already).
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_done(int s, const struct tcp_repair_state *st, bool snd_auto)
{
	if (st->wnd_clamp &&
	    setsockopt(s, IPPROTO_TCP, TCP_WINDOW_CLAMP, &st->wnd_clamp,
		       sizeof(st->wnd_clamp)))
		return -errno;

	/* SO_SNDBUF locked the send buffer: automatic sizing again */
	return snd_auto ? tcp_repair_sndbuf_auto(s) : 0;
}

/**
 * tcp_repair_sndbuf_auto() - let the kernel size a send buffer again, after
 *			      SO_SNDBUF locked it
 * @s:		socket
 *
 * Return: 0 on success, -errno on failure
 */
int tcp_repair_sndbuf_auto(int s)
{
	socklen_t sl = sizeof(int);
	int locks;

	if (getsockopt(s, SOL_SOCKET, SO_BUF_LOCK, &locks, &sl))
		return -errno;
	locks &= SOCK_RCVBUF_LOCK;
	if (setsockopt(s, SOL_SOCKET, SO_BUF_LOCK, &locks, sizeof(locks)))
		return -errno;
	return 0;
}
