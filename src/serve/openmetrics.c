// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The Prometheus and OpenMetrics text expositions of traced disks; see openmetrics.h.
 * Written by hand: the one C client library (prometheus-client-c) is unmaintained and
 * in no distribution, and what it would do for us, a few lines of text per sample, is
 * less code than adapting our histograms to its registry.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "base/histogram.h"
#include "serve/openmetrics.h"
#include "analysis/summary.h"
#include "result/counters.h"

#define PREFIX "blktrace_bench_"

struct om {
	FILE *f;
	enum om_format fmt;
};

const char *openmetrics__content_type(enum om_format fmt)
{
	return fmt == OM_OPENMETRICS_1
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}

/*
 * One media range of an Accept header, "type/subtype;param=value;q=0.5": is it
 * OpenMetrics, with a weight above 0 (q=0 means "not this one", RFC 9110 12.4.2)?
 */
static bool wants_openmetrics(char *range)
{
	char *param, *save = NULL, *type = strtok_r(range, ";", &save);

	if (!type) /* ";" alone: no media type at all */
		return false;
	type += strspn(type, " \t");
	type[strcspn(type, " \t")] = '\0';
	if (strcasecmp(type, "application/openmetrics-text"))
		return false;
	while ((param = strtok_r(NULL, ";", &save))) {
		param += strspn(param, " \t");
		if (!strncasecmp(param, "q=", 2) && strtod(param + 2, NULL) <= 0)
			return false;
	}
	return true;
}

enum om_format openmetrics__negotiate(const char *accept)
{
	char buf[1024], *range, *save = NULL;

	/* Prometheus sends ~150 bytes; a longer header is not a scraper's: plain text. */
	if (!accept || strlen(accept) >= sizeof(buf))
		return OM_TEXT_0_0_4;
	strcpy(buf, accept);
	for (range = strtok_r(buf, ",", &save); range; range = strtok_r(NULL, ",", &save))
		if (wants_openmetrics(range))
			return OM_OPENMETRICS_1;
	return OM_TEXT_0_0_4;
}

/* A label value: backslash, double quote and newline escaped, as both formats want. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/*
 * The family's metadata. A counter's family is NAME in OpenMetrics, its samples
 * NAME_total, an info's NAME and NAME_info; the 0.0.4 format names the family by its
 * samples and has no info type (a gauge of 1). unit: NULL or the suffix NAME ends in.
 */
static void family(struct om *m, const char *name, const char *type, const char *unit,
		   const char *help)
{
	bool text = m->fmt == OM_TEXT_0_0_4, info = !strcmp(type, "info");
	const char *suffix = !text ? "" : info ? "_info" : !strcmp(type, "counter") ? "_total" : "";

	fprintf(m->f, "# HELP " PREFIX "%s%s %s\n", name, suffix, help);
	fprintf(m->f, "# TYPE " PREFIX "%s%s %s\n", name, suffix, text && info ? "gauge" : type);
	if (unit && m->fmt == OM_OPENMETRICS_1)
		fprintf(m->f, "# UNIT " PREFIX "%s %s\n", name, unit);
}

/* NAME{device="..",driver=".."[,domain="..",vdev=".."][,KEY="VALUE"]}, the sample name suffixed. */
static void series(struct om *m, const char *name, const char *suffix, const struct device *dev,
		   const char *key, const char *value)
{
	fprintf(m->f, PREFIX "%s%s{device=\"", name, suffix);
	put_escaped(m->f, dev->part_name[0] ? dev->part_name : dev->name);
	fputs("\",driver=\"", m->f);
	put_escaped(m->f, dev->driver);
	fputc('"', m->f);
	/* dom0: the guest and the virtual disk xen-blkback serves from this device. */
	if (dev->xen_guest.present) {
		fputs(",domain=\"", m->f);
		put_escaped(m->f, dev->xen_guest.domain);
		fputs("\",vdev=\"", m->f);
		put_escaped(m->f, dev->xen_guest.vdev);
		fputc('"', m->f);
	}
	if (key) {
		fprintf(m->f, ",%s=\"", key);
		put_escaped(m->f, value);
		fputc('"', m->f);
	}
}

static void sample_u64(struct om *m, const char *name, const char *suffix, const struct device *dev,
		       const char *key, const char *value, uint64_t v)
{
	series(m, name, suffix, dev, key, value);
	fprintf(m->f, "} %" PRIu64 "\n", v);
}

static void sample_double(struct om *m, const char *name, const char *suffix,
			  const struct device *dev, const char *key, const char *value, double v)
{
	series(m, name, suffix, dev, key, value);
	fprintf(m->f, "} %.15g\n", v);
}

/* OpenMetrics: when a counter or histogram began counting, right after its samples. */
static void sample_created(struct om *m, const char *name, const struct device *dev,
			   const char *key, const char *value, double at)
{
	if (m->fmt != OM_OPENMETRICS_1 || at <= 0)
		return;
	series(m, name, "_created", dev, key, value);
	fprintf(m->f, "} %.3f\n", at);
}

/* A disk's counter: NAME_total, and its _created. */
static void counter(struct om *m, const char *name, const struct om_disk *disk, const char *key,
		    const char *value, uint64_t v)
{
	sample_u64(m, name, "_total", disk->dev, key, value, v);
	sample_created(m, name, disk->dev, key, value, disk->created);
}

/* Counters of one disk and operation: those of bpf/blkio_counters.h with a family. */
static void per_op_counters(struct om *m, const struct om_disk *disks, size_t n)
{
	size_t i, j, k;

	for (j = 0; j < BLKIO_NR_OP_COUNTERS; j++) {
		const struct blkio_op_counter *t = &blkio_op_counters[j];

		if (!t->prom)
			continue;
		family(m, t->prom, "counter", t->unit, t->help);
		for (i = 0; i < n; i++)
			for (k = 0; k < BLKIO_NR_OPS; k++)
				counter(m, t->prom, &disks[i], "op", blkio_op_names[k],
					blkio_counter_get(&disks[i].b->c,
							  t->offset + k * sizeof(__u64)));
	}
}

/*
 * The other counters of bpf/blkio_counters.h with a family: a family each, but those
 * of lost_events, one family told apart by the label kind.
 */
static void disk_counter_families(struct om *m, const struct om_disk *disks, size_t n)
{
	const struct blkio_counter *t;
	size_t i, k;

	for (k = 0; k < BLKIO_NR_COUNTERS; k++) {
		t = &blkio_counters_table[k];
		if (!t->prom || t->prom_kind)
			continue;
		family(m, t->prom, "counter", NULL, t->help);
		for (i = 0; i < n; i++)
			counter(m, t->prom, &disks[i], NULL, NULL,
				blkio_counter_get(&disks[i].b->c, t->offset));
	}
	/* the family of every counter with a kind */
	family(m, blkio_counters_table[BLKIO_CTR_lost_records].prom, "counter", NULL,
	       "Events the tracer could not account: --snoop records the ring buffer had no room "
	       "for (record), completions never seen (completion), requests outside the slot "
	       "table (slot_overflow).");
	for (i = 0; i < n; i++)
		for (k = 0; k < BLKIO_NR_COUNTERS; k++) {
			t = &blkio_counters_table[k];
			if (t->prom_kind)
				counter(m, t->prom, &disks[i], "kind", t->prom_kind,
					blkio_counter_get(&disks[i].b->c, t->offset));
		}
}

static const char *const limit_names[OM_NR_LIMITS] = { "max_sectors_kb", "max_segments" };

static void bound_families(struct om *m, const struct om_disk *disks, size_t n)
{
	size_t i, k;

	family(m, "data_requests", "counter", NULL,
	       "Read and write requests with a payload: what the limit-bound shares are of.");
	for (i = 0; i < n; i++)
		counter(m, "data_requests", &disks[i], NULL, NULL, disks[i].data_requests);
	family(m, "limit_bound_requests", "counter", NULL,
	       "Data requests that reached a queue limit (the limit in force when they ran).");
	for (i = 0; i < n; i++)
		for (k = 0; k < OM_NR_LIMITS; k++)
			counter(m, "limit_bound_requests", &disks[i], "limit", limit_names[k],
				disks[i].bound[k]);
	family(m, "limit_bound_ratio", "gauge", NULL,
	       "Share of the data requests since the exporter started that reached a queue "
	       "limit (the findings' limit-bound shares).");
	for (i = 0; i < n; i++)
		for (k = 0; disks[i].data_requests && k < OM_NR_LIMITS; k++)
			sample_double(m, "limit_bound_ratio", "", disks[i].dev, "limit",
				      limit_names[k],
				      (double)disks[i].bound[k] / disks[i].data_requests);
}

/* Queue limits as gauges, in base units; a limit the kernel does not have is left out. */
static const struct {
	const char *name, *unit, *help;
	size_t offset;
	int64_t scale;
} limit_gauges[] = {
	{ "limit_max_sectors_bytes", "bytes", "The queue's max_sectors_kb, in bytes.",
	  offsetof(struct queue_limits, max_sectors_kb), 1024 },
	{ "limit_max_hw_sectors_bytes", "bytes", "The queue's max_hw_sectors_kb, in bytes.",
	  offsetof(struct queue_limits, max_hw_sectors_kb), 1024 },
	{ "limit_max_segments", NULL, "The queue's max_segments.",
	  offsetof(struct queue_limits, max_segments), 1 },
	{ "limit_max_segment_size_bytes", "bytes", "The queue's max_segment_size.",
	  offsetof(struct queue_limits, max_segment_size), 1 },
};

static void limit_families(struct om *m, const struct om_disk *disks, size_t n)
{
	unsigned int which;
	int64_t v;
	size_t i, k;

	for (k = 0; k < sizeof(limit_gauges) / sizeof(limit_gauges[0]); k++) {
		family(m, limit_gauges[k].name, "gauge", limit_gauges[k].unit,
		       limit_gauges[k].help);
		for (i = 0; i < n; i++) {
			v = *(const int64_t *)((const char *)&disks[i].dev->limits +
					       limit_gauges[k].offset);
			if (v >= 0 && v <= INT64_MAX / limit_gauges[k].scale)
				sample_u64(m, limit_gauges[k].name, "", disks[i].dev, NULL, NULL,
					   (uint64_t)(v * limit_gauges[k].scale));
		}
	}
	family(m, "max_request_bytes", "gauge", "bytes",
	       "The largest request the disk accepts, and the limit that sets it.");
	for (i = 0; i < n; i++) {
		v = device__max_request_bytes(disks[i].dev, &which);
		if (v > 0)
			sample_u64(m, "max_request_bytes", "", disks[i].dev, "limit",
				   device__limit_name(which), (uint64_t)v);
	}
}

static void xen_families(struct om *m, const struct om_disk *disks, size_t n)
{
	static const struct {
		const char *name, *help;
	} f[] = {
		{ "xen_blkfront_segments", "xen-blkfront: segments per request, as negotiated." },
		{ "xen_blkfront_indirect_descriptors",
		  "xen-blkfront: 1 when requests may use indirect descriptors (more than 11 "
		  "segments), else 0." },
		{ "xen_blkfront_max_indirect_segments",
		  "xen-blkfront: the module parameter max_indirect_segments (max on 3.11 to "
		  "4.5)." },
		{ "xen_blkfront_backend_limited",
		  "xen-blkfront: 1 when the backend granted fewer segments than the module asks "
		  "for." },
	};
	size_t i, k;

	for (k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		family(m, f[k].name, "gauge", NULL, f[k].help);
		for (i = 0; i < n; i++) {
			const struct xen_blkfront *x = &disks[i].dev->xen;
			int64_t v = k == 0   ? x->segments
				    : k == 1 ? x->indirect_descriptors
				    : k == 2 ? x->max_indirect_segments
					     : x->backend_limited;

			if (x->present && v >= 0)
				sample_u64(m, f[k].name, "", disks[i].dev, NULL, NULL, v);
		}
	}
}

static void up_family(struct om *m, const struct om_disk *disks, size_t n,
		      const struct om_self *self)
{
	size_t i;

	family(m, "up", "gauge", NULL,
	       "1 while the device's figures are live; 0 when a reload failed and left its "
	       "programs detached (its figures stand still) or not loaded yet (it has no "
	       "other series). A failed reload is tried again with a backoff.");
	for (i = 0; i < n; i++)
		sample_u64(m, "up", "", disks[i].dev, NULL, NULL, disks[i].live);
	for (i = 0; i < self->nr_untraced; i++)
		sample_u64(m, "up", "", &self->untraced[i], NULL, NULL, 0);
}

static void gauge_families(struct om *m, const struct om_disk *disks, size_t n)
{
	size_t i;

	family(m, "device", "info", NULL,
	       "A traced device: its disk, the kernel module of its driver.");
	for (i = 0; i < n; i++) {
		series(m, "device_info", "", disks[i].dev, "disk", disks[i].dev->name);
		fputs(",module=\"", m->f);
		put_escaped(m->f, disks[i].dev->module);
		fputs("\"} 1\n", m->f);
	}
	family(m, "in_flight", "gauge", NULL,
	       "Requests in flight now (of those issued since the tracer attached).");
	for (i = 0; i < n; i++)
		sample_u64(m, "in_flight", "", disks[i].dev, NULL, NULL,
			   disks[i].in_flight > 0 ? (uint64_t)disks[i].in_flight : 0);
	limit_families(m, disks, n);
	xen_families(m, disks, n);
}

/* Bucket edges, in the unit of the histogram's native buckets (le = edge as written). */
static const uint64_t size_le[] = {
	1023,	2047,	4095,	8191,	16383,	 32767,	  45055,   49151,   65535,
	131071, 135167, 262143, 524287, 1048575, 1052671, 1310719, 2097151, 4194303,
};
static const uint64_t segments_le[] = {
	1, 2, 4, 8, 10, 11, 16, 31, 32, 64, 127, 128, 255, 256, 511
};
static const uint64_t depth_le[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 511, 1023, 2047, 4095 };
/* Seconds; in ns for the native buckets. */
static const double latency_le[] = { 1e-5,   2.5e-5, 5e-5, 1e-4,   2.5e-4, 5e-4, 1e-3,
				     2.5e-3, 5e-3,   1e-2, 2.5e-2, 5e-2,   0.1,	 0.25,
				     0.5,    1,	     2.5,  5,	   10 };

/* One histogram's series: every le edge, +Inf, _sum and _count. */
struct om_hist {
	const char *name;
	enum hist_kind kind;
	const __u64 *h;
	size_t nr_le;
	const uint64_t *le;    /* integer edges (native units) */
	const double *le_secs; /* or edges in seconds over ns buckets */
	const char *key, *value;
	uint64_t sum;	 /* sum of the samples, in native units */
	double sum_secs; /* or in seconds */
};

static void hist_le(struct om *m, const struct om_hist *x, const struct device *dev, uint64_t le,
		    double le_secs, uint64_t count)
{
	char v[40];

	series(m, x->name, "_bucket", dev, x->key, x->value);
	if (x->le_secs)
		snprintf(v, sizeof(v), "%.9g", le_secs);
	else
		snprintf(v, sizeof(v), "%" PRIu64, le);
	fprintf(m->f, ",le=\"%s\"} %" PRIu64 "\n", v, count);
}

static void histogram(struct om *m, const struct om_hist *x, const struct om_disk *disk)
{
	const struct device *dev = disk->dev;
	unsigned int i = 0, nb = hist_nr_buckets(x->kind);
	uint64_t cum = 0, total = hist_total(x->h, nb);
	size_t e;

	for (e = 0; e < x->nr_le; e++) {
		uint64_t le = x->le_secs ? (uint64_t)llround(x->le_secs[e] * 1e9) : x->le[e];

		/* A native bucket counts below le when every value it holds is at most le. */
		for (; i < nb && hist_bucket_hi(x->kind, i) != UINT64_MAX &&
		       hist_bucket_hi(x->kind, i) - 1 <= le;
		     i++)
			cum += x->h[i];
		hist_le(m, x, dev, le, x->le_secs ? x->le_secs[e] : 0, cum);
	}
	series(m, x->name, "_bucket", dev, x->key, x->value);
	fprintf(m->f, ",le=\"+Inf\"} %" PRIu64 "\n", total);
	if (x->le_secs)
		sample_double(m, x->name, "_sum", dev, x->key, x->value, x->sum_secs);
	else
		sample_u64(m, x->name, "_sum", dev, x->key, x->value, x->sum);
	sample_u64(m, x->name, "_count", dev, x->key, x->value, total);
	sample_created(m, x->name, dev, x->key, x->value, disk->created);
}

#define NR(a) (sizeof(a) / sizeof((a)[0]))

/* The segment and depth histograms: exact counts, their sums kept beside them. */
static void count_histogram(struct om *m, const struct om_disk *disks, size_t n,
			    enum blkio_count_kind kind)
{
	bool segs = kind == BLKIO_COUNT_SEGMENTS;
	const char *name = segs ? "request_segments" : "queue_depth";
	size_t i;

	family(m, name, "histogram", NULL,
	       segs ? "Physical segments per read or write request."
		    : "Requests of the device in flight when one is issued, that one included; at "
		      "high rates a random sample of the issues, each counted for as many "
		      "(--exact-depth: every issue).");
	for (i = 0; i < n; i++) {
		struct om_hist x = { .name = name,
				     .kind = HIST_KIND_COUNT,
				     .h = disks[i].b->count[kind],
				     .nr_le = segs ? NR(segments_le) : NR(depth_le),
				     .le = segs ? segments_le : depth_le,
				     .sum = segs ? disks[i].b->c.sum_segments
						 : disks[i].b->c.sum_depth };

		histogram(m, &x, &disks[i]);
	}
}

static void size_histograms(struct om *m, const struct om_disk *disks, size_t n)
{
	static const char *const ops[BLKIO_SIZE_SEGMENT] = { "read", "write", "other" };
	size_t i, k;

	family(m, "request_bytes", "histogram", "bytes",
	       "Bytes per request with a payload, per operation (other: discards and the rest).");
	for (i = 0; i < n; i++) {
		const struct blkio_counters *c = &disks[i].b->c;

		for (k = 0; k < BLKIO_SIZE_SEGMENT; k++) {
			struct om_hist x = { .name = "request_bytes",
					     .kind = HIST_KIND_SIZE,
					     .h = disks[i].b->size[k],
					     .nr_le = NR(size_le),
					     .le = size_le,
					     .key = "op",
					     .value = ops[k] };

			x.sum = k < BLKIO_SIZE_OTHER
					? c->bytes[k]
					: c->bytes[BLKIO_OP_DISCARD] + c->bytes[BLKIO_OP_OTHER];
			histogram(m, &x, &disks[i]);
		}
	}
	count_histogram(m, disks, n, BLKIO_COUNT_SEGMENTS);
	count_histogram(m, disks, n, BLKIO_COUNT_DEPTH);
}

static void latency_histograms(struct om *m, const struct om_disk *disks, size_t n)
{
	static const char *const kinds[BLKIO_NR_LATS] = { "queue", "device", "total" };
	size_t i, k;

	family(m, "latency_seconds", "histogram", "seconds",
	       "Request latency: queue (allocation to issue), device (issue to completion), "
	       "total (allocation to completion).");
	for (i = 0; i < n; i++)
		for (k = 0; k < BLKIO_NR_LATS; k++) {
			struct om_hist x = { .name = "latency_seconds",
					     .kind = HIST_KIND_LAT,
					     .h = disks[i].b->lat[k],
					     .nr_le = NR(latency_le),
					     .le_secs = latency_le,
					     .key = "kind",
					     .value = kinds[k],
					     .sum_secs = disks[i].b->c.sum_ns[k] / 1e9 };
			histogram(m, &x, &disks[i]);
		}
}

/* A ring counter family: every probed disk's value at each of the labels. */
static void ring_counter(struct om *m, const struct om_disk *disks, size_t n, const char *name,
			 const char *unit, const char *help, const char *key,
			 const char *const *values, const size_t *offsets, size_t nv)
{
	size_t i, k;

	family(m, name, "counter", unit, help);
	for (i = 0; i < n; i++)
		for (k = 0; disks[i].ring && k < nv; k++)
			counter(m, name, &disks[i], key, key ? values[k] : NULL,
				*(const __u64 *)((const char *)&disks[i].b->ring + offsets[k]));
}

#define RING_AT(f) offsetof(struct blkfront_counts, f)

/* What xen-blkfront did on its shared rings, for the disks whose rings are probed. */
static void ring_families(struct om *m, const struct om_disk *disks, size_t n)
{
	static const char *const kinds[] = { "direct", "indirect", "no_data" };
	static const size_t kind_at[] = { RING_AT(direct), RING_AT(indirect), RING_AT(no_data) };
	static const char *const grants[] = { "data", "indirect_page", "copied" };
	static const size_t grant_at[] = { RING_AT(grants), RING_AT(indirect_pages),
					   RING_AT(copied_grants) };
	static const char *const reasons[] = { "ring_full", "no_grants" };
	static const size_t reason_at[] = { RING_AT(full_stops), RING_AT(grant_stops) };
	static const size_t fulls_at[] = { RING_AT(fulls) };
	size_t i, any = 0;

	for (i = 0; i < n; i++)
		any += disks[i].ring;
	if (!any)
		return;
	ring_counter(m, disks, n, "xen_ring_requests", NULL,
		     "xen-blkfront: requests put on the shared ring, with their grants in the "
		     "request (direct), in indirect descriptor pages, or without data.",
		     "kind", kinds, kind_at, NR(kinds));
	ring_counter(m, disks, n, "xen_ring_grants", NULL,
		     "xen-blkfront: 4 KiB grants of data, of indirect descriptor pages, and those "
		     "whose data was copied (persistent grants, bounce buffers).",
		     "kind", grants, grant_at, NR(grants));
	ring_counter(m, disks, n, "xen_ring_fulls", NULL,
		     "xen-blkfront: times a request took a ring's last free slot.", NULL, NULL,
		     fulls_at, 1);
	ring_counter(m, disks, n, "xen_ring_turned_away", NULL,
		     "xen-blkfront: requests its .queue_rq turned away (to come again): the ring "
		     "full, or no grant references.",
		     "reason", reasons, reason_at, NR(reasons));
	family(m, "xen_ring_full_seconds", "counter", "seconds",
	       "xen-blkfront: time its rings were full (summed over the rings).");
	for (i = 0; i < n; i++)
		if (disks[i].ring) {
			sample_double(m, "xen_ring_full_seconds", "_total", disks[i].dev, NULL,
				      NULL, disks[i].b->ring.full_ns / 1e9);
			sample_created(m, "xen_ring_full_seconds", disks[i].dev, NULL, NULL,
				       disks[i].created);
		}
	family(m, "xen_ring_slots_in_use", "histogram", NULL,
	       "xen-blkfront: ring slots in use when a request goes on the ring, that one "
	       "included.");
	for (i = 0; i < n; i++) {
		struct om_hist x = { .name = "xen_ring_slots_in_use",
				     .kind = HIST_KIND_COUNT,
				     .h = disks[i].b->ring.occupancy,
				     .nr_le = NR(depth_le),
				     .le = depth_le,
				     .sum = disks[i].b->ring.occupancy_sum };

		if (disks[i].ring)
			histogram(m, &x, &disks[i]);
	}
	family(m, "xen_ring_backend_seconds", "histogram", "seconds",
	       "xen-blkfront: from a request's submission on the ring to the backend's "
	       "interrupt that answered it.");
	for (i = 0; i < n; i++) {
		struct om_hist x = { .name = "xen_ring_backend_seconds",
				     .kind = HIST_KIND_LAT,
				     .h = disks[i].b->ring.backend_lat,
				     .nr_le = NR(latency_le),
				     .le_secs = latency_le,
				     .sum_secs = disks[i].b->ring.backend_ns / 1e9 };

		if (disks[i].ring)
			histogram(m, &x, &disks[i]);
	}
}

#undef RING_AT

/* A counter of the exporter's own, and when it began. */
static void self_counter(struct om *m, const char *name, const char *help, uint64_t v,
			 const struct om_self *self)
{
	family(m, name, "counter", NULL, help);
	fprintf(m->f, PREFIX "%s_total %" PRIu64 "\n", name, v);
	if (m->fmt == OM_OPENMETRICS_1 && self->created > 0)
		fprintf(m->f, PREFIX "%s_created %.3f\n", name, self->created);
}

static void self_families(struct om *m, const struct om_disk *disks, size_t n,
			  const struct om_self *self)
{
	size_t i, live = 0;

	for (i = 0; i < n; i++)
		live += disks[i].live;
	family(m, "build", "info", NULL,
	       "The exporter: its version and the BPF program flavour in use.");
	fprintf(m->f, PREFIX "build_info{version=\"");
	put_escaped(m->f, self->version);
	fprintf(m->f, "\",flavour=\"");
	put_escaped(m->f, self->flavour);
	fprintf(m->f, "\"} 1\n");
	family(m, "traced_devices", "gauge", NULL,
	       "Devices traced now, their programs attached (blktrace_bench_up 1).");
	fprintf(m->f, PREFIX "traced_devices %zu\n", live);
	self_counter(m, "tracer_reloads",
		     "Times the BPF programs were reloaded for a disk that came, went, moved or "
		     "was resized.",
		     self->reloads, self);
	self_counter(m, "tracer_reload_failures",
		     "Reloads that failed (each said on stderr), every one tried again with a "
		     "backoff.",
		     self->reload_failures, self);
	self_counter(m, "tracer_skipped_runs",
		     "Runs of the BPF programs the kernel skipped (a tracepoint hit while the "
		     "same program ran on that CPU), any disk's: the counts may fall short by as "
		     "many.",
		     self->skipped, self);
}

int openmetrics__write(FILE *f, enum om_format fmt, const struct om_disk *disks, size_t n,
		       const struct om_self *self)
{
	struct om m = { f, fmt };

	per_op_counters(&m, disks, n);
	disk_counter_families(&m, disks, n);
	bound_families(&m, disks, n);
	up_family(&m, disks, n, self);
	gauge_families(&m, disks, n);
	size_histograms(&m, disks, n);
	latency_histograms(&m, disks, n);
	ring_families(&m, disks, n);
	self_families(&m, disks, n, self);
	if (fmt == OM_OPENMETRICS_1)
		fputs("# EOF\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
