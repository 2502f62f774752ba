/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * After a --set sweep: per workload (the series that differ only in the knob's
 * value), the value with the best mean app.mb_per_s, and the values whose throughput is
 * statistically indistinguishable from it (Welch, p >= STATS_ALPHA), with the evidence.
 * For a knob whose smaller values cost less (queue_setting__is_ordered: max_sectors_kb...), the
 * smallest of those; for the others (a scheduler), "smaller" means nothing: they are
 * only listed. For xen-blkfront, the max_sectors_kb it recommends becomes the
 * max_indirect_segments boot parameter that allows it. Computed here, printed by
 * report_text.c and report_json.c.
 */
#ifndef BLKTRACE_BENCH_RECOMMEND_H
#define BLKTRACE_BENCH_RECOMMEND_H

#include <stdbool.h>
#include <stddef.h>
#include "disk/device.h"
#include "analysis/series.h"

/* One value of the knob: its throughput, and Welch's p against the best (NAN: none). */
struct rec_evidence {
	const char *value;
	double mb_per_s, ci95, p_vs_best;
	size_t n;
	bool as_good; /* not the best, and p_vs_best >= STATS_ALPHA */
};

struct recommendation {
	const char *knob;
	const char *workload; /* the label of the best value's series */
	const char *best;
	const char *smallest;	 /* ordered knobs: the smallest equivalent value; NULL when not
				  * judged, and for knobs whose values are not ordered */
	bool ordered;		 /* queue_setting__is_ordered(knob) */
	size_t nr_as_good;	 /* values other than the best statistically as good */
	bool judged;		 /* every p-value could be computed (2+ repetitions) */
	char boot_parameter[96]; /* xen-blkfront: "" when it does not apply */
	struct rec_evidence *evidence;
	size_t nr_evidence;
};

struct recommendations {
	struct recommendation *r;
	size_t nr;
};

/*
 * The recommendations for the sweeps among ss (series of runs); none when no series
 * has a --set value. Strings point into runs. 0, or -ENOMEM.
 */
int recommend__compute(struct recommendations *out, const struct series_set *ss,
		       const struct run_summary *runs, const struct device *dev);
void recommend__free(struct recommendations *recs);

#endif /* BLKTRACE_BENCH_RECOMMEND_H */
