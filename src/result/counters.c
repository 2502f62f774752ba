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
