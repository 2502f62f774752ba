/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Formatting numbers for people: every printer's byte sizes, counts and shares come
 * from here, so "4 KiB" reads the same in a report, a finding and info.
 */
#ifndef BLKTRACE_BENCH_FMT_H
#define BLKTRACE_BENCH_FMT_H

#include <stddef.h>
#include <stdint.h>
#include "base/histogram.h"

/* Rounded binary units: "512 B", "4 KiB", "1.5 MiB". */
const char *fmt__bytes(char *buf, size_t len, double bytes);
/*
 * Sizes that are limits or requests: exact when a whole number of MiB or KiB ("1280
 * KiB", "1 MiB", as sysfs states them); otherwise "4.1 KiB", "12.5 MiB", "512 B".
 */
const char *fmt__size(char *buf, size_t len, double bytes);
/* A limit from sysfs: "1280 KiB", "1 MiB", or plain bytes ("4294967295 B"). */
const char *fmt__limit(char *buf, size_t len, int64_t bytes);
/* Histogram bounds as dd writes them: "512", "4K", "1M", "1G". */
const char *fmt__size_short(char *buf, size_t len, uint64_t v);
/* A measured number in a table: "12", "3.25", "0.0123", "1.234e+15". */
const char *fmt__num(char *buf, size_t len, double x);
/* A time in nanoseconds in the unit that suits it: "850 ns", "12.5 us", "3 ms", "1.2 s". */
const char *fmt__ns(char *buf, size_t len, double ns);
/*
 * A histogram bucket's bounds as a person reads them: "[44 KiB, 48 KiB)", "11" (an exact
 * count), "[1.02 ms, 1.04 ms)", ">= 64 MiB" (the open last one).
 */
const char *fmt__bucket(char *buf, size_t len, enum hist_kind kind, unsigned int i);
/* A share 0..1 as a percentage: "12.5%". */
const char *fmt__share(char *buf, size_t len, double share);

#endif /* BLKTRACE_BENCH_FMT_H */
