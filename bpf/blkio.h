/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by bpf/blkio.bpf.c and the loader. Fixed-width types only, no libc
 * includes, so the two halves can never disagree about a layout.
 */
#ifndef BLKTRACE_BENCH_BLKIO_H
#define BLKTRACE_BENCH_BLKIO_H

#include "hist.h"
#include "blkio_counters.h"

/* Operation classes: the index into per-op counters and size histograms. */
enum blkio_op {
	BLKIO_OP_READ = 0,
	BLKIO_OP_WRITE,
	BLKIO_OP_FLUSH,
	BLKIO_OP_DISCARD,
	BLKIO_OP_OTHER,
	BLKIO_NR_OPS,
};

/* Latency histograms, the keys of the lat_hist map. */
enum blkio_lat_kind {
	BLKIO_LAT_QUEUE = 0, /* allocation to issue (G2D) */
	BLKIO_LAT_DEVICE,    /* issue to completion (D2C) */
	BLKIO_LAT_TOTAL,     /* allocation to completion (G2C) */
	BLKIO_NR_LATS,
};

/* Size histograms: the first index of blkio_pcpu.size. */
enum blkio_size_kind {
	BLKIO_SIZE_READ = 0,
	BLKIO_SIZE_WRITE,
	BLKIO_SIZE_OTHER,   /* discard, write-zeroes, ... (flush carries no data) */
	BLKIO_SIZE_SEGMENT, /* bytes per physical segment, all data requests */
	BLKIO_NR_SIZE_HISTS,
};

/* Count histograms: the first index of blkio_pcpu.count. */
enum blkio_count_kind {
	BLKIO_COUNT_SEGMENTS = 0, /* nr_phys_segments per data request */
	BLKIO_COUNT_DEPTH,	  /* requests of the disk in flight at issue, this one included */
	BLKIO_NR_COUNT_HISTS,
};

/*
 * A device's counters, as user space reads them: the loader folds the per-CPU values
 * of `stats` (struct blkio_pcpu) and the latency histograms into these. Sums are kept
 * so that means are exact, not bucket estimates.
 */
struct blkio_counters {
	BLKIO_OP_COUNTERS(BLKIO_OP_COUNTER_FIELD) /* requests, bytes, merges_op: issued */
	__u64 sum_depth;
	__u64 sum_segments;  /* over data requests */
	__u64 data_requests; /* requests with a payload (segments > 0) */
	__u64 sum_ns[BLKIO_NR_LATS];
	__u64 nr_ns[BLKIO_NR_LATS];	    /* samples in each latency histogram */
	BLKIO_COUNTERS(BLKIO_COUNTER_FIELD) /* blkio_counters.h says what each counts */
};

/*
 * Maxima over an interval. Sums are read as deltas of two snapshots, but a maximum
 * cannot be subtracted: see max_epoch in struct blkio_pcpu.
 */
struct blkio_maxes {
	__u64 ns[BLKIO_NR_LATS];
	__u64 bytes;
	__u64 segments;
	__u64 depth;
	__u64 first_issue_inv; /* ~ (the first issue's time): a maximum stands for a minimum */
	__u64 last_complete;   /* the last completion's time */
};

/* The value of each key of the lat_hist map. */
struct blkio_lat_hist {
	__u64 slots[HIST_LAT_BUCKETS];
};

/*
 * The value of the hwq_depth map, per device: its requests in flight on their hardware
 * queue at issue, this one included. Disks of several queues only; a map of its own, as
 * a per-CPU value holds at most 32 KiB.
 */
struct blkio_hwq_hist {
	__u64 slots[HIST_COUNT_BUCKETS];
};

/*
 * What the BPF programs count outside the hot words of struct blkio_pcpu: the rare
 * events, and what the histograms cannot give exactly.
 */
struct blkio_rare {
	/* requests and bytes: but reads' and writes' with data (the size histograms count
	 * those requests, rw_bytes their bytes) */
	BLKIO_OP_COUNTERS(BLKIO_OP_COUNTER_FIELD)
	__u64 big_depth_sum;	/* depths beyond the exact count buckets (HIST_COUNT_EXACT) */
	__u64 big_segments_sum; /* the same for segments */
	BLKIO_COUNTERS(BLKIO_RARE_COUNTER_FIELD)
};

/*
 * The requests in flight on one hardware queue of a member disk: those issued less those
 * completed (or requeued), each count written by its own side on its own cache line.
 * Where a queue's issues and completions stay on one CPU (NVMe, multi-queue virtio-blk:
 * a queue per CPU) both lines stay in that CPU's cache; where another CPU completes (a
 * loop disk's worker, one queue for all CPUs) only the completer writes the done line,
 * and the issuer reads it. The queue's deepest point in the current interval
 * (max_epoch, as struct blkio_pcpu's maxima) sits on the issue line: only the queue's
 * issuers write it. Read as issued - done. doc/performance.md has what each line costs.
 * A disk of one queue counts per CPU instead where the kernel allows (struct blkio_pcpu,
 * pc_issued); its entry here is then unused.
 */
struct blkio_queue {
	__s64 issued;
	__u64 max_depth;
	__u64 max_epoch;
	__u8 pad_issued[40];
	__s64 done;
	__u8 pad_done[56];
};

/*
 * The value of the per-CPU `stats` map: everything an event touches on its CPU but the
 * latency histograms, so that an event needs one lookup (a per-CPU value may take up
 * to 32 KiB). Laid out for the hot path, not for reading:
 *  - what the issue of a read or write with data updates, then the maxima and their
 *    epoch, then what a completion adds: each event writes a few adjacent words, one
 *    or two cache lines, where the counters in struct blkio_counters order took six;
 *  - nothing the histograms hold already is counted again: the loader (tracer.c,
 *    tracer__fold) takes the reads' and writes' requests from the size histograms,
 *    completions and latency samples from the latency histograms, and the sums of
 *    depths and segments from the exact count buckets (with the big_* sums beyond);
 *  - a data request of one segment, the common case, updates its size histogram
 *    only: its segment count (1) and bytes per segment (its size) follow from the size
 *    histograms less size_multi, the sizes of the reads and writes of any other
 *    segment count.
 * The maxima belong to the interval numbered max_epoch: when the loader starts a new
 * interval it bumps the global max_epoch, and the first event on a CPU after that
 * clears the CPU's maxima; a CPU still on an older epoch has seen nothing since and
 * contributes no maximum.
 */
struct blkio_pcpu {
	__u64 rw_bytes[2]; /* bytes of reads, of writes */
	__u64 sum_queue_ns;
	/*
	 * The requests of a disk of one queue that this CPU issued, completed, requeued
	 * (after issue), where the kernel lets a program read other CPUs' values
	 * (blkio.bpf.c, pcpu_inflight): the disk's depth is their sums' difference, and
	 * each CPU writes only its own. Each word has one writer program, so a completion
	 * that interrupts a requeue on this CPU loses nothing.
	 */
	__s64 pc_issued;
	struct blkio_maxes max;
	__u64 max_epoch;
	__u64 sum_device_ns;
	__u64 sum_total_ns;
	__s64 pc_done;
	__s64 pc_requeued;
	struct blkio_rare r;
	__u64 size[BLKIO_NR_SIZE_HISTS][HIST_SIZE_BUCKETS];
	__u64 size_multi[HIST_SIZE_BUCKETS];
	__u64 count[BLKIO_NR_COUNT_HISTS][HIST_COUNT_BUCKETS];
};

/*
 * What a CPU keeps across every traced disk (the map `cpu_clock`, one per-CPU entry):
 * which issues read a disk's depth is decided per CPU, not per disk and CPU, so that a
 * CPU issuing fast to many disks, each slowly (a fleet), samples as one issuing fast to
 * one disk does: what the reads cost is per CPU.
 */
struct blkio_cpu {
	__u64 depth_rng;  /* xorshift64 state: which issues read the depth */
	__u64 depth_last; /* the last issue to any traced disk, ns */
};

/*
 * One record per completed request in snoop mode, written as-is to the snoop file
 * (src/trace/snoop.h). 72 bytes, no implicit padding.
 */
struct blkio_event {
	__u64 ts_ns;	 /* completion, CLOCK_MONOTONIC */
	__u64 sector;	 /* first sector, on the whole disk */
	__u64 queue_ns;	 /* allocation to issue; 0 when the kernel did not stamp it */
	__u64 device_ns; /* issue to completion */
	__u32 bytes;
	__u32 dev; /* MAJ << 20 | MIN, the kernel's dev_t encoding */
	__u32 pid; /* process that inserted (else issued) the request; 0: unknown */
	__u16 segments;
	/*
	 * Requests of the disk in flight at issue, this one included (of those issued since
	 * the trace began); 0 from the programs: the drain counts it from the records'
	 * issue and completion times (src/trace/snoop.c), 0 for a record it got too late.
	 */
	__u16 depth;
	__u8 op; /* enum blkio_op */
	__u8 error;
	__u8 pad[6];
	char comm[16]; /* that process's name */
};

/*
 * The value of a slot of the `slots` map, one per (member disk, hardware queue, tag):
 * the request in flight on it, 0 when free. The request's address lets the issue path
 * tell a request still in flight from one whose completion never reached us.
 */
struct blkio_slot {
	__u64 issued; /* issue time, ns; 0: free */
	__u64 rq;     /* the struct request */
};

/* Snoop mode: who a request is for, from insert (or issue) to completion. */
struct blkio_who {
	__u32 pid;
	char comm[16];
};

#define BLKIO_DEV(major, minor) (((__u32)(major) << 20) | (__u32)(minor))

/* Tracepoints whose argument form changed (bpf/core_fixes.bpf.h, ARG). */
enum blkio_tp {
	BLKIO_TP_RQ_INSERT = 0,
	BLKIO_TP_RQ_ISSUE,
	BLKIO_TP_RQ_REQUEUE,
	BLKIO_TP_RQ_MERGE,
	BLKIO_TP_BIO_BACKMERGE,
	BLKIO_TP_BIO_FRONTMERGE,
	BLKIO_TP_SPLIT,
	BLKIO_TP_BIO_QUEUE,
	BLKIO_TP_GETRQ,	    /* bpf/blktrace.bpf.c only */
	BLKIO_TP_BIO_REMAP, /* bpf/blktrace.bpf.c only */
	BLKIO_NR_TPS,
};

/*
 * What the programs match: member disks, each counting for one traced device. A device
 * is a disk, a partition of one, an NVMe multipath head with its hidden path disks, or
 * a layer of a stack; every device has its own statistics (the `stats` element of its
 * index). Up to BLKIO_MAX_DISKS members live in read-only data, matched by a few
 * compares (by dev_t, or by name for hidden disks without one); more go to a hash map.
 */
#define BLKIO_MAX_DISKS 8
#define BLKIO_MAX_DEVICES 1024
/*
 * Members beyond the arrays live in an array map used as a hash table (member_map):
 * open addressing, linear probing, at most this many probes (the loader sizes the table
 * until every member is found within them). An array's lookup is a few instructions the
 * verifier inlines; a hash map's is a helper call (bpf/members.bpf.h).
 */
#define BLKIO_MEMBER_PROBES 4
/* The table's slot of a dev_t: multiplicative (Fibonacci) hashing, the top bits. */
#define BLKIO_MEMBER_HASH(dev, shift) ((__u32)((__u32)(dev)*2654435761u) >> (shift))
/*
 * The disk's depth is the sum of its queues' counts: two lines per queue that other
 * CPUs write (the completions at least, on a disk of one queue). It is read on one
 * issue in K per CPU, K the power of two at least 16 and 4 x the queues: on average at
 * most half a line another CPU wrote per issue, however many queues
 * (doc/performance.md); on every issue with --exact-depth.
 */
static inline __u32 blkio_depth_sample(__u32 queues)
{
	__u32 k = 16;

	while (k < 4 * queues && k < (1u << 30))
		k <<= 1;
	return k;
}
/* Bytes of disk_name compared for members without a dev_t (NUL included). */
#define BLKIO_DISK_NAME_BYTES 16

/* A member counted at the bio level: a bio-based device (dm, md), the top of a stack. */
#define BLKIO_MEMBER_BIO 1u

struct blkio_member {
	__u32 dev;	  /* BLKIO_DEV(major, first_minor); 0: matched by name */
	__u32 device;	  /* the traced device it counts for: its stats element */
	__u32 flags;	  /* BLKIO_MEMBER_* */
	__u32 slot_base;  /* its first slot: (hw queue, tag) -> slot_base + hwq * tags + tag */
	__u32 hwqs;	  /* hardware queues */
	__u32 tags;	  /* tags per hardware queue */
	__u32 queue;	  /* its first element of the `queues` map (one per hardware queue) */
	__u32 dev_queue;  /* the traced device's first element: its members' queues follow */
	__u32 dev_queues; /* the traced device's queues, over all its members */
	__u32 depth_mask; /* blkio_depth_sample(dev_queues) - 1 */
	__u64 part_start; /* partition filter, sectors; part_end == 0: the whole disk */
	__u64 part_end;
};

/*
 * The disk filter in read-only data, one for each BPF object (bpf/members.bpf.h matches
 * it): the common case is one disk, member 0; more members follow in the arrays, and
 * beyond BLKIO_MAX_DISKS in member_map, an array used as a hash table. A member whose
 * dev is 0 is matched by name. What every event reads, the flags and member 0 with its
 * dev_t, lies in the first 64 bytes; the names only several members need come after.
 */
struct blkio_filter {
	__u32 nr_disks;
	__u32 by_name;	  /* some member has no dev_t */
	__u32 map_shift;  /* member_map: 32 - log2(its size); used when map_probes */
	__u32 map_probes; /* member_map: slots to probe at most; 0: no members there */
	struct blkio_member members[BLKIO_MAX_DISKS];
	__u64 disk_names[BLKIO_MAX_DISKS][2]; /* disk_name, NUL-padded */
	/*
	 * The bytes of disk_name that count: the name and its NUL. What follows the NUL in
	 * the kernel's disk_name is not always zero: 5.10's nvme_alloc_ns copies all
	 * DISK_NAME_LEN bytes of an uninitialised stack buffer, so a path disk's name
	 * carries stack garbage.
	 */
	__u64 disk_name_masks[BLKIO_MAX_DISKS][2];
};

#endif /* BLKTRACE_BENCH_BLKIO_H */
