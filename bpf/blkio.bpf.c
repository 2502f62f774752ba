// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Block-layer tracing of one disk: request sizes, segments, queue depth, queue and
 * device time, merges, splits, requeues and errors, aggregated in per-CPU maps.
 *
 * Hot-path rules: the disk filter is the first thing every program does; no hash
 * map; the only shared write is the in-flight counter on its own cache line. The
 * per-request state is one u64 (the issue time) in an array slot indexed by
 * (hardware queue, driver tag), which is unique while a request is in flight.
 *
 * Each program exists twice: tp_btf (direct loads through BTF) and a raw_tp twin
 * (probe reads) for kernels without tp_btf. User space autoloads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "blkio.h"
#include "core_fixes.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load; frozen, so the verifier prunes by them. */
const volatile __u32 target_dev = 0;	 /* the disk, BLKIO_DEV(major, first_minor) */
const volatile __u64 part_start = 0;	 /* partition filter, sectors; part_end == 0: off */
const volatile __u64 part_end = 0;
const volatile __u32 tags_per_hwq = 1;	 /* slot = hw queue * tags_per_hwq + tag */
const volatile __u32 nr_slots = 1;
const volatile bool old_args = false;	 /* tracepoints take a leading q: < v5.11 */
const volatile bool snoop = false;

/* The one shared atomic: alone on its cache line, in its own map. */
struct {
	__s64 n;
	__u8 pad[56];
} inflight SEC(".data.inflight") = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_maxes);
} maxes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLKIO_NR_SIZE_HISTS);
	__type(key, __u32);
	__type(value, struct blkio_size_hist);
} size_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLKIO_NR_COUNT_HISTS);
	__type(key, __u32);
	__type(value, struct blkio_count_hist);
} count_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLKIO_NR_LATS);
	__type(key, __u32);
	__type(value, struct blkio_lat_hist);
} lat_hist SEC(".maps");

/* Issue time per in-flight request; 0 = free. Resized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} slots SEC(".maps");

/* Snoop mode only; the loader sizes it (and shrinks it to one page otherwise). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

static __always_inline struct blkio_counters *my_counters(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline struct blkio_maxes *my_maxes(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&maxes, &zero);
}

#define SET_MAX(m, field, v)                                                        \
	do {                                                                        \
		if ((m) && (v) > (m)->field)                                        \
			(m)->field = (v);                                           \
	} while (0)

static __always_inline void hist_add(void *map, __u32 key, __u32 idx, __u32 nr_buckets)
{
	__u64 *h = bpf_map_lookup_elem(map, &key);

	if (h && idx < nr_buckets)
		h[idx]++;
}

static __always_inline __u32 op_class(__u32 cmd_flags)
{
	switch (cmd_flags & 0xff) { /* REQ_OP_MASK */
	case REQ_OP_READ:
		return BLKIO_OP_READ;
	case REQ_OP_WRITE:
		return BLKIO_OP_WRITE;
	case REQ_OP_FLUSH:
		return BLKIO_OP_FLUSH;
	case REQ_OP_DISCARD:
	case REQ_OP_SECURE_ERASE:
		return BLKIO_OP_DISCARD;
	default:
		return BLKIO_OP_OTHER;
	}
}

/*
 * Is this request ours? The disk must match; with a partition filter, a request
 * that carries data must start inside the partition (zero-length requests such as
 * flushes have no sector and belong to the whole disk).
 */
static __always_inline bool rq_is_ours(struct request *rq, bool btf)
{
	struct gendisk *disk = rq_disk(rq, btf);
	__u64 sector;

	if (BLKIO_DEV(RD(btf, disk, major), RD(btf, disk, first_minor)) != target_dev)
		return false;
	if (!part_end || !RD(btf, rq, __data_len))
		return true;
	sector = RD(btf, rq, __sector);
	return sector >= part_start && sector < part_end;
}

static __always_inline bool bio_is_ours(struct bio *bio, bool btf)
{
	struct gendisk *disk = bio_disk(bio, btf);
	__u64 sector;

	if (BLKIO_DEV(RD(btf, disk, major), RD(btf, disk, first_minor)) != target_dev)
		return false;
	if (!part_end)
		return true;
	sector = RD(btf, bio, bi_iter.bi_sector);
	return sector >= part_start && sector < part_end;
}

/* The request's slot, or NULL when (hw queue, tag) falls outside the table. */
static __always_inline __u64 *rq_slot(struct request *rq, bool btf)
{
	struct blk_mq_hw_ctx *hctx = RD(btf, rq, mq_hctx);
	__s32 tag = RD(btf, rq, tag);
	__u32 idx;

	if (tag < 0 || (__u32)tag >= tags_per_hwq)
		return NULL;
	idx = RD(btf, hctx, queue_num) * tags_per_hwq + tag;
	if (idx >= nr_slots)
		return NULL;
	return bpf_map_lookup_elem(&slots, &idx);
}

static __always_inline void lat_add(struct blkio_counters *c, struct blkio_maxes *m, __u32 which,
				    __u64 ns)
{
	c->sum_ns[which] += ns;
	c->nr_ns[which]++;
	SET_MAX(m, ns[which], ns);
	hist_add(&lat_hist, which, hist_lat_index(ns), HIST_LAT_BUCKETS);
}

static __always_inline int on_issue(struct request *rq, bool btf)
{
	struct blkio_maxes *m;
	struct blkio_counters *c;
	__u64 now, start, bytes, segs, depth, *slot;
	__u32 op;

	if (!rq_is_ours(rq, btf))
		return 0;
	c = my_counters();
	if (!c)
		return 0;
	m = my_maxes();

	now = bpf_ktime_get_ns();
	op = op_class(RD(btf, rq, cmd_flags));
	bytes = RD(btf, rq, __data_len);
	c->requests[op]++;
	c->bytes[op] += bytes;

	slot = rq_slot(rq, btf);
	if (slot) {
		if (*slot) {
			/* The previous owner's completion was missed: it stops counting now. */
			c->stale_slots++;
			depth = inflight.n;
		} else {
			depth = __sync_fetch_and_add(&inflight.n, 1) + 1;
		}
		*slot = now;
		c->sum_depth += depth;
		SET_MAX(m, depth, depth);
		hist_add(&count_hist, BLKIO_COUNT_DEPTH, hist_count_index(depth), HIST_COUNT_BUCKETS);
	} else {
		c->slot_overflow++;
	}

	/* Queue time: the kernel stamps allocation (0 when the queue keeps no stats). */
	start = RD(btf, rq, start_time_ns);
	if (start)
		lat_add(c, m, BLKIO_LAT_QUEUE, now > start ? now - start : 0);

	if (op == BLKIO_OP_FLUSH || !bytes)
		return 0;
	SET_MAX(m, bytes, bytes);
	hist_add(&size_hist, op < BLKIO_OP_FLUSH ? op : BLKIO_SIZE_OTHER, hist_size_index(bytes),
		 HIST_SIZE_BUCKETS);
	segs = RD(btf, rq, nr_phys_segments);
	if (op > BLKIO_OP_WRITE || !segs)
		return 0;
	c->data_requests++;
	c->sum_segments += segs;
	SET_MAX(m, segments, segs);
	hist_add(&count_hist, BLKIO_COUNT_SEGMENTS, hist_count_index(segs), HIST_COUNT_BUCKETS);
	hist_add(&size_hist, BLKIO_SIZE_SEGMENT, hist_size_index(bytes / segs), HIST_SIZE_BUCKETS);
	return 0;
}

static __always_inline int on_complete(struct request *rq, int error, __u32 nr_bytes, bool btf)
{
	struct blkio_counters *c;
	struct blkio_event *e;
	__u64 now, issued, start, *slot, device_ns;
	struct blkio_maxes *m;
	__u32 data_len;

	if (!rq_is_ours(rq, btf))
		return 0;
	/* A partial completion (blk_update_request with fewer bytes) is not the end. */
	data_len = RD(btf, rq, __data_len);
	if (nr_bytes < data_len)
		return 0;
	c = my_counters();
	if (!c)
		return 0;
	if (error)
		c->errors++;

	slot = rq_slot(rq, btf);
	if (!slot)
		return 0;
	issued = *slot;
	if (!issued) {
		c->untracked++; /* issued before we attached */
		return 0;
	}
	*slot = 0;
	__sync_fetch_and_add(&inflight.n, -1);

	now = bpf_ktime_get_ns();
	device_ns = now - issued;
	c->completed++;
	c->completed_bytes += nr_bytes;
	m = my_maxes();
	lat_add(c, m, BLKIO_LAT_DEVICE, device_ns);
	start = RD(btf, rq, start_time_ns);
	if (start && start < now)
		lat_add(c, m, BLKIO_LAT_TOTAL, now - start);

	if (!snoop)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		c->lost_events++;
		return 0;
	}
	e->ts_ns = now;
	e->sector = RD(btf, rq, __sector);
	e->queue_ns = start && start < issued ? issued - start : 0;
	e->device_ns = device_ns;
	e->bytes = data_len;
	e->dev = target_dev;
	e->segments = RD(btf, rq, nr_phys_segments);
	e->depth = inflight.n + 1;
	e->op = op_class(RD(btf, rq, cmd_flags));
	e->error = error != 0;
	e->pad[0] = e->pad[1] = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int on_requeue(struct request *rq, bool btf)
{
	struct blkio_counters *c;
	__u64 *slot;

	if (!rq_is_ours(rq, btf))
		return 0;
	c = my_counters();
	if (!c)
		return 0;
	c->requeues++;
	slot = rq_slot(rq, btf);
	/* It leaves the device and will be issued (and counted) again. */
	if (slot && *slot) {
		*slot = 0;
		__sync_fetch_and_add(&inflight.n, -1);
	}
	return 0;
}

static __always_inline int count_bio(struct bio *bio, bool btf, bool split)
{
	struct blkio_counters *c;

	if (!bio_is_ours(bio, btf))
		return 0;
	c = my_counters();
	if (!c)
		return 0;
	if (split)
		c->splits++;
	else
		c->merges++;
	return 0;
}

static __always_inline int count_rq_merge(struct request *rq, bool btf)
{
	struct blkio_counters *c;

	if (!rq_is_ours(rq, btf))
		return 0;
	c = my_counters();
	if (c)
		c->rq_merges++;
	return 0;
}

/* Both sets of programs, generated from the handlers above. */
#define BLKIO_PROGS(kind, btf)                                                      \
	SEC(#kind "/block_rq_issue")                                                \
	int kind##_rq_issue(__u64 *ctx)                                             \
	{                                                                           \
		return on_issue((struct request *)ARG(ctx, 1, 0), btf);                         \
	}                                                                           \
	SEC(#kind "/block_rq_complete")                                             \
	int kind##_rq_complete(__u64 *ctx)                                          \
	{                                                                           \
		return on_complete((struct request *)ctx[0], (int)ctx[1], (__u32)ctx[2], \
				   btf);                                            \
	}                                                                           \
	SEC(#kind "/block_rq_requeue")                                              \
	int kind##_rq_requeue(__u64 *ctx)                                           \
	{                                                                           \
		return on_requeue((struct request *)ARG(ctx, 1, 0), btf);                   \
	}                                                                           \
	SEC(#kind "/block_rq_merge")                                                \
	int kind##_rq_merge(__u64 *ctx)                                             \
	{                                                                           \
		return count_rq_merge((struct request *)ARG(ctx, 1, 0), btf);               \
	}                                                                           \
	SEC(#kind "/block_bio_backmerge")                                           \
	int kind##_bio_backmerge(__u64 *ctx)                                        \
	{                                                                           \
		return count_bio((struct bio *)ARG(ctx, 2, 0), btf, false);                 \
	}                                                                           \
	SEC(#kind "/block_bio_frontmerge")                                          \
	int kind##_bio_frontmerge(__u64 *ctx)                                       \
	{                                                                           \
		return count_bio((struct bio *)ARG(ctx, 2, 0), btf, false);                 \
	}                                                                           \
	SEC(#kind "/block_split")                                                   \
	int kind##_split(__u64 *ctx)                                                \
	{                                                                           \
		return count_bio((struct bio *)ARG(ctx, 1, 0), btf, true);                  \
	}

BLKIO_PROGS(tp_btf, true)
BLKIO_PROGS(raw_tp, false)
