// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Runs are deltas of two snapshots; maxima are per interval, never subtracted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "trace/tracer.h"

static void fill(struct block_stats *s, __u64 base)
{
	s->c.requests[BLKIO_OP_WRITE] = base + 10;
	s->c.bytes[BLKIO_OP_WRITE] = base * 4096;
	s->size[BLKIO_SIZE_WRITE][8] = base + 3;
	s->count[BLKIO_COUNT_DEPTH][1] = base;
	s->lat[BLKIO_LAT_DEVICE][2047] = base + 1;
	s->max.bytes = base * 2;
	s->max.ns[BLKIO_LAT_DEVICE] = base * 7;
}

static void check(const struct block_stats *d)
{
	assert_int_equal(d->c.requests[BLKIO_OP_WRITE], 100);
	assert_int_equal(d->c.bytes[BLKIO_OP_WRITE], 100 * 4096);
	assert_int_equal(d->size[BLKIO_SIZE_WRITE][8], 100);
	assert_int_equal(d->count[BLKIO_COUNT_DEPTH][1], 100);
	assert_int_equal(d->lat[BLKIO_LAT_DEVICE][2047], 100);
	/* The after snapshot's maxima, untouched by the subtraction. */
	assert_int_equal(d->max.bytes, 300);
	assert_int_equal(d->max.ns[BLKIO_LAT_DEVICE], 1050);
	assert_int_equal(d->c.requests[BLKIO_OP_READ], 0);
}

static void test_delta(void **state)
{
	struct block_stats *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct block_stats *d = calloc(1, sizeof(*d));

	(void)state;
	fill(b, 50);
	fill(a, 150);
	block_stats__delta(d, a, b);
	check(d);
	/* In place (out == after), as the trace and workload paths use it. */
	block_stats__delta(a, a, b);
	check(a);
	free(a);
	free(b);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
