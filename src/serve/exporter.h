/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The disks of a host, traced continuously for Prometheus: one tracer over every disk
 * `--trace DEVS` names, figures kept cumulative for as long as the exporter runs, and
 * the exposition (openmetrics.h) rendered from snapshots of the BPF maps, which the
 * programs never wait for.
 *
 * Disks that come and go: exporter__refresh compares a fingerprint of what DEVS names
 * (fleet.h) with that of the set last resolved and, when they differ, loads programs for
 * the new set, then swaps them in. A disk traced the same way before and after keeps
 * counting from where it was (its figures are carried over), so its counters never go
 * back; a disk new, moved or resized starts at 0 with a new _created. I/O in the moment
 * of the swap (the attach of the new programs) is not counted, and requests in flight
 * then complete untracked.
 *
 * A reload that fails (resolving, loading, attaching: EMFILE, ENOMEM...) changes nothing
 * that works: the old programs keep counting (attached again if the new ones could not
 * attach), the failure is counted and said, and the set is resolved again after a
 * backoff (1 s, doubled up to 64 s) whatever the fingerprint says. Until then the
 * exposition says which figures are not live: blktrace_bench_up 0 for a disk whose
 * programs are not attached, or that is named but not traced yet.
 *
 * Thread safety: exporter__render may be called from one thread (the HTTP server's)
 * while another calls exporter__refresh and exporter__render (the command's); each
 * holds the exporter's lock for map reads and the swap only, never while loading.
 */
#ifndef BLKTRACE_BENCH_EXPORTER_H
#define BLKTRACE_BENCH_EXPORTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "serve/openmetrics.h"

struct diag;
struct exporter;

struct exporter_opts {
	const char *sysfs_root;
	const char *kallsyms; /* where xen-blkfront's probes look (NULL: not tried) */
	const char *spec;     /* --trace DEVS: a disk, a list, or "all" */
	bool force_raw_tp;
	bool exact_depth; /* the queue depth at every issue (tracer_opts) */
	int verbose;
	FILE *notes; /* where the tracer's -v output goes */
	/* A render younger than this is served again (a burst of scrapes reads the maps once). */
	double fresh_seconds;
};

/* One rendered exposition, shared by every response that sends it. */
struct exposition {
	atomic_int refs;
	enum om_format fmt;
	double at; /* CLOCK_MONOTONIC seconds when rendered */
	size_t len;
	char *text;
};

/*
 * Resolve DEVS (a listed disk that does not exist is bad input), load and attach. 0, or a
 * negative errno with d. With no disk to trace (`all` on a host with none) it starts
 * empty and waits for one.
 */
int exporter__open(const struct exporter_opts *opts, struct exporter **out, struct diag *d);
/*
 * Has the set of disks changed, or is a failed reload due again? Then reload. 1 when
 * what is traced changed, 0 when nothing did (or the backoff is not over), or a negative
 * errno with d, which ends in when it is tried again (the old set keeps being traced).
 * What changed is said on log.
 */
int exporter__refresh(struct exporter *e, FILE *log, struct diag *d);
/*
 * CPU seconds the last exporter__refresh took to look at the disks (without a reload):
 * hundreds of disks named in a list take a while (fleet__fingerprint).
 */
double exporter__watch_cpu(const struct exporter *e);
/* Resolve the disks again at the next exporter__refresh, backoff or not (SIGHUP). */
void exporter__rescan(struct exporter *e);
/* The exposition in fmt, fresh or at most fresh_seconds old. 0 or -errno. */
int exporter__render(struct exporter *e, enum om_format fmt, struct exposition **out);
/* Drop one reference; the last frees it. NULL is fine. */
void exposition__put(struct exposition *x);
/* The devices traced now, as "a, b, c" into buf. */
const char *exporter__describe(struct exporter *e, char *buf, size_t len);
void exporter__close(struct exporter *e);

#endif /* BLKTRACE_BENCH_EXPORTER_H */
