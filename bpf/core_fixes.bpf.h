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
 * commit a54895fa057c ("block: remove the request_queue to argument request based
 * tracepoints") and its siblings in v5.11 (backported to 5.10.137): the block_rq_*
 * (but complete), block_bio_*merge and block_split tracepoints lost their leading
 * request_queue argument (the bio merges also their request). User space reads
 * block_rq_issue's prototype from vmlinux BTF and sets old_args when the (q, rq)
 * form is there; being const volatile, the verifier drops the other branch.
 * ARG(ctx, old, new) picks the argument index by the kernel's form.
 */
#define ARG(ctx, old_idx, new_idx) ((old_args) ? (ctx)[old_idx] : (ctx)[new_idx])

#endif /* BLKTRACE_BENCH_CORE_FIXES_BPF_H */
