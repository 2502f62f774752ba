// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The page and the disk's facts, for both HTML printers; see html.h. */
#include <stdarg.h>
#include <stdlib.h>
#include "base/fmt.h"
#include "output/html.h"
#include "output/svg.h"

/*
 * Colours are variables, switched by the reader's theme and for print; the charts
 * use classes only, so one drawing serves all three.
 */
static const char style[] =
	":root{color-scheme:light dark;--fg:#1c2127;--bg:#ffffff;--muted:#5b6673;"
	"--grid:#e4e7eb;--axis:#8c96a0;--a:#2f6db5;--b:#d97a1f;--limit:#c0392b;"
	"--better:#d6f0dc;--worse:#f8d7d5;--moved:#e2ddf5;--same:transparent;--panel:#f5f7f9}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e3e7ec;--bg:#14171b;--muted:#9aa6b2;"
	"--grid:#2a3038;--axis:#6d7883;--a:#6ea6ea;--b:#f2a65a;--limit:#ef6f61;"
	"--better:#1f4a2a;--worse:#5a2522;--moved:#3a3160;--panel:#1c2026}}\n"
	"@media print{:root{--fg:#000;--bg:#fff;--muted:#444;--grid:#ddd;--axis:#777;"
	"--panel:#fff}figure,section.run>h2{break-inside:avoid}}\n"
	"body{margin:0;background:var(--bg);color:var(--fg);"
	"font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}\n"
	"main{max-width:1120px;margin:0 auto;padding:1em 1.5em 3em}\n"
	"h1{font-size:1.5em;margin:.4em 0}h2{font-size:1.2em;margin:1.6em 0 .4em;"
	"border-bottom:1px solid var(--grid)}h3{font-size:1.02em;margin:1.2em 0 .3em}\n"
	"code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.92em}\n"
	".muted{color:var(--muted)}\n"
	"#findings{background:var(--panel);padding:.6em 1em;border-radius:6px}\n"
	"#findings li{margin:.3em 0}\n"
	"figure.chart{margin:1em 0}figcaption{font-weight:600;margin-bottom:.3em}\n"
	".side{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:flex-start}\n"
	"svg.chart{max-width:100%;height:auto;display:block}\n"
	"svg text{fill:var(--fg);font-size:11px}svg .tick,svg .legend{fill:var(--muted)}\n"
	"svg .axis line{stroke:var(--axis)}svg line.grid{stroke:var(--grid)}\n"
	"svg .bar{fill:var(--a)}svg .bar.b{fill:var(--b);fill-opacity:.65}\n"
	"svg .swatch.a{fill:var(--a)}svg .swatch.b{fill:var(--b)}\n"
	"svg .line{fill:none;stroke:var(--a);stroke-width:2}svg .line.b{stroke:var(--b)}\n"
	"svg .dot{fill:var(--a)}svg .dot.b{fill:var(--b)}svg .dot.rec{fill:var(--limit)}\n"
	"svg .errbar{stroke:var(--fg);stroke-width:1.2;fill:none}\n"
	"svg .mark line{stroke:var(--muted);stroke-dasharray:4 3}\n"
	"svg .mark.limit line{stroke:var(--limit);stroke-dasharray:6 3;stroke-width:1.5}\n"
	"svg .mark.limit text{fill:var(--limit)}svg .mark.rec line{stroke:var(--limit)}\n"
	"details{font-size:.9em}summary{cursor:pointer;color:var(--muted)}\n"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.3em 0}\n"
	"th,td{padding:2px 9px;border-bottom:1px solid var(--grid);text-align:right;"
	"vertical-align:top}\n"
	"th:first-child,td:first-child{text-align:left}table.facts th{text-align:left;"
	"font-weight:500;color:var(--muted)}table.facts td{text-align:left}\n"
	"tr.better td{background:var(--better)}tr.worse td{background:var(--worse)}\n"
	"tr.higher td,tr.lower td{background:var(--moved)}\n"
	"table.stack td{white-space:nowrap}table.stack td:nth-child(2),"
	"table.stack th:nth-child(2){white-space:normal;text-align:left}\n";

void html__begin(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"blktrace-bench\">\n<title>",
	      f);
	svg__escape(f, title);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", style);
}

void html__end(FILE *f)
{
	fputs("</main>\n</body>\n</html>\n", f);
}

void html__text(FILE *f, const char *s)
{
	svg__escape(f, s);
}

void html__fact(FILE *f, const char *key, const char *fmt, ...)
{
	char *v = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	fputs("<tr><th>", f);
	svg__escape(f, key);
	fputs("</th><td>", f);
	svg__escape(f, n >= 0 ? v : "?");
	fputs("</td></tr>\n", f);
	if (n >= 0)
		free(v);
}

void html__origin(FILE *f, const struct result *res, const char *file)
{
	char skipped[224];

	fputs("<table class=\"facts\">\n", f);
	if (file)
		html__fact(f, "result file", "%s", file);
	if (res->command_line[0])
		html__fact(f, "command", "%s", res->command_line);
	html__fact(f, "host", "%s, kernel %s", res->host.hostname[0] ? res->host.hostname : "?",
		   res->host.kernel[0] ? res->host.kernel : "?");
	html__fact(f, "blktrace-bench", "%s%s%s", res->tool_version,
		   res->tracer_flavour[0] ? ", BPF programs: " : "", res->tracer_flavour);
	if (result__skipped_text(res, skipped, sizeof(skipped))[0])
		html__fact(f, "skipped", "%s", skipped);
	fputs("</table>\n", f);
}

/* A limit as sysfs states it; "-" when the kernel has none. */
static void limit_fact(FILE *f, const char *name, int64_t v)
{
	if (v < 0)
		html__fact(f, name, "-");
	else
		html__fact(f, name, "%lld", (long long)v);
}

static void limits_facts(FILE *f, const struct queue_limits *l)
{
	char b[32];

	limit_fact(f, "max_sectors_kb", l->max_sectors_kb);
	limit_fact(f, "max_hw_sectors_kb", l->max_hw_sectors_kb);
	limit_fact(f, "max_segments", l->max_segments);
	if (l->max_segment_size >= 0)
		html__fact(f, "max_segment_size", "%lld (%s)", (long long)l->max_segment_size,
			   fmt__limit(b, sizeof(b), l->max_segment_size));
	limit_fact(f, "nr_requests", l->nr_requests);
	html__fact(f, "scheduler", "%s", l->scheduler[0] ? l->scheduler : "-");
	limit_fact(f, "read_ahead_kb", l->read_ahead_kb);
	limit_fact(f, "wbt_lat_usec", l->wbt_lat_usec);
	limit_fact(f, "nomerges", l->nomerges);
	limit_fact(f, "rotational", l->rotational);
	html__fact(f, "write_cache", "%s", l->write_cache[0] ? l->write_cache : "-");
	limit_fact(f, "logical_block_size", l->logical_block_size);
	limit_fact(f, "physical_block_size", l->physical_block_size);
}

static const char *on_off(int64_t v)
{
	return v < 0 ? "-" : v ? "on" : "off";
}

/* What xen-blkfront and its backend agreed on (xenstore); nothing where it was not read. */
static void xen_negotiated_facts(FILE *f, const struct xen_blkfront *x)
{
	char why[192], b[32];

	if (x->xenstore_error[0] && !x->backend_read)
		html__fact(f, "xenstore", "not read: %s", x->xenstore_error);
	if (!x->backend_read)
		return;
	if (x->backend.max_indirect_segments > XEN_DIRECT_SEGMENTS)
		html__fact(f, "xen backend offers", "%lld indirect segments",
			   (long long)x->backend.max_indirect_segments);
	else
		html__fact(f, "xen backend offers", "no indirect descriptors");
	if (x->segments_reason != XEN_SEGMENTS_UNKNOWN)
		html__fact(f, "xen segments in effect", "%lld: %s, so requests of %s at most",
			   (long long)x->segments_in_effect,
			   device__xen_segments_why(x, why, sizeof(why)),
			   fmt__limit(b, sizeof(b), x->segments_in_effect * XEN_SEGMENT_BYTES));
	if (x->ring_pages >= 0)
		html__fact(f, "xen queues and ring", "%lld x %lld page%s (%lld requests each)",
			   (long long)x->queues, (long long)x->ring_pages,
			   x->ring_pages == 1 ? "" : "s", (long long)x->ring_requests);
	html__fact(f, "persistent grants", "%s%s", on_off(x->persistent_grants),
		   x->bounce_buffer > 0 ? "; bounce buffer: data copied through granted pages"
					: "");
	html__fact(f, "cache flush, discard", "%s, %s", x->cache_flush[0] ? x->cache_flush : "-",
		   on_off(x->discard));
}

static void driver_facts(FILE *f, const struct device *d)
{
	const struct xen_blkfront *x = &d->xen;
	char param[96];

	if (x->present) {
		limit_fact(f, "xen-blkfront segments", x->segments);
		html__fact(f, "indirect descriptors", "%s", x->indirect_descriptors ? "on" : "off");
		if (x->max_indirect_segments >= 0)
			html__fact(f, "boot parameter", "%s%s",
				   device__xen_boot_parameter(x, x->max_indirect_segments, param,
							      sizeof(param)),
				   x->backend_limited ? " (the backend limits it)" : "");
		xen_negotiated_facts(f, x);
	}
	if (d->virtio_blk.present)
		limit_fact(f, "virtio_blk queue depth", d->virtio_blk.queue_depth);
	if (d->nvme.present)
		limit_fact(f, "nvme io_queue_depth", d->nvme.io_queue_depth);
	if (d->loop.present)
		html__fact(f, "loop backing file", "%s%s", d->loop.backing_file,
			   d->loop.dio > 0 ? " (direct I/O)" : "");
	if (d->dm_name[0])
		html__fact(f, "device-mapper name", "%s", d->dm_name);
	if (d->md_level[0])
		html__fact(f, "md level", "%s", d->md_level);
	if (d->scsi_queue_depth >= 0)
		limit_fact(f, "SCSI queue depth", d->scsi_queue_depth);
}

void html__device(FILE *f, const struct device *d)
{
	unsigned int which = 0;
	int64_t biggest = device__max_request_bytes(d, &which);
	char b[32];

	fputs("<table class=\"facts\">\n", f);
	html__fact(f, "disk", "%s (%u:%u)%s%s", d->name, d->major, d->minor,
		   d->part_name[0] ? ", partition " : "", d->part_name);
	html__fact(f, "size", "%s", fmt__bytes(b, sizeof(b), d->size_sectors * 512.0));
	html__fact(f, "driver", "%s (module %s)", d->driver[0] ? d->driver : "?",
		   d->module[0] ? d->module : "-");
	if (biggest >= 0)
		html__fact(f, "largest request", "%s, set by %s", fmt__limit(b, sizeof(b), biggest),
			   device__limit_name(which));
	html__fact(f, "hardware queues", "%u x %u tags", d->nr_hw_queues, d->max_tags);
	if (d->bio_based)
		html__fact(f, "bio-based", "yes: it issues no requests itself");
	limits_facts(f, &d->limits);
	driver_facts(f, d);
	fputs("</table>\n", f);
}
