/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The member disks of the BPF disk filter (bpf/members.bpf.h), for both loaders: each
 * traced device's disks (a disk or partition, an NVMe multipath head and its hidden path
 * disks, a bio-based device) with their partition range and slot geometry.
 */
#ifndef BLKTRACE_BENCH_BPF_MEMBERS_H
#define BLKTRACE_BENCH_BPF_MEMBERS_H

#include <stdbool.h>
#include "blkio.h"
#include "disk/device.h"

struct member_set {
	unsigned int n;		  /* members in the read-only arrays */
	unsigned int in_map;	  /* members beyond them, in member_map */
	unsigned int map_entries; /* member_map's size (bpf_members__set): 1 when none */
	unsigned int map_bits;	  /* its hash slots: 2^map_bits (and BLKIO_MEMBER_PROBES - 1) */
	unsigned int slots;	  /* slot table entries (hw queue x tag of request-based members) */
	unsigned int queues; /* `queues` entries: a hw queue of a member (a bio-based one: 1) */
	/* Each traced device's queues: its first entry in `queues`, and how many. */
	unsigned int dev_queue[BLKIO_MAX_DEVICES], dev_queues[BLKIO_MAX_DEVICES];
	bool any_bio; /* some member is a bio-based device (counted in bios) */
	struct blkio_member over[BLKIO_MAX_DEVICES * (DEVICE_MAX_PATHS + 1)];
};

struct diag;

/*
 * The members of devs[0..n) into f (a skeleton's read-only data, before load) and ms,
 * device by device; traced device i counts as stats element i. 0, or -errno with the
 * reason in d (too many devices or slots, a path name too long to match).
 */
int bpf_members__set(volatile struct blkio_filter *f, struct member_set *ms,
		     const struct device *const *devs, unsigned int n, struct diag *d);
/*
 * Where the BPF side counts the requests in flight of a disk of one queue per CPU
 * (blkio.bpf.c, pcpu_inflight): reading its depth reads a line of each of CPUS, so the
 * depth of such a device (request-based) is read on one issue in blkio_depth_sample(CPUS).
 * Before load.
 */
void bpf_members__sample_per_cpu(volatile struct blkio_filter *f, struct member_set *ms,
				 unsigned int cpus);
/*
 * After load: the members beyond the read-only arrays into member_map, each at the slot
 * bpf_members__set planned (blkio.h, BLKIO_MEMBER_HASH). 0 or -errno.
 */
int bpf_members__fill_map(const struct member_set *ms, int member_map_fd);
/*
 * A disk name as the BPF side compares it: its first BLKIO_DISK_NAME_BYTES in out, and
 * in mask the bytes that count (the name and its NUL; the kernel's bytes after the NUL
 * may be anything).
 */
void bpf_members__pack_name(const char *name, __u64 out[2], __u64 mask[2]);

#endif /* BLKTRACE_BENCH_BPF_MEMBERS_H */
