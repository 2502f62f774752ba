// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The tuning engine against a model disk whose throughput per configuration is known:
 * it recommends the known optimum, the smallest value as good as the best, nothing when
 * nothing is better; it adds repetitions exactly while the intervals overlap; it keeps
 * to the budget (on a model clock) and leaves room for the knobs still to come; it
 * measures and keeps, or drops, the combination; a signal ends it with a decision on
 * the runs so far.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/diag.h"
#include "tune/tune.h"

/* The model: throughput = base + the gain of each knob's value (+ an interaction). */
struct model {
	const char *values[2][5]; /* per knob: its values, [0] the original */
	double gain[2][5];	  /* MB/s each value adds */
	double both;		  /* added when both knobs are off their originals */
	double base, sd;
	double run_s, clock;	     /* each run costs run_s on the model clock */
	unsigned int calls, fail_at; /* measure fails with -EINTR at call fail_at (0: never) */
	unsigned long long seed;
	size_t runs;
};

/* A standard normal draw from a fixed stream (Box-Muller over an LCG): reproducible. */
static double normal(struct model *m)
{
	double u1, u2;

	m->seed = m->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	u1 = ((m->seed >> 11) + 1.0) / 9007199254740993.0;
	m->seed = m->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	u2 = (m->seed >> 11) / 9007199254740992.0;
	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

static int index_of(const struct model *m, int k, const char *v)
{
	int i;

	for (i = 0; v && i < 5 && m->values[k][i]; i++)
		if (!strcmp(m->values[k][i], v))
			return i;
	return 0; /* NULL: as found */
}

static int measure(void *ctx, const char *const *values, const char *knob, const char *value,
		   unsigned int rep, double *mbps, size_t *run, struct diag *d)
{
	struct model *m = ctx;
	int a = index_of(m, 0, values[0]), b = index_of(m, 1, values[1]);

	(void)knob, (void)value, (void)rep, (void)d;
	if (m->fail_at && ++m->calls == m->fail_at)
		return -EINTR;
	m->clock += m->run_s;
	*mbps = m->base + m->gain[0][a] + m->gain[1][b] + (a && b ? m->both : 0) +
		m->sd * normal(m);
	*run = m->runs++;
	return 0;
}

static double now(void *ctx)
{
	return ((struct model *)ctx)->clock;
}

/* Knob k of t from the model: its original and values. */
static void knob(struct tune *t, const struct model *m, int k, const char *name)
{
	struct tune_knob *kb = &t->knobs[k];
	int i;

	snprintf(kb->name, sizeof(kb->name), "%s", name);
	snprintf(kb->original, sizeof(kb->original), "%s", m->values[k][0]);
	for (i = 1; i < 5 && m->values[k][i]; i++)
		snprintf(kb->values[kb->nr_values++], TUNE_VALUE_MAX, "%s", m->values[k][i]);
	t->nr_knobs = k + 1 > t->nr_knobs ? k + 1 : t->nr_knobs;
}

static int run(struct tune *t, struct model *m)
{
	const struct tune_ops ops = { measure, now, m };
	static volatile sig_atomic_t stop;
	struct diag d = {};

	m->seed = m->seed ? m->seed : 42;
	m->run_s = m->run_s ? m->run_s : 1;
	return tune__run(t, &ops, &stop, &d);
}

/* The point of knob k's recommended value, or "" when it keeps the original. */
static const char *recommended(const struct tune *t, int k)
{
	return t->knobs[k].recommended > 0 ? t->points[t->knobs[k].recommended].value : "";
}

static struct tune *new_tune(void)
{
	struct tune *t = test_calloc(1, sizeof(*t));

	tune__init(t);
	return t;
}

static void test_known_optimum(void **state)
{
	struct model m = { .values = { { "44", "64", "128", "1280" } },
			   .gain = { { 0, 500, 1000, 2000 } },
			   .base = 1000,
			   .sd = 20 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	assert_int_equal(run(t, &m), 0);
	assert_int_equal(t->stop, TUNE_COMPLETE);
	assert_string_equal(recommended(t, 0), "1280");
	assert_int_equal(t->final, t->knobs[0].recommended);
	assert_int_equal(t->points[t->final].vs_baseline.verdict, VERDICT_BETTER);
	/* Apart from the start: no adaptive repetitions were needed. */
	assert_int_equal(t->points[t->final].n, 3);
	assert_int_equal(t->nr_runs, 12);
	assert_int_equal(t->combination, -1);
	test_free(t);
}

static void test_smallest_as_good(void **state)
{
	struct model m = { .values = { { "44", "512", "1024", "1280" } },
			   .gain = { { 0, 2000, 2000, 2000 } },
			   .base = 1000,
			   .sd = 50 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	assert_int_equal(run(t, &m), 0);
	assert_string_equal(recommended(t, 0), "512");
	assert_non_null(strstr(t->knobs[0].reason, "max_sectors_kb=512: +"));
	test_free(t);
}

static void test_nothing_better(void **state)
{
	struct model m = { .values = { { "none", "mq-deadline", "bfq" } }, .base = 1000, .sd = 1 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "scheduler");
	assert_int_equal(run(t, &m), 0);
	assert_string_equal(recommended(t, 0), "");
	assert_int_equal(t->final, 0);
	assert_non_null(strstr(t->knobs[0].reason, "no value measured significantly better "
						   "than none"));
	test_free(t);
}

/* Close values get repetitions until max_reps; values far apart stay at min_reps. */
static void test_adaptive(void **state)
{
	struct model close = {
		.values = { { "0", "1" } }, .gain = { { 0, 5 } }, .base = 1000, .sd = 30
	};
	struct model apart = {
		.values = { { "0", "1" } }, .gain = { { 0, 900 } }, .base = 1000, .sd = 10
	};
	struct tune *t = new_tune();

	(void)state;
	knob(t, &close, 0, "nomerges");
	assert_int_equal(run(t, &close), 0);
	assert_int_equal(t->points[0].n, TUNE_MAX_REPS);
	assert_int_equal(t->points[1].n, TUNE_MAX_REPS);
	assert_true(fabs(t->points[0].agg.mean - t->points[1].agg.mean) <=
		    t->points[0].agg.ci95 + t->points[1].agg.ci95);
	test_free(t);
	t = new_tune();
	knob(t, &apart, 0, "nomerges");
	assert_int_equal(run(t, &apart), 0);
	assert_int_equal(t->points[0].n, 3);
	assert_int_equal(t->points[1].n, 3);
	test_free(t);
}

/* 1 s a run, 12 s: the baseline and one knob's first runs fit, the second knob's do not. */
static void test_budget(void **state)
{
	struct model m = { .values = { { "44", "64", "128" }, { "none", "bfq", "kyber" } },
			   .gain = { { 0, 500, 900 }, { 0, 0, 0 } },
			   .base = 1000,
			   .sd = 20 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	knob(t, &m, 1, "scheduler");
	t->budget_s = 12;
	assert_int_equal(run(t, &m), 0);
	assert_int_equal(t->stop, TUNE_STOP_BUDGET);
	assert_true(t->elapsed_s <= t->budget_s);
	assert_true(t->knobs[0].measured);
	assert_false(t->knobs[1].measured);
	assert_non_null(strstr(t->note, "budget"));
	assert_non_null(strstr(t->note, "scheduler"));
	assert_string_equal(recommended(t, 0), "128");
	test_free(t);
}

/*
 * Room kept for the knobs to come: the first knob's values overlap (adaptive repetitions
 * would take 14 more runs), yet the second knob's phase still gets its first 6 and the
 * combination's 9 stay reserved: 3 adaptive runs fit in 24 s.
 */
static void test_budget_reserve(void **state)
{
	struct model m = { .values = { { "0", "1" }, { "none", "bfq" } },
			   .gain = { { 0, 5 }, { 0, 800 } },
			   .base = 1000,
			   .sd = 30 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "nomerges");
	knob(t, &m, 1, "scheduler");
	t->budget_s = 24;
	assert_int_equal(run(t, &m), 0);
	assert_true(t->knobs[1].measured);
	/* It did adapt, within what was left: 6 + 3 adaptive runs + the second phase's 6. */
	assert_true(t->points[1].n > 3);
	assert_int_equal(t->nr_runs, 15);
	assert_string_equal(recommended(t, 1), "bfq");
	assert_true(t->elapsed_s <= t->budget_s);
	test_free(t);
}

static void test_combination(void **state)
{
	struct model m = { .values = { { "44", "1280" }, { "128", "2048" } },
			   .gain = { { 0, 800 }, { 0, 600 } },
			   .base = 1000,
			   .sd = 20 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	knob(t, &m, 1, "read_ahead_kb");
	assert_int_equal(run(t, &m), 0);
	assert_true(t->combination > 0);
	assert_int_equal(t->final, t->combination);
	assert_int_equal(t->points[t->combination].knob, TUNE_COMBINATION);
	/* Each phase judged against its own baseline: 2 knob phases, 1 combination phase. */
	assert_int_equal(t->points[t->combination].base, 4);
	assert_int_equal(t->points[4].knob, TUNE_BASELINE);
	assert_int_equal(t->points[1].base, 0);
	assert_int_equal(t->points[3].base, 2);
	assert_string_equal(t->points[t->combination].value,
			    "max_sectors_kb=1280,read_ahead_kb=2048");
	assert_true(t->points[t->final].agg.mean > 2200);
	test_free(t);
}

/* Each helps alone, together they hurt: the best single knob is recommended. */
static void test_combination_worse(void **state)
{
	struct model m = { .values = { { "44", "1280" }, { "128", "2048" } },
			   .gain = { { 0, 800 }, { 0, 600 } },
			   .both = -1400,
			   .base = 1000,
			   .sd = 20 };
	struct tune *t = new_tune();
	const char *values[TUNE_MAX_KNOBS];

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	knob(t, &m, 1, "read_ahead_kb");
	assert_int_equal(run(t, &m), 0);
	assert_true(t->combination > 0);
	/* The single knob measured again beside the combination and its baseline. */
	assert_int_equal(t->points[t->final].knob, 0);
	assert_int_equal(t->points[t->final].base, t->points[t->combination].base);
	tune__point_values(t, &t->points[t->final], values);
	assert_string_equal(values[0], "1280");
	assert_null(values[1]);
	test_free(t);
}

static void test_interrupted(void **state)
{
	struct model m = { .values = { { "44", "64", "1280" } },
			   .gain = { { 0, 500, 2000 } },
			   .base = 1000,
			   .sd = 20,
			   .fail_at = 8 };
	struct tune *t = new_tune();

	(void)state;
	knob(t, &m, 0, "max_sectors_kb");
	assert_int_equal(run(t, &m), -EINTR);
	assert_int_equal(t->stop, TUNE_STOP_INTERRUPTED);
	assert_int_equal(t->nr_runs, 7);
	assert_false(t->knobs[0].measured);
	/* Decided on the runs so far: two of each value, interleaved, were enough. */
	assert_int_equal(t->points[2].n, 2);
	assert_string_equal(recommended(t, 0), "1280");
	assert_int_equal(t->final, 2);
	test_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_optimum),  cmocka_unit_test(test_smallest_as_good),
		cmocka_unit_test(test_nothing_better), cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_budget),	       cmocka_unit_test(test_budget_reserve),
		cmocka_unit_test(test_combination),    cmocka_unit_test(test_combination_worse),
		cmocka_unit_test(test_interrupted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
