// SPDX-License-Identifier: GPL-2.0-or-later
/* guest_sock.c - one guest at a time on a UNIX socket, for passt's backends
 *
 * Theory of operation
 *
 * Both passt backends (stream/, QEMU's -netdev stream; vhost_user/) reach
 * their guest through a UNIX stream socket, and both live the same life,
 * which is here; only what a connection carries is theirs (struct
 * guest_sock_ops).
 *
 * Start (guest_sock_init()): with -F/--fd, the caller gave us a connected
 * socket (QEMU 10.1 "-netdev passt"): it is the guest, for one connection
 * only. Otherwise we listen at the -s path, or at the first free
 * /tmp/passt_N.socket (sock_path.c: stale sockets are removed, live ones
 * never touched; the file is 0600), and print how to connect QEMU.
 *
 * Accept (guest_sock_accept()): only from the user who started us or root
 * (unix_sock_accept(): others are closed and counted as conn_refused). One
 * guest is served at a time: while it is attached, the listening socket
 * is out of the epoll set and newer connections wait in its backlog (so
 * a QEMU that reconnects before we noticed the old connection go is
 * served right after, not refused).
 *
 * Attach: the socket is made non-blocking, the backend resets its state
 * for it and names its epoll reference, and it joins the epoll set for
 * input and hang-up.
 *
 * End (guest_sock_gone(), after the backend closed the socket): with
 * -1/--one-off we exit, and so we do with --migrate-exit once the guest
 * migrated away; after a migration away we never exit for --one-off (that
 * would close sockets the guest's peers may still send to, and they would
 * get resets); otherwise we listen again.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "guest_sock.h"
#include "sock_path.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/syscalls.h"
#include "../util/unix_sock.h"

/* System calls after start-up: a guest's connection, taken and watched */
SYSCALLS(SYSCALLS_PASST_ANY,
	 SYSCALLS_CALL("accept4", "a guest on the passt socket"),
	 SYSCALLS_CALL("epoll_ctl", "watch the guest, the listening socket"),
	 SYSCALLS_CALL("close", "a guest that can't be watched"),
	 SYSCALLS_CALL_IF("fcntl", "the guest socket's flags",
			  SYSCALLS_ARG_EQ(1, F_GETFL)),
	 SYSCALLS_CALL_IF("fcntl", "the guest socket, non-blocking",
			  SYSCALLS_ARG_EQ(1, F_SETFL)));

/**
 * guest_sock_listen_enable() - add or remove the listening socket from epoll
 * @c:		execution context
 * @gs:		the backend's socket
 * @on:		true to accept connections, false to leave them waiting
 */
static void guest_sock_listen_enable(const struct ctx *c,
				     struct guest_sock *gs, bool on)
{
	union epoll_ref ref = { .type = gs->ops->listen_type };
	struct epoll_event ev = { .events = EPOLLIN };

	if (gs->listen_fd < 0 || on == gs->listening)
		return;

	ref.fd = (uint32_t)gs->listen_fd;
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL,
		      gs->listen_fd, &ev)) {
		die_perror("can't %s listening socket %s %s epoll",
			   on ? "add" : "remove", gs->path,
			   on ? "to" : "from");
	}
	gs->listening = on;
}

/**
 * guest_sock_attach() - start serving a connected socket
 * @c:		execution context
 * @gs:		the backend's socket
 * @fd:		connected stream socket
 *
 * Return: 0 on success, negative errno (logged, @fd closed)
 */
static int guest_sock_attach(const struct ctx *c, struct guest_sock *gs,
			     int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	union epoll_ref ref;
	int flags, ret;

	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK)) {
		ret = -errno;
		err("can't make the %s socket non-blocking: %s",
		    gs->ops->peer, strerror(-ret));
		close(fd);
		return ret;
	}

	*gs->ops->fd = fd;
	ref = gs->ops->attach(c);
	ev.data.u64 = ref.u64;
	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev)) {
		ret = -errno;
		err("can't add the %s socket to epoll: %s", gs->ops->peer,
		    strerror(-ret));
		close(fd);
		*gs->ops->fd = -1;
		return ret;
	}

	return 0;
}

/**
 * guest_sock_init() - listen for the guest, or adopt the -F socket
 * @c:		execution context
 * @gs:		the backend's socket
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int guest_sock_init(struct ctx *c, struct guest_sock *gs)
{
	int fd;

	if (c->fd_tap_preopened >= 0) {
		fd = c->fd_tap_preopened;
		if (tap_sock_adopt(fd))
			return -ENOTSOCK;
		if (guest_sock_attach(c, gs, fd))
			return -EBADF;
		info("Serving the %s on socket descriptor %i%s", gs->ops->peer,
		     fd, c->one_off ? " (one-off)" : "");
		return 0;
	}

	fd = tap_sock_listen(c, gs->path, sizeof(gs->path));
	if (fd < 0)
		return fd;

	gs->listen_fd = fd;
	guest_sock_listen_enable(c, gs, true);

	info("UNIX domain socket bound at %s%s", gs->path, gs->ops->suffix);
	info("Connect QEMU (7.2 or later) to it with:");
	info("    qemu-system-x86_64 ... %s%s%s", gs->ops->hint[0], gs->path,
	     gs->ops->hint[1]);
	return 0;
}

/**
 * guest_sock_accept() - a connection on the listening socket: serve it
 * @c:		execution context
 * @gs:		the backend's socket
 */
void guest_sock_accept(const struct ctx *c, struct guest_sock *gs)
{
	char what[sizeof(gs->path) + 32];
	struct ucred cred;
	int fd;

	if (*gs->ops->fd >= 0) {
		/* Wait in the backlog: stop being woken up for it */
		guest_sock_listen_enable(c, gs, false);
		return;
	}

	snprintf(what, sizeof(what), "%s socket %s", gs->ops->peer, gs->path);
	fd = unix_sock_accept(gs->listen_fd, 0, what, &cred,
			      gs->ops->conn_refused);
	if (fd < 0) {
		if (fd != -EAGAIN && fd != -EPERM && fd != -ECONNABORTED)
			warn("can't accept a guest on %s: %s", gs->path,
			     strerror(-fd));
		return;
	}

	if (guest_sock_attach(c, gs, fd))
		return;

	info("Accepted guest connection from PID %i%s", cred.pid,
	     gs->ops->suffix);
	guest_sock_listen_enable(c, gs, false);
}

/**
 * guest_sock_gone() - the backend closed its guest: exit, or listen again
 * @c:		execution context
 * @gs:		the backend's socket
 * @why:	reason, for the log
 * @away:	the guest migrated away (vhost-user)
 */
void guest_sock_gone(const struct ctx *c, struct guest_sock *gs,
		     const char *why, bool away)
{
	if (away && c->migrate_exit) {
		info("Guest connection closed (%s), the guest migrated away: "
		     "exiting (--migrate-exit)", why);
		exit(EXIT_SUCCESS);
	}

	if (c->one_off && !away) {
		info("Guest connection closed (%s), exiting (one-off)", why);
		exit(EXIT_SUCCESS);
	}

	info("Guest connection closed (%s)%s", why,
	     away ? ", the guest migrated away" : "");
	guest_sock_listen_enable(c, gs, true);
}
