/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The per-event tracer of --blktrace: an opaque handle over bpf/blktrace.bpf.c's
 * skeleton, loaded beside the aggregate tracer (tracer.h) only when asked, with the same
 * devices and disk filter; the aggregate's issue and completion programs log D and C,
 * into its maps, which this one reuses (bpf/blktrace_rec.bpf.h). Its records (struct btrace_rec: a
 * request's events; struct btrace_task: a task's name) come through a ring buffer that btrace_out.c
 * drains into blktrace's files. Functions return 0 or a negative errno (btrace__open with the
 * reason in a struct diag); btrace__close(NULL) is safe.
 */
#ifndef BLKTRACE_BENCH_BTRACE_H
#define BLKTRACE_BENCH_BTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <linux/types.h>
#include "blktrace.h"
#include "result/btrace_summary.h"
#include "disk/device.h"

struct btrace;
struct diag;
struct tracer;

struct btrace_opts {
	const struct device *const *devs; /* as tracer_opts: a record's device is the index */
	unsigned int nr_devs;
	bool force_raw_tp;
	int verbose;
	FILE *notes; /* as tracer_opts */
	/*
	 * The aggregate tracer, opened for --blktrace (tracer_opts.blktrace_ring_bytes):
	 * its issue and completion programs log D and C, its maps hold the records. It
	 * must stay open until btrace__detach.
	 */
	const struct tracer *tracer;
	/* Tests: about one record in N stalls up to ~6 ms before its count (env_config.h). */
	unsigned int stall_every;
};

int btrace__open(const struct btrace_opts *opts, struct btrace **out, struct diag *d);
int btrace__start(struct btrace *b);
/* Detach the programs, keep the maps (to drain the ring buffer and read the losses). */
void btrace__detach(struct btrace *b);
void btrace__close(struct btrace *b);
int btrace__events_fd(const struct btrace *b);
/* Events, and task names, the ring buffer had no room for, all CPUs. 0 or -errno. */
int btrace__lost(struct btrace *b, uint64_t *lost, uint64_t *notes_lost);
/*
 * The records begun and the records lost, by epoch modulo BTRACE_EPOCHS (blktrace.h),
 * summed over the CPUs modulo 2^32, and the events lost in all (btrace__lost). 0 or -errno.
 */
int btrace__counts(struct btrace *b, uint32_t opened[BTRACE_EPOCHS],
		   uint32_t dropped[BTRACE_EPOCHS], uint64_t *lost);
/*
 * At the last btrace__counts' read, whether CPU (of the possible ones) had no program of ours
 * between the clock read of a record it may begin and that record's count (busy, blktrace.h).
 */
bool btrace__cpu_idle(const struct btrace *b, int cpu);
typedef int (*btrace_rec_fn)(void *ctx, const struct btrace_rec *r);
/*
 * The records of the last btrace__counts' read that wait in a CPU's cache (a bio's Q and
 * G, no request yet) since an epoch before BEFORE, to fn as btrace__held's.
 */
int btrace__cached(const struct btrace *b, uint32_t before, btrace_rec_fn fn, void *ctx);
/*
 * After btrace__detach: each record the programs still hold (requests not completed, a
 * bio's events never claimed by a request) to fn, which stops the walk by returning
 * non-zero. 0, fn's value or -errno.
 */
int btrace__held(struct btrace *b, btrace_rec_fn fn, void *ctx);
/*
 * Events our programs missed, by action (__BLK_TA_*): the kernel runs a program on a
 * tracepoint only when that program is not running on the CPU already (commit
 * 05b24ff9b2cf, v6.1, and the stable kernels before it since), and counts each run it
 * skips in the program's recursion_misses; a kernel without the check runs it nested.
 * The programs filter the disks themselves: a skipped run may be another disk's event.
 * 0 or -errno.
 */
int btrace__skipped(struct btrace *b, uint64_t skipped[BTRACE_NR_ACTIONS]);

#endif /* BLKTRACE_BENCH_BTRACE_H */
