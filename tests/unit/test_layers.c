// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Stacks on the fixture trees: what stack__discover finds under dm-0 and md0, and the
 * findings across layers (layers.c) for hand-made runs whose answers are known: a RAID1
 * that writes every byte twice and spreads reads, splits at a member's max_sectors_kb,
 * reads that never reach the disk below.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/diag.h"
#include "analysis/layers.h"
#include "disk/stack.h"
#include "analysis/summary.h"
#include "testutil.h"

static char fixtures[PATH_MAX];

static int find_fixtures(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures));
}

/* A result for TOP in the dm fixture, its stack discovered, one run with zeroed stats. */
static struct result *stack_result(const char *top)
{
	struct result *res = test_calloc(1, sizeof(*res));
	char root[PATH_MAX + 8];
	struct diag d = {};
	struct stack st;

	assert_non_null(res);
	snprintf(root, sizeof(root), "%s/dm", fixtures);
	if (device__resolve(root, top, &res->device, &d))
		fail_msg("%s: %s", top, d.msg);
	res->has_device = true;
	assert_int_equal(stack__discover(root, &res->device, &st, &d), 0);
	res->layers = st.layers;
	res->nr_layers = st.n;
	assert_non_null(result__add_run(res, true, false));
	return res;
}

static void result_free(struct result *res)
{
	result__free(res);
	test_free(res);
}

/* n I/Os of op, each bytes long, on node (0: the top, 1..: the layers). */
static void add_io(struct result *res, int node, enum blkio_op op, uint64_t bytes, uint64_t n)
{
	struct block_stats *b = &res->runs[0].block[node];
	enum blkio_size_kind sk = op == BLKIO_OP_READ ? BLKIO_SIZE_READ : BLKIO_SIZE_WRITE;

	b->c.requests[op] += n;
	b->c.bytes[op] += n * bytes;
	b->size[sk][hist_size_index(bytes)] += n;
	if (bytes > b->max.bytes)
		b->max.bytes = bytes;
}

static int findings(const struct result *res, struct finding *f)
{
	memset(f, 0, FINDINGS_MAX * sizeof(*f));
	return layers__findings(res, &res->runs[0], f, FINDINGS_MAX);
}

static void test_discover(void **state)
{
	struct result *res;

	(void)state;
	res = stack_result("md0");
	assert_int_equal(res->nr_layers, 2);
	assert_string_equal(res->layers[0].dev.name, "vdc");
	assert_string_equal(res->layers[1].dev.name, "vdd");
	assert_int_equal(res->layers[0].above, -1);
	assert_int_equal(res->layers[0].level, 1);
	assert_int_equal(res->layers[0].link, LAYER_SLAVE);
	assert_string_equal(res->layers[0].role, "disk (virtio_blk), raid1 member");
	result_free(res);

	/* A partition as a slave: its whole disk, filtered to the partition. */
	res = stack_result("dm-0");
	assert_int_equal(res->nr_layers, 2);
	assert_string_equal(res->layers[0].dev.name, "vda");
	assert_string_equal(res->layers[0].dev.part_name, "vda2");
	assert_string_equal(res->layers[1].dev.name, "vdb");
	result_free(res);

	/* A disk has nothing under it. */
	res = stack_result("vdb");
	assert_int_equal(res->nr_layers, 0);
	result_free(res);
}

static void test_raid1(void **state)
{
	struct result *res = stack_result("md0");
	struct finding f[FINDINGS_MAX];
	uint64_t mib = 1 << 20;

	(void)state;
	/* 64 writes of 1 MiB: each mirror gets all of them, split at 256 KiB. */
	res->layers[0].dev.limits.max_sectors_kb = 256;
	add_io(res, 0, BLKIO_OP_WRITE, mib, 64);
	add_io(res, 1, BLKIO_OP_WRITE, 256 << 10, 256);
	add_io(res, 2, BLKIO_OP_WRITE, 256 << 10, 256);
	/* 32 reads of 1 MiB as 128 KiB requests (below the limit), 5/8 from vdc. */
	add_io(res, 0, BLKIO_OP_READ, mib, 32);
	add_io(res, 1, BLKIO_OP_READ, 128 << 10, 160);
	add_io(res, 2, BLKIO_OP_READ, 128 << 10, 96);
	assert_int_equal(findings(res, f), 2);
	assert_string_equal(f[0].kind, "layer_read");
	assert_string_equal(
		f[0].text, "md0 reads: 32 MiB in 32 bios of 1 MiB became 32 MiB (1.00x) in 256 "
			   "requests of 128 KiB on vdc, vdd (8.00 per bio); requests went 62.5% to "
			   "vdc, 37.5% to vdd.");
	assert_string_equal(f[1].kind, "layer_write");
	assert_string_equal(
		f[1].text,
		"md0 writes: 64 MiB in 64 bios of 1 MiB became 128 MiB (2.00x) in 512 "
		"requests of 256 KiB on vdc, vdd (8.00 per bio), at vdc's max_sectors_kb "
		"(256).");
	result_free(res);
}

static void test_summaries(void **state)
{
	struct result *res = stack_result("md0");
	struct layer_summary *ls;

	(void)state;
	add_io(res, 0, BLKIO_OP_WRITE, 1 << 20, 10);
	add_io(res, 1, BLKIO_OP_WRITE, 1 << 20, 10);
	add_io(res, 2, BLKIO_OP_WRITE, 512 << 10, 20);
	assert_int_equal(layers__summarize(res, &res->runs[0], &ls), 0);
	assert_non_null(ls);
	assert_true(ls[0].bytes_per_above == 1.0);
	assert_true(ls[0].requests_per_above == 1.0);
	assert_true(ls[1].bytes_per_above == 1.0);
	assert_true(ls[1].requests_per_above == 2.0);
	assert_int_equal(ls[1].block->requests, 20);
	layers__free(ls, res->nr_layers);
	result_free(res);
}

static void test_never_reached(void **state)
{
	struct result *res = stack_result("dm-0");
	struct finding f[FINDINGS_MAX];

	(void)state;
	/* Reads served from a page cache above: nothing below. */
	add_io(res, 0, BLKIO_OP_READ, 4096, 100);
	assert_int_equal(findings(res, f), 1);
	assert_string_equal(f[0].text, "dm-0's reads (400 KiB) never reached vda, vdb: none were "
				       "issued there while it ran.");
	result_free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_raid1),
		cmocka_unit_test(test_summaries),
		cmocka_unit_test(test_never_reached),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
