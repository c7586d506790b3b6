// SPDX-License-Identifier: GPL-2.0-or-later
/* passt.c - start-up and the main loop
 *
 * Theory of operation
 *
 * One binary, two programs: invoked as "pasta" (any name starting with
 * it) the relay connects a network namespace through a tap device;
 * otherwise it is passt, for a VM over a UNIX stream socket.
 *
 * Start-up order: parse the command line and read the host's
 * configuration (conf/); allocate every table once (flows, output queue,
 * timers); set up the guest side (pasta: spawn or join the namespace, open
 * and configure the tap device; passt: bind the socket); open the
 * forwarded ports; the sandbox's namespaces with an empty root
 * (isolation/sandbox.c), before the fork because its PID namespace takes
 * children only; fork to the background if asked (the parent waits until
 * set-up is over, util/daemon.c); the rest of the sandbox: pasta's worker
 * thread in the target namespace, the --runas user, capabilities, and the
 * seccomp filter; then the PID file, and the parent exits with status 0,
 * or with the child's if it failed; a spawned command is released last,
 * once nothing can fail. A failure before the sandbox removes the sockets
 * bound so far.
 *
 * The main loop is one epoll set. Every descriptor carries a typed
 * reference (util/epoll_ref.h), so events go straight to their handler.
 * After the events of one wait, deferred TCP work runs once (ACKs and
 * dropping acknowledged data, per connection), then the output scheduler
 * serves flows with data and flushes the frames built in this iteration
 * to the guest: nothing waits for a later iteration (design.md invariant
 * 1). If the scheduler still has flows ready, the next wait does not
 * block.
 *
 * With --busy-poll USEC, an iteration that moved traffic opens a window of
 * USEC microseconds, from its end, in which the loop polls the epoll set
 * (epoll_wait() with a zero timeout) instead of sleeping: the next frame
 * or reply found there costs no wake-up. Once the window passes without
 * traffic, the loop sleeps as without the option, so an idle relay burns
 * no CPU; timers and signals don't open a window.
 */

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>

#include "conf/ctx.h"
#include "conf/conf.h"
#include "conf/netlink.h"
#include "fwd/fwd_auto.h"
#include "flow/flow.h"
#include "fwd/fwd_ctl.h"
#include "fwd/fwd_listen.h"
#include "fwd/mcast.h"
#include "isolation/pasta.h"
#include "isolation/sandbox.h"
#include "util/syscalls.h"
#include "migrate/migrate.h"
#include "migrate/repair.h"
#include "net/icmp.h"
#include "net/net.h"
#include "net/neigh.h"
#include "guest/follow.h"
#include "qdisc/qdisc.h"
#include "stream/stream.h"
#include "tap/tap.h"
#include "tcp/tcp.h"
#include "tcp/tcp_splice.h"
#include "udp/udp.h"
#include "util/daemon.h"
#include "util/epoll_ref.h"
#include "util/idle_trim.h"
#include "util/log.h"
#include "util/timer.h"
#include "util/unix_sock.h"
#include "util/util.h"
#include "vhost_user/vhost_user.h"
#include "util/ns_worker.h"
#include "guest/guest.h"

#define EPOLL_EVENTS_MAX	128

/* System calls after start-up: the main loop, signals */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("epoll_wait|epoll_pwait",
		       "the main loop's wait, and --busy-poll's polls"),
	 SYSCALLS_CALL("read", "SIGTERM, SIGINT, SIGHUP, SIGUSR1: signalfd"));

static struct ctx passt_ctx;
static struct wheel_timer passt_stats_timer;
static struct wheel_timer passt_ra_timer;

/* The guest's frames go up to net/; a backend with room again flushes the
 * qdisc, which sends what waits for the guest
 */
static const struct tap_sink passt_tap_sink = {
	.input = net_input,
	.input_done = net_input_done,
	.writable = qdisc_flush,
};

/**
 * passt_stats_log() - log every module's counters (SIGUSR1, --stats)
 */
static void passt_stats_log(void)
{
	tap_stats_log();
	net_stats_log();
	tcp_stats_log();
	udp_stats_log();
	icmp_stats_log();
	mcast_stats_log();
	fwd_ctl_stats_log();
	qdisc_stats_log();
	repair_stats_log();
}

/**
 * passt_stats_timer_fn() - --stats DELAY: log counters periodically
 * @c:		execution context
 * @t:		the stats timer
 * @now_ms:	current time
 */
static void passt_stats_timer_fn(const struct ctx *c, struct wheel_timer *t,
				 uint64_t now_ms)
{
	passt_stats_log();
	timer_arm(t, now_ms + (uint64_t)c->stats_delay * 1000);
}

/**
 * passt_ra_timer_fn() - repeat the router advertisement (net/ndp.c)
 * @c:		execution context
 * @t:		the timer
 * @now_ms:	current time
 */
static void passt_ra_timer_fn(const struct ctx *c, struct wheel_timer *t,
			      uint64_t now_ms)
{
	net_ndp_unsolicited(c);
	timer_arm(t, now_ms + NET_RA_INTERVAL_MS);
}

static int passt_sigfd = -1;	/* signalfd of termination signals */
static bool passt_setup_paths;	/* set-up may fail, paths still resolve */

/**
 * passt_signals_init() - ignore SIGPIPE, route SIGTERM/SIGINT/SIGUSR1 to epoll
 * @c:		execution context
 */
static void passt_signals_init(const struct ctx *c)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_SIGNAL };
	struct epoll_event ev = { .events = EPOLLIN };
	sigset_t mask;
	int fd;

	signal(SIGPIPE, SIG_IGN);

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		die_perror("Can't block termination signals");

	fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0)
		die_perror("Can't create a signalfd");
	passt_sigfd = fd;

	ref.fd = fd;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev))
		die_perror("Can't add the signalfd to the epoll set");
}

/**
 * passt_signals_rearm() - register the signalfd again, after fork()
 * @c:		execution context
 *
 * epoll reports a signalfd ready only for signals sent to the process that
 * added it to the set (see signalfd(2)): once in the background, the child
 * must add it again, or SIGTERM would never be noticed.
 */
static void passt_signals_rearm(const struct ctx *c)
{
	union epoll_ref ref = { .type = EPOLL_TYPE_SIGNAL };
	struct epoll_event ev = { .events = EPOLLIN };

	ref.fd = (uint32_t)passt_sigfd;
	ev.data.u64 = ref.u64;
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, passt_sigfd, NULL);
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, passt_sigfd, &ev))
		die_perror("Can't add the signalfd to the epoll set");
}

/**
 * passt_follow_ns() - pasta --config-net: the namespace follows the host
 * @c:		execution context
 * @old4:	IPv4 settings before the change
 * @old6:	IPv6 settings before the change
 */
static void passt_follow_ns(const struct ctx *c, const struct ip4_ctx *old4,
			    const struct ip6_ctx *old6)
{
	(void)nl_ns_follow(c, c->pasta_ifname, old4, follow_ip4(c), old6,
			   follow_ip6(c));
}

/**
 * passt_follow_guest() - the host moved: tell the guest what NDP can
 * @c:		execution context
 * @old4:	IPv4 settings before the change
 * @old6:	IPv6 settings before the change
 */
static void passt_follow_guest(const struct ctx *c,
			       const struct ip4_ctx *old4,
			       const struct ip6_ctx *old6)
{
	(void)old4;
	net_ndp_follow(c, old6);
}

/**
 * passt_follow_init() - watch the host's network and resolver file; pasta
 *			 --config-net: the namespace follows the network
 * @c:		execution context
 */
static void passt_follow_init(const struct ctx *c)
{
	int nl_ret;

	follow_init(c);	/* readers had the context's identical values so far */
	nl_ret = follow_watch_init(c);
	if ((follow_resolv_init(c) && nl_ret) || c->no_follow_host)
		return;
	if ((c->mode == MODE_PASTA && c->pasta_conf_ns &&
	     follow_register(passt_follow_ns)) ||
	    follow_register(passt_follow_guest))
		die("Can't register what follows the host's network");
}

/**
 * passt_signal_handler() - SIGUSR1: log counters; others: exit cleanly
 * @ref:	epoll reference of the signalfd
 */
static void passt_signal_handler(union epoll_ref ref)
{
	struct signalfd_siginfo si;

	if (read((int)ref.fd, &si, sizeof(si)) != sizeof(si))
		return;

	if (si.ssi_signo == SIGUSR1) {
		passt_stats_log();
		return;
	}

	info("Got signal %u, exiting", si.ssi_signo);
	exit(EXIT_SUCCESS);
}

/**
 * passt_raise_nofile() - raise the open files limit to its hard maximum
 */
static void passt_raise_nofile(void)
{
	struct rlimit lim;

	if (getrlimit(RLIMIT_NOFILE, &lim))
		return;
	lim.rlim_cur = lim.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &lim))
		debug_perror("Can't raise the open files limit");
}

/**
 * passt_dispatch() - hand one epoll event to its handler
 * @c:		execution context
 * @ev:		the event
 * @now_ms:	current time
 */
static void passt_dispatch(const struct ctx *c, const struct epoll_event *ev,
			   uint64_t now_ms)
{
	union epoll_ref ref = { .u64 = ev->data.u64 };

	switch (ref.type) {
	case EPOLL_TYPE_TAP_PASTA:
	case EPOLL_TYPE_TAP_STREAM:
	case EPOLL_TYPE_TAP_LISTEN:
	case EPOLL_TYPE_VHOST_CMD:
	case EPOLL_TYPE_VHOST_KICK:
	case EPOLL_TYPE_VHOST_LISTEN:
		tap_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_TCP:
		tcp_sock_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_TCP_LISTEN:
		tcp_listen_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_TCP_SPLICE:
		tcp_splice_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_TCP_SPLICE_LISTEN:
		tcp_splice_listen_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_UDP:
		udp_sock_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_PING:
		icmp_sock_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_TIMER:
		timer_handler(c, now_ms);
		break;
	case EPOLL_TYPE_NSQUIT_INOTIFY:
	case EPOLL_TYPE_NSQUIT_PIDFD:
		pasta_watch_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_SIGNAL:
		passt_signal_handler(ref);
		break;
	case EPOLL_TYPE_CONF_LISTEN:
	case EPOLL_TYPE_CONF:
		fwd_ctl_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_MCAST:
		mcast_sock_handler(c, ref, ev->events, now_ms);
		break;
	case EPOLL_TYPE_REPAIR_LISTEN:
	case EPOLL_TYPE_REPAIR:
		repair_handler(c, ref, ev->events);
		break;
	case EPOLL_TYPE_NEIGH:
		neigh_handler(c);
		break;
	case EPOLL_TYPE_FOLLOW:
		follow_watch_handler(c);
		break;
	case EPOLL_TYPE_FOLLOW_RESOLV:
		follow_resolv_handler(c);
		break;
	default:
		debug("Event for unknown descriptor type %u", ref.type);
		break;
	}
}

/**
 * passt_is_traffic() - tell if an event is data moving through the relay
 * @type:	epoll type of the event
 *
 * Timers, netlink neighbour updates, signals and the configuration socket
 * don't delay the hand-back of idle buffers (util/idle_trim.c): they don't
 * use those buffers.
 *
 * Return: true for the guest's side, sockets of flows and their listeners
 */
static bool passt_is_traffic(uint8_t type)
{
	switch (type) {
	case EPOLL_TYPE_TAP_PASTA:
	case EPOLL_TYPE_TAP_STREAM:
	case EPOLL_TYPE_VHOST_KICK:
	case EPOLL_TYPE_TCP:
	case EPOLL_TYPE_TCP_LISTEN:
	case EPOLL_TYPE_TCP_SPLICE:
	case EPOLL_TYPE_TCP_SPLICE_LISTEN:
	case EPOLL_TYPE_UDP:
	case EPOLL_TYPE_PING:
	case EPOLL_TYPE_MCAST:
		return true;
	default:
		return false;
	}
}

/**
 * passt_wait() - wait for events, polling first inside a --busy-poll window
 * @c:		execution context
 * @events:	room for EPOLL_EVENTS_MAX events
 * @spin_end_us: end of the busy-poll window (timer_now_us()), 0 if none
 *
 * Return: number of events, or -1 with errno set, as epoll_wait()
 */
static int passt_wait(const struct ctx *c, struct epoll_event *events,
		      uint64_t spin_end_us)
{
	if (qdisc_has_ready(c))
		return epoll_wait(c->epollfd, events, EPOLL_EVENTS_MAX, 0);

	/* The clock is the vDSO's: no system call but the waits */
	while (spin_end_us && timer_now_us() < spin_end_us) {
		int n = epoll_wait(c->epollfd, events, EPOLL_EVENTS_MAX, 0);

		if (n)
			return n;
	}

	return epoll_wait(c->epollfd, events, EPOLL_EVENTS_MAX, -1);
}

/**
 * passt_loop() - the main loop: wait, dispatch, defer, schedule, flush
 * @c:		execution context
 */
static void __attribute__((noreturn)) passt_loop(const struct ctx *c)
{
	struct epoll_event events[EPOLL_EVENTS_MAX];
	uint64_t spin_end_us = 0;

	for (;;) {
		bool traffic = false;
		uint64_t now_ms;
		int n, i;

		n = passt_wait(c, events, spin_end_us);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die_perror("epoll_wait failed");
		}

		now_ms = timer_now_ms();
		for (i = 0; i < n; i++) {
			union epoll_ref ref = { .u64 = events[i].data.u64 };

			passt_dispatch(c, &events[i], now_ms);
			traffic |= passt_is_traffic(ref.type);
		}
		if (traffic)
			idle_trim_traffic(now_ms);

		tcp_defer_handler(c, now_ms);
		qdisc_run(c, now_ms);

		if (traffic && c->busy_poll_us)
			spin_end_us = timer_now_us() + c->busy_poll_us;

#ifdef PASST_DEBUG
		/* design.md invariant 2, checked in debug builds */
		if (!qdisc_wakeup_ok(c))
			die("BUG: output pending toward the guest, but no "
			    "wake-up armed: the relay would stall");
#endif
	}
}

/**
 * passt_cleanup() - at exit: remove our sockets if set-up didn't finish
 *
 * Registered with atexit(): die() during set-up leaves no socket behind
 * for a launcher to find. Off once the sandbox took the paths away (the
 * seccomp filter would not allow unlink() anyway). pasta exiting with the
 * status of the command it spawned leaves its tap device to the end of
 * the command's namespace, not to its own exit (tap_leave_to_netns()).
 */
static void passt_cleanup(void)
{
	if (passt_setup_paths)
		unix_sock_unlink_ours();
	if (passt_ctx.mode == MODE_PASTA && pasta_netns_ends())
		tap_leave_to_netns();
}

/**
 * passt_finish_setup() - sandbox, go to the background, report readiness
 * @c:		execution context
 * @pidfile_fd:	PID file from daemon_pidfile_open(), -1 for none
 *
 * The sandbox's namespaces come before the fork: a new PID namespace takes
 * the children only, so the process that stays in the background is the
 * first one in it. In the background, the parent waits until the child
 * calls daemon_ready() or exits (util/daemon.c): every step here that can
 * fail still reaches the caller. A spawned command is released last, once
 * nothing can fail.
 */
static void passt_finish_setup(const struct ctx *c, int pidfile_fd)
{
	bool background = !c->foreground &&
			  !(c->mode == MODE_PASTA && pasta_child_pid());
	pid_t pid;

	if (background && !*c->log_file)
		log_to_syslog();

	/* Namespaces first: unshare() needs a single-threaded process */
	ns_worker_stop();
	sandbox_detach(c, background);
	passt_setup_paths = false;

	if (background) {
		daemon_fork();
		passt_signals_rearm(c);
	}

	if (c->stats_delay) {
		timer_init(&passt_stats_timer, passt_stats_timer_fn);
		timer_arm(&passt_stats_timer, timer_now_ms() +
			  (uint64_t)c->stats_delay * 1000);
	}
	timer_init(&passt_ra_timer, passt_ra_timer_fn);
	timer_arm(&passt_ra_timer, timer_now_ms() + NET_RA_INTERVAL_MS);

	/* Before dropping privileges: they are needed to enter the netns */
	if (c->mode == MODE_PASTA && ns_worker_start())
		die("Can't keep a thread in the target namespace");

	/* For the PID file: the seccomp filter has no getpid() */
	pid = getpid();
	sandbox_lockdown(c);

	/* Set-up is over: from now on, messages go to the log file or
	 * syslog only, and a spawned command may run
	 */
	if (background)
		daemon_ready(pidfile_fd, pid);
	else
		daemon_pidfile_write(pidfile_fd, pid);
	if (background || *c->log_file)
		log_to_stderr(false);
	if (c->mode == MODE_PASTA)
		pasta_child_start();
}

/**
 * main() - start-up, then the main loop
 * @argc:	argument count
 * @argv:	arguments
 *
 * Return: does not return on success; 1 on start-up failure
 */
int main(int argc, char **argv)
{
	struct ctx *c = &passt_ctx;
	char *name = basename(argv[0]);
	enum passt_mode mode;
	int pidfile_fd;

	mode = strncmp(name, "pasta", strlen("pasta")) ? MODE_PASST
							: MODE_PASTA;
	log_init(mode == MODE_PASTA ? "pasta" : "passt");
	idle_trim_init();	/* before any table is allocated */

	conf_defaults(c, mode);
	conf(c, argc, argv);	/* also sets up logging as asked */

	c->epollfd = epoll_create1(EPOLL_CLOEXEC);
	if (c->epollfd < 0)
		die_perror("Can't create the epoll set");

	passt_raise_nofile();
	passt_signals_init(c);

	if (flow_table_init(c->flow_max) || qdisc_init(c->flow_max))
		die("Can't allocate tables for %u flows: lower --max-flows",
		    c->flow_max);
	if (timer_wheel_init(c, c->epollfd))
		die_perror("Can't create the timer");

	if (c->mode == MODE_PASTA && pasta_open_ns(c))
		die("Can't set up the target network namespace");
	/* One thread in the namespace for the set-up calls, not one each */
	if (c->mode == MODE_PASTA && ns_worker_start())
		die("Can't keep a thread in the target namespace");

	passt_setup_paths = true;
	if (atexit(passt_cleanup))
		die("Can't register the clean-up at exit");

	guest_init(c);
	tap_sink_set(&passt_tap_sink);
	tuntap_register();
	stream_register();
	vu_register();
	if (tap_init(c))
		die("Can't set up the guest interface");
	if (c->mode == MODE_PASTA)
		pasta_guest_mac_init(c);

	if (tcp_init(c))
		die("Can't set up TCP forwarding");
	if (c->mode == MODE_PASTA && !c->no_tcp && tcp_splice_init(c))
		die("Can't set up TCP forwarding from the namespace (-T)");
	if (udp_init(c))
		die("Can't set up UDP forwarding");
	if (fwd_listen_init(c))
		die("Can't listen on the forwarded ports");
	if (icmp_init(c))
		die("Can't set up ICMP echo");
	if (fwd_auto_init(c))
		die("Can't follow listening ports (auto forwarding)");
	if (fwd_ctl_init(c))
		die("Can't set up the configuration socket (-c)");
	mcast_init(c);
	neigh_init(c);
	passt_follow_init(c);
	if (migrate_init(c))
		die("Can't set up the socket for passt-repair: see above, or "
		    "give --repair-path none");

	pidfile_fd = daemon_pidfile_open(c->pidfile);
	conf_print(c);

	if (c->mode == MODE_PASTA && pasta_watch_init(c))
		die("Can't watch the target namespace");

	idle_trim_init_end();	/* tables allocated, before any thread */
	passt_finish_setup(c, pidfile_fd);

	passt_loop(c);
}
