// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Which settings tune measures and with which values, on the sysfs fixture trees: the
 * values come from the disk's limits, the knobs from what the workload can feel; --knobs
 * and --set narrow them and are checked; nothing to tune is an error naming each reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/diag.h"
#include "testutil.h"
#include "tune/tune_knobs.h"

static char fixtures[4096];

struct fx {
	struct device d;
	struct tune t;
	struct job_params p;
	struct diag err;
};

static struct fx *load(const char *tree, const char *disk, const char *rw, unsigned long long bs,
		       bool direct, unsigned int iodepth)
{
	struct fx *f = test_calloc(1, sizeof(*f));
	char root[4200];

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	assert_int_equal(device__resolve(root, disk, &f->d, NULL), 0);
	tune__init(&f->t);
	snprintf(f->p.rw, sizeof(f->p.rw), "%s", rw);
	f->p.bs = bs;
	f->p.direct = direct;
	f->p.iodepth = iodepth;
	return f;
}

static int choose(struct fx *f, const char *only, const char *set_knob, char **values, int nr)
{
	struct tune_knob_req req = {
		.only = only, .set_knob = set_knob, .set_values = values, .nr_set_values = nr
	};

	return tune_knobs__choose(&f->t, &f->d, &f->p, &req, &f->err);
}

static const struct tune_knob *knob(const struct fx *f, const char *name)
{
	int k;

	for (k = 0; k < f->t.nr_knobs; k++)
		if (!strcmp(f->t.knobs[k].name, name))
			return &f->t.knobs[k];
	fail_msg("no knob %s", name);
	return NULL;
}

/* The values as "a b c". */
static const char *values(const struct tune_knob *kb)
{
	static char buf[1024];
	size_t used = 0;
	int v;

	buf[0] = '\0';
	for (v = 0; v < kb->nr_values; v++)
		used += snprintf(buf + used, sizeof(buf) - used, "%s%s", v ? " " : "",
				 kb->values[v]);
	return buf;
}

/* 1 MiB direct reads on loop0 (max_hw_sectors_kb 1280, as found 1280). */
static void test_direct_reads(void **state)
{
	struct fx *f = load("loop", "loop0", "read", 1 << 20, true, 1);

	(void)state;
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(knob(f, "max_sectors_kb")->original, "1280");
	assert_string_equal(values(knob(f, "max_sectors_kb")), "64 128 256 512 1024");
	assert_string_equal(knob(f, "read_ahead_kb")->skipped, "direct I/O does not read ahead");
	assert_string_equal(knob(f, "scheduler")->original, "none");
	assert_string_equal(values(knob(f, "scheduler")), "mq-deadline kyber bfq");
	assert_non_null(strstr(knob(f, "nr_requests")->skipped, "one I/O in flight"));
	assert_non_null(strstr(knob(f, "wbt_lat_usec")->skipped, "buffered writes only"));
	assert_string_equal(knob(f, "nomerges")->skipped, "tuned only when --knobs names it");
	assert_string_equal(knob(f, "rq_affinity")->skipped, "loop0 has no queue/rq_affinity");
	test_free(f);
}

static void test_buffered(void **state)
{
	struct fx *f = load("loop", "loop0", "read", 128 << 10, false, 1);

	(void)state;
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(values(knob(f, "read_ahead_kb")), "0 512 2048 8192");
	assert_string_equal(values(knob(f, "max_sectors_kb")), "64 128 256 512 1024");
	test_free(f);
	f = load("loop", "loop0", "write", 1 << 20, false, 1);
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(knob(f, "read_ahead_kb")->skipped, "writes do not read ahead");
	assert_string_equal(values(knob(f, "wbt_lat_usec")), "0");
	/* loop0 has no scheduler and 128 tags: nr_requests cannot grow. */
	assert_string_equal(values(knob(f, "nr_requests")), "32 64");
	test_free(f);
	f = load("sd", "sda", "write", 1 << 20, false, 1);
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(values(knob(f, "nr_requests")), "16 32 128 256");
	test_free(f);
}

/* Small direct I/O never reaches max_sectors_kb; on xen-blkfront with 11 segments, 44 KiB
 * is all the driver takes. */
static void test_limits(void **state)
{
	struct fx *f = load("loop", "loop0", "randread", 4096, true, 32);

	(void)state;
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(knob(f, "max_sectors_kb")->skipped,
			    "direct I/O of 4 KiB stays below every value");
	assert_string_equal(values(knob(f, "nr_requests")), "32 64");
	test_free(f);
	f = load("xen-seg11", "xvda", "read", 1 << 20, true, 1);
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(knob(f, "max_sectors_kb")->skipped,
			    "no other value up to max_hw_sectors_kb=44");
	test_free(f);
	f = load("xen-seg32", "xvda", "read", 1 << 20, true, 1);
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), 0);
	assert_string_equal(values(knob(f, "max_sectors_kb")), "64");
	test_free(f);
}

static void test_knobs_option(void **state)
{
	struct fx *f = load("loop", "loop0", "read", 1 << 20, true, 1);

	(void)state;
	assert_int_equal(choose(f, "scheduler,nomerges", NULL, NULL, 0), 0);
	assert_string_equal(knob(f, "max_sectors_kb")->skipped, "not in --knobs");
	assert_string_equal(values(knob(f, "nomerges")), "1 2");
	assert_string_equal(knob(f, "scheduler")->skipped, "");
	assert_int_equal(choose(f, "max_sectors_kb,bogus", NULL, NULL, 0), -EINVAL);
	assert_non_null(strstr(f->err.msg, "--knobs: 'bogus' is not a setting tune changes"));
	assert_int_equal(choose(f, ",", NULL, NULL, 0), -EINVAL);
	test_free(f);
}

static void test_set_option(void **state)
{
	struct fx *f = load("loop", "loop0", "read", 1 << 20, true, 1);
	char *ok[] = { "64", "1280" }, *big[] = { "64", "9999" }, *sched[] = { "bfq" };

	(void)state;
	/* --set alone: that knob, its values, the one in force dropped (the baseline). */
	assert_int_equal(choose(f, NULL, "max_sectors_kb", ok, 2), 0);
	assert_string_equal(values(knob(f, "max_sectors_kb")), "64");
	assert_string_equal(knob(f, "scheduler")->skipped, "--set tunes max_sectors_kb alone");
	assert_int_equal(choose(f, NULL, "max_sectors_kb", big, 2), -EINVAL);
	assert_non_null(strstr(f->err.msg, "above max_hw_sectors_kb=1280"));
	assert_int_equal(choose(f, "max_sectors_kb", "scheduler", sched, 1), -EINVAL);
	assert_string_equal(f->err.msg, "--set names scheduler, which --knobs leaves out");
	test_free(f);
}

/* zram0 for 4 KiB direct reads: every knob has its reason, all of them said. */
static void test_nothing_to_tune(void **state)
{
	struct fx *f = load("loop", "zram0", "read", 4096, true, 1);

	(void)state;
	assert_int_equal(choose(f, NULL, NULL, NULL, 0), -EINVAL);
	assert_non_null(strstr(f->err.msg,
			       "nothing to tune on zram0 for this workload: "
			       "max_sectors_kb: direct I/O of 4 KiB stays below every value"));
	assert_non_null(strstr(f->err.msg, "scheduler: zram0 has no queue/scheduler"));
	test_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_reads), cmocka_unit_test(test_buffered),
		cmocka_unit_test(test_limits),	     cmocka_unit_test(test_knobs_option),
		cmocka_unit_test(test_set_option),   cmocka_unit_test(test_nothing_to_tune),
	};

	if (test_find_fixtures(fixtures, sizeof(fixtures)))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
