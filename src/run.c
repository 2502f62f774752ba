// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "run.h"

struct run *result__add_run(struct result *res, bool with_block, bool with_app)
{
	struct run *runs, *r;

	runs = realloc(res->runs, (res->nr_runs + 1) * sizeof(*runs));
	if (!runs)
		return NULL;
	res->runs = runs;
	r = &runs[res->nr_runs];
	memset(r, 0, sizeof(*r));
	if (with_block && !(r->block = calloc(1, sizeof(*r->block))))
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

void result__free(struct result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nr_runs; i++) {
		free(res->runs[i].block);
		free(res->runs[i].app);
		free(res->runs[i].intervals);
	}
	free(res->runs);
	res->runs = NULL;
	res->nr_runs = 0;
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
	return scratch;
}
