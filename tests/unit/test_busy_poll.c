// SPDX-License-Identifier: GPL-2.0-or-later
/* test_busy_poll.c - unit tests for --busy-poll's value (conf/conf_parse.c)
 *
 * Theory of operation: conf_parse() takes the value into the context, 0
 * (off) unless given; a value outside 0 to CONF_BUSY_POLL_MAX or not a
 * number must end the process with status 1 (Check's exit tests run each
 * in a child). The message itself is checked by
 * tests/integration/busy_poll.sh, on the binary.
 */

#include <check.h>
#include <stdlib.h>

#include "../../conf/conf.h"
#include "../../conf/conf_internal.h"

#define ARGV(...)	((char *[]){ __VA_ARGS__, NULL })

static struct ctx c;
static struct conf_given g;

/**
 * parse() - parse a command line of @n arguments into the context
 * @mode:	passt or pasta
 * @n:		argument count
 * @argv:	NULL-terminated arguments
 */
static void parse(enum passt_mode mode, int n, char **argv)
{
	conf_defaults(&c, mode);
	conf_parse(&c, n, argv, &g);
}

START_TEST(test_values)
{
	parse(MODE_PASTA, 1, ARGV("pasta"));
	ck_assert_uint_eq(c.busy_poll_us, 0);
	parse(MODE_PASST, 1, ARGV("passt"));
	ck_assert_uint_eq(c.busy_poll_us, 0);

	parse(MODE_PASTA, 3, ARGV("pasta", "--busy-poll", "50"));
	ck_assert_uint_eq(c.busy_poll_us, 50);
	parse(MODE_PASST, 2, ARGV("passt", "--busy-poll=10000"));
	ck_assert_uint_eq(c.busy_poll_us, CONF_BUSY_POLL_MAX);
	parse(MODE_PASTA, 5, ARGV("pasta", "--busy-poll", "200",
				  "--busy-poll", "0"));
	ck_assert_uint_eq(c.busy_poll_us, 0);
}
END_TEST

START_TEST(test_above_max)
{
	parse(MODE_PASTA, 3, ARGV("pasta", "--busy-poll", "10001"));
}
END_TEST

START_TEST(test_negative)
{
	parse(MODE_PASST, 3, ARGV("passt", "--busy-poll", "-1"));
}
END_TEST

START_TEST(test_unit_suffix)
{
	parse(MODE_PASTA, 3, ARGV("pasta", "--busy-poll", "50us"));
}
END_TEST

START_TEST(test_empty)
{
	parse(MODE_PASTA, 2, ARGV("pasta", "--busy-poll="));
}
END_TEST

/**
 * busy_poll_suite() - the test suite
 *
 * Return: the suite
 */
static Suite *busy_poll_suite(void)
{
	Suite *s = suite_create("busy_poll");
	TCase *tc = tcase_create("busy_poll");

	tcase_add_test(tc, test_values);
	tcase_add_exit_test(tc, test_above_max, 1);
	tcase_add_exit_test(tc, test_negative, 1);
	tcase_add_exit_test(tc, test_unit_suffix, 1);
	tcase_add_exit_test(tc, test_empty, 1);
	suite_add_tcase(s, tc);
	return s;
}

/**
 * main() - run the busy_poll suite
 *
 * Return: 0 if every test passed
 */
int main(void)
{
	SRunner *sr = srunner_create(busy_poll_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
