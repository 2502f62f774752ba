/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Metrics and their aggregation over repetitions. A metric is a JSON path into a
 * run object ("app.mb_per_s", "block.device_ns.p99"), so the same table serves the
 * result writer (series), the linked text table and compare, which reads saved
 * files.
 */
#ifndef BLKTRACE_BENCH_SERIES_H
#define BLKTRACE_BENCH_SERIES_H

#include <stdbool.h>
#include <jansson.h>
#include "stats.h"

struct metric_def {
	const char *path;
	int direction;	/* +1: higher is better, -1: lower is better, 0: neither */
	bool headline;	/* judged by compare --fail-on-regression */
};

extern const struct metric_def metric_defs[];
extern const size_t nr_metric_defs;

/* The number at a dotted path in obj; -ENOENT when absent or not a number. */
int json_path_number(json_t *obj, const char *path, double *out);

/* The key runs are matched and grouped by: their params (or label), as compact JSON. */
char *run_group_key(json_t *run);

/* Aggregate metric path over the runs at indexes idx[0..n) of the runs array. */
void series_agg(json_t *runs, const size_t *idx, size_t n, const char *path, struct agg *out);

/*
 * The "series" array: one element per parameter set, in first-run order, each
 * {"label", "params", "runs": [indexes], "metrics": {path: {n, mean, stddev, min,
 * max, ci95}}}. NULL on ENOMEM.
 */
json_t *series_json(json_t *runs);

#endif /* BLKTRACE_BENCH_SERIES_H */
