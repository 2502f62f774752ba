/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Results' reports where the user asked for them, for every command that makes results
 * (trace, import): each built once; the text on stdout, disk after disk, unless the
 * JSON or the HTML goes there; the JSON (one disk's document, or several disks' in one)
 * and the HTML page into their output files (outfile.h), each committed or, on failure,
 * removed.
 */
#ifndef BLKTRACE_BENCH_REPORT_OUT_H
#define BLKTRACE_BENCH_REPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include "files/outfile.h"
#include "result/run.h"

struct diag;

/*
 * res[0..nr). json and html: open outputs, or NULL or unused ones (path NULL) when not
 * asked for; html for one result only. recommend adds a --set sweep's recommendation,
 * brief shortens the text. 0, or -errno with d.
 */
int report_out__write(const struct result *res, size_t nr, struct outfile *json,
		      struct outfile *html, bool recommend, bool brief, struct diag *d);

#endif /* BLKTRACE_BENCH_REPORT_OUT_H */
