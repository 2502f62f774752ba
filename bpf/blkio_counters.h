/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The block counters, written once. Every list of them derives from these tables: the
 * fields of struct blkio_rare (what the BPF programs count) and struct blkio_counters
 * (what the loader folds them into), the fold (src/trace/tracer.c), the JSON writer and
 * reader (src/output/report_json.c, src/store/result_read.c), the Prometheus families
 * (src/serve/openmetrics.c), the labels of the text and HTML reports, and the JSON key
 * reference doc/json-keys.md (tools/json-keys.c; make json-keys writes it, and
 * tests/shell/test_json_keys.sh fails when the committed one differs).
 *
 * Only macros: the BPF object takes the field names and nothing else, so no string of
 * these tables reaches the kernel.
 */
#ifndef BLKTRACE_BENCH_BLKIO_COUNTERS_H
#define BLKTRACE_BENCH_BLKIO_COUNTERS_H

/*
 * Counters per operation, arrays indexed by enum blkio_op, in the JSON as
 * block.<op>.<key> ("read", "write", ...):
 *   X(field, json_key, prom, unit, help)
 * prom: the Prometheus family (label op), NULL when not exported; unit: its unit or NULL.
 * The programs count requests and bytes of reads and writes with data in the size
 * histograms and rw_bytes, the fold adds them.
 */
#define BLKIO_OP_COUNTERS(X)                                                                       \
	X(requests, "requests", "requests", NULL,                                                  \
	  "Requests issued to the device (bios of a bio-based device), per operation.")            \
	X(bytes, "bytes", "bytes", "bytes", "Bytes of the issued requests, per operation.")        \
	X(merges_op, "merges", NULL, NULL,                                                         \
	  "Bios merged into a request already queued, by the operation of the bio.")

/*
 * The other counters, in the order of the JSON's block object:
 *   X(field, rare, json_obj, json_key, prom, prom_kind, help, label)
 * rare: 1 when the programs count it in struct blkio_rare and the fold copies it; 0
 *   when the loader derives it from the histograms.
 * json_obj: the member of the block object it lies in (NULL: the block object itself).
 * prom: its Prometheus family, NULL when not exported; prom_kind: its value of the
 *   family's label "kind", NULL when the family is its own.
 * help: what it counts (the Prometheus HELP, the JSON key reference); label: its name in
 *   the text and HTML reports.
 */
#define BLKIO_COUNTERS(X)                                                                          \
	X(merges, 1, NULL, "merges", "bio_merges", NULL,                                           \
	  "Bios merged into a request already queued.", "merges")                                  \
	X(rq_merges, 1, NULL, "request_merges", "request_merges", NULL,                            \
	  "Requests merged into another request.", "requests merged")                              \
	X(splits, 1, NULL, "splits", "splits", NULL, "Bios split by a queue limit.", "splits")     \
	X(requeues, 1, NULL, "requeues", "requeues", NULL,                                         \
	  "Requests the driver gave back to be issued again.", "requeues")                         \
	X(errors, 1, NULL, "errors", "errors", NULL, "Requests completed with an error.",          \
	  "errors")                                                                                \
	X(ra_requests, 1, "read_ahead", "requests", NULL, NULL,                                    \
	  "Read-ahead requests: issued with REQ_RAHEAD.", "read-ahead requests")                   \
	X(ra_bytes, 1, "read_ahead", "bytes", NULL, NULL, "Bytes of the read-ahead requests.",     \
	  "read-ahead bytes")                                                                      \
	X(lost_records, 1, NULL, "lost_records", "lost_events", "record",                          \
	  "Records --snoop lost: the ring buffer had no room for them.", "lost records")           \
	X(completed, 0, NULL, "completed", "completions", NULL,                                    \
	  "Completions of requests issued while traced.", "completed")                             \
	X(untracked, 1, NULL, "untracked", "untracked_completions", NULL,                          \
	  "Completions of requests issued before tracing began (not timed).",                      \
	  "untracked completions")                                                                 \
	X(unissued, 1, NULL, "unissued", NULL, NULL,                                               \
	  "Completions of requests never issued: the flush machinery ends empty pre-flush "        \
	  "writes without issuing them.",                                                          \
	  "unissued completions")                                                                  \
	X(lost_completions, 1, NULL, "lost_completions", "lost_events", "completion",              \
	  "Completions that never reached the tracer: the request's slot was found still "         \
	  "occupied at the next issue on it.",                                                     \
	  "lost completions")                                                                      \
	X(depth_corrected, 1, NULL, "depth_corrected", NULL, NULL,                                 \
	  "Depth samples lowered by requests whose completion was lost.", "depth samples lowered") \
	X(depth_reads, 1, NULL, "depth_reads", NULL, NULL,                                         \
	  "Issues whose queue depth was read: the depth histogram's sample (every issue with "     \
	  "--exact-depth).",                                                                       \
	  "depth reads")                                                                           \
	X(slot_overflow, 1, NULL, "slot_overflow", "lost_events", "slot_overflow",                 \
	  "Requests whose (hardware queue, tag) lies outside the slot table: no depth or "         \
	  "device time for them.",                                                                 \
	  "requests outside the slot table")

/* The declarations of the fields, and the fields the programs count (rare = 1). */
#define BLKIO_OP_COUNTER_FIELD(field, ...) __u64 field[BLKIO_NR_OPS];
#define BLKIO_COUNTER_FIELD(field, ...) __u64 field;
#define BLKIO_RARE_0(...)
#define BLKIO_RARE_1(...) __VA_ARGS__
#define BLKIO_RARE_COUNTER_FIELD(field, rare, ...) BLKIO_RARE_##rare(__u64 field;)

#endif /* BLKTRACE_BENCH_BLKIO_COUNTERS_H */
