/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A result's report where the user asked for it, for every command that makes a result
 * (trace, import): built once, the text on stdout unless the JSON goes there, the JSON
 * into its output file (outfile.h), which is committed or, on failure, removed.
 */
#ifndef BLKTRACE_BENCH_REPORT_OUT_H
#define BLKTRACE_BENCH_REPORT_OUT_H

#include <stdbool.h>
#include "files/outfile.h"
#include "result/run.h"

struct diag;

/*
 * json_path is what --json named ("-": stdout; NULL: no JSON) and json its open output.
 * recommend adds a --set sweep's recommendation, brief shortens the text. 0, or -errno
 * with d.
 */
int report_out__write(const struct result *res, const char *json_path, struct outfile *json,
		      bool recommend, bool brief, struct diag *d);

#endif /* BLKTRACE_BENCH_REPORT_OUT_H */
