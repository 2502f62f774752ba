/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* trace's passive mode (trace_passive.c), and what it shares with the rest of cmd_trace.c. */
#ifndef BLKTRACE_BENCH_TRACE_PASSIVE_H
#define BLKTRACE_BENCH_TRACE_PASSIVE_H

#include <stddef.h>
#include "cli/cli.h"
#include "cli/env_config.h"
#include "result/run.h"
#include "trace/tracer.h"

struct diag;

/* The run passive and command mode fill: a result's last. */
static inline struct run *trace__last_run(struct result *res)
{
	return &res->runs[res->nr_runs - 1];
}

/* The devices traced for results res[0..nr): each one's device and its layers. */
static inline size_t trace__nr_traced(const struct result *res, size_t nr)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++)
		n += 1 + res[i].nr_layers;
	return n;
}

/*
 * Passive mode over every result, each with a run to fill (its last): until a stop signal
 * or --duration, --interval reports on the way. all and start hold every traced device
 * of the results, in the tracer's order: all gets the counts from start to the end.
 * 0, or -errno with d.
 */
int trace_passive__run(struct tracer *t, const struct options *o, const struct env_config *cfg,
		       struct result *res, size_t nr, struct block_stats *all,
		       const struct block_stats *start, struct diag *d);

#endif /* BLKTRACE_BENCH_TRACE_PASSIVE_H */
