/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A disk as a saved file describes it: the `device` object of `info --json` or of a
 * result file, read back into struct device (its name, numbers, driver, partition and
 * queue limits), every field checked. For import --limits-from FILE: a trace taken on
 * another host is weighed against that host's disk.
 */
#ifndef BLKTRACE_BENCH_DEVICE_LOAD_H
#define BLKTRACE_BENCH_DEVICE_LOAD_H

#include "disk/device.h"

struct diag;

/*
 * 0, or -errno with d: bad input for what is not JSON, has no `device` object or a field
 * of the wrong type or range (named by its path: device.limits.max_segments); a runtime
 * failure when the file cannot be read. Fields the file does not have stay unknown (-1).
 */
int device_load__file(const char *path, struct device *dev, struct diag *d);
/* A disk known only by its name and numbers (MAJ:MIN): every limit unknown (-1). */
void device_load__named(const char *name, unsigned int major, unsigned int minor,
			struct device *dev);

#endif /* BLKTRACE_BENCH_DEVICE_LOAD_H */
