/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Derived figures of one run's block statistics, computed once for every backend:
 * means from exact sums, percentiles from histograms, limit-bound shares.
 */
#ifndef BLKTRACE_BENCH_SUMMARY_H
#define BLKTRACE_BENCH_SUMMARY_H

#include "device.h"
#include "run.h"
#include "stats.h"

struct dist {
	uint64_t count;
	double mean;
	double p50, p90, p99, p999;
	uint64_t max;
};

struct block_summary {
	struct dist size;	 /* bytes per request with a payload */
	struct dist segments;	 /* physical segments per read/write request */
	struct dist seg_bytes;	 /* bytes per segment */
	struct dist depth;	 /* in flight at issue */
	struct dist lat[BLKIO_NR_LATS];
	uint64_t data_requests;	 /* read + write requests with a payload */
	uint64_t size_bound;	 /* of those, size >= max_sectors_kb */
	uint64_t segments_bound; /* of those, segments >= max_segments */
	double limit_sectors;	 /* shares of data_requests, 0 when there are none */
	double limit_segments;
	__u64 size_all[HIST_SIZE_BUCKETS]; /* read + write + other */
};

/* Count, mean (exact, from sum), percentiles and max of one histogram. */
void dist__fill(struct dist *d, enum hist_kind kind, const __u64 *h, uint64_t sum, uint64_t max);

/* lim may be NULL (no limit-bound shares). */
void block_summary__compute(const struct block_stats *b, const struct queue_limits *lim,
			    struct block_summary *s);

extern const char *const blkio_op_names[BLKIO_NR_OPS];
extern const char *const blkio_lat_names[BLKIO_NR_LATS];

#endif /* BLKTRACE_BENCH_SUMMARY_H */
