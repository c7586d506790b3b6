// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_common.c - one real relay inside the fuzzer, driven frame by frame
 *
 * Theory of operation
 *
 * fuzz_init() starts the relay as passt.c does (conf(), tables, timer
 * wheel, guest backend, TCP, UDP, ICMP) from a fixed command line: passt
 * mode, guest 10.0.2.15/24 and fd00::15/64, gateways 10.0.2.2 and fd00::2
 * (mapped to the host's loopback), -F with one end of a stream socket
 * pair as the guest connection. The fuzzer keeps the other end.
 * fuzz_init_vhost_user() starts it the same way but with --vhost-user,
 * listening on a socket path in a temporary directory of its own: the
 * vhost-user targets (fuzz_vu.c) connect there as front-ends, one
 * connection per input. fuzz_init_stream() starts it with the stream
 * backend listening on a socket path (-s) in such a directory instead of
 * -F: the stream target (fuzz_stream.c) connects there, one connection per
 * input, and hands its end to fuzz_guest_set() so that what the relay
 * writes is read back as on the -F socket; the relay may hang up on it
 * (fuzz_guest_hung_up()). Logging stays on at debug level so that every
 * message is formatted, but it is written nowhere.
 *
 * The process must run in a network namespace of its own with only "lo"
 * up (tests/fuzz/run.sh): whatever sockets the relay opens toward the
 * "host" reach that loopback or nothing. On that loopback the harness
 * runs a small TCP server (accepts, echoes what it reads, closes the
 * oldest connection when it has too many) and a UDP echo server, so that
 * the relay's host-side paths carry data both ways.
 *
 * fuzz_frame_in() gives a frame to tap_frame_in(), the entry of every
 * guest frame, and then fuzz_pump() runs what the main loop runs: the
 * relay's ready descriptors are dispatched to their handlers (without
 * waiting), the timer wheel runs, then tcp_defer_handler() and
 * qdisc_run(); the harness's servers are served; the frames the relay
 * wrote to the guest socket are read back, checked for framing and shown
 * to the target's hook.
 *
 * Time is virtual: it starts at the real clock and moves only with
 * fuzz_advance() (fuzz_tick(): a little per input, and a long idle period
 * every FUZZ_IDLE_EVERY inputs, so that timeouts expire, flows close and
 * the table does not stay full). Every handler gets the virtual time.
 *
 * exit() is linked as __wrap_exit() (-Wl,--wrap=exit): with
 * fuzz_exit_jmp set (the option parser target) it jumps back to the
 * target; otherwise it is the real exit(), which libFuzzer reports as a
 * crash, as a relay exiting on guest input would be a bug.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "fuzz_build.h"
#include "../../conf/ctx.h"
#include "../../conf/conf.h"
#include "../../flow/flow.h"
#include "../../fwd/fwd_listen.h"
#include "../../fwd/mcast.h"
#include "../../net/icmp.h"
#include "../../net/net.h"
#include "../../qdisc/qdisc.h"
#include "../../tap/tap.h"
#include "../unit/relay_sink.h"
#include "../../guest/guest.h"
#include "../../tcp/tcp.h"
#include "../../udp/udp.h"
#include "../../util/log.h"
#include "../../util/timer.h"

#define FUZZ_EVENTS_MAX		64
#define FUZZ_CONNS_MAX		32	/* accepted connections kept open */
#define FUZZ_IO_MAX		4096	/* bytes echoed per read */
#define FUZZ_STEP_MS		10	/* virtual time per input */
#define FUZZ_IDLE_EVERY		4096	/* inputs between long idle periods */
#define FUZZ_IDLE_MS		(600 * 1000)
#define FUZZ_RX_SIZE		(4 * 1024 * 1024)

#define FUZZ_STR_(x)		#x
#define FUZZ_STR(x)		FUZZ_STR_(x)

struct ctx fuzz_ctx;
jmp_buf *fuzz_exit_jmp;
bool fuzz_verbose;		/* FUZZ_LOG set: relay and harness log */

static bool fuzz_ready;
static char fuzz_sock_dir[] = "/tmp/fuzz-sock-XXXXXX";
static char fuzz_sock[sizeof(fuzz_sock_dir) + 16];
static uint64_t fuzz_now;
static uint64_t fuzz_inputs;
static int fuzz_guest = -1;		/* our end of the guest socket */
static bool fuzz_guest_eof;		/* the relay closed its end */
static bool fuzz_listening;		/* -s: guests connect, may hang up */
static fuzz_out_fn fuzz_out;

static int fuzz_srv_epfd = -1;		/* the harness's own sockets */
static int fuzz_tcp_srv[2] = { -1, -1 };	/* IPv4, IPv6 listeners */
static int fuzz_udp_srv[2] = { -1, -1 };	/* IPv4, IPv6 echo sockets */
static int fuzz_conns[FUZZ_CONNS_MAX];
static unsigned int fuzz_conn_next;

/* Kinds of the harness's sockets, in the high half of epoll data */
enum fuzz_srv_kind {
	FUZZ_SRV_LISTEN = 1,
	FUZZ_SRV_UDP,
	FUZZ_SRV_CONN,
};

static uint8_t fuzz_rx[FUZZ_RX_SIZE];
static size_t fuzz_rx_fill;

void __real_exit(int status) __attribute__((noreturn));
void __wrap_exit(int status) __attribute__((noreturn));

/**
 * __wrap_exit() - exit(), or a jump back to the option parser target
 * @status:	exit status
 */
void __wrap_exit(int status)
{
	if (fuzz_exit_jmp) {
		jmp_buf *j = fuzz_exit_jmp;

		fuzz_exit_jmp = NULL;
		longjmp(*j, 1);
	}
	__real_exit(status);
}

/**
 * fuzz_sock_cleanup() - remove the relay's socket and its directory
 */
static void fuzz_sock_cleanup(void)
{
	unlink(fuzz_sock);
	rmdir(fuzz_sock_dir);
}

/**
 * fuzz_fail() - harness set-up failed: say why and abort
 * @what:	what failed
 */
static void __attribute__((noreturn)) fuzz_fail(const char *what)
{
	fprintf(stderr, "fuzz harness: %s failed: %s\n", what,
		strerror(errno));
	fprintf(stderr, "fuzz harness: run it through tests/fuzz/run.sh "
		"(own network namespace, lo up)\n");
	abort();
}

/**
 * fuzz_srv_add() - watch one of the harness's sockets for input
 * @fd:		socket
 * @kind:	enum fuzz_srv_kind
 * @idx:	index in its array
 */
static void fuzz_srv_add(int fd, enum fuzz_srv_kind kind, unsigned int idx)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u64 = (uint64_t)kind << 32 | idx;
	if (epoll_ctl(fuzz_srv_epfd, EPOLL_CTL_ADD, fd, &ev))
		fuzz_fail("epoll_ctl() for a server socket");
}

/**
 * fuzz_servers_init() - TCP and UDP servers on the namespace's loopback
 */
static void fuzz_servers_init(void)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	const struct sockaddr *sa[2] = { (struct sockaddr *)&a4,
					 (struct sockaddr *)&a6 };
	socklen_t sl[2] = { sizeof(a4), sizeof(a6) };
	int one = 1, i;

	for (i = 0; i < FUZZ_CONNS_MAX; i++)
		fuzz_conns[i] = -1;

	fuzz_srv_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (fuzz_srv_epfd < 0)
		fuzz_fail("epoll_create1() for the servers");

	for (i = 0; i < 2; i++) {
		int af = i ? AF_INET6 : AF_INET;
		int t, u;

		a4.sin_port = htons(FZ_TCP_PORT);
		a6.sin6_port = htons(FZ_TCP_PORT);
		t = socket(af, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (t < 0)
			fuzz_fail("TCP server socket");
		setsockopt(t, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (i)
			setsockopt(t, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
		if (bind(t, sa[i], sl[i]) || listen(t, 128))
			fuzz_fail("TCP server bind/listen on loopback");
		fuzz_tcp_srv[i] = t;
		fuzz_srv_add(t, FUZZ_SRV_LISTEN, (unsigned int)i);

		a4.sin_port = htons(FZ_UDP_PORT);
		a6.sin6_port = htons(FZ_UDP_PORT);
		u = socket(af, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (u < 0)
			fuzz_fail("UDP server socket");
		if (i)
			setsockopt(u, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
		if (bind(u, sa[i], sl[i]))
			fuzz_fail("UDP server bind on loopback");
		fuzz_udp_srv[i] = u;
		fuzz_srv_add(u, FUZZ_SRV_UDP, (unsigned int)i);
	}
}

/**
 * fuzz_servers_run() - accept, echo TCP data and UDP datagrams
 */
static void fuzz_servers_run(void)
{
	static uint8_t buf[FUZZ_IO_MAX];
	struct epoll_event ev[FUZZ_EVENTS_MAX];
	int n, i;

	n = epoll_wait(fuzz_srv_epfd, ev, FUZZ_EVENTS_MAX, 0);
	for (i = 0; i < n; i++) {
		unsigned int kind = (unsigned int)(ev[i].data.u64 >> 32);
		unsigned int idx = (unsigned int)ev[i].data.u64;
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		ssize_t len;
		int s;

		switch (kind) {
		case FUZZ_SRV_LISTEN:
			while ((s = accept4(fuzz_tcp_srv[idx], NULL, NULL,
					    SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				unsigned int k = fuzz_conn_next++ %
						 FUZZ_CONNS_MAX;

				if (fuzz_conns[k] >= 0)
					close(fuzz_conns[k]);
				fuzz_conns[k] = s;
				fuzz_srv_add(s, FUZZ_SRV_CONN, k);
			}
			break;
		case FUZZ_SRV_UDP:
			len = recvfrom(fuzz_udp_srv[idx], buf, sizeof(buf), 0,
				       (struct sockaddr *)&from, &fl);
			if (len >= 0)
				sendto(fuzz_udp_srv[idx], buf, (size_t)len,
				       MSG_DONTWAIT,
				       (struct sockaddr *)&from, fl);
			break;
		case FUZZ_SRV_CONN:
			s = fuzz_conns[idx];
			if (s < 0)
				break;
			len = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
			if (len > 0) {
				send(s, buf, (size_t)len,
				     MSG_DONTWAIT | MSG_NOSIGNAL);
			} else if (len == 0 || (errno != EAGAIN &&
						errno != EWOULDBLOCK)) {
				close(s);
				fuzz_conns[idx] = -1;
			}
			break;
		default:
			break;
		}
	}
}

/**
 * fuzz_connect() - open a connection to a port the relay forwards
 * @v6:		from and to ::1, else 127.0.0.1
 * @port:	port the relay listens on
 *
 * The connection is then served like the accepted ones: what the relay
 * writes to it is echoed back.
 *
 * Return: its local port, 0 on failure
 */
uint16_t fuzz_connect(bool v6, uint16_t port)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port),
				   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	union {
		struct sockaddr sa;
		struct sockaddr_in a4;
		struct sockaddr_in6 a6;
	} local;
	socklen_t sl = sizeof(local);
	unsigned int k;
	uint16_t lport;
	int s, rc;

	s = socket(v6 ? AF_INET6 : AF_INET,
		   SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return 0;
	if (v6)
		rc = connect(s, (struct sockaddr *)&a6, sizeof(a6));
	else
		rc = connect(s, (struct sockaddr *)&a4, sizeof(a4));
	memset(&local, 0, sizeof(local));
	if ((rc && errno != EINPROGRESS) || getsockname(s, &local.sa, &sl)) {
		close(s);
		return 0;
	}
	lport = ntohs(v6 ? local.a6.sin6_port : local.a4.sin_port);

	k = fuzz_conn_next++ % FUZZ_CONNS_MAX;
	if (fuzz_conns[k] >= 0)
		close(fuzz_conns[k]);
	fuzz_conns[k] = s;
	fuzz_srv_add(s, FUZZ_SRV_CONN, k);
	return lport;
}

/**
 * fuzz_guest_read() - read what the relay sent to the guest, check framing
 */
static void fuzz_guest_read(void)
{
	while (fuzz_guest >= 0) {
		size_t off = 0;
		ssize_t n;

		n = recv(fuzz_guest, fuzz_rx + fuzz_rx_fill,
			 sizeof(fuzz_rx) - fuzz_rx_fill, MSG_DONTWAIT);
		if (n <= 0) {
			if (fuzz_listening && (n == 0 || errno != EAGAIN)) {
				fuzz_guest_eof = true;	/* may connect again */
				return;
			}
			if (n == 0 || (errno != EAGAIN &&
				       errno != EWOULDBLOCK)) {
				fprintf(stderr, "fuzz harness: guest socket "
					"closed by the relay\n");
				abort();
			}
			return;
		}
		fuzz_rx_fill += (size_t)n;

		while (fuzz_rx_fill - off >= 4) {
			uint32_t len = fz_get32(fuzz_rx + off);

			if (len < 14 || len > FZ_FRAME_MAX) {
				fprintf(stderr, "fuzz harness: relay sent a "
					"frame of impossible length %u\n",
					len);
				abort();
			}
			if (fuzz_rx_fill - off - 4 < len)
				break;
			if (fuzz_out)
				fuzz_out(fuzz_rx + off + 4, len);
			off += 4 + len;
		}
		memmove(fuzz_rx, fuzz_rx + off, fuzz_rx_fill - off);
		fuzz_rx_fill -= off;
	}
}

/**
 * fuzz_dispatch() - hand one event of the relay's epoll set to its handler
 * @ev:		the event
 */
static void fuzz_dispatch(const struct epoll_event *ev)
{
	union epoll_ref ref = { .u64 = ev->data.u64 };
	struct ctx *c = &fuzz_ctx;

	switch (ref.type) {
	case EPOLL_TYPE_TAP_STREAM:
	case EPOLL_TYPE_TAP_LISTEN:
	case EPOLL_TYPE_VHOST_CMD:
	case EPOLL_TYPE_VHOST_KICK:
	case EPOLL_TYPE_VHOST_LISTEN:
		tap_handler(c, ref, ev->events, fuzz_now);
		net_input_done(c);
		break;
	case EPOLL_TYPE_TCP:
		tcp_sock_handler(c, ref, ev->events, fuzz_now);
		break;
	case EPOLL_TYPE_TCP_LISTEN:
		tcp_listen_handler(c, ref, ev->events, fuzz_now);
		break;
	case EPOLL_TYPE_UDP:
		udp_sock_handler(c, ref, ev->events, fuzz_now);
		break;
	case EPOLL_TYPE_PING:
		icmp_sock_handler(c, ref, ev->events, fuzz_now);
		break;
	case EPOLL_TYPE_MCAST:
		mcast_sock_handler(c, ref, ev->events, fuzz_now);
		break;
	default:	/* the timer runs on virtual time, in fuzz_pump() */
		break;
	}
}

/**
 * fuzz_pump() - run main loop iterations without waiting
 * @rounds:	number of iterations
 */
void fuzz_pump(unsigned int rounds)
{
	struct epoll_event ev[FUZZ_EVENTS_MAX];
	struct ctx *c = &fuzz_ctx;
	unsigned int r;
	int n, i;

	for (r = 0; r < rounds; r++) {
		n = epoll_wait(c->epollfd, ev, FUZZ_EVENTS_MAX, 0);
		for (i = 0; i < n; i++)
			fuzz_dispatch(&ev[i]);

		timer_handler(c, fuzz_now);
		tcp_defer_handler(c, fuzz_now);
		qdisc_run(c, fuzz_now);

		fuzz_servers_run();
		fuzz_guest_read();
	}
}

/**
 * fuzz_frame_in() - one frame from the guest, then a few loop iterations
 * @frame:	frame, from its Ethernet header
 * @len:	its length
 */
void fuzz_frame_in(const uint8_t *frame, size_t len)
{
	static uint8_t buf[2 + FZ_FRAME_MAX] __attribute__((aligned(8)));

	/* As the stream backend does: in place in a buffer that stays put
	 * until net_input_done(), the IP header 4-byte aligned
	 */
	if (len > FZ_FRAME_MAX)
		len = FZ_FRAME_MAX;
	memcpy(buf + 2, frame, len);
	tap_frame_in(&fuzz_ctx, buf + 2, len, fuzz_now);
	net_input_done(&fuzz_ctx);
	fuzz_pump(2);
}

/**
 * fuzz_advance() - move virtual time forward and run what is due
 * @ms:		milliseconds
 */
void fuzz_advance(uint64_t ms)
{
	fuzz_now += ms;
	fuzz_pump(1);
}

/**
 * fuzz_tick() - account for one input: a step of time, sometimes idling
 */
void fuzz_tick(void)
{
	if (++fuzz_inputs % FUZZ_IDLE_EVERY == 0) {
		fuzz_advance(FUZZ_IDLE_MS);
		fuzz_advance(FUZZ_IDLE_MS);
	} else {
		fuzz_advance(FUZZ_STEP_MS);
	}
}

/**
 * fuzz_set_out() - set the hook that sees frames sent to the guest
 * @fn:		hook, NULL for none
 */
void fuzz_set_out(fuzz_out_fn fn)
{
	fuzz_out = fn;
}

/**
 * fuzz_guest_set() - read what the relay writes from a guest connection
 * @fd:		our end of a connection to the -s socket, -1 for none (the
 *		caller closes it)
 */
void fuzz_guest_set(int fd)
{
	fuzz_guest = fd;
	fuzz_guest_eof = false;
	fuzz_rx_fill = 0;
}

/**
 * fuzz_guest_hung_up() - tell if the relay closed the guest connection
 *
 * Return: true once the end of the stream was read on it
 */
bool fuzz_guest_hung_up(void)
{
	return fuzz_guest_eof;
}

/**
 * enum fuzz_mode - how the harness's relay serves the guest
 * @FUZZ_MODE_FD:		stream backend, -F with a socket pair
 * @FUZZ_MODE_VHOST_USER:	--vhost-user, listening on a socket path
 * @FUZZ_MODE_STREAM:		stream backend, listening on a socket path
 */
enum fuzz_mode {
	FUZZ_MODE_FD,
	FUZZ_MODE_VHOST_USER,
	FUZZ_MODE_STREAM,
};

/**
 * fuzz_start() - start the relay, once per process
 * @mode:	enum fuzz_mode
 */
static void fuzz_start(enum fuzz_mode mode)
{
	struct ctx *c = &fuzz_ctx;
	char fdbuf[16];
	char *argv[] = {
		"passt", "-f", "-q",
		"-a", "10.0.2.15/24", "-g", "10.0.2.2",
		"-a", "fd00::15/64", "-g", "fd00::2",
		"-D", "10.0.2.3", "-D", "fd00::3", "-S", "example.org",
		"-H", "fuzzguest", "--fqdn", "fuzzguest.example.org",
		"-t", FUZZ_STR(FZ_TCP_FWD_PORT), "-u", FUZZ_STR(FZ_UDP_FWD_PORT),
		"--max-flows", "512", "--mcast-ports", "5353",
		"-F", fdbuf, NULL, NULL,
	};
	int argc = (int)(sizeof(argv) / sizeof(argv[0])) - 2;
	struct rlimit lim;
	int sv[2];

	if (fuzz_ready)
		return;

	if (mode != FUZZ_MODE_FD) {
		if (!mkdtemp(fuzz_sock_dir))
			fuzz_fail("mkdtemp() for the relay's socket");
		snprintf(fuzz_sock, sizeof(fuzz_sock), "%s/%s.sock",
			 fuzz_sock_dir, mode == FUZZ_MODE_STREAM ? "stream"
								 : "vu");
		argc -= 2;	/* instead of -F */
		if (mode == FUZZ_MODE_VHOST_USER)
			argv[argc++] = "--vhost-user";
		argv[argc++] = "-s";
		argv[argc++] = fuzz_sock;
		fuzz_listening = mode == FUZZ_MODE_STREAM;
	} else {
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
			fuzz_fail("socketpair()");
		fuzz_guest = sv[1];
		snprintf(fdbuf, sizeof(fdbuf), "%d", sv[0]);
	}

	if (!getrlimit(RLIMIT_NOFILE, &lim)) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}

	log_init("passt");
	conf_defaults(c, MODE_PASST);
	conf(c, argc, argv);
	fuzz_verbose = getenv("FUZZ_LOG") != NULL;
	log_to_stderr(fuzz_verbose);
	log_set_level(getenv("FUZZ_TRACE") ? LOG_TRACE : LOG_DEBUG);

	c->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epollfd < 0)
		fuzz_fail("epoll_create1()");
	if (flow_table_init(c->flow_max) || qdisc_init(c->flow_max))
		fuzz_fail("flow table and qdisc set-up");
	if (timer_wheel_init(c, c->epollfd))
		fuzz_fail("timer wheel set-up");
	guest_init(c);
	relay_sink_set();
	if (tap_init(c))
		fuzz_fail("guest backend set-up");
	if (tcp_init(c) || udp_init(c) || fwd_listen_init(c) || icmp_init(c) ||
	    mcast_init(c))
		fuzz_fail("TCP, UDP, ICMP or multicast set-up");
	if (mode != FUZZ_MODE_FD)
		atexit(fuzz_sock_cleanup);

	fuzz_servers_init();
	fuzz_now = timer_now_ms();
	fuzz_ready = true;
	fuzz_pump(2);
}

/**
 * fuzz_init() - start the relay with the stream backend, once per process
 */
void fuzz_init(void)
{
	fuzz_start(FUZZ_MODE_FD);
}

/**
 * fuzz_init_vhost_user() - start the relay with --vhost-user, once
 *
 * Return: the path of the socket it listens on
 */
const char *fuzz_init_vhost_user(void)
{
	fuzz_start(FUZZ_MODE_VHOST_USER);
	return fuzz_sock;
}

/**
 * fuzz_init_stream() - start the relay listening on a -s path, once
 *
 * Return: the path of the socket it listens on
 */
const char *fuzz_init_stream(void)
{
	fuzz_start(FUZZ_MODE_STREAM);
	return fuzz_sock;
}
