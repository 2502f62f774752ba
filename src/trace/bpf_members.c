// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The member disks of the BPF disk filter, for both loaders. See bpf_members.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "trace/bpf_members.h"
#include "base/diag.h"

/* Caps the slot table: 1M slots (8 MiB) covers 256 queues x 4096 tags. */
#define MAX_SLOTS (1U << 20)
/* Used when sysfs shows no mq/ (the device then issues no requests anyway). */
#define DEFAULT_TAGS 1024

void bpf_members__pack_name(const char *name, __u64 out[2], __u64 mask[2])
{
	char buf[BLKIO_DISK_NAME_BYTES] = {}, ones[BLKIO_DISK_NAME_BYTES] = {};
	size_t len = strnlen(name, sizeof(buf) - 1);

	memcpy(buf, name, len);
	memset(ones, 0xff, len + 1);
	memcpy(out, buf, sizeof(buf));
	memcpy(mask, ones, sizeof(ones));
}

/* A name and its mask into the filter (read-only data: word by word). */
static void pack_name(const char *name, volatile __u64 out[2], volatile __u64 mask[2])
{
	__u64 w[2], m[2];

	bpf_members__pack_name(name, w, m);
	out[0] = w[0];
	out[1] = w[1];
	mask[0] = m[0];
	mask[1] = m[1];
}

/*
 * Add one member disk counting for traced device IDX. A disk without a dev_t (an NVMe
 * path) is matched by name and must fit the arrays; others overflow into member_map.
 */
static int add_member(volatile struct blkio_filter *f, struct member_set *ms, unsigned int idx,
		      const struct device *dev, const char *name, bool hidden, unsigned int hwqs,
		      unsigned int tags, struct diag *d)
{
	struct blkio_member m = {
		.dev = hidden ? 0 : BLKIO_DEV(dev->major, dev->minor),
		.device = idx,
		.hwqs = hwqs,
		.tags = tags,
	};
	unsigned long long want = (unsigned long long)ms->slots + (unsigned long long)hwqs * tags;

	if (dev->bio_based)
		m.flags |= BLKIO_MEMBER_BIO;
	/* In-flight counts: one per queue; a bio-based device one, a multipath head none. */
	m.queue = ms->queues;
	ms->queues += hwqs ? hwqs : dev->bio_based ? 1 : 0;
	if (dev->part_name[0]) {
		m.part_start = dev->part_start;
		m.part_end = dev->part_start + dev->part_sectors;
	}
	if (hwqs && tags) { /* a disk that issues requests */
		if (want > MAX_SLOTS)
			return diag__fail(d, -E2BIG,
					  "%s: too many requests in flight to track "
					  "(%llu slots, at most %u)",
					  name, want, MAX_SLOTS);
		m.slot_base = ms->slots;
		ms->slots = want;
	}
	if (hidden && strlen(name) >= BLKIO_DISK_NAME_BYTES)
		return diag__fail(d, -ENAMETOOLONG,
				  "%s: the name of a disk without dev_t must be "
				  "shorter than %d characters to be traced",
				  name, BLKIO_DISK_NAME_BYTES);
	if (ms->n < BLKIO_MAX_DISKS) {
		f->members[ms->n] = m;
		if (hidden) {
			pack_name(name, f->disk_names[ms->n], f->disk_name_masks[ms->n]);
			f->by_name = 1;
		}
		ms->n++;
		return 0;
	}
	if (hidden)
		return diag__fail(d, -E2BIG,
				  "%s: too many disks without dev_t (NVMe paths) to "
				  "trace at once: at most %d members",
				  name, BLKIO_MAX_DISKS);
	ms->over[ms->in_map++] = m;
	return 0;
}

/*
 * Where each member beyond the arrays goes in member_map, a table of 2^bits slots (and
 * BLKIO_MEMBER_PROBES - 1 more, so that a probe never wraps): at slot[k], the index in
 * ms->over, or -1. 0 when every member lies within BLKIO_MEMBER_PROBES of its hash slot.
 */
static int place(const struct member_set *ms, unsigned int bits, int *slot)
{
	unsigned int i, k, n = (1U << bits) + BLKIO_MEMBER_PROBES - 1;

	for (k = 0; k < n; k++)
		slot[k] = -1;
	for (i = 0; i < ms->in_map; i++) {
		unsigned int h = BLKIO_MEMBER_HASH(ms->over[i].dev, 32 - bits);

		for (k = h; k < h + BLKIO_MEMBER_PROBES && slot[k] >= 0; k++)
			;
		if (k == h + BLKIO_MEMBER_PROBES)
			return -EAGAIN;
		slot[k] = (int)i;
	}
	return 0;
}

/* The table's size: the least power of two, at least twice the members, where all fit. */
static int plan_map(volatile struct blkio_filter *f, struct member_set *ms, struct diag *d)
{
	unsigned int bits = 1;
	int *slot, err = -EAGAIN;

	ms->map_entries = 1;
	if (!ms->in_map)
		return 0;
	while ((1U << bits) < 2 * ms->in_map)
		bits++;
	for (; err == -EAGAIN && bits <= 20; bits++) {
		slot = malloc(((1U << bits) + BLKIO_MEMBER_PROBES) * sizeof(*slot));
		if (!slot)
			return diag__fail(d, -ENOMEM, "out of memory");
		err = place(ms, bits, slot);
		free(slot);
		if (!err) {
			f->map_shift = 32 - bits;
			f->map_probes = BLKIO_MEMBER_PROBES;
			ms->map_bits = bits;
			ms->map_entries = (1U << bits) + BLKIO_MEMBER_PROBES - 1;
		}
	}
	return err ? diag__fail(d, -E2BIG, "cannot place %u disks in the BPF member table",
				ms->in_map)
		   : 0;
}

/*
 * The members the BPF filter matches, device by device: the disk (or the bio-based
 * device), or an NVMe multipath head (for its bio splits; it issues no requests) followed
 * by its path disks, matched by name since the kernel gives them no dev_t. Each member
 * has its own slots: (hw queue, tag) are unique per disk only.
 */
int bpf_members__set(volatile struct blkio_filter *f, struct member_set *ms,
		     const struct device *const *devs, unsigned int n, struct diag *d)
{
	unsigned int k, i;
	int err = 0;

	if (!n || n > BLKIO_MAX_DEVICES)
		return diag__usage_err(d, -E2BIG, "cannot trace %u devices at once: at most %d", n,
				       BLKIO_MAX_DEVICES);
	for (k = 0; k < n && !err; k++) {
		unsigned int first = ms->n, first_over = ms->in_map, q0 = ms->queues;
		const struct device *dev = devs[k];
		/* Bio-based devices and multipath heads issue no requests: no slots. */
		bool rq_based = !dev->bio_based && !dev->nr_paths;
		unsigned int hwqs = !rq_based ? 0 : dev->nr_hw_queues ? dev->nr_hw_queues : 1;
		unsigned int tags = !rq_based ? 0 : dev->max_tags ? dev->max_tags : DEFAULT_TAGS;

		err = add_member(f, ms, k, dev, dev->name, dev->hidden, hwqs, tags, d);
		for (i = 0; i < dev->nr_paths && !err; i++)
			err = add_member(
				f, ms, k, dev, dev->paths[i].name, true,
				dev->paths[i].nr_hw_queues ? dev->paths[i].nr_hw_queues : 1,
				dev->paths[i].max_tags ? dev->paths[i].max_tags : DEFAULT_TAGS, d);
		ms->any_bio |= dev->bio_based;
		/* The device's queues: those of its members, added just now, in order. */
		ms->dev_queue[k] = q0;
		ms->dev_queues[k] = ms->queues - q0;
		for (i = first; i < ms->n; i++) {
			f->members[i].dev_queue = ms->dev_queue[k];
			f->members[i].dev_queues = ms->dev_queues[k];
			f->members[i].depth_mask = blkio_depth_sample(ms->dev_queues[k]) - 1;
		}
		for (i = first_over; i < ms->in_map; i++) {
			ms->over[i].dev_queue = ms->dev_queue[k];
			ms->over[i].dev_queues = ms->dev_queues[k];
			ms->over[i].depth_mask = blkio_depth_sample(ms->dev_queues[k]) - 1;
		}
	}
	f->nr_disks = ms->n;
	return err ? err : plan_map(f, ms, d);
}

void bpf_members__sample_per_cpu(volatile struct blkio_filter *f, struct member_set *ms,
				 unsigned int cpus)
{
	__u32 mask = blkio_depth_sample(cpus) - 1;
	unsigned int i;

	for (i = 0; i < ms->n; i++)
		if (f->members[i].dev_queues == 1 && !(f->members[i].flags & BLKIO_MEMBER_BIO))
			f->members[i].depth_mask = mask;
	for (i = 0; i < ms->in_map; i++)
		if (ms->over[i].dev_queues == 1 && !(ms->over[i].flags & BLKIO_MEMBER_BIO))
			ms->over[i].depth_mask = mask;
}

int bpf_members__fill_map(const struct member_set *ms, int member_map_fd)
{
	unsigned int k;
	int *slot, err;

	if (!ms->in_map)
		return 0;
	slot = malloc(ms->map_entries * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	err = place(ms, ms->map_bits, slot);
	for (k = 0; !err && k < ms->map_entries; k++)
		if (slot[k] >= 0 &&
		    bpf_map_update_elem(member_map_fd, &k, &ms->over[slot[k]], BPF_ANY))
			err = -errno;
	free(slot);
	return err;
}
