// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * psync: one pread/pwrite per unit, run to completion inside submit, like dd and
 * like fio's engines/sync.c. Depth 1: a second unit would only wait its turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "workload/engine.h"

struct psync_data {
	struct io_unit *done; /* the unit run by the last submit, until reaped */
};

static int psync_init(struct engine *e)
{
	e->fixed_bufs = false; /* plain read/write: nothing to register */
	e->priv = calloc(1, sizeof(struct psync_data));
	return e->priv ? 0 : -ENOMEM;
}

static int psync_submit(struct engine *e, struct io_unit **units, unsigned int nr)
{
	struct psync_data *pd = e->priv;
	struct io_unit *u;
	size_t len;
	ssize_t ret;
	char *buf;

	if (nr != 1 || pd->done)
		return -EINVAL;
	u = units[0];
	buf = (char *)u->buf + u->done;
	len = u->len - u->done;
	if (e->write)
		ret = pwrite(e->fd, buf, len, u->offset + u->done);
	else
		ret = pread(e->fd, buf, len, u->offset + u->done);
	/* Errors travel in res, as an async engine's would; the driver decides. */
	u->res = ret < 0 ? -errno : ret;
	pd->done = u;
	return 0;
}

static int psync_reap(struct engine *e, unsigned int min, struct io_unit **done, unsigned int max)
{
	struct psync_data *pd = e->priv;

	(void)min;
	if (!pd->done || !max)
		return 0;
	done[0] = pd->done;
	pd->done = NULL;
	return 1;
}

static void psync_cleanup(struct engine *e)
{
	free(e->priv);
	e->priv = NULL;
}

const struct engine_ops engine_psync_ops = {
	.name = "psync",
	.max_depth = 1,
	.init = psync_init,
	.submit = psync_submit,
	.reap = psync_reap,
	.cleanup = psync_cleanup,
};
