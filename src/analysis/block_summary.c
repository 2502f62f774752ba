// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The figures of one set of statistics; see block_summary.h. */
#include <string.h>
#include "analysis/block_summary.h"

/* Count, mean (exact, from sum), percentiles and max of one histogram. */
static void dist_fill(struct dist *d, enum hist_kind kind, const __u64 *h, uint64_t sum,
		      uint64_t max)
{
	unsigned int n = hist_nr_buckets(kind);

	d->count = hist_total(h, n);
	d->mean = d->count ? (double)sum / d->count : 0;
	d->max = d->count ? max : 0;
	d->p50 = hist_percentile(kind, h, 50, max);
	d->p90 = hist_percentile(kind, h, 90, max);
	d->p99 = hist_percentile(kind, h, 99, max);
	d->p999 = hist_percentile(kind, h, 99.9, max);
}

/*
 * Depth within the hardware queues: the mean from the exact buckets (a depth beyond them,
 * 512 and more, counts as its bucket's floor), the maximum the queues' own.
 */
static void hwq_fill(struct dist *d, const struct hwq_stats *q)
{
	uint64_t sum = 0, max = 0;
	unsigned int k;

	for (k = 1; k < HIST_COUNT_BUCKETS; k++)
		sum += q->depth[k] * hist_bucket_lo(HIST_KIND_COUNT, k);
	for (k = 0; k < q->nr && k < BLOCK_HWQS_MAX; k++)
		if (q->max_depth[k] > max)
			max = q->max_depth[k];
	dist_fill(d, HIST_KIND_COUNT, q->depth, sum, max);
}

/* No maximum is kept for bytes per segment: the highest bucket's floor stands in. */
static uint64_t top_bucket_lo(enum hist_kind kind, const __u64 *h)
{
	unsigned int i = hist_nr_buckets(kind);

	while (i-- > 0)
		if (h[i])
			return hist_bucket_lo(kind, i);
	return 0;
}

/* The mean of a count histogram whose values all lie in its exact buckets. */
static double exact_mean(const __u64 *h)
{
	uint64_t n = 0, sum = 0;
	unsigned int i;

	for (i = 0; i < HIST_COUNT_EXACT; i++) {
		n += h[i];
		sum += (uint64_t)i * h[i];
	}
	return n ? (double)sum / n : 0;
}

void block_summary__compute(const struct block_stats *b, const struct queue_limits *lim,
			    struct block_summary *s)
{
	const struct blkio_counters *c = &b->c;
	__u64 rw[HIST_SIZE_BUCKETS];
	uint64_t bytes = 0, rw_bytes;
	unsigned int i, k;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < HIST_SIZE_BUCKETS; i++) {
		rw[i] = b->size[BLKIO_SIZE_READ][i] + b->size[BLKIO_SIZE_WRITE][i];
		s->size_all[i] = rw[i] + b->size[BLKIO_SIZE_OTHER][i];
	}
	for (k = 0; k < BLKIO_NR_OPS; k++)
		bytes += c->bytes[k];
	rw_bytes = c->bytes[BLKIO_OP_READ] + c->bytes[BLKIO_OP_WRITE];

	dist_fill(&s->size, HIST_KIND_SIZE, s->size_all, bytes, b->max.bytes);
	dist_fill(&s->segments, HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS], c->sum_segments,
		  b->max.segments);
	dist_fill(&s->seg_bytes, HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT], 0,
		  top_bucket_lo(HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT]));
	/* Bytes per segment: the exact mean is total bytes over total segments. */
	s->seg_bytes.mean = c->sum_segments ? (double)rw_bytes / c->sum_segments : 0;
	dist_fill(&s->depth, HIST_KIND_COUNT, b->count[BLKIO_COUNT_DEPTH], c->sum_depth,
		  b->max.depth);
	for (k = 0; k < BLKIO_NR_LATS; k++)
		dist_fill(&s->lat[k], HIST_KIND_LAT, b->lat[k], c->sum_ns[k], b->max.ns[k]);
	if (b->hwq.nr > 1)
		hwq_fill(&s->hwq_depth, &b->hwq);

	for (k = 0; k < BLKIO_NR_OPS; k++)
		s->requests += c->requests[k];
	s->bytes = bytes;
	/* The I/O's own window: a command's I/O without its start-up and its exit. */
	if (b->max.first_issue_inv && b->max.last_complete > ~b->max.first_issue_inv)
		s->io_seconds = (b->max.last_complete - ~b->max.first_issue_inv) / 1e9;
	s->merges_per_request = s->requests ? (double)c->merges / s->requests : 0;
	s->data_requests = hist_total(rw, HIST_SIZE_BUCKETS);
	if (!lim || !s->data_requests)
		return;
	if (lim->max_sectors_kb > 0)
		s->size_bound = hist_count_at_least(HIST_KIND_SIZE, rw, lim->max_sectors_kb * 1024);
	if (lim->max_segments > 0)
		s->segments_bound = hist_count_at_least(
			HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS], lim->max_segments);
	s->limit_sectors = (double)s->size_bound / s->data_requests;
	s->limit_segments = (double)s->segments_bound / s->data_requests;
}

void ring_summary__compute(const struct blkfront_counts *r, bool present, double seconds,
			   struct ring_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->present = present;
	if (!present)
		return;
	s->requests = r->requests;
	s->direct = r->direct;
	s->indirect = r->indirect;
	s->no_data = r->no_data;
	s->grants = r->grants;
	s->indirect_pages = r->indirect_pages;
	s->copied_grants = r->copied_grants;
	s->full_stops = r->full_stops;
	s->grant_stops = r->grant_stops;
	s->waits = r->waits;
	s->unmatched = r->unmatched;
	s->wait_mean_ns = r->waits ? (double)r->wait_ns / r->waits : 0;
	s->full_share = seconds > 0 ? r->full_ns / 1e9 / seconds : 0;
	/* No maxima are kept: the highest bucket's floor stands in (exact for counts). */
	dist_fill(&s->grants_direct, HIST_KIND_COUNT, r->grants_direct, 0,
		  top_bucket_lo(HIST_KIND_COUNT, r->grants_direct));
	dist_fill(&s->grants_indirect, HIST_KIND_COUNT, r->grants_indirect, 0,
		  top_bucket_lo(HIST_KIND_COUNT, r->grants_indirect));
	dist_fill(&s->occupancy, HIST_KIND_COUNT, r->occupancy, r->occupancy_sum,
		  top_bucket_lo(HIST_KIND_COUNT, r->occupancy));
	dist_fill(&s->backend, HIST_KIND_LAT, r->backend_lat, r->backend_ns,
		  top_bucket_lo(HIST_KIND_LAT, r->backend_lat));
	/* The grants' exact mean: direct and indirect from the exact count buckets. */
	s->grants_direct.mean = exact_mean(r->grants_direct);
	s->grants_indirect.mean = exact_mean(r->grants_indirect);
}

void app_summary__compute(const struct app_stats *a, struct app_summary *s)
{
	double secs = a->ns / 1e9;

	memset(s, 0, sizeof(*s));
	s->bytes = a->bytes;
	s->ios = a->ios;
	s->seconds = secs;
	s->mb_per_s = secs > 0 ? a->bytes / secs / 1e6 : 0.0;
	s->mib_per_s = secs > 0 ? a->bytes / secs / 1048576 : 0.0;
	s->iops = secs > 0 ? a->ios / secs : 0.0;
	s->registered_bufs = a->registered_bufs;
	s->huge_bufs = a->huge_bufs;
	dist_fill(&s->lat, HIST_KIND_LAT, a->lat, a->lat_sum_ns, a->lat_max_ns);
}

void interval_sample__compute(struct interval_sample *s, const struct block_stats *b, double start,
			      double seconds)
{
	struct block_summary bs;
	unsigned int k;

	block_summary__compute(b, NULL, &bs);
	memset(s, 0, sizeof(*s));
	s->start = start;
	s->seconds = seconds;
	s->requests = bs.requests;
	s->bytes = bs.bytes;
	s->depth_mean = bs.depth.mean;
	s->depth_max = bs.depth.max;
	for (k = 0; k < BLKIO_NR_LATS; k++)
		s->p99_ns[k] = bs.lat[k].p99;
}
