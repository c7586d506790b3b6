// SPDX-License-Identifier: GPL-2.0-or-later
/* test_outfile.c - unit tests for the files the relay writes (util/outfile.c)
 *
 * Theory of operation: in a temporary directory, outfile_open() must create
 * a file with the mode asked (under a zero umask), empty an existing one,
 * refuse a symbolic link at the path with -ELOOP and leave its target as it
 * was, refuse a FIFO with -EINVAL without blocking (no reader: the open
 * would wait forever without O_NONBLOCK) and return a close-on-exec,
 * blocking descriptor. outfile_strerror() must say what to do about a link.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../../util/outfile.h"

static char tmpdir[64];
static char path[128];

/**
 * setup() - create a temporary directory
 */
static void setup(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_outfile.XXXXXX",
		 base && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/out", tmpdir);
}

/**
 * teardown() - remove the temporary directory and its files
 */
static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "can't remove %s\n", tmpdir);
}

/**
 * write_file() - create a file with some content
 * @p:		path
 * @s:		content
 */
static void write_file(const char *p, const char *s)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

START_TEST(test_create)
{
	struct stat st;
	int fd, fl;

	umask(0);
	fd = outfile_open(path, O_WRONLY, 0640);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	fl = fcntl(fd, F_GETFL);
	ck_assert_int_eq(fl & O_NONBLOCK, 0);
	ck_assert_int_eq(fl & O_ACCMODE, O_WRONLY);
	close(fd);
}
END_TEST

START_TEST(test_empty_existing)
{
	struct stat st;
	int fd;

	write_file(path, "old content");
	fd = outfile_open(path, O_RDWR | O_APPEND, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_APPEND, O_APPEND);
	close(fd);
}
END_TEST

START_TEST(test_symlink)
{
	char target[160], buf[64] = { 0 };
	int fd;

	snprintf(target, sizeof(target), "%s/victim", tmpdir);
	write_file(target, "precious");
	ck_assert_int_eq(symlink(target, path), 0);

	ck_assert_int_eq(outfile_open(path, O_WRONLY, 0600), -ELOOP);
	ck_assert_ptr_nonnull(strstr(outfile_strerror(-ELOOP),
				     "symbolic link"));

	fd = open(target, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 8);
	ck_assert_str_eq(buf, "precious");
	close(fd);
}
END_TEST

START_TEST(test_fifo)
{
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* O_RDWR opens a FIFO without a reader: refused for its type */
	ck_assert_int_eq(outfile_open(path, O_RDWR, 0600), -EINVAL);
	/* O_WRONLY without a reader: refused by the kernel, not blocked */
	ck_assert_int_eq(outfile_open(path, O_WRONLY, 0600), -ENXIO);
}
END_TEST

START_TEST(test_directory)
{
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(outfile_open(path, O_WRONLY, 0600), -EISDIR);
}
END_TEST

/**
 * outfile_suite() - build the suite
 *
 * Return: suite
 */
static Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, test_create);
	tcase_add_test(tc, test_empty_existing);
	tcase_add_test(tc, test_symlink);
	tcase_add_test(tc, test_fifo);
	tcase_add_test(tc, test_directory);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the outfile suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(outfile_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
