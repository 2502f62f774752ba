/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The HTML printer of a comparison; see compare_html.c. */
#ifndef BLKTRACE_BENCH_COMPARE_HTML_H
#define BLKTRACE_BENCH_COMPARE_HTML_H

#include <stdio.h>
#include "analysis/compare.h"
#include "result/run.h"

/*
 * The page of c; ra and rb are A and B rebuilt whole (result_read.h), whose runs are
 * the ones c's series index.
 */
void compare_html__print(FILE *f, const struct comparison *c, const struct result *ra,
			 const struct result *rb);

#endif /* BLKTRACE_BENCH_COMPARE_HTML_H */
