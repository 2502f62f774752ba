// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The strict parsers (parse.h): every integer the tool reads, from argv or from sysfs,
 * goes through parse_digits, the one place strtoull is called.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/parse.h"

/* include/linux/kdev_t.h: MINORBITS 20, so 12 bits of major. */
#define DEV_MAJOR_MAX 4095u
#define DEV_MINOR_MAX ((1u << 20) - 1)

/* The digits s starts with; *end points past them. strtoull accepts " -1" and wraps it:
 * only a leading digit makes a number here. */
static int parse_digits(const char *s, uint64_t *out, char **end)
{
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	char *end;
	int ret = parse_digits(s, &v, &end);

	if (ret)
		return ret;
	if (v > max)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_int(const char *s, int64_t *out)
{
	bool neg = s && s[0] == '-';
	uint64_t v;
	int ret;

	if (!s)
		return -EINVAL;
	ret = parse_uint(s + neg, UINT64_MAX, &v);
	if (ret)
		return ret;
	if (v > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t mult;
};

/* Case-insensitive; a unit's binary, long and decimal forms a line. */
// clang-format off
static const struct unit size_units[] = {
	{ "", 1 },
	{ "b", 1 },
	{ "k", 1ULL << 10 },
	{ "kib", 1ULL << 10 },
	{ "kb", 1000ULL },
	{ "m", 1ULL << 20 },
	{ "mib", 1ULL << 20 },
	{ "mb", 1000000ULL },
	{ "g", 1ULL << 30 },
	{ "gib", 1ULL << 30 },
	{ "gb", 1000000000ULL },
	{ "t", 1ULL << 40 },
	{ "tib", 1ULL << 40 },
	{ "tb", 1000000000000ULL },
};
// clang-format on

int parse_size(const char *s, uint64_t *out)
{
	uint64_t v;
	char *end;
	size_t i;
	int ret = parse_digits(s, &v, &end);

	if (ret)
		return ret;
	for (i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcasecmp(end, size_units[i].suffix))
			continue;
		if (v > UINT64_MAX / size_units[i].mult)
			return -ERANGE;
		*out = v * size_units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int parse_duration(const char *s, double *out)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = { { "", 1 },      { "s", 1 },  { "ms", 1e-3 },
		      { "us", 1e-6 }, { "m", 60 }, { "h", 3600 } };
	char *end;
	double v;
	size_t i;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].suffix)) {
			if (v * units[i].mult > 1e9)
				return -ERANGE;
			*out = v * units[i].mult;
			return 0;
		}
	return -EINVAL;
}

int parse_devnum(const char *s, unsigned int *maj, unsigned int *min, const char **why)
{
	char majbuf[32];
	const char *colon = s ? strchr(s, ':') : NULL;
	size_t majlen = colon ? (size_t)(colon - s) : 0;
	uint64_t a, b;
	int ret;

	if (!colon || majlen == 0) {
		*why = "missing major number";
		return -EINVAL;
	}
	if (colon[1] == '\0') {
		*why = "missing minor number";
		return -EINVAL;
	}
	if (majlen >= sizeof(majbuf)) {
		*why = "major number out of range";
		return -EINVAL;
	}
	memcpy(majbuf, s, majlen);
	majbuf[majlen] = '\0';
	ret = parse_uint(majbuf, UINT64_MAX, &a);
	if (ret) {
		*why = ret == -ERANGE ? "major number out of range" : "major is not a number";
		return -EINVAL;
	}
	ret = parse_uint(colon + 1, UINT64_MAX, &b);
	if (ret) {
		*why = ret == -ERANGE ? "minor number out of range" : "minor is not a number";
		return -EINVAL;
	}
	if (a > DEV_MAJOR_MAX) {
		*why = "major number out of range (at most 4095)";
		return -EINVAL;
	}
	if (b > DEV_MINOR_MAX) {
		*why = "minor number out of range (at most 1048575)";
		return -EINVAL;
	}
	*maj = a;
	*min = b;
	return 0;
}
