/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The queue settings --set sweeps (max_sectors_kb, read_ahead_kb, nr_requests, scheduler,
 * wbt_lat_usec, nomerges, rq_affinity): which values each can take, and reading and
 * writing one with its write read back.
 */
#ifndef BLKTRACE_BENCH_QUEUE_SETTING_H
#define BLKTRACE_BENCH_QUEUE_SETTING_H

#include <stdbool.h>
#include <stddef.h>
#include "disk/device.h"

/* Is NAME one of the queue settings --set sweeps? */
bool queue_setting__is_sweepable(const char *name);
/*
 * Is value one NAME can take on any disk: a decimal number in NAME's range, or for the
 * scheduler a name an elevator can have? (A disk's own list and max_hw_sectors_kb are
 * knob__prepare's.)
 */
bool queue_setting__valid(const char *name, const char *value);
/* Does a smaller value of NAME cost less (max_sectors_kb, read_ahead_kb, nr_requests)? */
bool queue_setting__is_ordered(const char *name);
/* The value of dev's queue/name in force (the scheduler: the active one). 0 or -errno. */
int queue_setting__get(const struct device *dev, const char *name, char *buf, size_t len);
/* Write value to dev's queue/name and read it back (the scheduler by its active name): 0,
 * -EIO when the kernel shows another value, or the write's -errno. */
int queue_setting__put(const struct device *dev, const char *name, const char *value);
/* Does dev's queue/name read back as value (the scheduler: its active one)? 0 or -EIO. */
int queue_setting__reads_back(const struct device *dev, const char *name, const char *value);

#endif /* BLKTRACE_BENCH_QUEUE_SETTING_H */
