// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Block-layer tracing of one disk: request sizes, segments, queue depth, queue and
 * device time, merges, splits, requeues and errors, aggregated in per-CPU maps.
 *
 * Hot-path rules: the disk filter is the first thing every program does; no hash
 * map; the only shared writes are the in-flight counts of the request's hardware queue,
 * issues and completions each on a cache line of its own (struct blkio_queue), which a
 * CPU that issues and completes on its own queue keeps to itself. A disk of one queue,
 * which every CPU issues to, counts them per CPU instead, in the CPU's `stats` (since
 * 5.19: pcpu_inflight), so that no line is written by two CPUs. The per-request state
 * is the issue time and the request's address in an array slot indexed by (hardware
 * queue, driver tag), which is unique while a request is in flight. The disk's depth,
 * which needs the completions other CPUs counted, is read on one issue in 16 or more
 * per CPU (issue_depths; every issue with --exact-depth);
 * doc/performance.md has every program's cache lines.
 * Everything else an event records lives in one per-CPU value (`stats`, plus the
 * latency histograms), so an event does one or two lookups and touches few lines; an
 * issue also looks up its CPU's entry of `cpu_clock` (depth_weight).
 *
 * What each event costs, and what each part of it costs, is measured by `make bench`
 * (tools/bench/README.md has the method and the figures). Variants attached side by
 * side settled the layout: zeroing the slot or padding it to a cache line gains
 * nothing; one shared in-flight counter costs more than the two of blkio_queue.
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
#include "members.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/*
 * Set by the loader before load; frozen, so the verifier prunes by them. In the order
 * they lie in .rodata: what every event reads first, then what only several members or
 * devices need (the disk filter, in bpf/members.bpf.h, has its own hot part first).
 */
/* Per enum blkio_tp: the tracepoint takes a leading request_queue (before v5.11). */
const volatile bool old_args[BLKIO_NR_TPS] = {};
const volatile bool one_hwq = false; /* one member, one queue: slot = tag, hctx never read */
const volatile bool snoop = false;
/* --exact-depth: the disk's depth on every issue, not on one in member.depth_mask + 1. */
const volatile bool exact_depth = false;
const volatile bool blktrace = false;	   /* --blktrace: D and C records (blktrace_rec.bpf.h) */
const volatile bool any_bio_level = false; /* some member counts bios (a bio-based device) */
const volatile __u32 nr_devices = 1;
const volatile __u32 nr_slots = 1;
/*
 * A disk of one queue counts its requests in flight per CPU, in `stats` (pc_issued,
 * pc_done, pc_requeued), not in `queues`: set where the kernel has bpf_loop and
 * bpf_map_lookup_percpu_elem (5.19), so that the walking issue program is loaded and
 * can sum the CPUs' counts (pcpu_depth). NR_CPUS: the possible CPUs, those it sums.
 */
const volatile bool pcpu_inflight = false;
const volatile __u32 nr_cpus = 1;
/*
 * Tests only (BLKTRACE_BENCH_LOSE_COMPLETIONS): ignore about one completion in N, as
 * kernel 6.18 sometimes never reports one, to check that lost completions are named and
 * never raise the depth. 0 here: the verifier drops the branch.
 */
const volatile __u32 lose_every = 0;

/*
 * The in-flight counts, one pair per hardware queue of each member disk (a bio-based
 * member has one); the loader sizes it. Indexed by member.queue + the queue's number.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_queue);
} queues SEC(".maps");

/* The interval the maxima in `stats` belong to; bumped by the loader (tracer__reset_max). */
__u64 max_epoch SEC(".data.epoch") = 0;

/*
 * When every program was attached (CLOCK_MONOTONIC, as rq->start_time_ns), written by the
 * loader (tracer__start). A request allocated after it cannot have been issued unseen, so
 * its completion on an empty slot means it was never issued at all.
 */
__u64 trace_start_ns SEC(".data.start") = ~0ULL;
/*
 * Always 0, but the verifier cannot know it: the slot walk's counts start from it, so the
 * verifier sees them as unknown and its check of the bpf_loop step converges (counts that
 * start from a constant 0 differ in every iteration: 6.12 gave up on NVMe's 1023 tags).
 */
__u32 walk_origin SEC(".data.start") = 0;

/*
 * Snoop mode: the requests `who` holds, inserted and not yet issued. Most requests are
 * issued without an insert (no scheduler, issued directly), and for them the hash lookup
 * at issue (~85 ns here) found nothing: it is made only while something waits. Written
 * at an insert and when an issue takes its entry, so it stays in every CPU's cache; an
 * entry nobody takes (a request merged into another after its insert) keeps the lookups
 * on, as they always were.
 */
__s64 who_pending SEC(".data.who") = 0;

/* Counters, maxima, size and count histograms, per device: one lookup per event. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* nr_devices, set by the loader */
	__type(key, __u32);
	__type(value, struct blkio_pcpu);
} stats SEC(".maps");

/* This CPU's clock and draw for the depth's sample, across disks (struct blkio_cpu). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_cpu);
} cpu_clock SEC(".maps");

/* Latency histograms: key device * BLKIO_NR_LATS + enum blkio_lat_kind. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BLKIO_NR_LATS); /* nr_devices * BLKIO_NR_LATS */
	__type(key, __u32);
	__type(value, struct blkio_lat_hist);
} lat_hist SEC(".maps");

/* Depth within the hardware queue, per device (blkio.h); disks of several queues only. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* nr_devices */
	__type(key, __u32);
	__type(value, struct blkio_hwq_hist);
} hwq_depth SEC(".maps");

/* The request in flight on each slot and its issue time (blkio.h). Resized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_slot);
} slots SEC(".maps");

/*
 * Bios of a bio-based device in flight: their submission time, by address (a bio has no
 * tag). Sized by the loader when a member counts bios; one entry otherwise.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} bio_start SEC(".maps");

/* Snoop mode only; the loader sizes it (one page otherwise). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/*
 * Snoop mode only: the process a request is for. From issue to completion it lives
 * in who_slots, beside the request's slot; requests that wait in a scheduler are
 * remembered from insert to issue in `who`, keyed by the request's address (no tag
 * yet). The loader sizes both (one entry each otherwise).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct blkio_who);
} who SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blkio_who);
} who_slots SEC(".maps");

#include "blktrace_rec.bpf.h"

static __always_inline struct blkio_pcpu *my_stats(__u32 device)
{
	return bpf_map_lookup_elem(&stats, &device);
}

/* The in-flight counts of the member's hardware queue HWQ. */
static __always_inline struct blkio_queue *queue_of(member_t *m, __u32 hwq)
{
	__u32 idx = m->queue + hwq;

	return bpf_map_lookup_elem(&queues, &idx);
}

/* The CPU's maxima, cleared first if the loader has started a new interval. */
static __always_inline struct blkio_maxes *my_maxes(struct blkio_pcpu *p)
{
	__u64 epoch = max_epoch;

	if (p->max_epoch != epoch) {
		__builtin_memset(&p->max, 0, sizeof(p->max));
		p->max_epoch = epoch;
	}
	return &p->max;
}

#define SET_MAX(m, field, v)                                                                       \
	do {                                                                                       \
		if ((v) > (m)->field)                                                              \
			(m)->field = (v);                                                          \
	} while (0)

/* A latency: its sum, its maximum, its histogram (whose total is the sample count). */
static __always_inline void lat_add(__u64 *sum, struct blkio_maxes *m, __u32 device, __u32 which,
				    __u64 ns)
{
	__u32 idx = hist_lat_index(ns), key = device * BLKIO_NR_LATS + which;
	__u64 *h;

	*sum += ns;
	SET_MAX(m, ns[which], ns);
	h = bpf_map_lookup_elem(&lat_hist, &key);
	BOUNDED(idx);
	if (h && idx < HIST_LAT_BUCKETS)
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
 * The request's slot, or NULL when (member, hw queue, tag) falls outside the table.
 * Each member disk has tags of its own, so the member's base is part of the index.
 */
static __always_inline struct blkio_slot *rq_slot(struct request *rq, member_t *m, bool btf,
						  __u32 *idx, __u32 *hwq)
{
	if (!rq_slot_index(rq, m, btf, one_hwq, nr_slots, idx, hwq))
		return NULL;
	return bpf_map_lookup_elem(&slots, idx);
}

/* Count bucket idx of a histogram in the per-CPU value, which holds it whole. */
#define HIST_ADD(hist, idx, nr, n)                                                                 \
	do {                                                                                       \
		__u32 __i = (idx);                                                                 \
		BOUNDED(__i);                                                                      \
		if (__i < (nr))                                                                    \
			(hist)[__i] += (n);                                                        \
	} while (0)
#define HIST_INC(hist, idx, nr) HIST_ADD(hist, idx, nr, 1)

/* The current process (core_fixes.bpf.h: through BTF where the kernel can). */
static __always_inline void who_current(struct blkio_who *w, bool btf)
{
	w->pid = current_task(btf, w->comm) >> 32; /* the process */
}

/* Snoop mode: who submitted it, where the request passes through the scheduler. */
static __always_inline int on_insert(struct request *rq, bool btf)
{
	struct blkio_who w;
	__u64 key = (__u64)rq;

	if (!snoop || !rq_member(rq, btf))
		return 0;
	who_current(&w, btf);
	/* Counted once per request, though it may be inserted again (after a requeue). */
	if (!bpf_map_update_elem(&who, &key, &w, BPF_NOEXIST))
		__sync_fetch_and_add(&who_pending, 1); /* result unused: no fetching atomic */
	else
		bpf_map_update_elem(&who, &key, &w, BPF_EXIST);
	return 0;
}

/* Snoop mode, at issue: who it is for (its inserter, else its issuer). */
static __always_inline void who_issue(struct request *rq, bool btf, __u32 idx)
{
	struct blkio_who *ws = bpf_map_lookup_elem(&who_slots, &idx), *w = NULL;
	__u64 key = (__u64)rq;

	if (!ws)
		return;
	if (*(volatile __s64 *)&who_pending > 0)
		w = bpf_map_lookup_elem(&who, &key);
	if (w) {
		*ws = *w;
		if (!bpf_map_delete_elem(&who, &key))
			__sync_fetch_and_add(&who_pending, -1);
	} else {
		who_current(ws, btf);
	}
}

/*
 * Requests the in-flight counts still hold although they are no longer in flight: the
 * kernel ended them without a block_rq_complete we saw (6.18 does so now and then, for
 * whole batches), so their slots stay occupied until their tags are issued again. A slot
 * whose request is idle, or carries another tag now, is such a request. Read-only, so
 * another CPU's issue or completion racing with the walk can only make it count one
 * too many for this sample, never leave the counts wrong.
 */
struct lost_walk {
	__u32 base, tags, self; /* the member's first slot, tags per queue, the issuer's slot */
	__u32 lost, held;	/* slots of lost completions; slots of requests in flight */
};

static int lost_one(__u32 i, void *data)
{
	struct lost_walk *w = data;
	__u32 idx = w->base + i;
	struct blkio_slot *s;
	struct request *r;
	__u64 state;

	if (idx == w->self)
		return 0;
	s = bpf_map_lookup_elem(&slots, &idx);
	if (!s)
		return 1; /* past the table */
	if (!s->issued)
		return 0;
	r = (struct request *)s->rq;
	state = BPF_CORE_READ(r, state);
	if (state == (__u64)bpf_core_enum_value(enum mq_rq_state, MQ_RQ_IDLE) ||
	    (w->tags && BPF_CORE_READ(r, tag) != (int)(i % w->tags)))
		w->lost++;
	/*
	 * Held: in the device's hands. A request the device has completed (MQ_RQ_COMPLETE)
	 * is not, though its slot is kept until its completion is traced, or until it is
	 * freed when that completion never comes: by then the application may have been
	 * told and issued the next one (fio at iodepth 16 then saw 17, one run in ~50).
	 */
	else if (state == (__u64)bpf_core_enum_value(enum mq_rq_state, MQ_RQ_IN_FLIGHT))
		w->held++;
	return 0;
}

/*
 * The depth of a request at issue, COUNTED by the in-flight counts of the slots from BASE
 * (N of them, TAGS per queue; the issuer's is IDX), less what it holds of lost
 * completions, and never more than the requests the slots hold in flight besides this
 * one. (That second bound catches what the first cannot explain: under heavy load one
 * run in ~80 of make check-loaded's depth test saw the count one above every slot, with
 * no lost slot to blame. Issues in progress on other CPUs have counted but not yet taken
 * their slot, so the bound can only ever lower a sample.) Only a new maximum (above
 * SEEN) is checked: that is where lost completions would show.
 *
 * Walked with bpf_loop (5.17): the verifier checks the step once. A plain bounded loop
 * over a table of 1024 slots already exceeds its budget; kernels without bpf_loop load
 * the issue program without the walk (tracer.c).
 */
static __always_inline __u64 issue_depth(struct blkio_rare *r, __u64 seen, __u32 base, __u32 n,
					 __u32 tags, __u32 idx, __u64 counted)
{
	struct lost_walk w = { .base = base, .tags = tags, .self = idx };
	__u64 depth;
	__u32 origin = walk_origin;

	if (counted <= seen || !tags)
		return counted;
	w.lost = origin;
	w.held = origin;
	bpf_loop(n, lost_one, &w, 0);
	w.lost -= origin;
	w.held -= origin;
	depth = w.lost < counted ? counted - w.lost : 1;
	if (depth > (__u64)w.held + 1)
		depth = (__u64)w.held + 1;
	if (depth != counted)
		r->depth_corrected++;
	/*
	 * Through memory the verifier cannot see into: 6.1's left this value with an
	 * impossible range (umin 1, umax 0) and then refused the histogram index made of it.
	 */
	bpf_probe_read_kernel(&counted, sizeof(counted), &depth);
	return counted;
}

/* The sum of a device's queue counts (struct blkio_queue), from its first queue. */
struct queue_sum {
	__u32 first;
	__s64 sum;
};

static int add_queue(__u32 i, void *data)
{
	struct queue_sum *s = data;
	__u32 idx = s->first + i;
	struct blkio_queue *q = bpf_map_lookup_elem(&queues, &idx);
	__s64 n;

	if (!q)
		return 1;
	/* Issued first, then done (inflight_now): low rather than high; never below 0. */
	n = *(volatile __s64 *)&q->issued;
	n -= *(volatile __s64 *)&q->done;
	if (n > 0)
		s->sum += n;
	return 0;
}

/* Queues a kernel without bpf_loop sums; a device of more counts only these. */
#define SUM_QUEUES_UNROLLED 32

/*
 * The depth of the device of several queues: the requests in flight on all its queues,
 * at least QDEPTH (its own queue's, this request included). Reads a line per queue that
 * the queue's CPUs write: the reason it is read only on a sample of the issues.
 */
static __always_inline __u64 device_depth(member_t *mb, __u64 qdepth, bool loop)
{
	struct queue_sum s = { .first = mb->dev_queue };
	__u32 i;

	s.sum = walk_origin; /* unknown to the verifier: bpf_loop's step converges */
	if (loop) {
		bpf_loop(mb->dev_queues, add_queue, &s, 0);
	} else {
		for (i = 0; i < SUM_QUEUES_UNROLLED; i++) {
			if (i >= mb->dev_queues)
				break;
			add_queue(i, &s);
		}
	}
	s.sum -= walk_origin;
	return s.sum > (__s64)qdepth ? (__u64)s.sum : qdepth;
}

/*
 * The size histogram of an issued request; for reads and writes of any segment count
 * but one, also size_multi, the segment count and the bytes per segment (blkio.h: the
 * loader derives those of one-segment requests from the size histograms).
 */
static __always_inline void count_size(struct blkio_pcpu *p, struct blkio_maxes *m, __u32 op,
				       __u64 bytes, __u64 segs)
{
	__u32 size_kind;

	SET_MAX(m, bytes, bytes);
	size_kind = op < BLKIO_OP_FLUSH ? op : BLKIO_SIZE_OTHER;
	BOUNDED(size_kind);
	if (size_kind >= BLKIO_NR_SIZE_HISTS)
		return;
	HIST_INC(p->size[size_kind], hist_size_index(bytes), HIST_SIZE_BUCKETS);
	if (op > BLKIO_OP_WRITE)
		return;
	SET_MAX(m, segments, segs);
	if (segs == 1)
		return;
	HIST_INC(p->size_multi, hist_size_index(bytes), HIST_SIZE_BUCKETS);
	if (!segs)
		return;
	if (segs >= HIST_COUNT_EXACT)
		p->r.big_segments_sum += segs;
	HIST_INC(p->count[BLKIO_COUNT_SEGMENTS], hist_count_index(segs), HIST_COUNT_BUCKETS);
	HIST_INC(p->size[BLKIO_SIZE_SEGMENT], hist_size_index(bytes / segs), HIST_SIZE_BUCKETS);
}

/*
 * The depth histogram, each issue read counting for WEIGHT issues (depth_weight); its
 * exact buckets give the sum, beyond them big_depth_sum.
 */
static __always_inline void count_depth(struct blkio_pcpu *p, struct blkio_maxes *m, __u64 depth,
					__u32 weight)
{
	p->r.depth_reads++;
	if (depth >= HIST_COUNT_EXACT)
		p->r.big_depth_sum += depth * weight;
	SET_MAX(m, depth, depth);
	HIST_ADD(p->count[BLKIO_COUNT_DEPTH], hist_count_index(depth), HIST_COUNT_BUCKETS, weight);
}

/* Requests and bytes: those of reads and writes with data in the hot words. */
static __always_inline void count_request(struct blkio_pcpu *p, __u32 op, __u64 bytes)
{
	BOUNDED(op);
	if (op <= BLKIO_OP_WRITE && bytes) {
		p->rw_bytes[op] += bytes; /* the size histogram counts the request */
	} else if (op < BLKIO_NR_OPS) {
		p->r.requests[op]++;
		p->r.bytes[op] += bytes;
	}
}

/*
 * A request of a disk of several queues, in its queue's depth histogram (per CPU) and
 * maximum (the queue's own line, which its issuers write anyway), cleared first when the
 * loader has started a new interval, as my_maxes does a CPU's.
 */
static __always_inline __u64 *queue_max(struct blkio_queue *q)
{
	__u64 epoch = max_epoch;

	if (q->max_epoch != epoch) {
		q->max_depth = 0;
		q->max_epoch = epoch;
	}
	return &q->max_depth;
}

static __always_inline void count_hwq_depth(member_t *mb, __u64 *max, __u64 qdepth)
{
	__u32 device = mb->device;
	struct blkio_hwq_hist *h;

	if (qdepth > *max)
		*max = qdepth;
	h = bpf_map_lookup_elem(&hwq_depth, &device);
	if (h)
		HIST_INC(h->slots, hist_count_index(qdepth), HIST_COUNT_BUCKETS);
}

/*
 * Whether member MB's device counts its requests in flight per CPU (pcpu_inflight): one
 * queue, so the disk's depth is the queue's, and nothing needs the queue's own count.
 */
static __always_inline bool pcpu_counts(member_t *mb)
{
	return pcpu_inflight && mb->dev_queues == 1;
}

/*
 * The sums over the CPUs of one device's per-CPU counts, issues first: pcpu_depth. The
 * completions' loads depend on the issues' sum (an added zero the compiler cannot see
 * through), so a weakly ordered CPU cannot take them first (inflight_now says why).
 */
struct pcpu_sum {
	__u32 device;
	__s64 issued, done;
	__u64 dep; /* 0, made of the issues' sum */
};

static int add_cpu_issued(__u32 cpu, void *data)
{
	struct pcpu_sum *s = data;
	struct blkio_pcpu *v = bpf_map_lookup_percpu_elem(&stats, &s->device, cpu);

	if (v)
		s->issued += *(volatile __s64 *)&v->pc_issued;
	return 0;
}

static int add_cpu_done(__u32 cpu, void *data)
{
	struct pcpu_sum *s = data;
	struct blkio_pcpu *v = bpf_map_lookup_percpu_elem(&stats, &s->device, cpu);

	if (v)
		s->done += *(volatile __s64 *)((char *)&v->pc_done + s->dep) +
			   *(volatile __s64 *)((char *)&v->pc_requeued + s->dep);
	return 0;
}

/*
 * The depth of a device of one queue counted per CPU: what the CPUs issued less what
 * they completed or requeued, at least 1 (this issue counted itself first). Reads one
 * line of each CPU's, which that CPU writes on each of its events: the reason it is
 * read only on a sample of the issues, one in at least four times the CPUs (members.c).
 * Low rather than high, as inflight_now: a request issued and completed elsewhere
 * between the two passes is in the second only.
 */
static __always_inline __u64 pcpu_depth(__u32 device)
{
	struct pcpu_sum s = { .device = device };
	__u64 dep;

	s.issued = walk_origin; /* unknown to the verifier: bpf_loop's step converges */
	s.done = walk_origin;
	bpf_loop(nr_cpus, add_cpu_issued, &s, 0);
	dep = (__u64)s.issued;
	asm volatile("%[d] &= 0" : [d] "+r"(dep));
	s.dep = dep;
	bpf_loop(nr_cpus, add_cpu_done, &s, 0);
	s.issued -= s.done;
	return s.issued > 0 ? (__u64)s.issued : 1;
}

/* A CPU whose issues are further apart than this reads the depth on each one. */
#define DEPTH_EVERY_GAP_NS 100000

/*
 * Whether this issue reads the disk's depth, and for how many issues it counts: 0, not
 * read; 1, read (every issue with --exact-depth, and on a CPU issuing less often than every
 * 100 us, to whichever traced disks, where a read costs nothing that matters); else, one
 * issue in K = member.depth_mask + 1 drawn at random (a per-CPU xorshift64 seeded by the
 * clock) counts K times. The pause is the CPU's, across disks: what the reads cost is per
 * CPU, and a CPU issuing to 256 disks in turn is as busy as one issuing to one. Each
 * issue's chance is known, so the histogram weighted by its inverse is unbiased, whatever
 * the rate does (a Horvitz-Thompson estimate): its counts estimate the issues, exact at low
 * rates. Random, not every K-th: a workload issuing in batches of a size dividing K
 * (io_uring refilling 8 at a time) would show a counter the same place in every batch.
 */
static __always_inline __u32 depth_weight(member_t *mb, __u64 now)
{
	__u32 zero = 0;
	struct blkio_cpu *c;
	__u64 x, last;

	if (exact_depth)
		return 1;
	c = bpf_map_lookup_elem(&cpu_clock, &zero);
	if (!c)
		return 1;
	x = c->depth_rng;
	last = c->depth_last;
	c->depth_last = now;
	if (now - last >= DEPTH_EVERY_GAP_NS)
		return 1;
	if (!x)
		x = now | 1;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	c->depth_rng = x;
	return (x >> 32) & mb->depth_mask ? 0 : mb->depth_mask + 1;
}

/*
 * The request's depths at issue, after it took its queue's count: the disk's, 0 when not
 * read, with the issues it counts for in *weight. Reading a depth reads the completions
 * counted on `done`, a line the completing CPUs write; where they are other CPUs (a
 * loop disk's worker, one queue shared by every CPU, interrupts routed elsewhere), each
 * read waits for that line and makes the next completion take it back: measured here,
 * ~150 ns per I/O, half of what the programs cost. So at high rates the disk's depth is
 * read on a sample of the issues (depth_weight), its maximum is that of the sample, and
 * the walk for lost completions runs on them. On a disk of several queues each issue
 * also counts its own queue's depth, exact: on a queue per CPU (NVMe, multi-queue
 * virtio-blk) a line of its own CPU; the disk's, on a sample, sums every queue's
 * (device_depth).
 */
static __always_inline __u64 issue_depths(struct blkio_pcpu *p, struct blkio_maxes *m, member_t *mb,
					  struct blkio_queue *q, __u32 hwq, __u32 idx, __u64 now,
					  __u32 *weight, bool walk)
{
	__u64 depth = 0, *max;

	if (mb->dev_queues > 1) {
		depth = inflight_now(q);
		max = queue_max(q);
		if (walk)
			depth = issue_depth(&p->r, *max, mb->slot_base + hwq * mb->tags, mb->tags,
					    mb->tags, idx, depth);
		count_hwq_depth(mb, max, depth);
	}
	*weight = depth_weight(mb, now);
	if (!*weight)
		return 0;
	/*
	 * Several queues: at least this queue's depth (DEPTH), the others' added. Per CPU:
	 * only the walking program sums the CPUs (the loader sets pcpu_inflight only where it
	 * loads that one), so the other, which older kernels load, calls no helper they lack.
	 */
	if (mb->dev_queues > 1)
		depth = device_depth(mb, depth, walk);
	else if (walk && pcpu_counts(mb))
		depth = pcpu_depth(mb->device);
	else
		depth = inflight_now(q);
	if (walk)
		depth = issue_depth(&p->r, m->depth, mb->slot_base, mb->hwqs * mb->tags, mb->tags,
				    idx, depth);
	return depth;
}

static __always_inline int on_issue(struct request *rq, bool btf, bool walk)
{
	member_t *mb = rq_member(rq, btf);
	struct blkio_maxes *m;
	struct blkio_pcpu *p;
	__u64 now, start, bytes, depth, flags;
	struct blkio_slot *slot;
	struct blkio_queue *q;
	__u32 op, idx = 0, hwq = 0, weight = 1;

	if (!mb)
		return 0;
	p = my_stats(mb->device);
	if (!p)
		return 0;
	m = my_maxes(p);

	now = bpf_ktime_get_ns();
	if (blktrace)
		bt_issue(rq, mb, btf, now);
	flags = RD(btf, rq, cmd_flags);
	op = op_class(flags);
	bytes = RD(btf, rq, __data_len);
	count_request(p, op, bytes);
	SET_MAX(m, first_issue_inv, ~now);
	/* Read-ahead: the page cache sized this request, not the application. */
	if (flags & (1ULL << bpf_core_enum_value(enum req_flag_bits, __REQ_RAHEAD))) {
		p->r.ra_requests++;
		p->r.ra_bytes += bytes;
	}

	slot = rq_slot(rq, mb, btf, &idx, &hwq);
	q = slot ? queue_of(mb, hwq) : NULL;
	if (slot && q) {
		if (slot->issued) {
			/* The previous owner's completion was lost: this one takes its count. */
			p->r.lost_completions++;
		} else if (pcpu_counts(mb)) {
			p->pc_issued++; /* this CPU's line only: no other CPU writes it */
		} else {
			inflight_issue(q);
		}
		depth = issue_depths(p, m, mb, q, hwq, idx, now, &weight, walk);
		slot->issued = now;
		slot->rq = (__u64)rq;
		if (snoop)
			who_issue(rq, btf, idx);
		if (depth)
			count_depth(p, m, depth, weight);
	} else {
		p->r.slot_overflow++;
	}

	/* Queue time: the kernel stamps allocation (0 when the queue keeps no stats). */
	start = RD(btf, rq, start_time_ns);
	if (start)
		lat_add(&p->sum_queue_ns, m, mb->device, BLKIO_LAT_QUEUE,
			now > start ? now - start : 0);

	if (op == BLKIO_OP_FLUSH || !bytes)
		return 0;
	count_size(p, m, op, bytes, RD(btf, rq, nr_phys_segments));
	return 0;
}

/* Snoop mode: one record per completed request, for the drain thread (src/trace/snoop.c). */
static __always_inline void snoop_record(struct request *rq, bool btf, struct blkio_rare *r,
					 __u32 idx, __u64 now, __u64 issued, __u64 start,
					 __u32 data_len, int error)
{
	struct blkio_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct blkio_who *w;
	struct gendisk *disk;

	if (!e) {
		r->lost_records++;
		return;
	}
	w = bpf_map_lookup_elem(&who_slots, &idx);
	e->ts_ns = now;
	e->sector = RD(btf, rq, __sector);
	e->queue_ns = start && start < issued ? issued - start : 0;
	e->device_ns = now - issued;
	e->bytes = data_len;
	disk = rq_disk(rq, btf);
	e->dev = BLKIO_DEV(RD(btf, disk, major), RD(btf, disk, first_minor));
	e->segments = RD(btf, rq, nr_phys_segments);
	e->op = op_class(RD(btf, rq, cmd_flags));
	e->error = error != 0;
	__builtin_memset(e->pad, 0, sizeof(e->pad));
	e->depth = 0; /* the drain's: src/trace/snoop.c */
	if (w) {
		e->pid = w->pid;
		__builtin_memcpy(e->comm, w->comm, sizeof(e->comm));
	} else {
		e->pid = 0;
		__builtin_memset(e->comm, 0, sizeof(e->comm));
	}
	/* No wakeup per record: the drain thread polls on a timer (src/trace/snoop.c). */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

static __always_inline int on_complete(struct request *rq, int error, __u32 nr_bytes, bool btf)
{
	member_t *mb = rq_member(rq, btf);
	__u64 now, issued, start, device_ns;
	struct blkio_slot *slot;
	struct blkio_maxes *m;
	struct blkio_pcpu *p;
	__u32 data_len, idx = 0, hwq = 0;
	struct blkio_queue *q;

	if (!mb)
		return 0;
	if (lose_every && bpf_get_prandom_u32() % lose_every == 0)
		return 0;
	now = bpf_ktime_get_ns();
	if (blktrace)
		bt_complete(rq, mb, btf, error, nr_bytes, now);
	/* A partial completion (blk_update_request with fewer bytes) is not the end. */
	data_len = RD(btf, rq, __data_len);
	if (nr_bytes < data_len)
		return 0;
	p = my_stats(mb->device);
	if (!p)
		return 0;
	if (error)
		p->r.errors++;

	slot = rq_slot(rq, mb, btf, &idx, &hwq);
	/* Outside the slot table: said at issue (slot_overflow). No driver tag at all is a
	 * request never issued: under an I/O scheduler, the empty pre-flush write. */
	if (!slot && RD(btf, rq, tag) >= 0)
		return 0;
	issued = slot ? slot->issued : 0;
	if (!issued) {
		/* Allocated after we attached: never issued (an empty pre-flush write). */
		start = RD(btf, rq, start_time_ns);
		if (start && start >= trace_start_ns)
			p->r.unissued++;
		else
			p->r.untracked++; /* issued before we attached */
		return 0;
	}
	start = RD(btf, rq, start_time_ns);
	if (pcpu_counts(mb)) {
		p->pc_done++;
	} else {
		/* The atomic first: the store then drains after it, not in front of it. */
		q = queue_of(mb, hwq);
		if (q)
			inflight_dec(q);
	}
	/*
	 * The record before the slot is freed: the drain takes a free slot for a request
	 * whose record is in the ring (src/trace/snoop.c, the depths).
	 */
	if (snoop)
		snoop_record(rq, btf, &p->r, idx, now, issued, start, data_len, error);
	slot->issued = 0;

	device_ns = now - issued;
	m = my_maxes(p);
	SET_MAX(m, last_complete, now);
	/* The device histogram's total is the completions. */
	lat_add(&p->sum_device_ns, m, mb->device, BLKIO_LAT_DEVICE, device_ns);
	if (start && start < now)
		lat_add(&p->sum_total_ns, m, mb->device, BLKIO_LAT_TOTAL, now - start);
	return 0;
}

static __always_inline int on_requeue(struct request *rq, bool btf)
{
	member_t *mb = rq_member(rq, btf);
	struct blkio_slot *slot;
	struct blkio_pcpu *p;
	struct blkio_queue *q;
	__u32 idx, hwq = 0;

	if (!mb)
		return 0;
	p = my_stats(mb->device);
	if (!p)
		return 0;
	p->r.requeues++;
	slot = rq_slot(rq, mb, btf, &idx, &hwq);
	/* It leaves the device and will be issued (and counted) again. */
	if (slot && slot->issued) {
		slot->issued = 0;
		/* Per CPU: a word of its own (blkio.h); atomic, as requeues are rare. */
		if (pcpu_counts(mb)) {
			__sync_fetch_and_add(&p->pc_requeued, 1);
		} else {
			q = queue_of(mb, hwq);
			if (q)
				inflight_dec(q);
		}
	}
	return 0;
}

static __always_inline int count_bio(struct bio *bio, bool btf, bool split)
{
	member_t *mb = bio_member(bio, btf);
	struct blkio_pcpu *p;
	__u32 op;

	if (!mb)
		return 0;
	p = my_stats(mb->device);
	if (!p)
		return 0;
	if (split) {
		p->r.splits++;
		return 0;
	}
	p->r.merges++;
	/* By the bio's operation: reads and writes (a journal's) merge for different reasons. */
	op = op_class(RD(btf, bio, bi_opf));
	BOUNDED(op);
	if (op < BLKIO_NR_OPS)
		p->r.merges_op[op]++;
	return 0;
}

static __always_inline int count_rq_merge(struct request *rq, bool btf)
{
	member_t *mb = rq_member(rq, btf);
	struct blkio_pcpu *p;

	if (!mb)
		return 0;
	p = my_stats(mb->device);
	if (p)
		p->r.rq_merges++;
	return 0;
}

/*
 * A bio-based device (dm, md: the top of a stack) never issues requests: it counts
 * bios, from submission (block_bio_queue) to completion (block_bio_complete). Its
 * "requests" are bios; the time between is both its device and its total latency
 * (there is no queue of its own to separate). These programs are loaded only when a
 * member counts bios.
 */
static __always_inline int on_bio_queue(struct bio *bio, bool btf)
{
	member_t *mb = bio_member(bio, btf);
	struct blkio_maxes *m;
	struct blkio_pcpu *p;
	__u64 now, bytes, key = (__u64)bio;
	struct blkio_queue *n;
	__u32 op;

	if (!mb || !(mb->flags & BLKIO_MEMBER_BIO))
		return 0;
	p = my_stats(mb->device);
	n = queue_of(mb, 0);
	if (!p || !n)
		return 0;
	m = my_maxes(p);
	op = op_class(RD(btf, bio, bi_opf));
	bytes = RD(btf, bio, bi_iter.bi_size);
	count_request(p, op, bytes);
	now = bpf_ktime_get_ns();
	SET_MAX(m, first_issue_inv, ~now);
	if (bpf_map_update_elem(&bio_start, &key, &now, BPF_NOEXIST)) {
		p->r.slot_overflow++; /* the table is full (or the bio is seen twice) */
	} else {
		count_depth(p, m, inflight_inc(n), 1);
	}
	if (op != BLKIO_OP_FLUSH && bytes)
		count_size(p, m, op, bytes, 0);
	return 0;
}

static __always_inline int on_bio_complete(struct bio *bio, bool btf)
{
	member_t *mb = bio_member(bio, btf);
	struct blkio_maxes *m;
	struct blkio_pcpu *p;
	__u64 now, *start, ns, key = (__u64)bio;
	struct blkio_queue *n;

	if (!mb || !(mb->flags & BLKIO_MEMBER_BIO))
		return 0;
	p = my_stats(mb->device);
	n = queue_of(mb, 0);
	if (!p || !n)
		return 0;
	if (RD(btf, bio, bi_status))
		p->r.errors++;
	start = bpf_map_lookup_elem(&bio_start, &key);
	if (!start) {
		p->r.untracked++;
		return 0;
	}
	now = bpf_ktime_get_ns();
	ns = now > *start ? now - *start : 0;
	bpf_map_delete_elem(&bio_start, &key);
	inflight_dec(n);
	m = my_maxes(p);
	SET_MAX(m, last_complete, now);
	lat_add(&p->sum_device_ns, m, mb->device, BLKIO_LAT_DEVICE, ns);
	lat_add(&p->sum_total_ns, m, mb->device, BLKIO_LAT_TOTAL, ns);
	return 0;
}

/*
 * The programs, each handler above in two flavours: tp_btf (direct loads through BTF) and
 * raw_tp (probe reads) for kernels without tp_btf; user space autoloads one set.
 */
SEC("tp_btf/block_rq_insert")
int tp_btf_rq_insert(__u64 *ctx)
{
	return on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), true);
}

SEC("raw_tp/block_rq_insert")
int raw_tp_rq_insert(__u64 *ctx)
{
	return on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), false);
}

SEC("tp_btf/block_rq_issue")
int tp_btf_rq_issue(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), true, false);
}

SEC("raw_tp/block_rq_issue")
int raw_tp_rq_issue(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), false, false);
}

/* The same where the kernel has bpf_loop: depth without lost completions. */
SEC("tp_btf/block_rq_issue")
int tp_btf_rq_issue_walk(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), true, true);
}

SEC("raw_tp/block_rq_issue")
int raw_tp_rq_issue_walk(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), false, true);
}

SEC("tp_btf/block_rq_complete")
int tp_btf_rq_complete(__u64 *ctx)
{
	return on_complete((struct request *)ctx[0], (int)ctx[1], (__u32)ctx[2], true);
}

SEC("raw_tp/block_rq_complete")
int raw_tp_rq_complete(__u64 *ctx)
{
	return on_complete((struct request *)ctx[0], (int)ctx[1], (__u32)ctx[2], false);
}

SEC("tp_btf/block_rq_requeue")
int tp_btf_rq_requeue(__u64 *ctx)
{
	return on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), true);
}

SEC("raw_tp/block_rq_requeue")
int raw_tp_rq_requeue(__u64 *ctx)
{
	return on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), false);
}

SEC("tp_btf/block_rq_merge")
int tp_btf_rq_merge(__u64 *ctx)
{
	return count_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), true);
}

SEC("raw_tp/block_rq_merge")
int raw_tp_rq_merge(__u64 *ctx)
{
	return count_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), false);
}

SEC("tp_btf/block_bio_backmerge")
int tp_btf_bio_backmerge(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), true, false);
}

SEC("raw_tp/block_bio_backmerge")
int raw_tp_bio_backmerge(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), false, false);
}

SEC("tp_btf/block_bio_frontmerge")
int tp_btf_bio_frontmerge(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), true, false);
}

SEC("raw_tp/block_bio_frontmerge")
int raw_tp_bio_frontmerge(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), false, false);
}

SEC("tp_btf/block_split")
int tp_btf_split(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0), true, true);
}

SEC("raw_tp/block_split")
int raw_tp_split(__u64 *ctx)
{
	return count_bio((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0), false, true);
}

SEC("tp_btf/block_bio_queue")
int tp_btf_bio_queue(__u64 *ctx)
{
	return on_bio_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), true);
}

SEC("raw_tp/block_bio_queue")
int raw_tp_bio_queue(__u64 *ctx)
{
	return on_bio_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), false);
}

SEC("tp_btf/block_bio_complete")
int tp_btf_bio_complete(__u64 *ctx)
{
	return on_bio_complete((struct bio *)ctx[1], true);
}

SEC("raw_tp/block_bio_complete")
int raw_tp_bio_complete(__u64 *ctx)
{
	return on_bio_complete((struct bio *)ctx[1], false);
}
