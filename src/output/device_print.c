// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A device and the stack under it, as text and as JSON, side by side; see device_print.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/fmt.h"
#include "output/device_print.h"
#include "output/report_json.h"

static void print_limit(FILE *f, const char *name, int64_t v, const char *unit)
{
	if (v < 0)
		fprintf(f, "  %-22s -\n", name);
	else
		fprintf(f, "  %-22s %lld%s\n", name, (long long)v, unit);
}

static const char *on_off(int64_t v)
{
	return v < 0 ? "-" : v ? "on" : "off";
}

static void print_names(FILE *f, const char *title, const char (*names)[DEVICE_NAME_MAX],
			unsigned int n)
{
	unsigned int i;

	fprintf(f, "%s", title);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? ", " : " ", names[i]);
	fputc('\n', f);
}

static void print_partitions(FILE *f, const struct device *d)
{
	const struct device_partition *p;
	unsigned int i;
	char b[32];

	if (!d->nr_partitions)
		return;
	fprintf(f, "partitions:\n");
	for (i = 0; i < d->nr_partitions; i++) {
		p = &d->partitions[i];
		fprintf(f, "  %-10s %u:%-6u start sector %llu, %llu sectors (%s)%s\n", p->name,
			p->major, p->minor, (unsigned long long)p->start,
			(unsigned long long)p->sectors,
			fmt__bytes(b, sizeof(b), p->sectors * 512.0),
			p->nr_holders ? ", held by a stacked device" : "");
	}
}

/* The largest request and which limit sets it: what a trace's findings refer to. */
static void print_max_request(FILE *f, const struct device *d)
{
	const struct queue_limits *l = &d->limits;
	unsigned int which = 0;
	int64_t biggest = device__max_request_bytes(d, &which);
	char b[32], seg[32];

	if (biggest < 0) {
		fprintf(f, "largest request: unknown (no max_sectors_kb or max_segments)\n");
		return;
	}
	fprintf(f, "largest request: %s, set by ", fmt__limit(b, sizeof(b), biggest));
	if (which & DEVICE_LIMIT_MAX_SECTORS)
		fprintf(f, "max_sectors_kb%s", which & DEVICE_LIMIT_MAX_SEGMENTS ? " and " : "");
	if (which & DEVICE_LIMIT_MAX_SEGMENTS)
		fprintf(f, "max_segments x max_segment_size (%lld x %s)",
			(long long)l->max_segments,
			fmt__limit(seg, sizeof(seg), l->max_segment_size));
	if (l->max_hw_sectors_kb > l->max_sectors_kb && l->max_sectors_kb >= 0 &&
	    (which & DEVICE_LIMIT_MAX_SECTORS))
		fprintf(f, "; max_hw_sectors_kb would allow %s",
			fmt__limit(b, sizeof(b), l->max_hw_sectors_kb * 1024));
	fputc('\n', f);
}

static void print_params(FILE *f, const struct device *d)
{
	unsigned int i;

	if (!d->nr_module_params)
		return;
	fprintf(f, "module parameters (%s):\n", d->module);
	for (i = 0; i < d->nr_module_params; i++)
		fprintf(f, "  %-22s %s\n", d->module_params[i].name, d->module_params[i].value);
}

static void print_xen(FILE *f, const struct xen_blkfront *x)
{
	char b[32], param[96];

	fprintf(f, "xen-blkfront:\n");
	print_limit(f, "segments", x->segments, " (negotiated: queue/max_segments)");
	fprintf(f, "  %-22s %s\n", "indirect descriptors",
		x->indirect_descriptors ? "on" : "off (11 segments or fewer)");
	print_limit(f, x->param_is_old_name ? "max (module)" : "max_indirect_segments",
		    x->max_indirect_segments, " (module parameter)");
	if (x->max_request_bytes >= 0)
		fprintf(f, "  %-22s %lld (%s)\n", "max_request_bytes",
			(long long)x->max_request_bytes,
			fmt__limit(b, sizeof(b), x->max_request_bytes));
	print_limit(f, "max_ring_page_order", x->max_ring_page_order, "");
	print_limit(f, "max_queues", x->max_queues, "");
	fprintf(f, "  %-22s %s\n", "feature_persistent", on_off(x->feature_persistent));
	if (x->max_indirect_segments >= 0)
		fprintf(f, "  %-22s %s (boot or modprobe)\n", "boot parameter",
			device__xen_boot_parameter(x, x->max_indirect_segments, param,
						   sizeof(param)));
	else
		fprintf(f, "  %-22s %s=N (boot or modprobe)\n", "boot parameter",
			device__xen_param_name(x));
	/* A rebooted guest negotiates again: say which side to change. */
	if (x->backend_limited)
		fprintf(f,
			"  the module asks for %lld segments but the backend limits it to %lld%s\n",
			(long long)x->max_indirect_segments, (long long)x->segments,
			x->segments_reason == XEN_SEGMENTS_UNKNOWN
				? ""
				: ": only the host can raise it");
	else if (x->segments_reason == XEN_SEGMENTS_BACKEND_NONE)
		fprintf(f, "  no guest parameter turns indirect descriptors on: the backend offers "
			   "none; only the host can\n");
	else if (!x->indirect_descriptors && x->segments_reason != XEN_SEGMENTS_UNKNOWN)
		fprintf(f,
			"  %s (the default) or more turns indirect descriptors on: the backend "
			"offers %lld\n",
			device__xen_boot_parameter(x, XEN_DEFAULT_INDIRECT_SEGMENTS, param,
						   sizeof(param)),
			(long long)x->backend.max_indirect_segments);
	else if (!x->indirect_descriptors)
		fprintf(f,
			"  %s (the default) or more turns indirect descriptors on, where the "
			"backend offers them\n",
			device__xen_boot_parameter(x, XEN_DEFAULT_INDIRECT_SEGMENTS, param,
						   sizeof(param)));
}

/* The negotiated cache flush (xen.cache_flush) by the node that offered it, or how not. */
static const char *flush_text(const char *how, bool short_form)
{
	if (!strcmp(how, "flush"))
		return short_form ? "flush-cache" : "flush (feature-flush-cache)";
	if (!strcmp(how, "barrier"))
		return short_form ? "barrier" : "barrier (feature-barrier)";
	if (!strcmp(how, "none"))
		return short_form ? "no flush" : "none (the backend offers neither)";
	return "-";
}

/* "4 queues, ring order 4, persistent grants, flush-cache, discard": the rest of the offer. */
/* A node the backend did not let us read is -1: said "unknown", not a number or a yes. */
static const char *offer_num(int64_t v, char *buf, size_t len)
{
	if (v < 0)
		return "unknown";
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static const char *offer_flag(int64_t v)
{
	return v < 0 ? "unknown " : v ? "" : "no ";
}

static void print_offer(FILE *f, const struct xen_blkfront *x)
{
	const struct xen_backend_offer *b = &x->backend;
	char q[24], r[24];

	fprintf(f, "  %-22s %s queue%s, ring order %s, %spersistent grants, %s, %sdiscard\n",
		"backend also offers", offer_num(b->max_queues, q, sizeof(q)),
		b->max_queues == 1 ? "" : "s", offer_num(b->max_ring_page_order, r, sizeof(r)),
		offer_flag(b->persistent), flush_text(x->cache_flush, true),
		offer_flag(b->discard));
}

/* The segments in effect, the request they allow, and why: what the findings refer to. */
static void print_segments(FILE *f, const struct xen_blkfront *x)
{
	char why[192], b[32];

	if (x->segments_reason == XEN_SEGMENTS_UNKNOWN) {
		fprintf(f, "  %-22s unknown (%s)\n", "segments in effect",
			x->backend_read ? "the module's parameter is unknown"
					: "the backend's offer is unknown");
		return;
	}
	fprintf(f, "  %-22s %lld: %s", "segments in effect", (long long)x->segments_in_effect,
		device__xen_segments_why(x, why, sizeof(why)));
	if (x->segments >= 0 && x->segments != x->segments_in_effect)
		fprintf(f, "; yet queue/max_segments is %lld", (long long)x->segments);
	fprintf(f, "\n  %-22s %s (%lld segments x 4 KiB)\n", "largest request",
		fmt__limit(b, sizeof(b), x->segments_in_effect * XEN_SEGMENT_BYTES),
		(long long)x->segments_in_effect);
}

/* What the frontend and the backend agreed on, from xenstore (device_xen.c). */
static void print_xenstore(FILE *f, const struct xen_blkfront *x)
{
	const struct xen_backend_offer *bo = &x->backend;
	const char *state = device__xenbus_state_name(x->frontend_state);

	if (!x->frontend[0] || !x->backend_path[0]) {
		if (x->xenstore_error[0])
			fprintf(f, "  %-22s not read: %s; the view above is sysfs's\n", "xenstore",
				x->xenstore_error);
		return;
	}
	fprintf(f, "xen-blkfront negotiation (xenstore):\n");
	fprintf(f, "  %-22s %s (%s)\n", "frontend", x->frontend,
		state[0] ? state : "state unknown");
	fprintf(f, "  %-22s %s, domain %lld (%s)\n", "backend", x->backend_path,
		(long long)bo->domid,
		x->backend_read ? device__xenbus_state_name(bo->state) : "not read");
	if (x->backend_read) {
		if (bo->max_indirect_segments > XEN_DIRECT_SEGMENTS)
			fprintf(f, "  %-22s %lld indirect segments\n", "backend offers",
				(long long)bo->max_indirect_segments);
		else
			fprintf(f, "  %-22s no indirect descriptors\n", "backend offers");
		print_offer(f, x);
	}
	print_segments(f, x);
	print_limit(f, "queues", x->queues, " (the frontend's multi-queue-num-queues)");
	if (x->ring_pages >= 0)
		fprintf(f, "  %-22s %lld page%s, %lld requests per queue\n", "ring",
			(long long)x->ring_pages, x->ring_pages == 1 ? "" : "s",
			(long long)x->ring_requests);
	if (x->backend_read) {
		fprintf(f, "  %-22s %s\n", "persistent grants", on_off(x->persistent_grants));
		fprintf(f, "  %-22s %s\n", "bounce buffer",
			x->bounce_buffer > 0 ? "on: data is copied through granted pages"
					     : on_off(x->bounce_buffer));
		fprintf(f, "  %-22s %s\n", "cache flush", flush_text(x->cache_flush, false));
		fprintf(f, "  %-22s %s\n", "discard", on_off(x->discard));
	}
	if (x->xenstore_error[0])
		fprintf(f, "  %-22s %s\n", "not read", x->xenstore_error);
}

/* An NVMe multipath head issues nothing itself: its paths carry the requests. */
static void print_paths(FILE *f, const struct device *d)
{
	unsigned int i;

	if (d->hidden)
		fprintf(f,
			"%s is a hidden disk (an NVMe multipath path): no device node, traced by "
			"name\n",
			d->name);
	if (!d->nr_paths)
		return;
	fprintf(f,
		"nvme multipath: %s is the head; its requests are issued on %u path%s, traced "
		"with it:\n",
		d->name, d->nr_paths, d->nr_paths == 1 ? "" : "s");
	for (i = 0; i < d->nr_paths; i++) {
		const struct device_path *p = &d->paths[i];

		fprintf(f, "  %-22s controller %s, %s, %u hardware queue%s x %u tags\n", p->name,
			p->controller[0] ? p->controller : "-", p->state[0] ? p->state : "state -",
			p->nr_hw_queues, p->nr_hw_queues == 1 ? "" : "s", p->max_tags);
	}
}

/* Driver sections: only what applies to this disk. */
static void print_drivers(FILE *f, const struct device *d)
{
	const struct virtio_blk_info *v = &d->virtio_blk;
	const struct nvme_info *nv = &d->nvme;

	if (d->xen.present) {
		print_xen(f, &d->xen);
		print_xenstore(f, &d->xen);
	}
	if (d->xen_guest.present) {
		char who[160];

		fprintf(f, "xen-blkback:\n  %-22s %s, through %s\n", "serves",
			device__xen_guest_text(&d->xen_guest, who, sizeof(who)),
			d->xen_guest.backend);
		if (d->xen_guest.xenstore_error[0])
			fprintf(f, "  %-22s %s\n", "not read", d->xen_guest.xenstore_error);
	}
	if (v->present) {
		fprintf(f, "virtio_blk:\n");
		print_limit(f, "queue_depth", v->queue_depth,
			    " (per hardware queue: mq/*/nr_tags)");
		print_limit(f, "queue_depth parameter", v->queue_depth_param,
			    v->queue_depth_param == 0
				    ? " (module parameter: 0 = the virtqueue size)"
				    : " (module parameter)");
		print_limit(f, "num_request_queues", v->num_request_queues, " (module parameter)");
		print_limit(f, "poll_queues", v->poll_queues, " (module parameter)");
		print_limit(f, "host segment limit", v->host_max_segments, " (seg_max)");
	}
	if (nv->present) {
		fprintf(f, "nvme:\n");
		print_limit(f, "io_queue_depth", nv->io_queue_depth, " (module parameter)");
		print_limit(f, "max_hw_sectors_kb", d->limits.max_hw_sectors_kb, " KiB (MDTS)");
		fprintf(f, "  %-22s %u\n", "queues", d->nr_hw_queues);
		fprintf(f, "  %-22s %u\n", "queue depth", d->max_tags);
		print_limit(f, "poll_queues", nv->poll_queues, " (module parameter)");
		print_limit(f, "write_queues", nv->write_queues, " (module parameter)");
	}
	print_paths(f, d);
	if (d->loop.present) {
		fprintf(f, "loop:\n");
		fprintf(f, "  %-22s %s\n", "backing file",
			d->loop.backing_file[0] ? d->loop.backing_file : "-");
		fprintf(f, "  %-22s %s\n", "direct I/O", on_off(d->loop.dio));
	} else if (!strcmp(d->driver, "loop")) {
		fprintf(f, "loop: not bound to a file\n");
	}
	if (d->scsi_queue_depth >= 0) {
		fprintf(f, "scsi:\n");
		print_limit(f, "device queue_depth", d->scsi_queue_depth, "");
	}
	if (d->dm_name[0])
		fprintf(f, "device-mapper: %s\n", d->dm_name);
	if (d->md_level[0])
		fprintf(f, "md: %s\n", d->md_level);
}

/* Stacked devices: the tree under the device, each layer with the limits that shape it. */
static void print_stack(FILE *f, const struct device *d, const struct stack *st)
{
	size_t i;

	if (d->nr_holders)
		print_names(f, "held by (stacked on top, their I/O arrives here):", d->holders,
			    d->nr_holders);
	if (!st->n) {
		if (d->bio_based)
			fprintf(f, "%s is bio-based and has no disks underneath\n", d->name);
		if (st->note[0])
			fprintf(f, "stack: %s\n", st->note);
		return;
	}
	fprintf(f, "stack (traced with %s):\n", d->name);
	fprintf(f, "  %-16s %8s %8s %9s %-12s %s\n", "device", "max_kb", "max_segs", "readahead",
		"scheduler", "what");
	fprintf(f, "  %-16s %8lld %8lld %9lld %-12s %s\n", d->name,
		(long long)d->limits.max_sectors_kb, (long long)d->limits.max_segments,
		(long long)d->limits.read_ahead_kb,
		d->limits.scheduler[0] ? d->limits.scheduler : "-", st->top_kind);
	for (i = 0; i < st->n; i++) {
		const struct layer *l = &st->layers[i];
		const struct queue_limits *q = &l->dev.limits;
		char name[DEVICE_NAME_MAX + 24];

		snprintf(name, sizeof(name), "%*s%s", 2 * (int)l->level, "",
			 l->dev.part_name[0] ? l->dev.part_name : l->dev.name);
		fprintf(f, "  %-16s %8lld %8lld %9lld %-12s %s\n", name,
			(long long)q->max_sectors_kb, (long long)q->max_segments,
			(long long)q->read_ahead_kb, q->scheduler[0] ? q->scheduler : "-", l->role);
	}
	if (st->note[0])
		fprintf(f, "  note: %s\n", st->note);
}

void print_device_plain(FILE *f, const struct device *d, const struct stack *st)
{
	const struct queue_limits *l = &d->limits;
	char b[32];

	fprintf(f, "%s (%u:%u), %s, driver %s, module %s\n", d->name, d->major, d->minor,
		fmt__bytes(b, sizeof(b), (double)d->size_sectors * 512),
		d->driver[0] ? d->driver : "-", d->module[0] ? d->module : "-");
	if (d->part_name[0])
		fprintf(f, "partition %s (%u:%u): start sector %llu, %llu sectors (%s)\n",
			d->part_name, d->part_major, d->part_minor,
			(unsigned long long)d->part_start, (unsigned long long)d->part_sectors,
			fmt__bytes(b, sizeof(b), (double)d->part_sectors * 512));
	print_partitions(f, d);
	fprintf(f, "queue limits:\n");
	print_limit(f, "max_sectors_kb", l->max_sectors_kb, " KiB");
	print_limit(f, "max_hw_sectors_kb", l->max_hw_sectors_kb, " KiB");
	print_limit(f, "max_segments", l->max_segments, "");
	print_limit(f, "max_segment_size", l->max_segment_size, " B");
	print_limit(f, "nr_requests", l->nr_requests, "");
	fprintf(f, "  %-22s %s\n", "scheduler", l->scheduler[0] ? l->scheduler : "-");
	print_limit(f, "read_ahead_kb", l->read_ahead_kb, " KiB");
	print_limit(f, "wbt_lat_usec", l->wbt_lat_usec, " us");
	print_limit(f, "rotational", l->rotational, "");
	print_limit(f, "nomerges", l->nomerges, "");
	fprintf(f, "  %-22s %s\n", "write_cache", l->write_cache[0] ? l->write_cache : "-");
	print_limit(f, "logical_block_size", l->logical_block_size, " B");
	print_limit(f, "physical_block_size", l->physical_block_size, " B");
	fprintf(f, "  %-22s %u (largest nr_tags %u)\n", "hardware queues", d->nr_hw_queues,
		d->max_tags);
	print_max_request(f, d);
	print_params(f, d);
	print_drivers(f, d);
	print_stack(f, d, st);
}

int print_device_json(struct outfile *of, const struct device *dev, const struct stack *st,
		      struct diag *d)
{
	json_t *doc = json_pack("{s:s, s:o}", "schema", RESULT_SCHEMA, "device",
				report_json__device(dev));
	int err;

	if (doc && (st->n || st->note[0]))
		json_object_set_new(
			doc, "stack",
			report_json__stack(dev, st->layers, st->n, st->top_kind, st->note));
	err = outfile__put_json(of, doc, JSON_INDENT(2), d);
	json_decref(doc);
	return err;
}
