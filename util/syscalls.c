// SPDX-License-Identifier: GPL-2.0-or-later
/* syscalls.c - the seccomp filter, built from the modules' lists
 *
 * Theory of operation
 *
 * Every module lists the system calls it makes after set-up with
 * SYSCALLS() (syscalls.h), which leaves a pointer to the list in the ELF
 * section "relay_syscalls". syscalls_filter_load() walks that section
 * between the linker-provided __start_relay_syscalls and
 * __stop_relay_syscalls, adds an allow rule for each call of each list
 * that applies to the running mode (duplicates are harmless: libseccomp
 * merges them), and loads the filter with SCMP_ACT_KILL_PROCESS as the
 * default action. The filter is synchronised to every thread of the
 * process (SCMP_FLTATR_CTL_TSYNC): pasta keeps a worker thread in the
 * target namespace, and it must be confined as well.
 *
 * Sanitizer builds (ASan/UBSan, detected with __SANITIZE_ADDRESS__ or
 * SANDBOX_SANITIZER) add the calls the sanitizer runtimes make at run
 * time, listed below: they are not calls of ours, but the run time would
 * otherwise be killed while reporting an error.
 */

#include <errno.h>
#include <seccomp.h>
#include <stdint.h>
#include <string.h>

#include "syscalls.h"
#include "log.h"

/* Bounds of the section holding the lists: weak, in case it is empty */
extern const struct syscalls_list *const __start_relay_syscalls[]
	__attribute__((weak));
extern const struct syscalls_list *const __stop_relay_syscalls[]
	__attribute__((weak));

/* Exit paths of libc, used by every module: exit() and die() */
SYSCALLS(SYSCALLS_BOTH, "exit_group", "exit", "rt_sigreturn",
	 "restart_syscall");

#if defined(__SANITIZE_ADDRESS__) || defined(SANDBOX_SANITIZER)
/* ASan/UBSan run times: shadow memory, allocator, reports, symbolizer */
SYSCALLS(SYSCALLS_BOTH, "mmap", "munmap", "mremap", "madvise", "mprotect",
	 "brk", "sigaltstack", "rt_sigaction", "rt_sigprocmask", "prctl",
	 "getpid", "gettid", "tgkill", "sched_yield", "futex", "write",
	 "readlink", "readlinkat", "open", "openat", "close", "read",
	 "pread64", "fstat", "newfstatat", "lseek", "getrlimit",
	 "prlimit64", "uname", "nanosleep", "clock_nanosleep",
	 "sched_getaffinity");
#endif

/**
 * syscalls_each() - call a function for every name that applies to a mode
 * @mode:	running program: SYSCALLS_PASST or SYSCALLS_PASTA
 * @fn:		function, taking the name, the list and an argument; a
 *		non-zero return value stops the walk
 * @arg:	argument for @fn
 *
 * Return: the first non-zero value @fn returned, or 0
 */
static int syscalls_each(unsigned int mode,
			 int (*fn)(const char *name,
				   const struct syscalls_list *l, void *arg),
			 void *arg)
{
	unsigned int bit = mode;	/* SYSCALLS_PASST or SYSCALLS_PASTA */
	size_t n, k;

	if (!__start_relay_syscalls || !__stop_relay_syscalls)
		return 0;

	/* Linker symbols, not C objects: count entries from the addresses */
	n = ((uintptr_t)__stop_relay_syscalls -
	     (uintptr_t)__start_relay_syscalls) /
	    sizeof(const struct syscalls_list *);

	for (k = 0; k < n; k++) {
		const struct syscalls_list *l = __start_relay_syscalls[k];
		unsigned int i;
		int ret;

		if (!(l->modes & bit))
			continue;
		for (i = 0; i < l->n; i++) {
			ret = fn(l->names[i], l, arg);
			if (ret)
				return ret;
		}
	}

	return 0;
}

/**
 * syscalls_add() - add an allow rule for one call to a filter
 * @name:	libseccomp name of the call
 * @l:		list it comes from, for messages
 * @arg:	scmp_filter_ctx
 *
 * Return: 0 on success or if the architecture lacks the call, negative
 *	   error code (logged) otherwise
 */
static int syscalls_add(const char *name, const struct syscalls_list *l,
			void *arg)
{
	scmp_filter_ctx ctx = arg;
	int nr, ret;

	nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR) {
		err("seccomp: unknown system call \"%s\" listed in %s", name,
		    l->file);
		return -EINVAL;
	}
	if (nr < 0)		/* not on this architecture */
		return 0;

	ret = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
	if (ret) {
		err("seccomp: can't allow %s (listed in %s): %s", name,
		    l->file, strerror(-ret));
		return ret;
	}

	return 0;
}

/**
 * syscalls_count_one() - count one name
 * @name:	unused
 * @l:		unused
 * @arg:	counter
 *
 * Return: 0
 */
static int syscalls_count_one(const char *name, const struct syscalls_list *l,
			      void *arg)
{
	(void)name;
	(void)l;
	(*(int *)arg)++;
	return 0;
}

/**
 * syscalls_count() - number of names listed for a mode, duplicates included
 * @mode:	SYSCALLS_PASST or SYSCALLS_PASTA
 *
 * Return: the count
 */
int syscalls_count(unsigned int mode)
{
	int n = 0;

	syscalls_each(mode, syscalls_count_one, &n);
	return n;
}

/**
 * syscalls_unknown_one() - count a name libseccomp doesn't know
 * @name:	libseccomp name of the call
 * @l:		list it comes from, for messages
 * @arg:	counter
 *
 * Return: 0
 */
static int syscalls_unknown_one(const char *name,
				const struct syscalls_list *l, void *arg)
{
	if (seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR) {
		err("seccomp: unknown system call \"%s\" listed in %s", name,
		    l->file);
		(*(int *)arg)++;
	}
	return 0;
}

/**
 * syscalls_unknown() - count names of a mode's lists libseccomp doesn't know
 * @mode:	SYSCALLS_PASST or SYSCALLS_PASTA
 *
 * Return: the count (each logged), 0 if all are valid
 */
int syscalls_unknown(unsigned int mode)
{
	int n = 0;

	syscalls_each(mode, syscalls_unknown_one, &n);
	return n;
}

/**
 * syscalls_filter_load() - build the filter for a mode, load it for all
 *			    threads
 * @mode:	running program: SYSCALLS_PASST or SYSCALLS_PASTA
 *
 * The caller has set no-new-privs (or holds CAP_SYS_ADMIN). Any call not
 * listed for @mode kills the process from now on.
 *
 * Return: 0 on success, negative error code (logged) on failure
 */
int syscalls_filter_load(unsigned int mode)
{
	scmp_filter_ctx ctx;
	int ret;

	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx) {
		err("seccomp: can't create a filter");
		return -ENOMEM;
	}

	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (ret) {
		err("seccomp: can't ask for the filter on every thread: %s",
		    strerror(-ret));
		goto out;
	}

	ret = syscalls_each(mode, syscalls_add, ctx);
	if (ret)
		goto out;

	ret = seccomp_load(ctx);
	if (ret)
		err("seccomp: can't load the filter: %s", strerror(-ret));
	else
		debug("seccomp: %d calls listed, anything else kills us",
		      syscalls_count(mode));
out:
	seccomp_release(ctx);
	return ret;
}
