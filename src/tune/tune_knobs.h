/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The queue settings tune measures for one disk and one workload, and the values it
 * tries, chosen from the disk's limits and from what the workload can feel:
 *   max_sectors_kb  powers of two from 64 KiB up to max_hw_sectors_kb, and that; for
 *                   direct I/O none above the I/O size, and not at all when the I/O
 *                   size stays below every value
 *   read_ahead_kb   0, 128, 512, 2048, 8192: buffered reads only
 *   scheduler       each one queue/scheduler offers
 *   nr_requests     a quarter, half, twice and four times the current depth (not
 *                   above the driver's tags without a scheduler): when more than one
 *                   I/O is in flight (iodepth > 1, buffered writes)
 *   wbt_lat_usec    0 (off): buffered writes only, where throttling is on
 *   nomerges, rq_affinity  0, 1, 2: only when --knobs names them
 * --knobs LIST tunes those knobs, whatever the workload; --set KNOB=V1,V2 gives the
 * values of one (the only one, without --knobs). The value in force is the baseline,
 * never among the values. Knobs left out stay in the list with the reason.
 */
#ifndef BLKTRACE_BENCH_TUNE_KNOBS_H
#define BLKTRACE_BENCH_TUNE_KNOBS_H

#include <stddef.h>
#include "disk/device.h"
#include "result/run.h"
#include "tune/tune.h"

struct tune_knob_req {
	const char *only;     /* --knobs LIST; NULL: the default set */
	const char *set_knob; /* --set KNOB=V1,...: these values for KNOB; NULL: none */
	char *const *set_values;
	int nr_set_values;
};

struct diag;

/*
 * Fill t->knobs for disk dev and the workload p (bs, direct, rw, iodepth). Writes
 * nothing. 0; -EINVAL with one line in d for a bad --knobs or --set, or when nothing is
 * left to tune (d says why for each knob).
 */
int tune_knobs__choose(struct tune *t, const struct device *dev, const struct job_params *p,
		       const struct tune_knob_req *req, struct diag *d);

#endif /* BLKTRACE_BENCH_TUNE_KNOBS_H */
