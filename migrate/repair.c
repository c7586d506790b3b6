// SPDX-License-Identifier: GPL-2.0-or-later
/* repair.c - passt's side of the passt-repair protocol
 *
 * Theory of operation
 *
 * Migrating a TCP connection needs its socket in repair mode (TCP_REPAIR,
 * tcp/tcp_repair.c), which only a process with CAP_NET_ADMIN can switch
 * on or off. passt has no capability; the passt-repair helper
 * (helper/passt_repair.c) has that one, and connects to the socket we
 * listen on here: --repair-path, by default the vhost-user socket's path
 * with ".repair" appended, created at start-up next to it.
 *
 * A process that gets its sockets into repair mode can take over other
 * users' connections, and the helper believes whoever it is connected to:
 * only the helper may reach us. The socket is created with mode 0600,
 * whatever the caller's umask (bind() under umask 0177: no moment with
 * other bits, no chmod() on a path that may have changed meanwhile), and
 * a connected process must run as our user (the one that created the
 * socket) or as root (SO_PEERCRED); any other is closed at once, logged,
 * and counted ("repair: refused=N" with the other counters). In a user
 * namespace of our own (unprivileged passt, isolation/sandbox.c), users
 * outside it, root included, show as the overflow uid and are refused: a
 * helper for an unprivileged passt runs as passt's user, with
 * CAP_NET_ADMIN (passt-repair(1)). One helper at a time: a second one is
 * accepted and closed at once, with a message.
 *
 * Requests follow the protocol of upstream passt (passt-repair(1)): one
 * signed byte, TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP, with
 * up to REPAIR_FDS_MAX sockets as SCM_RIGHTS; the helper answers with the
 * same byte, or closes the connection if it failed. repair_set() only
 * collects sockets; a full batch, a different command or repair_flush()
 * sends them, and waits (REPAIR_REPLY_MS at most) for the answer, so that
 * thousands of connections cost a few round trips. A failure closes our
 * end: a helper that failed once is not trusted with the rest.
 *
 * The helper is usually started with the migration, and it may connect
 * only just before: repair_wait() gives it REPAIR_WAIT_MS at that moment.
 * It exits when we close the connection, which migrate/ does once the
 * migration is over.
 */

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include "repair.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/unix_sock.h"
#include "../util/syscalls.h"

/* System calls after start-up: the helper's connection (--vhost-user:
 * restart_syscall after poll() is listed by mig_io.c)
 */
SYSCALLS(SYSCALLS_VU,
	 SYSCALLS_CALL("accept4", "passt-repair connects"),
	 SYSCALLS_CALL("getsockopt", "its credentials (SO_PEERCRED)"),
	 SYSCALLS_SETSOCKOPT("SO_RCVTIMEO, SO_SNDTIMEO", SOL_SOCKET),
	 SYSCALLS_CALL("poll|ppoll", "wait for the helper, for a while"),
	 SYSCALLS_CALL("sendmsg", "sockets to switch, as SCM_RIGHTS"),
	 SYSCALLS_CALL("recvfrom", "the helper's answer (recv())"),
	 SYSCALLS_CALL("epoll_ctl", "watch the helper's connection"),
	 SYSCALLS_CALL("close", "the helper's connection, when done"));

static int repair_listen_fd = -1;
static int repair_fd = -1;		/* the helper, -1 if none */
static uint64_t repair_refused;	/* peers of other users */
static char repair_sock[sizeof(((struct sockaddr_un *)0)->sun_path)];

static int repair_fds[REPAIR_FDS_MAX];	/* sockets of the next message */
static unsigned int repair_nfds;
static int8_t repair_cmd;

/**
 * repair_epoll() - add a descriptor of ours to the epoll set
 * @c:		execution context
 * @type:	EPOLL_TYPE_REPAIR_LISTEN or EPOLL_TYPE_REPAIR
 * @fd:		descriptor
 * @events:	epoll events
 *
 * Return: 0 on success, -errno on failure
 */
static int repair_epoll(const struct ctx *c, enum epoll_type type, int fd,
			uint32_t events)
{
	union epoll_ref ref = { .type = type, .fd = (uint32_t)fd };
	struct epoll_event ev = { .events = events, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	return 0;
}

/**
 * repair_init() - listen for the helper
 * @c:		execution context
 * @path:	socket path
 *
 * Return: 0 on success, negative errno on failure (logged)
 */
int repair_init(const struct ctx *c, const char *path)
{
	int fd, rc;

	if (strlen(path) >= sizeof(repair_sock)) {
		err("the passt-repair socket path %s is too long for a UNIX "
		    "socket: choose a shorter --repair-path", path);
		return -ENAMETOOLONG;
	}

	rc = unix_sock_probe(path);
	if (rc == -EADDRINUSE) {
		err("passt-repair socket %s is in use by another process: give "
		    "another --repair-path", path);
		return rc;
	}
	if (rc) {
		err("can't use %s for the passt-repair socket: %s", path,
		    strerror(-rc));
		return rc;
	}

	/* 0600 from bind() on: no chmod() after it */
	fd = unix_sock_listen(path, 1, S_IRUSR | S_IWUSR);
	if (fd < 0) {
		err("can't listen for passt-repair at %s: %s", path,
		    strerror(-fd));
		return fd;
	}
	rc = repair_epoll(c, EPOLL_TYPE_REPAIR_LISTEN, fd, EPOLLIN);
	if (rc) {
		err("can't add the passt-repair socket to epoll: %s",
		    strerror(-rc));
		close(fd);
		return rc;
	}

	repair_listen_fd = fd;
	snprintf(repair_sock, sizeof(repair_sock), "%s", path);
	info("Socket for passt-repair (TCP connections in migrations): %s",
	     path);
	return 0;
}

/**
 * repair_stats_log() - log the counters of the passt-repair socket
 */
void repair_stats_log(void)
{
	if (repair_listen_fd >= 0)
		info("repair: refused=%llu",
		     (unsigned long long)repair_refused);
}

/**
 * repair_path() - where the helper connects
 *
 * Return: the socket path, empty if none
 */
const char *repair_path(void)
{
	return repair_sock;
}

/**
 * repair_accept() - a helper connects: keep it, if we trust it and it is
 *		     the first
 * @c:		execution context
 */
static void repair_accept(const struct ctx *c)
{
	struct timeval tv = { .tv_sec = REPAIR_REPLY_MS / 1000,
			      .tv_usec = (REPAIR_REPLY_MS % 1000) * 1000 };
	char what[sizeof(repair_sock) + sizeof("passt-repair socket ")];
	struct ucred cred = { 0 };
	int fd, rc;

	snprintf(what, sizeof(what), "passt-repair socket %s", repair_sock);
	fd = unix_sock_accept(repair_listen_fd, 0, what, &cred,
			      &repair_refused);
	if (fd < 0) {
		if (fd != -EAGAIN && fd != -EPERM)
			warn("can't accept passt-repair at %s: %s",
			     repair_sock, strerror(-fd));
		return;
	}

	if (repair_fd >= 0) {
		info("Refusing a second passt-repair (PID %i): one is "
		     "connected already", cred.pid);
		close(fd);
		return;
	}

	/* Blocking, with timeouts: requests wait for their answer */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		warn_perror("passt-repair: can't set socket timeouts");
	rc = repair_epoll(c, EPOLL_TYPE_REPAIR, fd, EPOLLRDHUP | EPOLLHUP);
	if (rc) {
		warn("can't add passt-repair's socket to epoll: %s",
		     strerror(-rc));
		close(fd);
		return;
	}

	repair_fd = fd;
	info("passt-repair connected (PID %i): TCP connections can migrate",
	     cred.pid);
}

/**
 * repair_close() - close our end of the helper's connection (it exits)
 * @c:		execution context
 */
void repair_close(const struct ctx *c)
{
	if (repair_fd < 0)
		return;
	epoll_ctl(c->epollfd, EPOLL_CTL_DEL, repair_fd, NULL);
	close(repair_fd);
	repair_fd = -1;
	repair_nfds = 0;
	debug("passt-repair connection closed");
}

/**
 * repair_handler() - events on the listening socket or the helper's
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 */
void repair_handler(const struct ctx *c, union epoll_ref ref, uint32_t events)
{
	if (ref.type == EPOLL_TYPE_REPAIR_LISTEN) {
		repair_accept(c);
		return;
	}
	if ((int)ref.fd == repair_fd && (events & (EPOLLRDHUP | EPOLLHUP))) {
		info("passt-repair went away");
		repair_close(c);
	}
}

/**
 * repair_wait() - make sure a helper is connected, waiting a little
 * @c:		execution context
 * @ms:		how long to wait for one
 *
 * Return: true if one is connected
 */
bool repair_wait(const struct ctx *c, int ms)
{
	struct pollfd p = { .fd = repair_listen_fd, .events = POLLIN };

	if (repair_fd >= 0)
		return true;
	if (repair_listen_fd < 0)
		return false;
	if (poll(&p, 1, ms) > 0)
		repair_accept(c);
	return repair_fd >= 0;
}

/**
 * repair_send() - send the collected sockets, wait for the answer
 *
 * Return: 0 on success, -errno on failure (logged; the helper is closed)
 */
static int repair_send(void)
{
	union {
		char buf[CMSG_SPACE(REPAIR_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &repair_cmd, .iov_len = 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf };
	unsigned int n = repair_nfds;
	struct cmsghdr *cm;
	int8_t answer = 0;
	ssize_t r;

	repair_nfds = 0;
	memset(&ctl, 0, sizeof(ctl));
	mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cm), repair_fds, n * sizeof(int));

	do
		r = sendmsg(repair_fd, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r != 1) {
		err("can't send %u sockets to passt-repair: %s", n,
		    r < 0 ? strerror(errno) : "short write");
		return r < 0 ? -errno : -EIO;
	}

	do
		r = recv(repair_fd, &answer, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r != 1 || answer != repair_cmd) {
		if (r < 0)
			err("passt-repair didn't answer about %u sockets: %s",
			    n, strerror(errno));
		else if (!r)
			err("passt-repair failed to set TCP_REPAIR to %i on %u "
			    "sockets (it closed the connection: see its "
			    "output)", repair_cmd, n);
		else
			err("passt-repair answered %i to %i", answer,
			    repair_cmd);
		return r < 0 ? -errno : -EIO;
	}
	return 0;
}

/**
 * repair_set() - switch repair mode of a socket, with the next batch
 * @s:		TCP socket
 * @cmd:	TCP_REPAIR_ON, TCP_REPAIR_OFF or TCP_REPAIR_OFF_NO_WP
 *
 * The socket must stay open until repair_flush().
 *
 * Return: 0 on success, -ENOTCONN without a helper, other -errno if a
 *	   batch sent failed (logged)
 */
int repair_set(int s, int8_t cmd)
{
	int rc;

	if (repair_fd < 0)
		return -ENOTCONN;
	if (repair_nfds && repair_cmd != cmd && (rc = repair_flush()))
		return rc;

	repair_cmd = cmd;
	repair_fds[repair_nfds++] = s;
	if (repair_nfds == REPAIR_FDS_MAX)
		return repair_flush();
	return 0;
}

/**
 * repair_flush() - send the sockets collected by repair_set()
 *
 * Return: 0 on success, negative errno on failure (logged; the helper's
 *	   connection is closed then)
 */
int repair_flush(void)
{
	int rc;

	if (!repair_nfds)
		return 0;
	if (repair_fd < 0)
		return -ENOTCONN;

	rc = repair_send();
	if (rc) {
		/* Not in the epoll set any more after this: harmless if the
		 * caller never gets to repair_close()
		 */
		close(repair_fd);
		repair_fd = -1;
	}
	return rc;
}
