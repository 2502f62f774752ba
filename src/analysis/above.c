// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Differences the device cannot explain; see above.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "analysis/above.h"
#include "base/fmt.h"

/* a and b within ABOVE_SAME of each other (relative to the larger). */
static bool same(double a, double b)
{
	double hi = fmax(fabs(a), fabs(b));

	return hi == 0 || fabs(a - b) <= ABOVE_SAME * hi;
}

int above__run(const struct run_summary *s, struct finding *out)
{
	const struct dist *blk = &s->block.lat[BLKIO_LAT_TOTAL];
	double app = s->app.lat.mean, ratio;

	/* Buffered I/O is the page cache's; only one request per I/O compares one to one. */
	if (!s->has_app || !s->has_block || !s->params.direct || !s->app.ios || !blk->count ||
	    blk->mean <= 0 || !same((double)s->block.data_requests, (double)s->app.ios))
		return 0;
	ratio = app / blk->mean;
	if (ratio < ABOVE_RATIO)
		return 0;
	memset(out, 0, sizeof(*out));
	snprintf(out->kind, sizeof(out->kind), "above_block_layer");
	out->share = 1;
	snprintf(out->text, sizeof(out->text),
		 "The application waited %.1f us per I/O on average, %.1fx the block layer's "
		 "%.1f us from allocation to completion: %.1f us of each I/O were spent above "
		 "the block layer (the system call, the engine's queue).",
		 app / 1e3, ratio, blk->mean / 1e3, (app - blk->mean) / 1e3);
	return 1;
}

/* The metrics a pair needs, all there. */
static bool comparable(const struct series *s)
{
	static const enum metric_id need[] = { METRIC_APP_MB_PER_S, METRIC_APP_IOPS,
					       METRIC_REQ_BYTES_P50, METRIC_DEVICE_PER_APP_BYTE };
	size_t k;

	for (k = 0; k < sizeof(need) / sizeof(need[0]); k++)
		if (!s->metric[need[k]].n || !(s->metric[need[k]].mean > 0))
			return false;
	return true;
}

static void pair_text(struct above_pair *p, const struct series_set *ss,
		      const struct run_summary *runs)
{
	const struct agg *slow = ss->series[p->slow].metric, *fast = ss->series[p->fast].metric;
	char size[32];

	snprintf(p->text, sizeof(p->text),
		 "%s and %s: the device saw the same requests (%s at the median, %.2f device "
		 "bytes per application byte), yet throughput differs %.1fx (%.1f against %.1f "
		 "MB/s): the difference is above the block layer, where the slower made %.0f "
		 "I/Os per MB against %.1f.",
		 runs[ss->series[p->slow].first].label, runs[ss->series[p->fast].first].label,
		 fmt__bytes(size, sizeof(size), slow[METRIC_REQ_BYTES_P50].mean),
		 slow[METRIC_DEVICE_PER_APP_BYTE].mean, p->ratio, slow[METRIC_APP_MB_PER_S].mean,
		 fast[METRIC_APP_MB_PER_S].mean,
		 slow[METRIC_APP_IOPS].mean / slow[METRIC_APP_MB_PER_S].mean,
		 fast[METRIC_APP_IOPS].mean / fast[METRIC_APP_MB_PER_S].mean);
}

/* Keep p among the ABOVE_MAX largest ratios, in descending order. */
static void keep(struct above_pairs *out, const struct above_pair *p)
{
	size_t i;

	if (out->nr == ABOVE_MAX) {
		if (out->p[ABOVE_MAX - 1].ratio >= p->ratio)
			return;
		i = ABOVE_MAX - 1;
	} else {
		i = out->nr++;
	}
	for (; i > 0 && out->p[i - 1].ratio < p->ratio; i--)
		out->p[i] = out->p[i - 1];
	out->p[i] = *p;
}

void above__series(const struct series_set *ss, const struct run_summary *runs,
		   struct above_pairs *out)
{
	size_t i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ss->nr; i++) {
		const struct agg *a = ss->series[i].metric;

		for (j = i + 1; comparable(&ss->series[i]) && j < ss->nr; j++) {
			const struct agg *b = ss->series[j].metric;
			struct above_pair p = { .slow = i, .fast = j };

			if (!comparable(&ss->series[j]) ||
			    strcmp(runs[ss->series[i].first].params.rw,
				   runs[ss->series[j].first].params.rw) ||
			    !same(a[METRIC_REQ_BYTES_P50].mean, b[METRIC_REQ_BYTES_P50].mean) ||
			    !same(a[METRIC_DEVICE_PER_APP_BYTE].mean,
				  b[METRIC_DEVICE_PER_APP_BYTE].mean))
				continue;
			if (a[METRIC_APP_MB_PER_S].mean > b[METRIC_APP_MB_PER_S].mean) {
				p.slow = j;
				p.fast = i;
			}
			p.ratio = ss->series[p.fast].metric[METRIC_APP_MB_PER_S].mean /
				  ss->series[p.slow].metric[METRIC_APP_MB_PER_S].mean;
			if (p.ratio < ABOVE_RATIO)
				continue;
			pair_text(&p, ss, runs);
			keep(out, &p);
		}
	}
}
