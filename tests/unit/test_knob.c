// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The --set knobs (src/disk/knob.c) on a scratch sysfs disk whose queue files are plain
 * files: what is refused before anything is written (names, bounds, max_hw_sectors_kb,
 * the scheduler list), and that a trial, an apply and a restore leave the original value
 * in place, the scheduler read back as its active name.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/diag.h"
#include "disk/knob.h"
#include "testutil.h"

static char scratch[PATH_MAX];
static char sys[PATH_MAX + 8];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sys, rel);
	for (slash = strchr(path + strlen(sys) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void queue_file(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices/virtual/block/tst/queue/%s", sys, name);
	f = fopen(path, "r");
	assert_non_null(f);
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int setup(void **state)
{
	char path[PATH_MAX * 2];

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-knob.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(sys, sizeof(sys), "%s/sys", scratch);
	if (mkdir(sys, 0755))
		return -1;
	put("devices/virtual/block/tst/dev", "7:9\n");
	put("devices/virtual/block/tst/size", "8\n");
	put("devices/virtual/block/tst/queue/max_sectors_kb", "1280\n");
	put("devices/virtual/block/tst/queue/max_hw_sectors_kb", "2048\n");
	put("devices/virtual/block/tst/queue/read_ahead_kb", "128\n");
	put("devices/virtual/block/tst/queue/nomerges", "0\n");
	put("devices/virtual/block/tst/queue/scheduler", "none [mq-deadline] kyber\n");
	put("class/block/.keep", "");
	snprintf(path, sizeof(path), "%s/class/block/tst", sys);
	return symlink("../../devices/virtual/block/tst", path) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(scratch);
	return 0;
}

static struct device *resolve(void)
{
	struct device *d = test_calloc(1, sizeof(*d));
	struct diag dg = {};

	assert_non_null(d);
	if (device__resolve(sys, "tst", d, &dg))
		fail_msg("tst: %s", dg.msg);
	return d;
}

/* knob__prepare on values[0..nr): its return value; the message in dg. */
static int prepare(const struct device *d, struct knob *k, const char *name, const char *v0,
		   const char *v1, struct diag *dg)
{
	char *values[2] = { (char *)v0, (char *)v1 };

	memset(dg, 0, sizeof(*dg));
	return knob__prepare(k, d, name, values, v1 ? 2 : 1, dg);
}

static void test_refused_before_writing(void **state)
{
	struct device *d = resolve();
	struct diag dg;
	struct knob k;
	char now[64];

	(void)state;
	assert_int_equal(prepare(d, &k, "max_segments", "64", NULL, &dg), -EINVAL);
	assert_true(dg.usage);
	assert_non_null(strstr(dg.msg, "--set max_segments: not a sweepable setting"));
	assert_int_equal(prepare(d, &k, "max_sectors_kb", "4096", NULL, &dg), -EINVAL);
	assert_string_equal(dg.msg,
			    "--set max_sectors_kb=4096: above max_hw_sectors_kb=2048 of tst");
	assert_int_equal(prepare(d, &k, "max_sectors_kb", "2", NULL, &dg), -EINVAL);
	assert_string_equal(dg.msg, "--set max_sectors_kb=2: not a valid value");
	assert_int_equal(prepare(d, &k, "read_ahead_kb", "12x", NULL, &dg), -EINVAL);
	assert_int_equal(prepare(d, &k, "nomerges", "0", "3", &dg), -EINVAL);
	assert_string_equal(dg.msg, "--set nomerges=3: not a valid value");
	assert_int_equal(prepare(d, &k, "scheduler", "bfq", NULL, &dg), -EINVAL);
	assert_string_equal(dg.msg, "--set scheduler=bfq: tst offers none [mq-deadline] kyber");
	/* A setting the disk does not have. */
	assert_int_equal(prepare(d, &k, "wbt_lat_usec", "75000", NULL, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "tst has no queue/wbt_lat_usec"));
	/* Nothing was written. */
	queue_file("max_sectors_kb", now, sizeof(now));
	assert_string_equal(now, "1280");
	queue_file("nomerges", now, sizeof(now));
	assert_string_equal(now, "0");
	test_free(d);
}

static void test_try_apply_restore(void **state)
{
	struct device *d = resolve();
	char *values[] = { "64", "512" };
	struct diag dg = {};
	struct knob k;
	char now[64];

	(void)state;
	assert_int_equal(knob__prepare(&k, d, "max_sectors_kb", values, 2, &dg), 0);
	assert_string_equal(k.original, "1280");
	assert_false(k.changed);
	/* The trial writes every value, then the original again. */
	assert_int_equal(knob__try(&k, values, 2, &dg), 0);
	queue_file("max_sectors_kb", now, sizeof(now));
	assert_string_equal(now, "1280");
	assert_false(k.changed);
	assert_int_equal(knob__apply(&k, "64", &dg), 0);
	assert_true(k.changed);
	queue_file("max_sectors_kb", now, sizeof(now));
	assert_string_equal(now, "64");
	assert_int_equal(knob__restore(&k), 0);
	assert_false(k.changed);
	queue_file("max_sectors_kb", now, sizeof(now));
	assert_string_equal(now, "1280");
	test_free(d);
}

static void test_scheduler_by_active_name(void **state)
{
	struct device *d = resolve();
	char *values[] = { "none", "kyber" };
	char now[64], path[PATH_MAX * 2];
	struct diag dg = {};
	struct knob k;

	(void)state;
	assert_int_equal(knob__prepare(&k, d, "scheduler", values, 2, &dg), 0);
	/* The original is the active one, not the list. */
	assert_string_equal(k.original, "mq-deadline");
	/* A plain file reads back what was written; the kernel's shows "[kyber]". */
	assert_int_equal(queue_setting__put(d, "scheduler", "kyber"), 0);
	put("devices/virtual/block/tst/queue/scheduler", "none mq-deadline [kyber]\n");
	assert_int_equal(queue_setting__put(d, "scheduler", "kyber"), 0);
	assert_int_equal(queue_setting__put(d, "read_ahead_kb", "64"), 0);
	queue_file("read_ahead_kb", now, sizeof(now));
	assert_string_equal(now, "64");
	put("devices/virtual/block/tst/queue/scheduler", "none [mq-deadline] kyber\n");
	/* A kernel that shows another value than the one written (here: nothing): -EIO. */
	snprintf(path, sizeof(path), "%s/devices/virtual/block/tst/queue/nomerges", sys);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/dev/null", path), 0);
	assert_int_equal(queue_setting__put(d, "nomerges", "1"), -EIO);
	assert_int_equal(unlink(path), 0);
	put("devices/virtual/block/tst/queue/nomerges", "0\n");
	test_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_before_writing),
		cmocka_unit_test(test_try_apply_restore),
		cmocka_unit_test(test_scheduler_by_active_name),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
