/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A saved result read back whole, for the printers that draw it (report, compare
 * --html): the struct result a live run has (host, disk, the layers of its stack, every
 * run's block statistics, the device's and each layer's, app statistics, its limits and
 * intervals), rebuilt from the file in one pass of the loader (result_load.c checks what
 * compare reads, here the rest is checked the same way), so that report__build derives
 * from it the figures it derived live.
 */
#ifndef BLKTRACE_BENCH_RESULT_READ_H
#define BLKTRACE_BENCH_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "store/result_load.h"
#include "result/run.h"

struct saved_result {
	struct loaded_result loaded; /* what compare reads: the same pass, the same runs */
	struct result res;	     /* the runs rebuilt; res.runs[i] is loaded.runs[i] */
	bool recommend;		     /* the file has a recommendation: rebuild it */
};

struct diag;

/*
 * Read path into out. 0, or a negative errno with one line in d naming the file and
 * the field (runs[2].block.device_ns.mean is a string, not a number): bad input, or a
 * runtime failure as result_load__file's. out is zeroed on error. Memory: some 90 KB
 * per run and layer (its histograms, unpacked).
 */
int result_read__file(const char *path, struct saved_result *out, struct diag *d);
/* The same for a document in memory; name stands for the file in messages. */
int result_read__buffer(const char *name, const char *buf, size_t len, struct saved_result *out,
			struct diag *d);
void result_read__free(struct saved_result *sr);

/*
 * The `device` object of a result (report_json__device's) back into dev; what it does
 * not say is unknown (limits -1, strings ""). 0, or -EINVAL with one line in d naming
 * name (the file) and the field.
 */
int result_read__device(json_t *obj, struct device *dev, const char *name, struct diag *d);

#endif /* BLKTRACE_BENCH_RESULT_READ_H */
