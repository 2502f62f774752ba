// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Building the comparison of two results; see compare.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "output/report_json.h"

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

/* Values that differ between a and b, walking objects; missing counts as null. */
static void diff_values(json_t *out, const char *name, json_t *a, json_t *b)
{
	char sub[160];
	const char *key;
	json_t *v;

	if (json_is_object(a) || json_is_object(b)) {
		json_object_foreach(a, key, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", name, *name ? "." : "", key);
			diff_values(out, sub, v,
				    json_is_object(b) ? json_object_get(b, key) : NULL);
		}
		json_object_foreach(b, key, v) {
			if (json_is_object(a) && json_object_get(a, key))
				continue;
			snprintf(sub, sizeof(sub), "%s%s%s", name, *name ? "." : "", key);
			diff_values(out, sub, NULL, v);
		}
		return;
	}
	a = a ?: json_null();
	b = b ?: json_null();
	if (!json_equal(a, b))
		json_array_append_new(out,
				      json_pack("{s:s, s:O, s:O}", "name", name, "a", a, "b", b));
}

static json_t *get2(json_t *doc, const char *o, const char *key)
{
	return json_object_get(json_object_get(doc, o), key);
}

/* What a reboot or an upgrade changes: the disk's limits, the driver, the kernel. */
static json_t *device_changes(json_t *a, json_t *b)
{
	json_t *out = json_array(), *la, *lb;

	if (!out)
		return NULL;
	la = get2(a, "device", "limits");
	lb = get2(b, "device", "limits");
	diff_values(out, "disk", get2(a, "device", "name"), get2(b, "device", "name"));
	diff_values(out, "driver", get2(a, "device", "driver"), get2(b, "device", "driver"));
	/* Limits by their sysfs names: "max_segments 11 -> 32". */
	diff_values(out, json_is_object(la) || json_is_object(lb) ? "" : "limits", la, lb);
	diff_values(out, "xen_blkfront", get2(a, "device", "xen_blkfront"),
		    get2(b, "device", "xen_blkfront"));
	diff_values(out, "kernel", get2(a, "host", "kernel"), get2(b, "host", "kernel"));
	diff_values(out, "tool_version", json_object_get(a, "tool_version"),
		    json_object_get(b, "tool_version"));
	return out;
}

/* The params of A's and B's runs that differ, for series paired without sharing them. */
static json_t *param_changes(const struct run_summary *a, const struct run_summary *b)
{
	json_t *out = json_array(), *pa, *pb;

	pa = a->params.rw[0] ? report_json__params(&a->params) : NULL;
	pb = b->params.rw[0] ? report_json__params(&b->params) : NULL;
	if (out)
		diff_values(out, "", pa, pb);
	json_decref(pa);
	json_decref(pb);
	return out;
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
	c->device_changes = device_changes(a->header, b->header);
	if (ret || !c->matched_a || !c->matched_b || !c->device_changes)
		goto fail;
	/*
	 * Two files of one series each whose parameters differ (16k vs 512k reads, the
	 * same job before and after a kernel change with another --size) are an A/B test
	 * on purpose: pair them and say which parameters differ.
	 */
	if (!c->nr_sets && c->sa.nr == 1 && c->sb.nr == 1) {
		c->sets[0] = (struct set_comparison){ .a = 0, .b = 0 };
		c->sets[0].param_changes = param_changes(&a->runs[c->sa.series[0].first],
							 &b->runs[c->sb.series[0].first]);
		if (!c->sets[0].param_changes)
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
		json_decref(c->sets[i].param_changes);
	free(c->sets);
	free(c->matched_a);
	free(c->matched_b);
	json_decref(c->device_changes);
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
