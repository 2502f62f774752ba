// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The events of the traced disks as the kernel's blktrace (kernel/trace/blktrace.c) logs
 * them: Q (bio queued), G (request allocated), I (inserted), D (issued), C (completed, a
 * request; or a bio of a bio-based device), M and F (a bio merged at the back or front;
 * M also for a request merged into another), X (split), R (requeued) and A (remapped
 * from the device above). User space (src/blktrace/btrace_out.c) writes blktrace's
 * files from them, each event in its CPU's file in time order.
 *
 * One record per request, not per event: a request's Q, G, I, D and C travel in one
 * struct btrace_rec, sent to the ring buffer when it completes. Until then the record
 * waits where the request is: Q and G (no request yet, no tag) in a per-CPU cache by
 * bio, found again by the request's first bio at insert or issue; from insert to issue
 * (a scheduler's queue, maybe issued by another CPU) in `waiting`, by the request's
 * address; from issue to completion in `slots`, by (hardware queue, driver tag) as the
 * aggregate's (blkio.bpf.c). The rare events (merges, splits, remaps, requeues, partial
 * completions) are records of their own, carrying what was held for the bio or request
 * they end. A record that cannot wait (the cache full, a slot taken) is sent as it is:
 * every event is sent once, in one record or another. What is still held when the
 * programs detach, user space reads from these maps.
 *
 * The task of each event is named once per CPU and pid in a while (a direct-mapped
 * cache), by a small record of its own before any record that uses it. Each record is
 * counted in its first event's epoch (blktrace.h), so that the writer knows when no
 * record still to come holds an earlier event.
 *
 * Loaded beside blkio.bpf.c only with --blktrace: the aggregate's hot path stays as it
 * is. The disk filter is the same (members.bpf.h) and comes first in every program.
 * The action and its categories are computed here as __blk_add_trace does: the
 * direction from the op, SYNC, AHEAD, META, FLUSH (a preflush, or a flush op), FUA and
 * DISCARD from the request flags, FS or PC for requests. A record the ring buffer has
 * no room for is counted in `lost`, per CPU, as blktrace counts its drops.
 *
 * Each program exists twice: tp_btf (direct loads through BTF) and a raw_tp twin
 * (probe reads) for kernels without tp_btf. User space autoloads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "blkio.h"
#include "blktrace.h"
#include "core_fixes.bpf.h"
#include "members.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load; frozen, so the verifier prunes by them. */
/* Per enum blkio_tp: the tracepoint takes a leading request_queue (before v5.11). */
const volatile bool old_args[BLKIO_NR_TPS] = {};
/*
 * block_rq_complete passes a blk_status_t, not the errno of older kernels (v5.10's):
 * the loader reads which from its BTF prototype.
 */
const volatile bool complete_status = false;

/* Set by the loader, as the aggregate's (blkio.bpf.c): the slot table's geometry. */
const volatile bool one_hwq = false;
const volatile __u32 nr_slots = 1;

/* The loader sizes it, from the rate it must hold between two drains. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct btrace_pcpu);
} pcpu SEC(".maps");

/* A request's record from issue to completion; the loader sizes it (nr_slots). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct btrace_rec);
} slots SEC(".maps");

/* A request's record from insert to issue, by its address; the loader sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct btrace_rec);
} waiting SEC(".maps");

/* Entries in `waiting`: no lookup while it is empty (no scheduler, or none queued). */
__s64 nr_waiting = 0;

/* include/uapi/linux/blktrace_api.h's macros; vmlinux.h has only its enums. */
#define TC_ACT(c) ((__u32)(c) << 16)
#define OP_MASK 0xff
/* blk_rq_is_passthrough: REQ_OP_DRV_IN/OUT (and up to v5.18 REQ_OP_SCSI_IN/OUT). */
#define OP_PC_FIRST 32
#define OP_PC_LAST 35

/* Bit NAME of a request's flags; its position is the running kernel's (CO-RE). */
#define REQ_BIT(opf, name) (((opf) >> bpf_core_enum_value(enum req_flag_bits, __REQ_##name)) & 1)

/* The categories __blk_add_trace adds to every action (MASK_TC_BIT and the op). */
static __always_inline __u32 categories(__u32 opf)
{
	__u32 op = opf & OP_MASK, what;

	what = op & 1 ? TC_ACT(BLK_TC_WRITE) : TC_ACT(BLK_TC_READ); /* op_is_write */
	if (REQ_BIT(opf, SYNC))
		what |= TC_ACT(BLK_TC_SYNC);
	if (REQ_BIT(opf, RAHEAD))
		what |= TC_ACT(BLK_TC_AHEAD);
	if (REQ_BIT(opf, META))
		what |= TC_ACT(BLK_TC_META);
	if (REQ_BIT(opf, PREFLUSH))
		what |= TC_ACT(BLK_TC_FLUSH);
	if (REQ_BIT(opf, FUA))
		what |= TC_ACT(BLK_TC_FUA);
	if (op == REQ_OP_DISCARD || op == REQ_OP_SECURE_ERASE)
		what |= TC_ACT(BLK_TC_DISCARD);
	if (op == REQ_OP_FLUSH)
		what |= TC_ACT(BLK_TC_FLUSH);
	return what;
}

/*
 * blk_status_to_errno for the statuses whose numbers every kernel since v4.13 shares;
 * anything else is an I/O error, as the kernel's table says of what it does not know.
 */
static __always_inline __s32 status_errno(__u32 status)
{
	switch (status) {
	case 0:
		return 0;
	case 1: /* BLK_STS_NOTSUPP */
		return -95;
	case 2: /* BLK_STS_TIMEOUT */
		return -110;
	case 3: /* BLK_STS_NOSPC */
		return -28;
	case 4: /* BLK_STS_TRANSPORT */
		return -67;
	case 5: /* BLK_STS_TARGET */
		return -121;
	case 6: /* BLK_STS_NEXUS, BLK_STS_RESV_CONFLICT */
		return -52;
	case 7: /* BLK_STS_MEDIUM */
		return -61;
	case 8: /* BLK_STS_PROTECTION */
		return -84;
	case 9: /* BLK_STS_RESOURCE */
		return -12;
	case 12: /* BLK_STS_AGAIN */
		return -11;
	case 13: /* BLK_STS_DEV_RESOURCE */
		return -16;
	default: /* BLK_STS_IOERR and the rest */
		return -5;
	}
}

#define ACT_QUEUE(a) (__BLK_TA_##a | TC_ACT(BLK_TC_QUEUE))

static __always_inline struct btrace_pcpu *my_pcpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&pcpu, &zero);
}

/*
 * The current task's pid (the thread, as blktrace logs it). Its name goes to user space
 * first, in a note of its own, unless this CPU named it lately: an event's note is always
 * read before the record of the event (the note is sent when the event happens, the
 * record later, or just after within the same program run).
 */
static __always_inline __u32 task_pid(struct btrace_pcpu *p, bool btf)
{
	struct task_struct *t = NULL;
	struct btrace_task *n;
	__u32 pid, i;

	if (btf && bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		t = bpf_get_current_task_btf();
		pid = t->pid;
	} else {
		pid = (__u32)bpf_get_current_pid_tgid();
	}
	i = pid & (BTRACE_PIDS - 1);
	if (p->pids[i] == pid + 1)
		return pid;
	/* Cached even when its note is lost (counted once, not at every event of a full ring). */
	p->pids[i] = pid + 1;
	n = bpf_ringbuf_reserve(&events, sizeof(*n), 0);
	if (!n) {
		__sync_fetch_and_add(&p->lost, 1);
		return pid;
	}
	n->kind = BTRACE_REC_TASK;
	n->cpu = bpf_get_smp_processor_id();
	n->pid = pid;
	if (t)
		__builtin_memcpy(n->comm, t->comm, sizeof(n->comm));
	else
		bpf_get_current_comm(n->comm, sizeof(n->comm));
	bpf_ringbuf_submit(n, BPF_RB_NO_WAKEUP);
	return pid;
}

/* A new record of member M, counted in the epoch of its first event (at NOW). */
static __always_inline void rec_begin(struct btrace_pcpu *p, struct btrace_rec *r, member_t *m,
				      __u64 now)
{
	__u32 epoch = now >> BTRACE_EPOCH_SHIFT, i = epoch & (BTRACE_EPOCHS - 1);

	r->kind = BTRACE_REC_REQUEST;
	r->steps = 0;
	r->pdu_len = 0;
	r->pad = 0;
	r->device = m->device;
	r->epoch = epoch;
	BOUNDED(i);
	/*
	 * Atomic (no fetch: core_fixes.bpf.h): a completion's program in an interrupt may
	 * count on this CPU between a ++'s load and its store, and one would be gone.
	 */
	if (i < BTRACE_EPOCHS)
		__sync_fetch_and_add(&p->opened[i], 1);
}

/* A record the ring buffer had no room for: lost, and its epoch told so. */
static __always_inline void rec_dropped(struct btrace_pcpu *p, const struct btrace_rec *r)
{
	__u32 i = r->epoch & (BTRACE_EPOCHS - 1);

	__sync_fetch_and_add(&p->lost, 1);
	BOUNDED(i);
	if (i < BTRACE_EPOCHS)
		__sync_fetch_and_add(&p->dropped[i], 1);
}

/* A held record to user space, as it is; its place is free again. */
static __always_inline void rec_send(struct btrace_pcpu *p, struct btrace_rec *r)
{
	/* No wakeup per record: the drain thread polls on a timer (src/trace/ringbuf_drain.c). */
	if (bpf_ringbuf_output(&events, r, sizeof(*r), BPF_RB_NO_WAKEUP))
		rec_dropped(p, r);
	r->steps = 0;
}

/* Event K of a record. */
static __always_inline void step(struct btrace_rec *r, __u32 k, __u64 now, __u32 pid, __u64 sector,
				 __u32 bytes, __u32 action, __s32 error)
{
	struct btrace_step *s;

	if (k >= BTRACE_STEPS)
		return;
	s = &r->step[k];
	s->time = now;
	s->sector = sector;
	s->bytes = bytes;
	s->action = action;
	s->pid = pid;
	s->cpu = bpf_get_smp_processor_id();
	s->error = (__u16)error;
	r->steps |= 1 << k;
}

/* The cache entry holding BIO's events, or NULL. The newest first: it is usually the one. */
static __always_inline struct btrace_entry *cache_find(struct btrace_pcpu *p, __u64 bio)
{
	__u32 head = p->head, i, k;

#pragma unroll
	for (i = 1; i <= BTRACE_CACHE; i++) {
		k = (head - i) & (BTRACE_CACHE - 1);
		if (p->cache[k].key == bio)
			return &p->cache[k];
	}
	return NULL;
}

/* A new cache entry for KEY; the oldest one goes to user space if it still holds events. */
static __always_inline struct btrace_entry *cache_new(struct btrace_pcpu *p, member_t *m, __u64 key,
						      __u64 now)
{
	__u32 k = p->head++ & (BTRACE_CACHE - 1);
	struct btrace_entry *e = &p->cache[k];

	if (e->key && e->r.steps)
		rec_send(p, &e->r);
	e->key = key;
	rec_begin(p, &e->r, m, now);
	return e;
}

/*
 * One entry of the cache, in turn, sent if it has waited four epochs or more: a bio's Q
 * and G no request claims on this CPU (the task moved, the bio failed before it got a
 * request) would keep the writer from writing their epoch.
 */
static __always_inline void cache_sweep(struct btrace_pcpu *p, __u64 now)
{
	struct btrace_entry *e = &p->cache[p->sweep++ & (BTRACE_CACHE - 1)];

	if (e->key && e->r.steps && e->r.epoch + 4 <= (__u32)(now >> BTRACE_EPOCH_SHIFT)) {
		rec_send(p, &e->r);
		e->key = 0;
	}
}

/* A request's event: its sector (none for passthrough, nor for a flush), FS or PC. */
static __always_inline __u32 rq_action(struct request *rq, bool btf, __u32 act, __u64 *sector)
{
	__u32 opf = RD(btf, rq, cmd_flags), op = opf & OP_MASK;

	*sector = RD(btf, rq, __sector);
	if (op >= OP_PC_FIRST && op <= OP_PC_LAST) {
		act |= TC_ACT(BLK_TC_PC);
		*sector = 0;
	} else {
		act |= TC_ACT(BLK_TC_FS);
	}
	if (*sector == (__u64)-1) /* blk_rq_trace_sector: a flush has none */
		*sector = 0;
	return act | categories(opf);
}

/* The facts of one event, as the handlers pass them on. */
struct event {
	__u64 now, sector;
	__u32 bytes, action, pid;
	__s32 error;
};

static __always_inline void step_ev(struct btrace_rec *r, __u32 k, const struct event *ev)
{
	step(r, k, ev->now, ev->pid, ev->sector, ev->bytes, ev->action, ev->error);
}

/*
 * A record of its own, sent now: what HELD holds for the bio or request (NULL: nothing),
 * and the event, as step K, with a payload of PDU_LEN bytes of PDU.
 */
static __always_inline void send_now(struct btrace_pcpu *p, member_t *m, struct btrace_rec *held,
				     __u32 k, const struct event *ev, const void *pdu,
				     __u32 pdu_len)
{
	struct btrace_rec *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r) {
		if (held) {
			rec_dropped(p, held);
			held->steps = 0;
		} else {
			__sync_fetch_and_add(&p->lost, 1);
		}
		return;
	}
	if (held) {
		__builtin_memcpy(r, held, sizeof(*r));
		held->steps = 0;
	} else {
		rec_begin(p, r, m, ev->now);
	}
	step_ev(r, k, ev);
	r->pdu_len = pdu_len;
	if (pdu)
		__builtin_memcpy(r->pdu, pdu, BTRACE_PDU_MAX);
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

/* The facts of a bio's event: its sector, size and flags, with ACT. */
static __always_inline void bio_ev(struct event *ev, struct btrace_pcpu *p, struct bio *bio,
				   bool btf, __u32 act, __s32 error)
{
	ev->now = bpf_ktime_get_ns();
	ev->pid = task_pid(p, btf);
	ev->sector = RD(btf, bio, bi_iter.bi_sector);
	ev->bytes = RD(btf, bio, bi_iter.bi_size);
	ev->action = act | categories(RD(btf, bio, bi_opf));
	ev->error = error;
}

/* The facts of a request's event, of BYTES. */
static __always_inline void rq_ev(struct event *ev, struct btrace_pcpu *p, struct request *rq,
				  bool btf, __u32 act, __s32 error, __u32 bytes)
{
	ev->now = bpf_ktime_get_ns();
	ev->pid = task_pid(p, btf);
	ev->action = rq_action(rq, btf, act, &ev->sector);
	ev->bytes = bytes;
	ev->error = error;
}

/* A bio's event: this CPU's state if the bio is a traced disk's (else NULL), its facts. */
static __always_inline struct btrace_pcpu *bio_begin(struct bio *bio, bool btf, __u32 act,
						     __s32 error, struct event *ev, member_t **m)
{
	struct btrace_pcpu *p;

	if (!bio)
		return NULL;
	*m = bio_member(bio, btf);
	p = *m ? my_pcpu() : NULL;
	if (p)
		bio_ev(ev, p, bio, btf, act, error);
	return p;
}

/* A request's event, of the request's bytes (WHOLE) or NR_BYTES: as bio_begin. */
static __always_inline struct btrace_pcpu *rq_begin(struct request *rq, bool btf, __u32 act,
						    __s32 error, bool whole, __u32 nr_bytes,
						    struct event *ev, member_t **m)
{
	struct btrace_pcpu *p;

	*m = rq_member(rq, btf);
	p = *m ? my_pcpu() : NULL;
	if (p)
		rq_ev(ev, p, rq, btf, act, error, whole ? RD(btf, rq, __data_len) : nr_bytes);
	return p;
}

/* The request's record from issue to completion, or NULL (no driver tag, a full table). */
static __always_inline struct btrace_rec *rq_slot(struct request *rq, member_t *m, bool btf)
{
	__u32 idx = 0, hwq = 0;

	if (!rq_slot_index(rq, m, btf, one_hwq, nr_slots, &idx, &hwq))
		return NULL;
	return bpf_map_lookup_elem(&slots, &idx);
}

/* The request's record from insert to issue, or NULL. */
static __always_inline struct btrace_rec *waiting_rq(__u64 *key)
{
	if (*(volatile __s64 *)&nr_waiting <= 0)
		return NULL;
	return bpf_map_lookup_elem(&waiting, key);
}

static __always_inline void waiting_done(__u64 *key)
{
	if (!bpf_map_delete_elem(&waiting, key))
		__sync_fetch_and_add(&nr_waiting, -1); /* result unused: no fetching atomic */
}

/* Q: a bio begins a record in the cache (a bio-based device's is sent: it ends as a bio). */
static __always_inline int on_queue(struct bio *bio, bool btf)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = bio_begin(bio, btf, ACT_QUEUE(QUEUE), 0, &ev, &m);
	if (!p)
		return 0;
	if (m->flags & BLKIO_MEMBER_BIO) {
		send_now(p, m, NULL, BTRACE_Q, &ev, NULL, 0);
		return 0;
	}
	e = cache_new(p, m, (__u64)bio, ev.now);
	step_ev(&e->r, BTRACE_Q, &ev);
	return 0;
}

/* G: the request for the bio is allocated; its record, found by the bio, or new. */
static __always_inline int on_getrq(struct bio *bio, bool btf)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = bio_begin(bio, btf, ACT_QUEUE(GETRQ), 0, &ev, &m);
	if (!p)
		return 0;
	e = cache_find(p, (__u64)bio);
	/* A G already: an entry of an earlier bio at this address, never claimed. */
	if (!e || (e->r.steps & (1 << BTRACE_G)))
		e = cache_new(p, m, (__u64)bio, ev.now);
	step_ev(&e->r, BTRACE_G, &ev);
	return 0;
}

/* M, F: the bio joins a request; its record (its Q) ends here. */
static __always_inline int on_bio_merge(struct bio *bio, bool btf, __u32 act)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = bio_begin(bio, btf, act, 0, &ev, &m);
	if (!p)
		return 0;
	e = cache_find(p, (__u64)bio);
	send_now(p, m, e ? &e->r : NULL, BTRACE_OTHER, &ev, NULL, 0);
	if (e)
		e->key = 0;
	return 0;
}

/* I: into a scheduler's (or the dispatch) queue; the record waits in `waiting`. */
static __always_inline int on_insert(struct request *rq, bool btf)
{
	__u64 key = (__u64)rq, bio;
	struct btrace_entry *e;
	struct btrace_rec *w;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = rq_begin(rq, btf, ACT_QUEUE(INSERT), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	bio = (__u64)RD(btf, rq, bio);
	e = bio ? cache_find(p, bio) : NULL;
	if (!e)
		e = cache_new(p, m, key, ev.now);
	step_ev(&e->r, BTRACE_I, &ev);
	e->key = 0;
	if (!bpf_map_update_elem(&waiting, &key, &e->r, BPF_NOEXIST)) {
		__sync_fetch_and_add(&nr_waiting, 1);
		e->r.steps = 0;
		return 0;
	}
	/* Inserted again before its issue: what it held goes first. Or the table is full. */
	w = bpf_map_lookup_elem(&waiting, &key);
	if (w) {
		rec_send(p, w);
		__builtin_memcpy(w, &e->r, sizeof(*w));
		e->r.steps = 0;
	} else {
		rec_send(p, &e->r);
	}
	return 0;
}

/* D: the record moves to the request's slot (from `waiting`, or the cache by its bio). */
static __always_inline int on_issue(struct request *rq, bool btf)
{
	struct btrace_rec *w, *src, *slot;
	struct btrace_entry *e = NULL;
	__u64 key = (__u64)rq, bio;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = rq_begin(rq, btf, __BLK_TA_ISSUE | TC_ACT(BLK_TC_ISSUE), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	w = waiting_rq(&key);
	src = w;
	if (!w) {
		bio = (__u64)RD(btf, rq, bio);
		e = bio ? cache_find(p, bio) : NULL;
		src = e ? &e->r : NULL;
	}
	slot = rq_slot(rq, m, btf);
	if (!slot) {
		send_now(p, m, src, BTRACE_D, &ev, NULL, 0);
	} else {
		if (slot->steps) /* its previous request's completion never came */
			rec_send(p, slot);
		if (src) {
			/* What comes before issue: the header, Q, G and I; D and C are to come. */
			__builtin_memcpy(slot, src, offsetof(struct btrace_rec, step[BTRACE_D]));
			src->steps = 0;
		} else {
			rec_begin(p, slot, m, ev.now);
		}
		step_ev(slot, BTRACE_D, &ev);
	}
	if (w)
		waiting_done(&key);
	if (e)
		e->key = 0;
	cache_sweep(p, ev.now);
	return 0;
}

/* C: the record is complete (a partial completion is a record of its own). */
static __always_inline int on_complete(struct request *rq, __u64 error, __u32 nr_bytes, bool btf)
{
	__s32 err = complete_status ? status_errno((__u8)error) : (__s32)error;
	__u64 key = (__u64)rq;
	struct btrace_rec *r;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = rq_begin(rq, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE), err, false, nr_bytes,
		     &ev, &m);
	if (!p)
		return 0;
	if (nr_bytes < RD(btf, rq, __data_len)) {
		send_now(p, m, NULL, BTRACE_OTHER, &ev, NULL, 0);
		return 0;
	}
	r = rq_slot(rq, m, btf);
	if (r && r->steps) {
		step_ev(r, BTRACE_C, &ev);
		rec_send(p, r);
		return 0;
	}
	/* Never issued (an empty pre-flush write), or issued before we attached. */
	r = waiting_rq(&key);
	if (r) {
		step_ev(r, BTRACE_C, &ev);
		rec_send(p, r);
		waiting_done(&key);
		return 0;
	}
	send_now(p, m, NULL, BTRACE_C, &ev, NULL, 0);
	return 0;
}

/* R: the request leaves the device, to be inserted and issued again (a new record). */
static __always_inline int on_requeue(struct request *rq, bool btf)
{
	struct btrace_rec *r;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = rq_begin(rq, btf, __BLK_TA_REQUEUE | TC_ACT(BLK_TC_REQUEUE), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	r = rq_slot(rq, m, btf);
	send_now(p, m, r && r->steps ? r : NULL, BTRACE_OTHER, &ev, NULL, 0);
	return 0;
}

/* M: a request merged into another, in the scheduler: its record ends here. */
static __always_inline int on_rq_merge(struct request *rq, bool btf)
{
	__u64 key = (__u64)rq;
	struct btrace_rec *w;
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = rq_begin(rq, btf, ACT_QUEUE(BACKMERGE), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	w = waiting_rq(&key);
	send_now(p, m, w, BTRACE_OTHER, &ev, NULL, 0);
	if (w)
		waiting_done(&key);
	return 0;
}

/* A bio's rare event, a record of its own, with a payload. */
static __always_inline int bio_rare(struct bio *bio, bool btf, __u32 act, __s32 error,
				    const void *pdu, __u32 pdu_len)
{
	struct btrace_pcpu *p;
	struct event ev;
	member_t *m;

	p = bio_begin(bio, btf, act, error, &ev, &m);
	if (!p)
		return 0;
	send_now(p, m, NULL, BTRACE_OTHER, &ev, pdu, pdu_len);
	return 0;
}

/* A bio-based device's bio completes (request-based disks complete requests). */
static __always_inline int on_bio_complete(struct bio *bio, bool btf)
{
	member_t *m = bio ? bio_member(bio, btf) : NULL;

	if (!m || !(m->flags & BLKIO_MEMBER_BIO))
		return 0;
	return bio_rare(bio, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE),
			status_errno(RD(btf, bio, bi_status)), NULL, 0);
}

/* X: the payload is where the rest of the bio starts, big-endian. */
static __always_inline int on_split(struct bio *bio, __u64 new_sector, bool btf)
{
	__u64 pdu[2] = { bpf_cpu_to_be64(new_sector), 0 };

	if (!bio)
		return 0;
	return bio_rare(bio, btf, __BLK_TA_SPLIT, status_errno(RD(btf, bio, bi_status)), pdu,
			sizeof(__u64));
}

/*
 * A: a bio remapped onto a traced disk (from a partition, or a stacked device above);
 * the payload is struct blk_io_trace_remap, big-endian. The kernel logs the raw status.
 */
static __always_inline int on_remap(struct bio *bio, __u32 dev, __u64 from, bool btf)
{
	struct {
		__u32 device_from, device_to;
		__u64 sector_from;
	} r;

	if (!bio)
		return 0;
	r.device_from = bpf_htonl(dev);
	r.device_to = bpf_htonl(bio_dev(bio, btf));
	r.sector_from = bpf_cpu_to_be64(from);
	return bio_rare(bio, btf, __BLK_TA_REMAP | TC_ACT(BLK_TC_QUEUE), RD(btf, bio, bi_status),
			&r, sizeof(r));
}

/*
 * The programs, each handler above in two flavours: tp_btf (direct loads through BTF) and
 * raw_tp (probe reads) for kernels without tp_btf; user space autoloads one set.
 */
SEC("tp_btf/block_bio_queue")
int tp_btf_queue(__u64 *ctx)
{
	return on_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), true);
}

SEC("raw_tp/block_bio_queue")
int raw_tp_queue(__u64 *ctx)
{
	return on_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), false);
}

SEC("tp_btf/block_getrq")
int tp_btf_getrq(__u64 *ctx)
{
	return on_getrq((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), true);
}

SEC("raw_tp/block_getrq")
int raw_tp_getrq(__u64 *ctx)
{
	return on_getrq((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), false);
}

SEC("tp_btf/block_rq_insert")
int tp_btf_insert(__u64 *ctx)
{
	return on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), true);
}

SEC("raw_tp/block_rq_insert")
int raw_tp_insert(__u64 *ctx)
{
	return on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), false);
}

SEC("tp_btf/block_rq_issue")
int tp_btf_issue(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), true);
}

SEC("raw_tp/block_rq_issue")
int raw_tp_issue(__u64 *ctx)
{
	return on_issue((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), false);
}

SEC("tp_btf/block_rq_complete")
int tp_btf_complete(__u64 *ctx)
{
	return on_complete((struct request *)ctx[0], ctx[1], (__u32)ctx[2], true);
}

SEC("raw_tp/block_rq_complete")
int raw_tp_complete(__u64 *ctx)
{
	return on_complete((struct request *)ctx[0], ctx[1], (__u32)ctx[2], false);
}

SEC("tp_btf/block_rq_requeue")
int tp_btf_requeue(__u64 *ctx)
{
	return on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), true);
}

SEC("raw_tp/block_rq_requeue")
int raw_tp_requeue(__u64 *ctx)
{
	return on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), false);
}

SEC("tp_btf/block_rq_merge")
int tp_btf_rq_merge(__u64 *ctx)
{
	return on_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), true);
}

SEC("raw_tp/block_rq_merge")
int raw_tp_rq_merge(__u64 *ctx)
{
	return on_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), false);
}

SEC("tp_btf/block_bio_backmerge")
int tp_btf_backmerge(__u64 *ctx)
{
	return on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), true,
			    ACT_QUEUE(BACKMERGE));
}

SEC("raw_tp/block_bio_backmerge")
int raw_tp_backmerge(__u64 *ctx)
{
	return on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), false,
			    ACT_QUEUE(BACKMERGE));
}

SEC("tp_btf/block_bio_frontmerge")
int tp_btf_frontmerge(__u64 *ctx)
{
	return on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), true,
			    ACT_QUEUE(FRONTMERGE));
}

SEC("raw_tp/block_bio_frontmerge")
int raw_tp_frontmerge(__u64 *ctx)
{
	return on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), false,
			    ACT_QUEUE(FRONTMERGE));
}

SEC("tp_btf/block_split")
int tp_btf_split(__u64 *ctx)
{
	return on_split((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0),
			ARG(ctx, BLKIO_TP_SPLIT, 2, 1), true);
}

SEC("raw_tp/block_split")
int raw_tp_split(__u64 *ctx)
{
	return on_split((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0),
			ARG(ctx, BLKIO_TP_SPLIT, 2, 1), false);
}

SEC("tp_btf/block_bio_remap")
int tp_btf_remap(__u64 *ctx)
{
	return on_remap((struct bio *)ARG(ctx, BLKIO_TP_BIO_REMAP, 1, 0),
			(__u32)ARG(ctx, BLKIO_TP_BIO_REMAP, 2, 1),
			ARG(ctx, BLKIO_TP_BIO_REMAP, 3, 2), true);
}

SEC("raw_tp/block_bio_remap")
int raw_tp_remap(__u64 *ctx)
{
	return on_remap((struct bio *)ARG(ctx, BLKIO_TP_BIO_REMAP, 1, 0),
			(__u32)ARG(ctx, BLKIO_TP_BIO_REMAP, 2, 1),
			ARG(ctx, BLKIO_TP_BIO_REMAP, 3, 2), false);
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
