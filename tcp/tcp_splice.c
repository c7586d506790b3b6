// SPDX-License-Identifier: GPL-2.0-or-later
/* tcp_splice.c - loopback TCP between the namespace and the host, spliced
 *
 * Theory of operation
 *
 * A connection that starts and ends on loopback needs no TCP translation:
 * pasta accepts it on one side, opens a second socket on the other side,
 * and moves bytes between the two sockets with splice() through a pipe per
 * direction, so data never enters user space. -T (namespace to host) is
 * the first user: for every forwarded port, tcp_splice_listen_rule()
 * (called by fwd/fwd_listen.c from a thread inside the namespace) opens a
 * listening socket there (a socket keeps the namespace it was created in
 * for life), on 127.0.0.1 and ::1 for the enabled families, or on the
 * address a rule names. An accepted connection is handed to
 * tcp_splice_conn_new() with a target: the same loopback family in the
 * host (or the rule's target address), at the port its rule maps to (the
 * rule listening at the address the connection came to: rules at several
 * addresses may share a port). The same entry point serves the other
 * direction (host loopback to the namespace) with @in_ns set in the
 * target: its socket is then created inside the namespace.
 *
 * Each connection is a flow (FLOW_TYPE_TCP_SPLICE) whose index selects our
 * own state. Side 0 is the accepted socket, side 1 the one we connected.
 * Direction d carries bytes read from side d through pipe d to side !d.
 * Both sockets are in the epoll set edge-triggered, with a reference that
 * holds the flow index and the side.
 *
 * Moving a direction: splice from the source into the pipe, then from the
 * pipe into the destination, and repeat, until one of these holds:
 *   - the source has nothing (EAGAIN with an empty pipe): its next data
 *     raises a new EPOLLIN edge;
 *   - the destination is full (EAGAIN writing the pipe out): the data stays
 *     in the pipe, we stop reading the source (EPOLLIN off) and arm
 *     EPOLLOUT on the destination, whose edge resumes the direction;
 *   - the source reached EOF and the pipe is empty: we shut down writing
 *     on the destination. Once both directions are shut, the pair closes;
 *   - a budget of rounds is used up (fairness between connections): the
 *     descriptor holding the remaining work is re-armed with
 *     EPOLL_CTL_MOD, which queues a new event because it is still ready.
 * Changing the armed events with EPOLL_CTL_MOD polls the socket again, so
 * readiness that arrived meanwhile is never lost. Whenever data sits in a
 * pipe because its destination was full, EPOLLOUT is armed on it.
 *
 * Both sockets get TCP_NODELAY: the relay must not delay what the
 * application already decided to send. A socket we open in the host gets
 * --tcp-rmem and --tcp-wmem, if given.
 *
 * The accepted side is not read until the connect() of the other side
 * completes (EPOLLOUT on side 1). An error on either socket, or a refused
 * connect, resets both: SO_LINGER with a zero timeout makes close() send
 * an RST, so each peer sees what happened to the other.
 *
 * Events are hints only: a socket error is confirmed with SO_ERROR, and a
 * connect completion with getpeername(), so an event queued for a
 * connection closed earlier in the same epoll batch, whose flow index and
 * descriptor were reused since, does no harm.
 *
 * A socket toward the namespace (@in_ns: -t connections from the host's
 * loopback, see tcp_listen.c) must be created inside it; the connect()
 * then works from anywhere. Entering the namespace takes a thread
 * (ns_run()), too costly per connection: a pool of
 * TCP_SPLICE_POOL_SIZE sockets per family is opened there ahead of time,
 * at start-up, and topped up by one thread whenever a connection leaves
 * fewer than TCP_SPLICE_POOL_LOW, so that one thread serves many
 * connections. An empty pool (a burst) is refilled on the spot.
 *
 * For "auto" forwarding (fwd/fwd_auto.c), tcp_splice_listen_auto() opens
 * the listening sockets of one -T port at run time, from a thread inside
 * the namespace; they are closed with close() when the port goes away.
 *
 * System calls used after start-up: listed with SYSCALLS() below,
 * for the seccomp filter (util/syscalls.h).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "tcp.h"
#include "tcp_splice.h"
#include "../conf/fwd_spec.h"
#include "../flow/flow.h"
#include "../net/sock.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/syscalls.h"
#include "../util/ns_worker.h"
#include "../fwd/fwd_listen.h"

/* System calls after start-up: splicing, the socket pool, -T listeners
 * (these sockets: net/sock.c and the rules below)
 */
SYSCALLS(SYSCALLS_PASTA,
	 SYSCALLS_SOCKET("pool and splice sockets, IPv4", AF_INET,
			 SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_SOCKET("pool and splice sockets, IPv6", AF_INET6,
			 SOCK_STREAM, IPPROTO_TCP),
	 SYSCALLS_CALL("accept4", "a connection to a spliced port"),
	 SYSCALLS_CALL("bind", "a -T or -U port opened at run time"),
	 SYSCALLS_CALL("listen", "a -T port opened at run time"),
	 SYSCALLS_CALL("connect", "the other side's loopback"),
	 SYSCALLS_CALL("getsockopt", "a connection's error (SO_ERROR)"),
	 SYSCALLS_CALL("getpeername", "did the connection complete?"),
	 SYSCALLS_CALL("getsockname", "which rule an accepted one matches"),
	 SYSCALLS_SETSOCKOPT("SO_LINGER: a reset", SOL_SOCKET),
	 SYSCALLS_SETSOCKOPT_TCP("TCP_NODELAY"),
	 SYSCALLS_CALL("pipe2", "the pipes between two sockets"),
	 SYSCALLS_CALL_IF("fcntl", "their size",
			  SYSCALLS_ARG_EQ(1, F_SETPIPE_SZ)),
	 SYSCALLS_CALL("splice", "data, socket to pipe to socket"),
	 SYSCALLS_CALL("shutdown", "a FIN, passed on"),
	 SYSCALLS_CALL("epoll_ctl", "the sockets' events, as they go"),
	 SYSCALLS_CALL("close", "sockets and pipes of a connection"));

/* Backlog of the listening sockets in the namespace */
#define TCP_SPLICE_BACKLOG		128
/* Connections accepted per listening socket event, before yielding */
#define TCP_SPLICE_ACCEPT_BATCH		32
/* Read-and-write rounds per direction per event, before yielding */
#define TCP_SPLICE_ROUNDS		8
/* Sockets opened in the namespace ahead of time, per address family */
#define TCP_SPLICE_POOL_SIZE		32
/* Top the pool up once a connection leaves fewer than this */
#define TCP_SPLICE_POOL_LOW		(TCP_SPLICE_POOL_SIZE / 2)

/**
 * struct tcp_splice_conn - state of one spliced connection
 * @sock:	sockets: [0] accepted, [1] connected by us
 * @pipe_r:	read end of the pipe of each direction
 * @pipe_w:	write end of the pipe of each direction
 * @pending:	bytes in the pipe of each direction
 * @armed:	epoll events currently registered for each socket
 * @connecting:	connect() of @sock[1] not completed yet
 * @eof:	source of the direction reached end of file
 * @shut:	we shut down writing on the destination of the direction
 * @blocked:	direction waits for its destination to have room
 */
struct tcp_splice_conn {
	int sock[2];
	int pipe_r[2];
	int pipe_w[2];
	uint32_t pending[2];
	uint32_t armed[2];
	bool connecting;
	bool eof[2];
	bool shut[2];
	bool blocked[2];
};

/* Zeroed, never walked at start-up: tcp_splice_conn_init() sets up an entry
 * when its flow is allocated, and every lookup checks the flow's type first,
 * so untouched entries stay non-resident.
 */
static struct tcp_splice_conn *tcp_splice_conns;	/* by flow index */
static unsigned int tcp_splice_cap;		/* entries in the array */
static unsigned int tcp_splice_count;		/* connections in use */
static unsigned int tcp_splice_rounds = TCP_SPLICE_ROUNDS;	/* budget */

/* Sockets created inside the namespace, unused yet: [0] IPv4, [1] IPv6 */
static int tcp_splice_pool[2][TCP_SPLICE_POOL_SIZE];
static unsigned int tcp_splice_pool_n[2];	/* sockets in each pool */
static bool tcp_splice_pool_on;		/* pools in use (pasta, -t) */
static bool tcp_splice_pool_fam[2];	/* family enabled: fill its pool */

/**
 * tcp_splice_ref() - epoll reference for one side of a connection
 * @idx:	flow index
 * @side:	0 or 1
 * @fd:		socket
 *
 * Return: the reference
 */
static union epoll_ref tcp_splice_ref(uint32_t idx, unsigned int side, int fd)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP_SPLICE };

	ref.fd = (uint32_t)fd;
	ref.data = idx | ((uint32_t)side << TCP_SPLICE_REF_SIDE_BIT);
	return ref;
}

/**
 * tcp_splice_sock_error() - read and clear the pending error of a socket
 * @s:		socket
 *
 * Return: pending error (positive errno), 0 if none
 */
static int tcp_splice_sock_error(int s)
{
	socklen_t sl = sizeof(int);
	int e = 0;

	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &e, &sl))
		return errno;
	return e;
}

/**
 * tcp_splice_rst() - close a socket so that its peer gets a reset
 * @s:		socket, may be negative (nothing done)
 */
static void tcp_splice_rst(int s)
{
	const struct linger lin = { .l_onoff = 1, .l_linger = 0 };

	if (s < 0)
		return;
	setsockopt(s, SOL_SOCKET, SO_LINGER, &lin, sizeof(lin));
	close(s);
}

/**
 * tcp_splice_close_fd() - close a descriptor if open, mark it closed
 * @fd:		descriptor to close, set to -1
 */
static void tcp_splice_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * tcp_splice_conn_close() - close both sockets and pipes, free the flow
 * @conn:	connection
 * @idx:	its flow index
 * @rst:	reset both peers instead of closing gracefully
 */
static void tcp_splice_conn_close(struct tcp_splice_conn *conn, uint32_t idx,
				  bool rst)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (rst) {
			tcp_splice_rst(conn->sock[i]);
			conn->sock[i] = -1;
		} else {
			tcp_splice_close_fd(&conn->sock[i]);
		}
		tcp_splice_close_fd(&conn->pipe_r[i]);
		tcp_splice_close_fd(&conn->pipe_w[i]);
	}

	flow_free(idx);
	tcp_splice_count--;
}

/**
 * tcp_splice_events() - epoll events a side of a connection needs now
 * @conn:	connection
 * @side:	0 or 1
 *
 * Return: events for epoll_ctl(), edge-triggered
 */
static uint32_t tcp_splice_events(const struct tcp_splice_conn *conn,
				  unsigned int side)
{
	uint32_t ev = EPOLLET;

	if (conn->connecting)
		return side ? ev | EPOLLOUT : ev;

	/* Read the source unless it ended or its destination is full */
	if (!conn->eof[side] && !conn->blocked[side])
		ev |= EPOLLIN;
	/* Wait for room if the other direction has data for us */
	if (conn->blocked[!side])
		ev |= EPOLLOUT;

	return ev;
}

/**
 * tcp_splice_arm() - bring the events of one side up to date
 * @c:		execution context
 * @conn:	connection
 * @idx:	its flow index
 * @side:	0 or 1
 * @force:	modify even if unchanged, to get an event if it is ready
 *
 * Return: 0 on success, negative errno from epoll_ctl()
 */
static int tcp_splice_arm(const struct ctx *c, struct tcp_splice_conn *conn,
			  uint32_t idx, unsigned int side, bool force)
{
	union epoll_ref ref = tcp_splice_ref(idx, side, conn->sock[side]);
	struct epoll_event ev = { .data.u64 = ref.u64 };

	ev.events = tcp_splice_events(conn, side);
	if (ev.events == conn->armed[side] && !force)
		return 0;

	if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, conn->sock[side], &ev))
		return -errno;
	conn->armed[side] = ev.events;
	return 0;
}

/**
 * tcp_splice_move() - move data in one direction as far as possible now
 * @conn:	connection
 * @d:		direction: data from @conn->sock[d] to @conn->sock[!d]
 * @yield:	set if the budget ran out with work left
 *
 * Return: 0 on success (including "nothing to do"), negative errno on a
 *	   socket error that ends the connection
 */
static int tcp_splice_move(struct tcp_splice_conn *conn, unsigned int d,
			   bool *yield)
{
	int from = conn->sock[d], to = conn->sock[!d];
	unsigned int round;

	conn->blocked[d] = false;

	for (round = 0; round < tcp_splice_rounds; round++) {
		bool progress = false;
		ssize_t n;

		if (!conn->eof[d]) {
			/* EAGAIN: source empty, or pipe full (then the
			 * write below makes progress or blocks)
			 */
			n = splice(from, NULL, conn->pipe_w[d], NULL,
				   TCP_SPLICE_PIPE_SIZE,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				conn->pending[d] += (uint32_t)n;
				progress = true;
			} else if (!n) {
				conn->eof[d] = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				return -errno;
			}
		}

		if (conn->pending[d]) {
			n = splice(conn->pipe_r[d], NULL, to, NULL,
				   conn->pending[d],
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				conn->pending[d] -= (uint32_t)n;
				progress = true;
			} else if (n < 0 && errno == EAGAIN) {
				conn->blocked[d] = true;
				return 0;
			} else if (n < 0 && errno != EINTR) {
				return -errno;
			}
		}

		if (conn->eof[d] && !conn->pending[d]) {
			if (!conn->shut[d]) {
				conn->shut[d] = true;
				if (shutdown(to, SHUT_WR) && errno != ENOTCONN)
					return -errno;
			}
			return 0;
		}

		/* No progress: the source is empty and so is the pipe */
		if (!progress)
			return 0;
	}

	*yield = true;
	return 0;
}

/**
 * tcp_splice_connected() - connect() of side 1 completed, or failed
 * @conn:	connection
 *
 * Return: 1 if connected, 0 if still in progress, negative errno if it
 *	   failed
 */
static int tcp_splice_connected(struct tcp_splice_conn *conn)
{
	union sockaddr_inany sa;
	socklen_t sl = sizeof(sa);
	int e;

	e = tcp_splice_sock_error(conn->sock[1]);
	if (e)
		return -e;

	if (getpeername(conn->sock[1], &sa.sa, &sl)) {
		if (errno == ENOTCONN)
			return 0;
		return -errno;
	}

	conn->connecting = false;
	return 1;
}

/**
 * tcp_splice_sock_failed() - EPOLLERR on one side: confirm it, reset if so
 * @conn:	connection
 * @idx:	its flow index
 * @side:	side that reported EPOLLERR
 *
 * Return: true if the socket has an error: the connection is then closed,
 *	   with a reset to both peers
 */
static bool tcp_splice_sock_failed(struct tcp_splice_conn *conn, uint32_t idx,
				   unsigned int side)
{
	int e = tcp_splice_sock_error(conn->sock[side]);

	if (!e)
		return false;

	debug("TCP splice: flow %u: error on %s socket: %s",
	      idx, side ? "target" : "accepted", strerror(e));
	tcp_splice_conn_close(conn, idx, true);
	return true;
}

/**
 * tcp_splice_rearm() - bring the events of both sides up to date after
 *			moving data
 * @c:		execution context
 * @conn:	connection
 * @idx:	its flow index
 * @yield:	directions that ran out of budget with work left
 *
 * If epoll_ctl() fails, the connection is reset.
 */
static void tcp_splice_rearm(const struct ctx *c, struct tcp_splice_conn *conn,
			     uint32_t idx, const bool yield[2])
{
	unsigned int d;
	int ret = 0;

	/* Out of budget: re-arm where the work is, to be called again.
	 * Data left in the pipe: wait for room on the destination (ready,
	 * so EPOLL_CTL_MOD queues an event), else read the source again.
	 */
	for (d = 0; d < 2; d++) {
		if (yield[d] && conn->pending[d])
			conn->blocked[d] = true;
	}

	for (d = 0; d < 2 && !ret; d++) {
		bool force = (yield[d] && !conn->pending[d]) ||
			     (yield[!d] && conn->pending[!d]);

		ret = tcp_splice_arm(c, conn, idx, d, force);
	}
	if (ret) {
		err_rl("TCP splice: flow %u: can't update epoll events: %s",
		       idx, strerror(-ret));
		tcp_splice_conn_close(conn, idx, true);
	}
}

/**
 * tcp_splice_handler() - events on one side of a spliced connection
 * @c:		execution context
 * @ref:	epoll reference: socket, flow index and side
 * @events:	epoll events
 * @now_ms:	current time (unused)
 */
void tcp_splice_handler(const struct ctx *c, union epoll_ref ref,
			uint32_t events, uint64_t now_ms)
{
	unsigned int side = ref.data >> TCP_SPLICE_REF_SIDE_BIT;
	uint32_t idx = ref.data & ~(1U << TCP_SPLICE_REF_SIDE_BIT);
	bool yield[2] = { false, false };
	struct tcp_splice_conn *conn;
	unsigned int d;
	int ret = 0;

	(void)now_ms;

	if (idx >= tcp_splice_cap ||
	    flow_type_of(idx) != FLOW_TYPE_TCP_SPLICE)
		return;
	conn = &tcp_splice_conns[idx];
	if (conn->sock[side] != (int)ref.fd)
		return;

	if ((events & EPOLLERR) && tcp_splice_sock_failed(conn, idx, side))
		return;

	if (conn->connecting) {
		if (!side)
			return;	/* side 0 is re-armed once connected */

		ret = tcp_splice_connected(conn);
		if (ret < 0) {
			debug("TCP splice: flow %u, connect failed: %s",
			      idx, strerror(-ret));
			tcp_splice_conn_close(conn, idx, true);
			return;
		}
		if (!ret)
			return;	/* spurious: EPOLLOUT stays armed */

		ret = 0;
		for (d = 0; d < 2 && !ret; d++)
			ret = tcp_splice_move(conn, d, &yield[d]);
	} else {
		/* Readable or hung up: our direction; writable: the other */
		if (events & (EPOLLIN | EPOLLHUP | EPOLLRDHUP))
			ret = tcp_splice_move(conn, side, &yield[side]);
		if (!ret && (events & (EPOLLOUT | EPOLLHUP)))
			ret = tcp_splice_move(conn, !side, &yield[!side]);
	}

	if (ret) {
		debug("TCP splice: flow %u: %s, resetting", idx,
		      strerror(-ret));
		tcp_splice_conn_close(conn, idx, true);
		return;
	}

	if (conn->shut[0] && conn->shut[1]) {
		tcp_splice_conn_close(conn, idx, false);
		return;
	}

	tcp_splice_rearm(c, conn, idx, yield);
}

/**
 * struct tcp_splice_ns_sock - a socket to create in the namespace
 * @af:		address family
 * @ret:	the socket, or negative errno
 */
struct tcp_splice_ns_sock {
	int af;
	int ret;
};

/**
 * tcp_splice_ns_sock_fn() - create a socket, run inside the namespace
 * @arg:	struct tcp_splice_ns_sock
 *
 * Return: the socket, or negative errno
 */
static int tcp_splice_ns_sock_fn(void *arg)
{
	struct tcp_splice_ns_sock *a = arg;

	a->ret = socket(a->af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_TCP);
	if (a->ret < 0)
		a->ret = -errno;
	return a->ret;
}

/**
 * tcp_splice_pool_fill_ns() - fill both pools, run inside the namespace
 * @arg:	unused
 *
 * Return: 0 on success, negative errno if a socket could not be created
 */
static int tcp_splice_pool_fill_ns(void *arg)
{
	unsigned int f;

	(void)arg;

	for (f = 0; f < 2; f++) {
		while (tcp_splice_pool_fam[f] &&
		       tcp_splice_pool_n[f] < TCP_SPLICE_POOL_SIZE) {
			int s = socket(f ? AF_INET6 : AF_INET,
				       SOCK_STREAM | SOCK_NONBLOCK |
				       SOCK_CLOEXEC, IPPROTO_TCP);

			if (s < 0)
				return -errno;
			tcp_splice_pool[f][tcp_splice_pool_n[f]++] = s;
		}
	}

	return 0;
}

/**
 * tcp_splice_pool_refill() - top up the pools of namespace sockets
 *
 * Return: 0 on success, negative errno (logged once per failure run)
 */
static int tcp_splice_pool_refill(void)
{
	static bool failed;
	int ret;

	if (!tcp_splice_pool_on)
		return 0;

	ret = ns_run(tcp_splice_pool_fill_ns, NULL);
	if (ret && !failed)
		warn("TCP splice: can't open sockets in the namespace: %s",
		     strerror(-ret));
	failed = ret != 0;
	return ret;
}

/**
 * tcp_splice_pool_init() - open the pools of namespace sockets
 * @c:		execution context
 *
 * Pools are used by -t connections from the host's loopback: pasta only,
 * unless --no-splice or no -t port can ever be forwarded (none given, and
 * no -c socket to add them at run time).
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
static int tcp_splice_pool_init(const struct ctx *c)
{
	if (c->mode != MODE_PASTA || c->no_splice || ns_target_fd() < 0)
		return 0;
	if (c->tcp_to_guest.mode != FWD_SPEC &&
	    c->tcp_to_guest.mode != FWD_AUTO &&
	    !*c->conf_path)
		return 0;

	tcp_splice_pool_fam[0] = c->ip4.enabled;
	tcp_splice_pool_fam[1] = c->ip6.enabled;
	tcp_splice_pool_on = true;

	return tcp_splice_pool_refill();
}

/**
 * tcp_splice_pool_take() - a socket created in the namespace
 * @v6:		IPv6, else IPv4
 *
 * Return: non-blocking socket, or negative errno
 */
static int tcp_splice_pool_take(bool v6)
{
	struct tcp_splice_ns_sock a = { .af = v6 ? AF_INET6 : AF_INET };

	if (!tcp_splice_pool_on || !tcp_splice_pool_fam[v6])
		return ns_run(tcp_splice_ns_sock_fn, &a);

	if (!tcp_splice_pool_n[v6])
		tcp_splice_pool_refill();
	if (!tcp_splice_pool_n[v6])
		return -EMFILE;

	return tcp_splice_pool[v6][--tcp_splice_pool_n[v6]];
}

/**
 * tcp_splice_pool_count() - sockets waiting in the namespace pools
 *
 * Return: number of sockets in both pools
 */
unsigned int tcp_splice_pool_count(void)
{
	return tcp_splice_pool_n[0] + tcp_splice_pool_n[1];
}

/**
 * tcp_splice_target_sock() - open the socket toward a target
 * @t:		target
 *
 * For a target in the namespace, the socket comes from the pool of
 * sockets created there; the connect() itself can then be done from
 * anywhere.
 *
 * Return: non-blocking socket, or negative errno
 */
static int tcp_splice_target_sock(const struct tcp_splice_target *t)
{
	bool v6 = !inany_v4(&t->addr);
	int s;

	if (t->in_ns)
		return tcp_splice_pool_take(v6);

	s = socket(v6 ? AF_INET6 : AF_INET,
		   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
	return s < 0 ? -errno : s;
}

/**
 * tcp_splice_pipe() - open the pipe of one direction
 * @conn:	connection
 * @d:		direction
 *
 * Return: 0 on success, negative errno on failure
 */
static int tcp_splice_pipe(struct tcp_splice_conn *conn, unsigned int d)
{
	int p[2];

	if (pipe2(p, O_NONBLOCK | O_CLOEXEC))
		return -errno;

	conn->pipe_r[d] = p[0];
	conn->pipe_w[d] = p[1];

	/* Best effort: a smaller pipe only costs more system calls */
	if (fcntl(p[1], F_SETPIPE_SZ, TCP_SPLICE_PIPE_SIZE) < 0)
		trace("TCP splice: can't resize pipe to %u bytes: %s",
		      TCP_SPLICE_PIPE_SIZE, strerror(errno));

	return 0;
}

/**
 * tcp_splice_conn_init() - initial state of the connection of a new flow
 * @idx:	flow index
 * @s:		accepted socket, side 0
 *
 * Return: the connection, with no pipes and no target socket yet
 */
static struct tcp_splice_conn *tcp_splice_conn_init(uint32_t idx, int s)
{
	struct tcp_splice_conn *conn = &tcp_splice_conns[idx];
	unsigned int i;

	memset(conn, 0, sizeof(*conn));
	for (i = 0; i < 2; i++)
		conn->sock[i] = conn->pipe_r[i] = conn->pipe_w[i] = -1;
	conn->sock[0] = s;
	tcp_splice_count++;
	return conn;
}

/**
 * tcp_splice_connect() - open both pipes and the target socket, connect it
 * @c:		execution context
 * @conn:	connection, from tcp_splice_conn_init()
 * @idx:	its flow index
 * @t:		where to connect
 *
 * Both sockets get TCP_NODELAY, a socket in the host the configured
 * buffer sizes. A connect() still in progress sets @conn->connecting.
 *
 * Return: 0 on success, negative errno on failure
 */
static int tcp_splice_connect(const struct ctx *c,
			      struct tcp_splice_conn *conn, uint32_t idx,
			      const struct tcp_splice_target *t)
{
	union sockaddr_inany sa;
	unsigned int i;
	int one = 1, ret;
	socklen_t sl;

	for (i = 0; i < 2; i++) {
		ret = tcp_splice_pipe(conn, i);
		if (ret)
			return ret;
	}

	ret = tcp_splice_target_sock(t);
	if (ret < 0)
		return ret;
	conn->sock[1] = ret;

	for (i = 0; i < 2; i++) {
		setsockopt(conn->sock[i], IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
	}
	if (!t->in_ns)
		tcp_sock_bufs(c, conn->sock[1]);

	sl = sockaddr_from_inany(&sa, &t->addr, t->port, 0);
	if (connect(conn->sock[1], &sa.sa, sl)) {
		if (errno != EINPROGRESS)
			return -errno;
		conn->connecting = true;
	}
	if (log_get_level() >= LOG_DEBUG) {
		char b[INANY_STRLEN];

		flow_log(idx, "created: loopback to [%s]:%u %s", inany_ntop(
			 &t->addr, b), t->port, t->in_ns ? "in the namespace"
							 : "on the host");
	}
	return 0;
}

/**
 * tcp_splice_epoll_add() - add both sockets of a connection to epoll
 * @c:		execution context
 * @conn:	connection
 * @idx:	its flow index
 *
 * Return: 0 on success, negative errno from epoll_ctl()
 */
static int tcp_splice_epoll_add(const struct ctx *c,
				struct tcp_splice_conn *conn, uint32_t idx)
{
	struct epoll_event ev;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		union epoll_ref ref = tcp_splice_ref(idx, i, conn->sock[i]);

		ev.events = tcp_splice_events(conn, i);
		ev.data.u64 = ref.u64;
		if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, conn->sock[i], &ev))
			return -errno;
		conn->armed[i] = ev.events;
	}
	return 0;
}

/**
 * tcp_splice_conn_new() - splice an accepted socket to a new connection
 * @c:		execution context
 * @s:		accepted, non-blocking socket; owned by this function
 * @t:		where to connect
 *
 * On failure, @s is closed with a reset, so that its peer sees one.
 *
 * Return: flow index (non-negative) on success, negative errno on failure
 */
int tcp_splice_conn_new(const struct ctx *c, int s,
			const struct tcp_splice_target *t)
{
	struct tcp_splice_conn *conn;
	uint32_t idx;
	int ret;

	idx = flow_alloc(FLOW_TYPE_TCP_SPLICE);
	if (idx == FLOW_IDX_NONE || idx >= tcp_splice_cap) {
		if (idx != FLOW_IDX_NONE)
			flow_free(idx);
		debug("TCP splice: flow table full, resetting connection");
		tcp_splice_rst(s);
		return -ENOSPC;
	}

	conn = tcp_splice_conn_init(idx, s);

	ret = tcp_splice_connect(c, conn, idx, t);
	if (!ret)
		ret = tcp_splice_epoll_add(c, conn, idx);
	if (ret)
		goto fail;

	/* Top the namespace pool up now, for the next connections */
	if (t->in_ns && tcp_splice_pool_on &&
	    tcp_splice_pool_n[!inany_v4(&t->addr)] < TCP_SPLICE_POOL_LOW)
		tcp_splice_pool_refill();

	return (int)idx;

fail:
	debug("TCP splice: can't connect to port %u: %s", t->port,
	      strerror(-ret));
	tcp_splice_conn_close(conn, idx, true);
	return ret;
}

/**
 * tcp_splice_target_addr() - where a connection accepted on a -T port goes
 * @port:	forwarded (listening) port
 * @s:		accepted socket
 * @t:		target, address and port set
 *
 * The rule is the one listening at the address the connection was made
 * to (rules at several addresses may share a port). The rule's target
 * address, if it names one; else the loopback address the connection was
 * made to (127.0.0.53 stays 127.0.0.53 on the host); else, for a socket
 * the rule bound to another address, the host's loopback of the family.
 *
 * Return: 0 on success, -EADDRNOTAVAIL for a connection to a non-loopback
 *	   address on a socket listening on every loopback address (traffic
 *	   to the namespace's own addresses crosses its loopback interface
 *	   too: not ours), or another negative errno
 */
static int tcp_splice_target_addr(uint16_t port, int s,
				  struct tcp_splice_target *t)
{
	union sockaddr_inany local = { .sa.sa_family = AF_UNSPEC };
	const struct fwd_spec *spec = fwd_dir_spec(FWD_DIR_TCP_OUT);
	socklen_t sl = sizeof(local);
	const struct fwd_rule *r;
	union inany_addr a;
	uint16_t p;

	if (getsockname(s, &local.sa, &sl))
		return -errno;
	if (local.sa.sa_family != AF_INET && local.sa.sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	inany_from_sockaddr(&a, &p, &local);

	r = fwd_rule_at(spec, port, &a);
	t->port = r ? fwd_rule_target(r, port) : port;
	if (r && !inany_is_unspecified(&r->to_addr)) {
		t->addr = r->to_addr;
		return 0;
	}

	if (inany_is_loopback(&a)) {
		t->addr = a;
		return 0;
	}
	if (!r || r->bind_any)
		return -EADDRNOTAVAIL;

	inany_lo_or_any(&t->addr, inany_v4(&a) != NULL, true);
	return 0;
}

/**
 * tcp_splice_listen_handler() - accept connections on a -T port
 * @c:		execution context
 * @ref:	epoll reference: listening socket, port in @data
 * @events:	epoll events (unused)
 * @now_ms:	current time (unused)
 */
void tcp_splice_listen_handler(const struct ctx *c, union epoll_ref ref,
			       uint32_t events, uint64_t now_ms)
{
	uint16_t port = (uint16_t)ref.data;
	int i;

	(void)events;
	(void)now_ms;

	for (i = 0; i < TCP_SPLICE_ACCEPT_BATCH; i++) {
		struct tcp_splice_target t = { .in_ns = false };
		int s, ret;

		s = accept4((int)ref.fd, NULL, NULL,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (s < 0) {
			/* Out of descriptors or memory: the connections left
			 * wait for the next edge rather than spin the loop
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				warn_perror_rl("TCP splice: accept on port %u",
					       port);
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}

		ret = tcp_splice_target_addr(port, s, &t);
		if (ret) {
			debug("TCP splice: port %u: %s, resetting", port,
			      ret == -EADDRNOTAVAIL ?
			      "not to a loopback address" : strerror(-ret));
			tcp_splice_rst(s);
			continue;
		}

		tcp_splice_conn_new(c, s, &t);
	}

	/* More may be queued: edge-triggered, so ask for another event */
	{
		struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
					  .data.u64 = ref.u64 };

		if (epoll_ctl(c->epollfd, EPOLL_CTL_MOD, (int)ref.fd, &ev))
			warn_perror_rl("TCP splice: can't re-arm port %u",
				       port);
	}
}

/**
 * tcp_splice_listen_one() - open one listening socket (in the namespace)
 * @c:		execution context
 * @addr:	address to bind, NULL for every loopback address of the
 *		family (see sock_open_lo())
 * @v4:		IPv4 (else IPv6), for a NULL @addr
 * @ifname:	interface to bind to, empty or NULL for none
 * @port:	port
 *
 * Return: socket on success, negative errno on failure
 */
static int tcp_splice_listen_one(const struct ctx *c,
				 const union inany_addr *addr, bool v4,
				 const char *ifname, uint16_t port)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_TCP_SPLICE_LISTEN,
				.data = port };
	union inany_addr lo;
	struct epoll_event ev;
	int s, ret;

	if (addr) {
		v4 = inany_v4(addr) != NULL;
		s = sock_open(SOCK_STREAM, IPPROTO_TCP, v4, ifname,
			      c->freebind);
	} else {
		s = sock_open_lo(SOCK_STREAM, IPPROTO_TCP, v4, &lo);
		addr = &lo;
	}
	if (s < 0)
		return s;

	ret = sock_bind(s, addr, port);
	if (!ret && listen(s, TCP_SPLICE_BACKLOG))
		ret = -errno;
	if (ret)
		goto fail;

	ref.fd = (uint32_t)s;
	ev.events = EPOLLIN | EPOLLET;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, s, &ev)) {
		ret = -errno;
		goto fail;
	}
	return s;

fail:
	close(s);
	return ret;
}

/**
 * tcp_splice_listen_rule() - listen on one -T port, for its rule
 * @c:		execution context
 * @r:		rule forwarding @port
 * @port:	port
 * @fds:	sockets opened, -1 for a family not opened: [0] IPv4, [1] IPv6
 *
 * Runs inside the namespace (fwd/fwd_listen.c calls it from a thread
 * there). With no bind address in the rule, we listen on every loopback
 * address of each enabled family (sock_open_lo()), or with an interface
 * in the rule on 127.0.0.1 and ::1 there; one family missing in the
 * namespace (no ::1, or IPv6 disabled there) is tolerated if the other
 * one works.
 *
 * Return: 0 on success, negative errno on failure
 */
int tcp_splice_listen_rule(const struct ctx *c, const struct fwd_rule *r,
			   uint16_t port, int fds[2])
{
	union inany_addr lo4, lo6;
	const union inany_addr *a4 = NULL, *a6 = NULL;

	fds[0] = fds[1] = -1;
	if (!r->bind_any) {
		int s = tcp_splice_listen_one(c, &r->bind_addr, r->bind_v4,
					      r->ifname, port);

		fds[r->bind_v4 ? 0 : 1] = s;
		return sock_pair_result(fds);
	}

	/* With an interface, its loopback address on it, as asked */
	if (*r->ifname) {
		inany_lo_or_any(&lo4, true, true);
		inany_lo_or_any(&lo6, false, true);
		a4 = &lo4;
		a6 = &lo6;
	}

	if (c->ip4.enabled && (fwd_rule_families(r) & FWD_V4))
		fds[0] = tcp_splice_listen_one(c, a4, true, r->ifname, port);
	if (c->ip6.enabled && (fwd_rule_families(r) & FWD_V6))
		fds[1] = tcp_splice_listen_one(c, a6, false, r->ifname, port);

	/* One family missing in the namespace is fine if the other works */
	return sock_pair_missing_close(fds);
}

/**
 * tcp_splice_init() - allocate connection state and the socket pool
 * @c:		execution context
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int tcp_splice_init(const struct ctx *c)
{
	if (!tcp_splice_conns) {
		tcp_splice_conns = calloc(c->flow_max,
					  sizeof(*tcp_splice_conns));
		if (!tcp_splice_conns) {
			err("TCP splice: can't allocate state for %u flows: lower --max-flows",
			    c->flow_max);
			return -ENOMEM;
		}
		tcp_splice_cap = c->flow_max;
	}

	if (tcp_splice_pool_init(c))
		return -EMFILE;

	return 0;
}

/**
 * tcp_splice_listen_auto() - listen on one -T port found by "auto"
 * @c:		execution context
 * @port:	port, listening on the host
 * @fds:	sockets opened, -1 for a family not opened: [0] IPv4, [1]
 *		IPv6, each on every loopback address (sock_open_lo())
 *
 * Runs in a thread inside the namespace (see ns_run()), like
 * tcp_splice_listen_rule(). Connections are forwarded to the
 * same port of the same loopback address on the host: a resolver at
 * 127.0.0.53 there answers at 127.0.0.53 in the namespace.
 *
 * Return: 0 if at least one socket was opened, negative errno otherwise
 */
int tcp_splice_listen_auto(const struct ctx *c, uint16_t port, int fds[2])
{
	fds[0] = fds[1] = -1;

	if (c->ip4.enabled)
		fds[0] = tcp_splice_listen_one(c, NULL, true, NULL, port);
	if (c->ip6.enabled)
		fds[1] = tcp_splice_listen_one(c, NULL, false, NULL, port);

	/* One family missing in the namespace is fine, as at start-up */
	return sock_pair_result(fds);
}

/**
 * tcp_splice_check() - verify that no connection can miss a wake-up
 *
 * For debug builds and tests: data in a pipe must have EPOLLOUT armed on
 * its destination, a source that may still deliver data must have EPOLLIN
 * armed, and a connect in progress must wait for EPOLLOUT.
 *
 * Return: number of connections breaking the rule (each logged)
 */
unsigned int tcp_splice_check(void)
{
	unsigned int bad = 0;
	uint32_t idx;

	for (idx = 0; idx < tcp_splice_cap; idx++) {
		const struct tcp_splice_conn *conn = &tcp_splice_conns[idx];
		unsigned int d;
		bool ok = true;

		if (flow_type_of(idx) != FLOW_TYPE_TCP_SPLICE)
			continue;

		if (conn->connecting) {
			ok = conn->armed[1] & EPOLLOUT;
		} else {
			for (d = 0; d < 2; d++) {
				if (conn->pending[d] &&
				    !(conn->armed[!d] & EPOLLOUT))
					ok = false;
				if (!conn->eof[d] && !conn->blocked[d] &&
				    !(conn->armed[d] & EPOLLIN))
					ok = false;
			}
		}

		if (!ok) {
			err("TCP splice: flow %u can miss a wake-up: pending %u/%u, armed %#x/%#x",
			    idx, conn->pending[0], conn->pending[1],
			    conn->armed[0], conn->armed[1]);
			bad++;
		}
	}

	return bad;
}

/**
 * tcp_splice_budget_set() - set the rounds per direction per event
 * @rounds:	read-and-write rounds before yielding, 0 for the default
 *
 * For tests: a budget of one round makes the relay yield, and rely on
 * being re-armed, after almost every transfer.
 */
void tcp_splice_budget_set(unsigned int rounds)
{
	tcp_splice_rounds = rounds ? rounds : TCP_SPLICE_ROUNDS;
}

/**
 * tcp_splice_active() - number of spliced connections open
 *
 * Return: connections in use
 */
unsigned int tcp_splice_active(void)
{
	return tcp_splice_count;
}
