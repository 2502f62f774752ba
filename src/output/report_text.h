/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The text printer of a report; see report_text.c. */
#ifndef BLKTRACE_BENCH_REPORT_TEXT_H
#define BLKTRACE_BENCH_REPORT_TEXT_H

#include <stdbool.h>
#include <stdio.h>
#include "analysis/report.h"

/* Every run's section (brief: none for workload runs), then the linked table. */
void report_text__print(FILE *f, const struct report *rep, bool brief);
/* One interval of passive mode: a run of its own, outside the result. 0 or -ENOMEM. */
int report_text__interval(FILE *f, const struct result *res, const struct run *run);

#endif /* BLKTRACE_BENCH_REPORT_TEXT_H */
