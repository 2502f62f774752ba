// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare: verdicts and their direction, run matching, refusal of broken files,
 * old-schema files. Welch p-values are checked against the regularized incomplete
 * beta function evaluated independently (mpmath, 30 digits):
 * p = I_{df / (df + t^2)}(df / 2, 1 / 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "analysis/compare.h"
#include "output/compare_json.h"
#include "output/compare_text.h"
#include "base/diag.h"
#include "analysis/series.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The metrics compare judges: every one but the last (metrics.h), in id order. */
#define NR_JUDGED (NR_METRICS - 1)

/*
 * A comparison as cmd_compare makes it, from JSON documents dumped and loaded back the
 * way files are: the tests read its JSON (compare_json.c), the rest stays here.
 */
struct built {
	json_t *doc;
	struct loaded_result a, b;
	struct comparison c;
};
static struct built built[4];

static struct built *built_of(json_t *cmp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(built); i++)
		if (built[i].doc == cmp)
			return &built[i];
	fail_msg("no comparison built for %p", (void *)cmp);
	return NULL;
}

static void load_into(json_t *doc, const char *name, struct loaded_result *out)
{
	char *text = json_dumps(doc, 0);
	struct diag d = {};

	assert_non_null(text);
	if (result_load__string(name, text, out, &d))
		fail_msg("%s", d.msg);
	free(text);
}

static json_t *build_json(json_t *a, json_t *b, const char *name_a, const char *name_b)
{
	struct built *x = built_of(NULL);

	load_into(a, name_a, &x->a);
	load_into(b, name_b, &x->b);
	assert_int_equal(compare__build(&x->c, &x->a, &x->b, name_a, name_b), 0);
	x->doc = compare_json__doc(&x->c);
	assert_non_null(x->doc);
	return x->doc;
}

static int regressions(json_t *cmp, double pct, FILE *f)
{
	return compare__regressions(&built_of(cmp)->c, pct, f);
}

static void cmp_done(json_t *cmp)
{
	struct built *x = built_of(cmp);

	json_decref(x->doc);
	compare__free(&x->c);
	result_load__free(&x->a);
	result_load__free(&x->b);
	memset(x, 0, sizeof(*x));
}

/* Load text as compare loads a file; on success the document itself in *doc. */
static int load_string(const char *name, const char *text, json_t **doc, struct diag *d)
{
	struct loaded_result lr;
	int ret = result_load__string(name, text, &lr, d);

	*doc = NULL;
	if (ret)
		return ret;
	result_load__free(&lr);
	*doc = json_loads(text, 0, NULL);
	assert_non_null(*doc);
	return 0;
}

static int load_file(const char *path, json_t **doc, struct diag *d)
{
	struct loaded_result lr;
	int ret = result_load__file(path, &lr, d);

	*doc = NULL;
	if (!ret) {
		result_load__free(&lr);
		*doc = json_load_file(path, 0, NULL);
	}
	return ret;
}

static bool near(double got, double want, double rel_tol)
{
	if (fabs(got - want) <= rel_tol * fabs(want))
		return true;
	print_error("got %.17g, want %.17g (rel %g)\n", got, want, rel_tol);
	return false;
}

/* Set a number at a dotted path, creating the objects on the way. */
static void set_path(json_t *obj, const char *path, double v)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		json_t *next;

		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		next = json_object_get(obj, key);
		if (!next) {
			next = json_object();
			json_object_set_new(obj, key, next);
		}
		obj = next;
		path = dot + 1;
	}
	json_object_set_new(obj, path, json_real(v));
}

static json_t *new_doc(const char *schema)
{
	json_t *doc = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}, s:[]}", "schema", schema,
				"tool_version", "test", "command_line", "blktrace-bench --trace x",
				"host", "kernel", "6.1", "hostname", "h", "runs");

	assert_non_null(doc);
	return doc;
}

/* n runs of "rw bs" with metric path at the values v[0..n). */
static void add_runs(json_t *doc, const char *rw, json_int_t bs, const char *path, const double *v,
		     size_t n)
{
	/* Shares are at most 1 (compare refuses more); Welch's p does not change with scale. */
	double scale = strstr(path, "limit_bound.") ? 1e-3 : 1;
	char label[64];
	size_t i;

	snprintf(label, sizeof(label), "%s bs=%lld", rw, (long long)bs);
	for (i = 0; i < n; i++) {
		json_t *run = json_pack("{s:s, s:{s:s, s:I, s:s, s:i}, s:i}", "label", label,
					"params", "rw", rw, "bs", bs, "engine", "psync", "iodepth",
					1, "repetition", (int)i);

		assert_non_null(run);
		set_path(run, path, v[i] * scale);
		json_array_append_new(json_object_get(doc, "runs"), run);
	}
}

/* The round trip a saved file makes: dump, then load and check as compare does. */
static json_t *reload(json_t *doc, const char *name)
{
	struct loaded_result lr;

	load_into(doc, name, &lr);
	result_load__free(&lr);
	return doc;
}

static json_t *find_metric(json_t *set, const char *name)
{
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(set, "metrics"), i, m)
		if (!strcmp(json_string_value(json_object_get(m, "name")), name))
			return m;
	return NULL;
}

static const char *verdict_of(json_t *m)
{
	return json_string_value(json_object_get(m, "verdict"));
}

/*
 * A = {100, 104, 96, 100}, B = {90, 91, 89}: t = -5.7735026918962576,
 * df = 3.7099236641221374, p = 0.0056142925141455. The CIs (100 +- 5.20,
 * 90 +- 2.48) are disjoint: significant, 10% lower.
 */
static const double lower_a[] = { 100, 104, 96, 100 };
static const double lower_b[] = { 90, 91, 89 };
#define LOWER_P 0.00561429251414555

static void test_verdict_direction(void **state)
{
	static const struct {
		int direction;
		enum verdict down, up;
	} cases[] = {
		{ +1, VERDICT_WORSE, VERDICT_BETTER },
		{ -1, VERDICT_BETTER, VERDICT_WORSE },
		{ 0, VERDICT_LOWER, VERDICT_HIGHER },
	};
	struct metric_cmp c;
	struct agg a, b;
	size_t i;

	(void)state;
	agg_compute(lower_a, ARRAY_SIZE(lower_a), &a);
	agg_compute(lower_b, ARRAY_SIZE(lower_b), &b);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		compare__metric(&a, &b, cases[i].direction, &c);
		assert_true(c.significant);
		assert_int_equal(c.verdict, cases[i].down);
		assert_true(near(c.change, -0.1, 1e-12));
		assert_true(near(c.p, LOWER_P, 1e-6));
		compare__metric(&b, &a, cases[i].direction, &c);
		assert_int_equal(c.verdict, cases[i].up);
		assert_true(near(c.p, LOWER_P, 1e-6));
	}
	assert_string_equal(compare__verdict_name(VERDICT_UNKNOWN), "unknown");
	assert_string_equal(compare__verdict_name(VERDICT_BETTER), "better");
}

/* Each metric_defs direction, through a whole comparison of files. */
static void test_verdict_direction_files(void **state)
{
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *set;
	size_t k;

	(void)state;
	for (k = 0; k < NR_JUDGED; k++) {
		add_runs(a, "read", 4096 + (json_int_t)k, metric_defs[k].name, lower_a,
			 ARRAY_SIZE(lower_a));
		add_runs(b, "read", 4096 + (json_int_t)k, metric_defs[k].name, lower_b,
			 ARRAY_SIZE(lower_b));
	}
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	assert_non_null(cmp);
	assert_int_equal(json_array_size(json_object_get(cmp, "sets")), NR_JUDGED);
	for (k = 0; k < NR_JUDGED; k++) {
		const char *want = metric_defs[k].direction > 0	  ? "worse"
				   : metric_defs[k].direction < 0 ? "better"
								  : "lower";
		json_t *m;

		set = json_array_get(json_object_get(cmp, "sets"), k);
		m = find_metric(set, metric_defs[k].name);
		assert_non_null(m);
		/* Only the metric the runs hold is listed. */
		assert_int_equal(json_array_size(json_object_get(set, "metrics")), 1);
		assert_string_equal(verdict_of(m), want);
		assert_true(near(json_real_value(json_object_get(m, "p_value")), LOWER_P, 1e-6));
	}
	/* The flattened list carries the set's label. */
	assert_int_equal(json_array_size(json_object_get(cmp, "metrics")), NR_JUDGED);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(cmp, "metrics"), 0), "set")),
			    "read bs=4096");
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/*
 * Hand-made pairs with known Welch results:
 * {10, 12, 14} vs {20, 24, 28}: t = 4.6475800154489, df = 2.94117647058824,
 * p = 0.0196198257591929 < 0.05, a change of +100%: better, although the CIs (12 +- 4.97,
 * 24 +- 9.94) overlap (which made it "same" before: overlapping intervals are no test).
 * {10, 11, 12} vs {20, 21, 22}: t = 12.2474487139159, df = 4,
 * p = 0.000255216749441927, CIs 11 +- 2.48 and 21 +- 2.48: better.
 * One metric per set: a family of one, so the adjusted p is p.
 */
static void test_welch_known_pairs(void **state)
{
	static const double a1[] = { 10, 12, 14 }, b1[] = { 20, 24, 28 };
	static const double a2[] = { 10, 11, 12 }, b2[] = { 20, 21, 22 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *m;

	(void)state;
	add_runs(a, "read", 4096, "app.mb_per_s", a1, 3);
	add_runs(b, "read", 4096, "app.mb_per_s", b1, 3);
	add_runs(a, "read", 8192, "app.mb_per_s", a2, 3);
	add_runs(b, "read", 8192, "app.mb_per_s", b2, 3);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	assert_non_null(cmp);

	m = find_metric(json_array_get(json_object_get(cmp, "sets"), 0), "app.mb_per_s");
	assert_true(near(json_real_value(json_object_get(m, "p_value")), 0.0196198257591929, 1e-6));
	assert_true(
		near(json_real_value(json_object_get(m, "p_adjusted")), 0.0196198257591929, 1e-6));
	assert_true(json_is_true(json_object_get(m, "significant")));
	assert_string_equal(verdict_of(m), "better");
	assert_true(near(json_real_value(json_object_get(m, "change")), 1.0, 1e-12));

	m = find_metric(json_array_get(json_object_get(cmp, "sets"), 1), "app.mb_per_s");
	assert_true(
		near(json_real_value(json_object_get(m, "p_value")), 0.000255216749441927, 1e-5));
	assert_true(json_is_true(json_object_get(m, "significant")));
	assert_string_equal(verdict_of(m), "better");
	assert_true(near(json_real_value(json_object_get(m, "a")), 11, 1e-12));
	assert_true(near(json_real_value(json_object_get(m, "b")), 21, 1e-12));
	assert_true(near(json_real_value(json_object_get(m, "change")), 10.0 / 11, 1e-12));

	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(cmp, "summary"), "better")), 2);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(cmp, "summary"), "same")), 0);
	/* The test is stated in the document. */
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(cmp, "test"), "correction")),
		"holm");
	assert_true(json_real_value(json_object_get(json_object_get(cmp, "test"), "min_effect")) ==
		    COMPARE_MIN_EFFECT);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

static void test_single_repetition(void **state)
{
	static const double one[] = { 50 }, three[] = { 100, 101, 102 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *m;
	struct metric_cmp c;
	struct agg ga, gb;

	(void)state;
	agg_compute(one, 1, &ga);
	agg_compute(three, 3, &gb);
	compare__metric(&ga, &gb, +1, &c);
	assert_int_equal(c.verdict, VERDICT_UNKNOWN);
	assert_true(isnan(c.p));
	assert_false(c.significant);
	assert_true(near(c.change, 1.02, 1e-12));

	add_runs(a, "read", 4096, "app.mb_per_s", one, 1);
	add_runs(b, "read", 4096, "app.mb_per_s", three, 3);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	m = find_metric(json_array_get(json_object_get(cmp, "sets"), 0), "app.mb_per_s");
	assert_string_equal(verdict_of(m), "unknown");
	assert_true(json_is_null(json_object_get(m, "p_value")));
	assert_non_null(
		strstr(json_string_value(json_object_get(m, "reason")), "single repetition in A"));
	/* Unknown is not a regression, whatever the threshold. */
	assert_int_equal(regressions(cmp, 0, NULL), 0);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* Interleaved runs group by params; sets only one side has are listed, not dropped. */
static void test_matching(void **state)
{
	static const double v[] = { 1, 2 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *set;
	json_t *ua, *ub;

	(void)state;
	add_runs(a, "read", 4096, "app.mb_per_s", v, 1);
	add_runs(a, "read", 65536, "app.mb_per_s", v, 1);
	add_runs(a, "read", 4096, "app.mb_per_s", v + 1, 1);
	add_runs(a, "read", 65536, "app.mb_per_s", v + 1, 1);
	add_runs(b, "read", 131072, "app.mb_per_s", v, 2);
	add_runs(b, "write", 4096, "app.mb_per_s", v, 2);
	add_runs(b, "read", 4096, "app.mb_per_s", v, 2);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	assert_non_null(cmp);

	assert_int_equal(json_array_size(json_object_get(cmp, "sets")), 1);
	set = json_array_get(json_object_get(cmp, "sets"), 0);
	assert_string_equal(json_string_value(json_object_get(set, "label")), "read bs=4096");
	assert_string_equal(json_string_value(json_object_get(set, "matched_by")), "parameters");
	/* A's runs 0 and 2, B's 4 and 5. */
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(json_object_get(set, "runs"), "a"), 1)),
			 2);
	assert_int_equal(json_integer_value(json_array_get(
				 json_object_get(json_object_get(set, "runs"), "b"), 0)),
			 4);

	ua = json_object_get(json_object_get(cmp, "unmatched"), "a");
	ub = json_object_get(json_object_get(cmp, "unmatched"), "b");
	assert_int_equal(json_array_size(ua), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ua, 0), "label")),
			    "read bs=65536");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ua, 0), "runs")), 2);
	assert_int_equal(json_array_size(ub), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ub, 0), "label")),
			    "read bs=131072");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ub, 1), "label")),
			    "write bs=4096");
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* Runs without params (passive or command mode) match by their label. */
static const char by_label_a[] = "{\"schema\": \"blktrace-bench/1\", \"runs\": ["
				 "{\"label\": \"dd\", \"block\": {\"requests\": 10}},"
				 "{\"label\": \"fio\", \"block\": {\"requests\": 20}}]}";
static const char by_label_b[] = "{\"schema\": \"blktrace-bench/1\", \"runs\": ["
				 "{\"label\": \"fio\", \"block\": {\"requests\": 30}},"
				 "{\"label\": \"tar\", \"block\": {\"requests\": 40}}]}";

static void test_matching_by_label(void **state)
{
	json_t *a, *b, *cmp, *m;
	struct diag d = {};

	(void)state;
	assert_int_equal(load_string("a.json", by_label_a, &a, &d), 0);
	assert_int_equal(load_string("b.json", by_label_b, &b, &d), 0);
	cmp = build_json(a, b, "a.json", "b.json");
	assert_int_equal(json_array_size(json_object_get(cmp, "sets")), 1);
	m = find_metric(json_array_get(json_object_get(cmp, "sets"), 0), "block.requests");
	assert_true(near(json_number_value(json_object_get(m, "a")), 20, 0));
	assert_true(near(json_number_value(json_object_get(m, "b")), 30, 0));
	assert_string_equal(verdict_of(m), "unknown");
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(json_object_get(cmp, "unmatched"), "a"), 0),
			"label")),
		"dd");
	assert_string_equal(
		json_string_value(json_object_get(
			json_array_get(json_object_get(json_object_get(cmp, "unmatched"), "b"), 0),
			"label")),
		"tar");
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* One set in each file with different params: an intended A/B, paired and explained. */
static void test_only_set_in_each(void **state)
{
	static const double va[] = { 100, 101, 99 }, vb[] = { 900, 905, 895 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *set;
	json_t *pc;

	(void)state;
	add_runs(a, "read", 16384, "app.mb_per_s", va, 3);
	add_runs(b, "read", 524288, "app.mb_per_s", vb, 3);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	set = json_array_get(json_object_get(cmp, "sets"), 0);
	assert_non_null(set);
	assert_string_equal(json_string_value(json_object_get(set, "matched_by")),
			    "the only set in each file");
	pc = json_object_get(set, "param_changes");
	assert_int_equal(json_array_size(pc), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(pc, 0), "name")),
			    "bs");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(pc, 0), "b")), 524288);
	assert_string_equal(verdict_of(find_metric(set, "app.mb_per_s")), "better");
	assert_int_equal(json_array_size(json_object_get(json_object_get(cmp, "unmatched"), "a")),
			 0);
	/* B slower by 89%: a regression at 10%, not at 95%. */
	cmp_done(cmp);
	cmp = build_json(b, a, "b.json", "a.json");
	assert_int_equal(regressions(cmp, 10, NULL), 1);
	assert_int_equal(regressions(cmp, 95, NULL), 0);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* Only headline metrics fail a pipeline. */
static void test_regressions_headline_only(void **state)
{
	static const double va[] = { 100, 101, 99 }, vb[] = { 200, 201, 199 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp;

	(void)state;
	/* device p50 doubles: worse, but not a headline metric. */
	add_runs(a, "read", 4096, "block.device_ns.p50", va, 3);
	add_runs(b, "read", 4096, "block.device_ns.p50", vb, 3);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	assert_string_equal(verdict_of(find_metric(json_array_get(json_object_get(cmp, "sets"), 0),
						   "block.device_ns.p50")),
			    "worse");
	assert_int_equal(regressions(cmp, 0, NULL), 0);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);

	/* p99 latency doubling is a headline regression of 100%. */

	a = new_doc("blktrace-bench/1");
	b = new_doc("blktrace-bench/1");
	add_runs(a, "read", 4096, "app.latency_ns.p99", va, 3);
	add_runs(b, "read", 4096, "app.latency_ns.p99", vb, 3);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	assert_int_equal(regressions(cmp, 50, NULL), 1);
	assert_int_equal(regressions(cmp, 100, NULL), 0);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* Noisy repetitions of every metric, compared with themselves: same, p = 1. */
static void test_self_compare(void **state)
{
	static const double v[] = { 3, 5, 4, 7 };
	json_t *a = new_doc("blktrace-bench/1"), *cmp, *m;
	size_t k, i;

	(void)state;
	for (k = 0; k < NR_JUDGED; k++)
		add_runs(a, "read", 4096, metric_defs[k].name, v, ARRAY_SIZE(v));
	a = reload(a, "a.json");
	cmp = build_json(a, a, "a.json", "a.json");
	assert_non_null(cmp);
	assert_int_equal(json_array_size(json_object_get(cmp, "sets")), 1);
	assert_int_equal(json_array_size(json_object_get(cmp, "metrics")), NR_JUDGED);
	json_array_foreach(json_object_get(cmp, "metrics"), i, m) {
		assert_string_equal(verdict_of(m), "same");
		assert_true(json_real_value(json_object_get(m, "p_value")) == 1);
		assert_true(json_real_value(json_object_get(m, "change")) == 0);
	}
	assert_int_equal(json_array_size(json_object_get(cmp, "device_changes")), 0);
	assert_int_equal(
		json_integer_value(json_object_get(json_object_get(cmp, "summary"), "same")),
		NR_JUDGED);
	assert_int_equal(regressions(cmp, 0, NULL), 0);
	cmp_done(cmp);
	json_decref(a);
}

/* A validation across a reboot: what changed in the device, the driver and the kernel. */
static void test_device_changes(void **state)
{
	static const double v[] = { 1, 2 };
	json_t *a = new_doc("blktrace-bench/1"), *b = new_doc("blktrace-bench/1"), *cmp, *c;
	static const struct {
		const char *name, *a, *b;
	} want[] = {
		{ "max_segments", "11", "32" },
		{ "max_hw_sectors_kb", "44", "128" },
		{ "xen_blkfront.max_indirect_segments", "0", "32" },
		{ "kernel", "\"6.1\"", "\"6.6\"" },
	};
	size_t i;

	(void)state;
	json_object_set_new(a, "device",
			    json_pack("{s:s, s:s, s:{s:i, s:i, s:s}, s:{s:i}}", "name", "xvda",
				      "driver", "vbd", "limits", "max_segments", 11,
				      "max_hw_sectors_kb", 44, "scheduler", "none", "xen_blkfront",
				      "max_indirect_segments", 0));
	json_object_set_new(b, "device",
			    json_pack("{s:s, s:s, s:{s:i, s:i, s:s}, s:{s:i}}", "name", "xvda",
				      "driver", "vbd", "limits", "max_segments", 32,
				      "max_hw_sectors_kb", 128, "scheduler", "none", "xen_blkfront",
				      "max_indirect_segments", 32));
	json_object_set_new(json_object_get(b, "host"), "kernel", json_string("6.6"));
	add_runs(a, "read", 4096, "app.mb_per_s", v, 2);
	add_runs(b, "read", 4096, "app.mb_per_s", v, 2);
	a = reload(a, "a.json");
	b = reload(b, "b.json");
	cmp = build_json(a, b, "a.json", "b.json");
	c = json_object_get(cmp, "device_changes");
	assert_int_equal(json_array_size(c), ARRAY_SIZE(want));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		json_t *e = json_array_get(c, i);
		char *va = json_dumps(json_object_get(e, "a"), JSON_ENCODE_ANY);
		char *vb = json_dumps(json_object_get(e, "b"), JSON_ENCODE_ANY);

		assert_string_equal(json_string_value(json_object_get(e, "name")), want[i].name);
		assert_string_equal(va, want[i].a);
		assert_string_equal(vb, want[i].b);
		free(va);
		free(vb);
	}
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* An older schema, without "series": the aggregates come from the runs. */
static const char schema0[] =
	"{\"schema\": \"blktrace-bench/0\", \"tool_version\": \"0.0.1\",\n"
	" \"host\": {\"kernel\": \"6.1.0\"},\n"
	" \"runs\": [\n"
	"  {\"label\": \"write bs=1 MiB\", \"params\": {\"rw\": \"write\", \"bs\": 1048576},\n"
	"   \"app\": {\"mb_per_s\": 100}},\n"
	"  {\"label\": \"write bs=1 MiB\", \"params\": {\"rw\": \"write\", \"bs\": 1048576},\n"
	"   \"app\": {\"mb_per_s\": 102}},\n"
	"  {\"label\": \"write bs=1 MiB\", \"params\": {\"rw\": \"write\", \"bs\": 1048576},\n"
	"   \"app\": {\"mb_per_s\": 98}}]}\n";

static void test_old_schema(void **state)
{
	static const double v[] = { 150, 151, 149 };
	json_t *a, *b = new_doc("blktrace-bench/1"), *cmp, *m;
	struct diag d = {};
	size_t i;

	(void)state;
	assert_int_equal(load_string("old.json", schema0, &a, &d), 0);
	add_runs(b, "write", 1048576, "app.mb_per_s", v, 3);
	/* Same params, written by today's tool: the label text may differ, the params do not. */
	json_array_foreach(json_object_get(b, "runs"), i, m) {
		json_t *p = json_object_get(m, "params");

		json_object_set_new(m, "label", json_string("write bs=1 MiB"));
		json_object_del(p, "engine");
		json_object_del(p, "iodepth");
	}
	b = reload(b, "new.json");
	cmp = build_json(a, b, "old.json", "new.json");
	assert_non_null(cmp);
	m = find_metric(json_array_get(json_object_get(cmp, "sets"), 0), "app.mb_per_s");
	assert_non_null(m);
	assert_true(near(json_real_value(json_object_get(m, "a")), 100, 1e-12));
	assert_true(near(json_real_value(json_object_get(m, "change")), 0.5, 1e-12));
	assert_string_equal(verdict_of(m), "better");
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* Every broken file: refused, one line naming the file and the fault. */
static void test_broken_files(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		/* schema0 cut in the middle, as a full disk leaves it */
		{ NULL, "(truncated or edited?)" },
		{ "", "not valid JSON" },
		{ "[1, 2]", "top level is an array" },
		{ "{\"schema\": \"fio/3\", \"runs\": []}", "schema \"fio/3\"" },
		{ "{\"runs\": []}", "no \"schema\"" },
		{ "{\"schema\": 1, \"runs\": []}", "no \"schema\"" },
		{ "{\"schema\": \"blktrace-bench/2\", \"runs\": [{}]}", "newer" },
		{ "{\"schema\": \"blktrace-bench/1\", \"device\": {}}", "info --json" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": {}}", "\"runs\" is not an array" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": []}", "\"runs\" is empty" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": [3]}", "runs[0] is a number" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": [{\"app\": {}}]}",
		  "neither \"params\" nor \"label\"" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": [{\"label\": \"x\", \"app\": {}}]}",
		  "no run holds a metric" },
		{ "{\"schema\": \"blktrace-bench/1\", \"runs\": [], \"runs\": []}", "duplicate" },
		/* a control character in a string: the message must stay one line */
		{ "{\"schema\": \"blktrace-bench/1\",\n \"runs\": [{\"label\": \"a\nb\"}]}",
		  "line 2" },
	};
	char path[] = "/tmp/bb-test-compare-XXXXXX", truncated[256];
	struct diag d = {};
	json_t *doc = (json_t *)1;
	size_t i;
	int fd;

	(void)state;
	snprintf(truncated, sizeof(truncated), "%.*s", 200, schema0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *text = cases[i].text ?: truncated;

		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
		d.msg[0] = '\0';
		assert_true(load_file(path, &doc, &d) < 0);
		assert_null(doc);
		unlink(path);
		if (!strstr(d.msg, cases[i].want) || !strstr(d.msg, path) || strchr(d.msg, '\n'))
			fail_msg("case %zu: '%s' (want '%s')", i, d.msg, cases[i].want);
		assert_true(d.usage); /* what the file holds is bad input: exit 2 */
		memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	}
	/* A file that cannot be read is a runtime failure: exit 1. */
	assert_int_equal(load_file("/nonexistent/r.json", &doc, &d), -ENOENT);
	assert_string_equal(d.msg, "/nonexistent/r.json: No such file or directory");
	assert_false(d.usage);
	assert_int_equal(load_file("/tmp", &doc, &d), -EISDIR);
	assert_false(d.usage);
}

/*
 * Every field compare uses has its type and range checked; a wrong
 * one is refused (exit 2) in one line naming the file and the field, never dropped.
 */
static void test_wrong_fields_refused(void **state)
{
#define DOC(runs) "{\"schema\": \"blktrace-bench/1\", \"runs\": [" runs "]}"
#define RUN(x) "{\"label\": \"r\", \"app\": {\"mb_per_s\": 1}" x "}"
#define BK(b) RUN(", \"block\": {\"request_bytes\": {\"buckets\": [" b "]}}")
	/* A table of documents, a case a line or two: clang-format would break RUN(...). */
	// clang-format off
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ DOC("{\"label\": \"r\", \"app\": {\"mb_per_s\": \"fast\"}}"),
		  "runs[0].app.mb_per_s is a string, not a number" },
		{ DOC("{\"label\": \"r\", \"app\": {\"mb_per_s\": 1e308}}"),
		  "runs[0].app.mb_per_s = 1e+308 is out of range" },
		{ DOC("{\"label\": \"r\", \"app\": {\"iops\": -5}}"), "runs[0].app.iops = -5" },
		{ DOC("{\"label\": \"r\", \"app\": 5}"), "runs[0].app is a number, not an object" },
		{ DOC("{\"label\": \"r\", \"block\": {\"limit_bound\": {\"max_sectors\": 2}}}"),
		  "limit_bound.max_sectors = 2 is out of range (0 to 1)" },
		{ DOC("{\"label\": 5, \"app\": {\"mb_per_s\": 1}}"), "runs[0].label is a number" },
		{ DOC("{\"params\": [], \"app\": {\"mb_per_s\": 1}}"),
		  "runs[0].params is an array" },
		{ DOC(BK("{\"lo\": 528384, \"hi\": 524288, \"count\": 1}")),
		  "buckets[0]: lo 528384 is not below hi 524288" },
		{ DOC(BK("{\"lo\": 4096, \"hi\": 8192, \"count\": 1}, {\"lo\": 0, \"hi\": 512, "
			 "\"count\": 1}")),
		  "buckets[1]: lo 0 overlaps" },
		{ DOC(BK("{\"lo\": \"a\", \"hi\": 1, \"count\": 1}")),
		  "request_bytes.buckets[0].lo is a string, not an integer" },
		{ DOC(BK("{\"lo\": 1, \"hi\": 2}")), "buckets[0].count is missing" },
		{ DOC(BK("{\"lo\": 1, \"hi\": 2, \"count\": -1}")), "count = -1 is negative" },
		{ DOC(BK("3")), "buckets[0] is a number, not an object" },
		{ DOC(RUN(", \"block\": {\"segments\": {\"buckets\": 3}}")),
		  "runs[0].block.segments.buckets is a number, not an array" },
		{ DOC(RUN(", \"block\": {\"segments\": 3}")),
		  "runs[0].block.segments is a number" },
		{ "{\"schema\": \"blktrace-bench/1\", \"device\": 7, \"runs\": [" RUN("") "]}",
		  "\"device\" is a number, not an object" },
		{ "{\"schema\": \"blktrace-bench/1\", \"host\": {\"kernel\": 6}, \"runs\": ["
		  RUN("") "]}", "\"host.kernel\" is a number, not a string" },
		{ "{\"schema\": \"blktrace-bench/1\", \"device\": {\"limits\": 1}, \"runs\": ["
		  RUN("") "]}", "\"device.limits\" is a number, not an object" },
	};
	// clang-format on
	struct diag d = {};
	json_t *doc;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		d.msg[0] = '\0';
		doc = (json_t *)1;
		assert_true(load_string("odd.json", cases[i].text, &doc, &d) < 0);
		assert_null(doc);
		if (!strstr(d.msg, cases[i].want) || strncmp(d.msg, "odd.json: ", 10) ||
		    strchr(d.msg, '\n'))
			fail_msg("case %zu: '%s' (want '%s')", i, d.msg, cases[i].want);
		assert_true(d.usage);
	}
#undef BK
#undef RUN
#undef DOC
}

/* Absent fields are fine (old files); the open last bucket and tiny A values too. */
static void test_odd_but_valid(void **state)
{
	static const char odd[] =
		"{\"schema\": \"blktrace-bench/1\", \"series\": [{\"x\": [1, {\"y\": \"]}\"}]}],"
		" \"runs\": [{\"label\": \"x\", \"app\": {\"mb_per_s\": 1e-300}, \"block\": "
		"{\"request_bytes\": {\"buckets\": [{\"lo\": 0, \"hi\": 512, \"count\": 2},"
		" {\"lo\": 2147483648, \"hi\": null, \"count\": 1}]}}}, {\"label\": \"x\", \"app\":"
		" {\"mb_per_s\": 1e-300}}]}";
	static const char odd_b[] =
		"{\"schema\": \"blktrace-bench/1\", \"runs\": [{\"label\": \"x\", \"app\":"
		" {\"mb_per_s\": 9e18}}, {\"label\": \"x\", \"app\": {\"mb_per_s\": 9e18}}]}";
	json_t *a, *b, *cmp;
	char *text = NULL, *line;
	struct diag d = {};
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(load_string("odd.json", odd, &a, &d), 0);
	assert_int_equal(load_string("odd_b.json", odd_b, &b, &d), 0);
	cmp = build_json(a, b, "odd.json", "odd_b.json");
	assert_non_null(cmp);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	compare_text__print(f, &built_of(cmp)->c);
	fclose(f);
	/* A change of 9e320%: the column holds an exponent, not 320 digits. */
	line = strstr(text, "  app.mb_per_s");
	assert_non_null(line);
	assert_true(strcspn(line, "\n") < 110);
	free(text);
	cmp_done(cmp);
	json_decref(a);
	json_decref(b);
}

/* --fail-on-regression: a plain percentage, and only for compare. */
static void test_fail_on_regression_option(void **state)
{
	static const char *const bad[] = { "abc", "-1", "0x10", "inf", "1.2.3", "5%%", "" };
	char *argv[] = { "compare", "a.json", "b.json", "--fail-on-regression", NULL, NULL };
	struct options o;
	struct diag d = {};
	size_t i;

	(void)state;
	argv[4] = "12.5";
	assert_int_equal(cli_parse("compare", 5, argv, &o, &d), 0);
	assert_true(o.fail_on_regression_set);
	assert_true(o.fail_on_regression == 12.5);
	assert_int_equal(o.nr_positional, 2);
	argv[4] = "5%";
	assert_int_equal(cli_parse("compare", 5, argv, &o, &d), 0);
	assert_true(o.fail_on_regression == 5);
	assert_int_equal(cli_parse("compare", 3, argv, &o, &d), 0);
	assert_false(o.fail_on_regression_set);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		argv[4] = (char *)bad[i];
		assert_int_equal(cli_parse("compare", 5, argv, &o, &d), -EINVAL);
	}
	/* In trace, the first word that is not an option starts the command: none here. */
	argv[1] = "--fail-on-regression";
	argv[2] = "10";
	assert_int_equal(cli_parse("trace", 3, argv, &o, &d), -EINVAL);
}

/*
 * Normal samples from a fixed seed (splitmix64, Box-Muller): every run of the test draws
 * the same numbers, so its answers are known.
 */
static uint64_t rng = 0x5eed;

static double uniform01(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static void normal_agg(double mean, double sd, size_t n, struct agg *out)
{
	double x[64];
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = mean + sd * sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
	agg_compute(x, n, out);
}

/* Share of trials whose verdict is v, samples of n from N(ma, sd) and N(mb, sd). */
static double verdict_rate(double ma, double mb, double sd, size_t n, enum verdict v)
{
	size_t trial, hits = 0, trials = 2000;
	struct metric_cmp c;
	struct agg a, b;

	for (trial = 0; trial < trials; trial++) {
		normal_agg(ma, sd, n, &a);
		normal_agg(mb, sd, n, &b);
		compare__metric(&a, &b, +1, &c);
		hits += c.verdict == v;
	}
	return (double)hits / trials;
}

/*
 * The test on samples with known answers (one metric, higher is better, 5 runs a side):
 * the same distribution is called better or worse in about 5% of trials (Welch's test
 * is exact for normal samples); a drop of 3 standard deviations is caught nearly always;
 * a 2% change, however tight the repetitions, is below the minimum effect: same.
 */
static void test_known_normal_samples(void **state)
{
	double rate;

	(void)state;
	rate = verdict_rate(100, 100, 10, 5, VERDICT_WORSE) +
	       verdict_rate(100, 100, 10, 5, VERDICT_BETTER);
	if (rate < 0.035 || rate > 0.065)
		fail_msg("no difference: called one in %.3f of the trials (want about 0.05)", rate);
	rate = verdict_rate(100, 70, 10, 5, VERDICT_WORSE);
	if (rate < 0.95)
		fail_msg("-30%% at sd 10: worse in only %.3f of the trials", rate);
	assert_true(verdict_rate(100, 102, 0.1, 10, VERDICT_SAME) == 1.0);
	assert_true(verdict_rate(100, 110, 0.1, 10, VERDICT_BETTER) == 1.0);
}

/* A run summary of "read bs=4096" holding the headline metrics' values. */
static void headline_run(struct run_summary *r, double mbps, double iops, double p99)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "read bs=4096");
	snprintf(r->params.rw, sizeof(r->params.rw), "read");
	snprintf(r->params.engine, sizeof(r->params.engine), "psync");
	r->params.bs = 4096;
	r->params.iodepth = 1;
	r->has_app = true;
	r->metric[METRIC_APP_MB_PER_S] = mbps;
	r->metric[METRIC_APP_IOPS] = iops;
	r->metric[METRIC_APP_LAT_P99] = p99;
	r->has_metric[METRIC_APP_MB_PER_S] = r->has_metric[METRIC_APP_IOPS] = true;
	r->has_metric[METRIC_APP_LAT_P99] = true;
}

/* The comparison of 5 runs a side, A's and B's headline values given per run. */
static void compare_headline(const double (*a)[3], const double (*b)[3], struct comparison *c,
			     struct loaded_result *la, struct loaded_result *lb)
{
	size_t i;

	memset(la, 0, sizeof(*la));
	memset(lb, 0, sizeof(*lb));
	la->runs = test_calloc(5, sizeof(*la->runs));
	lb->runs = test_calloc(5, sizeof(*lb->runs));
	la->header = json_object();
	lb->header = json_object();
	la->nr_runs = lb->nr_runs = 5;
	la->has_runs = lb->has_runs = true;
	for (i = 0; i < 5; i++) {
		headline_run(&la->runs[i], a[i][0], a[i][1], a[i][2]);
		headline_run(&lb->runs[i], b[i][0], b[i][1], b[i][2]);
	}
	assert_int_equal(compare__build(c, la, lb, "A", "B"), 0);
	assert_int_equal(c->nr_sets, 1);
	assert_int_equal(c->sets[0].nr_m, 3);
}

static void free_headline(struct comparison *c, struct loaded_result *la, struct loaded_result *lb)
{
	compare__free(c);
	test_free(la->runs);
	test_free(lb->runs);
	json_decref(la->header);
	json_decref(lb->header);
}

static const struct metric_cmp *cmp_of(const struct comparison *c, enum metric_id id)
{
	size_t i;

	for (i = 0; i < c->sets[0].nr_m; i++)
		if (c->sets[0].m[i].id == id)
			return &c->sets[0].m[i].cmp;
	fail_msg("metric %d not judged", id);
	return NULL;
}

/*
 * The case: MB/s -46.8% (and IOPS with it) at raw p of about 0.014, the 95%
 * intervals overlapping (the old rule's "same"), the p99 unchanged: Holm over the three
 * headline metrics multiplies the smallest p by 3, 0.043: worse. Three changes each at
 * p of about 0.03 are no longer significant as a family: 3 x 0.03 > 0.05.
 */
static void test_holm_families(void **state)
{
	static const double a1[5][3] = { { 1000, 1000, 50 },
					 { 1300, 1300, 60 },
					 { 700, 700, 40 },
					 { 1150, 1150, 55 },
					 { 850, 850, 45 } };
	static const double b1[5][3] = { { 532, 532, 45 },
					 { 832, 832, 65 },
					 { 232, 232, 50 },
					 { 682, 682, 40 },
					 { 382, 382, 60 } };
	static const double a2[5][3] = { { 100, 100, 100 },
					 { 110, 110, 110 },
					 { 90, 90, 90 },
					 { 105, 105, 105 },
					 { 95, 95, 95 } };
	static const double b2[5][3] = {
		{ 87, 87, 113 }, { 97, 97, 123 }, { 77, 77, 103 }, { 92, 92, 118 }, { 82, 82, 108 }
	};
	const struct metric_cmp *mb, *iops, *p99;
	struct loaded_result la, lb;
	struct comparison c;

	(void)state;
	compare_headline(a1, b1, &c, &la, &lb);
	mb = cmp_of(&c, METRIC_APP_MB_PER_S);
	iops = cmp_of(&c, METRIC_APP_IOPS);
	p99 = cmp_of(&c, METRIC_APP_LAT_P99);
	assert_true(near(mb->change, -0.468, 1e-9));
	assert_true(mb->p < 0.05 && mb->p > 0.01);
	/* Holm: 3 x the smallest, and the next one no smaller (ties: the same value). */
	assert_true(near(mb->p_adj, 3 * mb->p, 1e-9));
	assert_true(near(iops->p_adj, mb->p_adj, 1e-9));
	assert_true(near(p99->p_adj, p99->p, 1e-9) && p99->p > 0.5);
	assert_int_equal(mb->verdict, VERDICT_WORSE);
	assert_int_equal(iops->verdict, VERDICT_WORSE);
	assert_int_equal(p99->verdict, VERDICT_SAME);
	free_headline(&c, &la, &lb);

	compare_headline(a2, b2, &c, &la, &lb);
	mb = cmp_of(&c, METRIC_APP_MB_PER_S);
	p99 = cmp_of(&c, METRIC_APP_LAT_P99);
	assert_true(mb->p < 0.05 && 3 * mb->p > 0.05);
	assert_true(near(mb->p_adj, fmin(1, 3 * mb->p), 1e-9));
	assert_int_equal(mb->verdict, VERDICT_SAME);
	assert_int_equal(p99->verdict, VERDICT_SAME);
	assert_int_equal(c.counts[VERDICT_SAME], 3);
	free_headline(&c, &la, &lb);
}

/* Larger requests or segments are neither better nor worse by themselves. */
static void test_size_metrics_have_no_direction(void **state)
{
	(void)state;
	assert_int_equal(metric_defs[METRIC_REQ_BYTES_MEAN].direction, 0);
	assert_int_equal(metric_defs[METRIC_REQ_BYTES_P50].direction, 0);
	assert_int_equal(metric_defs[METRIC_SEGMENT_BYTES_MEAN].direction, 0);
	assert_int_equal(metric_defs[METRIC_SEGMENTS_MEAN].direction, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_direction),
		cmocka_unit_test(test_verdict_direction_files),
		cmocka_unit_test(test_welch_known_pairs),
		cmocka_unit_test(test_single_repetition),
		cmocka_unit_test(test_matching),
		cmocka_unit_test(test_matching_by_label),
		cmocka_unit_test(test_only_set_in_each),
		cmocka_unit_test(test_regressions_headline_only),
		cmocka_unit_test(test_self_compare),
		cmocka_unit_test(test_device_changes),
		cmocka_unit_test(test_old_schema),
		cmocka_unit_test(test_broken_files),
		cmocka_unit_test(test_wrong_fields_refused),
		cmocka_unit_test(test_odd_but_valid),
		cmocka_unit_test(test_fail_on_regression_option),
		cmocka_unit_test(test_known_normal_samples),
		cmocka_unit_test(test_holm_families),
		cmocka_unit_test(test_size_metrics_have_no_direction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
