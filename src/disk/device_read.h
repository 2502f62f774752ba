/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The readers device__resolve (device_resolve.c) fills struct device with, from the files that
 * own each part: the queue's (device_queue.c), the driver's (device_driver.c) and
 * xenstore's (device_xen.c). Not for other modules: they include device.h.
 */
#ifndef BLKTRACE_BENCH_DEVICE_READ_H
#define BLKTRACE_BENCH_DEVICE_READ_H

#include "disk/device.h"

/* blk-mq hardware queues of the disk in dir (mq/): how many, and the largest tag count. */
void device_queue__read_hw_queues(const char *dir, unsigned int *nr, unsigned int *max_tags);

/*
 * The path disks of an NVMe multipath head, their queues counted into dev's, and the
 * driver of the first; nothing for other disks. root: the canonical sysfs root.
 */
void device_driver__read_paths(const char *root, struct device *dev);

/*
 * The driver and module of the disk in dir (unless a path gave them), its module's
 * parameters, what the driver adds (xen-blkfront, virtio_blk, nvme, SCSI, loop) and the
 * stacking (slaves/, holders/, dm, md). Needs the limits and hardware queues read.
 */
void device_driver__read(const char *root, const char *dir, struct device *dev);

/* Every xenstore figure of x unknown (-1, "", XEN_SEGMENTS_UNKNOWN). */
void device_xen__unknown(struct xen_blkfront *x);

/*
 * What xenstore says of the xen-blkfront disk dev, read from file (`xenstore-ls -f`
 * lines) or, file NULL, through libxenstore; what cannot be read is said in
 * dev->xen.xenstore_error. Needs the driver's part read (device_driver__read).
 */
void device_xen__read(struct device *dev, const char *file);
/* In dom0: whether xen-blkback serves dev to a guest, from sysfs below root (bus/xen-backend). */
void device_xen__find_guest(const char *root, struct device *dev);
/* And, when it does, the guest's names from xenstore (file: as device_xen__read). */
void device_xen__read_guest(struct device *dev, const char *file);

#endif /* BLKTRACE_BENCH_DEVICE_READ_H */
