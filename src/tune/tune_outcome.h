/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a tune recommends, computed once from its measurements (tune.h), the run
 * summaries of its result and the disk: the runtime settings to change, what they
 * gained against the baseline, and for xen-blkfront the module parameter a larger
 * request needs when the negotiated segments capped the requests (a reboot away, so
 * not measured: verify measures it after the reboot). The text and JSON printers
 * (tune_text.c, tune_json.c) print it; tune_plan.c reads it back for apply and verify.
 */
#ifndef BLKTRACE_BENCH_TUNE_OUTCOME_H
#define BLKTRACE_BENCH_TUNE_OUTCOME_H

#include <stdbool.h>
#include <stdint.h>
#include "disk/device.h"
#include "analysis/summary.h"
#include "tune/tune.h"

/* Linux's blkback offers this many segments at most (MAX_INDIRECT_SEGMENTS). */
#define XEN_BLKBACK_MAX_SEGMENTS 256
/* Requests were capped by the segments when at least this share reached them. */
#define XEN_CAPPED_SHARE 0.5

struct tune_setting {
	char name[32];
	char from[TUNE_VALUE_MAX];
	char to[TUNE_VALUE_MAX];
};

/* A module parameter: set at boot (kernel command line) or at load (/etc/modprobe.d). */
struct tune_module_param {
	char module[32];	 /* "xen_blkfront" */
	char name[48];		 /* "max_indirect_segments" ("max" on 3.11 to 4.5) */
	int64_t value;		 /* recommended */
	int64_t now;		 /* the module's value when tuned; -1 unknown */
	char boot_parameter[96]; /* "xen_blkfront.max_indirect_segments=256" */
	char modprobe[128];	 /* "options xen_blkfront max_indirect_segments=256" */
};

struct tune_outcome {
	struct tune_setting settings[TUNE_MAX_KNOBS]; /* the runtime settings to change */
	int nr_settings;
	double base_mbps, final_mbps;	    /* means of the baseline's and the final runs */
	double change, p;		    /* final against baseline; NAN when not judged */
	double base_req_p50, final_req_p50; /* bytes: median request size, mean over runs */
	bool has_module;
	struct tune_module_param module;
	char xen[384];			       /* the segments story; "" when it does not apply */
	double point_req_p50[TUNE_MAX_POINTS]; /* bytes, per point of the tune; NAN: no runs */
};

/*
 * out from t (decided), the disk d as found, the workload p and the summaries of the
 * result's runs (the points' run indexes index it). Nothing fails.
 */
void tune_outcome__compute(struct tune_outcome *out, const struct tune *t, const struct device *d,
			   const struct job_params *p, const struct run_summary *runs);

/*
 * The xen-blkfront part alone: the runs at idx[0..n) (of the recommended configuration)
 * on d, for the workload p. Fills out->xen, and out->module when a guest parameter helps.
 */
void tune_outcome__xen(struct tune_outcome *out, const struct device *d, const struct job_params *p,
		       const struct run_summary *runs, const size_t *idx, size_t n);

/* The module parameter line of struct tune_module_param for xen-blkfront on d. */
void tune_outcome__xen_param(struct tune_module_param *m, const struct device *d, int64_t value);

#endif /* BLKTRACE_BENCH_TUNE_OUTCOME_H */
