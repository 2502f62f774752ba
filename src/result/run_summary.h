/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The derived figures of a run, as types: what analysis/summary.c computes from a live
 * run and store/result_load.c reads back from a saved one, for every printer, the series
 * and compare. Only types here, so that the layers under analysis can hold them.
 */
#ifndef BLKTRACE_BENCH_RUN_SUMMARY_H
#define BLKTRACE_BENCH_RUN_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include "base/histogram.h"
#include "disk/device.h"
#include "result/metrics.h"
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

struct dist {
	uint64_t count;
	double mean;
	double p50, p90, p99, p999;
	uint64_t max;
};

struct block_summary {
	struct dist size;      /* bytes per request with a payload */
	struct dist segments;  /* physical segments per read/write request */
	struct dist seg_bytes; /* bytes per segment */
	struct dist depth;     /* in flight at issue (several queues: a sample of the issues) */
	struct dist hwq_depth; /* in flight on its hardware queue at issue (several queues) */
	struct dist lat[BLKIO_NR_LATS];
	uint64_t data_requests;	 /* read + write requests with a payload */
	uint64_t size_bound;	 /* of those, size >= max_sectors_kb */
	uint64_t segments_bound; /* of those, segments >= max_segments */
	double limit_sectors;	 /* shares of data_requests, 0 when there are none */
	double limit_segments;
	uint64_t requests, bytes; /* every op */
	double io_seconds;	  /* first issue to last completion; 0 when not both seen */
	double merges_per_request;
	__u64 size_all[HIST_SIZE_BUCKETS]; /* read + write + other */
};

/* What xen-blkfront did with a run's requests (block_stats.ring), when its rings were probed. */
struct ring_summary {
	bool present;
	uint64_t requests, direct, indirect, no_data;
	uint64_t grants, indirect_pages, copied_grants;
	uint64_t full_stops, grant_stops, waits, unmatched;
	double wait_mean_ns; /* per request turned away: until it went on the ring */
	double full_share;   /* of the run's seconds, the rings were full (summed over rings) */
	struct dist grants_direct, grants_indirect; /* data grants per request */
	struct dist occupancy;			    /* ring slots in use at submission */
	struct dist backend;			    /* ns, submission to the backend's interrupt */
};

/* What the application saw in one run of the built-in workload. */
struct app_summary {
	uint64_t bytes, ios;
	double seconds;
	double mb_per_s; /* decimal, like dd */
	double mib_per_s;
	double iops;
	struct dist lat; /* per application I/O, ns */
	bool registered_bufs, huge_bufs;
};

/*
 * Everything derived from one run, computed once (run_summary__compute) for every
 * printer, the series and compare; or, for a saved result, read back from its file
 * (result_load.c: the label, params, metrics and the two histograms compare prints).
 */
struct layer_summary;

struct run_summary {
	const struct run *run; /* the run it was computed from; NULL when loaded */
	char label[256];
	struct job_params params; /* params.rw[0] == '\0': passive or command mode */
	unsigned int repetition;
	bool partial; /* cut short: left out of the series (series.h) */
	double seconds;
	/*
	 * What rates are over: a command's I/O alone (block.io_seconds: its start-up and
	 * exit are no I/O, and fio's own MB/s is over its I/O), else seconds.
	 */
	double rate_seconds;
	bool command;
	bool has_block, has_app;
	struct block_summary block;
	struct ring_summary ring;
	__u64 segments_all[HIST_COUNT_BUCKETS]; /* segments per request */
	struct app_summary app;
	struct queue_limits limits; /* in force during the run */
	struct finding findings[FINDINGS_MAX];
	int nr_findings;
	struct layer_summary *layers; /* one per res->nr_layers (layers.h); NULL without */
	size_t nr_layers;
	double metric[NR_METRICS]; /* see metrics.h */
	bool has_metric[NR_METRICS];
};

#endif /* BLKTRACE_BENCH_RUN_SUMMARY_H */
