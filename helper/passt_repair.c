// SPDX-License-Identifier: GPL-2.0-or-later
/* passt_repair.c - passt-repair: sets TCP_REPAIR on passt's sockets
 *
 * Usage: passt-repair PATH
 *
 * Theory of operation
 *
 * Live migration moves the guest's TCP connections from one passt to
 * another in repair mode (TCP_REPAIR, see tcp/tcp_repair.c), and setting
 * or clearing that option needs CAP_NET_ADMIN, which passt never has. This
 * small program has it (run as root, or with the capability as a file or
 * ambient capability) and does that one thing for passt: it connects to
 * passt's repair socket (--repair-path, by default the vhost-user socket's
 * path with ".repair" added), then, for each message, sets the option the
 * message says on every socket that came with it, closes its copies, and
 * answers.
 *
 * The protocol is upstream passt's (passt-repair(1)), so either side works
 * with upstream's: a message is one signed byte, TCP_REPAIR_ON (1),
 * TCP_REPAIR_OFF (0) or TCP_REPAIR_OFF_NO_WP (-1), carrying 1 to
 * SCM_MAX_FD (253) sockets as SCM_RIGHTS. The answer is the same byte,
 * alone, once the option is set on all of them. Anything else (another
 * byte, no sockets, more than 253, other control data, a descriptor we
 * refuse, a socket the kernel refuses) closes the connection: passt takes
 * that as a failure. The end of the stream from passt ends this program
 * with status 0.
 *
 * PATH is the socket (a running passt), or a directory (a passt that is
 * not started yet): then the first socket whose name ends in ".repair"
 * created there after we started watching (inotify) is used. One that
 * refuses connections at first may not listen yet: it is tried again
 * every REPAIR_RESCAN_MS.
 *
 * Whom we serve. Repair mode lets a socket bind to a port another socket
 * holds, and become ESTABLISHED without a handshake, at sequence numbers
 * of its owner's choice: whoever gets it can take over connections of
 * other users. So we act only for a listener we trust, and only on what
 * passt needs (doc/security.md, "passt-repair"):
 *
 * - the process listening runs as our real user or as root (SO_PEERCRED:
 *   its credentials when it called listen()), and the socket file belongs
 *   to one of those two and is no symbolic link. The file is opened with
 *   O_PATH | O_NOFOLLOW and connected to through /proc/self/fd, so that
 *   what was checked is what we connect to;
 * - in a directory, a socket that was there before we watched doesn't
 *   count: anybody who can write there may have planted it;
 * - every descriptor of a message is checked before any is touched: an
 *   IPv4 or IPv6 TCP socket (SO_DOMAIN, SO_TYPE, SO_PROTOCOL), not
 *   listening (SO_ACCEPTCONN);
 * - privileges gained at exec (a file capability, set-user-ID) from a file
 *   that any user may run are refused: anybody could then point us at a
 *   listener of their own, which the checks above would trust.
 *
 * A listener refused in a directory is logged, and we wait for the next
 * socket; with a socket path, a refusal ends the program with status 1.
 *
 * Once connected, the program keeps only what it needs: CAP_NET_ADMIN
 * alone (when it had more), no new privileges, and a seccomp filter
 * allowing the few calls listed below (util/syscalls.h builds it).
 *
 * Exit status: 0 when passt closes the connection, 1 on errors and
 * refusals, 2 on a usage error or a PATH that is neither a socket nor a
 * directory.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cap-ng.h>

#include "../util/log.h"
#include "../util/syscalls.h"

#define REPAIR_FDS_MAX		253	/* SCM_MAX_FD of the kernel */
#define REPAIR_SUFFIX		".repair"
/* Waiting in a directory: try again this often a socket created there that
 * refused connections (bound, but not listening yet)
 */
#define REPAIR_RESCAN_MS	100
/* Such sockets tried again at most: a new one replaces the oldest */
#define REPAIR_PENDING_MAX	8
/* Connecting to the very file we checked, by its O_PATH descriptor */
#define REPAIR_PROC_FD		"/proc/self/fd/"
/* inotify events read at once (each has a name of up to NAME_MAX bytes) */
#define REPAIR_EVENTS		16

/* What repair_try() found, besides a connected socket */
#define REPAIR_REFUSED		(-1)	/* not ours to serve (logged) */
#define REPAIR_LATER		(-2)	/* refuses connections: not yet */
#define REPAIR_GONE		(-3)	/* no such file (any more) */

static uid_t repair_uid;	/* our real user: we trust it, and root */

/* Directory mode: names of new sockets that refused connections so far */
static char repair_pending[REPAIR_PENDING_MAX][NAME_MAX + 1];
static unsigned int repair_npending;
static unsigned int repair_pending_next;	/* to replace when full */

/**
 * repair_vlog() - print a message on standard error, "passt-repair: " first
 * @fmt:	format
 * @ap:		arguments
 */
static void __attribute__((format(printf, 1, 0)))
repair_vlog(const char *fmt, va_list ap)
{
	fputs("passt-repair: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/**
 * repair_log() - print a message on standard error
 * @fmt:	format
 * @...:	arguments
 */
static void __attribute__((format(printf, 1, 2)))
repair_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	repair_vlog(fmt, ap);
	va_end(ap);
}

/* System calls under the filter, one per line: add what a new step makes
 * (exit_group is listed for every program by util/syscalls.c)
 */
SYSCALLS(SYSCALLS_REPAIR,
	 SYSCALLS_CALL("recvmsg", "a command from passt, with its sockets"),
	 SYSCALLS_CALL_IF("setsockopt", "TCP_REPAIR on them, nothing else",
			  SYSCALLS_ARG_EQ(1, IPPROTO_TCP),
			  SYSCALLS_ARG_EQ(2, TCP_REPAIR)),
	 SYSCALLS_CALL_IF("getsockopt", "is a socket passt sent a TCP one?",
			  SYSCALLS_ARG_EQ(1, SOL_SOCKET)),
	 SYSCALLS_CALL("close", "our copies of passt's sockets"),
	 SYSCALLS_CALL("sendto", "the answer to passt (send())"),
	 SYSCALLS_CALL("write", "messages, to stderr"));

/**
 * repair_fail() - print a message and exit with status 1
 * @fmt:	format
 * @...:	arguments
 */
static void __attribute__((noreturn, format(printf, 1, 2)))
repair_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	repair_vlog(fmt, ap);
	va_end(ap);
	_exit(1);
}

/**
 * repair_trusted() - may a user have its sockets in repair mode through us?
 * @uid:	user ID
 *
 * Return: true for our real user and root
 */
static bool repair_trusted(uid_t uid)
{
	return uid == repair_uid || uid == 0;
}

/**
 * repair_exec_check() - refuse privileges that any user could have had
 *
 * With AT_SECURE, the kernel gave us privileges at exec that our caller
 * didn't have (a file capability, set-user-ID); if any user may run this
 * file, any user could make us serve a listener of their own. Exits then.
 */
static void repair_exec_check(void)
{
	struct stat st;

	if (!getauxval(AT_SECURE) || !repair_uid)
		return;

	if (stat("/proc/self/exe", &st))
		repair_fail("privileges came with this file, and /proc/self/exe "
			    "can't tell who may run it (%s): refusing to run",
			    strerror(errno));
	if (st.st_mode & S_IXOTH)
		repair_fail("this file gives privileges (a file capability or "
			    "set-user-ID) and any user may run it: any user "
			    "could take over TCP connections with it. Let only "
			    "trusted users run it (chgrp GROUP FILE; chmod 0750 "
			    "FILE), or run passt-repair as root, or with "
			    "CAP_NET_ADMIN as an ambient capability");
}

/**
 * repair_suffix_ok() - does a file name end in ".repair"?
 * @name:	name
 *
 * Return: true if it does, and has something before it
 */
static bool repair_suffix_ok(const char *name)
{
	size_t n = strlen(name), s = strlen(REPAIR_SUFFIX);

	return n > s && !strcmp(name + n - s, REPAIR_SUFFIX);
}

/**
 * repair_open() - open a socket file that we trust, not following links
 * @path:	path
 *
 * Return: O_PATH descriptor, REPAIR_REFUSED (logged) or REPAIR_GONE
 */
static int repair_open(const char *path)
{
	const char *why = NULL;
	struct stat st;
	int p;

	p = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (p < 0) {
		if (errno == ENOENT)
			return REPAIR_GONE;
		repair_log("can't open %s: %s", path, strerror(errno));
		return REPAIR_REFUSED;
	}

	if (fstat(p, &st))
		why = strerror(errno);
	else if (S_ISLNK(st.st_mode))
		why = "it is a symbolic link";
	else if (!S_ISSOCK(st.st_mode))
		why = "it is not a socket";
	if (why) {
		repair_log("refusing %s: %s", path, why);
		close(p);
		return REPAIR_REFUSED;
	}

	if (!repair_trusted(st.st_uid)) {
		repair_log("refusing %s: the socket file belongs to uid %u, and "
			   "passt-repair serves only uid %u (the user running "
			   "it) and root", path, (unsigned int)st.st_uid,
			   (unsigned int)repair_uid);
		close(p);
		return REPAIR_REFUSED;
	}
	return p;
}

/**
 * repair_connect() - connect to the socket file we opened and checked
 * @p:		its O_PATH descriptor
 * @path:	its path, if /proc is not mounted
 *
 * Return: connected socket, -1 with errno set on failure
 */
static int repair_connect(int p, const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int s, e;

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		repair_fail("can't create a UNIX socket: %s", strerror(errno));

	snprintf(a.sun_path, sizeof(a.sun_path), REPAIR_PROC_FD "%i", p);
	if (!connect(s, (struct sockaddr *)&a, sizeof(a)))
		return s;
	e = errno;

	/* Without /proc, the path: the listener is checked all the same */
	if (e == ENOENT && access(REPAIR_PROC_FD, F_OK)) {
		if (strlen(path) >= sizeof(a.sun_path)) {
			e = ENAMETOOLONG;
		} else {
			memcpy(a.sun_path, path, strlen(path) + 1);
			if (!connect(s, (struct sockaddr *)&a, sizeof(a)))
				return s;
			e = errno;
		}
	}

	close(s);
	errno = e;
	return -1;
}

/**
 * repair_peer_ok() - does the process listening run as a user we trust?
 * @s:		socket connected to it
 * @path:	its path, for messages
 *
 * Return: true if it does, false if not (logged)
 */
static bool repair_peer_ok(int s, const char *path)
{
	struct ucred cr;
	socklen_t sl = sizeof(cr);

	if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &sl)) {
		repair_log("refusing %s: can't read the credentials of the "
			   "process listening there: %s", path,
			   strerror(errno));
		return false;
	}
	if (!repair_trusted(cr.uid)) {
		repair_log("refusing %s: the process listening there (PID %i) "
			   "runs as uid %u, and passt-repair serves only uid %u "
			   "(the user running it) and root", path, (int)cr.pid,
			   (unsigned int)cr.uid, (unsigned int)repair_uid);
		return false;
	}
	repair_log("connected to %s (PID %i, uid %u)", path, (int)cr.pid,
		   (unsigned int)cr.uid);
	return true;
}

/**
 * repair_try() - connect to a socket at a path, if we trust it
 * @path:	path
 * @in_dir:	found in a directory: it may not listen yet
 *
 * Return: connected socket, REPAIR_REFUSED (logged), REPAIR_GONE, or
 *	   REPAIR_LATER if it refuses connections (in a directory only)
 */
static int repair_try(const char *path, bool in_dir)
{
	int p, s;

	p = repair_open(path);
	if (p == REPAIR_GONE && !in_dir)
		repair_log("%s: %s", path, strerror(ENOENT));
	if (p < 0)
		return p;

	s = repair_connect(p, path);
	close(p);
	if (s < 0) {
		if (in_dir && errno == ECONNREFUSED)
			return REPAIR_LATER;
		if (in_dir && errno == ENOENT)
			return REPAIR_GONE;
		repair_log("can't connect to %s: %s", path, strerror(errno));
		return REPAIR_REFUSED;
	}

	if (!repair_peer_ok(s, path)) {
		close(s);
		return REPAIR_REFUSED;
	}
	return s;
}

/**
 * repair_pending_add() - remember a new socket that refused connections
 * @name:	its name in the directory
 */
static void repair_pending_add(const char *name)
{
	unsigned int i;

	for (i = 0; i < repair_npending; i++) {
		if (!strcmp(repair_pending[i], name))
			return;
	}
	if (repair_npending < REPAIR_PENDING_MAX) {
		i = repair_npending++;
	} else {
		i = repair_pending_next;
		repair_pending_next = (i + 1) % REPAIR_PENDING_MAX;
	}
	snprintf(repair_pending[i], sizeof(repair_pending[i]), "%s", name);
}

/**
 * repair_dir_try() - try a socket created in the directory we watch
 * @dir:	directory
 * @name:	name of the socket in it
 *
 * Return: connected socket, or one of REPAIR_REFUSED, REPAIR_LATER or
 *	   REPAIR_GONE
 */
static int repair_dir_try(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    (int)sizeof(path)) {
		repair_log("ignoring %s/%s: path too long", dir, name);
		return REPAIR_REFUSED;
	}
	return repair_try(path, true);
}

/**
 * repair_dir_retry() - try again the new sockets that refused connections
 * @dir:	directory
 *
 * Return: connected socket, -1 if none accepts yet
 */
static int repair_dir_retry(const char *dir)
{
	unsigned int i = 0;
	int s;

	while (i < repair_npending) {
		s = repair_dir_try(dir, repair_pending[i]);
		if (s >= 0)
			return s;
		if (s == REPAIR_LATER) {
			i++;
			continue;
		}

		/* Refused or gone: forget it */
		repair_npending--;
		if (i != repair_npending)
			memcpy(repair_pending[i],
			       repair_pending[repair_npending],
			       sizeof(repair_pending[i]));
		repair_pending_next = 0;
	}
	return -1;
}

/**
 * repair_dir_events() - read inotify events, try the sockets they name
 * @in:		inotify descriptor
 * @dir:	directory
 *
 * Return: connected socket, -1 if none of them is one
 */
static int repair_dir_events(int in, const char *dir)
{
	char buf[REPAIR_EVENTS * (sizeof(struct inotify_event) + NAME_MAX + 1)]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;
	int s;

	n = read(in, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -1;
	if (n < 0)
		repair_fail("can't watch directory %s: %s", dir,
			    strerror(errno));

	for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
		ev = (const struct inotify_event *)p;

		if (ev->mask & IN_Q_OVERFLOW)
			repair_fail("too many files created in %s at once: "
				    "passt's socket may be among those missed. "
				    "Start passt-repair again, or give it "
				    "passt's socket", dir);
		if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_UNMOUNT))
			repair_fail("directory %s went away", dir);
		if (!(ev->mask & IN_CREATE) || (ev->mask & IN_ISDIR) ||
		    !ev->len || !repair_suffix_ok(ev->name))
			continue;

		s = repair_dir_try(dir, ev->name);
		if (s >= 0)
			return s;
		if (s == REPAIR_LATER)
			repair_pending_add(ev->name);
	}
	return -1;
}

/**
 * repair_wait_dir() - connect to the first ".repair" socket created in a
 *		       directory from now on that we trust
 * @dir:	directory
 *
 * Return: connected socket
 */
static int repair_wait_dir(const char *dir)
{
	int in = inotify_init1(IN_CLOEXEC), s = -1;

	if (in < 0 ||
	    inotify_add_watch(in, dir, IN_CREATE | IN_DELETE_SELF |
			      IN_ONLYDIR) < 0)
		repair_fail("can't watch directory %s: %s", dir,
			    strerror(errno));

	/* Sockets there already are not looked at: see the top of the file */
	repair_log("waiting for a new *%s socket in %s", REPAIR_SUFFIX, dir);

	while (s < 0) {
		struct pollfd p = { .fd = in, .events = POLLIN };
		int n;

		n = poll(&p, 1, repair_npending ? REPAIR_RESCAN_MS : -1);
		if (n < 0 && errno != EINTR)
			repair_fail("can't watch directory %s: %s", dir,
				    strerror(errno));
		if (n > 0)
			s = repair_dir_events(in, dir);
		if (s < 0 && repair_npending)
			s = repair_dir_retry(dir);
	}
	close(in);
	return s;
}

/**
 * repair_sandbox() - keep CAP_NET_ADMIN alone, and the calls of the loop
 */
static void repair_sandbox(void)
{
	if (capng_have_capability(CAPNG_EFFECTIVE, CAP_NET_ADMIN)) {
		capng_clear(CAPNG_SELECT_BOTH);
		capng_update(CAPNG_ADD, CAPNG_EFFECTIVE | CAPNG_PERMITTED,
			     CAP_NET_ADMIN);
		if (capng_apply(CAPNG_SELECT_BOTH))
			fprintf(stderr, "passt-repair: can't drop other "
				"capabilities, going on\n");
	} else {
		fprintf(stderr, "passt-repair: no CAP_NET_ADMIN: the kernel "
			"will refuse TCP_REPAIR (run as root, or give the "
			"capability)\n");
	}

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		repair_fail("can't set no_new_privs: %s", strerror(errno));
	prctl(PR_SET_DUMPABLE, 0);

	log_init("passt-repair");
	if (syscalls_filter_load(SYSCALLS_REPAIR))
		repair_fail("can't load the seccomp filter");
}

/**
 * repair_recv() - read one message from passt
 * @s:		connected socket
 * @cmd:	the command, set on return
 * @fds:	the descriptors that came with it, REPAIR_FDS_MAX at most
 *
 * Exits on a message that breaks the protocol.
 *
 * Return: number of descriptors, 0 at the end of the stream
 */
static size_t repair_recv(int s, int8_t *cmd, int *fds)
{
	union {
		char buf[CMSG_SPACE(REPAIR_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = cmd, .iov_len = sizeof(*cmd) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	size_t n = 0;
	ssize_t r;

	do
		r = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == ECONNRESET)
		r = 0;
	if (r < 0)
		repair_fail("can't read from passt: %s", strerror(errno));
	if (!r)
		return 0;

	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS || n + k > REPAIR_FDS_MAX)
			repair_fail("unexpected control data from passt");
		memcpy(fds + n, CMSG_DATA(cm), k * sizeof(int));
		n += k;
	}
	if (mh.msg_flags & MSG_CTRUNC)
		repair_fail("more than %u sockets in one message",
			    REPAIR_FDS_MAX);
	if (!n)
		repair_fail("a message without sockets");
	if (*cmd != TCP_REPAIR_ON && *cmd != TCP_REPAIR_OFF &&
	    *cmd != TCP_REPAIR_OFF_NO_WP)
		repair_fail("unknown command %i", *cmd);
	return n;
}

/**
 * repair_sockopt() - read an integer socket option at SOL_SOCKET
 * @fd:		descriptor
 * @opt:	option
 * @v:		its value, set on success
 *
 * Return: 0 on success, -1 on failure
 */
static int repair_sockopt(int fd, int opt, int *v)
{
	socklen_t sl = sizeof(*v);

	if (getsockopt(fd, SOL_SOCKET, opt, v, &sl) || sl != sizeof(*v))
		return -1;
	return 0;
}

/**
 * repair_sock_why() - is a descriptor one that passt may send us?
 * @fd:		descriptor
 *
 * Return: NULL for an IPv4 or IPv6 TCP socket that doesn't listen,
 *	   otherwise what it is instead
 */
static const char *repair_sock_why(int fd)
{
	int v;

	if (repair_sockopt(fd, SO_DOMAIN, &v))
		return "no socket";
	if (v != AF_INET && v != AF_INET6)
		return "no IPv4 or IPv6 socket";
	if (repair_sockopt(fd, SO_TYPE, &v) || v != SOCK_STREAM)
		return "no stream socket";
	if (repair_sockopt(fd, SO_PROTOCOL, &v) || v != IPPROTO_TCP)
		return "no TCP socket";
	if (repair_sockopt(fd, SO_ACCEPTCONN, &v) || v)
		return "a listening socket";
	return NULL;
}

/**
 * repair_one() - read one message, check it, apply it, answer
 * @s:		connected socket
 *
 * Return: true if there may be more, false at the end of the stream
 */
static bool repair_one(int s)
{
	int fds[REPAIR_FDS_MAX], op;
	const char *why;
	size_t n, i;
	int8_t cmd;
	ssize_t r;

	n = repair_recv(s, &cmd, fds);
	if (!n)
		return false;

	/* All of them first: a refused message changes nothing */
	for (i = 0; i < n; i++) {
		why = repair_sock_why(fds[i]);
		if (why)
			repair_fail("refusing a request, nothing changed: "
				    "descriptor %zu of %zu is %s", i + 1, n,
				    why);
	}

	op = (int)cmd;
	for (i = 0; i < n; i++) {
		if (setsockopt(fds[i], IPPROTO_TCP, TCP_REPAIR, &op,
			       sizeof(op)))
			repair_fail("can't set TCP_REPAIR to %i on a socket: "
				    "%s", op, strerror(errno));
		close(fds[i]);
	}

	do
		r = send(s, &cmd, sizeof(cmd), MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r != sizeof(cmd))
		repair_fail("can't answer passt: %s", strerror(errno));
	return true;
}

/**
 * main() - connect, then serve passt until it closes the connection
 * @argc:	argument count
 * @argv:	PATH
 *
 * Return: 0 when passt closed the connection
 */
int main(int argc, char **argv)
{
	struct stat st;
	int s;

	if (argc != 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc == 2 ? stdout : stderr,
			"Usage: %s PATH\n"
			"Set TCP_REPAIR on sockets for passt, over its repair "
			"socket PATH\n(--repair-path), or the first *.repair "
			"socket created in the directory\nPATH from now on. "
			"The process listening must run as the user running\n"
			"passt-repair, or as root.\n", argv[0]);
		return argc == 2 ? 0 : 2;
	}

	repair_uid = getuid();
	repair_exec_check();

	/* A link to the directory is fine: the caller named it */
	if (stat(argv[1], &st))
		repair_fail("%s: %s", argv[1], strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		s = repair_wait_dir(argv[1]);
	} else if (S_ISSOCK(st.st_mode)) {
		s = repair_try(argv[1], false);
		if (s < 0)
			return 1;
	} else {
		repair_log("%s is neither a socket nor a directory", argv[1]);
		return 2;
	}

	repair_sandbox();

	while (repair_one(s))
		;
	return 0;
}
