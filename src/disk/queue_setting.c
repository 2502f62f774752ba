// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The queue settings --set sweeps: their bounds, and reading and writing one the way a
 * sweep must (the scheduler by its active name, every write read back). Under both the
 * sweep's knob (knob.c) and its crash-safe state (sweep_state.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "base/parse.h"
#include "disk/queue_setting.h"

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

bool queue_setting__valid(const char *name, const char *value)
{
	int i = knob_index(name);

	return i >= 0 && valid_value(i, value);
}

bool queue_setting__is_ordered(const char *name)
{
	int i = knob_index(name);

	return i >= 0 && knobs[i].ordered;
}

bool queue_setting__is_sweepable(const char *name)
{
	return knob_index(name) >= 0;
}

int queue_setting__get(const struct device *dev, const char *name, char *buf, size_t len)
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

int queue_setting__reads_back(const struct device *dev, const char *name, const char *value)
{
	char now[256];

	return !queue_setting__get(dev, name, now, sizeof(now)) && strcmp(now, value) ? -EIO : 0;
}

int queue_setting__put(const struct device *dev, const char *name, const char *value)
{
	int ret = device__queue_set(dev, name, value);

	return ret ? ret : queue_setting__reads_back(dev, name, value);
}
