// SPDX-License-Identifier: GPL-2.0-or-later
/* unix_sock.c - listening UNIX domain sockets at a path
 *
 * Theory of operation: the relay listens at paths given by the user (the
 * passt guest socket, tap/sock_path.c; the -c configuration socket,
 * fwd/fwd_ctl.c). A path is free if nothing is there, or if the socket
 * file there refuses connections: it is stale, left by a process that is
 * gone, and removed. A socket someone listens on is never touched, and
 * neither is a file that is not a socket. All of this runs at start-up,
 * before the sandbox. The paths bound are noted, so that a start-up that
 * fails later removes them again (unix_sock_unlink_ours()): a relay that
 * exits before it serves leaves no socket behind for a launcher to find.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "unix_sock.h"

/* Most paths one process listens at: passt's socket, -c, passt-repair's */
#define UNIX_SOCK_OURS_MAX	4
/* Longest path, with its terminator */
#define UNIX_SOCK_PATH_MAX	sizeof(((struct sockaddr_un *)0)->sun_path)

static char unix_sock_ours[UNIX_SOCK_OURS_MAX][UNIX_SOCK_PATH_MAX];
static unsigned int unix_sock_ours_n;

/**
 * unix_sock_note() - remember a path we bound, for unix_sock_unlink_ours()
 * @path:	socket path, fits sun_path
 */
static void unix_sock_note(const char *path)
{
	if (unix_sock_ours_n >= UNIX_SOCK_OURS_MAX) {
		debug("%s won't be removed if start-up fails", path);
		return;
	}
	memcpy(unix_sock_ours[unix_sock_ours_n++], path, strlen(path) + 1);
}

/**
 * unix_sock_unlink_ours() - start-up failed: remove the sockets we bound
 *
 * Call before the sandbox empties our root (paths no longer resolve then).
 */
void unix_sock_unlink_ours(void)
{
	unsigned int i;

	for (i = 0; i < unix_sock_ours_n; i++)
		unlink(unix_sock_ours[i]);
	unix_sock_ours_n = 0;
}

/**
 * unix_sock_probe() - is there a live socket at a path?
 * @path:	socket path
 *
 * A socket file that refuses connections is stale and removed.
 *
 * Return: 0 if the path is free now, -EADDRINUSE if something listens
 *	   there, -ENOTSOCK if it is another kind of file, other negative
 *	   errno if it can't be used
 */
int unix_sock_probe(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, ret;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;

	memcpy(a.sun_path, path, strlen(path) + 1);
	ret = connect(fd, (const struct sockaddr *)&a, sizeof(a)) ? -errno : 0;
	close(fd);

	if (!ret || ret == -EAGAIN || ret == -EINPROGRESS)
		return -EADDRINUSE;	/* someone listens: busy or free */
	if (ret == -ENOENT)
		return 0;		/* gone meanwhile */
	if (ret != -ECONNREFUSED)
		return ret;

	/* Nobody listens: a leftover of an earlier run */
	if (unlink(path) && errno != ENOENT)
		return -errno;
	debug("removed stale socket %s", path);
	return 0;
}

/**
 * unix_sock_listen() - create a listening UNIX socket at a free path
 * @path:	socket path, fits sun_path
 * @backlog:	connections that may wait to be accepted
 * @mode:	permissions of the socket file, 0 to leave them to the umask
 *
 * The permissions are set before anybody can connect.
 *
 * Return: listening socket, or negative errno
 */
int unix_sock_listen(const char *path, int backlog, mode_t mode)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;

	memcpy(a.sun_path, path, strlen(path) + 1);
	if (bind(fd, (const struct sockaddr *)&a, sizeof(a))) {
		ret = -errno;
		close(fd);
		return ret;
	}

	if ((mode && chmod(path, mode)) || listen(fd, backlog)) {
		ret = -errno;
		close(fd);
		unlink(path);
		return ret;
	}

	unix_sock_note(path);
	return fd;
}
