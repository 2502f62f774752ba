// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The apply command: `blktrace-bench apply RESULT.json` makes a tune's recommendation
 * persist (a udev rule, a modprobe.d file: apply_files.c), `--dry-run` shows the files
 * as diffs, `--undo` takes away exactly what apply wrote (apply.c's manifest), `--root
 * DIR` does it below DIR. It reads no disk: the result says which disk, by its stable
 * identity.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "apply.h"
#include "cli.h"
#include "commands.h"

static void apply_options(struct options *o)
{
	o->dry_run = o->undo = false;
	o->root = NULL;
	o->verbose = 0;
}

static int apply_result(const struct options *o, const struct apply_opts *ao)
{
	struct loaded_result lr = {};
	struct tune_plan *plan = malloc(sizeof(*plan));
	char err[1024];
	int ret, rc = EXIT_USAGE;

	if (!plan) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	/* What the result says is checked before anything is written: bad input, exit 2. */
	ret = result_load__file(o->positional[0], &lr, err, sizeof(err));
	if (!ret)
		ret = tune_plan__read(&lr, o->positional[0], plan, err, sizeof(err));
	if (!ret) {
		ret = apply__run(plan, ao, err, sizeof(err));
		rc = !ret ? EXIT_OK : ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL;
	}
	if (ret)
		die_msg("%s", err);
	result_load__free(&lr);
	free(plan);
	return rc == EXIT_OK && finish_stdout() ? EXIT_FAIL : rc;
}

/* apply reads only the result it is given, and writes below --root: cfg is not used. */
int cmd_apply(int argc, char **argv, const struct env_config *cfg)
{
	struct apply_opts ao = { .out = stdout };
	char abs[PATH_MAX], err[1024];
	struct options o;
	int ret;

	(void)cfg;
	ret = cli_parse("apply", argc, argv, &o);
	if (ret)
		return ret == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (cli_has_other(&o, apply_options) || o.nr_positional != !o.undo) {
		die_msg("apply takes a tune result, or --undo: blktrace-bench apply RESULT.json "
			"[--dry-run] [--root DIR] | apply --undo [--dry-run] [--root DIR]");
		return EXIT_USAGE;
	}
	ao.root = o.root ? o.root : "/";
	ao.dry_run = o.dry_run;
	ao.check_cmdline = !o.root;
	if (o.undo) {
		ret = apply__undo(&ao, err, sizeof(err));
		if (ret)
			die_msg("%s", err);
		return ret ? (ret == -EINVAL ? EXIT_USAGE : EXIT_FAIL)
			   : (finish_stdout() ? EXIT_FAIL : EXIT_OK);
	}
	/* The files name the result by its absolute path: they outlive the shell. */
	ao.result = realpath(o.positional[0], abs) ? abs : o.positional[0];
	return apply_result(&o, &ao);
}
