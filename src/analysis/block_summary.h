/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The figures of one set of block or application statistics: distributions from
 * histograms and exact sums, limit-bound shares, rates. The run summary (summary.h), the
 * findings and the stack's layers all start from these.
 */
#ifndef BLKTRACE_BENCH_BLOCK_SUMMARY_H
#define BLKTRACE_BENCH_BLOCK_SUMMARY_H

#include "result/run_summary.h"

/* lim may be NULL (no limit-bound shares). */
void block_summary__compute(const struct block_stats *b, const struct queue_limits *lim,
			    struct block_summary *s);
/* The ring's figures over seconds (present: r was probed). */
void ring_summary__compute(const struct blkfront_counts *r, bool present, double seconds,
			   struct ring_summary *s);
void app_summary__compute(const struct app_stats *a, struct app_summary *s);
/* The figures an interval of passive mode keeps (run.h), from its statistics. */
void interval_sample__compute(struct interval_sample *s, const struct block_stats *b, double start,
			      double seconds);

#endif /* BLKTRACE_BENCH_BLOCK_SUMMARY_H */
