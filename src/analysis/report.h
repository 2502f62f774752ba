/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The report of one invocation: the result (what was measured) with everything
 * derived from it computed once, here, before any printer runs: a run_summary per
 * run, the series over repetitions, the recommendation of a --set sweep. The printers
 * (report_text.c, report_json.c) are siblings that only print a struct report; neither
 * calls the other nor computes what the other would need.
 */
#ifndef BLKTRACE_BENCH_REPORT_H
#define BLKTRACE_BENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "analysis/above.h"
#include "analysis/recommend.h"
#include "result/run.h"
#include "analysis/series.h"
#include "analysis/summary.h"

struct report {
	const struct result *res;
	struct run_summary *runs; /* one per res->runs[i] */
	size_t nr_runs;
	struct series_set series;
	bool has_recommendation; /* --recommend */
	struct recommendations rec;
	struct above_pairs above; /* series the device saw alike, throughputs apart */
	/* What the kernel skipped of our programs, in a sentence; "" when nothing. */
	char skipped[224];
};

/* Build rep from res; recommend adds the sweep's recommendation. 0, or -ENOMEM. */
int report__build(struct report *rep, const struct result *res, bool recommend);
void report__free(struct report *rep);

#endif /* BLKTRACE_BENCH_REPORT_H */
