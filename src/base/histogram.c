// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Histograms on the user side: bucket bounds, totals and percentiles of the per-CPU
 * histograms the BPF programs fill. The bucket math itself is bpf/hist.h, shared with
 * the BPF programs, so that a bucket index means the same thing on both sides of the map.
 */
#include <math.h>
#include <linux/types.h>

#include "hist.h"
#include "base/histogram.h"

unsigned int hist_nr_buckets(enum hist_kind kind)
{
	switch (kind) {
	case HIST_KIND_SIZE:
		return HIST_SIZE_BUCKETS;
	case HIST_KIND_COUNT:
		return HIST_COUNT_BUCKETS;
	case HIST_KIND_LAT:
		return HIST_LAT_BUCKETS;
	}
	return 0;
}

/* UINT64_MAX past the last bucket, so that hi() of the last bucket is open. */
uint64_t hist_bucket_lo(enum hist_kind kind, unsigned int i)
{
	if (i >= hist_nr_buckets(kind))
		return UINT64_MAX;
	switch (kind) {
	case HIST_KIND_SIZE:
		return hist_size_lo(i);
	case HIST_KIND_COUNT:
		return hist_count_lo(i);
	case HIST_KIND_LAT:
		return hist_lat_lo(i);
	}
	return UINT64_MAX;
}

uint64_t hist_bucket_hi(enum hist_kind kind, unsigned int i)
{
	return hist_bucket_lo(kind, i + 1);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Saturates rather than wraps: a wrapped total would pick a wrong bucket. */
uint64_t hist_total(const __u64 *buckets, unsigned int n)
{
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		total = add_sat(total, buckets[i]);
	return total;
}

/*
 * ceil(p/100 * total), clamped to [1, total]. p arrives as a decimal such as 99.9
 * that binary cannot hold, so p * total / 100 may land a hair above the integer
 * the user meant (999.0000000000001 for 99.9% of 1000) and ceil() would then
 * skip a whole sample: snap to an integer within a relative 1e-9 first.
 */
static uint64_t percentile_rank(double p, uint64_t total)
{
	double x, r;

	if (!(p > 0))
		return 1;
	x = p * (double)total / 100.0;
	if (x >= (double)total)
		return total;
	r = nearbyint(x);
	if (fabs(x - r) <= 1e-9 * fmax(1.0, x))
		x = r;
	else
		x = ceil(x);
	return x < 1 ? 1 : (uint64_t)x;
}

double hist_percentile(enum hist_kind kind, const __u64 *buckets, double p, uint64_t max)
{
	unsigned int n = hist_nr_buckets(kind), i;
	uint64_t total = hist_total(buckets, n), rank, seen = 0, lo, hi;
	double v;

	if (!total)
		return 0;
	rank = percentile_rank(p, total);
	for (i = 0; i < n - 1; i++) {
		seen = add_sat(seen, buckets[i]);
		if (seen >= rank)
			break;
	}
	lo = hist_bucket_lo(kind, i);
	hi = hist_bucket_hi(kind, i);
	v = (double)lo;
	/*
	 * A one-wide bucket is exact, and the open last bucket has no midpoint: both
	 * report their lower bound.
	 */
	if (kind == HIST_KIND_LAT && i < n - 1 && hi - lo > 1)
		v += (double)(hi - lo) / 2;
	return v > (double)max ? (double)max : v;
}

uint64_t hist_count_at_least(enum hist_kind kind, const __u64 *buckets, uint64_t limit)
{
	unsigned int i, n = hist_nr_buckets(kind);
	uint64_t total = 0;

	for (i = 0; i < n; i++)
		if (hist_bucket_hi(kind, i) > limit)
			total += buckets[i];
	return total;
}
