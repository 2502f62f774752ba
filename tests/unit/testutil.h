/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What several unit tests need alike: where the sysfs fixture trees are, and removing
 * a scratch tree. Header-only, because each test is a program of its own.
 */
#ifndef BLKTRACE_BENCH_TESTUTIL_H
#define BLKTRACE_BENCH_TESTUTIL_H

#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static inline bool test_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The sysfs fixture trees (tests/fixtures/sysfs, see its README) into out:
 * $BLKTRACE_BENCH_FIXTURES, else the path from the repository root, else the trees
 * next to this header's directory (a test run from elsewhere). 0, or -1 after saying
 * where it looked.
 */
static inline int test_find_fixtures(char *out, size_t len)
{
	const char *env = getenv("BLKTRACE_BENCH_FIXTURES");
	const char *here = __FILE__, *slash = strrchr(here, '/');
	int n;

	if (env && *env)
		n = snprintf(out, len, "%s", env);
	else if (test_is_dir("tests/fixtures/sysfs"))
		n = snprintf(out, len, "tests/fixtures/sysfs");
	else if (slash)
		n = snprintf(out, len, "%.*s/../fixtures/sysfs", (int)(slash - here), here);
	else
		n = snprintf(out, len, "../fixtures/sysfs");
	if (n < 0 || (size_t)n >= len || !test_is_dir(out)) {
		fprintf(stderr, "fixture trees not found at %s (set BLKTRACE_BENCH_FIXTURES)\n",
			out);
		return -1;
	}
	return 0;
}

/*
 * The xenstore fixture NAME (tests/fixtures/xenstore/NAME.txt, see its README) into out,
 * beside the sysfs trees test_find_fixtures found at sysfs.
 */
static inline const char *test_xenstore_fixture(char *out, size_t len, const char *sysfs,
						const char *name)
{
	snprintf(out, len, "%s/../xenstore/%s.txt", sysfs, name);
	return out;
}

static inline int test_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove dir and everything under it, links not followed; "" is nothing to do. */
static inline int test_remove_tree(const char *dir)
{
	return dir[0] ? nftw(dir, test_rm_entry, 16, FTW_DEPTH | FTW_PHYS) : 0;
}

#endif /* BLKTRACE_BENCH_TESTUTIL_H */
