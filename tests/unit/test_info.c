// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The `device` object (report_json_device, carried by every result file and printed by
 * `info --json`) and the `info` text, for every fixture tree in tests/fixtures/sysfs.
 * Runs from the repository root; BLKTRACE_BENCH_FIXTURES overrides where the trees are.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "cli/commands.h"
#include "output/report_json.h"
#include "testutil.h"

static char fixtures[PATH_MAX];
static char kallsyms[] = "/tmp/blktrace-bench-kallsyms.XXXXXX";

static int setup(void **state)
{
	int fd;

	(void)state;
	if (test_find_fixtures(fixtures, sizeof(fixtures)))
		return -1;
	/* The driver-probe notice must not depend on this machine's kernel. */
	fd = mkstemp(kallsyms);
	if (fd < 0 || write(fd, "ffffffff81000000 T _stext\n", 26) != 26 || close(fd))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(kallsyms);
	return 0;
}

/* What main would read from the environment: the fixture's tree and our kallsyms. */
static char root[PATH_MAX + 64];
static struct env_config cfg = { .sysfs_root = root, .kallsyms = kallsyms };

static void use_fixture(const char *fixture)
{
	snprintf(root, sizeof(root), "%s/%s", fixtures, fixture);
}

/* The next command's xenstore: the fake NAME (tests/fixtures/xenstore), or none (NULL). */
static char xenstore[PATH_MAX + 64];

static void use_xenstore(const char *name)
{
	cfg.xenstore =
		name ? test_xenstore_fixture(xenstore, sizeof(xenstore), fixtures, name) : NULL;
}

/* The device object as a file would carry it: dumped and parsed back. */
static json_t *device_json(const char *fixture, const char *spec)
{
	struct device *dev = test_calloc(1, sizeof(*dev));
	const struct device_env env = env_config__device(&cfg);
	json_t *j, *back;
	json_error_t jerr;
	struct diag d = {};
	char *text;

	assert_non_null(dev);
	use_fixture(fixture);
	if (device__resolve_env(&env, spec, dev, &d))
		fail_msg("%s in %s: %s", spec, fixture, d.msg);
	j = report_json__device(dev);
	assert_non_null(j);
	text = json_dumps(j, 0);
	assert_non_null(text);
	back = json_loads(text, 0, &jerr);
	assert_non_null(back);
	free(text);
	json_decref(j);
	test_free(dev);
	return back;
}

/* "a.b.0.c" */
static json_t *at(json_t *root, const char *path)
{
	char buf[256], *tok, *save;
	json_t *v = root;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		v = json_is_array(v) ? json_array_get(v, atoi(tok)) : json_object_get(v, tok);
		if (!v)
			fail_msg("missing %s at %s", path, tok);
	}
	return v;
}

static void int_is(json_t *root, const char *path, long long want)
{
	json_t *v = at(root, path);

	if (!json_is_integer(v) || json_integer_value(v) != want)
		fail_msg("%s: expected %lld", path, want);
}

static void str_is(json_t *root, const char *path, const char *want)
{
	json_t *v = at(root, path);

	if (!json_is_string(v))
		fail_msg("%s: not a string", path);
	assert_string_equal(json_string_value(v), want);
}

static void null_is(json_t *root, const char *path)
{
	if (!json_is_null(at(root, path)))
		fail_msg("%s: expected null", path);
}

static void bool_is(json_t *root, const char *path, bool want)
{
	json_t *v = at(root, path);

	if (!json_is_boolean(v) || json_boolean_value(v) != want)
		fail_msg("%s: expected %s", path, want ? "true" : "false");
}

static void size_is(json_t *root, const char *path, size_t want)
{
	json_t *v = at(root, path);

	if (json_is_array(v))
		assert_int_equal(json_array_size(v), want);
	else if (json_is_object(v))
		assert_int_equal(json_object_size(v), want);
	else
		fail_msg("%s: not an array or object", path);
}

static void no_driver_objects(json_t *d, bool xen)
{
	if (!xen)
		null_is(d, "xen_blkfront");
	null_is(d, "virtio_blk");
	null_is(d, "nvme");
	null_is(d, "loop");
}

static void test_xen_seg32(void **state)
{
	json_t *d = device_json("xen-seg32", "xvda");

	(void)state;
	/* Existing keys keep their names. */
	str_is(d, "name", "xvda");
	int_is(d, "major", 202);
	int_is(d, "minor", 0);
	int_is(d, "size_bytes", 20971520LL * 512);
	str_is(d, "driver", "vbd");
	str_is(d, "module", "xen_blkfront");
	int_is(d, "limits.max_sectors_kb", 128);
	int_is(d, "limits.max_hw_sectors_kb", 128);
	int_is(d, "limits.max_segments", 32);
	int_is(d, "limits.max_segment_size", 4096);
	int_is(d, "limits.nr_requests", 64);
	str_is(d, "limits.scheduler", "none");
	int_is(d, "limits.read_ahead_kb", 128);
	int_is(d, "limits.wbt_lat_usec", 2000);
	bool_is(d, "limits.rotational", false);
	int_is(d, "limits.nomerges", 0);
	str_is(d, "limits.write_cache", "write back");
	int_is(d, "limits.logical_block_size", 512);
	int_is(d, "limits.physical_block_size", 512);
	null_is(d, "partition");
	int_is(d, "nr_hw_queues", 2);
	int_is(d, "max_tags", 32);

	int_is(d, "xen_blkfront.max_indirect_segments", 32);
	int_is(d, "xen_blkfront.segments", 32);
	bool_is(d, "xen_blkfront.indirect_descriptors", true);
	int_is(d, "xen_blkfront.max_request_bytes", 131072);
	int_is(d, "xen_blkfront.max_ring_page_order", 0);
	int_is(d, "xen_blkfront.max_queues", 4);
	int_is(d, "xen_blkfront.feature_persistent", 1);
	str_is(d, "xen_blkfront.parameter_name", "xen_blkfront.max_indirect_segments");
	str_is(d, "xen_blkfront.boot_parameter", "xen_blkfront.max_indirect_segments=32");
	bool_is(d, "xen_blkfront.backend_limited", false);

	int_is(d, "max_request_bytes", 131072);
	str_is(d, "max_request_limit", "max_sectors_kb+max_segments");
	bool_is(d, "bio_based", false);
	size_is(d, "partitions", 1);
	str_is(d, "partitions.0.name", "xvda1");
	int_is(d, "partitions.0.major", 202);
	int_is(d, "partitions.0.minor", 1);
	int_is(d, "partitions.0.number", 1);
	int_is(d, "partitions.0.start_sector", 2048);
	int_is(d, "partitions.0.sectors", 20969472);
	int_is(d, "partitions.0.holders", 0);
	size_is(d, "slaves", 0);
	size_is(d, "holders", 0);
	size_is(d, "module_parameters", 4);
	str_is(d, "module_parameters.feature_persistent", "Y");
	str_is(d, "module_parameters.max_indirect_segments", "32");
	str_is(d, "module_parameters.max_queues", "4");
	str_is(d, "module_parameters.max_ring_page_order", "0");
	null_is(d, "dm_name");
	null_is(d, "md_level");
	null_is(d, "scsi_queue_depth");
	no_driver_objects(d, true);
	json_decref(d);

	/* A partition: the disk's object plus its range. */
	d = device_json("xen-seg32", "xvda1");
	str_is(d, "name", "xvda");
	str_is(d, "partition.name", "xvda1");
	int_is(d, "partition.major", 202);
	int_is(d, "partition.minor", 1);
	int_is(d, "partition.start_sector", 2048);
	int_is(d, "partition.sectors", 20969472);
	size_is(d, "partitions", 1);
	json_decref(d);
}

static void test_xen_seg11_and_limited(void **state)
{
	json_t *d = device_json("xen-seg11", "xvda");

	(void)state;
	int_is(d, "xen_blkfront.segments", 11);
	bool_is(d, "xen_blkfront.indirect_descriptors", false);
	int_is(d, "xen_blkfront.max_request_bytes", 45056);
	str_is(d, "xen_blkfront.boot_parameter", "xen_blkfront.max_indirect_segments=11");
	bool_is(d, "xen_blkfront.backend_limited", false);
	int_is(d, "max_request_bytes", 45056);
	json_decref(d);

	d = device_json("xen-backend-limited", "xvda");
	int_is(d, "xen_blkfront.max_indirect_segments", 32);
	int_is(d, "xen_blkfront.segments", 11);
	bool_is(d, "xen_blkfront.indirect_descriptors", false);
	str_is(d, "xen_blkfront.boot_parameter", "xen_blkfront.max_indirect_segments=32");
	bool_is(d, "xen_blkfront.backend_limited", true);
	json_decref(d);

	d = device_json("xen-seg256", "xvda");
	int_is(d, "xen_blkfront.segments", 256);
	int_is(d, "xen_blkfront.max_request_bytes", 1048576);
	int_is(d, "xen_blkfront.max_ring_page_order", 2);
	int_is(d, "xen_blkfront.feature_persistent", 0);
	int_is(d, "max_request_bytes", 1048576);
	json_decref(d);
}

/* The negotiation's keys (doc/json.md), for blkback's 256 and the module's 32. */
static void test_xen_negotiated_json(void **state)
{
	json_t *d;

	(void)state;
	use_xenstore("blkback");
	d = device_json("xen-seg32", "xvda");
	str_is(d, "xen_blkfront.frontend", "device/vbd/51712");
	int_is(d, "xen_blkfront.frontend_state", 4);
	null_is(d, "xen_blkfront.xenstore_error");
	int_is(d, "xen_blkfront.backend.domid", 0);
	int_is(d, "xen_blkfront.backend.state", 4);
	int_is(d, "xen_blkfront.backend.max_indirect_segments", 256);
	int_is(d, "xen_blkfront.backend.persistent_grants", 1);
	int_is(d, "xen_blkfront.backend.max_queues", 2);
	int_is(d, "xen_blkfront.backend.max_ring_page_order", 4);
	int_is(d, "xen_blkfront.backend.flush_cache", 1);
	int_is(d, "xen_blkfront.backend.barrier", 1);
	int_is(d, "xen_blkfront.backend.discard", 1);
	size_is(d, "xen_blkfront.backend", 9);
	int_is(d, "xen_blkfront.segments_in_effect", 32);
	str_is(d, "xen_blkfront.segments_reason", "module_asks");
	int_is(d, "xen_blkfront.queues", 2);
	int_is(d, "xen_blkfront.ring_pages", 1);
	int_is(d, "xen_blkfront.ring_requests", 32);
	bool_is(d, "xen_blkfront.persistent_grants", true);
	bool_is(d, "xen_blkfront.bounce_buffer", true);
	str_is(d, "xen_blkfront.cache_flush", "flush");
	bool_is(d, "xen_blkfront.discard", true);
	/* sysfs's view beside it, as before. */
	int_is(d, "xen_blkfront.segments", 32);
	int_is(d, "xen_blkfront.max_request_bytes", 131072);
	json_decref(d);

	d = device_json("xen-seg11", "xvda");
	int_is(d, "xen_blkfront.segments_in_effect", 11);
	str_is(d, "xen_blkfront.segments_reason", "module_turns_off");
	json_decref(d);
	d = device_json("xen-seg512", "xvda");
	int_is(d, "xen_blkfront.max_indirect_segments", 512);
	int_is(d, "xen_blkfront.segments_in_effect", 256);
	str_is(d, "xen_blkfront.segments_reason", "backend_caps");
	json_decref(d);

	use_xenstore("tapdisk");
	d = device_json("xen-backend-limited", "xvda");
	int_is(d, "xen_blkfront.backend.max_indirect_segments", 0);
	int_is(d, "xen_blkfront.segments_in_effect", 11);
	str_is(d, "xen_blkfront.segments_reason", "backend_offers_none");
	bool_is(d, "xen_blkfront.persistent_grants", false);
	bool_is(d, "xen_blkfront.discard", false);
	json_decref(d);

	/* Unreadable: one reason, every negotiated key null, sysfs's view whole. */
	use_xenstore("nonexistent");
	d = device_json("xen-seg32", "xvda");
	str_is(d, "xen_blkfront.frontend", "device/vbd/51712");
	at(d, "xen_blkfront.xenstore_error");
	null_is(d, "xen_blkfront.backend");
	null_is(d, "xen_blkfront.segments_in_effect");
	null_is(d, "xen_blkfront.segments_reason");
	null_is(d, "xen_blkfront.persistent_grants");
	int_is(d, "xen_blkfront.segments", 32);
	json_decref(d);

	/* A fixture tree without a fake: nothing of xenstore at all. */
	use_xenstore(NULL);
	d = device_json("xen-seg32", "xvda");
	null_is(d, "xen_blkfront.frontend");
	null_is(d, "xen_blkfront.xenstore_error");
	null_is(d, "xen_blkfront.backend");
	null_is(d, "xen_blkfront.queues");
	json_decref(d);
}

static void test_xen_old_max(void **state)
{
	json_t *d = device_json("xen-old-max", "xvda");

	(void)state;
	int_is(d, "xen_blkfront.max_indirect_segments", 32);
	str_is(d, "xen_blkfront.parameter_name", "xen_blkfront.max");
	str_is(d, "xen_blkfront.boot_parameter", "xen_blkfront.max=32");
	null_is(d, "xen_blkfront.max_queues");
	null_is(d, "xen_blkfront.feature_persistent");
	null_is(d, "limits.wbt_lat_usec");
	str_is(d, "limits.write_cache", "");
	size_is(d, "partitions", 0);
	size_is(d, "module_parameters", 2);
	str_is(d, "module_parameters.max", "32");
	json_decref(d);
}

static void test_virtio_blk(void **state)
{
	json_t *d = device_json("virtio-blk", "vda");

	(void)state;
	str_is(d, "driver", "virtio_blk");
	int_is(d, "virtio_blk.queue_depth", 128);
	int_is(d, "virtio_blk.queue_depth_parameter", 0);
	size_is(d, "paths", 0);
	int_is(d, "virtio_blk.num_request_queues", 2);
	int_is(d, "virtio_blk.poll_queues", 0);
	int_is(d, "virtio_blk.host_max_segments", 254);
	null_is(d, "xen_blkfront");
	null_is(d, "nvme");
	null_is(d, "loop");
	int_is(d, "max_request_bytes", 4096 * 1024);
	str_is(d, "max_request_limit", "max_sectors_kb");
	size_is(d, "partitions", 2);
	str_is(d, "partitions.1.name", "vda2");
	int_is(d, "partitions.1.start_sector", 264192);
	int_is(d, "partitions.1.sectors", 536604672);
	size_is(d, "module_parameters", 3);
	json_decref(d);
}

static void test_nvme_multipath(void **state)
{
	json_t *d = device_json("nvme-multipath", "nvme1n1");

	(void)state;
	str_is(d, "driver", "nvme");
	int_is(d, "nr_hw_queues", 2);
	int_is(d, "max_tags", 1023);
	size_is(d, "paths", 2);
	str_is(d, "paths.0.name", "nvme1c1n1");
	str_is(d, "paths.1.controller", "nvme2");
	str_is(d, "paths.1.state", "live");
	int_is(d, "paths.1.max_tags", 1023);
	json_decref(d);
}

static void test_nvme(void **state)
{
	json_t *d = device_json("nvme", "nvme0n1");

	(void)state;
	int_is(d, "nvme.io_queue_depth", 1024);
	int_is(d, "nvme.poll_queues", 0);
	int_is(d, "nvme.write_queues", 0);
	int_is(d, "nvme.max_hw_sectors_kb", 2048);
	int_is(d, "nvme.queues", 2);
	null_is(d, "virtio_blk");
	null_is(d, "xen_blkfront");
	json_decref(d);
}

static void test_sd_loop_zram(void **state)
{
	json_t *d = device_json("sd", "sda");

	(void)state;
	str_is(d, "module", "sd_mod");
	int_is(d, "scsi_queue_depth", 32);
	size_is(d, "module_parameters", 0);
	no_driver_objects(d, false);
	json_decref(d);

	d = device_json("loop", "loop0");
	str_is(d, "loop.backing_file", "/dev/shm/blktrace-bench.img");
	bool_is(d, "loop.dio", true);
	str_is(d, "module_parameters.max_part", "0");
	int_is(d, "max_request_bytes", 1280 * 1024);
	json_decref(d);

	d = device_json("loop", "loop1");
	null_is(d, "loop");
	json_decref(d);

	d = device_json("loop", "zram0");
	bool_is(d, "bio_based", true);
	size_is(d, "slaves", 0);
	no_driver_objects(d, false);
	json_decref(d);
}

static void test_dm_md(void **state)
{
	json_t *d = device_json("dm", "dm-0");

	(void)state;
	bool_is(d, "bio_based", true);
	str_is(d, "dm_name", "vg0-data");
	null_is(d, "md_level");
	size_is(d, "slaves", 2);
	str_is(d, "slaves.0", "vda2");
	str_is(d, "slaves.1", "vdb");
	size_is(d, "holders", 0);
	int_is(d, "nr_hw_queues", 0);
	json_decref(d);

	d = device_json("dm", "md0");
	str_is(d, "md_level", "raid1");
	str_is(d, "slaves.0", "vdc");
	json_decref(d);

	d = device_json("dm", "vdb");
	bool_is(d, "bio_based", false);
	size_is(d, "holders", 1);
	str_is(d, "holders.0", "dm-0");
	json_decref(d);

	d = device_json("dm", "vda");
	int_is(d, "partitions.1.holders", 1);
	json_decref(d);
}

/* Run `info` with stdout and stderr in files; returns its exit code. */
static int run_info(const char *fixture, const char *spec, bool json, char **out, char **err)
{
	char *argv[] = { "blktrace-bench", "info", (char *)spec, json ? "--json" : NULL, NULL };
	char paths[2][64] = { "/tmp/bb-info-out.XXXXXX", "/tmp/bb-info-err.XXXXXX" };
	char **bufs[2] = { out, err };
	int fds[2], saved[2], i, rc;

	use_fixture(fixture);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < 2; i++) {
		fds[i] = mkstemp(paths[i]);
		assert_true(fds[i] >= 0);
		saved[i] = dup(i + 1);
		dup2(fds[i], i + 1);
	}
	rc = commands__run(json ? 4 : 3, argv, &cfg);
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < 2; i++) {
		FILE *f;
		long n;

		dup2(saved[i], i + 1);
		close(saved[i]);
		f = fdopen(fds[i], "r");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		*bufs[i] = calloc(1, n + 1);
		assert_non_null(*bufs[i]);
		assert_int_equal(fread(*bufs[i], 1, n, f), (size_t)n);
		fclose(f);
		unlink(paths[i]);
	}
	return rc;
}

static void has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("\"%s\" not in:\n%s", part, text);
}

static void test_info_text(void **state)
{
	char *out, *err;

	(void)state;
	assert_int_equal(run_info("xen-backend-limited", "xvda", false, &out, &err), 0);
	has(out, "xvda (202:0), 10 GiB, driver vbd, module xen_blkfront\n");
	has(out, "partitions:\n  xvda1      202:1      start sector 2048, 20969472 sectors");
	has(out, "  max_hw_sectors_kb      44 KiB\n");
	has(out, "  wbt_lat_usec           2000 us\n");
	has(out, "  write_cache            write back\n");
	has(out, "  hardware queues        2 (largest nr_tags 32)\n");
	has(out, "largest request: 44 KiB, set by max_sectors_kb and max_segments x "
		 "max_segment_size (11 x 4 KiB)\n");
	has(out, "module parameters (xen_blkfront):\n  feature_persistent     Y\n");
	has(out, "xen-blkfront:\n  segments               11 (negotiated: queue/max_segments)\n");
	has(out, "  indirect descriptors   off (11 segments or fewer)\n");
	has(out, "  max_indirect_segments  32 (module parameter)\n");
	has(out, "  max_request_bytes      45056 (44 KiB)\n");
	has(out, "  boot parameter         xen_blkfront.max_indirect_segments=32 (boot or "
		 "modprobe)\n");
	has(out, "  the module asks for 32 segments but the backend limits it to 11\n");
	/* The probes notice goes to stderr, once per process. */
	has(err, "blktrace-bench: xen-blkfront driver probes not available (blkif_queue_rq and "
		 "blkif_interrupt not in ");
	has(err, "); showing the block-layer view\n");
	free(out);
	free(err);

	assert_int_equal(run_info("xen-seg11", "xvda", false, &out, &err), 0);
	has(out, "xen_blkfront.max_indirect_segments=32 (the default) or more turns indirect "
		 "descriptors on");
	/* Below a fixture tree without a fake, nothing of xenstore. */
	assert_null(strstr(out, "xenstore"));
	assert_string_equal(err, "");
	free(out);
	free(err);

	assert_int_equal(run_info("dm", "dm-0", false, &out, &err), 0);
	has(out, "device-mapper: vg0-data\n");
	has(out, "stack (traced with dm-0):\n");
	has(out, "\n  dm-0                 1280      254      8192 -            device-mapper\n");
	has(out, " mq-deadline  disk (virtio_blk)\n    vdb ");
	has(out, "\n    vda2 ");
	free(out);
	free(err);

	assert_int_equal(run_info("dm", "md0", false, &out, &err), 0);
	has(out, " md raid1\n");
	has(out, "\n    vdc  ");
	has(out, " mq-deadline  disk (virtio_blk), raid1 member\n    vdd ");
	free(out);
	free(err);

	assert_int_equal(run_info("virtio-blk", "vda2", false, &out, &err), 0);
	has(out, "partition vda2 (254:2): start sector 264192, 536604672 sectors");
	has(out, "virtio_blk:\n  queue_depth            128 (per hardware queue: mq/*/nr_tags)\n"
		 "  queue_depth parameter  0 (module parameter: 0 = the virtqueue size)\n");
	has(out, "  host segment limit     254 (seg_max)\n");
	has(out, "largest request: 4 MiB, set by max_sectors_kb; max_hw_sectors_kb would allow");
	free(out);
	free(err);

	assert_int_equal(run_info("nvme", "nvme0n1", false, &out, &err), 0);
	has(out, "nvme:\n  io_queue_depth         1024 (module parameter)\n"
		 "  max_hw_sectors_kb      2048 KiB (MDTS)\n  queues                 2\n"
		 "  queue depth            1023\n");
	free(out);
	free(err);

	assert_int_equal(run_info("nvme-multipath", "nvme2n1", false, &out, &err), 0);
	has(out, "nvme2n1 (259:20), 256 MiB, driver nvme, module nvme\n");
	has(out, "nvme multipath: nvme2n1 is the head; its requests are issued on 2 paths, traced "
		 "with it:\n  nvme2c3n1              controller nvme3, live, 2 hardware queues x "
		 "1023 tags\n  nvme2c4n1              controller nvme4, live, 2 hardware queues x "
		 "1023 tags\n");
	assert_null(strstr(out, "bio-based"));
	free(out);
	free(err);

	assert_int_equal(run_info("nvme-multipath", "nvme2c3n1", false, &out, &err), 0);
	has(out, "nvme2c3n1 (0:0), 256 MiB, driver nvme, module nvme\n");
	has(out, "nvme2c3n1 is a hidden disk (an NVMe multipath path): no device node, traced by "
		 "name\n");
	free(out);
	free(err);

	assert_int_equal(run_info("loop", "loop0", false, &out, &err), 0);
	has(out, "loop:\n  backing file           /dev/shm/blktrace-bench.img\n"
		 "  direct I/O             on\n");
	free(out);
	free(err);
}

/* info xvda on xen: what the backend offered and what was negotiated, and why. */
static void test_info_xenstore_text(void **state)
{
	char *out, *err;

	(void)state;
	use_xenstore("blkback");
	assert_int_equal(run_info("xen-seg32", "xvda", false, &out, &err), 0);
	has(out,
	    "xen-blkfront negotiation (xenstore):\n"
	    "  frontend               device/vbd/51712 (Connected)\n"
	    "  backend                /local/domain/0/backend/vbd/1/51712, domain 0 "
	    "(Connected)\n"
	    "  backend offers         256 indirect segments\n"
	    "  backend also offers    2 queues, ring order 4, persistent grants, flush-cache, "
	    "discard\n"
	    "  segments in effect     32: max_indirect_segments=32, within the 256 the backend "
	    "offers\n"
	    "  largest request        128 KiB (32 segments x 4 KiB)\n"
	    "  queues                 2 (the frontend's multi-queue-num-queues)\n"
	    "  ring                   1 page, 32 requests per queue\n"
	    "  persistent grants      on\n"
	    "  bounce buffer          on: data is copied through granted pages\n"
	    "  cache flush            flush (feature-flush-cache)\n"
	    "  discard                on\n");
	free(out);
	free(err);

	/* max_indirect_segments=0: 11 segments, 44 KiB, and the guest's parameter says why. */
	assert_int_equal(run_info("xen-seg11", "xvda", false, &out, &err), 0);
	has(out, "  segments in effect     11: max_indirect_segments=11 turns indirect descriptors "
		 "off (as any value up to 11 does; the backend offers 256)\n"
		 "  largest request        44 KiB (11 segments x 4 KiB)\n");
	has(out, "  xen_blkfront.max_indirect_segments=32 (the default) or more turns indirect "
		 "descriptors on: the backend offers 256\n");
	free(out);
	free(err);

	assert_int_equal(run_info("xen-seg512", "xvda", false, &out, &err), 0);
	has(out, "  max_indirect_segments  512 (module parameter)\n");
	has(out, "  segments in effect     256: the backend caps the 512 asked at 256\n"
		 "  largest request        1 MiB (256 segments x 4 KiB)\n");
	has(out, "the module asks for 512 segments but the backend limits it to 256: only the "
		 "host can raise it\n");
	free(out);
	free(err);

	use_xenstore("tapdisk");
	assert_int_equal(run_info("xen-backend-limited", "xvda", false, &out, &err), 0);
	has(out, "  backend offers         no indirect descriptors\n"
		 "  backend also offers    1 queue, ring order 0, no persistent grants, "
		 "flush-cache, no discard\n"
		 "  segments in effect     11: the backend offers no indirect descriptors (as "
		 "XCP-ng's tapdisk does)\n"
		 "  largest request        44 KiB (11 segments x 4 KiB)\n");
	free(out);
	free(err);

	/* Unreadable: one line saying why, after the sysfs view, and exit 0. */
	use_xenstore("nonexistent");
	assert_int_equal(run_info("xen-seg32", "xvda", false, &out, &err), 0);
	has(out, "xen-blkfront:\n  segments               32 (negotiated: queue/max_segments)\n");
	has(out, "nonexistent.txt: No such file or directory; the view above is sysfs's\n");
	assert_int_equal(strstr(strstr(out, "  xenstore               not read: "), "\n")[1], 0);
	assert_null(strstr(out, "negotiation"));
	free(out);
	free(err);

	use_xenstore("no-backend");
	assert_int_equal(run_info("xen-seg32", "xvda", false, &out, &err), 0);
	has(out, "  backend                /local/domain/0/backend/vbd/1/51712, domain 0 (not "
		 "read)\n"
		 "  segments in effect     unknown (the backend's offer is unknown)\n");
	has(out, "  not read               /local/domain/0/backend/vbd/1/51712 has no state: "
		 "gone, or hidden from this domain\n");
	free(out);
	free(err);
	use_xenstore(NULL);
}

static void test_info_json(void **state)
{
	json_error_t jerr;
	json_t *doc;
	char *out, *err;

	(void)state;
	assert_int_equal(run_info("xen-seg32", "202:1", true, &out, &err), 0);
	doc = json_loads(out, 0, &jerr);
	if (!doc)
		fail_msg("not JSON: %s\n%s", jerr.text, out);
	str_is(doc, "schema", "blktrace-bench/1");
	str_is(doc, "device.partition.name", "xvda1");
	str_is(doc, "device.xen_blkfront.boot_parameter", "xen_blkfront.max_indirect_segments=32");
	assert_int_equal(json_object_size(doc), 2);
	json_decref(doc);
	free(out);
	free(err);

	use_xenstore("blkback");
	assert_int_equal(run_info("xen-seg32", "xvda", true, &out, &err), 0);
	doc = json_loads(out, 0, &jerr);
	if (!doc)
		fail_msg("not JSON: %s\n%s", jerr.text, out);
	int_is(doc, "device.xen_blkfront.backend.max_indirect_segments", 256);
	int_is(doc, "device.xen_blkfront.segments_in_effect", 32);
	json_decref(doc);
	free(out);
	free(err);
	use_xenstore(NULL);

	assert_int_equal(run_info("xen-seg32", "nosuchdisk", true, &out, &err), EXIT_USAGE);
	assert_string_equal(out, "");
	has(err, "no such block device: nosuchdisk");
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xen_seg32),
		cmocka_unit_test(test_xen_seg11_and_limited),
		cmocka_unit_test(test_xen_old_max),
		cmocka_unit_test(test_virtio_blk),
		cmocka_unit_test(test_nvme),
		cmocka_unit_test(test_nvme_multipath),
		cmocka_unit_test(test_sd_loop_zram),
		cmocka_unit_test(test_dm_md),
		cmocka_unit_test(test_info_text),
		cmocka_unit_test(test_info_json),
		cmocka_unit_test(test_xen_negotiated_json),
		cmocka_unit_test(test_info_xenstore_text),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
