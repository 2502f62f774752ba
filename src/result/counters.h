/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The block counters of bpf/blkio_counters.h as data, for the code that walks them:
 * the JSON writer and reader, the Prometheus families, the reports' labels.
 */
#ifndef BLKTRACE_BENCH_COUNTERS_H
#define BLKTRACE_BENCH_COUNTERS_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include "blkio.h"
#include "blkfront.h"

/* A counter per operation: a __u64[BLKIO_NR_OPS] of struct blkio_counters. */
struct blkio_op_counter {
	const char *json_key, *prom, *unit, *help;
	size_t offset; /* in struct blkio_counters */
};

/* One of the other counters: a __u64 of struct blkio_counters. */
struct blkio_counter {
	const char *json_obj, *json_key, *prom, *prom_kind, *help, *label;
	size_t offset; /* in struct blkio_counters */
	bool rare;     /* counted by the programs, copied by the fold */
};

#define BLKIO_OP_COUNTER_ID(field, ...) BLKIO_OPC_##field,
enum blkio_op_counter_id { BLKIO_OP_COUNTERS(BLKIO_OP_COUNTER_ID) BLKIO_NR_OP_COUNTERS };
#undef BLKIO_OP_COUNTER_ID

#define BLKIO_COUNTER_ID(field, ...) BLKIO_CTR_##field,
enum blkio_counter_id { BLKIO_COUNTERS(BLKIO_COUNTER_ID) BLKIO_NR_COUNTERS };
#undef BLKIO_COUNTER_ID

extern const struct blkio_op_counter blkio_op_counters[BLKIO_NR_OP_COUNTERS];
extern const struct blkio_counter blkio_counters_table[BLKIO_NR_COUNTERS];

static inline __u64 blkio_counter_get(const struct blkio_counters *c, size_t offset)
{
	return *(const __u64 *)((const char *)c + offset);
}

static inline __u64 *blkio_counter_at(struct blkio_counters *c, size_t offset)
{
	return (__u64 *)((char *)c + offset);
}

/* The label of counter id in the reports ("requests merged"). */
static inline const char *blkio_counter_label(enum blkio_counter_id id)
{
	return blkio_counters_table[id].label;
}

/* The counts of struct blkfront_counts that are not histograms, under their JSON keys. */
struct ring_count_key {
	const char *key;
	size_t offset; /* of a __u64 in struct blkfront_counts */
};

#define NR_RING_COUNT_KEYS 17
extern const struct ring_count_key ring_count_keys[NR_RING_COUNT_KEYS];

#endif /* BLKTRACE_BENCH_COUNTERS_H */
