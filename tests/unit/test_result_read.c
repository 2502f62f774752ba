// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A saved result read back whole (report, compare --html): the disk of every fixture
 * tree, a result with every kind of run and a stacked device's result with its layers
 * survive the round trip exactly (the JSON written from the rebuilt result is the JSON
 * the original wrote), findings included; wrong fields are named by their path.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/diag.h"
#include "output/html.h"
#include "output/report_json.h"
#include "output/report_html.h"
#include "output/report_text.h"
#include "store/result_read.h"
#include "disk/stack.h"
#include "testutil.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

static char fixtures[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures)) ? -1 : 0;
}

/* The document a live run with res writes, as text. */
static char *result_text(const struct result *res, bool recommend)
{
	struct report rep;
	json_t *doc;
	char *s;

	assert_int_equal(report__build(&rep, res, recommend), 0);
	doc = report_json__doc(&rep);
	assert_non_null(doc);
	s = json_dumps(doc, DUMP_FLAGS);
	assert_non_null(s);
	json_decref(doc);
	report__free(&rep);
	return s;
}

static void test_device_round_trip(void **state)
{
	/* Tree, disk and the xenstore fake read with it (tests/fixtures/xenstore). */
	static const char *const disks[][3] = {
		{ "xen-seg32", "xvda" },
		{ "xen-seg32", "xvda1" },
		{ "xen-old-max", "xvda" },
		{ "xen-backend-limited", "xvda" },
		{ "xen-seg32", "xvda", "blkback" },
		{ "xen-seg512", "xvda", "blkback" },
		{ "xen-backend-limited", "xvda", "tapdisk" },
		{ "xen-seg512", "xvda", "untrusted" },
		{ "xen-seg32", "xvda", "no-backend" },
		{ "xen-seg32", "xvda", "nonexistent" },
		{ "virtio-blk", "vda" },
		{ "nvme", "nvme0n1" },
		{ "nvme-multipath", "nvme1n1" },
		{ "sd", "sda" },
		{ "loop", "loop0" },
		{ "loop", "zram0" },
		{ "dm", "dm-0" },
		{ "dm", "md0" },
	};
	struct device *dev = calloc(1, sizeof(*dev)), *back = calloc(1, sizeof(*back));
	char root[PATH_MAX + 64], xs[PATH_MAX + 64];
	struct device_env env = { .sysfs_root = root };
	struct diag d = {};
	size_t i;

	(void)state;
	assert_non_null(dev);
	assert_non_null(back);
	for (i = 0; i < sizeof(disks) / sizeof(disks[0]); i++) {
		json_t *a, *b;

		snprintf(root, sizeof(root), "%s/%s", fixtures, disks[i][0]);
		env.xenstore =
			disks[i][2] ? test_xenstore_fixture(xs, sizeof(xs), fixtures, disks[i][2])
				    : NULL;
		if (device__resolve_env(&env, disks[i][1], dev, &d))
			fail_msg("%s in %s: %s", disks[i][1], disks[i][0], d.msg);
		a = report_json__device(dev);
		assert_non_null(a);
		if (result_read__device(a, back, "t.json", &d))
			fail_msg("%s: %s", disks[i][1], d.msg);
		b = report_json__device(back);
		/* What the findings and the advice read of it, back as it was. */
		assert_int_equal(back->xen.segments_reason, dev->xen.segments_reason);
		assert_int_equal(back->xen.backend_read, dev->xen.backend_read);
		assert_int_equal(device__xen_segments_cap(&back->xen),
				 device__xen_segments_cap(&dev->xen));
		if (!json_equal(a, b)) {
			char *sa = json_dumps(a, JSON_SORT_KEYS),
			     *sb = json_dumps(b, JSON_SORT_KEYS);

			fail_msg("%s in %s:\n%s\n%s", disks[i][1], disks[i][0], sa, sb);
		}
		json_decref(a);
		json_decref(b);
	}
	free(dev);
	free(back);
}

/* The HTML disk facts of xvda (xenstore: xs) once saved and read back, in a new string. */
static char *saved_xen_facts(const char *tree, const char *xs)
{
	struct device *dev = calloc(1, sizeof(*dev)), *back = calloc(1, sizeof(*back));
	char root[PATH_MAX + 64], file[PATH_MAX + 64], *html = NULL;
	const struct device_env env = { .sysfs_root = root,
					.xenstore = test_xenstore_fixture(file, sizeof(file),
									  fixtures, xs) };
	size_t len = 0;
	json_t *a;
	FILE *f;

	assert_non_null(dev);
	assert_non_null(back);
	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	assert_int_equal(device__resolve_env(&env, "xvda", dev, NULL), 0);
	a = report_json__device(dev);
	assert_int_equal(result_read__device(a, back, "t.json", NULL), 0);
	f = open_memstream(&html, &len);
	assert_non_null(f);
	html__device(f, back);
	assert_int_equal(fclose(f), 0);
	json_decref(a);
	free(dev);
	free(back);
	return html;
}

static void has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" not in:\n%s", part, text);
}

/* report and compare --html of a saved result say what the backend offered. */
static void test_xen_html_facts(void **state)
{
	char *html;

	(void)state;
	html = saved_xen_facts("xen-seg32", "blkback");
	has(html, "<tr><th>xen backend offers</th><td>256 indirect segments</td></tr>");
	has(html, "<tr><th>xen segments in effect</th><td>32: max_indirect_segments=32, within "
		  "the 256 the backend offers, so requests of 128 KiB at most</td></tr>");
	has(html, "<tr><th>xen queues and ring</th><td>2 x 1 page (32 requests each)</td></tr>");
	has(html, "<tr><th>persistent grants</th><td>on; bounce buffer: data copied through "
		  "granted pages</td></tr>");
	has(html, "<tr><th>cache flush, discard</th><td>flush, on</td></tr>");
	free(html);
	html = saved_xen_facts("xen-backend-limited", "tapdisk");
	has(html, "<tr><th>xen backend offers</th><td>no indirect descriptors</td></tr>");
	has(html, "<tr><th>xen segments in effect</th><td>11: the backend offers no indirect "
		  "descriptors (as XCP-ng&#39;s tapdisk does), so requests of 44 KiB at "
		  "most</td></tr>");
	free(html);
	html = saved_xen_facts("xen-seg32", "nonexistent");
	has(html, "<tr><th>xenstore</th><td>not read: ");
	has(html, "nonexistent.txt: No such file or directory</td></tr>");
	assert_null(strstr(html, "xen backend offers"));
	free(html);
}

static void fill_block(struct block_stats *b, unsigned int kib, unsigned int n)
{
	unsigned int i;

	b->c.requests[BLKIO_OP_WRITE] = n;
	b->c.bytes[BLKIO_OP_WRITE] = (__u64)n * kib * 1024;
	b->c.requests[BLKIO_OP_READ] = 3;
	b->c.bytes[BLKIO_OP_READ] = 3 * 4096;
	b->c.requests[BLKIO_OP_FLUSH] = 2;
	b->c.splits = n / 2;
	b->c.merges = 7;
	b->size[BLKIO_SIZE_WRITE][hist_size_index(kib * 1024)] = n;
	b->size[BLKIO_SIZE_READ][hist_size_index(4096)] = 3;
	b->size[BLKIO_SIZE_SEGMENT][hist_size_index(4096)] = (__u64)n * kib / 4 + 3;
	b->count[BLKIO_COUNT_SEGMENTS][kib / 4] = n;
	b->count[BLKIO_COUNT_SEGMENTS][1] = 3;
	b->c.sum_segments = (__u64)n * (kib / 4) + 3;
	b->c.data_requests = n + 3;
	b->count[BLKIO_COUNT_DEPTH][1] = n;
	b->count[BLKIO_COUNT_DEPTH][2] = 3;
	b->c.sum_depth = n + 6;
	b->max.depth = 2;
	b->max.segments = kib / 4;
	b->max.bytes = kib * 1024;
	for (i = 0; i < BLKIO_NR_LATS; i++) {
		b->lat[i][hist_lat_index(1000 * (i + 1))] = n;
		b->lat[i][hist_lat_index(250000)] = 3;
		b->c.sum_ns[i] = (__u64)n * 1000 * (i + 1) + 3 * 250123;
		b->c.nr_ns[i] = n + 3;
		b->max.ns[i] = 250123;
	}
}

/* What xen-blkfront's probes count: n requests of 32 grants, indirect, on ring 0. */
static void fill_ring(struct blkfront_counts *r, unsigned int n)
{
	r->requests = n + 2;
	r->indirect = n;
	r->no_data = 2;
	r->grants = 32ull * n;
	r->indirect_pages = n;
	r->copied_grants = 7;
	r->fulls = 3;
	r->full_ns = 12345678;
	r->full_stops = 1;
	r->waits = 1;
	r->wait_ns = 4321;
	r->grants_indirect[hist_count_index(32)] = n;
	r->occupancy[hist_count_index(32)] = 3;
	r->occupancy[hist_count_index(5)] = n - 1;
	r->occupancy_sum = 3 * 32 + 5 * (n - 1);
	r->backend_lat[hist_lat_index(250000)] = n;
	r->backend_ns = 250000ull * n + 17;
	r->backend_n = n;
	r->ring[0] = (struct blkfront_ring_counts){ n + 2, 250000ull * n + 17, n, 1, 12345678 };
}

/* A --set sweep (two values, two repetitions each) and a passive run with intervals. */
static void make_result(struct result *res, char *root)
{
	static const unsigned int kib[] = { 44, 44, 128, 128 };
	struct diag d = {};
	struct run *r;
	unsigned int i;

	snprintf(res->tool_version, sizeof(res->tool_version), "0.1.0-test");
	snprintf(res->command_line, sizeof(res->command_line), "blktrace-bench --trace xvda <&>");
	snprintf(res->host.kernel, sizeof(res->host.kernel), "6.18.0");
	snprintf(res->tracer_flavour, sizeof(res->tracer_flavour), "tp_btf");
	res->has_skipped = true;
	res->tracer_skipped = 7;
	snprintf(res->ring_probes, sizeof(res->ring_probes), "fentry");
	snprintf(root, PATH_MAX + 64, "%s/xen-seg32", fixtures);
	if (device__resolve(root, "xvda", &res->device, &d))
		fail_msg("xvda: %s", d.msg);
	res->has_device = true;
	for (i = 0; i < 4; i++) {
		r = result__add_run(res, true, true);
		assert_non_null(r);
		snprintf(r->label, sizeof(r->label), "max_sectors_kb=%u write bs=1 MiB", kib[i]);
		snprintf(r->params.rw, sizeof(r->params.rw), "write");
		snprintf(r->params.engine, sizeof(r->params.engine), "psync");
		r->params.bs = 1 << 20;
		r->params.size = 64 << 20;
		r->params.fsync = true;
		snprintf(r->params.set_knob, sizeof(r->params.set_knob), "max_sectors_kb");
		snprintf(r->params.set_value, sizeof(r->params.set_value), "%u", kib[i]);
		r->repetition = i % 2;
		r->seconds = 0.25 + i;
		r->has_limits = true;
		r->limits = res->device.limits;
		r->limits.max_sectors_kb = kib[i];
		fill_block(r->block, kib[i], 1000 + 10 * i);
		fill_ring(&r->block->ring, 100 + i);
		r->app->bytes = 64 << 20;
		r->app->ios = 64;
		r->app->ns = 123456789 + i * 1000;
		r->app->lat[hist_lat_index(2000000)] = 64;
		r->app->lat_sum_ns = 64 * 2000000 + i;
		r->app->lat_max_ns = 2000100;
		r->app->registered_bufs = i == 1;
	}
	r = result__add_run(res, true, false);
	assert_non_null(r);
	snprintf(r->label, sizeof(r->label), "passive");
	r->seconds = 3;
	fill_block(r->block, 4, 500);
	for (i = 0; i < 3; i++) {
		struct interval_sample s = { .start = i,
					     .seconds = 1,
					     .requests = 100 + i,
					     .bytes = 409600 * (i + 1),
					     .depth_mean = 1.5,
					     .depth_max = 3,
					     .p99_ns = { 1000, 2000.5, 3000 } };

		assert_int_equal(run__add_interval(r, &s), 0);
	}
}

/* a and b, two documents, are the same text; else where they differ. */
static void assert_same_text(const char *a, const char *b)
{
	size_t i;

	if (!strcmp(a, b))
		return;
	for (i = 0; a[i] == b[i]; i++)
		;
	fail_msg("the documents differ at byte %zu:\n...%.200s\n...%.200s", i,
		 a + (i > 100 ? i - 100 : 0), b + (i > 100 ? i - 100 : 0));
}

/* The ring's part of a run, as text and as a page: what fill_ring counted. */
static void ring_printed(const struct report *rep)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	report_text__print(f, rep, false);
	fclose(f);
	has(text, "  xen-blkfront ring (fentry): 102 requests: 0 direct, 100 indirect, 2 without "
		  "data\n");
	has(text, "  grants (indir.)       32.00         32         32  (+100 indirect pages)\n");
	has(text,
	    "  ring full 3 times, 4.9% of the time; turned away by the driver: 1 (ring full), "
	    "0 (no grants); they waited 4.32 us on average\n");
	has(text, "  copied through granted pages: 7 grants (28 KiB)\n");
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	report_html__print(f, rep, "t.json");
	fclose(f);
	has(text,
	    "<h3>xen-blkfront ring</h3>\n<p>102 requests on the ring (fentry probes): 0 direct, "
	    "100 indirect (100 descriptor pages), 2 without data; ring full 3 times");
	has(text, "<tr><td>grants (indirect)</td><td>32.00</td><td>32</td><td>32</td></tr>");
	free(text);
}

static void test_result_round_trip(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	struct saved_result *sr = calloc(1, sizeof(*sr));
	char root[PATH_MAX + 64], *a, *b;
	struct diag d = {};
	struct report rep;

	(void)state;
	assert_non_null(res);
	assert_non_null(sr);
	make_result(res, root);
	a = result_text(res, true);
	if (result_read__buffer("t.json", a, strlen(a), sr, &d))
		fail_msg("%s", d.msg);
	assert_true(sr->recommend);
	assert_int_equal(sr->res.nr_runs, 5);
	assert_int_equal(sr->loaded.nr_runs, 5);
	assert_int_equal(sr->res.runs[4].nr_intervals, 3);
	assert_true(sr->res.has_skipped);
	assert_int_equal(sr->res.tracer_skipped, 7);
	/* The ring's counts come back as they were, word for word. */
	assert_string_equal(sr->res.ring_probes, "fentry");
	assert_memory_equal(&sr->res.runs[1].block->ring, &res->runs[1].block->ring,
			    sizeof(struct blkfront_counts));
	assert_int_equal(sr->res.runs[4].block->ring.requests, 0);
	b = result_text(&sr->res, sr->recommend);
	assert_same_text(a, b);
	/* The findings are there to compare: recomputed from the rebuilt runs. */
	assert_int_equal(report__build(&rep, &sr->res, true), 0);
	ring_printed(&rep);
	assert_true(rep.runs[0].nr_findings > 0);
	assert_non_null(strstr(rep.runs[0].findings[0].text, "44 KiB"));
	assert_int_equal(rep.rec.nr, 1);
	report__free(&rep);
	free(a);
	free(b);
	result_read__free(sr);
	result__free(res);
	free(res);
	free(sr);
}

/* doc (a result's text) with its first "from" replaced by "to", read back: d. */
static int read_edited(const char *doc, const char *from, const char *to, struct diag *d)
{
	const char *at = strstr(doc, from);
	struct saved_result sr;
	size_t n = strlen(doc) + strlen(to) + 1;
	char *s = malloc(n);
	int ret;

	assert_non_null(at);
	assert_non_null(s);
	snprintf(s, n, "%.*s%s%s", (int)(at - doc), doc, to, at + strlen(from));
	memset(d, 0, sizeof(*d));
	ret = result_read__buffer("r.json", s, strlen(s), &sr, d);
	if (!ret)
		result_read__free(&sr);
	free(s);
	return ret;
}

static void test_errors_named(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	char root[PATH_MAX + 64], *doc;
	struct diag d;

	(void)state;
	assert_non_null(res);
	make_result(res, root);
	doc = result_text(res, false);
	assert_int_equal(read_edited(doc, "\"repetition\": 0", "\"repetition\": \"x\"", &d),
			 -EINVAL);
	assert_true(d.usage);
	assert_string_equal(d.msg, "r.json: runs[0].repetition is a string, not an integer 0 or "
				   "more");
	assert_int_not_equal(read_edited(doc, "\"device_ns\": {",
					 "\"device_ns\": {\"buckets\": "
					 "[{\"lo\": 3, \"hi\": 7, \"count\": 1}]}, "
					 "\"device_ns_was\": {",
					 &d),
			     0);
	if (!strstr(d.msg, "r.json: runs[0].block.device_ns.buckets[0]: [3, 7) is not a "
			   "bucket of this histogram"))
		fail_msg("%s", d.msg);
	assert_int_not_equal(
		read_edited(doc, "\"queue_depth_mean\": 1.5", "\"queue_depth_mean\": -1", &d), 0);
	assert_string_equal(d.msg, "r.json: runs[4].intervals[0].queue_depth_mean is a number, "
				   "not a number 0 to 2^63");
	assert_int_not_equal(read_edited(doc, "\"driver\": \"vbd\"", "\"driver\": 3", &d), 0);
	assert_non_null(strstr(d.msg, "\"device.driver\" is a number, not a string"));
	/* A file without by_op: exact when one kind of operation ran, refused otherwise. */
	assert_int_not_equal(read_edited(doc, "\"by_op\"", "\"by_op_not\"", &d), 0);
	assert_non_null(strstr(d.msg, "runs[0].block.request_bytes has no \"by_op\""));
	/* A key with a newline is said on one line. */
	assert_int_not_equal(read_edited(doc, "\"repetition\": 0", "\"repetition\": \"x\\ny\"", &d),
			     0);
	assert_null(strchr(d.msg, '\n'));
	/* What xenstore said, checked as the rest. */
	assert_int_not_equal(
		read_edited(doc, "\"segments_reason\": null", "\"segments_reason\": \"bogus\"", &d),
		0);
	assert_string_equal(d.msg, "r.json: device.xen_blkfront.segments_reason is \"bogus\", not "
				   "a reason this tool writes");
	assert_int_not_equal(read_edited(doc, "\"backend\": null", "\"backend\": 3", &d), 0);
	assert_string_equal(d.msg,
			    "r.json: device.xen_blkfront.backend is a number, not an object");
	assert_int_not_equal(
		read_edited(doc, "\"bounce_buffer\": null", "\"bounce_buffer\": 1", &d), 0);
	assert_string_equal(d.msg, "r.json: device.xen_blkfront.bounce_buffer is a number, not a "
				   "boolean");
	assert_int_not_equal(read_edited(doc, "\"skipped_runs\": 7", "\"skipped_runs\": -7", &d),
			     0);
	assert_string_equal(d.msg,
			    "r.json: tracer.skipped_runs is a number, not an integer 0 or more");
	free(doc);
	result__free(res);
	free(res);
}

/* doc with "from" replaced by "to", read back: has_skipped and tracer_skipped. */
static void read_skipped(const char *doc, const char *from, const char *to, bool *has, uint64_t *n)
{
	const char *at = strstr(doc, from);
	struct saved_result sr;
	struct diag d = {};
	char *s;

	assert_non_null(at);
	assert_true(asprintf(&s, "%.*s%s%s", (int)(at - doc), doc, to, at + strlen(from)) > 0);
	if (result_read__buffer("r.json", s, strlen(s), &sr, &d))
		fail_msg("%s", d.msg);
	*has = sr.res.has_skipped;
	*n = sr.res.tracer_skipped;
	result_read__free(&sr);
	free(s);
}

/*
 * The runs the kernel skipped are "skipped_runs" (a count, apart from the reasons and the
 * per-action counts named "skipped" before); files that call them "skipped" still read.
 */
static void test_skipped_runs_named(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	char root[PATH_MAX + 64], *doc;
	uint64_t n;
	bool has;

	(void)state;
	assert_non_null(res);
	make_result(res, root);
	doc = result_text(res, true);
	assert_non_null(strstr(doc,
			       "\"tracer\": {\n    \"flavour\": \"tp_btf\",\n    "
			       "\"skipped_runs\": 7,\n    \"xen_ring_probes\": \"fentry\"\n  }"));
	read_skipped(doc, "\"skipped_runs\": 7", "\"skipped\": 9", &has, &n);
	assert_true(has);
	assert_int_equal(n, 9);
	read_skipped(doc, "\"skipped_runs\": 7", "\"skipped_runs\": 8", &has, &n);
	assert_true(has);
	assert_int_equal(n, 8);
	read_skipped(doc, ",\n    \"skipped_runs\": 7", "", &has, &n); /* older still */
	assert_false(has);
	assert_int_equal(n, 0);
	free(doc);
	result__free(res);
	free(res);
}

static void test_old_file_one_kind(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	struct saved_result sr;
	struct diag d = {};
	struct run *r;
	char *doc, *at;

	(void)state;
	assert_non_null(res);
	r = result__add_run(res, true, false);
	assert_non_null(r);
	snprintf(r->label, sizeof(r->label), "dd");
	r->block->c.requests[BLKIO_OP_WRITE] = 5;
	r->block->c.bytes[BLKIO_OP_WRITE] = 5 * 45056;
	r->block->size[BLKIO_SIZE_WRITE][hist_size_index(45056)] = 5;
	doc = result_text(res, false);
	at = strstr(doc, "\"by_op\"");
	assert_non_null(at);
	memcpy(at, "\"by_oq\"", 7);
	if (result_read__buffer("old.json", doc, strlen(doc), &sr, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(sr.res.runs[0].block->size[BLKIO_SIZE_WRITE][hist_size_index(45056)], 5);
	assert_int_equal(sr.res.runs[0].block->size[BLKIO_SIZE_READ][hist_size_index(45056)], 0);
	result_read__free(&sr);
	free(doc);
	result__free(res);
	free(res);
}

/*
 * md0 of the dm fixture (RAID1 over vdc and vdd) with a run of 64 writes of 1 MiB that
 * each mirror took as 256 KiB requests, vdc's max_sectors_kb set to 256 for the run, and
 * reads, 5/8 of their bytes from vdc.
 */
static void make_stack_result(struct result *res)
{
	char root[PATH_MAX + 8];
	struct diag d = {};
	struct stack st;
	struct run *r;

	snprintf(root, sizeof(root), "%s/dm", fixtures);
	if (device__resolve(root, "md0", &res->device, &d))
		fail_msg("md0: %s", d.msg);
	res->has_device = true;
	assert_int_equal(stack__discover(root, &res->device, &st, &d), 0);
	assert_int_equal(st.n, 2);
	res->layers = st.layers;
	res->nr_layers = st.n;
	snprintf(res->stack_top_kind, sizeof(res->stack_top_kind), "%s", st.top_kind);
	r = result__add_run(res, true, false);
	assert_non_null(r);
	snprintf(r->label, sizeof(r->label), "dd");
	r->seconds = 2;
	fill_block(&r->block[0], 1024, 64);
	fill_block(&r->block[1], 256, 256);
	fill_block(&r->block[2], 256, 256);
	r->block[1].c.bytes[BLKIO_OP_READ] = 20 << 20;
	r->block[2].c.bytes[BLKIO_OP_READ] = 12 << 20;
	/* As in a --set vdc:max_sectors_kb=256 sweep: every layer's limits in the run. */
	r->layer_limits = calloc(2, sizeof(*r->layer_limits));
	assert_non_null(r->layer_limits);
	r->layer_limits[0] = res->layers[0].dev.limits;
	r->layer_limits[1] = res->layers[1].dev.limits;
	r->layer_limits[0].max_sectors_kb = 256;
}

/* doc with its "stack" moved after "runs" (jansson keeps the order of insertion), read. */
static int stack_after_runs(const char *doc, struct diag *d)
{
	json_t *o = json_loads(doc, 0, NULL), *st;
	struct saved_result sr;
	char *s;
	int ret;

	assert_non_null(o);
	st = json_incref(json_object_get(o, "stack"));
	assert_non_null(st);
	json_object_del(o, "stack");
	json_object_set_new(o, "stack", st);
	s = json_dumps(o, DUMP_FLAGS);
	assert_non_null(s);
	assert_true(strstr(s, "\"stack\"") > strstr(s, "\"runs\""));
	memset(d, 0, sizeof(*d));
	ret = result_read__buffer("late.json", s, strlen(s), &sr, d);
	if (!ret)
		result_read__free(&sr);
	free(s);
	json_decref(o);
	return ret;
}

static void test_stack_round_trip(void **state)
{
	struct result *res = calloc(1, sizeof(*res));
	const struct finding *f;
	struct saved_result sr;
	struct diag d = {};
	struct report rep;
	char *a, *b;

	(void)state;
	assert_non_null(res);
	make_stack_result(res);
	a = result_text(res, false);
	if (result_read__buffer("s.json", a, strlen(a), &sr, &d))
		fail_msg("%s", d.msg);
	assert_int_equal(sr.res.nr_layers, 2);
	assert_string_equal(sr.res.layers[1].dev.name, "vdd");
	assert_int_equal(sr.res.layers[1].above, -1);
	assert_int_equal(sr.res.runs[0].block[2].c.bytes[BLKIO_OP_READ], 12 << 20);
	b = result_text(&sr.res, false);
	assert_same_text(a, b);
	/* The findings across layers come back with them: every byte written twice. */
	assert_int_equal(report__build(&rep, &sr.res, false), 0);
	assert_int_equal(rep.runs[0].nr_layers, 2);
	assert_true(rep.runs[0].layers[1].bytes_per_above > 0.99);
	assert_true(rep.runs[0].nr_findings > 0);
	f = &rep.runs[0].findings[rep.runs[0].nr_findings - 1];
	assert_string_equal(f->kind, "layer_write");
	assert_non_null(strstr(f->text, "became 128 MiB (2.00x) in 512 requests of 256 KiB"));
	assert_non_null(strstr(f->text, "at vdc's max_sectors_kb (256)"));
	assert_int_equal(sr.res.runs[0].layer_limits[0].max_sectors_kb, 256);
	report__free(&rep);
	free(b);
	result_read__free(&sr);
	/* A layer of a run that is none of the stack, and a stack after the runs. */
	assert_int_not_equal(read_edited(a, "\"device\": \"vdd\"", "\"device\": \"vde\"", &d), 0);
	assert_string_equal(d.msg, "r.json: runs[0].layers[1].device \"vde\" is no layer of the "
				   "stack");
	assert_int_not_equal(read_edited(a, "\"above\": \"md0\"", "\"above\": \"vdx\"", &d), 0);
	assert_string_equal(d.msg, "r.json: stack.layers[0].above \"vdx\" is neither the device "
				   "nor a layer before it");
	assert_int_not_equal(read_edited(a, "\"level\": 1", "\"level\": 4294967297", &d), 0);
	assert_string_equal(d.msg, "r.json: stack.layers[0].level 4294967297 is not 1 to 8");
	assert_int_equal(stack_after_runs(a, &d), -EINVAL);
	assert_string_equal(d.msg, "late.json: runs[0].layers: no \"stack\" before the runs "
				   "says what they are (we write it first)");
	free(a);
	result__free(res);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_round_trip), cmocka_unit_test(test_result_round_trip),
		cmocka_unit_test(test_errors_named),	  cmocka_unit_test(test_skipped_runs_named),
		cmocka_unit_test(test_old_file_one_kind), cmocka_unit_test(test_stack_round_trip),
		cmocka_unit_test(test_xen_html_facts),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
