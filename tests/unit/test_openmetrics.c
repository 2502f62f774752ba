// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The exposition (openmetrics.c) of a hand-made xen-blkfront disk at 11 segments: exact
 * counters; the le buckets against the kernel buckets (44 KiB requests alone above
 * le="45055", 11 segments alone in le="11", a latency on an edge counted above it, never
 * below); every bucket series cumulative; gauges of the limits and the xen state; the
 * two formats' differences; label escaping; content negotiation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/openmetrics.h"
#include "analysis/summary.h"

static struct device dev;
static struct block_stats b;

/* 100 writes of 44 KiB at 11 segments, 5 of 4 KiB at 1; depth 1; 100 us on the device. */
static void make_disk(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&b, 0, sizeof(b));
	strcpy(dev.name, "xvda");
	strcpy(dev.driver, "vbd");
	strcpy(dev.module, "xen_blkfront");
	dev.limits = (struct queue_limits){ .max_sectors_kb = 44,
					    .max_hw_sectors_kb = 44,
					    .max_segments = 11,
					    .max_segment_size = 4096,
					    .nr_requests = -1,
					    .read_ahead_kb = -1 };
	dev.xen = (struct xen_blkfront){ .present = true,
					 .max_indirect_segments = 32,
					 .segments = 11,
					 .indirect_descriptors = false,
					 .max_request_bytes = 45056,
					 .max_ring_page_order = -1,
					 .max_queues = -1,
					 .feature_persistent = -1,
					 .backend_limited = true };
	b.c.requests[BLKIO_OP_WRITE] = 105;
	b.c.bytes[BLKIO_OP_WRITE] = 100 * 45056 + 5 * 4096;
	b.c.requests[BLKIO_OP_FLUSH] = 3;
	b.c.splits = 7;
	b.c.completed = 105;
	b.size[BLKIO_SIZE_WRITE][hist_size_index(45056)] = 100;
	b.size[BLKIO_SIZE_WRITE][hist_size_index(4096)] = 5;
	b.count[BLKIO_COUNT_SEGMENTS][11] = 100;
	b.count[BLKIO_COUNT_SEGMENTS][1] = 5;
	b.c.sum_segments = 1105;
	b.count[BLKIO_COUNT_DEPTH][1] = 105;
	b.c.sum_depth = 105;
	b.lat[BLKIO_LAT_DEVICE][hist_lat_index(100000)] = 105;
	b.c.sum_ns[BLKIO_LAT_DEVICE] = 105 * 100000ULL;
}

static char *render(enum om_format fmt, uint64_t data_requests, uint64_t bound)
{
	struct om_disk disk = { .dev = &dev,
				.b = &b,
				.in_flight = 2,
				.data_requests = data_requests,
				.bound = { bound, bound },
				.live = true };
	struct om_self self = {
		.version = "9.9.9", .flavour = "tp_btf", .reloads = 4, .skipped = 6
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(openmetrics__write(f, fmt, &disk, 1, &self), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The value of the sample whose line starts with series, which must be there. */
static const char *value(const char *text, const char *series)
{
	static char v[64];
	const char *p = text;
	size_t len = strlen(series);

	while ((p = strstr(p, series))) {
		if ((p == text || p[-1] == '\n') && p[len] == ' ') {
			sscanf(p + len + 1, "%63s", v);
			return v;
		}
		p += len;
	}
	fail_msg("no sample %s", series);
	return NULL;
}

static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && (p[len] == '\n' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

#define S(name, rest) "blktrace_bench_" name "{device=\"xvda\",driver=\"vbd\"" rest "}"

static void test_counters_and_gauges(void **state)
{
	char *t;

	(void)state;
	make_disk();
	t = render(OM_TEXT_0_0_4, 105, 100);
	assert_string_equal(value(t, S("requests_total", ",op=\"write\"")), "105");
	assert_string_equal(value(t, S("requests_total", ",op=\"flush\"")), "3");
	assert_string_equal(value(t, S("bytes_total", ",op=\"write\"")), "4526080");
	assert_string_equal(value(t, S("splits_total", "")), "7");
	assert_string_equal(value(t, S("lost_events_total", ",kind=\"completion\"")), "0");
	assert_string_equal(value(t, S("in_flight", "")), "2");
	assert_string_equal(value(t, S("limit_max_sectors_bytes", "")), "45056");
	assert_string_equal(value(t, S("limit_max_segments", "")), "11");
	/* max_sectors_kb and 11 segments of 4 KiB agree: both named. */
	assert_string_equal(
		value(t, S("max_request_bytes", ",limit=\"max_sectors_kb+max_segments\"")),
		"45056");
	assert_string_equal(value(t, S("xen_blkfront_segments", "")), "11");
	assert_string_equal(value(t, S("xen_blkfront_indirect_descriptors", "")), "0");
	assert_string_equal(value(t, S("xen_blkfront_max_indirect_segments", "")), "32");
	assert_string_equal(value(t, S("xen_blkfront_backend_limited", "")), "1");
	assert_string_equal(value(t, S("limit_bound_requests_total", ",limit=\"max_segments\"")),
			    "100");
	assert_string_equal(value(t, S("limit_bound_ratio", ",limit=\"max_segments\"")),
			    "0.952380952380952");
	assert_string_equal(value(t, S("device_info", ",disk=\"xvda\",module=\"xen_blkfront\"")),
			    "1");
	assert_string_equal(value(t, "blktrace_bench_tracer_reloads_total"), "4");
	assert_string_equal(value(t, "blktrace_bench_tracer_skipped_runs_total"), "6");
	assert_string_equal(
		value(t, "blktrace_bench_build_info{version=\"9.9.9\",flavour=\"tp_btf\"}"), "1");
	/* A limit the kernel does not have is left out, not written as -1. */
	assert_null(strstr(t, "nr_requests"));
	free(t);
	/* No data request yet: no ratio to speak of. */
	t = render(OM_TEXT_0_0_4, 0, 0);
	assert_null(strstr(t, "blktrace_bench_limit_bound_ratio{"));
	free(t);
}

static void test_buckets(void **state)
{
	char *t;

	(void)state;
	make_disk();
	t = render(OM_TEXT_0_0_4, 105, 100);
	/* Sizes: the 4 KiB requests are not below 4 KiB (le="4095"), the 44 KiB ones alone
	 * above 44. */
	assert_string_equal(value(t, S("request_bytes_bucket", ",op=\"write\",le=\"4095\"")), "0");
	assert_string_equal(value(t, S("request_bytes_bucket", ",op=\"write\",le=\"8191\"")), "5");
	assert_string_equal(value(t, S("request_bytes_bucket", ",op=\"write\",le=\"45055\"")), "5");
	assert_string_equal(value(t, S("request_bytes_bucket", ",op=\"write\",le=\"49151\"")),
			    "105");
	assert_string_equal(value(t, S("request_bytes_bucket", ",op=\"write\",le=\"+Inf\"")),
			    "105");
	assert_string_equal(value(t, S("request_bytes_count", ",op=\"write\"")), "105");
	assert_string_equal(value(t, S("request_bytes_sum", ",op=\"write\"")), "4526080");
	assert_string_equal(value(t, S("request_bytes_count", ",op=\"read\"")), "0");
	/* Segments: exact counts, 11 alone above 10. */
	assert_string_equal(value(t, S("request_segments_bucket", ",le=\"10\"")), "5");
	assert_string_equal(value(t, S("request_segments_bucket", ",le=\"11\"")), "105");
	assert_string_equal(value(t, S("request_segments_sum", "")), "1105");
	assert_string_equal(value(t, S("queue_depth_bucket", ",le=\"1\"")), "105");
	/*
	 * 100 us sits in the kernel bucket [99328, 100352) ns, which straddles the edge:
	 * counted above it, never below.
	 */
	assert_string_equal(value(t, S("latency_seconds_bucket", ",kind=\"device\",le=\"0.0001\"")),
			    "0");
	assert_string_equal(
		value(t, S("latency_seconds_bucket", ",kind=\"device\",le=\"0.00025\"")), "105");
	assert_string_equal(value(t, S("latency_seconds_sum", ",kind=\"device\"")), "0.0105");
	assert_string_equal(value(t, S("latency_seconds_count", ",kind=\"queue\"")), "0");
	free(t);
}

/* Every _bucket series ascends in le and in count and ends at +Inf == _count. */
static void test_cumulative(void **state)
{
	char prev_series[512] = "", series[512], le[64], *line, *save = NULL, *t;
	unsigned long long prev = 0, v;
	int nr = 0;

	(void)state;
	make_disk();
	t = render(OM_TEXT_0_0_4, 105, 100);
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(line, ",le=\"");

		if (line[0] == '#' || !at || !strstr(line, "_bucket{"))
			continue;
		snprintf(series, sizeof(series), "%.*s", (int)(at - line), line);
		assert_int_equal(sscanf(at, ",le=\"%63[^\"]\"} %llu", le, &v), 2);
		if (strcmp(series, prev_series))
			prev = 0;
		assert_true(v >= prev);
		prev = v;
		snprintf(prev_series, sizeof(prev_series), "%s", series);
		nr++;
	}
	/* 3 ops x 19 size edges, 16 segment, 14 depth, 3 x 20 latency. */
	assert_int_equal(nr, 3 * 19 + 16 + 14 + 3 * 20);
	free(t);
}

static void test_formats(void **state)
{
	char *text, *om;

	(void)state;
	make_disk();
	text = render(OM_TEXT_0_0_4, 105, 100);
	om = render(OM_OPENMETRICS_1, 105, 100);
	assert_true(has_line(text, "# TYPE blktrace_bench_requests_total counter"));
	assert_true(has_line(om, "# TYPE blktrace_bench_requests counter"));
	assert_true(has_line(om, "# UNIT blktrace_bench_bytes bytes"));
	assert_true(has_line(om, "# UNIT blktrace_bench_latency_seconds seconds"));
	assert_null(strstr(text, "# UNIT"));
	assert_true(has_line(text, "# TYPE blktrace_bench_device_info gauge"));
	assert_true(has_line(om, "# TYPE blktrace_bench_device info"));
	assert_null(strstr(text, "# EOF"));
	assert_string_equal(om + strlen(om) - 6, "# EOF\n");
	/* The samples are the same. */
	assert_string_equal(value(om, S("requests_total", ",op=\"write\"")), "105");
	free(text);
	free(om);
}

/* The sample names a family of type may have in fmt (OpenMetrics 1.0, "Metric types"). */
static bool sample_of(enum om_format fmt, const char *family, const char *type, const char *sample)
{
	static const char *const hist[] = { "_bucket", "_count", "_sum", "_created" };
	size_t len = strlen(family), i;
	const char *rest = sample + len;

	if (strncmp(sample, family, len))
		return false;
	if (!strcmp(type, "histogram")) {
		for (i = 0; i < sizeof(hist) / sizeof(hist[0]); i++)
			if (!strcmp(rest, hist[i]))
				return true;
		return false;
	}
	if (fmt == OM_TEXT_0_0_4) /* the family is named by its samples */
		return !*rest;
	if (!strcmp(type, "counter"))
		return !strcmp(rest, "_total") || !strcmp(rest, "_created");
	if (!strcmp(type, "info"))
		return !strcmp(rest, "_info");
	return !*rest;
}

/*
 * Every sample belongs to the family above it, named as its type wants; what counts events
 * since tracing began is a counter in both formats (NAME_total in 0.0.4), nothing else is.
 */
static void check_types(enum om_format fmt)
{
	static const char *const counters[] = {
		"requests",
		"bytes",
		"bio_merges",
		"request_merges",
		"splits",
		"requeues",
		"errors",
		"completions",
		"untracked_completions",
		"lost_events",
		"data_requests",
		"limit_bound_requests",
		"tracer_reloads",
		"tracer_reload_failures",
		"tracer_skipped_runs",
	};
	char family[128] = "", type[32] = "", sample[128], want[160], *t, *line, *save = NULL;
	size_t i, nr_counters = 0;

	make_disk();
	t = render(fmt, 105, 100);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		snprintf(want, sizeof(want), "# TYPE blktrace_bench_%s%s counter", counters[i],
			 fmt == OM_TEXT_0_0_4 ? "_total" : "");
		if (!has_line(t, want))
			fail_msg("no \"%s\"", want);
	}
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "# TYPE %127s %31s", family, type) == 2) {
			nr_counters += !strcmp(type, "counter");
			continue;
		}
		if (line[0] == '#')
			continue;
		snprintf(sample, sizeof(sample), "%.*s", (int)strcspn(line, "{ "), line);
		if (!sample_of(fmt, family, type, sample))
			fail_msg("%s: a sample of %s, of type %s", sample, family, type);
	}
	assert_int_equal(nr_counters, sizeof(counters) / sizeof(counters[0]));
	free(t);
}

static char *render_one(enum om_format fmt, const struct om_disk *disk)
{
	struct om_self self = { .version = "9.9.9", .flavour = "tp_btf" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(openmetrics__write(f, fmt, disk, 1, &self), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The ring's families for a probed xen-blkfront disk, none for a disk not probed. */
static void test_ring_families(void **state)
{
	struct om_disk disk = { .dev = &dev, .b = &b, .live = true, .ring = true };
	char *t;

	(void)state;
	make_disk();
	b.ring.requests = 102;
	b.ring.direct = 100;
	b.ring.no_data = 2;
	b.ring.grants = 1100;
	b.ring.copied_grants = 40;
	b.ring.fulls = 3;
	b.ring.full_ns = 1500000000;
	b.ring.grant_stops = 1;
	b.ring.occupancy[hist_count_index(32)] = 2;
	b.ring.occupancy[hist_count_index(1)] = 100;
	b.ring.occupancy_sum = 164;
	b.ring.backend_lat[hist_lat_index(200000)] = 100;
	b.ring.backend_ns = 100 * 200000ULL;
	t = render_one(OM_TEXT_0_0_4, &disk);
	assert_string_equal(value(t, S("xen_ring_requests_total", ",kind=\"direct\"")), "100");
	assert_string_equal(value(t, S("xen_ring_requests_total", ",kind=\"indirect\"")), "0");
	assert_string_equal(value(t, S("xen_ring_requests_total", ",kind=\"no_data\"")), "2");
	assert_string_equal(value(t, S("xen_ring_grants_total", ",kind=\"data\"")), "1100");
	assert_string_equal(value(t, S("xen_ring_grants_total", ",kind=\"copied\"")), "40");
	assert_string_equal(value(t, S("xen_ring_fulls_total", "")), "3");
	assert_string_equal(value(t, S("xen_ring_full_seconds_total", "")), "1.5");
	assert_string_equal(value(t, S("xen_ring_turned_away_total", ",reason=\"no_grants\"")),
			    "1");
	assert_string_equal(value(t, S("xen_ring_slots_in_use_bucket", ",le=\"16\"")), "100");
	assert_string_equal(value(t, S("xen_ring_slots_in_use_bucket", ",le=\"32\"")), "102");
	assert_string_equal(value(t, S("xen_ring_slots_in_use_sum", "")), "164");
	assert_string_equal(value(t, S("xen_ring_backend_seconds_count", "")), "100");
	assert_string_equal(value(t, S("xen_ring_backend_seconds_sum", "")), "0.02");
	free(t);
	disk.ring = false;
	t = render_one(OM_TEXT_0_0_4, &disk);
	assert_null(strstr(t, "xen_ring"));
	free(t);
}

/* dom0: a disk blkback serves to a guest carries the guest's name and virtual disk. */
static void test_guest_labels(void **state)
{
	struct om_disk disk = { .dev = &dev, .b = &b, .live = true };
	char *t;

	(void)state;
	make_disk();
	strcpy(dev.name, "loop0");
	strcpy(dev.driver, "loop");
	dev.xen.present = false;
	dev.xen_guest = (struct xen_guest_disk){ .present = true, .domid = 3, .devid = 51712 };
	strcpy(dev.xen_guest.vdev, "xvda");
	strcpy(dev.xen_guest.domain, "web1");
	t = render_one(OM_TEXT_0_0_4, &disk);
	assert_true(has_line(t,
			     "blktrace_bench_up{device=\"loop0\",driver=\"loop\",domain=\"web1\","
			     "vdev=\"xvda\"} 1"));
	assert_string_equal(value(t,
				  "blktrace_bench_requests_total{device=\"loop0\",driver=\"loop\","
				  "domain=\"web1\",vdev=\"xvda\",op=\"write\"}"),
			    "105");
	free(t);
}

static void test_family_types(void **state)
{
	(void)state;
	check_types(OM_TEXT_0_0_4);
	check_types(OM_OPENMETRICS_1);
}

/* A disk whose figures stand still and one named but not traced: up 0 each, as the
 * exporter hands them over after a failed reload; _created only in OpenMetrics. */
static char *render_stale(enum om_format fmt)
{
	struct device pending = dev;
	struct om_disk disk = { .dev = &dev, .b = &b, .live = false, .created = 1700000000.25 };
	struct om_self self = { .version = "9.9.9",
				.flavour = "tp_btf",
				.reloads = 4,
				.reload_failures = 3,
				.created = 1600000000.5,
				.untraced = &pending,
				.nr_untraced = 1 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	strcpy(pending.name, "xvdb");
	assert_non_null(f);
	assert_int_equal(openmetrics__write(f, fmt, &disk, 1, &self), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_up_and_created(void **state)
{
	char *t, *om;

	(void)state;
	make_disk();
	t = render(OM_TEXT_0_0_4, 105, 100);
	assert_string_equal(value(t, S("up", "")), "1");
	assert_string_equal(value(t, "blktrace_bench_traced_devices"), "1");
	assert_null(strstr(t, "_created"));
	free(t);
	t = render_stale(OM_TEXT_0_0_4);
	assert_string_equal(value(t, S("up", "")), "0");
	assert_string_equal(value(t, "blktrace_bench_up{device=\"xvdb\",driver=\"vbd\"}"), "0");
	/* The named disk has no figures to show, only its up. */
	assert_null(strstr(t, "requests_total{device=\"xvdb\""));
	assert_string_equal(value(t, "blktrace_bench_traced_devices"), "0");
	assert_string_equal(value(t, "blktrace_bench_tracer_reload_failures_total"), "3");
	assert_null(strstr(t, "_created"));
	free(t);
	om = render_stale(OM_OPENMETRICS_1);
	/* Each counter's and histogram's series, then when it began. */
	assert_non_null(
		strstr(om, S("requests_total", ",op=\"write\"") " 105\n" S(
				   "requests_created", ",op=\"write\"") " 1700000000.250\n"));
	assert_non_null(
		strstr(om, S("request_bytes_count", ",op=\"write\"") " 105\n" S(
				   "request_bytes_created", ",op=\"write\"") " 1700000000.250\n"));
	assert_string_equal(value(om, S("limit_bound_requests_created", ",limit=\"max_segments\"")),
			    "1700000000.250");
	assert_string_equal(value(om, "blktrace_bench_tracer_reload_failures_created"),
			    "1600000000.500");
	/* Gauges have none. */
	assert_null(strstr(om, "in_flight_created"));
	assert_null(strstr(om, "up_created"));
	free(om);
}

static void test_escaping(void **state)
{
	char *t;

	(void)state;
	make_disk();
	strcpy(dev.name, "a\"b\\c\nd");
	t = render(OM_TEXT_0_0_4, 0, 0);
	assert_non_null(strstr(t, "{device=\"a\\\"b\\\\c\\nd\",driver=\"vbd\",op=\"write\"} 105"));
	free(t);
}

static void test_negotiate(void **state)
{
	(void)state;
	/* What Prometheus 2.x sends. */
	assert_int_equal(openmetrics__negotiate("application/openmetrics-text;version=1.0.0,"
						"application/openmetrics-text;version=0.0.1;"
						"q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
			 OM_OPENMETRICS_1);
	assert_int_equal(openmetrics__negotiate("text/plain;version=0.0.4;q=0.5, "
						"Application/OpenMetrics-Text; version=1.0.0"),
			 OM_OPENMETRICS_1);
	assert_int_equal(openmetrics__negotiate(NULL), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate(""), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate("*/*"), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate("text/plain"), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate("application/openmetrics-text;q=0"), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate("application/openmetrics-text; q=0.0"),
			 OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate("application/openmetrics-textual"), OM_TEXT_0_0_4);
	/* What a client may send instead of a header (found by make fuzz: ";" crashed it). */
	assert_int_equal(openmetrics__negotiate(";"), OM_TEXT_0_0_4);
	assert_int_equal(openmetrics__negotiate(",;, application/openmetrics-text"),
			 OM_OPENMETRICS_1);
	assert_string_equal(openmetrics__content_type(OM_OPENMETRICS_1),
			    "application/openmetrics-text; version=1.0.0; charset=utf-8");
	assert_string_equal(openmetrics__content_type(OM_TEXT_0_0_4),
			    "text/plain; version=0.0.4; charset=utf-8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters_and_gauges), cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_cumulative),	    cmocka_unit_test(test_formats),
		cmocka_unit_test(test_family_types),	    cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_negotiate),	    cmocka_unit_test(test_ring_families),
		cmocka_unit_test(test_guest_labels),	    cmocka_unit_test(test_up_and_created),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
