/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Saved results read back (compare's input): a result file -> the run summaries a live
 * run has, every field read checked; see result_load.c.
 */
#ifndef BLKTRACE_BENCH_RESULT_LOAD_H
#define BLKTRACE_BENCH_RESULT_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "result/run_summary.h"

struct loaded_result {
	json_t *header;		  /* schema, tool_version, command_line, host, device */
	struct run_summary *runs; /* label, params, metrics, the two histograms */
	size_t nr_runs;
	bool has_runs; /* "runs" was an array */
};

struct diag;

/*
 * Read and check a result file. 0, or a negative errno with one line in d naming the
 * file and what is wrong: bad input when it is not JSON (with line and column), not a
 * result, of a schema newer than ours, with runs that cannot be matched or a field of
 * the wrong type or out of range, named by its path (runs[3].app.mb_per_s); a runtime
 * failure when it cannot be opened or read, or memory runs out. Memory grows with the
 * runs, not with the file. out is zeroed on error.
 */
int result_load__file(const char *path, struct loaded_result *out, struct diag *d);
/* The same for a document in memory; name stands for the file in messages. */
int result_load__buffer(const char *name, const char *buf, size_t len, struct loaded_result *out,
			struct diag *d);
int result_load__string(const char *name, const char *text, struct loaded_result *out,
			struct diag *d);
void result_load__free(struct loaded_result *lr);

/*
 * The same, calling each(ctx, i, run, rs, d) with every run once it is checked and read
 * into rs, while its JSON is at hand (result_read.c reads the rest of it); a negative
 * errno from each ends the load with it, each's message in d (the file's name is put in
 * front of it).
 */
typedef int (*result_load_run_fn)(void *ctx, size_t i, json_t *run, const struct run_summary *rs,
				  struct diag *d);
int result_load__file_each(const char *path, struct loaded_result *out, result_load_run_fn each,
			   void *ctx, struct diag *d);
int result_load__buffer_each(const char *name, const char *buf, size_t len,
			     struct loaded_result *out, result_load_run_fn each, void *ctx,
			     struct diag *d);
/*
 * The bucket array at path ("block.device_ns.buckets") of run i into out, checked as
 * the loader checks its own: ascending, disjoint, each a bucket of kind, at most as
 * many as the histogram has. 0, or a negative errno with one line in d (bad input),
 * without the file's name (each's caller puts it in front).
 */
int result_load__buckets(size_t run, const char *path, enum hist_kind kind, json_t *buckets,
			 __u64 *out, struct diag *d);

/* "an object", "a number", ...: for messages. */
const char *result_load__type_name(json_t *v);

#endif /* BLKTRACE_BENCH_RESULT_LOAD_H */
