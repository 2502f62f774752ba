// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The members of the BPF disk filter as the loader sets them: a fleet's members beyond
 * the read-only arrays each found, by the programs' own probe (BLKIO_MEMBER_HASH, at most
 * BLKIO_MEMBER_PROBES slots from its hash), in the table bpf_members__fill_map writes;
 * every device's hardware queues a range of the `queues` map of its own, a multipath
 * head's those of its paths.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/bpf.h>
#include "base/diag.h"
#include "trace/bpf_members.h"

/*
 * member_map as fill_map writes it: this bpf_map_update_elem, which the test's own
 * definition puts in the place of libbpf's, writes into this array.
 */
static struct blkio_member table[1 << 16];
static unsigned int table_size;

int bpf_map_update_elem(int fd, const void *key, const void *value, __u64 flags)
{
	__u32 k = *(const __u32 *)key;

	(void)fd;
	(void)flags;
	if (k >= table_size)
		return -1;
	memcpy(&table[k], value, sizeof(table[k]));
	return 0;
}

/* The lookup of bpf/members.bpf.h, on the table. */
static const struct blkio_member *lookup(const struct blkio_filter *f, __u32 dev)
{
	__u32 h = BLKIO_MEMBER_HASH(dev, f->map_shift), i;

	for (i = 0; i < BLKIO_MEMBER_PROBES && i < f->map_probes; i++) {
		const struct blkio_member *m = &table[h + i];

		if (!m->dev)
			break;
		if (m->dev == dev)
			return m;
	}
	return NULL;
}

static void fleet(unsigned int n, unsigned int major, unsigned int step)
{
	struct device *devs = calloc(n, sizeof(*devs));
	const struct device **ptrs = calloc(n, sizeof(*ptrs));
	struct member_set *ms = calloc(1, sizeof(*ms));
	struct blkio_filter f = {};
	struct diag d = {};
	unsigned int i;

	assert_non_null(devs);
	assert_non_null(ptrs);
	assert_non_null(ms);
	for (i = 0; i < n; i++) {
		devs[i].major = major;
		devs[i].minor = i * step;
		devs[i].nr_hw_queues = 1 + i % 3;
		devs[i].max_tags = 64;
		snprintf(devs[i].name, sizeof(devs[i].name), "d%u", i);
		ptrs[i] = &devs[i];
	}
	assert_int_equal(bpf_members__set(&f, ms, ptrs, n, &d), 0);
	assert_int_equal(ms->n + ms->in_map, n);
	memset(table, 0, sizeof(table));
	table_size = ms->map_entries;
	assert_true(table_size <= sizeof(table) / sizeof(table[0]));
	assert_int_equal(bpf_members__fill_map(ms, -1), 0);
	for (i = BLKIO_MAX_DISKS; i < n; i++) {
		const struct blkio_member *m = lookup(&f, BLKIO_DEV(major, i * step));

		assert_non_null(m);
		assert_int_equal(m->device, i);
	}
	assert_null(lookup(&f, BLKIO_DEV(major + 1, 0)));
	/* Each device's queues: its own range, one after the other. */
	for (i = 0; i < n; i++) {
		assert_int_equal(ms->dev_queues[i], devs[i].nr_hw_queues);
		if (i)
			assert_int_equal(ms->dev_queue[i],
					 ms->dev_queue[i - 1] + ms->dev_queues[i - 1]);
	}
	free(devs);
	free(ptrs);
	free(ms);
}

/* Loop disks (7:0, 7:1, ...), SCSI disks 16 minors apart, and as many as are allowed. */
static void test_fleets_found(void **state)
{
	(void)state;
	fleet(9, 7, 1);
	fleet(256, 7, 1);
	fleet(256, 8, 16);
	fleet(BLKIO_MAX_DEVICES, 259, 1);
}

/* A multipath head issues nothing: its queues are its paths'; a dm device has one. */
static void test_queues_of_heads_and_stacks(void **state)
{
	struct device head = { .major = 259, .minor = 0, .nr_paths = 2 }, dm = { .major = 253 };
	const struct device *devs[] = { &head, &dm };
	struct member_set *ms = calloc(1, sizeof(*ms));
	struct blkio_filter f = {};
	struct diag d = {};

	(void)state;
	assert_non_null(ms);
	snprintf(head.name, sizeof(head.name), "nvme1n1");
	snprintf(head.paths[0].name, sizeof(head.paths[0].name), "nvme1c1n1");
	snprintf(head.paths[1].name, sizeof(head.paths[1].name), "nvme1c2n1");
	head.paths[0].nr_hw_queues = head.paths[1].nr_hw_queues = 2;
	snprintf(dm.name, sizeof(dm.name), "dm-0");
	dm.bio_based = true;
	assert_int_equal(bpf_members__set(&f, ms, devs, 2, &d), 0);
	assert_int_equal(ms->dev_queue[0], 0);
	assert_int_equal(ms->dev_queues[0], 4);
	assert_int_equal(ms->dev_queues[1], 1);
	assert_int_equal(f.members[0].dev_queues, 4); /* the head's own member */
	assert_int_equal(f.members[1].queue, 0);      /* its first path's queues come first */
	assert_int_equal(f.members[2].queue, 2);
	assert_int_equal(f.members[1].depth_mask, 15); /* 4 queues: 1 issue in 16 */
	assert_int_equal(ms->queues, 5);
	free(ms);
}

/*
 * Counted per CPU, a disk of one queue reads a line of each CPU for its depth: sampled by
 * the CPUs, 1 issue in at least 4 x CPUS. Several queues, and a bio-based device, keep
 * theirs.
 */
static void test_sample_per_cpu(void **state)
{
	struct device one = { .major = 7, .minor = 0, .nr_hw_queues = 1 },
		      four = { .major = 259, .minor = 0, .nr_hw_queues = 4 }, dm = { .major = 253 };
	const struct device *devs[] = { &one, &four, &dm };
	struct member_set *ms = calloc(1, sizeof(*ms));
	struct blkio_filter f = {};
	struct diag d = {};

	(void)state;
	assert_non_null(ms);
	snprintf(one.name, sizeof(one.name), "loop0");
	snprintf(four.name, sizeof(four.name), "nvme0n1");
	snprintf(dm.name, sizeof(dm.name), "dm-0");
	dm.bio_based = true;
	assert_int_equal(bpf_members__set(&f, ms, devs, 3, &d), 0);
	assert_int_equal(f.members[0].depth_mask, 15);
	bpf_members__sample_per_cpu(&f, ms, 64);
	assert_int_equal(f.members[0].depth_mask, 255); /* 64 CPUs: 1 in 256 */
	assert_int_equal(f.members[1].depth_mask, 15);	/* 4 queues: its own */
	assert_int_equal(f.members[2].depth_mask, 15);	/* bio-based: its own */
	bpf_members__sample_per_cpu(&f, ms, 2);
	assert_int_equal(f.members[0].depth_mask, 15); /* 2 CPUs: at least 1 in 16 */
	free(ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fleets_found),
		cmocka_unit_test(test_queues_of_heads_and_stacks),
		cmocka_unit_test(test_sample_per_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
