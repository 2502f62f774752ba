/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the environment may change, read once in main() and handed to each command, which
 * passes each value on explicitly (device__resolve's root, struct device_env, struct
 * driver_probe_env, struct target_env, tracer_opts.force_raw_tp): nothing below main()
 * calls getenv().
 *
 *   BLKTRACE_BENCH_SYSFS=DIR      sysfs_root: read DIR instead of /sys (fixture trees)
 *   BLKTRACE_BENCH_XENSTORE=FILE  xenstore: a xen-blkfront disk's xenstore nodes from FILE
 *                                 (`xenstore-ls -f` lines) instead of libxenstore; below a
 *                                 fixture tree xenstore is read only from such a file
 *   BLKTRACE_BENCH_KALLSYMS=FILE  kallsyms: FILE instead of /proc/kallsyms
 *   BLKTRACE_BENCH_RAW_TP=1       force_raw_tp: the raw_tp programs, as --raw-tp
 *   BLKTRACE_BENCH_KPROBES=1      force_kprobes: xen-blkfront's probes by kprobes even
 *                                 where fentry would do (tests: both give the same numbers)
 *   BLKTRACE_BENCH_LOSE_COMPLETIONS=N  lose_completions: tests ignore about one
 *                                 completion in N, as kernel 6.18 sometimes never reports one
 *   BLKTRACE_BENCH_STALL_RECORDS=N  stall_records: tests stall about one --blktrace record
 *                                 in N up to ~6 ms between its clock read and its count (as a
 *                                 preempted program would), and judge epochs without
 *                                 btrace_out.c's margin, so that only the CPUs' busy counts
 *                                 keep the files in order
 *
 * An unset or empty variable keeps the default; BLKTRACE_BENCH_RAW_TP=0 (and _KPROBES=0) is
 * off, and so
 * is a BLKTRACE_BENCH_LOSE_COMPLETIONS (or _STALL_RECORDS) that is not a number from 1 to
 * 2^32 - 1.
 */
#ifndef BLKTRACE_BENCH_ENV_CONFIG_H
#define BLKTRACE_BENCH_ENV_CONFIG_H

#include <stdbool.h>
#include "disk/device.h"

struct env_config {
	const char *sysfs_root;	       /* "/sys" */
	const char *xenstore;	       /* NULL: libxenstore (on /sys) */
	const char *kallsyms;	       /* "/proc/kallsyms" */
	bool force_raw_tp;	       /* false */
	bool force_kprobes;	       /* false */
	unsigned int lose_completions; /* 0: every completion counts */
	unsigned int stall_records;    /* 0: no record stalls */
};

/* The defaults, then what lookup (getenv, in main) finds; the strings are lookup's. */
void env_config__read(struct env_config *cfg, char *(*lookup)(const char *name));

/* Where cfg says a disk's model is read from (sysfs, xenstore). */
struct device_env env_config__device(const struct env_config *cfg);

#endif /* BLKTRACE_BENCH_ENV_CONFIG_H */
