// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Measuring and deciding the best queue settings; see tune.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/diag.h"
#include "base/parse.h"
#include "tune/tune.h"

void tune__init(struct tune *t)
{
	memset(t, 0, sizeof(*t));
	t->min_reps = TUNE_MIN_REPS;
	t->max_reps = TUNE_MAX_REPS;
	t->budget_s = TUNE_BUDGET_S;
	t->combination = -1;
	t->warm_up_run = -1;
}

void tune__point_values(const struct tune *t, const struct tune_point *p,
			const char *values[TUNE_MAX_KNOBS])
{
	int k;

	for (k = 0; k < TUNE_MAX_KNOBS; k++)
		values[k] = NULL;
	if (p->knob >= 0)
		values[p->knob] = p->value;
	for (k = 0; p->knob == TUNE_COMBINATION && k < t->nr_knobs; k++)
		if (t->knobs[k].recommended > 0)
			values[k] = t->points[t->knobs[k].recommended].value;
}

static int add_point(struct tune *t, int knob, const char *value, int base)
{
	struct tune_point *p = &t->points[t->nr_points];

	memset(p, 0, sizeof(*p));
	p->knob = knob;
	p->base = base;
	snprintf(p->value, sizeof(p->value), "%s", value);
	p->vs_baseline.verdict = VERDICT_UNKNOWN;
	return t->nr_points++;
}

static void set_note(struct tune *t, enum tune_stop why, const char *what)
{
	if (t->stop != TUNE_COMPLETE)
		return;
	t->stop = why;
	snprintf(t->note, sizeof(t->note), "%s", what);
}

/* Does one more run fit in the budget, with reserve runs after it? */
static bool fits(const struct tune *t, const struct tune_ops *ops, unsigned int reserve)
{
	double used = ops->now(ops->ctx) - t->start_s;

	if (!t->longest_s)
		return used < t->budget_s;
	return used + (1 + reserve) * t->longest_s <= t->budget_s;
}

static int measure(struct tune *t, const struct tune_ops *ops, int pi, volatile sig_atomic_t *stop,
		   struct diag *d)
{
	struct tune_point *p = &t->points[pi];
	const char *values[TUNE_MAX_KNOBS], *knob = NULL;
	double t0, mbps = 0;
	size_t run = 0;
	int ret;

	if (*stop)
		return -EINTR;
	if (p->n >= TUNE_MAX_REPS)
		return 0;
	tune__point_values(t, p, values);
	if (p->knob >= 0)
		knob = t->knobs[p->knob].name;
	else if (p->knob == TUNE_COMBINATION)
		knob = TUNE_COMBINATION_LABEL;
	t0 = ops->now(ops->ctx);
	ret = ops->measure(ops->ctx, values, knob, p->value, p->n, &mbps, &run, d);
	if (ops->now(ops->ctx) - t0 > t->longest_s)
		t->longest_s = ops->now(ops->ctx) - t0;
	t->elapsed_s = ops->now(ops->ctx) - t->start_s;
	if (ret)
		return ret;
	p->x[p->n] = mbps;
	p->run[p->n++] = run;
	agg_compute(p->x, p->n, &p->agg);
	t->nr_runs++;
	return 0;
}

/* The first repetitions of pts[0..n), interleaved. 0, 1 when the budget ended them. */
static int first_reps(struct tune *t, const struct tune_ops *ops, const int *pts, int n,
		      volatile sig_atomic_t *stop, struct diag *d)
{
	unsigned int rep;
	int i, ret;

	for (rep = 0; rep < t->min_reps; rep++)
		for (i = 0; i < n; i++) {
			if (t->points[pts[i]].n > rep)
				continue;
			if (!fits(t, ops, 0))
				return 1;
			ret = measure(t, ops, pts[i], stop, d);
			if (ret)
				return ret;
		}
	return 0;
}

/* The point of pts with the highest mean among those with 2 repetitions or more; -1. */
static int best_of(const struct tune *t, const int *pts, int n)
{
	int i, best = -1;

	for (i = 0; i < n; i++)
		if (t->points[pts[i]].n >= 2 &&
		    (best < 0 || t->points[pts[i]].agg.mean > t->points[best].agg.mean))
			best = pts[i];
	return best;
}

/*
 * While the best of pts overlaps others, one more repetition of each of them, as long
 * as the budget leaves room for reserve runs after. 0, -EINTR or -errno.
 */
static int adapt(struct tune *t, const struct tune_ops *ops, const int *pts, int n,
		 unsigned int reserve, volatile sig_atomic_t *stop, struct diag *d)
{
	int more[TUNE_MAX_VALUES + 2], m, i, best, ret;

	for (;;) {
		best = best_of(t, pts, n);
		if (best < 0)
			return 0;
		for (m = i = 0; i < n; i++) {
			const struct tune_point *p = &t->points[pts[i]];

			if (pts[i] != best && p->n >= 2 && p->n < t->max_reps &&
			    agg_overlap(&p->agg, &t->points[best].agg))
				more[m++] = pts[i];
		}
		if (!m)
			return 0;
		if (t->points[best].n < t->max_reps)
			more[m++] = best;
		for (i = 0; i < m; i++) {
			if (!fits(t, ops, reserve))
				return 0;
			ret = measure(t, ops, more[i], stop, d);
			if (ret)
				return ret;
		}
	}
}

/* Numbers in their order, other values (schedulers) in the order they were measured. */
static double order_of(const char *v, int pos)
{
	int64_t x;

	return parse_int(v, &x) ? pos : (double)x;
}

static void judge(struct tune *t, int pi)
{
	struct tune_point *p = &t->points[pi];

	if (p->base >= 0 && p->n >= 2 && t->points[p->base].n >= 2)
		compare__metric(&t->points[p->base].agg, &p->agg, +1, &p->vs_baseline);
}

/* Knob k's recommendation from its phase's points pts[0..n) (pts[0]: its baseline). */
static void decide_knob(struct tune *t, int k, const int *pts, int n)
{
	struct tune_knob *kb = &t->knobs[k];
	const struct tune_point *best = NULL, *p;
	int i, pick = -1;
	double t_stat, df, pv, order = 0;

	kb->recommended = -1;
	for (i = 1; i < n; i++) {
		p = &t->points[pts[i]];
		judge(t, pts[i]);
		if (p->vs_baseline.verdict == VERDICT_BETTER &&
		    (!best || p->agg.mean > best->agg.mean))
			best = p;
	}
	if (!best) {
		snprintf(kb->reason, sizeof(kb->reason),
			 "%s: no value measured significantly better than %s, as found", kb->name,
			 kb->original);
		return;
	}
	/* The smallest value as good as the best: no more than it takes. */
	for (i = 1; i < n; i++) {
		p = &t->points[pts[i]];
		if (p->vs_baseline.verdict != VERDICT_BETTER)
			continue;
		if (p != best &&
		    (welch_t_test(&best->agg, &p->agg, &t_stat, &df, &pv) || pv < 0.05))
			continue;
		if (pick < 0 || order_of(p->value, i) < order) {
			pick = pts[i];
			order = order_of(p->value, i);
		}
	}
	kb->recommended = pick;
	p = &t->points[pick];
	snprintf(kb->reason, sizeof(kb->reason), "%s=%s: %+.1f%% against %s (p = %.2g)%s%s%s",
		 kb->name, p->value, 100 * p->vs_baseline.change, kb->original, p->vs_baseline.p,
		 p != best ? "; the best, " : "", p != best ? best->value : "",
		 p != best ? ", is not significantly better" : "");
}

/* Runs still needed for the first repetitions of the phases after knob k's. */
static unsigned int reserve_after(const struct tune *t, int k)
{
	unsigned int runs = 0;
	int j, tuned = 0;

	for (j = 0; j < t->nr_knobs; j++)
		if (!t->knobs[j].skipped[0]) {
			tuned++;
			if (j > k)
				runs += (t->knobs[j].nr_values + 1) * t->min_reps;
		}
	return runs + (tuned > 1 ? 3 * t->min_reps : 0);
}

/* One phase: knob k's values beside a baseline of their own. */
static int tune_knob(struct tune *t, const struct tune_ops *ops, int k, volatile sig_atomic_t *stop,
		     struct diag *d)
{
	struct tune_knob *kb = &t->knobs[k];
	int pts[TUNE_MAX_VALUES + 1], n = 1, v, ret;

	pts[0] = add_point(t, TUNE_BASELINE, "", -1);
	for (v = 0; v < kb->nr_values; v++)
		pts[n++] = add_point(t, k, kb->values[v], pts[0]);
	ret = first_reps(t, ops, pts, n, stop, d);
	kb->measured = !ret;
	if (!ret)
		ret = adapt(t, ops, pts, n, reserve_after(t, k), stop, d);
	decide_knob(t, k, pts, n); /* interrupted too: on the runs so far */
	return ret < 0 ? ret : 0;
}

/* The recommended point with the largest gain on its baseline; 0 (a baseline) when none. */
static int best_single(const struct tune *t)
{
	int k, best = 0;

	for (k = 0; k < t->nr_knobs; k++) {
		int r = t->knobs[k].recommended;

		if (r > 0 &&
		    (!best || t->points[r].vs_baseline.change > t->points[best].vs_baseline.change))
			best = r;
	}
	return best;
}

/* "max_sectors_kb=1024,scheduler=mq-deadline": the recommended values; how many. */
static int combination_of(const struct tune *t, char *config, size_t len)
{
	size_t used = 0;
	int k, nr = 0;

	config[0] = '\0';
	for (k = 0; k < t->nr_knobs; k++) {
		const struct tune_knob *kb = &t->knobs[k];

		if (kb->recommended <= 0)
			continue;
		nr++;
		if (used < len)
			used += snprintf(config + used, len - used, "%s%s=%s", used ? "," : "",
					 kb->name, t->points[kb->recommended].value);
	}
	return nr;
}

/* The combination, the best knob alone and a baseline, side by side. */
static int combine(struct tune *t, const struct tune_ops *ops, volatile sig_atomic_t *stop,
		   struct diag *d)
{
	char config[TUNE_CONFIG_MAX], value[TUNE_CONFIG_MAX];
	int pts[3], ret, single;
	struct metric_cmp cmp;

	t->final = best_single(t);
	if (combination_of(t, config, sizeof(config)) < 2 || t->stop != TUNE_COMPLETE)
		return 0;
	single = t->final;
	pts[0] = add_point(t, TUNE_BASELINE, "", -1);
	snprintf(value, sizeof(value), "%s", t->points[single].value);
	pts[1] = add_point(t, t->points[single].knob, value, pts[0]);
	pts[2] = t->combination = add_point(t, TUNE_COMBINATION, config, pts[0]);
	ret = first_reps(t, ops, pts, 3, stop, d);
	if (ret > 0)
		set_note(t, TUNE_STOP_BUDGET,
			 "the budget ended before the combination was measured");
	if (!ret)
		ret = adapt(t, ops, pts, 3, 0, stop, d);
	if (ret < 0)
		return ret;
	judge(t, pts[1]);
	judge(t, pts[2]);
	if (t->points[pts[1]].n < 2 || t->points[pts[2]].n < 2)
		return 0;
	compare__metric(&t->points[pts[1]].agg, &t->points[pts[2]].agg, +1, &cmp);
	t->final = cmp.verdict != VERDICT_WORSE && cmp.verdict != VERDICT_UNKNOWN ? pts[2] : pts[1];
	return 0;
}

/* "the budget (5m) ended after 12 runs: scheduler and nr_requests were not measured" */
static void budget_note(struct tune *t, int from)
{
	char names[192] = "";
	size_t used = 0;
	int k, nr = 0;

	for (k = from; k < t->nr_knobs; k++)
		if (!t->knobs[k].skipped[0] && !t->knobs[k].measured && used < sizeof(names)) {
			used += snprintf(names + used, sizeof(names) - used, "%s%s",
					 nr++ ? ", " : "", t->knobs[k].name);
		}
	snprintf(t->note, sizeof(t->note), "the budget (%g s) ended after %u runs%s%s%s",
		 t->budget_s, t->nr_runs, nr ? ": not measured in full: " : "", names,
		 nr ? " (a larger --budget, or fewer --knobs)" : "");
	t->stop = TUNE_STOP_BUDGET;
}

int tune__run(struct tune *t, const struct tune_ops *ops, volatile sig_atomic_t *stop,
	      struct diag *d)
{
	int k, tuned = 0, ret = 0;

	/* A caller that ran something first within the budget (a warm-up) set these. */
	if (!t->start_s)
		t->start_s = ops->now(ops->ctx);
	t->nr_points = 0;
	t->final = 0;
	t->combination = -1;
	t->max_reps = t->max_reps > TUNE_MAX_REPS ? TUNE_MAX_REPS : t->max_reps;
	t->min_reps = t->min_reps > t->max_reps ? t->max_reps : t->min_reps;
	for (k = 0; k < t->nr_knobs; k++) {
		t->knobs[k].recommended = -1;
		tuned += !t->knobs[k].skipped[0];
	}
	if (!tuned)
		return diag__usage(d, "nothing to tune");
	for (k = 0; !ret && k < t->nr_knobs; k++) {
		if (t->knobs[k].skipped[0])
			continue;
		ret = tune_knob(t, ops, k, stop, d);
		if (!ret && !t->knobs[k].measured)
			ret = 1;
	}
	if (ret > 0)
		budget_note(t, 0);
	if (ret >= 0)
		ret = combine(t, ops, stop, d);
	else
		t->final = best_single(t);
	if (ret == -EINTR)
		set_note(t, TUNE_STOP_INTERRUPTED, "interrupted: decided on the runs so far");
	t->elapsed_s = ops->now(ops->ctx) - t->start_s;
	return ret;
}
