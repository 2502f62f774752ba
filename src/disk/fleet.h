/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Several disks at once: what `--trace DEVS` names. DEVS is one disk (the classic case),
 * a comma-separated list (`xvda,xvdb`, each entry as --trace takes it), or `all`: every
 * whole disk below the sysfs root that has a medium (size > 0: an unattached loop device
 * or an empty drive has none), but the hidden NVMe path disks, whose multipath head
 * covers them. `all` traces every disk plainly, as itself: the layers of a dm or md
 * device are disks of the list already, so no disk is traced twice.
 */
#ifndef BLKTRACE_BENCH_FLEET_H
#define BLKTRACE_BENCH_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "disk/device.h"

struct diag;

struct fleet {
	struct device *devs; /* in the order named; `all`: by name */
	size_t n;
	bool all;
};

/* Does DEVS name several disks (a list or `all`) rather than one? */
bool fleet__several(const char *spec);

/*
 * Resolve DEVS below sysfs_root into f (at most max disks). A listed disk that does not
 * exist is bad input when strict, skipped otherwise (a service re-reading its list while
 * a disk is away); so is a name given twice. More than max disks is bad input. 0, or a
 * negative errno with d; f is empty on failure. Free with fleet__free.
 */
int fleet__resolve(const char *sysfs_root, const char *spec, size_t max, bool strict,
		   struct fleet *f, struct diag *d);
void fleet__free(struct fleet *f);

/*
 * Each disk counts for one traced device (the BPF side matches a disk once): refuse two
 * devices that share one, such as two partitions of a disk, or a disk named beside a
 * stack it is a layer of. Bad input with d naming both, or 0.
 */
int fleet__check_disjoint(const struct device *const *devs, size_t n, struct diag *d);

/*
 * Fingerprints for a service that watches for disks that come and go: what DEVS names
 * now, read cheaply (a file or two per disk for `all`; a list is resolved), and what a
 * resolved fleet holds. They agree when the fleet is what DEVS resolves to now, and
 * count what the programs trace by: each device's name, its disk's number, a named
 * partition's own number, start and size, whether the disk has a medium, the hidden
 * paths of an NVMe head. Keep fleet__fingerprint_of of what was resolved: a disk that
 * came or went while it was being resolved then still differs, and is resolved again.
 * Never 0.
 */
uint64_t fleet__fingerprint(const char *sysfs_root, const char *spec);
uint64_t fleet__fingerprint_of(const struct fleet *f);

/*
 * Are a and b the same device traced over the same sectors (name, numbers, a
 * partition's start and size, NVMe paths)? Then programs for one trace the other.
 */
bool fleet__same_device(const struct device *a, const struct device *b);

/* The name a traced device goes by: the partition when one was named, else the disk. */
const char *fleet__name(const struct device *dev);

#endif /* BLKTRACE_BENCH_FLEET_H */
