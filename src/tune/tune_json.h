/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The "tune" object a tune adds to its result document (additively: the rest is the
 * result every command reads). Points index the document's "runs".
 *
 *   version            TUNE_SCHEMA_VERSION
 *   disk               name, major, minor, match {key, value, what} or null, match_note
 *   workload           target ("new_file", "file", "raw"), path, hugepages,
 *                      no_fixed_bufs, drop_caches, wrap, any_fs (the job: baseline runs)
 *   repetitions        min, max
 *   budget_seconds, elapsed_seconds, runs, stopped (null, "budget", "interrupted"), note
 *   knobs              [{name, original, values, not_tuned (why, or null), measured,
 *                        recommended, reason}]
 *   points             [{knob, value, baseline, runs, mb_per_s {n, mean, stddev, min,
 *                        max, ci95}, vs_baseline {change, p, verdict},
 *                        request_bytes_p50}]: a phase's baseline point (knob and
 *                        baseline null) then its values, judged against it
 *   combination, final point indexes (combination null when not measured)
 *   warm_up_run        the run before all others, no point's (null: none)
 *   recommendation     settings [{name, from, to}], baseline_mb_per_s, mb_per_s, change,
 *                      p, baseline_request_bytes_p50, request_bytes_p50,
 *                      module_parameters [{module, name, value, now, boot_parameter,
 *                      modprobe}], xen
 */
#ifndef BLKTRACE_BENCH_TUNE_JSON_H
#define BLKTRACE_BENCH_TUNE_JSON_H

#include <jansson.h>
#include "tune/tune_plan.h"

/* id NULL: none, id_note says why. NULL on ENOMEM. */
json_t *tune_json__object(const struct tune *t, const struct tune_outcome *out,
			  const struct tune_workload *w, const struct device *d,
			  const struct disk_id *id, const char *id_note);

#endif /* BLKTRACE_BENCH_TUNE_JSON_H */
