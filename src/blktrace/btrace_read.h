/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Reading blktrace files (ours, from --blktrace, or the kernel's, from `blktrace -d DEV`):
 * struct blk_io_trace records in either byte order (the first record's magic says which,
 * as blkparse decides), version 7, each with its payload. What import reads:
 *   DIR           a directory holding one trace: its NAME.blktrace.CPU files
 *   DIR/NAME      NAME.blktrace.0, .1, ... up to the first missing one, as `blkparse -i`
 *   NAME.blktrace.N  the same set
 *   FILE          any other file: one stream of records of any CPU (`blkparse -d` output,
 *                 `blktrace -o -`), sorted by time in memory
 *   -             such a stream on stdin
 * Memory: a set is merged as it is read (a record per file); a stream is held whole, the
 * records and the sort's index (under 90 bytes a record), at most BTRACE_READ_MAX_SORTED.
 * A set's per-CPU files are merged by time as blkparse merges them. Every record is
 * checked (magic, version, its CPU, a payload that is all there): a file that does not
 * start with a record is bad input, named with its fault. After a good record, a file
 * ends at the first that is none, and a per-CPU file's records of another CPU are
 * skipped, as blkparse reads them (btrace_read__left_out says what was left out).
 */
#ifndef BLKTRACE_BENCH_BTRACE_READ_H
#define BLKTRACE_BENCH_BTRACE_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/blktrace_api.h>
#include "disk/device.h"

/* The payload bytes kept: a process name, a split's sector, a remap (16 bytes each). */
#define BTRACE_READ_PDU 16
/* A single-stream file is sorted in memory: at most this many records (1 GiB). */
#define BTRACE_READ_MAX_SORTED (16U << 20)

struct btrace_record {
	struct blk_io_trace t;		    /* in host order */
	unsigned char pdu[BTRACE_READ_PDU]; /* its first bytes, zero-padded */
};

struct btrace_reader;
struct diag;

/*
 * What path names: its files found (btrace_read__file lists them), none opened yet. "-"
 * is one stream on stdin. 0, or -errno with d.
 */
int btrace_read__resolve(const char *path, struct btrace_reader **out, struct diag *d);
/*
 * Open the files (regular files only, infile.h) and read: each file's first record (a
 * set), or every record (a stream, sorted). 0, or -errno with d: bad input for what is
 * no trace, a runtime failure for I/O.
 */
int btrace_read__start(struct btrace_reader *r, struct diag *d);
/* resolve, then start. */
int btrace_read__open(const char *path, struct btrace_reader **out, struct diag *d);
/* The i-th file the trace consists of, from 0; NULL past the last (stdin is none). */
const char *btrace_read__file(const struct btrace_reader *r, unsigned int i);
/* One stream of records, named name in messages (the fuzzer's entry). f stays the caller's. */
int btrace_read__open_stream(FILE *f, const char *name, struct btrace_reader **out, struct diag *d);
/* The next record in time order: 1, 0 at the end, or -errno with d. */
int btrace_read__next(struct btrace_reader *r, struct btrace_record *rec, struct diag *d);
/*
 * Would a file at path be one of the set's, NAME.blktrace.N in its directory, whether it
 * exists or not (import would read it with the others)? false for a stream.
 */
bool btrace_read__of_set(const struct btrace_reader *r, const char *path);
/* The trace's name: NAME of a set, the file's name for a stream. */
const char *btrace_read__name(const struct btrace_reader *r);
/* The files read, for messages: "DIR/NAME.blktrace.0-3" or the file. */
const char *btrace_read__where(const struct btrace_reader *r);
/*
 * The i-th thing (from 0) left out of the files read so far, as blkparse leaves it out:
 * a file's end from a record that is none (cut short, or never written: a trace stopped
 * mid-write), a per-CPU file's records of another CPU. "PATH: what" into buf, returned;
 * NULL past the last.
 */
const char *btrace_read__left_out(const struct btrace_reader *r, unsigned int i, char *buf,
				  size_t len);
void btrace_read__close(struct btrace_reader *r);

#endif /* BLKTRACE_BENCH_BTRACE_READ_H */
