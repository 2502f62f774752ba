// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The metric table; see metrics.h. The values are filled in summary.c. */
#include <string.h>
#include "result/metrics.h"

const struct metric_def metric_defs[NR_METRICS] = {
	[METRIC_APP_MB_PER_S] = { "app.mb_per_s", +1, true, true },
	[METRIC_APP_IOPS] = { "app.iops", +1, true, true },
	[METRIC_APP_LAT_MEAN] = { "app.latency_ns.mean", -1, false, true },
	[METRIC_APP_LAT_P99] = { "app.latency_ns.p99", -1, true, true },
	/* Larger requests or segments are not better by themselves: higher or lower. */
	[METRIC_REQ_BYTES_MEAN] = { "block.request_bytes.mean", 0, false, true },
	[METRIC_REQ_BYTES_P50] = { "block.request_bytes.p50", 0, false, true },
	[METRIC_SEGMENTS_MEAN] = { "block.segments.mean", 0, false, true },
	[METRIC_SEGMENT_BYTES_MEAN] = { "block.segment_bytes.mean", 0, false, true },
	[METRIC_DEPTH_MEAN] = { "block.queue_depth.mean", 0, false, true },
	[METRIC_DEPTH_MAX] = { "block.queue_depth.max", 0, false, true },
	[METRIC_DEVICE_P50] = { "block.device_ns.p50", -1, false, true },
	[METRIC_DEVICE_P99] = { "block.device_ns.p99", -1, false, true },
	[METRIC_QUEUE_P99] = { "block.queue_ns.p99", -1, false, true },
	[METRIC_TOTAL_MEAN] = { "block.total_ns.mean", -1, false, true },
	[METRIC_REQUESTS] = { "block.requests", 0, false, true },
	[METRIC_MERGES_PER_REQUEST] = { "block.merges_per_request", 0, false, true },
	[METRIC_DEVICE_PER_APP_BYTE] = { "block.device_bytes_per_app_byte", 0, false, true },
	[METRIC_LIMIT_SECTORS] = { "block.limit_bound.max_sectors", 0, false, true },
	[METRIC_LIMIT_SEGMENTS] = { "block.limit_bound.max_segments", 0, false, true },
	[METRIC_SEGMENTS_P50] = { "block.segments.p50", 0, false, false },
};

int metric__find(const char *name)
{
	int i;

	for (i = 0; i < NR_METRICS; i++)
		if (!strcmp(metric_defs[i].name, name))
			return i;
	return -1;
}
