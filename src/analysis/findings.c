// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Limit-bound explanations. The trace keeps marginal histograms (sizes, segments,
 * bytes per segment), not the joint distribution, so each cause is counted on its own
 * histogram at a bucket boundary:
 *   max_sectors_kb     size >= max_sectors_kb              (summary.size_bound)
 *   max_segment_size   size >= max_segments x max_segment_size, when that is below
 *                      max_sectors_kb: only full segments, all of them, get there
 *   max_segments       segments >= max_segments, less the max_segment_size ones
 *   uncapped           the rest; requests bound by two limits at once are counted once
 *                      by taking the larger of the size and segment counts
 * On xen-blkfront max_hw_sectors_kb is derived from the negotiated segments (one 4 KiB
 * grant each), so a request at the size cap is there because of the segments: the
 * story is the segment count and the module parameter, unless the user lowered
 * max_sectors_kb below it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "analysis/findings.h"
#include "base/fmt.h"
#include "analysis/block_summary.h"

/* Below this share a limit did not shape the run; the largest finding is kept regardless. */
#define FINDING_MIN_SHARE 0.05

struct ctx {
	const struct device *dev;
	const struct block_stats *b;
	const struct job_params *job; /* NULL: not the built-in workload */
	struct block_summary s;
	uint64_t n;			  /* data requests */
	struct finding all[FINDINGS_MAX]; /* every finding, sorted before the caller gets some */
	size_t nr;
};

static struct finding *add(struct ctx *c, const char *kind, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static struct finding *add(struct ctx *c, const char *kind, uint64_t count, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;

	if (c->nr >= FINDINGS_MAX)
		return NULL;
	f = &c->all[c->nr++];
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	f->share = c->n ? (double)count / c->n : 0;
	if (f->share > 1)
		f->share = 1;
	va_start(ap, fmt);
	vsnprintf(f->text, sizeof(f->text), fmt, ap);
	va_end(ap);
	return f;
}

static double pct(const struct ctx *c, uint64_t count)
{
	return c->n ? 100.0 * count / c->n : 0;
}

static bool matters(const struct ctx *c, uint64_t count)
{
	return count && (double)count / c->n >= FINDING_MIN_SHARE;
}

/* Bytes a limit in KiB stands for; -1 when unknown or absurd. */
static int64_t kib(int64_t v)
{
	return v < 0 || v > INT64_MAX / 1024 ? -1 : v * 1024;
}

static void sectors_finding(struct ctx *c, uint64_t count)
{
	const struct queue_limits *l = &c->dev->limits;
	int64_t cap = kib(l->max_sectors_kb), hw = kib(l->max_hw_sectors_kb), segs = -1, more;
	char a[32], b[32], tail[192];

	if (l->max_segments > 0 && l->max_segment_size > 0 &&
	    __builtin_mul_overflow(l->max_segments, l->max_segment_size, &segs))
		segs = INT64_MAX;
	more = hw;
	if (segs > 0 && (more < 0 || segs < more))
		more = segs;
	if (more > cap && more == hw)
		snprintf(tail, sizeof(tail),
			 "; max_hw_sectors_kb=%" PRId64 " would allow %s (%.1fx)",
			 l->max_hw_sectors_kb, fmt__size(b, sizeof(b), more), (double)more / cap);
	else if (more > cap)
		snprintf(tail, sizeof(tail),
			 "; raising it would allow %s (%.1fx), where "
			 "max_segments x max_segment_size stops it",
			 fmt__size(b, sizeof(b), more), (double)more / cap);
	else if (hw == cap)
		snprintf(tail, sizeof(tail),
			 ", which is max_hw_sectors_kb: the driver takes no more");
	else
		tail[0] = '\0';
	add(c, "max_sectors_kb", count,
	    "%.1f%% of requests were capped at %s by max_sectors_kb=%" PRId64 "%s.", pct(c, count),
	    fmt__size(a, sizeof(a), cap), l->max_sectors_kb, tail);
}

static void segments_finding(struct ctx *c, uint64_t count)
{
	const struct queue_limits *l = &c->dev->limits;
	double per_seg = c->s.seg_bytes.mean;
	char a[32], tail[128] = "";

	/* Typical segments this small mean scattered pages, not a size the device wanted. */
	if (l->max_sectors_kb > 0 && per_seg * l->max_segments < kib(l->max_sectors_kb))
		snprintf(tail, sizeof(tail), ", below max_sectors_kb=%" PRId64, l->max_sectors_kb);
	add(c, "max_segments", count,
	    "%.1f%% of requests stopped at max_segments=%" PRId64
	    " with %s per segment on average%s.",
	    pct(c, count), l->max_segments, fmt__size(a, sizeof(a), per_seg), tail);
}

static void segment_size_finding(struct ctx *c, uint64_t count, int64_t cap)
{
	const struct queue_limits *l = &c->dev->limits;
	char a[32], b[32];

	add(c, "max_segment_size", count,
	    "%.1f%% of requests filled all max_segments=%" PRId64
	    " segments to max_segment_size=%s: %s, below max_sectors_kb=%" PRId64 ".",
	    pct(c, count), l->max_segments, fmt__size(a, sizeof(a), l->max_segment_size),
	    fmt__size(b, sizeof(b), cap), l->max_sectors_kb);
}

/*
 * What raises the segments, where xenstore said what the backend offers: a guest
 * parameter up to the offer, never beyond; only the host past it.
 */
static void xen_segments_advice(const struct xen_blkfront *x, char *tail, size_t len)
{
	int64_t cap = device__xen_segments_cap(x);
	char why[160], param[80];

	device__xen_segments_why(x, why, sizeof(why));
	if (x->segments_reason == XEN_SEGMENTS_MODULE_OFF) {
		device__xen_boot_parameter(x, XEN_DEFAULT_INDIRECT_SEGMENTS, param, sizeof(param));
		snprintf(tail, len, "%s; %s (the default) turns them on", why, param);
	} else if (x->segments_reason == XEN_SEGMENTS_MODULE_ASKS &&
		   x->max_indirect_segments < cap) {
		device__xen_boot_parameter(x, x->max_indirect_segments, param, sizeof(param));
		snprintf(tail, len,
			 "%s now, a larger value raises it up to the %" PRId64
			 " the backend offers",
			 param, cap);
	} else if (x->segments_reason == XEN_SEGMENTS_MODULE_ASKS) {
		device__xen_boot_parameter(x, x->max_indirect_segments, param, sizeof(param));
		snprintf(tail, len, "%s now, all the backend offers: only the host can raise it",
			 param);
	} else {
		snprintf(tail, len, "%s: only the host can raise it, no guest parameter", why);
	}
}

static void xen_segments_finding(struct ctx *c, uint64_t count)
{
	const struct xen_blkfront *x = &c->dev->xen;
	char a[32], param[80], tail[320];

	fmt__size(a, sizeof(a), (double)x->segments * XEN_SEGMENT_BYTES);
	if (x->segments_reason != XEN_SEGMENTS_UNKNOWN) {
		xen_segments_advice(x, tail, sizeof(tail));
	} else if (x->backend_limited) {
		snprintf(tail, sizeof(tail),
			 "the module asks for %" PRId64 " but the backend limits it to %" PRId64,
			 x->max_indirect_segments, x->segments);
	} else if (!x->indirect_descriptors) {
		device__xen_boot_parameter(x, XEN_DEFAULT_INDIRECT_SEGMENTS, param, sizeof(param));
		snprintf(tail, sizeof(tail),
			 "%s (the default) turns them on where the backend offers them", param);
	} else if (x->max_indirect_segments >= 0) {
		device__xen_boot_parameter(x, x->max_indirect_segments, param, sizeof(param));
		snprintf(tail, sizeof(tail),
			 "%s now, a larger value raises it where the backend offers more", param);
	} else {
		snprintf(tail, sizeof(tail), "a larger %s raises it", device__xen_param_name(x));
	}
	if (!x->indirect_descriptors)
		add(c, "max_segments", count,
		    "indirect descriptors are off: %" PRId64
		    " segments cap requests at %s, reached by %.1f%% of requests; %s.",
		    x->segments, a, pct(c, count), tail);
	else
		add(c, "max_segments", count,
		    "%" PRId64 " indirect segments: %s, reached by %.1f%% of requests; %s.",
		    x->segments, a, pct(c, count), tail);
}

static void xen_indirect_finding(struct ctx *c)
{
	const struct xen_blkfront *x = &c->dev->xen;
	const struct blkfront_counts *r = &c->b->ring;
	uint64_t count = hist_count_at_least(HIST_KIND_COUNT, c->b->count[BLKIO_COUNT_SEGMENTS],
					     XEN_DIRECT_SEGMENTS + 1);

	/* Where the ring was probed, what the driver did rather than what the segments say. */
	if (r->direct + r->indirect) {
		struct finding *f = add(c, "xen_indirect", r->indirect,
					"%.1f%% of requests went on the ring with indirect "
					"descriptors (%llu of %llu).",
					100.0 * r->indirect / (r->direct + r->indirect),
					(unsigned long long)r->indirect,
					(unsigned long long)(r->direct + r->indirect));

		if (f)
			f->share = (double)r->indirect / (r->direct + r->indirect);
		return;
	}
	if (x->indirect_descriptors || count)
		add(c, "xen_indirect", count,
		    "%.1f%% of requests needed indirect descriptors (more than %d segments).",
		    pct(c, count), XEN_DIRECT_SEGMENTS);
	else
		add(c, "xen_indirect", 0,
		    "No request used indirect descriptors (more than %d segments): they are "
		    "off on this disk.",
		    XEN_DIRECT_SEGMENTS);
}

/* Below this share of the I/O time a full ring did not hold requests back. */
#define RING_FULL_MIN_SHARE 0.2

/*
 * The ring full a good share of the time: requests waited in the guest for a slot. What
 * would hold more, only where the backend offers it (and more queues only with vCPUs).
 */
static void xen_ring_finding(struct ctx *c)
{
	const struct xen_blkfront *x = &c->dev->xen;
	const struct blkfront_counts *r = &c->b->ring;
	double share = c->s.io_seconds > 0 ? r->full_ns / 1e9 / c->s.io_seconds : 0;
	char advice[192] = "", queue[80] = "", num[32];
	int64_t order = -1;
	struct finding *f;

	if (!r->fulls || share < RING_FULL_MIN_SHARE)
		return;
	if (x->ring_pages > 0)
		order = __builtin_ctzll((unsigned long long)x->ring_pages);
	if (x->backend.max_ring_page_order > order && order >= 0)
		snprintf(advice, sizeof(advice),
			 ": a larger ring would hold more (xen_blkfront.max_ring_page_order, the "
			 "backend offers up to %lld)",
			 (long long)x->backend.max_ring_page_order);
	else if (x->backend.max_queues > x->queues && x->queues > 0)
		snprintf(advice, sizeof(advice),
			 ": more rings would hold more (xen_blkfront.max_queues, one per vCPU; "
			 "the backend offers %lld)",
			 (long long)x->backend.max_queues);
	else if (x->backend_read)
		snprintf(advice, sizeof(advice),
			 "; the backend offers no larger ring nor more queues to use");
	/* Beyond the ring's slots (the disk's tags) requests wait in the guest's queue. */
	if (c->s.lat[BLKIO_LAT_QUEUE].count) {
		fmt__ns(num, sizeof(num), c->s.lat[BLKIO_LAT_QUEUE].mean);
		snprintf(queue, sizeof(queue), " (%s on average from allocation to issue)", num);
	}
	f = add(c, "xen_ring_full", 0,
		"The xen-blkfront ring was full %.0f%% of the time (%lld slots): requests "
		"waited in the guest for a slot%s%s.",
		100 * (share > 1 ? 1 : share), (long long)x->ring_requests, queue, advice);
	if (f)
		f->share = share > 1 ? 1 : share;
}

/* " and merging (N bios merged into writes)", by the operation the bios merged into. */
static void merged_clause(const struct blkio_counters *k, char *buf, size_t len)
{
	unsigned long long r = k->merges_op[BLKIO_OP_READ], w = k->merges_op[BLKIO_OP_WRITE];

	buf[0] = '\0';
	if (r && w)
		snprintf(buf, len, " and merging (%llu bios merged into reads, %llu into writes)",
			 r, w);
	else if (r || w)
		snprintf(buf, len, " and merging (%llu bios merged into %s)", r ? r : w,
			 r ? "reads" : "writes");
}

/*
 * Who sized requests no limit stopped, as far as the application is known; verb
 * (" decided" or "") goes where the sentence reads.
 */
static void decider(const struct ctx *c, const char *merged, const char *verb, char *buf,
		    size_t len)
{
	const struct job_params *p = c->job;
	char bs[32];

	if (!p) {
		snprintf(buf, len, "what the application or the page cache submitted%s%s", merged,
			 verb);
		return;
	}
	fmt__size(bs, sizeof(bs), (double)p->bs);
	if (p->direct)
		snprintf(buf, len, "the application's I/O size (%s)%s%s", bs, merged, verb);
	else if (strstr(p->rw, "write"))
		snprintf(buf, len,
			 "the page cache's writeback%s%s, not the application's %s writes", merged,
			 verb, bs);
	else
		snprintf(buf, len, "the page cache%s%s, not the application's %s reads", merged,
			 verb, bs);
}

static void uncapped_finding(struct ctx *c, uint64_t count)
{
	const struct blkio_counters *k = &c->b->c;
	unsigned int which = 0;
	int64_t biggest = device__max_request_bytes(c->dev, &which);
	char a[32], b[32], limit[96] = "", merged[96], who[192];

	if (biggest > 0)
		snprintf(limit, sizeof(limit), " (the disk accepts %s, set by %s)",
			 fmt__size(a, sizeof(a), biggest), device__limit_name(which));
	merged_clause(k, merged, sizeof(merged));
	decider(c, merged, k->splits ? "" : " decided", who, sizeof(who));
	fmt__size(b, sizeof(b), c->s.size.p50);
	/* A bio split at a limit leaves a smaller last piece: below the limit, not the app's. */
	if (k->splits)
		add(c, "uncapped", count,
		    "%.1f%% of requests stayed below every limit%s, %s per request at the "
		    "median: the remainders of %llu bio splits, or %s.",
		    pct(c, count), limit, b, (unsigned long long)k->splits, who);
	else
		add(c, "uncapped", count,
		    "%.1f%% of requests stayed below every limit%s: %s, %s per request at the "
		    "median.",
		    pct(c, count), limit, who, b);
}

/* Read requests the page cache issued ahead: it sized them, not the application. */
static void read_ahead_finding(struct ctx *c, uint64_t count)
{
	const struct job_params *p = c->job;
	const __u64 *reads = c->b->size[BLKIO_SIZE_READ];
	char ra[48] = "", app[64] = "", b[32];
	double p50 = hist_percentile(HIST_KIND_SIZE, reads, 50, c->b->max.bytes);

	if (c->dev->limits.read_ahead_kb >= 0)
		snprintf(ra, sizeof(ra), " (read_ahead_kb=%lld)",
			 (long long)c->dev->limits.read_ahead_kb);
	if (p && p->bs) {
		char bs[32];

		snprintf(app, sizeof(app), "'s %s reads", fmt__size(bs, sizeof(bs), (double)p->bs));
	}
	add(c, "read_ahead", count,
	    "%.1f%% of requests were read-ahead%s: the page cache sized them, not the "
	    "application%s; %s per read request at the median.",
	    pct(c, count), ra, app, fmt__size(b, sizeof(b), p50));
}

static void bio_based_finding(struct ctx *c)
{
	const struct device *d = c->dev;
	char under[DEVICE_MAX_STACK * (DEVICE_NAME_MAX + 2)] = "";
	size_t used = 0;
	unsigned int i;

	for (i = 0; i < d->nr_slaves && used < sizeof(under); i++)
		used += snprintf(under + used, sizeof(under) - used, "%s%s", i ? ", " : "",
				 d->slaves[i]);
	if (d->nr_slaves)
		add(c, "bio_based", 0,
		    "%s is bio-based: its figures are the bios submitted to it, as the file "
		    "system or application sized them; its requests are issued on the disks "
		    "underneath (%s), traced with it.",
		    d->name, under);
	else
		add(c, "bio_based", 0,
		    "%s is bio-based: its figures are the bios submitted to it; it has no disks "
		    "underneath, so no request is ever issued for them.",
		    d->name);
}

static bool before(const struct finding *a, const struct finding *b)
{
	bool ax = !strcmp(a->kind, "xen_indirect"), bx = !strcmp(b->kind, "xen_indirect");

	return ax != bx ? bx : a->share > b->share;
}

/* Insertion sort: stable, so equal shares keep the order causes were added in. */
static void sort_findings(struct finding *f, size_t n)
{
	struct finding t;
	size_t i, j;

	for (i = 1; i < n; i++) {
		t = f[i];
		for (j = i; j > 0 && before(&t, &f[j - 1]); j--)
			f[j] = f[j - 1];
		f[j] = t;
	}
}

bool findings__is_limit(const struct finding *f)
{
	return !strcmp(f->kind, "max_sectors_kb") || !strcmp(f->kind, "max_segments") ||
	       !strcmp(f->kind, "max_segment_size");
}

/*
 * What stayed below every limit: read-ahead (counted exactly, though not which of its
 * requests reached a limit: those below are assumed read-ahead first) and the rest.
 */
static void below_limits(struct ctx *c, uint64_t uncapped, size_t limit_findings)
{
	uint64_t ra = c->b->c.ra_requests < c->n ? c->b->c.ra_requests : c->n;
	bool ra_found = matters(c, ra);
	uint64_t other = ra_found ? uncapped - (ra < uncapped ? ra : uncapped) : uncapped;

	if (ra_found)
		read_ahead_finding(c, ra);
	if (matters(c, other) || (!limit_findings && !ra_found))
		uncapped_finding(c, other);
}

int findings__compute(const struct device *dev, const struct block_stats *b,
		      const struct job_params *job, struct finding *out, size_t max)
{
	const struct queue_limits *l;
	struct ctx c = { .dev = dev, .b = b, .job = job && job->rw[0] ? job : NULL };
	uint64_t by_size = 0, by_segsize = 0, by_segs = 0, capped;
	int64_t segcap = -1;
	bool xen_story;
	size_t limit_findings;

	if (!dev || !b || (!out && max))
		return -EINVAL;
	l = &dev->limits;
	block_summary__compute(b, l, &c.s);
	c.n = c.s.data_requests;
	/* Bios are not shaped by queue limits: those apply below, per layer (layers.c). */
	if (dev->bio_based) {
		bio_based_finding(&c);
		goto out;
	}
	if (!c.n)
		goto out;
	/* Unless max_sectors_kb was lowered, xen's size cap is its segment count. */
	xen_story = dev->xen.present && dev->xen.segments > 0 &&
		    dev->xen.segments <= INT64_MAX / XEN_SEGMENT_BYTES &&
		    (l->max_sectors_kb < 0 ||
		     kib(l->max_sectors_kb) >= dev->xen.segments * XEN_SEGMENT_BYTES);
	if (l->max_segments > 0 && l->max_segment_size > 0 &&
	    __builtin_mul_overflow(l->max_segments, l->max_segment_size, &segcap))
		segcap = -1;
	/* No limit known (a trace imported without --limits-from): nothing to weigh. */
	if (!xen_story && l->max_sectors_kb <= 0 && segcap <= 0 && l->max_segments <= 0)
		goto out;
	if (xen_story) {
		by_segs = c.s.segments_bound;
		if (c.s.size_bound > by_segs)
			by_segs = c.s.size_bound;
		if (matters(&c, by_segs))
			xen_segments_finding(&c, by_segs);
		capped = by_segs;
	} else {
		by_size = c.s.size_bound;
		if (segcap > 0 && (l->max_sectors_kb < 0 || segcap < kib(l->max_sectors_kb)))
			by_segsize = hist_count_at_least(HIST_KIND_SIZE, c.s.size_all, segcap);
		by_segs = c.s.segments_bound > by_segsize ? c.s.segments_bound - by_segsize : 0;
		if (matters(&c, by_size))
			sectors_finding(&c, by_size);
		if (matters(&c, by_segsize))
			segment_size_finding(&c, by_segsize, segcap);
		if (matters(&c, by_segs))
			segments_finding(&c, by_segs);
		capped = by_size + by_segsize > c.s.segments_bound ? by_size + by_segsize
								   : c.s.segments_bound;
	}
	limit_findings = c.nr;
	if (capped > c.n)
		capped = c.n;
	below_limits(&c, c.n - capped, limit_findings);
	if (dev->xen.present) {
		xen_ring_finding(&c);
		xen_indirect_finding(&c);
	}
	sort_findings(c.all, c.nr);
out:
	if (c.nr > max)
		c.nr = max;
	if (c.nr)
		memcpy(out, c.all, c.nr * sizeof(*out));
	return c.nr;
}
