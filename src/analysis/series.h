/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Series: the repetitions of one parameter set, grouped and aggregated over every
 * metric (metrics.h). Runs of the built-in workload group by their parameters, the
 * others (passive, command mode) by their label; series keep the order of their first
 * runs. A partial run (cut short by a signal) is in no series: it did not do what the
 * others did, so it is no repetition of them. The same grouping serves the result's "series", the
 * linked table, the recommendation and compare, which matches series of two files by the same key.
 */
#ifndef BLKTRACE_BENCH_SERIES_H
#define BLKTRACE_BENCH_SERIES_H

#include <stddef.h>
#include "result/metrics.h"
#include "base/stats.h"
#include "result/run_summary.h"

#define SERIES_KEY_MAX 512

struct series {
	char key[SERIES_KEY_MAX]; /* series__key() of its runs */
	size_t first;		  /* index of its first run */
	size_t *runs;		  /* indexes of its runs, ascending */
	size_t nr_runs;
	struct agg metric[NR_METRICS]; /* n == 0: none of its runs has the metric */
};

struct series_set {
	struct series *series;
	size_t nr;
	size_t *storage; /* every series' run indexes */
};

/*
 * The key runs are grouped and matched by: their parameters, canonical
 * ("rw=read bs=4096 ... max_sectors_kb=44"), or "label=" and the label.
 */
void series__key(const struct job_params *p, const char *label, char *buf, size_t len);

/* Group runs[0..nr), partial ones left out, into out, in first-run order. 0, or -ENOMEM. */
int series__group(struct series_set *out, const struct run_summary *runs, size_t nr);
void series__free(struct series_set *ss);

/* The aggregate of metric id over the runs at idx[0..n). */
void series__agg(const struct run_summary *runs, const size_t *idx, size_t n, enum metric_id id,
		 struct agg *out);

#endif /* BLKTRACE_BENCH_SERIES_H */
