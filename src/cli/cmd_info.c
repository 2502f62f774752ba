// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The info command: what a tuner needs to know about a disk, as text or as the
 * same `device` object every result file carries (the printers: device_print.c).
 */
#include <stdio.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "disk/driver_probes.h"
#include "files/outfile.h"
#include "output/device_print.h"

/* --json=FILE: the policy of every output (outfile.h); --json alone is stdout. */
static int info_json(const struct options *o, const struct device *dev, const struct stack *st,
		     struct diag *d)
{
	struct outfile out = {};
	int err = outfile__open(&out, "--json", o->json, NULL, 0, d);

	return err ? err : print_device_json(&out, dev, st, d);
}

int cmd_info(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	const struct driver_probe_env probes = { cfg->kallsyms, cfg->sysfs_root };
	const struct device_env env = env_config__device(cfg);
	struct device dev;
	struct stack st;
	int err;

	err = device__resolve_env(&env, o->positional[0], &dev, d);
	if (err)
		return err;
	driver_probes__notice(&probes, &dev, stderr);
	err = stack__discover(cfg->sysfs_root, &dev, &st, d);
	if (err)
		return err;
	if (!o->json)
		print_device_plain(stdout, &dev, &st);
	else
		err = info_json(o, &dev, &st, d);
	stack__free(&st);
	return err ? err : finish_stdout(d);
}
