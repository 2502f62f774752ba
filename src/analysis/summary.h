/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Derived figures of a run, computed once for every printer, the series and compare:
 * means from exact sums, percentiles from histograms, limit-bound shares, rates,
 * findings and the metric values.
 */
#ifndef BLKTRACE_BENCH_SUMMARY_H
#define BLKTRACE_BENCH_SUMMARY_H

#include "analysis/findings.h"
#include "analysis/layers.h"
#include "analysis/block_summary.h"
#include "result/run_summary.h"

/* Derive s from run of res. 0, or -ENOMEM. */
int run_summary__compute(struct run_summary *s, const struct result *res, const struct run *run);
/* What run_summary__compute allocated (the layers); the struct itself is the caller's. */
void run_summary__free(struct run_summary *s);

#endif /* BLKTRACE_BENCH_SUMMARY_H */
