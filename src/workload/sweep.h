/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef BLKTRACE_BENCH_SWEEP_H
#define BLKTRACE_BENCH_SWEEP_H

#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include "workload/spec.h"
#include "disk/knob.h"
#include "result/run.h"
#include "disk/sweep_state.h"
#include "workload/target.h"
#include "trace/tracer.h"

/* The system paths the workload's checks read: cmd_trace's, or a test's fake ones. */
struct workload_env {
	struct target_env target;
	struct sweep_env state;
	/* The layers of the traced device's stack: --set DEV:KNOB may name one of them. */
	struct layer *layers;
	size_t nr_layers;
	/* What the sweep says as it goes ("restored max_sectors_kb=1280 on loop0"); NULL:
	 * nothing. */
	FILE *notes;
};

/* One workload invocation: its target, and the sweep's knob, lock and state. */
struct sweep {
	const struct workload_spec *w;
	FILE *notes; /* the env's */
	struct device *d;
	struct target target;
	struct knob knob;
	struct device *knob_dev;   /* what --set changes: d, or a layer named "DEV:KNOB" */
	int knob_layer;		   /* its index in the stack's layers; -1: d itself */
	struct sweep_state *state; /* held during a --set sweep */
	bool restore_failed;	   /* said once; the state file keeps the original */
	bool said_huge;		   /* --hugepages not granted: said once */
	bool write;
	const uint64_t *bs_list;
	int nr_bs;
	uint64_t default_bs;
	uint64_t max_size; /* the largest bytes per run; 0: whole file or disk */
	int drop_fd;	   /* --drop-caches: /proc/sys/vm/drop_caches, opened when checked */
};

struct diag;

/*
 * Everything that can be decided or refused before tracing starts: the options, the
 * target (opened, checked, a read job's new file filled), and for a --set sweep the
 * disk's lock, the recovery of what a dead sweep left, the original value recorded
 * and a trial write of every value. dev's limits are re-read when a recovery changed
 * them. Returns 0; -EINTR when *stop was set; another negative errno with the reason
 * in d, bad input for a refusal (a busy lock included). On error everything is
 * already undone.
 */
int sweep__prepare(struct sweep *j, const struct workload_spec *w, struct device *dev,
		   const struct workload_env *env, volatile sig_atomic_t *stop, struct diag *d);

/*
 * One traced run per (value, block size, repetition), appended to res, then the swept
 * value restored (said on the env's notes). Returns 0; -EINTR when *stop was set (the runs so
 * far are kept); another negative errno with the reason in d.
 */
int sweep__run(struct sweep *j, struct tracer *t, struct result *res, volatile sig_atomic_t *stop,
	       struct diag *d);

/*
 * Every block size and repetition of the job, appended to res, with knob=value in force:
 * for callers that know it is (a sweep across reboots measures the boot's value). Returns
 * as sweep__run does.
 */
int sweep__run_set(struct sweep *j, struct tracer *t, struct result *res, const char *knob,
		   const char *value, volatile sig_atomic_t *stop, struct diag *d);

/*
 * One traced run of the job's (first) block size, repetition rep, appended to res. For
 * callers that set the queue themselves (tune): knob=value (knob NULL: none) labels the
 * run, and the limits in force are recorded with it. Returns as sweep__run does.
 */
int sweep__run_one(struct sweep *j, struct tracer *t, struct result *res, unsigned int rep,
		   const char *knob, const char *value, volatile sig_atomic_t *stop,
		   struct diag *d);

/* Restore what is still changed, forget the state, release the lock, close the target. */
void sweep__close(struct sweep *j);

#endif /* BLKTRACE_BENCH_SWEEP_H */
