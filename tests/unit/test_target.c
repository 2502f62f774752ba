// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The target policy (src/workload/target.c) against a scratch world: a fake sysfs (disks,
 * partitions, holders, loop devices), hand-written mountinfo and swaps, an empty /dev
 * (so that loop devices are judged by sysfs alone), and real files in the scratch
 * directory, whose filesystem the fake partition vdx2 claims to hold. A host block
 * device, where one exists, stands in for a device node a mount or a swap names.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/diag.h"
#include "workload/target.h"
#include "testutil.h"

static char scratch[PATH_MAX];
static char sys[PATH_MAX + 8], files[PATH_MAX + 8], devdir[PATH_MAX + 8];
static char mountinfo[PATH_MAX + 16], swaps[PATH_MAX + 16];
static dev_t files_dev;	  /* the filesystem of files/: "on" vdx2 */
static char host_blk[64]; /* a block device node of this host, "" if none */
static dev_t host_rdev;
static struct target_env env;

/* A root filesystem on a disk the tree does not have. */
#define MOUNTINFO_ROOT "22 1 251:0 / / rw,relatime - ext4 /dev/nonexistent rw\n"

static void put(const char *base, const char *rel, const char *text)
{
	char path[PATH_MAX * 2], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	for (slash = strchr(path + strlen(base) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("mkdir %s: %s", path, strerror(errno));
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void put_link(const char *rel, const char *target)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", sys, rel);
	if (symlink(target, path))
		fail_msg("symlink %s: %s", path, strerror(errno));
}

/* A disk (or partition, inside its disk's directory) with its class and dev links. */
static void add_blockdev(const char *rel, const char *name, dev_t dev, bool whole)
{
	char p[PATH_MAX], t[PATH_MAX], num[32];

	snprintf(num, sizeof(num), "%u:%u\n", major(dev), minor(dev));
	snprintf(p, sizeof(p), "devices/virtual/block/%s/dev", rel);
	put(sys, p, num);
	snprintf(p, sizeof(p), "devices/virtual/block/%s/size", rel);
	put(sys, p, "1048576\n");
	snprintf(t, sizeof(t), "../../devices/virtual/block/%s", rel);
	snprintf(p, sizeof(p), "class/block/%s", name);
	put_link(p, t);
	snprintf(p, sizeof(p), "dev/block/%u:%u", major(dev), minor(dev));
	put_link(p, t);
	if (!whole)
		return;
	snprintf(p, sizeof(p), "devices/virtual/block/%s/queue/logical_block_size", rel);
	put(sys, p, "512\n");
	snprintf(t, sizeof(t), "../devices/virtual/block/%s", rel);
	snprintf(p, sizeof(p), "block/%s", name);
	put_link(p, t);
}

static void add_partition(const char *disk, const char *name, dev_t dev, int number)
{
	char rel[128], p[PATH_MAX], n[16];

	snprintf(rel, sizeof(rel), "%s/%s", disk, name);
	add_blockdev(rel, name, dev, false);
	snprintf(n, sizeof(n), "%d\n", number);
	snprintf(p, sizeof(p), "devices/virtual/block/%s/partition", rel);
	put(sys, p, n);
	snprintf(p, sizeof(p), "devices/virtual/block/%s/start", rel);
	put(sys, p, "2048\n");
	snprintf(p, sizeof(p), "devices/virtual/block/%s/size", rel);
	put(sys, p, "4096\n");
}

/* The first block device node in /dev, to stand for a mounted or swapped device. */
static void find_host_blk(void)
{
	struct dirent *de;
	struct stat st;
	char path[300];
	DIR *d = opendir("/dev");

	host_blk[0] = '\0';
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		/* Not a number the fake tree uses already. */
		if (strlen(path) < sizeof(host_blk) && !lstat(path, &st) && S_ISBLK(st.st_mode) &&
		    !strchr(de->d_name, ' ') && st.st_rdev != files_dev &&
		    major(st.st_rdev) != 250 && major(st.st_rdev) != 251 &&
		    st.st_rdev != makedev(7, 5) && st.st_rdev != makedev(7, 6)) {
			snprintf(host_blk, sizeof(host_blk), "%s", path);
			host_rdev = st.st_rdev;
			break;
		}
	}
	if (d)
		closedir(d);
}

static int setup(void **state)
{
	char backing[PATH_MAX * 2];
	struct stat st;

	(void)state;
	snprintf(scratch, sizeof(scratch), "/tmp/blktrace-bench-target.XXXXXX");
	if (!mkdtemp(scratch))
		return -1;
	snprintf(sys, sizeof(sys), "%s/sys", scratch);
	snprintf(files, sizeof(files), "%s/files", scratch);
	snprintf(devdir, sizeof(devdir), "%s/dev", scratch);
	snprintf(mountinfo, sizeof(mountinfo), "%s/mountinfo", scratch);
	snprintf(swaps, sizeof(swaps), "%s/swaps", scratch);
	if (mkdir(sys, 0755) || mkdir(files, 0755) || mkdir(devdir, 0755) || stat(files, &st))
		return -1;
	files_dev = st.st_dev;
	find_host_blk();
	put(sys, "class/block/.keep", "");
	put(sys, "dev/block/.keep", "");
	put(sys, "block/.keep", "");
	/* vdx: two partitions, vdx2 holding the scratch files' filesystem. */
	add_blockdev("vdx", "vdx", makedev(250, 0), true);
	add_partition("vdx", "vdx1", makedev(250, 1), 1);
	add_partition("vdx", "vdx2", files_dev, 2);
	add_blockdev("vdy", "vdy", makedev(250, 16), true); /* unused, unless a test says */
	add_blockdev("vdh", "vdh", makedev(250, 32), true); /* md0 stacked on it */
	put(sys, "devices/virtual/block/vdh/holders/md0", "");
	add_blockdev("vdp", "vdp", makedev(250, 48), true); /* dm-3 stacked on vdp1 */
	add_partition("vdp", "vdp1", makedev(250, 49), 1);
	put(sys, "devices/virtual/block/vdp/vdp1/holders/dm-3", "");
	if (host_blk[0]) /* vdz is this host's block device, by number */
		add_blockdev("vdz", "vdz", host_rdev, true);
	/* loop5 is backed by files/img, on vdx2; loop6 by the host's block device. */
	put(files, "img", "image");
	add_blockdev("loop5", "loop5", makedev(7, 5), true);
	snprintf(backing, sizeof(backing), "%s/img\n", files);
	put(sys, "devices/virtual/block/loop5/loop/backing_file", backing);
	add_blockdev("loop6", "loop6", makedev(7, 6), true);
	snprintf(backing, sizeof(backing), "%s\n", host_blk[0] ? host_blk : "/nonexistent");
	put(sys, "devices/virtual/block/loop6/loop/backing_file", backing);
	put(files, "swap file", "swap");
	put(scratch, "mountinfo", MOUNTINFO_ROOT);
	put(scratch, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	env = (struct target_env){
		.sysfs = sys, .mountinfo = mountinfo, .swaps = swaps, .dev_dir = devdir
	};
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_remove_tree(scratch);
	return 0;
}

static struct device *resolve(const char *spec)
{
	struct device *d = test_calloc(1, sizeof(*d));
	struct diag dg = {};

	assert_non_null(d);
	if (device__resolve(env.sysfs, spec, d, &dg))
		fail_msg("%s: %s", spec, dg.msg);
	return d;
}

/* target__check_unused on spec: 0, or -EINVAL with want in the message. */
static void check_unused(const char *spec, const char *want)
{
	struct device *d = resolve(spec);
	struct diag dg = {};
	int ret = target__check_unused(&env, d, &dg);

	test_free(d);
	if (!want) {
		if (ret)
			fail_msg("%s refused: %s", spec, dg.msg);
		return;
	}
	assert_int_equal(ret, -EINVAL);
	assert_true(dg.usage); /* a refusal is bad input: exit 2 */
	if (!strstr(dg.msg, want) || !strstr(dg.msg, "refusing to write to"))
		fail_msg("%s: got '%s', want '%s'", spec, dg.msg, want);
}

static void test_unused_disks(void **state)
{
	(void)state;
	check_unused("vdy", NULL);
	check_unused("vdx1", NULL);
	check_unused("vdx", "it has partitions (vdx1, ...)");
	check_unused("vdh", "vdh is held by md0");
	check_unused("vdp1", "vdp1 is held by dm-3");
	check_unused("vdp", "it has partitions");
	/* A loop device's backing file on a partition: that partition is in use. */
	check_unused("vdx2", "vdx2 holds ");
	check_unused("vdx2", "the backing file of loop5");
}

static void test_mounts(void **state)
{
	char line[512];

	(void)state;
	/* By MAJ:MIN, mount point unescaped. */
	put(scratch, "mountinfo",
	    MOUNTINFO_ROOT "30 22 250:16 / /mnt/with\\040space rw shared:1 - ext4 /dev/vdy rw\n");
	check_unused("vdy", "vdy is mounted on /mnt/with space");
	/* The partition of a disk, and the disk of a partition. */
	put(scratch, "mountinfo", "30 22 250:1 / /boot rw - ext4 /dev/vdx1 rw\n");
	check_unused("vdx1", "vdx1 is mounted on /boot");
	put(scratch, "mountinfo", "30 22 250:0 / /p rw - ext4 /dev/vdx rw\n");
	check_unused("vdx1", "vdx is mounted on /p");
	/* btrfs: an anonymous MAJ:MIN, the disk named as the source. */
	if (host_blk[0]) {
		snprintf(line, sizeof(line), "40 22 0:99 / /data rw - btrfs %s rw\n", host_blk);
		put(scratch, "mountinfo", line);
		check_unused("vdz", "vdz is mounted on /data");
	}
	/* Nothing could be verified: refused, not waved through. */
	put(scratch, "mountinfo", "");
	assert_int_equal(unlink(mountinfo), 0);
	check_unused("vdy", "cannot check that it is unused");
	put(scratch, "mountinfo", MOUNTINFO_ROOT);
}

static void test_swaps(void **state)
{
	char text[PATH_MAX * 2];

	(void)state;
	/* A swap file on vdx2 (its name escaped as the kernel does). */
	snprintf(text, sizeof(text),
		 "Filename\tType\tSize\tUsed\tPriority\n"
		 "%s/swap\\040file                file\t1020\t0\t-2\n",
		 files);
	put(scratch, "swaps", text);
	check_unused("vdx2", "vdx2 holds the swap file");
	check_unused("vdy", NULL);
	if (host_blk[0]) {
		snprintf(text, sizeof(text),
			 "Filename\tType\tSize\tUsed\tPriority\n"
			 "%s                partition\t1020\t0\t-2\n",
			 host_blk);
		put(scratch, "swaps", text);
		check_unused("vdz", "vdz is used as swap");
	}
	put(scratch, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
}

static void test_loop_on_disk(void **state)
{
	(void)state;
	/* loop6 is backed by the device vdz stands for: loop-on-loop shows in no holders/. */
	if (!host_blk[0])
		skip();
	check_unused("vdz", "vdz backs loop6");
}

static int open_target(struct target *t, const char *file, const char *traced, bool write,
		       bool overwrite, bool any_fs, struct diag *dg)
{
	struct target_req req = {
		.file = file, .dir = files, .write = write, .overwrite = overwrite, .any_fs = any_fs
	};
	struct device *d = resolve(traced);
	int ret;

	memset(dg, 0, sizeof(*dg));
	ret = target__open(t, &env, &req, d, dg);
	test_free(d);
	return ret;
}

static void expect_refused(const char *file, bool write, const char *want)
{
	struct target t;
	struct diag dg;

	assert_int_equal(open_target(&t, file, "vdx2", write, true, true, &dg), -EINVAL);
	assert_int_equal(t.fd, -1);
	assert_true(dg.usage);
	if (!strstr(dg.msg, want))
		fail_msg("%s: got '%s', want '%s'", file, dg.msg, want);
}

static void test_file_kinds(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_MAX * 2];
	int sock;

	(void)state;
	/* A FIFO must not block in open(): refused from its stat alone. */
	snprintf(path, sizeof(path), "%s/fifo", files);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_refused(path, false, "is a FIFO");
	expect_refused(path, true, "is a FIFO");
	expect_refused(files, false, "is a directory");
	expect_refused("/dev/null", false, "is a character device");
	assert_true(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", files) <
		    (int)sizeof(sa.sun_path));
	sock = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(sock >= 0);
	assert_int_equal(bind(sock, (struct sockaddr *)&sa, sizeof(sa)), 0);
	expect_refused(sa.sun_path, false, "is a socket");
	close(sock);
	unlink(sa.sun_path);
	unlink(path);
}

static void test_existing_file(void **state)
{
	char path[PATH_MAX * 2], text[PATH_MAX * 2];
	struct diag dg;
	struct target t;

	(void)state;
	snprintf(path, sizeof(path), "%s/img", files);
	/* Reading it is fine; it lives on the traced vdx2. */
	assert_int_equal(open_target(&t, path, "vdx2", false, false, false, &dg), 0);
	assert_int_equal(t.kind, TARGET_FILE);
	assert_int_equal(t.size, 5);
	target__close(&t);
	/* Elsewhere: refused, naming the override. */
	assert_int_equal(open_target(&t, path, "vdy", false, false, false, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "not on the traced vdy"));
	assert_non_null(strstr(dg.msg, "--any-fs"));
	/* Writing: only with --overwrite, and never into a loop device's backing file. */
	assert_int_equal(open_target(&t, path, "vdx2", true, false, false, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "needs --overwrite"));
	expect_refused(path, true, "it backs loop5");
	/* Nor into an active swap file. */
	snprintf(path, sizeof(path), "%s/swap file", files);
	snprintf(text, sizeof(text),
		 "Filename\tType\tSize\tUsed\tPriority\n"
		 "%s/swap\\040file                file\t1020\t0\t-2\n",
		 files);
	put(scratch, "swaps", text);
	expect_refused(path, true, "it is an active swap file");
	put(scratch, "swaps", "Filename\tType\tSize\tUsed\tPriority\n");
	assert_int_equal(open_target(&t, path, "vdx2", true, true, false, &dg), 0);
	target__close(&t);
}

static unsigned int count_entries(const char *dir)
{
	struct dirent *de;
	unsigned int n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_new_file_unlinked(void **state)
{
	unsigned int before = count_entries(files);
	char buf[8], path[PATH_MAX * 2];
	struct diag dg;
	struct target t;
	int fd;

	(void)state;
	assert_int_equal(open_target(&t, NULL, "vdx2", true, false, false, &dg), 0);
	assert_int_equal(t.kind, TARGET_NEW_FILE);
	/* It exists only as our fd: nothing to find, nothing to remove, ever. */
	assert_int_equal(count_entries(files), before);
	fd = target__reopen(&t, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(target__fill(&t, 3 * 4096 + 1, NULL), 0);
	assert_int_equal(t.size, 3 * 4096 + 1);
	fd = target__reopen(&t, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, sizeof(buf), 3 * 4096 - 4), 5);
	close(fd);
	assert_int_equal(count_entries(files), before);
	target__close(&t);
	target__close(&t); /* safe twice */
	assert_int_equal(count_entries(files), before);

	/* A --file that does not exist yet is made the same way, in its directory. */
	snprintf(path, sizeof(path), "%s/new.bin", files);
	assert_int_equal(open_target(&t, path, "vdx2", false, false, false, &dg), 0);
	assert_int_equal(t.kind, TARGET_NEW_FILE);
	assert_int_equal(access(path, F_OK), -1);
	target__close(&t);
	/* The current directory must be on the traced disk too. */
	assert_int_equal(open_target(&t, NULL, "vdy", true, false, false, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "not on the traced vdy"));
	assert_int_equal(count_entries(files), before);
	/* What the system cannot do is a runtime failure (exit 1), not bad input. */
	assert_int_equal(
		open_target(&t, "/nonexistent-dir/x.bin", "vdx2", false, false, false, &dg),
		-ENOENT);
	assert_false(dg.usage);
	assert_string_equal(dg.msg, "cannot use /nonexistent-dir: No such file or directory");
}

static void test_check_io(void **state)
{
	struct target disk = { .kind = TARGET_DISK,
			       .name = "loop9",
			       .fd = -1,
			       .write = true,
			       .size = 512ULL << 20,
			       .dio_align = 512 };
	struct target wfile = { .kind = TARGET_FILE,
				.name = "f",
				.fd = -1,
				.write = true,
				.size = 4096,
				.dio_align = 4096 };
	struct diag dg = {};

	(void)state;
	assert_int_equal(target__check_io(&disk, 1 << 20, 512ULL << 20, true, false, &dg), 0);
	assert_int_equal(target__check_io(&disk, 3, 3, true, false, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "--bs 3 B is not a multiple of 512 B"));
	assert_int_equal(target__check_io(&disk, 3, 3, false, false, &dg), 0);
	assert_int_equal(target__check_io(&disk, 1 << 30, 1 << 30, false, true, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "--bs 1 GiB is larger than loop9 (512 MiB)"));
	assert_int_equal(target__check_io(&disk, 1 << 20, 1ULL << 30, false, false, &dg), -EINVAL);
	assert_non_null(strstr(dg.msg, "--wrap"));
	assert_int_equal(target__check_io(&disk, 1 << 20, 1ULL << 30, false, true, &dg), 0);
	/* A whole-disk read (size 0) always fits. */
	assert_int_equal(target__check_io(&disk, 1 << 20, 0, false, false, &dg), 0);
	/* Writes extend a file: no bound but the alignment. */
	assert_int_equal(target__check_io(&wfile, 1 << 20, 1ULL << 30, true, false, &dg), 0);
	assert_int_equal(target__check_io(&wfile, 512, 4096, true, false, &dg), -EINVAL);
	wfile.write = false;
	assert_int_equal(target__check_io(&wfile, 8192, 8192, false, false, &dg), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unused_disks),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_swaps),
		cmocka_unit_test(test_loop_on_disk),
		cmocka_unit_test(test_file_kinds),
		cmocka_unit_test(test_existing_file),
		cmocka_unit_test(test_new_file_unlinked),
		cmocka_unit_test(test_check_io),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
