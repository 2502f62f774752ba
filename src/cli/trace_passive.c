// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * trace's passive mode: the loop that waits for Ctrl-C, SIGTERM or --duration, takes
 * a snapshot every --interval (a report each, kept for the charts over time) and
 * notices the disks of `--trace a,b` or `all` that come or go. See trace_passive.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/clock.h"
#include "base/diag.h"
#include "base/stop_signals.h"
#include "cli/trace_passive.h"
#include "disk/fleet.h"
#include "output/report_text.h"

/* The text report goes to stdout unless the JSON or the HTML does. */
static bool text_on_stdout(const struct options *o)
{
	return (!o->json || strcmp(o->json, "-")) && (!o->html || strcmp(o->html, "-"));
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL); /* EINTR is how Ctrl-C ends passive mode */
}

/*
 * One --interval report of passive mode: printed, unless the JSON or the HTML goes to
 * stdout, and kept in the run for the charts over time. delta: every device's.
 */
static int interval_report(const struct options *o, const struct result *res, struct run *run,
			   struct block_stats *delta, double from, double to, unsigned int nr)
{
	struct run r = { .seconds = to - from, .has_block = true, .block = delta };
	struct interval_sample sample;

	interval_sample__compute(&sample, delta, from, to - from);
	if (text_on_stdout(o)) {
		snprintf(r.label, sizeof(r.label), "interval #%u, %.2f to %.2f s", nr, from, to);
		report_text__interval(stdout, res, &r);
		fputc('\n', stdout);
		fflush(stdout);
	}
	return run__add_interval(run, &sample);
}

/* One interval report per result, each from its slice of the devices' deltas. */
static int interval_reports(const struct options *o, struct result *res, size_t nr,
			    struct block_stats *delta, double from, double to, unsigned int nr_iv)
{
	size_t i, off = 0;
	int err = 0;

	for (i = 0; i < nr && !err; off += 1 + res[i].nr_layers, i++)
		err = interval_report(o, &res[i], trace__last_run(&res[i]), &delta[off], from, to,
				      nr_iv);
	return err;
}

/*
 * Several disks: the set is read once, at start. One that comes or goes meanwhile is said,
 * once (serve reloads its programs for it; a trace keeps what it reports on).
 */
struct disk_watch {
	const char *root, *spec;
	uint64_t fingerprint;
	bool said;
	double next; /* the next look: 1 s on, later for hundreds of disks (clock__paced) */
};

static void watch_disks(struct disk_watch *w)
{
	double cpu = clock__cpu();
	uint64_t fp;

	if (!w || w->said || clock__now() < w->next)
		return;
	fp = fleet__fingerprint(w->root, w->spec);
	w->next = clock__paced(clock__cpu() - cpu, clock__now(), 1);
	if (fp == w->fingerprint)
		return;
	w->said = true;
	diag__note(stderr,
		   "a disk came or went since --trace %s began: this trace keeps the disks it "
		   "started with (serve follows them)",
		   w->spec);
}

/*
 * Passive mode: until Ctrl-C/SIGTERM or the duration; interval reports on the way. total
 * and start hold every traced device of the results, in order.
 */
static int run_passive(struct tracer *t, const struct options *o, struct result *res, size_t nr_res,
		       struct disk_watch *w, struct block_stats *total,
		       const struct block_stats *start)
{
	size_t i, n = tracer__nr_devices(t);
	/*
	 * Intervals only: a snapshot is ~107 KiB a device (its histograms), 27 MiB for 256
	 * disks; a trace without --interval keeps none but start and total.
	 */
	size_t m = o->interval ? n : 0;
	struct block_stats *prev = calloc(m, sizeof(*prev)), *cur = calloc(m, sizeof(*cur));
	struct block_stats *delta = calloc(m, sizeof(*delta));
	struct blkio_maxes *all_max = calloc(m, sizeof(*all_max));
	double t0 = clock__seconds(CLOCK_MONOTONIC), next = o->interval ? t0 + o->interval : 0,
	       last = t0;
	unsigned int nr = 0;
	int err = 0;

	if (m && (!prev || !cur || !delta || !all_max)) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (m)
		memcpy(prev, start, n * sizeof(*prev));
	while (!stop_signal) {
		double now = clock__seconds(CLOCK_MONOTONIC),
		       wake = o->duration ? t0 + o->duration : now + 3600;

		if (o->duration && now >= t0 + o->duration)
			break;
		if (next && next < wake)
			wake = next;
		if (w && now + 1 < wake)
			wake = now + 1;
		if (wake > now)
			sleep_s(wake - now);
		watch_disks(w);
		if (!next || clock__seconds(CLOCK_MONOTONIC) < next || stop_signal)
			continue;
		err = tracer__snapshot_all(t, cur);
		if (err)
			goto cleanup;
		block_stats__delta_n(delta, cur, prev, n);
		for (i = 0; i < n; i++)
			blkio_maxes__merge(&all_max[i], &cur[i].max);
		tracer__reset_max(t);
		now = clock__seconds(CLOCK_MONOTONIC);
		nr++;
		/* What it really covered: from the last snapshot to this one, late or not. */
		err = interval_reports(o, res, nr_res, delta, last - t0, now - t0, nr);
		if (err)
			goto cleanup;
		memcpy(prev, cur, n * sizeof(*prev));
		last = now;
		/* A wakeup later than a whole interval folds the missed ones into this one. */
		next = clock__next(next, now, o->interval);
	}
	err = tracer__snapshot_all(t, total);
	if (err)
		goto cleanup;
	block_stats__delta_n(total, total, start, n);
	for (i = 0; i < m; i++)
		blkio_maxes__merge(&total[i].max, &all_max[i]);
cleanup:
	free(all_max);
	free(prev);
	free(cur);
	free(delta);
	return err;
}

int trace_passive__run(struct tracer *t, const struct options *o, const struct env_config *cfg,
		       struct result *res, size_t nr, struct block_stats *all,
		       const struct block_stats *start, struct diag *d)
{
	double cpu = clock__cpu();
	struct disk_watch watch = { cfg->sysfs_root, o->trace,
				    fleet__fingerprint(cfg->sysfs_root, o->trace), false, 0 };
	int err;

	watch.next = clock__paced(clock__cpu() - cpu, clock__now(), 1);
	err = run_passive(t, o, res, nr, fleet__several(o->trace) ? &watch : NULL, all, start);

	if (err == -ENOMEM)
		return diag__fail(d, err, "out of memory");
	if (err)
		return diag__fail(d, err, "cannot read the BPF maps: %s", strerror(-err));
	return 0;
}
