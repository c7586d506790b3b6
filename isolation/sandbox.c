// SPDX-License-Identifier: GPL-2.0-or-later
/* sandbox.c - confine the relay once set-up is over
 *
 * Theory of operation
 *
 * After set-up, nothing the relay does needs the file system, other
 * users' privileges or most system calls, so it gives them up, in this
 * order (doc/design.md, "Isolation"):
 *
 * 1. sandbox_detach(), before going to the background: new mount, IPC,
 *    UTS and PID namespaces (pasta in the foreground: no PID namespace,
 *    its worker thread couldn't be created). The PID namespace holds our
 *    children only: the process that stays in the background is its
 *    first, and passt in the foreground has it for children it never
 *    makes. The root becomes an empty read-only tmpfs: mount it over /proc
 *    (a directory that exists everywhere we run), make it the root with
 *    pivot_root(".", ".") and detach the old root, which was stacked on
 *    top of it; with --chroot-fallback, if pivot_root() fails, move the
 *    tmpfs over / and chroot() into it instead. Descriptors opened before
 *    (log and pcap files, procfs tables of "auto" forwarding, sockets)
 *    keep working; paths no longer resolve. unshare(CLONE_NEWNS) fails in
 *    a multi-threaded process, so this runs after pasta joined the
 *    namespace worker thread of its set-up, and before it starts the one
 *    it keeps. It needs CAP_SYS_ADMIN in our user
 *    namespace: without it, passt first creates a user namespace of its
 *    own (mapping only its own IDs). pasta can't: its worker thread has
 *    to setns() into the target network namespace afterwards, which a
 *    nested user namespace forbids. If any of it fails, the relay exits
 *    with a message naming the step: it never runs with the file system
 *    in view.
 *
 * 2. sandbox_lockdown(), once pasta's worker is in the target namespace:
 *    switch to the --runas user if we are root (not in a user namespace
 *    pasta joined, where only our own IDs are mapped), then drop every
 *    capability but those listed for the mode (passt: none; pasta:
 *    CAP_NET_BIND_SERVICE, to bind ports below 1024 found by "auto"
 *    forwarding, on either side). Capabilities are per thread, so pasta's
 *    worker drops its own: it keeps its permitted set across the ID change
 *    (PR_SET_KEEPCAPS), then reduces it like the main thread; with
 *    --config-net, unless --no-follow-host, it also keeps CAP_NET_ADMIN
 *    (over the namespace it is in), to move the tap device's addresses
 *    and routes when the host's change (conf/netlink_follow.c).
 *
 * 3. no-new-privs, not dumpable; then, if the host's resolver file is
 *    followed, its reader is forked (resolv_reader.c): it inherits all of
 *    the above and confines itself further, so that the relay never has
 *    to open a path again. Last, the seccomp filter built from the
 *    modules' lists (syscalls.c), synchronised to all threads, killing
 *    the process on any other call.
 *
 * A test build (SANDBOX_TEST_HOOK, "make hook") makes a call outside the
 * lists on SIGUSR2, to check that the filter kills us, and loads the
 * filter of another mode if SANDBOX_TEST_WRONG_FILTER is set, to check
 * that tests/integration/seccomp_profiles.sh notices.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cap-ng.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "sandbox.h"
#include "resolv_reader.h"
#include "pasta.h"
#include "../util/syscalls.h"
#include "../util/userns.h"
#include "../conf/ctx.h"
#include "../util/log.h"
#include "../util/util.h"
#include "../util/ns_worker.h"
#include "../guest/follow.h"

/* Directory we mount the new root over: it exists wherever we run */
#define SANDBOX_NEWROOT		"/proc"
/* The new root: empty, read-only, nothing to execute or open */
#define SANDBOX_ROOT_FLAGS	(MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
#define SANDBOX_ROOT_OPTS	"size=4k,mode=0555"
/* Namespaces we detach into */
#define SANDBOX_NS_FLAGS	(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS)
/* unshare() after joining a thread: tries, and the pause between them */
#define SANDBOX_UNSHARE_TRIES		100
#define SANDBOX_UNSHARE_PAUSE_NS	100000
/* Longest line written to /proc/self/{uid,gid}_map */
#define SANDBOX_MAP_LEN		64

/* Most capabilities a mode keeps */
#define SANDBOX_KEEP_MAX	4

/* Capabilities each mode keeps at run time, see the theory of operation */
static const unsigned int sandbox_keep_pasta[] = { CAP_NET_BIND_SERVICE };
/* pasta's worker thread, when the namespace follows the host: it updates
 * the tap device's addresses and routes (conf/netlink_follow.c)
 */
static const unsigned int sandbox_keep_follow[] = {
	CAP_NET_BIND_SERVICE, CAP_NET_ADMIN
};
_Static_assert(ARRAY_SIZE(sandbox_keep_follow) <= SANDBOX_KEEP_MAX,
	       "SANDBOX_KEEP_MAX too small for the worker's capabilities");
_Static_assert(ARRAY_SIZE(sandbox_keep_pasta) <= SANDBOX_KEEP_MAX,
	       "SANDBOX_KEEP_MAX too small for pasta's capabilities");

/**
 * enum sandbox_thread_step - what pasta's worker thread does, in order
 * @SANDBOX_THREAD_PREPARE:	keep capabilities across an ID change, reduce
 *				the bounding set
 * @SANDBOX_THREAD_DROP:	drop capabilities after the ID change
 */
enum sandbox_thread_step {
	SANDBOX_THREAD_PREPARE,
	SANDBOX_THREAD_DROP,
};

/**
 * struct sandbox_caps - capabilities to keep, for the worker thread
 * @keep:	capabilities
 * @n:		how many
 * @step:	step to run
 */
struct sandbox_caps {
	const unsigned int *keep;
	size_t n;
	enum sandbox_thread_step step;
};

/**
 * sandbox_userns() - create a user namespace mapping only our own IDs
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int sandbox_userns(void)
{
	char map[SANDBOX_MAP_LEN];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER))
		return -1;

	snprintf(map, sizeof(map), "%u %u 1", uid, uid);
	if (userns_write(0, "uid_map", map))
		return -1;
	if (userns_write(0, "setgroups", "deny") && errno != ENOENT)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", gid, gid);
	return userns_write(0, "gid_map", map);
}

/**
 * enum sandbox_step - steps to the empty root, for messages
 * @SANDBOX_PRIVATE:	make every mount private
 * @SANDBOX_TMPFS:	mount the tmpfs
 * @SANDBOX_CHDIR_NEW:	change directory to it
 * @SANDBOX_PIVOT:	pivot_root() into it
 * @SANDBOX_DETACH:	detach the old root
 * @SANDBOX_MOVE:	--chroot-fallback: move the tmpfs over /
 * @SANDBOX_CHROOT:	--chroot-fallback: chroot() into it
 * @SANDBOX_CHDIR_ROOT:	change directory to /
 * @SANDBOX_STEPS:	number of steps
 */
enum sandbox_step {
	SANDBOX_PRIVATE,
	SANDBOX_TMPFS,
	SANDBOX_CHDIR_NEW,
	SANDBOX_PIVOT,
	SANDBOX_DETACH,
	SANDBOX_MOVE,
	SANDBOX_CHROOT,
	SANDBOX_CHDIR_ROOT,
	SANDBOX_STEPS,
};

/* What each step does, and what to do when it fails with EINVAL */
static const struct {
	const char *what;
	const char *einval;
} sandbox_steps[SANDBOX_STEPS] = {
	[SANDBOX_PRIVATE]	= { "make mounts private",
		": is the root directory a mount point? In a chroot, make "
		"it one first (mount --bind DIR DIR)" },
	[SANDBOX_TMPFS]		= { "mount a tmpfs on " SANDBOX_NEWROOT, "" },
	[SANDBOX_CHDIR_NEW]	= { "change directory to the new root", "" },
	[SANDBOX_PIVOT]		= { "pivot_root() into the empty root",
		": where the root file system can't be pivoted (initramfs, "
		"a tmpfs root, a shared parent mount), --chroot-fallback "
		"uses chroot() instead" },
	[SANDBOX_DETACH]	= { "detach the old root", "" },
	[SANDBOX_MOVE]		= { "move the empty root over / "
				    "(--chroot-fallback)", "" },
	[SANDBOX_CHROOT]	= { "chroot() into the empty root "
				    "(--chroot-fallback)", "" },
	[SANDBOX_CHDIR_ROOT]	= { "change directory to /", "" },
};

/**
 * sandbox_chroot() - --chroot-fallback: chroot() into the empty root
 * @step:	set to the step that failed
 *
 * pivot_root() refuses some roots (initramfs, a root whose parent mount is
 * shared). Then the tmpfs, our working directory, is moved over / and
 * becomes our root with chroot(). Unlike pivot_root(), this leaves the old
 * root mounted beneath it in our mount namespace: out of reach of a
 * process without CAP_SYS_CHROOT and CAP_SYS_ADMIN, which
 * sandbox_lockdown() drops next.
 *
 * Return: 0 on success, -1 with errno set on failure (step in @step)
 */
static int sandbox_chroot(enum sandbox_step *step)
{
	*step = SANDBOX_MOVE;
	if (mount(".", "/", NULL, MS_MOVE, NULL))
		return -1;

	*step = SANDBOX_CHROOT;
	if (chroot("."))
		return -1;

	*step = SANDBOX_CHDIR_ROOT;
	return chdir("/");
}

/**
 * sandbox_pivot() - make an empty read-only tmpfs our root
 * @c:		execution context
 * @step:	set to the step that failed
 *
 * Return: 0 on success, -1 with errno set on failure (step in @step)
 */
static int sandbox_pivot(const struct ctx *c, enum sandbox_step *step)
{
	/* Nothing we do from now on propagates to the namespace we left */
	*step = SANDBOX_PRIVATE;
	if (mount("", "/", "", MS_REC | MS_PRIVATE, NULL))
		return -1;

	*step = SANDBOX_TMPFS;
	if (mount("", SANDBOX_NEWROOT, "tmpfs", SANDBOX_ROOT_FLAGS,
		  SANDBOX_ROOT_OPTS))
		return -1;

	*step = SANDBOX_CHDIR_NEW;
	if (chdir(SANDBOX_NEWROOT))
		return -1;

	/* The old root ends up stacked on the new one, at "." */
	*step = SANDBOX_PIVOT;
	if (syscall(SYS_pivot_root, ".", ".")) {
		if (!c->chroot_fallback)
			return -1;

		warn("Can't pivot_root() into the empty root: %s. "
		     "--chroot-fallback: using chroot() instead, which leaves "
		     "the old root mounted beneath the new one, in our mount "
		     "namespace, instead of detaching it", strerror(errno));
		return sandbox_chroot(step);
	}

	*step = SANDBOX_DETACH;
	if (umount2(".", MNT_DETACH))
		return -1;

	*step = SANDBOX_CHDIR_ROOT;
	return chdir("/");
}

/**
 * sandbox_ns_flags() - namespaces to detach into
 * @c:		execution context
 * @fork_next:	we are going to the background next
 *
 * A new PID namespace holds our children, not us: passt gets one always
 * (it never forks again, nor starts threads: clone() of a thread fails
 * once our children's PID namespace differs from ours), and the process
 * that stays in the background is its first process. pasta starts its
 * worker thread after this: only in the background, in the child.
 *
 * Return: CLONE_* flags for unshare()
 */
static int sandbox_ns_flags(const struct ctx *c, bool fork_next)
{
	if (c->mode == MODE_PASST || fork_next)
		return SANDBOX_NS_FLAGS | CLONE_NEWPID;
	return SANDBOX_NS_FLAGS;
}

/**
 * sandbox_unshare_joined() - unshare(), once a joined thread is gone
 * @flags:	CLONE_* flags
 *
 * unshare(CLONE_NEWNS) fails with EINVAL while another thread shares our
 * file system information, and a thread that pthread_join() returned for
 * may still hold it for a moment (the kernel wakes the joiner before it
 * releases that): pasta joins its namespace worker just before. Retry
 * for a while, then give up with EINVAL as it came.
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int sandbox_unshare_joined(int flags)
{
	struct timespec pause = { 0, SANDBOX_UNSHARE_PAUSE_NS };
	int tries;

	for (tries = 0; tries < SANDBOX_UNSHARE_TRIES; tries++) {
		if (!unshare(flags))
			return 0;
		if (errno != EINVAL)
			return -1;
		nanosleep(&pause, NULL);
	}
	return unshare(flags);
}

/**
 * sandbox_unshare() - detach into new namespaces, or exit saying why not
 * @c:		execution context
 * @flags:	CLONE_* flags from sandbox_ns_flags()
 *
 * Needs CAP_SYS_ADMIN in our user namespace. Without it, passt creates a
 * user namespace of its own first, mapping only its own IDs; pasta can't
 * (see the theory of operation), and exits, as upstream does.
 */
static void sandbox_unshare(const struct ctx *c, int flags)
{
	int e;

	if (!sandbox_unshare_joined(flags))
		return;

	e = errno;
	if (e == EPERM && c->mode == MODE_PASTA) {
		die("Can't detach into new mount, IPC and UTS namespaces for "
		    "the sandbox: %s. pasta needs CAP_SYS_ADMIN in its user "
		    "namespace: run it as root, or let it spawn or join a "
		    "user namespace (not --netns-only)", strerror(e));
	}
	if (e != EPERM)
		die("Can't detach into new namespaces for the sandbox: %s",
		    strerror(e));

	if (sandbox_userns()) {
		die("Can't create a user namespace for the sandbox: %s. "
		    "Without privileges, passt needs one to isolate itself "
		    "(mount, IPC, UTS and PID namespaces, an empty root): "
		    "allow unprivileged user namespaces (sysctl "
		    "user.max_user_namespaces), or start passt as root, "
		    "which then switches to --runas%s", strerror(errno),
		    c->chroot_fallback ? ". --chroot-fallback can't help: "
		    "chroot() needs that namespace too" : "");
	}
	if (unshare(flags)) {
		die_perror("Can't detach into new mount, IPC, UTS and PID "
			   "namespaces for the sandbox");
	}
}

/**
 * sandbox_detach() - new mount, IPC, UTS (and PID) namespaces, empty root
 * @c:		execution context
 * @fork_next:	we are going to the background next (daemon_fork())
 *
 * Call while single-threaded, before going to the background and after
 * everything that needs paths: the log, pcap and PID files, /dev/log, the
 * tap device, namespace files, procfs tables. Exits, naming the step, if
 * any of it fails: the relay never runs with the file system in view.
 */
void sandbox_detach(const struct ctx *c, bool fork_next)
{
	int flags = sandbox_ns_flags(c, fork_next);
	enum sandbox_step step;

	sandbox_unshare(c, flags);

	if (sandbox_pivot(c, &step)) {
		int e = errno;

		die("Can't %s for the sandbox: %s%s",
		    sandbox_steps[step].what, strerror(e),
		    e == EINVAL ? sandbox_steps[step].einval : "");
	}

	debug("sandbox: new mount, IPC, UTS%s namespaces, empty root",
	      flags & CLONE_NEWPID ? ", PID" : "");
}

/**
 * sandbox_id_change() - will we switch to the --runas user?
 * @c:		execution context
 *
 * Return: true if we run as root in a namespace where that user exists
 */
static bool sandbox_id_change(const struct ctx *c)
{
	if (geteuid() != 0 || c->uid == 0)
		return false;

	/* Inside a user namespace we joined, only our own IDs are mapped */
	if (c->mode == MODE_PASTA && pasta_userns_joined())
		return false;

	return true;
}

/**
 * sandbox_caps_set() - reduce this thread's capability sets to a list
 * @keep:	capabilities to keep, if we have them
 * @n:		number of entries
 * @select:	CAPNG_SELECT_CAPS (effective, permitted), CAPNG_SELECT_BOUNDS
 *		(bounding set) or both
 *
 * The bounding set can only be reduced with CAP_SETPCAP: without it, it's
 * left as it is (an unprivileged process gains nothing from it anyway,
 * with no-new-privs).
 *
 * Return: 0 on success, -1 on failure
 */
static int sandbox_caps_set(const unsigned int *keep, size_t n,
			    capng_select_t select)
{
	bool perm[SANDBOX_KEEP_MAX], bnd[SANDBOX_KEEP_MAX];
	size_t i;

	if (capng_get_caps_process())
		return -1;

	if (!capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP))
		select &= ~CAPNG_SELECT_BOUNDS;
	if (!select)
		return 0;

	/* Only what we have can be kept: note it before clearing */
	for (i = 0; i < n && i < SANDBOX_KEEP_MAX; i++) {
		perm[i] = capng_have_capability(CAPNG_PERMITTED, keep[i]);
		bnd[i] = capng_have_capability(CAPNG_BOUNDING_SET, keep[i]);
	}

	capng_clear(select);
	for (i = 0; i < n && i < SANDBOX_KEEP_MAX; i++) {
		if ((select & CAPNG_SELECT_CAPS) && perm[i])
			capng_update(CAPNG_ADD, CAPNG_EFFECTIVE |
				     CAPNG_PERMITTED, keep[i]);
		if ((select & CAPNG_SELECT_BOUNDS) && bnd[i])
			capng_update(CAPNG_ADD, CAPNG_BOUNDING_SET, keep[i]);
	}

	return capng_apply(select);
}

/**
 * sandbox_thread_caps() - capability steps of pasta's worker thread
 * @arg:	struct sandbox_caps
 *
 * Return: 0 on success, -EPERM on failure
 */
static int sandbox_thread_caps(void *arg)
{
	const struct sandbox_caps *sc = arg;

	if (sc->step == SANDBOX_THREAD_PREPARE) {
		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
			return -errno;
		return sandbox_caps_set(sc->keep, sc->n, CAPNG_SELECT_BOUNDS)
			? -EPERM : 0;
	}

	if (sandbox_caps_set(sc->keep, sc->n, CAPNG_SELECT_CAPS))
		return -EPERM;
	return prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) ? -errno : 0;
}

/**
 * sandbox_runas() - switch to the --runas user and group
 * @c:		execution context
 *
 * glibc changes the IDs of every thread. Capabilities survive in the
 * permitted set of threads that asked for it (PR_SET_KEEPCAPS).
 */
static void sandbox_runas(const struct ctx *c)
{
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		die_perror("Can't keep capabilities across the user change");
	if (setgroups(0, NULL) && errno != EPERM)
		die_perror("Can't drop supplementary groups");
	if (setgid(c->gid))
		die_perror("Can't switch to group %u (--runas)", c->gid);
	if (setuid(c->uid))
		die_perror("Can't switch to user %u (--runas)", c->uid);
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0))
		die_perror("Can't reset the keep-capabilities flag");
}

#ifdef SANDBOX_TEST_HOOK
/**
 * sandbox_test_forbidden() - SIGUSR2 in test builds: make a forbidden call
 * @sig:	unused
 *
 * syslog(2) with SYSLOG_ACTION_SIZE_BUFFER only reads a size, and no
 * module lists it: the filter must kill the process with SIGSYS.
 */
static void sandbox_test_forbidden(int sig)
{
	(void)sig;
	syscall(SYS_syslog, 10, NULL, 0);
}

/**
 * sandbox_test_hook() - route SIGUSR2 to sandbox_test_forbidden()
 */
static void sandbox_test_hook(void)
{
	struct sigaction sa = { .sa_handler = sandbox_test_forbidden };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL))
		die_perror("Can't set the SIGUSR2 test hook");
	warn("Test build: SIGUSR2 makes a forbidden system call");
}
#endif

/**
 * sandbox_syscalls_mode() - whose system call lists make our filter
 * @c:		execution context
 *
 * Return: SYSCALLS_PASTA, SYSCALLS_VU (passt --vhost-user) or
 *	   SYSCALLS_PASST (passt over the stream socket)
 */
static unsigned int sandbox_syscalls_mode(const struct ctx *c)
{
#ifdef SANDBOX_TEST_HOOK
	/* Test build: a filter that doesn't match the mode, on request, so
	 * that tests/integration/seccomp_profiles.sh can see its check fail
	 */
	if (getenv("SANDBOX_TEST_WRONG_FILTER"))
		return c->mode == MODE_PASTA ? SYSCALLS_PASST : SYSCALLS_VU;
#endif
	if (c->mode == MODE_PASTA)
		return SYSCALLS_PASTA;
	return c->vhost_user ? SYSCALLS_VU : SYSCALLS_PASST;
}

/**
 * sandbox_lockdown() - user, capabilities, no-new-privs, seccomp filter
 * @c:		execution context
 *
 * Call after sandbox_detach() and, for pasta, ns_worker_start().
 * Exits on failure.
 */
void sandbox_lockdown(const struct ctx *c)
{
	struct sandbox_caps sc = { .keep = NULL, .n = 0 };	/* passt */
	bool worker = c->mode == MODE_PASTA && ns_target_fd() >= 0;

	if (c->mode == MODE_PASTA) {
		sc.keep = sandbox_keep_pasta;
		sc.n = ARRAY_SIZE(sandbox_keep_pasta);
	}

	if (worker) {
		struct sandbox_caps wc = sc;

		if (c->pasta_conf_ns && !c->no_follow_host) {
			wc.keep = sandbox_keep_follow;
			wc.n = ARRAY_SIZE(sandbox_keep_follow);
		}
		wc.step = SANDBOX_THREAD_PREPARE;
		if (ns_run(sandbox_thread_caps, &wc))
			die("Can't prepare the namespace thread's capabilities");
	}

	if (sandbox_caps_set(sc.keep, sc.n, CAPNG_SELECT_BOUNDS))
		die("Can't reduce the capability bounding set");

	if (sandbox_id_change(c))
		sandbox_runas(c);

	if (sandbox_caps_set(sc.keep, sc.n, CAPNG_SELECT_CAPS))
		die("Can't drop capabilities");

	if (worker) {
		struct sandbox_caps wc = sc;

		if (c->pasta_conf_ns && !c->no_follow_host) {
			wc.keep = sandbox_keep_follow;
			wc.n = ARRAY_SIZE(sandbox_keep_follow);
		}
		wc.step = SANDBOX_THREAD_DROP;
		if (ns_run(sandbox_thread_caps, &wc))
			die("Can't drop the namespace thread's capabilities");
	}

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die_perror("Can't set no-new-privs");
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die_perror("Can't make the process not dumpable");

	/* The reader of a followed resolver file: it inherits all of the
	 * above, and drops more (resolv_reader.c)
	 */
	if (follow_resolv_src())
		follow_resolv_attach(c, resolv_reader_spawn(follow_resolv_src()));

#ifdef SANDBOX_TEST_HOOK
	sandbox_test_hook();
#endif

	if (syscalls_filter_load(sandbox_syscalls_mode(c)))
		die("Can't install the seccomp filter");
}
