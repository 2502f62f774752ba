// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Statistics of repetitions. The oracles are independent of src/base/stats.c: hand
 * arithmetic, the published t table, closed forms of the t distribution for
 * integer df (Abramowitz & Stegun 26.7.3-4, a finite trigonometric sum) and, for
 * fractional df, Simpson's rule on the t density.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <linux/types.h>

#include "base/stats.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* |got - want| <= abs_tol + rel_tol * |want|; prints both on failure. */
static bool near(double got, double want, double abs_tol, double rel_tol)
{
	if (fabs(got - want) <= abs_tol + rel_tol * fabs(want))
		return true;
	print_error("got %.17g, want %.17g (abs %g, rel %g)\n", got, want, abs_tol, rel_tol);
	return false;
}

/*
 * Two-sided p of Student's t for integer nu, A&S 26.7.3 (odd) and 26.7.4 (even):
 * with theta = atan(t / sqrt(nu)), A(t|nu) is a finite sum in sin and cos theta,
 * and p = 1 - A. Only good while p is not tiny (1 - A cancels).
 */
static double as_p_two_sided(double t, int nu)
{
	double th = atan(fabs(t) / sqrt(nu)), s = sin(th), c = cos(th), c2 = c * c;
	double sum = 1, term = 1;
	int j;

	if (nu % 2) {
		if (nu == 1)
			return 1 - 2 * th / M_PI;
		for (j = 2; j <= nu - 3; j += 2) {
			term *= c2 * j / (j + 1);
			sum += term;
		}
		return 1 - 2 / M_PI * (th + s * c * sum);
	}
	for (j = 1; j <= nu - 3; j += 2) {
		term *= c2 * j / (j + 1);
		sum += term;
	}
	return 1 - s * sum;
}

/* p = 1 - 2 * integral_0^t of the t density, by Simpson's rule: any real nu. */
static double simpson_p_two_sided(double t, double nu)
{
	const int n = 20000;
	double lc = lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * M_PI);
	double h = fabs(t) / n, sum = 0, u, f;
	int i;

	for (i = 0; i <= n; i++) {
		u = i * h;
		f = exp(lc - (nu + 1) / 2 * log1p(u * u / nu));
		sum += f * (i == 0 || i == n ? 1 : i % 2 ? 4 : 2);
	}
	return 1 - 2 * sum * h / 3;
}

static void test_agg_basic(void **state)
{
	/* mean 40/8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32; s^2 = 32/7. */
	static const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct agg a;

	(void)state;
	agg_compute(x, ARRAY_SIZE(x), &a);
	assert_int_equal(a.n, 8);
	assert_true(near(a.mean, 5, 0, 1e-15));
	assert_true(near(a.stddev, 2.1380899352993950, 0, 1e-14));
	assert_true(a.min == 2);
	assert_true(a.max == 9);
	/* t(0.975, 7) = 2.36462425 (table) times s / sqrt(8) = sqrt(4/7). */
	assert_true(near(a.ci95, 2.36462425 * sqrt(4.0 / 7), 1e-8, 0));
}

/* Far from zero, a one-pass sum of squares would lose every digit; two passes do not. */
static void test_agg_offset(void **state)
{
	static const double d[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	double x[ARRAY_SIZE(d)];
	struct agg a;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(d); i++)
		x[i] = 1e12 + d[i];
	agg_compute(x, ARRAY_SIZE(x), &a);
	assert_true(near(a.mean, 1e12 + 5, 0, 1e-15));
	assert_true(near(a.stddev, sqrt(32.0 / 7), 0, 1e-12));
}

static void test_agg_small_n(void **state)
{
	static const double one = 3.5;
	struct agg a;

	(void)state;
	agg_compute(NULL, 0, &a);
	assert_int_equal(a.n, 0);
	assert_true(a.mean == 0 && a.stddev == 0 && a.ci95 == 0);
	agg_compute(&one, 1, &a);
	assert_int_equal(a.n, 1);
	assert_true(a.mean == 3.5 && a.min == 3.5 && a.max == 3.5);
	assert_true(a.stddev == 0 && a.ci95 == 0);
}

/*
 * n = 2, {1, 3}: mean 2, s = sqrt(2), ci = t(0.975, 1) * sqrt(2) / sqrt(2), and
 * t(0.975, 1) = tan(0.475 pi) in closed form (the Cauchy quantile).
 * n = 5, {1..5}: mean 3, s^2 = 10/4, ci = t(0.975, 4) * sqrt(2.5 / 5).
 */
static void test_agg_ci95(void **state)
{
	static const double x2[] = { 1, 3 };
	static const double x5[] = { 1, 2, 3, 4, 5 };
	struct agg a;

	(void)state;
	agg_compute(x2, 2, &a);
	assert_true(near(a.mean, 2, 0, 1e-15));
	assert_true(near(a.stddev, M_SQRT2, 0, 1e-15));
	assert_true(near(a.ci95, tan(0.475 * M_PI), 0, 1e-12));
	assert_true(near(a.ci95, 12.7062047, 1e-7, 0));
	agg_compute(x5, 5, &a);
	assert_true(near(a.mean, 3, 0, 1e-15));
	assert_true(near(a.stddev, sqrt(2.5), 0, 1e-15));
	assert_true(near(a.ci95, 2.77644511 * sqrt(0.5), 1e-8, 0));
}

static void test_t_quantile_table(void **state)
{
	/* Two-sided 95% critical values as printed in t tables. */
	static const struct {
		double df, q;
	} tab[] = {
		{ 1, 12.7062047 },  { 2, 4.30265273 },	{ 3, 3.18244631 },
		{ 4, 2.77644511 },  { 5, 2.57058184 },	{ 7, 2.36462425 },
		{ 10, 2.22813885 }, { 30, 2.04227246 }, { 1000, 1.96233908 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(tab); i++)
		assert_true(near(student_t_q975(tab[i].df), tab[i].q, 6e-8, 0));
	/* Closed forms: Cauchy tan(0.475 pi); df = 2 solves t / sqrt(2 + t^2) = 0.95. */
	assert_true(near(student_t_q975(1), tan(0.475 * M_PI), 0, 1e-13));
	assert_true(near(student_t_q975(2), sqrt(1.805 / 0.0975), 0, 1e-13));
	/* The normal quantile 1.959963984540054 is the limit. */
	assert_true(near(student_t_q975(1e12), 1.959963984540054, 1e-11, 0));
}

/* Fractional df: the quantile is where the Simpson-integrated tail is 5%. */
static void test_t_quantile_fractional(void **state)
{
	static const double dfs[] = { 0.7, 1.5, 25.0 / 17, 2.5, 7.3, 40.5 };
	double q, prev = INFINITY;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dfs); i++) {
		q = student_t_q975(dfs[i]);
		assert_true(near(simpson_p_two_sided(q, dfs[i]), 0.05, 1e-10, 0));
	}
	/* Heavier tails, wider quantiles: decreasing in df, down to the normal's. */
	for (i = 1; i <= 64; i++) {
		q = student_t_q975(i * 0.5);
		assert_true(q < prev);
		assert_true(q > 1.959963984540054);
		prev = q;
	}
	assert_true(isnan(student_t_q975(0)));
	assert_true(isnan(student_t_q975(-1)));
}

static void test_t_p_known(void **state)
{
	(void)state;
	/* Published: t = 2.0, df = 10 gives a two-sided p of 0.0733880. */
	assert_true(near(student_t_p_two_sided(2.0, 10), 0.0733880, 6e-8, 0));
	assert_true(near(student_t_p_two_sided(-2.0, 10), 0.0733880, 6e-8, 0));
	assert_true(near(student_t_p_two_sided(12.7062047, 1), 0.05, 1e-9, 0));
	assert_true(near(student_t_p_two_sided(2.22813885, 10), 0.05, 1e-9, 0));
	/* df = 1 is Cauchy, df = 2 has p = 1 - t / sqrt(2 + t^2). */
	assert_true(near(student_t_p_two_sided(3, 1), 1 - 2 * atan(3) / M_PI, 0, 1e-13));
	assert_true(near(student_t_p_two_sided(3, 2), 1 - 3 / sqrt(11), 0, 1e-13));
	assert_true(student_t_p_two_sided(0, 5) == 1);
	assert_true(student_t_p_two_sided(INFINITY, 5) == 0);
	assert_true(student_t_p_two_sided(-INFINITY, 0.5) == 0);
	assert_true(isnan(student_t_p_two_sided(1, 0)));
	assert_true(isnan(student_t_p_two_sided(NAN, 3)));
}

static void test_t_p_closed_form(void **state)
{
	static const double ts[] = { 0.01, 0.3, 1, 1.7, 2, 2.5, 3.3, 5, 8 };
	double want;
	size_t i;
	int nu;

	(void)state;
	for (nu = 1; nu <= 60; nu++) {
		for (i = 0; i < ARRAY_SIZE(ts); i++) {
			want = as_p_two_sided(ts[i], nu);
			if (want < 1e-6)
				continue;
			assert_true(near(student_t_p_two_sided(ts[i], nu), want, 1e-14, 1e-10));
			assert_true(near(student_t_p_two_sided(-ts[i], nu), want, 1e-14, 1e-10));
		}
	}
}

static void test_t_p_fractional(void **state)
{
	static const double dfs[] = { 0.5, 1.5, 25.0 / 17, 2.5, 7.3, 40.5, 150.25 };
	static const double ts[] = { 0.2, 1, 2, 3.5 };
	size_t i, j;

	(void)state;
	/* The Simpson oracle itself agrees with the closed forms at integer df. */
	assert_true(near(simpson_p_two_sided(2, 6), as_p_two_sided(2, 6), 1e-12, 0));
	assert_true(near(simpson_p_two_sided(1.5, 3), as_p_two_sided(1.5, 3), 1e-12, 0));
	for (i = 0; i < ARRAY_SIZE(dfs); i++)
		for (j = 0; j < ARRAY_SIZE(ts); j++)
			assert_true(near(student_t_p_two_sided(ts[j], dfs[i]),
					 simpson_p_two_sided(ts[j], dfs[i]), 1e-11, 0));
}

/*
 * a = {1, 2, 3}, b = {4, 5, 6}: means 2 and 5, s^2 = 1 each, n = 3.
 * se^2 = 1/3 + 1/3 = 2/3, t = 3 / sqrt(2/3) = 3 sqrt(1.5);
 * df = (2/3)^2 / (2 * (1/3)^2 / 2) = 4.
 * A&S for nu = 4: sin theta = t / sqrt(4 + t^2) = sqrt(13.5 / 17.5) = sqrt(27/35),
 * cos^2 theta = 8/35, p = 1 - sqrt(27/35) * (1 + 4/35) = 1 - sqrt(27/35) * 39/35.
 */
static void test_welch_equal_var(void **state)
{
	static const double xa[] = { 1, 2, 3 }, xb[] = { 4, 5, 6 };
	struct agg a, b;
	double t, df, p;

	(void)state;
	agg_compute(xa, 3, &a);
	agg_compute(xb, 3, &b);
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(near(t, 3 * sqrt(1.5), 0, 1e-14));
	assert_true(near(df, 4, 0, 1e-14));
	assert_true(near(p, 1 - sqrt(27.0 / 35) * 39 / 35, 1e-14, 1e-12));
}

/*
 * Unequal variances and sizes: a = 10 + {-sqrt3, 0, sqrt3} (n = 3, s^2 = 3),
 * b = 10 + 2 sqrt3 + {-4, -2, 0, 2, 4} (n = 5, s^2 = 40/4 = 10).
 * va/na = 1, vb/nb = 2, se = sqrt3, t = 2 sqrt3 / sqrt3 = 2;
 * df = (1 + 2)^2 / (1^2 / 2 + 2^2 / 4) = 9 / 1.5 = 6.
 * A&S for nu = 6: sin theta = 2 / sqrt(10), cos^2 theta = 0.6,
 * p = 1 - (2 / sqrt10) * (1 + 0.3 + 3/8 * 0.36) = 1 - (2 / sqrt10) * 1.435 = 0.0924263.
 */
static void test_welch_unequal_var(void **state)
{
	const double r3 = sqrt(3), mb = 10 + 2 * r3;
	const double xa[] = { 10 - r3, 10, 10 + r3 };
	const double xb[] = { mb - 4, mb - 2, mb, mb + 2, mb + 4 };
	const double want_p = 1 - 2 / sqrt(10) * 1.435;
	struct agg a, b;
	double t, df, p;

	(void)state;
	agg_compute(xa, 3, &a);
	agg_compute(xb, 5, &b);
	assert_true(near(a.stddev, r3, 0, 1e-14));
	assert_true(near(b.stddev, sqrt(10), 0, 1e-14));
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(near(t, 2, 0, 1e-13));
	assert_true(near(df, 6, 0, 1e-13));
	assert_true(near(p, want_p, 1e-14, 1e-11));
	assert_true(near(p, 0.0924263, 1e-7, 0));
	/* Swapping the sides flips t only. */
	assert_int_equal(welch_t_test(&b, &a, &t, &df, &p), 0);
	assert_true(near(t, -2, 0, 1e-13));
	assert_true(near(df, 6, 0, 1e-13));
	assert_true(near(p, want_p, 1e-14, 1e-11));
}

/*
 * n = 2 each: a = {1, 3} (mean 2, s^2 = 2), b = {4, 8} (mean 6, s^2 = 8).
 * va/na = 1, vb/nb = 4, t = 4 / sqrt5; df = 25 / (1/1 + 16/1) = 25/17, fractional,
 * so p comes from the Simpson oracle.
 */
static void test_welch_n2(void **state)
{
	static const double xa[] = { 1, 3 }, xb[] = { 4, 8 };
	struct agg a, b;
	double t, df, p;

	(void)state;
	agg_compute(xa, 2, &a);
	agg_compute(xb, 2, &b);
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(near(t, 4 / sqrt(5), 0, 1e-14));
	assert_true(near(df, 25.0 / 17, 0, 1e-14));
	assert_true(near(p, simpson_p_two_sided(4 / sqrt(5), 25.0 / 17), 1e-11, 0));
}

/*
 * One side without spread: a = {5, 5, 5}, b = {1, 2, 3} (mean 2, s^2 = 1, n = 3).
 * se^2 = 1/3, t = -3 sqrt3; df = nb - 1 = 2; p = 1 - |t| / sqrt(2 + t^2)
 * = 1 - sqrt(27/29).
 */
static void test_welch_one_zero_var(void **state)
{
	static const double xa[] = { 5, 5, 5 }, xb[] = { 1, 2, 3 };
	struct agg a, b;
	double t, df, p;

	(void)state;
	agg_compute(xa, 3, &a);
	agg_compute(xb, 3, &b);
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(near(t, -3 * sqrt(3), 0, 1e-14));
	assert_true(near(df, 2, 0, 1e-14));
	assert_true(near(p, 1 - sqrt(27.0 / 29), 1e-15, 1e-12));
}

/* Both variances 0: documented as t = 0, p = 1 or t = +-inf, p = 0; df = na + nb - 2. */
static void test_welch_zero_var(void **state)
{
	struct agg a = { .n = 2, .mean = 5 }, b = { .n = 3, .mean = 5 };
	double t, df, p;

	(void)state;
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(t == 0 && p == 1 && df == 3);
	b.mean = 7;
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	assert_true(isinf(t) && t > 0 && p == 0 && df == 3);
	assert_int_equal(welch_t_test(&b, &a, &t, &df, &p), 0);
	assert_true(isinf(t) && t < 0 && p == 0 && df == 3);
}

/* Equal n = 50 and equal s: Welch's df is exactly the pooled 2 * 49 = 98. */
static void test_welch_equal_n_df(void **state)
{
	struct agg a = { .n = 50, .mean = 1, .stddev = 0.25 };
	struct agg b = { .n = 50, .mean = 1.1, .stddev = 0.25 };
	double t, df, p;

	(void)state;
	assert_int_equal(welch_t_test(&a, &b, &t, &df, &p), 0);
	/* se = 0.25 * sqrt(2/50) = 0.05, t = 0.1 / 0.05 = 2. */
	assert_true(near(t, 2, 0, 1e-13));
	assert_true(near(df, 98, 0, 1e-13));
	assert_true(near(p, as_p_two_sided(2, 98), 1e-13, 1e-10));
}

static void test_welch_einval(void **state)
{
	struct agg ok = { .n = 2, .mean = 1, .stddev = 1 };
	struct agg one = { .n = 1, .mean = 1 }, none = { .n = 0 };
	double t, df, p;

	(void)state;
	assert_int_equal(welch_t_test(&one, &ok, &t, &df, &p), -EINVAL);
	assert_int_equal(welch_t_test(&ok, &one, &t, &df, &p), -EINVAL);
	assert_int_equal(welch_t_test(&none, &ok, &t, &df, &p), -EINVAL);
	assert_int_equal(welch_t_test(&ok, &none, &t, &df, &p), -EINVAL);
}

/*
 * Holm's step-down adjustment on known vectors (worked by hand: p ascending times
 * m, m - 1, ..., made non-decreasing, capped at 1; NaN is no test).
 */
static void test_holm(void **state)
{
	static const double p1[] = { 0.01, 0.04, 0.03, 0.005 },
			    want1[] = { 0.03, 0.06, 0.06, 0.02 };
	static const double p2[] = { 0.5, NAN, 0.01 };
	static const double p3[] = { 0.9, 0.8 };
	double adj[4];
	size_t i;

	(void)state;
	holm_adjust(p1, 4, adj);
	for (i = 0; i < 4; i++)
		assert_true(fabs(adj[i] - want1[i]) < 1e-15);
	holm_adjust(p2, 3, adj);
	assert_true(fabs(adj[0] - 0.5) < 1e-15 && isnan(adj[1]) && fabs(adj[2] - 0.02) < 1e-15);
	holm_adjust(p3, 2, adj);
	assert_true(adj[0] == 1 && adj[1] == 1);
	holm_adjust(p1, 1, adj); /* a family of one: p itself */
	assert_true(adj[0] == 0.01);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agg_basic),
		cmocka_unit_test(test_agg_offset),
		cmocka_unit_test(test_agg_small_n),
		cmocka_unit_test(test_agg_ci95),
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_t_quantile_fractional),
		cmocka_unit_test(test_t_p_known),
		cmocka_unit_test(test_t_p_closed_form),
		cmocka_unit_test(test_t_p_fractional),
		cmocka_unit_test(test_welch_equal_var),
		cmocka_unit_test(test_welch_unequal_var),
		cmocka_unit_test(test_welch_n2),
		cmocka_unit_test(test_welch_one_zero_var),
		cmocka_unit_test(test_welch_zero_var),
		cmocka_unit_test(test_welch_equal_n_df),
		cmocka_unit_test(test_welch_einval),
		cmocka_unit_test(test_holm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
