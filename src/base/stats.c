// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The statistics of repetitions: mean, sample stddev, Student-t confidence intervals,
 * Welch's t-test, Holm's adjustment for a family of tests.
 *
 * Student's t is written by hand: no Debian package provides its CDF or quantile
 * to C without pulling in GSL. The two-sided tail is the regularized incomplete
 * beta function, P(|T| > t) = I_x(df/2, 1/2) with x = df / (df + t^2), evaluated
 * by its continued fraction (Numerical Recipes' betacf, modified Lentz), which
 * accepts the fractional df of Welch-Satterthwaite. The quantile is bisection on
 * that tail, which is monotonic in t. Against mpmath, both are within 1e-13
 * relative for 0.2 <= df <= 1e7.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <linux/types.h>

#include "base/stats.h"

void agg_compute(const double *x, size_t n, struct agg *out)
{
	double sum = 0, ss = 0, comp = 0, d;
	size_t i;

	*out = (struct agg){ .n = n };
	if (!n)
		return;
	out->min = out->max = x[0];
	for (i = 0; i < n; i++) {
		sum += x[i];
		out->min = fmin(out->min, x[i]);
		out->max = fmax(out->max, x[i]);
	}
	out->mean = sum / n;
	if (n < 2)
		return;
	/* Two passes, with the rounding error of the mean corrected (NR eq. 14.1.8). */
	for (i = 0; i < n; i++) {
		d = x[i] - out->mean;
		ss += d * d;
		comp += d;
	}
	ss -= comp * comp / n;
	out->stddev = sqrt(fmax(ss, 0) / (n - 1));
	out->ci95 = student_t_q975(n - 1) * out->stddev / sqrt(n);
}

/*
 * Continued fraction of I_x(a, b), modified Lentz. It converges fast for
 * x < (a + 1) / (a + b + 2), in O(sqrt(max(a, b))) terms; the cap covers df up to
 * the normal limit. Its value moves about a times as fast as x, so the rounding
 * of x costs df * eps: long double (where wider than double) keeps that below
 * 1e-12 up to df = 1e7 rather than 1e4.
 */
#define LENTZ_TINY 1e-300L /* stands in for a zero denominator */

/* One step of modified Lentz for the coefficient aa: c and d move on; h's factor. */
static long double lentz_step(long double aa, long double *c, long double *d)
{
	*d = 1 + aa * *d;
	if (fabsl(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = 1 + aa / *c;
	if (fabsl(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1 / *d;
	return *d * *c;
}

static long double betacf(long double a, long double b, long double x)
{
	const long double eps = DBL_EPSILON / 4;
	long double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d, h, aa, del;
	int m, m2;

	d = 1 - qab * x / qap;
	if (fabsl(d) < LENTZ_TINY)
		d = LENTZ_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000000; m++) {
		m2 = 2 * m;
		/* The even and the odd term of the fraction. */
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		h *= lentz_step(aa, &c, &d);
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		del = lentz_step(aa, &c, &d);
		h *= del;
		if (fabsl(del - 1) <= eps)
			break;
	}
	return h;
}

/*
 * lgamma(a + b) - lgamma(a). For large a, lgamma(a) is so large that its rounding
 * error swamps the difference (1e-6 relative at df = 1e9), so subtract the
 * Stirling series term by term instead; at a >= 20 its truncation is below 1e-17.
 */
static double lgamma_ratio(double a, double b)
{
	double z[2] = { a, a + b }, corr[2];
	int k;

	if (a < 20)
		return lgamma(a + b) - lgamma(a);
	for (k = 0; k < 2; k++) {
		double r = 1 / z[k], r2 = r * r;

		corr[k] = r * (1.0 / 12 - r2 * (1.0 / 360 -
						r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))));
	}
	return (a + b - 0.5) * log1p(b / a) + b * log(a) - b + corr[1] - corr[0];
}

/*
 * I_x(a, b) from x, y = 1 - x and their logarithms. The caller forms y, log x and
 * log y with log1p from t^2/df: 1 - x would cancel away a small tail, and log(x)
 * of an x near 1, multiplied by a large a, would cost digits.
 */
static double betai(double a, double b, long double x, long double y, double lx, double ly)
{
	double front;

	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	front = exp(lgamma_ratio(a, b) - lgamma(b) + a * lx + b * ly);
	if (x < (a + 1) / (a + b + 2))
		return front * (double)betacf(a, b, x) / a;
	return 1 - front * (double)betacf(b, a, y) / b;
}

/* Past this df the continued fraction is slow and the normal limit is close. */
#define T_DF_NORMAL 1e10

double student_t_p_two_sided(double t, double df)
{
	double r, l;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	t = fabs(t);
	if (isinf(t))
		return 0;
	/* The normal tail plus Fisher's 1/df term; what is left is O(t^8 / df^2) relative. */
	if (df > T_DF_NORMAL)
		return erfc(t / M_SQRT2) +
		       exp(-t * t / 2) / sqrt(2 * M_PI) * (t * t + 1) * t / (2 * df);
	/* x = df / (df + t^2) = 1 / (1 + r), r = t^2 / df, or s / (1 + s), s = 1 / r. */
	if (t * t <= df) {
		r = t / df * t;
		l = log1p(r);
		return betai(df / 2, 0.5, 1 / (1 + (long double)r), r / (1 + (long double)r), -l,
			     log(r) - l);
	}
	r = df / t / t;
	l = log1p(r);
	return betai(df / 2, 0.5, r / (1 + (long double)r), 1 / (1 + (long double)r), log(r) - l,
		     -l);
}

/* The two-sided tail mass beyond the 97.5% quantile: what student_t_q975 looks for. */
#define Q975_TAILS 0.05

double student_t_q975(double df)
{
	double lo = 0, hi = 2;
	int i;

	if (isnan(df) || df <= 0)
		return NAN;
	while (student_t_p_two_sided(hi, df) > Q975_TAILS) {
		lo = hi;
		hi *= 2;
		/*
		 * Past 1e150, t^2 nears overflow and the tail would read as 0; only
		 * df below about 0.007 gets there, and its quantile is as good as infinite.
		 */
		if (hi > 1e150)
			return INFINITY;
	}
	/* lo = hi / 2 after the bracketing, so about 53 halvings reach the last bit. */
	for (i = 0; i < 200 && hi - lo > 4 * DBL_EPSILON * hi; i++) {
		double mid = lo + (hi - lo) / 2;

		if (student_t_p_two_sided(mid, df) > Q975_TAILS)
			lo = mid;
		else
			hi = mid;
	}
	return lo + (hi - lo) / 2;
}

bool agg_overlap(const struct agg *a, const struct agg *b)
{
	return fabs(a->mean - b->mean) <= a->ci95 + b->ci95;
}

/*
 * se and df are formed from s/sqrt(n) through hypot() and ratios, never from
 * squared variances, so that neither tiny nor huge spreads under- or overflow.
 * When both variances are 0 the statistic is degenerate: equal means give t = 0
 * and p = 1, different means t = +-INFINITY and p = 0, with df = na + nb - 2,
 * the pooled df that Welch's formula cannot produce from 0/0.
 */
int welch_t_test(const struct agg *a, const struct agg *b, double *t, double *df, double *p)
{
	double ua, ub, se, diff;

	if (a->n < 2 || b->n < 2)
		return -EINVAL;
	diff = b->mean - a->mean;
	ua = a->stddev / sqrt(a->n);
	ub = b->stddev / sqrt(b->n);
	se = hypot(ua, ub);
	if (se == 0) {
		*df = (double)(a->n + b->n - 2);
		if (diff == 0) {
			*t = 0;
			*p = 1;
		} else {
			*t = diff > 0 ? INFINITY : -INFINITY;
			*p = 0;
		}
		return 0;
	}
	ua /= se;
	ub /= se;
	*t = diff / se;
	*df = 1 / (ua * ua * ua * ua / (a->n - 1) + ub * ub * ub * ub / (b->n - 1));
	*p = student_t_p_two_sided(*t, *df);
	return 0;
}

void holm_adjust(const double *p, size_t n, double *adj)
{
	size_t idx[STATS_HOLM_MAX], m = 0, i, j, t;
	double run = 0;

	if (n > STATS_HOLM_MAX)
		n = STATS_HOLM_MAX;
	for (i = 0; i < n; i++) {
		adj[i] = NAN;
		if (isnan(p[i]))
			continue;
		/* Insertion sort by p: a family is a handful of metrics. */
		for (j = m++; j > 0 && p[idx[j - 1]] > p[i]; j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	for (t = 0; t < m; t++) {
		run = fmax(run, fmin(1, (double)(m - t) * p[idx[t]]));
		adj[idx[t]] = run;
	}
}
