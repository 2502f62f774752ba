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

/* Enough for every kind below at once, and the layers' of a stack (layers.h). */
#define FINDINGS_MAX 16

/*
 * kind is a stable short string for scripts and compare:
 *   "max_sectors_kb"   requests reached max_sectors_kb
 *   "max_segments"     requests reached max_segments (xen-blkfront: the negotiated segments)
 *   "max_segment_size" requests reached max_segments with every segment max_segment_size
 *   "read_ahead"       read requests the page cache issued ahead (REQ_RAHEAD): it sized
 *                      them, with read_ahead_kb, not the application's reads
 *   "uncapped"         the rest below every limit: the application, the page cache's
 *                      writeback or merging decided
 *   "xen_indirect"     xen-blkfront: requests that needed indirect descriptors (> 11 segments)
 *   "bio_based"        a dm/md/zram device issues no requests: its figures are bios
 *   "layer_read", "layer_write"  (layers.c) what a layer's reads or writes became on the
 *                      layers right under it
 * share is the fraction of read/write requests with a payload the finding is about (0..1).
 */
struct finding {
	char kind[24];
	double share;
	char text[384]; /* one plain sentence, no trailing newline */
};

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
