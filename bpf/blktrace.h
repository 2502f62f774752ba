/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by bpf/blktrace.bpf.c and its loader (src/trace/btrace.c) and writer
 * (src/blktrace/btrace_out.c): one record per request, holding each block-layer event
 * of it as the kernel's blktrace would log it, and a note per task. Fixed-width types
 * only, no implicit padding.
 */
#ifndef BLKTRACE_BENCH_BLKTRACE_H
#define BLKTRACE_BENCH_BLKTRACE_H

/* The largest payload an event carries: a remap's struct blk_io_trace_remap (16 bytes). */
#define BTRACE_PDU_MAX 16
#define BTRACE_COMM_LEN 16

/*
 * The events a record can hold, in the order the kernel logs them for one request:
 * Q, G, I, D, C and one other (a merge, split, remap, requeue or partial completion:
 * the rare ones), which is the record's only event when nothing else is known.
 */
enum btrace_step_kind {
	BTRACE_Q = 0,
	BTRACE_G,
	BTRACE_I,
	BTRACE_D,
	BTRACE_C,
	BTRACE_OTHER,
	BTRACE_STEPS,
};

/*
 * One event: struct blk_io_trace (include/uapi/linux/blktrace_api.h) less what user
 * space adds when it writes the file (magic, the per-CPU sequence, the time relative to
 * the start, the traced device's dev_t) and what the record holds once (the payload).
 */
struct btrace_step {
	__u64 time; /* CLOCK_MONOTONIC, ns */
	__u64 sector;
	__u32 bytes;
	__u32 action; /* BLK_TA_* | BLK_TC_ACT(categories), as the kernel's __blk_add_trace */
	__u32 pid;    /* the task (thread) id, as blktrace's */
	__u16 cpu;
	__u16 error; /* the negative errno, truncated to 16 bits as blktrace's */
};

/*
 * The writer holds events back until no record still to come can hold an earlier one:
 * each record is counted, per CPU, in the epoch (time >> BTRACE_EPOCH_SHIFT, ~4.2 ms) of
 * its first event when that event happens (struct btrace_pcpu), and the writer counts
 * the records it reads by the same epoch. An epoch whose counts agree is complete. The
 * counts are modulo 2^32, and the epochs modulo BTRACE_EPOCHS (~4.3 s).
 */
#define BTRACE_EPOCH_SHIFT 22
#define BTRACE_EPOCHS 1024

enum btrace_rec_kind {
	BTRACE_REC_REQUEST = 1, /* struct btrace_rec */
	BTRACE_REC_TASK,	/* struct btrace_task */
};

/* A request's events (or one rare event's), read when it completes. 232 bytes. */
struct btrace_rec {
	__u16 kind;    /* BTRACE_REC_REQUEST */
	__u16 steps;   /* the steps present: 1 << enum btrace_step_kind */
	__u16 pdu_len; /* bytes of pdu that belong to the OTHER step */
	__u16 pad;
	__u32 device; /* the traced device's index (tracer order), not a dev_t */
	__u32 epoch;  /* of its first step: that step's time >> BTRACE_EPOCH_SHIFT */
	struct btrace_step step[BTRACE_STEPS];
	__u8 pdu[BTRACE_PDU_MAX]; /* big-endian, as blktrace writes them */
};

/* A record without the OTHER step is sent without it and its payload. */
#define BTRACE_REC_SHORT ((unsigned long)&((struct btrace_rec *)0)->step[BTRACE_OTHER])

/* A task's name, the first time this CPU sees it in a while (before its events). */
struct btrace_task {
	__u16 kind; /* BTRACE_REC_TASK */
	__u16 cpu;
	__u32 pid;
	char comm[BTRACE_COMM_LEN];
};

/*
 * Where a request waits between its events before it has a slot of its own (blkio.h:
 * the request's (hardware queue, tag) slot, from issue to completion): Q and G come
 * before the request has a tag, in the submitting task, on its CPU. A small per-CPU
 * cache, by bio, holds them; the request's first bio finds them at insert or issue.
 */
#define BTRACE_CACHE 8
#define BTRACE_PIDS 64 /* tasks named per CPU: a cache by pid, sets of 2 (task_pid) */

struct btrace_entry {
	__u64 key; /* the bio; 0: free */
	struct btrace_rec r;
};

struct btrace_pcpu {
	__u32 opened[BTRACE_EPOCHS];  /* records begun, by the epoch of their first event */
	__u32 dropped[BTRACE_EPOCHS]; /* of those, lost to a full ring buffer */
	__u64 lost;		      /* events the ring buffer had no room for */
	__u64 notes_lost;	      /* task names it had no room for */
	__s64 busy;		      /* programs between their clock read and done (bt_enter) */
	__u32 head;		      /* the next cache entry to take */
	__u32 pids[BTRACE_PIDS];      /* pid + 1 of the tasks named; 0: none */
	__u32 sweep;		      /* the next cache entry to look at for its age */
	struct btrace_entry cache[BTRACE_CACHE];
};

/*
 * The bt_state map's values: [BT_WAITING] entries in bt_waiting (no lookup while it is
 * empty: no scheduler, or none queued); [BT_ON] set by user space once its writer has
 * started (the aggregate's programs, loaded first, send nothing before).
 */
enum btrace_state {
	BT_WAITING = 0,
	BT_ON,
	BT_NR_STATE,
};

#endif /* BLKTRACE_BENCH_BLKTRACE_H */
