/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The JSON printer of a comparison; see compare_json.c. */
#ifndef BLKTRACE_BENCH_COMPARE_JSON_H
#define BLKTRACE_BENCH_COMPARE_JSON_H

#include <jansson.h>
#include "analysis/compare.h"

/* The JSON of the comparison; NULL on ENOMEM. */
json_t *compare_json__doc(const struct comparison *c);

#endif /* BLKTRACE_BENCH_COMPARE_JSON_H */
