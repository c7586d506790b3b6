// SPDX-License-Identifier: GPL-2.0-or-later
/* unix_sock.c - listening UNIX domain sockets at a path
 *
 * Theory of operation: the relay listens at paths given by the user (the
 * passt guest socket, tap/sock_path.c; the -c configuration socket,
 * fwd/fwd_ctl.c). A path is free if nothing is there, or if the socket
 * file there refuses connections: it is stale, left by a process that is
 * gone, and removed. A socket someone listens on is never touched, and
 * neither is a file that is not a socket. Sockets are made at start-up,
 * before the sandbox; connections are accepted at run time. The paths
 * bound are noted, so that a start-up that fails later removes them again
 * (unix_sock_unlink_ours()): a relay that exits before it serves leaves no
 * socket behind for a launcher to find.
 *
 * Only the relay's own user may use them. A socket file gets its
 * permissions when bind() creates it, from the process's umask: the umask
 * is set to what the caller asks for (0600 for every socket of the relay)
 * around bind() and restored after, so there is no moment when another
 * user may connect, whatever the umask we were started with, and no
 * chmod() on a path that someone could have replaced meanwhile. bind()
 * itself never follows a symbolic link at the last component (the path
 * exists: EADDRINUSE), and unix_sock_probe() removes only sockets.
 *
 * The file's mode is the first check; the second is the peer itself:
 * unix_sock_accept() takes a connection only from a process running as
 * the user who created the socket (who started us, and owns the file) or
 * as root: SO_PEERCRED of the connection, against SO_PEERCRED of the
 * listening socket, which holds the credentials of the listen() caller.
 * Both read as our user namespace sees them: a user it doesn't map reads
 * as the overflow UID and is refused. So a socket someone made reachable
 * anyway (a file mode changed afterwards, a descriptor passed on) still
 * serves no other user. Refused peers are closed at once, counted by the
 * caller, and the first few logged.
 */

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "unix_sock.h"
#include "syscalls.h"

/* System calls after start-up: accepting a peer, reading who it is */
SYSCALLS(SYSCALLS_RELAY,
	 SYSCALLS_CALL("accept4", "the guest, a front-end, a -c client"),
	 SYSCALLS_CALL_IF("getsockopt", "who it is (SO_PEERCRED)",
			  SYSCALLS_ARG_EQ(1, SOL_SOCKET),
			  SYSCALLS_ARG_EQ(2, SO_PEERCRED)),
	 SYSCALLS_CALL("close", "a peer refused"));

/* Refused peers logged at warning level per socket, then at debug level */
#define UNIX_SOCK_REFUSED_LOG	8
/* What a user our user namespace doesn't map reads as (kernel default) */
#define UNIX_SOCK_OVERFLOW_UID	65534

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
 * @mode:	permissions of the socket file (0600 for the relay's own)
 *
 * The socket file is created with @mode by bind() itself (umask set around
 * it), whatever the umask: nobody else can connect, at any moment.
 *
 * Return: listening socket, or negative errno
 */
int unix_sock_listen(const char *path, int backlog, mode_t mode)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	mode_t old;
	int fd, ret;

	if (!mode || (mode & ~(mode_t)0777))
		return -EINVAL;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;

	memcpy(a.sun_path, path, strlen(path) + 1);
	old = umask(~mode & 0777);
	ret = bind(fd, (const struct sockaddr *)&a, sizeof(a)) ? -errno : 0;
	umask(old);
	if (ret) {
		close(fd);
		return ret;
	}

	if (listen(fd, backlog)) {
		ret = -errno;
		close(fd);
		unlink(path);
		return ret;
	}

	unix_sock_note(path);
	return fd;
}

/**
 * unix_sock_peer_ok() - may this peer use a socket of ours?
 * @lfd:	listening socket
 * @peer:	the peer's credentials (SO_PEERCRED of the connection)
 * @owner:	filled with the UID allowed besides root
 *
 * The listening socket's own SO_PEERCRED holds the credentials of whoever
 * called listen(): the user who started us, who owns the socket file too
 * (we may run as another one now, after --runas).
 *
 * Return: true if @peer runs as that user or as root
 */
bool unix_sock_peer_ok(int lfd, const struct ucred *peer, uid_t *owner)
{
	struct ucred me = { .uid = (uid_t)-1 };
	socklen_t sl = sizeof(me);

	if (getsockopt(lfd, SOL_SOCKET, SO_PEERCRED, &me, &sl))
		me.uid = (uid_t)-1;	/* then root only */
	*owner = me.uid;

	return peer->uid == 0 || (me.uid != (uid_t)-1 && peer->uid == me.uid);
}

/**
 * unix_sock_accept() - accept a connection from our user or root only
 * @lfd:	listening socket
 * @flags:	accept4() flags (SOCK_CLOEXEC is always added)
 * @what:	the socket, for messages ("guest socket /tmp/passt_1.socket")
 * @cred:	filled with the peer's credentials on success, may be NULL
 * @refused:	counter of refused peers, incremented on -EPERM
 *
 * Return: connected socket, -EPERM if a peer was refused (closed, counted,
 *	   logged), -EAGAIN if none is waiting, other negative errno from
 *	   accept4() or SO_PEERCRED (the connection is closed then)
 */
int unix_sock_accept(int lfd, int flags, const char *what, struct ucred *cred,
		     uint64_t *refused)
{
	struct ucred pc = { .pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1 };
	socklen_t sl = sizeof(pc);
	uid_t owner;
	int fd, ret;

	do
		fd = accept4(lfd, NULL, NULL, flags | SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &pc, &sl)) {
		ret = -errno;
		warn("%s: can't read the credentials of a peer, refused: %s",
		     what, strerror(-ret));
		close(fd);
		return ret;
	}

	if (!unix_sock_peer_ok(lfd, &pc, &owner)) {
		close(fd);
		if ((*refused)++ < UNIX_SOCK_REFUSED_LOG) {
			warn("%s: refused a connection from PID %i, UID %u: "
			     "only UID %u (who started us) and root may "
			     "connect%s%s", what, (int)pc.pid,
			     (unsigned int)pc.uid, (unsigned int)owner,
			     pc.uid == UNIX_SOCK_OVERFLOW_UID ?
			     ". Users our user namespace doesn't map, root "
			     "included, show as this UID: connect as our user"
			     : "",
			     *refused == UNIX_SOCK_REFUSED_LOG ?
			     " (not reporting further refusals)" : "");
		} else {
			debug("%s: refused a connection from PID %i, UID %u",
			      what, (int)pc.pid, (unsigned int)pc.uid);
		}
		return -EPERM;
	}

	if (cred)
		*cred = pc;
	return fd;
}
