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
#include "disk/sweep_state.h"

/* The kernel keeps wbt's target in nanoseconds, an s64. */
#define WBT_LAT_USEC_MAX (INT64_MAX / 1000)

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
	/* At least a page; at most max_hw_sectors_kb, an unsigned int of sectors. */
	{ "max_sectors_kb", 4, INT_MAX, true },
	{ "read_ahead_kb", 0, INT_MAX, true },
	{ "nr_requests", 4, INT_MAX, true }, /* BLKDEV_MIN_RQ */
	{ "scheduler", -2, -2, false },
	{ "wbt_lat_usec", -1, WBT_LAT_USEC_MAX, false }, /* -1: the default */
	{ "nomerges", 0, 2, false },
	{ "rq_affinity", 0, 2, false },
};

static int knob_index(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(knobs[i].name, name))
			return (int)i;
	return -1;
}

/* Knob i's value: a number in its range, or a scheduler's name (elevator's, at most 15). */
static bool valid_value(int i, const char *value)
{
	int64_t v;

	if (knobs[i].min == -2)
		return value[0] >= 'a' && value[0] <= 'z' && strlen(value) < 16 &&
		       strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(value);
	return !parse_int(value, &v) && v >= knobs[i].min && v <= knobs[i].max;
}

bool knob__valid(const char *name, const char *value)
{
	int i = knob_index(name);

	return i >= 0 && valid_value(i, value);
}

bool knob__is_ordered(const char *name)
{
	int i = knob_index(name);

	return i >= 0 && knobs[i].ordered;
}

bool knob__is_sweepable(const char *name)
{
	return knob_index(name) >= 0;
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
	int i = knob_index(name), v, ret;

	memset(k, 0, sizeof(*k));
	k->dev = dev;
	if (i < 0)
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

		if (knobs[i].min == -2) {
			if (!in_list(list, val))
				return diag__usage(d, "--set scheduler=%s: %s offers %s", val,
						   dev->name, list);
			continue;
		}
		if (!valid_value(i, val))
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

/* Does dev's name read back as value (the scheduler: its active one)? 0 or -EIO. */
static int reads_back(const struct device *dev, const char *name, const char *value)
{
	char now[256];

	return !knob__get(dev, name, now, sizeof(now)) && strcmp(now, value) ? -EIO : 0;
}

int knob__put(const struct device *dev, const char *name, const char *value)
{
	int ret = device__queue_set(dev, name, value);

	return ret ? ret : reads_back(dev, name, value);
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
		ret = reads_back(k->dev, k->name, k->original);
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
