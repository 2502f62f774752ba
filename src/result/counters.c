// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "result/counters.h"

#define OP_COUNTER(field, key, prom_name, unit_name, help_text)                                    \
	{ .json_key = key,                                                                         \
	  .prom = prom_name,                                                                       \
	  .unit = unit_name,                                                                       \
	  .help = help_text,                                                                       \
	  .offset = offsetof(struct blkio_counters, field) },
const struct blkio_op_counter blkio_op_counters[BLKIO_NR_OP_COUNTERS] = { BLKIO_OP_COUNTERS(
	OP_COUNTER) };

#define COUNTER(field, is_rare, obj, key, prom_name, kind, help_text, label_text)                  \
	{ .json_obj = obj,                                                                         \
	  .json_key = key,                                                                         \
	  .prom = prom_name,                                                                       \
	  .prom_kind = kind,                                                                       \
	  .help = help_text,                                                                       \
	  .label = label_text,                                                                     \
	  .offset = offsetof(struct blkio_counters, field),                                        \
	  .rare = is_rare },
const struct blkio_counter blkio_counters_table[BLKIO_NR_COUNTERS] = { BLKIO_COUNTERS(COUNTER) };

/* struct blkfront_counts by JSON key: every __u64 before the per-ring counts. */
#define RING_COUNT(key)                                                                            \
	{                                                                                          \
#key, offsetof(struct blkfront_counts, key)                                        \
	}
const struct ring_count_key ring_count_keys[NR_RING_COUNT_KEYS] = {
	RING_COUNT(requests),
	RING_COUNT(direct),
	RING_COUNT(indirect),
	RING_COUNT(no_data),
	RING_COUNT(grants),
	RING_COUNT(indirect_pages),
	RING_COUNT(copied_grants),
	RING_COUNT(full_stops),
	RING_COUNT(grant_stops),
	RING_COUNT(waits),
	RING_COUNT(wait_ns),
	RING_COUNT(full_ns),
	RING_COUNT(fulls),
	RING_COUNT(occupancy_sum),
	{ "backend_ns_sum", offsetof(struct blkfront_counts, backend_ns) },
	RING_COUNT(backend_n),
	RING_COUNT(unmatched),
};
#undef RING_COUNT
_Static_assert(NR_RING_COUNT_KEYS * sizeof(__u64) == offsetof(struct blkfront_counts, ring),
	       "every count of struct blkfront_counts has its key");
