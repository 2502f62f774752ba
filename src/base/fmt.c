// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Numbers for people; see fmt.h. */
#include <math.h>
#include <stdio.h>
#include "base/fmt.h"
#include "base/histogram.h"

const char *fmt__bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0 || bytes == floor(bytes))
		snprintf(buf, len, "%.0f %s", bytes, units[u]);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

const char *fmt__size(char *buf, size_t len, double bytes)
{
	if (bytes >= 1 << 20 && bytes == (uint64_t)bytes && (uint64_t)bytes % (1 << 20) == 0)
		snprintf(buf, len, "%.0f MiB", bytes / (1 << 20));
	else if (bytes >= 1024 && bytes == (uint64_t)bytes && (uint64_t)bytes % 1024 == 0)
		snprintf(buf, len, "%.0f KiB", bytes / 1024);
	else if (bytes >= 10 << 20)
		snprintf(buf, len, "%.1f MiB", bytes / (1 << 20));
	else if (bytes >= 1024)
		snprintf(buf, len, "%.1f KiB", bytes / 1024);
	else
		snprintf(buf, len, "%.0f B", bytes);
	return buf;
}

const char *fmt__limit(char *buf, size_t len, int64_t v)
{
	if (v >= 1024 && !(v % 1024))
		return fmt__size(buf, len, (double)v);
	snprintf(buf, len, "%lld B", (long long)v);
	return buf;
}

const char *fmt__size_short(char *buf, size_t len, uint64_t v)
{
	if (v >= (1ULL << 30) && !(v % (1ULL << 30)))
		snprintf(buf, len, "%lluG", (unsigned long long)(v >> 30));
	else if (v >= (1ULL << 20) && !(v % (1ULL << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

const char *fmt__num(char *buf, size_t len, double x)
{
	double ax = fabs(x);

	if (ax >= 1e12)
		snprintf(buf, len, "%.3e", x);
	else if (ax >= 1000 || x == floor(x))
		snprintf(buf, len, "%.0f", x);
	else if (ax >= 1)
		snprintf(buf, len, "%.2f", x);
	else
		snprintf(buf, len, "%.3g", x);
	return buf;
}

const char *fmt__ns(char *buf, size_t len, double ns)
{
	static const struct {
		double div;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	size_t i;

	/* 999999 ns is "1 ms", not "1e+03 us": a unit is used from where %.3g rounds to 1. */
	for (i = 0; i < 3 && fabs(ns) < units[i].div * 0.9995; i++)
		;
	snprintf(buf, len, "%.3g %s", ns / units[i].div, units[i].unit);
	return buf;
}

const char *fmt__bucket(char *buf, size_t len, enum hist_kind kind, unsigned int i)
{
	uint64_t lo = hist_bucket_lo(kind, i), hi = hist_bucket_hi(kind, i);
	char l[32], h[32];

	if (kind == HIST_KIND_COUNT && hi == lo + 1) {
		snprintf(buf, len, "%llu", (unsigned long long)lo);
		return buf;
	}
	if (kind == HIST_KIND_SIZE) {
		fmt__bytes(l, sizeof(l), (double)lo);
		fmt__bytes(h, sizeof(h), (double)hi);
	} else if (kind == HIST_KIND_LAT) {
		fmt__ns(l, sizeof(l), (double)lo);
		fmt__ns(h, sizeof(h), (double)hi);
	} else {
		snprintf(l, sizeof(l), "%llu", (unsigned long long)lo);
		snprintf(h, sizeof(h), "%llu", (unsigned long long)hi);
	}
	if (hi == UINT64_MAX)
		snprintf(buf, len, ">= %s", l);
	else
		snprintf(buf, len, "[%s, %s)", l, h);
	return buf;
}

const char *fmt__share(char *buf, size_t len, double share)
{
	snprintf(buf, len, "%.1f%%", 100 * share);
	return buf;
}
