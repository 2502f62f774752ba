/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by bpf/blkio.bpf.c and the loader. Fixed-width types only, no libc
 * includes, so the two halves can never disagree about a layout.
 */
#ifndef BLKTRACE_BENCH_BLKIO_H
#define BLKTRACE_BENCH_BLKIO_H

#include "hist.h"

/* Operation classes: the index into per-op counters and size histograms. */
enum blkio_op {
	BLKIO_OP_READ = 0,
	BLKIO_OP_WRITE,
	BLKIO_OP_FLUSH,
	BLKIO_OP_DISCARD,
	BLKIO_OP_OTHER,
	BLKIO_NR_OPS,
};

/* Latency histograms, the keys of the lat_hist map. */
enum blkio_lat_kind {
	BLKIO_LAT_QUEUE = 0, /* allocation to issue (G2D) */
	BLKIO_LAT_DEVICE,    /* issue to completion (D2C) */
	BLKIO_LAT_TOTAL,     /* allocation to completion (G2C) */
	BLKIO_NR_LATS,
};

/* Size histograms, the keys of the size_hist map. */
enum blkio_size_kind {
	BLKIO_SIZE_READ = 0,
	BLKIO_SIZE_WRITE,
	BLKIO_SIZE_OTHER, /* discard, write-zeroes, ... (flush carries no data) */
	BLKIO_SIZE_SEGMENT, /* bytes per physical segment, all data requests */
	BLKIO_NR_SIZE_HISTS,
};

/* Count histograms, the keys of the count_hist map. */
enum blkio_count_kind {
	BLKIO_COUNT_SEGMENTS = 0, /* nr_phys_segments per data request */
	BLKIO_COUNT_DEPTH,	  /* requests of the disk in flight at issue, this one included */
	BLKIO_NR_COUNT_HISTS,
};

/*
 * Per-CPU counters. User space sums the CPUs (and takes the max of the max_*
 * fields). Sums are kept so that means are exact, not bucket estimates.
 */
struct blkio_counters {
	__u64 requests[BLKIO_NR_OPS];	/* issued requests per op */
	__u64 bytes[BLKIO_NR_OPS];	/* issued bytes per op */
	__u64 completed;		/* completions of requests seen at issue */
	__u64 completed_bytes;
	__u64 untracked;		/* completions/requeues of requests issued before tracing */
	__u64 stale_slots;		/* issue found its slot still occupied: a completion was missed */
	__u64 slot_overflow;		/* (hw queue, tag) outside the slot table: no depth or D2C */
	__u64 merges;			/* bios merged into an existing request */
	__u64 rq_merges;		/* requests merged into another request */
	__u64 splits;
	__u64 requeues;
	__u64 errors;
	__u64 lost_events;		/* ring buffer reserve failures (snoop mode) */
	__u64 sum_segments;		/* over data requests */
	__u64 data_requests;		/* requests with a payload (segments > 0) */
	__u64 sum_depth;
	__u64 sum_ns[BLKIO_NR_LATS];
	__u64 nr_ns[BLKIO_NR_LATS];	/* samples in each latency histogram */
};

/*
 * Per-CPU maxima, in a map of their own: sums are read as deltas of two snapshots,
 * but a maximum cannot be subtracted, so user space zeroes this map when a run
 * starts (tracer__reset_max).
 */
struct blkio_maxes {
	__u64 ns[BLKIO_NR_LATS];
	__u64 bytes;
	__u64 segments;
	__u64 depth;
};

struct blkio_size_hist {
	__u64 slots[HIST_SIZE_BUCKETS];
};

struct blkio_count_hist {
	__u64 slots[HIST_COUNT_BUCKETS];
};

struct blkio_lat_hist {
	__u64 slots[HIST_LAT_BUCKETS];
};

/* One record per completed request in snoop mode, written as-is to the snoop file. */
struct blkio_event {
	__u64 ts_ns;		/* completion, CLOCK_MONOTONIC */
	__u64 sector;
	__u64 queue_ns;
	__u64 device_ns;
	__u32 bytes;
	__u32 dev;		/* MAJ << 20 | MIN, the kernel's dev_t encoding */
	__u16 segments;
	__u16 depth;
	__u8 op;		/* enum blkio_op */
	__u8 error;
	__u8 pad[2];
};

#define BLKIO_DEV(major, minor) (((__u32)(major) << 20) | (__u32)(minor))

#endif /* BLKTRACE_BENCH_BLKIO_H */
