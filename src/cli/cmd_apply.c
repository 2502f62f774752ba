// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The apply command: `blktrace-bench apply RESULT.json` makes a tune's recommendation
 * persist (a udev rule, a modprobe.d file: apply_files.c), `--dry-run` shows the files
 * as diffs, `--undo` takes away exactly what apply wrote (apply.c's manifest), `--root
 * DIR` does it below DIR. It reads no disk: the result says which disk, by its stable
 * identity.
 */
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include "tune/apply.h"
#include "cli/cli.h"
#include "cli/commands.h"

/* What the result says is checked before anything is written: bad input, exit 2. */
static int apply_result(const char *file, const struct apply_opts *ao, struct diag *d)
{
	struct loaded_result lr = {};
	struct tune_plan *plan = malloc(sizeof(*plan));
	int err;

	if (!plan)
		return diag__fail(d, -ENOMEM, "out of memory");
	err = result_load__file(file, &lr, d);
	if (!err)
		err = tune_plan__read(&lr, file, plan, d);
	if (!err)
		err = apply__run(plan, ao, d);
	result_load__free(&lr);
	free(plan);
	return err;
}

/* apply reads only the result it is given, and writes below --root: cfg is not used. */
int cmd_apply(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct boot_config_env boot;
	struct apply_opts ao = { .root = o->root ? o->root : "/",
				 .dry_run = o->dry_run,
				 .out = stdout,
				 .check_cmdline = !o->root,
				 /* The system's own root, named or not: its initramfs too. */
				 .boot = o->root && strcmp(o->root, "/") ? NULL : &boot };
	char abs[PATH_MAX];
	int err;

	boot_config__system(&boot, cfg->sysfs_root);
	if (o->undo) {
		err = apply__undo(&ao, d);
	} else {
		/* The files name the result by its absolute path: they outlive the shell. */
		ao.result = realpath(o->positional[0], abs) ? abs : o->positional[0];
		err = apply_result(o->positional[0], &ao, d);
	}
	return err ? err : finish_stdout(d);
}
