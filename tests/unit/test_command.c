// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * command.c, command mode's load: the command's exit status as a shell reports it, a
 * command that cannot be started as the errno execvp saw, and its own time measured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include "workload/command.h"

static void test_exit_status(void **state)
{
	char *ok[] = { "sh", "-c", "exit 0", NULL }, *three[] = { "sh", "-c", "exit 3", NULL };
	double s = -1;

	(void)state;
	assert_int_equal(command__run(ok, &s), 0);
	assert_true(s >= 0 && s < 10);
	assert_int_equal(command__run(three, &s), 3);
}

/* Killed by a signal: 128 + its number, as a shell says it. */
static void test_killed(void **state)
{
	char *argv[] = { "sh", "-c", "kill -TERM $$", NULL };
	double s;

	(void)state;
	assert_int_equal(command__run(argv, &s), 128 + 15);
}

static void test_slept(void **state)
{
	char *argv[] = { "sleep", "0.2", NULL };
	double s = 0;

	(void)state;
	assert_int_equal(command__run(argv, &s), 0);
	assert_true(s >= 0.2 && s < 5);
}

/* Never started: execvp's errno, not 127 from a child that could not exec. */
static void test_not_found(void **state)
{
	char *argv[] = { "/nonexistent/blktrace-bench-no-such-command", NULL };
	double s;

	(void)state;
	assert_int_equal(command__run(argv, &s), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_killed),
		cmocka_unit_test(test_slept),
		cmocka_unit_test(test_not_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
