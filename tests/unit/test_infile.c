// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * infile.c, the rule for what the tool reads by name: a regular file; a
 * FIFO, a device, a directory refused with one line, at once (a FIFO without a writer
 * used to be waited on for ever); "-" and a descriptor of ours (/dev/stdin, `<(...)`)
 * read as streams where streams are read, refused where they are not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/diag.h"
#include "files/infile.h"
#include "testutil.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bb-test-infile-XXXXXX");
	/* A test that blocks in open() is a failure, not a hang: SIGALRM ends it. */
	alarm(20);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	alarm(0);
	return test_remove_tree(dir);
}

static const char *in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static void expect_refused(const char *path, bool streams, const char *want)
{
	struct diag d = {};
	FILE *f = (FILE *)1;

	assert_int_equal(infile__open(path, streams, &f, &d), -EINVAL);
	assert_null(f);
	assert_true(d.usage); /* bad input: exit 2 */
	assert_null(strchr(d.msg, '\n'));
	if (!strstr(d.msg, path) || !strstr(d.msg, want))
		fail_msg("'%s': want the path and '%s'", d.msg, want);
}

static void test_regular_and_refused(void **state)
{
	char p[128], buf[16] = "";
	struct diag d = {};
	FILE *f;

	(void)state;
	f = fopen(in_dir(p, sizeof(p), "trace"), "w");
	assert_non_null(f);
	fputs("records", f);
	fclose(f);
	assert_int_equal(infile__open(p, false, &f, &d), 0);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "records");
	infile__close(f);
	/* a FIFO nobody writes: refused at once, not waited on */
	assert_int_equal(mkfifo(in_dir(p, sizeof(p), "fifo"), 0600), 0);
	expect_refused(p, true, "it is a FIFO, not a regular file (- reads stdin)");
	expect_refused(p, false, "it is a FIFO, not a regular file");
	expect_refused("/dev/null", false, "a character device");
	expect_refused(dir, true, "a directory");
	/* missing: a runtime failure, -ENOENT */
	assert_int_equal(infile__open(in_dir(p, sizeof(p), "none"), false, &f, &d), -ENOENT);
	assert_false(d.usage);
}

static void test_streams(void **state)
{
	char path[64], buf[16] = "";
	struct diag d = {};
	int pfd[2];
	FILE *f;

	(void)state;
	assert_int_equal(infile__open("-", true, &f, &d), 0);
	assert_ptr_equal(f, stdin);
	infile__close(f); /* stdin is not closed */
	assert_int_equal(fcntl(STDIN_FILENO, F_GETFD), 0);
	/* "-" where no stream is read is a file named "-" */
	assert_int_equal(infile__open("-", false, &f, &d), -ENOENT);
	/* a pipe by its descriptor, as /dev/stdin or <(...) name it */
	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(write(pfd[1], "piped", 5), 5);
	close(pfd[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", pfd[0]);
	assert_int_equal(infile__open(path, true, &f, &d), 0);
	assert_non_null(fgets(buf, sizeof(buf), f));
	assert_string_equal(buf, "piped");
	infile__close(f);
	/* where streams are not read, the same path is a FIFO, refused */
	expect_refused(path, false, "it is a FIFO");
	close(pfd[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_regular_and_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_streams, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
