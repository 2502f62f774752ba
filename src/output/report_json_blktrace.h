/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The JSON of what blktrace's files hold, under a result's "blktrace". */
#ifndef BLKTRACE_BENCH_REPORT_JSON_BLKTRACE_H
#define BLKTRACE_BENCH_REPORT_JSON_BLKTRACE_H

#include <stdint.h>
#include <jansson.h>
#include "result/btrace_summary.h"

/* A counter as JSON: jansson's integers are signed 64-bit; ours never get near 2^63. */
static inline json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* The `blktrace` object: what the blktrace files of --blktrace or import hold. */
json_t *report_json__blktrace(const struct btrace_summary *s);

#endif /* BLKTRACE_BENCH_REPORT_JSON_BLKTRACE_H */
