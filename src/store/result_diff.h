/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a reboot or an upgrade changed between two saved results: the disk, its driver,
 * its limits by their sysfs names, xen-blkfront's figures, the kernel and the tool's
 * version, read from the results' headers.
 */
#ifndef BLKTRACE_BENCH_RESULT_DIFF_H
#define BLKTRACE_BENCH_RESULT_DIFF_H

#include "result/change.h"
#include "store/result_load.h"

/* Append to out every setting whose value differs between a and b. 0 or -ENOMEM. */
int result_diff__device(const struct loaded_result *a, const struct loaded_result *b,
			struct changes *out);

#endif /* BLKTRACE_BENCH_RESULT_DIFF_H */
