// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The compare command: A.json vs B.json, a verdict per metric and what moved
 * underneath. Runs are matched by run_group_key() (their params, or the label of a
 * run without params). The aggregates are always recomputed from the runs, never
 * read from a file's "series": schema 0 files have none, and the statistics must
 * be the ones the verdicts assume whatever version wrote the file.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "report.h"
#include "outfile.h"
#include "series.h"
#include "text.h"

#define HIST_ROWS_SHOWN 12

static const char *const verdict_names[] = {
	[VERDICT_SAME] = "same",
	[VERDICT_BETTER] = "better",
	[VERDICT_WORSE] = "worse",
	[VERDICT_HIGHER] = "higher",
	[VERDICT_LOWER] = "lower",
	[VERDICT_UNKNOWN] = "unknown",
};

const char *compare__verdict_name(enum verdict v)
{
	return verdict_names[v];
}

void compare__metric(const struct agg *a, const struct agg *b, int direction,
		     struct metric_cmp *out)
{
	bool up = b->mean > a->mean;
	double t, df;

	memset(out, 0, sizeof(*out));
	if (a->mean != 0)
		out->change = (b->mean - a->mean) / fabs(a->mean);
	else
		out->change = b->mean == 0 ? 0 : NAN;
	if (welch_t_test(a, b, &t, &df, &out->p)) {
		out->p = NAN;
		out->verdict = VERDICT_UNKNOWN;
		return;
	}
	out->significant = out->p < COMPARE_ALPHA && fabs(b->mean - a->mean) > a->ci95 + b->ci95;
	if (!out->significant)
		out->verdict = VERDICT_SAME;
	else if (!direction)
		out->verdict = up ? VERDICT_HIGHER : VERDICT_LOWER;
	else
		out->verdict = up == (direction > 0) ? VERDICT_BETTER : VERDICT_WORSE;
}

/* Grouping and matching */

struct set {
	char *key;     /* run_group_key() of its runs */
	json_t *first; /* its first run: label and params */
	size_t *idx;   /* indexes into the runs array */
	size_t n;
	long match;    /* the matched set on the other side, or -1 */
};

struct side {
	json_t *runs;
	struct set *sets;
	size_t nr;
	size_t *idx; /* storage of every set's indexes */
};

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; s->sets && i < s->nr; i++)
		free(s->sets[i].key);
	free(s->sets);
	free(s->idx);
}

struct keyed {
	const char *key;
	size_t i;
};

static int by_key_then_index(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = strcmp(a->key, b->key);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

static int set_by_first_run(const void *x, const void *y)
{
	const struct set *a = x, *b = y;

	return (a->idx[0] > b->idx[0]) - (a->idx[0] < b->idx[0]);
}

/*
 * Sets in first-run order, as series_json() groups them. Sorting the keys keeps it
 * O(n log n) in the runs: thousands of runs of distinct parameters are a sweep.
 */
static int side_group(json_t *doc, struct side *s)
{
	struct keyed *k = NULL;
	size_t nr, i, j, used = 0;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->runs = json_object_get(doc, "runs");
	nr = json_array_size(s->runs);
	k = calloc(nr ?: 1, sizeof(*k));
	s->sets = calloc(nr ?: 1, sizeof(*s->sets));
	s->idx = calloc(nr ?: 1, sizeof(*s->idx));
	if (!k || !s->sets || !s->idx)
		goto cleanup;
	for (i = 0; i < nr; i++) {
		k[i].i = i;
		if (!(k[i].key = run_group_key(json_array_get(s->runs, i))))
			goto cleanup;
	}
	qsort(k, nr, sizeof(*k), by_key_then_index);
	for (i = 0; i < nr; i = j) {
		struct set *set = &s->sets[s->nr++];

		set->key = (char *)k[i].key;
		set->first = json_array_get(s->runs, k[i].i);
		set->idx = s->idx + used;
		set->match = -1;
		for (j = i; j < nr && !strcmp(k[j].key, set->key); j++) {
			set->idx[set->n++] = k[j].i;
			if (j != i)
				free((char *)k[j].key);
			k[j].key = NULL;
		}
		used += set->n;
	}
	qsort(s->sets, s->nr, sizeof(*s->sets), set_by_first_run);
	ret = 0;
cleanup:
	for (i = 0; k && i < nr; i++)
		free((char *)k[i].key);
	free(k);
	return ret;
}

static int set_ptr_by_key(const void *x, const void *y)
{
	const struct set *a = *(const struct set *const *)x, *b = *(const struct set *const *)y;

	return strcmp(a->key, b->key);
}

static size_t match_sets(struct side *a, struct side *b)
{
	struct set **sorted = calloc(b->nr ?: 1, sizeof(*sorted));
	size_t i, n = 0;

	/* Keys are unique within a side: one binary search per set of A. */
	for (i = 0; sorted && i < b->nr; i++)
		sorted[i] = &b->sets[i];
	if (sorted)
		qsort(sorted, b->nr, sizeof(*sorted), set_ptr_by_key);
	for (i = 0; sorted && i < a->nr; i++) {
		struct set *key = &a->sets[i], **hit;

		hit = bsearch(&key, sorted, b->nr, sizeof(*sorted), set_ptr_by_key);
		if (!hit)
			continue;
		a->sets[i].match = (long)(*hit - b->sets);
		(*hit)->match = (long)i;
		n++;
	}
	free(sorted);
	/*
	 * Two files of one set each whose parameters differ (16k vs 512k reads, the
	 * same job before and after a kernel change with another --size) are an A/B
	 * test on purpose: pair them and say which parameters differ.
	 */
	if (!n && a->nr == 1 && b->nr == 1) {
		a->sets[0].match = 0;
		b->sets[0].match = 0;
	}
	return n;
}

/* Building the comparison */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
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
		json_array_append_new(out, json_pack("{s:s, s:O, s:O}", "name", name, "a", a,
						     "b", b));
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

static json_t *idx_json(const struct set *s)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < s->n; i++)
		json_array_append_new(a, json_integer((json_int_t)s->idx[i]));
	return a;
}

static json_t *unmatched_json(const struct side *s)
{
	json_t *out = json_array();
	size_t i;

	for (i = 0; out && i < s->nr; i++) {
		const struct set *set = &s->sets[i];
		json_t *first = set->first;

		if (set->match >= 0)
			continue;
		json_array_append_new(out, json_pack("{s:O?, s:O?, s:I}",
						     "label", json_object_get(first, "label"),
						     "params", json_object_get(first, "params"),
						     "runs", (json_int_t)set->n));
	}
	return out;
}

/* Means of what explains a throughput change: request sizes, segments, limits. */
static const char *const underneath_paths[] = {
	"block.request_bytes.p50",	 "block.request_bytes.mean",
	"block.segments.p50",		 "block.segments.mean",
	"block.limit_bound.max_sectors", "block.limit_bound.max_segments",
};

static json_t *underneath_json(const struct side *a, const struct set *sa, const struct side *b,
			       const struct set *sb)
{
	json_t *o = json_object();
	struct agg ga, gb;
	size_t k;

	for (k = 0; o && k < sizeof(underneath_paths) / sizeof(underneath_paths[0]); k++) {
		series_agg(a->runs, sa->idx, sa->n, underneath_paths[k], &ga);
		series_agg(b->runs, sb->idx, sb->n, underneath_paths[k], &gb);
		if (!ga.n && !gb.n)
			continue;
		json_object_set_new(o, underneath_paths[k],
				    json_pack("{s:o, s:o}", "a",
					      ga.n ? jnum(ga.mean) : json_null(), "b",
					      gb.n ? jnum(gb.mean) : json_null()));
	}
	return o;
}

static const char *unknown_reason(size_t na, size_t nb)
{
	if (na < 2 && nb < 2)
		return "a single repetition in A and in B: Welch's test needs 2 or more on "
		       "each side (--repeat)";
	if (na < 2)
		return "a single repetition in A: Welch's test needs 2 or more on each side "
		       "(--repeat)";
	return "a single repetition in B: Welch's test needs 2 or more on each side (--repeat)";
}

static json_t *metric_json(const struct metric_def *d, const struct agg *ga,
			   const struct agg *gb, const struct metric_cmp *c)
{
	json_t *m = json_pack("{s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:I, s:I, s:o, s:o}",
			      "name", d->path, "a", jnum(ga->mean), "b", jnum(gb->mean), "change",
			      jnum(c->change), "p_value", jnum(c->p), "verdict",
			      compare__verdict_name(c->verdict), "significant", c->significant,
			      "headline", d->headline, "n_a", (json_int_t)ga->n, "n_b",
			      (json_int_t)gb->n, "ci95_a", jnum(ga->ci95), "ci95_b",
			      jnum(gb->ci95));

	if (m && c->verdict == VERDICT_UNKNOWN)
		json_object_set_new(m, "reason", json_string(unknown_reason(ga->n, gb->n)));
	return m;
}

static json_t *set_json(const struct side *a, const struct set *sa, const struct side *b,
			const struct set *sb, json_t *flat, size_t *counts)
{
	json_t *o, *metrics, *label = json_object_get(sa->first, "label");
	struct metric_cmp c;
	struct agg ga, gb;
	size_t k;

	o = json_pack("{s:O?, s:O?, s:{s:o, s:o}}", "label", label, "params",
		      json_object_get(sa->first, "params"), "runs", "a", idx_json(sa), "b",
		      idx_json(sb));
	metrics = json_array();
	if (!o || !metrics) {
		json_decref(o);
		json_decref(metrics);
		return NULL;
	}
	if (strcmp(sa->key, sb->key)) {
		json_t *changes = json_array();

		json_object_set_new(o, "matched_by", json_string("the only set in each file"));
		json_object_set(o, "label_b",
				json_object_get(sb->first, "label") ?: json_null());
		json_object_set(o, "params_b",
				json_object_get(sb->first, "params") ?: json_null());
		if (changes)
			diff_values(changes, "", json_object_get(sa->first, "params"),
				    json_object_get(sb->first, "params"));
		json_object_set_new(o, "param_changes", changes);
	} else {
		json_object_set_new(o, "matched_by", json_string("parameters"));
	}
	for (k = 0; k < nr_metric_defs; k++) {
		const struct metric_def *d = &metric_defs[k];
		json_t *m, *fm;

		series_agg(a->runs, sa->idx, sa->n, d->path, &ga);
		series_agg(b->runs, sb->idx, sb->n, d->path, &gb);
		if (!ga.n || !gb.n)
			continue;
		compare__metric(&ga, &gb, d->direction, &c);
		counts[c.verdict]++;
		m = metric_json(d, &ga, &gb, &c);
		if (!m)
			continue;
		fm = json_copy(m);
		if (fm) {
			json_object_set(fm, "set", label ?: json_null());
			json_array_append_new(flat, fm);
		}
		json_array_append_new(metrics, m);
	}
	json_object_set_new(o, "metrics", metrics);
	json_object_set_new(o, "underneath", underneath_json(a, sa, b, sb));
	return o;
}

json_t *compare__build(json_t *a, json_t *b, const char *name_a, const char *name_b)
{
	size_t counts[VERDICT_UNKNOWN + 1] = { 0 }, i, nr_sets = 0;
	json_t *cmp = NULL, *sets = json_array(), *flat = json_array(), *summary = json_object();
	struct side sa = { 0 }, sb = { 0 };

	if (side_group(a, &sa) || side_group(b, &sb))
		goto fail;
	match_sets(&sa, &sb);
	cmp = json_pack("{s:o, s:o, s:o, s:{s:o, s:o}}", "a", text__json(name_a), "b",
			text__json(name_b),
			"device_changes", device_changes(a, b), "unmatched", "a",
			unmatched_json(&sa), "b", unmatched_json(&sb));
	/* cmp takes its own references: ours are dropped at cleanup, in every case. */
	if (!cmp || !sets || !flat || !summary || json_object_set(cmp, "sets", sets) ||
	    json_object_set(cmp, "metrics", flat) || json_object_set(cmp, "summary", summary))
		goto fail;
	for (i = 0; i < sa.nr; i++) {
		json_t *s;

		if (sa.sets[i].match < 0)
			continue;
		s = set_json(&sa, &sa.sets[i], &sb, &sb.sets[sa.sets[i].match], flat, counts);
		if (!s || json_array_append_new(sets, s))
			goto fail;
		nr_sets++;
	}
	for (i = 0; i <= VERDICT_UNKNOWN; i++)
		if (json_object_set_new(summary, verdict_names[i],
					json_integer((json_int_t)counts[i])))
			goto fail;
	if (json_object_set_new(summary, "sets", json_integer((json_int_t)nr_sets)))
		goto fail;
	goto cleanup;
fail:
	json_decref(cmp);
	cmp = NULL;
cleanup:
	json_decref(sets);
	json_decref(flat);
	json_decref(summary);
	side_free(&sa);
	side_free(&sb);
	return cmp;
}

int compare__regressions(json_t *cmp, double pct, FILE *f)
{
	json_t *set, *m;
	size_t i, j;
	int n = 0;

	json_array_foreach(json_object_get(cmp, "sets"), i, set) {
		const char *label = json_string_value(json_object_get(set, "label")) ?: "?";
		const char *reason = NULL;

		json_array_foreach(json_object_get(set, "metrics"), j, m) {
			json_t *change = json_object_get(m, "change");
			const char *verdict = json_string_value(json_object_get(m, "verdict"));
			double worse;

			if (!json_is_true(json_object_get(m, "headline")) || !verdict)
				continue;
			if (!strcmp(verdict, "unknown"))
				reason = json_string_value(json_object_get(m, "reason"));
			if (strcmp(verdict, "worse"))
				continue;
			/* No finite change: worse from 0 (a latency that was 0 in A). */
			worse = json_is_number(change) ? fabs(json_number_value(change)) * 100 :
							 INFINITY;
			if (worse <= pct)
				continue;
			n++;
			if (f)
				fprintf(f, "blktrace-bench: regression in '%s': %s worse by "
					   "%.1f%% (more than %g%%), p = %.2g\n", label,
					json_string_value(json_object_get(m, "name")), worse, pct,
					json_number_value(json_object_get(m, "p_value")));
		}
		/* Not a failure, but a pipeline must not read it as a pass in silence. */
		if (reason && f)
			fprintf(f, "blktrace-bench: --fail-on-regression cannot judge '%s': %s\n",
				label, reason);
	}
	return n;
}

/* The text report */

static const char *fmt_num(char *buf, size_t len, json_t *v)
{
	double x = json_number_value(v), ax = fabs(x);

	if (!json_is_number(v))
		return "-";
	if (ax >= 1e12)
		snprintf(buf, len, "%.3e", x);
	else if (ax >= 1000 || x == floor(x))
		snprintf(buf, len, "%.0f", x);
	else if (ax >= 1)
		snprintf(buf, len, "%.2f", x);
	else
		snprintf(buf, len, "%.3g", x);
	return buf;
}

/* A setting's value as a person writes it: 32, none, true; "-" when absent. */
static const char *fmt_value(char *buf, size_t len, json_t *v)
{
	char *s;

	if (json_is_string(v))
		return json_string_value(v);
	if (json_is_integer(v) || json_is_real(v))
		return fmt_num(buf, len, v);
	if (json_is_boolean(v))
		return json_is_true(v) ? "true" : "false";
	if (!v || json_is_null(v))
		return "-";
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	snprintf(buf, len, "%s", s ?: "?");
	free(s);
	return buf;
}

static void print_side(FILE *f, const char *tag, const char *name, json_t *doc)
{
	json_t *cmd = json_object_get(doc, "command_line");

	fprintf(f, "%s  %s: %s, kernel %s, blktrace-bench %s\n", tag, name,
		json_string_value(get2(doc, "device", "name")) ?: "no device",
		json_string_value(get2(doc, "host", "kernel")) ?: "?",
		json_string_value(json_object_get(doc, "tool_version")) ?: "?");
	if (json_is_string(cmd))
		fprintf(f, "   %s\n", json_string_value(cmd));
}

static void print_changes(FILE *f, json_t *changes, int indent, const char *title,
			  const char *none)
{
	char ba[64], bb[64];
	json_t *c;
	size_t i;

	if (!json_array_size(changes)) {
		if (none)
			fprintf(f, "%s\n", none);
		return;
	}
	fprintf(f, "%s\n", title);
	json_array_foreach(changes, i, c)
		fprintf(f, "%*s%-32s %s -> %s\n", indent, "",
			json_string_value(json_object_get(c, "name")),
			fmt_value(ba, sizeof(ba), json_object_get(c, "a")),
			fmt_value(bb, sizeof(bb), json_object_get(c, "b")));
}

static const char *set_name(char *buf, size_t len, json_t *label, json_t *params)
{
	char *s;

	if (json_is_string(label))
		return json_string_value(label);
	s = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS);
	snprintf(buf, len, "%s", s ?: "(no label)");
	free(s);
	return buf;
}

static void print_metrics(FILE *f, json_t *metrics)
{
	const char *reason = NULL;
	char ba[32], bb[32], bc[32], bp[32];
	json_t *m;
	size_t i;

	fprintf(f, "  %-32s %12s %12s %9s %8s  %s\n", "metric", "A", "B", "change", "p",
		"verdict");
	json_array_foreach(metrics, i, m) {
		json_t *change = json_object_get(m, "change"), *p = json_object_get(m, "p_value");
		const char *verdict = json_string_value(json_object_get(m, "verdict")) ?: "?";

		/* Loaded values are finite and at most 2^63, but A can be tiny: no column
		 * overflow, an exponent beyond +-99999%. */
		if (json_is_number(change) && fabs(json_number_value(change)) < 1000)
			snprintf(bc, sizeof(bc), "%+.1f%%", 100 * json_number_value(change));
		else if (json_is_number(change))
			snprintf(bc, sizeof(bc), "%+.1e%%", 100 * json_number_value(change));
		else
			snprintf(bc, sizeof(bc), "-");
		if (!json_is_number(p))
			snprintf(bp, sizeof(bp), "-");
		else if (json_number_value(p) < 1e-4)
			snprintf(bp, sizeof(bp), "<0.0001");
		else
			snprintf(bp, sizeof(bp), "%.4f", json_number_value(p));
		if (!strcmp(verdict, "unknown")) {
			verdict = "cannot judge";
			reason = json_string_value(json_object_get(m, "reason"));
		}
		fprintf(f, "  %-32s %12s %12s %9s %8s  %s\n",
			json_string_value(json_object_get(m, "name")),
			fmt_num(ba, sizeof(ba), json_object_get(m, "a")),
			fmt_num(bb, sizeof(bb), json_object_get(m, "b")), bc, bp, verdict);
	}
	if (reason)
		fprintf(f, "  cannot judge: %s\n", reason);
}

static json_t *under(json_t *set, const char *path, const char *side)
{
	return json_object_get(json_object_get(json_object_get(set, "underneath"), path), side);
}

static const char *fmt_size(char *buf, size_t len, json_t *v)
{
	return json_is_number(v) ? fmt_bytes(buf, len, json_number_value(v)) : "-";
}

static const char *fmt_share(char *buf, size_t len, json_t *v)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, len, "%.1f%%", 100 * json_number_value(v));
	return buf;
}

static void print_underneath(FILE *f, json_t *set)
{
	char b[4][32];

	if (!json_object_size(json_object_get(set, "underneath")))
		return;
	fprintf(f, "  what moved underneath (means over the repetitions, A -> B):\n");
	fprintf(f, "    %-16s p50 %s -> %s, mean %s -> %s\n", "request size",
		fmt_size(b[0], 32, under(set, "block.request_bytes.p50", "a")),
		fmt_size(b[1], 32, under(set, "block.request_bytes.p50", "b")),
		fmt_size(b[2], 32, under(set, "block.request_bytes.mean", "a")),
		fmt_size(b[3], 32, under(set, "block.request_bytes.mean", "b")));
	fprintf(f, "    %-16s p50 %s -> %s, mean %s -> %s\n", "segments",
		fmt_num(b[0], 32, under(set, "block.segments.p50", "a")),
		fmt_num(b[1], 32, under(set, "block.segments.p50", "b")),
		fmt_num(b[2], 32, under(set, "block.segments.mean", "a")),
		fmt_num(b[3], 32, under(set, "block.segments.mean", "b")));
	fprintf(f, "    %-16s max_sectors_kb %s -> %s, max_segments %s -> %s\n", "limit-bound",
		fmt_share(b[0], 32, under(set, "block.limit_bound.max_sectors", "a")),
		fmt_share(b[1], 32, under(set, "block.limit_bound.max_sectors", "b")),
		fmt_share(b[2], 32, under(set, "block.limit_bound.max_segments", "a")),
		fmt_share(b[3], 32, under(set, "block.limit_bound.max_segments", "b")));
}

struct hist_row {
	json_int_t lo, hi; /* hi < 0: the open last bucket */
	double n[2];
	double top; /* the larger of the two shares */
};

/*
 * The buckets of histogram path (flat [lo, hi, count, ...], compare_load.c) of the runs
 * at idx, appended to rows as side 0 or 1; hist_merge then sums rows of the same lo.
 * Appending and one sort keep it O(n log n) in the buckets.
 */
static int hist_add(struct hist_row **rows, size_t *nr, size_t *cap, json_t *runs, json_t *idx,
		    const char *path, int side)
{
	json_t *ix, *flat;
	size_t i, j;

	json_array_foreach(idx, i, ix) {
		flat = json_object_get(json_object_get(json_object_get(
			json_array_get(runs, (size_t)json_integer_value(ix)), "block"), path),
			"buckets");
		for (j = 0; j + 2 < json_array_size(flat); j += 3) {
			struct hist_row *r;

			if (*nr == *cap) {
				size_t ncap = *cap ? 2 * *cap : 64;
				struct hist_row *nrows = realloc(*rows, ncap * sizeof(**rows));

				if (!nrows)
					return -ENOMEM;
				*rows = nrows;
				*cap = ncap;
			}
			r = &(*rows)[(*nr)++];
			memset(r, 0, sizeof(*r));
			r->lo = json_integer_value(json_array_get(flat, j));
			r->hi = json_integer_value(json_array_get(flat, j + 1));
			r->n[side] = (double)json_integer_value(json_array_get(flat, j + 2));
		}
	}
	return 0;
}

static int row_by_lo(const void *x, const void *y)
{
	const struct hist_row *a = x, *b = y;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Sort by lo and sum rows of the same bucket; returns the number of rows left. */
static size_t hist_merge(struct hist_row *rows, size_t nr)
{
	size_t i, out = 0;

	qsort(rows, nr, sizeof(*rows), row_by_lo);
	for (i = 0; i < nr; i++) {
		if (out && rows[out - 1].lo == rows[i].lo) {
			rows[out - 1].n[0] += rows[i].n[0];
			rows[out - 1].n[1] += rows[i].n[1];
			continue;
		}
		rows[out++] = rows[i];
	}
	return out;
}

static int double_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b) - (a > b);
}

static const char *bucket_label(char *buf, size_t len, const struct hist_row *r, bool bytes)
{
	char lo[24], hi[24];

	if (bytes) {
		fmt_bytes(lo, sizeof(lo), (double)r->lo);
		fmt_bytes(hi, sizeof(hi), (double)r->hi);
	} else {
		snprintf(lo, sizeof(lo), "%lld", (long long)r->lo);
		snprintf(hi, sizeof(hi), "%lld", (long long)r->hi);
	}
	if (r->hi < 0)
		snprintf(buf, len, ">= %s", lo);
	else if (!bytes && r->hi == r->lo + 1)
		snprintf(buf, len, "%s", lo); /* exact counts */
	else
		snprintf(buf, len, "[%s, %s)", lo, hi);
	return buf;
}

/* A's and B's histograms side by side, as shares of their requests. */
static void print_hist(FILE *f, json_t *set, json_t *a, json_t *b, const char *path,
		       const char *title, bool bytes)
{
	json_t *idx = json_object_get(set, "runs");
	struct hist_row *rows = NULL;
	double total[2] = { 0, 0 }, *tops = NULL, cut = 0;
	size_t nr = 0, cap = 0, i, shown = 0;
	char label[64], sa[16], sb[16];

	if (hist_add(&rows, &nr, &cap, json_object_get(a, "runs"), json_object_get(idx, "a"), path,
		     0) ||
	    hist_add(&rows, &nr, &cap, json_object_get(b, "runs"), json_object_get(idx, "b"), path,
		     1) ||
	    !nr)
		goto cleanup;
	nr = hist_merge(rows, nr);
	for (i = 0; i < nr; i++) {
		total[0] += rows[i].n[0];
		total[1] += rows[i].n[1];
	}
	tops = calloc(nr, sizeof(*tops));
	if (!tops)
		goto cleanup;
	for (i = 0; i < nr; i++) {
		double s0 = total[0] > 0 ? rows[i].n[0] / total[0] : 0;
		double s1 = total[1] > 0 ? rows[i].n[1] / total[1] : 0;

		rows[i].top = tops[i] = s0 > s1 ? s0 : s1;
	}
	/* Only the buckets that matter on either side, in size order. */
	if (nr > HIST_ROWS_SHOWN) {
		qsort(tops, nr, sizeof(*tops), double_desc);
		cut = tops[HIST_ROWS_SHOWN - 1];
	}
	fprintf(f, "    %-24s %8s %8s\n", title, "A", "B");
	for (i = 0; i < nr; i++) {
		if (rows[i].top < cut || shown == HIST_ROWS_SHOWN)
			continue;
		shown++;
		snprintf(sa, sizeof(sa), "%.1f%%", 100 * rows[i].n[0] / total[0]);
		snprintf(sb, sizeof(sb), "%.1f%%", 100 * rows[i].n[1] / total[1]);
		fprintf(f, "      %-22s %8s %8s\n",
			bucket_label(label, sizeof(label), &rows[i], bytes),
			rows[i].n[0] > 0 ? sa : "-", rows[i].n[1] > 0 ? sb : "-");
	}
	if (shown < nr)
		fprintf(f, "      (%zu smaller buckets not shown)\n", nr - shown);
cleanup:
	free(tops);
	free(rows);
}

static void print_set(FILE *f, json_t *set, json_t *a, json_t *b)
{
	json_t *runs = json_object_get(set, "runs");
	char name[256], name_b[256];

	fprintf(f, "\n%s: %zu run%s in A, %zu in B\n",
		set_name(name, sizeof(name), json_object_get(set, "label"),
			 json_object_get(set, "params")),
		json_array_size(json_object_get(runs, "a")),
		json_array_size(json_object_get(runs, "a")) == 1 ? "" : "s",
		json_array_size(json_object_get(runs, "b")));
	if (json_object_get(set, "param_changes")) {
		fprintf(f, "  paired as the only set in each file; B is %s\n",
			set_name(name_b, sizeof(name_b), json_object_get(set, "label_b"),
				 json_object_get(set, "params_b")));
		print_changes(f, json_object_get(set, "param_changes"), 4,
			      "  parameters that differ (A -> B):", NULL);
	}
	print_metrics(f, json_object_get(set, "metrics"));
	print_underneath(f, set);
	print_hist(f, set, a, b, "request_bytes", "request size", true);
	print_hist(f, set, a, b, "segments", "segments per request", false);
}

static void print_unmatched(FILE *f, json_t *list, const char *tag, const char *other)
{
	char name[256];
	json_t *u;
	size_t i;

	if (!json_array_size(list))
		return;
	fprintf(f, "\nunmatched in %s (no set with the same parameters in %s):\n", tag, other);
	json_array_foreach(list, i, u) {
		json_int_t n = json_integer_value(json_object_get(u, "runs"));

		fprintf(f, "  %s (%lld run%s)\n",
			set_name(name, sizeof(name), json_object_get(u, "label"),
				 json_object_get(u, "params")),
			(long long)n, n == 1 ? "" : "s");
	}
}

void compare__print_text(FILE *f, json_t *cmp, json_t *a, json_t *b)
{
	json_t *sum = json_object_get(cmp, "summary");
	json_t *unmatched = json_object_get(cmp, "unmatched");
	json_t *set;
	size_t i;

	print_side(f, "A", json_string_value(json_object_get(cmp, "a")), a);
	print_side(f, "B", json_string_value(json_object_get(cmp, "b")), b);
	fprintf(f, "significant: Welch's t-test p < %g and disjoint 95%% confidence intervals\n\n",
		COMPARE_ALPHA);
	print_changes(f, json_object_get(cmp, "device_changes"), 2,
		      "settings that differ (A -> B):",
		      "settings: the same disk, limits, driver, kernel and tool version");
	json_array_foreach(json_object_get(cmp, "sets"), i, set)
		print_set(f, set, a, b);
	print_unmatched(f, json_object_get(unmatched, "a"), "A", "B");
	print_unmatched(f, json_object_get(unmatched, "b"), "B", "A");
	if (!json_integer_value(json_object_get(sum, "sets"))) {
		fprintf(f, "\nnothing compared: no set of runs in A has the parameters of one "
			   "in B\n");
		return;
	}
	fprintf(f, "\nverdicts: %lld better, %lld worse, %lld same, %lld higher, %lld lower, "
		   "%lld cannot judge\n",
		(long long)json_integer_value(json_object_get(sum, "better")),
		(long long)json_integer_value(json_object_get(sum, "worse")),
		(long long)json_integer_value(json_object_get(sum, "same")),
		(long long)json_integer_value(json_object_get(sum, "higher")),
		(long long)json_integer_value(json_object_get(sum, "lower")),
		(long long)json_integer_value(json_object_get(sum, "unknown")));
}

/* The command */

int cmd_compare(int argc, char **argv)
{
	json_t *a = NULL, *b = NULL, *cmp = NULL;
	int ret = EXIT_USAGE, err, n;
	struct outfile out = {};
	char err_msg[1024];
	struct options o;

	err = cli_parse("compare", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 2) {
		die_msg("compare takes two result files: blktrace-bench compare A.json B.json "
			"[--json] [--fail-on-regression PCT]");
		return EXIT_USAGE;
	}
	if (o.json) {
		/* Refused before anything is read: a device, a directory, an input file. */
		struct outfile_input in[2] = {{o.positional[0], "input A"},
					      {o.positional[1], "input B"}};

		err = outfile__open(&out, "--json", o.json, in, 2, err_msg, sizeof(err_msg));
		if (err) {
			die_msg("%s", err_msg);
			ret = err == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
			goto cleanup;
		}
	}
	if (compare__load(o.positional[0], &a, err_msg, sizeof(err_msg)) ||
	    compare__load(o.positional[1], &b, err_msg, sizeof(err_msg))) {
		die_msg("%s", err_msg);
		goto cleanup;
	}
	ret = EXIT_FAIL;
	cmp = compare__build(a, b, o.positional[0], o.positional[1]);
	if (!cmp) {
		die_msg("out of memory");
		goto cleanup;
	}
	if (o.json) {
		err = outfile__write_json(&out, cmp, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		if (err) {
			die_msg("cannot write --json %s: %s", o.json, strerror(-err));
			goto cleanup;
		}
		if (outfile__commit(&out, err_msg, sizeof(err_msg))) {
			die_msg("%s", err_msg);
			goto cleanup;
		}
	} else {
		compare__print_text(stdout, cmp, a, b);
	}
	if (finish_stdout())
		goto cleanup;
	/* A script must not take "nothing in common" for "no regression". */
	if (!json_integer_value(json_object_get(json_object_get(cmp, "summary"), "sets"))) {
		die_msg("nothing compared: no set of runs in %s has the parameters of one in %s",
			o.positional[0], o.positional[1]);
		goto cleanup;
	}
	ret = EXIT_OK;
	if (o.fail_on_regression_set) {
		n = compare__regressions(cmp, o.fail_on_regression, stderr);
		if (n)
			ret = EXIT_REGRESSION;
	}
cleanup:
	outfile__abort(&out);
	json_decref(cmp);
	json_decref(a);
	json_decref(b);
	return ret;
}
