// SPDX-License-Identifier: GPL-2.0-or-later
/* sock_path.c - the UNIX socket passt listens on, for either backend
 *
 * Theory of operation
 *
 * passt listens at the -s path, or at the first free /tmp/passt_N.socket.
 * A path is free if nothing is there, or if the socket file there refuses
 * connections (stale, left by a relay that is gone: it is removed); a
 * socket someone listens on is never touched, and neither is a file that
 * is not a socket (util/unix_sock.c). The socket file is created with mode
 * 0600 whatever the umask, and only its owner or root may connect
 * (unix_sock_accept()). Both passt backends (stream/, vhost_user/) reach
 * this through guest_sock.c, which uses tap_sock_listen(); with -F/--fd,
 * tap_sock_adopt() instead, to check the descriptor they were given.
 *
 * All of this runs at start-up, before the sandbox.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sock_path.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/unix_sock.h"

/* Default socket paths: SOCK_PATH_FMT with N from 1 to SOCK_PATH_NMAX */
#define SOCK_PATH_FMT		"/tmp/passt_%u.socket"
#define SOCK_PATH_NMAX		128
/* Connections waiting while a guest is connected */
#define SOCK_PATH_BACKLOG	4

/**
 * sock_path_given() - listen at the path given with -s
 * @path:	socket path, fits sun_path
 *
 * Return: listening socket, or negative errno (logged)
 */
static int sock_path_given(const char *path)
{
	int ret = unix_sock_probe(path);

	if (ret == -EADDRINUSE) {
		err("another process listens on %s: stop it, or choose "
		    "another path with -s", path);
		return ret;
	}
	if (ret == -ENOTSOCK) {
		err("%s exists and is not a socket: choose another path "
		    "with -s", path);
		return ret;
	}
	if (ret < 0) {
		err("can't use socket path %s: %s", path, strerror(-ret));
		return ret;
	}

	ret = unix_sock_listen(path, SOCK_PATH_BACKLOG,
			       UNIX_SOCK_MODE);
	if (ret < 0) {
		err("can't listen on UNIX socket %s: %s (check the directory "
		    "and its permissions)", path, strerror(-ret));
	}
	return ret;
}

/**
 * sock_path_auto() - listen at the first free /tmp/passt_N.socket
 * @path:	filled with the path chosen
 * @size:	size of @path, at least sizeof(sun_path)
 *
 * Return: listening socket, or negative errno (logged)
 */
static int sock_path_auto(char *path, size_t size)
{
	int last = -ENOENT;
	unsigned int n;

	for (n = 1; n <= SOCK_PATH_NMAX; n++) {
		int ret;

		snprintf(path, size, SOCK_PATH_FMT, n);

		ret = unix_sock_probe(path);
		if (ret < 0) {
			last = ret;
			continue;
		}

		ret = unix_sock_listen(path, SOCK_PATH_BACKLOG,
			       UNIX_SOCK_MODE);
		if (ret >= 0)
			return ret;
		last = ret;	/* e.g. taken by another relay meanwhile */
	}

	err("no free socket path from " SOCK_PATH_FMT " to " SOCK_PATH_FMT
	    " (last error: %s): give one with -s", 1U, SOCK_PATH_NMAX,
	    strerror(-last));
	return last;
}

/**
 * tap_sock_listen() - listen at the -s path, or at a free default path
 * @c:		execution context: c->sock_path is the -s path, or empty
 *		(then set to the path chosen)
 * @path:	filled with the path listened on
 * @size:	size of @path, at least sizeof(sun_path)
 *
 * Return: listening socket (non-blocking, close-on-exec), or negative
 *	   errno (logged)
 */
int tap_sock_listen(struct ctx *c, char *path, size_t size)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path);
	int fd;

	if (size < max)
		return -EINVAL;

	if (!*c->sock_path) {
		fd = sock_path_auto(path, size);
		if (fd >= 0)
			snprintf(c->sock_path, sizeof(c->sock_path), "%s",
				 path);
		return fd;
	}

	if (strlen(c->sock_path) >= max) {
		err("socket path %s is too long for a UNIX socket (at most "
		    "%zu bytes): choose a shorter -s path", c->sock_path,
		    max - 1);
		return -ENAMETOOLONG;
	}

	fd = sock_path_given(c->sock_path);
	if (fd >= 0)
		snprintf(path, size, "%s", c->sock_path);
	return fd;
}

/**
 * tap_sock_adopt() - check the connected socket given with -F/--fd
 * @fd:		descriptor
 *
 * It must be a stream socket; it is made close-on-exec.
 *
 * Return: 0 if usable, -ENOTSOCK (logged) if not
 */
int tap_sock_adopt(int fd)
{
	socklen_t sl;
	int type = 0;

	sl = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &sl) ||
	    type != SOCK_STREAM) {
		err("-F/--fd %i is not a connected stream socket", fd);
		return -ENOTSOCK;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC))
		debug_perror("can't set close-on-exec on fd %i", fd);

	return 0;
}
