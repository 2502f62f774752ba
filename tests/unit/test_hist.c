// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Bucket schemes of bpf/hist.h and hist_percentile(). Every expected index and
 * bound below is worked out by hand from the prose at the top of hist.h, not
 * read back from the code: a regression in the shared math must fail here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

#include "hist.h"
#include "base/histogram.h"
#include "base/stats.h"

#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

struct idx_case {
	__u64 v;
	unsigned int idx;
};

static unsigned int index_of(enum hist_kind kind, __u64 v)
{
	switch (kind) {
	case HIST_KIND_SIZE:
		return hist_size_index(v);
	case HIST_KIND_COUNT:
		return hist_count_index(v);
	case HIST_KIND_LAT:
		return hist_lat_index(v);
	}
	return UINT32_MAX;
}

static void check_cases(enum hist_kind kind, const struct idx_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned int got = index_of(kind, c[i].v);

		if (got != c[i].idx)
			fail_msg("kind %d: value %llu -> bucket %u, want %u", kind,
				 (unsigned long long)c[i].v, got, c[i].idx);
	}
}

static bool close_enough(double got, double want, double tol)
{
	if (fabs(got - want) <= tol * fmax(1.0, fabs(want)))
		return true;
	print_error("got %.17g, want %.17g (tol %g)\n", got, want, tol);
	return false;
}

static void test_nr_buckets(void **state)
{
	(void)state;
	/* 8 x 512 B + 511 x 4 KiB + 11 powers of two from 2 MiB to 2 GiB. */
	assert_int_equal(hist_nr_buckets(HIST_KIND_SIZE), 8 + 511 + 11);
	/* 512 exact + [512,1K) ... [32K,64K): 7 powers of two. */
	assert_int_equal(hist_nr_buckets(HIST_KIND_COUNT), 512 + 7);
	/* 64 exact + 31 groups of 64 sub-buckets (2^6 ... 2^36). */
	assert_int_equal(hist_nr_buckets(HIST_KIND_LAT), 64 + 31 * 64);
}

static void test_size_boundaries(void **state)
{
	static const struct idx_case c[] = {
		{ 0, 0 },
		{ 511, 0 },
		{ 512, 1 },
		{ 4095, 7 },
		{ 4096, 8 },
		{ 8191, 8 },
		{ 8192, 9 },
		/* N KiB, N a multiple of 4, is bucket 7 + N/4: 44K and 48K differ. */
		{ 44 * KIB, 18 },
		{ 44 * KIB + 4095, 18 },
		{ 48 * KIB, 19 },
		{ 124 * KIB, 38 },
		{ 128 * KIB - 1, 38 },
		{ 128 * KIB, 39 },
		{ 1 * MIB, 263 },
		{ 2 * MIB - 1, 518 },
		{ 2 * MIB, 519 },
		{ 4 * MIB - 1, 519 },
		{ 4 * MIB, 520 },
		{ 1 * GIB, 528 },
		{ 2 * GIB - 1, 528 },
		{ 2 * GIB, 529 },
		{ 4 * GIB - 1, 529 },
		/* 4 GiB and above clamp into the last bucket. */
		{ 4 * GIB, 529 },
		{ 1ULL << 40, 529 },
		{ UINT64_MAX, 529 },
	};

	(void)state;
	check_cases(HIST_KIND_SIZE, c, sizeof(c) / sizeof(c[0]));
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 0), 0);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 1), 512);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 7), 3584);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 8), 4096);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 18), 44 * KIB);
	assert_int_equal(hist_bucket_hi(HIST_KIND_SIZE, 18), 48 * KIB);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 518), 2 * MIB - 4 * KIB);
	assert_int_equal(hist_bucket_hi(HIST_KIND_SIZE, 518), 2 * MIB);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 519), 2 * MIB);
	assert_int_equal(hist_bucket_hi(HIST_KIND_SIZE, 519), 4 * MIB);
	assert_int_equal(hist_bucket_lo(HIST_KIND_SIZE, 529), 2 * GIB);
	assert_true(hist_bucket_hi(HIST_KIND_SIZE, 529) == UINT64_MAX);
}

static void test_count_boundaries(void **state)
{
	static const struct idx_case c[] = {
		{ 0, 0 },	{ 1, 1 },	{ 511, 511 },	     { 512, 512 },
		{ 1023, 512 },	{ 1024, 513 },	{ 32767, 517 },	     { 32768, 518 },
		{ 65535, 518 }, { 65536, 518 }, { 1ULL << 40, 518 }, { UINT64_MAX, 518 },
	};

	(void)state;
	check_cases(HIST_KIND_COUNT, c, sizeof(c) / sizeof(c[0]));
	assert_int_equal(hist_bucket_lo(HIST_KIND_COUNT, 511), 511);
	assert_int_equal(hist_bucket_hi(HIST_KIND_COUNT, 511), 512);
	assert_int_equal(hist_bucket_lo(HIST_KIND_COUNT, 512), 512);
	assert_int_equal(hist_bucket_hi(HIST_KIND_COUNT, 512), 1024);
	assert_int_equal(hist_bucket_lo(HIST_KIND_COUNT, 518), 32768);
	assert_true(hist_bucket_hi(HIST_KIND_COUNT, 518) == UINT64_MAX);
}

static void test_lat_boundaries(void **state)
{
	static const struct idx_case c[] = {
		{ 0, 0 },
		{ 63, 63 },
		/* [64, 128): 64 sub-buckets of width 1, still exact. */
		{ 64, 64 },
		{ 127, 127 },
		/* [128, 256): width 2. */
		{ 128, 128 },
		{ 129, 128 },
		{ 130, 129 },
		{ 255, 191 },
		{ 256, 192 },
		/* 1000 = 512 + 61 * 8: group 4 (msb 9), sub-bucket 61. */
		{ 1000, 4 * 64 + 61 },
		{ 1007, 4 * 64 + 61 },
		{ 1008, 4 * 64 + 62 },
		/* 1e9 = 2^29 + 55 * 2^23 + 1755648: group 24, sub-bucket 55. */
		{ 1000000000, 24 * 64 + 55 },
		/* 5e9 = 2^32 + 10 * 2^26 + 33944064: group 27, sub-bucket 10. */
		{ 5000000000ULL, 27 * 64 + 10 },
		{ (1ULL << 37) - 1, 2047 },
		{ 1ULL << 37, 2047 },
		{ 1ULL << 50, 2047 },
		{ UINT64_MAX, 2047 },
	};

	(void)state;
	check_cases(HIST_KIND_LAT, c, sizeof(c) / sizeof(c[0]));
	assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, 63), 63);
	assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, 64), 64);
	assert_int_equal(hist_bucket_hi(HIST_KIND_LAT, 127), 128);
	assert_int_equal(hist_bucket_hi(HIST_KIND_LAT, 128), 130);
	assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, 4 * 64 + 61), 1000);
	assert_int_equal(hist_bucket_hi(HIST_KIND_LAT, 4 * 64 + 61), 1008);
	assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, 24 * 64 + 55), 998244352);
	assert_int_equal(hist_bucket_hi(HIST_KIND_LAT, 24 * 64 + 55), 1006632960);
	/* 2^36 + 63 * 2^30: the last bucket, open above. */
	assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, 2047), 136365211648ULL);
	assert_true(hist_bucket_hi(HIST_KIND_LAT, 2047) == UINT64_MAX);
}

/* lo(index(v)) <= v < hi(index(v)); the open last bucket's hi of UINT64_MAX is inclusive. */
static void check_contains(enum hist_kind kind, __u64 v)
{
	unsigned int n = hist_nr_buckets(kind), i = index_of(kind, v);
	uint64_t lo, hi;

	if (i >= n)
		fail_msg("kind %d: value %llu -> bucket %u of %u", kind, (unsigned long long)v, i,
			 n);
	lo = hist_bucket_lo(kind, i);
	hi = hist_bucket_hi(kind, i);
	if (v < lo || (v >= hi && !(i == n - 1 && hi == UINT64_MAX)))
		fail_msg("kind %d: value %llu -> bucket %u = [%llu, %llu)", kind,
			 (unsigned long long)v, i, (unsigned long long)lo, (unsigned long long)hi);
}

static __u64 xorshift64(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The de Bruijn log2 against the compiler's count of leading zeros. */
static void test_log2(void **state)
{
	__u64 seed = 0x2545F4914F6CDD1DULL, v;
	unsigned int b, i;

	(void)state;
	assert_int_equal(hist_log2(0), 0);
	for (b = 0; b < 64; b++) {
		assert_int_equal(hist_log2(1ULL << b), b);
		assert_int_equal(hist_log2((2ULL << b) - 1), b);
		if (b > 1)
			assert_int_equal(hist_log2((1ULL << b) + 1), b);
	}
	for (i = 0; i < 200000; i++) {
		v = xorshift64(&seed);
		v >>= v & 63;
		if (v)
			assert_int_equal(hist_log2(v), 63 - __builtin_clzll(v));
	}
}

static void test_sweep_contains(void **state)
{
	static const enum hist_kind kinds[] = { HIST_KIND_SIZE, HIST_KIND_COUNT, HIST_KIND_LAT };
	__u64 seed = 0x9E3779B97F4A7C15ULL, r;
	unsigned int k, b, i;

	(void)state;
	for (k = 0; k < 3; k++) {
		for (b = 0; b < 64; b++) {
			check_contains(kinds[k], (1ULL << b) - 1);
			check_contains(kinds[k], 1ULL << b);
			check_contains(kinds[k], (1ULL << b) + 1);
		}
		check_contains(kinds[k], UINT64_MAX);
		/* Random magnitudes too, so that every regime gets many hits. */
		for (i = 0; i < 200000; i++) {
			r = xorshift64(&seed);
			check_contains(kinds[k], r >> (r & 63));
		}
	}
}

/* Buckets tile [0, inf): each one's both ends map back to it, and lo only grows. */
static void test_buckets_tile(void **state)
{
	static const enum hist_kind kinds[] = { HIST_KIND_SIZE, HIST_KIND_COUNT, HIST_KIND_LAT };
	unsigned int k, i, n;

	(void)state;
	for (k = 0; k < 3; k++) {
		n = hist_nr_buckets(kinds[k]);
		assert_int_equal(hist_bucket_lo(kinds[k], 0), 0);
		for (i = 0; i < n; i++) {
			uint64_t lo = hist_bucket_lo(kinds[k], i);
			uint64_t hi = hist_bucket_hi(kinds[k], i);

			assert_true(lo < hi);
			assert_int_equal(index_of(kinds[k], lo), i);
			if (i < n - 1) {
				assert_int_equal(index_of(kinds[k], hi - 1), i);
				assert_int_equal(hist_bucket_lo(kinds[k], i + 1), hi);
			}
		}
	}
}

static void test_lat_relative_width(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < 64; i++) {
		assert_int_equal(hist_bucket_lo(HIST_KIND_LAT, i), i);
		assert_int_equal(hist_bucket_hi(HIST_KIND_LAT, i), i + 1);
	}
	/* Width <= lo / 64, hence a midpoint within 1/128 = 0.78% of any member. */
	for (i = 64; i < HIST_LAT_BUCKETS - 1; i++) {
		uint64_t lo = hist_bucket_lo(HIST_KIND_LAT, i);
		uint64_t hi = hist_bucket_hi(HIST_KIND_LAT, i);

		if ((hi - lo) * 64 > lo)
			fail_msg("lat bucket %u [%llu, %llu) wider than 1/64", i,
				 (unsigned long long)lo, (unsigned long long)hi);
	}
}

static void test_total(void **state)
{
	__u64 b[4] = { 1, 2, 3, 4 };
	__u64 big[2] = { UINT64_MAX - 1, 5 };

	(void)state;
	assert_int_equal(hist_total(b, 4), 10);
	assert_int_equal(hist_total(b, 0), 0);
	/* Saturates rather than wraps. */
	assert_true(hist_total(big, 2) == UINT64_MAX);
}

static void test_percentile_empty(void **state)
{
	__u64 b[HIST_LAT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 50, 0) == 0);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 99, 1000) == 0);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 100, 1000) == 0);
}

/*
 * 100 samples: 10 x 1, 40 x 5, 30 x 100, 19 in [512, 1024) (say 600) and one of
 * 40000 in the last bucket [32768, inf). The k-th smallest sample, k = ceil(p):
 * k <= 10 -> 1, k <= 50 -> 5, k <= 80 -> 100, k <= 99 -> 512 (lower bound),
 * k = 100 -> 32768.
 */
static void test_percentile_count(void **state)
{
	__u64 b[HIST_COUNT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	b[1] = 10;
	b[5] = 40;
	b[100] = 30;
	b[512] = 19;
	b[518] = 1;
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 1, 40000) == 1);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 10, 40000) == 1);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 10.5, 40000) == 5);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 50, 40000) == 5);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 50.01, 40000) == 100);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 80, 40000) == 100);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 90, 40000) == 512);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 99, 40000) == 512);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 99.5, 40000) == 32768);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 100, 40000) == 32768);
	/* Below 1/total, the rank is still 1. */
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 1e-9, 40000) == 1);
}

/*
 * 644 samples of 1 and 356 of 7: 64.4% of 1000 is rank 644 exactly, a 1, though
 * 64.4 * 1000 / 100 in binary floating point is 644.0000000000001.
 */
static void test_percentile_decimal_rank(void **state)
{
	__u64 b[HIST_COUNT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	b[1] = 644;
	b[7] = 356;
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 64.4, 7) == 1);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 64.41, 7) == 7);
	assert_true(hist_percentile(HIST_KIND_COUNT, b, 100, 7) == 7);
}

/* 50 x 4 KiB, 30 x 8 KiB, 15 x 128 KiB, 4 x 1 MiB, 1 x 8 GiB: bucket lower bounds. */
static void test_percentile_size(void **state)
{
	__u64 b[HIST_SIZE_BUCKETS];
	const uint64_t max = 8 * GIB;

	(void)state;
	memset(b, 0, sizeof(b));
	b[8] = 50;  /* [4K, 8K) */
	b[9] = 30;  /* [8K, 12K) */
	b[39] = 15; /* [128K, 132K) */
	b[263] = 4; /* [1M, 1M + 4K) */
	b[529] = 1; /* [2G, inf) */
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 50, max) == 4096);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 51, max) == 8192);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 80, max) == 8192);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 81, max) == 131072);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 95, max) == 131072);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 96, max) == 1048576);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 99, max) == 1048576);
	assert_true(hist_percentile(HIST_KIND_SIZE, b, 100, max) == 2147483648.0);
}

/*
 * 10 x 50 ns (exact bucket), 60 x 1000 ns in [1000, 1008), 29 x 1e6 ns in
 * [999424, 1007616) (2^19 + 58 * 2^13, width 2^13), 1 x 5e9 ns in
 * [4966055936, 5033164800) (2^32 + 10 * 2^26, width 2^26). LAT reports midpoints,
 * except for the exact buckets, and never above max.
 */
static void test_percentile_lat(void **state)
{
	__u64 b[HIST_LAT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	b[50] = 10;
	b[4 * 64 + 61] = 60;
	b[14 * 64 + 58] = 29;
	b[27 * 64 + 10] = 1;
	assert_true(hist_percentile(HIST_KIND_LAT, b, 10, 5000000000ULL) == 50);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 11, 5000000000ULL) == 1004);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 70, 5000000000ULL) == 1004);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 71, 5000000000ULL) == 1003520);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 99, 5000000000ULL) == 1003520);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 100, 5000000000ULL) == 4999610368.0);
	/* The midpoint is within 1/128 of the true sample. */
	assert_true(
		close_enough(hist_percentile(HIST_KIND_LAT, b, 99, 5000000000ULL), 1e6, 1.0 / 128));
	/* max clamps the midpoint when the slowest sample sits low in its bucket. */
	assert_true(hist_percentile(HIST_KIND_LAT, b, 100, 4970000000ULL) == 4970000000.0);
}

/* One sample of 128 ns, bucket [128, 130): midpoint 129, clamped to max = 128. */
static void test_percentile_lat_max_clamp(void **state)
{
	__u64 b[HIST_LAT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	b[128] = 1;
	assert_true(hist_percentile(HIST_KIND_LAT, b, 50, 129) == 129);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 50, 128) == 128);
}

/* The open last bucket has no midpoint: its lower bound, 2^36 + 63 * 2^30, or max. */
static void test_percentile_lat_last_bucket(void **state)
{
	__u64 b[HIST_LAT_BUCKETS];

	(void)state;
	memset(b, 0, sizeof(b));
	b[2047] = 3;
	assert_true(hist_percentile(HIST_KIND_LAT, b, 50, 1ULL << 40) == 136365211648.0);
	assert_true(hist_percentile(HIST_KIND_LAT, b, 50, 136000000000ULL) == 136000000000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nr_buckets),
		cmocka_unit_test(test_size_boundaries),
		cmocka_unit_test(test_count_boundaries),
		cmocka_unit_test(test_lat_boundaries),
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_sweep_contains),
		cmocka_unit_test(test_buckets_tile),
		cmocka_unit_test(test_lat_relative_width),
		cmocka_unit_test(test_total),
		cmocka_unit_test(test_percentile_empty),
		cmocka_unit_test(test_percentile_count),
		cmocka_unit_test(test_percentile_decimal_rank),
		cmocka_unit_test(test_percentile_size),
		cmocka_unit_test(test_percentile_lat),
		cmocka_unit_test(test_percentile_lat_max_clamp),
		cmocka_unit_test(test_percentile_lat_last_bucket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
