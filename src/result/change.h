/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What differs between two results, setting by setting: a dotted name ("max_segments",
 * "xen_blkfront.backend_max_segments", "bs") and each side's value, typed as the result
 * file holds it. compare builds these (store/result_diff.c for the device and the host,
 * analysis/compare.c for the parameters); the printers only show them.
 */
#ifndef BLKTRACE_BENCH_CHANGE_H
#define BLKTRACE_BENCH_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

enum value_kind {
	VALUE_NULL, /* absent, or null */
	VALUE_BOOL,
	VALUE_INT,
	VALUE_REAL,
	VALUE_STRING,
	VALUE_JSON, /* an array or other structure, as compact JSON text */
};

struct value {
	enum value_kind kind;
	bool b;
	long long i;
	double r;
	const char *s; /* VALUE_STRING, VALUE_JSON; owned by the struct changes it is in */
};

struct change {
	char *name;
	struct value a, b;
};

struct changes {
	struct change *v;
	size_t n, cap;
};

/* Append name: a -> b, the strings copied. 0 or -ENOMEM. */
int changes__add(struct changes *c, const char *name, const struct value *a, const struct value *b);
void changes__free(struct changes *c);

#endif /* BLKTRACE_BENCH_CHANGE_H */
