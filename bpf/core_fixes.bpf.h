/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Every kernel layout difference blkio.bpf.c copes with, in one place. Each
 * flavour struct names the commit that made it necessary; when the oldest kernel
 * we support is past that commit, the flavour can go.
 *
 * Accessors take `btf`: true in tp_btf programs, where the verifier lets us load
 * kernel memory directly (cheap), false in raw_tp twins, which must go through
 * bpf_probe_read_kernel (BPF_CORE_READ). `btf` is a compile-time constant at
 * every call site, so each program keeps only one of the two paths.
 */
#ifndef BLKTRACE_BENCH_CORE_FIXES_BPF_H
#define BLKTRACE_BENCH_CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>
#include "blkio.h" /* BLKIO_DEV */

#define RD(btf, ptr, field) ((btf) ? (ptr)->field : BPF_CORE_READ((ptr), field))

/*
 * commit d152c682f03c ("block: add an explicit ->disk backpointer to the
 * request_queue") and commit f3fa33acca9f ("block: remove the ->rq_disk field in
 * struct request"), v5.17: the disk is rq->q->disk, no longer rq->rq_disk.
 */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *rq_disk(struct request *rq, bool btf)
{
	struct request___old *old = (void *)rq;
	struct request_queue *q;

	if (bpf_core_field_exists(old->rq_disk))
		return RD(btf, old, rq_disk);
	q = RD(btf, rq, q);
	return RD(btf, q, disk);
}

/*
 * commit 309dca309fc3 ("block: store a block_device pointer in struct bio"),
 * v5.12: bio->bi_disk became bio->bi_bdev->bd_disk.
 */
struct bio___old {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *bio_disk(struct bio *bio, bool btf)
{
	struct bio___old *old = (void *)bio;
	struct block_device *bdev;

	if (bpf_core_field_exists(old->bi_disk))
		return RD(btf, old, bi_disk);
	bdev = RD(btf, bio, bi_bdev);
	return RD(btf, bdev, bd_disk);
}

/*
 * The same commit: the kernel's bio_dev(), a dev_t (MAJ << 20 | MIN), was the disk's
 * (disk_devt(bio->bi_disk)) and is now the block device's, a partition's own.
 */
static __always_inline __u32 bio_dev(struct bio *bio, bool btf)
{
	struct bio___old *old = (void *)bio;
	struct block_device *bdev;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->bi_disk)) {
		disk = RD(btf, old, bi_disk);
		return BLKIO_DEV(RD(btf, disk, major), RD(btf, disk, first_minor));
	}
	bdev = RD(btf, bio, bi_bdev);
	return RD(btf, bdev, bd_dev);
}

/*
 * commit a54895fa057c ("block: remove the request_queue to argument request based
 * tracepoints") and its siblings in v5.11: the block_rq_* (but complete),
 * block_bio_*merge and block_split tracepoints lost their leading request_queue
 * argument (the bio merges also their request). Stable kernels took it piecemeal:
 * 5.10.137 changed the block_rq_* ones only, so Debian 11's 5.10 has (rq) for
 * block_rq_issue but still (q, rq, bio) for block_bio_backmerge and (q, bio, sector)
 * for block_split. User space therefore reads each tracepoint's own prototype from
 * vmlinux BTF and sets old_args[tp] when its first argument is a request_queue;
 * being const volatile, the verifier drops the other branch. A ctx index must be a
 * constant (no arithmetic on a ctx pointer), hence a branch rather than an index.
 */
#define ARG(ctx, tp, old_idx, new_idx)                                                             \
	({                                                                                         \
		__u64 __arg;                                                                       \
		if (old_args[tp])                                                                  \
			__arg = CTX_LOAD(ctx, old_idx);                                            \
		else                                                                               \
			__arg = CTX_LOAD(ctx, new_idx);                                            \
		__arg;                                                                             \
	})

/*
 * ctx[idx] as one load at a constant offset that the compiler can neither fold into
 * the other branch's nor turn into ctx + flag * 8: verifiers refuse a load through a
 * modified ctx pointer ("dereference of modified ctx ptr", v5.10).
 */
#define CTX_LOAD(ctx, idx)                                                                         \
	({                                                                                         \
		__u64 __v;                                                                         \
		asm volatile("%[v] = *(u64 *)(%[c] + %[off])"                                      \
			     : [v] "=r"(__v)                                                       \
			     : [c] "r"(ctx), [off] "i"((idx)*8));                                  \
		__v;                                                                               \
	})

/*
 * Not a layout but an instruction-set difference, kept here with the others.
 * commit 5ca419f2864a ("bpf: Add BPF_FETCH field / create atomic_fetch_add
 * instruction"), v5.12: atomics that return the old value. Older verifiers reject
 * the whole object for one such instruction in any program, dead or not ("BPF_STX
 * uses reserved fields", v5.10), so none may exist: add without fetching (the old
 * BPF_XADD encoding), then read.
 *
 * The depth is read as issued, then done: a request issued and completed on other CPUs
 * between the two reads is missing from the first and present in the second, so the
 * figure can only be low, never above what really was in flight after our increment
 * (the issuer's own request cannot complete before its issue event returns). At least 1.
 * The second load's address depends on the first's value (an added zero the compiler
 * cannot see through), so a weakly ordered CPU (arm64) cannot take it first either;
 * x86 keeps loads in order anyway.
 */
static __always_inline __s64 inflight_now(struct blkio_queue *n)
{
	__s64 issued = *(volatile __s64 *)&n->issued, depth;
	__u64 dep = (__u64)issued;

	asm volatile("%[d] &= 0" : [d] "+r"(dep));
	depth = issued - *(volatile __s64 *)((char *)&n->done + dep);
	return depth > 0 ? depth : 1;
}

static __always_inline void inflight_issue(struct blkio_queue *n)
{
	__sync_fetch_and_add(&n->issued, 1); /* result unused: BPF_XADD */
}

static __always_inline __s64 inflight_inc(struct blkio_queue *n)
{
	inflight_issue(n);
	return inflight_now(n);
}

static __always_inline void inflight_dec(struct blkio_queue *n)
{
	__sync_fetch_and_add(&n->done, 1);
}

/*
 * v5.11 added bpf_get_current_task_btf ("bpf: Add bpf_get_current_task_btf helper"): the
 * current task as a BTF pointer, whose ids and name are direct loads. Before, two helpers
 * (pid_tgid and comm): ~80 ns more here, where every helper's return pays the SRSO
 * "Safe RET" thunk. BTF pointers are read directly in tp_btf programs only (btf), so
 * the raw_tp twins keep the helpers. Returns what bpf_get_current_pid_tgid does, the
 * process (tgid) above the thread; its name into COMM, TASK_COMM_LEN (16) bytes.
 */
static __always_inline __u64 current_task(bool btf, char comm[16])
{
	if (btf && bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		struct task_struct *t = bpf_get_current_task_btf();

		__builtin_memcpy(comm, t->comm, 16);
		return (__u64)t->tgid << 32 | (__u32)t->pid;
	}
	bpf_get_current_comm(comm, 16);
	return bpf_get_current_pid_tgid();
}

/*
 * Older verifiers (v5.10, v6.1) lose an index's bounds when the compiler, having
 * proved the index in range, drops the check and reuses a register copy the
 * verifier never saw checked ("R3 max value is outside of the allowed memory
 * range"). Hiding the value from the compiler forces the bound check to be emitted
 * on the very register that indexes the map value. Use it right where an index is
 * used.
 */
#define BOUNDED(var) asm volatile("" : "+r"(var))

#endif /* BLKTRACE_BENCH_CORE_FIXES_BPF_H */
