// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The engine registry: a static table, no constructors (engine.h). */
#include <string.h>
#include "workload/engine.h"

static const struct engine_ops *const engines[] = {
	&engine_psync_ops,
	&engine_uring_ops,
};

const struct engine_ops *engine__find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (!strcmp(engines[i]->name, name))
			return engines[i];
	return NULL;
}
