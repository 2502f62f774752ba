/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Runtime queue settings swept with --set: validated before anything runs, the
 * original value saved, and restored after the sweep, on error and on a signal.
 */
#ifndef BLKTRACE_BENCH_KNOB_H
#define BLKTRACE_BENCH_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include "device.h"

struct knob {
	const struct device *dev;
	char name[32];
	char original[64];
	bool changed;
};

/* Check every value (bounds, the scheduler list, a trial write). 0 or -EINVAL + err. */
int knob__prepare(struct knob *k, const struct device *dev, const char *name, char *const *values,
		  int nr, char *err, size_t errlen);
int knob__apply(struct knob *k, const char *value, char *err, size_t errlen);
/* Put the original back and say so on stderr; if that fails, say loudly what to write where. */
int knob__restore(struct knob *k);

#endif /* BLKTRACE_BENCH_KNOB_H */
