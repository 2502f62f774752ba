/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Time in nanoseconds (the BPF programs' clock: --snoop's drain, --blktrace's epochs, the
 * workload's timings) and in seconds as a double, the next tick of a period, and the pace
 * of a slow check: the loops of passive trace (--interval reports, the disk watch) and
 * serve (the disk watch, --textfile).
 */
#ifndef BLKTRACE_BENCH_CLOCK_H
#define BLKTRACE_BENCH_CLOCK_H

#include <math.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds: the clock of bpf_ktime_get_ns and rq->start_time_ns. */
static inline uint64_t clock__ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC (or another clock) in seconds. */
static inline double clock__seconds(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The first tick of period after now, on the grid of due (a tick missed while asleep
 * folds into the next one). Computed, never counted up tick by tick: a period far below
 * what a double resolves at now (1e-9 s on a host up for months) still moves past now,
 * by one step of the double at least.
 */
/* Seconds on the monotonic clock: for intervals and deadlines. */
static inline double clock__now(void)
{
	return clock__seconds(CLOCK_MONOTONIC);
}

static inline double clock__next(double due, double now, double period)
{
	double next = due;

	if (next <= now)
		next += (floor((now - due) / period) + 1) * period;
	if (next > now)
		return next;
	return now + period > now ? now + period : nextafter(now, INFINITY);
}

/*
 * When to do again a check that took CPU seconds of this thread (clock__cpu) and ended
 * at END: PERIOD later, or later still when the check is costly (reading sysfs for
 * hundreds of disks), so that it never takes more than 1/CLOCK_PACE of a CPU. CPU time,
 * not wall time: a check that waited for a busy CPU cost nothing meanwhile.
 */
#define CLOCK_PACE 50

static inline double clock__cpu(void)
{
	return clock__seconds(CLOCK_THREAD_CPUTIME_ID);
}

static inline double clock__paced(double cpu, double end, double period)
{
	double cost = cpu * CLOCK_PACE;

	return end + (cost > period ? cost : period);
}

#endif /* BLKTRACE_BENCH_CLOCK_H */
