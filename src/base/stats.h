/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The statistics of repetitions: mean, sample stddev, Student-t confidence intervals,
 * Welch's t-test.
 */
#ifndef BLKTRACE_BENCH_STATS_H
#define BLKTRACE_BENCH_STATS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The significance level of every verdict: compare's "significant" and the
 * recommendation's "statistically as good" both ask p < STATS_ALPHA (Welch). The
 * confidence intervals beside them are 95% ones (student_t_q975).
 */
#define STATS_ALPHA 0.05

/* Aggregate of repetitions of one metric. */
struct agg {
	size_t n;
	double mean;
	double stddev; /* sample (n - 1); 0 when n < 2 */
	double min, max;
	double ci95; /* half-width of the 95% CI of the mean (Student t); 0 when n < 2 */
};

void agg_compute(const double *x, size_t n, struct agg *out);

/* Two-sided 97.5% quantile of Student's t with df degrees of freedom (df > 0, real). */
double student_t_q975(double df);
/* Two-sided p-value of Student's t statistic t with df degrees of freedom. */
double student_t_p_two_sided(double t, double df);

/* Do the 95% confidence intervals of a's and b's means overlap? */
bool agg_overlap(const struct agg *a, const struct agg *b);

/* Welch's unequal-variances t-test. Returns 0, or -EINVAL when n < 2 on either side. */
int welch_t_test(const struct agg *a, const struct agg *b, double *t, double *df, double *p);

/* The largest family holm_adjust takes. */
#define STATS_HOLM_MAX 64

/*
 * Holm-Bonferroni: the p-values of a family of n tests (n <= STATS_HOLM_MAX) adjusted
 * step-down, adj[i] the smallest family-wise level at which test i is rejected: with
 * the p-values ascending, (n - j + 1) p_(j), made non-decreasing, at most 1. A NaN is no
 * test: left NaN and not counted in n.
 */
void holm_adjust(const double *p, size_t n, double *adj);

#endif /* BLKTRACE_BENCH_STATS_H */
