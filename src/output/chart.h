/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The figures both HTML printers draw from our histograms (report_html.c: one run;
 * compare_html.c: A over B): a histogram at its exact buckets, a distribution as a
 * CDF, each a <figure> with a title in words, the SVG (svg.c) and its numbers in a
 * <details> table beside it. The axes are chosen by the data: latency on a log axis;
 * sizes and counts on a log axis when the non-empty buckets span 16x or more (4 KiB
 * to 1 MiB), else linear from 0, so that 44, 128 and 1024 KiB are three bars apart.
 */
#ifndef BLKTRACE_BENCH_CHART_H
#define BLKTRACE_BENCH_CHART_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "base/histogram.h"

/* One histogram of a figure: a name for its legend (NULL: alone) and a CSS class. */
struct chart_series {
	const char *name;
	const __u64 *h;	 /* hist_nr_buckets(kind) buckets */
	const char *cls; /* "a", "b" */
};

/* A vertical mark: a percentile or a limit. */
struct chart_mark {
	double x;
	char label[48];
	const char *cls; /* "pct", "limit" */
};

#define CHART_MAX_MARKS 6

struct chart {
	const char *id;	 /* data-hist: the JSON path of the buckets ("runs[0]..."), or NULL */
	char title[256]; /* what it shows, in words */
	const char *x_title;
	const char *unit; /* what a count counts: "requests", "I/Os" */
	enum hist_kind kind;
	bool shares; /* y as each series' share of its total (A and B of unequal size) */
	struct chart_series s[2];
	unsigned int nr;
	struct chart_mark marks[CHART_MAX_MARKS];
	unsigned int nr_marks;
};

/* Add a mark at x (ignored when x <= 0 or the marks are full). */
void chart__mark(struct chart *c, double x, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The histogram: one bar per non-empty bucket and series, at its bounds. */
void chart__hist(FILE *f, const struct chart *c);
/* The cumulative distribution, one line per series; its table: the percentiles. */
void chart__cdf(FILE *f, const struct chart *c);
/* Tick labels (svg.h's tick_fmt): sizes as "44K", "1M"; shares 0..1 as "25%". */
const char *chart__size_tick(char *buf, size_t len, double v);
const char *chart__share_tick(char *buf, size_t len, double v);
/* A value of kind as an axis writes it: "44K", "11", "1 ms". */
const char *chart__value(char *buf, size_t len, enum hist_kind kind, double v);

#endif /* BLKTRACE_BENCH_CHART_H */
