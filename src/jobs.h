/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
#ifndef BLKTRACE_BENCH_JOBS_H
#define BLKTRACE_BENCH_JOBS_H

#include <signal.h>
#include <stddef.h>
#include "cli.h"
#include "run.h"
#include "tracer.h"

/*
 * Run the built-in workload the options describe, one traced run per (block size,
 * repetition), appended to res. Returns 0; -EINTR when *stop was set (the runs so
 * far are kept); -EINVAL with a one-line reason in err for bad input or a refused
 * target; another negative errno with the reason in err.
 */
int jobs__run(const struct options *o, struct tracer *t, struct result *res,
	      volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif /* BLKTRACE_BENCH_JOBS_H */
