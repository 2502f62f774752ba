// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Building the report: every derived figure, once; see report.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/report.h"

int report__build(struct report *rep, const struct result *res, bool recommend)
{
	size_t i;
	int ret;

	memset(rep, 0, sizeof(*rep));
	rep->res = res;
	rep->runs = calloc(res->nr_runs ? res->nr_runs : 1, sizeof(*rep->runs));
	if (!rep->runs)
		return -ENOMEM;
	rep->nr_runs = res->nr_runs; /* zeroed: report__free may free them all on a failure */
	for (i = 0; i < res->nr_runs; i++) {
		ret = run_summary__compute(&rep->runs[i], res, &res->runs[i]);
		if (ret)
			goto fail;
	}
	ret = series__group(&rep->series, rep->runs, rep->nr_runs);
	if (ret)
		goto fail;
	above__series(&rep->series, rep->runs, &rep->above);
	result__skipped_text(res, rep->skipped, sizeof(rep->skipped));
	if (recommend) {
		rep->has_recommendation = true;
		ret = recommend__compute(&rep->rec, &rep->series, rep->runs,
					 res->has_device ? &res->device : NULL);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	report__free(rep);
	return ret;
}

void report__free(struct report *rep)
{
	size_t i;

	recommend__free(&rep->rec);
	series__free(&rep->series);
	for (i = 0; rep->runs && i < rep->nr_runs; i++)
		run_summary__free(&rep->runs[i]);
	free(rep->runs);
	memset(rep, 0, sizeof(*rep));
}
