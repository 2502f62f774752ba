// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The HTML printer: a struct report as one self-contained page. The findings first, as
 * sentences; for a sweep, throughput against the swept value with the request size and
 * the limit-bound share on the same x axis (the link between the two is what the tool
 * is for); then every run's histograms at their exact buckets and its latencies with
 * their percentiles, and for a stacked device what each layer under it read and wrote;
 * the disk's facts last. A third sibling of report_text.c and
 * report_json.c: it only prints what report.c computed, and includes neither.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/chart.h"
#include "base/fmt.h"
#include "output/html.h"
#include "output/report_html.h"
#include "analysis/series.h"
#include "disk/stack.h"
#include "output/svg.h"
#include "base/text.h"
#include "result/counters.h"

static const char *const size_op_names[] = {
	[BLKIO_SIZE_READ] = "read",
	[BLKIO_SIZE_WRITE] = "write",
	[BLKIO_SIZE_OTHER] = "other",
};

static const char *const lat_titles[BLKIO_NR_LATS] = {
	[BLKIO_LAT_QUEUE] = "Queue time (allocation to issue, G2D)",
	[BLKIO_LAT_DEVICE] = "Device time (issue to completion, D2C)",
	[BLKIO_LAT_TOTAL] = "Total time (allocation to completion, G2C)",
};

static void recommendation_item(FILE *f, const struct recommendation *r)
{
	const struct rec_evidence *best = NULL;
	size_t k;

	for (k = 0; k < r->nr_evidence; k++)
		if (!strcmp(r->evidence[k].value, r->best))
			best = &r->evidence[k];
	fprintf(f, "<li class=\"rec\"><b>Recommendation (");
	html__text(f, r->knob);
	fprintf(f, ")</b>: the best throughput with ");
	html__text(f, r->knob);
	fputc('=', f);
	html__text(f, r->best);
	if (best)
		fprintf(f, " (%.1f MB/s)", best->mb_per_s);
	if (!r->judged) {
		fputs("; with one repetition the differences cannot be judged (use --repeat)", f);
	} else if (r->smallest && strcmp(r->smallest, r->best)) {
		fputs("; ", f);
		html__text(f, r->knob);
		fputc('=', f);
		html__text(f, r->smallest);
		fputs(" is statistically as good (Welch's t-test, p &gt;= 0.05)", f);
	} else if (r->smallest) {
		fputs("; every smaller value is significantly worse", f);
	}
	if (r->boot_parameter[0]) {
		fputs(". For xen-blkfront: boot with <code>", f);
		html__text(f, r->boot_parameter);
		fputs("</code>", f);
	}
	fputs(".</li>\n", f);
}

/* What shaped the requests, one sentence each: the first run of every set of runs. */
static void findings_section(FILE *f, const struct report *rep)
{
	size_t i, k, shown = 0;
	int j;

	fputs("<section id=\"findings\">\n<h2>What shaped the requests</h2>\n<ul>\n", f);
	for (i = 0; i < rep->series.nr; i++) {
		const struct run_summary *rs = &rep->runs[rep->series.series[i].first];

		for (j = 0; j < rs->nr_findings; j++, shown++) {
			fputs("<li>", f);
			if (rep->series.nr > 1) {
				fputs("<b>", f);
				html__text(f, rs->label);
				fputs("</b>: ", f);
			}
			html__text(f, rs->findings[j].text);
			fputs("</li>\n", f);
		}
	}
	for (k = 0; k < rep->rec.nr; k++)
		recommendation_item(f, &rep->rec.r[k]);
	if (!shown)
		fputs("<li>No read or write requests were traced: nothing to explain.</li>\n", f);
	fputs("</ul>\n</section>\n", f);
}

/* The parameters that differ between the series: what the sweep's x axis shows. */
enum { VARY_SET = 1, VARY_BS = 2, VARY_RW = 4, VARY_ENGINE = 8, VARY_DEPTH = 16 };

static unsigned int varying(const struct report *rep)
{
	const struct job_params *p0 = &rep->runs[rep->series.series[0].first].params, *p;
	unsigned int v = 0;
	size_t i;

	for (i = 1; i < rep->series.nr; i++) {
		p = &rep->runs[rep->series.series[i].first].params;
		v |= strcmp(p->set_value, p0->set_value) ? VARY_SET : 0;
		v |= p->bs != p0->bs ? VARY_BS : 0;
		v |= strcmp(p->rw, p0->rw) ? VARY_RW : 0;
		v |= strcmp(p->engine, p0->engine) ? VARY_ENGINE : 0;
		v |= p->iodepth != p0->iodepth ? VARY_DEPTH : 0;
	}
	return v;
}

/* A series' tick label: the values of what varies ("44", "44, 1M"), else its label. */
static void category(char *buf, size_t len, const struct run_summary *rs, unsigned int vary)
{
	const struct job_params *p = &rs->params;
	char b[32];
	size_t n = 0;

	buf[0] = '\0';
	if (!p->rw[0] || !vary) {
		text__copy(buf, len, rs->label);
		return;
	}
	if (vary & VARY_SET)
		n += snprintf(buf + n, len - n, "%s", p->set_value);
	if ((vary & VARY_BS) && n < len)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
			      fmt__size_short(b, sizeof(b), p->bs));
	if ((vary & VARY_RW) && n < len)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", p->rw);
	if ((vary & VARY_ENGINE) && n < len)
		n += snprintf(buf + n, len - n, "%s%s", n ? ", " : "", p->engine);
	if ((vary & VARY_DEPTH) && n < len)
		snprintf(buf + n, len - n, "%siodepth %u", n ? ", " : "", p->iodepth);
}

static void axis_title(char *buf, size_t len, const struct report *rep, unsigned int vary)
{
	const struct job_params *p = &rep->runs[rep->series.series[0].first].params;

	snprintf(buf, len, "%s%s%s%s%s", vary & VARY_SET ? p->set_knob : "",
		 (vary & VARY_SET) && (vary & ~VARY_SET) ? ", " : "",
		 vary & VARY_BS ? "block size " : "", vary & VARY_RW ? "rw " : "",
		 vary & (VARY_ENGINE | VARY_DEPTH) ? "engine, iodepth" : "");
	if (!vary)
		snprintf(buf, len, "set of runs");
}

#define WIDE 760
#define WIDE_LEFT 84
#define WIDE_RIGHT 24
#define WIDE_TOP 18
#define GAP 24
#define X_LABELS 56

/* A sweep's series as the chart draws them: one x position each, NAN where none. */
struct sweep {
	size_t n;
	double *x, *mb, *ci, *size, *limit, *share;
	char (*label)[64];
	const char **labels, **blank;
	long best, smallest; /* the recommendation's series, -1 none */
	char x_title[128];
};

/* The series of value for the recommendation's workload: its params but the knob's. */
static long rec_series(const struct report *rep, const struct recommendation *r, const char *value)
{
	char want[SERIES_KEY_MAX], key[SERIES_KEY_MAX];
	struct job_params p;
	size_t i;
	bool found = false;

	for (i = 0; value && i < rep->series.nr && !found; i++) {
		p = rep->runs[rep->series.series[i].first].params;
		found = !strcmp(rep->runs[rep->series.series[i].first].label, r->workload);
		p.set_value[0] = '\0';
		series__key(&p, "", want, sizeof(want));
	}
	for (i = 0; found && i < rep->series.nr; i++) {
		p = rep->runs[rep->series.series[i].first].params;
		if (strcmp(p.set_value, value))
			continue;
		p.set_value[0] = '\0';
		series__key(&p, "", key, sizeof(key));
		if (!strcmp(key, want))
			return (long)i;
	}
	return -1;
}

static int sweep__fill(struct sweep *sw, const struct report *rep)
{
	unsigned int vary = varying(rep);
	size_t i, n = rep->series.nr;

	memset(sw, 0, sizeof(*sw));
	sw->x = calloc(6 * n, sizeof(double));
	sw->label = calloc(n, sizeof(*sw->label));
	sw->labels = calloc(2 * n, sizeof(char *));
	if (!sw->x || !sw->label || !sw->labels)
		return -1;
	sw->n = n;
	sw->mb = sw->x + n;
	sw->ci = sw->x + 2 * n;
	sw->size = sw->x + 3 * n;
	sw->limit = sw->x + 4 * n;
	sw->share = sw->x + 5 * n;
	sw->blank = sw->labels + n;
	for (i = 0; i < n; i++) {
		const struct series *s = &rep->series.series[i];
		const struct agg *m = s->metric;
		const struct run_summary *rs = &rep->runs[s->first];

		sw->x[i] = (double)i;
		sw->mb[i] = m[METRIC_APP_MB_PER_S].n ? m[METRIC_APP_MB_PER_S].mean : NAN;
		sw->ci[i] = m[METRIC_APP_MB_PER_S].n ? m[METRIC_APP_MB_PER_S].ci95 : 0;
		sw->size[i] = m[METRIC_REQ_BYTES_MEAN].n ? m[METRIC_REQ_BYTES_MEAN].mean : NAN;
		sw->share[i] = fmax(m[METRIC_LIMIT_SECTORS].mean, m[METRIC_LIMIT_SEGMENTS].mean);
		sw->limit[i] =
			rs->limits.max_sectors_kb > 0 ? rs->limits.max_sectors_kb * 1024.0 : NAN;
		category(sw->label[i], sizeof(sw->label[i]), rs, vary);
		sw->labels[i] = sw->label[i];
		sw->blank[i] = "";
	}
	axis_title(sw->x_title, sizeof(sw->x_title), rep, vary);
	sw->best = sw->smallest = -1;
	if (rep->rec.nr) {
		sw->best = rec_series(rep, &rep->rec.r[0], rep->rec.r[0].best);
		sw->smallest = rec_series(rep, &rep->rec.r[0], rep->rec.r[0].smallest);
	}
	return 0;
}

static void sweep__free(struct sweep *sw)
{
	free(sw->x);
	free(sw->label);
	free(sw->labels);
}

/* A panel of the wide charts: a plot under the one before, sharing its x scale. */
static void panel(struct plot *p, struct svg *g, double top, double height, const struct scale *x)
{
	plot__init(p, g, WIDE_LEFT, top, WIDE - WIDE_LEFT - WIDE_RIGHT, height);
	p->x = *x;
}

static double finite_max(const double *v, const double *plus, size_t n)
{
	double m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			m = fmax(m, v[i] + (plus ? plus[i] : 0));
	return m;
}

static void throughput_panel(const struct plot *p, const struct sweep *sw)
{
	char tip[160];
	size_t i;

	plot__x_axis(p, sw->x, sw->blank, sw->n, 0, NULL, NULL);
	plot__y_axis(p, 5, fmt__num, "app MB/s");
	for (i = 0; i < sw->n; i++) {
		if (isnan(sw->mb[i]))
			continue;
		plot__errbar(p, sw->x[i], fmax(0, sw->mb[i] - sw->ci[i]), sw->mb[i] + sw->ci[i],
			     "a");
		snprintf(tip, sizeof(tip), "%s: %.1f MB/s +- %.1f (95%% CI)", sw->label[i],
			 sw->mb[i], sw->ci[i]);
		plot__point(p, sw->x[i], sw->mb[i], 4, (long)i == sw->best ? "rec" : "a", tip);
	}
	plot__line(p, sw->x, sw->mb, sw->n, "a", false);
	if (sw->best >= 0)
		plot__vmark(p, sw->x[sw->best], "best", "rec", 0);
	if (sw->smallest >= 0 && sw->smallest != sw->best)
		plot__vmark(p, sw->x[sw->smallest], "smallest as good", "rec", 1);
}

static void size_panel(struct plot *p, const struct sweep *sw)
{
	double lo = INFINITY, hi = 0, r0, r1;
	char tip[160], b[32];
	size_t i;

	for (i = 0; i < sw->n; i++) {
		if (!isnan(sw->size[i]) && sw->size[i] > 0) {
			lo = fmin(lo, sw->size[i]);
			hi = fmax(hi, sw->size[i]);
		}
		if (!isnan(sw->limit[i]))
			hi = fmax(hi, sw->limit[i]);
	}
	plot__y_range(p, &r0, &r1);
	scale__log(&p->y, isfinite(lo) ? lo / 1.6 : 512, hi > 0 ? hi * 1.6 : 4096, r0, r1, 2);
	plot__x_axis(p, sw->x, sw->blank, sw->n, 0, NULL, NULL);
	plot__y_axis(p, 6, chart__size_tick, "request size");
	plot__line(p, sw->x, sw->limit, sw->n, "b", true);
	plot__line(p, sw->x, sw->size, sw->n, "a", false);
	for (i = 0; i < sw->n; i++) {
		if (isnan(sw->size[i]))
			continue;
		snprintf(tip, sizeof(tip), "%s: requests of %s on average", sw->label[i],
			 fmt__bytes(b, sizeof(b), sw->size[i]));
		plot__point(p, sw->x[i], sw->size[i], 4, "a", tip);
	}
	plot__legend(p, 8, 2, "a", "mean request size");
	plot__legend(p, 150, 2, "b", "max_sectors_kb");
}

static void share_panel(const struct plot *p, const struct sweep *sw)
{
	char tip[160];
	size_t i;

	plot__x_axis(p, sw->x, sw->labels, sw->n, 0, NULL, sw->x_title);
	plot__y_axis(p, 3, chart__share_tick, "limit-bound");
	for (i = 0; i < sw->n; i++) {
		snprintf(tip, sizeof(tip), "%s: %.1f%% of the requests reached a limit",
			 sw->label[i], 100 * sw->share[i]);
		plot__bar(p, sw->x[i] - 0.2, sw->x[i] + 0.2, sw->share[i], 2, "share", tip);
	}
}

static void sweep_svg(FILE *f, const struct sweep *sw, const char *title)
{
	const double h1 = 170, h2 = 130, h3 = 80;
	struct plot p1, p2, p3;
	struct scale x;
	struct svg g;
	double r0, r1;

	svg__begin(&g, f, WIDE, WIDE_TOP + h1 + h2 + h3 + 2 * GAP + X_LABELS, "chart", "sweep",
		   title);
	plot__init(&p1, &g, WIDE_LEFT, WIDE_TOP, WIDE - WIDE_LEFT - WIDE_RIGHT, h1);
	plot__x_range(&p1, &r0, &r1);
	scale__linear(&x, -0.5, sw->n - 0.5, r0, r1);
	p1.x = x;
	plot__y_range(&p1, &r0, &r1);
	scale__linear(&p1.y, 0, finite_max(sw->mb, sw->ci, sw->n) * 1.15, r0, r1);
	throughput_panel(&p1, sw);
	panel(&p2, &g, WIDE_TOP + h1 + GAP, h2, &x);
	size_panel(&p2, sw);
	panel(&p3, &g, WIDE_TOP + h1 + h2 + 2 * GAP, h3, &x);
	plot__y_range(&p3, &r0, &r1);
	scale__linear(&p3.y, 0, 1, r0, r1);
	share_panel(&p3, sw);
	svg__end(&g);
}

static void sweep_table(FILE *f, const struct report *rep, const struct sweep *sw)
{
	char b1[32], b2[32];
	size_t i;

	fputs("<details><summary>numbers</summary>\n<table>\n<tr><th>set</th><th>runs</th>"
	      "<th>app MB/s</th><th>95% CI</th><th>request mean</th><th>request p50</th>"
	      "<th>max_sectors_kb</th><th>limit-bound</th></tr>\n",
	      f);
	for (i = 0; i < sw->n; i++) {
		const struct series *s = &rep->series.series[i];

		fputs("<tr><td>", f);
		html__text(f, rep->runs[s->first].label);
		fprintf(f,
			"</td><td>%zu</td><td>%.1f</td><td>+- %.1f</td><td>%s</td><td>%s</td>"
			"<td>%.0f</td><td>%.1f%%</td></tr>\n",
			s->nr_runs, sw->mb[i], sw->ci[i],
			fmt__bytes(b1, sizeof(b1), s->metric[METRIC_REQ_BYTES_MEAN].mean),
			fmt__bytes(b2, sizeof(b2), s->metric[METRIC_REQ_BYTES_P50].mean),
			sw->limit[i] / 1024, 100 * sw->share[i]);
	}
	fputs("</table>\n</details>\n", f);
}

/* Throughput against the swept value, the requests behind it on the same x axis. */
static void sweep_section(FILE *f, const struct report *rep)
{
	struct sweep sw;
	char title[384];

	if (sweep__fill(&sw, rep)) {
		sweep__free(&sw);
		return;
	}
	snprintf(title, sizeof(title),
		 "Throughput (mean and 95%% confidence interval) against "
		 "%s, with the mean request size and the share of requests that reached a "
		 "limit on the same axis",
		 sw.x_title);
	fputs("<section id=\"sweep\">\n<h2>Throughput and the requests behind it</h2>\n"
	      "<figure class=\"chart\">\n<figcaption>",
	      f);
	html__text(f, title);
	fputs("</figcaption>\n<div class=\"side\">\n", f);
	sweep_svg(f, &sw, title);
	sweep_table(f, rep, &sw);
	fputs("</div>\n</figure>\n</section>\n", f);
	sweep__free(&sw);
}

/* Passive mode's intervals: what changed over time. */
struct time_panel {
	const char *title;
	tick_fmt fmt;
	const double *y[2];
	const char *name[2];
};

static void draw_time_panel(struct plot *p, const struct time_panel *t, const double *x, size_t n,
			    bool bottom)
{
	double r0, r1,
		hi = fmax(finite_max(t->y[0], NULL, n), t->y[1] ? finite_max(t->y[1], NULL, n) : 0);
	unsigned int k;

	plot__y_range(p, &r0, &r1);
	scale__linear(&p->y, 0, hi > 0 ? hi * 1.15 : 1, r0, r1);
	plot__x_axis(p, NULL, NULL, 0, 10, fmt__num, bottom ? "seconds since tracing began" : NULL);
	plot__y_axis(p, 4, t->fmt, t->title);
	for (k = 0; k < 2 && t->y[k]; k++) {
		plot__line(p, x, t->y[k], n, k ? "b" : "a", true);
		if (t->name[k])
			plot__legend(p, 8 + 150 * k, 2, k ? "b" : "a", t->name[k]);
	}
}

static void intervals_table(FILE *f, const struct run *run)
{
	char d[32], t[32];
	size_t j;

	fputs("<details><summary>numbers</summary>\n<table>\n<tr><th>interval</th><th>from s"
	      "</th><th>s</th><th>MB/s</th><th>IOPS</th><th>depth mean</th><th>depth max</th>"
	      "<th>device p99</th><th>total p99</th></tr>\n",
	      f);
	for (j = 0; j < run->nr_intervals; j++) {
		const struct interval_sample *s = &run->intervals[j];
		double secs = s->seconds > 0 ? s->seconds : 1;

		fprintf(f,
			"<tr><td>%zu</td><td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%.0f</td>"
			"<td>%.2f</td><td>%llu</td><td>%s</td><td>%s</td></tr>\n",
			j + 1, s->start, s->seconds, s->bytes / secs / 1e6, s->requests / secs,
			s->depth_mean, (unsigned long long)s->depth_max,
			fmt__ns(d, sizeof(d), s->p99_ns[BLKIO_LAT_DEVICE]),
			fmt__ns(t, sizeof(t), s->p99_ns[BLKIO_LAT_TOTAL]));
	}
	fputs("</table>\n</details>\n", f);
}

static void intervals_svg(FILE *f, const struct run *run, const double *v, size_t i)
{
	size_t n = run->nr_intervals, k;
	const struct time_panel panels[] = {
		{ "MB/s", fmt__num, { v + n }, { NULL } },
		{ "IOPS", fmt__num, { v + 2 * n }, { NULL } },
		{ "queue depth", fmt__num, { v + 3 * n, v + 4 * n }, { "mean", "max" } },
		{ "p99", fmt__ns, { v + 5 * n, v + 6 * n }, { "device (D2C)", "total (G2C)" } },
	};
	const double h = 100;
	char id[64], title[160];
	struct scale x;
	struct svg g;
	struct plot p;
	double r0, r1;

	snprintf(id, sizeof(id), "runs[%zu].intervals", i);
	snprintf(title, sizeof(title),
		 "Throughput, IOPS, queue depth and p99 latency in each of "
		 "the %zu intervals",
		 n);
	svg__begin(&g, f, WIDE, WIDE_TOP + 4 * h + 3 * GAP + X_LABELS, "chart", id, title);
	plot__init(&p, &g, WIDE_LEFT, WIDE_TOP, WIDE - WIDE_LEFT - WIDE_RIGHT, h);
	plot__x_range(&p, &r0, &r1);
	scale__linear(&x, 0, finite_max(v, NULL, n), r0, r1);
	for (k = 0; k < 4; k++) {
		panel(&p, &g, WIDE_TOP + k * (h + GAP), h, &x);
		draw_time_panel(&p, &panels[k], v, n, k == 3);
	}
	svg__end(&g);
}

static void intervals_figure(FILE *f, const struct run *run, size_t i)
{
	size_t n = run->nr_intervals, j;
	double *v = calloc(7 * n, sizeof(double));

	if (!v)
		return;
	/* Each point at the end of its interval: what it covered, as a report would. */
	for (j = 0; j < n; j++) {
		const struct interval_sample *s = &run->intervals[j];
		double secs = s->seconds > 0 ? s->seconds : 1;

		v[j] = s->start + s->seconds;
		v[n + j] = s->bytes / secs / 1e6;
		v[2 * n + j] = s->requests / secs;
		v[3 * n + j] = s->depth_mean;
		v[4 * n + j] = (double)s->depth_max;
		v[5 * n + j] = s->p99_ns[BLKIO_LAT_DEVICE];
		v[6 * n + j] = s->p99_ns[BLKIO_LAT_TOTAL];
	}
	fputs("<figure class=\"chart\">\n<figcaption>Over time: throughput, IOPS, queue depth "
	      "and p99 latency per interval</figcaption>\n<div class=\"side\">\n",
	      f);
	intervals_svg(f, run, v, i);
	intervals_table(f, run);
	fputs("</div>\n</figure>\n", f);
	free(v);
}

static void ops_table(FILE *f, const struct run_summary *rs)
{
	static const enum blkio_counter_id shown[] = {
		BLKIO_CTR_merges,	BLKIO_CTR_rq_merges, BLKIO_CTR_splits,
		BLKIO_CTR_requeues,	BLKIO_CTR_errors,    BLKIO_CTR_lost_completions,
		BLKIO_CTR_lost_records,
	};
	const struct blkio_counters *c = &rs->run->block->c;
	unsigned int k;

	fputs("<table>\n<tr><th>op</th><th>requests</th><th>bytes</th><th>MB/s</th></tr>\n", f);
	for (k = 0; k < BLKIO_NR_OPS; k++)
		if (c->requests[k])
			fprintf(f, "<tr><td>%s</td><td>%llu</td><td>%llu</td><td>%.2f</td></tr>\n",
				blkio_op_names[k], (unsigned long long)c->requests[k],
				(unsigned long long)c->bytes[k],
				rs->seconds > 0 ? c->bytes[k] / rs->seconds / 1e6 : 0.0);
	fputs("</table>\n", f);
	fputs("<p class=\"muted\">", f);
	for (k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		fprintf(f, "%s%s %llu", k ? ", " : "", blkio_counter_label(shown[k]),
			(unsigned long long)blkio_counter_get(
				c, blkio_counters_table[shown[k]].offset));
	fputs("</p>\n", f);
}

static void size_charts(FILE *f, const struct run_summary *rs, size_t i)
{
	const struct block_stats *b = rs->run->block;
	char id[96], m[32], x[32];
	unsigned int k;

	for (k = 0; k < sizeof(size_op_names) / sizeof(size_op_names[0]); k++) {
		struct chart c = { .id = id,
				   .x_title = "request size",
				   .unit = "requests",
				   .kind = HIST_KIND_SIZE,
				   .nr = 1,
				   .s = { { NULL, b->size[k], "a" } } };
		uint64_t n = hist_total(b->size[k], HIST_SIZE_BUCKETS);

		if (!n)
			continue;
		snprintf(id, sizeof(id), "runs[%zu].block.request_bytes.by_op.%s", i,
			 size_op_names[k]);
		snprintf(c.title, sizeof(c.title),
			 "Sizes of the %s requests: %llu requests, %s "
			 "at the median, %s the largest",
			 size_op_names[k], (unsigned long long)n,
			 fmt__bytes(m, sizeof(m),
				    hist_percentile(HIST_KIND_SIZE, b->size[k], 50, b->max.bytes)),
			 fmt__bytes(x, sizeof(x), (double)b->max.bytes));
		if (rs->limits.max_sectors_kb > 0)
			chart__mark(&c, rs->limits.max_sectors_kb * 1024.0, "limit",
				    "max_sectors_kb=%lld", (long long)rs->limits.max_sectors_kb);
		chart__hist(f, &c);
	}
}

/* A histogram of run i's block object at member what, its limit (if any) marked. */
static void shape_chart(FILE *f, size_t i, const char *what, struct chart *c,
			const char *limit_name, int64_t limit)
{
	char id[96];

	snprintf(id, sizeof(id), "runs[%zu].block.%s.buckets", i, what);
	c->id = id;
	if (limit > 0)
		chart__mark(c, (double)limit, "limit", "%s=%lld", limit_name, (long long)limit);
	chart__hist(f, c);
}

static void shape_charts(FILE *f, const struct run_summary *rs, size_t i)
{
	const struct block_stats *b = rs->run->block;
	const struct block_summary *s = &rs->block;
	struct chart segs = { .unit = "requests",
			      .nr = 1,
			      .kind = HIST_KIND_COUNT,
			      .x_title = "physical segments",
			      .s = { { NULL, b->count[BLKIO_COUNT_SEGMENTS], "a" } } };
	struct chart seg_bytes = { .unit = "segments",
				   .nr = 1,
				   .kind = HIST_KIND_SIZE,
				   .x_title = "bytes per segment",
				   .s = { { NULL, b->size[BLKIO_SIZE_SEGMENT], "a" } } };
	struct chart depth = { .unit = "requests",
			       .nr = 1,
			       .kind = HIST_KIND_COUNT,
			       .x_title = "requests in flight at issue, this one included",
			       .s = { { NULL, b->count[BLKIO_COUNT_DEPTH], "a" } } };
	char v[32];

	snprintf(segs.title, sizeof(segs.title),
		 "Physical segments per request: %.0f at the median, %.2f on average, %llu the "
		 "most",
		 s->segments.p50, s->segments.mean, (unsigned long long)s->segments.max);
	snprintf(seg_bytes.title, sizeof(seg_bytes.title),
		 "Bytes per physical segment: %s on average",
		 fmt__bytes(v, sizeof(v), s->seg_bytes.mean));
	snprintf(depth.title, sizeof(depth.title),
		 "Queue depth at issue: %.2f on average, %llu the most", s->depth.mean,
		 (unsigned long long)s->depth.max);
	shape_chart(f, i, "segments", &segs, "max_segments", rs->limits.max_segments);
	shape_chart(f, i, "segment_bytes", &seg_bytes, "max_segment_size",
		    rs->limits.max_segment_size);
	shape_chart(f, i, "queue_depth", &depth, NULL, 0);
}

/* A latency histogram on a log axis, with its p50, p99 and p99.9 marked. */
static void latency_chart(FILE *f, const char *id, const char *what, const char *unit,
			  const __u64 *h, const struct dist *d)
{
	struct chart c = { .id = id,
			   .unit = unit,
			   .nr = 1,
			   .kind = HIST_KIND_LAT,
			   .x_title = "time (log scale)",
			   .s = { { NULL, h, "a" } } };
	char p50[32], p99[32], p999[32];

	if (!d->count)
		return;
	fmt__ns(p50, sizeof(p50), d->p50);
	fmt__ns(p99, sizeof(p99), d->p99);
	fmt__ns(p999, sizeof(p999), d->p999);
	snprintf(c.title, sizeof(c.title), "%s of %llu %s: p50 %s, p99 %s, p99.9 %s", what,
		 (unsigned long long)d->count, unit, p50, p99, p999);
	chart__mark(&c, d->p50, "pct", "p50 %s", p50);
	chart__mark(&c, d->p99, "pct", "p99 %s", p99);
	chart__mark(&c, d->p999, "pct", "p99.9 %s", p999);
	chart__hist(f, &c);
}

static void latency_charts(FILE *f, const struct run_summary *rs, size_t i)
{
	char id[96];
	unsigned int k;

	for (k = 0; k < BLKIO_NR_LATS; k++) {
		snprintf(id, sizeof(id), "runs[%zu].block.%s.buckets", i, blkio_lat_names[k]);
		latency_chart(f, id, lat_titles[k], "requests", rs->run->block->lat[k],
			      &rs->block.lat[k]);
	}
}

static void app_part(FILE *f, const struct run_summary *rs, size_t i)
{
	const struct app_summary *a = &rs->app;
	char id[96], b[32], m[32], p[32];

	fprintf(f,
		"<p>The application moved %s in %.3f s: <b>%.1f MB/s</b>, %.0f IOPS, latency "
		"%s on average, p99 %s.</p>\n",
		fmt__bytes(b, sizeof(b), (double)a->bytes), a->seconds, a->mb_per_s, a->iops,
		fmt__ns(m, sizeof(m), a->lat.mean), fmt__ns(p, sizeof(p), a->lat.p99));
	snprintf(id, sizeof(id), "runs[%zu].app.latency_ns.buckets", i);
	latency_chart(f, id, "Application I/O latency", "I/Os", rs->run->app->lat, &a->lat);
}

/* One device of a stack table: what it read and wrote, per byte of the one above. */
static void stack_row(FILE *f, const char *name, const char *role, unsigned int level,
		      const struct blkio_counters *c, const struct block_summary *s,
		      double per_above)
{
	char b[32], m[32], p[32];

	fprintf(f, "<tr><td style=\"padding-left:%.1fem\">", 0.6 + 1.2 * level);
	html__text(f, name);
	fputs("</td><td>", f);
	html__text(f, role);
	fprintf(f, "</td><td>%llu / %llu</td><td>%s</td><td>%s</td>",
		(unsigned long long)c->requests[BLKIO_OP_READ],
		(unsigned long long)c->requests[BLKIO_OP_WRITE],
		fmt__bytes(b, sizeof(b),
			   (double)(c->bytes[BLKIO_OP_READ] + c->bytes[BLKIO_OP_WRITE])),
		s->size.count ? fmt__bytes(m, sizeof(m), s->size.mean) : "-");
	if (per_above >= 0)
		fprintf(f, "<td>%.2fx</td>", per_above);
	else
		fputs("<td>-</td>", f);
	fprintf(f, "<td>%s</td></tr>\n",
		s->lat[BLKIO_LAT_DEVICE].count ? fmt__ns(p, sizeof(p), s->lat[BLKIO_LAT_DEVICE].p50)
					       : "-");
}

/* The device, then every layer under it (indented by level), as the JSON's "layers". */
static void stack_table(FILE *f, const struct result *res, const struct run_summary *rs)
{
	char top_role[128];
	size_t k;

	snprintf(top_role, sizeof(top_role), "%s%s", res->stack_top_kind,
		 res->device.bio_based ? ", counted in bios" : "");
	fputs("<table class=\"stack\">\n<tr><th>device</th><th>role</th><th>reads / writes</th>"
	      "<th>bytes</th><th>mean size</th><th>bytes per byte above</th>"
	      "<th>device p50</th></tr>\n",
	      f);
	stack_row(f, res->device.name, top_role, 0, &rs->run->block->c, &rs->block, -1);
	for (k = 0; k < rs->nr_layers; k++) {
		const struct layer_summary *l = &rs->layers[k];

		stack_row(f, l->layer->dev.name, l->layer->role, l->layer->level, &l->b->c,
			  l->block, l->bytes_per_above);
	}
	fputs("</table>\n", f);
	if (res->stack_note[0]) {
		fputs("<p class=\"muted\">", f);
		html__text(f, res->stack_note);
		fputs("</p>\n", f);
	}
}

/* The bars of device k (0: the traced one) of a stack chart: its reads and writes. */
static void stack_bars(const struct plot *p, const struct block_stats *b, size_t k,
		       const char *name)
{
	static const char *const what[] = { "read", "written" };
	char tip[160], v[32];
	unsigned int op;

	for (op = 0; op < 2; op++) {
		__u64 bytes = b->c.bytes[op ? BLKIO_OP_WRITE : BLKIO_OP_READ];

		if (!bytes)
			continue;
		snprintf(tip, sizeof(tip), "%s: %s %s", name, fmt__bytes(v, sizeof(v), bytes),
			 what[op]);
		plot__bar(p, k + (op ? 0.03 : -0.36), k + (op ? 0.36 : -0.03), (double)bytes, 2,
			  op ? "b" : "a", tip);
	}
}

#define STACK_HEIGHT 180

/* Bytes read and written by the device and by each layer, side by side. */
static void stack_chart(FILE *f, const struct result *res, const struct run_summary *rs, size_t i)
{
	const char *labels[1 + STACK_MAX_LAYERS];
	double x[1 + STACK_MAX_LAYERS], ymax = 0, r0, r1;
	size_t n = 1 + rs->nr_layers, k;
	char id[64], title[256];
	struct svg g;
	struct plot p;

	for (k = 0; k < n; k++) {
		const __u64 *bytes = rs->run->block[k].c.bytes;

		x[k] = (double)k;
		labels[k] = k ? rs->layers[k - 1].layer->dev.name : res->device.name;
		ymax = fmax(ymax, (double)(bytes[BLKIO_OP_READ] > bytes[BLKIO_OP_WRITE]
						   ? bytes[BLKIO_OP_READ]
						   : bytes[BLKIO_OP_WRITE]));
	}
	snprintf(id, sizeof(id), "runs[%zu].layers", i);
	snprintf(title, sizeof(title), "Bytes read and written by %s and each layer under it",
		 res->device.name);
	fputs("<figure class=\"chart\">\n<figcaption>", f);
	html__text(f, title);
	fputs("</figcaption>\n<div class=\"side\">\n", f);
	svg__begin(&g, f, WIDE, WIDE_TOP + STACK_HEIGHT + X_LABELS, "chart", id, title);
	plot__init(&p, &g, WIDE_LEFT, WIDE_TOP, WIDE - WIDE_LEFT - WIDE_RIGHT, STACK_HEIGHT);
	plot__x_range(&p, &r0, &r1);
	scale__linear(&p.x, -0.5, n - 0.5, r0, r1);
	plot__y_range(&p, &r0, &r1);
	scale__linear(&p.y, 0, ymax > 0 ? ymax * 1.15 : 1, r0, r1);
	p.y.base = 2; /* ticks at 16M, 32M... */
	plot__x_axis(&p, x, labels, n, 0, NULL, "the traced device, then the layers under it");
	plot__y_axis(&p, 5, chart__size_tick, "bytes");
	for (k = 0; k < n; k++)
		stack_bars(&p, &rs->run->block[k], k, labels[k]);
	plot__legend(&p, 8, 2, "a", "read");
	plot__legend(&p, 90, 2, "b", "written");
	svg__end(&g);
	fputs("</div>\n</figure>\n", f);
}

/* A stacked device's run: what each layer made of the I/O above it. */
static void stack_part(FILE *f, const struct result *res, const struct run_summary *rs, size_t i)
{
	if (!rs->nr_layers)
		return;
	fprintf(f, "<h3 id=\"run-%zu-stack\">The stack</h3>\n", i + 1);
	stack_table(f, res, rs);
	stack_chart(f, res, rs, i);
}

/* One row of the ring table: a per-request figure of the ring. */
static void ring_row(FILE *f, const char *what, const struct dist *d, bool ns)
{
	char b[3][32];

	if (!d->count)
		return;
	if (ns)
		fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", what,
			fmt__ns(b[0], sizeof(b[0]), d->mean), fmt__ns(b[1], sizeof(b[1]), d->p50),
			fmt__ns(b[2], sizeof(b[2]), (double)d->max));
	else
		fprintf(f, "<tr><td>%s</td><td>%.2f</td><td>%.0f</td><td>%llu</td></tr>\n", what,
			d->mean, d->p50, (unsigned long long)d->max);
}

/* What xen-blkfront did with the requests on its shared rings. */
static void ring_part(FILE *f, const struct result *res, const struct run_summary *rs)
{
	const struct ring_summary *r = &rs->ring;
	const struct blkfront_counts *c = &rs->run->block->ring;
	char b[32];

	if (!r->present)
		return;
	fprintf(f,
		"<h3>xen-blkfront ring</h3>\n<p>%llu requests on the ring (%s probes): %llu "
		"direct, %llu indirect (%llu descriptor pages), %llu without data; ring full "
		"%llu times, %.1f%% of the time; turned away by the driver %llu times (ring "
		"full), %llu (no grants)",
		(unsigned long long)r->requests, res->ring_probes, (unsigned long long)r->direct,
		(unsigned long long)r->indirect, (unsigned long long)r->indirect_pages,
		(unsigned long long)r->no_data, (unsigned long long)c->fulls, 100 * r->full_share,
		(unsigned long long)r->full_stops, (unsigned long long)r->grant_stops);
	if (r->waits)
		fprintf(f, ", waiting %s on average", fmt__ns(b, sizeof(b), r->wait_mean_ns));
	if (r->copied_grants)
		fprintf(f, "; %llu grants copied through granted pages",
			(unsigned long long)r->copied_grants);
	fputs(".</p>\n<table>\n<tr><th>per "
	      "request</th><th>mean</th><th>p50</th><th>max</th></tr>\n",
	      f);
	ring_row(f, "grants (direct)", &r->grants_direct, false);
	ring_row(f, "grants (indirect)", &r->grants_indirect, false);
	ring_row(f, "ring slots in use", &r->occupancy, false);
	ring_row(f, "backend time", &r->backend, true);
	fputs("</table>\n", f);
}

static void run_section(FILE *f, const struct report *rep, size_t i)
{
	const struct run_summary *rs = &rep->runs[i];

	fprintf(f, "<section class=\"run\" id=\"run-%zu\">\n<h2>Run %zu: ", i + 1, i + 1);
	html__text(f, rs->label);
	if (rs->params.rw[0])
		fprintf(f, " <span class=\"muted\">(repetition %u)</span>", rs->repetition + 1);
	fprintf(f, "</h2>\n<p class=\"muted\">%.3f s traced", rs->seconds);
	if (rs->has_block)
		fprintf(f, "; %llu requests", (unsigned long long)rs->block.requests);
	fputs("</p>\n", f);
	if (rs->has_app)
		app_part(f, rs, i);
	if (rs->has_block) {
		ops_table(f, rs);
		size_charts(f, rs, i);
		shape_charts(f, rs, i);
		latency_charts(f, rs, i);
		ring_part(f, rep->res, rs);
		stack_part(f, rep->res, rs, i);
	}
	if (rs->run->nr_intervals)
		intervals_figure(f, rs->run, i);
	fputs("</section>\n", f);
}

void report_html__print(FILE *f, const struct report *rep, const char *file)
{
	const struct result *res = rep->res;
	char title[512];
	size_t i;

	snprintf(title, sizeof(title), "blktrace-bench: %s, %s",
		 res->has_device ? res->device.name : "no disk",
		 rep->series.nr > 1 ? "a sweep"
		 : rep->nr_runs	    ? rep->runs[0].label
				    : "no run");
	html__begin(f, title);
	fputs("<h1>", f);
	html__text(f, title);
	fputs("</h1>\n", f);
	findings_section(f, rep);
	if (rep->series.nr > 1)
		sweep_section(f, rep);
	for (i = 0; i < rep->nr_runs; i++)
		run_section(f, rep, i);
	fputs("<section id=\"disk\">\n<h2>The disk and the run</h2>\n", f);
	if (res->has_device)
		html__device(f, &res->device);
	html__origin(f, res, file);
	fputs("</section>\n", f);
	html__end(f);
}
