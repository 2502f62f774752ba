/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * blktrace events, in time order, to the block statistics the aggregate tracer keeps
 * (struct block_stats): what import reports. Requests are counted at issue (D) with
 * their size, the queue depth (requests issued and not completed, this one included)
 * and Q2D; completions (C) pair with their issue by device, sector and direction, and
 * give D2C and Q2C (Q: the bio that became the request, G pairing it with its Q; a split
 * remainder keeps its bio's Q). Partial completions advance the request. Bios merged
 * into a request (M, F) are merges; an M at the start of a request still waiting is that
 * request merged into another (block_rq_merge). R returns a request to the queue. A
 * device with no D at all is bio-based (dm, md): its bios are counted from Q to C, as
 * the aggregate tracer counts them. blktrace has no segment counts: those stay empty.
 */
#ifndef BLKTRACE_BENCH_BTRACE_STATS_H
#define BLKTRACE_BENCH_BTRACE_STATS_H

#include <stdbool.h>
#include "blktrace/btrace_read.h"
#include "result/run.h"

/*
 * The bios and requests held at once, waiting for their next event (about 130 bytes
 * each: 1 Mi of them, 130 MiB). Real disks have some thousands in flight; more are a
 * trace that lost its completions, or no trace of a disk, and are refused rather than
 * held without bound.
 */
#define BTRACE_STATS_MAX_IN_FLIGHT (1U << 20)

struct btrace_stats;

/* 0 or -ENOMEM. */
int btrace_stats__new(struct btrace_stats **out);
/*
 * One record (notes are passed over). 0, -ENOMEM, or -EOVERFLOW when it makes more
 * than BTRACE_STATS_MAX_IN_FLIGHT held.
 */
int btrace_stats__add(struct btrace_stats *s, const struct btrace_record *rec);
/*
 * What was counted, into out (zeroed first); seconds from the first record to the last;
 * *bio_based when the device never issued a request.
 */
void btrace_stats__result(const struct btrace_stats *s, struct block_stats *out, double *seconds,
			  bool *bio_based);
void btrace_stats__free(struct btrace_stats *s);

#endif /* BLKTRACE_BENCH_BTRACE_STATS_H */
