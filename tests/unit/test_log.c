// SPDX-License-Identifier: GPL-2.0-or-later
/* test_log.c - unit tests for the logger (util/log.c)
 *
 * Theory of operation: each test runs in its own process (Check's fork
 * mode), so the logger starts from its defaults every time. stderr is
 * redirected to a temporary file to check what the relay prints; log files
 * are checked for format, mode and the size limit (the newest lines kept,
 * whole, behind a marker); syslog output is checked in a private mount
 * namespace where /dev/log is a socket of the test (skipped if namespaces
 * are not available). Rate limits: the bucket's arithmetic with made-up
 * times (a burst, then one per interval, never more than LOG_RL_BURST +
 * elapsed / LOG_RL_INTERVAL_MS), and the err_rl() family end to end: one
 * state per call site, messages below the level cost nothing, the count
 * of suppressed messages at the end of the next line, errno kept.
 */

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "../../util/log.h"
#include "../../util/util.h"

static char tmpdir[64];

/**
 * remove_tmpdir() - remove the temporary directory and its files, once
 *
 * Called by teardown() and at exit: a test ending in die() exits the
 * test's process without Check's teardown.
 */
static void remove_tmpdir(void)
{
	char cmd[128];

	if (!tmpdir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "can't remove %s\n", tmpdir);
	tmpdir[0] = '\0';
}

/**
 * setup() - create a temporary directory, removed at teardown or exit
 */
static void setup(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/test_log.XXXXXX",
		 base && *base ? base : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	ck_assert_int_eq(atexit(remove_tmpdir), 0);
}

/**
 * teardown() - remove the temporary directory and its files
 */
static void teardown(void)
{
	remove_tmpdir();
}

/**
 * capture_stderr() - redirect stderr to a new file in the temporary dir
 *
 * Return: descriptor of the file, to read back
 */
static int capture_stderr(void)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	return fd;
}

/**
 * read_all() - read a whole file from its start
 * @fd:		descriptor
 * @buf:	output, NUL-terminated
 * @size:	size of @buf
 *
 * Return: length read
 */
static size_t read_all(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);

	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	return (size_t)n;
}

/**
 * matches() - tell if a string matches an extended regular expression
 * @s:		string
 * @re:		expression
 *
 * Return: true on match
 */
static bool matches(const char *s, const char *re)
{
	regex_t r;
	bool ok;

	ck_assert_int_eq(regcomp(&r, re, REG_EXTENDED | REG_NOSUB), 0);
	ok = !regexec(&r, s, 0, NULL, 0);
	regfree(&r);
	return ok;
}

START_TEST(test_stderr_levels)
{
	char buf[4096];
	int fd;

	fd = capture_stderr();

	/* Before log_init(): works, default level info */
	ck_assert_int_eq(log_get_level(), LOG_INFO);
	info("before init %d", 1);
	log_init("/usr/bin/pasta");
	info("hello %s", "world");
	debug("hidden debug");
	trace("hidden trace");
	warn("a warning\n");
	log_set_level(LOG_WARNING);
	info("hidden info");
	err("an error");
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "before init 1\nhello world\na warning\n"
			      "an error\n");

	/* Debug: relative timestamps, trace still hidden */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	log_set_level(LOG_DEBUG);
	debug("shown debug");
	trace("hidden trace");
	read_all(fd, buf, sizeof(buf));
	ck_assert_msg(matches(buf, "^[0-9]+\\.[0-9]{6}: shown debug\n$"),
		      "bad debug line: %s", buf);

	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	log_set_level(LOG_TRACE);
	trace("shown trace");
	log_set_level(LOG_TRACE + 5);	/* clamped */
	ck_assert_int_eq(log_get_level(), LOG_TRACE);
	read_all(fd, buf, sizeof(buf));
	ck_assert_msg(matches(buf, "^[0-9]+\\.[0-9]{6}: shown trace\n$"),
		      "bad trace line: %s", buf);

	/* Off */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	log_to_stderr(false);
	err("nowhere");
	ck_assert_uint_eq(read_all(fd, buf, sizeof(buf)), 0);
	close(fd);
}
END_TEST

START_TEST(test_perror_errno)
{
	char buf[4096];
	int fd;

	fd = capture_stderr();
	errno = ENOENT;
	err_perror("can't open %s", "/nonexistent");
	ck_assert_int_eq(errno, ENOENT);
	errno = EACCES;
	info("plain");
	ck_assert_int_eq(errno, EACCES);
	errno = EPERM;
	debug_perror("hidden");
	ck_assert_int_eq(errno, EPERM);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "can't open /nonexistent: "
			      "No such file or directory\nplain\n");
	close(fd);
}
END_TEST

START_TEST(test_long_message)
{
	static char big[5000], buf[8192];
	int fd;

	memset(big, 'x', sizeof(big) - 1);
	fd = capture_stderr();
	info("%s", big);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_gt(strlen(buf), 500);
	ck_assert_uint_lt(strlen(buf), sizeof(big));
	ck_assert_int_eq(buf[strlen(buf) - 1], '\n');
	ck_assert_ptr_eq(strchr(buf, '\n'), buf + strlen(buf) - 1);
	close(fd);
}
END_TEST

START_TEST(test_rl_take)
{
	const uint64_t t0 = 5000000, iv = LOG_RL_INTERVAL_MS;
	struct log_rl rl = { 0 };
	unsigned int i;

	/* A burst, the last one says so, then held back and counted */
	for (i = 0; i < LOG_RL_BURST - 1; i++)
		ck_assert_int_eq(log_rl_take(&rl, t0), LOG_RL_PASS);
	ck_assert_int_eq(log_rl_take(&rl, t0), LOG_RL_PASS_LAST);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(log_rl_take(&rl, t0 + i), LOG_RL_HOLD);
	ck_assert_uint_eq(rl.suppressed, 3);
	ck_assert_int_eq(log_rl_take(&rl, t0 + iv - 1), LOG_RL_HOLD);
	ck_assert_uint_eq(rl.suppressed, 4);

	/* One per interval */
	ck_assert_int_eq(log_rl_take(&rl, t0 + iv), LOG_RL_PASS_LAST);
	ck_assert_int_eq(log_rl_take(&rl, t0 + iv), LOG_RL_HOLD);
	ck_assert_int_eq(log_rl_take(&rl, t0 + 2 * iv), LOG_RL_PASS_LAST);

	/* Quiet for long: a whole burst again, not more */
	rl.suppressed = 0;
	for (i = 0; i < LOG_RL_BURST - 1; i++)
		ck_assert_int_eq(log_rl_take(&rl, t0 + 100 * iv), LOG_RL_PASS);
	ck_assert_int_eq(log_rl_take(&rl, t0 + 100 * iv), LOG_RL_PASS_LAST);
	ck_assert_int_eq(log_rl_take(&rl, t0 + 100 * iv), LOG_RL_HOLD);

	/* A clock near zero (a fresh boot) and a zeroed state */
	memset(&rl, 0, sizeof(rl));
	ck_assert_int_eq(log_rl_take(&rl, 3), LOG_RL_PASS);
}
END_TEST

START_TEST(test_rl_bound)
{
	const uint64_t t0 = 123456789, iv = LOG_RL_INTERVAL_MS;
	unsigned long passed = 0;
	struct log_rl rl = { 0 };
	uint64_t e;

	/* A flood, one message every 7 ms for ten minutes: at any time,
	 * the burst and one per whole interval since the first message, at
	 * most; at least one less (the flood never stops), or every one
	 * while the burst lasts
	 */
	for (e = 0; e <= 600000; e += 7) {
		if (log_rl_take(&rl, t0 + e) != LOG_RL_HOLD)
			passed++;
		ck_assert_uint_le(passed, LOG_RL_BURST + e / iv);
		ck_assert_uint_ge(passed + 1,
				  MIN(e / 7 + 2, LOG_RL_BURST + e / iv));
	}
	ck_assert_uint_eq(passed + rl.suppressed, 600000 / 7 + 1);
}
END_TEST

/**
 * rl_site() - one rate-limited call site, used from several places
 * @i:		number to print
 */
static void rl_site(int i)
{
	info_rl("site %d", i);
}

/**
 * count_lines() - count the lines of a buffer
 * @buf:	text
 *
 * Return: number of newlines
 */
static unsigned int count_lines(const char *buf)
{
	unsigned int n = 0;

	for (; *buf; buf++)
		n += *buf == '\n';
	return n;
}

START_TEST(test_rl_sites)
{
	char buf[8192];
	int fd, i;

	fd = capture_stderr();

	/* One site in a loop: the burst only, the last line says why */
	for (i = 0; i < 20; i++)
		warn_rl("flood %d", i);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_eq(count_lines(buf), LOG_RL_BURST);
	ck_assert_msg(matches(buf, "^flood 0\nflood 1\n"),
		      "bad burst: %s", buf);
	ck_assert_msg(matches(buf, "flood 4 \\(more like it: at most one "
				   "every 10 s\\)\n$"),
		      "bad last line: %s", buf);

	/* Another site has its own state */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	for (i = 0; i < 20; i++)
		err_rl("other %d", i);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_eq(count_lines(buf), LOG_RL_BURST);

	/* Below the level: nothing shown, no token used, nothing counted */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	log_set_level(LOG_WARNING);
	for (i = 0; i < 20; i++)
		rl_site(i);
	ck_assert_uint_eq(read_all(fd, buf, sizeof(buf)), 0);
	log_set_level(LOG_INFO);
	for (i = 0; i < 20; i++)
		rl_site(100 + i);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_eq(count_lines(buf), LOG_RL_BURST);
	ck_assert_msg(matches(buf, "^site 100\n"), "bad line: %s", buf);
	ck_assert_msg(!matches(buf, "suppressed"), "counted: %s", buf);
	close(fd);
}
END_TEST

START_TEST(test_rl_suppressed)
{
	static char big[5000], buf[8192];
	struct log_rl rl = { 0 };
	const char *end;
	int fd, i;

	fd = capture_stderr();
	for (i = 0; i < LOG_RL_BURST + 3; i++)
		log_rl_msg(&rl, LOG_WARNING, false, "m %d", i);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_eq(count_lines(buf), LOG_RL_BURST);
	ck_assert_uint_eq(rl.suppressed, 3);

	/* An interval later: the count at the end, after the error text */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	rl.full_ms -= LOG_RL_INTERVAL_MS;
	errno = EIO;
	log_rl_msg(&rl, LOG_ERR, true, "again %s", "now");
	ck_assert_int_eq(errno, EIO);
	read_all(fd, buf, sizeof(buf));
	ck_assert_str_eq(buf, "again now: Input/output error "
			      "(3 similar messages suppressed)\n");
	ck_assert_uint_eq(rl.suppressed, 0);

	/* A message too long for a line: cut, the count kept whole */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(STDERR_FILENO, 0, SEEK_SET), 0);
	memset(big, 'x', sizeof(big) - 1);
	memset(&rl, 0, sizeof(rl));
	rl.suppressed = 7;
	log_rl_msg(&rl, LOG_WARNING, false, "%s", big);
	read_all(fd, buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(big));
	end = " (7 similar messages suppressed)\n";
	ck_assert_str_eq(buf + strlen(buf) - strlen(end), end);
	ck_assert_uint_eq(count_lines(buf), 1);
	close(fd);
}
END_TEST

START_TEST(test_file_format)
{
	char path[128], buf[4096];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/log", tmpdir);
	log_init("passt");
	ck_assert_int_eq(log_open_file(path, 0, "9.9"), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(log_open_file("/nonexistent/dir/log", 0, "9.9"),
			 -ENOENT);

	log_to_stderr(false);
	info("first %d", 1);
	warn("second");
	log_set_level(LOG_DEBUG);
	debug("third");

	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	read_all(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_msg(matches(buf,
		"^passt 9\\.9: /[^ ]*test_log \\([0-9]+\\)\n"
		"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
		"\\.[0-9]{6}Z info: first 1\n"
		"[-0-9T:.Z]+ warning: second\n"
		"[-0-9T:.Z]+ debug: third\n$"), "bad log file: %s", buf);

	/* Empties an existing file, which starts with the header again */
	ck_assert_int_eq(log_open_file(path, 0, "9.9"), 0);
	info("fourth");
	fd = open(path, O_RDONLY);
	read_all(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_ptr_null(strstr(buf, "third\n"));
	ck_assert_msg(matches(buf, "^passt 9\\.9: [^\n]*\n[-0-9T:.Z]+ "
			      "info: fourth\n$"), "bad log file: %s", buf);

	/* With a log file, debug lines on stderr are bare (as upstream) */
	fd = capture_stderr();
	log_to_stderr(true);
	debug("fifth");
	log_to_stderr(false);
	read_all(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_str_eq(buf, "fifth\n");
}
END_TEST

/**
 * check_rotated() - write many lines with a size limit, check the result
 * @max:	size limit
 * @lines:	lines to write
 */
static void check_rotated(size_t max, unsigned int lines)
{
	static char buf[1 << 20];
	char path[128], *p, *nl;
	unsigned int i, prev = 0, n = 0;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/rot%zu", tmpdir, max);
	ck_assert_int_eq(log_open_file(path, max, "9.9"), 0);
	log_to_stderr(false);

	for (i = 1; i <= lines; i++) {
		info("line %06u %s", i, i % 3 ? "short" :
		     "a somewhat longer line, to vary line lengths a little");
		ck_assert_int_eq(stat(path, &st), 0);
		if ((size_t)st.st_size > max)
			ck_abort_msg("size %lld over %zu after line %u",
				     (long long)st.st_size, max, i);
	}

	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	read_all(fd, buf, sizeof(buf));
	close(fd);

	/* A marker first, then whole consecutive lines up to the last one */
	nl = strchr(buf, '\n');
	ck_assert_ptr_nonnull(nl);
	*nl = '\0';
	ck_assert_msg(matches(buf, "^passt 9\\.9: .* \\([0-9]+\\) - log "
			      "truncated at [-0-9T:.]+Z$"), "no marker: %s",
		      buf);
	for (p = nl + 1; *p; p = nl + 1) {
		char *l = strstr(p, " info: line ");
		unsigned int num;

		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_ptr_nonnull(l);
		ck_assert(l < nl);
		num = (unsigned int)strtoul(l + strlen(" info: line "), NULL,
					    10);
		if (prev)
			ck_assert_uint_eq(num, prev + 1);
		prev = num;
		n++;
	}
	ck_assert_uint_eq(prev, lines);
	ck_assert_uint_gt(n, 0);

	/* Rotation keeps the newest half, not just the last line */
	if (max >= 16384)
		ck_assert_int_ge(st.st_size, (off_t)(max / 2 - 2048));
}

START_TEST(test_file_rotation)
{
	check_rotated(32768, 5000);
}
END_TEST

START_TEST(test_file_rotation_tiny)
{
	check_rotated(400, 50);
}
END_TEST

START_TEST(test_file_new_pid)
{
	char path[128], buf[4096], exp[64];
	int fd, status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/newpid", tmpdir);
	log_init("pasta");
	ck_assert_int_eq(log_open_file(path, 0, "9.9"), 0);
	log_to_stderr(false);
	info("before the fork");

	pid = fork();
	ck_assert_int_ge(pid, 0);
	/* In a PID namespace of its own, the child learns its PID from
	 * the parent: the one it is given is named, not getpid()
	 */
	if (!pid) {
		log_set_pid(getppid() + 100000);
		info("in the child");
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);

	/* The header names the child now, the lines are all there */
	fd = open(path, O_RDONLY);
	read_all(fd, buf, sizeof(buf));
	close(fd);
	snprintf(exp, sizeof(exp), " (%i)\n", (int)getpid() + 100000);
	ck_assert_msg(matches(buf, "^pasta 9\\.9: [^\n]* \\([0-9]+\\)\n"
			      "[-0-9T:.Z]+ info: before the fork\n"
			      "[-0-9T:.Z]+ info: in the child\n$"),
		      "bad log file: %s", buf);
	ck_assert_ptr_eq(strstr(buf, exp), strchr(buf, '\n') -
			 strlen(exp) + 1);
}
END_TEST

START_TEST(test_die)
{
	capture_stderr();
	die("fatal: %d", 42);
}
END_TEST

START_TEST(test_die_perror)
{
	capture_stderr();
	errno = EINVAL;
	die_perror("fatal");
}
END_TEST

START_TEST(test_syslog)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char buf[2048], exp[128];
	ssize_t n;
	int s;

	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", "/dev", "tmpfs", 0, "mode=0755")) {
		fprintf(stderr, "test_syslog: skipped, no mount namespace\n");
		return;
	}

	s = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(s, 0);
	snprintf(addr.sun_path, sizeof(addr.sun_path), "/dev/log");
	ck_assert_int_eq(bind(s, (struct sockaddr *)&addr, sizeof(addr)), 0);

	log_init("passt");
	log_to_stderr(false);
	log_to_syslog();
	warn("to syslog %d", 7);
	log_set_level(LOG_TRACE);
	trace("trace as debug");

	n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	snprintf(exp, sizeof(exp), "<%d>passt[%d]: to syslog 7",
		 LOG_DAEMON | LOG_WARNING, (int)getpid());
	ck_assert_str_eq(buf, exp);

	n = recv(s, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	snprintf(exp, sizeof(exp), "<%d>passt[%d]: trace as debug",
		 LOG_DAEMON | LOG_DEBUG, (int)getpid());
	ck_assert_str_eq(buf, exp);
	close(s);
}
END_TEST

/**
 * log_suite() - build the suite
 *
 * Return: suite
 */
static Suite *log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("log");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_stderr_levels);
	tcase_add_test(tc, test_perror_errno);
	tcase_add_test(tc, test_long_message);
	tcase_add_test(tc, test_rl_take);
	tcase_add_test(tc, test_rl_bound);
	tcase_add_test(tc, test_rl_sites);
	tcase_add_test(tc, test_rl_suppressed);
	tcase_add_test(tc, test_file_format);
	tcase_add_test(tc, test_file_rotation);
	tcase_add_test(tc, test_file_new_pid);
	tcase_add_test(tc, test_file_rotation_tiny);
	tcase_add_exit_test(tc, test_die, 1);
	tcase_add_exit_test(tc, test_die_perror, 1);
	tcase_add_test(tc, test_syslog);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the log suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(log_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
