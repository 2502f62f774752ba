/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Is a device or a file in use on this machine: mounted, swapped on, backing a loop
 * device? Asked before the workload writes a disk or a file (workload/target.c) and
 * before an output replaces a file (outfile.c). Each check returns 1 with the reason in
 * why, 0, or -errno when it could not look.
 */
#ifndef BLKTRACE_BENCH_IN_USE_H
#define BLKTRACE_BENCH_IN_USE_H

#include <stddef.h>
#include <sys/types.h>

/* A disk and its partitions (at most 64), or a partition and its disk. */
#define DEVSET_MAX 65

/* The devices a write would touch, by number, with their names for the reasons. */
struct devset {
	unsigned int n;
	dev_t dev[DEVSET_MAX];
	const char *name[DEVSET_MAX];
	const char *holders_dir[DEVSET_MAX]; /* "" for the disk itself */
};

/* Is one of s mounted (mountinfo: /proc/self/mountinfo's format; NULL: that file)? */
int in_use__mounts(const char *mountinfo, const struct devset *s, char *why, size_t len);
/*
 * Is one of s a swap partition or holding a swap file (/proc/swaps' format; NULL: it); ino != 0:
 * is the file (fdev, ino) an active swap file?
 */
int in_use__swaps(const char *swaps, const struct devset *s, dev_t fdev, ino_t ino, char *why,
		  size_t len);
/*
 * Does a bound loop device (ROOT/block/NAME/loop/, its node in dev_dir, NULL: /dev) have one of s
 * behind it, or, ino != 0, the file (fdev, ino) as its backing file?
 */
int in_use__loops(const char *root, const char *dev_dir, const struct devset *s, dev_t fdev,
		  ino_t ino, char *why, size_t len);

struct stat;
/* Is the regular file st an active swap file, or the backing file of a loop device? NULL
 * paths as above. */
int in_use__file(const char *sysfs, const char *swaps, const char *dev_dir, const struct stat *st,
		 char *why, size_t len);

#endif /* BLKTRACE_BENCH_IN_USE_H */
