// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The xenstore reader (src/disk/xen_store.c): a file of `xenstore-ls -f` lines read back node
 * by node, what a bad file is refused for, and libxenstore where it cannot be had: a
 * library that is not installed, and this machine, which is no Xen domain.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"
#include "disk/xen_store.h"

static char fixtures[PATH_MAX];

static int find_fixtures(void **state)
{
	(void)state;
	return test_find_fixtures(fixtures, sizeof(fixtures));
}

static void value_is(struct xen_store *xs, const char *path, const char *want)
{
	char buf[128];
	int ret = xen_store__read(xs, path, buf, sizeof(buf));

	if (ret)
		fail_msg("%s: %d", path, ret);
	assert_string_equal(buf, want);
}

static void test_fixture_file(void **state)
{
	struct xen_store *xs;
	char file[PATH_MAX + 64], why[160] = "", small[4];

	(void)state;
	test_xenstore_fixture(file, sizeof(file), fixtures, "blkback");
	assert_int_equal(xen_store__open(file, &xs, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	/* The guest's own nodes as written, relative; the backend's absolute. */
	value_is(xs, "device/vbd/51712/backend", "/local/domain/0/backend/vbd/1/51712");
	value_is(xs, "device/vbd/51712/state", "4");
	value_is(xs, "/local/domain/0/backend/vbd/1/51712/feature-max-indirect-segments", "256");
	value_is(xs, "/local/domain/0/backend/vbd/1/51712/physical-sector-size", "512");
	/* No resolving of one into the other: xenstored would, a file holds them apart. */
	assert_int_equal(
		xen_store__read(xs, "/local/domain/1/device/vbd/51712/state", small, sizeof(small)),
		-ENOENT);
	assert_int_equal(
		xen_store__read(xs, "device/vbd/51712/ring-page-order", small, sizeof(small)),
		-ENOENT);
	assert_int_equal(xen_store__read(xs, "device/vbd/51712/backend", small, sizeof(small)),
			 -EOVERFLOW);
	xen_store__close(xs);
	xen_store__close(NULL);
}

/* A temporary file holding text; its name in path. */
static void write_file(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/bb-xenstore.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(close(fd), 0);
}

static void test_file_forms(void **state)
{
	struct xen_store *xs;
	char path[64], why[160] = "";

	(void)state;
	/* Unquoted values, spaces around, a CRLF file, comments and blank lines. */
	write_file(path, "# a comment\n\n  a/b = 7 \r\n/c/d = \"\"\n/e = \"x = y\"\nlast = 1");
	assert_int_equal(xen_store__open(path, &xs, why, sizeof(why)), 0);
	value_is(xs, "a/b", "7");
	value_is(xs, "/c/d", "");
	value_is(xs, "/e", "x = y");
	value_is(xs, "last", "1");
	xen_store__close(xs);
	unlink(path);

	write_file(path, "a/b = 1\nnot a node\n");
	assert_int_equal(xen_store__open(path, &xs, why, sizeof(why)), -EINVAL);
	assert_null(xs);
	assert_non_null(strstr(why, ":2: not a PATH = \"VALUE\" line"));
	unlink(path);

	assert_int_equal(xen_store__open(path, &xs, why, sizeof(why)), -ENOENT);
	assert_null(xs);
	assert_non_null(strstr(why, ": No such file or directory"));
}

/* Run before anything opens the real library: a process holds one. */
static void test_library_missing(void **state)
{
	struct xen_store *xs;
	char why[160] = "";

	(void)state;
	assert_int_equal(xen_store__open_lib("libxenstore.so.999", &xs, why, sizeof(why)), -ENOENT);
	assert_null(xs);
	assert_string_equal(why, "libxenstore.so.999 is not installed (Debian: libxenstore4)");
}

/* libxenstore itself (libxen-dev brings it), on a machine that is no Xen domain. */
static void test_not_a_xen_domain(void **state)
{
	struct xen_store *xs;
	char why[160] = "";
	int ret;

	(void)state;
	if (!access("/dev/xen/xenbus", F_OK) || !access("/run/xenstored/socket", F_OK) ||
	    !access("/proc/xen/xenbus", F_OK))
		skip(); /* a Xen domain: make xentest checks the real thing */
	ret = xen_store__open(NULL, &xs, why, sizeof(why));
	if (ret == -ENOENT && strstr(why, "is not installed"))
		fail_msg("%s: tools/deps.sh installs libxen-dev, which brings it", why);
	assert_int_equal(ret, -ENOENT);
	assert_null(xs);
	assert_string_equal(why, "xs_open: No such file or directory (no xenstored socket, no "
				 "/dev/xen/xenbus: not in a Xen domain?)");
	/* A second open finds the library open already and fails the same way. */
	assert_int_equal(xen_store__open(NULL, &xs, why, sizeof(why)), -ENOENT);
	assert_int_equal(xen_store__open_lib("libxenstore.so.999", &xs, why, sizeof(why)), -EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_file),
		cmocka_unit_test(test_file_forms),
		cmocka_unit_test(test_library_missing),
		cmocka_unit_test(test_not_a_xen_domain),
	};

	return cmocka_run_group_tests(tests, find_fixtures, NULL);
}
