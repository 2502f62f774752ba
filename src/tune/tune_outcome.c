// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What a tune recommends; see tune_outcome.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/fmt.h"
#include "analysis/series.h"
#include "tune/tune_outcome.h"

/* The mean of metric id over the runs at idx[0..n) that have it; NAN when none does. */
static double mean_of(const struct run_summary *runs, const size_t *idx, size_t n,
		      enum metric_id id)
{
	struct agg a;

	series__agg(runs, idx, n, id, &a);
	return a.n ? a.mean : NAN;
}

void tune_outcome__xen_param(struct tune_module_param *m, const struct device *d, int64_t value)
{
	const char *param = device__xen_param_name(&d->xen), *dot = strchr(param, '.');

	memset(m, 0, sizeof(*m));
	snprintf(m->module, sizeof(m->module), "%.*s", (int)(dot - param), param);
	snprintf(m->name, sizeof(m->name), "%s", dot + 1);
	m->value = value;
	m->now = d->xen.max_indirect_segments;
	device__xen_boot_parameter(&d->xen, value, m->boot_parameter, sizeof(m->boot_parameter));
	device__xen_modprobe_line(&d->xen, value, m->modprobe, sizeof(m->modprobe));
}

/* The share of the runs' requests the xen segments finding says reached the segments. */
static double segment_capped(const struct run_summary *runs, const size_t *idx, size_t n)
{
	double sum = 0;
	size_t i;
	int f;

	for (i = 0; i < n; i++)
		for (f = 0; f < runs[idx[i]].nr_findings; f++)
			if (!strcmp(runs[idx[i]].findings[f].kind, "max_segments"))
				sum += runs[idx[i]].findings[f].share;
	return n ? sum / n : 0;
}

/* The segments capped the requests, and only the host can raise them: say so. */
static void xen_host_only(struct tune_outcome *out, const struct xen_blkfront *x, double share,
			  const char *cap)
{
	char why[160];

	if (x->segments_reason != XEN_SEGMENTS_UNKNOWN)
		snprintf(out->xen, sizeof(out->xen),
			 "%.1f%% of requests were capped at %s by %lld segments: %s, so no guest "
			 "parameter raises it; only the host can (its backend's "
			 "feature-max-indirect-segments).",
			 100 * share, cap, (long long)x->segments,
			 device__xen_segments_why(x, why, sizeof(why)));
	else
		snprintf(
			out->xen, sizeof(out->xen),
			"%.1f%% of requests were capped at %s by %lld segments: the guest asks for "
			"%lld (%s) but the backend grants %lld, so no guest parameter raises it; "
			"the host's blkback must offer more (feature-max-indirect-segments).",
			100 * share, cap, (long long)x->segments,
			(long long)x->max_indirect_segments, device__xen_param_name(x),
			(long long)x->segments);
}

void tune_outcome__xen(struct tune_outcome *out, const struct device *d, const struct job_params *p,
		       const struct run_summary *runs, const size_t *idx, size_t n)
{
	const struct xen_blkfront *x = &d->xen;
	double share = segment_capped(runs, idx, n);
	/* What the backend offers, where xenstore said; Linux's blkback's most otherwise. */
	int64_t offer = device__xen_segments_cap(x),
		most = offer < 0 ? XEN_BLKBACK_MAX_SEGMENTS : offer;
	char cap[32], size[32], whose[64];
	uint64_t want;
	int64_t need;

	out->xen[0] = '\0';
	out->has_module = false;
	/* p is NULL when the budget ended before the baseline's first run: nothing measured. */
	if (!p || !x->present || x->segments <= 0 || share < XEN_CAPPED_SHARE)
		return;
	/* Direct I/O asks for its size; buffered I/O for as much as the backend takes. */
	want = p->direct ? p->bs : (uint64_t)XEN_BLKBACK_MAX_SEGMENTS * XEN_SEGMENT_BYTES;
	need = (int64_t)((want + XEN_SEGMENT_BYTES - 1) / XEN_SEGMENT_BYTES);
	if (need > XEN_BLKBACK_MAX_SEGMENTS)
		need = XEN_BLKBACK_MAX_SEGMENTS;
	fmt__size(cap, sizeof(cap), (double)x->segments * XEN_SEGMENT_BYTES);
	if (need <= x->segments)
		return;
	if (x->backend_limited || most <= x->segments) {
		xen_host_only(out, x, share, cap);
		return;
	}
	fmt__size(size, sizeof(size), (double)need * XEN_SEGMENT_BYTES);
	if (offer < 0)
		snprintf(whose, sizeof(whose), "Linux's blkback offers up to %d",
			 XEN_BLKBACK_MAX_SEGMENTS);
	else
		snprintf(whose, sizeof(whose), "this disk's backend offers %lld", (long long)offer);
	out->has_module = true;
	/* Never more than the backend offers: the rest would read back, unused. */
	tune_outcome__xen_param(&out->module, d, need < most ? need : most);
	snprintf(out->xen, sizeof(out->xen),
		 "%.1f%% of requests were capped at %s by %lld segments of xen-blkfront; a %s "
		 "request needs %lld: %s, after a reboot%s (%s).",
		 100 * share, cap, (long long)x->segments, size, (long long)need,
		 out->module.boot_parameter,
		 offer < 0 ? ", where the backend offers that many" : "", whose);
}

void tune_outcome__compute(struct tune_outcome *out, const struct tune *t, const struct device *d,
			   const struct job_params *p, const struct run_summary *runs)
{
	const struct tune_point *fin = &t->points[t->final];
	/* Against the baseline measured beside it (tune.h); a baseline is its own. */
	int b = fin->base >= 0 ? fin->base : t->final;
	const struct tune_point *base = &t->points[b];
	const char *values[TUNE_MAX_KNOBS];
	int k;

	memset(out, 0, sizeof(*out));
	tune__point_values(t, fin, values);
	for (k = 0; k < t->nr_knobs; k++) {
		struct tune_setting *s;

		if (!values[k] || !strcmp(values[k], t->knobs[k].original))
			continue;
		s = &out->settings[out->nr_settings++];
		snprintf(s->name, sizeof(s->name), "%s", t->knobs[k].name);
		snprintf(s->from, sizeof(s->from), "%s", t->knobs[k].original);
		snprintf(s->to, sizeof(s->to), "%s", values[k]);
	}
	out->base_mbps = base->n ? base->agg.mean : NAN;
	out->final_mbps = fin->n ? fin->agg.mean : NAN;
	out->change = fin->base >= 0 ? fin->vs_baseline.change : 0;
	out->p = fin->base >= 0 ? fin->vs_baseline.p : NAN;
	for (k = 0; k < t->nr_points; k++)
		out->point_req_p50[k] =
			mean_of(runs, t->points[k].run, t->points[k].n, METRIC_REQ_BYTES_P50);
	out->base_req_p50 = out->point_req_p50[b];
	out->final_req_p50 = out->point_req_p50[t->final];
	tune_outcome__xen(out, d, p, runs, fin->run, fin->n);
}
