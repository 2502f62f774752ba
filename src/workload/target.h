/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The target of the built-in workload: the file or disk it reads and writes, and
 * the one policy that decides whether it may. Every target goes through it, however
 * it was named: --raw (the traced disk), --file (a regular file, or a block device,
 * directly or through a symlink) or neither (a new file in the current directory).
 *
 *  - Only regular files and block devices: a FIFO, socket, character device or
 *    directory is refused before it is opened for I/O.
 *  - A disk is written only with --destructive, and never while it or one of its
 *    partitions is mounted, used as swap (a swap partition, or a swap file on it),
 *    held (holders/: md, dm and other stacked devices), or backing a loop device
 *    (loop-on-loop does not show in holders/), nor a whole disk that has partitions.
 *    It is then opened O_EXCL, which the kernel enforces against mounts and other
 *    claims for as long as the workload runs; EBUSY is the same refusal.
 *  - An existing file is never removed, written only with --overwrite, and never
 *    when it is an active swap file or backs a loop device.
 *  - A file the tool creates is created unlinked (O_TMPFILE; else unlinked right
 *    after creation), so no way of ending, SIGKILL included, leaves it behind.
 *  - A file must live on the traced disk (or partition), a disk must be it, unless
 *    --any-fs: elsewhere the trace would show nothing.
 *  - Sizes are checked before the run: with --direct, --bs a multiple of the direct
 *    I/O alignment; --bs and --size no larger than a disk or a file being read,
 *    unless --wrap says to go round it again.
 * Refusals return -EINVAL with one line in d, as bad input (diag.h); what the system
 * could not do (open, create, stat) a runtime failure with its own errno.
 * The system files the policy reads come in struct target_env, so that tests can
 * hand it a fake sysfs, mountinfo, swaps and /dev.
 */
#ifndef BLKTRACE_BENCH_TARGET_H
#define BLKTRACE_BENCH_TARGET_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "disk/device.h"

struct target_env {
	const char *sysfs;     /* the sysfs root, for resolving disks too; needed (no default) */
	const char *mountinfo; /* NULL: /proc/self/mountinfo */
	const char *swaps;     /* NULL: /proc/swaps */
	const char *dev_dir;   /* NULL: /dev; loop devices there are asked for their backing */
};

enum target_kind {
	TARGET_NEW_FILE, /* created by us, unlinked */
	TARGET_FILE,	 /* an existing regular file */
	TARGET_DISK,	 /* a disk or partition */
};

struct target_req {
	const char *file; /* --file PATH; NULL: the traced disk (raw) or a new file */
	bool raw;	  /* --raw: the traced disk itself */
	const char *dir;  /* where a new file goes without --file; NULL: "." */
	bool write, overwrite, destructive, any_fs;
};

struct target {
	enum target_kind kind;
	char name[PATH_MAX]; /* for messages: "loop0", a path, "a new file in DIR" */
	int fd;		     /* held for the whole job (a disk being written: O_EXCL) */
	bool write;
	uint64_t size;	    /* bytes: of the disk or file; a new file's once filled */
	uint32_t dio_align; /* --direct: offsets and lengths are multiples of this */
};

struct diag;

/*
 * May dev (a whole disk with its partitions, or the one partition dev names) be written?
 * 0, or -EINVAL with "refusing to write to NAME: ..." in d. Reads env's files; an
 * unreadable mountinfo is a refusal (nothing could be verified).
 */
int target__check_unused(const struct target_env *env, const struct device *dev, struct diag *d);

/* Choose and open the target of req for the traced disk, policy applied. t->fd = -1 on error. */
int target__open(struct target *t, const struct target_env *env, const struct target_req *req,
		 const struct device *traced, struct diag *d);

/* Refuse what cannot run: bs/size against the alignment and the size (see above). */
int target__check_io(const struct target *t, uint64_t bs, uint64_t size, bool direct, bool wrap,
		     struct diag *d);

/* A new file for a read job: write size bytes of the workload pattern. 0, -EINTR, -errno. */
int target__fill(struct target *t, uint64_t size, volatile sig_atomic_t *stop);

/* An fd on the same file or disk for one run, with the run's own flags (O_DIRECT...). */
int target__reopen(const struct target *t, int flags);

/* Close (a new file disappears with it); safe twice. */
void target__close(struct target *t);

#endif /* BLKTRACE_BENCH_TARGET_H */
