// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The value a --set sweep recommends, with the evidence; see recommend.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "disk/knob.h"
#include "base/parse.h"
#include "analysis/recommend.h"

/* The workload of a run: its key with the knob's value left out. */
static void workload_key(const struct run_summary *r, char *buf, size_t len)
{
	struct job_params p = r->params;

	p.set_value[0] = '\0';
	series__key(&p, r->label, buf, len);
}

static bool same_workload(const struct run_summary *a, const struct run_summary *b)
{
	char ka[SERIES_KEY_MAX], kb[SERIES_KEY_MAX];

	workload_key(a, ka, sizeof(ka));
	workload_key(b, kb, sizeof(kb));
	return !strcmp(ka, kb);
}

/* Values of an ordered knob sort as numbers; anything else keeps the order given. */
static double order_of(const char *v, size_t pos)
{
	char *end;
	double d = v ? strtod(v, &end) : 0;

	return !v || *end || end == v ? (double)pos : d;
}

static void xen_boot_parameter(struct recommendation *r, const struct device *dev)
{
	const uint64_t grant_kb = XEN_SEGMENT_BYTES / 1024;
	const char *v = r->smallest ? r->smallest : r->best;
	int64_t cap;
	uint64_t kb, segs;

	if (!dev || !dev->xen.present || strcmp(r->knob, "max_sectors_kb") ||
	    parse_uint(v, INT64_MAX, &kb))
		return;
	/* One grant per segment: a request of kb KiB needs kb / 4 segments, rounded up. */
	segs = (kb + grant_kb - 1) / grant_kb;
	/* Not beyond what the backend offers (xenstore): none at all, no parameter helps. */
	cap = device__xen_segments_cap(&dev->xen);
	if (cap == XEN_DIRECT_SEGMENTS && segs > XEN_DIRECT_SEGMENTS)
		return;
	if (cap > 0 && segs > (uint64_t)cap)
		segs = cap;
	device__xen_boot_parameter(&dev->xen, segs, r->boot_parameter, sizeof(r->boot_parameter));
}

/* One workload: series idx[0..n) of ss, which differ only in the knob's value. */
static int one_workload(struct recommendation *r, const struct series_set *ss, const size_t *idx,
			size_t n, const struct run_summary *runs, const struct device *dev)
{
	const struct agg *best, *a;
	size_t i, b = idx[0], small = SIZE_MAX;
	double small_order = 0, t, df, p;

	memset(r, 0, sizeof(*r));
	r->evidence = calloc(n, sizeof(*r->evidence));
	if (!r->evidence)
		return -ENOMEM;
	for (i = 1; i < n; i++)
		if (ss->series[idx[i]].metric[METRIC_APP_MB_PER_S].mean >
		    ss->series[b].metric[METRIC_APP_MB_PER_S].mean)
			b = idx[i];
	best = &ss->series[b].metric[METRIC_APP_MB_PER_S];
	r->judged = true;
	for (i = 0; i < n; i++) {
		const struct run_summary *first = &runs[ss->series[idx[i]].first];
		struct rec_evidence *e = &r->evidence[r->nr_evidence++];

		a = &ss->series[idx[i]].metric[METRIC_APP_MB_PER_S];
		p = idx[i] == b ? 1 : NAN;
		if (idx[i] != b && welch_t_test(a, best, &t, &df, &p))
			r->judged = false;
		*e = (struct rec_evidence){ .value = first->params.set_value,
					    .mb_per_s = a->mean,
					    .ci95 = a->ci95,
					    .p_vs_best = p,
					    .n = a->n };
		e->as_good = idx[i] != b && !isnan(p) && p >= STATS_ALPHA;
		r->nr_as_good += e->as_good;
		if (!isnan(p) && p >= STATS_ALPHA &&
		    (small == SIZE_MAX || order_of(e->value, i) < small_order)) {
			small = idx[i];
			small_order = order_of(e->value, i);
		}
	}
	r->knob = runs[ss->series[b].first].params.set_knob;
	r->workload = runs[ss->series[b].first].label;
	r->best = runs[ss->series[b].first].params.set_value;
	r->ordered = queue_setting__is_ordered(r->knob);
	if (r->judged && r->ordered && small != SIZE_MAX)
		r->smallest = runs[ss->series[small].first].params.set_value;
	xen_boot_parameter(r, dev);
	return 0;
}

int recommend__compute(struct recommendations *out, const struct series_set *ss,
		       const struct run_summary *runs, const struct device *dev)
{
	size_t *idx = calloc(ss->nr ? ss->nr : 1, sizeof(*idx)), i, j, m;
	bool *done = calloc(ss->nr ? ss->nr : 1, sizeof(*done));
	int ret = -ENOMEM;

	memset(out, 0, sizeof(*out));
	out->r = calloc(ss->nr ? ss->nr : 1, sizeof(*out->r));
	if (!idx || !done || !out->r)
		goto cleanup;
	for (i = 0; i < ss->nr; i++) {
		const struct run_summary *ri = &runs[ss->series[i].first];

		if (done[i] || !ri->params.set_knob[0])
			continue;
		for (m = 0, j = i; j < ss->nr; j++) {
			if (!done[j] && same_workload(ri, &runs[ss->series[j].first])) {
				idx[m++] = j;
				done[j] = true;
			}
		}
		if (one_workload(&out->r[out->nr], ss, idx, m, runs, dev))
			goto cleanup;
		out->nr++;
	}
	ret = 0;
cleanup:
	free(idx);
	free(done);
	if (ret)
		recommend__free(out);
	return ret;
}

void recommend__free(struct recommendations *recs)
{
	size_t i;

	for (i = 0; recs->r && i < recs->nr; i++)
		free(recs->r[i].evidence);
	free(recs->r);
	memset(recs, 0, sizeof(*recs));
}
