// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The queue settings --set sweeps (knob.h): which ones, their bounds, the trial writes
 * and putting the original back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "knob.h"
#include "parse.h"
#include "sweep_state.h"

/*
 * ordered: a smaller value costs less (smaller requests, less read ahead, fewer request
 * slots), so "the smallest value as good as the best" means something. The others are
 * choices: the scheduler's name, wbt's target (0 off, -1 the default), nomerges' and
 * rq_affinity's modes.
 */
static const struct {
	const char *name;
	int64_t min, max; /* -2: not numeric (scheduler) */
	bool ordered;
} knobs[] = {
	{ "max_sectors_kb", 4, INT64_MAX, true }, /* at least a page; at most max_hw_sectors_kb */
	{ "read_ahead_kb", 0, INT64_MAX, true },
	{ "nr_requests", 4, INT64_MAX, true }, /* BLKDEV_MIN_RQ */
	{ "scheduler", -2, -2, false },
	{ "wbt_lat_usec", -1, INT64_MAX, false }, /* -1: the default */
	{ "nomerges", 0, 2, false },
	{ "rq_affinity", 0, 2, false },
};

bool knob__is_ordered(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			return knobs[i].ordered;
	return false;
}

bool knob__is_sweepable(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			return true;
	return false;
}

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
	size_t i;
	int v, ret;

	memset(k, 0, sizeof(*k));
	k->dev = dev;
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			break;
	if (i == sizeof(knobs) / sizeof(knobs[0]))
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
		uint64_t u;

		if (knobs[i].min == -2) {
			if (!in_list(list, val))
				return diag__usage(d, "--set scheduler=%s: %s offers %s", val,
						   dev->name, list);
			continue;
		}
		if (!strcmp(val, "-1") && knobs[i].min == -1)
			continue;
		if (parse_uint(val, INT64_MAX, &u) || (int64_t)u < knobs[i].min ||
		    (int64_t)u > knobs[i].max)
			return diag__usage(d, "--set %s=%s: not a valid value", name, val);
		if (!strcmp(name, "max_sectors_kb") && dev->limits.max_hw_sectors_kb > 0 &&
		    (int64_t)u > dev->limits.max_hw_sectors_kb)
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

int knob__get(const struct device *dev, const char *name, char *buf, size_t len)
{
	char list[256];
	int ret = device__queue_get(dev, name, buf, len);

	/* The scheduler reads back as a list: the active one is the value. */
	if (!ret && !strcmp(name, "scheduler")) {
		snprintf(list, sizeof(list), "%s", buf);
		device__active_scheduler(list, buf, len);
	}
	return ret;
}

int knob__put(const struct device *dev, const char *name, const char *value)
{
	char now[256];
	int ret;

	ret = device__queue_set(dev, name, value);
	if (!ret && !knob__get(dev, name, now, sizeof(now)) && strcmp(now, value))
		ret = -EIO;
	return ret;
}

int knob__restore(struct knob *k)
{
	int ret;

	if (!k->changed)
		return 0;
	ret = knob__put(k->dev, k->name, k->original);
	if (ret) {
		fprintf(stderr,
			"blktrace-bench: COULD NOT RESTORE %s of %s (%s): write it back "
			"yourself: echo %s > %s/queue/%s\n",
			k->name, k->dev->name, strerror(-ret), k->original, k->dev->sysfs_path,
			k->name);
		return ret;
	}
	k->changed = false;
	return 0;
}
