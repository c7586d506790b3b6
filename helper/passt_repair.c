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
 * byte, no sockets, more than 253, other control data, a socket the kernel
 * refuses) closes the connection: passt takes that as a failure. The end
 * of the stream from passt ends this program with status 0.
 *
 * PATH is the socket, or a directory: then the first socket in it whose
 * name ends in ".repair" is used, waiting (inotify) for one to appear if
 * there is none yet. A socket that refuses connections there is one left
 * by an earlier passt: we wait for the next.
 *
 * Once connected, the program keeps only what it needs: CAP_NET_ADMIN
 * alone (when it had more), no new privileges, and a seccomp filter
 * allowing the few calls listed below (util/syscalls.h builds it).
 *
 * Exit status: 0 when passt closes the connection, 1 on errors, 2 on a
 * usage error.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
/* Waiting in a directory: look again this often even without an event (a
 * socket bound but not listening yet refuses connections)
 */
#define REPAIR_RESCAN_MS	100

/* System calls under the filter, one per line: add what a new step makes
 * (exit_group is listed for every program by util/syscalls.c)
 */
SYSCALLS(SYSCALLS_REPAIR,
	 SYSCALLS_CALL("recvmsg", "a command from passt, with its sockets"),
	 SYSCALLS_CALL_IF("setsockopt", "TCP_REPAIR on them, nothing else",
			  SYSCALLS_ARG_EQ(1, IPPROTO_TCP),
			  SYSCALLS_ARG_EQ(2, TCP_REPAIR)),
	 SYSCALLS_CALL("getsockopt", "who the peer is, what a socket is"),
	 SYSCALLS_CALL("close", "our copies of passt's sockets"),
	 SYSCALLS_CALL("sendto", "the answer to passt (send())"),
	 SYSCALLS_CALL("write", "messages, to stderr"),
	 SYSCALLS_CALL("inotify_init1", "directory mode: watch for sockets"),
	 SYSCALLS_CALL("inotify_add_watch", "directory mode: the directory"),
	 SYSCALLS_CALL("read", "directory mode: inotify events"));

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
	fputs("passt-repair: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	_exit(1);
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
 * repair_try() - connect to a socket at a path
 * @path:	path
 * @quiet:	don't say why it failed (waiting in a directory)
 *
 * Return: connected socket, -1 if it is no socket or refuses connections
 */
static int repair_try(const char *path, bool quiet)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int s;

	if (strlen(path) >= sizeof(a.sun_path)) {
		if (!quiet)
			fprintf(stderr, "passt-repair: %s: path too long for a "
				"UNIX socket\n", path);
		return -1;
	}
	if (stat(path, &st) || !S_ISSOCK(st.st_mode)) {
		if (!quiet)
			fprintf(stderr, "passt-repair: %s is not a socket\n",
				path);
		return -1;
	}

	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		repair_fail("can't create a UNIX socket: %s", strerror(errno));
	memcpy(a.sun_path, path, strlen(path) + 1);
	if (connect(s, (struct sockaddr *)&a, sizeof(a))) {
		if (!quiet)
			fprintf(stderr, "passt-repair: can't connect to %s: "
				"%s\n", path, strerror(errno));
		close(s);
		return -1;
	}
	return s;
}

/**
 * repair_scan() - connect to a ".repair" socket already in a directory
 * @dir:	directory
 *
 * Return: connected socket, -1 if there is none that accepts
 */
static int repair_scan(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);
	int s = -1;

	if (!d)
		repair_fail("can't read directory %s: %s", dir,
			    strerror(errno));
	while (s < 0 && (e = readdir(d))) {
		if (!repair_suffix_ok(e->d_name))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		s = repair_try(path, true);
		if (s >= 0)
			fprintf(stderr, "passt-repair: connected to %s\n", path);
	}
	closedir(d);
	return s;
}

/**
 * repair_wait_dir() - connect to a ".repair" socket in a directory, waiting
 *		       for one to appear if there is none yet
 * @dir:	directory
 *
 * Return: connected socket
 */
static int repair_wait_dir(const char *dir)
{
	char ev[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int in = inotify_init1(IN_CLOEXEC), s;

	if (in < 0 || inotify_add_watch(in, dir, IN_CREATE | IN_MOVED_TO) < 0)
		repair_fail("can't watch directory %s: %s", dir,
			    strerror(errno));

	/* Watching first: a socket created meanwhile is not missed */
	while ((s = repair_scan(dir)) < 0) {
		struct pollfd p = { .fd = in, .events = POLLIN };
		int n = poll(&p, 1, REPAIR_RESCAN_MS);

		if (n < 0 && errno != EINTR)
			repair_fail("can't watch directory %s: %s", dir,
				    strerror(errno));
		if (n > 0 && read(in, ev, sizeof(ev)) < 0 && errno != EINTR)
			repair_fail("can't watch directory %s: %s", dir,
				    strerror(errno));
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
 * repair_one() - read one message, apply it, answer
 * @s:		connected socket
 *
 * Return: true if there may be more, false at the end of the stream
 */
static bool repair_one(int s)
{
	union {
		char buf[CMSG_SPACE(REPAIR_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	int8_t cmd;
	struct iovec iov = { .iov_base = &cmd, .iov_len = sizeof(cmd) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	int fds[REPAIR_FDS_MAX], op;
	struct cmsghdr *cm;
	size_t n = 0, i;
	ssize_t r;

	do
		r = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0 && errno == ECONNRESET)
		r = 0;
	if (r < 0)
		repair_fail("can't read from passt: %s", strerror(errno));
	if (!r)
		return false;

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
	if (cmd != TCP_REPAIR_ON && cmd != TCP_REPAIR_OFF &&
	    cmd != TCP_REPAIR_OFF_NO_WP)
		repair_fail("unknown command %i", cmd);

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
			"socket in the directory PATH.\n", argv[0]);
		return argc == 2 ? 0 : 2;
	}

	if (stat(argv[1], &st))
		repair_fail("%s: %s", argv[1], strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		s = repair_wait_dir(argv[1]);
	} else {
		s = repair_try(argv[1], false);
		if (s < 0)
			return S_ISSOCK(st.st_mode) ? 1 : 2;
	}

	repair_sandbox();

	while (repair_one(s))
		;
	return 0;
}
