// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --recommend on hand-made series: best value, smallest equivalent, xen boot line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "recommend.h"

/* One series element: knob value, mean and stddev of app.mb_per_s over n runs. */
static json_t *series_el(const char *bs, const char *v, double mean, double sd, int n)
{
	return json_pack("{s:s, s:{s:s, s:i, s:s}, s:{s:{s:i, s:f, s:f, s:f}}}", "label", v,
			 "params", "rw", "read", "bs", atoi(bs), "max_sectors_kb", v, "metrics",
			 "app.mb_per_s", "n", n, "mean", mean, "stddev", sd, "ci95", 0.0);
}

static void test_best_and_smallest(void **state)
{
	json_t *series = json_array(), *rec, *r;
	struct device dev = {0};

	(void)state;
	/* 64 and 256 differ by 2 with sd 5 (p ~ 0.65); 16 is far below (p < 1e-4). */
	json_array_append_new(series, series_el("1048576", "16", 100, 5, 3));
	json_array_append_new(series, series_el("1048576", "256", 202, 5, 3));
	json_array_append_new(series, series_el("1048576", "64", 200, 5, 3));
	dev.xen.present = true;
	rec = recommend_json(series, &dev);
	assert_non_null(rec);
	assert_int_equal(json_array_size(rec), 1);
	r = json_array_get(rec, 0);
	assert_string_equal(json_string_value(json_object_get(r, "knob")), "max_sectors_kb");
	assert_string_equal(json_string_value(json_object_get(r, "best")), "256");
	assert_string_equal(json_string_value(json_object_get(r, "smallest_equivalent")), "64");
	assert_true(json_is_true(json_object_get(r, "judged")));
	/* 64 KiB needs 16 grants of 4 KiB. */
	assert_string_equal(json_string_value(json_object_get(r, "boot_parameter")),
			    "xen_blkfront.max_indirect_segments=16");
	json_decref(rec);
	json_decref(series);
}

static void test_single_repetition_cannot_judge(void **state)
{
	json_t *series = json_array(), *rec, *r;
	struct device dev = {0};

	(void)state;
	json_array_append_new(series, series_el("4096", "44", 50, 0, 1));
	json_array_append_new(series, series_el("4096", "128", 80, 0, 1));
	rec = recommend_json(series, &dev);
	r = json_array_get(rec, 0);
	assert_string_equal(json_string_value(json_object_get(r, "best")), "128");
	assert_false(json_is_true(json_object_get(r, "judged")));
	assert_null(json_object_get(r, "smallest_equivalent"));
	assert_null(json_object_get(r, "boot_parameter")); /* not xen */
	json_decref(rec);
	json_decref(series);
}

static void test_two_workloads_and_no_sweep(void **state)
{
	json_t *series = json_array(), *rec, *plain = json_array();
	struct device dev = {0};

	(void)state;
	json_array_append_new(series, series_el("4096", "44", 50, 1, 3));
	json_array_append_new(series, series_el("65536", "44", 70, 1, 3));
	json_array_append_new(series, series_el("4096", "128", 60, 1, 3));
	json_array_append_new(series, series_el("65536", "128", 90, 1, 3));
	rec = recommend_json(series, &dev);
	assert_int_equal(json_array_size(rec), 2); /* one per block size */
	assert_string_equal(json_string_value(json_object_get(json_array_get(rec, 1), "best")),
			    "128");
	json_decref(rec);
	json_array_append_new(plain, json_pack("{s:s, s:{s:s}}", "label", "x", "params", "rw",
					       "read"));
	assert_null(recommend_json(plain, &dev));
	json_decref(plain);
	json_decref(series);
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
