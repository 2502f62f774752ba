// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Per-event records of the traced disks, as the kernel's blktrace (kernel/trace/
 * blktrace.c) logs them: Q (bio queued), G (request allocated), I (inserted), D
 * (issued), C (completed, a request; or a bio of a bio-based device), M and F (a bio
 * merged at the back or front; M also for a request merged into another), X (split),
 * R (requeued) and A (remapped from the device above). Each record goes through a ring
 * buffer to user space (src/trace/btrace.c), which writes blktrace's files.
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

/* The loader sizes it. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} events SEC(".maps");

/* Records the ring buffer had no room for, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

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

/* One record to the ring buffer; counted in `lost` when it has no room. */
static __always_inline int emit(member_t *m, bool btf, __u64 sector, __u32 bytes, __u32 action,
				__s32 error, const void *pdu, __u32 pdu_len)
{
	__u64 now = bpf_ktime_get_ns(), *n;
	struct btrace_event *e;
	__u32 zero = 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		n = bpf_map_lookup_elem(&lost, &zero);
		/*
		 * Atomic (no fetch: core_fixes.bpf.h): a completion's program in an interrupt
		 * may count on this CPU between a ++'s load and its store, and one is gone.
		 */
		if (n)
			__sync_fetch_and_add(n, 1);
		return 0;
	}
	e->time = now;
	e->sector = sector;
	e->bytes = bytes;
	e->action = action;
	e->pid = (__u32)current_task(btf, e->comm); /* the thread, as blktrace logs it */
	e->device = m->device;
	e->cpu = bpf_get_smp_processor_id();
	e->error = (__u16)error;
	e->pdu_len = pdu_len;
	if (pdu)
		__builtin_memcpy(e->pdu, pdu, BTRACE_PDU_MAX);
	else
		__builtin_memset(e->pdu, 0, BTRACE_PDU_MAX);
	/* No wakeup per record: the drain thread polls on a timer (src/trace/ringbuf_drain.c). */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

/* blk_add_trace_bio: a bio's sector, size and flags, with ACT, ERROR and a payload. */
static __always_inline int bio_emit(member_t *m, struct bio *bio, bool btf, __u32 act, __s32 error,
				    const void *pdu, __u32 pdu_len)
{
	return emit(m, btf, RD(btf, bio, bi_iter.bi_sector), RD(btf, bio, bi_iter.bi_size),
		    act | categories(RD(btf, bio, bi_opf)), error, pdu, pdu_len);
}

static __always_inline int bio_event(struct bio *bio, bool btf, __u32 act, __s32 error)
{
	member_t *m;

	if (!bio)
		return 0;
	m = bio_member(bio, btf);
	if (!m)
		return 0;
	return bio_emit(m, bio, btf, act, error, NULL, 0);
}

/* blk_add_trace_rq: the request's sector (none for passthrough), bytes, FS or PC. */
static __always_inline int rq_event(struct request *rq, bool btf, __u32 act, __s32 error,
				    __u32 bytes)
{
	member_t *m = rq_member(rq, btf);
	__u32 opf, op;
	__u64 sector;

	if (!m)
		return 0;
	opf = RD(btf, rq, cmd_flags);
	op = opf & OP_MASK;
	sector = RD(btf, rq, __sector);
	if (op >= OP_PC_FIRST && op <= OP_PC_LAST) {
		act |= TC_ACT(BLK_TC_PC);
		sector = 0;
	} else {
		act |= TC_ACT(BLK_TC_FS);
	}
	if (sector == (__u64)-1) /* blk_rq_trace_sector: a flush has none */
		sector = 0;
	return emit(m, btf, sector, bytes, act | categories(opf), error, NULL, 0);
}

static __always_inline int rq_whole(struct request *rq, bool btf, __u32 act)
{
	return rq_event(rq, btf, act, 0, RD(btf, rq, __data_len));
}

/* A bio-based device's bio completes (request-based disks complete requests). */
static __always_inline int on_bio_complete(struct bio *bio, bool btf)
{
	member_t *m = bio_member(bio, btf);

	if (!m || !(m->flags & BLKIO_MEMBER_BIO))
		return 0;
	return bio_emit(m, bio, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE),
			status_errno(RD(btf, bio, bi_status)), NULL, 0);
}

/* X: the payload is where the rest of the bio starts, big-endian. */
static __always_inline int on_split(struct bio *bio, __u64 new_sector, bool btf)
{
	__u64 pdu[2] = { bpf_cpu_to_be64(new_sector), 0 };
	member_t *m = bio_member(bio, btf);

	if (!m)
		return 0;
	return bio_emit(m, bio, btf, __BLK_TA_SPLIT, status_errno(RD(btf, bio, bi_status)), pdu,
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
	member_t *m = bio_member(bio, btf);

	if (!m)
		return 0;
	r.device_from = bpf_htonl(dev);
	r.device_to = bpf_htonl(bio_dev(bio, btf));
	r.sector_from = bpf_cpu_to_be64(from);
	return bio_emit(m, bio, btf, __BLK_TA_REMAP | TC_ACT(BLK_TC_QUEUE), RD(btf, bio, bi_status),
			&r, sizeof(r));
}

static __always_inline int on_complete(struct request *rq, __u64 error, __u32 nr_bytes, bool btf)
{
	__s32 err = complete_status ? status_errno((__u8)error) : (__s32)error;

	return rq_event(rq, btf, __BLK_TA_COMPLETE | TC_ACT(BLK_TC_COMPLETE), err, nr_bytes);
}

#define ACT_QUEUE(a) (__BLK_TA_##a | TC_ACT(BLK_TC_QUEUE))

/*
 * The programs, each handler above in two flavours: tp_btf (direct loads through BTF) and
 * raw_tp (probe reads) for kernels without tp_btf; user space autoloads one set.
 */
SEC("tp_btf/block_bio_queue")
int tp_btf_queue(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), true, ACT_QUEUE(QUEUE),
			 0);
}

SEC("raw_tp/block_bio_queue")
int raw_tp_queue(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_QUEUE, 1, 0), false, ACT_QUEUE(QUEUE),
			 0);
}

SEC("tp_btf/block_getrq")
int tp_btf_getrq(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), true, ACT_QUEUE(GETRQ), 0);
}

SEC("raw_tp/block_getrq")
int raw_tp_getrq(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_GETRQ, 1, 0), false, ACT_QUEUE(GETRQ), 0);
}

SEC("tp_btf/block_rq_insert")
int tp_btf_insert(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), true,
			ACT_QUEUE(INSERT));
}

SEC("raw_tp/block_rq_insert")
int raw_tp_insert(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_INSERT, 1, 0), false,
			ACT_QUEUE(INSERT));
}

SEC("tp_btf/block_rq_issue")
int tp_btf_issue(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), true,
			__BLK_TA_ISSUE | TC_ACT(BLK_TC_ISSUE));
}

SEC("raw_tp/block_rq_issue")
int raw_tp_issue(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_ISSUE, 1, 0), false,
			__BLK_TA_ISSUE | TC_ACT(BLK_TC_ISSUE));
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
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), true,
			__BLK_TA_REQUEUE | TC_ACT(BLK_TC_REQUEUE));
}

SEC("raw_tp/block_rq_requeue")
int raw_tp_requeue(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_REQUEUE, 1, 0), false,
			__BLK_TA_REQUEUE | TC_ACT(BLK_TC_REQUEUE));
}

SEC("tp_btf/block_rq_merge")
int tp_btf_rq_merge(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), true,
			ACT_QUEUE(BACKMERGE));
}

SEC("raw_tp/block_rq_merge")
int raw_tp_rq_merge(__u64 *ctx)
{
	return rq_whole((struct request *)ARG(ctx, BLKIO_TP_RQ_MERGE, 1, 0), false,
			ACT_QUEUE(BACKMERGE));
}

SEC("tp_btf/block_bio_backmerge")
int tp_btf_backmerge(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), true,
			 ACT_QUEUE(BACKMERGE), 0);
}

SEC("raw_tp/block_bio_backmerge")
int raw_tp_backmerge(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_BACKMERGE, 2, 0), false,
			 ACT_QUEUE(BACKMERGE), 0);
}

SEC("tp_btf/block_bio_frontmerge")
int tp_btf_frontmerge(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), true,
			 ACT_QUEUE(FRONTMERGE), 0);
}

SEC("raw_tp/block_bio_frontmerge")
int raw_tp_frontmerge(__u64 *ctx)
{
	return bio_event((struct bio *)ARG(ctx, BLKIO_TP_BIO_FRONTMERGE, 2, 0), false,
			 ACT_QUEUE(FRONTMERGE), 0);
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
