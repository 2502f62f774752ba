// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The result model's helpers (run.h): runs, the host, the job parameter table. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "base/parse.h"
#include "result/run.h"

/* A parameter a line; clang-format would pack the table and break the macro. */
// clang-format off
#define JOB_PARAM(field, type)                                                          \
	{ #field, type, offsetof(struct job_params, field),                             \
	  sizeof(((struct job_params *)0)->field) }

const struct job_param_def job_param_defs[NR_JOB_PARAMS] = {
	JOB_PARAM(rw, JOB_PARAM_STRING),
	JOB_PARAM(bs, JOB_PARAM_U64),
	JOB_PARAM(size, JOB_PARAM_U64),
	JOB_PARAM(runtime, JOB_PARAM_SECONDS),
	JOB_PARAM(engine, JOB_PARAM_STRING),
	JOB_PARAM(iodepth, JOB_PARAM_UINT),
	JOB_PARAM(direct, JOB_PARAM_BOOL),
	JOB_PARAM(sync, JOB_PARAM_BOOL),
	JOB_PARAM(fsync, JOB_PARAM_BOOL),
	JOB_PARAM(fdatasync, JOB_PARAM_BOOL),
};
// clang-format on

const struct job_param_def *job_param__find(const char *name)
{
	size_t i;

	for (i = 0; i < NR_JOB_PARAMS; i++)
		if (!strcmp(job_param_defs[i].name, name))
			return &job_param_defs[i];
	return NULL;
}

void *job_param__field(const struct job_param_def *def, struct job_params *p)
{
	return (char *)p + def->offset;
}

const void *job_param__cfield(const struct job_param_def *def, const struct job_params *p)
{
	return (const char *)p + def->offset;
}

struct run *result__add_run(struct result *res, bool with_block, bool with_app)
{
	struct run *runs, *r;

	runs = realloc(res->runs, (res->nr_runs + 1) * sizeof(*runs));
	if (!runs)
		return NULL;
	res->runs = runs;
	r = &runs[res->nr_runs];
	memset(r, 0, sizeof(*r));
	if (with_block && !(r->block = calloc(1 + res->nr_layers, sizeof(*r->block))))
		return NULL;
	if (with_app && !(r->app = calloc(1, sizeof(*r->app)))) {
		free(r->block);
		return NULL;
	}
	r->has_block = with_block;
	r->has_app = with_app;
	res->nr_runs++;
	return r;
}

void run__free(struct run *r)
{
	free(r->block);
	free(r->layer_limits);
	free(r->app);
	free(r->intervals);
	memset(r, 0, sizeof(*r));
}

void result__free(struct result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nr_runs; i++)
		run__free(&res->runs[i]);
	free(res->runs);
	res->runs = NULL;
	res->nr_runs = 0;
	free(res->layers);
	res->layers = NULL;
	res->nr_layers = 0;
	btrace_summary__free(res->blktrace);
	free(res->blktrace);
	res->blktrace = NULL;
}

int result__move_runs(struct result *into, struct result *from)
{
	struct run *runs;

	if (into->nr_layers != from->nr_layers)
		return -EINVAL;
	if (!from->nr_runs)
		return 0;
	runs = realloc(into->runs, (into->nr_runs + from->nr_runs) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	memcpy(runs + into->nr_runs, from->runs, from->nr_runs * sizeof(*runs));
	into->runs = runs;
	into->nr_runs += from->nr_runs;
	free(from->runs);
	from->runs = NULL;
	from->nr_runs = 0;
	return 0;
}

int run__add_interval(struct run *run, const struct interval_sample *s)
{
	struct interval_sample *grown;

	grown = realloc(run->intervals, (run->nr_intervals + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	run->intervals = grown;
	run->intervals[run->nr_intervals++] = *s;
	return 0;
}

void host_info__read(struct host_info *host)
{
	struct utsname u;

	memset(host, 0, sizeof(*host));
	if (uname(&u) == 0) {
		snprintf(host->kernel, sizeof(host->kernel), "%s", u.release);
		snprintf(host->hostname, sizeof(host->hostname), "%s", u.nodename);
	}
}

const struct device *run__device(const struct result *res, const struct run *run,
				 struct device *scratch)
{
	if (!res->has_device)
		return NULL;
	if (!run->has_limits)
		return &res->device;
	*scratch = res->device;
	scratch->limits = run->limits;
	/* A sweep across reboots of xen-blkfront's segments: each run has its own. */
	if (scratch->xen.present) {
		const char *p = run->params.set_knob;
		int64_t param = -1;

		if (p[0] && !strcmp(p, device__xen_param_name(&scratch->xen)) &&
		    parse_int(run->params.set_value, &param))
			param = -1;
		device__xen_in_force(&scratch->xen, run->limits.max_segments, param);
	}
	return scratch;
}

const char *result__skipped_text(const struct result *res, char *buf, size_t len)
{
	if (!res->has_skipped || !res->tracer_skipped)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len,
			 "the kernel skipped %llu runs of our programs (a tracepoint hit while the "
			 "same program ran on that CPU; the traced disks' or others'): the counts "
			 "may fall short by as many",
			 (unsigned long long)res->tracer_skipped);
	return buf;
}

const char *const blkio_op_names[BLKIO_NR_OPS] = { "read", "write", "flush", "discard", "other" };
const char *const blkio_lat_names[BLKIO_NR_LATS] = { "queue_ns", "device_ns", "total_ns" };
