// SPDX-License-Identifier: GPL-2.0-or-later
/* resolv_reader.c - a process of its own reads the host's resolver file
 *
 * Theory of operation: a relay that follows the host's resolver file
 * (guest/follow_resolv.c) has to read it again after the sandbox closed,
 * and the file is usually replaced rather than rewritten, so a descriptor
 * of the file itself isn't enough: it takes a path lookup in the file's
 * directory. Rather than allow the relay that (an openat() in its
 * seccomp filter, and the directory in its view), resolv_reader_spawn()
 * forks a reader, which the relay can't steer: it takes no input from
 * the relay at all. It gets the directory (O_PATH) and the inotify watch
 * on it that start-up opened, and a socket pair to the relay; it reads
 * the file at start and whenever the watch reports a change of it, and
 * sends each text as one datagram (enum follow_resolv_msg), blocking
 * while the relay hasn't read the previous ones.
 *
 * It is forked at the end of sandbox_lockdown(), just before the relay's
 * seccomp filter: it inherits the relay's namespaces and empty root, its
 * user, no-new-privs and non-dumpable state, and drops what is left:
 *
 *   - its name, RESOLV_READER_NAME (ps, pgrep);
 *   - every descriptor but its three, at fixed numbers (RESOLV_READER_*),
 *     so its seccomp rules can name them;
 *   - every capability (pasta keeps CAP_NET_BIND_SERVICE), and every
 *     signal is blocked: no handler ever runs;
 *   - a Landlock domain that handles every file system access the
 *     kernel's ABI knows and allows reading files beneath the directory
 *     only ("../" or a link out of it is refused); without Landlock, the
 *     relay is told and logs it at debug;
 *   - a seccomp filter (its own profile, SYSCALLS_RESOLV): read(),
 *     openat() on the directory with FOLLOW_RESOLV_FLAGS exactly,
 *     close(), write() on the socket, exit.
 *
 * It ends with the relay: PR_SET_PDEATHSIG (foreground passt makes it the
 * first process of the PID namespace the sandbox created, which that
 * signal still reaches), a write failing on the closed socket, or the
 * relay's PID namespace going away.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/landlock.h>

#include <cap-ng.h>

#include "resolv_reader.h"
#include "../conf/conf.h"
#include "../guest/follow.h"
#include "../util/log.h"
#include "../util/syscalls.h"

/* The reader's descriptors, fixed: its seccomp rules name them */
#define RESOLV_READER_DIRFD	3	/* the file's directory (O_PATH) */
#define RESOLV_READER_INO	4	/* the inotify watch */
#define RESOLV_READER_SOCK	5	/* to the relay */
/* Above every descriptor the three are moved to, on their way there */
#define RESOLV_READER_FD_ABOVE	16
/* Its name (comm), as ps and pgrep show it: not the relay's */
#define RESOLV_READER_NAME	"resolv-reader"
/* inotify events read at once: each is a header and a name */
#define RESOLV_READER_EV_BUF	4096

/* Landlock's file system rights by ABI version, where headers predate them */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE		(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV		(1ULL << 15)	/* ABI 5 */
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION		(1U << 0)
#endif
/* ABI 1: from LANDLOCK_ACCESS_FS_EXECUTE to LANDLOCK_ACCESS_FS_MAKE_SYM */
#define RESOLV_READER_LL_ABI1	((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1)

SYSCALLS(SYSCALLS_RESOLV,
	 SYSCALLS_CALL("read", "inotify events; the file"),
	 SYSCALLS_CALL_IF("openat", "the file, beneath its directory only",
			  SYSCALLS_ARG_EQ(0, RESOLV_READER_DIRFD),
			  SYSCALLS_ARG_EQ(2, FOLLOW_RESOLV_FLAGS)),
	 SYSCALLS_CALL("close", "the file, once read"),
	 SYSCALLS_CALL_IF("write", "what it read, to the relay",
			  SYSCALLS_ARG_EQ(0, RESOLV_READER_SOCK)));

/**
 * resolv_reader_ll_handled() - file system rights a Landlock ABI knows
 * @abi:	version, from landlock_create_ruleset()
 *
 * Return: every right of @abi (ABI 4 and 6 added network rights and
 *	   scopes, not file system rights)
 */
static __u64 resolv_reader_ll_handled(long abi)
{
	__u64 fs = RESOLV_READER_LL_ABI1;

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return fs;
}

/**
 * resolv_reader_landlock() - reading files beneath the directory, no more
 *
 * Return: 0 on success, negative errno on failure
 */
static int resolv_reader_landlock(void)
{
	struct landlock_path_beneath_attr beneath = {
		.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
		.parent_fd = RESOLV_READER_DIRFD,
	};
	struct landlock_ruleset_attr attr = { 0 };
	int rs, ret = 0;
	long abi;

	abi = syscall(SYS_landlock_create_ruleset, NULL, 0,
		      LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 0)
		return -errno;

	attr.handled_access_fs = resolv_reader_ll_handled(abi);
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (rs < 0)
		return -errno;

	if (syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
		    &beneath, 0) ||
	    syscall(SYS_landlock_restrict_self, rs, 0))
		ret = -errno;
	close(rs);
	return ret;
}

/**
 * resolv_reader_send() - one message to the relay; exit if it is gone
 * @buf:	the message, a byte of kind first
 * @len:	its length
 */
static void resolv_reader_send(const char *buf, size_t len)
{
	ssize_t n;

	do
		n = write(RESOLV_READER_SOCK, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		_exit(0);
}

/**
 * resolv_reader_send_err() - a message with an error number
 * @kind:	enum follow_resolv_msg
 * @err:	the error number
 */
static void resolv_reader_send_err(char kind, int err)
{
	char buf[1 + sizeof(err)] = { kind };

	memcpy(buf + 1, &err, sizeof(err));
	resolv_reader_send(buf, sizeof(buf));
}

/**
 * resolv_reader_send_file() - read the file, send its text (or why not)
 * @name:	name to open in the directory
 */
static void resolv_reader_send_file(const char *name)
{
	static char buf[1 + CONF_RESOLV_MAX] = { FOLLOW_RESOLV_TEXT };
	ssize_t n;
	int fd;

	/* Not openat(): C libraries may add flags, the rule pins them */
	fd = (int)syscall(SYS_openat, RESOLV_READER_DIRFD, name,
			  FOLLOW_RESOLV_FLAGS);
	if (fd < 0) {
		resolv_reader_send_err(FOLLOW_RESOLV_ERROR, errno);
		return;
	}
	do
		n = read(fd, buf + 1, CONF_RESOLV_MAX);
	while (n < 0 && errno == EINTR);
	close(fd);

	if (n < 0)
		resolv_reader_send_err(FOLLOW_RESOLV_ERROR, errno);
	else
		resolv_reader_send(buf, 1 + (size_t)n);
}

/**
 * resolv_reader_loop() - read the file at start and after each change
 * @src:	names and watches (descriptors moved to RESOLV_READER_*)
 */
static void __attribute__((noreturn))
resolv_reader_loop(const struct follow_resolv_src *src)
{
	char ev[RESOLV_READER_EV_BUF]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	bool link_told = false;

	resolv_reader_send_file(src->open_name);
	for (;;) {
		bool changed = false, link = false;
		const char *p = ev;
		ssize_t n;

		n = read(RESOLV_READER_INO, ev, sizeof(ev));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);

		while (p + sizeof(struct inotify_event) <= ev + n) {
			const struct inotify_event *e =
				(const struct inotify_event *)p;

			if (e->mask & IN_Q_OVERFLOW)
				changed = true;
			else if (e->len && e->wd == src->wd &&
				 !strcmp(e->name, src->name))
				changed = true;
			else if (e->len && e->wd == src->wd_link &&
				 !strcmp(e->name, src->link_name))
				link = true;
			p += sizeof(*e) + e->len;
		}

		if (link && !link_told) {
			char msg = FOLLOW_RESOLV_LINK;

			resolv_reader_send(&msg, 1);
			link_told = true;
		}
		if (changed)
			resolv_reader_send_file(src->open_name);
	}
}

/**
 * resolv_reader_fds() - keep three descriptors, at RESOLV_READER_*
 * @dirfd:	the directory
 * @ino:	the inotify watch
 * @sock:	the socket to the relay
 *
 * Return: 0 on success, -1 on failure
 */
static int resolv_reader_fds(int dirfd, int ino, int sock)
{
	int keep[] = { dirfd, ino, sock }, i;

	for (i = 0; i < 3; i++) {
		keep[i] = fcntl(keep[i], F_DUPFD, RESOLV_READER_FD_ABOVE);
		if (keep[i] < 0)
			return -1;
	}
	for (i = 0; i < 3; i++) {
		if (dup2(keep[i], RESOLV_READER_DIRFD + i) < 0)
			return -1;
	}
	if (syscall(SYS_close_range, RESOLV_READER_SOCK + 1, ~0U, 0) ||
	    syscall(SYS_close_range, 0, RESOLV_READER_DIRFD - 1, 0))
		return -1;

	/* The relay's end is non-blocking: ours blocks, and so does the
	 * watch (start-up opened it without IN_NONBLOCK)
	 */
	return fcntl(RESOLV_READER_SOCK, F_SETFL, 0);
}

/**
 * resolv_reader_child() - drop what is left, then read for ever
 * @src:	names and watches
 * @sock:	the socket to the relay
 */
static void __attribute__((noreturn))
resolv_reader_child(const struct follow_resolv_src *src, int sock)
{
	sigset_t all;
	int ret;

	/* A relay gone before this is noticed by the first write */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) ||
	    prctl(PR_SET_NAME, RESOLV_READER_NAME))
		_exit(1);

	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, NULL) ||
	    resolv_reader_fds(src->dirfd, src->ino, sock))
		_exit(1);

	capng_clear(CAPNG_SELECT_CAPS);
	if (capng_apply(CAPNG_SELECT_CAPS) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(1);

	ret = resolv_reader_landlock();
	if (ret)
		resolv_reader_send_err(FOLLOW_RESOLV_OPEN, -ret);

	/* Its descriptors are closed and write() is the relay's only: not
	 * even syscalls_filter_load()'s debug message may be written
	 */
	log_set_level(LOG_ERR);
	if (syscalls_filter_load(SYSCALLS_RESOLV))
		_exit(1);

	resolv_reader_loop(src);
}

/**
 * resolv_reader_spawn() - start the reader of the resolver file
 * @src:	the file's directory, watch and names (follow_resolv_src())
 *
 * Call once privileges are dropped, before the relay's seccomp filter.
 *
 * Return: the relay's end of the socket pair (non-blocking), negative
 *	   errno on failure
 */
int resolv_reader_spawn(const struct follow_resolv_src *src)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sv))
		return -errno;

	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (!pid)
		resolv_reader_child(src, sv[1]);

	close(sv[1]);
	return sv[0];
}
