// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: import's reader of blktrace files (btrace_read.c) and what it feeds,
 * the event pairing (btrace_stats.c) and blkparse's counts (btrace_summary.c). Whatever
 * the bytes, a one-line refusal or a result; never a crash, a leak or a sanitizer report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "blktrace/btrace_read.h"
#include "blktrace/btrace_stats.h"
#include "result/btrace_summary.h"
#include "base/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btrace_set_summary set = {};
	struct btrace_reader *r = NULL;
	struct btrace_stats *s = NULL;
	struct btrace_record rec;
	struct block_stats *b;
	struct diag d = {};
	unsigned int i;
	char left[40];
	double seconds;
	bool bio_based;
	FILE *f;

	if (!size || btrace_stats__new(&s))
		return 0;
	f = fmemopen((void *)data, size, "rb");
	if (f && !btrace_read__open_stream(f, "fuzz.blktrace", &r, &d))
		while (btrace_read__next(r, &rec, &d) > 0 && !btrace_summary__add(&set, &rec.t) &&
		       !btrace_stats__add(s, &rec))
			;
	for (i = 0; r && btrace_read__left_out(r, i, left, sizeof(left)); i++)
		if (strlen(left) >= sizeof(left) || strchr(left, '\n'))
			abort(); /* what was left out, each on one line, cut to fit */
	b = malloc(sizeof(*b));
	if (b)
		btrace_stats__result(s, b, &seconds, &bio_based);
	free(b);
	free(set.cpu);
	btrace_read__close(r);
	btrace_stats__free(s);
	if (f)
		fclose(f);
	if (d.err && (!d.msg[0] || strchr(d.msg, '\n')))
		abort(); /* a refusal is one line */
	return 0;
}
