/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The HTML printer of a report; see report_html.c. */
#ifndef BLKTRACE_BENCH_REPORT_HTML_H
#define BLKTRACE_BENCH_REPORT_HTML_H

#include <stdio.h>
#include "analysis/report.h"

/* The page of rep; file names the saved result it was read from (NULL: a live run). */
void report_html__print(FILE *f, const struct report *rep, const char *file);

#endif /* BLKTRACE_BENCH_REPORT_HTML_H */
