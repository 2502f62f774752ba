/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * --blktrace DIR: the per-event tracer's records written as the kernel's blktrace
 * writes them, one file per CPU for each traced device (DIR/NAME.blktrace.CPU, NAME the
 * device's name: what `blkparse -i NAME -D DIR`, btt, iowatcher and btrecord read).
 *
 * Each record is a struct blk_io_trace (include/uapi/linux/blktrace_api.h) in the host's
 * byte order: magic | version 7, a sequence number per CPU from 1, the time in ns since
 * tracing started (CLOCK_MONOTONIC, as the kernel's), sector, bytes, action, pid, the
 * traced device's number (MAJ << 20 | MIN; a partition's own), cpu, error, then its
 * payload. A process note (BLK_TN_PROCESS, the task's name) precedes a task's first
 * event on each device, and a BLK_TN_TIMESTAMP note (the wall clock at the start) opens
 * CPU 0's file. Records the ring buffer had no room for are counted, as blktrace counts
 * its drops.
 *
 * The files follow the output policy (outfile.h): checked and created before anything
 * is traced, unnamed until complete, then renamed into place; DIR is created if missing
 * (and removed again if the run fails). A trace of the same name with more CPU files
 * (from a larger machine) has those removed, or blkparse would read them with ours.
 */
#ifndef BLKTRACE_BENCH_BTRACE_OUT_H
#define BLKTRACE_BENCH_BTRACE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include "trace/btrace.h"
#include "result/btrace_summary.h"
#include "disk/device.h"
#include "files/outfile.h"

struct btrace_out;
struct diag;

/*
 * Check DIR and create the files of devs[0..n) (as the tracer's devices, the same
 * order), none of them any of inputs. 0, or -errno with d (bad input: DIR is not a
 * directory, a file is refused; a runtime failure: DIR cannot be created, no files).
 */
int btrace_out__open(struct btrace_out **out, const char *dir, const struct device *const *devs,
		     unsigned int n, const struct outfile_input *inputs, size_t nr_inputs,
		     struct diag *d);
/*
 * The ring buffer the records need (a power of 2: 3 drains at 150k requests a second per
 * CPU), for the aggregate tracer that holds it (tracer_opts.blktrace_ring_bytes).
 */
size_t btrace_out__ring_bytes(void);
/*
 * Load and attach the per-event programs (opts' devices are devs, opts' tracer opened
 * with that ring buffer), start writing.
 */
int btrace_out__start(struct btrace_out *o, const struct btrace_opts *opts, struct diag *d);
/* Detach the programs (the report's own I/O must not be traced). NULL is safe. */
void btrace_out__detach(struct btrace_out *o);
/*
 * Drain what is left, close the tracer, name the files; the summary of what they hold
 * goes to *sum (the caller's to free with btrace_summary__free). 0, or -errno with d.
 */
int btrace_out__commit(struct btrace_out *o, struct btrace_summary *sum, struct diag *d);
/* Stop, remove the unnamed files (and DIR if it was made), free. NULL is safe. */
void btrace_out__close(struct btrace_out *o);

#endif /* BLKTRACE_BENCH_BTRACE_OUT_H */
