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
#include "base/fmt.h"
#include "output/report_text.h"
#include "result/counters.h"

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
	char who[160];

	fprintf(f, "%s: %s (%u:%u%s%s%s%s), %.3f s\n", rs->label,
		dev->part_name[0] ? dev->part_name : dev->name,
		dev->part_name[0] ? dev->part_major : dev->major,
		dev->part_name[0] ? dev->part_minor : dev->minor, dev->driver[0] ? ", " : "",
		dev->driver, dev->xen_guest.present ? ": " : "",
		device__xen_guest_text(&dev->xen_guest, who, sizeof(who)), rs->seconds);
}

/* One "N what" part of a line, when N is not 0: "; " between parts. */
static void part(FILE *f, bool *first, unsigned long long n, const char *one, const char *many)
{
	if (!n)
		return;
	fprintf(f, "%s%llu %s", *first ? "" : "; ", n, n == 1 ? one : many);
	*first = false;
}

/* What was not timed, and why; nothing when everything was. */
static void untimed_line(FILE *f, const struct blkio_counters *c)
{
	bool first = true;

	if (!c->untracked && !c->unissued && !c->lost_completions && !c->slot_overflow)
		return;
	fprintf(f, "  not timed: ");
	part(f, &first, c->untracked, "completion of a request issued before tracing",
	     "completions of requests issued before tracing");
	part(f, &first, c->unissued,
	     "completion of a request never issued (an empty pre-flush write, which the "
	     "flush machinery ends without issuing it)",
	     "completions of requests never issued (empty pre-flush writes, which the flush "
	     "machinery ends without issuing them)");
	part(f, &first, c->lost_completions,
	     "lost completion (the kernel ended the request unseen; found when its tag was "
	     "issued again)",
	     "lost completions (the kernel ended the requests unseen; found when their tags "
	     "were issued again)");
	part(f, &first, c->depth_corrected, "depth sample lowered for them",
	     "depth samples lowered for them");
	part(f, &first, c->slot_overflow, "request outside the slot table",
	     "requests outside the slot table");
	fputc('\n', f);
}

/* Per op, over the run's rate_seconds (a command's: its I/O alone), said below. */
static void ops_table(FILE *f, const struct blkio_counters *c, const struct run_summary *rs)
{
	static const enum blkio_counter_id rest[] = { BLKIO_CTR_rq_merges, BLKIO_CTR_splits,
						      BLKIO_CTR_requeues, BLKIO_CTR_errors };
	double per = rs->rate_seconds > 0 ? 1 / rs->rate_seconds : 0;
	unsigned int k;

	fprintf(f, "\n  %-10s %12s %16s %12s %12s\n", "op", "requests", "bytes", "MB/s",
		"requests/s");
	for (k = 0; k < BLKIO_NR_OPS; k++)
		fprintf(f, "  %-10s %12llu %16llu %12.2f %12.0f\n", blkio_op_names[k],
			(unsigned long long)c->requests[k], (unsigned long long)c->bytes[k],
			c->bytes[k] * per / 1e6, c->requests[k] * per);
	if (rs->command && rs->rate_seconds != rs->seconds)
		fprintf(f,
			"  MB/s and requests/s over the I/O alone: first issue to last completion, "
			"%.3f s of the command's %.3f s\n",
			rs->rate_seconds, rs->seconds);
	fprintf(f, "  %s %llu (into reads %llu, writes %llu)",
		blkio_counter_label(BLKIO_CTR_merges), (unsigned long long)c->merges,
		(unsigned long long)c->merges_op[BLKIO_OP_READ],
		(unsigned long long)c->merges_op[BLKIO_OP_WRITE]);
	for (k = 0; k < sizeof(rest) / sizeof(rest[0]); k++)
		fprintf(f, ", %s %llu", blkio_counter_label(rest[k]),
			(unsigned long long)blkio_counter_get(
				c, blkio_counters_table[rest[k]].offset));
	fputc('\n', f);
	if (c->ra_requests)
		fprintf(f, "  read-ahead: %llu requests, %llu bytes\n",
			(unsigned long long)c->ra_requests, (unsigned long long)c->ra_bytes);
	if (c->lost_records)
		fprintf(f, "  %s %llu (--snoop: the ring buffer was full)\n",
			blkio_counter_label(BLKIO_CTR_lost_records),
			(unsigned long long)c->lost_records);
	untimed_line(f, c);
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
	if (s->hwq_depth.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "hw queue depth", s->hwq_depth.mean,
			s->hwq_depth.p50, (unsigned long long)s->hwq_depth.max);
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

/*
 * The block layer's latencies, and beside them the application's when it is known. Queue
 * and total time start at G (allocation), or at Q (a blktrace import).
 */
static void latency_table(FILE *f, const struct run_summary *rs, bool from_queue)
{
	const struct block_summary *s = &rs->block;

	fprintf(f, "\n  %-16s %10s %10s %10s %10s %10s %10s\n", "latency (us)", "mean", "p50",
		"p90", "p99", "p99.9", "max");
	lat_row(f, from_queue ? "queue (Q2D)" : "queue (G2D)", &s->lat[BLKIO_LAT_QUEUE]);
	lat_row(f, "device (D2C)", &s->lat[BLKIO_LAT_DEVICE]);
	lat_row(f, from_queue ? "total (Q2C)" : "total (G2C)", &s->lat[BLKIO_LAT_TOTAL]);
	if (rs->has_app)
		lat_row(f, "app (per I/O)", &rs->app.lat);
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

/*
 * What xen-blkfront did with the requests on its shared rings: direct or indirect, grants
 * each, the ring's occupancy, requests turned away, the backend's time.
 */
static void ring_section(FILE *f, const struct result *res, const struct run_summary *rs)
{
	const struct ring_summary *r = &rs->ring;
	const struct blkfront_counts *c = &rs->run->block->ring;
	char b1[32], b2[32], b3[32], size[32] = "";

	if (!r->present)
		return;
	if (res->device.xen.ring_requests > 0)
		snprintf(size, sizeof(size), " of %lld", (long long)res->device.xen.ring_requests);
	fprintf(f,
		"\n  xen-blkfront ring (%s): %llu requests: %llu direct, %llu indirect, %llu "
		"without data\n",
		res->ring_probes, (unsigned long long)r->requests, (unsigned long long)r->direct,
		(unsigned long long)r->indirect, (unsigned long long)r->no_data);
	fprintf(f, "  %-16s %10s %10s %10s\n", "per request", "mean", "p50", "max");
	if (r->grants_direct.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "grants (direct)",
			r->grants_direct.mean, r->grants_direct.p50,
			(unsigned long long)r->grants_direct.max);
	if (r->grants_indirect.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu  (+%llu indirect pages)\n",
			"grants (indir.)", r->grants_indirect.mean, r->grants_indirect.p50,
			(unsigned long long)r->grants_indirect.max,
			(unsigned long long)r->indirect_pages);
	if (r->occupancy.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu%s slots\n", "ring in use",
			r->occupancy.mean, r->occupancy.p50, (unsigned long long)r->occupancy.max,
			size);
	if (r->backend.count)
		fprintf(f, "  %-16s %10s %10s %10s  (submission to interrupt)\n", "backend time",
			fmt__ns(b1, sizeof(b1), r->backend.mean),
			fmt__ns(b2, sizeof(b2), r->backend.p50),
			fmt__ns(b3, sizeof(b3), (double)r->backend.max));
	fprintf(f,
		"  ring full %llu times, %.1f%% of the time; turned away by the driver: %llu "
		"(ring full), %llu (no grants)",
		(unsigned long long)c->fulls, 100 * r->full_share,
		(unsigned long long)r->full_stops, (unsigned long long)r->grant_stops);
	if (r->waits)
		fprintf(f, "; they waited %s on average", fmt__ns(b1, sizeof(b1), r->wait_mean_ns));
	fputs("\n", f);
	if (r->copied_grants)
		fprintf(f, "  copied through granted pages: %llu grants (%s)\n",
			(unsigned long long)r->copied_grants,
			fmt__bytes(b1, sizeof(b1), 4096.0 * (double)r->copied_grants));
	if (r->unmatched)
		fprintf(f,
			"  not counted: %llu requests whose driver state did not read as a "
			"ring's\n",
			(unsigned long long)r->unmatched);
	hist_lines(f, "ring slots in use at submission", HIST_KIND_COUNT, c->occupancy);
}

/* A disk of several hardware queues: what each took and how deep it went. */
static void hwq_lines(FILE *f, const struct hwq_stats *q)
{
	unsigned int k, n = q->nr < BLOCK_HWQS_MAX ? (unsigned int)q->nr : BLOCK_HWQS_MAX;

	if (q->nr <= 1)
		return;
	fprintf(f, "\n  hardware queues: %llu; each queue's depth is exact\n  %-8s %12s %12s\n",
		(unsigned long long)q->nr, "queue", "requests", "max depth");
	for (k = 0; k < n; k++)
		if (q->issued[k])
			fprintf(f, "  %-8u %12llu %12llu\n", k, (unsigned long long)q->issued[k],
				(unsigned long long)q->max_depth[k]);
	if (n < q->nr)
		fprintf(f, "  (the first %u queues shown)\n", n);
	hist_lines(f, "depth in its hardware queue at issue", HIST_KIND_COUNT, q->depth);
}

/* One run: what the disk did, as tables, histograms and findings. */
static void run_section(FILE *f, const struct result *res, const struct run_summary *rs)
{
	const struct block_stats *b = rs->run->block;

	run_header(f, res->has_device ? &res->device : NULL, rs);
	if (!rs->has_block)
		return;
	ops_table(f, &b->c, rs);
	per_request_table(f, rs);
	latency_table(f, rs, res->lat_from_queue);
	hist_lines(f, "request size (bytes)", HIST_KIND_SIZE, rs->block.size_all);
	hist_lines(f, "segments per request", HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS]);
	hist_lines(f, "bytes per segment", HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT]);
	hist_lines(f, "queue depth at issue", HIST_KIND_COUNT, b->count[BLKIO_COUNT_DEPTH]);
	if (block_depth_every(b) > 1 && rs->block.depth.count)
		fprintf(f,
			"  (read on %llu issues: at high rates 1 in %llu at random, counted that "
			"many times; --exact-depth reads every one)\n",
			(unsigned long long)b->c.depth_reads,
			(unsigned long long)block_depth_every(b));
	hwq_lines(f, &b->hwq);
	lat_lines(f, "device time (usecs)", b->lat[BLKIO_LAT_DEVICE]);
	lat_lines(f, "queue time (usecs)", b->lat[BLKIO_LAT_QUEUE]);
	ring_section(f, res, rs);
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
 * Under the table, one line per row, from the findings of the row's first run: the
 * first (a layer's rather than "bio_based", which only says bios are counted), and
 * when that is no limit (read-ahead, below every limit) the limit that stopped the
 * others, so that a row never omits what capped its requests.
 */
static void limit_sentence(FILE *f, const struct report *rep, const struct series *s)
{
	const struct run_summary *first = &rep->runs[s->first];
	const struct finding *lead = NULL, *limit = NULL;
	int i;

	for (i = 0; i < first->nr_findings; i++) {
		const struct finding *fi = &first->findings[i];

		if (!lead || (!strcmp(lead->kind, "bio_based") && !strncmp(fi->kind, "layer_", 6)))
			lead = fi;
	}
	for (i = 0; lead && !findings__is_limit(lead) && i < first->nr_findings; i++)
		if (findings__is_limit(&first->findings[i]) && !limit)
			limit = &first->findings[i];
	if (lead)
		fprintf(f, "  %s: %s%s%s\n", first->label, lead->text, limit ? " " : "",
			limit ? limit->text : "");
}

/* Values of a knob without an order that cannot be told apart from the best. */
static void as_good_list(FILE *f, const struct recommendation *r)
{
	size_t k, said = 0;

	fprintf(f, "; not told apart from it (p >= %g): ", STATS_ALPHA);
	for (k = 0; k < r->nr_evidence; k++)
		if (r->evidence[k].as_good)
			fprintf(f, "%s%s=%s", said++ ? ", " : "", r->knob, r->evidence[k].value);
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
		fprintf(f, "; every smaller value is significantly worse (p < %g)", STATS_ALPHA);
	else if (!r->nr_as_good)
		fprintf(f, "; every other value is significantly worse (p < %g)", STATS_ALPHA);
	else
		as_good_list(f, r);
	fputc('\n', f);
	for (k = 0; k < r->nr_evidence; k++) {
		const struct rec_evidence *e = &r->evidence[k];
		char pv[32] = "-", ci[32];

		if (!isnan(e->p_vs_best))
			snprintf(pv, sizeof(pv), "%.4f", e->p_vs_best);
		if (e->n < 2)
			snprintf(ci, sizeof(ci), "n/a");
		else
			snprintf(ci, sizeof(ci), "%.1f", e->ci95);
		fprintf(f, "  %s=%-10s %10.1f MB/s +- %-8s n=%lld  p vs best %s\n", r->knob,
			e->value, e->mb_per_s, ci, (long long)e->n, pv);
	}
	if (r->boot_parameter[0])
		fprintf(f, "  for xen-blkfront: boot with %s\n", r->boot_parameter);
}

/* "mean +- ci95", or "mean n/a" when one repetition leaves no interval. */
static const char *mean_ci(char *buf, size_t len, const struct agg *a)
{
	if (a->n < 2)
		snprintf(buf, len, "%8.1f   %6s", a->mean, "n/a");
	else
		snprintf(buf, len, "%8.1f +-%6.1f", a->mean, a->ci95);
	return buf;
}

static void linked_row(FILE *f, const struct report *rep, const struct series *s, int width)
{
	const struct agg *m = s->metric;
	char b1[32], b2[32], b3[32], ci[48];

	fprintf(f,
		"%-*s %17s %9.0f %9.1f %8.0f %9s %9s %6.1f %8s %6.2f %5.0f "
		"%9.1f %9.1f %6.2f %5.0f%% %6.2f\n",
		width, rep->runs[s->first].label, mean_ci(ci, sizeof(ci), &m[METRIC_APP_MB_PER_S]),
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

/* Runs cut short by a signal: how far they got; in no row and no statistic. */
static void partial_lines(FILE *f, const struct report *rep)
{
	char done[32], want[32];
	size_t i;

	for (i = 0; i < rep->nr_runs; i++) {
		const struct run_summary *rs = &rep->runs[i];

		if (!rs->partial)
			continue;
		fmt__bytes(done, sizeof(done), (double)rs->app.bytes);
		if (rs->params.size)
			fmt__bytes(want, sizeof(want), (double)rs->params.size);
		else
			snprintf(want, sizeof(want), "%g s", rs->params.runtime);
		fprintf(f, "  run %zu (%s) was cut short after %s of %s: not in the table\n", i + 1,
			rs->label, done, want);
	}
}

/* Runs whose page cache could not be dropped: their reads may be the cache's. */
static void warm_lines(FILE *f, const struct report *rep)
{
	size_t i;

	for (i = 0; i < rep->nr_runs; i++) {
		const struct run_summary *rs = &rep->runs[i];

		if (rs->run && rs->run->cache == RUN_CACHE_WARM)
			fprintf(f,
				"  run %zu (%s) was not cold: %s; its reads may have come from "
				"the page cache\n",
				i + 1, rs->label, rs->run->cache_note);
	}
}

/* The linked table: one row per series, throughput next to the requests behind it. */
static void linked_table(FILE *f, const struct report *rep)
{
	int width = (int)strlen("parameters");
	size_t i;

	/* As wide as the longest label: a cut one reads "psync fsyn". */
	for (i = 0; i < rep->series.nr; i++)
		width = (int)fmax(width,
				  (double)strlen(rep->runs[rep->series.series[i].first].label));
	fprintf(f, "\n%-*s %17s %9s %9s %8s %9s %9s %6s %8s %6s %5s %9s %9s %6s %6s %6s\n", width,
		"parameters", "app MB/s (95% CI)", "IOPS", "p99 us", "requests", "req mean",
		"req p50", "segs", "B/seg", "qd", "qdmax", "dev p50", "dev p99", "merge", "limit%",
		"dev/app");
	for (i = 0; i < rep->series.nr; i++)
		linked_row(f, rep, &rep->series.series[i], width);
	fputc('\n', f);
	for (i = 0; i < rep->series.nr; i++)
		limit_sentence(f, rep, &rep->series.series[i]);
	for (i = 0; i < rep->above.nr; i++)
		fprintf(f, "  above the block layer: %s\n", rep->above.p[i].text);
	partial_lines(f, rep);
	warm_lines(f, rep);
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
			fprintf(f, "run %zu (repetition %u%s%s):\n", i + 1, rs->repetition + 1,
				rs->partial ? ", cut short: not in the statistics" : "",
				rs->run && rs->run->cache == RUN_CACHE_WARM ? ", not cold" : "");
			app_line(f, &rs->app);
			any_app = true;
		}
		run_section(f, rep->res, rs);
	}
	if (any_app)
		linked_table(f, rep);
	if (rep->skipped[0])
		fprintf(f, "\n%s\n", rep->skipped);
}
