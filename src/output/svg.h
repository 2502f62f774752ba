/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Charts as inline SVG, the one plotting module: scales (linear and logarithmic),
 * nice ticks, axes, bars, lines, marks and labels, and the escaping every string that
 * reaches HTML or SVG goes through. Written here because no well-kept C charting
 * library exists (gnuplot and friends are programs, not libraries; iowatcher carries
 * its own plot.c for the same reason), and what a report needs is small: a plot is a
 * rectangle with an x and a y scale; everything is drawn in data coordinates.
 *
 * Nothing here knows about requests or latencies: report_html.c and compare_html.c
 * decide what to draw. Elements carry CSS classes (styled by the page, so dark and
 * light themes and print need no second drawing); data bars are <rect class="bar ...">,
 * one per value, so a test can count them.
 */
#ifndef BLKTRACE_BENCH_SVG_H
#define BLKTRACE_BENCH_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum scale_kind {
	SCALE_LINEAR,
	SCALE_LOG, /* domain > 0; ticks at powers of the base */
};

/* A map from a domain [d0, d1] to pixels [r0, r1] (r1 < r0 for a y axis). */
struct scale {
	enum scale_kind kind;
	double d0, d1;
	double r0, r1;
	unsigned int base; /* ticks: SCALE_LOG at powers of 2 (sizes) or 10 (times); a
			    * SCALE_LINEAR with base 2 at multiples of a power of two */
};

/* A linear scale; a degenerate domain (d0 == d1) is widened so that it maps. */
void scale__linear(struct scale *s, double d0, double d1, double r0, double r1);
/* A log scale over [d0, d1] (both > 0, else clamped to 1), ticks at powers of base. */
void scale__log(struct scale *s, double d0, double d1, double r0, double r1, unsigned int base);
/* Pixel of v; values outside the domain map outside the range (log: v <= 0 maps to r0). */
double scale__map(const struct scale *s, double v);
/*
 * At most max ticks inside the domain into out, ascending; returns how many. Linear:
 * multiples of 1, 2 or 5 x 10^k ("nice" steps, the first at or above d0). Log: powers
 * of the base (every k-th power when there are too many; with base 10 over less than
 * two decades, 2x and 5x the powers too).
 */
size_t scale__ticks(const struct scale *s, double *out, size_t max);

/* How a tick value is written: buf filled and returned (fmt.h's functions fit). */
typedef const char *(*tick_fmt)(char *buf, size_t len, double v);

/*
 * s escaped for HTML/SVG text and attribute values onto f: & < > " ' as entities,
 * bytes that are not valid UTF-8 and control characters (but tab and newline) as
 * U+FFFD. Every string of a report reaches the page through here.
 */
void svg__escape(FILE *f, const char *s);

/*
 * One <svg> element of width x height pixels (scaled down by the page when narrower),
 * with an accessible title and, when data_attr is not NULL, the attribute
 * data-<data_attr>="<data_value>" by which tests find a chart.
 */
struct svg {
	FILE *f;
	double width, height;
};

void svg__begin(struct svg *g, FILE *f, double width, double height, const char *data_attr,
		const char *data_value, const char *title);
void svg__end(struct svg *g);

/* A plot: a rectangle of g (left, top, width, height) with an x and a y scale. */
struct plot {
	struct svg *g;
	double left, top, width, height;
	struct scale x, y;
};

/* The rectangle only; set p->x and p->y (scale__*) with plot__x_range()/plot__y_range(). */
void plot__init(struct plot *p, struct svg *g, double left, double top, double width,
		double height);
/* The pixel ranges a plot's scales map to: [left, left + width], [top + height, top]. */
void plot__x_range(const struct plot *p, double *r0, double *r1);
void plot__y_range(const struct plot *p, double *r0, double *r1);

/*
 * Axes: the bottom (x) or left (y) axis line, ticks at values (or, with labels, at the
 * given positions: categories), grid lines across the plot, and the axis title.
 * values NULL: scale__ticks picks up to max_ticks.
 */
void plot__x_axis(const struct plot *p, const double *values, const char *const *labels, size_t n,
		  size_t max_ticks, tick_fmt fmt, const char *title);
void plot__y_axis(const struct plot *p, size_t max_ticks, tick_fmt fmt, const char *title);

/*
 * A bar from x0 to x1 (data units) and from the y domain's floor up to y, at least
 * min_px wide (centred) and, when y > 0, one pixel high: every non-empty bucket shows.
 * cls is added to "bar"; tip becomes its <title>.
 */
void plot__bar(const struct plot *p, double x0, double x1, double y, double min_px, const char *cls,
	       const char *tip);
/* A polyline through (xs[i], ys[i]); points with a NaN y are left out (the line breaks). */
void plot__line(const struct plot *p, const double *xs, const double *ys, size_t n, const char *cls,
		bool dots);
/* A vertical mark at x over the plot's height, its label in text row row (0: the top). */
void plot__vmark(const struct plot *p, double x, const char *label, const char *cls,
		 unsigned int row);
/* A vertical error bar at x from y0 to y1, with caps. */
void plot__errbar(const struct plot *p, double x, double y0, double y1, const char *cls);
/* A point (a circle of radius r pixels) with a tooltip. */
void plot__point(const struct plot *p, double x, double y, double r, const char *cls,
		 const char *tip);
/* Text at data coordinates; anchor "start", "middle" or "end". */
void plot__text(const struct plot *p, double x, double y, const char *anchor, const char *cls,
		const char *text);
/* A legend entry at pixel (px, py) of the plot: a swatch of class cls and its label. */
void plot__legend(const struct plot *p, double px, double py, const char *cls, const char *label);

#endif /* BLKTRACE_BENCH_SVG_H */
