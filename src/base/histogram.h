/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Histograms on the user side: bucket bounds, totals, percentiles; see histogram.c. */
#ifndef BLKTRACE_BENCH_HISTOGRAM_H
#define BLKTRACE_BENCH_HISTOGRAM_H

#include <linux/types.h>
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

#endif /* BLKTRACE_BENCH_HISTOGRAM_H */
