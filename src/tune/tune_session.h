/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The measurements of tune and verify on a real disk, through the modules a --set
 * sweep uses: the workload checked and its target opened (sweep__prepare, target.c);
 * the disk's lock taken and what a dead sweep left put back (sweep_state.c); the
 * original of every setting tune may change recorded in the state file before the
 * first change (so a SIGKILL is repaired by the next run or `restore DEV`), each
 * candidate value tried once (values the kernel refuses are dropped, said on stderr);
 * then one traced run of the workload per repetition (sweep__run_one), the settings
 * put in force as each configuration needs. tune_session__close puts every setting
 * back, in order (the scheduler before nr_requests, which a scheduler change resets),
 * on success, on error and after a signal.
 */
#ifndef BLKTRACE_BENCH_TUNE_SESSION_H
#define BLKTRACE_BENCH_TUNE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include "disk/knob.h"
#include "workload/sweep.h"
#include "trace/tracer.h"
#include "tune/tune.h"

struct tune_session {
	struct workload_spec w; /* the workload (tune's --set values are not a sweep) */
	struct device *dev;
	struct result *res; /* the runs go here */
	struct sweep job;   /* the target */
	bool job_open;
	struct sweep_state *state;		  /* the disk's lock */
	struct knob knobs[TUNE_MAX_KNOBS];	  /* by t->knobs' index; name "" when not armed */
	char now[TUNE_MAX_KNOBS][TUNE_VALUE_MAX]; /* the value in force */
	bool restore_failed;
	struct tracer *tracer;
	volatile sig_atomic_t *stop;
	FILE *notes; /* the env's: what the session says as it goes */
};

struct diag;

/*
 * Check the workload w and open its target, take dev's lock, put back what a dead sweep
 * left (dev's limits re-read). 0; -EINTR; or -errno with one line in d, bad input for a
 * refusal (a busy disk included). res receives the runs. On error everything is undone.
 */
int tune_session__open(struct tune_session *s, const struct workload_spec *w, struct device *dev,
		       struct result *res, const struct workload_env *env,
		       volatile sig_atomic_t *stop, struct diag *d);

/*
 * Before the first change: record the original of every knob t tunes (and of those a
 * scheduler change resets), then try each value once; values the kernel refuses leave
 * t->knobs. 0 or -errno with d.
 */
int tune_session__arm(struct tune_session *s, struct tune *t, struct diag *d);

/*
 * Load and attach the tracer (topts without devs) to the session's disk alone: the
 * settings tune changes and verify checks are its own, not its stack's (a dm device's
 * layers keep theirs). 0 or -errno with d.
 */
int tune_session__trace(struct tune_session *s, const struct tracer_opts *topts, struct diag *d);

/*
 * One run of the workload as found, before the runs that count: the first run on a
 * fresh file, a cold cache or an idle device is slower than the ones after it. It is
 * kept in the result, labelled warm_up=1 (TUNE_WARM_UP_LABEL); *run is its index.
 */
int tune_session__warm_up(struct tune_session *s, size_t *run, struct diag *d);

/* struct tune_ops's measure, ctx the session. */
int tune_session__measure(void *ctx, const char *const *values, const char *knob, const char *value,
			  unsigned int rep, double *mbps, size_t *run, struct diag *d);
/* struct tune_ops's now: CLOCK_MONOTONIC seconds. */
double tune_session__now(void *ctx);

/*
 * Detach the tracer, put every setting back (each said on stderr), forget the state,
 * release the lock, close the target. 0, or -EIO when a setting could not be put back
 * (said loudly, with what to write where; `restore DEV` tries again). Safe twice.
 */
int tune_session__close(struct tune_session *s);

#endif /* BLKTRACE_BENCH_TUNE_SESSION_H */
