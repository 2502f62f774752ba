// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * --recommend on hand-made runs: the best value, the smallest equivalent, the xen boot
 * line, one recommendation per workload, none without a sweep.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "recommend.h"

#define MAX_RUNS 32

struct runs {
	struct run_summary r[MAX_RUNS];
	size_t n;
};

/*
 * n runs of a read workload of block size bs at knob value v whose app.mb_per_s have
 * mean `mean` and sample stddev `sd` (mean - sd, mean, mean + sd for n = 3).
 */
static void add(struct runs *rs, unsigned long long bs, const char *v, double mean, double sd,
		int n)
{
	static const double dev3[] = { -1, 0, 1 };
	int i;

	for (i = 0; i < n; i++) {
		struct run_summary *r = &rs->r[rs->n++];

		memset(r, 0, sizeof(*r));
		snprintf(r->label, sizeof(r->label), "max_sectors_kb=%s read bs=%llu", v, bs);
		snprintf(r->params.rw, sizeof(r->params.rw), "read");
		r->params.bs = bs;
		snprintf(r->params.set_knob, sizeof(r->params.set_knob), "max_sectors_kb");
		snprintf(r->params.set_value, sizeof(r->params.set_value), "%s", v);
		r->metric[METRIC_APP_MB_PER_S] = mean + (n == 3 ? dev3[i] * sd : 0);
		r->has_metric[METRIC_APP_MB_PER_S] = true;
	}
}

/* Group rs into series and recommend; rec is freed by the caller. */
static void recommend(struct runs *rs, const struct device *dev, struct series_set *ss,
		      struct recommendations *rec)
{
	assert_int_equal(series__group(ss, rs->r, rs->n), 0);
	assert_int_equal(recommend__compute(rec, ss, rs->r, dev), 0);
}

static void test_best_and_smallest(void **state)
{
	struct runs *rs = test_calloc(1, sizeof(*rs));
	struct recommendations rec;
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct series_set ss;
	const struct recommendation *r;

	(void)state;
	/* 64 and 256 differ by 2 with sd 5 (p ~ 0.65); 16 is far below (p < 1e-4). */
	add(rs, 1048576, "16", 100, 5, 3);
	add(rs, 1048576, "256", 202, 5, 3);
	add(rs, 1048576, "64", 200, 5, 3);
	dev->xen.present = true;
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.nr, 1);
	r = &rec.r[0];
	assert_string_equal(r->knob, "max_sectors_kb");
	assert_string_equal(r->best, "256");
	assert_string_equal(r->smallest, "64");
	assert_true(r->judged);
	assert_int_equal(r->nr_evidence, 3);
	assert_string_equal(r->evidence[0].value, "16");
	assert_true(r->evidence[0].p_vs_best < 1e-4);
	assert_true(r->evidence[1].p_vs_best == 1);
	assert_true(fabs(r->evidence[2].mb_per_s - 200) < 1e-9);
	/* 64 KiB needs 16 grants of 4 KiB. */
	assert_string_equal(r->boot_parameter, "xen_blkfront.max_indirect_segments=16");
	recommend__free(&rec);
	series__free(&ss);
	test_free(rs);
	test_free(dev);
}

static void test_single_repetition_cannot_judge(void **state)
{
	struct runs *rs = test_calloc(1, sizeof(*rs));
	struct recommendations rec;
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct series_set ss;

	(void)state;
	add(rs, 4096, "44", 50, 0, 1);
	add(rs, 4096, "128", 80, 0, 1);
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.nr, 1);
	assert_string_equal(rec.r[0].best, "128");
	assert_false(rec.r[0].judged);
	assert_null(rec.r[0].smallest);
	assert_string_equal(rec.r[0].boot_parameter, ""); /* not xen */
	assert_true(isnan(rec.r[0].evidence[0].p_vs_best));
	recommend__free(&rec);
	series__free(&ss);
	test_free(rs);
	test_free(dev);
}

static void test_two_workloads_and_no_sweep(void **state)
{
	struct runs *rs = test_calloc(1, sizeof(*rs));
	struct recommendations rec;
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct series_set ss;

	(void)state;
	add(rs, 4096, "44", 50, 1, 3);
	add(rs, 65536, "44", 70, 1, 3);
	add(rs, 4096, "128", 60, 1, 3);
	add(rs, 65536, "128", 90, 1, 3);
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.nr, 2); /* one per block size */
	assert_string_equal(rec.r[0].best, "128");
	assert_string_equal(rec.r[1].best, "128");
	assert_string_equal(rec.r[1].workload, "max_sectors_kb=128 read bs=65536");
	recommend__free(&rec);
	series__free(&ss);

	/* Runs without a --set value: nothing to recommend. */
	memset(rs, 0, sizeof(*rs));
	add(rs, 4096, "44", 50, 1, 3);
	rs->r[0].params.set_knob[0] = rs->r[1].params.set_knob[0] = '\0';
	rs->r[2].params.set_knob[0] = '\0';
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.nr, 0);
	recommend__free(&rec);
	series__free(&ss);
	test_free(rs);
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_and_smallest),
		cmocka_unit_test(test_single_repetition_cannot_judge),
		cmocka_unit_test(test_two_workloads_and_no_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
