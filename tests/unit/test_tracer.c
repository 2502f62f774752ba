// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The loaders' load-failure message: "needs root" only for a process without the
 * capabilities, a verifier rejection otherwise, named per flavour and program; the disk
 * filter's names compared as BPF compares them. The fold of the BPF side's per-CPU
 * value into the counters user space reads.
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
#include "trace/bpf_load.h"
#include "trace/bpf_members.h"
#include "trace/tracer.h"

static void has(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("\"%s\" not in:\n%s", want, s);
}

static void test_verifier_rejection_as_root(void **state)
{
	struct bpf_load_failure f[2] = {
		{ -EACCES, "tp_btf_rq_issue",
		  "\n    R3 max value is outside of the allowed memory range" },
		{ -EINVAL, "raw_tp_rq_issue", "\n    BPF_STX uses reserved fields" },
	};
	char buf[2048];

	(void)state;
	bpf_load__error(buf, sizeof(buf), f, true, "6.1.0-57-cloud-amd64");
	assert_null(strstr(buf, "needs root"));
	has(buf, "the kernel (6.1.0-57-cloud-amd64) refused the BPF programs; this is a bug, "
		 "please report it with the output of -vv");
	has(buf, "\n  tp_btf flavour: program tp_btf_rq_issue: Permission denied; the verifier "
		 "said:\n    R3 max value is outside of the allowed memory range");
	has(buf, "\n  raw_tp flavour: program raw_tp_rq_issue: Invalid argument; the verifier "
		 "said:\n    BPF_STX uses reserved fields");
}

static void test_needs_root_without_caps(void **state)
{
	struct bpf_load_failure f[2] = { { -EPERM, "", "" }, { 0, "", "" } };
	char buf[512];

	(void)state;
	bpf_load__error(buf, sizeof(buf), f, false, "6.18.0");
	has(buf, "loading BPF programs needs root");
	assert_null(strstr(buf, "refused"));

	/* The same EPERM with the capabilities is no privilege problem. */
	bpf_load__error(buf, sizeof(buf), f, true, "6.18.0");
	assert_null(strstr(buf, "needs root"));
	has(buf, "tp_btf flavour: Operation not permitted");
}

/*
 * Out of file descriptors or memory, the programs verified fine: their log is no
 * rejection, and nothing is a bug to report (a reload of serve at its open file limit
 * said so, with the log of programs that had verified).
 */
static void test_out_of_a_resource(void **state)
{
	struct bpf_load_failure f[2] = {
		{ -EMFILE, "tp_btf_rq_issue", "\n    processed 120 insns (limit 1000000)" },
		{ -EMFILE, "", "" },
	};
	char buf[1024];

	(void)state;
	bpf_load__error(buf, sizeof(buf), f, true, "6.18.0");
	has(buf, "cannot load the BPF programs: Too many open files: each BPF map, program and "
		 "link takes a file descriptor: raise the open file limit (ulimit -n");
	assert_null(strstr(buf, "bug"));
	assert_null(strstr(buf, "verifier"));
	assert_null(strchr(buf, '\n'));
	/* Whichever flavour ran out, and without the capabilities too. */
	f[0] = (struct bpf_load_failure){ -EACCES, "tp_btf_split", "\n    invalid access" };
	f[1] = (struct bpf_load_failure){ -ENOMEM, "", "" };
	bpf_load__error(buf, sizeof(buf), f, true, "5.10.0");
	has(buf, "Cannot allocate memory: the kernel had no memory for the BPF maps");
	f[0].err = -ENFILE;
	bpf_load__error(buf, sizeof(buf), f, false, "5.10.0");
	has(buf, "Too many open files in system: each BPF map");
}

static void test_only_the_flavours_tried(void **state)
{
	struct bpf_load_failure f[2] = { { 0, "", "" }, { -EACCES, "raw_tp_split", "" } };
	char buf[512];

	(void)state;
	bpf_load__error(buf, sizeof(buf), f, true, "5.10.0");
	assert_null(strstr(buf, "tp_btf flavour"));
	has(buf, "\n  raw_tp flavour: program raw_tp_split: Permission denied");
	/* A lone EACCES of raw_tp without capabilities is still "needs root". */
	bpf_load__error(buf, sizeof(buf), f, false, "5.10.0");
	has(buf, "needs root");
}

static void test_truncates_safely(void **state)
{
	struct bpf_load_failure f[2] = { { -EACCES, "tp_btf_rq_issue", "\n    x" },
					 { -EACCES, "raw_tp_rq_issue", "\n    y" } };
	char buf[40];

	(void)state;
	memset(buf, 'Z', sizeof(buf));
	bpf_load__error(buf, sizeof(buf), f, true, "6.1.0");
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

/* Does a kernel disk_name (32 bytes, anything after the NUL) match name as BPF compares it? */
static bool bpf_matches(const char kernel[32], const char *name)
{
	__u64 want[2], mask[2], got[2];

	bpf_members__pack_name(name, want, mask);
	memcpy(got, kernel, sizeof(got));
	return (got[0] & mask[0]) == want[0] && (got[1] & mask[1]) == want[1];
}

/* 5.10's NVMe path disks carry stack garbage after the NUL of their disk_name. */
static void test_name_match_ignores_bytes_after_nul(void **state)
{
	char kernel[32];

	(void)state;
	memset(kernel, 0xa5, sizeof(kernel));
	memcpy(kernel, "nvme1c1n1", 10);
	assert_true(bpf_matches(kernel, "nvme1c1n1"));
	assert_false(bpf_matches(kernel, "nvme1c1n"));
	assert_false(bpf_matches(kernel, "nvme1c2n1"));
	memcpy(kernel, "nvme1c1n10", 11);
	assert_false(bpf_matches(kernel, "nvme1c1n1"));
	assert_true(bpf_matches(kernel, "nvme1c1n10"));
	/* Fifteen characters and the NUL: the whole 16 bytes count. */
	memcpy(kernel, "nvme10c11n12345", 16);
	assert_true(bpf_matches(kernel, "nvme10c11n12345"));
	assert_false(bpf_matches(kernel, "nvme10c11n1234"));
}

/*
 * The BPF side's value after these issues and completions, written as blkio.bpf.c
 * writes it (blkio.h): three one-segment 4 KiB reads at depths 1, 2 and 3, a 64 KiB
 * write of 16 segments at depth 600, an 8 KiB write of a bio-based device (no
 * segments), an empty flush and an empty read; three completions. What the fold must
 * give back is counted by hand.
 */
static void test_fold_derives_what_the_histograms_hold(void **state)
{
	struct blkio_pcpu *v = calloc(1, sizeof(*v));
	struct block_stats *out = calloc(1, sizeof(*out));
	const struct blkio_counters *c = &out->c;

	(void)state;
	assert_non_null(v);
	assert_non_null(out);
	/* Issues. The size histograms: 4 KiB is bucket 8, 8 KiB 9, 64 KiB 23. */
	v->size[BLKIO_SIZE_READ][8] = 3;
	v->rw_bytes[BLKIO_OP_READ] = 3 * 4096;
	v->size[BLKIO_SIZE_WRITE][23] = 1;
	v->size[BLKIO_SIZE_WRITE][9] = 1;
	v->rw_bytes[BLKIO_OP_WRITE] = 65536 + 8192;
	v->size_multi[23] = 1; /* 16 segments */
	v->size_multi[9] = 1;  /* none */
	v->count[BLKIO_COUNT_SEGMENTS][16] = 1;
	v->size[BLKIO_SIZE_SEGMENT][8] = 1; /* 64 KiB / 16 */
	v->r.requests[BLKIO_OP_FLUSH] = 1;
	v->r.requests[BLKIO_OP_READ] = 1;   /* the empty read */
	v->count[BLKIO_COUNT_DEPTH][1] = 2; /* the flush and the empty read at 1 */
	v->count[BLKIO_COUNT_DEPTH][2] = 1;
	v->count[BLKIO_COUNT_DEPTH][3] = 1;
	v->count[BLKIO_COUNT_DEPTH][512 + 0] = 1; /* 600: [512, 1024) */
	v->r.big_depth_sum = 600;
	v->count[BLKIO_COUNT_DEPTH][1] += 1; /* the bio-based write */
	v->sum_queue_ns = 7000;
	v->max.depth = 600;
	/* Completions: three; two of them with a total latency. */
	v->sum_device_ns = 30000;
	v->sum_total_ns = 25000;
	out->lat[BLKIO_LAT_QUEUE][100] = 7;
	out->lat[BLKIO_LAT_DEVICE][300] = 2;
	out->lat[BLKIO_LAT_DEVICE][400] = 1;
	out->lat[BLKIO_LAT_TOTAL][350] = 2;
	v->r.merges_op[BLKIO_OP_WRITE] = 4;

	tracer__fold(v, out);
	assert_int_equal(c->requests[BLKIO_OP_READ], 4);
	assert_int_equal(c->requests[BLKIO_OP_WRITE], 2);
	assert_int_equal(c->requests[BLKIO_OP_FLUSH], 1);
	assert_int_equal(c->bytes[BLKIO_OP_READ], 3 * 4096);
	assert_int_equal(c->bytes[BLKIO_OP_WRITE], 65536 + 8192);
	/* Data requests: the three reads and the 16-segment write, not the bio-based one. */
	assert_int_equal(c->data_requests, 4);
	assert_int_equal(out->count[BLKIO_COUNT_SEGMENTS][1], 3);
	assert_int_equal(out->count[BLKIO_COUNT_SEGMENTS][16], 1);
	assert_int_equal(c->sum_segments, 3 + 16);
	assert_int_equal(out->size[BLKIO_SIZE_SEGMENT][8], 4);
	assert_int_equal(out->size[BLKIO_SIZE_SEGMENT][9], 0);
	assert_int_equal(out->size[BLKIO_SIZE_READ][8], 3);
	assert_int_equal(c->sum_depth, 1 + 1 + 2 + 3 + 600 + 1);
	assert_int_equal(c->nr_ns[BLKIO_LAT_QUEUE], 7);
	assert_int_equal(c->sum_ns[BLKIO_LAT_QUEUE], 7000);
	assert_int_equal(c->completed, 3);
	assert_int_equal(c->nr_ns[BLKIO_LAT_DEVICE], 3);
	assert_int_equal(c->nr_ns[BLKIO_LAT_TOTAL], 2);
	assert_int_equal(c->sum_ns[BLKIO_LAT_DEVICE], 30000);
	assert_int_equal(c->sum_ns[BLKIO_LAT_TOTAL], 25000);
	assert_int_equal(c->merges_op[BLKIO_OP_WRITE], 4);
	assert_int_equal(out->max.depth, 600);
	free(out);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifier_rejection_as_root),
		cmocka_unit_test(test_needs_root_without_caps),
		cmocka_unit_test(test_out_of_a_resource),
		cmocka_unit_test(test_only_the_flavours_tried),
		cmocka_unit_test(test_truncates_safely),
		cmocka_unit_test(test_name_match_ignores_bytes_after_nul),
		cmocka_unit_test(test_fold_derives_what_the_histograms_hold),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
