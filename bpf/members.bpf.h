/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The disk filter of both BPF objects (blkio.bpf.c, the aggregate; blktrace.bpf.c, the
 * per-event records): which member disk an event belongs to, and so which traced
 * device. Set by the loader before load (src/trace/bpf_members.c); frozen, so the verifier
 * prunes by it.
 *
 * Member disks (blkio.h): the disks whose I/O counts, each for one traced device. The
 * common case is one disk, member 0, one device; an NVMe multipath head adds its hidden
 * path disks (matched by name: no dev_t), a stack adds its layers, a fleet its disks
 * (beyond BLKIO_MAX_DISKS, in member_map).
 */
#ifndef BLKTRACE_BENCH_MEMBERS_BPF_H
#define BLKTRACE_BENCH_MEMBERS_BPF_H

#include "blkio.h"
#include "core_fixes.bpf.h"

const volatile struct blkio_filter filter = { .nr_disks = 1 };

/*
 * Members beyond the arrays (a fleet): a hash table by dev_t in an array (blkio.h,
 * BLKIO_MEMBER_PROBES), dev 0 in a free slot; the loader sizes it, one entry otherwise.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_member);
} member_map SEC(".maps");

typedef const volatile struct blkio_member member_t;

/*
 * The member a disk is, or NULL. The common case, one disk, is one compare; the loops
 * and the map exist only when the loader set several members.
 */
static __always_inline member_t *disk_member(struct gendisk *disk, bool btf)
{
	__u32 i, dev = BLKIO_DEV(RD(btf, disk, major), RD(btf, disk, first_minor));
	__u64 name[2];

	if (dev == filter.members[0].dev)
		return &filter.members[0];
	if (filter.nr_disks == 1 && !filter.by_name && !filter.map_probes)
		return NULL;
#pragma unroll
	for (i = 1; i < BLKIO_MAX_DISKS; i++)
		if (i < filter.nr_disks && filter.members[i].dev && dev == filter.members[i].dev)
			return &filter.members[i];
	if (filter.map_probes) {
		__u32 h = BLKIO_MEMBER_HASH(dev, filter.map_shift), k;
		member_t *m;

#pragma unroll
		for (i = 0; i < BLKIO_MEMBER_PROBES; i++) {
			if (i >= filter.map_probes)
				break;
			k = h + i; /* the table runs on past its last hash slot: no wrap */
			m = bpf_map_lookup_elem(&member_map, &k);
			if (!m || !m->dev)
				break;
			if (m->dev == dev)
				return m;
		}
	}
	if (!filter.by_name || bpf_core_read(name, sizeof(name), &disk->disk_name))
		return NULL;
#pragma unroll
	for (i = 0; i < BLKIO_MAX_DISKS; i++)
		if (i < filter.nr_disks && !filter.members[i].dev &&
		    (name[0] & filter.disk_name_masks[i][0]) == filter.disk_names[i][0] &&
		    (name[1] & filter.disk_name_masks[i][1]) == filter.disk_names[i][1])
			return &filter.members[i];
	return NULL;
}

/* Inside the member's partition, if it has one (sector of the whole disk). */
static __always_inline bool in_range(member_t *m, __u64 sector)
{
	return !m->part_end || (sector >= m->part_start && sector < m->part_end);
}

/*
 * Is this request ours? Its disk must be a member; with a partition filter, a request
 * that carries data must start inside the partition (zero-length requests such as
 * flushes have no sector and belong to the whole disk).
 */
static __always_inline member_t *rq_member(struct request *rq, bool btf)
{
	member_t *m = disk_member(rq_disk(rq, btf), btf);

	if (!m || !m->part_end || !RD(btf, rq, __data_len))
		return m;
	return in_range(m, RD(btf, rq, __sector)) ? m : NULL;
}

static __always_inline member_t *bio_member(struct bio *bio, bool btf)
{
	member_t *m = disk_member(bio_disk(bio, btf), btf);

	if (!m || !m->part_end)
		return m;
	return in_range(m, RD(btf, bio, bi_iter.bi_sector)) ? m : NULL;
}

/*
 * The index of a request's slot (blkio.h) in a table of NR slots: its member's, its
 * hardware queue's and its driver tag's, unique while the request is in flight; its
 * hardware queue in *hwq. False when it falls outside the table (no driver tag, more
 * queues or tags than planned). ONE: one member of one queue, whose slot is the tag
 * (the hardware queue is never read).
 */
static __always_inline bool rq_slot_index(struct request *rq, member_t *m, bool btf, bool one,
					  __u32 nr, __u32 *idx, __u32 *hwq)
{
	__s32 tag = RD(btf, rq, tag);
	struct blk_mq_hw_ctx *hctx;

	if (tag < 0 || (__u32)tag >= m->tags)
		return false;
	if (one) {
		*idx = tag;
		*hwq = 0;
		return true;
	}
	hctx = RD(btf, rq, mq_hctx);
	*hwq = RD(btf, hctx, queue_num);
	if (*hwq >= m->hwqs)
		return false;
	*idx = m->slot_base + *hwq * m->tags + tag;
	return *idx < nr;
}

#endif /* BLKTRACE_BENCH_MEMBERS_BPF_H */
