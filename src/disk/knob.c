// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The queue settings --set sweeps (knob.h): which ones, their bounds, the trial writes
 * and putting the original back.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "disk/knob.h"
#include "base/parse.h"
#include "disk/queue_setting.h"
#include "disk/sweep_state.h"

static bool in_list(const char *list, const char *word)
{
	char copy[256], *tok, *save;

	snprintf(copy, sizeof(copy), "%s", list);
	for (tok = strtok_r(copy, " []", &save); tok; tok = strtok_r(NULL, " []", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

int knob__prepare(struct knob *k, const struct device *dev, const char *name, char *const *values,
		  int nr, struct diag *d)
{
	char list[256];
	int v, ret;

	memset(k, 0, sizeof(*k));
	k->dev = dev;
	if (!queue_setting__is_sweepable(name))
		return diag__usage(d,
				   "--set %s: not a sweepable setting "
				   "(max_sectors_kb, read_ahead_kb, nr_requests, scheduler, "
				   "wbt_lat_usec, nomerges, rq_affinity)",
				   name);
	snprintf(k->name, sizeof(k->name), "%s", name);
	ret = device__queue_get(dev, name, k->original, sizeof(k->original));
	if (ret)
		return diag__usage(d, "--set %s: %s has no queue/%s: %s", name, dev->name, name,
				   strerror(-ret));
	snprintf(list, sizeof(list), "%s", k->original);
	if (!strcmp(name, "scheduler"))
		device__active_scheduler(list, k->original, sizeof(k->original));

	for (v = 0; v < nr; v++) {
		const char *val = values[v];
		int64_t u;

		if (!strcmp(name, "scheduler")) {
			if (!in_list(list, val))
				return diag__usage(d, "--set scheduler=%s: %s offers %s", val,
						   dev->name, list);
			continue;
		}
		if (!queue_setting__valid(name, val))
			return diag__usage(d, "--set %s=%s: not a valid value", name, val);
		if (!strcmp(name, "max_sectors_kb") && dev->limits.max_hw_sectors_kb > 0 &&
		    !parse_int(val, &u) && u > dev->limits.max_hw_sectors_kb)
			return diag__usage(
				d, "--set max_sectors_kb=%s: above max_hw_sectors_kb=%lld of %s",
				val, (long long)dev->limits.max_hw_sectors_kb, dev->name);
	}
	return 0;
}

int knob__try(struct knob *k, char *const *values, int nr, struct diag *d)
{
	int v, ret;

	/* What only the kernel knows (e.g. nr_requests above the tag depth): try each. */
	for (v = 0; v < nr; v++) {
		ret = knob__apply(k, values[v], d);
		if (ret) {
			knob__restore(k);
			return ret;
		}
	}
	ret = knob__restore(k);
	if (ret)
		return diag__fail(d, ret, "--set %s: cannot restore %s", k->name, k->original);
	return 0;
}

int knob__apply(struct knob *k, const char *value, struct diag *d)
{
	int ret;

	k->changed = true;
	ret = k->state ? sweep_state__put(k->state, k->name, value)
		       : device__queue_set(k->dev, k->name, value);
	/* EINVAL, ERANGE: the kernel's verdict on the value; another errno, a failed write. */
	if (ret == -EINVAL || ret == -ERANGE)
		return diag__usage(d, "--set %s=%s: the kernel refused it: %s", k->name, value,
				   strerror(-ret));
	if (ret)
		return diag__fail(d, ret, "--set %s=%s: the kernel refused it: %s", k->name, value,
				  strerror(-ret));
	return 0;
}

int knob__restore(struct knob *k)
{
	int ret;

	if (!k->changed)
		return 0;
	/* Through the state file where there is one: what the write resets besides (a
	 * scheduler's nr_requests) is then recorded as the run's own, for a recovery. */
	ret = k->state ? sweep_state__put(k->state, k->name, k->original)
		       : device__queue_set(k->dev, k->name, k->original);
	if (!ret)
		ret = queue_setting__reads_back(k->dev, k->name, k->original);
	if (ret) {
		diag__note(k->notes,
			   "COULD NOT RESTORE %s of %s (%s): write it back yourself: echo %s > "
			   "%s/queue/%s",
			   k->name, k->dev->name, strerror(-ret), k->original, k->dev->sysfs_path,
			   k->name);
		return ret;
	}
	k->changed = false;
	return 0;
}
