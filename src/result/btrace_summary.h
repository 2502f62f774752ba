/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What a set of blktrace files holds (one traced device's NAME.blktrace.CPU files), in
 * blkparse's own terms, so that a user or a test can hold blkparse's summary against it:
 * per CPU and in total, the records ("Events"), reads and writes queued (Q), dispatched
 * (D, less what was requeued), completed (C) and merged (M, F), with KiB summed record by
 * record as blkparse sums them, and each action's count. Filled by the writer of
 * --blktrace (btrace_out.c) and the reader of import (btrace_read.c).
 */
#ifndef BLKTRACE_BENCH_BTRACE_SUMMARY_H
#define BLKTRACE_BENCH_BTRACE_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/blktrace_api.h>
#include "disk/device.h"

/* At most this many CPUs in a trace: a record naming a higher one is malformed. */
#define BTRACE_MAX_CPUS 4096
/* Actions by their number (__BLK_TA_*, 1 to 17); 0 holds notify records. */
#define BTRACE_NR_ACTIONS 32

enum btrace_io {
	BTRACE_IO_QUEUED = 0, /* Q */
	BTRACE_IO_DISPATCHED, /* D, less R */
	BTRACE_IO_COMPLETED,  /* C */
	BTRACE_IO_MERGED,     /* M, F */
	BTRACE_NR_IO,
};

/* blkparse's io_stats for file-system requests: [.][0] reads, [.][1] writes. */
struct btrace_counts {
	uint64_t events; /* records other than notes */
	uint64_t n[BTRACE_NR_IO][2];
	uint64_t kb[BTRACE_NR_IO][2]; /* bytes >> 10 of each record, summed ... */
	uint64_t b[BTRACE_NR_IO][2];  /* ... and bytes & 1023: KiB is kb + (b >> 10) */
	uint64_t requeued[2];
};

struct btrace_set_summary {
	char name[DEVICE_NAME_MAX]; /* NAME of NAME.blktrace.CPU */
	uint32_t dev;		    /* the device number of the first record (MAJ << 20 | MIN) */
	bool mixed_devs;	    /* records of another device number too */
	struct btrace_counts total;
	struct btrace_counts *cpu; /* nr_cpus */
	unsigned int nr_cpus;
	uint64_t actions[BTRACE_NR_ACTIONS];
	uint64_t processes; /* BLK_TN_PROCESS notes: pid -> name */
	uint64_t first_ns, last_ns;
};

struct btrace_summary {
	char where[4096];    /* the directory written, or the path read */
	bool has_lost;	     /* written live: lost and skipped are known */
	uint64_t lost;	     /* events the ring buffer had no room for */
	uint64_t lost_notes; /* task names it had no room for (blkparse shows their pids) */
	uint64_t late;	     /* events written after a later one of their CPU (btrace_out.c) */
	/* Program runs the kernel skipped, by action (btrace.h), of the traced disks or not. */
	uint64_t skipped[BTRACE_NR_ACTIONS];
	size_t nr_sets;
	struct btrace_set_summary *sets;
};

/* Count record t (its fields in host order) into s. 0, -EINVAL (cpu), -ENOMEM. */
int btrace_summary__add(struct btrace_set_summary *s, const struct blk_io_trace *t);
/* KiB as blkparse prints them. */
uint64_t btrace_counts__kib(const struct btrace_counts *c, enum btrace_io io, int write);
/* The letter blkparse prints for an action ("Q", "UT"...); "?" for an unknown one. */
const char *btrace_action_name(unsigned int act);
/*
 * The events the kernel skipped our programs for (btrace.h), in all; buf says them per
 * action ("M 502, C 7"), "" when there are none.
 */
uint64_t btrace_summary__skipped(const struct btrace_summary *s, char *buf, size_t len);
/* The sets and their per-CPU counts; s itself is the caller's. NULL is safe. */
void btrace_summary__free(struct btrace_summary *s);

#endif /* BLKTRACE_BENCH_BTRACE_SUMMARY_H */
