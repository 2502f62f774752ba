/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The device printers, side by side over one struct device and the stack under it (as
 * bpftool pairs print_*_plain and print_*_json): what the info command shows, as text
 * or as the same `device` object every result file carries (report_json.h).
 */
#ifndef BLKTRACE_BENCH_DEVICE_PRINT_H
#define BLKTRACE_BENCH_DEVICE_PRINT_H

#include <stdio.h>
#include "disk/device.h"
#include "disk/stack.h"
#include "files/outfile.h"

struct diag;

/* The text: limits, the largest request and why, driver sections, the stack. */
void print_device_plain(FILE *f, const struct device *dev, const struct stack *st);
/*
 * {"schema", "device", "stack" when there is one} into of, committed (outfile__put_json).
 * 0, or -errno with d.
 */
int print_device_json(struct outfile *of, const struct device *dev, const struct stack *st,
		      struct diag *d);

#endif /* BLKTRACE_BENCH_DEVICE_PRINT_H */
