// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Building the comparison of two results; see compare.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "store/result_diff.h"

static const char *const verdict_names[NR_VERDICTS] = {
	[VERDICT_SAME] = "same",     [VERDICT_BETTER] = "better", [VERDICT_WORSE] = "worse",
	[VERDICT_HIGHER] = "higher", [VERDICT_LOWER] = "lower",	  [VERDICT_UNKNOWN] = "unknown",
};

const char *compare__verdict_name(enum verdict v)
{
	return verdict_names[v];
}

const char *compare__unknown_reason(size_t na, size_t nb)
{
	if (na < 2 && nb < 2)
		return "a single repetition in A and in B: Welch's test needs 2 or more on "
		       "each side (--repeat)";
	if (na < 2)
		return "a single repetition in A: Welch's test needs 2 or more on each side "
		       "(--repeat)";
	return "a single repetition in B: Welch's test needs 2 or more on each side (--repeat)";
}

void compare__decide(struct metric_cmp *c, double p_adj, int direction)
{
	/* No finite change (A's mean is 0, B's is not) is as large as a change gets. */
	bool large = !isfinite(c->change) || fabs(c->change) >= COMPARE_MIN_EFFECT;

	c->p_adj = p_adj;
	if (isnan(c->p)) {
		c->significant = false;
		c->verdict = VERDICT_UNKNOWN;
		return;
	}
	c->significant = p_adj < STATS_ALPHA && large;
	if (!c->significant)
		c->verdict = VERDICT_SAME;
	else if (!direction)
		c->verdict = c->up ? VERDICT_HIGHER : VERDICT_LOWER;
	else
		c->verdict = c->up == (direction > 0) ? VERDICT_BETTER : VERDICT_WORSE;
}

void compare__metric(const struct agg *a, const struct agg *b, int direction,
		     struct metric_cmp *out)
{
	double t, df;

	memset(out, 0, sizeof(*out));
	out->up = b->mean > a->mean;
	if (a->mean != 0)
		out->change = (b->mean - a->mean) / fabs(a->mean);
	else
		out->change = b->mean == 0 ? 0 : NAN;
	if (welch_t_test(a, b, &t, &df, &out->p))
		out->p = NAN;
	compare__decide(out, out->p, direction);
}

const char *compare__fmt_change(char *buf, size_t len, double change)
{
	/* Loaded values are finite and at most 2^63, but A can be tiny: no column overflow,
	 * an exponent beyond +-99999%. */
	if (isfinite(change) && fabs(change) < 1000)
		snprintf(buf, len, "%+.1f%%", 100 * change);
	else if (isfinite(change))
		snprintf(buf, len, "%+.1e%%", 100 * change);
	else
		snprintf(buf, len, "-");
	return buf;
}

const char *compare__fmt_p(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else if (p < 1e-4)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
	return buf;
}

/* Parameter def of p as a typed value (a U64 above LLONG_MAX as a real, as JSON has it). */
static struct value param_value(const struct job_param_def *def, const struct job_params *p)
{
	const void *field = job_param__cfield(def, p);
	struct value v = { .kind = VALUE_NULL };
	uint64_t u;

	switch (def->type) {
	case JOB_PARAM_STRING:
		v.kind = VALUE_STRING;
		v.s = field;
		break;
	case JOB_PARAM_U64:
		u = *(const uint64_t *)field;
		v.kind = u > LLONG_MAX ? VALUE_REAL : VALUE_INT;
		v.i = (long long)u;
		v.r = (double)u;
		break;
	case JOB_PARAM_UINT:
		v.kind = VALUE_INT;
		v.i = *(const unsigned int *)field;
		break;
	case JOB_PARAM_SECONDS:
		v.kind = VALUE_REAL;
		v.r = *(const double *)field;
		break;
	case JOB_PARAM_BOOL:
		v.kind = VALUE_BOOL;
		v.b = *(const bool *)field;
		break;
	}
	return v;
}

static bool value_equal(const struct value *a, const struct value *b)
{
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case VALUE_NULL:
		return true;
	case VALUE_BOOL:
		return a->b == b->b;
	case VALUE_INT:
		return a->i == b->i;
	case VALUE_REAL:
		return a->r == b->r;
	default:
		return !strcmp(a->s, b->s);
	}
}

static int add_if_differs(struct changes *out, const char *name, const struct value *a,
			  const struct value *b)
{
	return value_equal(a, b) ? 0 : changes__add(out, name, a, b);
}

/* A run's swept setting (--set NAME=VALUE) as the value of NAME, else null. */
static struct value knob_value(const struct job_params *p, const char *name)
{
	struct value v = { .kind = VALUE_NULL };

	if (p && p->set_knob[0] && !strcmp(p->set_knob, name)) {
		v.kind = VALUE_STRING;
		v.s = p->set_value;
	}
	return v;
}

/*
 * The params of A's and B's runs that differ, for series paired without sharing them;
 * a side without parameters (passive or command mode) has every one null.
 */
static int param_changes(struct changes *out, const struct run_summary *ra,
			 const struct run_summary *rb)
{
	const struct job_params *a = ra->params.rw[0] ? &ra->params : NULL;
	const struct job_params *b = rb->params.rw[0] ? &rb->params : NULL;
	struct value null = { .kind = VALUE_NULL }, va, vb;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < NR_JOB_PARAMS; i++) {
		const struct job_param_def *def = &job_param_defs[i];

		va = a ? param_value(def, a) : null;
		vb = b ? param_value(def, b) : null;
		ret = add_if_differs(out, def->name, &va, &vb);
	}
	if (!ret && a && a->set_knob[0]) {
		va = knob_value(a, a->set_knob);
		vb = knob_value(b, a->set_knob);
		ret = add_if_differs(out, a->set_knob, &va, &vb);
	}
	if (!ret && b && b->set_knob[0] && !(a && !strcmp(a->set_knob, b->set_knob))) {
		va = knob_value(a, b->set_knob);
		vb = knob_value(b, b->set_knob);
		ret = add_if_differs(out, b->set_knob, &va, &vb);
	}
	return ret;
}

/* Holm within one family of a set's metrics: the headline ones, or the others. */
static void judge_family(struct set_comparison *sc, bool headline)
{
	double p[NR_METRICS] = { 0 }, adj[NR_METRICS];
	size_t i, n = 0, at[NR_METRICS];

	for (i = 0; i < sc->nr_m; i++)
		if (metric_defs[sc->m[i].id].headline == headline) {
			at[n] = i;
			p[n++] = sc->m[i].cmp.p;
		}
	holm_adjust(p, n, adj);
	for (i = 0; i < n; i++)
		compare__decide(&sc->m[at[i]].cmp, adj[i], metric_defs[sc->m[at[i]].id].direction);
}

/* Every judged metric both series have, with its verdict (compare.h: the test). */
static void judge(struct comparison *c, struct set_comparison *sc)
{
	const struct series *sa = &c->sa.series[sc->a], *sb = &c->sb.series[sc->b];
	size_t i;
	int k;

	for (k = 0; k < NR_METRICS; k++) {
		struct metric_result *m;

		if (!metric_defs[k].judged || !sa->metric[k].n || !sb->metric[k].n)
			continue;
		m = &sc->m[sc->nr_m++];
		m->id = k;
		compare__metric(&sa->metric[k], &sb->metric[k], metric_defs[k].direction, &m->cmp);
	}
	judge_family(sc, true);
	judge_family(sc, false);
	for (i = 0; i < sc->nr_m; i++)
		c->counts[sc->m[i].cmp.verdict]++;
}

static int by_key(const void *x, const void *y)
{
	const struct series *a = *(const struct series *const *)x;
	const struct series *b = *(const struct series *const *)y;

	return strcmp(a->key, b->key);
}

/* Pairs in A's series order; keys are unique within a side: one bsearch per series of A. */
static int match(struct comparison *c)
{
	const struct series **sorted = calloc(c->sb.nr ? c->sb.nr : 1, sizeof(*sorted));
	size_t i;

	c->sets = calloc(c->sa.nr ? c->sa.nr : 1, sizeof(*c->sets));
	if (!sorted || !c->sets) {
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < c->sb.nr; i++)
		sorted[i] = &c->sb.series[i];
	qsort(sorted, c->sb.nr, sizeof(*sorted), by_key);
	for (i = 0; i < c->sa.nr; i++) {
		const struct series *key = &c->sa.series[i], **hit;

		hit = bsearch(&key, sorted, c->sb.nr, sizeof(*sorted), by_key);
		if (!hit)
			continue;
		c->sets[c->nr_sets++] = (struct set_comparison){ .a = i,
								 .b = (size_t)(*hit - c->sb.series),
								 .by_params = true };
	}
	free(sorted);
	return 0;
}

int compare__build(struct comparison *c, const struct loaded_result *a,
		   const struct loaded_result *b, const char *name_a, const char *name_b)
{
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->name_a = name_a;
	c->name_b = name_b;
	ret = series__group(&c->sa, a->runs, a->nr_runs);
	if (!ret)
		ret = series__group(&c->sb, b->runs, b->nr_runs);
	if (!ret)
		ret = match(c);
	c->matched_a = calloc(c->sa.nr ? c->sa.nr : 1, sizeof(bool));
	c->matched_b = calloc(c->sb.nr ? c->sb.nr : 1, sizeof(bool));
	if (ret || !c->matched_a || !c->matched_b || result_diff__device(a, b, &c->device_changes))
		goto fail;
	/*
	 * Two files of one series each whose parameters differ (16k vs 512k reads, the
	 * same job before and after a kernel change with another --size) are an A/B test
	 * on purpose: pair them and say which parameters differ.
	 */
	if (!c->nr_sets && c->sa.nr == 1 && c->sb.nr == 1) {
		c->sets[0] = (struct set_comparison){ .a = 0, .b = 0 };
		if (param_changes(&c->sets[0].param_changes, &a->runs[c->sa.series[0].first],
				  &b->runs[c->sb.series[0].first]))
			goto fail;
		c->nr_sets = 1;
	}
	for (i = 0; i < c->nr_sets; i++) {
		c->matched_a[c->sets[i].a] = c->matched_b[c->sets[i].b] = true;
		judge(c, &c->sets[i]);
	}
	return 0;
fail:
	compare__free(c);
	return -ENOMEM;
}

void compare__free(struct comparison *c)
{
	size_t i;

	for (i = 0; c->sets && i < c->nr_sets; i++)
		changes__free(&c->sets[i].param_changes);
	free(c->sets);
	free(c->matched_a);
	free(c->matched_b);
	changes__free(&c->device_changes);
	series__free(&c->sa);
	series__free(&c->sb);
	memset(c, 0, sizeof(*c));
}

int compare__regressions(const struct comparison *c, double pct, FILE *f)
{
	size_t i, k;
	int n = 0;

	for (i = 0; i < c->nr_sets; i++) {
		const struct set_comparison *sc = &c->sets[i];
		const char *label = c->a->runs[c->sa.series[sc->a].first].label;
		const char *reason = NULL;

		for (k = 0; k < sc->nr_m; k++) {
			const struct metric_result *m = &sc->m[k];
			double worse;

			if (!metric_defs[m->id].headline)
				continue;
			if (m->cmp.verdict == VERDICT_UNKNOWN)
				reason = compare__unknown_reason(
					c->sa.series[sc->a].metric[m->id].n,
					c->sb.series[sc->b].metric[m->id].n);
			if (m->cmp.verdict != VERDICT_WORSE)
				continue;
			/* No finite change: worse from 0 (a latency that was 0 in A). */
			worse = isfinite(m->cmp.change) ? fabs(m->cmp.change) * 100 : INFINITY;
			if (worse <= pct)
				continue;
			n++;
			if (f)
				fprintf(f,
					"blktrace-bench: regression in '%s': %s worse by "
					"%.1f%% (more than %g%%), p = %.2g\n",
					label[0] ? label : "?", metric_defs[m->id].name, worse, pct,
					m->cmp.p);
		}
		/* Not a failure, but a pipeline must not read it as a pass in silence. */
		if (reason && f)
			fprintf(f, "blktrace-bench: --fail-on-regression cannot judge '%s': %s\n",
				label[0] ? label : "?", reason);
	}
	return n;
}
