// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * JSON round trip: a result with hand-built histograms is written, parsed back
 * with jansson, and every figure compared with what the histograms imply.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "base/diag.h"
#include "files/outfile.h"
#include "output/report_json.h"
#include "output/report_text.h"
#include "store/result_load.h"
#include "analysis/series.h"
#include "analysis/summary.h"

/* The JSON document of res, built as cmd_trace builds it. */
static json_t *report_json(const struct result *res)
{
	struct report rep;
	json_t *doc;

	assert_int_equal(report__build(&rep, res, false), 0);
	doc = report_json__doc(&rep);
	report__free(&rep);
	return doc;
}

static void report_text(FILE *f, const struct result *res)
{
	struct report rep;

	assert_int_equal(report__build(&rep, res, false), 0);
	report_text__print(f, &rep, false);
	report__free(&rep);
}

static struct result *make_result(void)
{
	struct result *res = calloc(1, sizeof(*res));
	struct block_stats *b;
	struct run *r;
	int i;

	assert_non_null(res);
	snprintf(res->tool_version, sizeof(res->tool_version), "test");
	snprintf(res->command_line, sizeof(res->command_line), "blktrace-bench --trace xvda");
	snprintf(res->host.kernel, sizeof(res->host.kernel), "6.18.0");
	res->has_device = true;
	snprintf(res->device.name, sizeof(res->device.name), "xvda");
	res->device.major = 202;
	res->device.limits.max_sectors_kb = 44;
	res->device.limits.max_segments = 11;
	res->device.limits.max_hw_sectors_kb = -1; /* absent: null */
	snprintf(res->device.limits.scheduler, sizeof(res->device.limits.scheduler), "none");
	r = result__add_run(res, true, false);
	assert_non_null(r);
	snprintf(r->label, sizeof(r->label), "run one");
	r->seconds = 2.5;
	b = r->block;
	/* 97 writes of 44 KiB in 11 segments, 3 of 4 KiB in 1 segment; depth 1 or 2. */
	b->c.requests[BLKIO_OP_WRITE] = 100;
	b->c.bytes[BLKIO_OP_WRITE] = 97 * 45056 + 3 * 4096;
	b->c.requests[BLKIO_OP_FLUSH] = 2;
	b->c.merges = 5;
	b->c.splits = 7;
	b->size[BLKIO_SIZE_WRITE][hist_size_index(45056)] = 97;
	b->size[BLKIO_SIZE_WRITE][hist_size_index(4096)] = 3;
	b->max.bytes = 45056;
	b->count[BLKIO_COUNT_SEGMENTS][11] = 97;
	b->count[BLKIO_COUNT_SEGMENTS][1] = 3;
	b->c.sum_segments = 97 * 11 + 3;
	b->c.data_requests = 100;
	b->max.segments = 11;
	b->count[BLKIO_COUNT_DEPTH][1] = 60;
	b->count[BLKIO_COUNT_DEPTH][2] = 42;
	b->c.sum_depth = 60 + 84;
	b->max.depth = 2;
	/* Device time: 1000 samples, i microseconds for i = 1..1000. */
	for (i = 1; i <= 1000; i++)
		b->lat[BLKIO_LAT_DEVICE][hist_lat_index(i * 1000ULL)]++;
	b->c.sum_ns[BLKIO_LAT_DEVICE] = 1000ULL * 1001 / 2 * 1000;
	b->c.nr_ns[BLKIO_LAT_DEVICE] = 1000;
	b->max.ns[BLKIO_LAT_DEVICE] = 1000000;
	return res;
}

static json_t *round_trip(const struct result *res)
{
	json_t *doc = report_json(res), *back;
	json_error_t jerr;
	char *text;

	assert_non_null(doc);
	text = json_dumps(doc, JSON_INDENT(2));
	assert_non_null(text);
	back = json_loads(text, 0, &jerr);
	assert_non_null(back);
	free(text);
	json_decref(doc);
	return back;
}

static double num(json_t *root, const char *path)
{
	json_t *v = root;
	char buf[256], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		v = json_is_array(v) ? json_array_get(v, atoi(tok)) : json_object_get(v, tok);
		if (!v)
			fail_msg("missing %s at %s", path, tok);
	}
	assert_true(json_is_number(v));
	return json_number_value(v);
}

static void test_json_round_trip(void **state)
{
	struct result *res = make_result();
	json_t *j = round_trip(res), *b;
	double t;

	(void)state;
	assert_string_equal(json_string_value(json_object_get(j, "schema")), "blktrace-bench/1");
	assert_true(num(j, "device.major") == 202);
	assert_true(num(j, "device.limits.max_sectors_kb") == 44);
	assert_true(json_is_null(json_object_get(
		json_object_get(json_object_get(j, "device"), "limits"), "max_hw_sectors_kb")));
	assert_true(num(j, "runs.0.seconds") == 2.5);
	assert_true(num(j, "runs.0.block.write.requests") == 100);
	assert_true(num(j, "runs.0.block.write.bytes") == 97 * 45056 + 3 * 4096);
	assert_true(num(j, "runs.0.block.flush.requests") == 2);
	assert_true(num(j, "runs.0.block.merges") == 5);
	assert_true(num(j, "runs.0.block.splits") == 7);
	assert_true(num(j, "runs.0.block.read.requests") == 0);

	/* Sizes: two buckets, [4K, 8K) x 3 and [44K, 48K) x 97. */
	assert_true(num(j, "runs.0.block.request_bytes.buckets.0.lo") == 4096);
	assert_true(num(j, "runs.0.block.request_bytes.buckets.0.hi") == 8192);
	assert_true(num(j, "runs.0.block.request_bytes.buckets.0.count") == 3);
	assert_true(num(j, "runs.0.block.request_bytes.buckets.1.lo") == 45056);
	assert_true(num(j, "runs.0.block.request_bytes.buckets.1.hi") == 49152);
	assert_true(num(j, "runs.0.block.request_bytes.buckets.1.count") == 97);
	b = json_object_get(
		json_object_get(
			json_object_get(json_array_get(json_object_get(j, "runs"), 0), "block"),
			"request_bytes"),
		"buckets");
	assert_int_equal(json_array_size(b), 2);
	t = (97.0 * 45056 + 3 * 4096) / 100;
	assert_true(num(j, "runs.0.block.request_bytes.mean") == t);
	assert_true(num(j, "runs.0.block.request_bytes.p50") == 45056);
	assert_true(num(j, "runs.0.block.request_bytes.max") == 45056);

	/* Segments: exact counts. Bytes per segment: total bytes / total segments. */
	assert_true(num(j, "runs.0.block.segments.buckets.0.lo") == 1);
	assert_true(num(j, "runs.0.block.segments.buckets.0.hi") == 2);
	assert_true(num(j, "runs.0.block.segments.buckets.1.lo") == 11);
	assert_true(num(j, "runs.0.block.segments.max") == 11);
	assert_true(num(j, "runs.0.block.segments.mean") == (97.0 * 11 + 3) / 100);
	assert_true(num(j, "runs.0.block.segment_bytes.mean") ==
		    (97.0 * 45056 + 3 * 4096) / (97 * 11 + 3));

	/* Depth: (60 x 1 + 42 x 2) / 102. */
	assert_true(num(j, "runs.0.block.queue_depth.mean") == 144.0 / 102);
	assert_true(num(j, "runs.0.block.queue_depth.max") == 2);

	/* 97 of 100 reached 44 KiB and 11 segments. */
	assert_true(num(j, "runs.0.block.limit_bound.max_sectors") == 0.97);
	assert_true(num(j, "runs.0.block.limit_bound.max_segments") == 0.97);

	/* Device time 1..1000 us: mean 500.5 us exactly; p50 the 500th value within 1%. */
	assert_true(num(j, "runs.0.block.device_ns.mean") == 500500);
	t = num(j, "runs.0.block.device_ns.p50");
	assert_true(t >= 500000 * 0.99 && t <= 500000 * 1.01);
	t = num(j, "runs.0.block.device_ns.p99");
	assert_true(t >= 990000 * 0.99 && t <= 990000 * 1.01);
	assert_true(num(j, "runs.0.block.device_ns.max") == 1000000);
	assert_true(num(j, "runs.0.block.device_ns.count") == 1000);
	assert_true(num(j, "runs.0.block.queue_ns.count") == 0);

	json_decref(j);
	result__free(res);
	free(res);
}

static void test_json_write_file(void **state)
{
	struct result *res = make_result();
	char path[] = "/tmp/bb-test-report-XXXXXX";
	struct diag d = {};
	struct outfile of;
	json_error_t jerr;
	json_t *j, *doc;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	doc = report_json(res);
	assert_non_null(doc);
	assert_int_equal(outfile__open(&of, "--json", path, NULL, 0, &d), 0);
	assert_int_equal(outfile__write_json(&of, doc, JSON_INDENT(2)), 0);
	assert_int_equal(outfile__commit(&of, &d), 0);
	j = json_load_file(path, 0, &jerr);
	assert_non_null(j);
	assert_true(num(j, "runs.0.block.write.requests") == 100);
	json_decref(j);
	unlink(path);
	assert_true(outfile__open(&of, "--json", "/nonexistent-dir/x.json", NULL, 0, &d) < 0);
	outfile__abort(&of);
	json_decref(doc);
	result__free(res);
	free(res);
}

/* Bytes that are no UTF-8 anywhere: the document is still written. */
static void test_json_invalid_utf8(void **state)
{
	struct result *res = make_result();
	char *text;
	json_t *doc;

	(void)state;
	snprintf(res->command_line, sizeof(res->command_line), "dd of=caf\xe9 \xff\xfe");
	snprintf(res->runs[0].label, sizeof(res->runs[0].label), "label \xc3");
	snprintf(res->device.loop.backing_file, sizeof(res->device.loop.backing_file),
		 "/img/\xed\xa0\x80");
	res->device.loop.present = true;
	snprintf(res->host.hostname, sizeof(res->host.hostname), "h\x80");
	doc = report_json(res);
	assert_non_null(doc);
	text = json_dumps(doc, JSON_COMPACT);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"dd of=caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\""));
	assert_non_null(strstr(text, "\"label \xef\xbf\xbd\""));
	/* a surrogate (ED A0 80) is three bad bytes, as jansson judges them */
	assert_non_null(strstr(text, "\"/img/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""));
	free(text);
	json_decref(doc);
	result__free(res);
	free(res);
}

static void test_text_report(void **state)
{
	struct result *res = make_result();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	report_text(f, res);
	fclose(f);
	assert_non_null(strstr(buf, "[44K, 48K)"));
	assert_non_null(strstr(buf, "97.0% of data requests reached max_sectors_kb=44"));
	assert_non_null(strstr(buf, "write               100"));
	assert_null(strstr(buf, "skipped")); /* none skipped: no line */
	free(buf);
	/* Runs the kernel skipped: said under the report, with their number. */
	res->has_skipped = true;
	res->tracer_skipped = 3;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text(f, res);
	fclose(f);
	assert_non_null(strstr(buf, "\nthe kernel skipped 3 runs of our programs ("));
	assert_non_null(strstr(buf, "the counts may fall short by as many\n"));
	free(buf);
	result__free(res);
	free(res);
}

/*
 * The one schema: every metric compare knows (metrics.h) is in the document this tool
 * writes, and reads back as the value the run's summary holds. A run with a workload, so
 * that the app metrics and the device bytes per app byte are there too.
 */
static void test_every_metric_round_trips(void **state)
{
	struct result *res = make_result();
	struct loaded_result lr;
	struct run_summary *live = malloc(sizeof(*live));
	struct run *r = &res->runs[0];
	struct diag d = {};
	char *text;
	json_t *doc;
	int k;

	(void)state;
	assert_non_null(live);
	r->app = calloc(1, sizeof(*r->app));
	assert_non_null(r->app);
	r->has_app = true;
	r->app->bytes = 4 << 20;
	r->app->ios = 100;
	r->app->ns = 2500000000ULL;
	r->app->lat[hist_lat_index(200000)] = 99;
	r->app->lat[hist_lat_index(900000)] = 1;
	r->app->lat_sum_ns = 99 * 200000 + 900000;
	r->app->lat_max_ns = 900000;
	snprintf(r->params.rw, sizeof(r->params.rw), "write");
	r->params.bs = 45056;
	snprintf(r->params.set_knob, sizeof(r->params.set_knob), "max_sectors_kb");
	snprintf(r->params.set_value, sizeof(r->params.set_value), "44");
	/* Every job parameter set, so that each comes back through the one table. */
	snprintf(r->params.engine, sizeof(r->params.engine), "io_uring");
	r->params.size = 1ULL << 40;
	r->params.runtime = 2.5;
	r->params.iodepth = 32;
	r->params.direct = r->params.sync = r->params.fsync = r->params.fdatasync = true;
	assert_int_equal(run_summary__compute(live, res, r), 0);
	doc = report_json(res);
	text = json_dumps(doc, JSON_REAL_PRECISION(17));
	assert_non_null(text);
	assert_int_equal(result_load__string("r.json", text, &lr, &d), 0);
	assert_int_equal(lr.nr_runs, 1);
	for (k = 0; k < NR_METRICS; k++) {
		if (!live->has_metric[k] || !lr.runs[0].has_metric[k])
			fail_msg("metric %s: written %d, read back %d", metric_defs[k].name,
				 live->has_metric[k], lr.runs[0].has_metric[k]);
		if (live->metric[k] != lr.runs[0].metric[k])
			fail_msg("metric %s: %.17g written, %.17g read back", metric_defs[k].name,
				 live->metric[k], lr.runs[0].metric[k]);
	}
	assert_string_equal(lr.runs[0].params.set_value, "44");
	assert_int_equal(lr.runs[0].params.bs, 45056);
	assert_string_equal(lr.runs[0].params.rw, r->params.rw);
	assert_string_equal(lr.runs[0].params.engine, "io_uring");
	assert_int_equal(lr.runs[0].params.size, 1ULL << 40);
	assert_true(lr.runs[0].params.runtime == 2.5);
	assert_int_equal(lr.runs[0].params.iodepth, 32);
	assert_true(lr.runs[0].params.direct && lr.runs[0].params.sync && lr.runs[0].params.fsync &&
		    lr.runs[0].params.fdatasync);
	assert_int_equal(memcmp(lr.runs[0].block.size_all, live->block.size_all,
				sizeof(live->block.size_all)),
			 0);
	assert_int_equal(
		memcmp(lr.runs[0].segments_all, live->segments_all, sizeof(live->segments_all)), 0);
	result_load__free(&lr);
	free(text);
	json_decref(doc);
	free(live);
	result__free(res);
	free(res);
}

/* A run of a 1 MiB write job that wrote bytes in one second; partial: cut short. */
static void add_job_run(struct result *res, uint64_t bytes, unsigned int rep, bool partial)
{
	struct run *r = result__add_run(res, true, true);

	assert_non_null(r);
	snprintf(r->params.rw, sizeof(r->params.rw), "write");
	snprintf(r->params.engine, sizeof(r->params.engine), "psync");
	r->params.bs = 1 << 20;
	r->params.size = 512ULL << 20;
	r->params.iodepth = 1;
	snprintf(r->label, sizeof(r->label), "write bs=1 MiB psync");
	r->repetition = rep;
	r->partial = partial;
	r->has_app = true;
	r->app->bytes = bytes;
	r->app->ios = bytes >> 20;
	r->app->ns = 1000000000ULL;
	r->seconds = 1;
	r->block->c.requests[BLKIO_OP_WRITE] = bytes >> 20;
	r->block->c.bytes[BLKIO_OP_WRITE] = bytes;
}

/*
 * A run cut short by Ctrl-C (34.6 MB of 512 MiB) is reported and marked, not averaged
 * with the whole ones: the series, and so the table, the recommendation and compare,
 * hold the two whole repetitions only; the file says "partial" and reads back so.
 */
static void test_partial_runs(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	struct loaded_result lr;
	struct series_set ss;
	struct report rep;
	struct diag d = {};
	char *text, *out = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *f;

	(void)state;
	assert_non_null(res);
	add_job_run(res, 512ULL << 20, 0, false);
	add_job_run(res, 512ULL << 20, 1, false);
	add_job_run(res, 34600000, 2, true);
	assert_int_equal(report__build(&rep, res, false), 0);
	assert_int_equal(rep.series.nr, 1);
	assert_int_equal(rep.series.series[0].nr_runs, 2);
	assert_int_equal(rep.series.series[0].metric[METRIC_APP_MB_PER_S].n, 2);
	assert_true(rep.series.series[0].metric[METRIC_APP_MB_PER_S].mean == 536.870912);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	report_text__print(f, &rep, true);
	fclose(f);
	if (!strstr(out, "  run 3 (write bs=1 MiB psync) was cut short after 33.0 MiB of 512 MiB: "
			 "not in the table"))
		fail_msg("no cut-short line in:\n%s", out);
	free(out);
	doc = report_json__doc(&rep);
	report__free(&rep);
	assert_true(json_is_true(
		json_object_get(json_array_get(json_object_get(doc, "runs"), 2), "partial")));
	assert_true(json_is_false(
		json_object_get(json_array_get(json_object_get(doc, "runs"), 0), "partial")));
	text = json_dumps(doc, 0);
	assert_int_equal(result_load__string("p.json", text, &lr, &d), 0);
	assert_true(lr.runs[2].partial && !lr.runs[0].partial);
	assert_int_equal(series__group(&ss, lr.runs, lr.nr_runs), 0);
	assert_int_equal(ss.nr, 1);
	assert_int_equal(ss.series[0].nr_runs, 2);
	series__free(&ss);
	result_load__free(&lr);
	free(text);
	/* Not a boolean: named. */
	assert_int_equal(
		result_load__string("q.json",
				    "{\"schema\": \"blktrace-bench/1\", \"runs\": [{\"label\": "
				    "\"x\", \"partial\": 1, \"block\": {\"requests\": 1}}]}",
				    &lr, &d),
		-EINVAL);
	assert_string_equal(d.msg, "q.json: runs[0].partial is a number, not a boolean");
	json_decref(doc);
	result__free(res);
	free(res);
}

/*
 * The --brief table: one repetition has no confidence interval ("n/a", not "+- 0.0"), and
 * a label longer than the old 44 columns is printed whole ("psync fsyn" was cut).
 */
static void test_linked_table_text(void **state)
{
	static const char label[] = "max_sectors_kb=1024 write bs=1 MiB psync fsync fdatasync";
	struct result *res = calloc(1, sizeof(*res));
	struct report rep;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(res);
	add_job_run(res, 512ULL << 20, 0, false);
	snprintf(res->runs[0].label, sizeof(res->runs[0].label), "%s", label);
	assert_int_equal(report__build(&rep, res, false), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	report_text__print(f, &rep, true);
	fclose(f);
	if (!strstr(out,
		    "max_sectors_kb=1024 write bs=1 MiB psync fsync fdatasync    536.9      n/a"))
		fail_msg("label or n/a not as expected in:\n%s", out);
	assert_null(strstr(out, "+-   0.0"));
	free(out);
	report__free(&rep);
	result__free(res);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_metric_round_trips),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_write_file),
		cmocka_unit_test(test_json_invalid_utf8),
		cmocka_unit_test(test_text_report),
		cmocka_unit_test(test_partial_runs),
		cmocka_unit_test(test_linked_table_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
