/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * compare: two saved results -> a verdict per metric. The comparison is built once,
 * as the JSON object `compare --json` prints; the text printer reads that same
 * object, so the two outputs cannot disagree.
 *
 * A change is "significant" when Welch's t-test over the repetitions gives
 * p < COMPARE_ALPHA and the 95% confidence intervals of the two means do not
 * overlap; the second test keeps a tiny p from a huge n from calling noise a win.
 */
#ifndef BLKTRACE_BENCH_COMPARE_H
#define BLKTRACE_BENCH_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>
#include "stats.h"

#define COMPARE_ALPHA 0.05

enum verdict {
	VERDICT_SAME,
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_HIGHER,	 /* significant, for a metric with no good direction */
	VERDICT_LOWER,
	VERDICT_UNKNOWN, /* fewer than 2 repetitions on a side */
};

struct metric_cmp {
	double change; /* (b - a) / a; NAN when a is 0 and b is not */
	double p;      /* Welch's two-sided p-value; NAN when unknown */
	bool significant;
	enum verdict verdict;
};

/* Judge one metric whose direction is +1 (higher is better), -1 or 0 (neither). */
void compare__metric(const struct agg *a, const struct agg *b, int direction,
		     struct metric_cmp *out);

/* "better", "worse", "same", "higher", "lower", "unknown": the JSON names. */
const char *compare__verdict_name(enum verdict v);

/*
 * Read and check a result file (compare_load.c). 0, or a negative errno with one line
 * in err naming the file and what is wrong (unreadable, not JSON with line and column,
 * not a result, a schema newer than ours, runs that cannot be matched, a field of the
 * wrong type or out of range, named by its path: runs[3].app.mb_per_s). The document
 * holds only what compare reads; its memory grows with the runs, not the file.
 */
int compare__load(const char *path, json_t **doc, char *err, size_t len);
/* The same for a document in memory; name stands for the file in messages. */
int compare__load_string(const char *name, const char *text, json_t **doc, char *err,
			 size_t len);
int compare__load_buffer(const char *name, const char *buf, size_t buflen, json_t **doc,
			 char *err, size_t len);
/* "an object", "a number", ...: for messages. */
const char *compare__type_name(json_t *v);

/*
 * The comparison of result documents a and b (named name_a, name_b): {"a", "b",
 * "device_changes", "unmatched", "sets", "metrics", "summary"}. NULL on ENOMEM.
 */
json_t *compare__build(json_t *a, json_t *b, const char *name_a, const char *name_b);

/*
 * Headline metrics significantly worse by more than pct percent, each named in one
 * line on f (when f is not NULL).
 */
int compare__regressions(json_t *cmp, double pct, FILE *f);

/* The text report: settings that differ, a table per matched set, what moved. */
void compare__print_text(FILE *f, json_t *cmp, json_t *a, json_t *b);

#endif /* BLKTRACE_BENCH_COMPARE_H */
