/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A disk's stable identity: what a udev rule matches it by, so that a setting follows
 * the disk and not its kernel name (xvda today, xvdb after a reboot). In order:
 *   ATTR{wwid}               the disk's own WWID (NVMe namespaces)
 *   ATTRS{wwid}              its SCSI device's (VPD page 0x83)
 *   ATTR{serial}             the disk's serial (virtio-blk)
 *   ATTRS{serial}            its device's serial (MMC, USB; not NVMe, whose controller
 *                            serial is shared by its namespaces)
 *   KERNELS                  xen-blkfront: the xenbus device, "vbd-51712", the virtual
 *                            device number the domain's configuration gives the disk
 *   ATTR{loop/backing_file}  loop devices have no serial: the file behind them
 * Only values a udev match string holds exactly are used: printable ASCII without the
 * glob characters * ? [ ] | and without quotes and backslashes.
 */
#ifndef BLKTRACE_BENCH_DISK_ID_H
#define BLKTRACE_BENCH_DISK_ID_H

#include <stdbool.h>
#include <stddef.h>
#include "disk/device.h"

struct disk_id {
	char key[32];	 /* the udev match key: "ATTR{serial}", "KERNELS" */
	char value[256]; /* what it must equal */
	char what[64];	 /* for people: "serial", "xen vbd", "loop backing file" */
};

struct diag;

/* dev's identity. 0, or -ENOENT with one line in d saying what dev lacks (bad input). */
int disk_id__of(const struct device *dev, struct disk_id *id, struct diag *d);

/* The udev match: KERNELS=="vbd-51712". */
void disk_id__match(const struct disk_id *id, char *buf, size_t len);

#define DISK_ID_HASH_LEN 16 /* hex digits */

/*
 * "serial-QM00001-0123456789abcdef": for file names, [A-Za-z0-9._-] only, at most len - 1
 * bytes (len at least 32): the kind, the value (a loop backing file's base name), cut to
 * fit, and a hash of the whole identity, so that two disks whose values read alike here
 * (/srv/a/disk.img and /srv/b/disk.img) get names of their own.
 */
void disk_id__slug(const struct disk_id *id, char *buf, size_t len);

/* Is s exactly matchable in a udev rule (see above), and non-empty? */
bool disk_id__safe(const char *s);

/* Is key one of the keys above? (A saved identity is checked before it is used.) */
bool disk_id__known_key(const char *key);

/*
 * The whole disk below sysfs_root whose identity is id: 0 with *out filled, -ENOENT when
 * there is none, another -errno.
 */
int disk_id__find(const char *sysfs_root, const struct disk_id *id, struct device *out);

#endif /* BLKTRACE_BENCH_DISK_ID_H */
