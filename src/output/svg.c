// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Charts as inline SVG: scales, ticks, axes, marks, escaping; see svg.h. */
#include <math.h>
#include <string.h>
#include "output/svg.h"
#include "base/text.h"

#define TICK_PX 4
#define FONT_PX 11

void scale__linear(struct scale *s, double d0, double d1, double r0, double r1)
{
	memset(s, 0, sizeof(*s));
	s->kind = SCALE_LINEAR;
	if (!(d1 > d0))
		d1 = d0 + 1; /* one value: still a scale, the value at its start */
	s->d0 = d0;
	s->d1 = d1;
	s->r0 = r0;
	s->r1 = r1;
}

void scale__log(struct scale *s, double d0, double d1, double r0, double r1, unsigned int base)
{
	memset(s, 0, sizeof(*s));
	s->kind = SCALE_LOG;
	s->base = base >= 2 ? base : 10;
	if (!(d0 > 0))
		d0 = 1;
	if (!(d1 > d0))
		d1 = d0 * s->base;
	s->d0 = d0;
	s->d1 = d1;
	s->r0 = r0;
	s->r1 = r1;
}

double scale__map(const struct scale *s, double v)
{
	double t;

	if (s->kind == SCALE_LOG) {
		if (!(v > 0))
			return s->r0;
		t = (log(v) - log(s->d0)) / (log(s->d1) - log(s->d0));
	} else {
		t = (v - s->d0) / (s->d1 - s->d0);
	}
	return s->r0 + t * (s->r1 - s->r0);
}

/* The smallest step of 1, 2 or 5 x 10^k with at most max ticks over [d0, d1]. */
static size_t linear_ticks(const struct scale *s, double *out, size_t max)
{
	static const double nice[] = { 1, 2, 5 };
	double range = s->d1 - s->d0, mag, step = 0, v;
	size_t n = 0, i;
	int k;

	if (!max || !(range > 0))
		return 0;
	if (s->base == 2) {
		/* Sizes: steps of a power of two, so that 64K, 128K, 192K read as sizes. */
		for (step = pow(2, floor(log2(range / (double)max))); step > 0; step *= 2)
			if (floor(s->d1 / step + 1e-9) - ceil(s->d0 / step - 1e-9) + 1 <=
			    (double)max)
				break;
	}
	mag = pow(10, floor(log10(range / (double)max)));
	for (k = 0; k < 4 && !step; k++, mag *= 10)
		for (i = 0; i < 3 && !step; i++) {
			double cand = nice[i] * mag;

			if (floor(s->d1 / cand + 1e-9) - ceil(s->d0 / cand - 1e-9) + 1 <=
			    (double)max)
				step = cand;
		}
	if (!step)
		return 0;
	for (v = ceil(s->d0 / step - 1e-9) * step; v <= s->d1 + step * 1e-9 && n < max; v += step)
		out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

/* Powers of the base inside the domain, every stride-th; base 10 over < 2 decades: 1-2-5. */
static size_t log_ticks(const struct scale *s, double *out, size_t max)
{
	double b = s->base, lb = log(b);
	long k0 = (long)ceil(log(s->d0) / lb - 1e-9), k1 = (long)floor(log(s->d1) / lb + 1e-9);
	long k, stride, nk = k1 - k0 + 1;
	size_t n = 0;

	if (!max)
		return 0;
	if (s->base == 10 && nk < 3) {
		static const double mult[] = { 1, 2, 5 };
		size_t i;

		for (k = k0 - 1; k <= k1; k++)
			for (i = 0; i < 3; i++) {
				double v = mult[i] * pow(10, (double)k);

				if (v >= s->d0 * (1 - 1e-9) && v <= s->d1 * (1 + 1e-9) && n < max)
					out[n++] = v;
			}
		if (n >= 2)
			return n;
		n = 0;
	}
	if (nk <= 0)
		return 0;
	stride = (nk + (long)max - 1) / (long)max;
	/* Aligned to multiples of the stride, so that the labels are regular (4K 64K 1M). */
	for (k = k0; k <= k1 && n < max; k++)
		if (((k % stride) + stride) % stride == 0)
			out[n++] = pow(b, (double)k);
	return n;
}

size_t scale__ticks(const struct scale *s, double *out, size_t max)
{
	return s->kind == SCALE_LOG ? log_ticks(s, out, max) : linear_ticks(s, out, max);
}

void svg__escape(FILE *f, const char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80) {
			n = text__utf8_seq(s + i, len - i);
			if (n)
				fwrite(s + i, 1, n, f);
			else
				fputs("\xef\xbf\xbd", f); /* U+FFFD */
			i += n ? n : 1;
			continue;
		}
		i++;
		switch (c) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
				fputs("\xef\xbf\xbd", f);
			else
				fputc(c, f);
		}
	}
}

void svg__begin(struct svg *g, FILE *f, double width, double height, const char *data_attr,
		const char *data_value, const char *title)
{
	g->f = f;
	g->width = width;
	g->height = height;
	fprintf(f,
		"<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		"role=\"img\"",
		width, height, width, height);
	if (data_attr) {
		fprintf(f, " data-%s=\"", data_attr);
		svg__escape(f, data_value);
		fputc('"', f);
	}
	fputs(" aria-label=\"", f);
	svg__escape(f, title);
	fputs("\">\n<title>", f);
	svg__escape(f, title);
	fputs("</title>\n", f);
}

void svg__end(struct svg *g)
{
	fputs("</svg>\n", g->f);
}

void plot__init(struct plot *p, struct svg *g, double left, double top, double width, double height)
{
	memset(p, 0, sizeof(*p));
	p->g = g;
	p->left = left;
	p->top = top;
	p->width = width;
	p->height = height;
	scale__linear(&p->x, 0, 1, left, left + width);
	scale__linear(&p->y, 0, 1, top + height, top);
}

void plot__x_range(const struct plot *p, double *r0, double *r1)
{
	*r0 = p->left;
	*r1 = p->left + p->width;
}

void plot__y_range(const struct plot *p, double *r0, double *r1)
{
	*r0 = p->top + p->height;
	*r1 = p->top;
}

static bool inside(double v, double a, double b)
{
	return v >= fmin(a, b) - 0.5 && v <= fmax(a, b) + 0.5;
}

static void text_el(FILE *f, double x, double y, const char *anchor, const char *cls,
		    const char *extra, const char *text)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"", x, y, anchor);
	svg__escape(f, cls);
	fprintf(f, "\"%s>", extra ? extra : "");
	svg__escape(f, text);
	fputs("</text>\n", f);
}

void plot__x_axis(const struct plot *p, const double *values, const char *const *labels, size_t n,
		  size_t max_ticks, tick_fmt fmt, const char *title)
{
	FILE *f = p->g->f;
	double ticks[64], bottom = p->top + p->height;
	char buf[64];
	size_t i;

	if (!values) {
		n = scale__ticks(&p->x, ticks, max_ticks < 64 ? max_ticks : 64);
		values = ticks;
	}
	fprintf(f,
		"<g class=\"axis x\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		p->left, bottom, p->left + p->width, bottom);
	for (i = 0; i < n; i++) {
		double x = scale__map(&p->x, values[i]);

		if (!inside(x, p->left, p->left + p->width))
			continue;
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			x, p->top, x, bottom);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, bottom,
			x, bottom + TICK_PX);
		text_el(f, x, bottom + TICK_PX + FONT_PX, "middle", "tick", NULL,
			labels ? labels[i] : fmt(buf, sizeof(buf), values[i]));
	}
	if (title && *title)
		text_el(f, p->left + p->width / 2, bottom + TICK_PX + 2.4 * FONT_PX + 2, "middle",
			"title", NULL, title);
	fputs("</g>\n", f);
}

void plot__y_axis(const struct plot *p, size_t max_ticks, tick_fmt fmt, const char *title)
{
	FILE *f = p->g->f;
	double ticks[64], bottom = p->top + p->height;
	size_t i, n = scale__ticks(&p->y, ticks, max_ticks < 64 ? max_ticks : 64);
	char buf[64], rot[96];

	fprintf(f,
		"<g class=\"axis y\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		p->left, p->top, p->left, bottom);
	for (i = 0; i < n; i++) {
		double y = scale__map(&p->y, ticks[i]);

		if (!inside(y, p->top, bottom))
			continue;
		fprintf(f,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			p->left, y, p->left + p->width, y);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			p->left - TICK_PX, y, p->left, y);
		text_el(f, p->left - TICK_PX - 2, y + FONT_PX / 3.0, "end", "tick", NULL,
			fmt(buf, sizeof(buf), ticks[i]));
	}
	if (title && *title) {
		double x = p->left - 4.6 * FONT_PX, y = p->top + p->height / 2;

		snprintf(rot, sizeof(rot), " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
		text_el(f, x, y, "middle", "title", rot, title);
	}
	fputs("</g>\n", f);
}

static void title_el(FILE *f, const char *tip)
{
	if (!tip)
		return;
	fputs("<title>", f);
	svg__escape(f, tip);
	fputs("</title>", f);
}

void plot__bar(const struct plot *p, double x0, double x1, double y, double min_px, const char *cls,
	       const char *tip)
{
	FILE *f = p->g->f;
	double px0 = scale__map(&p->x, x0), px1 = scale__map(&p->x, x1), base = p->y.r0;
	double py = scale__map(&p->y, y), w = px1 - px0;

	if (w < min_px) {
		px0 -= (min_px - w) / 2;
		w = min_px;
	}
	if (py < p->top)
		py = p->top;
	if (y > 0 && base - py < 1)
		py = base - 1;
	if (py > base)
		py = base;
	fprintf(f, "<rect class=\"bar ");
	svg__escape(f, cls ? cls : "");
	fprintf(f, "\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\">", px0, py, w,
		base - py);
	title_el(f, tip);
	fputs("</rect>\n", f);
}

void plot__line(const struct plot *p, const double *xs, const double *ys, size_t n, const char *cls,
		bool dots)
{
	FILE *f = p->g->f;
	bool pen = false;
	size_t i;

	fputs("<path class=\"line ", f);
	svg__escape(f, cls ? cls : "");
	fputs("\" d=\"", f);
	for (i = 0; i < n; i++) {
		if (isnan(ys[i])) {
			pen = false;
			continue;
		}
		fprintf(f, "%s%.2f %.2f ", pen ? "L" : "M", scale__map(&p->x, xs[i]),
			scale__map(&p->y, ys[i]));
		pen = true;
	}
	fputs("\"/>\n", f);
	for (i = 0; dots && i < n; i++)
		if (!isnan(ys[i]))
			plot__point(p, xs[i], ys[i], 2.5, cls, NULL);
}

void plot__vmark(const struct plot *p, double x, const char *label, const char *cls,
		 unsigned int row)
{
	FILE *f = p->g->f;
	double px = scale__map(&p->x, x);

	if (!inside(px, p->left, p->left + p->width))
		return;
	fputs("<g class=\"mark ", f);
	svg__escape(f, cls ? cls : "");
	fprintf(f, "\"><line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>\n", px, p->top, px,
		p->top + p->height);
	if (label && *label)
		text_el(f, px + 3, p->top + FONT_PX + row * (FONT_PX + 2),
			px > p->left + p->width * 0.8 ? "end" : "start", "label", NULL, label);
	fputs("</g>\n", f);
}

void plot__errbar(const struct plot *p, double x, double y0, double y1, const char *cls)
{
	FILE *f = p->g->f;
	double px = scale__map(&p->x, x), a = scale__map(&p->y, y0), b = scale__map(&p->y, y1);

	fputs("<path class=\"errbar ", f);
	svg__escape(f, cls ? cls : "");
	fprintf(f, "\" d=\"M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f M%.2f %.2f L%.2f %.2f\"/>\n",
		px, a, px, b, px - 4, a, px + 4, a, px - 4, b, px + 4, b);
}

void plot__point(const struct plot *p, double x, double y, double r, const char *cls,
		 const char *tip)
{
	FILE *f = p->g->f;

	fputs("<circle class=\"dot ", f);
	svg__escape(f, cls ? cls : "");
	fprintf(f, "\" cx=\"%.2f\" cy=\"%.2f\" r=\"%.1f\">", scale__map(&p->x, x),
		scale__map(&p->y, y), r);
	title_el(f, tip);
	fputs("</circle>\n", f);
}

void plot__text(const struct plot *p, double x, double y, const char *anchor, const char *cls,
		const char *text)
{
	text_el(p->g->f, scale__map(&p->x, x), scale__map(&p->y, y), anchor, cls, NULL, text);
}

void plot__legend(const struct plot *p, double px, double py, const char *cls, const char *label)
{
	FILE *f = p->g->f;

	fputs("<rect class=\"swatch ", f);
	svg__escape(f, cls ? cls : "");
	fprintf(f, "\" x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\"/>\n", p->left + px,
		p->top + py);
	text_el(f, p->left + px + 14, p->top + py + 9, "start", "legend", NULL, label);
}
