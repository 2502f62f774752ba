// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The text printer of a comparison: both files, the settings that differ, a table of
 * verdicts per pair of series, what moved underneath (request and segment sizes, limit
 * shares, their histograms side by side), what did not pair. It only prints what
 * compare.c computed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/compare_text.h"
#include "base/fmt.h"
#include "output/report_json.h"

#define HIST_ROWS_SHOWN 12

static json_t *get2(json_t *doc, const char *o, const char *key)
{
	return json_object_get(json_object_get(doc, o), key);
}

const char *compare_text__value(char *buf, size_t len, const struct value *v)
{
	switch (v->kind) {
	case VALUE_NULL:
		return "-";
	case VALUE_BOOL:
		return v->b ? "true" : "false";
	case VALUE_INT:
		return fmt__num(buf, len, (double)v->i);
	case VALUE_REAL:
		return fmt__num(buf, len, v->r);
	case VALUE_STRING:
	case VALUE_JSON:
		break;
	}
	return v->s;
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

static void print_changes(FILE *f, const struct changes *changes, int indent, const char *title,
			  const char *none)
{
	char ba[64], bb[64];
	size_t i;

	if (!changes->n) {
		if (none)
			fprintf(f, "%s\n", none);
		return;
	}
	fprintf(f, "%s\n", title);
	for (i = 0; i < changes->n; i++)
		fprintf(f, "%*s%-32s %s -> %s\n", indent, "", changes->v[i].name,
			compare_text__value(ba, sizeof(ba), &changes->v[i].a),
			compare_text__value(bb, sizeof(bb), &changes->v[i].b));
}

/* A series by its label, or by its parameters when its runs have none. */
static const char *set_name(char *buf, size_t len, const struct run_summary *r)
{
	json_t *p;
	char *s;

	if (r->label[0] || !r->params.rw[0])
		return r->label[0] ? r->label : "(no label)";
	p = report_json__params(&r->params);
	s = p ? json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	snprintf(buf, len, "%s", s ?: "(no label)");
	free(s);
	json_decref(p);
	return buf;
}

static void print_metrics(FILE *f, const struct comparison *c, const struct set_comparison *sc)
{
	const char *reason = NULL;
	char ba[32], bb[32], bc[32], bp[32], bq[32];
	size_t i;

	fprintf(f, "  %-32s %12s %12s %9s %8s %8s  %s\n", "metric", "A", "B", "change", "p",
		"p adj", "verdict");
	for (i = 0; i < sc->nr_m; i++) {
		const struct metric_result *m = &sc->m[i];
		const struct agg *ga = &c->sa.series[sc->a].metric[m->id];
		const struct agg *gb = &c->sb.series[sc->b].metric[m->id];
		const char *verdict = compare__verdict_name(m->cmp.verdict);

		if (m->cmp.verdict == VERDICT_UNKNOWN) {
			verdict = "cannot judge";
			reason = compare__unknown_reason(ga->n, gb->n);
		}
		fprintf(f, "  %-32s %12s %12s %9s %8s %8s  %s\n", metric_defs[m->id].name,
			isfinite(ga->mean) ? fmt__num(ba, sizeof(ba), ga->mean) : "-",
			isfinite(gb->mean) ? fmt__num(bb, sizeof(bb), gb->mean) : "-",
			compare__fmt_change(bc, sizeof(bc), m->cmp.change),
			compare__fmt_p(bp, sizeof(bp), m->cmp.p),
			compare__fmt_p(bq, sizeof(bq), m->cmp.p_adj), verdict);
	}
	if (reason)
		fprintf(f, "  cannot judge: %s\n", reason);
}

/* The mean of metric id over the series, or "-" when it has none. */
static const char *mean_of(char *buf, size_t len, const struct series *s, enum metric_id id,
			   int kind)
{
	const struct agg *g = &s->metric[id];

	if (!g->n)
		return "-";
	if (kind == 'b')
		return fmt__bytes(buf, len, g->mean);
	if (kind == '%')
		return fmt__share(buf, len, g->mean);
	return fmt__num(buf, len, g->mean);
}

static void print_underneath(FILE *f, const struct series *a, const struct series *b)
{
	static const struct {
		const char *title, *fmt;
		enum metric_id x, y;
		int kind;
	} lines[] = {
		{ "request size", "p50 %s -> %s, mean %s -> %s", METRIC_REQ_BYTES_P50,
		  METRIC_REQ_BYTES_MEAN, 'b' },
		{ "segments", "p50 %s -> %s, mean %s -> %s", METRIC_SEGMENTS_P50,
		  METRIC_SEGMENTS_MEAN, 'n' },
		{ "limit-bound", "max_sectors_kb %s -> %s, max_segments %s -> %s",
		  METRIC_LIMIT_SECTORS, METRIC_LIMIT_SEGMENTS, '%' },
	};
	char b0[32], b1[32], b2[32], b3[32];
	size_t i;
	bool any = false;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		any |= a->metric[lines[i].x].n || b->metric[lines[i].x].n ||
		       a->metric[lines[i].y].n || b->metric[lines[i].y].n;
	if (!any)
		return;
	fprintf(f, "  what moved underneath (means over the repetitions, A -> B):\n");
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		fprintf(f, "    %-16s ", lines[i].title);
		fprintf(f, lines[i].fmt, mean_of(b0, 32, a, lines[i].x, lines[i].kind),
			mean_of(b1, 32, b, lines[i].x, lines[i].kind),
			mean_of(b2, 32, a, lines[i].y, lines[i].kind),
			mean_of(b3, 32, b, lines[i].y, lines[i].kind));
		fputc('\n', f);
	}
}

/* The buckets of one histogram summed over a series' runs, as shares of its requests. */
static double sum_hist(const struct run_summary *runs, const struct series *s, bool sizes,
		       double *out, unsigned int n)
{
	double total = 0;
	size_t r;
	unsigned int i;

	for (r = 0; r < s->nr_runs; r++) {
		const struct run_summary *rs = &runs[s->runs[r]];
		const __u64 *h = sizes ? rs->block.size_all : rs->segments_all;

		for (i = 0; i < n; i++) {
			out[i] += (double)h[i];
			total += (double)h[i];
		}
	}
	return total;
}

static int double_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b) - (a > b);
}

/* A's and B's histograms side by side, as shares, the buckets that matter on either side. */
static void print_hist(FILE *f, const struct comparison *c, const struct set_comparison *sc,
		       bool sizes, const char *title)
{
	enum hist_kind kind = sizes ? HIST_KIND_SIZE : HIST_KIND_COUNT;
	unsigned int n = hist_nr_buckets(kind), i, nonzero = 0, shown = 0;
	double *ha = calloc(n, sizeof(double)), *hb = calloc(n, sizeof(double));
	double *tops = calloc(n, sizeof(double)), ta, tb, cut = 0;
	char label[64], sa[16], sb[16];

	if (!ha || !hb || !tops)
		goto cleanup;
	ta = sum_hist(c->a->runs, &c->sa.series[sc->a], sizes, ha, n);
	tb = sum_hist(c->b->runs, &c->sb.series[sc->b], sizes, hb, n);
	for (i = 0; i < n; i++) {
		ha[i] = ta > 0 ? ha[i] / ta : 0;
		hb[i] = tb > 0 ? hb[i] / tb : 0;
		if (ha[i] > 0 || hb[i] > 0)
			tops[nonzero++] = fmax(ha[i], hb[i]);
	}
	if (!nonzero)
		goto cleanup;
	if (nonzero > HIST_ROWS_SHOWN) {
		qsort(tops, nonzero, sizeof(*tops), double_desc);
		cut = tops[HIST_ROWS_SHOWN - 1];
	}
	fprintf(f, "    %-24s %8s %8s\n", title, "A", "B");
	for (i = 0; i < n && shown < HIST_ROWS_SHOWN; i++) {
		if ((ha[i] == 0 && hb[i] == 0) || fmax(ha[i], hb[i]) < cut)
			continue;
		shown++;
		snprintf(sa, sizeof(sa), "%.1f%%", 100 * ha[i]);
		snprintf(sb, sizeof(sb), "%.1f%%", 100 * hb[i]);
		fprintf(f, "      %-22s %8s %8s\n", fmt__bucket(label, sizeof(label), kind, i),
			ha[i] > 0 ? sa : "-", hb[i] > 0 ? sb : "-");
	}
	if (shown < nonzero)
		fprintf(f, "      (%u smaller buckets not shown)\n", nonzero - shown);
cleanup:
	free(ha);
	free(hb);
	free(tops);
}

static void print_set(FILE *f, const struct comparison *c, const struct set_comparison *sc)
{
	const struct series *sa = &c->sa.series[sc->a], *sb = &c->sb.series[sc->b];
	char name[256], name_b[256];

	fprintf(f, "\n%s: %zu run%s in A, %zu in B\n",
		set_name(name, sizeof(name), &c->a->runs[sa->first]), sa->nr_runs,
		sa->nr_runs == 1 ? "" : "s", sb->nr_runs);
	if (!sc->by_params) {
		fprintf(f, "  paired as the only set in each file; B is %s\n",
			set_name(name_b, sizeof(name_b), &c->b->runs[sb->first]));
		print_changes(f, &sc->param_changes, 4, "  parameters that differ (A -> B):", NULL);
	}
	print_metrics(f, c, sc);
	print_underneath(f, sa, sb);
	print_hist(f, c, sc, true, "request size");
	print_hist(f, c, sc, false, "segments per request");
}

static void print_unmatched(FILE *f, const struct series_set *ss, const bool *matched,
			    const struct run_summary *runs, const char *tag, const char *other)
{
	char name[256];
	bool header = false;
	size_t i;

	for (i = 0; i < ss->nr; i++) {
		const struct series *s = &ss->series[i];

		if (matched[i])
			continue;
		if (!header)
			fprintf(f, "\nunmatched in %s (no set with the same parameters in %s):\n",
				tag, other);
		header = true;
		fprintf(f, "  %s (%zu run%s)\n", set_name(name, sizeof(name), &runs[s->first]),
			s->nr_runs, s->nr_runs == 1 ? "" : "s");
	}
}

void compare_text__print(FILE *f, const struct comparison *c)
{
	const size_t *n = c->counts;
	size_t i;

	print_side(f, "A", c->name_a, c->a->header);
	print_side(f, "B", c->name_b, c->b->header);
	fprintf(f,
		"significant: Welch's t-test over the repetitions, p Holm-adjusted within each "
		"set's headline and other metrics below %g, and a change of at least %g%%\n\n",
		STATS_ALPHA, 100 * COMPARE_MIN_EFFECT);
	print_changes(f, &c->device_changes, 2, "settings that differ (A -> B):",
		      "settings: the same disk, limits, driver, kernel and tool version");
	for (i = 0; i < c->nr_sets; i++)
		print_set(f, c, &c->sets[i]);
	print_unmatched(f, &c->sa, c->matched_a, c->a->runs, "A", "B");
	print_unmatched(f, &c->sb, c->matched_b, c->b->runs, "B", "A");
	if (!c->nr_sets) {
		fprintf(f, "\nnothing compared: no set of runs in A has the parameters of one "
			   "in B\n");
		return;
	}
	fprintf(f,
		"\nverdicts: %zu better, %zu worse, %zu same, %zu higher, %zu lower, "
		"%zu cannot judge\n",
		n[VERDICT_BETTER], n[VERDICT_WORSE], n[VERDICT_SAME], n[VERDICT_HIGHER],
		n[VERDICT_LOWER], n[VERDICT_UNKNOWN]);
}
