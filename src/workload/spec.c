// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The workload's job; see spec.h. */
#include <string.h>
#include "workload/spec.h"

void workload_spec__copy(struct workload_spec *to, const struct workload_spec *from)
{
	int i;

	memcpy(to, from, sizeof(*to));
	for (i = 0; i < from->nr_set_values; i++)
		to->set_values[i] = to->set_arg + (from->set_values[i] - from->set_arg);
}
