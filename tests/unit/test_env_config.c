// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What each environment variable does to struct env_config, from a table instead of environ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "cli/env_config.h"

/* NAME=VALUE pairs the next lookup answers from; NULL-terminated. */
static const char *const *vars;

static char *lookup(const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; vars && vars[i]; i++)
		if (!strncmp(vars[i], name, n) && vars[i][n] == '=')
			return (char *)vars[i] + n + 1;
	return NULL;
}

static void read_from(const char *const *table, struct env_config *cfg)
{
	vars = table;
	memset(cfg, 0xa5, sizeof(*cfg));
	env_config__read(cfg, lookup);
}

static void test_defaults(void **state)
{
	static const char *const none[] = { "PATH=/bin", NULL };
	static const char *const empty[] = { "BLKTRACE_BENCH_SYSFS=", "BLKTRACE_BENCH_KALLSYMS=",
					     "BLKTRACE_BENCH_RAW_TP=", "BLKTRACE_BENCH_XENSTORE=",
					     NULL };
	struct env_config cfg;

	(void)state;
	read_from(none, &cfg);
	assert_string_equal(cfg.sysfs_root, "/sys");
	assert_string_equal(cfg.kallsyms, "/proc/kallsyms");
	assert_false(cfg.force_raw_tp);
	assert_null(cfg.xenstore); /* libxenstore */
	read_from(empty, &cfg);
	assert_string_equal(cfg.sysfs_root, "/sys");
	assert_string_equal(cfg.kallsyms, "/proc/kallsyms");
	assert_false(cfg.force_raw_tp);
	assert_null(cfg.xenstore);
}

static void test_set(void **state)
{
	static const char *const set[] = { "BLKTRACE_BENCH_SYSFS=/tmp/x",
					   "BLKTRACE_BENCH_KALLSYMS=/tmp/k",
					   "BLKTRACE_BENCH_RAW_TP=1",
					   "BLKTRACE_BENCH_XENSTORE=/tmp/xs", NULL };
	static const char *const off[] = { "BLKTRACE_BENCH_RAW_TP=0", NULL };
	static const char *const yes[] = { "BLKTRACE_BENCH_RAW_TP=yes", NULL };
	struct env_config cfg;

	(void)state;
	read_from(set, &cfg);
	assert_string_equal(cfg.sysfs_root, "/tmp/x");
	assert_string_equal(cfg.kallsyms, "/tmp/k");
	assert_string_equal(cfg.xenstore, "/tmp/xs");
	assert_true(cfg.force_raw_tp);
	read_from(off, &cfg);
	assert_false(cfg.force_raw_tp);
	read_from(yes, &cfg);
	assert_true(cfg.force_raw_tp);
}

/* Tests lose completions on purpose; anything but a number leaves them all counted. */
static void test_lose_completions(void **state)
{
	static const char *const n100[] = { "BLKTRACE_BENCH_LOSE_COMPLETIONS=100", NULL };
	static const char *const junk[] = { "BLKTRACE_BENCH_LOSE_COMPLETIONS=10x", NULL };
	static const char *const huge[] = { "BLKTRACE_BENCH_LOSE_COMPLETIONS=4294967296", NULL };
	struct env_config cfg;

	(void)state;
	read_from(n100, &cfg);
	assert_int_equal(cfg.lose_completions, 100);
	read_from(junk, &cfg);
	assert_int_equal(cfg.lose_completions, 0);
	read_from(huge, &cfg);
	assert_int_equal(cfg.lose_completions, 0);
	read_from(NULL, &cfg);
	assert_int_equal(cfg.lose_completions, 0);
}

/* Tests stall --blktrace records on purpose; as lose_completions, only a number does. */
static void test_stall_records(void **state)
{
	static const char *const n1000[] = { "BLKTRACE_BENCH_STALL_RECORDS=1000", NULL };
	static const char *const junk[] = { "BLKTRACE_BENCH_STALL_RECORDS=-1", NULL };
	struct env_config cfg;

	(void)state;
	read_from(n1000, &cfg);
	assert_int_equal(cfg.stall_records, 1000);
	assert_int_equal(cfg.lose_completions, 0);
	read_from(junk, &cfg);
	assert_int_equal(cfg.stall_records, 0);
	read_from(NULL, &cfg);
	assert_int_equal(cfg.stall_records, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_lose_completions),
		cmocka_unit_test(test_stall_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
