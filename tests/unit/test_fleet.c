// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What --trace DEVS names (fleet.c) on the fixture trees: `all` is every whole disk with a
 * medium but hidden NVMe paths, lists keep their order, names given twice, missing disks,
 * too many disks and two devices on one disk are refused; the fingerprint moves when a
 * disk gets a medium. Runs from the repository root (BLKTRACE_BENCH_FIXTURES overrides).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "disk/fleet.h"
#include "testutil.h"

static char fixtures[PATH_MAX];
static char root[PATH_MAX + 64];

static int setup(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures));
}

static const char *tree(const char *name)
{
	snprintf(root, sizeof(root), "%s/%s", fixtures, name);
	return root;
}

/* The names f holds, "a b c". */
static const char *names(const struct fleet *f)
{
	static char buf[512];
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < f->n; i++)
		used += snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? " " : "",
				 fleet__name(&f->devs[i]));
	return buf;
}

static void resolves_to(const char *fixture, const char *spec, const char *want)
{
	struct fleet f;
	struct diag d = {};

	if (fleet__resolve(tree(fixture), spec, 64, true, &f, &d))
		fail_msg("%s in %s: %s", spec, fixture, d.msg);
	assert_string_equal(names(&f), want);
	fleet__free(&f);
}

static void refused(const char *fixture, const char *spec, size_t max, bool strict, int err,
		    const char *msg)
{
	struct fleet f;
	struct diag d = {};

	assert_int_equal(fleet__resolve(tree(fixture), spec, max, strict, &f, &d), err);
	assert_true(d.usage);
	assert_non_null(strstr(d.msg, msg));
	assert_null(f.devs);
	assert_int_equal(f.n, 0);
}

static void test_several(void **state)
{
	(void)state;
	assert_true(fleet__several("all"));
	assert_true(fleet__several("xvda,xvdb"));
	assert_false(fleet__several("xvda"));
	assert_false(fleet__several("202:0"));
	assert_false(fleet__several(NULL));
}

static void test_all(void **state)
{
	struct fleet f;

	(void)state;
	/* loop1 is attached to nothing (size 0): no medium, not traced. */
	resolves_to("loop", "all", "loop0 zram0");
	/* The heads, not their hidden paths; each head brings its paths along. */
	resolves_to("nvme-multipath", "all", "nvme1n1 nvme2n1");
	assert_int_equal(fleet__resolve(tree("nvme-multipath"), "all", 64, true, &f, NULL), 0);
	assert_int_equal(f.devs[0].nr_paths, 2);
	assert_true(f.all);
	fleet__free(&f);
	/* Every disk plainly, the dm and md devices and the disks under them alike. */
	resolves_to("dm", "all", "dm-0 md0 vda vdb vdc vdd");
}

static void test_list(void **state)
{
	struct fleet f;
	struct diag d = {};

	(void)state;
	resolves_to("dm", "vdc,vda", "vdc vda");
	resolves_to("dm", "/dev/vdb,254:48", "vdb vdd");
	resolves_to("xen-seg11", "xvda1", "xvda1");
	refused("dm", "vda,vda", 64, true, -EINVAL, "vda is named twice");
	refused("dm", "vda,254:0", 64, true, -EINVAL, "vda is named twice");
	refused("dm", "vda,,vdb", 64, true, -EINVAL, "an empty name in the list");
	refused("dm", "vda,", 64, true, -EINVAL, "an empty name in the list");
	refused("dm", "vda,nosuch", 64, true, -ENOENT, "no such block device: nosuch");
	/* A service re-reading its list while a disk is away keeps the others. */
	assert_int_equal(fleet__resolve(tree("dm"), "vda,nosuch", 64, false, &f, &d), 0);
	assert_string_equal(names(&f), "vda");
	fleet__free(&f);
	refused("dm", "all", 3, true, -E2BIG, "--trace all: 6 disks, at most 3");
	refused("dm", "vda,vdb", 1, true, -E2BIG, "2 disks, at most 1");
}

static void disjoint(const char *fixture, const char *spec, const char *msg)
{
	const struct device *devs[8];
	struct diag d = {};
	struct fleet f;
	size_t i;

	if (fleet__resolve(tree(fixture), spec, 8, true, &f, &d))
		fail_msg("%s in %s: %s", spec, fixture, d.msg);
	for (i = 0; i < f.n; i++)
		devs[i] = &f.devs[i];
	if (msg) {
		assert_int_equal(fleet__check_disjoint(devs, f.n, &d), -EINVAL);
		assert_true(d.usage);
		assert_non_null(strstr(d.msg, msg));
	} else {
		assert_int_equal(fleet__check_disjoint(devs, f.n, &d), 0);
	}
	fleet__free(&f);
}

static void test_disjoint(void **state)
{
	(void)state;
	disjoint("dm", "vda,vdb,dm-0,md0", NULL);
	disjoint("xen-seg11", "xvda1,xvda", "xvda1 and xvda are both on disk xvda");
	/* A hidden path named beside its head: the head traces it already. */
	disjoint("nvme-multipath", "nvme1n1,nvme1c2n1",
		 "nvme1n1 and nvme1c2n1 are both on disk nvme1c2n1");
	disjoint("nvme-multipath", "nvme1n1,nvme2n1", NULL);
}

static void test_fingerprint(void **state)
{
	char dir[] = "/tmp/blktrace-bench-fleet.XXXXXX", cmd[PATH_MAX * 2 + 64],
	     size[PATH_MAX + 96];
	uint64_t all0, all1, list0, list1, one0;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/loop/.' '%s/'", fixtures, dir);
	assert_int_equal(system(cmd), 0);
	all0 = fleet__fingerprint(dir, "all");
	list0 = fleet__fingerprint(dir, "loop0,loop1");
	one0 = fleet__fingerprint(dir, "loop0");
	assert_int_equal(fleet__fingerprint(dir, "all"), all0);
	/* loop1 gets a backing file: a disk with a medium now. */
	snprintf(size, sizeof(size), "%s/devices/virtual/block/loop1/size", dir);
	f = fopen(size, "w");
	assert_non_null(f);
	fputs("2048\n", f);
	assert_int_equal(fclose(f), 0);
	all1 = fleet__fingerprint(dir, "all");
	list1 = fleet__fingerprint(dir, "loop0,loop1");
	assert_int_not_equal(all0, all1);
	assert_int_not_equal(list0, list1);
	/* A list without loop1 did not change. */
	assert_int_equal(fleet__fingerprint(dir, "loop0"), one0);
	assert_int_equal(test_remove_tree(dir), 0);
}

/* A copy of fixture name in a new directory dir (mkdtemp's template). */
static void copy_tree(const char *name, char *dir)
{
	char cmd[PATH_MAX * 2 + 64];

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a '%s/%s/.' '%s/'", fixtures, name, dir);
	assert_int_equal(system(cmd), 0);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The cheap fingerprint of what spec names in root, and that of what it resolves to. */
static void fingerprints(const char *root, const char *spec, uint64_t *cheap, uint64_t *of)
{
	struct diag d = {};
	struct fleet f;

	if (fleet__resolve(root, spec, 64, false, &f, &d))
		fail_msg("%s in %s: %s", spec, root, d.msg);
	*cheap = fleet__fingerprint(root, spec);
	*of = fleet__fingerprint_of(&f);
	fleet__free(&f);
}

/*
 * What serve keeps is the fingerprint of what it resolved: on every tree, for every kind
 * of DEVS, it is the one read cheaply while nothing changes (else serve would resolve
 * every second), and it differs from it while a disk is half made (in /sys/block with
 * dev and size, its queue/ not there yet: add_disk's order), so the disk is resolved
 * again until it is whole, not given up for good.
 */
static void test_fingerprint_of_what_resolved(void **state)
{
	static const char *const cases[][2] = {
		{ "loop", "all" },
		{ "loop", "loop0,loop1" },
		{ "nvme-multipath", "all" },
		{ "dm", "all" },
		{ "dm", "vdc,vda,254:48" },
		{ "xen-seg11", "xvda1" },
		{ "xen-seg11", "xvda1,nosuch" },
	};
	char dir[] = "/tmp/blktrace-bench-fleet.XXXXXX", queue[PATH_MAX], away[PATH_MAX + 8];
	uint64_t cheap, of, before;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fingerprints(tree(cases[i][0]), cases[i][1], &cheap, &of);
		if (cheap != of)
			fail_msg("%s in %s: %#llx read, %#llx resolved", cases[i][1], cases[i][0],
				 (unsigned long long)cheap, (unsigned long long)of);
	}
	copy_tree("loop", dir);
	fingerprints(dir, "all", &cheap, &before);
	snprintf(queue, sizeof(queue), "%s/devices/virtual/block/loop0/queue", dir);
	snprintf(away, sizeof(away), "%s.away", queue);
	assert_int_equal(rename(queue, away), 0);
	fingerprints(dir, "all", &cheap, &of);
	assert_int_equal(cheap, before);
	assert_int_not_equal(cheap, of);
	assert_int_equal(rename(away, queue), 0);
	fingerprints(dir, "all", &cheap, &of);
	assert_int_equal(cheap, of);
	assert_int_equal(test_remove_tree(dir), 0);
}

/*
 * A partition traced by its sector range: moved or resized (sfdisk --no-reread, partx
 * -u), the programs must be reloaded, so the fingerprint moves; it used to be the parent
 * disk's, which did not.
 */
static void test_fingerprint_partition_range(void **state)
{
	static const char part[] = "devices/vbd-51712/block/xvda/xvda1";
	char dir[] = "/tmp/blktrace-bench-fleet.XXXXXX", rel[128];
	uint64_t one, moved, resized, other;

	(void)state;
	copy_tree("xen-seg11", dir);
	one = fleet__fingerprint(dir, "xvda1");
	snprintf(rel, sizeof(rel), "%s/start", part);
	write_file(dir, rel, "4096\n");
	moved = fleet__fingerprint(dir, "xvda1");
	assert_int_not_equal(one, moved);
	snprintf(rel, sizeof(rel), "%s/size", part);
	write_file(dir, rel, "999\n");
	resized = fleet__fingerprint(dir, "xvda1");
	assert_int_not_equal(moved, resized);
	/* Its own dev_t, re-created under another number. */
	snprintf(rel, sizeof(rel), "%s/dev", part);
	write_file(dir, rel, "259:7\n");
	other = fleet__fingerprint(dir, "xvda1");
	assert_int_not_equal(resized, other);
	assert_int_equal(test_remove_tree(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_several),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_disjoint),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_fingerprint_partition_range),
		cmocka_unit_test(test_fingerprint_of_what_resolved),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
