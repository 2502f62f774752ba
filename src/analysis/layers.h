/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The layers of a traced stack in one run: each layer's block summary, how it relates to
 * the layer above (bytes and requests per byte and request above), and the findings
 * across layers ("md0 wrote every byte to both mirrors", "dm-crypt passed 1 MiB bios
 * down as 128 KiB requests"). Computed once from struct result; nothing here prints.
 */
#ifndef BLKTRACE_BENCH_LAYERS_H
#define BLKTRACE_BENCH_LAYERS_H

#include <stddef.h>
#include "analysis/findings.h"
#include "result/run.h"

struct block_summary;

struct layer_summary {
	const struct layer *layer;   /* res->layers[i] */
	const struct block_stats *b; /* run->block[1 + i] */
	struct block_summary *block;
	double bytes_per_above;	   /* read+write bytes per read+write byte of the layer above */
	double requests_per_above; /* read+write requests per request (bio) above */
};

/* One per res->nr_layers, or NULL when there are none; free with layers__free. */
int layers__summarize(const struct result *res, const struct run *run, struct layer_summary **out);
void layers__free(struct layer_summary *ls, size_t n);

/* The findings across the layers of a run into out[0..max); returns how many. */
int layers__findings(const struct result *res, const struct run *run, struct finding *out,
		     size_t max);

#endif /* BLKTRACE_BENCH_LAYERS_H */
