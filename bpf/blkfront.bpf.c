// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Probes on xen-blkfront's own functions: what the paravirtual protocol did with the
 * requests the block layer handed it. xen-blkfront has no tracepoints, so these attach
 * to the driver's functions, each twice: fentry/fexit where the kernel has the module's
 * BTF (6.1+), kprobe/kretprobe otherwise (5.10). User space autoloads one set.
 *
 *  - blkif_queue_rq, the blk-mq .queue_rq: entry notes the request and its ring's
 *    occupancy; the return says whether it went on the ring (0) or was turned away
 *    (BLK_STS_DEV_RESOURCE: the ring full, or no grant references) to be dispatched
 *    again when the interrupt frees slots.
 *  - blkif_setup_rw_req_grant, called once per 4 KiB data grant of a read or write while
 *    .queue_rq builds it: the grants per request, and whether the request it fills is
 *    BLKIF_OP_INDIRECT (its grants in pages of indirect descriptors) or carries them itself.
 *  - blkif_interrupt, the event channel's handler: its start is when the backend's
 *    responses arrived; blk_mq_complete_request, called from it per response, names each
 *    request completed (the backend time: submission to interrupt); blkif_copy_from_grant,
 *    per grant of a read whose data comes back through a granted page (persistent grants,
 *    bounce buffers).
 *
 * The driver's private structures are read through CO-RE where the module has BTF. Where
 * it has none, through the layout Linux has kept since 4.8 (blkfront_ring_info starts
 * with its lock and the front ring; blkfront_info holds rinfo, nr_rings and rinfo_size
 * right after its tag set; struct setup_rw_req as below), checked as far as a probe can:
 * a request whose state does not read as a ring's counts as unmatched, not as data.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "blkfront.h"
#include "core_fixes.bpf.h"
#include "members.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* xen/interface/io/blkif.h: the wire protocol, the same on every kernel. */
#define BLKIF_OP_INDIRECT 6
/* include/linux/blk_types.h since v4.17 */
#define BLK_STS_DEV_RESOURCE 13
#define BLK_STS_RESOURCE 9

const volatile __u32 nr_devices = 1;

/* The module's types, for CO-RE where xen_blkfront has BTF. */
struct blkif_front_ring___bb {
	unsigned int req_prod_pvt;
	unsigned int rsp_cons;
	unsigned int nr_ents;
} __attribute__((preserve_access_index));

struct blkfront_ring_info___bb {
	struct blkif_front_ring___bb ring;
} __attribute__((preserve_access_index));

struct blkfront_info___bb {
	void *rinfo;
	unsigned int nr_rings;
	unsigned int rinfo_size;
} __attribute__((preserve_access_index));

struct setup_rw_req___bb {
	void *ring_req;
	bool need_copy;
} __attribute__((preserve_access_index));

/* Without module BTF: the offsets of that layout (the fields of setup_rw_req: x86-64). */
#define OLD_RINFO_RING_OFF(lock) (((lock) + 7) & ~7u)
#define OLD_SETUP_RING_REQ 24
#define OLD_SETUP_NEED_COPY 40

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* nr_devices, set by the loader */
	__type(key, __u32);
	__type(value, struct blkfront_counts);
} counts SEC(".maps");

/* A request between blkif_queue_rq's entry and its return, on this CPU. */
struct queue_ctx {
	__u64 rq; /* the request, when it is ours; else 0 */
	__u64 entry_ns;
	__u64 wait_since; /* turned away before: since when (0: not) */
	__u32 device;
	__u32 ring;
	__u64 rinfo;
	__u32 in_use; /* ring slots in use before this request */
	__u32 nr_ents;
	__u32 grants;
	__u8 indirect;
	__u8 copied;
	__u8 ring_read; /* in_use and nr_ents were read */
	__u8 pad;
};

/* Inside blkif_interrupt on this CPU: when it started; and the copies of the response
 * being handled (blkif_copy_from_grant runs before that request's completion). */
struct irq_ctx {
	__u64 start_ns;
	__u64 rinfo; /* its dev_id: the ring's blkfront_ring_info */
	__u32 active;
	__u32 copies;
};

/*
 * .queue_rq calls in progress in a task, innermost last: blk-mq may dispatch another
 * request from an interrupt's completion while one is being put on the ring (in the
 * interrupted task's context), and the inner call's entry must not take the outer one's
 * place. Every call is pushed, ours or not (rq 0), and each return pops the innermost:
 * calls return in the order they entered. By task, not by CPU: the task may move to
 * another CPU between the entry and the ring's lock, or between the lock and the return
 * (the xen tests saw a request lost, and another's grants counted twice, per CPU).
 * A task's entry lives while it is in a call: the return that empties its stack deletes
 * it, so the map holds the tasks in a call, never near its size. Kept for every task
 * that ever submitted, the entries could fill it, and the LRU would then evict the entry
 * of a task in a call: its return would count nothing, with no run skipped (the likely
 * cause of one request of 768 uncounted, once, in the xen tests). Not task-local
 * storage: 5.10, where the kprobes run, has none (it came in 5.11).
 */
#define QDEPTH 4

struct task_calls {
	__u32 depth;
	__u32 pad;
	struct queue_ctx q[QDEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* the task_struct */
	__type(value, struct task_calls);
} qtasks SEC(".maps");

/* The empty value a task's first call starts from (never written). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct task_calls);
} qzero SEC(".maps");

struct cpu_ctx {
	struct irq_ctx irq;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_ctx);
} cpu SEC(".maps");

/*
 * A request on its way, from its first .queue_rq: turned away (waiting since), and when
 * the last .queue_rq began (the request goes on the ring before it returns, and the
 * backend may answer before it does: so the submission is taken at the entry).
 */
struct rq_state {
	__u64 born; /* rq->start_time_ns: a request struct reused is another request */
	__u64 wait_since;
	__u64 submitted;
	__u32 device;
	__u32 ring;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct rq_state);
} requests SEC(".maps");

/* The rings seen at .queue_rq: blkfront_ring_info -> device * BLKFRONT_MAX_RINGS + ring. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, __u32);
} ring_keys SEC(".maps");

/* Since when each (device, ring) is full; 0: not. Key device * BLKFRONT_MAX_RINGS + ring. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BLKFRONT_MAX_RINGS); /* nr_devices * BLKFRONT_MAX_RINGS */
	__type(key, __u32);
	__type(value, __u64);
} full_since SEC(".maps");

static __always_inline struct cpu_ctx *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpu, &zero);
}

static __always_inline struct blkfront_counts *counts_of(__u32 device)
{
	return bpf_map_lookup_elem(&counts, &device);
}

static __always_inline __u32 ring_slot(__u32 ring)
{
	return ring < BLKFRONT_MAX_RINGS ? ring : BLKFRONT_MAX_RINGS - 1;
}

/* The ring's blkfront_ring_info, or NULL when the driver's state does not read as one. */
static __always_inline void *ring_info(struct blk_mq_hw_ctx *hctx, __u32 ring)
{
	struct blkfront_info___bb *info;
	struct request_queue *q = BPF_CORE_READ(hctx, queue);
	unsigned int nr_rings, size;
	void *rinfo;

	if (bpf_core_type_exists(struct blkfront_info___bb)) {
		info = BPF_CORE_READ(q, queuedata);
		rinfo = BPF_CORE_READ(info, rinfo);
		nr_rings = BPF_CORE_READ(info, nr_rings);
		size = BPF_CORE_READ(info, rinfo_size);
	} else {
		/* info->rinfo, nr_rings, rinfo_size follow info->tag_set, q->tag_set */
		char *p = (char *)BPF_CORE_READ(q, tag_set) +
			  bpf_core_type_size(struct blk_mq_tag_set);
		struct {
			void *rinfo;
			unsigned int nr_rings, size;
		} tail;

		if (bpf_probe_read_kernel(&tail, sizeof(tail), p))
			return NULL;
		rinfo = tail.rinfo;
		nr_rings = tail.nr_rings;
		size = tail.size;
	}
	if (!rinfo || ring >= nr_rings || nr_rings > 256 || size < 64 || size > (1u << 24))
		return NULL;
	return (char *)rinfo + (__u64)ring * size;
}

/* The ring's producer, consumer and size, read once each. */
static __always_inline bool read_head(void *rinfo, unsigned int *prod, unsigned int *cons,
				      unsigned int *n)
{
	struct blkfront_ring_info___bb *ri = rinfo;
	unsigned int head[3];

	if (bpf_core_type_exists(struct blkfront_ring_info___bb)) {
		*prod = BPF_CORE_READ(ri, ring.req_prod_pvt);
		*cons = BPF_CORE_READ(ri, ring.rsp_cons);
		*n = BPF_CORE_READ(ri, ring.nr_ents);
		return true;
	}
	if (bpf_probe_read_kernel(head, sizeof(head),
				  (char *)rinfo +
					  OLD_RINFO_RING_OFF(bpf_core_type_size(spinlock_t))))
		return false;
	*prod = head[0];
	*cons = head[1];
	*n = head[2];
	return true;
}

/*
 * Slots in use and the ring's size; false when they do not read as a ring's.
 *
 * The driver moves both ends under the ring's lock, which a probe does not hold. Read one
 * after the other, prod then cons, the two can come from different moments: between the
 * reads (this program interrupted or preempted), other submitters on the ring can add
 * requests and the interrupt take their responses, so that cons passes the prod read,
 * and prod - cons wraps. The pair is therefore read between two reads of cons and taken
 * where cons stayed put, so that prod and cons held together at the moment prod was
 * read; up to three tries, after which the last pair counts if it reads as a ring.
 */
static __always_inline bool read_ring(void *rinfo, __u32 *in_use, __u32 *nr_ents)
{
	unsigned int prod, cons, before, n;
	int i;

#pragma unroll
	for (i = 0; i < 3; i++) {
		if (!read_head(rinfo, &prod, &before, &n) || !read_head(rinfo, &prod, &cons, &n))
			return false;
		if (cons == before)
			break;
	}
	/* A ring holds a power of two of requests, 32 per page, up to 16 pages (x 4 KiB). */
	if (n < 32 || n > 32 * 16 * 16 || (n & (n - 1)) || prod - cons > n)
		return false;
	*in_use = prod - cons;
	*nr_ents = n;
	return true;
}

/* The calls in progress of task T (the current one's); created empty if CREATE. */
static __always_inline struct task_calls *my_calls(__u64 t, bool create)
{
	struct task_calls *s = bpf_map_lookup_elem(&qtasks, &t), *zero;
	__u32 k = 0;

	if (s || !create)
		return s;
	zero = bpf_map_lookup_elem(&qzero, &k);
	if (!zero)
		return NULL;
	bpf_map_update_elem(&qtasks, &t, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&qtasks, &t);
}

static __always_inline void queue_rq_entry(struct blk_mq_hw_ctx *hctx, struct request *rq)
{
	struct task_calls *c = my_calls(bpf_get_current_task(), true);
	struct rq_state *st, fresh = {};
	struct queue_ctx *q;
	member_t *m;
	void *rinfo;
	__u32 d;

	if (!c)
		return;
	d = c->depth;
	BOUNDED(d);
	if (d >= QDEPTH)
		return; /* deeper than blk-mq goes: its return finds no entry of its own */
	q = &c->q[d];
	c->depth = d + 1;
	q->rq = 0;
	m = rq_member(rq, false);
	if (!m)
		return;
	q->rq = (__u64)rq;
	q->entry_ns = bpf_ktime_get_ns();
	q->device = m->device;
	q->ring = BPF_CORE_READ(hctx, queue_num);
	q->grants = 0;
	q->indirect = 0;
	q->copied = 0;
	q->wait_since = 0;
	rinfo = ring_info(hctx, q->ring);
	q->ring_read = rinfo && read_ring(rinfo, &q->in_use, &q->nr_ents);
	q->rinfo = (__u64)rinfo;
	fresh.born = BPF_CORE_READ(rq, start_time_ns);
	st = bpf_map_lookup_elem(&requests, &q->rq);
	if (st && st->born == fresh.born) {
		st->submitted = q->entry_ns;
		q->wait_since = st->wait_since;
		return;
	}
	fresh.submitted = q->entry_ns;
	fresh.device = q->device;
	fresh.ring = q->ring;
	bpf_map_update_elem(&requests, &q->rq, &fresh, BPF_ANY);
}

/* The innermost .queue_rq call in progress, ours or not; NULL when none is. */
static __always_inline struct queue_ctx *innermost(struct task_calls *c)
{
	__u32 k = c->depth - 1;

	BOUNDED(k);
	return c->depth && k < QDEPTH ? &c->q[k] : NULL;
}

/* The innermost .queue_rq in progress, if it is one of ours. */
static __always_inline struct queue_ctx *current_queue_rq(struct task_calls *c)
{
	struct queue_ctx *q = innermost(c);

	return q && q->rq ? q : NULL;
}

/* One data grant of the request being built. */
static __always_inline void setup_grant(void *data)
{
	struct setup_rw_req___bb *s = data;
	struct task_calls *c = my_calls(bpf_get_current_task(), false);
	struct queue_ctx *q = c ? current_queue_rq(c) : NULL;
	void *ring_req;
	__u8 op = 0;
	bool copy;

	if (!q)
		return;
	if (q->grants++)
		return; /* the first grant tells the operation and whether data is copied */
	if (bpf_core_type_exists(struct setup_rw_req___bb)) {
		ring_req = BPF_CORE_READ(s, ring_req);
		copy = BPF_CORE_READ(s, need_copy);
	} else {
		if (bpf_probe_read_kernel(&ring_req, sizeof(ring_req),
					  (char *)data + OLD_SETUP_RING_REQ) ||
		    bpf_probe_read_kernel(&copy, sizeof(copy), (char *)data + OLD_SETUP_NEED_COPY))
			return;
	}
	bpf_probe_read_kernel(&op, sizeof(op), ring_req); /* blkif_request.operation */
	q->indirect = op == BLKIF_OP_INDIRECT;
	q->copied = copy;
}

/* This request took the ring's last slot: full until an interrupt frees one. */
static __always_inline void start_full(struct queue_ctx *q, struct blkfront_counts *n, __u32 ring,
				       __u64 now)
{
	__u32 key = q->device * BLKFRONT_MAX_RINGS + ring;
	__u64 *since = bpf_map_lookup_elem(&full_since, &key);

	if (!since || *since)
		return;
	bpf_map_update_elem(&ring_keys, &q->rinfo, &key, BPF_ANY);
	*since = now;
	n->fulls++;
}

static __always_inline void count_put(struct queue_ctx *q, struct blkfront_counts *n, __u32 ring,
				      __u64 now)
{
	struct rq_state *st;
	__u32 g = q->grants, i;

	n->requests++;
	n->ring[ring].requests++;
	if (!g) {
		n->no_data++;
	} else {
		i = hist_count_index(g);
		BOUNDED(i);
		if (q->indirect) {
			n->indirect++;
			n->indirect_pages += (g + BLKFRONT_GRANTS_PER_INDIRECT_PAGE - 1) /
					     BLKFRONT_GRANTS_PER_INDIRECT_PAGE;
			if (i < HIST_COUNT_BUCKETS)
				n->grants_indirect[i]++;
		} else {
			n->direct++;
			if (i < HIST_COUNT_BUCKETS)
				n->grants_direct[i]++;
		}
	}
	n->grants += g;
	if (q->copied)
		n->copied_grants += g;
	n->occupancy_sum += q->in_use + 1;
	i = hist_count_index(q->in_use + 1);
	BOUNDED(i);
	if (i < HIST_COUNT_BUCKETS)
		n->occupancy[i]++;
	if (q->in_use + 1 >= q->nr_ents)
		start_full(q, n, ring, now);
	if (!q->wait_since)
		return;
	n->waits++;
	n->wait_ns += now - q->wait_since;
	/* None: answered and completed before .queue_rq returned. */
	st = bpf_map_lookup_elem(&requests, &q->rq);
	if (st)
		st->wait_since = 0;
}

static __always_inline void count_stop(struct queue_ctx *q, struct blkfront_counts *n, __u32 ring)
{
	struct rq_state *st = bpf_map_lookup_elem(&requests, &q->rq);

	n->ring[ring].stops++;
	if (q->in_use >= q->nr_ents) {
		n->full_stops++;
	} else {
		n->grant_stops++;
	}
	if (st && !st->wait_since)
		st->wait_since = q->entry_ns;
}

/* The innermost call returns: popped, ours or not. */
static __always_inline struct queue_ctx *pop_queue_rq(struct task_calls *c)
{
	struct queue_ctx *q = innermost(c);

	if (!q)
		return NULL;
	c->depth--;
	return q->rq ? q : NULL;
}

static __always_inline void count_return(struct queue_ctx *q, long ret)
{
	struct blkfront_counts *n = counts_of(q->device);
	__u32 ring;

	if (!n)
		return;
	if (!q->ring_read) {
		n->unmatched++;
		return;
	}
	ring = ring_slot(q->ring);
	if (ret == 0)
		count_put(q, n, ring, bpf_ktime_get_ns());
	else if (ret == BLK_STS_DEV_RESOURCE || ret == BLK_STS_RESOURCE)
		count_stop(q, n, ring);
}

static __always_inline void queue_rq_return(long ret)
{
	__u64 t = bpf_get_current_task();
	struct task_calls *c = my_calls(t, false);
	struct queue_ctx *q;

	if (!c)
		return;
	q = pop_queue_rq(c);
	if (q)
		count_return(q, ret);
	/* The outermost call returned: nothing of the entry is read after this. */
	if (!c->depth)
		bpf_map_delete_elem(&qtasks, &t);
}

static __always_inline void interrupt_entry(void *rinfo)
{
	struct cpu_ctx *c = this_cpu();

	if (!c)
		return;
	c->irq.start_ns = bpf_ktime_get_ns();
	c->irq.rinfo = (__u64)rinfo;
	c->irq.active = 1;
}

/* A full ring whose slots this interrupt freed is full no more. */
static __always_inline void end_full(__u64 rinfo)
{
	__u32 *key = bpf_map_lookup_elem(&ring_keys, &rinfo), k, in_use, nr_ents;
	struct blkfront_counts *n;
	__u64 *since, now;

	if (!key)
		return;
	k = *key;
	since = bpf_map_lookup_elem(&full_since, &k);
	if (!since || !*since || !read_ring((void *)rinfo, &in_use, &nr_ents) || in_use >= nr_ents)
		return;
	n = counts_of(k / BLKFRONT_MAX_RINGS);
	if (!n)
		return;
	now = bpf_ktime_get_ns();
	n->full_ns += now - *since;
	n->ring[k % BLKFRONT_MAX_RINGS].full_ns += now - *since;
	*since = 0;
}

static __always_inline void interrupt_return(void)
{
	struct cpu_ctx *c = this_cpu();

	if (!c)
		return;
	c->irq.active = 0;
	end_full(c->irq.rinfo);
}

/* A grant of a read's data copied back: counted with the next request completed here. */
static __always_inline void copy_from_grant(void)
{
	struct cpu_ctx *c = this_cpu();

	if (c)
		c->irq.copies++;
}

/*
 * A response completes rq: the backend time runs to the interrupt's start, or to now
 * where the interrupt's own probes did not run (a kprobe that fires while another of ours
 * runs on the CPU is skipped: kprobes, 5.10).
 */
static __always_inline void complete_request(struct request *rq)
{
	struct cpu_ctx *c = this_cpu();
	struct blkfront_counts *n;
	struct rq_state *st;
	__u64 key = (__u64)rq, ns, at;
	__u32 ring, i;

	if (!c)
		return;
	st = bpf_map_lookup_elem(&requests, &key);
	if (!st)
		return;
	n = counts_of(st->device);
	/* An interrupt older than the submission is one whose return we did not see. */
	at = c->irq.active && c->irq.start_ns >= st->submitted ? c->irq.start_ns
							       : bpf_ktime_get_ns();
	if (n) {
		n->copied_grants += c->irq.copies;
		if (st->submitted && at >= st->submitted) {
			ring = ring_slot(st->ring);
			ns = at - st->submitted;
			n->backend_ns += ns;
			n->backend_n++;
			n->ring[ring].backend_ns += ns;
			n->ring[ring].backend_n++;
			i = hist_lat_index(ns);
			BOUNDED(i);
			if (i < HIST_LAT_BUCKETS)
				n->backend_lat[i]++;
		}
	}
	c->irq.copies = 0;
	bpf_map_delete_elem(&requests, &key);
}

/*
 * The programs, each handler above in two flavours: fentry/fexit where xen_blkfront has
 * BTF (ctx: the arguments, then the return value), kprobe/kretprobe otherwise.
 */
SEC("fentry/blkif_queue_rq")
int fentry_queue_rq(__u64 *ctx)
{
	const struct blk_mq_queue_data *bd = (void *)ctx[1];

	queue_rq_entry((struct blk_mq_hw_ctx *)ctx[0], BPF_CORE_READ(bd, rq));
	return 0;
}

SEC("fexit/blkif_queue_rq")
int fexit_queue_rq(__u64 *ctx)
{
	queue_rq_return((__u8)ctx[2]);
	return 0;
}

SEC("fentry/blkif_setup_rw_req_grant")
int fentry_setup_grant(__u64 *ctx)
{
	setup_grant((void *)ctx[3]);
	return 0;
}

SEC("fentry/blkif_interrupt")
int fentry_interrupt(__u64 *ctx)
{
	interrupt_entry((void *)ctx[1]);
	return 0;
}

SEC("fexit/blkif_interrupt")
int fexit_interrupt(__u64 *ctx)
{
	(void)ctx;
	interrupt_return();
	return 0;
}

SEC("fentry/blkif_copy_from_grant")
int fentry_copy_from_grant(__u64 *ctx)
{
	(void)ctx;
	copy_from_grant();
	return 0;
}

SEC("fentry/blk_mq_complete_request")
int fentry_complete(__u64 *ctx)
{
	complete_request((struct request *)ctx[0]);
	return 0;
}

SEC("kprobe/blkif_queue_rq")
int kprobe_queue_rq(struct pt_regs *ctx)
{
	const struct blk_mq_queue_data *bd = (void *)PT_REGS_PARM2(ctx);

	queue_rq_entry((struct blk_mq_hw_ctx *)PT_REGS_PARM1(ctx), BPF_CORE_READ(bd, rq));
	return 0;
}

SEC("kretprobe/blkif_queue_rq")
int kretprobe_queue_rq(struct pt_regs *ctx)
{
	queue_rq_return((__u8)PT_REGS_RC(ctx));
	return 0;
}

SEC("kprobe/blkif_setup_rw_req_grant")
int kprobe_setup_grant(struct pt_regs *ctx)
{
	setup_grant((void *)PT_REGS_PARM4(ctx));
	return 0;
}

SEC("kprobe/blkif_interrupt")
int kprobe_interrupt(struct pt_regs *ctx)
{
	interrupt_entry((void *)PT_REGS_PARM2(ctx));
	return 0;
}

SEC("kretprobe/blkif_interrupt")
int kretprobe_interrupt(struct pt_regs *ctx)
{
	(void)ctx;
	interrupt_return();
	return 0;
}

SEC("kprobe/blkif_copy_from_grant")
int kprobe_copy_from_grant(struct pt_regs *ctx)
{
	(void)ctx;
	copy_from_grant();
	return 0;
}

SEC("kprobe/blk_mq_complete_request")
int kprobe_complete(struct pt_regs *ctx)
{
	complete_request((struct request *)PT_REGS_PARM1(ctx));
	return 0;
}

/*
 * Beside kprobe_complete: the request's completion in the block layer, after the driver's
 * (blk_update_request), found in requests only where the kprobe was skipped. A raw
 * tracepoint's program runs while a kprobe program of ours runs on the CPU, where the
 * kernel skips a kprobe's.
 */
SEC("raw_tp/block_rq_complete")
int raw_tp_complete(__u64 *ctx)
{
	complete_request((struct request *)ctx[0]);
	return 0;
}
