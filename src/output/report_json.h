/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The JSON printer: a report as the result document, a device as info --json prints it. */
#ifndef BLKTRACE_BENCH_REPORT_JSON_H
#define BLKTRACE_BENCH_REPORT_JSON_H

#include <jansson.h>
#include "disk/device.h"
#include "analysis/report.h"
#include "output/report_json_blktrace.h"

/* The document doc/json.md describes; NULL on ENOMEM. */
json_t *report_json__doc(const struct report *rep);
/*
 * Several disks traced at once: {"schema", "tool_version", "command_line", "host",
 * "results": [one disk's document each, as report_json__doc makes it]}; NULL on ENOMEM.
 */
json_t *report_json__docs(const struct report *reps, size_t n);
/* A run's "params" object: its job parameters and its --set value; NULL on ENOMEM. */
json_t *report_json__params(const struct job_params *p);
/* The `device` object every result file carries; NULL on ENOMEM. */
json_t *report_json__device(const struct device *dev);
/* The `stack` object: the layers under TOP (stack.h), its kind and what was not followed. */
json_t *report_json__stack(const struct device *top, const struct layer *layers, size_t n,
			   const char *kind, const char *note);

#endif /* BLKTRACE_BENCH_REPORT_JSON_H */
