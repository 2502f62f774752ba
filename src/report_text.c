// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <math.h>
#include <string.h>
#include "findings.h"
#include "recommend.h"
#include "report.h"
#include "summary.h"

#define BAR_WIDTH 40

const char *fmt_bytes(char *buf, size_t len, double bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	unsigned int u = 0;

	while (bytes >= 1024 && u < 4) {
		bytes /= 1024;
		u++;
	}
	if (u == 0 || bytes == floor(bytes))
		snprintf(buf, len, "%.0f %s", bytes, units[u]);
	else
		snprintf(buf, len, "%.1f %s", bytes, units[u]);
	return buf;
}

/* Bucket bounds as a dd user writes them: 512, 4K, 1M. */
static const char *fmt_size_short(char *buf, size_t len, uint64_t v)
{
	if (v >= (1ULL << 30) && !(v % (1ULL << 30)))
		snprintf(buf, len, "%lluG", (unsigned long long)(v >> 30));
	else if (v >= (1ULL << 20) && !(v % (1ULL << 20)))
		snprintf(buf, len, "%lluM", (unsigned long long)(v >> 20));
	else if (v >= 1024 && !(v % 1024))
		snprintf(buf, len, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

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
			snprintf(label, sizeof(label), ">= %s", fmt_size_short(lo, sizeof(lo), l));
		else
			snprintf(label, sizeof(label), "[%s, %s)", fmt_size_short(lo, sizeof(lo), l),
				 fmt_size_short(hi, sizeof(hi), u));
		fprintf(f, "    %-20s : %-9llu ", label, (unsigned long long)h[i]);
		bar(f, h[i], peak);
	}
}

/* Latency: regrouped into powers of two of microseconds, like biolatency. */
static void lat_lines(FILE *f, const char *title, const __u64 *h)
{
	uint64_t groups[64] = {0}, peak = 0;
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
static void findings_lines(FILE *f, const struct device *dev, const struct block_stats *b)
{
	struct finding fs[FINDINGS_MAX];
	int i, n = findings__compute(dev, b, fs, FINDINGS_MAX);

	if (n <= 0)
		return;
	fprintf(f, "\n  findings:\n");
	for (i = 0; i < n; i++)
		fprintf(f, "    %s\n", fs[i].text);
}

void report_text_run(FILE *f, const struct result *res, const struct run *run)
{
	static struct device scratch; /* large; the text report is single-threaded */
	const struct device *dev = run__device(res, run, &scratch);
	const struct block_stats *b = run->block;
	const struct blkio_counters *c;
	struct block_summary s;
	char b1[32], b2[32], b3[32];
	unsigned int k;

	fprintf(f, "%s: %s (%u:%u%s%s), %.3f s\n", run->label,
		dev->part_name[0] ? dev->part_name : dev->name,
		dev->part_name[0] ? dev->part_major : dev->major,
		dev->part_name[0] ? dev->part_minor : dev->minor, dev->driver[0] ? ", " : "",
		dev->driver, run->seconds);
	if (!run->has_block)
		return;
	c = &b->c;
	block_summary__compute(b, &dev->limits, &s);

	fprintf(f, "\n  %-10s %12s %16s %12s\n", "op", "requests", "bytes", "MB/s");
	for (k = 0; k < BLKIO_NR_OPS; k++)
		fprintf(f, "  %-10s %12llu %16llu %12.2f\n", blkio_op_names[k],
			(unsigned long long)c->requests[k], (unsigned long long)c->bytes[k],
			run->seconds > 0 ? c->bytes[k] / run->seconds / 1e6 : 0.0);
	fprintf(f, "  merges %llu (requests merged %llu), splits %llu, requeues %llu, errors %llu, "
		   "lost events %llu\n",
		(unsigned long long)c->merges, (unsigned long long)c->rq_merges,
		(unsigned long long)c->splits, (unsigned long long)c->requeues,
		(unsigned long long)c->errors, (unsigned long long)c->lost_events);
	if (c->untracked || c->stale_slots || c->slot_overflow)
		fprintf(f, "  not timed: %llu completions of requests issued before tracing, "
			   "%llu lost completions, %llu outside the slot table\n",
			(unsigned long long)c->untracked, (unsigned long long)c->stale_slots,
			(unsigned long long)c->slot_overflow);

	fprintf(f, "\n  %-16s %10s %10s %10s\n", "per request", "mean", "p50", "max");
	if (s.size.count)
		fprintf(f, "  %-16s %10s %10s %10s\n", "size", fmt_bytes(b1, sizeof(b1), s.size.mean),
			fmt_bytes(b2, sizeof(b2), s.size.p50),
			fmt_bytes(b3, sizeof(b3), s.size.max));
	if (s.segments.count) {
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "segments", s.segments.mean,
			s.segments.p50, (unsigned long long)s.segments.max);
		fprintf(f, "  %-16s %10s %10s %10s\n", "bytes/segment",
			fmt_bytes(b1, sizeof(b1), s.seg_bytes.mean),
			fmt_bytes(b2, sizeof(b2), s.seg_bytes.p50),
			fmt_bytes(b3, sizeof(b3), s.seg_bytes.max));
	}
	if (s.depth.count)
		fprintf(f, "  %-16s %10.2f %10.0f %10llu\n", "queue depth", s.depth.mean, s.depth.p50,
			(unsigned long long)s.depth.max);
	if (s.data_requests)
		fprintf(f, "  limit-bound: %.1f%% of data requests reached max_sectors_kb=%lld, "
			   "%.1f%% max_segments=%lld\n",
			100 * s.limit_sectors, (long long)dev->limits.max_sectors_kb,
			100 * s.limit_segments, (long long)dev->limits.max_segments);

	fprintf(f, "\n  %-16s %10s %10s %10s %10s %10s %10s\n", "latency (us)", "mean", "p50", "p90",
		"p99", "p99.9", "max");
	lat_row(f, "queue (G2D)", &s.lat[BLKIO_LAT_QUEUE]);
	lat_row(f, "device (D2C)", &s.lat[BLKIO_LAT_DEVICE]);
	lat_row(f, "total (G2C)", &s.lat[BLKIO_LAT_TOTAL]);

	hist_lines(f, "request size (bytes)", HIST_KIND_SIZE, s.size_all);
	hist_lines(f, "segments per request", HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS]);
	hist_lines(f, "bytes per segment", HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT]);
	hist_lines(f, "queue depth at issue", HIST_KIND_COUNT, b->count[BLKIO_COUNT_DEPTH]);
	lat_lines(f, "device time (usecs)", b->lat[BLKIO_LAT_DEVICE]);
	lat_lines(f, "queue time (usecs)", b->lat[BLKIO_LAT_QUEUE]);
	findings_lines(f, dev, b);
}

static double metric(json_t *series, const char *path, const char *field)
{
	json_t *m = json_object_get(json_object_get(series, "metrics"), path);

	return json_number_value(json_object_get(m, field));
}

/* Under the table, one sentence per row: the first finding of the row's first run. */
static void limit_sentence(FILE *f, json_t *doc, json_t *series, const struct device *dev)
{
	json_t *run = json_array_get(json_object_get(doc, "runs"),
				     json_integer_value(json_array_get(
					     json_object_get(series, "runs"), 0)));
	json_t *finding = json_array_get(json_object_get(run, "findings"), 0);
	const char *label = json_string_value(json_object_get(series, "label"));
	const char *text = json_string_value(json_object_get(finding, "text"));

	json_t *params = json_object_get(series, "params");
	double bs = json_number_value(json_object_get(params, "bs"));
	double p50 = metric(series, "block.request_bytes.p50", "mean");
	const char *rw = json_string_value(json_object_get(params, "rw"));
	char b1[32], b2[32];

	/* Buffered sequential reads: the kernel's read-ahead sized the requests, not bs. */
	if (rw && !strcmp(rw, "read") && !json_is_true(json_object_get(params, "direct")) &&
	    bs > 0 && p50 > bs) {
		fprintf(f, "  %s: read-ahead (read_ahead_kb=%lld) turned %s reads into %s requests "
			   "at the median\n", label ? label : "-", (long long)dev->limits.read_ahead_kb,
			fmt_bytes(b1, sizeof(b1), bs), fmt_bytes(b2, sizeof(b2), p50));
		return;
	}
	if (text)
		fprintf(f, "  %s: %s\n", label ? label : "-", text);
}

/*
 * The linked table: one row per parameter set, throughput next to the request
 * and segment sizes that produced it. Aggregates come from the same series the
 * JSON carries, so text and JSON cannot disagree.
 */
static void linked_table(FILE *f, const struct result *res)
{
	json_t *doc = report_json(res), *series = json_object_get(doc, "series"), *s;
	size_t i;
	char b1[32], b2[32], b3[32];

	fprintf(f, "\n%-44s %17s %9s %9s %8s %9s %9s %6s %8s %6s %5s %9s %9s %6s %6s %6s\n",
		"parameters", "app MB/s (95% CI)", "IOPS", "p99 us", "requests", "req mean",
		"req p50", "segs", "B/seg", "qd", "qdmax", "dev p50", "dev p99", "merge",
		"limit%", "dev/app");
	json_array_foreach(series, i, s) {
		const char *label = json_string_value(json_object_get(s, "label"));

		fprintf(f, "%-44.44s %8.1f +-%6.1f %9.0f %9.1f %8.0f %9s %9s %6.1f %8s %6.2f %5.0f "
			   "%9.1f %9.1f %6.2f %5.0f%% %6.2f\n",
			label ? label : "-", metric(s, "app.mb_per_s", "mean"),
			metric(s, "app.mb_per_s", "ci95"), metric(s, "app.iops", "mean"),
			metric(s, "app.latency_ns.p99", "mean") / 1e3,
			metric(s, "block.requests", "mean"),
			fmt_bytes(b1, sizeof(b1), metric(s, "block.request_bytes.mean", "mean")),
			fmt_bytes(b2, sizeof(b2), metric(s, "block.request_bytes.p50", "mean")),
			metric(s, "block.segments.mean", "mean"),
			fmt_bytes(b3, sizeof(b3), metric(s, "block.segment_bytes.mean", "mean")),
			metric(s, "block.queue_depth.mean", "mean"),
			metric(s, "block.queue_depth.max", "max"),
			metric(s, "block.device_ns.p50", "mean") / 1e3,
			metric(s, "block.device_ns.p99", "mean") / 1e3,
			metric(s, "block.merges_per_request", "mean"),
			100 * fmax(metric(s, "block.limit_bound.max_sectors", "mean"),
				   metric(s, "block.limit_bound.max_segments", "mean")),
			metric(s, "block.device_bytes_per_app_byte", "mean"));
	}
	fputc('\n', f);
	json_array_foreach(series, i, s)
		limit_sentence(f, doc, s, &res->device);
	if (res->recommend)
		recommend_text(f, json_object_get(doc, "recommendation"));
	json_decref(doc);
}

static void app_line(FILE *f, const struct app_stats *a)
{
	double s = a->ns / 1e9;
	struct dist d;
	char b[32];

	dist__fill(&d, HIST_KIND_LAT, a->lat, a->lat_sum_ns, a->lat_max_ns);
	fprintf(f, "  app: %s in %.3f s: %.1f MB/s, %.0f IOPS, latency mean %.1f us, p99 %.1f us\n",
		fmt_bytes(b, sizeof(b), a->bytes), s, s > 0 ? a->bytes / s / 1e6 : 0.0,
		s > 0 ? a->ios / s : 0.0, d.mean / 1e3, d.p99 / 1e3);
}

void report_text(FILE *f, const struct result *res)
{
	bool any_app = false;
	size_t i;

	for (i = 0; i < res->nr_runs; i++) {
		const struct run *r = &res->runs[i];

		if (r->has_app && res->brief) {
			any_app = true;
			continue;
		}
		if (i)
			fputc('\n', f);
		if (r->has_app) {
			fprintf(f, "run %zu (repetition %u):\n", i + 1, r->repetition + 1);
			app_line(f, r->app);
			any_app = true;
		}
		report_text_run(f, res, r);
	}
	if (any_app)
		linked_table(f, res);
}
