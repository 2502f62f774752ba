/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The records of --blktrace (blktrace.h), shared by both BPF objects: blktrace.bpf.c
 * logs a request's Q, G, I and the rare events from programs of its own; the aggregate
 * (blkio.bpf.c), whose issue and completion programs run anyway and read the clock,
 * logs D and C (bt_issue, bt_complete) when loaded for --blktrace, so that a request
 * costs two program runs less. The maps are the aggregate's, reused by blktrace.bpf.c's
 * loader (src/trace/btrace.c); the including object defines `one_hwq` and `nr_slots`
 * (the slot table's geometry, the aggregate's) before it includes this.
 *
 * A record waits where the request is: Q and G (no request yet, no tag) in a per-CPU
 * cache by bio, found again by the request's first bio at insert or issue; from insert
 * to issue (a scheduler's queue, maybe issued by another CPU) in bt_waiting, by the
 * request's address; from issue to completion in bt_slots, by (hardware queue, driver
 * tag) as the aggregate's slots. A record that cannot wait (the cache full, a slot
 * taken) is sent as it is: every event is sent once, in one record or another.
 */
#ifndef BLKTRACE_BENCH_BLKTRACE_REC_BPF_H
#define BLKTRACE_BENCH_BLKTRACE_REC_BPF_H

#include <bpf/bpf_endian.h>
#include "blktrace.h"
#include "core_fixes.bpf.h"
#include "members.bpf.h"

/*
 * block_rq_complete passes a blk_status_t, not the errno of older kernels (v5.10's):
 * the loader reads which from its BTF prototype.
 */
const volatile bool bt_complete_status = false;

/* The loader sizes it, from the rate it must hold between two drains. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} bt_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct btrace_pcpu);
} bt_pcpu SEC(".maps");

/* A request's record from issue to completion; the loader sizes it (nr_slots). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct btrace_rec);
} bt_slots SEC(".maps");

/* A request's record from insert to issue, by its address; the loader sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct btrace_rec);
} bt_waiting SEC(".maps");

/* enum btrace_state (blktrace.h). */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, BT_NR_STATE);
	__type(key, __u32);
	__type(value, __s64);
} bt_state SEC(".maps");

static __always_inline __s64 *bt_state_of(__u32 k)
{
	return bpf_map_lookup_elem(&bt_state, &k);
}

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

	return bpf_map_lookup_elem(&bt_pcpu, &zero);
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
	/*
	 * Two ways a set, the newest first: a request's submitter and its completer (a loop
	 * worker, an interrupted task) whose pids share a set would otherwise take turns,
	 * a note at each event (seen: 0.8 lost notes a request, the ring buffer full).
	 */
	i = (pid & (BTRACE_PIDS / 2 - 1)) * 2; /* the verifier sees 0..BTRACE_PIDS - 2 */
	if (p->pids[i] == pid + 1 || p->pids[i + 1] == pid + 1)
		return pid;
	/* Cached even when its note is lost (counted once, not at every event of a full ring). */
	p->pids[i + 1] = p->pids[i];
	p->pids[i] = pid + 1;
	n = bpf_ringbuf_reserve(&bt_events, sizeof(*n), 0);
	if (!n) {
		__sync_fetch_and_add(&p->notes_lost, 1);
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

/*
 * A program that may begin a record says so on its CPU before it reads the clock for it
 * (bt_enter), and again once it is done (bt_leave). Its record is counted in its epoch
 * after the clock read, and its CPU can be held up in between for however long (an
 * interrupt's work, a vCPU the host does not run); the writer (src/blktrace/btrace_out.c)
 * therefore judges an epoch only once it has seen each CPU with no program in between
 * (busy 0) after the epoch ended.
 *
 * Plain adds, not atomic ones (which cost ~50-100 ns per program here, measured): the
 * tracepoints run our programs with preemption off, so on a CPU they nest only as an
 * interrupt's inside another's, and a nested one puts busy back as it found it before
 * the one it interrupted resumes (a ++ interrupted between its load and its store loses
 * nothing). Volatile, so that the compiler keeps each add where it is written. On a
 * kernel that runs them preemptibly (PREEMPT_RT), a program preempted in the middle of
 * an add by another of ours on its CPU could leave busy off by one for good: too high,
 * and the CPU never reads as idle (the writer holds epochs its longest, QUIET_LAG_MAX);
 * too low, and a program between its clock and its count can read as idle, so that its
 * record may be written late, counted, as before these counts.
 */
static __always_inline void bt_enter(struct btrace_pcpu *p)
{
	*(volatile __s64 *)&p->busy += 1;
}

static __always_inline void bt_leave(struct btrace_pcpu *p)
{
	if (p)
		*(volatile __s64 *)&p->busy -= 1;
}

/*
 * Tests only (BLKTRACE_BENCH_STALL_RECORDS): about one record in bt_stall_every stalls
 * up to ~6 ms between its clock read and its count, as a preempted program would. Without
 * bpf_loop, which older kernels lack: the verifier follows a loop's every turn, and
 * takes 8192 jumps at most, so each turn reads the clock 32 times. When the loader leaves
 * bt_stall_every 0, the verifier never looks at it.
 */
const volatile __u32 bt_stall_every = 0;

static __always_inline void stall(__u64 from)
{
	__u64 t = from;
	__u32 i, k;

	for (i = 0; i < 3000 && t - from < 6000000; i++) {
#pragma unroll
		for (k = 0; k < 32; k++)
			t = bpf_ktime_get_ns();
	}
}

/* A new record of member M, counted in the epoch of its first event (at NOW). */
static __always_inline void rec_begin(struct btrace_pcpu *p, struct btrace_rec *r, member_t *m,
				      __u64 now)
{
	__u32 epoch = now >> BTRACE_EPOCH_SHIFT, i = epoch & (BTRACE_EPOCHS - 1);

	if (bt_stall_every && bpf_get_prandom_u32() % bt_stall_every == 0)
		stall(now);

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

/*
 * A record the ring buffer had no room for: its events (and MORE, not in it yet) are
 * lost, and its epoch told so.
 */
static __always_inline void rec_dropped(struct btrace_pcpu *p, const struct btrace_rec *r,
					__u32 more)
{
	__u32 i = r->epoch & (BTRACE_EPOCHS - 1);

	__sync_fetch_and_add(&p->lost, __builtin_popcount(r->steps) + more);
	BOUNDED(i);
	if (i < BTRACE_EPOCHS)
		__sync_fetch_and_add(&p->dropped[i], 1);
}

/* A held record to user space, as it is; its place is free again. */
static __always_inline void rec_send(struct btrace_pcpu *p, struct btrace_rec *r)
{
	/* No wakeup per record: the drain thread polls on a timer (src/trace/ringbuf_drain.c). */
	/* Without the other event (most records), without its step and payload: 184 bytes. */
	long err = r->steps & (1 << BTRACE_OTHER)
			   ? bpf_ringbuf_output(&bt_events, r, sizeof(*r), BPF_RB_NO_WAKEUP)
			   : bpf_ringbuf_output(&bt_events, r, BTRACE_REC_SHORT, BPF_RB_NO_WAKEUP);

	if (err)
		rec_dropped(p, r, 0);
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
struct bt_event {
	__u64 now, sector;
	__u32 bytes, action, pid;
	__s32 error;
};

static __always_inline void step_ev(struct btrace_rec *r, __u32 k, const struct bt_event *ev)
{
	step(r, k, ev->now, ev->pid, ev->sector, ev->bytes, ev->action, ev->error);
}

/*
 * A record that begins in the aggregate's issue or completion program (bt_issue,
 * bt_complete: rare, a request whose earlier events we did not see), whose clock was
 * read before it could enter: entered, and the event's time read again. The common
 * path of those programs, which adds to a record begun earlier, needs neither.
 */
static __always_inline void bt_enter_late(struct btrace_pcpu *p, struct bt_event *ev)
{
	bt_enter(p);
	ev->now = bpf_ktime_get_ns();
}

/*
 * A record of its own, sent now: what HELD holds for the bio or request (NULL: nothing),
 * and the event, as step K, with a payload of PDU_LEN bytes of PDU.
 */
static __always_inline void send_now(struct btrace_pcpu *p, member_t *m, struct btrace_rec *held,
				     __u32 k, const struct bt_event *ev, const void *pdu,
				     __u32 pdu_len)
{
	struct btrace_rec *r = bpf_ringbuf_reserve(&bt_events, sizeof(*r), 0);

	if (!r) {
		if (held) {
			rec_dropped(p, held, 1);
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
static __always_inline void bio_ev(struct bt_event *ev, struct btrace_pcpu *p, struct bio *bio,
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
static __always_inline void rq_ev(struct bt_event *ev, struct btrace_pcpu *p, struct request *rq,
				  bool btf, __u32 act, __s32 error, __u32 bytes, __u64 now)
{
	ev->now = now;
	ev->pid = task_pid(p, btf);
	ev->action = rq_action(rq, btf, act, &ev->sector);
	ev->bytes = bytes;
	ev->error = error;
}

/*
 * A bio's event: this CPU's state if the bio is a traced disk's (else NULL), its facts.
 * Not NULL: the program has entered (bt_enter) and must leave.
 */
static __always_inline struct btrace_pcpu *bio_begin(struct bio *bio, bool btf, __u32 act,
						     __s32 error, struct bt_event *ev, member_t **m)
{
	struct btrace_pcpu *p;

	if (!bio)
		return NULL;
	*m = bio_member(bio, btf);
	p = *m ? my_pcpu() : NULL;
	if (p) {
		bt_enter(p);
		bio_ev(ev, p, bio, btf, act, error);
	}
	return p;
}

/* A request's event, of the request's bytes (WHOLE) or NR_BYTES: as bio_begin, entered. */
static __always_inline struct btrace_pcpu *rq_begin(struct request *rq, bool btf, __u32 act,
						    __s32 error, bool whole, __u32 nr_bytes,
						    struct bt_event *ev, member_t **m)
{
	struct btrace_pcpu *p;

	*m = rq_member(rq, btf);
	p = *m ? my_pcpu() : NULL;
	if (p) {
		bt_enter(p);
		rq_ev(ev, p, rq, btf, act, error, whole ? RD(btf, rq, __data_len) : nr_bytes,
		      bpf_ktime_get_ns());
	}
	return p;
}

/* The request's record from issue to completion, or NULL (no driver tag, a full table). */
static __always_inline struct btrace_rec *bt_slot_of(struct request *rq, member_t *m, bool btf)
{
	__u32 idx = 0, hwq = 0;

	if (!rq_slot_index(rq, m, btf, one_hwq, nr_slots, &idx, &hwq))
		return NULL;
	return bpf_map_lookup_elem(&bt_slots, &idx);
}

/* The request's record from insert to issue, or NULL. */
static __always_inline struct btrace_rec *waiting_rq(__u64 *key)
{
	__s64 *n = bt_state_of(BT_WAITING);

	if (!n || *(volatile __s64 *)n <= 0)
		return NULL;
	return bpf_map_lookup_elem(&bt_waiting, key);
}

static __always_inline void waiting_add(__s64 d)
{
	__s64 *n = bt_state_of(BT_WAITING);

	if (n)
		__sync_fetch_and_add(n, d); /* result unused: no fetching atomic */
}

static __always_inline void waiting_done(__u64 *key)
{
	if (!bpf_map_delete_elem(&bt_waiting, key))
		waiting_add(-1);
}

/*
 * D, from the aggregate's issue program (blkio.bpf.c), which has read the clock (NOW) and
 * found the member (M): the record moves to the request's slot (from bt_waiting, or the
 * cache by the request's first bio), or begins there.
 */
static __always_inline void bt_issue(struct request *rq, member_t *m, bool btf, __u64 now)
{
	struct btrace_rec *w, *src, *slot;
	struct btrace_entry *e = NULL;
	__u64 key = (__u64)rq, bio;
	__s64 *on = bt_state_of(BT_ON);
	struct btrace_pcpu *p;
	struct bt_event ev;

	p = on && *on ? my_pcpu() : NULL;
	if (!p)
		return;
	rq_ev(&ev, p, rq, btf, __BLK_TA_ISSUE | TC_ACT(BLK_TC_ISSUE), 0, RD(btf, rq, __data_len),
	      now);
	w = waiting_rq(&key);
	src = w;
	if (!w) {
		bio = (__u64)RD(btf, rq, bio);
		e = bio ? cache_find(p, bio) : NULL;
		src = e ? &e->r : NULL;
	}
	if (!src)
		bt_enter_late(p, &ev);
	slot = bt_slot_of(rq, m, btf);
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
	if (!src)
		bt_leave(p);
}

/*
 * C, from the aggregate's completion program, as bt_issue: the record is complete and
 * goes to user space (a partial completion is a record of its own). ERROR as the
 * tracepoint passes it.
 */
static __always_inline void bt_complete(struct request *rq, member_t *m, bool btf, __u64 error,
					__u32 nr_bytes, __u64 now)
{
	__s32 err = bt_complete_status ? status_errno((__u8)error) : (__s32)error;
	__s64 *on = bt_state_of(BT_ON);
	__u64 key = (__u64)rq;
	struct btrace_rec *r;
	struct btrace_pcpu *p;
	struct bt_event ev;

	p = on && *on ? my_pcpu() : NULL;
	if (!p)
		return;
	rq_ev(&ev, p, rq, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE), err, nr_bytes, now);
	if (nr_bytes < RD(btf, rq, __data_len)) {
		bt_enter_late(p, &ev);
		send_now(p, m, NULL, BTRACE_OTHER, &ev, NULL, 0);
		bt_leave(p);
		return;
	}
	r = bt_slot_of(rq, m, btf);
	if (r && r->steps) {
		step_ev(r, BTRACE_C, &ev);
		rec_send(p, r);
		return;
	}
	/* Never issued (an empty pre-flush write), or issued before we attached. */
	r = waiting_rq(&key);
	if (r) {
		step_ev(r, BTRACE_C, &ev);
		rec_send(p, r);
		waiting_done(&key);
		return;
	}
	bt_enter_late(p, &ev);
	send_now(p, m, NULL, BTRACE_C, &ev, NULL, 0);
	bt_leave(p);
}

#endif /* BLKTRACE_BENCH_BLKTRACE_REC_BPF_H */
