/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The text printer of a comparison; see compare_text.c. */
#ifndef BLKTRACE_BENCH_COMPARE_TEXT_H
#define BLKTRACE_BENCH_COMPARE_TEXT_H

#include <stdio.h>
#include "analysis/compare.h"

/* The text report: settings that differ, a table per pair, what moved. */
void compare_text__print(FILE *f, const struct comparison *c);
/* One side's value of a change as a person writes it: 32, none, true; "-" when absent. */
const char *compare_text__value(char *buf, size_t len, const struct value *v);

#endif /* BLKTRACE_BENCH_COMPARE_TEXT_H */
