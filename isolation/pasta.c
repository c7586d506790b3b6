// SPDX-License-Identifier: GPL-2.0-or-later
/* pasta.c - the namespace side of pasta: spawn, join, watch
 *
 * Theory of operation
 *
 * pasta_open_ns() ends with a descriptor of the target network namespace,
 * obtained in one of three ways:
 *
 * - --netns PATH (or NAME, meaning /run/netns/NAME): open the file, after
 *   joining the user namespace given with --userns, if any (RootlessKit
 *   passes both);
 *
 * - a PID: open /proc/PID/ns/net; if we may not enter it, join the PID's
 *   user namespace too (unless --netns-only) and try again;
 *
 * - otherwise spawn a command (default: $SHELL, or /bin/sh) with clone() in
 *   new user, network and UTS namespaces. The parent maps the caller's UID
 *   and GID to root inside (root maps the whole range onto itself), opens
 *   the child's namespaces, and joins its user namespace if it needs that
 *   to enter the network namespace (an unprivileged caller does). The child
 *   blocks on a pipe until pasta_child_start(), called once the namespace is
 *   configured, so the command never sees an unconfigured network.
 *
 * Whether we can enter the namespace is checked by doing it: a thread
 * enters it (util/ns_worker.c, which also runs the functions that must
 * open sockets or devices there). Joining a user namespace, instead,
 * changes the whole process and needs a single-threaded caller, which we
 * are again once that thread is joined.
 *
 * pasta_watch_init() ends the relay with the namespace: an inotify watch
 * on the directory of a --netns file (deletion of the file) or a pidfd for
 * a target PID end it with status 0, unless --no-netns-quit; a pidfd for
 * the spawned command (and pasta_sigchld(), for SIGCHLD) ends it with the
 * command's exit status, or 128 plus the number of the signal that killed
 * it, as shells report.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pasta.h"
#include "../conf/ctx.h"
#include "../conf/netlink.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/ns_worker.h"
#include "../util/syscalls.h"
#include "../util/userns.h"
#include "../guest/guest.h"

/* System calls after start-up: releasing and reaping the command, the
 * namespace watch (the worker's hand-off: util/ns_worker.c)
 */
SYSCALLS(SYSCALLS_PASTA,
	 SYSCALLS_CALL("write", "release the spawned command, on its pipe"),
	 SYSCALLS_CALL("close", "the command's pipe, once released"),
	 SYSCALLS_CALL("read", "inotify: the watched namespace is gone?"),
	 SYSCALLS_CALL("wait4|waitid", "reap the command, for its status"));

/* Stack of the spawned child until it calls exec */
#define PASTA_CHILD_STACK_SIZE	(256 * 1024)
/* Where "ip netns" keeps named namespaces: --netns NAME means this/NAME */
#define PASTA_NETNS_RUN_DIR	"/run/netns"
/* inotify events read at once */
#define PASTA_INOTIFY_BUF	(8 * (sizeof(struct inotify_event) + \
				      NAME_MAX + 1))
/* Shell spawned when no command is given and $SHELL is not set */
#define PASTA_SHELL_DEFAULT	"/bin/sh"
/* Exit status for a command that can't be run, as shells use */
#define PASTA_EXIT_NOEXEC	126
#define PASTA_EXIT_NOTFOUND	127
/* Exit status base for a command killed by a signal */
#define PASTA_EXIT_SIGNAL_BASE	128
/* Groups allowed to open ICMP echo sockets in a namespace we create: 0 up
 * to the last one mapped there, at most this
 */
#define PASTA_PING_GROUP_MAX	2147483647U
#define PASTA_PING_GROUP_RANGE	"/proc/sys/net/ipv4/ping_group_range"

static pid_t pasta_child;		/* spawned command, 0 if none */
static pid_t pasta_parent;		/* our PID when we spawned it */
static bool pasta_child_done;		/* it exited, we are exiting */
static int pasta_go_rd = -1;		/* child waits on this... */
static int pasta_go_wr = -1;		/* ...until we write here */
static char **pasta_child_argv;		/* what the child runs */
static char pasta_ping_groups[32];	/* for the child's namespace */
static bool pasta_userns;		/* we joined a user namespace */
static char pasta_watch_name[NAME_MAX + 1];	/* netns file, in its dir */
static char pasta_child_stack[PASTA_CHILD_STACK_SIZE]
	__attribute__((aligned(16)));

/**
 * pasta_same_ns() - is a namespace descriptor the one we are in?
 * @fd:		namespace descriptor
 * @self:	our own namespace file, e.g. /proc/self/ns/user
 *
 * Return: true if both refer to the same namespace
 */
static bool pasta_same_ns(int fd, const char *self)
{
	struct stat a, b;

	if (fstat(fd, &a) || stat(self, &b))
		return false;

	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/**
 * pasta_join_userns() - join a user namespace, unless we are in it
 * @path:	user namespace file
 *
 * Exits on failure.
 */
static void pasta_join_userns(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_perror("can't open user namespace %s", path);

	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWUSER)
		die("%s is not a user namespace", path);

	if (pasta_same_ns(fd, "/proc/self/ns/user")) {
		close(fd);
		debug("already in user namespace %s", path);
		return;
	}

	if (setns(fd, CLONE_NEWUSER)) {
		if (errno == EPERM) {
			die("can't join user namespace %s: %s; it must be "
			    "owned by our user, or we need CAP_SYS_ADMIN in it",
			    path, strerror(errno));
		}
		die_perror("can't join user namespace %s", path);
	}

	close(fd);
	pasta_userns = true;
	debug("joined user namespace %s", path);
}

/**
 * pasta_open_netns_file() - open and check a network namespace file
 * @path:	file, e.g. /run/netns/NAME or /proc/PID/ns/net
 * @what:	how to name it in messages
 *
 * Exits on failure.
 */
static void pasta_open_netns_file(const char *path, const char *what)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die_perror("can't open network namespace %s", what);

	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET)
		die("%s is not a network namespace", what);

	ns_target_set(fd);
}

/**
 * pasta_enter_or_die() - check that we may enter the namespace, or exit
 * @what:	how to name the namespace in messages
 * @hint:	what the user can do about a permission error, or NULL
 */
static void pasta_enter_or_die(const char *what, const char *hint)
{
	int ret = ns_enter_check();

	if (!ret)
		return;

	if (ret == -EPERM && hint)
		die("can't enter network namespace %s: %s; %s", what,
		    strerror(-ret), hint);
	die("can't enter network namespace %s: %s", what, strerror(-ret));
}

/**
 * pasta_join_path() - target a --netns file, with its --userns if given
 * @c:		execution context; a bare name in c->pasta_netns becomes a
 *		path in /run/netns
 */
static void pasta_join_path(struct ctx *c)
{
	if (!strchr(c->pasta_netns, '/')) {
		char path[PATH_MAX];
		int n;

		n = snprintf(path, sizeof(path), "%s/%s", PASTA_NETNS_RUN_DIR,
			     c->pasta_netns);
		if (n < 0 || (size_t)n >= sizeof(c->pasta_netns))
			die("network namespace name too long: %s",
			    c->pasta_netns);
		memcpy(c->pasta_netns, path, (size_t)n + 1);
	}

	if (c->pasta_userns[0])
		pasta_join_userns(c->pasta_userns);

	pasta_open_netns_file(c->pasta_netns, c->pasta_netns);
	pasta_enter_or_die(c->pasta_netns, c->pasta_userns[0] ? NULL :
			   "give its user namespace with --userns");
}

/**
 * pasta_join_pid() - target the network namespace of a running process
 * @c:		execution context
 */
static void pasta_join_pid(const struct ctx *c)
{
	pid_t pid = c->pasta_target_pid;
	char path[PATH_MAX], what[PATH_MAX];

	if (kill(pid, 0) && errno == ESRCH)
		die("no process with PID %i", pid);

	if (c->pasta_userns[0])
		pasta_join_userns(c->pasta_userns);

	snprintf(path, sizeof(path), "/proc/%i/ns/net", pid);
	snprintf(what, sizeof(what), "of PID %i", pid);
	pasta_open_netns_file(path, what);

	if (ns_enter_check() == -EPERM && !c->pasta_userns[0] &&
	    !c->netns_only) {
		snprintf(path, sizeof(path), "/proc/%i/ns/user", pid);
		pasta_join_userns(path);
	}

	pasta_enter_or_die(what, c->netns_only ?
			   "try without --netns-only" : NULL);
}

/**
 * pasta_child_reset_signals() - give the command default signal handling
 *
 * Ignored signals and the signal mask survive exec: the command must not
 * inherit ours (e.g. SIGPIPE ignored, SIGCHLD blocked for a signalfd).
 */
static void pasta_child_reset_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;
	int sig;

	sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &sa, NULL);
	}

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/**
 * pasta_child_ping_groups() - let the command's groups use ICMP echo sockets
 * @range:	"FIRST LAST", as pasta_spawn() found them mapped, or empty
 *
 * A new network namespace starts with ping_group_range "1 0" (nobody),
 * so that ping wouldn't work for root inside, lacking CAP_NET_RAW on the
 * host. Only IDs mapped into our user namespace may be given.
 */
static void pasta_child_ping_groups(const char *range)
{
	size_t len = strlen(range);
	int fd;

	if (!len)
		return;

	fd = open(PASTA_PING_GROUP_RANGE, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, range, len) != (ssize_t)len)
		debug_perror("can't set %s in the namespace",
			     PASTA_PING_GROUP_RANGE);
	if (fd >= 0)
		close(fd);
}

/**
 * pasta_child_main() - the spawned child: wait for the go, run the command
 * @arg:	unused
 *
 * Return: never returns
 */
static int pasta_child_main(void *arg)
{
	char **argv = pasta_child_argv;
	char go[sizeof(pasta_ping_groups)];
	ssize_t n;

	(void)arg;

	/* Without the relay, the namespace has no network: end with it */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM))
		warn_perror("can't set parent death signal for the command");
	if (getppid() != pasta_parent)
		_exit(EXIT_FAILURE);

	/* The go message is the range of ping groups, see pasta_spawn() */
	close(pasta_go_wr);
	do
		n = read(pasta_go_rd, go, sizeof(go) - 1);
	while (n < 0 && errno == EINTR);

	/* End of file: the relay failed before the namespace was ready */
	if (n <= 0)
		_exit(EXIT_FAILURE);
	go[n] = '\0';
	close(pasta_go_rd);

	pasta_child_reset_signals();
	pasta_child_ping_groups(go + 1);

	execvp(argv[0], argv);

	err("can't run %s: %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? PASTA_EXIT_NOTFOUND : PASTA_EXIT_NOEXEC);
}

/**
 * pasta_spawn_clone() - clone the child in new namespaces, map its IDs
 * @c:		execution context
 *
 * With --netns-only the command gets a new network (and UTS) namespace in
 * our own user namespace, where we need CAP_SYS_ADMIN; otherwise a new
 * user namespace too, with the IDs userns_map_child() can give it.
 */
static void pasta_spawn_clone(const struct ctx *c)
{
	int flags = CLONE_NEWNET | CLONE_NEWUTS | SIGCHLD;
	const char *cmd = pasta_child_argv[0];
	unsigned int groups;

	if (!c->netns_only)
		flags |= CLONE_NEWUSER;

	pasta_parent = getpid();
	pasta_child = clone(pasta_child_main,
			    pasta_child_stack + sizeof(pasta_child_stack),
			    flags, NULL);
	if (pasta_child < 0 && c->netns_only && errno == EPERM) {
		die("can't create a network namespace for %s with "
		    "--netns-only: %s; that needs CAP_SYS_ADMIN in our user "
		    "namespace: run it as root there, or without --netns-only",
		    cmd, strerror(errno));
	}
	if (pasta_child < 0) {
		if (errno == EPERM || errno == ENOSPC || errno == EUSERS) {
			die("can't create user and network namespaces for "
			    "%s: %s; check that unprivileged user namespaces "
			    "are enabled (user.max_user_namespaces, "
			    "kernel.unprivileged_userns_clone)",
			    cmd, strerror(errno));
		}
		die_perror("can't spawn %s in new namespaces", cmd);
	}

	close(pasta_go_rd);
	pasta_go_rd = -1;

	groups = c->netns_only ? userns_own_gid_span() :
				 userns_map_child(pasta_child, cmd);

	/* The go message: a marker byte, then the ping group range if any */
	if (groups)
		snprintf(pasta_ping_groups, sizeof(pasta_ping_groups),
			 "+0 %u", MIN(groups - 1, PASTA_PING_GROUP_MAX));
	else
		snprintf(pasta_ping_groups, sizeof(pasta_ping_groups), "+");
}

/**
 * pasta_spawn() - spawn the command in new user and network namespaces
 * @c:		execution context
 */
static void pasta_spawn(const struct ctx *c)
{
	static char *shell_argv[2];
	char path[PATH_MAX], what[PATH_MAX];
	int fds[2];

	if (c->pasta_cmd && c->pasta_cmd[0]) {
		pasta_child_argv = c->pasta_cmd;
	} else {
		const char *shell = getenv("SHELL");

		if (!shell || !*shell)
			shell = PASTA_SHELL_DEFAULT;
		shell_argv[0] = (char *)shell;
		shell_argv[1] = NULL;
		pasta_child_argv = shell_argv;
	}

	if (pipe2(fds, O_CLOEXEC))
		die_perror("can't create pipe to start the command");
	pasta_go_rd = fds[0];
	pasta_go_wr = fds[1];

	pasta_spawn_clone(c);

	snprintf(path, sizeof(path), "/proc/%i/ns/net", pasta_child);
	snprintf(what, sizeof(what), "of %s (PID %i)", pasta_child_argv[0],
		 pasta_child);
	pasta_open_netns_file(path, what);

	if (!c->netns_only && ns_enter_check() == -EPERM) {
		snprintf(path, sizeof(path), "/proc/%i/ns/user", pasta_child);
		pasta_join_userns(path);
	}
	pasta_enter_or_die(what, NULL);

	debug("spawned %s as PID %i in new namespaces", pasta_child_argv[0],
	      pasta_child);
}

/**
 * pasta_open_ns() - find, join or create the target network namespace
 * @c:		execution context
 *
 * Exits with a message on failure.
 *
 * Return: 0
 */
int pasta_open_ns(struct ctx *c)
{
	if (c->pasta_netns[0])
		pasta_join_path(c);
	else if (c->pasta_target_pid)
		pasta_join_pid(c);
	else
		pasta_spawn(c);

	return 0;
}

/**
 * pasta_netns_ends() - will our network namespace end as we exit?
 *
 * True once the command we spawned, in a namespace we created, exited
 * and we are exiting with its status: nothing of ours holds the namespace
 * then (its own descendants might).
 *
 * Return: true if we created the namespace and its command is gone
 */
bool pasta_netns_ends(void)
{
	return pasta_child_done;
}

/**
 * pasta_child_pid() - PID of the spawned command
 *
 * Return: PID, 0 if we didn't spawn one
 */
pid_t pasta_child_pid(void)
{
	return pasta_child;
}

/**
 * pasta_child_start() - let the spawned command run (namespace is ready)
 *
 * No effect without a spawned command, or if called again. SIGPIPE must be
 * ignored, in case the command is gone already.
 */
void pasta_child_start(void)
{
	size_t len = strlen(pasta_ping_groups);

	if (pasta_go_wr < 0)
		return;

	/* EPIPE: the command is gone already, its watch will tell */
	if (write(pasta_go_wr, pasta_ping_groups, len) != (ssize_t)len) {
		if (errno != EPIPE)
			die_perror("can't start %s", pasta_child_argv[0]);
		debug("%s ended before it was started", pasta_child_argv[0]);
	}

	close(pasta_go_wr);
	pasta_go_wr = -1;
}

/**
 * pasta_exit_child() - exit with the status of the spawned command
 * @status:	wait status from waitpid()
 */
static void __attribute__((noreturn)) pasta_exit_child(int status)
{
	pasta_child_done = true;
	if (WIFEXITED(status)) {
		debug("%s exited with status %i", pasta_child_argv[0],
		      WEXITSTATUS(status));
		exit(WEXITSTATUS(status));
	}

	if (WIFSIGNALED(status)) {
		debug("%s killed by signal %i", pasta_child_argv[0],
		      WTERMSIG(status));
		exit(PASTA_EXIT_SIGNAL_BASE + WTERMSIG(status));
	}

	exit(EXIT_FAILURE);
}

/**
 * pasta_epoll_add() - add a watch descriptor to the main epoll set
 * @c:		execution context
 * @type:	EPOLL_TYPE_NSQUIT_INOTIFY or EPOLL_TYPE_NSQUIT_PIDFD
 * @fd:		descriptor
 * @data:	type-specific word (PID for a pidfd)
 *
 * Return: 0 on success, negative errno
 */
static int pasta_epoll_add(const struct ctx *c, enum epoll_type type, int fd,
			   uint32_t data)
{
	union epoll_ref ref = { .type = type, .fd = (uint32_t)fd,
				.data = data };
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = ref.u64 };

	if (epoll_ctl(c->epollfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;

	return 0;
}

/**
 * pasta_watch_pid() - watch a process with a pidfd
 * @c:		execution context
 * @pid:	process
 *
 * Return: 0 on success, negative errno (logged)
 */
static int pasta_watch_pid(const struct ctx *c, pid_t pid)
{
	int fd, ret;

	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ESRCH) {
			info("process %i is gone, exiting", pid);
			exit(EXIT_SUCCESS);
		}
		err("can't watch process %i to exit with it: pidfd_open: %s",
		    pid, strerror(-ret));
		return ret;
	}

	ret = pasta_epoll_add(c, EPOLL_TYPE_NSQUIT_PIDFD, fd, (uint32_t)pid);
	if (ret) {
		err("can't add pidfd of process %i to epoll: %s", pid,
		    strerror(-ret));
		close(fd);
	}

	return ret;
}

/**
 * pasta_watch_file() - watch the directory of a namespace file
 * @c:		execution context
 * @path:	namespace file
 *
 * Return: 0 on success, negative errno (logged)
 */
static int pasta_watch_file(const struct ctx *c, const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	int fd, ret;

	slash = strrchr(path, '/');
	if (!slash || !slash[1] || strlen(slash + 1) > NAME_MAX)
		return -EINVAL;

	snprintf(pasta_watch_name, sizeof(pasta_watch_name), "%s", slash + 1);
	if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);

	fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		err("can't watch %s to exit with it: inotify: %s", path,
		    strerror(-ret));
		return ret;
	}

	if (inotify_add_watch(fd, dir, IN_DELETE | IN_MOVED_FROM) < 0) {
		ret = -errno;
		err("can't watch directory %s to exit when %s is deleted: %s",
		    dir, path, strerror(-ret));
		close(fd);
		return ret;
	}

	ret = pasta_epoll_add(c, EPOLL_TYPE_NSQUIT_INOTIFY, fd, 0);
	if (ret) {
		err("can't add inotify watch of %s to epoll: %s", dir,
		    strerror(-ret));
		close(fd);
		return ret;
	}

	/* Deleted before the watch started? Then we missed the event */
	if (access(path, F_OK) && errno == ENOENT) {
		info("network namespace %s is gone, exiting", path);
		exit(EXIT_SUCCESS);
	}

	return 0;
}

/**
 * pasta_watch_init() - watch the namespace, to exit when it goes away
 * @c:		execution context
 *
 * The spawned command is always watched (its end is ours). A target PID,
 * or a --netns file, is watched unless --no-netns-quit. A --netns path of
 * the form /proc/PID/ns/net is watched through the PID.
 *
 * Return: 0 on success, negative errno if a watch couldn't be set (logged)
 */
int pasta_watch_init(const struct ctx *c)
{
	int pid, end = 0;

	if (pasta_child)
		return pasta_watch_pid(c, pasta_child);

	if (c->no_netns_quit)
		return 0;

	if (c->pasta_target_pid)
		return pasta_watch_pid(c, c->pasta_target_pid);

	if (!c->pasta_netns[0])
		return 0;

	if (sscanf(c->pasta_netns, "/proc/%i/ns/net%n", &pid, &end) == 1 &&
	    end && !c->pasta_netns[end] && pid > 0)
		return pasta_watch_pid(c, pid);

	return pasta_watch_file(c, c->pasta_netns);
}

/**
 * pasta_inotify_handler() - read directory events, exit if ours is there
 * @c:		execution context
 * @fd:		inotify descriptor
 */
static void pasta_inotify_handler(const struct ctx *c, int fd)
{
	char buf[PASTA_INOTIFY_BUF]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		const char *p = buf;

		while (p + sizeof(struct inotify_event) <= buf + n) {
			const struct inotify_event *ev =
				(const struct inotify_event *)p;

			if (ev->len && !strcmp(ev->name, pasta_watch_name)) {
				info("network namespace %s is gone, exiting",
				     c->pasta_netns);
				exit(EXIT_SUCCESS);
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}

/**
 * pasta_watch_handler() - a watched namespace or process may have gone
 * @c:		execution context
 * @ref:	epoll reference: EPOLL_TYPE_NSQUIT_INOTIFY or _PIDFD
 * @events:	epoll events
 */
void pasta_watch_handler(const struct ctx *c, union epoll_ref ref,
			 uint32_t events)
{
	pid_t pid = (pid_t)ref.data;
	int status;

	(void)events;

	if (ref.type == EPOLL_TYPE_NSQUIT_INOTIFY) {
		pasta_inotify_handler(c, (int)ref.fd);
		return;
	}

	if (ref.type != EPOLL_TYPE_NSQUIT_PIDFD)
		return;

	if (pasta_child && pid == pasta_child) {
		pid_t r;

		do
			r = waitpid(pasta_child, &status, 0);
		while (r < 0 && errno == EINTR);

		if (r == pasta_child)
			pasta_exit_child(status);
		exit(EXIT_SUCCESS);
	}

	info("process %i exited, exiting", pid);
	exit(EXIT_SUCCESS);
}

/**
 * pasta_sigchld() - reap children; exit if the spawned command ended
 * @c:		execution context
 */
void pasta_sigchld(const struct ctx *c)
{
	int status;
	pid_t pid;

	(void)c;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pasta_child && pid == pasta_child)
			pasta_exit_child(status);
	}
}

/**
 * struct pasta_mac_req - the tap device's MAC address, read in the netns
 * @ifname:	device name
 * @mac:	its address, on success
 */
struct pasta_mac_req {
	const char *ifname;
	unsigned char mac[ETH_ALEN];
};

/**
 * pasta_mac_fn() - read a device's MAC address, run inside the namespace
 * @arg:	struct pasta_mac_req
 *
 * Return: 0 on success, negative errno on failure
 */
static int pasta_mac_fn(void *arg)
{
	struct pasta_mac_req *req = arg;
	struct ifreq ifr;
	int s, ret = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", req->ifname);
	if (ioctl(s, SIOCGIFHWADDR, &ifr))
		ret = -errno;
	else
		memcpy(req->mac, ifr.ifr_hwaddr.sa_data, sizeof(req->mac));

	close(s);
	return ret;
}

/**
 * pasta_guest_ll_init() - learn the namespace's IPv6 link-local address
 * @c:		execution context, after the tap device was configured
 *
 * Flows from a link-local source (a link-local gateway) go to the guest's
 * link-local address, which it would answer from anyway: known from the
 * start, as the MAC address is (see pasta_guest_mac_init()).
 */
static void pasta_guest_ll_init(const struct ctx *c)
{
	struct in6_addr ll;
	int ret;

	if (!c->ip6.enabled || c->splice_only ||
	    !IN6_IS_ADDR_UNSPECIFIED(guest_addr6_ll()))
		return;

	ret = nl_ns_link_ll(c->pasta_ifname, &ll);
	if (ret) {
		debug("can't read the link-local address of %s: %s",
		      c->pasta_ifname, strerror(-ret));
		return;
	}
	guest_addr6_ll_set(&ll);
}

/**
 * pasta_guest_mac_init() - learn the guest's MAC address (and its IPv6
 *			    link-local address) from the tap device
 * @c:		execution context, after the tap device was created
 *
 * The tap device is the guest's interface, and its address is known from
 * the start: frames for the guest must not wait for it to send one first.
 * Otherwise, a namespace that hasn't sent anything yet (IPv4 only: no
 * neighbour or router solicitations) would get a connection's first SYN
 * sent to the broadcast address, which its TCP drops. Frames from the
 * guest still update the address later (see net/).
 */
void pasta_guest_mac_init(const struct ctx *c)
{
	static const unsigned char zero[ETH_ALEN];
	struct pasta_mac_req req = { .ifname = c->pasta_ifname };
	int ret;

	pasta_guest_ll_init(c);

	if (c->splice_only || memcmp(guest_mac(), zero, sizeof(zero)) != 0)
		return;

	ret = ns_run(pasta_mac_fn, &req);
	if (ret) {
		debug("can't read the MAC address of %s: %s", c->pasta_ifname,
		      strerror(-ret));
		return;
	}
	guest_mac_set(req.mac);
}

/**
 * pasta_userns_joined() - did pasta_open_ns() join a user namespace?
 *
 * If so, our credentials are those of that namespace: the IDs we started
 * with appear as root there, and IDs not mapped into it (such as nobody,
 * for --runas) can't be switched to.
 *
 * Return: true if we joined one
 */
bool pasta_userns_joined(void)
{
	return pasta_userns;
}
