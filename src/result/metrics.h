/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The metrics: one number per run that repetitions are aggregated over (series),
 * compared across results (compare) and shown in the linked table. Each has one id,
 * one name, which is also its path in a run of the JSON document ("app.mb_per_s",
 * "block.device_ns.p99"), and one direction. The values live in struct run_summary
 * (summary.h), computed once from a run or read once from a saved file: nothing
 * looks a metric up by its path in a JSON document.
 */
#ifndef BLKTRACE_BENCH_METRICS_H
#define BLKTRACE_BENCH_METRICS_H

#include <stdbool.h>
#include <stddef.h>

enum metric_id {
	METRIC_APP_MB_PER_S = 0,
	METRIC_APP_IOPS,
	METRIC_APP_LAT_MEAN,
	METRIC_APP_LAT_P99,
	METRIC_REQ_BYTES_MEAN,
	METRIC_REQ_BYTES_P50,
	METRIC_SEGMENTS_MEAN,
	METRIC_SEGMENT_BYTES_MEAN,
	METRIC_DEPTH_MEAN,
	METRIC_DEPTH_MAX,
	METRIC_DEVICE_P50,
	METRIC_DEVICE_P99,
	METRIC_QUEUE_P99,
	METRIC_TOTAL_MEAN,
	METRIC_REQUESTS,
	METRIC_MERGES_PER_REQUEST,
	METRIC_DEVICE_PER_APP_BYTE,
	METRIC_LIMIT_SECTORS,
	METRIC_LIMIT_SEGMENTS,
	/* Not judged: what compare shows moved underneath. */
	METRIC_SEGMENTS_P50,
	NR_METRICS,
};

struct metric_def {
	const char *name; /* the JSON path within a run */
	int direction;	  /* +1: higher is better, -1: lower is better, 0: neither */
	bool headline;	  /* judged by compare --fail-on-regression */
	bool judged;	  /* aggregated in "series" and given a verdict by compare */
};

extern const struct metric_def metric_defs[NR_METRICS];

/* The id of a metric by its name, or -1. */
int metric__find(const char *name);

#endif /* BLKTRACE_BENCH_METRICS_H */
