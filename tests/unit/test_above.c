// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the device cannot explain (above.c) on hand-made runs: the BALUG case (dd bs=512
 * and bs=128k, the same 128 KiB read-ahead requests, 442 against 1867 MB/s) and an
 * io_uring run whose application waits three times the block layer's time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/above.h"

static void assert_has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" not in \"%s\"", part, text);
}

static void set(struct run_summary *r, enum metric_id id, double v)
{
	r->metric[id] = v;
	r->has_metric[id] = true;
}

/* A buffered read run of block size bs: MB/s, and the device's 128 KiB requests. */
static void read_run(struct run_summary *r, const char *rw, unsigned long long bs, double mbps,
		     double req_p50)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->params.rw, sizeof(r->params.rw), "%s", rw);
	r->params.bs = bs;
	snprintf(r->label, sizeof(r->label), "%s bs=%llu psync", rw, bs);
	r->has_app = r->has_block = true;
	set(r, METRIC_APP_MB_PER_S, mbps);
	set(r, METRIC_APP_IOPS, mbps * 1e6 / bs);
	set(r, METRIC_REQ_BYTES_P50, req_p50);
	set(r, METRIC_DEVICE_PER_APP_BYTE, 1.0);
}

static void test_same_requests_apart(void **state)
{
	struct run_summary *r = test_calloc(4, sizeof(*r));
	struct above_pairs out;
	struct series_set ss;

	(void)state;
	read_run(&r[0], "read", 512, 442.0, 131072);
	read_run(&r[1], "read", 131072, 1866.6, 131072);
	read_run(&r[2], "write", 512, 100.0, 131072); /* another operation: not compared */
	read_run(&r[3], "read", 4096, 1800.0, 4096);  /* other requests: not compared */
	assert_int_equal(series__group(&ss, r, 4), 0);
	above__series(&ss, r, &out);
	assert_int_equal(out.nr, 1);
	assert_int_equal(out.p[0].slow, 0);
	assert_int_equal(out.p[0].fast, 1);
	assert_true(out.p[0].ratio > 4.2 && out.p[0].ratio < 4.23);
	assert_has(out.p[0].text,
		   "read bs=512 psync and read bs=131072 psync: the device saw the "
		   "same requests (128 KiB at the median, 1.00 device bytes per "
		   "application byte), yet throughput differs 4.2x (442.0 against "
		   "1866.6 MB/s): the difference is above the block layer, where the "
		   "slower made 1953 I/Os per MB against 7.6.");
	series__free(&ss);

	/* Within 1.5x: nothing said. */
	read_run(&r[1], "read", 131072, 600.0, 131072);
	assert_int_equal(series__group(&ss, r, 2), 0);
	above__series(&ss, r, &out);
	assert_int_equal(out.nr, 0);
	series__free(&ss);
	test_free(r);
}

static void test_run_above(void **state)
{
	struct run_summary *r = test_calloc(1, sizeof(*r));
	struct finding f;

	(void)state;
	snprintf(r->params.rw, sizeof(r->params.rw), "randread");
	r->params.direct = true;
	r->has_app = r->has_block = true;
	r->app.ios = 10000;
	r->block.data_requests = 10000;
	r->app.lat.mean = 300000;
	r->block.lat[BLKIO_LAT_TOTAL].count = 10000;
	r->block.lat[BLKIO_LAT_TOTAL].mean = 100000;
	assert_int_equal(above__run(r, &f), 1);
	assert_string_equal(f.kind, "above_block_layer");
	assert_string_equal(f.text,
			    "The application waited 300.0 us per I/O on average, 3.0x the "
			    "block layer's 100.0 us from allocation to completion: 200.0 us "
			    "of each I/O were spent above the block layer (the system call, "
			    "the engine's queue).");
	/* Buffered: the page cache's, not comparable one to one. */
	r->params.direct = false;
	assert_int_equal(above__run(r, &f), 0);
	r->params.direct = true;
	/* Not one request per I/O (merges, splits): not compared. */
	r->block.data_requests = 5000;
	assert_int_equal(above__run(r, &f), 0);
	r->block.data_requests = 10000;
	/* Close to the block layer's time: nothing to say. */
	r->app.lat.mean = 120000;
	assert_int_equal(above__run(r, &f), 0);
	/* Command mode: no application figures. */
	r->app.lat.mean = 300000;
	r->has_app = false;
	assert_int_equal(above__run(r, &f), 0);
	test_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_requests_apart),
		cmocka_unit_test(test_run_above),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
