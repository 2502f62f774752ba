// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The text printer: per-run sections (tables and biolatency-style histograms) and the
 * linked table of a workload's series, with the recommendation. It only prints: every
 * figure comes computed in the report (report.c), and it includes nothing of the JSON
 * printer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "report_text.h"

#define BAR_WIDTH 40

static void bar(FILE *f, uint64_t count, uint64_t peak)
{
	int i, n = peak ? (int)((count * BAR_WIDTH + peak - 1) / peak) : 0;

	fputc('|', f);
	for (i = 0; i < BAR_WIDTH; i++)
		fputc(i < n ? '*' : ' ', f);
	fputs("|\n", f);
}

static uint64_t peak_of(const __u64 *h, unsigned int n, unsigned int *first, unsigned int *last)
{
	uint64_t peak = 0;
	unsigned int i;

	*first = n;
	*last = 0;
	for (i = 0; i < n; i++) {
		if (!h[i])
			continue;
		if (*first == n)
			*first = i;
		*last = i;
		if (h[i] > peak)
			peak = h[i];
	}
	return peak;
}

/* Sizes and counts: one line per non-empty bucket (they are narrow and exact). */
static void hist_lines(FILE *f, const char *title, enum hist_kind kind, const __u64 *h)
{
	unsigned int i, first, last, n = hist_nr_buckets(kind);
	uint64_t peak = peak_of(h, n, &first, &last);
	char lo[32], hi[32], label[64];

	if (!peak)
		return;
	fprintf(f, "\n  %-22s : %-9s distribution\n", title, "count");
	for (i = first; i <= last; i++) {
		uint64_t l = hist_bucket_lo(kind, i), u = hist_bucket_hi(kind, i);

		if (!h[i])
			continue;
		if (kind == HIST_KIND_COUNT && u == l + 1)
			snprintf(label, sizeof(label), "%llu", (unsigned long long)l);
		else if (u == UINT64_MAX)
			snprintf(label, sizeof(label), ">= %s", fmt__size_short(lo, sizeof(lo), l));
		else
			snprintf(label, sizeof(label), "[%s, %s)",
				 fmt__size_short(lo, sizeof(lo), l),
				 fmt__size_short(hi, sizeof(hi), u));
		fprintf(f, "    %-20s : %-9llu ", label, (unsigned long long)h[i]);
		bar(f, h[i], peak);
	}
}

/* Latency: regrouped into powers of two of microseconds, like biolatency. */
static void lat_lines(FILE *f, const char *title, const __u64 *h)
{
	uint64_t groups[64] = { 0 }, peak = 0;
	int i, g, first = -1, last = -1;
	char label[64];

	for (i = 0; i < HIST_LAT_BUCKETS; i++) {
		uint64_t us = hist_bucket_lo(HIST_KIND_LAT, i) / 1000;

		if (!h[i])
			continue;
		g = us < 2 ? 0 : 63 - __builtin_clzll(us);
		groups[g] += h[i];
	}
	for (g = 0; g < 64; g++) {
		if (!groups[g])
			continue;
		if (first < 0)
			first = g;
		last = g;
		if (groups[g] > peak)
			peak = groups[g];
	}
	if (first < 0)
		return;
	fprintf(f, "\n  %-22s : %-9s distribution\n", title, "count");
	for (g = first; g <= last; g++) {
		unsigned long long lo = g ? 1ULL << g : 0, hi = (1ULL << (g + 1)) - 1;

		snprintf(label, sizeof(label), "%llu -> %llu", lo, hi);
		fprintf(f, "    %-20s : %-9llu ", label, (unsigned long long)groups[g]);
		bar(f, groups[g], peak);
	}
}

static void lat_row(FILE *f, const char *name, const struct dist *d)
{
	if (!d->count) {
		fprintf(f, "  %-16s %10s\n", name, "-");
		return;
	}
	fprintf(f, "  %-16s %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f\n", name, d->mean / 1e3,
		d->p50 / 1e3, d->p90 / 1e3, d->p99 / 1e3, d->p999 / 1e3, d->max / 1e3);
}

/* The report ends with what shaped the requests, one sentence per finding. */
static void findings_lines(FILE *f, const struct run_summary *rs)
{
	int i;

	if (rs->nr_findings <= 0)
		return;
	fprintf(f, "\n  findings:\n");
	for (i = 0; i < rs->nr_findings; i++)
		fprintf(f, "    %s\n", rs->findings[i].text);
}

static void run_header(FILE *f, const struct device *dev, const struct run_summary *rs)
{
	if (!dev) {
		fprintf(f, "%s: %.3f s\n", rs->label, rs->seconds);
		return;
	}
	fprintf(f, "%s: %s (%u:%u%s%s), %.3f s\n", rs->label,
		dev->part_name[0] ? dev->part_name : dev->name,
		dev->part_name[0] ? dev->part_major : dev->major,
		dev->part_name[0] ? dev->part_minor : dev->minor, dev->driver[0] ? ", " : "",
		dev->driver, rs->seconds);
}

static void ops_table(FILE *f, const struct blkio_counters *c, double seconds)
{
	unsigned int k;

	fprintf(f, "\n  %-10s %12s %16s %12s\n", "op", "requests", "bytes", "MB/s");
	for (k = 0; k < BLKIO_NR_OPS; k++)
		fprintf(f, "  %-10s %12llu %16llu %12.2f\n", blkio_op_names[k],
			(unsigned long long)c->requests[k], (unsigned long long)c->bytes[k],
			seconds > 0 ? c->bytes[k] / seconds / 1e6 : 0.0);
	fprintf(f,
		"  merges %llu (requests merged %llu), splits %llu, requeues %llu, errors %llu, "
		"lost events %llu\n",
		(unsigned long long)c->merges, (unsigned long long)c->rq_merges,
		(unsigned long long)c->splits, (unsigned long long)c->requeues,
		(unsigned long long)c->errors, (unsigned long long)c->lost_events);
	if (c->untracked || c->stale_slots || c->slot_overflow)
		fprintf(f,
			"  not timed: %llu completions of requests issued before tracing, "
			"%llu lost completions, %llu outside the slot table\n",
			(unsigned long long)c->untracked, (unsigned long long)c->stale_slots,
			(unsigned long long)c->slot_overflow);
}

static void per_request_table(FILE *f, const struct run_summary *rs)
{
	const struct block_summary *s = &rs->block;
	char b1[32], b2[32], b3[32];

	fprintf(f, "\n  %-16s %10s %10s %10s\n", "per request", "mean", "p50", "max");
	if (s->size.count)
		fprintf(f, "  %-16s %10s %10s %10s\n", "size",
			fmt__bytes(b1, sizeof(b1), s->size.mean),
			fmt__bytes(b2, sizeof(b2), s->size.p50),
			fmt__bytes(b3, sizeof(b3), s->size.max));
	if (s->segments.count) {
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "segments", s->segments.mean,
			s->segments.p50, (unsigned long long)s->segments.max);
		fprintf(f, "  %-16s %10s %10s %10s\n", "bytes/segment",
			fmt__bytes(b1, sizeof(b1), s->seg_bytes.mean),
			fmt__bytes(b2, sizeof(b2), s->seg_bytes.p50),
			fmt__bytes(b3, sizeof(b3), s->seg_bytes.max));
	}
	if (s->depth.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "queue depth", s->depth.mean,
			s->depth.p50, (unsigned long long)s->depth.max);
	/* A limit the disk (or an imported trace) does not say is not weighed. */
	if (s->data_requests && rs->limits.max_sectors_kb > 0 && rs->limits.max_segments > 0)
		fprintf(f,
			"  limit-bound: %.1f%% of data requests reached max_sectors_kb=%lld, "
			"%.1f%% max_segments=%lld\n",
			100 * s->limit_sectors, (long long)rs->limits.max_sectors_kb,
			100 * s->limit_segments, (long long)rs->limits.max_segments);
	else if (s->data_requests && rs->limits.max_sectors_kb > 0)
		fprintf(f, "  limit-bound: %.1f%% of data requests reached max_sectors_kb=%lld\n",
			100 * s->limit_sectors, (long long)rs->limits.max_sectors_kb);
}

/* Queue and total time start at G (allocation), or at Q (a blktrace import). */
static void latency_table(FILE *f, const struct block_summary *s, bool from_queue)
{
	fprintf(f, "\n  %-16s %10s %10s %10s %10s %10s %10s\n", "latency (us)", "mean", "p50",
		"p90", "p99", "p99.9", "max");
	lat_row(f, from_queue ? "queue (Q2D)" : "queue (G2D)", &s->lat[BLKIO_LAT_QUEUE]);
	lat_row(f, "device (D2C)", &s->lat[BLKIO_LAT_DEVICE]);
	lat_row(f, from_queue ? "total (Q2C)" : "total (G2C)", &s->lat[BLKIO_LAT_TOTAL]);
}

/* One row of the stack table: a device's reads or writes. */
static void stack_row(FILE *f, const char *name, const char *role, unsigned int level,
		      const char *op, const struct blkio_counters *c, unsigned int k,
		      const struct block_summary *s, double per_above)
{
	char b1[32], b2[32], ratio[16] = "", indented[DEVICE_NAME_MAX + 16];

	if (!c->requests[k])
		return;
	snprintf(indented, sizeof(indented), "%*s%s", 2 * (int)level, "", name);
	if (per_above > 0)
		snprintf(ratio, sizeof(ratio), "%.2fx", per_above);
	fprintf(f, "  %-14s %-6s %10llu %10s %10s %8s %10.1f  %s\n", indented, op,
		(unsigned long long)c->requests[k], fmt__bytes(b1, sizeof(b1), c->bytes[k]),
		fmt__size(b2, sizeof(b2), (double)c->bytes[k] / c->requests[k]), ratio,
		s->lat[BLKIO_LAT_DEVICE].p50 / 1e3, role);
}

/*
 * A stack: the device, then every layer under it (indented by level), each with its reads
 * and writes, what they are per byte of the layer above, and the device time.
 */
static void stack_table(FILE *f, const struct result *res, const struct run_summary *rs)
{
	const struct block_stats *b = rs->run->block;
	char top_role[128];
	unsigned int k;
	size_t i;

	if (!rs->nr_layers)
		return;
	snprintf(top_role, sizeof(top_role), "%s%s", res->stack_top_kind,
		 res->device.bio_based ? ", counted in bios" : "");
	fprintf(f, "\n  %-14s %-6s %10s %10s %10s %8s %10s  %s\n", "stack", "op", "count", "bytes",
		"mean size", "x above", "p50 us", "what");
	for (k = BLKIO_OP_READ; k <= BLKIO_OP_WRITE; k++)
		stack_row(f, res->device.name, top_role, 0, blkio_op_names[k], &b->c, k, &rs->block,
			  0);
	for (i = 0; i < rs->nr_layers; i++) {
		const struct layer_summary *l = &rs->layers[i];
		const struct blkio_counters *c = &l->b->c;
		const struct blkio_counters *up = &rs->run->block[l->layer->above + 1].c;

		if (!c->requests[BLKIO_OP_READ] && !c->requests[BLKIO_OP_WRITE])
			fprintf(f, "  %*s%-*s %-6s %10d %10s %10s %8s %10s  %s\n",
				2 * (int)l->layer->level, "", 14 - 2 * (int)l->layer->level,
				l->layer->dev.name, "-", 0, "-", "-", "", "-", l->layer->role);
		for (k = BLKIO_OP_READ; k <= BLKIO_OP_WRITE; k++)
			stack_row(f, l->layer->dev.name, l->layer->role, l->layer->level,
				  blkio_op_names[k], c, k, l->block,
				  up->bytes[k] ? (double)c->bytes[k] / up->bytes[k] : 0);
	}
	if (res->stack_note[0])
		fprintf(f, "  note: %s\n", res->stack_note);
}

/* One run: what the disk did, as tables, histograms and findings. */
static void run_section(FILE *f, const struct result *res, const struct run_summary *rs)
{
	const struct block_stats *b = rs->run->block;

	run_header(f, res->has_device ? &res->device : NULL, rs);
	if (!rs->has_block)
		return;
	ops_table(f, &b->c, rs->seconds);
	per_request_table(f, rs);
	latency_table(f, &rs->block, res->lat_from_queue);
	hist_lines(f, "request size (bytes)", HIST_KIND_SIZE, rs->block.size_all);
	hist_lines(f, "segments per request", HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS]);
	hist_lines(f, "bytes per segment", HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT]);
	hist_lines(f, "queue depth at issue", HIST_KIND_COUNT, b->count[BLKIO_COUNT_DEPTH]);
	lat_lines(f, "device time (usecs)", b->lat[BLKIO_LAT_DEVICE]);
	lat_lines(f, "queue time (usecs)", b->lat[BLKIO_LAT_QUEUE]);
	stack_table(f, res, rs);
	findings_lines(f, rs);
}

int report_text__interval(FILE *f, const struct result *res, const struct run *run)
{
	struct run_summary *rs = malloc(sizeof(*rs));
	int ret = rs ? run_summary__compute(rs, res, run) : -ENOMEM;

	if (!ret)
		run_section(f, res, rs);
	if (rs)
		run_summary__free(rs);
	free(rs);
	return ret;
}

/*
 * Under the table, one sentence per row: buffered sequential reads whose requests are
 * larger than the block size were sized by read-ahead; otherwise the first finding of
 * the row's first run.
 */
static void limit_sentence(FILE *f, const struct report *rep, const struct series *s)
{
	const struct run_summary *first = &rep->runs[s->first];
	const struct job_params *p = &first->params;
	double p50 = s->metric[METRIC_REQ_BYTES_P50].mean;
	char b1[32], b2[32];

	if (!strcmp(p->rw, "read") && !p->direct && p->bs > 0 && p50 > p->bs) {
		fprintf(f,
			"  %s: read-ahead (read_ahead_kb=%lld) turned %s reads into %s requests "
			"at the median\n",
			first->label, (long long)rep->res->device.limits.read_ahead_kb,
			fmt__bytes(b1, sizeof(b1), (double)p->bs), fmt__bytes(b2, sizeof(b2), p50));
		return;
	}
	if (first->nr_findings > 0)
		fprintf(f, "  %s: %s\n", first->label, first->findings[0].text);
}

static void recommendation_text(FILE *f, const struct recommendation *r)
{
	size_t k;

	fprintf(f, "\nrecommendation (%s): best throughput with %s=%s", r->knob, r->knob, r->best);
	if (!r->judged)
		fprintf(f, "; cannot judge significance with one repetition (use --repeat)");
	else if (r->smallest && strcmp(r->smallest, r->best))
		fprintf(f, "; %s=%s is statistically as good (p >= %g)", r->knob, r->smallest,
			STATS_ALPHA);
	else if (r->smallest)
		fprintf(f, "; every smaller value is significantly worse");
	fputc('\n', f);
	for (k = 0; k < r->nr_evidence; k++) {
		const struct rec_evidence *e = &r->evidence[k];
		char pv[32] = "-";

		if (!isnan(e->p_vs_best))
			snprintf(pv, sizeof(pv), "%.4f", e->p_vs_best);
		fprintf(f, "  %s=%-10s %10.1f MB/s +- %-8.1f n=%lld  p vs best %s\n", r->knob,
			e->value, e->mb_per_s, e->ci95, (long long)e->n, pv);
	}
	if (r->boot_parameter[0])
		fprintf(f, "  for xen-blkfront: boot with %s\n", r->boot_parameter);
}

static void linked_row(FILE *f, const struct report *rep, const struct series *s)
{
	const struct agg *m = s->metric;
	char b1[32], b2[32], b3[32];

	fprintf(f,
		"%-44.44s %8.1f +-%6.1f %9.0f %9.1f %8.0f %9s %9s %6.1f %8s %6.2f %5.0f "
		"%9.1f %9.1f %6.2f %5.0f%% %6.2f\n",
		rep->runs[s->first].label, m[METRIC_APP_MB_PER_S].mean, m[METRIC_APP_MB_PER_S].ci95,
		m[METRIC_APP_IOPS].mean, m[METRIC_APP_LAT_P99].mean / 1e3, m[METRIC_REQUESTS].mean,
		fmt__bytes(b1, sizeof(b1), m[METRIC_REQ_BYTES_MEAN].mean),
		fmt__bytes(b2, sizeof(b2), m[METRIC_REQ_BYTES_P50].mean),
		m[METRIC_SEGMENTS_MEAN].mean,
		fmt__bytes(b3, sizeof(b3), m[METRIC_SEGMENT_BYTES_MEAN].mean),
		m[METRIC_DEPTH_MEAN].mean, m[METRIC_DEPTH_MAX].max, m[METRIC_DEVICE_P50].mean / 1e3,
		m[METRIC_DEVICE_P99].mean / 1e3, m[METRIC_MERGES_PER_REQUEST].mean,
		100 * fmax(m[METRIC_LIMIT_SECTORS].mean, m[METRIC_LIMIT_SEGMENTS].mean),
		m[METRIC_DEVICE_PER_APP_BYTE].mean);
}

/* The linked table: one row per series, throughput next to the requests behind it. */
static void linked_table(FILE *f, const struct report *rep)
{
	size_t i;

	fprintf(f, "\n%-44s %17s %9s %9s %8s %9s %9s %6s %8s %6s %5s %9s %9s %6s %6s %6s\n",
		"parameters", "app MB/s (95% CI)", "IOPS", "p99 us", "requests", "req mean",
		"req p50", "segs", "B/seg", "qd", "qdmax", "dev p50", "dev p99", "merge", "limit%",
		"dev/app");
	for (i = 0; i < rep->series.nr; i++)
		linked_row(f, rep, &rep->series.series[i]);
	fputc('\n', f);
	for (i = 0; i < rep->series.nr; i++)
		limit_sentence(f, rep, &rep->series.series[i]);
	for (i = 0; i < rep->rec.nr; i++)
		recommendation_text(f, &rep->rec.r[i]);
}

static void app_line(FILE *f, const struct app_summary *a)
{
	char b[32];

	fprintf(f, "  app: %s in %.3f s: %.1f MB/s, %.0f IOPS, latency mean %.1f us, p99 %.1f us\n",
		fmt__bytes(b, sizeof(b), a->bytes), a->seconds, a->mb_per_s, a->iops,
		a->lat.mean / 1e3, a->lat.p99 / 1e3);
}

void report_text__print(FILE *f, const struct report *rep, bool brief)
{
	bool any_app = false;
	size_t i;

	for (i = 0; i < rep->nr_runs; i++) {
		const struct run_summary *rs = &rep->runs[i];

		if (rs->has_app && brief) {
			any_app = true;
			continue;
		}
		if (i)
			fputc('\n', f);
		if (rs->has_app) {
			fprintf(f, "run %zu (repetition %u):\n", i + 1, rs->repetition + 1);
			app_line(f, &rs->app);
			any_app = true;
		}
		run_section(f, rep->res, rs);
	}
	if (any_app)
		linked_table(f, rep);
}
