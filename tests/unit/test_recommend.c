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
#include "analysis/recommend.h"
#include "output/report_text.h"

#define MAX_RUNS 32

struct runs {
	struct run_summary r[MAX_RUNS];
	size_t n;
};

/*
 * n runs of a read workload of block size bs at knob value v whose app.mb_per_s have
 * mean `mean` and sample stddev `sd` (mean - sd, mean, mean + sd for n = 3).
 */
static void add_knob(struct runs *rs, const char *knob, unsigned long long bs, const char *v,
		     double mean, double sd, int n)
{
	static const double dev3[] = { -1, 0, 1 };
	int i;

	for (i = 0; i < n; i++) {
		struct run_summary *r = &rs->r[rs->n++];

		memset(r, 0, sizeof(*r));
		snprintf(r->label, sizeof(r->label), "%s=%s read bs=%llu", knob, v, bs);
		snprintf(r->params.rw, sizeof(r->params.rw), "read");
		r->params.bs = bs;
		r->has_app = true;
		snprintf(r->params.set_knob, sizeof(r->params.set_knob), "%s", knob);
		snprintf(r->params.set_value, sizeof(r->params.set_value), "%s", v);
		r->metric[METRIC_APP_MB_PER_S] = mean + (n == 3 ? dev3[i] * sd : 0);
		r->has_metric[METRIC_APP_MB_PER_S] = true;
	}
}

static void add(struct runs *rs, unsigned long long bs, const char *v, double mean, double sd,
		int n)
{
	add_knob(rs, "max_sectors_kb", bs, v, mean, sd, n);
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

/* The boot parameter never asks for more than the backend offers (what xenstore said). */
static void test_xen_backend_offer(void **state)
{
	static const struct {
		int64_t offer;
		const char *want;
	} cases[] = {
		{ 256, "xen_blkfront.max_indirect_segments=16" },
		{ 12, "xen_blkfront.max_indirect_segments=12" },
		{ 0, "" }, /* no indirect descriptors: no parameter gets 64 KiB */
	};
	struct runs *rs = test_calloc(1, sizeof(*rs));
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct recommendations rec;
	struct series_set ss;
	size_t i;

	(void)state;
	add(rs, 1048576, "16", 100, 5, 3);
	add(rs, 1048576, "64", 200, 5, 3);
	dev->xen.present = true;
	dev->xen.backend_read = true;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dev->xen.backend.max_indirect_segments = cases[i].offer;
		recommend(rs, dev, &ss, &rec);
		assert_string_equal(rec.r[0].best, "64");
		assert_string_equal(rec.r[0].boot_parameter, cases[i].want);
		recommend__free(&rec);
		series__free(&ss);
	}
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

/* The recommendation as report_text prints it under a --brief table. */
static char *rec_text(struct runs *rs, struct series_set *ss, struct recommendations *rec)
{
	struct report rep = { .runs = rs->r, .nr_runs = rs->n, .series = *ss, .rec = *rec };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	report_text__print(f, &rep, true);
	fclose(f);
	return out;
}

static void assert_has(const char *text, const char *part, bool want)
{
	if (!strstr(text, part) != !want)
		fail_msg("\"%s\" %s in:\n%s", part, want ? "not" : "unexpectedly", text);
}

/*
 * A scheduler has no "smaller" value: with mq-deadline not told apart from none (p about
 * 0.12), the recommendation says so, and never "every smaller value is significantly
 * worse" (it did, because none was listed first and so counted as the smallest).
 */
static void test_unordered_knob(void **state)
{
	struct runs *rs = test_calloc(1, sizeof(*rs));
	struct recommendations rec;
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct series_set ss;
	char *text;

	(void)state;
	add_knob(rs, "scheduler", 4096, "none", 100, 5, 3);
	add_knob(rs, "scheduler", 4096, "mq-deadline", 92, 5, 3);
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.nr, 1);
	assert_string_equal(rec.r[0].best, "none");
	assert_false(rec.r[0].ordered);
	assert_null(rec.r[0].smallest);
	assert_true(rec.r[0].judged);
	assert_int_equal(rec.r[0].nr_as_good, 1);
	assert_true(rec.r[0].evidence[1].as_good);
	assert_false(rec.r[0].evidence[0].as_good); /* the best itself */
	assert_true(rec.r[0].evidence[1].p_vs_best > 0.05 && rec.r[0].evidence[1].p_vs_best < 0.2);
	text = rec_text(rs, &ss, &rec);
	assert_has(text,
		   "best throughput with scheduler=none; not told apart from it "
		   "(p >= 0.05): scheduler=mq-deadline\n",
		   true);
	assert_has(text, "smaller", false);
	free(text);
	recommend__free(&rec);
	series__free(&ss);

	/* Far apart: every other value is worse, each p below 0.05. */
	memset(rs, 0, sizeof(*rs));
	add_knob(rs, "scheduler", 4096, "none", 100, 2, 3);
	add_knob(rs, "scheduler", 4096, "mq-deadline", 60, 2, 3);
	add_knob(rs, "scheduler", 4096, "bfq", 50, 2, 3);
	recommend(rs, dev, &ss, &rec);
	assert_int_equal(rec.r[0].nr_as_good, 0);
	text = rec_text(rs, &ss, &rec);
	assert_has(text,
		   "best throughput with scheduler=none; every other value is "
		   "significantly worse (p < 0.05)\n",
		   true);
	free(text);
	recommend__free(&rec);
	series__free(&ss);

	/* An ordered knob keeps "smaller": 64 is the smallest as good as 256. */
	memset(rs, 0, sizeof(*rs));
	add(rs, 4096, "256", 202, 5, 3);
	add(rs, 4096, "64", 200, 5, 3);
	recommend(rs, dev, &ss, &rec);
	assert_true(rec.r[0].ordered);
	text = rec_text(rs, &ss, &rec);
	assert_has(text, "max_sectors_kb=64 is statistically as good (p >= 0.05)", true);
	free(text);
	recommend__free(&rec);
	series__free(&ss);
	test_free(rs);
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_best_and_smallest),
		cmocka_unit_test(test_xen_backend_offer),
		cmocka_unit_test(test_single_repetition_cannot_judge),
		cmocka_unit_test(test_two_workloads_and_no_sweep),
		cmocka_unit_test(test_unordered_knob),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
