// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The disks of a host traced continuously, rendered for Prometheus; see exporter.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/types.h>
#include "blkio.h"
#include "trace/bpf_load.h"
#include "base/clock.h"
#include "base/diag.h"
#include "serve/exporter.h"
#include "disk/fleet.h"
#include "analysis/summary.h"
#include "trace/tracer.h"

/* One traced device, its figures cumulative over every set of programs it was traced by. */
struct exported {
	struct device dev;
	struct block_stats base; /* what earlier programs counted */
	struct block_stats cur;	 /* base + the programs' now, at the last accounting */
	uint64_t data_requests, bound[OM_NR_LIMITS];
	double created; /* when its counting began, Unix seconds (OpenMetrics' _created) */
	bool stale;	/* named now as another device (a partition moved): up is 0 */
};

struct exporter {
	struct exporter_opts opts;
	pthread_mutex_t lock;
	struct tracer *t; /* NULL while there is no disk */
	bool live;	  /* t's programs attached (or no t): the figures move */
	struct exported *disks;
	size_t n;
	struct device *pending; /* named now but not traced: their reload failed */
	size_t nr_pending;
	uint64_t fingerprint; /* of the set traced, as resolved; 0: resolve again */
	double watch_cpu;     /* CPU seconds the last look at the disks took */
	double retry_at;      /* after a failure: not before this (CLOCK_MONOTONIC) */
	double backoff;	      /* the wait after the last failure, doubled by the next */
	uint64_t reloads, failures;
	double started;		 /* Unix seconds */
	uint64_t skipped_before; /* the runs the kernel skipped of programs reloaded away */
	uint64_t skipped_now;	 /* ... of e->t's, as last read */
	struct block_stats snap; /* scratch of accounting */
	struct exposition *cache[OM_OPENMETRICS_1 + 1];
};

/* A failed reload is tried again after 1 s, then 2, 4... up to a minute. */
#define RETRY_FIRST_SECONDS 1.0
#define RETRY_MAX_SECONDS 64.0

void exposition__put(struct exposition *x)
{
	if (!x || atomic_fetch_sub(&x->refs, 1) != 1)
		return;
	free(x->text);
	free(x);
}

/* Attach t's programs; none stay attached when that fails. 0 or -errno. */
static int attach(struct tracer *t)
{
	int err = t ? tracer__start(t) : 0;

	if (err)
		tracer__detach(t);
	return err;
}

/* "cannot attach to the block tracepoints: Too many open files: raise ..." */
static int attach_failed(struct diag *d, int err, const char *then)
{
	const char *hint = bpf_load__resource_hint(err);

	return diag__fail(d, err, "cannot attach to the block tracepoints: %s%s%s%s",
			  strerror(-err), hint ? ": " : "", hint ? hint : "", then);
}

/* Load (and attach) programs for the devices of f; *out NULL when there are none. */
static int load(const struct exporter_opts *o, const struct fleet *f, bool start,
		struct tracer **out, struct diag *d)
{
	const struct device *devs[BLKIO_MAX_DEVICES];
	const struct driver_probe_env probes = { o->kallsyms, o->sysfs_root };
	struct tracer_opts topts = { .devs = devs,
				     .nr_devs = f->n,
				     .force_raw_tp = o->force_raw_tp,
				     .exact_depth = o->exact_depth,
				     .verbose = o->verbose,
				     .notes = o->notes,
				     .xen_env = o->kallsyms ? &probes : NULL };
	size_t i;
	int err;

	*out = NULL;
	if (!f->n)
		return 0;
	for (i = 0; i < f->n; i++)
		devs[i] = &f->devs[i];
	err = fleet__check_disjoint(devs, f->n, d);
	if (!err)
		err = tracer__open(&topts, out, d);
	if (err || !start)
		return err;
	err = attach(*out);
	if (err) {
		tracer__close(*out);
		*out = NULL;
		return attach_failed(d, err, "");
	}
	return 0;
}

static void add_stats(struct block_stats *out, const struct block_stats *a,
		      const struct block_stats *b)
{
	const __u64 *x = (const __u64 *)a, *y = (const __u64 *)b;
	__u64 *o = (__u64 *)out;
	size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(__u64); i++)
		o[i] = x[i] + y[i];
}

/*
 * Bring every device's figures up to now: cur = base + the programs' totals, and the
 * data requests since the last accounting counted against the limits in force now, so
 * that the limit-bound counters only ever grow, whatever happens to the limits. Locked.
 */
static int account(struct exporter *e)
{
	struct block_stats *delta = &e->snap;
	struct block_summary s;
	size_t i;
	int err;

	for (i = 0; e->t && i < e->n; i++) {
		struct exported *x = &e->disks[i];
		struct block_stats prev = x->cur;

		err = tracer__snapshot(e->t, i, &e->snap);
		if (err)
			return err;
		add_stats(&x->cur, &x->base, &e->snap);
		block_stats__delta(delta, &x->cur, &prev);
		device__read_limits(&x->dev);
		block_summary__compute(delta, &x->dev.limits, &s);
		x->data_requests += s.data_requests;
		x->bound[OM_LIMIT_MAX_SECTORS] += s.size_bound;
		x->bound[OM_LIMIT_MAX_SEGMENTS] += s.segments_bound;
	}
	return 0;
}

/*
 * The runs the kernel skipped of every tracer so far; e->t's as last read when the kernel
 * will not say now (a counter never goes down). Locked.
 */
static uint64_t skipped(struct exporter *e)
{
	uint64_t n;

	if (e->t && !tracer__skipped(e->t, &n))
		e->skipped_now = n;
	return e->skipped_before + e->skipped_now;
}

/* Render the exposition of every device now. Locked. */
static int render(struct exporter *e, enum om_format fmt, struct exposition **out)
{
	struct om_self self = { .version = BLKTRACE_BENCH_VERSION,
				.flavour = e->t ? tracer__flavour(e->t) : "",
				.reloads = e->reloads,
				.skipped = skipped(e),
				.reload_failures = e->failures,
				.created = e->started,
				.untraced = e->pending,
				.nr_untraced = e->nr_pending };
	struct om_disk *disks = calloc(e->n ? e->n : 1, sizeof(*disks));
	struct exposition *x = calloc(1, sizeof(*x));
	const char *why;
	FILE *f = NULL;
	size_t i;
	int err;

	err = disks && x ? account(e) : -ENOMEM;
	for (i = 0; !err && i < e->n; i++) {
		struct exported *d = &e->disks[i];

		disks[i] = (struct om_disk){ .dev = &d->dev,
					     .b = &d->cur,
					     .in_flight = tracer__in_flight(e->t, i),
					     .data_requests = d->data_requests,
					     .live = e->live && !d->stale,
					     .ring = e->t && d->dev.xen.present &&
						     tracer__ring_probes(e->t, &why),
					     .created = d->created };
		memcpy(disks[i].bound, d->bound, sizeof(d->bound));
	}
	f = err ? NULL : open_memstream(&x->text, &x->len);
	if (!err && !f)
		err = -errno;
	if (!err)
		err = openmetrics__write(f, fmt, disks, e->n, &self);
	if (f && fclose(f) && !err)
		err = -errno;
	free(disks);
	if (err) {
		if (x)
			free(x->text);
		free(x);
		return err;
	}
	atomic_init(&x->refs, 1);
	x->fmt = fmt;
	x->at = clock__now();
	*out = x;
	return 0;
}

int exporter__render(struct exporter *e, enum om_format fmt, struct exposition **out)
{
	struct exposition *x;
	int err = 0;

	pthread_mutex_lock(&e->lock);
	x = e->cache[fmt];
	if (!x || clock__now() - x->at >= e->opts.fresh_seconds) {
		err = render(e, fmt, &x);
		if (!err) {
			exposition__put(e->cache[fmt]);
			e->cache[fmt] = x;
		}
	}
	if (!err) {
		atomic_fetch_add(&x->refs, 1);
		*out = x;
	}
	pthread_mutex_unlock(&e->lock);
	return err;
}

/* What was rendered is no longer what is traced. Locked. */
static void drop_rendered(struct exporter *e)
{
	size_t k;

	for (k = 0; k < sizeof(e->cache) / sizeof(e->cache[0]); k++) {
		exposition__put(e->cache[k]);
		e->cache[k] = NULL;
	}
}

static void set_devices(struct exporter *e, struct exported *disks, size_t n, struct tracer *t)
{
	drop_rendered(e);
	free(e->disks);
	e->disks = disks;
	e->n = n;
	e->t = t;
}

/*
 * The devices of f, each carrying over what an old device traced the same way counted
 * (and when it began); a device new, moved or resized starts at 0, now.
 */
static struct exported *carry_over(const struct exporter *e, const struct fleet *f)
{
	struct exported *disks = calloc(f->n ? f->n : 1, sizeof(*disks));
	double now = clock__seconds(CLOCK_REALTIME);
	size_t i, k;

	for (i = 0; disks && i < f->n; i++) {
		disks[i].dev = f->devs[i];
		disks[i].created = now;
		for (k = 0; k < e->n; k++) {
			const struct exported *old = &e->disks[k];

			if (!fleet__same_device(&old->dev, &f->devs[i]))
				continue;
			disks[i].base = old->cur;
			disks[i].cur = old->cur;
			disks[i].data_requests = old->data_requests;
			memcpy(disks[i].bound, old->bound, sizeof(old->bound));
			disks[i].created = old->created;
		}
	}
	return disks;
}

int exporter__open(const struct exporter_opts *opts, struct exporter **out, struct diag *d)
{
	struct exporter *e = calloc(1, sizeof(*e));
	struct fleet f = {};
	struct tracer *t = NULL;
	struct exported *disks;
	int err;

	*out = NULL;
	if (!e)
		return diag__fail(d, -ENOMEM, "out of memory");
	e->opts = *opts;
	e->started = clock__seconds(CLOCK_REALTIME);
	e->live = true;
	pthread_mutex_init(&e->lock, NULL);
	err = fleet__resolve(opts->sysfs_root, opts->spec, BLKIO_MAX_DEVICES, true, &f, d);
	if (!err)
		err = load(opts, &f, true, &t, d);
	disks = err ? NULL : carry_over(e, &f);
	if (!err && !disks)
		err = diag__fail(d, -ENOMEM, "out of memory");
	if (!err) {
		set_devices(e, disks, f.n, t);
		e->fingerprint = fleet__fingerprint_of(&f);
	}
	fleet__free(&f);
	if (err) {
		tracer__close(t);
		exporter__close(e);
		return err;
	}
	*out = e;
	return 0;
}

static bool same_devices(const struct exporter *e, const struct fleet *f)
{
	size_t i;

	if (e->n != f->n)
		return false;
	for (i = 0; i < f->n; i++)
		if (!fleet__same_device(&e->disks[i].dev, &f->devs[i]))
			return false;
	return true;
}

/* " +loop5 -loop3 ~loop1p1": what came, what went, what moved or was resized. */
static void say_change(const struct exporter *e, const struct fleet *f, FILE *log)
{
	size_t i, k;

	fprintf(log, "blktrace-bench: the disks changed, now tracing %zu:", f->n);
	for (i = 0; i < f->n; i++) {
		for (k = 0;
		     k < e->n && strcmp(fleet__name(&e->disks[k].dev), fleet__name(&f->devs[i]));
		     k++)
			;
		if (k == e->n)
			fprintf(log, " +%s", fleet__name(&f->devs[i]));
		else if (!fleet__same_device(&e->disks[k].dev, &f->devs[i]))
			fprintf(log, " ~%s", fleet__name(&f->devs[i]));
	}
	for (k = 0; k < e->n; k++) {
		for (i = 0;
		     i < f->n && strcmp(fleet__name(&e->disks[k].dev), fleet__name(&f->devs[i]));
		     i++)
			;
		if (i == f->n)
			fprintf(log, " -%s", fleet__name(&e->disks[k].dev));
	}
	fputc('\n', log);
}

/* The devices of f that are not traced live: their up is 0 until a reload takes. */
static void set_pending(struct exporter *e, const struct fleet *f)
{
	struct device *pending = calloc(f->n ? f->n : 1, sizeof(*pending));
	size_t i, k, n = 0;

	pthread_mutex_lock(&e->lock);
	for (k = 0; k < e->n; k++)
		e->disks[k].stale = false;
	for (i = 0; pending && i < f->n; i++) {
		for (k = 0; k < e->n && !fleet__same_device(&e->disks[k].dev, &f->devs[i]); k++)
			;
		if (k < e->n)
			continue;
		/* The same name traced as it was: one series, whose figures stand still. */
		for (k = 0; k < e->n && strcmp(e->disks[k].dev.name, f->devs[i].name); k++)
			;
		if (k < e->n)
			e->disks[k].stale = true;
		else
			pending[n++] = f->devs[i];
	}
	free(e->pending);
	e->pending = pending;
	e->nr_pending = pending ? n : 0;
	drop_rendered(e);
	pthread_mutex_unlock(&e->lock);
}

/* The programs of the devices traced now, attached again after a failed reload. */
static int reattach(struct exporter *e, FILE *log, struct diag *d)
{
	char devs[1024];
	int err;

	pthread_mutex_lock(&e->lock);
	err = attach(e->t);
	e->live = !err;
	drop_rendered(e);
	pthread_mutex_unlock(&e->lock);
	if (err)
		return attach_failed(d, err,
				     "; the disks traced before stay detached: their figures "
				     "stand still");
	fprintf(log, "blktrace-bench: tracing %s again\n",
		exporter__describe(e, devs, sizeof(devs)));
	return 1;
}

/*
 * The old programs' last figures, then theirs off and t's on: no I/O counted twice. When
 * t cannot attach, the old ones are attached again. Locked; t is taken over.
 */
static int swap(struct exporter *e, const struct fleet *f, struct tracer *t, FILE *log,
		struct diag *d)
{
	struct tracer *old = e->t;
	struct exported *disks;
	int err, back;

	err = account(e);
	disks = err ? NULL : carry_over(e, f);
	if (!disks) {
		tracer__close(t);
		return diag__fail(d, err ? err : -ENOMEM, "cannot switch to the new disks: %s",
				  strerror(err ? -err : ENOMEM));
	}
	tracer__detach(old);
	err = attach(t);
	if (err) {
		back = attach(old);
		e->live = !back;
		drop_rendered(e);
		free(disks);
		tracer__close(t);
		return attach_failed(
			d, err,
			back ? "; nor could the disks traced before be attached again: "
			       "their figures stand still"
			     : "; the disks traced before go on");
	}
	e->skipped_before = skipped(e); /* old's last: it runs no more */
	e->skipped_now = 0;
	say_change(e, f, log);
	set_devices(e, disks, f->n, t);
	e->live = true;
	e->reloads++;
	tracer__close(old);
	return 1;
}

/* Trace what f holds. 1 when that changed what is traced, 0 when it did not, or -errno. */
static int reload(struct exporter *e, const struct fleet *f, FILE *log, struct diag *d)
{
	struct tracer *t = NULL;
	int err;

	if (same_devices(e, f))
		return e->live ? 0 : reattach(e, log, d);
	/* Loading takes a while: the old programs keep counting, and scrapes go on. */
	err = load(&e->opts, f, false, &t, d);
	if (!err) {
		pthread_mutex_lock(&e->lock);
		err = swap(e, f, t, log, d);
		pthread_mutex_unlock(&e->lock);
	}
	return err;
}

/*
 * After a failure the set is resolved again once the backoff has passed, whatever the
 * fingerprint says; after a success, when the fingerprint moves.
 */
static int settle(struct exporter *e, int err, uint64_t fingerprint, struct diag *d)
{
	size_t len;

	if (err >= 0) {
		e->fingerprint = fingerprint;
		e->backoff = 0;
		e->retry_at = 0;
		return err;
	}
	e->fingerprint = 0;
	e->backoff = e->backoff ? e->backoff * 2 : RETRY_FIRST_SECONDS;
	if (e->backoff > RETRY_MAX_SECONDS)
		e->backoff = RETRY_MAX_SECONDS;
	e->retry_at = clock__now() + e->backoff;
	pthread_mutex_lock(&e->lock);
	e->failures++;
	drop_rendered(e);
	pthread_mutex_unlock(&e->lock);
	if (d) {
		len = strlen(d->msg);
		snprintf(d->msg + len, sizeof(d->msg) - len, " (trying again in %.0f s)",
			 e->backoff);
	}
	return err;
}

int exporter__refresh(struct exporter *e, FILE *log, struct diag *d)
{
	struct fleet f = {};
	uint64_t fp = 0;
	int err;

	double cpu = clock__cpu();
	uint64_t now_fp;

	if (clock__now() < e->retry_at)
		return 0;
	now_fp = fleet__fingerprint(e->opts.sysfs_root, e->opts.spec);
	e->watch_cpu = clock__cpu() - cpu;
	if (now_fp == e->fingerprint && e->live)
		return 0;
	err = fleet__resolve(e->opts.sysfs_root, e->opts.spec, BLKIO_MAX_DEVICES, false, &f, d);
	if (!err) {
		err = reload(e, &f, log, d);
		fp = fleet__fingerprint_of(&f);
		/* Traced, nothing is pending; else what f holds that is not traced live. */
		if (err < 0 || e->nr_pending)
			set_pending(e, &f);
	}
	fleet__free(&f);
	return settle(e, err, fp, d);
}

double exporter__watch_cpu(const struct exporter *e)
{
	return e->watch_cpu;
}

void exporter__rescan(struct exporter *e)
{
	e->fingerprint = 0;
	e->backoff = 0;
	e->retry_at = 0;
}

const char *exporter__describe(struct exporter *e, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	pthread_mutex_lock(&e->lock);
	for (i = 0; i < e->n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 fleet__name(&e->disks[i].dev));
	pthread_mutex_unlock(&e->lock);
	return buf;
}

void exporter__close(struct exporter *e)
{
	if (!e)
		return;
	tracer__close(e->t);
	set_devices(e, NULL, 0, NULL);
	free(e->pending);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
