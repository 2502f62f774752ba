// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The loaders' load-failure message: "needs root" only for a process without the
 * capabilities, a verifier rejection otherwise, named per flavour and program; the disk
 * filter's names compared as BPF compares them.
 */
#include <errno.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "bpf_load.h"
#include "bpf_members.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verifier_rejection_as_root),
		cmocka_unit_test(test_needs_root_without_caps),
		cmocka_unit_test(test_only_the_flavours_tried),
		cmocka_unit_test(test_truncates_safely),
		cmocka_unit_test(test_name_match_ignores_bytes_after_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
