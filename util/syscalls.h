/* SPDX-License-Identifier: GPL-2.0-or-later */
/* syscalls.h - per-module lists of the system calls allowed at run time
 *
 * Theory of operation: once the sandbox is in place (isolation/sandbox.c),
 * a seccomp filter kills the process on any system call not listed here.
 * Each module declares, next to the code that makes them, the calls it
 * needs after set-up, for which programs and modes, each with the reason
 * and, where the call could do more than the module needs, the arguments
 * it is allowed with:
 *
 *	SYSCALLS(SYSCALLS_RELAY,
 *		 SYSCALLS_CALL("timerfd_settime", "re-arm the timer"),
 *		 SYSCALLS_CALL_IF("fcntl", "read a socket's flags",
 *				  SYSCALLS_ARG_EQ(1, F_GETFL)));
 *
 * The macro puts a pointer to the list in the ELF section "relay_syscalls";
 * the linker provides __start_relay_syscalls and __stop_relay_syscalls
 * around it, and syscalls_filter_load() builds the filter from the rules
 * of every list naming the running mode. Rules for the same call add up:
 * a call is allowed if any of its rules matches, and a rule matches if
 * all of its argument comparisons hold (libseccomp's semantics); a rule
 * without comparisons allows the call whatever its arguments.
 *
 * Names are those of libseccomp (seccomp_syscall_resolve_name()).
 * "a|b" names the first of a and b that the architecture has (glibc's
 * dup2() is dup3 where there is no dup2); an unknown name is a start-up
 * error.
 *
 * tests/tools/seccomp_dump.c reads these lists from a running process
 * (struct syscalls_list, struct syscalls_rule: keep it in step) and
 * compares them with the filter the kernel holds for it.
 */
#ifndef UTIL_SYSCALLS_H
#define UTIL_SYSCALLS_H

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <seccomp.h>

/* Programs and modes a list applies to, as bits: a running mode is one */
#define SYSCALLS_PASST		(1U << 0)	/* passt, stream socket */
#define SYSCALLS_VU		(1U << 1)	/* passt --vhost-user */
#define SYSCALLS_PASTA		(1U << 2)	/* pasta */
#define SYSCALLS_PESTO		(1U << 3)	/* pesto, once connected */
#define SYSCALLS_REPAIR		(1U << 4)	/* passt-repair, connected */
#define SYSCALLS_RESOLV		(1U << 5)	/* the resolver file's reader */
#define SYSCALLS_PASST_ANY	(SYSCALLS_PASST | SYSCALLS_VU)
#define SYSCALLS_RELAY		(SYSCALLS_PASST_ANY | SYSCALLS_PASTA)

/* Argument comparisons a rule can hold, all of which must match */
#define SYSCALLS_ARGS_MAX	3

/**
 * struct syscalls_rule - one call, why, and the arguments it may have
 * @name:	libseccomp name of the call, or "a|b" (see above)
 * @why:	one line: what the relay does with it
 * @arg:	comparisons, all of which must hold; the first one with
 *		op 0 (no comparison) ends them
 */
struct syscalls_rule {
	const char *name;
	const char *why;
	struct scmp_arg_cmp arg[SYSCALLS_ARGS_MAX];
};

/**
 * struct syscalls_list - system calls one module makes at run time
 * @modes:	SYSCALLS_* bits of the modes it applies to
 * @n:		number of rules
 * @rules:	the rules
 * @file:	source file declaring them, for messages
 */
struct syscalls_list {
	unsigned int modes;
	unsigned int n;
	const struct syscalls_rule *rules;
	const char *file;
};

/* A call with any arguments */
#define SYSCALLS_CALL(name_, why_)					\
	{ .name = (name_), .why = (why_) }
/* A call whose arguments match the comparisons that follow */
#define SYSCALLS_CALL_IF(name_, why_, ...)				\
	{ .name = (name_), .why = (why_), .arg = { __VA_ARGS__ } }
/* Argument @n_ (0 to 5) equals @v_ */
#define SYSCALLS_ARG_EQ(n_, v_)						\
	{ .arg = (n_), .op = SCMP_CMP_EQ, .datum_a = (scmp_datum_t)(v_) }
/* Argument @n_ (0 to 5) differs from @v_ */
#define SYSCALLS_ARG_NE(n_, v_)						\
	{ .arg = (n_), .op = SCMP_CMP_NE, .datum_a = (scmp_datum_t)(v_) }
/* Argument @n_, with only the bits of @mask_, equals @v_ */
#define SYSCALLS_ARG_MASK(n_, mask_, v_)				\
	{ .arg = (n_), .op = SCMP_CMP_MASKED_EQ,			\
	  .datum_a = (scmp_datum_t)(mask_), .datum_b = (scmp_datum_t)(v_) }
/* Argument @n_ has none of the bits of @bits_ */
#define SYSCALLS_ARG_NONE(n_, bits_)	SYSCALLS_ARG_MASK(n_, bits_, 0)
/* Argument @n_ has no bits but those of @bits_ */
#define SYSCALLS_ARG_ONLY(n_, bits_)					\
	SYSCALLS_ARG_MASK(n_, ~(scmp_datum_t)(bits_), 0)

/* socket(): family @af_, type @type_ (SOCK_NONBLOCK, SOCK_CLOEXEC may be
 * added), protocol @proto_
 */
#define SYSCALLS_SOCKET(why_, af_, type_, proto_)			\
	SYSCALLS_CALL_IF("socket", why_, SYSCALLS_ARG_EQ(0, af_),	\
			 SYSCALLS_ARG_MASK(1, ~(scmp_datum_t)		\
					   (SOCK_NONBLOCK | SOCK_CLOEXEC),\
					   type_),			\
			 SYSCALLS_ARG_EQ(2, proto_))
/* setsockopt() at level @level_ (not IPPROTO_TCP: SYSCALLS_SETSOCKOPT_TCP) */
#define SYSCALLS_SETSOCKOPT(why_, level_)				\
	SYSCALLS_CALL_IF("setsockopt", why_, SYSCALLS_ARG_EQ(1, level_))
/* setsockopt() at level IPPROTO_TCP, any option but TCP_ULP (upper layer
 * protocols: kernel TLS and the like, none of which the relay uses)
 */
#define SYSCALLS_SETSOCKOPT_TCP(why_)					\
	SYSCALLS_CALL_IF("setsockopt", why_,				\
			 SYSCALLS_ARG_EQ(1, IPPROTO_TCP),		\
			 SYSCALLS_ARG_NE(2, TCP_ULP))

#define SYSCALLS_CAT_(a, b)	a##b
#define SYSCALLS_CAT(a, b)	SYSCALLS_CAT_(a, b)
#define SYSCALLS_ID(x)		SYSCALLS_CAT(syscalls_##x##_, __LINE__)

/**
 * SYSCALLS() - declare system calls this file needs after set-up
 * @modes_:	SYSCALLS_* bits: the modes the list applies to
 * @...:	rules: SYSCALLS_CALL() or SYSCALLS_CALL_IF(), one per line
 *
 * Use at file scope, at most once per line.
 */
#define SYSCALLS(modes_, ...)						\
	static const struct syscalls_rule SYSCALLS_ID(rules)[] = {	\
		__VA_ARGS__						\
	};								\
	static const struct syscalls_list SYSCALLS_ID(list) = {		\
		.modes = (modes_),					\
		.n = sizeof(SYSCALLS_ID(rules)) /			\
		     sizeof(SYSCALLS_ID(rules)[0]),			\
		.rules = SYSCALLS_ID(rules),				\
		.file = __FILE__,					\
	};								\
	static const struct syscalls_list *const SYSCALLS_ID(ptr)	\
	__attribute__((used, section("relay_syscalls"))) =		\
		&SYSCALLS_ID(list)

int syscalls_filter_load(unsigned int mode);
int syscalls_count(unsigned int mode);
int syscalls_unknown(unsigned int mode);

#endif /* UTIL_SYSCALLS_H */
