// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Derived figures of one run, computed once; see summary.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/above.h"
#include "analysis/block_summary.h"
#include "analysis/summary.h"

static void set_metric(struct run_summary *s, enum metric_id id, double v)
{
	s->metric[id] = v;
	s->has_metric[id] = true;
}

/* The metric values of a run (metrics.h), from its summaries. */
static void fill_metrics(struct run_summary *s)
{
	const struct block_summary *b = &s->block;

	if (s->has_app) {
		set_metric(s, METRIC_APP_MB_PER_S, s->app.mb_per_s);
		set_metric(s, METRIC_APP_IOPS, s->app.iops);
		set_metric(s, METRIC_APP_LAT_MEAN, s->app.lat.mean);
		set_metric(s, METRIC_APP_LAT_P99, s->app.lat.p99);
	}
	if (!s->has_block)
		return;
	set_metric(s, METRIC_REQ_BYTES_MEAN, b->size.mean);
	set_metric(s, METRIC_REQ_BYTES_P50, b->size.p50);
	/* Bio-based devices and blktrace imports count no segments: no figure, not a 0. */
	if (b->segments.count) {
		set_metric(s, METRIC_SEGMENTS_MEAN, b->segments.mean);
		set_metric(s, METRIC_SEGMENTS_P50, b->segments.p50);
		set_metric(s, METRIC_SEGMENT_BYTES_MEAN, b->seg_bytes.mean);
	}
	set_metric(s, METRIC_DEPTH_MEAN, b->depth.mean);
	set_metric(s, METRIC_DEPTH_MAX, (double)b->depth.max);
	set_metric(s, METRIC_DEVICE_P50, b->lat[BLKIO_LAT_DEVICE].p50);
	set_metric(s, METRIC_DEVICE_P99, b->lat[BLKIO_LAT_DEVICE].p99);
	set_metric(s, METRIC_QUEUE_P99, b->lat[BLKIO_LAT_QUEUE].p99);
	set_metric(s, METRIC_TOTAL_MEAN, b->lat[BLKIO_LAT_TOTAL].mean);
	set_metric(s, METRIC_REQUESTS, (double)b->requests);
	set_metric(s, METRIC_MERGES_PER_REQUEST, b->merges_per_request);
	/* Read-ahead and write amplification: what the disk moved per app byte. */
	if (s->has_app && s->app.bytes)
		set_metric(s, METRIC_DEVICE_PER_APP_BYTE, (double)b->bytes / s->app.bytes);
	set_metric(s, METRIC_LIMIT_SECTORS, b->limit_sectors);
	set_metric(s, METRIC_LIMIT_SEGMENTS, b->limit_segments);
}

int run_summary__compute(struct run_summary *s, const struct result *res, const struct run *run)
{
	struct device *dev = res->has_device ? malloc(sizeof(*dev)) : NULL;
	const struct device *d = dev ? run__device(res, run, dev) : NULL;
	int n;

	memset(s, 0, sizeof(*s));
	if (res->has_device && !dev)
		return -ENOMEM;
	s->run = run;
	snprintf(s->label, sizeof(s->label), "%s", run->label);
	s->params = run->params;
	s->repetition = run->repetition;
	s->partial = run->partial;
	s->seconds = run->seconds;
	s->rate_seconds = run->seconds;
	s->command = run->command;
	s->has_block = run->has_block;
	s->has_app = run->has_app;
	if (d)
		s->limits = d->limits;
	if (run->has_app)
		app_summary__compute(run->app, &s->app);
	if (run->has_block) {
		block_summary__compute(run->block, d ? &d->limits : NULL, &s->block);
		ring_summary__compute(&run->block->ring, res->ring_probes[0], run->seconds,
				      &s->ring);
		memcpy(s->segments_all, run->block->count[BLKIO_COUNT_SEGMENTS],
		       sizeof(s->segments_all));
		if (run->command && s->block.io_seconds > 0)
			s->rate_seconds = s->block.io_seconds;
		n = d ? findings__compute(d, run->block, &run->params, s->findings, FINDINGS_MAX)
		      : 0;
		s->nr_findings = n > 0 ? n : 0;
		n = layers__summarize(res, run, &s->layers);
		if (n) {
			free(dev);
			return n;
		}
		s->nr_layers = s->layers ? res->nr_layers : 0;
		s->nr_findings += layers__findings(res, run, s->findings + s->nr_findings,
						   FINDINGS_MAX - s->nr_findings);
	}
	if (s->nr_findings < FINDINGS_MAX)
		s->nr_findings += above__run(s, &s->findings[s->nr_findings]);
	fill_metrics(s);
	free(dev);
	return 0;
}

void run_summary__free(struct run_summary *s)
{
	layers__free(s->layers, s->nr_layers);
	s->layers = NULL;
	s->nr_layers = 0;
}
