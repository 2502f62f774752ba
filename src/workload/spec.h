/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The job the built-in workload runs: what it reads or writes, how, how often, on what,
 * and the queue setting swept across its runs. The command line fills one (trace's
 * --rw, --bs, --set...), tune another from a saved run's parameters; the sweep
 * (sweep.h) checks and runs it.
 */
#ifndef BLKTRACE_BENCH_WORKLOAD_SPEC_H
#define BLKTRACE_BENCH_WORKLOAD_SPEC_H

#include <stdbool.h>
#include <stdint.h>

/* The most block sizes, and the most values of a swept setting, in one job. */
#define MAX_BS_LIST 32

struct workload_spec {
	const char *rw;		  /* read, write, randread, randwrite; NULL: no workload */
	uint64_t bs[MAX_BS_LIST]; /* one set of runs per size; none: the default */
	int nr_bs;
	uint64_t size;	    /* bytes per run, 0 = not given */
	uint64_t count;	    /* blocks per run, 0 = not given */
	double runtime;	    /* seconds, 0 = none */
	const char *engine; /* psync (NULL: the default), io_uring */
	unsigned int iodepth;
	bool direct, sync, fsync, fdatasync; /* sync: O_DSYNC */
	unsigned int repeat;		     /* repetitions of every run; 0 counts as 1 */
	bool drop_caches;
	/* The target: the file (NULL: a new one, or the disk with raw), and what may be
	 * written over. */
	const char *file;
	bool raw, destructive, overwrite, any_fs;
	bool no_fixed_bufs; /* io_uring: leave the buffers unregistered, as fio does */
	bool hugepages;	    /* buffers in transparent huge pages */
	bool wrap;	    /* size may exceed the disk or file: go round it again */
	/* A sweep of a runtime queue setting (KNOB or DEV:KNOB), restored afterwards. */
	char set_knob[48];
	char set_arg[1024]; /* a copy of the values, which set_values point into */
	char *set_values[MAX_BS_LIST];
	int nr_set_values;
	bool recommend; /* choose among the swept values */
};

/* Copy from into to, to's set_values pointing into its own set_arg. */
void workload_spec__copy(struct workload_spec *to, const struct workload_spec *from);

#endif /* BLKTRACE_BENCH_WORKLOAD_SPEC_H */
