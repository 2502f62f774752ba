// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Both sides of a Xen guest's disk: a guest's trace of xvda (the xen-seg32 fixture, its
 * ring probed) and dom0's of loop0 (the xen-dom0 fixture, serving xvda of domU "web1"),
 * paired by the virtual device number, summed, and where the time went; a pair of
 * different disks is refused, and so is anything but a guest and dom0.
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
#include "analysis/hypervisor.h"
#include "output/hypervisor_print.h"
#include "testutil.h"

static char fixtures[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures)) ? -1 : 0;
}

static void resolve(const char *tree, const char *xs, const char *spec, struct device *dev)
{
	char root[PATH_MAX + 64], file[PATH_MAX + 64];
	struct device_env env = { .sysfs_root = root };
	struct diag d = {};

	snprintf(root, sizeof(root), "%s/%s", fixtures, tree);
	env.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, xs);
	if (device__resolve_env(&env, spec, dev, &d))
		fail_msg("%s in %s: %s", spec, tree, d.msg);
}

/* n reads of kib KiB, queue and device time each, in one run of seconds. */
static void add_run(struct result *res, unsigned int n, unsigned int kib, __u64 queue_ns,
		    __u64 device_ns, double seconds)
{
	struct run *r = result__add_run(res, true, false);
	struct block_stats *b;

	assert_non_null(r);
	r->seconds = seconds;
	b = r->block;
	b->c.requests[BLKIO_OP_READ] = n;
	b->c.bytes[BLKIO_OP_READ] = (__u64)n * kib * 1024;
	b->size[BLKIO_SIZE_READ][hist_size_index(kib * 1024)] = n;
	b->count[BLKIO_COUNT_SEGMENTS][kib / 4] = n;
	b->c.sum_segments = (__u64)n * (kib / 4);
	b->c.data_requests = n;
	b->count[BLKIO_COUNT_DEPTH][1] = n;
	b->c.sum_depth = n;
	b->lat[BLKIO_LAT_QUEUE][hist_lat_index(queue_ns)] = n;
	b->c.sum_ns[BLKIO_LAT_QUEUE] = n * queue_ns;
	b->lat[BLKIO_LAT_DEVICE][hist_lat_index(device_ns)] = n;
	b->c.sum_ns[BLKIO_LAT_DEVICE] = n * device_ns;
	b->max.bytes = kib * 1024;
	b->max.segments = kib / 4;
}

static void guest_and_host(struct result *g, struct result *h, unsigned int host_kib)
{
	resolve("xen-seg32", "blkback", "xvda", &g->device);
	g->has_device = true;
	snprintf(g->ring_probes, sizeof(g->ring_probes), "fentry");
	add_run(g, 256, 128, 10000, 2000000, 1.5);
	g->runs[0].block->ring.requests = 256;
	g->runs[0].block->ring.indirect = 256;
	g->runs[0].block->ring.occupancy[1] = 256;
	g->runs[0].block->ring.occupancy_sum = 256;
	g->runs[0].block->ring.backend_lat[hist_lat_index(1800000)] = 256;
	g->runs[0].block->ring.backend_ns = 256 * 1800000ULL;
	resolve("xen-dom0", "dom0", "loop0", &h->device);
	h->has_device = true;
	add_run(h, 256 * 128 / host_kib, host_kib, 5000, 1500000, 1.6);
}

static void test_one_for_one(void **state)
{
	struct result g = {}, h = {};
	struct hv_link l;
	bool guest_first = false;
	char why[256] = "", *text = NULL;
	size_t len = 0;
	FILE *f;
	json_t *doc;

	(void)state;
	guest_and_host(&g, &h, 128);
	assert_int_equal(hv_link__pair(&h, &g, &guest_first, why, sizeof(why)), 1);
	assert_false(guest_first);
	assert_int_equal(hv_link__pair(&g, &h, &guest_first, why, sizeof(why)), 1);
	assert_true(guest_first);
	assert_int_equal(hv_link__build(&l, &g, "guest.json", &h, "dom0.json"), 0);
	assert_true(l.split > 0.999 && l.split < 1.001);
	assert_true(l.bytes_ratio > 0.999 && l.bytes_ratio < 1.001);
	/* 1.8 ms on the ring = 5 us dom0's queue + 1.5 ms its device + ~295 us the rest. */
	assert_true(l.time.backend > 1.79e6 && l.time.backend < 1.81e6);
	assert_true(l.time.backend_rest > 0.28e6 && l.time.backend_rest < 0.31e6);
	assert_true(l.time.guest_completion > 0.19e6 && l.time.guest_completion < 0.21e6);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	hypervisor_print__text(f, &l);
	fclose(f);
	if (getenv("SHOW"))
		fputs(text, stderr);
	assert_non_null(strstr(text,
			       "xvda in the guest (guest.json) and loop0 in dom0 (dom0.json), "
			       "which serves it as xvda of domU \"web1\" (domid 3)"));
	assert_non_null(
		strstr(text, "dom0 saw 1.00x the guest's bytes, in 1.00 requests for each"));
	assert_non_null(strstr(text, "and blkback and the hypervisor the other"));
	free(text);
	doc = hypervisor_print__json(&l);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "kind")), "xen_guest_and_dom0");
	assert_string_equal(
		json_string_value(json_object_get(
			json_object_get(json_object_get(doc, "dom0"), "xen_guest"), "domain")),
		"web1");
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(json_object_get(doc, "guest"), "bytes"), "read")),
			 32 << 20);
	assert_true(json_is_real(json_object_get(json_object_get(doc, "time_ns"), "backend_rest")));
	json_decref(doc);
	hv_link__free(&l);
	result__free(&g);
	result__free(&h);
}

/* dom0 split each 128 KiB request in two: the means no longer add up, and it says so. */
static void test_split(void **state)
{
	struct result g = {}, h = {};
	struct hv_link l;

	(void)state;
	guest_and_host(&g, &h, 64);
	assert_int_equal(hv_link__build(&l, &g, "g", &h, "h"), 0);
	assert_true(l.split > 1.999 && l.split < 2.001);
	assert_true(l.bytes_ratio > 0.999 && l.bytes_ratio < 1.001);
	assert_true(l.time.backend_rest < 0);
	hv_link__free(&l);
	result__free(&g);
	result__free(&h);
}

static void test_not_a_pair(void **state)
{
	struct result g = {}, h = {};
	bool first;
	char why[256] = "";

	(void)state;
	guest_and_host(&g, &h, 128);
	/* Two guests, two dom0 traces: no pair. */
	assert_int_equal(hv_link__pair(&g, &g, &first, why, sizeof(why)), 0);
	assert_int_equal(hv_link__pair(&h, &h, &first, why, sizeof(why)), 0);
	/* dom0's disk serves another virtual device than the guest traced. */
	h.device.xen_guest.devid = 51728;
	assert_int_equal(hv_link__pair(&g, &h, &first, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the guest's xvda is virtual device 51712, but dom0's loop0 "
				 "serves 51728 (xvda)");
	result__free(&g);
	result__free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_for_one),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_not_a_pair),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
