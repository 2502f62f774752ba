// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The resume command: the next step of the sweep across reboots under way
 * (boot_sweep.h). Its plan holds the command that started it; that command runs again,
 * marked as resumed, and measures what this boot has in force. --abort gives the sweep
 * up instead, its original setting back for the next boot.
 */
#include <stdlib.h>
#include <unistd.h>
#include "workload/boot_sweep.h"
#include "cli/cli.h"
#include "cli/commands.h"

int cmd_resume(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct boot_sweep_env env;
	struct boot_sweep bs = { .dirfd = -1 };
	struct options again;
	char **argv = NULL;
	int argc, err;

	boot_sweep__system(&env, cfg->sysfs_root);
	if (o->abort)
		return boot_sweep__abort(&env, d);
	err = boot_sweep__load(&bs, &env, d);
	if (!err)
		err = boot_sweep__command(&bs, &argc, &argv, d);
	if (!err)
		err = cli_parse("trace", argc, argv, &again, d);
	/* The trace takes the plan again, and its lock: argv stays, owned by bs.plan. */
	if (bs.dirfd >= 0) {
		close(bs.dirfd);
		bs.dirfd = -1;
	}
	if (!err) {
		again.resume = true;
		err = cmd_trace(&again, cfg, d);
	}
	free(argv);
	boot_sweep__close(&bs);
	return err;
}
