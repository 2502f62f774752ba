// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * outfile.c, the policy of every file the tool writes: block devices and directories
 * refused; character devices, FIFOs,
 * sockets and descriptors of ours (/dev/stdout) written in place; an input of the same run refused
 * by inode and by place; the temporary file created at once and renamed into place;
 * a planted symbolic link replaced, its target untouched; failures name the cause.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "base/diag.h"
#include "files/outfile.h"
#include "testutil.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bb-test-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_remove_tree(dir);
}

static const char *in_dir(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}

static int entries(void)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void expect_refused(const char *path, const char *reason, const struct outfile_input *in,
			   size_t nr)
{
	struct outfile of;
	struct diag dg = {};

	assert_int_equal(outfile__open(&of, "--json", path, in, nr, &dg), -EINVAL);
	assert_true(dg.usage); /* a refused path is bad input: exit 2 */
	if (!strstr(dg.msg, path) || !strstr(dg.msg, reason) || !strstr(dg.msg, "--json"))
		fail_msg("'%s': want the path and '%s'", dg.msg, reason);
	outfile__abort(&of);
}

static void test_special_files_refused(void **state)
{
	struct stat st;
	char p[128];

	(void)state;
	expect_refused(dir, "a directory", NULL, 0);
	/* a block device, where this machine has one (nothing is opened: lstat only) */
	if (!stat("/dev/loop0", &st) && S_ISBLK(st.st_mode))
		expect_refused("/dev/loop0", "a block device", NULL, 0);
	else if (!stat("/dev/vda", &st) && S_ISBLK(st.st_mode))
		expect_refused("/dev/vda", "a block device", NULL, 0);
	expect_refused(in_dir(p, sizeof(p), "nodir/"), "names a directory", NULL, 0);
}

/* Open path, write text, commit: 0 or the error; of's FILE is never a temporary file's. */
static int write_in_place(const char *path, const char *text, struct diag *dg)
{
	struct outfile of;
	int ret = outfile__open(&of, "--json", path, NULL, 0, dg);

	if (!ret) {
		assert_true(of.in_place);
		assert_null(of.tmp);
		fputs(text, of.f);
		ret = outfile__commit(&of, dg);
	}
	outfile__abort(&of);
	return ret;
}

/* What fd holds from offset 0 on, as a string. */
static const char *contents(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	assert_true(n >= 0);
	buf[n] = '\0';
	return buf;
}

/*
 * A character device, a FIFO, a socket are written in place, never
 * renamed over: the node is still what it was, its reader got the bytes.
 */
static void test_special_in_place(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char p[128], l[128], buf[64];
	struct diag dg = {};
	struct stat st;
	int rd, srv, conn;

	(void)state;
	assert_int_equal(write_in_place("/dev/null", "{}\n", &dg), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	/* through a link of ours to it: the link stays a link */
	assert_int_equal(symlink("/dev/null", in_dir(l, sizeof(l), "devlink")), 0);
	assert_int_equal(write_in_place(l, "{}\n", &dg), 0);
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* a FIFO nobody reads: refused at once (a runtime failure), never waited on */
	assert_int_equal(mkfifo(in_dir(p, sizeof(p), "fifo"), 0600), 0);
	assert_int_equal(write_in_place(p, "{}\n", &dg), -ENXIO);
	assert_false(dg.usage);
	assert_non_null(strstr(dg.msg, "nobody reads the FIFO"));
	/* ... and with a reader: it gets the output, the FIFO stays a FIFO */
	rd = open(p, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(write_in_place(p, "{\"x\":1}\n", &dg), 0);
	assert_int_equal(read(rd, buf, sizeof(buf)), 8);
	assert_memory_equal(buf, "{\"x\":1}\n", 8);
	close(rd);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* a socket: connected to as a stream; one nobody listens on is a runtime failure */
	in_dir(sa.sun_path, sizeof(sa.sun_path), "sock");
	srv = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(srv >= 0);
	assert_int_equal(bind(srv, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write_in_place(sa.sun_path, "{}\n", &dg), -ECONNREFUSED);
	assert_int_equal(listen(srv, 1), 0);
	assert_int_equal(write_in_place(sa.sun_path, "{}\n", &dg), 0);
	conn = accept(srv, NULL, NULL);
	assert_true(conn >= 0);
	assert_int_equal(read(conn, buf, sizeof(buf)), 3);
	close(conn);
	close(srv);
	assert_int_equal(lstat(sa.sun_path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
}

/*
 * O1: /dev/stdout and its kin (/proc/self/fd/N, /dev/fd/N, a link to one) name a
 * descriptor of ours: written through it, so that what the shell redirected it to gets
 * the output (appended where the shell appends), and no link is replaced. Here with
 * descriptors of the test's own, so that the machine's /dev/stdout is never at stake.
 */
static void test_descriptors_in_place(void **state)
{
	char p[128], l[128], path[64], buf[128];
	struct diag dg = {};
	struct stat st;
	int fd, pfd[2];

	(void)state;
	/* a file opened for appending, holding a line: the output follows it */
	fd = open(in_dir(p, sizeof(p), "redirected"), O_RDWR | O_CREAT | O_APPEND, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "old\n", 4), 4);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	assert_int_equal(write_in_place(path, "{}\n", &dg), 0);
	assert_int_equal(symlink(path, in_dir(l, sizeof(l), "stdout-link")), 0);
	assert_int_equal(write_in_place(l, "{\"y\":2}\n", &dg), 0);
	snprintf(path, sizeof(path), "/dev/fd/%d", fd);
	assert_int_equal(write_in_place(path, "end\n", &dg), 0);
	assert_int_equal(lstat(l, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_string_equal(contents(fd, buf, sizeof(buf)), "old\n{}\n{\"y\":2}\nend\n");
	assert_int_equal(fcntl(fd, F_GETFD), 0); /* still open: the duplicate was closed */
	close(fd);
	/* a pipe, as `| jq` makes stdout: it was refused before */
	assert_int_equal(pipe(pfd), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd[1]);
	assert_int_equal(write_in_place(path, "{}\n", &dg), 0);
	close(pfd[1]);
	assert_int_equal(read(pfd[0], buf, sizeof(buf)), 3);
	/* a descriptor open for reading only is refused, one that is closed too */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd[0]);
	expect_refused(path, "is open for reading only", NULL, 0);
	close(pfd[0]);
	assert_true(write_in_place(path, "{}\n", &dg) < 0);
}

/*
 * O1: a link of another user is not followed to a special file (it could lead to any
 * device). Root only: making a link of another user needs it.
 */
static void test_foreign_link(void **state)
{
	char l[128];

	(void)state;
	if (geteuid()) {
		skip();
		return;
	}
	assert_int_equal(symlink("/dev/null", in_dir(l, sizeof(l), "planted")), 0);
	assert_int_equal(lchown(l, 65534, 65534), 0);
	expect_refused(l, "a symbolic link of another user to a character device", NULL, 0);
}

static void test_inputs_refused(void **state)
{
	char a[128], b[128], hard[128], soft[128], dot[160], newp[128];
	struct outfile_input in[2];

	(void)state;
	write_file(in_dir(a, sizeof(a), "a.json"), "input");
	in[0] = (struct outfile_input){ a, "input A" };
	in[1] = (struct outfile_input){ in_dir(b, sizeof(b), "b.json"), "input B" };
	expect_refused(a, "it is input A", in, 2);
	/* the same inode by another name */
	assert_int_equal(link(a, in_dir(hard, sizeof(hard), "hard.json")), 0);
	expect_refused(hard, "it is input A", in, 2);
	assert_int_equal(symlink(a, in_dir(soft, sizeof(soft), "soft.json")), 0);
	expect_refused(soft, "it is input A", in, 2);
	snprintf(dot, sizeof(dot), "%s/./../%s/a.json", dir, strrchr(dir, '/') + 1);
	expect_refused(dot, "it is input A", in, 2);
	/* not there yet (the workload's file, the other output): by directory and name */
	in_dir(newp, sizeof(newp), "new.bin");
	in[0] = (struct outfile_input){ newp, "the workload's --file" };
	snprintf(dot, sizeof(dot), "%s/./new.bin", dir);
	expect_refused(dot, "the workload's --file", in, 1);
	assert_false(outfile__same(a, b));
	assert_true(outfile__same(a, hard));
}

/* Created at once, renamed on commit; abort leaves nothing, the old file intact. */
static void test_temp_and_rename(void **state)
{
	char p[128];
	struct diag dg = {};
	struct outfile of;
	json_t *doc = json_pack("{s:i}", "x", 1);
	struct stat st;
	char buf[64] = "";
	FILE *f;

	(void)state;
	write_file(in_dir(p, sizeof(p), "out.json"), "old");
	assert_int_equal(outfile__open(&of, "--json", p, NULL, 0, &dg), 0);
	/* The new file has no name until the commit (O_TMPFILE: /tmp is ext4 or tmpfs). */
	assert_int_equal(entries(), 1);
	assert_int_equal(fstat(fileno(of.f), &st), 0);
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_mode & 0777, 0644 & ~umask(022));
	assert_int_equal(outfile__write_json(&of, doc, JSON_COMPACT), 0);
	outfile__abort(&of); /* as an interrupted or failed run */
	assert_int_equal(entries(), 1);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "old");

	assert_int_equal(outfile__open(&of, "--json", p, NULL, 0, &dg), 0);
	assert_int_equal(outfile__write_json(&of, doc, JSON_COMPACT), 0);
	assert_int_equal(outfile__commit(&of, &dg), 0);
	outfile__abort(&of); /* harmless after a commit */
	assert_int_equal(entries(), 1);
	f = fopen(p, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "{\"x\":1}\n");
	json_decref(doc);
}

/* Case 13: a link planted where the output goes is replaced; its target is untouched. */
static void test_planted_symlink(void **state)
{
	char victim[128], link_path[128], buf[64] = "";
	struct diag dg = {};
	struct outfile of;
	struct stat st;
	FILE *f;

	(void)state;
	write_file(in_dir(victim, sizeof(victim), "victim"), "precious");
	assert_int_equal(symlink(victim, in_dir(link_path, sizeof(link_path), "out.json")), 0);
	assert_int_equal(outfile__open(&of, "--json", link_path, NULL, 0, &dg), 0);
	fputs("{}\n", of.f);
	assert_int_equal(outfile__commit(&of, &dg), 0);
	assert_int_equal(lstat(link_path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	f = fopen(victim, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "precious");
	/* a dangling link too: replaced, its target never created */
	assert_int_equal(unlink(link_path), 0);
	assert_int_equal(symlink("/tmp/bb-test-outfile-nowhere", link_path), 0);
	assert_int_equal(outfile__open(&of, "--json", link_path, NULL, 0, &dg), 0);
	assert_int_equal(outfile__commit(&of, &dg), 0);
	assert_int_equal(access("/tmp/bb-test-outfile-nowhere", F_OK), -1);
}

/* Case 9: where nothing can be written, refused at open, before any run. */
static void test_unwritable_at_open(void **state)
{
	struct outfile of;
	struct diag dg = {};

	(void)state;
	assert_int_equal(outfile__open(&of, "--json", "/nonexistent-dir/x.json", NULL, 0, &dg),
			 -ENOENT);
	assert_non_null(strstr(dg.msg, "/nonexistent-dir/x.json"));
	assert_non_null(strstr(dg.msg, "No such file or directory"));
	assert_false(dg.usage); /* what the system cannot do is a runtime failure: exit 1 */
	outfile__abort(&of);
	/* /proc is read-only for new files */
	assert_true(outfile__open(&of, "--json", "/proc/bb-x.json", NULL, 0, &dg) < 0);
	outfile__abort(&of);
	/* "-" is stdout */
	assert_int_equal(outfile__open(&of, "--json", "-", NULL, 0, &dg), 0);
	assert_ptr_equal(of.f, stdout);
	outfile__abort(&of);
}

/* A write that fails names the cause (ENOSPC from /dev/full), the temporary file gone. */
static void test_write_error_named(void **state)
{
	struct outfile of;
	char p[128];
	struct diag dg = {};
	int fd;

	(void)state;
	assert_int_equal(
		outfile__open(&of, "--json", in_dir(p, sizeof(p), "full.json"), NULL, 0, &dg), 0);
	/* swap the temporary file's descriptor for /dev/full under the FILE */
	fd = open("/dev/full", O_WRONLY);
	assert_true(fd >= 0);
	assert_true(dup2(fd, fileno(of.f)) >= 0);
	close(fd);
	fputs("{}\n", of.f);
	assert_int_equal(outfile__commit(&of, &dg), -ENOSPC);
	assert_non_null(strstr(dg.msg, "No space left on device"));
	assert_false(dg.usage);
	assert_non_null(strstr(dg.msg, p));
	assert_int_equal(entries(), 0);
	assert_int_equal(access(p, F_OK), -1);
}

static void expect_content(const char *path, const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, want);
}

/* outfile__put_json, what every JSON output goes through: all of it, or nothing. */
static void test_put_json(void **state)
{
	json_t *bad = json_pack("{s:o}", "x", json_stringn_nocheck("\xff", 1));
	json_t *good = json_pack("{s:i}", "x", 1);
	struct outfile of;
	struct diag dg = {};
	char p[128];

	(void)state;
	write_file(in_dir(p, sizeof(p), "out.json"), "old");
	/* The encoder refuses the document half-way: the old file stays, nothing beside it. */
	assert_int_equal(outfile__open(&of, "--json", p, NULL, 0, &dg), 0);
	assert_int_equal(outfile__put_json(&of, bad, JSON_COMPACT, &dg), -EILSEQ);
	assert_null(of.f); /* aborted: closed, its unnamed file gone with it */
	assert_int_equal(of.dirfd, -1);
	assert_false(dg.usage);
	if (!strstr(dg.msg, "cannot write --json") || !strstr(dg.msg, p))
		fail_msg("'%s': want the option and the path", dg.msg);
	assert_int_equal(entries(), 1);
	expect_content(p, "old");
	/* A document that could not be built (NULL) is out of memory, not an empty file. */
	assert_int_equal(outfile__open(&of, "--json", p, NULL, 0, &dg), 0);
	assert_int_equal(outfile__put_json(&of, NULL, JSON_COMPACT, &dg), -ENOMEM);
	assert_null(of.f);
	assert_int_equal(entries(), 1);
	expect_content(p, "old");
	assert_int_equal(outfile__open(&of, "--json", "-", NULL, 0, &dg), 0);
	assert_int_equal(outfile__put_json(&of, NULL, JSON_COMPACT, &dg), -ENOMEM);
	assert_string_equal(dg.msg, "cannot write --json to stdout: Cannot allocate memory");
	/* And a document that can be written replaces the file whole. */
	assert_int_equal(outfile__open(&of, "--json", p, NULL, 0, &dg), 0);
	assert_int_equal(outfile__put_json(&of, good, JSON_COMPACT, &dg), 0);
	outfile__abort(&of); /* harmless after the commit */
	assert_int_equal(entries(), 1);
	expect_content(p, "{\"x\":1}\n");
	json_decref(bad);
	json_decref(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_special_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_special_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descriptors_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inputs_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temp_and_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable_at_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_put_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
