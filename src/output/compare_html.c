// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The HTML printer of a comparison, a sibling of compare_text.c and compare_json.c: the
 * verdicts that matter first, the settings that differ, then per pair of sets the
 * verdict table coloured by verdict and A over B: request sizes and segments as shares
 * of each side's requests, latencies as CDFs; both disks' facts last. It prints what
 * compare.c judged; the histograms come from the two results rebuilt whole
 * (result_read.c), summed over each set's repetitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/chart.h"
#include "output/compare_html.h"
#include "output/compare_text.h"
#include "base/fmt.h"
#include "output/html.h"

/* A verdict as the page names it: the JSON name, "cannot judge" for unknown. */
static const char *verdict_text(enum verdict v)
{
	return v == VERDICT_UNKNOWN ? "cannot judge" : compare__verdict_name(v);
}

static void value_cell(FILE *f, const struct agg *g)
{
	char b[32];

	fprintf(f, "<td>%s</td>",
		g->n && isfinite(g->mean) ? fmt__num(b, sizeof(b), g->mean) : "-");
}

/* The headline metrics of every pair, one sentence each, and the verdict counts. */
static void summary_section(FILE *f, const struct comparison *c)
{
	const size_t *n = c->counts;
	char b[32], va[32], vb[32];
	size_t i, k;

	fputs("<section id=\"findings\">\n<h2>What changed</h2>\n<ul>\n", f);
	for (i = 0; i < c->nr_sets; i++) {
		const struct set_comparison *sc = &c->sets[i];

		for (k = 0; k < sc->nr_m; k++) {
			const struct metric_result *m = &sc->m[k];
			const struct agg *ga = &c->sa.series[sc->a].metric[m->id];
			const struct agg *gb = &c->sb.series[sc->b].metric[m->id];

			if (!metric_defs[m->id].headline)
				continue;
			fputs("<li><b>", f);
			html__text(f, c->a->runs[c->sa.series[sc->a].first].label);
			fprintf(f, "</b>: %s %s -&gt; %s (%s), <b>%s</b></li>\n",
				metric_defs[m->id].name, fmt__num(va, sizeof(va), ga->mean),
				fmt__num(vb, sizeof(vb), gb->mean),
				compare__fmt_change(b, sizeof(b), m->cmp.change),
				verdict_text(m->cmp.verdict));
		}
	}
	fprintf(f,
		"<li>Verdicts over every metric: %zu better, %zu worse, %zu same, %zu higher, "
		"%zu lower, %zu cannot judge (significant: Welch's t-test p &lt; %g and "
		"disjoint 95%% confidence intervals).</li>\n</ul>\n</section>\n",
		n[VERDICT_BETTER], n[VERDICT_WORSE], n[VERDICT_SAME], n[VERDICT_HIGHER],
		n[VERDICT_LOWER], n[VERDICT_UNKNOWN], STATS_ALPHA);
}

static void setting_cell(FILE *f, const struct value *v)
{
	char b[32];

	fputs("<td>", f);
	html__text(f, compare_text__value(b, sizeof(b), v));
	fputs("</td>", f);
}

static void changes_table(FILE *f, const struct changes *changes, const char *none)
{
	size_t i;

	if (!changes->n) {
		fprintf(f, "<p>%s</p>\n", none);
		return;
	}
	fputs("<table>\n<tr><th>setting</th><th>A</th><th>B</th></tr>\n", f);
	for (i = 0; i < changes->n; i++) {
		fputs("<tr><td>", f);
		html__text(f, changes->v[i].name);
		fputs("</td>", f);
		setting_cell(f, &changes->v[i].a);
		setting_cell(f, &changes->v[i].b);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void verdict_table(FILE *f, const struct comparison *c, const struct set_comparison *sc)
{
	char bc[32], bp[32], bq[32];
	size_t i;

	fputs("<table class=\"verdicts\">\n<tr><th>metric</th><th>A</th><th>B</th><th>change</th>"
	      "<th>p</th><th>p (Holm)</th><th>verdict</th></tr>\n",
	      f);
	for (i = 0; i < sc->nr_m; i++) {
		const struct metric_result *m = &sc->m[i];

		fprintf(f, "<tr class=\"%s\"><td>%s</td>", compare__verdict_name(m->cmp.verdict),
			metric_defs[m->id].name);
		value_cell(f, &c->sa.series[sc->a].metric[m->id]);
		value_cell(f, &c->sb.series[sc->b].metric[m->id]);
		fprintf(f, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			compare__fmt_change(bc, sizeof(bc), m->cmp.change),
			compare__fmt_p(bp, sizeof(bp), m->cmp.p),
			compare__fmt_p(bq, sizeof(bq), m->cmp.p_adj), verdict_text(m->cmp.verdict));
	}
	fputs("</table>\n", f);
}

/* Which histogram of a run's statistics a figure sums. */
enum which { W_SIZE, W_SEGMENTS, W_DEVICE, W_TOTAL, W_APP };

/* Histogram k of what w sums in run r: every op's request sizes, else one; NULL past it. */
static const __u64 *hist_of(const struct run *r, enum which w, unsigned int k)
{
	if (w == W_APP)
		return r->has_app && !k ? r->app->lat : NULL;
	if (!r->has_block)
		return NULL;
	switch (w) {
	case W_SIZE:
		return k < BLKIO_SIZE_SEGMENT ? r->block->size[k] : NULL;
	case W_SEGMENTS:
		return !k ? r->block->count[BLKIO_COUNT_SEGMENTS] : NULL;
	case W_DEVICE:
		return !k ? r->block->lat[BLKIO_LAT_DEVICE] : NULL;
	default:
		return !k ? r->block->lat[BLKIO_LAT_TOTAL] : NULL;
	}
}

/* What w counts, summed over a series' runs. */
static void sum_series(const struct result *res, const struct series *s, enum which w, __u64 *out,
		       unsigned int n)
{
	const __u64 *h;
	unsigned int i, k;
	size_t r;

	memset(out, 0, n * sizeof(*out));
	for (r = 0; r < s->nr_runs; r++)
		for (k = 0; (h = hist_of(&res->runs[s->runs[r]], w, k)); k++)
			for (i = 0; i < n; i++)
				out[i] += h[i];
}

static void overlay(FILE *f, const struct comparison *c, const struct set_comparison *sc,
		    const struct result *ra, const struct result *rb, enum which w)
{
	static const struct {
		const char *title, *x, *unit;
		enum hist_kind kind;
		bool cdf;
	} what[] = {
		[W_SIZE] = { "Request sizes, A over B (share of each side's requests)",
			     "request size", "requests", HIST_KIND_SIZE, false },
		[W_SEGMENTS] = { "Physical segments per request, A over B", "physical segments",
				 "requests", HIST_KIND_COUNT, false },
		[W_DEVICE] = { "Device time (D2C), A over B: the share of requests at or below "
			       "each time",
			       "time (log scale)", "requests", HIST_KIND_LAT, true },
		[W_TOTAL] = { "Total time (G2C), A over B: the share of requests at or below "
			      "each time",
			      "time (log scale)", "requests", HIST_KIND_LAT, true },
		[W_APP] = { "Application I/O latency, A over B: the share of I/Os at or below "
			    "each time",
			    "time (log scale)", "I/Os", HIST_KIND_LAT, true },
	};
	unsigned int n = hist_nr_buckets(what[w].kind);
	__u64 *ha = calloc(2 * n, sizeof(__u64));
	struct chart ch = { .x_title = what[w].x,
			    .unit = what[w].unit,
			    .kind = what[w].kind,
			    .shares = true,
			    .nr = 2 };

	if (!ha)
		return;
	sum_series(ra, &c->sa.series[sc->a], w, ha, n);
	sum_series(rb, &c->sb.series[sc->b], w, ha + n, n);
	ch.s[0] = (struct chart_series){ "A", ha, "a" };
	ch.s[1] = (struct chart_series){ "B", ha + n, "b" };
	snprintf(ch.title, sizeof(ch.title), "%s", what[w].title);
	if (what[w].cdf)
		chart__cdf(f, &ch);
	else
		chart__hist(f, &ch);
	free(ha);
}

static void set_section(FILE *f, const struct comparison *c, size_t i, const struct result *ra,
			const struct result *rb)
{
	const struct set_comparison *sc = &c->sets[i];
	const struct series *sa = &c->sa.series[sc->a], *sb = &c->sb.series[sc->b];
	enum which w;

	fprintf(f, "<section class=\"set\" id=\"set-%zu\">\n<h2>", i + 1);
	html__text(f, c->a->runs[sa->first].label);
	fprintf(f, "</h2>\n<p class=\"muted\">%zu run%s in A, %zu in B", sa->nr_runs,
		sa->nr_runs == 1 ? "" : "s", sb->nr_runs);
	if (!sc->by_params) {
		fputs("; paired as the only set in each file, B is ", f);
		html__text(f, c->b->runs[sb->first].label);
	}
	fputs("</p>\n", f);
	if (!sc->by_params)
		changes_table(f, &sc->param_changes, "");
	verdict_table(f, c, sc);
	for (w = W_SIZE; w <= W_APP; w++)
		overlay(f, c, sc, ra, rb, w);
	fputs("</section>\n", f);
}

static void unmatched(FILE *f, const struct series_set *ss, const bool *matched,
		      const struct run_summary *runs, const char *tag)
{
	size_t i;
	bool header = false;

	for (i = 0; i < ss->nr; i++) {
		if (matched[i])
			continue;
		if (!header)
			fprintf(f, "<h3>Only in %s</h3>\n<ul>\n", tag);
		header = true;
		fputs("<li>", f);
		html__text(f, runs[ss->series[i].first].label);
		fputs("</li>\n", f);
	}
	if (header)
		fputs("</ul>\n", f);
}

static void side_facts(FILE *f, const char *tag, const char *name, const struct result *r)
{
	fprintf(f, "<h3>%s: ", tag);
	html__text(f, name);
	fputs("</h3>\n", f);
	if (r->has_device)
		html__device(f, &r->device);
	html__origin(f, r, name);
}

void compare_html__print(FILE *f, const struct comparison *c, const struct result *ra,
			 const struct result *rb)
{
	size_t i;

	html__begin(f, "blktrace-bench: A compared with B");
	fputs("<h1>blktrace-bench: A compared with B</h1>\n<p>A is <code>", f);
	html__text(f, c->name_a);
	fputs("</code>, B is <code>", f);
	html__text(f, c->name_b);
	fputs("</code>.</p>\n", f);
	summary_section(f, c);
	fputs("<section id=\"settings\">\n<h2>Settings that differ</h2>\n", f);
	changes_table(f, &c->device_changes,
		      "The same disk, limits, driver, kernel and tool "
		      "version.");
	fputs("</section>\n", f);
	for (i = 0; i < c->nr_sets; i++)
		set_section(f, c, i, ra, rb);
	unmatched(f, &c->sa, c->matched_a, c->a->runs, "A");
	unmatched(f, &c->sb, c->matched_b, c->b->runs, "B");
	fputs("<section id=\"disk\">\n<h2>The disks and the runs</h2>\n", f);
	side_facts(f, "A", c->name_a, ra);
	side_facts(f, "B", c->name_b, rb);
	fputs("</section>\n", f);
	html__end(f);
}
