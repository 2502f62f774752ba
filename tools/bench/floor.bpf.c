// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floor under any block tracer on this machine: two tp_btf programs on
 * block_rq_issue and block_rq_complete, the tracepoints blktrace-bench needs at
 * least, doing as little as a tracer can. `make bench` runs them as calibration
 * rows so that a tracer's cost can be read against what merely being called costs.
 *
 *   mode 0 (empty):  return at once.
 *   mode 1 (clock):  read the clock once per program, as any tracer that times the
 *                    device must, and keep it (a per-CPU sink, so it is not optimised
 *                    away).
 *   mode 2 (device): the least a tracer of one disk's device time does, what
 *                    libbpf-tools biolatency records: the disk filter, the issue time
 *                    kept by driver tag, read back and cleared at completion, and one
 *                    latency histogram with blktrace-bench's buckets (bpf/hist.h).
 *                    Everything a tracer records beyond that costs above this row.
 *                    Keyed by tag alone, as fits the bench's loop disk (one hardware
 *                    queue, 128 tags): not for disks whose queues repeat tags. Kernels
 *                    since 5.11 (the tracepoints without a queue argument).
 *   mode 3 (disks):  mode 2 for N disks at once, the control of the bench's fleet: the
 *                    disk's index found by its dev_t in a hash map, the issue times
 *                    kept by (disk, tag), a latency histogram per disk. What tracing N
 *                    disks adds to the least a tracer does: a lookup, and state per
 *                    disk, which at hundreds of disks falls out of the caches.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "blkio.h"	    /* BLKIO_DEV, and hist.h */
#include "core_fixes.bpf.h" /* rq_disk */

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define FLOOR_TAGS 4096

const volatile __u32 mode = 0;
const volatile __u32 dev = 0;	    /* mode 2: BLKIO_DEV(major, minor) */
const volatile __u32 disk_tags = 1; /* mode 3: the tags kept per disk */

/* Mode 3: BLKIO_DEV(major, minor) -> the disk's index; the loader fills it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set by the loader: the disks */
	__type(key, __u32);
	__type(value, __u32);
} disks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sink SEC(".maps");

/*
 * Mode 2: the issue time of the request holding each tag (one hardware queue); mode 3,
 * of each (disk, tag): disk_tags per disk.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FLOOR_TAGS); /* mode 3: set by the loader */
	__type(key, __u32);
	__type(value, __u64);
} issued SEC(".maps");

/* The latency histogram: mode 3, one per disk. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* mode 3: set by the loader */
	__type(key, __u32);
	__type(value, __u64[HIST_LAT_BUCKETS]);
} lat SEC(".maps");

/*
 * The request's issue-time slot if it is on the disk (mode 2) or one of the disks (mode
 * 3), else NULL; *HIST, the index of its latency histogram.
 */
static __always_inline __u64 *slot_of(struct request *rq, __u32 *hist)
{
	struct gendisk *disk = rq_disk(rq, true);
	__u32 tag = rq->tag, d = BLKIO_DEV(disk->major, disk->first_minor), *i;

	*hist = 0;
	if (mode == 3) {
		i = bpf_map_lookup_elem(&disks, &d);
		if (!i || tag >= disk_tags)
			return NULL;
		*hist = *i;
		tag += *i * disk_tags;
	} else if (d != dev) {
		return NULL;
	}
	return bpf_map_lookup_elem(&issued, &tag);
}

static __always_inline int floor_body(void)
{
	__u32 zero = 0;
	__u64 *v;

	if (mode == 0)
		return 0;
	v = bpf_map_lookup_elem(&sink, &zero);
	if (v)
		*v = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_issue")
int floor_issue(__u64 *ctx)
{
	struct request *rq = (struct request *)ctx[0];
	__u32 hist;
	__u64 *t;

	if (mode < 2)
		return floor_body();
	t = slot_of(rq, &hist);
	if (t)
		*t = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_complete")
int floor_complete(__u64 *ctx)
{
	struct request *rq = (struct request *)ctx[0];
	__u64 *t, *h, start;
	__u32 hist, idx;

	if (mode < 2)
		return floor_body();
	t = slot_of(rq, &hist);
	if (!t || !*t)
		return 0;
	start = *t;
	*t = 0;
	idx = hist_lat_index(bpf_ktime_get_ns() - start);
	h = bpf_map_lookup_elem(&lat, &hist);
	if (h && idx < HIST_LAT_BUCKETS)
		h[idx]++;
	return 0;
}
