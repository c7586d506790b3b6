// SPDX-License-Identifier: GPL-2.0-or-later
/* syscalls.c - the seccomp filter, built from the modules' lists
 *
 * Theory of operation
 *
 * Every module lists the system calls it makes after set-up with
 * SYSCALLS() (syscalls.h), which leaves a pointer to the list in the ELF
 * section "relay_syscalls" of the program it is linked into (passt,
 * pesto, passt-repair). syscalls_filter_load() walks that section between
 * the linker-provided __start_relay_syscalls and __stop_relay_syscalls,
 * adds an allow rule, with its argument comparisons, for each rule of each
 * list naming the running mode (rules for the same call add up, identical
 * ones merge: libseccomp's semantics), with SCMP_ACT_KILL_PROCESS as the
 * default action. The filter is synchronised to every thread of the
 * process (SECCOMP_FILTER_FLAG_TSYNC): pasta keeps a worker thread in the
 * target namespace, and it must be confined as well.
 *
 * libseccomp's filter database takes about a megabyte of heap while it is
 * built. Freed, that memory would stay resident for the life of the
 * relay: once the filter is in force, free() must not give memory back
 * (brk() and munmap() are not allowed), and libseccomp frees it only after
 * loading. So the program is exported (seccomp_export_bpf(), to a memfd),
 * read back onto the stack, the database released and the heap trimmed
 * (malloc_trim()) while that is still allowed, and only then are free()'s
 * hand-backs turned off and the program loaded, with seccomp() directly.
 * As the database did before, SYSCALLS_HEAP_SLACK bytes of free space are
 * left at the top of the heap (allocated and freed: never written, they
 * cost no memory) for whatever a library call might still allocate.
 *
 * Sanitizer builds (ASan/UBSan, detected with __SANITIZE_ADDRESS__ or
 * SANDBOX_SANITIZER) add the calls the sanitizer runtimes make at run
 * time, listed below: they are not calls of ours, but the run time would
 * otherwise be killed while reporting an error.
 */

#include <errno.h>
#include <malloc.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "syscalls.h"
#include "log.h"

/* Longest name, alternatives included ("a|b") */
#define SYSCALLS_NAME_MAX	64
/* Free space kept at the top of the heap once the filter is in force, in
 * case a library call allocates: the heap can't grow any more then
 */
#define SYSCALLS_HEAP_SLACK	(1024 * 1024)
/* Most distinct calls a mode can list (syscalls_count()) */
#define SYSCALLS_DISTINCT_MAX	256

/* Bounds of the section holding the lists, from the linker: never empty,
 * this file has a list of its own (below)
 */
extern const struct syscalls_list *const __start_relay_syscalls[];
extern const struct syscalls_list *const __stop_relay_syscalls[];

/* Every mode: the way out, through exit() or die() */
SYSCALLS(SYSCALLS_RELAY | SYSCALLS_PESTO | SYSCALLS_REPAIR |
	 SYSCALLS_RESOLV,
	 SYSCALLS_CALL("exit_group", "exit(), die(): the only way out"));

#if defined(__SANITIZE_ADDRESS__) || defined(SANDBOX_SANITIZER)
#define SYSCALLS_SANITIZER	1
#define SYSCALLS_SAN(name_)	SYSCALLS_CALL(name_, "sanitizer run time")
/* ASan/UBSan run times: shadow memory, allocator, reports, symbolizer */
SYSCALLS(SYSCALLS_RELAY | SYSCALLS_PESTO | SYSCALLS_REPAIR |
	 SYSCALLS_RESOLV,
	 SYSCALLS_SAN("mmap"), SYSCALLS_SAN("munmap"), SYSCALLS_SAN("mremap"),
	 SYSCALLS_SAN("madvise"), SYSCALLS_SAN("mprotect"),
	 SYSCALLS_SAN("brk"), SYSCALLS_SAN("sigaltstack"),
	 SYSCALLS_SAN("rt_sigaction"), SYSCALLS_SAN("rt_sigprocmask"),
	 SYSCALLS_SAN("rt_sigreturn"), SYSCALLS_SAN("prctl"),
	 SYSCALLS_SAN("getpid"), SYSCALLS_SAN("gettid"),
	 SYSCALLS_SAN("tgkill"), SYSCALLS_SAN("sched_yield"),
	 SYSCALLS_SAN("futex"), SYSCALLS_SAN("write"),
	 SYSCALLS_SAN("readlink|readlinkat"), SYSCALLS_SAN("readlinkat"),
	 SYSCALLS_SAN("open|openat"), SYSCALLS_SAN("openat"),
	 SYSCALLS_SAN("close"), SYSCALLS_SAN("read"), SYSCALLS_SAN("pread64"),
	 SYSCALLS_SAN("fstat|newfstatat"), SYSCALLS_SAN("newfstatat"),
	 SYSCALLS_SAN("lseek"), SYSCALLS_SAN("getrlimit|prlimit64"),
	 SYSCALLS_SAN("prlimit64"), SYSCALLS_SAN("uname"),
	 SYSCALLS_SAN("nanosleep|clock_nanosleep"),
	 SYSCALLS_SAN("clock_nanosleep"), SYSCALLS_SAN("sched_getaffinity"),
	 SYSCALLS_SAN("exit"), SYSCALLS_SAN("restart_syscall"));

/**
 * __asan_default_options() - the sanitizer's options, before its environment
 *
 * The run time reads ASAN_OPTIONS from /proc/self/environ, which is gone
 * once the root is empty: a relay exiting there would start the leak check,
 * which stops the world with ptrace() and, refused, waits for ever. Leaks
 * aren't checked in sanitizer runs (doc/design.md): off here too.
 *
 * Return: the options
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}
#else
#define SYSCALLS_SANITIZER	0
#endif

/**
 * syscalls_resolve() - number of a call on this architecture
 * @name:	libseccomp name, or "a|b": the first the architecture has
 * @file:	source file listing it, for messages
 * @nr:	set to the number, negative if the architecture has none
 *
 * Return: 0 on success, -EINVAL (logged) if a name is unknown
 */
static int syscalls_resolve(const char *name, const char *file, int *nr)
{
	const char *p = name;

	*nr = -1;
	while (*p) {
		char one[SYSCALLS_NAME_MAX];
		size_t len = strcspn(p, "|");
		int n;

		if (len >= sizeof(one)) {
			err("seccomp: name \"%s\" too long in %s", name, file);
			return -EINVAL;
		}
		memcpy(one, p, len);
		one[len] = '\0';

		n = seccomp_syscall_resolve_name(one);
		if (n == __NR_SCMP_ERROR) {
			err("seccomp: unknown system call \"%s\" listed in %s",
			    one, file);
			return -EINVAL;
		}
		if (n >= 0 && *nr < 0)
			*nr = n;	/* first one the architecture has */

		p += len;
		if (*p == '|')
			p++;
	}

	return 0;
}

/**
 * syscalls_nargs() - number of argument comparisons of a rule
 * @r:		rule
 *
 * Return: comparisons before the first empty one
 */
static unsigned int syscalls_nargs(const struct syscalls_rule *r)
{
	unsigned int n = 0;

	while (n < SYSCALLS_ARGS_MAX && r->arg[n].op)
		n++;
	return n;
}

/**
 * syscalls_each() - call a function for every rule that applies to a mode
 * @mode:	running mode: one SYSCALLS_* bit
 * @fn:		function, taking the rule, the list and an argument; a
 *		non-zero return value stops the walk
 * @arg:	argument for @fn
 *
 * Return: the first non-zero value @fn returned, or 0
 */
static int syscalls_each(unsigned int mode,
			 int (*fn)(const struct syscalls_rule *r,
				   const struct syscalls_list *l, void *arg),
			 void *arg)
{
	size_t n, k;

	/* Linker symbols, not C objects: count entries from the addresses */
	n = ((uintptr_t)__stop_relay_syscalls -
	     (uintptr_t)__start_relay_syscalls) /
	    sizeof(const struct syscalls_list *);

	for (k = 0; k < n; k++) {
		const struct syscalls_list *l = __start_relay_syscalls[k];
		unsigned int i;
		int ret;

		if (!(l->modes & mode))
			continue;
		for (i = 0; i < l->n; i++) {
			ret = fn(&l->rules[i], l, arg);
			if (ret)
				return ret;
		}
	}

	return 0;
}

/**
 * syscalls_add() - add an allow rule to a filter
 * @r:		rule
 * @l:		list it comes from, for messages
 * @arg:	scmp_filter_ctx
 *
 * Return: 0 on success or if the architecture lacks the call, negative
 *	   error code (logged) otherwise
 */
static int syscalls_add(const struct syscalls_rule *r,
			const struct syscalls_list *l, void *arg)
{
	scmp_filter_ctx ctx = arg;
	int nr, ret;

	ret = syscalls_resolve(r->name, l->file, &nr);
	if (ret || nr < 0)	/* unknown, or not on this architecture */
		return ret;

	ret = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr,
				     syscalls_nargs(r), r->arg);
	if (ret) {
		err("seccomp: can't allow %s (listed in %s): %s", r->name,
		    l->file, strerror(-ret));
		return ret;
	}

	return 0;
}

/**
 * struct syscalls_seen - distinct calls found so far
 * @n:		number of calls in @nr
 * @nr:		their numbers
 */
struct syscalls_seen {
	unsigned int n;
	int nr[SYSCALLS_DISTINCT_MAX];
};

/**
 * syscalls_count_one() - note the number of a rule's call, once
 * @r:		rule
 * @l:		list it comes from, for messages
 * @arg:	struct syscalls_seen
 *
 * Return: 0, or -ENOSPC if there are too many distinct calls
 */
static int syscalls_count_one(const struct syscalls_rule *r,
			      const struct syscalls_list *l, void *arg)
{
	struct syscalls_seen *s = arg;
	unsigned int i;
	int nr;

	if (syscalls_resolve(r->name, l->file, &nr) || nr < 0)
		return 0;
	for (i = 0; i < s->n; i++) {
		if (s->nr[i] == nr)
			return 0;
	}
	if (s->n == SYSCALLS_DISTINCT_MAX)
		return -ENOSPC;
	s->nr[s->n++] = nr;
	return 0;
}

/**
 * syscalls_count() - number of distinct calls a mode allows
 * @mode:	one SYSCALLS_* bit
 *
 * Return: the count (a call with several rules counts once), or -ENOSPC
 */
int syscalls_count(unsigned int mode)
{
	struct syscalls_seen s = { 0 };
	int ret;

	ret = syscalls_each(mode, syscalls_count_one, &s);
	return ret ? ret : (int)s.n;
}

/**
 * syscalls_unknown_one() - count a rule naming a call libseccomp doesn't
 *			    know, or with no reason given
 * @r:		rule
 * @l:		list it comes from, for messages
 * @arg:	counter
 *
 * Return: 0
 */
static int syscalls_unknown_one(const struct syscalls_rule *r,
				const struct syscalls_list *l, void *arg)
{
	int nr;

	if (syscalls_resolve(r->name, l->file, &nr))
		(*(int *)arg)++;
	if (!r->why || !*r->why) {
		err("seccomp: no reason given for %s in %s", r->name,
		    l->file);
		(*(int *)arg)++;
	}
	return 0;
}

/**
 * syscalls_unknown() - count bad rules of a mode: unknown names, no reason
 * @mode:	one SYSCALLS_* bit
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
 * syscalls_export() - the BPF program of a filter, read into a buffer
 * @ctx:	filter
 * @insn:	buffer of BPF_MAXINSNS instructions
 * @len:	set to the number of instructions
 *
 * Return: 0 on success, negative error code (logged) on failure
 */
static int syscalls_export(scmp_filter_ctx ctx, struct sock_filter *insn,
			   unsigned short *len)
{
	size_t got = 0;
	int fd, ret = 0;
	off_t size;
	ssize_t n;

	fd = memfd_create("seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		err("seccomp: can't create a memfd for the filter: %s",
		    strerror(-ret));
		return ret;
	}

	ret = seccomp_export_bpf(ctx, fd);
	if (ret) {
		err("seccomp: can't export the filter: %s", strerror(-ret));
		goto out;
	}

	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || (size_t)size > sizeof(*insn) * BPF_MAXINSNS ||
	    (size_t)size % sizeof(*insn)) {
		err("seccomp: exported filter has a bad size (%lli bytes)",
		    (long long)size);
		ret = -EINVAL;
		goto out;
	}
	while (got < (size_t)size &&
	       (n = pread(fd, (char *)insn + got, (size_t)size - got,
			  (off_t)got)) > 0)
		got += (size_t)n;
	if (got != (size_t)size) {
		err("seccomp: can't read the exported filter back");
		ret = -EIO;
		goto out;
	}
	*len = (unsigned short)(got / sizeof(*insn));
out:
	close(fd);
	return ret;
}

/**
 * syscalls_filter_load() - build the filter for a mode, load it for all
 *			    threads
 * @mode:	running mode: one SYSCALLS_* bit
 *
 * The caller has set no-new-privs (or holds CAP_SYS_ADMIN). Any call not
 * listed for @mode, or with arguments no rule allows, kills the process
 * from now on.
 *
 * Return: 0 on success, negative error code (logged) on failure
 */
int syscalls_filter_load(unsigned int mode)
{
	struct sock_filter insn[BPF_MAXINSNS];	/* only the used part is hit */
	struct sock_fprog prog = { .filter = insn };
	void *volatile slack;
	scmp_filter_ctx ctx;
	long rc;
	int ret;

	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx) {
		err("seccomp: can't create a filter");
		return -ENOMEM;
	}

	ret = syscalls_each(mode, syscalls_add, ctx);
	if (!ret)
		ret = syscalls_export(ctx, insn, &prog.len);
	seccomp_release(ctx);
	if (ret)
		return ret;

	/* The filter database is freed: give its pages back now. Then free()
	 * must not give memory back any more: it would call brk() or
	 * munmap(), which the filter refuses. A sanitizer's allocator ignores
	 * both, and its calls are allowed.
	 */
	malloc_trim(0);
	if ((!mallopt(M_TRIM_THRESHOLD, -1) || !mallopt(M_MMAP_MAX, 0)) &&
	    !SYSCALLS_SANITIZER) {
		err("seccomp: can't keep free() from returning memory");
		return -EINVAL;
	}
	slack = malloc(SYSCALLS_HEAP_SLACK);	/* volatile: not elided */
	free(slack);

	rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_TSYNC, &prog);
	if (rc > 0) {
		err("seccomp: thread %li can't take the filter", rc);
		return -EAGAIN;
	}
	if (rc < 0) {
		ret = -errno;
		err("seccomp: can't load the filter: %s", strerror(-ret));
		return ret;
	}

	debug("seccomp: %d calls allowed, anything else kills us",
	      syscalls_count(mode));
	return 0;
}
