/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Types shared by bpf/blktrace.bpf.c and its loader (src/trace/btrace.c): one record per
 * block-layer event, as the kernel's blktrace would log it. Fixed-width types only.
 */
#ifndef BLKTRACE_BENCH_BLKTRACE_H
#define BLKTRACE_BENCH_BLKTRACE_H

/* The largest payload an event carries: a remap's struct blk_io_trace_remap (16 bytes). */
#define BTRACE_PDU_MAX 16
#define BTRACE_COMM_LEN 16

/*
 * One event through the ring buffer: struct blk_io_trace (include/uapi/linux/
 * blktrace_api.h) less what user space adds when it writes the file (magic, the per-CPU
 * sequence, the time relative to the start, the traced device's dev_t), plus the name of
 * the task, for the notify record that precedes a task's first event. 72 bytes, no
 * implicit padding.
 */
struct btrace_event {
	__u64 time; /* CLOCK_MONOTONIC, ns */
	__u64 sector;
	__u32 bytes;
	__u32 action; /* BLK_TA_* | BLK_TC_ACT(categories), as the kernel's __blk_add_trace */
	__u32 pid;    /* the task (thread) id, as blktrace's */
	__u32 device; /* the traced device's index (tracer order), not a dev_t */
	__u32 cpu;
	__u16 error;   /* the negative errno, truncated to 16 bits as blktrace's */
	__u16 pdu_len; /* bytes of pdu that belong to the record */
	char comm[BTRACE_COMM_LEN];
	__u8 pdu[BTRACE_PDU_MAX]; /* big-endian, as blktrace writes them */
};

#endif /* BLKTRACE_BENCH_BLKTRACE_H */
