/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Limit-bound explanations: which queue limit (or none) shaped the requests of a run,
 * computed from its block statistics and the disk's limits. Every report backend prints
 * the same findings; nothing here prints.
 */
#ifndef BLKTRACE_BENCH_FINDINGS_H
#define BLKTRACE_BENCH_FINDINGS_H

#include <stddef.h>
#include "disk/device.h"
#include "result/run.h"
#include "result/run_summary.h"

/*
 * Fill out[0..max) with the findings that apply, the one with the largest share first
 * (xen_indirect, a statistic rather than a cause, last). job is the built-in workload's
 * parameters, which let a sentence name the application's I/O size; NULL (or rw "")
 * in passive and command mode, where it is not known. Returns how many, 0 when the run
 * has no data requests to explain, or -EINVAL.
 */
int findings__compute(const struct device *dev, const struct block_stats *b,
		      const struct job_params *job, struct finding *out, size_t max);

/* Limit kinds: a queue limit stopped requests (max_sectors_kb, max_segments...). */
bool findings__is_limit(const struct finding *f);

#endif /* BLKTRACE_BENCH_FINDINGS_H */
