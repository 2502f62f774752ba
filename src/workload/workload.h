/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The built-in workload: one timed run of a job (struct job_params) on an open fd,
 * measured from the application's side (struct app_stats).
 *
 * What a run addresses: the region [0, R) where R is p->size clamped to file_size
 * (either may be 0, meaning "not given"), rounded down to a multiple of bs.
 * Sequential jobs walk 0, bs, 2bs, ... and wrap at R; random jobs pick uniform
 * bs-aligned offsets in [0, R) from a splitmix64 stream with a fixed seed, so every
 * repetition issues the same offsets.
 *
 * How long a run lasts:
 *  - runtime == 0: exactly size / bs I/Os (the whole region when size is 0);
 *  - runtime > 0: time-based; I/Os go on, wrapping in the region, until runtime
 *    seconds have passed;
 *  - *stop set (Ctrl-C): in-flight I/Os are drained, the stats so far are filled
 *    in and the run returns -EINTR.
 */
#ifndef BLKTRACE_BENCH_WORKLOAD_H
#define BLKTRACE_BENCH_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "result/run.h"

struct engine_ops;

/* Largest block size and queue depth a job may ask for; the block size without --bs. */
#define WORKLOAD_MAX_BS (1ULL << 30)
#define WORKLOAD_MAX_DEPTH 4096U
#define WORKLOAD_DEFAULT_BS 4096

struct workload_opts {
	const struct engine_ops *engine; /* NULL: engine__find(p->engine) */
	bool fixed_bufs;		 /* io_uring: register the buffers when allowed; the
					  * outcome is app_stats.registered_bufs */
	uint64_t seed;			 /* random offsets; 0: the built-in seed */
	bool hugepages;			 /* buffers in transparent huge pages, as far as the
					  * kernel grants them: app_stats.huge_bufs says */
};

/*
 * One run of p on fd, which the caller opened (O_DIRECT, O_DSYNC per p) and owns.
 * file_size bounds the offsets (see above); pass 0 for a new file that writes extend.
 * The timed interval starts at the first submission and ends after the last
 * completion, including the final fsync/fdatasync when p asks for one. *out is
 * always filled (zeroed on a parameter error). stop may be NULL.
 *
 * Returns 0; -EINVAL for a bad job (unknown rw or engine, bs 0 or above
 * WORKLOAD_MAX_BS, size not a multiple of bs, nothing to address); -EINTR when
 * stopped; -EIO when a read hits end of file; otherwise the first I/O's -errno.
 */
int workload__run(const struct job_params *p, int fd, uint64_t file_size, struct app_stats *out,
		  volatile sig_atomic_t *stop);
/* The same with options beyond the job; opts may be NULL. */
int workload__run_opts(const struct job_params *p, int fd, uint64_t file_size,
		       const struct workload_opts *opts, struct app_stats *out,
		       volatile sig_atomic_t *stop);

/*
 * Write size bytes of the workload pattern at the start of fd with large sequential
 * writes and fsync them, so that a read job finds real blocks, then drop their pages
 * from the cache. 0, -EINTR when *stop was set (stop may be NULL), or -errno.
 */
int workload__fill_fd(int fd, uint64_t size, volatile sig_atomic_t *stop);

/* Bytes of a regular file or block device. */
int workload__file_size(int fd, uint64_t *size);

/*
 * The bytes write jobs write (every buffer starts at byte 0 of it) and prepared
 * files hold: a fixed pseudo-random stream, neither zero nor compressible, so no
 * layer can shortcut the I/O by deduplicating zero pages or compressing.
 */
void workload__fill_pattern(void *buf, size_t len);

#endif /* BLKTRACE_BENCH_WORKLOAD_H */
