/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syscalls.h - per-module lists of the system calls allowed at run time
 *
 * Theory of operation: once the sandbox is in place (isolation/sandbox.c),
 * a seccomp filter kills the process on any system call not listed here.
 * Each module declares, next to the code that makes them, the calls it
 * needs after set-up and for which program:
 *
 *	SYSCALLS(SYSCALLS_BOTH, "epoll_wait", "epoll_pwait");
 *
 * The macro puts a pointer to the list in the ELF section "relay_syscalls";
 * the linker provides __start_relay_syscalls and __stop_relay_syscalls
 * around it, and syscalls_filter_load() builds the filter from the union
 * of the lists of the running mode. Names are those of libseccomp
 * (seccomp_syscall_resolve_name()); a name the architecture lacks (say,
 * "epoll_wait" on aarch64) is skipped, an unknown one is a start-up error.
 */
#ifndef UTIL_SYSCALLS_H
#define UTIL_SYSCALLS_H

/* Programs a list applies to, as bits: a running mode is one of them */
#define SYSCALLS_PASST		(1U << 0)
#define SYSCALLS_PASTA		(1U << 1)
#define SYSCALLS_BOTH		(SYSCALLS_PASST | SYSCALLS_PASTA)

/**
 * struct syscalls_list - system calls one module makes at run time
 * @modes:	SYSCALLS_PASST, SYSCALLS_PASTA or both
 * @n:		number of names
 * @names:	libseccomp names of the calls
 * @file:	source file declaring them, for messages
 */
struct syscalls_list {
	unsigned int modes;
	unsigned int n;
	const char *const *names;
	const char *file;
};

#define SYSCALLS_CAT_(a, b)	a##b
#define SYSCALLS_CAT(a, b)	SYSCALLS_CAT_(a, b)
#define SYSCALLS_ID(x)		SYSCALLS_CAT(syscalls_##x##_, __LINE__)

/**
 * SYSCALLS() - declare system calls this file needs after set-up
 * @modes_:	SYSCALLS_PASST, SYSCALLS_PASTA or SYSCALLS_BOTH
 * @...:	names, as strings
 *
 * Use at file scope, at most once per line.
 */
#define SYSCALLS(modes_, ...)						\
	static const char *const SYSCALLS_ID(names)[] = { __VA_ARGS__ };\
	static const struct syscalls_list SYSCALLS_ID(list) = {		\
		.modes = (modes_),					\
		.n = sizeof(SYSCALLS_ID(names)) /			\
		     sizeof(SYSCALLS_ID(names)[0]),			\
		.names = SYSCALLS_ID(names),				\
		.file = __FILE__,					\
	};								\
	static const struct syscalls_list *const SYSCALLS_ID(ptr)	\
	__attribute__((used, section("relay_syscalls"))) =		\
		&SYSCALLS_ID(list)

int syscalls_filter_load(unsigned int mode);
int syscalls_count(unsigned int mode);
int syscalls_unknown(unsigned int mode);

#endif /* UTIL_SYSCALLS_H */
