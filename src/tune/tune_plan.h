/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A tune result as apply and verify use it: the "tune" object of a result file (written
 * by tune_json.c) and its baseline runs, read back and checked. apply writes udev rules
 * and modprobe.d files as root from it, so every string that reaches such a file is
 * checked against what tune itself writes (setting names against knob.c's table, values
 * and identities against the characters a rule holds safely), and the module lines are
 * made again from the module, parameter and number, never copied from the file.
 *
 * The workload is the baseline runs' params (result_load.c checked them) and the
 * target and buffer options beside them (struct tune_workload).
 */
#ifndef BLKTRACE_BENCH_TUNE_PLAN_H
#define BLKTRACE_BENCH_TUNE_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include "disk/disk_id.h"
#include "store/result_load.h"
#include "tune/tune_outcome.h"
#include "workload/spec.h"

#define TUNE_SCHEMA_VERSION 1

enum tune_target {
	TUNE_TARGET_NEW_FILE, /* a new file in path, the directory tune ran in */
	TUNE_TARGET_FILE,     /* the existing file path */
	TUNE_TARGET_RAW,      /* the disk itself */
};

/* How the workload ran besides its job parameters. */
struct tune_workload {
	enum tune_target target;
	char path[PATH_MAX];
	bool hugepages, no_fixed_bufs, drop_caches, wrap, any_fs;
};

struct tune_plan {
	char result[PATH_MAX]; /* the file it came from, as named */
	char tool_version[32];
	char disk[DEVICE_NAME_MAX]; /* the disk's kernel name when tuned */
	unsigned int major, minor;
	bool has_id;
	struct disk_id id;
	char id_note[256]; /* why there is no identity */
	struct tune_workload w;
	struct job_params params;   /* the workload's: the first baseline run's */
	char workload[256];	    /* its label: "read bs=1 MiB psync direct" */
	unsigned int baseline_runs; /* runs without a setting of their own */
	unsigned int min_reps;	    /* the first repetitions of each configuration */
	struct tune_outcome out;    /* settings, module parameter, figures */
};

/* How the workload o of a tune ran (cwd: the directory it runs in). */
void tune_workload__from_spec(struct tune_workload *w, const struct workload_spec *o,
			      const char *cwd);
/* The job p (a saved run's) into o: rw, bs, size (not count), engine... */
void tune_plan__job_spec(const struct job_params *p, struct workload_spec *o);
/*
 * The workload that reruns plan's as tune ran it: its job, target and buffers, the
 * first repetitions; the permissions (destructive, overwrite) are the caller's.
 */
void tune_plan__spec(const struct tune_plan *plan, struct workload_spec *o);

struct diag;

/*
 * The plan of a loaded result (name: for messages). 0; -EINVAL with one line in d (bad
 * input) naming the file and the field ("tune.json: tune.disk.name is a number, not a
 * string"), or saying the result is no tune result.
 */
int tune_plan__read(const struct loaded_result *lr, const char *name, struct tune_plan *plan,
		    struct diag *d);

#endif /* BLKTRACE_BENCH_TUNE_PLAN_H */
