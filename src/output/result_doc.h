/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A result document built in memory (report_json__doc and what tune or verify add to
 * it): written to its output file, and read back through the loader every saved file
 * goes through (result_load.h), so that compare and tune_plan see a live run exactly as
 * they would see its file.
 */
#ifndef BLKTRACE_BENCH_RESULT_DOC_H
#define BLKTRACE_BENCH_RESULT_DOC_H

#include <jansson.h>
#include "files/outfile.h"
#include "store/result_load.h"

struct diag;

/* Write doc to of and commit it. 0, or -errno with one line in d (a runtime failure). */
int result_doc__write(struct outfile *of, json_t *doc, struct diag *d);

/* doc as result_load__file would read it from a file called name. 0 or -errno with d. */
int result_doc__load(json_t *doc, const char *name, struct loaded_result *lr, struct diag *d);

#endif /* BLKTRACE_BENCH_RESULT_DOC_H */
