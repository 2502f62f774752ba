/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the device cannot explain: differences that arise above the block layer, from
 * the built-in workload's own figures beside the trace's. Two kinds, kind
 * "above_block_layer" both:
 *  - in one run, the application waiting much longer per I/O than the block layer took
 *    (direct I/O, one request per I/O: the rest is the system call and the engine);
 *  - across two series the device saw alike (the same request sizes, the same device
 *    bytes per application byte) whose throughput still differs: per-call overhead,
 *    the page cache, the engine (the BALUG case: dd bs=512 and bs=128k, the same 128 KiB
 *    read-ahead requests, 3.5x apart).
 * Computed once by report.c and summary.c; nothing here prints.
 */
#ifndef BLKTRACE_BENCH_ABOVE_H
#define BLKTRACE_BENCH_ABOVE_H

#include <stddef.h>
#include "analysis/findings.h"
#include "analysis/series.h"

/* Throughput this many times apart, or application latency this many times the block
 * layer's, before a difference is said to be above the block layer. */
#define ABOVE_RATIO 1.5
/* Request sizes and device bytes per application byte this close count as the same. */
#define ABOVE_SAME 0.10
/* Pairs said at most, the largest ratios first. */
#define ABOVE_MAX 8

/* Two series of runs the device saw alike, their throughputs ratio apart. */
struct above_pair {
	size_t slow, fast; /* indexes into the series */
	double ratio;	   /* fast MB/s over slow MB/s */
	char text[1024];   /* one plain sentence */
};

struct above_pairs {
	struct above_pair p[ABOVE_MAX];
	size_t nr;
};

/*
 * The run's own finding into *out when its application latency is more than ABOVE_RATIO
 * times the block layer's (allocation to completion): 1, or 0 when it is not, or
 * unknown (no workload, buffered I/O, I/Os that are not one request each).
 */
int above__run(const struct run_summary *s, struct finding *out);

/* The pairs of series the device saw alike whose throughput differs. */
void above__series(const struct series_set *ss, const struct run_summary *runs,
		   struct above_pairs *out);

#endif /* BLKTRACE_BENCH_ABOVE_H */
