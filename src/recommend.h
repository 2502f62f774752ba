/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef BLKTRACE_BENCH_RECOMMEND_H
#define BLKTRACE_BENCH_RECOMMEND_H

#include <stdio.h>
#include <jansson.h>
#include "device.h"

/*
 * After a --set sweep: per workload (the series that differ only in the knob's
 * value), the value with the best mean app.mb_per_s, and the smallest value whose
 * throughput is statistically indistinguishable from it (Welch, p >= 0.05), with
 * the evidence. For xen-blkfront, the max_sectors_kb it recommends becomes the
 * max_indirect_segments boot parameter that allows it. NULL when series has no
 * sweep.
 */
json_t *recommend_json(json_t *series, const struct device *dev);
void recommend_text(FILE *f, json_t *recommendation);

#endif /* BLKTRACE_BENCH_RECOMMEND_H */
