/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What every HTML page of ours shares (report_html.c, compare_html.c): one
 * self-contained file with its CSS inline, SVG charts (svg.c, chart.c), no script and
 * no external reference (fonts, styles or images from elsewhere would break it
 * offline and leak that it was opened); light and dark themes by the reader's
 * preference; readable printed. And the disk's facts, as `info` tells them.
 */
#ifndef BLKTRACE_BENCH_HTML_H
#define BLKTRACE_BENCH_HTML_H

#include <stdio.h>
#include "disk/device.h"
#include "result/run.h"

/* <!DOCTYPE html> ... <main>, the page titled title (escaped). */
void html__begin(FILE *f, const char *title);
/* </main> ... </html>, and a newline. */
void html__end(FILE *f);
/* s, escaped (svg__escape). */
void html__text(FILE *f, const char *s);
/* A row of a facts table: <tr><th>key</th><td>value</td></tr>, value formatted, escaped. */
void html__fact(FILE *f, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Where a result comes from: command line, host, kernel, tool version, tracer. */
void html__origin(FILE *f, const struct result *res, const char *file);
/* The disk's facts: name, size, driver, limits, the largest request, driver specifics. */
void html__device(FILE *f, const struct device *dev);

#endif /* BLKTRACE_BENCH_HTML_H */
