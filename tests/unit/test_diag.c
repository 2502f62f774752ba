// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The error convention (src/base/diag.c): what a failure records, and the one exit-code map. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "base/diag.h"

static void test_kinds(void **state)
{
	struct diag d = {};

	(void)state;
	assert_int_equal(diag__usage(&d, "--bs: invalid block size '%s'", "12Q"), -EINVAL);
	assert_int_equal(d.err, -EINVAL);
	assert_true(d.usage);
	assert_string_equal(d.msg, "--bs: invalid block size '12Q'");
	assert_int_equal(diag__usage_err(&d, -EBUSY, "loop0 is being swept"), -EBUSY);
	assert_true(d.usage);
	assert_int_equal(diag__fail(&d, -EACCES, "cannot open %s: %s", "x", strerror(EACCES)),
			 -EACCES);
	assert_false(d.usage);
	assert_string_equal(d.msg, "cannot open x: Permission denied");
	/* No diag: the return value alone. */
	assert_int_equal(diag__fail(NULL, -EIO, "lost"), -EIO);
	assert_int_equal(diag__usage(NULL, "lost"), -EINVAL);
	assert_int_equal(diag__prefix(NULL, "lost"), 0);
}

static void test_prefix(void **state)
{
	struct diag d = {};
	char big[DIAG_MSG_MAX + 16];

	(void)state;
	diag__usage_err(&d, -ENOENT, "no such block device: 9:9");
	assert_int_equal(diag__prefix(&d, "--file %s: block device %s: ", "/dev/x", "9:9"),
			 -ENOENT);
	assert_string_equal(d.msg, "--file /dev/x: block device 9:9: no such block device: 9:9");
	assert_true(d.usage);
	/* Too long: cut at the end, still a string. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	diag__fail(&d, -EIO, "%s", big);
	diag__prefix(&d, "head: ");
	assert_int_equal(strlen(d.msg), DIAG_MSG_MAX - 1);
	assert_int_equal(strncmp(d.msg, "head: aaa", 9), 0);
}

/* The one map: usage 2, runtime 1, signals 128+N, otherwise the command's own status. */
static void test_exit_codes(void **state)
{
	struct diag d = {};

	(void)state;
	assert_int_equal(diag__exit(&d, 0), EXIT_OK);
	assert_int_equal(diag__exit(&d, EXIT_REGRESSION), EXIT_REGRESSION);
	assert_int_equal(diag__exit(&d, 42), 42); /* command mode: the command's status */
	assert_int_equal(diag__exit(&d, diag__usage(&d, "refused")), EXIT_USAGE);
	assert_int_equal(diag__exit(&d, diag__fail(&d, -EROFS, "read-only")), EXIT_FAIL);
	/* A failure nobody described: runtime, in strerror's words. */
	memset(&d, 0, sizeof(d));
	diag__usage(&d, "an older, handled refusal");
	assert_int_equal(diag__exit(&d, -ENOMEM), EXIT_FAIL);
	assert_string_equal(d.msg, strerror(ENOMEM));
	/* Interrupted: 128 + the signal, INT when none is known. */
	memset(&d, 0, sizeof(d));
	d.signal = SIGTERM;
	assert_int_equal(diag__exit(&d, -EINTR), 143);
	memset(&d, 0, sizeof(d));
	assert_int_equal(diag__exit(&d, -EINTR), 130);
	/* A real failure after the signal wins: the run did not end because of it. */
	memset(&d, 0, sizeof(d));
	d.signal = SIGINT;
	assert_int_equal(diag__exit(&d, diag__fail(&d, -EIO, "cannot write")), EXIT_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_exit_codes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
