/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Output backends. Each reads a struct result and writes one format; none of them
 * computes anything the others would need (that lives in summary.c and stats.c).
 */
#ifndef BLKTRACE_BENCH_REPORT_H
#define BLKTRACE_BENCH_REPORT_H

#include <stdio.h>
#include <jansson.h>
#include "run.h"

#define RESULT_SCHEMA "blktrace-bench/1"

/* Text: summary tables and biolatency-style histograms, one section per run. */
void report_text_run(FILE *f, const struct result *res, const struct run *run);
void report_text(FILE *f, const struct result *res);

/*
 * JSON: the document described in the README; NULL on ENOMEM. Strings from outside
 * (argv, sysfs) are repaired to valid UTF-8 (text.h); outfile.c writes it.
 */
json_t *report_json_device(const struct device *dev);
json_t *report_json_run(const struct result *res, const struct run *run);
json_t *report_json(const struct result *res);

/* "4 KiB", "1.5 MiB", "512 B". */
const char *fmt_bytes(char *buf, size_t len, double bytes);

#endif /* BLKTRACE_BENCH_REPORT_H */
