/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A guest's and dom0's traces of one disk (analysis/hypervisor.h), as text and as JSON:
 * what `compare GUEST.json DOM0.json` prints for such a pair.
 */
#ifndef BLKTRACE_BENCH_HYPERVISOR_PRINT_H
#define BLKTRACE_BENCH_HYPERVISOR_PRINT_H

#include <stdio.h>
#include <jansson.h>
#include "analysis/hypervisor.h"

void hypervisor_print__text(FILE *f, const struct hv_link *l);
json_t *hypervisor_print__json(const struct hv_link *l);

#endif /* BLKTRACE_BENCH_HYPERVISOR_PRINT_H */
