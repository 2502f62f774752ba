/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The single result model: every report backend and compare read these structs,
 * nothing else. A `struct result` is one invocation: the host, the disk, and the
 * runs (one per repetition of one parameter set, or one for passive/command mode).
 */
#ifndef BLKTRACE_BENCH_RUN_H
#define BLKTRACE_BENCH_RUN_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdint.h>
#include "blkio.h"
#include "blkfront.h"
#include "result/btrace_summary.h"
#include "disk/device.h"
#include "disk/stack.h"

/* What the tracer saw over one interval: sums over CPUs, deltas of two snapshots. */
/*
 * A device's hardware queues, from the in-flight counts of each (bpf/blkio.h, struct
 * blkio_queue): what was issued to each, and its deepest point; how the disk's depth was
 * sampled. All __u64 (delta).
 */
#define BLOCK_HWQS_MAX 64

struct hwq_stats {
	__u64 nr; /* the device's queues (over its members); the first BLOCK_HWQS_MAX here */
	/* The disk's depth (block_stats.count): read at high rates on one issue in this many,
	 * counted as many times (block_depth_every); 0: every issue. */
	__u64 depth_every;
	__u64 issued[BLOCK_HWQS_MAX];	 /* requests issued to each (again after a requeue) */
	__u64 max_depth[BLOCK_HWQS_MAX]; /* in flight on it at an issue, at most (interval) */
	__u64 depth[HIST_COUNT_BUCKETS]; /* in flight on its queue at each issue (all queues) */
};

struct block_stats {
	struct blkio_counters c;
	struct blkio_maxes max;
	__u64 size[BLKIO_NR_SIZE_HISTS][HIST_SIZE_BUCKETS];
	__u64 count[BLKIO_NR_COUNT_HISTS][HIST_COUNT_BUCKETS];
	__u64 lat[BLKIO_NR_LATS][HIST_LAT_BUCKETS];
	/* xen-blkfront's rings (result.ring_probes says whether they were probed): zero else */
	struct blkfront_counts ring;
	/* Its hardware queues; their figures only when it has several (nr > 1). */
	struct hwq_stats hwq;
};

/* The disk's depth is read at high rates on one issue in this many (1: every issue). */
static inline __u64 block_depth_every(const struct block_stats *b)
{
	return b->hwq.depth_every ? b->hwq.depth_every : 1;
}

/* What the built-in workload saw, application side. */
struct app_stats {
	uint64_t bytes;
	uint64_t ios;
	uint64_t ns; /* wall time of the timed part */
	uint64_t lat_sum_ns;
	uint64_t lat_max_ns;
	bool registered_bufs; /* io_uring: the buffers were registered (pinned once) */
	bool huge_bufs;	      /* --hugepages: the buffers really are in huge pages */
	__u64 lat[HIST_LAT_BUCKETS];
};

/* Parameters of a built-in workload run; rw[0] == '\0' for passive/command runs. */
struct job_params {
	char rw[16]; /* read, write, randread, randwrite */
	uint64_t bs;
	uint64_t size;
	double runtime;	 /* seconds, 0 = none */
	char engine[16]; /* psync, io_uring */
	unsigned int iodepth;
	bool direct, sync, fsync, fdatasync;
	char set_knob[48];   /* --set sweeps: the knob and this run's value */
	char set_value[128]; /* tune's combination: "max_sectors_kb=1024,scheduler=none" */
};

/*
 * The job parameters as a result's "params" holds them, one table for all who name
 * them: report_json.c writes them in this order, result_load.c reads them back,
 * series.c keys runs by them. The --set knob and value follow as "KNOB": "VALUE".
 */
enum job_param_type {
	JOB_PARAM_STRING,  /* char[size] */
	JOB_PARAM_U64,	   /* uint64_t, at most INT64_MAX in a file (JSON integers) */
	JOB_PARAM_UINT,	   /* unsigned int */
	JOB_PARAM_SECONDS, /* double, >= 0 */
	JOB_PARAM_BOOL,
};

struct job_param_def {
	const char *name;
	enum job_param_type type;
	size_t offset; /* of the field in struct job_params */
	size_t size;   /* of the field */
};

#define NR_JOB_PARAMS 10
extern const struct job_param_def job_param_defs[NR_JOB_PARAMS];

/* The parameter called name, NULL when there is none (a --set knob). */
const struct job_param_def *job_param__find(const char *name);
/* The field of p that def describes. */
void *job_param__field(const struct job_param_def *def, struct job_params *p);
const void *job_param__cfield(const struct job_param_def *def, const struct job_params *p);

/*
 * One --interval report of passive mode, kept for the charts over time: the few
 * figures they plot, not the interval's block_stats (75 KB each, an hour of 1 s
 * intervals would hold 270 MB).
 */
struct interval_sample {
	double start, seconds; /* since tracing began, and how long it covered */
	uint64_t requests, bytes;
	double depth_mean;
	uint64_t depth_max;
	double p99_ns[BLKIO_NR_LATS];
};

/*
 * A buffered read run's page cache: dropped before it (a raw disk's own, BLKFLSBUF, as
 * a fresh dd finds it; or the machine's, --drop-caches), or not when that failed: then
 * its reads may have come from the cache. NA where nothing is dropped (direct I/O,
 * writes, a file read without --drop-caches).
 */
enum run_cache {
	RUN_CACHE_NA,
	RUN_CACHE_COLD,
	RUN_CACHE_WARM,
};

struct run {
	char label[256];
	struct job_params params;
	unsigned int repetition; /* 0-based within its parameter set */
	double seconds;		 /* wall time of the traced interval */
	bool has_block;
	/* The traced device's, then one per layer of its stack (result.nr_layers). */
	struct block_stats *block;
	bool has_app;
	struct app_stats *app;
	bool command;	 /* command mode: seconds are the command's, fork to exit */
	int exit_status; /* command mode: the command's exit status */
	bool partial;	 /* cut short (a signal): not a repetition like the others */
	enum run_cache cache;
	char cache_note[128];	    /* RUN_CACHE_WARM: why ("BLKFLSBUF: Permission denied") */
	bool has_limits;	    /* the queue limits in force during this run (a --set sweep */
	struct queue_limits limits; /* changes them); otherwise the device's apply */
	struct interval_sample *intervals; /* passive mode with --interval, in order */
	size_t nr_intervals;
	/* A --set sweep of a layer's setting (DEV:KNOB): every layer's limits in this run. */
	struct queue_limits *layer_limits;
};

struct host_info {
	char kernel[128];
	char hostname[128];
};

struct result {
	char tool_version[32];
	char command_line[1024];
	struct host_info host;
	char tracer_flavour[16]; /* "tp_btf" or "raw_tp": the BPF programs that ran */
	/* The xen-blkfront probes: "fentry" or "kprobe" when they counted block_stats.ring;
	 * else "" and, for a xen-blkfront disk, why not in ring_note. */
	char ring_probes[16];
	char ring_note[256];
	/* Runs of them the kernel skipped (tracer__skipped), over the whole trace, of the
	 * traced disks or others; has_skipped: read (not from an older JSON, not --tune). */
	bool has_skipped;
	uint64_t tracer_skipped;
	struct device device;
	bool has_device;
	/* The layers under the device (stack.h), each traced with it; NULL/0 for a plain disk. */
	struct layer *layers;
	size_t nr_layers;
	char stack_note[256];	 /* what the stack discovery could not follow */
	char stack_top_kind[96]; /* the device in words, when it has layers: "md raid1" */
	struct run *runs;
	size_t nr_runs;
	/* --blktrace, import: what the blktrace files hold; NULL otherwise. */
	struct btrace_summary *blktrace;
	/* import: the queue and total latencies start at Q (the bio queued), not G. */
	bool lat_from_queue;
};

/* Allocation helpers (run.c). result__add_run returns the new zeroed run, NULL on ENOMEM. */
void run__free(struct run *r);
struct run *result__add_run(struct result *res, bool with_block, bool with_app);
void result__free(struct result *res);
/*
 * The runs the kernel skipped of the tracer's programs, in a sentence for the reports
 * (text, HTML); "" when none were skipped or it is not known. Returns buf.
 */
const char *result__skipped_text(const struct result *res, char *buf, size_t len);
/*
 * Move every run of from to the end of into (from keeps none): a result made of runs of
 * several invocations (a sweep across reboots). 0; -EINVAL when their stacks differ;
 * -ENOMEM (both as they were).
 */
int result__move_runs(struct result *into, struct result *from);
/* Append a copy of s to run's intervals. 0, or -ENOMEM. */
int run__add_interval(struct run *run, const struct interval_sample *s);
void host_info__read(struct host_info *host);
/* The disk as it was during run: the result's, with the run's own limits after --set. */
const struct device *run__device(const struct result *res, const struct run *run,
				 struct device *scratch);

/* The result file's "schema": what it promises its readers (doc/json.md). */
#define RESULT_SCHEMA "blktrace-bench/1"

/* The JSON keys of the ops and the latency splits, in their enums' order. */
extern const char *const blkio_op_names[BLKIO_NR_OPS];
extern const char *const blkio_lat_names[BLKIO_NR_LATS];

#endif /* BLKTRACE_BENCH_RUN_H */
