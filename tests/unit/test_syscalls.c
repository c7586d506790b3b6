// SPDX-License-Identifier: GPL-2.0-or-later
/* test_syscalls.c - unit tests for the seccomp filter (util/syscalls.c)
 *
 * Theory of operation: linked with every module object, so the section of
 * SYSCALLS() lists holds all of them, as in the relay. The lists of the
 * three modes of the relay must be there, name only calls libseccomp
 * knows, each with a reason, and a passt mode no more calls than
 * upstream's filter of the same mode. The filter is then loaded in a
 * forked child: an allowed call (write() on a pipe) must work, and a call
 * no module lists (syslog(2), reading the kernel log size) must kill the
 * child with SIGSYS; so must mmap() in stream mode, and mmap() with
 * PROT_EXEC with --vhost-user. Sanitizer builds allow their run time's
 * calls (mmap() among them) in every mode: the counts and mmap() are not
 * checked there.
 */

#include <check.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../conf/ctx.h"
#include "../../util/syscalls.h"
#include "../../util/util.h"

/* Fewest calls a mode can need: loop, timer, tap, sockets, exit */
#define TEST_SYSCALLS_MIN	20
/* Calls of upstream passt's filters (July 2026 build), stream and
 * vhost-user: ours may not allow more
 */
#define TEST_UPSTREAM_PASST	34
#define TEST_UPSTREAM_VU	36

/* The relay's modes, by loop index */
static const unsigned int test_modes[] = {
	SYSCALLS_PASST, SYSCALLS_VU, SYSCALLS_PASTA,
};
/* Sanitizer run times need calls the relay doesn't: counts and mmap()
 * are checked only without them
 */
#if !defined(__SANITIZE_ADDRESS__) && !defined(SANDBOX_SANITIZER)
#define TEST_SYSCALLS_EXACT	1
#endif

/* SYSLOG_ACTION_SIZE_BUFFER of syslog(2): only reads a size */
#define TEST_SYSLOG_SIZE	10

/**
 * test_child() - fork a child that loads the filter, then runs a function
 * @mode:	SYSCALLS_* bit: whose filter to load
 * @fn:		function run under the filter, its return value the exit
 *		status
 * @arg:	argument for @fn
 *
 * Return: wait status of the child
 */
static int test_child(unsigned int mode, int (*fn)(int arg), int arg)
{
	int status = 0;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(100);
		if (syscalls_filter_load(mode))
			_exit(101);
		_exit(fn(arg));
	}

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/**
 * test_write_byte() - write one byte to a descriptor
 * @fd:		descriptor
 *
 * Return: 0 on success, 1 otherwise
 */
static int test_write_byte(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : 1;
}

/**
 * test_forbidden() - make a call no module lists
 * @arg:	unused
 *
 * Return: 0, if the filter let it through
 */
static int test_forbidden(int arg)
{
	(void)arg;
	syscall(SYS_syslog, TEST_SYSLOG_SIZE, NULL, 0);
	return 0;
}

START_TEST(test_lists_present)
{
	ck_assert_int_ge(syscalls_count(test_modes[_i]), TEST_SYSCALLS_MIN);
}
END_TEST

START_TEST(test_names_known)
{
	ck_assert_int_eq(syscalls_unknown(test_modes[_i]), 0);
}
END_TEST

#ifdef TEST_SYSCALLS_EXACT
/**
 * test_mmap() - map a page, executable or not
 * @exec:	non-zero for PROT_EXEC
 *
 * Return: 0, if the filter let it through
 */
static int test_mmap(int exec)
{
	int prot = PROT_READ | PROT_WRITE | (exec ? PROT_EXEC : 0);

	(void)mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return 0;
}

START_TEST(test_upstream_counts)
{
	ck_assert_int_le(syscalls_count(SYSCALLS_PASST), TEST_UPSTREAM_PASST);
	ck_assert_int_le(syscalls_count(SYSCALLS_VU), TEST_UPSTREAM_VU);
}
END_TEST

START_TEST(test_mmap_stream)
{
	int status = test_child(SYSCALLS_PASST, test_mmap, 0);

	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "mmap() in stream mode: status 0x%x, expected SIGSYS",
		      status);
}
END_TEST

START_TEST(test_mmap_vu)
{
	int status = test_child(SYSCALLS_VU, test_mmap, 0);

	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "mmap() with --vhost-user: status 0x%x", status);
	status = test_child(SYSCALLS_VU, test_mmap, 1);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "mmap(PROT_EXEC) with --vhost-user: status 0x%x, "
		      "expected SIGSYS", status);
}
END_TEST

#endif /* TEST_SYSCALLS_EXACT */

START_TEST(test_allowed_call)
{
	unsigned int mode = test_modes[_i];
	int p[2], status;
	char b = 0;

	ck_assert_int_eq(pipe(p), 0);
	status = test_child(mode, test_write_byte, p[1]);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status 0x%x", status);
	ck_assert_int_eq(read(p[0], &b, 1), 1);
	ck_assert_int_eq(b, 'x');
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_forbidden_call)
{
	unsigned int mode = test_modes[_i];
	int status;

	status = test_child(mode, test_forbidden, 0);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
		      "child status 0x%x, expected death by SIGSYS", status);
}
END_TEST

/**
 * syscalls_suite() - the seccomp filter suite
 *
 * Return: the suite
 */
static Suite *syscalls_suite(void)
{
	Suite *s = suite_create("syscalls");
	TCase *tc = tcase_create("filter");

	tcase_add_loop_test(tc, test_lists_present, 0, ARRAY_SIZE(test_modes));
	tcase_add_loop_test(tc, test_names_known, 0, ARRAY_SIZE(test_modes));
#ifdef TEST_SYSCALLS_EXACT
	tcase_add_test(tc, test_upstream_counts);
	tcase_add_test(tc, test_mmap_stream);
	tcase_add_test(tc, test_mmap_vu);
#endif
	tcase_add_loop_test(tc, test_allowed_call, 0, ARRAY_SIZE(test_modes));
	tcase_add_loop_test(tc, test_forbidden_call, 0,
			    ARRAY_SIZE(test_modes));
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the seccomp filter suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(syscalls_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
