/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Statistics: histogram summaries (percentiles from bucket counts) and the
 * statistics of repetitions (mean, sample stddev, Student-t confidence intervals,
 * Welch's t-test).
 */
#ifndef BLKTRACE_BENCH_STATS_H
#define BLKTRACE_BENCH_STATS_H

#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>

enum hist_kind {
	HIST_KIND_SIZE,	 /* bytes: 512 B, then 4 KiB, then pow2 buckets */
	HIST_KIND_COUNT, /* exact to 511, then pow2 */
	HIST_KIND_LAT,	 /* ns, log-linear, 64 sub-buckets per power of two */
};

unsigned int hist_nr_buckets(enum hist_kind kind);
uint64_t hist_bucket_lo(enum hist_kind kind, unsigned int i);
/* Exclusive upper bound; UINT64_MAX for the last (open) bucket. */
uint64_t hist_bucket_hi(enum hist_kind kind, unsigned int i);
uint64_t hist_total(const __u64 *buckets, unsigned int n);
/* Samples in buckets that can hold values >= limit: exact while limit is a bucket boundary. */
uint64_t hist_count_at_least(enum hist_kind kind, const __u64 *buckets, uint64_t limit);

/*
 * The p-th percentile (0 < p <= 100): the bucket holding the ceil(p/100 * total)-th
 * smallest sample, reported as its lower bound for SIZE and COUNT (exact for the
 * sizes and counts real requests have) and as its midpoint for LAT (within 0.78%),
 * never above max. 0 when the histogram is empty.
 */
double hist_percentile(enum hist_kind kind, const __u64 *buckets, double p, uint64_t max);

/* Aggregate of repetitions of one metric. */
struct agg {
	size_t n;
	double mean;
	double stddev; /* sample (n - 1); 0 when n < 2 */
	double min, max;
	double ci95;   /* half-width of the 95% CI of the mean (Student t); 0 when n < 2 */
};

void agg_compute(const double *x, size_t n, struct agg *out);

/* Two-sided 97.5% quantile of Student's t with df degrees of freedom (df > 0, real). */
double student_t_q975(double df);
/* Two-sided p-value of Student's t statistic t with df degrees of freedom. */
double student_t_p_two_sided(double t, double df);

/* Welch's unequal-variances t-test. Returns 0, or -EINVAL when n < 2 on either side. */
int welch_t_test(const struct agg *a, const struct agg *b, double *t, double *df, double *p);

#endif /* BLKTRACE_BENCH_STATS_H */
