/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Snoop files: per-request records of a traced run (--snoop FILE), read back with
 * --snoop-text FILE.
 *
 * Layout, in the byte order of the host that wrote it (x86: little-endian):
 *   struct snoop_header   16 bytes: magic "BBSNOOP\0", __u32 version (1), __u32
 *                         record_size (sizeof(struct blkio_event))
 *   struct blkio_event    record_size bytes each, in completion order (bpf/blkio.h
 *                         documents every field)
 * A reader checks magic, version and record_size; the file is complete when its size
 * is 16 + n * record_size.
 */
#ifndef BLKTRACE_BENCH_SNOOP_H
#define BLKTRACE_BENCH_SNOOP_H

#include <linux/types.h>
#include <stdio.h>
#include "blkio.h"

#define SNOOP_MAGIC "BBSNOOP"
#define SNOOP_VERSION 1
/* The sector of a request that has none (a flush): printed as "-". */
#define SNOOP_NO_SECTOR ((__u64)-1)

struct snoop_header {
	char magic[8];
	__u32 version;
	__u32 record_size;
};

struct snoop;

/*
 * Write the header to f and drain the ring buffer map into it from a thread, each
 * record's depth counted from the records and the slots map of NR_SLOTS (snoop.c). f
 * stays the caller's (an outfile: checked, then renamed into place).
 */
int snoop__start(int ringbuf_fd, int slots_fd, size_t nr_slots, FILE *f, struct snoop **out);
/*
 * Stop (after the programs are detached), drain and write what is left; f is not
 * closed. The records written, and of them those that came too late for a depth (0).
 * NULL is safe.
 */
int snoop__stop(struct snoop *s, unsigned long long *records, unsigned long long *late);
struct diag;

/*
 * The --snoop-text view: one line per record, process names escaped (text.h), "-" for
 * the sector of a record without one. 0, or -errno with the reason in d: bad input for
 * a file that is no snoop file of this build or is truncated, a runtime failure for
 * one that cannot be opened or read.
 */
int snoop__print_text(const char *path, FILE *out, struct diag *d);
/* The same for an open stream; name stands for it in messages. */
int snoop__print_stream(FILE *f, const char *name, FILE *out, struct diag *d);

#endif /* BLKTRACE_BENCH_SNOOP_H */
