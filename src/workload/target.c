// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The workload's target and the one policy for it (see target.h). This file owns the
 * choice between a new file, an existing file and a disk, every check made before
 * one of them is written, and how it is opened.
 * What mounts, swaps and loop devices hold is asked of files/in_use.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
/* The uapi's struct loop_info (the old ioctl's) would clash with device.h's. */
#define loop_info linux_loop_info
#include <linux/loop.h>
#undef loop_info
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "base/diag.h"
#include "base/fmt.h"
#include "base/parse.h"
#include "files/in_use.h"
#include "workload/target.h"
#include "workload/workload.h"

_Static_assert(DEVSET_MAX >= DEVICE_MAX_PARTITIONS + 1, "a disk and every partition");

/* The devices a write to d would touch: the partition and its disk, or the disk and all. */
static void devset_of(const struct device *d, struct devset *s)
{
	unsigned int i;

	s->n = 0;
	if (d->part_name[0]) {
		s->dev[s->n] = makedev(d->part_major, d->part_minor);
		s->holders_dir[s->n] = d->part_name;
		s->name[s->n++] = d->part_name;
	}
	s->dev[s->n] = makedev(d->major, d->minor);
	s->holders_dir[s->n] = "";
	s->name[s->n++] = d->name;
	for (i = 0; i < d->nr_partitions && !d->part_name[0]; i++) {
		s->dev[s->n] = makedev(d->partitions[i].major, d->partitions[i].minor);
		s->holders_dir[s->n] = d->partitions[i].name;
		s->name[s->n++] = d->partitions[i].name;
	}
}

/* holders/ of the disk and of each partition in s: md, dm, bcache... stacked on it. */
static int check_holders(const struct device *d, const struct devset *s, char *why, size_t len)
{
	char dir[PATH_MAX + 128];
	struct dirent *de;
	unsigned int i;
	int ret = 0;
	DIR *dp;

	for (i = 0; i < s->n && !ret; i++) {
		snprintf(dir, sizeof(dir), "%s%s%s/holders", d->sysfs_path,
			 s->holders_dir[i][0] ? "/" : "", s->holders_dir[i]);
		dp = opendir(dir);
		while (dp && !ret && (de = readdir(dp))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(why, len, "%s is held by %s (a device stacked on it: md, dm...)",
				 s->name[i], de->d_name);
			ret = 1;
		}
		if (dp)
			closedir(dp);
	}
	return ret;
}

/* What the in-use checks of name found: ret < 0, nothing could be checked; 1, why. */
static int in_use_verdict(const char *name, int ret, const char *why, struct diag *d)
{
	if (ret < 0)
		return diag__usage(d, "refusing to write to %s: cannot check that it is unused: %s",
				   name, strerror(-ret));
	if (ret)
		return diag__usage(d, "refusing to write to %s: %s", name, why);
	return 0;
}

int target__check_unused(const struct target_env *env, const struct device *dev, struct diag *d)
{
	const char *name = dev->part_name[0] ? dev->part_name : dev->name;
	struct devset *s;
	char why[PATH_MAX + 256];
	int ret;

	if (!env->sysfs)
		return diag__usage(d, "no sysfs root given");
	if (!dev->part_name[0] && dev->nr_partitions)
		return diag__usage(d,
				   "refusing to write to %s: it has partitions (%s%s): "
				   "name one of them",
				   name, dev->partitions[0].name,
				   dev->nr_partitions > 1 ? ", ..." : "");
	s = malloc(sizeof(*s));
	if (!s)
		return diag__fail(d, -ENOMEM, "out of memory");
	devset_of(dev, s);
	ret = check_holders(dev, s, why, sizeof(why));
	if (!ret)
		ret = in_use__swaps(env->swaps, s, 0, 0, why, sizeof(why));
	if (!ret)
		ret = in_use__mounts(env->mountinfo, s, why, sizeof(why));
	if (!ret)
		ret = in_use__loops(env->sysfs, env->dev_dir, s, 0, 0, why, sizeof(why));
	free(s);
	return in_use_verdict(name, ret, why, d);
}

/* An existing regular file: not an active swap file, not backing a loop device. */
static int check_file_unused(const struct target_env *env, const char *path, const struct stat *st,
			     struct diag *d)
{
	char why[PATH_MAX];

	return in_use_verdict(
		path, in_use__file(env->sysfs, env->swaps, env->dev_dir, st, why, sizeof(why)), why,
		d);
}

/*
 * Is the filesystem (or the disk) dev the traced disk, or the traced partition? Any
 * partition of the traced disk counts when the whole disk is traced.
 */
static bool on_traced(const char *sysfs, dev_t dev, const struct device *traced, char *spec,
		      size_t len)
{
	struct device *fs = malloc(sizeof(*fs));
	bool same;

	snprintf(spec, len, "%u:%u", major(dev), minor(dev));
	same = fs && !device__resolve(sysfs, spec, fs, NULL) && fs->major == traced->major &&
	       fs->minor == traced->minor &&
	       (!traced->part_name[0] || !strcmp(fs->part_name, traced->part_name));
	free(fs);
	return same;
}

static const char *traced_name(const struct device *d)
{
	return d->part_name[0] ? d->part_name : d->name;
}

/* A file at path on the filesystem dev: refused when that is not the traced disk. */
static int check_on_traced(const char *sysfs, const char *path, dev_t dev,
			   const struct target_req *req, const struct device *traced,
			   struct diag *d)
{
	char spec[32];

	if (req->any_fs || on_traced(sysfs, dev, traced, spec, sizeof(spec)))
		return 0;
	return diag__usage(d,
			   "%s is on device %s, not on the traced %s: the trace would show "
			   "nothing (--file elsewhere, or --any-fs to run anyway)",
			   path, spec, traced_name(traced));
}

static uint32_t file_dio_align(int fd, const struct device *traced)
{
	struct statx stx;

	/* STATX_DIOALIGN (6.1): what this file's filesystem needs, 0 when it has no O_DIRECT. */
	if (!statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align)
		return stx.stx_dio_offset_align;
	return traced->limits.logical_block_size > 0 ? traced->limits.logical_block_size : 512;
}

/* A new file in dir, never linked: O_TMPFILE, else created and unlinked at once. */
static int open_new(struct target *t, const char *sysfs, const char *dir,
		    const struct target_req *req, const struct device *traced, struct diag *d)
{
	char path[PATH_MAX + 32];
	struct stat st;
	int fd, ret;

	if (stat(dir, &st))
		return diag__fail(d, -errno, "cannot use %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return diag__usage(d, "%s is not a directory", dir);
	ret = check_on_traced(sysfs, dir, st.st_dev, req, traced, d);
	if (ret)
		return ret;
	/* O_EXCL: the file can never be linked into the directory either. */
	fd = open(dir, O_RDWR | O_TMPFILE | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		/* A filesystem (or a kernel before 3.11) without O_TMPFILE. */
		snprintf(path, sizeof(path), "%s/.blktrace-bench-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0 && unlink(path)) {
			close(fd);
			return diag__fail(d, -errno, "cannot unlink %s: %s", path, strerror(errno));
		}
	}
	if (fd < 0)
		return diag__fail(d, -errno, "cannot create a file in %s: %s", dir,
				  strerror(errno));
	t->kind = TARGET_NEW_FILE;
	t->fd = fd;
	t->dio_align = file_dio_align(fd, traced);
	snprintf(t->name, sizeof(t->name), "the new file in %s", dir);
	return 0;
}

/* fd must still be what path was when it was checked: a swap between is refused. */
static int same_inode(int fd, const struct stat *want, const char *path, struct diag *d)
{
	struct stat st;

	if (fstat(fd, &st))
		return diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	if (st.st_dev != want->st_dev || st.st_ino != want->st_ino ||
	    (st.st_mode & S_IFMT) != (want->st_mode & S_IFMT) || st.st_rdev != want->st_rdev)
		return diag__usage(d, "%s changed while it was being opened", path);
	return 0;
}

/*
 * An existing --file, found: its directory opened once, then everything by descriptor,
 * so that nobody can swap the directory, or the name in it, between the checks and the
 * open.
 */
struct located {
	const char *path; /* as given, for messages */
	int dirfd;	  /* the directory (O_PATH); AT_FDCWD for --raw's node */
	const char *name; /* in dirfd */
	bool link;	  /* name is a symbolic link, st what it leads to */
	struct stat st;
};

/* Open loc as checked: O_NOFOLLOW unless it was a link; a swap since is refused. */
static int open_located(const struct located *loc, int flags, struct diag *d)
{
	int fd, ret;

	fd = openat(loc->dirfd, loc->name, flags | (loc->link ? 0 : O_NOFOLLOW));
	if (fd < 0 && errno == ELOOP && !loc->link)
		return diag__usage(d, "%s changed while it was being opened", loc->path);
	if (fd < 0)
		return diag__fail(d, -errno, "cannot open %s: %s", loc->path, strerror(errno));
	ret = same_inode(fd, &loc->st, loc->path, d);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Who could have put the file there. In a directory another user can write (theirs, or
 * group- or world-writable: /tmp), a file with more than one name may have been linked
 * in from anywhere (hard links, fs.protected_hardlinks off), a file of root's among
 * them; in a directory of another user, a file not theirs is theirs to swap in. Refused
 * for writing, as a symbolic link is.
 */
static int check_owner(const struct located *loc, struct diag *d)
{
	struct stat dir;
	bool theirs;

	if (fstat(loc->dirfd, &dir))
		return diag__fail(d, -errno, "%s: %s", loc->path, strerror(errno));
	theirs = dir.st_uid && dir.st_uid != geteuid();
	if (!theirs && !(dir.st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (loc->st.st_nlink > 1)
		return diag__usage(d,
				   "refusing to write %s: it has %ju names, and others can write "
				   "its directory: another name may be anyone's file",
				   loc->path, (uintmax_t)loc->st.st_nlink);
	if (theirs && loc->st.st_uid != dir.st_uid)
		return diag__usage(d,
				   "refusing to write %s: it belongs to uid %u, its directory to "
				   "uid %u, who could have put it there",
				   loc->path, loc->st.st_uid, dir.st_uid);
	return 0;
}

/* --overwrite through a link would write wherever its owner points it: refused, saying where. */
static int refuse_link(const struct located *loc, struct diag *d)
{
	char to[PATH_MAX];
	ssize_t n = readlinkat(loc->dirfd, loc->name, to, sizeof(to) - 1);

	to[n > 0 ? n : 0] = '\0';
	return diag__usage(d,
			   "refusing to write %s: it is a symbolic link to %s; name the file "
			   "itself",
			   loc->path, n > 0 ? to : "?");
}

static int open_file(struct target *t, const struct target_env *env, const struct located *loc,
		     const struct target_req *req, const struct device *traced, struct diag *d)
{
	const struct stat *st = &loc->st;
	int ret;

	ret = check_on_traced(env->sysfs, loc->path, st->st_dev, req, traced, d);
	if (ret)
		return ret;
	if (req->write && !req->overwrite)
		return diag__usage(d, "%s exists: writing into it needs --overwrite", loc->path);
	if (req->write && loc->link)
		return refuse_link(loc, d);
	if (req->write) {
		ret = check_owner(loc, d);
		if (!ret)
			ret = check_file_unused(env, loc->path, st, d);
		if (ret)
			return ret;
	}
	/* O_NONBLOCK: should a FIFO have replaced the file since stat, open must not wait. */
	ret = open_located(
		loc, (req->write ? O_WRONLY : O_RDONLY) | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, d);
	if (ret < 0)
		return ret;
	t->fd = ret;
	t->kind = TARGET_FILE;
	t->size = st->st_size;
	t->dio_align = file_dio_align(t->fd, traced);
	snprintf(t->name, sizeof(t->name), "%s", loc->path);
	return 0;
}

/* A disk or partition (disk says which), at loc; written only as the policy allows. */
static int open_disk(struct target *t, const struct target_env *env, const struct located *loc,
		     const struct device *disk, const struct target_req *req,
		     const struct device *traced, struct diag *d)
{
	const char *name = traced_name(disk), *path = loc->path;
	dev_t want = disk->part_name[0] ? makedev(disk->part_major, disk->part_minor)
					: makedev(disk->major, disk->minor);
	struct stat st;
	int ret, lbs;

	snprintf(t->name, sizeof(t->name), "%s", name);
	if (!req->any_fs && (disk->major != traced->major || disk->minor != traced->minor ||
			     (traced->part_name[0] && strcmp(disk->part_name, traced->part_name))))
		return diag__usage(d,
				   "%s is %s, not the traced %s: the trace would show nothing "
				   "(--any-fs to run anyway)",
				   path, name, traced_name(traced));
	if (req->write && !req->destructive)
		return diag__usage(d,
				   "writing to %s would overwrite the data on it: add "
				   "--destructive",
				   name);
	if (req->write) {
		ret = target__check_unused(env, disk, d);
		if (ret)
			return ret;
	}
	/* O_EXCL: from here on the kernel refuses mounts, swapon and other claims of it. */
	t->fd = openat(loc->dirfd, loc->name,
		       (req->write ? O_WRONLY | O_EXCL : O_RDONLY) | O_NONBLOCK | O_CLOEXEC |
			       (loc->link ? 0 : O_NOFOLLOW));
	if (t->fd < 0 && errno == EBUSY)
		return diag__usage(d,
				   "refusing to write to %s: the kernel says it is in use "
				   "(mounted, swap, or claimed by another device)",
				   name);
	if (t->fd < 0)
		return diag__fail(d, -errno, "cannot open %s: %s", path, strerror(errno));
	if (fstat(t->fd, &st) || !S_ISBLK(st.st_mode) || st.st_rdev != want)
		return diag__usage(d, "%s is not %s (%u:%u)", path, name, major(want), minor(want));
	if (ioctl(t->fd, BLKGETSIZE64, &t->size))
		return diag__fail(d, -errno, "cannot get the size of %s: %s", path,
				  strerror(errno));
	t->dio_align = ioctl(t->fd, BLKSSZGET, &lbs) || lbs <= 0 ? 512 : lbs;
	t->kind = TARGET_DISK;
	return 0;
}

/* --file names something that exists: only a regular file or a block device will do. */
static int open_existing(struct target *t, const struct target_env *env, const struct located *loc,
			 const struct target_req *req, const struct device *traced, struct diag *d)
{
	const struct stat *st = &loc->st;
	const char *path = loc->path;
	struct device *disk;
	char spec[32];
	const char *kind;
	int ret;

	switch (st->st_mode & S_IFMT) {
	case S_IFREG:
		return open_file(t, env, loc, req, traced, d);
	case S_IFBLK:
		disk = malloc(sizeof(*disk));
		if (!disk)
			return diag__fail(d, -ENOMEM, "out of memory");
		snprintf(spec, sizeof(spec), "%u:%u", major(st->st_rdev), minor(st->st_rdev));
		ret = device__resolve(env->sysfs, spec, disk, d);
		if (ret)
			diag__prefix(d, "--file %s: block device %s: ", path, spec);
		else
			ret = open_disk(t, env, loc, disk, req, traced, d);
		free(disk);
		return ret;
	case S_IFDIR:
		return diag__usage(d,
				   "--file %s is a directory: name a file (or leave --file "
				   "out for a new file in the current directory)",
				   path);
	case S_IFIFO:
		kind = "a FIFO";
		break;
	case S_IFSOCK:
		kind = "a socket";
		break;
	case S_IFCHR:
		kind = "a character device";
		break;
	default:
		kind = "not a file";
		break;
	}
	return diag__usage(d,
			   "--file %s is %s: the workload needs a regular file or a block device",
			   path, kind);
}

/*
 * --file as it is now: its directory opened once, the name in it looked at without
 * following it (then what a link leads to). 1 when nothing is there; 0 with loc filled
 * (loc->dirfd to close); -errno with d.
 */
static int locate(struct located *loc, const char *path, char *dir, size_t len, struct diag *d)
{
	char *slash;

	memset(loc, 0, sizeof(*loc));
	loc->path = path;
	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	loc->name = slash ? path + (slash - dir) + 1 : path;
	if (slash)
		slash[slash == dir] = '\0';
	else
		snprintf(dir, len, ".");
	loc->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (loc->dirfd < 0 && errno == ENOENT)
		return 1;
	if (loc->dirfd < 0)
		return diag__fail(d, -errno, "cannot use %s: %s", path, strerror(errno));
	if (!loc->name[0]) /* "DIR/": the directory itself */
		loc->name = ".";
	if (fstatat(loc->dirfd, loc->name, &loc->st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT
			       ? 1
			       : diag__fail(d, -errno, "cannot use %s: %s", path, strerror(errno));
	loc->link = S_ISLNK(loc->st.st_mode);
	if (loc->link && fstatat(loc->dirfd, loc->name, &loc->st, 0))
		return errno == ENOENT
			       ? 1
			       : diag__fail(d, -errno, "cannot use %s: %s", path, strerror(errno));
	return 0;
}

int target__open(struct target *t, const struct target_env *env, const struct target_req *req,
		 const struct device *traced, struct diag *d)
{
	const char *dev_dir = env->dev_dir ? env->dev_dir : "/dev";
	struct located loc = { .dirfd = -1 };
	char path[PATH_MAX];
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->write = req->write;
	if (!env->sysfs)
		return diag__usage(d, "no sysfs root given");
	if (req->raw) {
		/* The traced disk's own node, as the device model names it. */
		snprintf(path, sizeof(path), "%s/%s", dev_dir, traced_name(traced));
		loc = (struct located){
			.path = path, .dirfd = AT_FDCWD, .name = path, .link = true
		};
		ret = open_disk(t, env, &loc, traced, req, traced, d);
		loc.dirfd = -1;
	} else if (!req->file) {
		ret = open_new(t, env->sysfs, req->dir ? req->dir : ".", req, traced, d);
	} else {
		ret = locate(&loc, req->file, path, sizeof(path), d);
		if (!ret)
			ret = open_existing(t, env, &loc, req, traced, d);
		/* A new --file is like the default one: made in its directory, never linked. */
		if (ret == 1)
			ret = open_new(t, env->sysfs, path, req, traced, d);
	}
	if (loc.dirfd >= 0)
		close(loc.dirfd);
	if (ret)
		target__close(t);
	return ret;
}

int target__check_io(const struct target *t, uint64_t bs, uint64_t size, bool direct, bool wrap,
		     struct diag *d)
{
	/* A disk does not grow, nor does a file being read; writes extend a file. */
	bool fixed = t->kind == TARGET_DISK || (t->kind == TARGET_FILE && !t->write);
	char b1[32], b2[32];

	if (direct && t->dio_align > 1 && bs % t->dio_align)
		return diag__usage(d,
				   "--bs %s is not a multiple of %s, the direct I/O alignment of "
				   "%s: --direct needs it",
				   fmt__bytes(b1, sizeof(b1), bs),
				   fmt__bytes(b2, sizeof(b2), t->dio_align), t->name);
	if (!fixed)
		return 0;
	if (bs > t->size)
		return diag__usage(d, "--bs %s is larger than %s (%s)",
				   fmt__bytes(b1, sizeof(b1), bs), t->name,
				   fmt__bytes(b2, sizeof(b2), t->size));
	if (size > t->size && !wrap)
		return diag__usage(d,
				   "%s per run (--size, or --count x --bs) is more than %s holds "
				   "(%s): add --wrap to go round it again",
				   fmt__bytes(b1, sizeof(b1), size), t->name,
				   fmt__bytes(b2, sizeof(b2), t->size));
	return 0;
}

int target__fill(struct target *t, uint64_t size, volatile sig_atomic_t *stop)
{
	int ret = workload__fill_fd(t->fd, size, stop);

	if (!ret)
		t->size = size;
	return ret;
}

int target__reopen(const struct target *t, int flags)
{
	char path[64];
	int fd;

	/* The magic link opens the very inode we checked, whatever its name is now. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", t->fd);
	fd = open(path, (flags & ~(O_CREAT | O_EXCL)) | O_NOCTTY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

void target__close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
