// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The strict parsers: every garbage form is refused, every documented form exact. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "base/parse.h"

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;

	assert_int_equal(parse_size(s, &v), 0);
	assert_true(v == want);
}

static void size_bad(const char *s, int err)
{
	uint64_t v = 12345;

	assert_int_equal(parse_size(s, &v), err);
	assert_true(v == 12345); /* untouched on error */
}

static void test_size_units(void **state)
{
	(void)state;
	size_ok("512", 512);
	size_ok("0", 0);
	size_ok("4k", 4096);
	size_ok("4K", 4096);
	size_ok("4KiB", 4096);
	size_ok("4kib", 4096);
	size_ok("4KB", 4000);
	size_ok("1M", 1048576);
	size_ok("1MiB", 1048576);
	size_ok("1MB", 1000000);
	size_ok("1G", 1073741824ULL);
	size_ok("1GB", 1000000000ULL);
	size_ok("2T", 2ULL << 40);
	size_ok("44k", 45056);
	size_ok("128k", 131072);
	size_ok("18446744073709551615", UINT64_MAX);
}

static void test_size_garbage(void **state)
{
	(void)state;
	size_bad("abc", -EINVAL);
	size_bad("12Q", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad(" 1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad("", -EINVAL);
	size_bad(NULL, -EINVAL);
	size_bad("1.5M", -EINVAL);
	size_bad("4 k", -EINVAL);
	size_bad("4kk", -EINVAL);
	size_bad("0x10", -EINVAL);
	size_bad("18446744073709551616", -ERANGE);
	size_bad("17179869184G", -ERANGE); /* 2^34 GiB = 2^64 */
	size_bad("99999999999999999999999", -ERANGE);
}

static void test_duration(void **state)
{
	double v = 0;

	(void)state;
	assert_int_equal(parse_duration("10", &v), 0);
	assert_true(v == 10);
	assert_int_equal(parse_duration("1.5", &v), 0);
	assert_true(v == 1.5);
	assert_int_equal(parse_duration("500ms", &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(parse_duration("2m", &v), 0);
	assert_true(v == 120);
	assert_int_equal(parse_duration("1h", &v), 0);
	assert_true(v == 3600);
	assert_int_equal(parse_duration("3s", &v), 0);
	assert_true(v == 3);
	assert_int_equal(parse_duration("abc", &v), -EINVAL);
	assert_int_equal(parse_duration("12Q", &v), -EINVAL);
	assert_int_equal(parse_duration("-1", &v), -EINVAL);
	assert_int_equal(parse_duration("", &v), -EINVAL);
	assert_int_equal(parse_duration("nan", &v), -EINVAL);
	assert_int_equal(parse_duration("inf", &v), -EINVAL);
	assert_int_equal(parse_duration("1e400", &v), -ERANGE);
	assert_int_equal(parse_duration("99999999999h", &v), -ERANGE);
}

static void test_uint(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_uint("32", 1024, &v), 0);
	assert_true(v == 32);
	assert_int_equal(parse_uint("1024", 1024, &v), 0);
	assert_int_equal(parse_uint("1025", 1024, &v), -ERANGE);
	assert_int_equal(parse_uint("-1", 1024, &v), -EINVAL);
	assert_int_equal(parse_uint("1x", 1024, &v), -EINVAL);
	assert_int_equal(parse_uint("", 1024, &v), -EINVAL);
	assert_int_equal(parse_uint("99999999999999999999", UINT64_MAX, &v), -ERANGE);
}

static void test_int(void **state)
{
	int64_t v = 7;

	(void)state;
	assert_int_equal(parse_int("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_int("-1", &v), 0);
	assert_true(v == -1);
	assert_int_equal(parse_int("9223372036854775807", &v), 0);
	assert_true(v == INT64_MAX);
	assert_int_equal(parse_int("-9223372036854775808", &v), 0);
	assert_true(v == INT64_MIN);
	v = 7;
	assert_int_equal(parse_int("9223372036854775808", &v), -ERANGE);
	assert_int_equal(parse_int("-9223372036854775809", &v), -ERANGE);
	assert_int_equal(parse_int("--1", &v), -EINVAL);
	assert_int_equal(parse_int("+1", &v), -EINVAL);
	assert_int_equal(parse_int("-", &v), -EINVAL);
	assert_int_equal(parse_int(" 1", &v), -EINVAL);
	assert_int_equal(parse_int("1 ", &v), -EINVAL);
	assert_int_equal(parse_int("", &v), -EINVAL);
	assert_int_equal(parse_int(NULL, &v), -EINVAL);
	assert_true(v == 7); /* untouched on error */
}

static void devnum_bad(const char *s, const char *want_why)
{
	unsigned int maj = 1, min = 2;
	const char *why = NULL;

	assert_int_equal(parse_devnum(s, &maj, &min, &why), -EINVAL);
	assert_string_equal(why, want_why);
	assert_int_equal(maj, 1);
	assert_int_equal(min, 2);
}

static void test_devnum(void **state)
{
	unsigned int maj = 0, min = 0;
	const char *why = NULL;

	(void)state;
	assert_int_equal(parse_devnum("202:16", &maj, &min, &why), 0);
	assert_int_equal(maj, 202);
	assert_int_equal(min, 16);
	assert_int_equal(parse_devnum("4095:1048575", &maj, &min, &why), 0);
	devnum_bad("202", "missing major number");
	devnum_bad(":1", "missing major number");
	devnum_bad("1:", "missing minor number");
	devnum_bad("x:1", "major is not a number");
	devnum_bad("1:-1", "minor is not a number");
	devnum_bad("1:2:3", "minor is not a number");
	devnum_bad("4096:0", "major number out of range (at most 4095)");
	devnum_bad("0:1048576", "minor number out of range (at most 1048575)");
	devnum_bad("99999999999999999999:0", "major number out of range");
	/* The syntax of both halves is checked before either range. */
	devnum_bad("5000:x", "minor is not a number");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_units), cmocka_unit_test(test_size_garbage),
		cmocka_unit_test(test_duration),   cmocka_unit_test(test_uint),
		cmocka_unit_test(test_int),	   cmocka_unit_test(test_devnum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
