/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The text printer of a tune: what was tuned and why, every configuration, the decision. */
#ifndef BLKTRACE_BENCH_TUNE_TEXT_H
#define BLKTRACE_BENCH_TUNE_TEXT_H

#include <stdio.h>
#include "tune/tune_outcome.h"

/*
 * workload: the label of the baseline's runs ("read bs=1 MiB psync direct"); saved_as:
 * the result file, NULL when not saved.
 */
void tune_text__print(FILE *f, const struct tune *t, const struct tune_outcome *o, const char *disk,
		      const char *workload, const char *saved_as);

#endif /* BLKTRACE_BENCH_TUNE_TEXT_H */
