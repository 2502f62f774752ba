/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Bucket math shared by the BPF programs and user space.
 *
 * EXECUTIVE SUMMARY
 *
 * Three bucket schemes, each a pure function value -> index, and index -> [lo, hi):
 *
 *  - size (bytes): 512-byte-wide buckets below 4 KiB (so 512 B sectors are exact),
 *    4 KiB-wide buckets from 4 KiB up to 2 MiB (44 KiB vs 48 KiB and 124 KiB vs
 *    128 KiB are different buckets; a request of N KiB, N a multiple of 4, is the
 *    bucket [N, N+4) KiB), then one bucket per power of two up to 4 GiB; larger
 *    values land in the last bucket.
 *
 *  - count (segments, queue depth): exact values 0..511, then one bucket per
 *    power of two ([512,1024) ... [32768,65536)); larger values land in the last.
 *
 *  - lat (nanoseconds): log-linear as in fio's stat.h. Values below 64 are exact.
 *    Above, each power of two [2^k, 2^(k+1)) is split into 64 equal sub-buckets of
 *    width 2^(k-6). A bucket's width is 1/64 of its lower bound, so reporting the
 *    bucket midpoint is off by at most 1/128 (0.78%) of the true value. 2048
 *    buckets reach 2^37 ns (137 s); anything slower lands in the last bucket.
 *
 * Index computation takes one predictable branch per regime (the common ones, such
 * as sizes under 2 MiB and counts under 512, never reach the log2), and log2 itself
 * takes no branch either (see hist_log2).
 */
#ifndef BLKTRACE_BENCH_HIST_H
#define BLKTRACE_BENCH_HIST_H

#define HIST_SIZE_BUCKETS 530  /* 8 x 512 B + 511 x 4 KiB + 11 x pow2 */
#define HIST_COUNT_BUCKETS 519 /* 512 exact + 7 x pow2 */
#define HIST_COUNT_EXACT 512   /* count buckets below this hold one value each */
#define HIST_LAT_BUCKETS 2048  /* 64 exact + 31 x 64 sub-buckets */
#define HIST_LAT_SUB_BITS 6

#ifndef HIST_INLINE
#ifdef __bpf__
#define HIST_INLINE static __always_inline
#else
#define HIST_INLINE static inline
#endif
#endif

/*
 * floor(log2(v)) for v > 0; 0 for v == 0. The bits below v's highest set, then a de
 * Bruijn multiply indexes a table by that bit alone: 16 instructions, no branch (BPF
 * has no count-leading-zeros instruction, and no set-on-compare either, so a ladder of
 * comparisons becomes branches on a value that varies from one request to the next).
 */
/* clang-format off */
static const __u8 hist_debruijn_msb[64] = {
	0,  47, 1,  56, 48, 27, 2,  60, 57, 49, 41, 37, 28, 16, 3,  61,
	54, 58, 35, 52, 50, 42, 21, 44, 38, 32, 29, 23, 17, 11, 4,  62,
	46, 55, 26, 59, 40, 36, 15, 53, 34, 51, 20, 43, 31, 22, 10, 45,
	25, 39, 14, 33, 19, 30, 9,  24, 13, 18, 8,  12, 7,  6,  5,  63,
};
/* clang-format on */

HIST_INLINE __u32 hist_log2(__u64 v)
{
	v |= v >> 1;
	v |= v >> 2;
	v |= v >> 4;
	v |= v >> 8;
	v |= v >> 16;
	v |= v >> 32;
	return hist_debruijn_msb[(v * 0x03f79d71b4cb0a89ULL) >> 58];
}

/*
 * The common regimes return early: a well-predicted branch is cheaper than computing
 * the log2 ladder for every value and selecting.
 */
HIST_INLINE __u32 hist_size_index(__u64 bytes)
{
	__u64 idx;

	if (bytes < 4096)
		return bytes >> 9; /* [0, 4K): 0..7 */
	if (bytes < (2ULL << 20))
		return 7 + (bytes >> 12);  /* [4K, 2M): 8..518 */
	idx = 519 + hist_log2(bytes) - 21; /* [2M, ...): 519.. */
	if (idx > HIST_SIZE_BUCKETS - 1)
		idx = HIST_SIZE_BUCKETS - 1;
	return idx;
}

HIST_INLINE __u32 hist_count_index(__u64 v)
{
	__u64 idx;

	if (v < HIST_COUNT_EXACT)
		return v;
	idx = HIST_COUNT_EXACT + hist_log2(v) - 9;
	if (idx > HIST_COUNT_BUCKETS - 1)
		idx = HIST_COUNT_BUCKETS - 1;
	return idx;
}

HIST_INLINE __u32 hist_lat_index(__u64 ns)
{
	__u32 msb;
	__u64 idx;

	if (ns < 64)
		return ns;
	/* Group (msb - 5) of 64, offset by the 6 bits below the msb. */
	msb = hist_log2(ns);
	idx = ((__u64)(msb - 5) << HIST_LAT_SUB_BITS) + ((ns >> (msb - HIST_LAT_SUB_BITS)) & 63);
	if (idx > HIST_LAT_BUCKETS - 1)
		idx = HIST_LAT_BUCKETS - 1;
	return idx;
}

#ifndef __bpf__
/* Inclusive lower bounds; the upper bound of bucket i is the lower bound of i + 1. */
HIST_INLINE __u64 hist_size_lo(__u32 i)
{
	if (i < 8)
		return (__u64)i << 9;
	if (i < 519)
		return (__u64)(i - 7) << 12;
	return 1ULL << (i - 519 + 21);
}

HIST_INLINE __u64 hist_count_lo(__u32 i)
{
	return i < 512 ? i : 1ULL << (i - 512 + 9);
}

HIST_INLINE __u64 hist_lat_lo(__u32 i)
{
	__u32 group, msb;

	if (i < 64)
		return i;
	group = i >> HIST_LAT_SUB_BITS;
	msb = group + 5;
	return (1ULL << msb) + ((__u64)(i & 63) << (msb - HIST_LAT_SUB_BITS));
}
#endif /* !__bpf__ */

#endif /* BLKTRACE_BENCH_HIST_H */
