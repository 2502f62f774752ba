/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * compare: two saved results -> a verdict per metric. Series pair up by their key
 * (series.h: parameters, or the label of a run without any); the statistics are
 * recomputed from the runs, never read from a file's "series", so they are the ones the
 * verdicts assume whatever version wrote the file. The comparison is built once, here;
 * the printers (output/compare_json.c, compare_text.c, compare_html.c) only show it.
 *
 * The test, one for every metric (compare_text.c prints it above the tables):
 *  1. Welch's t-test over the repetitions of the two series: p, two-sided.
 *  2. Holm-Bonferroni within each family of a matched pair of series: its headline
 *     metrics (app.mb_per_s, app.iops, app.latency_ns.p99: what --fail-on-regression
 *     judges) and its other metrics (what moved underneath); a set compares up to 19
 *     metrics at once, and at 0.05 each one in 20 would differ by chance.
 *  3. Significant: the adjusted p below STATS_ALPHA and a change of at least
 *     COMPARE_MIN_EFFECT of A's mean, so that a tiny p from tight repetitions does not
 *     call a negligible change better or worse.
 * Overlapping 95% intervals decided before: a -46.8% MB/s at p = 0.0047 was "same".
 */
#ifndef BLKTRACE_BENCH_COMPARE_H
#define BLKTRACE_BENCH_COMPARE_H

#include <stdbool.h>
#include <stdio.h>
#include "result/change.h"
#include "store/result_load.h"
#include "analysis/series.h"
#include "base/stats.h"

/* The smallest change a verdict other than "same" needs: 5% of A's mean. */
#define COMPARE_MIN_EFFECT 0.05

enum verdict {
	VERDICT_SAME,
	VERDICT_BETTER,
	VERDICT_WORSE,
	VERDICT_HIGHER, /* significant, for a metric with no good direction */
	VERDICT_LOWER,
	VERDICT_UNKNOWN, /* fewer than 2 repetitions on a side */
	NR_VERDICTS,
};

struct metric_cmp {
	double change; /* (b - a) / a; NAN when a is 0 and b is not */
	double p;      /* Welch's two-sided p-value; NAN when unknown */
	double p_adj;  /* p, Holm-adjusted within the metric's family; NAN when unknown */
	bool up;       /* b's mean above a's */
	bool significant;
	enum verdict verdict;
};

/*
 * Judge one metric whose direction is +1 (higher is better), -1 or 0 (neither), as a
 * family of its own (p_adj = p).
 */
void compare__metric(const struct agg *a, const struct agg *b, int direction,
		     struct metric_cmp *out);
/* The verdict of c at the adjusted p-value p_adj (its family's, holm_adjust). */
void compare__decide(struct metric_cmp *c, double p_adj, int direction);

/* "better", "worse", "same", "higher", "lower", "unknown": the JSON names. */
const char *compare__verdict_name(enum verdict v);
/* A change as the printers write it: "+12.5%", "+1.2e+05%", "-" when unknown. */
const char *compare__fmt_change(char *buf, size_t len, double change);
/* A p-value: "0.0123", "<0.0001", "-" when unknown. */
const char *compare__fmt_p(char *buf, size_t len, double p);
/* Why a verdict is unknown: which side has a single repetition. */
const char *compare__unknown_reason(size_t na, size_t nb);

/* One judged metric of a matched pair of series. */
struct metric_result {
	enum metric_id id;
	struct metric_cmp cmp;
};

/* A series of A and the one of B it is compared with. */
struct set_comparison {
	size_t a, b;		      /* indexes into the series of A and of B */
	bool by_params;		      /* false: paired as the only series in each file */
	struct changes param_changes; /* when !by_params */
	struct metric_result m[NR_METRICS];
	size_t nr_m;
};

struct comparison {
	const struct loaded_result *a, *b;
	const char *name_a, *name_b;
	struct series_set sa, sb;
	struct changes device_changes; /* disk, driver, limits, kernel... */
	struct set_comparison *sets;
	size_t nr_sets;
	bool *matched_a, *matched_b; /* per series: part of a pair */
	size_t counts[NR_VERDICTS];
};

/* Compare results a and b (named name_a, name_b). 0, or -ENOMEM. */
int compare__build(struct comparison *c, const struct loaded_result *a,
		   const struct loaded_result *b, const char *name_a, const char *name_b);
void compare__free(struct comparison *c);

/*
 * Headline metrics significantly worse by more than pct percent, each named in one
 * line on f (when f is not NULL).
 */
int compare__regressions(const struct comparison *c, double pct, FILE *f);

#endif /* BLKTRACE_BENCH_COMPARE_H */
