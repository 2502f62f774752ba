/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Strict parsers of the numbers users and the kernel write: integers, sizes, durations
 * and MAJ:MIN device numbers. "abc", "12Q", " 1", "+1", "0x10" and overflow are refused;
 * *out is left untouched on error. 0, -EINVAL (garbage) or -ERANGE (overflow).
 */
#ifndef BLKTRACE_BENCH_PARSE_H
#define BLKTRACE_BENCH_PARSE_H

#include <stdint.h>

/* Decimal digits only, at most max. */
int parse_uint(const char *s, uint64_t max, uint64_t *out);
/* An optional '-', then decimal digits, within int64_t. */
int parse_int(const char *s, int64_t *out);
/* Digits and a unit, dd's conventions: K, KiB = 1024; KB = 1000 (M, G, T likewise). */
int parse_size(const char *s, uint64_t *out);
/* Seconds, with an optional unit: s, ms, us, m, h; at most 1e9 s. */
int parse_duration(const char *s, double *out);
/*
 * "MAJ:MIN" exactly, within the kernel's 12 and 20 bits (include/linux/kdev_t.h); on
 * -EINVAL *why names what is wrong for an error line ("minor is not a number").
 */
int parse_devnum(const char *s, unsigned int *maj, unsigned int *min, const char **why);

#endif /* BLKTRACE_BENCH_PARSE_H */
