/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * verify: whether a tune's recommendation is in force (after apply and a reboot) and
 * whether its gain held, computed here, printed by cmd_verify.c.
 *
 * In force: each runtime setting reads back as recommended (the scheduler by its active
 * name); a module parameter reads back as recommended and, for xen-blkfront, the disk
 * negotiated at least that many segments (else the backend grants fewer: said so).
 * Held: the rerun of the saved workload is significantly faster than the baseline by
 * compare's rule (compare.h). Verdicts and exit codes (a failure is 1, bad input 2):
 *   VERIFY_HELD           0  in force, app.mb_per_s significantly better
 *   VERIFY_NOTHING        0  nothing was recommended: nothing to verify (and no rerun: a
 *                            difference now would be drift, not the change's doing)
 *   VERIFY_NOT_IN_FORCE   4  a setting is not as recommended (the rerun is not done)
 *   VERIFY_NO_GAIN        4  in force, but the gain did not show (same, or unknown)
 *   VERIFY_WORSE          3  app.mb_per_s significantly worse; with
 *                            --fail-on-regression PCT, a headline metric significantly
 *                            worse by more than PCT, as compare says
 */
#ifndef BLKTRACE_BENCH_VERIFY_H
#define BLKTRACE_BENCH_VERIFY_H

#include <stdbool.h>
#include "analysis/compare.h"
#include "tune/tune_plan.h"

struct verify_setting {
	char name[96]; /* "max_sectors_kb", "xen_blkfront.max_indirect_segments" */
	char want[TUNE_VALUE_MAX];
	char now[TUNE_VALUE_MAX]; /* "?" when unreadable */
	bool in_force;
	char note[192]; /* why not, when there is more to say */
};

struct verify_check {
	struct verify_setting s[TUNE_MAX_KNOBS + 1];
	int nr;
	bool in_force; /* every one */
};

enum verify_verdict {
	VERIFY_HELD,
	VERIFY_NOTHING,
	VERIFY_NOT_IN_FORCE,
	VERIFY_NO_GAIN,
	VERIFY_WORSE,
};

struct verify_outcome {
	enum verify_verdict verdict;
	double base_mbps, now_mbps, change, p; /* app.mb_per_s: baseline, rerun */
	double base_req_p50, now_req_p50;      /* bytes */
	char text[512];			       /* one sentence */
};

/* Is plan's recommendation in force on d? */
void verify__check(const struct tune_plan *plan, const struct device *d, struct verify_check *c);

/* The verdict when plan recommends nothing: VERIFY_NOTHING, said so. */
void verify__nothing(const struct tune_plan *plan, struct verify_outcome *out);

/*
 * The verdict from the check and the comparison of the baseline (A) with the rerun (B);
 * fail_pct: --fail-on-regression's threshold, NAN when not given (regressions are then
 * said on stderr as compare says them).
 */
void verify__judge(const struct tune_plan *plan, const struct verify_check *chk,
		   const struct comparison *c, double fail_pct, struct verify_outcome *out);

/* The exit status of a verdict. */
int verify__exit_code(enum verify_verdict v);

/* "held", "nothing", "not_in_force", "no_gain", "worse": the JSON names. */
const char *verify__verdict_name(enum verify_verdict v);

#endif /* BLKTRACE_BENCH_VERIFY_H */
