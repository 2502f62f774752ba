/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Derived figures of a run, computed once for every printer, the series and compare:
 * means from exact sums, percentiles from histograms, limit-bound shares, rates,
 * findings and the metric values.
 */
#ifndef BLKTRACE_BENCH_SUMMARY_H
#define BLKTRACE_BENCH_SUMMARY_H

#include "disk/device.h"
#include "analysis/findings.h"
#include "analysis/layers.h"
#include "base/histogram.h"
#include "result/metrics.h"
#include "result/run.h"
#include "base/stats.h"

struct dist {
	uint64_t count;
	double mean;
	double p50, p90, p99, p999;
	uint64_t max;
};

struct block_summary {
	struct dist size;      /* bytes per request with a payload */
	struct dist segments;  /* physical segments per read/write request */
	struct dist seg_bytes; /* bytes per segment */
	struct dist depth;     /* in flight at issue */
	struct dist lat[BLKIO_NR_LATS];
	uint64_t data_requests;	 /* read + write requests with a payload */
	uint64_t size_bound;	 /* of those, size >= max_sectors_kb */
	uint64_t segments_bound; /* of those, segments >= max_segments */
	double limit_sectors;	 /* shares of data_requests, 0 when there are none */
	double limit_segments;
	uint64_t requests, bytes; /* every op */
	double io_seconds;	  /* first issue to last completion; 0 when not both seen */
	double merges_per_request;
	__u64 size_all[HIST_SIZE_BUCKETS]; /* read + write + other */
};

/* What the application saw in one run of the built-in workload. */
struct app_summary {
	uint64_t bytes, ios;
	double seconds;
	double mb_per_s; /* decimal, like dd */
	double mib_per_s;
	double iops;
	struct dist lat; /* per application I/O, ns */
	bool registered_bufs, huge_bufs;
};

/*
 * Everything derived from one run, computed once (run_summary__compute) for every
 * printer, the series and compare; or, for a saved result, read back from its file
 * (result_load.c: the label, params, metrics and the two histograms compare prints).
 */
struct run_summary {
	const struct run *run; /* the run it was computed from; NULL when loaded */
	char label[256];
	struct job_params params; /* params.rw[0] == '\0': passive or command mode */
	unsigned int repetition;
	bool partial; /* cut short: left out of the series (series.h) */
	double seconds;
	/*
	 * What rates are over: a command's I/O alone (block.io_seconds: its start-up and
	 * exit are no I/O, and fio's own MB/s is over its I/O), else seconds.
	 */
	double rate_seconds;
	bool command;
	bool has_block, has_app;
	struct block_summary block;
	__u64 segments_all[HIST_COUNT_BUCKETS]; /* segments per request */
	struct app_summary app;
	struct queue_limits limits; /* in force during the run */
	struct finding findings[FINDINGS_MAX];
	int nr_findings;
	struct layer_summary *layers; /* one per res->nr_layers (layers.h); NULL without */
	size_t nr_layers;
	double metric[NR_METRICS]; /* see metrics.h */
	bool has_metric[NR_METRICS];
};

/* Derive s from run of res. 0, or -ENOMEM. */
int run_summary__compute(struct run_summary *s, const struct result *res, const struct run *run);
/* What run_summary__compute allocated (the layers); the struct itself is the caller's. */
void run_summary__free(struct run_summary *s);

/* Count, mean (exact, from sum), percentiles and max of one histogram. */
void dist__fill(struct dist *d, enum hist_kind kind, const __u64 *h, uint64_t sum, uint64_t max);

/* lim may be NULL (no limit-bound shares). */
void block_summary__compute(const struct block_stats *b, const struct queue_limits *lim,
			    struct block_summary *s);
void app_summary__compute(const struct app_stats *a, struct app_summary *s);
/* The figures an interval of passive mode keeps (run.h), from its statistics. */
void interval_sample__compute(struct interval_sample *s, const struct block_stats *b, double start,
			      double seconds);

extern const char *const blkio_op_names[BLKIO_NR_OPS];
extern const char *const blkio_lat_names[BLKIO_NR_LATS];

#endif /* BLKTRACE_BENCH_SUMMARY_H */
