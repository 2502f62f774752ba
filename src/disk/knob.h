/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Runtime queue settings swept with --set: validated before anything runs, the
 * original value saved, and restored after the sweep, on error and on a signal.
 * What survives a crash (the state file, the per-disk lock) is sweep_state.h's.
 */
#ifndef BLKTRACE_BENCH_KNOB_H
#define BLKTRACE_BENCH_KNOB_H

#include <stdbool.h>
#include <stddef.h>
#include "disk/device.h"
#include "disk/queue_setting.h"

struct sweep_state;

struct knob {
	const struct device *dev;
	char name[32];
	char original[64];
	bool changed;
	struct sweep_state *state; /* set: each value recorded there before it is written */
	FILE *notes; /* where a failed restore says what to write where; NULL: nowhere */
};

struct diag;

/* Read the original value and check every value (bounds, the scheduler list); writes
 * nothing. 0, or -EINVAL with the refusal in d. */
int knob__prepare(struct knob *k, const struct device *dev, const char *name, char *const *values,
		  int nr, struct diag *d);
/* Write each value once and the original back (what only the kernel knows). 0 or -errno + d. */
int knob__try(struct knob *k, char *const *values, int nr, struct diag *d);
/* Write one value: 0, or -errno with d (a value the kernel refuses is bad input). */
int knob__apply(struct knob *k, const char *value, struct diag *d);
/* Put the original back; if that fails, say loudly on k->notes what to write where. */
int knob__restore(struct knob *k);

#endif /* BLKTRACE_BENCH_KNOB_H */
