/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A --set sweep of a setting that changes only across a reboot (boot_knob.h): one value
 * per boot. The plan and the runs measured so far live in a state directory that
 * outlives the boot (/var/lib/blktrace-bench): the values, the original, the command that
 * started it (its options are parsed again at every step), and the value set for the
 * next boot. In each boot the values in force are measured; then the next value is set
 * for the next boot (boot_config.h: the tool's modprobe.d file, the initramfs rebuilt)
 * and the user reboots and runs `blktrace-bench resume`; after the last value the
 * original is set back and the runs of every boot make one result.
 *
 * Nothing is left half-applied: the plan says what is about to be set before it is, and
 * whether that completed (armed); a resume in the same boot, or after a crash that cut a
 * step short, finishes the step instead of measuring. A value that is not in force after
 * the reboot is refused, not measured. `resume --abort` sets the original back.
 */
#ifndef BLKTRACE_BENCH_BOOT_SWEEP_H
#define BLKTRACE_BENCH_BOOT_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include "workload/boot_config.h"
#include "disk/boot_knob.h"
#include "disk/device.h"
#include "result/run.h"

#define BOOT_SWEEP_MAX_VALUES 16

struct boot_sweep_env {
	struct boot_config_env config;
	const char *plan_dir; /* /var/lib/blktrace-bench */
	const char *boot_id;  /* /proc/sys/kernel/random/boot_id */
};

void boot_sweep__system(struct boot_sweep_env *env, const char *sysfs_root);

struct boot_sweep {
	const struct boot_sweep_env *env;
	const struct boot_knob *knob;
	int dirfd; /* the plan directory, locked */
	json_t *plan;
	char boot[64];	  /* this boot's id */
	int64_t in_force; /* the knob's value now */
	/* The values to measure in this boot (in force now, not measured yet). */
	const char *now[BOOT_SWEEP_MAX_VALUES];
	int nr_now;
};

struct diag;

/*
 * Start a sweep of knob over values on dev (the options' --set), for the command
 * argc/argv: everything refused that can be (the disk's driver, the values, a setting
 * this tool cannot override, a module built into the kernel, a sweep under way), then the
 * plan written. 0 with bs->now; or -errno with one line in d.
 */
int boot_sweep__begin(struct boot_sweep *bs, const struct boot_sweep_env *env,
		      const struct boot_knob *knob, char *const *values, int nr,
		      const struct device *dev, int argc, char **argv, struct diag *d);

/*
 * The sweep under way, for resume: loaded and locked. 0; -ENOENT (d says none is under
 * way); or another -errno with d.
 */
int boot_sweep__load(struct boot_sweep *bs, const struct boot_sweep_env *env, struct diag *d);

/* The command that started it (argv strings owned by bs->plan). 0 or -EINVAL with d. */
int boot_sweep__command(const struct boot_sweep *bs, int *argc, char ***argv, struct diag *d);

/*
 * Where a loaded sweep stands in this boot: 1 when its values in force are to be measured
 * now (bs->now filled), 0 when it needs a reboot first (said in d, e.g. the step set
 * before this boot; a step a crash cut short is completed first), -errno with d when the
 * reboot did not bring the value (or dev is not the sweep's disk).
 */
int boot_sweep__ready(struct boot_sweep *bs, const struct device *dev, struct diag *d);

/*
 * After this boot's runs, appended to res: the runs of earlier boots join them (in the
 * order of the values), then either the next value is set for the next boot (returns 1;
 * what to do next said on stderr) or, after the last, the original is set back and the
 * plan removed (returns 0: res holds every run, for the report). -errno with d.
 */
int boot_sweep__step(struct boot_sweep *bs, struct result *res, struct diag *d);

/* Give up the sweep under way: the original set back for the next boot, the plan gone. */
int boot_sweep__abort(const struct boot_sweep_env *env, struct diag *d);

void boot_sweep__close(struct boot_sweep *bs);

#endif /* BLKTRACE_BENCH_BOOT_SWEEP_H */
