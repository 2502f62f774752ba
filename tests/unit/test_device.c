// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The device model against the sysfs fixture trees in tests/fixtures/sysfs (see its README),
 * a scratch tree for the writable parts, and, when this machine has one, a real disk.
 * Runs from the repository root; BLKTRACE_BENCH_FIXTURES overrides where the trees are.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "disk/device.h"
#include "base/diag.h"
#include "testutil.h"

static char fixtures[PATH_MAX];

static int find_fixtures(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures));
}

/* The sysfs root the next resolve reads. */
static char root[PATH_MAX];

static void use_root(const char *dir)
{
	assert_true(snprintf(root, sizeof(root), "%s", dir) < (int)sizeof(root));
}

static void use_fixture(const char *name)
{
	assert_true(snprintf(root, sizeof(root), "%s/%s", fixtures, name) < (int)sizeof(root));
	assert_true(test_is_dir(root));
}

/* struct device is large: keep it off the test's stack. */
static struct device *resolve_ok(const char *fixture, const char *spec)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct diag d = {};
	int ret;

	assert_non_null(dev);
	use_fixture(fixture);
	ret = device__resolve(root, spec, dev, &d);
	if (ret)
		fail_msg("%s in %s: %d (%s)", spec, fixture, ret, d.msg);
	/* Success says nothing. */
	assert_int_equal(d.err, 0);
	assert_string_equal(d.msg, "");
	return dev;
}

static int resolve_err(const char *spec, struct diag *d)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	int ret;

	assert_non_null(dev);
	memset(dev, 0xa5, sizeof(*dev));
	ret = device__resolve(root, spec, dev, d);
	/* What d says is what was returned. */
	if (d)
		assert_int_equal(d->err, ret);
	/* A failed resolve leaves nothing half-filled behind. */
	assert_string_equal(dev->name, "");
	assert_string_equal(dev->sysfs_path, "");
	assert_int_equal(dev->major, 0);
	test_free(dev);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void check_limits(const struct queue_limits *got, const struct queue_limits *want)
{
	assert_int_equal(got->max_sectors_kb, want->max_sectors_kb);
	assert_int_equal(got->max_hw_sectors_kb, want->max_hw_sectors_kb);
	assert_int_equal(got->max_segments, want->max_segments);
	assert_int_equal(got->max_segment_size, want->max_segment_size);
	assert_int_equal(got->nr_requests, want->nr_requests);
	assert_int_equal(got->read_ahead_kb, want->read_ahead_kb);
	assert_int_equal(got->logical_block_size, want->logical_block_size);
	assert_int_equal(got->physical_block_size, want->physical_block_size);
	assert_int_equal(got->wbt_lat_usec, want->wbt_lat_usec);
	assert_int_equal(got->nomerges, want->nomerges);
	assert_int_equal(got->rotational, want->rotational);
	assert_string_equal(got->scheduler, want->scheduler);
	assert_string_equal(got->write_cache, want->write_cache);
}

static void check_partition(const struct device_partition *p, const char *name, unsigned int maj,
			    unsigned int min, unsigned int number, uint64_t start, uint64_t sectors,
			    unsigned int holders)
{
	assert_string_equal(p->name, name);
	assert_int_equal(p->major, maj);
	assert_int_equal(p->minor, min);
	assert_int_equal(p->number, number);
	assert_int_equal(p->start, start);
	assert_int_equal(p->sectors, sectors);
	assert_int_equal(p->nr_holders, holders);
}

static void check_param(const struct device *dev, unsigned int i, const char *name,
			const char *value)
{
	assert_true(i < dev->nr_module_params);
	assert_string_equal(dev->module_params[i].name, name);
	assert_string_equal(dev->module_params[i].value, value);
}

static void check_no_driver_extras(const struct device *dev)
{
	assert_false(dev->virtio_blk.present);
	assert_false(dev->nvme.present);
	assert_false(dev->loop.present);
}

static void check_whole_disk(const struct device *dev)
{
	assert_string_equal(dev->part_name, "");
	assert_int_equal(dev->part_major, 0);
	assert_int_equal(dev->part_minor, 0);
	assert_int_equal(dev->part_start, 0);
	assert_int_equal(dev->part_sectors, 0);
}

/* The root is the caller's: none given is an error, not a default (env_config.c has it). */
static void test_sysfs_root(void **state)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct diag d = {};

	(void)state;
	assert_non_null(dev);
	assert_int_equal(device__resolve(NULL, "loop0", dev, &d), -EINVAL);
	assert_string_equal(d.msg, "no sysfs root given");
	test_free(dev);
}

/* What every xen-seg* tree shares: xvda behind vbd-51712 with one partition. */
static void check_xen_disk(const struct device *dev, const char *fixture)
{
	char suffix[128];

	assert_string_equal(dev->name, "xvda");
	assert_int_equal(dev->major, 202);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 20971520);
	assert_string_equal(dev->driver, "vbd");
	assert_string_equal(dev->module, "xen_blkfront");
	assert_int_equal(dev->nr_hw_queues, 2);
	assert_int_equal(dev->max_tags, 32);
	assert_false(dev->bio_based);
	assert_string_equal(dev->dm_name, "");
	assert_string_equal(dev->md_level, "");
	assert_int_equal(dev->scsi_queue_depth, -1);
	assert_int_equal(dev->nr_partitions, 1);
	check_partition(&dev->partitions[0], "xvda1", 202, 1, 1, 2048, 20969472, 0);
	assert_int_equal(dev->nr_slaves, 0);
	assert_int_equal(dev->nr_holders, 0);
	assert_true(dev->xen.present);
	assert_false(dev->xen.param_is_old_name);
	assert_string_equal(device__xen_param_name(&dev->xen),
			    "xen_blkfront.max_indirect_segments");
	assert_int_equal(dev->xen.max_queues, 4);
	check_no_driver_extras(dev);
	/* An absolute, resolved path inside the fixture. */
	snprintf(suffix, sizeof(suffix), "/%s/devices/vbd-51712/block/xvda", fixture);
	assert_true(dev->sysfs_path[0] == '/');
	assert_true(ends_with(dev->sysfs_path, suffix));
	assert_int_equal(dev->nr_module_params, 4);
}

static void check_xen_limits(const struct device *dev, int64_t segs, int64_t sectors_kb)
{
	const struct queue_limits want = {
		.max_sectors_kb = sectors_kb,
		.max_hw_sectors_kb = segs * 4,
		.max_segments = segs,
		.max_segment_size = 4096,
		.nr_requests = 64,
		.read_ahead_kb = 128,
		.logical_block_size = 512,
		.physical_block_size = 512,
		.wbt_lat_usec = 2000,
		.nomerges = 0,
		.rotational = 0,
		.scheduler = "none",
		.write_cache = "write back",
	};

	check_limits(&dev->limits, &want);
}

static void test_xen_seg32(void **state)
{
	struct device *dev = resolve_ok("xen-seg32", "xvda");
	unsigned int limits = 0;

	(void)state;
	check_whole_disk(dev);
	check_xen_limits(dev, 32, 128);
	check_param(dev, 0, "feature_persistent", "Y");
	check_param(dev, 1, "max_indirect_segments", "32");
	check_param(dev, 2, "max_queues", "4");
	check_param(dev, 3, "max_ring_page_order", "0");
	check_xen_disk(dev, "xen-seg32");
	assert_int_equal(dev->xen.max_indirect_segments, 32);
	assert_int_equal(dev->xen.segments, 32);
	assert_true(dev->xen.indirect_descriptors);
	assert_int_equal(dev->xen.max_request_bytes, 128 * 1024);
	assert_int_equal(dev->xen.max_ring_page_order, 0);
	assert_int_equal(dev->xen.feature_persistent, 1);
	assert_false(dev->xen.backend_limited);
	/* 32 x 4 KiB and max_sectors_kb agree: both set the 128 KiB cap. */
	assert_int_equal(device__max_request_bytes(dev, &limits), 128 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS | DEVICE_LIMIT_MAX_SEGMENTS);
	test_free(dev);
}

static void test_xen_seg11(void **state)
{
	struct device *dev = resolve_ok("xen-seg11", "xvda");

	(void)state;
	check_xen_limits(dev, 11, 44);
	check_param(dev, 1, "max_indirect_segments", "11");
	check_xen_disk(dev, "xen-seg11");
	assert_int_equal(dev->xen.max_indirect_segments, 11);
	assert_int_equal(dev->xen.segments, 11);
	assert_false(dev->xen.indirect_descriptors);
	assert_int_equal(dev->xen.max_request_bytes, 44 * 1024);
	assert_int_equal(dev->xen.max_ring_page_order, 0);
	assert_int_equal(dev->xen.feature_persistent, 1);
	assert_false(dev->xen.backend_limited);
	assert_int_equal(device__max_request_bytes(dev, NULL), 44 * 1024);
	test_free(dev);
}

static void test_xen_seg256(void **state)
{
	struct device *dev = resolve_ok("xen-seg256", "xvda");
	unsigned int limits = 0;

	(void)state;
	check_xen_limits(dev, 256, 1024);
	check_param(dev, 0, "feature_persistent", "N");
	check_param(dev, 1, "max_indirect_segments", "256");
	check_param(dev, 3, "max_ring_page_order", "2");
	check_xen_disk(dev, "xen-seg256");
	assert_int_equal(dev->xen.max_indirect_segments, 256);
	assert_int_equal(dev->xen.segments, 256);
	assert_true(dev->xen.indirect_descriptors);
	assert_int_equal(dev->xen.max_request_bytes, 1024 * 1024);
	assert_int_equal(dev->xen.max_ring_page_order, 2);
	assert_int_equal(dev->xen.feature_persistent, 0);
	assert_false(dev->xen.backend_limited);
	assert_int_equal(device__max_request_bytes(dev, &limits), 1024 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS | DEVICE_LIMIT_MAX_SEGMENTS);
	test_free(dev);
}

static void test_xen_backend_limited(void **state)
{
	struct device *dev = resolve_ok("xen-backend-limited", "xvda");

	(void)state;
	check_xen_limits(dev, 11, 44);
	check_param(dev, 1, "max_indirect_segments", "32");
	check_xen_disk(dev, "xen-backend-limited");
	/* The guest asked for 32, the ring carries 11. */
	assert_int_equal(dev->xen.max_indirect_segments, 32);
	assert_int_equal(dev->xen.segments, 11);
	assert_false(dev->xen.indirect_descriptors);
	assert_int_equal(dev->xen.max_request_bytes, 44 * 1024);
	assert_true(dev->xen.backend_limited);
	test_free(dev);
}

/* xvda of fixture with xenstore from the fake xs (tests/fixtures/xenstore/XS.txt), or none. */
static struct device *resolve_xs(const char *fixture, const char *xs)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	char file[PATH_MAX + 64];
	struct device_env env = { .sysfs_root = root };
	struct diag d = {};

	assert_non_null(dev);
	use_fixture(fixture);
	if (xs)
		env.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, xs);
	/* xenstore never fails a disk: whatever it says, the disk resolves. */
	if (device__resolve_env(&env, "xvda", dev, &d))
		fail_msg("xvda in %s with %s: %s", fixture, xs, d.msg);
	assert_string_equal(d.msg, "");
	return dev;
}

static void check_offer(const struct xen_backend_offer *b, int64_t indirect, int64_t persistent,
			int64_t queues, int64_t order)
{
	assert_int_equal(b->state, XENBUS_STATE_CONNECTED);
	assert_int_equal(b->max_indirect_segments, indirect);
	assert_int_equal(b->persistent, persistent);
	assert_int_equal(b->max_queues, queues);
	assert_int_equal(b->max_ring_page_order, order);
}

static void check_negotiated(const struct xen_blkfront *x, enum xen_segments_reason why,
			     int64_t segments, int64_t queues, int64_t pages)
{
	assert_int_equal(x->segments_reason, why);
	assert_int_equal(x->segments_in_effect, segments);
	assert_int_equal(x->queues, queues);
	assert_int_equal(x->ring_pages, pages);
	assert_int_equal(x->ring_requests, 32 * pages);
}

static void check_features(const struct xen_blkfront *x, int64_t persistent, int64_t bounce,
			   const char *flush, int64_t discard)
{
	assert_int_equal(x->persistent_grants, persistent);
	assert_int_equal(x->bounce_buffer, bounce);
	assert_string_equal(x->cache_flush, flush);
	assert_int_equal(x->discard, discard);
}

/* dom0: the disk xen-blkback serves named by its guest and virtual disk, or by sysfs alone. */
static void test_xen_dom0(void **state)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct device_env env = { .sysfs_root = root };
	char file[PATH_MAX + 64], who[160];
	struct diag d = {};

	(void)state;
	assert_non_null(dev);
	use_fixture("xen-dom0");
	env.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, "dom0");
	assert_int_equal(device__resolve_env(&env, "loop0", dev, &d), 0);
	assert_true(dev->xen_guest.present);
	assert_false(dev->xen.present);
	assert_int_equal(dev->xen_guest.domid, 3);
	assert_int_equal(dev->xen_guest.devid, 51712);
	assert_string_equal(dev->xen_guest.vdev, "xvda");
	assert_string_equal(dev->xen_guest.domain, "web1");
	assert_string_equal(dev->xen_guest.backend, "vbd-3-51712");
	assert_string_equal(dev->xen_guest.xenstore_error, "");
	assert_string_equal(device__xen_guest_text(&dev->xen_guest, who, sizeof(who)),
			    "xvda of domU \"web1\" (domid 3)");
	/* loop1 backs no guest (vbd-4-51728 is 253:2's). */
	assert_int_equal(device__resolve_env(&env, "loop1", dev, &d), 0);
	assert_false(dev->xen_guest.present);
	assert_string_equal(device__xen_guest_text(&dev->xen_guest, who, sizeof(who)), "");
	/* No xenstore (a fixture tree without a fake): the name Linux gives devid 51712. */
	env.xenstore = NULL;
	assert_int_equal(device__resolve_env(&env, "loop0", dev, &d), 0);
	assert_true(dev->xen_guest.present);
	assert_string_equal(dev->xen_guest.vdev, "xvda");
	assert_string_equal(dev->xen_guest.domain, "");
	assert_string_equal(device__xen_guest_text(&dev->xen_guest, who, sizeof(who)),
			    "xvda of domU (domid 3)");
	/* A trace that began before the guest: looked for again at its end. */
	memset(&dev->xen_guest, 0, sizeof(dev->xen_guest));
	env.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, "dom0");
	device__find_xen_guest(&env, dev);
	assert_true(dev->xen_guest.present);
	assert_string_equal(dev->xen_guest.domain, "web1");
	test_free(dev);
}

/* Linux's blkback offers 256 segments: the module's 32 is what the disk gets. */
static void test_xen_blkback(void **state)
{
	struct device *dev = resolve_xs("xen-seg32", "blkback");
	const struct xen_blkfront *x = &dev->xen;

	(void)state;
	assert_string_equal(x->xenstore_error, "");
	assert_string_equal(x->frontend, "device/vbd/51712");
	assert_int_equal(x->frontend_state, XENBUS_STATE_CONNECTED);
	assert_string_equal(x->backend_path, "/local/domain/0/backend/vbd/1/51712");
	assert_true(x->backend_read);
	assert_int_equal(x->backend.domid, 0);
	check_offer(&x->backend, 256, 1, 2, 4);
	assert_int_equal(x->backend.flush_cache, 1);
	assert_int_equal(x->backend.barrier, 1);
	assert_int_equal(x->backend.discard, 1);
	check_negotiated(x, XEN_SEGMENTS_MODULE_ASKS, 32, 2, 1);
	/* The sysfs view agrees and stays. */
	assert_int_equal(x->segments, 32);
	assert_int_equal(x->max_indirect_segments, 32);
	check_features(x, 1, 1, "flush", 1); /* persistent grants copy: a bounce buffer */
	assert_int_equal(device__xen_segments_cap(x), 256);
	test_free(dev);

	/* max_indirect_segments=0 reads back 11: indirect descriptors off, by the guest. */
	dev = resolve_xs("xen-seg11", "blkback");
	check_negotiated(&dev->xen, XEN_SEGMENTS_MODULE_OFF, 11, 2, 1);
	assert_int_equal(dev->xen.segments, 11);
	test_free(dev);

	/* 512 asked, 512 read back, 256 used: the backend caps it. */
	dev = resolve_xs("xen-seg512", "blkback");
	check_param(dev, 1, "max_indirect_segments", "512");
	check_negotiated(&dev->xen, XEN_SEGMENTS_BACKEND_CAPS, 256, 2, 1);
	assert_int_equal(dev->xen.segments, 256);
	assert_true(dev->xen.backend_limited);
	test_free(dev);
}

/* tapdisk offers no indirect descriptors: 11 segments whatever the guest asks for. */
static void test_xen_tapdisk(void **state)
{
	struct device *dev = resolve_xs("xen-backend-limited", "tapdisk");
	const struct xen_blkfront *x = &dev->xen;

	(void)state;
	assert_string_equal(x->xenstore_error, "");
	assert_string_equal(x->backend_path, "/local/domain/0/backend/vbd3/3/51712");
	check_offer(&x->backend, 0, 0, 1, 0);
	check_negotiated(x, XEN_SEGMENTS_BACKEND_NONE, 11, 1, 1);
	assert_int_equal(x->max_indirect_segments, 32);
	assert_int_equal(device__xen_segments_cap(x), 11);
	/* The frontend offers persistent grants, the backend does not; no `trusted`
	 * parameter (a kernel before v5.19): no bounce buffer. */
	check_features(x, 0, 0, "flush", 0);
	test_free(dev);
}

/* An untrusted backend without persistent grants: the data bounces all the same. */
static void test_xen_untrusted(void **state)
{
	struct device *dev = resolve_xs("xen-seg512", "untrusted");
	const struct xen_blkfront *x = &dev->xen;

	(void)state;
	assert_int_equal(x->backend.domid, 2);
	check_negotiated(x, XEN_SEGMENTS_BACKEND_CAPS, 256, 1, 4);
	check_features(x, 0, 1, "none", 0);
	test_free(dev);
}

/* What cannot be read is said, and the sysfs view stays whole. */
static void test_xen_unreadable(void **state)
{
	struct device *dev = resolve_xs("xen-seg32", "no-backend");
	const struct xen_blkfront *x = &dev->xen;

	(void)state;
	/* The frontend's part is there, the backend's offer is not. */
	assert_string_equal(x->xenstore_error, "/local/domain/0/backend/vbd/1/51712 has no "
					       "state: gone, or hidden from this domain");
	assert_false(x->backend_read);
	assert_int_equal(x->backend.max_indirect_segments, -1);
	assert_int_equal(x->queues, 1);
	assert_int_equal(x->ring_pages, 1);
	assert_int_equal(x->segments_reason, XEN_SEGMENTS_UNKNOWN);
	assert_int_equal(x->segments_in_effect, -1);
	assert_int_equal(x->persistent_grants, -1);
	assert_int_equal(device__xen_segments_cap(x), -1);
	assert_int_equal(x->segments, 32);
	test_free(dev);

	dev = resolve_xs("xen-seg32", "nonexistent");
	x = &dev->xen;
	assert_non_null(strstr(x->xenstore_error, "nonexistent.txt: No such file or directory"));
	assert_string_equal(x->frontend, "device/vbd/51712");
	assert_string_equal(x->backend_path, "");
	assert_int_equal(x->frontend_state, -1);
	assert_int_equal(x->queues, -1);
	assert_int_equal(x->segments, 32);
	assert_int_equal(x->max_indirect_segments, 32);
	assert_true(x->indirect_descriptors);
	test_free(dev);

	/* Below a fixture tree, no fake: xenstore is not even tried. */
	dev = resolve_xs("xen-seg32", NULL);
	x = &dev->xen;
	assert_string_equal(x->xenstore_error, "");
	assert_string_equal(x->frontend, "");
	assert_int_equal(x->frontend_state, -1);
	assert_int_equal(x->backend.max_indirect_segments, -1);
	assert_int_equal(x->segments_in_effect, -1);
	assert_int_equal(x->segments, 32);
	test_free(dev);
}

static void test_xen_old_max(void **state)
{
	struct device *dev = resolve_ok("xen-old-max", "xvda");
	const struct queue_limits want = {
		.max_sectors_kb = 128,
		.max_hw_sectors_kb = 128,
		.max_segments = 32,
		.max_segment_size = 4096,
		.nr_requests = 32,
		.read_ahead_kb = 128,
		.logical_block_size = 512,
		.physical_block_size = 512,
		.wbt_lat_usec = -1, /* before 4.10 */
		.nomerges = 0,
		.rotational = 1,
		.scheduler = "none", /* the file reads plain "none" before 4.11 */
		.write_cache = "",   /* before 4.7 */
	};

	(void)state;
	assert_string_equal(dev->name, "xvda");
	assert_int_equal(dev->major, 202);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 20971520);
	check_whole_disk(dev);
	assert_string_equal(dev->driver, "vbd");
	assert_string_equal(dev->module, "xen_blkfront");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 1);
	assert_int_equal(dev->max_tags, 32);
	assert_false(dev->bio_based);
	assert_int_equal(dev->nr_partitions, 0);
	assert_int_equal(dev->nr_module_params, 2);
	check_param(dev, 0, "max", "32");
	check_param(dev, 1, "max_ring_page_order", "0");
	assert_true(dev->xen.present);
	assert_true(dev->xen.param_is_old_name);
	assert_string_equal(device__xen_param_name(&dev->xen), "xen_blkfront.max");
	assert_int_equal(dev->xen.max_indirect_segments, 32);
	assert_int_equal(dev->xen.segments, 32);
	assert_true(dev->xen.indirect_descriptors);
	assert_int_equal(dev->xen.max_request_bytes, 128 * 1024);
	assert_int_equal(dev->xen.max_ring_page_order, 0);
	assert_int_equal(dev->xen.max_queues, -1);
	assert_int_equal(dev->xen.feature_persistent, -1);
	assert_false(dev->xen.backend_limited);
	test_free(dev);
}

/* Every way of naming the disk or its partition lands on the same directory. */
static void test_xen_dev_forms(void **state)
{
	static const char *const disk_forms[] = { "xvda", "/dev/xvda", "202:0" };
	static const char *const part_forms[] = { "xvda1", "/dev/xvda1", "202:1" };
	struct device *ref = resolve_ok("xen-seg32", "xvda"), *dev;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		dev = resolve_ok("xen-seg32", disk_forms[i]);
		assert_string_equal(dev->name, "xvda");
		assert_string_equal(dev->sysfs_path, ref->sysfs_path);
		check_whole_disk(dev);
		test_free(dev);
	}
	for (i = 0; i < 3; i++) {
		dev = resolve_ok("xen-seg32", part_forms[i]);
		/* The model is the whole disk's, plus the partition's range. */
		assert_string_equal(dev->name, "xvda");
		assert_int_equal(dev->major, 202);
		assert_int_equal(dev->minor, 0);
		assert_int_equal(dev->size_sectors, 20971520);
		assert_string_equal(dev->sysfs_path, ref->sysfs_path);
		assert_string_equal(dev->part_name, "xvda1");
		assert_int_equal(dev->part_major, 202);
		assert_int_equal(dev->part_minor, 1);
		assert_int_equal(dev->part_start, 2048);
		assert_int_equal(dev->part_sectors, 20969472);
		assert_int_equal(dev->limits.max_segments, 32);
		assert_true(dev->xen.present);
		test_free(dev);
	}
	test_free(ref);
}

static void test_virtio_blk(void **state)
{
	struct device *dev = resolve_ok("virtio-blk", "vda");
	const struct queue_limits want = {
		.max_sectors_kb = 4096,
		.max_hw_sectors_kb = 2147483647,
		.max_segments = 254,
		.max_segment_size = 4294967295LL,
		.nr_requests = 256,
		.read_ahead_kb = 8192,
		.logical_block_size = 512,
		.physical_block_size = 4096,
		.wbt_lat_usec = 75000,
		.nomerges = 0,
		.rotational = 1,
		.scheduler = "mq-deadline",
		.write_cache = "write back",
	};
	unsigned int limits = 0;

	(void)state;
	assert_string_equal(dev->name, "vda");
	assert_int_equal(dev->major, 254);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 536870912);
	check_whole_disk(dev);
	assert_string_equal(dev->driver, "virtio_blk");
	/* Built in: no driver/module link, the driver's name is the module's. */
	assert_string_equal(dev->module, "virtio_blk");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 2);
	assert_int_equal(dev->max_tags, 128);
	assert_false(dev->bio_based);
	assert_int_equal(dev->scsi_queue_depth, -1);
	assert_int_equal(dev->nr_partitions, 2);
	check_partition(&dev->partitions[0], "vda1", 254, 1, 1, 2048, 262144, 0);
	check_partition(&dev->partitions[1], "vda2", 254, 2, 2, 264192, 536604672, 0);
	assert_int_equal(dev->nr_slaves, 0);
	assert_int_equal(dev->nr_holders, 0);
	assert_int_equal(dev->nr_module_params, 3);
	check_param(dev, 0, "num_request_queues", "2");
	check_param(dev, 1, "poll_queues", "0");
	check_param(dev, 2, "queue_depth", "0");
	assert_true(dev->virtio_blk.present);
	/* The parameter 0 means "the virtqueue's size": the depth is the tag count. */
	assert_int_equal(dev->virtio_blk.queue_depth_param, 0);
	assert_int_equal(dev->virtio_blk.queue_depth, 128);
	assert_int_equal(dev->virtio_blk.num_request_queues, 2);
	assert_int_equal(dev->virtio_blk.poll_queues, 0);
	assert_int_equal(dev->virtio_blk.host_max_segments, 254);
	assert_false(dev->nvme.present);
	assert_false(dev->loop.present);
	assert_false(dev->xen.present);
	assert_int_equal(device__max_request_bytes(dev, &limits), 4096 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS);
	test_free(dev);

	dev = resolve_ok("virtio-blk", "254:2");
	assert_string_equal(dev->name, "vda");
	assert_string_equal(dev->part_name, "vda2");
	assert_int_equal(dev->part_major, 254);
	assert_int_equal(dev->part_minor, 2);
	assert_int_equal(dev->part_start, 264192);
	assert_int_equal(dev->part_sectors, 536604672);
	test_free(dev);

	dev = resolve_ok("virtio-blk", "vda1");
	assert_string_equal(dev->part_name, "vda1");
	assert_int_equal(dev->part_start, 2048);
	assert_int_equal(dev->part_sectors, 262144);
	test_free(dev);
}

static void test_nvme(void **state)
{
	struct device *dev = resolve_ok("nvme", "nvme0n1");
	const struct queue_limits want = {
		.max_sectors_kb = 1280,
		.max_hw_sectors_kb = 2048,
		.max_segments = 127,
		.max_segment_size = 4294967295LL,
		.nr_requests = 1023,
		.read_ahead_kb = 128,
		.logical_block_size = 512,
		.physical_block_size = 512,
		.wbt_lat_usec = 2000,
		.nomerges = 0,
		.rotational = 0,
		.scheduler = "none",
		.write_cache = "write back",
	};
	unsigned int limits = 0;

	(void)state;
	assert_string_equal(dev->name, "nvme0n1");
	assert_int_equal(dev->major, 259);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 1953525168);
	check_whole_disk(dev);
	/* Found on the PCI function above the controller. */
	assert_string_equal(dev->driver, "nvme");
	assert_string_equal(dev->module, "nvme");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 2);
	assert_int_equal(dev->max_tags, 1023);
	assert_false(dev->bio_based);
	assert_int_equal(dev->nr_partitions, 0);
	assert_int_equal(dev->nr_slaves, 0);
	assert_int_equal(dev->nr_holders, 0);
	assert_int_equal(dev->nr_module_params, 3);
	check_param(dev, 0, "io_queue_depth", "1024");
	check_param(dev, 1, "poll_queues", "0");
	check_param(dev, 2, "write_queues", "0");
	assert_true(dev->nvme.present);
	assert_int_equal(dev->nvme.io_queue_depth, 1024);
	assert_int_equal(dev->nvme.poll_queues, 0);
	assert_int_equal(dev->nvme.write_queues, 0);
	assert_false(dev->virtio_blk.present);
	assert_false(dev->xen.present);
	assert_int_equal(device__max_request_bytes(dev, &limits), 1280 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS);
	test_free(dev);
}

/* An NVMe multipath head and its hidden paths, with and without multipath/. */
static void test_nvme_multipath(void **state)
{
	static const char *const heads[] = { "nvme1n1", "nvme2n1" };
	struct device *dev;
	unsigned int i, h;
	char name[32];

	(void)state;
	for (h = 0; h < 2; h++) {
		dev = resolve_ok("nvme-multipath", heads[h]);
		assert_string_equal(dev->name, heads[h]);
		assert_int_equal(dev->major, 259);
		assert_int_equal(dev->minor, (h + 1) * 10);
		assert_false(dev->hidden);
		/* Requests are issued on the paths: not bio-based, their queues and driver. */
		assert_false(dev->bio_based);
		assert_string_equal(dev->driver, "nvme");
		assert_string_equal(dev->module, "nvme");
		assert_int_equal(dev->nr_hw_queues, 2);
		assert_int_equal(dev->max_tags, 1023);
		assert_int_equal(dev->limits.max_sectors_kb, 512);
		assert_int_equal(dev->nr_paths, 2);
		for (i = 0; i < 2; i++) {
			unsigned int c = 2 * h + 1 + i;

			snprintf(name, sizeof(name), "nvme%uc%un1", h + 1, c);
			assert_string_equal(dev->paths[i].name, name);
			snprintf(name, sizeof(name), "nvme%u", c);
			assert_string_equal(dev->paths[i].controller, name);
			assert_string_equal(dev->paths[i].state, "live");
			assert_int_equal(dev->paths[i].nr_hw_queues, 2);
			assert_int_equal(dev->paths[i].max_tags, 1023);
		}
		test_free(dev);
	}

	/* A path disk by name: no dev_t, traced by name, a disk of its own. */
	dev = resolve_ok("nvme-multipath", "nvme1c2n1");
	assert_true(dev->hidden);
	assert_int_equal(dev->major, 0);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->nr_paths, 0);
	assert_string_equal(dev->driver, "nvme");
	assert_int_equal(dev->nr_hw_queues, 2);
	assert_int_equal(dev->size_sectors, 524288);
	test_free(dev);
}

static void test_sd(void **state)
{
	struct device *dev = resolve_ok("sd", "sda");
	const struct queue_limits want = {
		.max_sectors_kb = 1280,
		.max_hw_sectors_kb = 32767,
		.max_segments = 168,
		.max_segment_size = 65536,
		.nr_requests = 64,
		.read_ahead_kb = 128,
		.logical_block_size = 512,
		.physical_block_size = 4096,
		.wbt_lat_usec = 75000,
		.nomerges = 0,
		.rotational = 1,
		.scheduler = "mq-deadline",
		.write_cache = "write back",
	};

	(void)state;
	assert_string_equal(dev->name, "sda");
	assert_int_equal(dev->major, 8);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 41943040);
	check_whole_disk(dev);
	assert_string_equal(dev->driver, "sd");
	assert_string_equal(dev->module, "sd_mod");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 1);
	assert_int_equal(dev->max_tags, 32);
	assert_false(dev->bio_based);
	assert_int_equal(dev->scsi_queue_depth, 32);
	assert_int_equal(dev->nr_partitions, 1);
	check_partition(&dev->partitions[0], "sda1", 8, 1, 1, 2048, 41940992, 0);
	assert_int_equal(dev->nr_module_params, 0);
	check_no_driver_extras(dev);
	assert_false(dev->xen.present);
	/* 168 segments of 64 KiB would allow more than max_sectors_kb. */
	assert_int_equal(device__max_request_bytes(dev, NULL), 1280 * 1024);
	test_free(dev);

	dev = resolve_ok("sd", "8:1");
	assert_string_equal(dev->name, "sda");
	assert_string_equal(dev->part_name, "sda1");
	assert_int_equal(dev->part_major, 8);
	assert_int_equal(dev->part_minor, 1);
	assert_int_equal(dev->part_start, 2048);
	assert_int_equal(dev->part_sectors, 41940992);
	test_free(dev);
}

static void test_loop(void **state)
{
	struct device *dev = resolve_ok("loop", "loop0");
	const struct queue_limits want = {
		.max_sectors_kb = 1280,
		.max_hw_sectors_kb = 1280,
		.max_segments = 128,
		.max_segment_size = 65536,
		.nr_requests = 128,
		.read_ahead_kb = 128,
		.logical_block_size = 512,
		.physical_block_size = 512,
		.wbt_lat_usec = 2000,
		.nomerges = 0,
		.rotational = 0,
		.scheduler = "none",
		.write_cache = "write back",
	};

	(void)state;
	assert_string_equal(dev->name, "loop0");
	assert_int_equal(dev->major, 7);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 2097152);
	check_whole_disk(dev);
	assert_string_equal(dev->driver, "loop");
	assert_string_equal(dev->module, "loop");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 1);
	assert_int_equal(dev->max_tags, 128);
	assert_false(dev->bio_based);
	assert_int_equal(dev->scsi_queue_depth, -1);
	assert_int_equal(dev->nr_partitions, 0);
	assert_int_equal(dev->nr_module_params, 3);
	check_param(dev, 0, "hw_queue_depth", "128");
	check_param(dev, 1, "max_loop", "8");
	check_param(dev, 2, "max_part", "0");
	assert_true(dev->loop.present);
	assert_string_equal(dev->loop.backing_file, "/dev/shm/blktrace-bench.img");
	assert_int_equal(dev->loop.dio, 1);
	assert_false(dev->xen.present);
	test_free(dev);

	/* Unbound: no loop/ directory, still a loop disk by its major. */
	dev = resolve_ok("loop", "/dev/loop1");
	assert_string_equal(dev->name, "loop1");
	assert_int_equal(dev->major, 7);
	assert_int_equal(dev->minor, 1);
	assert_int_equal(dev->size_sectors, 0);
	assert_string_equal(dev->driver, "loop");
	assert_string_equal(dev->module, "loop");
	assert_false(dev->loop.present);
	assert_int_equal(dev->limits.read_ahead_kb, -1);
	test_free(dev);
}

static void test_zram(void **state)
{
	struct device *dev = resolve_ok("loop", "zram0");
	const struct queue_limits want = {
		.max_sectors_kb = 124,
		.max_hw_sectors_kb = 124,
		.max_segments = 128,
		.max_segment_size = 65536,
		.nr_requests = -1,
		.read_ahead_kb = 128,
		.logical_block_size = 4096,
		.physical_block_size = 4096,
		.wbt_lat_usec = -1,
		.nomerges = 0,
		.rotational = 0,
		.scheduler = "",
		.write_cache = "write through",
	};

	(void)state;
	assert_string_equal(dev->name, "zram0");
	assert_int_equal(dev->major, 253);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 8388608);
	assert_string_equal(dev->driver, "zram");
	assert_string_equal(dev->module, "zram");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 0);
	assert_int_equal(dev->max_tags, 0);
	assert_true(dev->bio_based);
	assert_int_equal(dev->nr_module_params, 0);
	check_no_driver_extras(dev);
	test_free(dev);
}

static void test_dm(void **state)
{
	struct device *dev = resolve_ok("dm", "dm-0");
	const struct queue_limits want = {
		.max_sectors_kb = 1280,
		.max_hw_sectors_kb = 2147483647,
		.max_segments = 254,
		.max_segment_size = 4294967295LL,
		.nr_requests = -1,
		.read_ahead_kb = 8192,
		.logical_block_size = 512,
		.physical_block_size = 4096,
		.wbt_lat_usec = -1,
		.nomerges = 0,
		.rotational = 1,
		.scheduler = "",
		.write_cache = "write back",
	};

	(void)state;
	assert_string_equal(dev->name, "dm-0");
	assert_int_equal(dev->major, 253);
	assert_int_equal(dev->minor, 0);
	assert_int_equal(dev->size_sectors, 60813312);
	check_whole_disk(dev);
	assert_string_equal(dev->driver, "device-mapper");
	assert_string_equal(dev->module, "dm_mod");
	assert_string_equal(dev->dm_name, "vg0-data");
	assert_string_equal(dev->md_level, "");
	check_limits(&dev->limits, &want);
	assert_int_equal(dev->nr_hw_queues, 0);
	assert_true(dev->bio_based);
	assert_int_equal(dev->nr_partitions, 0);
	assert_int_equal(dev->nr_slaves, 2);
	assert_string_equal(dev->slaves[0], "vda2");
	assert_string_equal(dev->slaves[1], "vdb");
	assert_int_equal(dev->nr_holders, 0);
	check_no_driver_extras(dev);
	assert_false(dev->xen.present);
	test_free(dev);

	dev = resolve_ok("dm", "md0");
	assert_string_equal(dev->name, "md0");
	assert_int_equal(dev->major, 9);
	assert_int_equal(dev->minor, 0);
	assert_string_equal(dev->driver, "md");
	assert_string_equal(dev->module, "md_mod");
	assert_string_equal(dev->md_level, "raid1");
	assert_string_equal(dev->dm_name, "");
	assert_true(dev->bio_based);
	assert_int_equal(dev->nr_slaves, 2);
	assert_string_equal(dev->slaves[0], "vdc");
	assert_string_equal(dev->slaves[1], "vdd");
	test_free(dev);

	/* From below: the partition dm-0 holds, and a whole disk it holds. */
	dev = resolve_ok("dm", "vda");
	assert_int_equal(dev->nr_partitions, 2);
	check_partition(&dev->partitions[0], "vda1", 254, 1, 1, 2048, 2097152, 0);
	check_partition(&dev->partitions[1], "vda2", 254, 2, 2, 2099200, 39841792, 1);
	assert_int_equal(dev->nr_holders, 0);
	assert_false(dev->bio_based);
	test_free(dev);

	dev = resolve_ok("dm", "vdb");
	assert_int_equal(dev->major, 254);
	assert_int_equal(dev->minor, 16);
	assert_int_equal(dev->nr_holders, 1);
	assert_string_equal(dev->holders[0], "dm-0");
	assert_string_equal(dev->driver, "virtio_blk");
	test_free(dev);
}

static void test_errors(void **state)
{
	/* clang-format would list these one a line. */
	// clang-format off
	static const char *const bad_devnums[] = {
		"12:", ":5", "a:b", "1:2:3", "-1:0", "+1:0", "7: 0", "7:0x", "0x7:0", "7:-0",
		"99999:0", "4096:0", "1:1048576",
		"99999999999999999999999:0", "0:99999999999999999999999",
	};
	// clang-format on
	struct diag d = {};
	char longname[DEVICE_NAME_MAX + 8];
	size_t i;

	(void)state;
	use_fixture("loop");

	assert_int_equal(resolve_err("nope", &d), -ENOENT);
	assert_string_equal(d.msg, "no such block device: nope");
	assert_true(d.usage); /* a name that resolves to nothing is bad input */
	/* Well-formed but absent numbers, and /dev paths that do not exist. */
	assert_int_equal(resolve_err("254:9", &d), -ENOENT);
	assert_string_equal(d.msg, "no such block device: 254:9");
	assert_int_equal(resolve_err("/dev/blktrace-bench-nope", &d), -ENOENT);
	assert_string_equal(d.msg, "no such block device: /dev/blktrace-bench-nope");
	assert_int_equal(resolve_err("/nonexistent/x", &d), -ENOENT);

	assert_int_equal(resolve_err("", &d), -EINVAL);
	assert_string_equal(d.msg, "empty device name");
	assert_int_equal(resolve_err(NULL, &d), -EINVAL);
	assert_int_equal(resolve_err("12:", &d), -EINVAL);
	assert_string_equal(d.msg, "invalid MAJ:MIN \"12:\": missing minor number");
	assert_int_equal(resolve_err("a:b", &d), -EINVAL);
	assert_string_equal(d.msg, "invalid MAJ:MIN \"a:b\": major is not a number");
	for (i = 0; i < sizeof(bad_devnums) / sizeof(bad_devnums[0]); i++) {
		d.msg[0] = '\0';
		if (resolve_err(bad_devnums[i], &d) != -EINVAL)
			fail_msg("%s was accepted", bad_devnums[i]);
		assert_non_null(strstr(d.msg, "invalid MAJ:MIN"));
	}
	assert_int_equal(resolve_err("99999999999999999999999:0", &d), -EINVAL);
	assert_string_equal(d.msg, "invalid MAJ:MIN \"99999999999999999999999:0\": "
				   "major number out of range");

	assert_int_equal(resolve_err(".", &d), -EINVAL);
	assert_int_equal(resolve_err("..", &d), -EINVAL);
	assert_int_equal(resolve_err("loop 0", &d), -EINVAL);
	assert_int_equal(resolve_err("loop0\n", &d), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(resolve_err(longname, &d), -EINVAL);

	/* Exists, but not a block device. */
	assert_int_equal(resolve_err("/dev/null", &d), -ENOTBLK);
	assert_string_equal(d.msg, "not a block device: /dev/null");
	assert_true(d.usage);

	/* No room for the reason is fine too. */
	assert_int_equal(resolve_err("nope", NULL), -ENOENT);

	use_root("/nonexistent/sysfs");
	assert_int_equal(resolve_err("loop0", &d), -ENOENT);
	assert_string_equal(d.msg, "sysfs root /nonexistent/sysfs: No such file or directory");
	assert_true(d.usage);
}

/* A link that leaves the root is refused, by name and by number. */
static void test_escape(void **state)
{
	struct diag d = {};

	(void)state;
	use_fixture("escape");
	assert_int_equal(resolve_err("outside", &d), -EXDEV);
	assert_non_null(strstr(d.msg, "outside"));
	assert_non_null(strstr(d.msg, "leads outside"));
	assert_int_equal(resolve_err("7:0", &d), -EXDEV);
}

/* A scratch sysfs tree for what the fixtures must not be used for: writes and bad files. */
static char scratch[PATH_MAX];

static void put(const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	slash = strchr(path + strlen(scratch) + 1, '/');
	for (; slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void put_link(const char *rel, const char *target)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	assert_int_equal(symlink(target, path), 0);
}

static int make_scratch(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-sysfs.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	put("devices/virtual/block/tst/dev", "7:9\n");
	put("devices/virtual/block/tst/size", "8\n");
	put("devices/virtual/block/tst/queue/max_sectors_kb", "128\n");
	put("devices/virtual/block/tst/queue/max_segments", "12abc\n");
	put("devices/virtual/block/tst/queue/max_segment_size", "99999999999999999999\n");
	put("devices/virtual/block/tst/queue/nr_requests", " 64\n");
	put("devices/virtual/block/tst/queue/scheduler", "noop deadline [cfq] \n");
	put("devices/virtual/block/tst/queue/dir/x", "\n");
	/* Partition numbers sort numerically, not by name. */
	put("devices/virtual/block/tst/tst10/dev", "7:19\n");
	put("devices/virtual/block/tst/tst10/partition", "10\n");
	put("devices/virtual/block/tst/tst10/start", "100\n");
	put("devices/virtual/block/tst/tst10/size", "2\n");
	put("devices/virtual/block/tst/tst2/dev", "7:11\n");
	put("devices/virtual/block/tst/tst2/partition", "2\n");
	put("devices/virtual/block/tst/tst2/start", "10\n");
	put("devices/virtual/block/tst/tst2/size", "4\n");
	put("devices/virtual/block/bad/dev", "7:x\n");
	put("devices/virtual/block/bad/size", "8\n");
	put("devices/virtual/block/badpart/dev", "7:20\n");
	put("devices/virtual/block/badpart/size", "8\n");
	put("devices/virtual/block/badpart/queue/rotational", "0\n");
	put("devices/virtual/block/badpart/badpart1/dev", "7:21\n");
	put("devices/virtual/block/badpart/badpart1/partition", "1\n");
	put("devices/virtual/block/badpart/badpart1/start", "-1\n");
	put("devices/virtual/block/badpart/badpart1/size", "8\n");
	put("class/block/.keep", "");
	put_link("class/block/tst", "../../devices/virtual/block/tst");
	put_link("class/block/tst2", "../../devices/virtual/block/tst/tst2");
	put_link("class/block/bad", "../../devices/virtual/block/bad");
	put_link("class/block/badpart1", "../../devices/virtual/block/badpart/badpart1");
	put_link("class/block/dangling", "../../devices/virtual/block/gone");
	return 0;
}

static int remove_scratch(void **state)
{
	(void)state;
	test_remove_tree(scratch);
	return 0;
}

static struct device *resolve_scratch(const char *spec)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct diag d = {};
	int ret;

	assert_non_null(dev);
	use_root(scratch);
	ret = device__resolve(root, spec, dev, &d);
	if (ret)
		fail_msg("%s: %d (%s)", spec, ret, d.msg);
	return dev;
}

/* A xen disk NAME (202:MINOR) in the scratch tree behind xenbus device DEV. */
static void put_xen_disk(const char *name, const char *devnum, const char *dev)
{
	char rel[256], target[128];

	snprintf(rel, sizeof(rel), "devices/%s/block/%s/dev", dev, name);
	put(rel, devnum);
	snprintf(rel, sizeof(rel), "devices/%s/block/%s/size", dev, name);
	put(rel, "8\n");
	snprintf(rel, sizeof(rel), "devices/%s/block/%s/queue/max_segments", dev, name);
	put(rel, "11\n");
	snprintf(rel, sizeof(rel), "class/block/%s", name);
	snprintf(target, sizeof(target), "../../devices/%s/block/%s", dev, name);
	put_link(rel, target);
	snprintf(rel, sizeof(rel), "devices/%s/block/%s/device", dev, name);
	snprintf(target, sizeof(target), "../../../%s", dev);
	put_link(rel, target);
}

/* The frontend's node: the xenbus device's nodename, else its name, else nothing. */
static void test_xen_node_name(void **state)
{
	char file[PATH_MAX + 64];
	struct device_env env = { .sysfs_root = scratch };
	struct device *dev = test_calloc(1, sizeof(*dev));
	struct diag d = {};

	(void)state;
	env.xenstore = test_xenstore_fixture(file, sizeof(file), fixtures, "blkback");
	put_xen_disk("xvdb", "202:16\n", "vbd-51728");
	put_xen_disk("xvdc", "202:32\n", "vbd-51744");
	put("devices/vbd-51744/nodename", "device/vbd/../../backend\n");
	put_xen_disk("xvdd", "202:48\n", "vif-0");
	assert_int_equal(device__resolve_env(&env, "xvdb", dev, &d), 0);
	assert_true(dev->xen.present);
	assert_string_equal(dev->xen.frontend, "device/vbd/51728");
	assert_string_equal(dev->xen.xenstore_error, "xenstore has no device/vbd/51728/backend");
	/* A nodename that is no xenstore path is not followed. */
	assert_int_equal(device__resolve_env(&env, "xvdc", dev, &d), 0);
	assert_string_equal(dev->xen.frontend, "device/vbd/51744");
	assert_int_equal(device__resolve_env(&env, "xvdd", dev, &d), 0);
	assert_string_equal(dev->xen.frontend, "");
	assert_string_equal(dev->xen.xenstore_error, "xvdd has no xenbus node (device/nodename)");
	test_free(dev);
}

static void test_strict_parsing(void **state)
{
	struct device *dev = resolve_scratch("tst");
	struct diag d = {};

	(void)state;
	assert_int_equal(dev->major, 7);
	assert_int_equal(dev->minor, 9);
	assert_int_equal(dev->limits.max_sectors_kb, 128);
	/* Junk, overflow and blanks read as unknown, never as a number. */
	assert_int_equal(dev->limits.max_segments, -1);
	assert_int_equal(dev->limits.max_segment_size, -1);
	assert_int_equal(dev->limits.nr_requests, -1);
	assert_int_equal(dev->limits.rotational, -1);
	/* A single-queue kernel: no mq/, but a real elevator, so still request-based. */
	assert_string_equal(dev->limits.scheduler, "cfq");
	assert_int_equal(dev->nr_hw_queues, 0);
	assert_false(dev->bio_based);
	assert_string_equal(dev->driver, "loop"); /* major 7 */
	assert_int_equal(dev->nr_partitions, 2);
	check_partition(&dev->partitions[0], "tst2", 7, 11, 2, 10, 4, 0);
	check_partition(&dev->partitions[1], "tst10", 7, 19, 10, 100, 2, 0);
	assert_int_equal(device__max_request_bytes(dev, NULL), 128 * 1024);
	test_free(dev);

	dev = resolve_scratch("tst2");
	assert_string_equal(dev->name, "tst");
	assert_string_equal(dev->part_name, "tst2");
	assert_int_equal(dev->part_start, 10);
	assert_int_equal(dev->part_sectors, 4);
	test_free(dev);

	assert_int_equal(resolve_err("bad", &d), -EINVAL);
	assert_non_null(strstr(d.msg, "cannot read dev/size"));
	assert_false(d.usage); /* a disk sysfs cannot describe: a runtime failure */
	assert_int_equal(resolve_err("badpart1", &d), -EINVAL);
	assert_non_null(strstr(d.msg, "badpart1"));
	assert_int_equal(resolve_err("dangling", &d), -ENOENT);
	assert_string_equal(d.msg, "no such block device: dangling");
	assert_true(d.usage);
}

static void read_file(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX * 2];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

static void test_queue_get_set(void **state)
{
	struct device *dev = resolve_scratch("tst");
	struct device blank = { 0 };
	char buf[64], path[PATH_MAX * 2];
	struct stat st;

	(void)state;
	assert_int_equal(device__queue_get(dev, "max_sectors_kb", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "128");
	assert_int_equal(device__queue_get(dev, "scheduler", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "noop deadline [cfq]");

	assert_int_equal(device__queue_set(dev, "max_sectors_kb", "44"), 0);
	read_file("devices/virtual/block/tst/queue/max_sectors_kb", buf, sizeof(buf));
	assert_string_equal(buf, "44\n");
	assert_int_equal(device__queue_get(dev, "max_sectors_kb", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "44");
	assert_int_equal(device__read_limits(dev), 0);
	assert_int_equal(dev->limits.max_sectors_kb, 44);
	assert_int_equal(device__queue_set(dev, "max_sectors_kb", "128"), 0);

	/* Never creates an attribute the kernel does not have. */
	assert_int_equal(device__queue_get(dev, "nonexistent", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(device__queue_set(dev, "nonexistent", "1"), -ENOENT);
	snprintf(path, sizeof(path), "%s/devices/virtual/block/tst/queue/nonexistent", scratch);
	assert_int_equal(stat(path, &st), -1);
	/* The write's own errno comes back. */
	assert_int_equal(device__queue_set(dev, "dir", "1"), -EISDIR);

	assert_int_equal(device__queue_get(dev, "max_sectors_kb", buf, 3), -EOVERFLOW);
	assert_int_equal(device__queue_get(dev, "../dev", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(device__queue_set(dev, "../size", "1"), -EINVAL);
	assert_int_equal(device__queue_set(dev, "", "1"), -EINVAL);
	assert_int_equal(device__queue_set(dev, "..", "1"), -EINVAL);
	assert_int_equal(device__queue_set(dev, "max_sectors_kb", "1\n2"), -EINVAL);
	assert_int_equal(device__queue_set(dev, "max_sectors_kb", NULL), -EINVAL);
	assert_int_equal(device__queue_get(&blank, "max_sectors_kb", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(device__read_limits(&blank), -EINVAL);
	test_free(dev);
}

static void test_max_request_bytes(void **state)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	unsigned int limits = 99;

	(void)state;
	assert_non_null(dev);
	dev->limits.max_sectors_kb = -1;
	dev->limits.max_segments = -1;
	dev->limits.max_segment_size = -1;
	assert_int_equal(device__max_request_bytes(dev, &limits), -1);
	assert_int_equal(limits, DEVICE_LIMIT_NONE);

	dev->limits.max_sectors_kb = 512;
	assert_int_equal(device__max_request_bytes(dev, &limits), 512 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS);

	/* 11 segments of 4 KiB under a 512 KiB max_sectors_kb: the segments decide. */
	dev->limits.max_segments = 11;
	dev->limits.max_segment_size = 4096;
	assert_int_equal(device__max_request_bytes(dev, &limits), 44 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SEGMENTS);

	dev->limits.max_sectors_kb = -1;
	assert_int_equal(device__max_request_bytes(dev, &limits), 44 * 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SEGMENTS);

	dev->limits.max_segments = INT64_MAX / 2;
	dev->limits.max_segment_size = 4;
	dev->limits.max_sectors_kb = 1;
	assert_int_equal(device__max_request_bytes(dev, &limits), 1024);
	assert_int_equal(limits, DEVICE_LIMIT_MAX_SECTORS);
	test_free(dev);
}

/* The real /sys of this machine, when it has a disk we know how to check. */
static void test_real_sys(void **state)
{
	static const char *const candidates[] = { "vda", "loop0" };
	const char *name = NULL;
	struct device *dev;
	char path[PATH_MAX], buf[64], want_dev[32];
	struct diag d = {};
	unsigned long long kb;
	size_t i;
	FILE *f;

	(void)state;
	for (i = 0; i < 2 && !name; i++) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", candidates[i]);
		if (!access(path, R_OK))
			name = candidates[i];
	}
	if (!name) {
		print_message("[   SKIP   ] no vda or loop0 in /sys on this machine\n");
		skip();
	}
	use_root("/sys");
	dev = test_calloc(1, sizeof(*dev));
	assert_non_null(dev);
	if (device__resolve(root, name, dev, &d))
		fail_msg("%s: %s", name, d.msg);
	assert_string_equal(dev->name, name);
	assert_true(!strncmp(dev->sysfs_path, "/sys/", 5));

	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(want_dev, sizeof(want_dev), f));
	fclose(f);
	snprintf(buf, sizeof(buf), "%u:%u\n", dev->major, dev->minor);
	assert_string_equal(buf, want_dev);

	snprintf(path, sizeof(path), "/sys/class/block/%s/queue/max_hw_sectors_kb", name);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%llu", &kb), 1);
	fclose(f);
	assert_int_equal(dev->limits.max_hw_sectors_kb, kb);
	assert_true(dev->limits.logical_block_size >= 512);
	assert_true(dev->nr_hw_queues >= 1);
	assert_false(dev->bio_based);
	assert_true(dev->driver[0] != '\0');
	assert_true(dev->module[0] != '\0');

	/* The same disk by number. */
	want_dev[strcspn(want_dev, "\n")] = '\0';
	test_free(dev);
	dev = test_calloc(1, sizeof(*dev));
	assert_non_null(dev);
	if (device__resolve(root, want_dev, dev, &d))
		fail_msg("%s: %s", want_dev, d.msg);
	assert_string_equal(dev->name, name);
	test_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysfs_root),
		cmocka_unit_test(test_xen_seg32),
		cmocka_unit_test(test_xen_seg11),
		cmocka_unit_test(test_xen_seg256),
		cmocka_unit_test(test_xen_backend_limited),
		cmocka_unit_test(test_xen_old_max),
		cmocka_unit_test(test_xen_blkback),
		cmocka_unit_test(test_xen_tapdisk),
		cmocka_unit_test(test_xen_untrusted),
		cmocka_unit_test(test_xen_unreadable),
		cmocka_unit_test(test_xen_dev_forms),
		cmocka_unit_test(test_virtio_blk),
		cmocka_unit_test(test_nvme),
		cmocka_unit_test(test_nvme_multipath),
		cmocka_unit_test(test_sd),
		cmocka_unit_test(test_loop),
		cmocka_unit_test(test_zram),
		cmocka_unit_test(test_dm),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_escape),
		cmocka_unit_test_setup_teardown(test_strict_parsing, make_scratch, remove_scratch),
		cmocka_unit_test_setup_teardown(test_queue_get_set, make_scratch, remove_scratch),
		cmocka_unit_test_setup_teardown(test_xen_node_name, make_scratch, remove_scratch),
		cmocka_unit_test(test_max_request_bytes),
		cmocka_unit_test(test_xen_dom0),
		cmocka_unit_test(test_real_sys),
	};

	return cmocka_run_group_tests_name("device", tests, find_fixtures, NULL);
}
