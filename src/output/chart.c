// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Histogram and CDF figures of our histograms, for the HTML printers; see chart.h. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "output/chart.h"
#include "base/fmt.h"
#include "hist.h"
#include "output/svg.h"

#define WIDTH 640
#define HEIGHT 250
#define LEFT 72
#define RIGHT 16
#define TOP 16
#define BOTTOM 46
#define LOG_SPAN 16 /* non-empty buckets spanning this ratio or more: a log axis */

void chart__mark(struct chart *c, double x, const char *cls, const char *fmt, ...)
{
	struct chart_mark *m;
	va_list ap;

	if (!(x > 0) || c->nr_marks >= CHART_MAX_MARKS)
		return;
	m = &c->marks[c->nr_marks++];
	m->x = x;
	m->cls = cls;
	va_start(ap, fmt);
	vsnprintf(m->label, sizeof(m->label), fmt, ap);
	va_end(ap);
}

const char *chart__size_tick(char *buf, size_t len, double v)
{
	return fmt__size_short(buf, len, (uint64_t)v);
}

const char *chart__share_tick(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.0f%%", 100 * v);
	return buf;
}

static tick_fmt x_fmt(enum hist_kind kind)
{
	return kind == HIST_KIND_SIZE  ? chart__size_tick
	       : kind == HIST_KIND_LAT ? fmt__ns
				       : fmt__num;
}

const char *chart__value(char *buf, size_t len, enum hist_kind kind, double v)
{
	return x_fmt(kind)(buf, len, v);
}

/* The upper bound of bucket i as a number to draw to: the open last one is twice as wide. */
static double bucket_hi(enum hist_kind kind, unsigned int i)
{
	uint64_t hi = hist_bucket_hi(kind, i);

	return hi == UINT64_MAX ? 2.0 * hist_bucket_lo(kind, i) : (double)hi;
}

static uint64_t total_of(const __u64 *h, enum hist_kind kind)
{
	return hist_total(h, hist_nr_buckets(kind));
}

/* The non-empty buckets over every series, and the tallest bar; false when all are empty. */
static bool extent(const struct chart *c, unsigned int *first, unsigned int *last, double *ymax)
{
	unsigned int n = hist_nr_buckets(c->kind), i, k;

	*first = n;
	*last = 0;
	*ymax = 0;
	for (k = 0; k < c->nr; k++) {
		uint64_t total = total_of(c->s[k].h, c->kind);

		for (i = 0; i < n; i++) {
			double y;

			if (!c->s[k].h[i])
				continue;
			*first = i < *first ? i : *first;
			*last = i > *last ? i : *last;
			y = c->shares ? (double)c->s[k].h[i] / total : (double)c->s[k].h[i];
			*ymax = fmax(*ymax, y);
		}
	}
	return *first < n;
}

/* The x axis the data asks for: log for latency and wide spans, else linear from 0. */
static void x_scale(const struct chart *c, struct plot *p, unsigned int first, unsigned int last)
{
	double lo = (double)hist_bucket_lo(c->kind, first), hi = bucket_hi(c->kind, last), r0, r1;
	unsigned int m;

	for (m = 0; m < c->nr_marks; m++)
		if (c->marks[m].cls && !strcmp(c->marks[m].cls, "limit"))
			hi = fmax(hi, c->marks[m].x * 1.04);
	plot__x_range(p, &r0, &r1);
	if (c->kind == HIST_KIND_LAT || (lo > 0 && hi / lo >= LOG_SPAN)) {
		lo = lo > 0 ? lo : 1;
		/* At least one power of ten (or of two), so that a narrow peak is not a wall. */
		if (hi / lo < 10) {
			double mid = sqrt(lo * hi);

			lo = mid / sqrt(10);
			hi = mid * sqrt(10);
		}
		scale__log(&p->x, lo / 1.1, hi * 1.1, r0, r1, c->kind == HIST_KIND_LAT ? 10 : 2);
	} else {
		scale__linear(&p->x, 0, hi * 1.05, r0, r1);
		p->x.base = c->kind == HIST_KIND_SIZE ? 2 : 0;
	}
}

static void begin_figure(FILE *f, const struct chart *c, struct svg *g, struct plot *p)
{
	fputs("<figure class=\"chart\">\n<figcaption>", f);
	svg__escape(f, c->title);
	fputs("</figcaption>\n<div class=\"side\">\n", f);
	svg__begin(g, f, WIDTH, HEIGHT, c->id ? "hist" : NULL, c->id, c->title);
	plot__init(p, g, LEFT, TOP, WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
}

/*
 * The figure opened, its x axis scaled to the data, y from 0 to 1 (a CDF) or to above
 * the tallest bar; false when every series is empty (no figure).
 */
static bool open_plot(FILE *f, const struct chart *c, bool cdf, struct svg *g, struct plot *p,
		      unsigned int *first, unsigned int *last)
{
	double ymax, r0, r1;

	if (!extent(c, first, last, &ymax))
		return false;
	begin_figure(f, c, g, p);
	x_scale(c, p, *first, *last);
	plot__y_range(p, &r0, &r1);
	scale__linear(&p->y, 0, cdf ? 1 : ymax * 1.15, r0, r1);
	plot__x_axis(p, NULL, NULL, 0, 9, x_fmt(c->kind), c->x_title);
	return true;
}

/* The numbers beside a chart: its first column, then each series' (and extra after it). */
static void table_head(FILE *f, const struct chart *c, const char *first, const char *extra)
{
	unsigned int k;

	fprintf(f, "<details><summary>numbers</summary>\n<table>\n<tr><th>%s</th>", first);
	for (k = 0; k < c->nr; k++) {
		fputs("<th>", f);
		svg__escape(f, c->s[k].name ? c->s[k].name : c->unit);
		fprintf(f, "</th>%s", extra);
	}
	fputs("</tr>\n", f);
}

/* The end of the numbers, and of the figure. */
static void table_end(FILE *f)
{
	fputs("</table>\n</details>\n</div>\n</figure>\n", f);
}

static void legend(const struct chart *c, const struct plot *p)
{
	unsigned int k;

	for (k = 0; c->nr > 1 && k < c->nr; k++)
		plot__legend(p, p->width - 90, 4 + 16 * k, c->s[k].cls, c->s[k].name);
}

static void bars(const struct chart *c, const struct plot *p, unsigned int first, unsigned int last)
{
	char label[96], tip[256];
	unsigned int i, k;

	for (k = 0; k < c->nr; k++) {
		uint64_t total = total_of(c->s[k].h, c->kind);

		for (i = first; i <= last; i++) {
			uint64_t n = c->s[k].h[i];

			if (!n)
				continue;
			snprintf(tip, sizeof(tip), "%s%s%s: %llu %s (%.1f%%)", c->s[k].name ?: "",
				 c->s[k].name ? " " : "",
				 fmt__bucket(label, sizeof(label), c->kind, i),
				 (unsigned long long)n, c->unit, 100.0 * n / total);
			plot__bar(p, (double)hist_bucket_lo(c->kind, i), bucket_hi(c->kind, i),
				  c->shares ? (double)n / total : (double)n, 1.5, c->s[k].cls, tip);
		}
	}
}

/* The numbers beside the chart: every non-empty bucket, counts and shares. */
static void hist_table(FILE *f, const struct chart *c, unsigned int first, unsigned int last)
{
	char label[96];
	unsigned int i, k;

	table_head(f, c, "bucket", "<th>share</th>");
	for (i = first; i <= last; i++) {
		bool any = false;

		for (k = 0; k < c->nr; k++)
			any |= c->s[k].h[i] != 0;
		if (!any)
			continue;
		fputs("<tr><td>", f);
		svg__escape(f, fmt__bucket(label, sizeof(label), c->kind, i));
		fputs("</td>", f);
		for (k = 0; k < c->nr; k++)
			fprintf(f, "<td>%llu</td><td>%.1f%%</td>", (unsigned long long)c->s[k].h[i],
				100.0 * c->s[k].h[i] / total_of(c->s[k].h, c->kind));
		fputs("</tr>\n", f);
	}
	table_end(f);
}

void chart__hist(FILE *f, const struct chart *c)
{
	unsigned int first, last, m;
	struct svg g;
	struct plot p;

	if (!open_plot(f, c, false, &g, &p, &first, &last))
		return;
	plot__y_axis(&p, 6, c->shares ? chart__share_tick : fmt__num,
		     c->shares ? "share of requests" : c->unit);
	bars(c, &p, first, last);
	for (m = 0; m < c->nr_marks; m++)
		plot__vmark(&p, c->marks[m].x, c->marks[m].label, c->marks[m].cls, m);
	legend(c, &p);
	svg__end(&g);
	hist_table(f, c, first, last);
}

/* One series' CDF: the share at or below each non-empty bucket's upper bound. */
static void cdf_line(const struct chart *c, const struct plot *p, unsigned int k,
		     unsigned int first, unsigned int last)
{
	double xs[HIST_LAT_BUCKETS + 1], ys[HIST_LAT_BUCKETS + 1], seen = 0;
	uint64_t total = total_of(c->s[k].h, c->kind);
	unsigned int i;
	size_t n = 0;

	if (!total)
		return;
	xs[n] = (double)hist_bucket_lo(c->kind, first);
	ys[n++] = 0;
	for (i = first; i <= last; i++) {
		if (!c->s[k].h[i])
			continue;
		seen += (double)c->s[k].h[i];
		xs[n] = bucket_hi(c->kind, i);
		ys[n++] = seen / (double)total;
	}
	plot__line(p, xs, ys, n, c->s[k].cls, false);
}

static void cdf_table(FILE *f, const struct chart *c)
{
	static const double pcts[] = { 50, 90, 99, 99.9 };
	char buf[32];
	unsigned int k, j;

	table_head(f, c, "percentile", "");
	for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
		fprintf(f, "<tr><td>p%g</td>", pcts[j]);
		for (k = 0; k < c->nr; k++)
			fprintf(f, "<td>%s</td>",
				total_of(c->s[k].h, c->kind)
					? chart__value(buf, sizeof(buf), c->kind,
						       hist_percentile(c->kind, c->s[k].h, pcts[j],
								       UINT64_MAX))
					: "-");
		fputs("</tr>\n", f);
	}
	table_end(f);
}

void chart__cdf(FILE *f, const struct chart *c)
{
	unsigned int first, last, k;
	struct svg g;
	struct plot p;

	if (!open_plot(f, c, true, &g, &p, &first, &last))
		return;
	plot__y_axis(&p, 6, chart__share_tick, "share at or below");
	for (k = 0; k < c->nr; k++)
		cdf_line(c, &p, k, first, last);
	legend(c, &p);
	svg__end(&g);
	cdf_table(f, c);
}
