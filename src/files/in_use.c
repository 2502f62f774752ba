// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What this machine holds open on a device or a file: mounts, swap and the loop devices
 * it backs (see in_use.h).
 *
 * /proc/self/mountinfo and /proc/swaps are read by hand rather than through libmount:
 * the checks need one field of each (a MAJ:MIN and a path with octal escapes), and a
 * build dependency for that would be heavier than the dozen lines it saves.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
/* The uapi's struct loop_info (the old ioctl's) is not the one this file means. */
#define loop_info linux_loop_info
#include <linux/loop.h>
#undef loop_info
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "base/parse.h"
#include "files/in_use.h"

#define MAX_FIELDS 64

static int devset_find(const struct devset *s, dev_t dev)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->dev[i] == dev)
			return i;
	return -1;
}

/* mountinfo and swaps escape ' ', '\t', '\n' and '\\' as \ooo (fs/proc_namespace.c). */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

static int split_fields(char *line, char **field, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		field[n++] = tok;
	return n;
}

/* A block device node's number, for mount sources and swap partitions; 0 when not one. */
static dev_t blk_rdev(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISBLK(st.st_mode) ? st.st_rdev : 0;
}

/*
 * mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - TYPE SOURCE
 * SUPEROPTS". MAJ:MIN is st_dev of the filesystem, which for btrfs is an anonymous
 * device: the source names the disk there. Sources are only stat()ed below /dev, so a
 * network path cannot hang the check.
 */
int in_use__mounts(const char *path, const struct devset *s, char *why, size_t len)
{
	char *line = NULL, *field[MAX_FIELDS];
	unsigned int maj, min;
	const char *bad;
	size_t cap = 0;
	int n, i, hit = -1, ret = 0;
	FILE *f = fopen(path ? path : "/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (hit < 0 && getline(&line, &cap, f) > 0) {
		n = split_fields(line, field, MAX_FIELDS);
		if (n < 5 || parse_devnum(field[2], &maj, &min, &bad))
			continue;
		hit = devset_find(s, makedev(maj, min));
		for (i = 5; hit < 0 && i + 2 < n; i++) {
			if (strcmp(field[i], "-"))
				continue;
			unescape_octal(field[i + 2]);
			if (!strncmp(field[i + 2], "/dev/", 5))
				hit = devset_find(s, blk_rdev(field[i + 2]));
			break;
		}
		if (hit >= 0) {
			unescape_octal(field[4]);
			snprintf(why, len, "%s is mounted on %s", s->name[hit], field[4]);
			ret = 1;
		}
	}
	free(line);
	fclose(f);
	return ret;
}

/*
 * /proc/swaps: a header, then "FILENAME TYPE SIZE USED PRIO". A swap partition is
 * matched by its device number, a swap file by the filesystem it lives on (ino != 0:
 * that very file). Returns 1 with the reason in why, 0, or -errno.
 */
int in_use__swaps(const char *path, const struct devset *s, dev_t fdev, ino_t ino, char *why,
		  size_t len)
{
	char *line = NULL, *field[MAX_FIELDS];
	size_t cap = 0;
	struct stat st;
	int n, hit, ret = 0;
	FILE *f = fopen(path ? path : "/proc/swaps", "re");

	if (!f)
		return errno == ENOENT ? 0 : -errno; /* a kernel without swap */
	while (!ret && getline(&line, &cap, f) > 0) {
		n = split_fields(line, field, MAX_FIELDS);
		if (n < 2 || !strcmp(field[0], "Filename"))
			continue;
		unescape_octal(field[0]);
		if (stat(field[0], &st))
			continue; /* a deleted swap file: its filesystem still shows as mounted */
		if (ino) {
			if (st.st_dev == fdev && st.st_ino == ino) {
				snprintf(why, len, "it is an active swap file");
				ret = 1;
			}
			continue;
		}
		hit = devset_find(s, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev);
		if (hit < 0)
			continue;
		if (S_ISBLK(st.st_mode))
			snprintf(why, len, "%s is used as swap", s->name[hit]);
		else
			snprintf(why, len, "%s holds the swap file %s", s->name[hit], field[0]);
		ret = 1;
	}
	free(line);
	fclose(f);
	return ret;
}

/* The first line of a small file, newline removed. 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return ret;
}

/* What backs a loop device: a block device (rdev), or a file (dev, ino). */
struct backing {
	bool blk;
	dev_t rdev, dev;
	ino_t ino;
};

/*
 * Ask the loop device itself first: LOOP_GET_STATUS64 gives the backing inode's st_dev,
 * st_ino and st_rdev even after the file was renamed or deleted. Where its node is not
 * in dev_dir (or is not this device), stat the path sysfs shows. false: unbound, unknown.
 */
static bool loop_backing(const char *dev_dir, const char *sysdir, const char *name,
			 struct backing *b, char *file, size_t flen)
{
	char path[PATH_MAX + 64], num[32];
	struct loop_info64 info;
	unsigned int maj, min;
	const char *why;
	struct stat st;
	int fd;

	if (snprintf(path, sizeof(path), "%s/loop/backing_file", sysdir) >= (int)sizeof(path) ||
	    read_line(path, file, flen))
		return false;
	if (snprintf(path, sizeof(path), "%s/dev", sysdir) >= (int)sizeof(path) ||
	    read_line(path, num, sizeof(num)) || parse_devnum(num, &maj, &min, &why))
		return false;
	fd = -1;
	if (snprintf(path, sizeof(path), "%s/%s", dev_dir, name) < (int)sizeof(path))
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		bool ok = !fstat(fd, &st) && S_ISBLK(st.st_mode) &&
			  st.st_rdev == makedev(maj, min) && !ioctl(fd, LOOP_GET_STATUS64, &info);

		close(fd);
		if (ok) {
			/* huge_encode_dev() is glibc's dev_t encoding for majors below 4096. */
			b->rdev = info.lo_rdevice;
			b->blk = b->rdev != 0;
			b->dev = info.lo_device;
			b->ino = info.lo_inode;
			return true;
		}
	}
	if (stat(file, &st))
		return false;
	b->blk = S_ISBLK(st.st_mode);
	b->rdev = b->blk ? st.st_rdev : 0;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	return true;
}

/*
 * Every bound loop device (ROOT/block/NAME/loop/) backed by one of s (a partition or
 * disk backing it, or holding the filesystem its backing file is on), or, when ino is
 * not 0, by the file (fdev, ino). 1 with the reason in why, or 0.
 */
int in_use__loops(const char *root, const char *dev_dir, const struct devset *s, dev_t fdev,
		  ino_t ino, char *why, size_t len)
{
	char dir[PATH_MAX], sysdir[PATH_MAX + 256], file[PATH_MAX];
	int n;
	struct backing b;
	struct dirent *de;
	int hit, ret = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/block", root);
	dp = opendir(dir);
	if (!dp)
		return 0;
	while (!ret && (de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sysdir, sizeof(sysdir), "%s/%s", dir, de->d_name);
		if (!loop_backing(dev_dir ? dev_dir : "/dev", sysdir, de->d_name, &b, file,
				  sizeof(file)))
			continue;
		if (ino) {
			if (!b.blk && b.dev == fdev && b.ino == ino) {
				snprintf(why, len, "it backs %s", de->d_name);
				ret = 1;
			}
		} else if (b.blk && (hit = devset_find(s, b.rdev)) >= 0) {
			snprintf(why, len, "%s backs %s", s->name[hit], de->d_name);
			ret = 1;
		} else if (!b.blk && (hit = devset_find(s, b.dev)) >= 0) {
			n = snprintf(why, len, "%s holds %s, the backing file of %s", s->name[hit],
				     file, de->d_name);
			ret = n > 0 ? 1 : -EIO;
		}
	}
	closedir(dp);
	return ret;
}

int in_use__file(const char *sysfs, const char *swaps, const char *dev_dir, const struct stat *st,
		 char *why, size_t len)
{
	int ret;

	ret = in_use__swaps(swaps, NULL, st->st_dev, st->st_ino, why, len);
	if (!ret)
		ret = in_use__loops(sysfs, dev_dir, NULL, st->st_dev, st->st_ino, why, len);
	return ret;
}
