/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The exposition of traced disks for Prometheus: the OpenMetrics 1.0 text format (what
 * Prometheus asks for first) or the Prometheus text format 0.0.4 (node_exporter's
 * textfile collector, promtool, older scrapers). Both print the same families in the same
 * order; they differ in how a counter's family is named, in # UNIT lines and in the final
 * # EOF. Nothing here reads the system: the caller hands over the figures.
 *
 * Families (labels device, driver; op or kind or limit where said):
 *   counters    requests_total{op}, bytes_total{op}, bio_merges, request_merges, splits,
 *               requeues, errors, completions, untracked_completions, lost_events{kind},
 *               data_requests, limit_bound_requests{limit}
 *   gauges      up (1: the figures are live; 0: a failed reload left them standing, or
 *               the device is not traced yet), in_flight, limit_max_sectors_bytes,
 *               limit_max_hw_sectors_bytes, limit_max_segments,
 *               limit_max_segment_size_bytes, max_request_bytes{limit},
 *               xen_blkfront_{segments,indirect_descriptors,max_indirect_segments,
 *               backend_limited}, limit_bound_ratio{limit}, device_info
 *   histograms  request_bytes{op}, request_segments, queue_depth, latency_seconds{kind}
 * every name prefixed blktrace_bench_. In OpenMetrics each counter and histogram has its
 * _created (when its counting began: a device that comes back, moves or is resized
 * starts again at 0, and says so). The `le` edges of the size, segment and depth
 * histograms are edges of the kernel-side histograms (bpf/hist.h), so every bucket count
 * is exact: a size edge E is written le="E-1" (requests are whole bytes: "at most E-1" is
 * "below E"), so that requests of exactly 44 KiB, 128 KiB or 1 MiB sit alone in the
 * bucket above such an edge. Latency edges are decimal seconds, which the log-linear
 * kernel buckets do not share: a bucket straddling an edge counts above it, so a `le`
 * count may miss samples within 1/64 (1.6%) below its edge, never include one above.
 */
#ifndef BLKTRACE_BENCH_OPENMETRICS_H
#define BLKTRACE_BENCH_OPENMETRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "disk/device.h"
#include "result/run.h"

enum om_format {
	OM_TEXT_0_0_4,	  /* text/plain; version=0.0.4 */
	OM_OPENMETRICS_1, /* application/openmetrics-text; version=1.0.0 */
};

/* The limits whose bound share is exported, in this order (summary.h's two shares). */
enum om_limit {
	OM_LIMIT_MAX_SECTORS = 0, /* size reached max_sectors_kb */
	OM_LIMIT_MAX_SEGMENTS,	  /* segments reached max_segments */
	OM_NR_LIMITS,
};

/* One traced disk as the exposition sees it. */
struct om_disk {
	const struct device *dev;     /* names, driver, limits, xen-blkfront state */
	const struct block_stats *b;  /* cumulative since created */
	long long in_flight;	      /* requests in flight now */
	uint64_t data_requests;	      /* read/write requests with a payload, cumulative */
	uint64_t bound[OM_NR_LIMITS]; /* of those, at each limit (limits as they were then) */
	bool live;		      /* its programs are attached: the figures move */
	bool ring;		      /* xen-blkfront's ring probed: b->ring counts */
	double created;		      /* when its counters began, Unix seconds; 0: unsaid */
};

/* About the exporter itself. */
struct om_self {
	const char *version;
	const char *flavour;	       /* "tp_btf", "raw_tp" */
	uint64_t reloads;	       /* programs reloaded for disks that came or went */
	uint64_t skipped;	       /* runs of them the kernel skipped, reloads included */
	uint64_t reload_failures;      /* reloads that failed (each tried again) */
	double created;		       /* when the exporter started, Unix seconds; 0: unsaid */
	const struct device *untraced; /* named but not traced: their reload failed */
	size_t nr_untraced;
};

/* The content type of a format, for the HTTP response. */
const char *openmetrics__content_type(enum om_format fmt);

/*
 * Does an HTTP Accept header ask for OpenMetrics? As Prometheus negotiates: yes when it
 * names application/openmetrics-text (any version; we speak 1.0.0) with a q above 0.
 */
enum om_format openmetrics__negotiate(const char *accept);

/* Write every family for disks[0..n). 0, or -errno of the stream. */
int openmetrics__write(FILE *f, enum om_format fmt, const struct om_disk *disks, size_t n,
		       const struct om_self *self);

#endif /* BLKTRACE_BENCH_OPENMETRICS_H */
