// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The events of the traced disks as the kernel's blktrace (kernel/trace/blktrace.c) logs
 * them: Q (bio queued), G (request allocated), I (inserted), D (issued), C (completed, a
 * request; or a bio no request took: a bio-based device's, or one that failed early), M and F (a
 * bio merged at the back or front; M also for a request merged into another), X (split), R
 * (requeued) and A (remapped from the device above). User space (src/blktrace/btrace_out.c) writes
 * blktrace's files from them, each event in its CPU's file in time order.
 *
 * One record per request, not per event: a request's Q, G, I, D and C travel in one
 * struct btrace_rec, sent to the ring buffer when it completes (blktrace_rec.bpf.h says
 * where it waits until then). The programs here log Q, G, I and the rare events
 * (merges, splits, remaps, requeues: records of their own, carrying what was held for
 * the bio or request they end); D and C are logged by the aggregate's own issue and
 * completion programs (blkio.bpf.c), loaded for --blktrace, which read the clock anyway.
 * What is still held when the programs detach, user space reads from the maps.
 *
 * The task of each event is named once per CPU and pid in a while (a direct-mapped
 * cache), by a small record of its own before any record that uses it. Each record is
 * counted in its first event's epoch (blktrace.h), so that the writer knows when no
 * record still to come holds an earlier event.
 *
 * Loaded beside blkio.bpf.c only with --blktrace: the aggregate's hot path without it
 * stays as it is. The disk filter is the same (members.bpf.h) and comes first in every program.
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
#include "blkio.h"
#include "core_fixes.bpf.h"
#include "members.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load; frozen, so the verifier prunes by them. */
/* Per enum blkio_tp: the tracepoint takes a leading request_queue (before v5.11). */
const volatile bool old_args[BLKIO_NR_TPS] = {};

/* Set by the loader, as the aggregate's (blkio.bpf.c): the slot table's geometry. */
const volatile bool one_hwq = false;
const volatile __u32 nr_slots = 1;

#include "blktrace_rec.bpf.h"

/* Q: a bio begins a record in the cache (a bio-based device's is sent: it ends as a bio). */
static __always_inline int on_queue(struct bio *bio, bool btf)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = bio_begin(bio, btf, ACT_QUEUE(QUEUE), 0, &ev, &m);
	if (!p)
		return 0;
	if (m->flags & BLKIO_MEMBER_BIO) {
		send_now(p, m, NULL, BTRACE_Q, &ev, NULL, 0);
		return 1;
	}
	e = cache_new(p, m, (__u64)bio, ev.now);
	step_ev(&e->r, BTRACE_Q, &ev);
	return 1;
}

/* G: the request for the bio is allocated; its record, found by the bio, or new. */
static __always_inline int on_getrq(struct bio *bio, bool btf)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = bio_begin(bio, btf, ACT_QUEUE(GETRQ), 0, &ev, &m);
	if (!p)
		return 0;
	e = cache_find(p, (__u64)bio);
	/* A G already: an entry of an earlier bio at this address, never claimed. */
	if (!e || (e->r.steps & (1 << BTRACE_G)))
		e = cache_new(p, m, (__u64)bio, ev.now);
	step_ev(&e->r, BTRACE_G, &ev);
	return 1;
}

/* M, F: the bio joins a request; its record (its Q) ends here. */
static __always_inline int on_bio_merge(struct bio *bio, bool btf, __u32 act)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = bio_begin(bio, btf, act, 0, &ev, &m);
	if (!p)
		return 0;
	e = cache_find(p, (__u64)bio);
	send_now(p, m, e ? &e->r : NULL, BTRACE_OTHER, &ev, NULL, 0);
	if (e)
		e->key = 0;
	return 1;
}

/* I: into a scheduler's (or the dispatch) queue; the record waits in `waiting`. */
static __always_inline int on_insert(struct request *rq, bool btf)
{
	__u64 key = (__u64)rq, bio;
	struct btrace_entry *e;
	struct btrace_rec *w;
	struct btrace_pcpu *p;
	struct bt_event ev;
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
	if (!bpf_map_update_elem(&bt_waiting, &key, &e->r, BPF_NOEXIST)) {
		waiting_add(1);
		e->r.steps = 0;
		return 1;
	}
	/* Inserted again before its issue: what it held goes first. Or the table is full. */
	w = bpf_map_lookup_elem(&bt_waiting, &key);
	if (w) {
		rec_send(p, w);
		__builtin_memcpy(w, &e->r, sizeof(*w));
		e->r.steps = 0;
	} else {
		rec_send(p, &e->r);
	}
	return 1;
}

/* R: the request leaves the device, to be inserted and issued again (a new record). */
static __always_inline int on_requeue(struct request *rq, bool btf)
{
	struct btrace_rec *r;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = rq_begin(rq, btf, __BLK_TA_REQUEUE | TC_ACT(BLK_TC_REQUEUE), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	r = bt_slot_of(rq, m, btf);
	send_now(p, m, r && r->steps ? r : NULL, BTRACE_OTHER, &ev, NULL, 0);
	return 1;
}

/* M: a request merged into another, in the scheduler: its record ends here. */
static __always_inline int on_rq_merge(struct request *rq, bool btf)
{
	__u64 key = (__u64)rq;
	struct btrace_rec *w;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = rq_begin(rq, btf, ACT_QUEUE(BACKMERGE), 0, true, 0, &ev, &m);
	if (!p)
		return 0;
	w = waiting_rq(&key);
	send_now(p, m, w, BTRACE_OTHER, &ev, NULL, 0);
	if (w)
		waiting_done(&key);
	return 1;
}

/* A bio's rare event, a record of its own, with a payload. */
static __always_inline int bio_rare(struct bio *bio, bool btf, __u32 act, __s32 error,
				    const void *pdu, __u32 pdu_len)
{
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = bio_begin(bio, btf, act, error, &ev, &m);
	if (!p)
		return 0;
	send_now(p, m, NULL, BTRACE_OTHER, &ev, pdu, pdu_len);
	return 1;
}

/* A bio-based device's bio completes (request-based disks complete requests). */
static __always_inline int on_bio_complete(struct bio *bio, bool btf)
{
	struct btrace_entry *e;
	struct btrace_pcpu *p;
	struct bt_event ev;
	member_t *m;

	p = bio_begin(bio, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE),
		      status_errno(RD(btf, bio, bi_status)), &ev, &m);
	if (!p)
		return 0;
	/*
	 * A request-based disk's bio ends here only if no request took it (the kernel
	 * stops tracing a bio's completion once a request holds it): it failed early
	 * (REQ_NOWAIT and no tag free, say). Its Q waits in the cache, if on this CPU.
	 */
	e = m->flags & BLKIO_MEMBER_BIO ? NULL : cache_find(p, (__u64)bio);
	send_now(p, m, e ? &e->r : NULL, BTRACE_C, &ev, NULL, 0);
	if (e)
		e->key = 0;
	return 1;
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
 * raw_tp (probe reads) for kernels without tp_btf; user space autoloads one set. A
 * handler returns 1 where it entered (bio_begin, rq_begin: a traced disk's event), and
 * the program then leaves (bt_leave), its records counted.
 */
SEC("tp_btf/block_bio_queue")
int tp_btf_queue(__u64 *ctx)
{
	if (on_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_bio_queue")
int raw_tp_queue(__u64 *ctx)
{
	if (on_queue((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_getrq")
int tp_btf_getrq(__u64 *ctx)
{
	if (on_getrq((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_getrq")
int raw_tp_getrq(__u64 *ctx)
{
	if (on_getrq((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_rq_insert")
int tp_btf_insert(__u64 *ctx)
{
	if (on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_rq_insert")
int raw_tp_insert(__u64 *ctx)
{
	if (on_insert((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int tp_btf_requeue(__u64 *ctx)
{
	if (on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_rq_requeue")
int raw_tp_requeue(__u64 *ctx)
{
	if (on_requeue((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_rq_merge")
int tp_btf_rq_merge(__u64 *ctx)
{
	if (on_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_rq_merge")
int raw_tp_rq_merge(__u64 *ctx)
{
	if (on_rq_merge((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_bio_backmerge")
int tp_btf_backmerge(__u64 *ctx)
{
	if (on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), true,
			 ACT_QUEUE(BACKMERGE)))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_bio_backmerge")
int raw_tp_backmerge(__u64 *ctx)
{
	if (on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), false,
			 ACT_QUEUE(BACKMERGE)))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int tp_btf_frontmerge(__u64 *ctx)
{
	if (on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), true,
			 ACT_QUEUE(FRONTMERGE)))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_bio_frontmerge")
int raw_tp_frontmerge(__u64 *ctx)
{
	if (on_bio_merge((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), false,
			 ACT_QUEUE(FRONTMERGE)))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_split")
int tp_btf_split(__u64 *ctx)
{
	if (on_split((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0), ARG(ctx, BLKIO_TP_SPLIT, 2, 1),
		     true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_split")
int raw_tp_split(__u64 *ctx)
{
	if (on_split((struct bio *)ARG(ctx, BLKIO_TP_SPLIT, 1, 0), ARG(ctx, BLKIO_TP_SPLIT, 2, 1),
		     false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_bio_remap")
int tp_btf_remap(__u64 *ctx)
{
	if (on_remap((struct bio *)ARG(ctx, BLKIO_TP_BIO_REMAP, 1, 0),
		     (__u32)ARG(ctx, BLKIO_TP_BIO_REMAP, 2, 1), ARG(ctx, BLKIO_TP_BIO_REMAP, 3, 2),
		     true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_bio_remap")
int raw_tp_remap(__u64 *ctx)
{
	if (on_remap((struct bio *)ARG(ctx, BLKIO_TP_BIO_REMAP, 1, 0),
		     (__u32)ARG(ctx, BLKIO_TP_BIO_REMAP, 2, 1), ARG(ctx, BLKIO_TP_BIO_REMAP, 3, 2),
		     false))
		bt_leave(my_pcpu());
	return 0;
}

SEC("tp_btf/block_bio_complete")
int tp_btf_bio_complete(__u64 *ctx)
{
	if (on_bio_complete((struct bio *)ctx[1], true))
		bt_leave(my_pcpu());
	return 0;
}

SEC("raw_tp/block_bio_complete")
int raw_tp_bio_complete(__u64 *ctx)
{
	if (on_bio_complete((struct bio *)ctx[1], false))
		bt_leave(my_pcpu());
	return 0;
}
