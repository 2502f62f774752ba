/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * tune: the best runtime queue settings of one disk for one workload, measured.
 *
 * One knob at a time, then the best combination:
 *  1. each knob in turn, a phase: the baseline (every setting as found) and each
 *     candidate value, the other knobs as found, min_reps repetitions each, value after
 *     value round after round; then, while the 95% confidence interval of the best
 *     overlaps another's, one more repetition of each (max_reps at most), so that the
 *     statistics can separate them. Runs drift (a fresh filesystem, the page cache,
 *     the neighbours of a VM), so each phase measures its own baseline beside its
 *     values and is judged against it alone;
 *  2. a knob's recommendation: of the values significantly better than the baseline
 *     (compare's rule, compare.h: Welch p < 0.05 and the intervals apart), the
 *     smallest one statistically as good as the best of them (Welch p >= 0.05);
 *     none: the knob stays as found;
 *  3. two or more knobs recommended: their combination, the best knob alone and a
 *     baseline are measured side by side, and the combination is recommended unless
 *     it is significantly worse than the best knob alone.
 * The budget: a run starts only while the longest run so far still fits; adaptive
 * repetitions only while the first repetitions of the knobs still to come fit too.
 *
 * Measuring is the caller's (struct tune_ops): tune_session.c changes the disk's
 * queue settings and runs the traced workload; the unit tests hand in a model.
 */
#ifndef BLKTRACE_BENCH_TUNE_H
#define BLKTRACE_BENCH_TUNE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include "analysis/compare.h"
#include "base/stats.h"

#define TUNE_MAX_KNOBS 7
#define TUNE_MAX_VALUES 16
#define TUNE_VALUE_MAX 64
#define TUNE_CONFIG_MAX 128 /* the combination: "max_sectors_kb=1024,scheduler=none" */
#define TUNE_MIN_REPS 3	    /* the default first repetitions of every configuration */
#define TUNE_MAX_REPS 10
/* A baseline and the values of each knob; the combination's baseline, knob and itself. */
#define TUNE_MAX_POINTS (TUNE_MAX_KNOBS * (1 + TUNE_MAX_VALUES) + 3)
#define TUNE_BUDGET_S 300.0 /* --budget's default */
/* A point's knob: an index into knobs[], or one of these. */
#define TUNE_BASELINE (-1)
#define TUNE_COMBINATION (-2)
/* The setting name the runs of the combination are labelled with (params.settings). */
#define TUNE_COMBINATION_LABEL "settings"
/* The setting name of the warm-up run, which no point counts (tune_session.c). */
#define TUNE_WARM_UP_LABEL "warm_up"

struct tune_knob {
	char name[32];
	char original[TUNE_VALUE_MAX];		      /* as found */
	char values[TUNE_MAX_VALUES][TUNE_VALUE_MAX]; /* to measure, the original not among them */
	int nr_values;
	char skipped[192]; /* why it is not tuned ("" when it is): printed, saved */
	/* The outcome. */
	bool measured;	  /* every value had its first repetitions */
	int recommended;  /* the point of the value recommended; -1: keep the original */
	char reason[256]; /* one sentence: why */
};

struct tune_point {
	int knob;		     /* index, TUNE_BASELINE or TUNE_COMBINATION */
	int base;		     /* the baseline point it is judged against; -1: it is one */
	char value[TUNE_CONFIG_MAX]; /* the knob's value; the combination's "a=1,b=2" */
	double x[TUNE_MAX_REPS];     /* app MB/s of each repetition */
	size_t run[TUNE_MAX_REPS];   /* its run's index in the caller's result */
	unsigned int n;
	struct agg agg;		       /* of x */
	struct metric_cmp vs_baseline; /* against base; n >= 2 on both sides, else unknown */
};

enum tune_stop {
	TUNE_COMPLETE,
	TUNE_STOP_BUDGET, /* note says what was left out */
	TUNE_STOP_INTERRUPTED,
};

struct tune {
	/* The caller's: the knobs (tune_knobs.c), the repetitions, the budget. */
	struct tune_knob knobs[TUNE_MAX_KNOBS];
	int nr_knobs;
	unsigned int min_reps, max_reps;
	double budget_s;
	/* The outcome: each phase's baseline, then its values; points[0] is a baseline. */
	struct tune_point points[TUNE_MAX_POINTS];
	int nr_points;
	int combination;  /* its point, -1 when not measured */
	int final;	  /* the recommended configuration's point; 0: keep everything */
	long warm_up_run; /* the caller's warm-up run in its result, -1: none */
	enum tune_stop stop;
	/* start_s, longest_s: the caller may set them for a run it made first (a warm-up). */
	double start_s, elapsed_s, longest_s;
	unsigned int nr_runs;
	char note[256]; /* why it stopped early, "" when it did not */
};

struct tune_ops {
	/*
	 * Repetition rep with knob k at values[k] (NULL: as found), labelled knob=value
	 * (knob NULL for the baseline). Sets *mbps to the run's app MB/s and *run to its
	 * index in the caller's result. 0; -EINTR when stopped; or -errno with a line in d.
	 */
	int (*measure)(void *ctx, const char *const *values, const char *knob, const char *value,
		       unsigned int rep, double *mbps, size_t *run, struct diag *d);
	double (*now)(void *ctx); /* seconds, monotonic */
	void *ctx;
};

/* Zero t and set the defaults: TUNE_MIN_REPS, TUNE_MAX_REPS, TUNE_BUDGET_S. */
void tune__init(struct tune *t);

struct diag;

/*
 * Measure and decide (see above). 0 when every knob was measured, or when the budget
 * ended it (t->stop, t->note); -EINTR when *stop was set; another -errno with d.
 * Whatever it returns, what was measured is in t->points and decided on.
 */
int tune__run(struct tune *t, const struct tune_ops *ops, volatile sig_atomic_t *stop,
	      struct diag *d);

/* The value of every knob in point p's configuration, NULL where it is as found. */
void tune__point_values(const struct tune *t, const struct tune_point *p,
			const char *values[TUNE_MAX_KNOBS]);

#endif /* BLKTRACE_BENCH_TUNE_H */
