// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The restore command: `blktrace-bench restore DEV` puts back the queue settings a
 * --set sweep of DEV left changed when it died (SIGKILL, a crash), from the state file
 * it wrote before its first change (sweep_state.h). Any later trace of DEV does the
 * same by itself; this is for when no such run is wanted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "commands.h"
#include "device.h"
#include "sweep_state.h"

static int restore_disk(const struct sweep_env *env, const struct device *dev)
{
	struct sweep_state *s;
	char err_msg[512];
	struct stat st;
	int n;

	if (stat(env->dir ? env->dir : SWEEP_STATE_DIR, &st) && errno == ENOENT) {
		fprintf(stderr, "blktrace-bench: nothing to restore on %s\n", dev->name);
		return EXIT_OK;
	}
	n = sweep_state__lock(env, dev, &s, err_msg, sizeof(err_msg));
	if (n == -EBUSY) {
		die_msg("%s: it restores its settings itself when it ends", err_msg);
		return EXIT_USAGE;
	}
	if (n) {
		die_msg("%s", err_msg);
		return EXIT_FAIL;
	}
	n = sweep_state__recover(s, stderr, err_msg, sizeof(err_msg));
	sweep_state__unlock(s);
	if (n < 0) {
		die_msg("%s", err_msg);
		return EXIT_FAIL;
	}
	if (!n)
		fprintf(stderr, "blktrace-bench: nothing to restore on %s\n", dev->name);
	return EXIT_OK;
}

int cmd_restore(int argc, char **argv, const struct env_config *cfg)
{
	struct sweep_env env = {};
	struct device *dev;
	struct options o;
	char err_msg[512];
	int err, rc;

	err = cli_parse("restore", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 1) {
		die_msg("restore takes one disk: blktrace-bench restore DEV [--state-dir DIR]");
		return EXIT_USAGE;
	}
	dev = malloc(sizeof(*dev));
	if (!dev) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	if (device__resolve(cfg->sysfs_root, o.positional[0], dev, err_msg, sizeof(err_msg))) {
		die_msg("%s", err_msg);
		free(dev);
		return EXIT_USAGE;
	}
	env.dir = o.state_dir;
	rc = restore_disk(&env, dev);
	free(dev);
	return rc;
}
