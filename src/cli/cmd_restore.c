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
#include <unistd.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "disk/device.h"
#include "files/state_dir.h"
#include "disk/sweep_state.h"

static int restore_disk(const struct sweep_env *env, const struct device *dev, struct diag *d)
{
	char busy[DIAG_MSG_MAX];
	struct sweep_state *s;
	int n;

	/* No directory, no state: none is made just to look. */
	n = state_dir__open(env->dir ? env->dir : SWEEP_STATE_DIR, false, d);
	if (n == -ENOENT) {
		fprintf(stderr, "blktrace-bench: nothing to restore on %s\n", dev->name);
		return 0;
	}
	if (n < 0)
		return n;
	close(n);
	n = sweep_state__lock(env, dev, &s, d);
	if (n == -EBUSY && d) {
		snprintf(busy, sizeof(busy), "%s", d->msg);
		return diag__usage_err(d, n, "%s: it restores its settings itself when it ends",
				       busy);
	}
	if (n)
		return n;
	n = sweep_state__recover(s, stderr, d);
	sweep_state__unlock(s);
	if (n < 0)
		return n;
	if (!n)
		fprintf(stderr, "blktrace-bench: nothing to restore on %s\n", dev->name);
	return 0;
}

int cmd_restore(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct sweep_env env = { .dir = o->state_dir };
	struct device *dev = malloc(sizeof(*dev));
	int err;

	if (!dev)
		return diag__fail(d, -ENOMEM, "out of memory");
	err = device__resolve(cfg->sysfs_root, o->positional[0], dev, d);
	if (!err)
		err = restore_disk(&env, dev, d);
	free(dev);
	return err;
}
