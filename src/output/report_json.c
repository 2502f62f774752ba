// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The JSON printer: a struct report as the document doc/json.md describes, and the
 * `device` object info --json prints. It only prints: every figure comes computed in
 * the report (report.c, summary.c, series.c, recommend.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "output/report_json.h"
#include "base/text.h"
#include "result/counters.h"

/* -1 means "the kernel has no such file": null, not a number. */
static json_t *jlimit(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *limits_json(const struct queue_limits *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "max_sectors_kb", jlimit(l->max_sectors_kb), "max_hw_sectors_kb",
			 jlimit(l->max_hw_sectors_kb), "max_segments", jlimit(l->max_segments),
			 "max_segment_size", jlimit(l->max_segment_size), "nr_requests",
			 jlimit(l->nr_requests), "scheduler", text__json(l->scheduler),
			 "read_ahead_kb", jlimit(l->read_ahead_kb), "rotational",
			 l->rotational < 0 ? json_null() : json_boolean(l->rotational),
			 "logical_block_size", jlimit(l->logical_block_size), "physical_block_size",
			 jlimit(l->physical_block_size), "wbt_lat_usec", jlimit(l->wbt_lat_usec),
			 "nomerges", jlimit(l->nomerges), "write_cache",
			 text__json(l->write_cache));
}

/* -1, 0, 1: null, false, true. */
static json_t *jtri(int64_t v)
{
	return v < 0 ? json_null() : json_boolean(v);
}

static json_t *jstr_or_null(const char *s)
{
	return s[0] ? text__json(s) : json_null();
}

/* The backend's offer as xenstore has it (0/1 for features); null when not read. */
static json_t *xen_backend_json(const struct xen_blkfront *x)
{
	const struct xen_backend_offer *b = &x->backend;

	if (!x->backend_read)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "domid", jlimit(b->domid),
			 "state", jlimit(b->state), "max_indirect_segments",
			 jlimit(b->max_indirect_segments), "persistent_grants",
			 jlimit(b->persistent), "max_queues", jlimit(b->max_queues),
			 "max_ring_page_order", jlimit(b->max_ring_page_order), "flush_cache",
			 jlimit(b->flush_cache), "barrier", jlimit(b->barrier), "discard",
			 jlimit(b->discard));
}

/* What xenstore says (device_xen.c): every key null where it was not read. */
static void xen_negotiated_json(json_t *o, const struct xen_blkfront *x)
{
	const char *reason = device__xen_reason_name(x->segments_reason);

	json_object_set_new(o, "frontend", jstr_or_null(x->frontend));
	json_object_set_new(o, "frontend_state", jlimit(x->frontend_state));
	json_object_set_new(o, "xenstore_error", jstr_or_null(x->xenstore_error));
	json_object_set_new(o, "backend", xen_backend_json(x));
	json_object_set_new(o, "segments_in_effect", jlimit(x->segments_in_effect));
	json_object_set_new(o, "segments_reason", reason ? json_string(reason) : json_null());
	json_object_set_new(o, "queues", jlimit(x->queues));
	json_object_set_new(o, "ring_pages", jlimit(x->ring_pages));
	json_object_set_new(o, "ring_requests", jlimit(x->ring_requests));
	json_object_set_new(o, "persistent_grants", jtri(x->persistent_grants));
	json_object_set_new(o, "bounce_buffer", jtri(x->bounce_buffer));
	json_object_set_new(o, "cache_flush", jstr_or_null(x->cache_flush));
	json_object_set_new(o, "discard", jtri(x->discard));
}

static json_t *xen_json(const struct xen_blkfront *x)
{
	json_t *o, *boot = json_null();
	char param[96];

	if (!x->present)
		return json_null();
	if (x->max_indirect_segments >= 0)
		boot = json_string(device__xen_boot_parameter(x, x->max_indirect_segments, param,
							      sizeof(param)));
	o = json_pack("{s:o, s:o, s:b, s:o, s:o, s:o, s:o}", "max_indirect_segments",
		      jlimit(x->max_indirect_segments), "segments", jlimit(x->segments),
		      "indirect_descriptors", x->indirect_descriptors, "max_request_bytes",
		      jlimit(x->max_request_bytes), "max_ring_page_order",
		      jlimit(x->max_ring_page_order), "max_queues", jlimit(x->max_queues),
		      "feature_persistent", jlimit(x->feature_persistent));
	if (!o) {
		json_decref(boot);
		return NULL;
	}
	/* Saved results are compared across reboots: keep the line that changes them. */
	json_object_set_new(o, "parameter_name", json_string(device__xen_param_name(x)));
	json_object_set_new(o, "boot_parameter", boot);
	json_object_set_new(o, "backend_limited", json_boolean(x->backend_limited));
	xen_negotiated_json(o, x);
	return o;
}

static json_t *names_json(const char (*names)[DEVICE_NAME_MAX], unsigned int n)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < n; i++)
		json_array_append_new(a, text__json(names[i]));
	return a;
}

static json_t *partitions_json(const struct device *dev)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < dev->nr_partitions; i++) {
		const struct device_partition *p = &dev->partitions[i];

		json_array_append_new(a,
				      json_pack("{s:o, s:i, s:i, s:i, s:o, s:o, s:i}", "name",
						text__json(p->name), "major", (int)p->major,
						"minor", (int)p->minor, "number", (int)p->number,
						"start_sector", jint(p->start), "sectors",
						jint(p->sectors), "holders", (int)p->nr_holders));
	}
	return a;
}

/* Values as sysfs shows them ("Y", "32"): the types are the module's business. */
static json_t *module_params_json(const struct device *dev)
{
	json_t *o = json_object();
	unsigned int i;

	for (i = 0; o && i < dev->nr_module_params; i++)
		text__json_set(o, dev->module_params[i].name,
			       text__json(dev->module_params[i].value));
	return o;
}

static json_t *drivers_json(const struct device *dev, json_t *d)
{
	const struct virtio_blk_info *v = &dev->virtio_blk;
	const struct nvme_info *nv = &dev->nvme;
	const struct loop_info *lo = &dev->loop;

	json_object_set_new(d, "virtio_blk",
			    !v->present
				    ? json_null()
				    : json_pack("{s:o, s:o, s:o, s:o, s:o}", "queue_depth",
						jlimit(v->queue_depth), "queue_depth_parameter",
						jlimit(v->queue_depth_param), "num_request_queues",
						jlimit(v->num_request_queues), "poll_queues",
						jlimit(v->poll_queues), "host_max_segments",
						jlimit(v->host_max_segments)));
	json_object_set_new(d, "nvme",
			    !nv->present ? json_null()
					 : json_pack("{s:o, s:o, s:o, s:o, s:i}", "io_queue_depth",
						     jlimit(nv->io_queue_depth), "poll_queues",
						     jlimit(nv->poll_queues), "write_queues",
						     jlimit(nv->write_queues), "max_hw_sectors_kb",
						     jlimit(dev->limits.max_hw_sectors_kb),
						     "queues", (int)dev->nr_hw_queues));
	json_object_set_new(
		d, "loop",
		!lo->present ? json_null()
			     : json_pack("{s:o, s:o}", "backing_file", text__json(lo->backing_file),
					 "dio", lo->dio < 0 ? json_null() : json_boolean(lo->dio)));
	return d;
}

/* An NVMe multipath head's path disks; empty for every other disk. */
static json_t *paths_json(const struct device *dev)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < dev->nr_paths; i++) {
		const struct device_path *p = &dev->paths[i];

		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:i, s:i}", "name", p->name,
						   "controller", jstr_or_null(p->controller),
						   "state", jstr_or_null(p->state), "nr_hw_queues",
						   (int)p->nr_hw_queues, "max_tags",
						   (int)p->max_tags));
	}
	return a;
}

/* dom0: the guest disk xen-blkback serves from this device; null elsewhere. */
static json_t *xen_guest_json(const struct xen_guest_disk *g)
{
	if (!g->present)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "domid", jint(g->domid), "devid",
			 jint(g->devid), "vdev", jstr_or_null(g->vdev), "domain",
			 jstr_or_null(g->domain), "backend", jstr_or_null(g->backend),
			 "xenstore_error", jstr_or_null(g->xenstore_error));
}

json_t *report_json__device(const struct device *dev)
{
	json_t *d, *part = json_null();
	unsigned int which = 0;
	int64_t biggest = device__max_request_bytes(dev, &which);

	if (dev->part_name[0])
		part = json_pack("{s:o, s:i, s:i, s:o, s:o}", "name", text__json(dev->part_name),
				 "major", (int)dev->part_major, "minor", (int)dev->part_minor,
				 "start_sector", jint(dev->part_start), "sectors",
				 jint(dev->part_sectors));
	d = json_pack("{s:o, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o}", "name",
		      text__json(dev->name), "major", (int)dev->major, "minor", (int)dev->minor,
		      "size_bytes", jint(dev->size_sectors * 512), "driver",
		      text__json(dev->driver), "module", text__json(dev->module), "limits",
		      limits_json(&dev->limits), "partition", part, "nr_hw_queues",
		      (int)dev->nr_hw_queues, "max_tags", (int)dev->max_tags, "xen_blkfront",
		      xen_json(&dev->xen));
	if (!d)
		return NULL;
	json_object_set_new(d, "max_request_bytes", jlimit(biggest));
	json_object_set_new(d, "max_request_limit",
			    biggest < 0 ? json_null() : json_string(device__limit_name(which)));
	json_object_set_new(d, "bio_based", json_boolean(dev->bio_based));
	json_object_set_new(d, "partitions", partitions_json(dev));
	json_object_set_new(d, "slaves", names_json(dev->slaves, dev->nr_slaves));
	json_object_set_new(d, "holders", names_json(dev->holders, dev->nr_holders));
	json_object_set_new(d, "module_parameters", module_params_json(dev));
	json_object_set_new(d, "dm_name", jstr_or_null(dev->dm_name));
	json_object_set_new(d, "md_level", jstr_or_null(dev->md_level));
	json_object_set_new(d, "scsi_queue_depth", jlimit(dev->scsi_queue_depth));
	json_object_set_new(d, "hidden", json_boolean(dev->hidden));
	json_object_set_new(d, "paths", paths_json(dev));
	json_object_set_new(d, "xen_guest", xen_guest_json(&dev->xen_guest));
	return drivers_json(dev, d);
}

/* Non-empty buckets as {lo, hi, count}; hi is null for the open last bucket. */
static json_t *buckets_json(enum hist_kind kind, const __u64 *h)
{
	unsigned int i, n = hist_nr_buckets(kind);
	json_t *a = json_array();

	for (i = 0; a && i < n; i++) {
		uint64_t hi = hist_bucket_hi(kind, i);

		if (!h[i])
			continue;
		json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "lo",
						   jint(hist_bucket_lo(kind, i)), "hi",
						   hi == UINT64_MAX ? json_null() : jint(hi),
						   "count", jint(h[i])));
	}
	return a;
}

static json_t *dist_json(const struct dist *d, enum hist_kind kind, const __u64 *h,
			 bool percentiles)
{
	json_t *o = json_pack("{s:o, s:f, s:f, s:o}", "count", jint(d->count), "mean", d->mean,
			      "p50", d->p50, "max", jint(d->max));

	if (o && percentiles) {
		json_object_set_new(o, "p90", json_real(d->p90));
		json_object_set_new(o, "p99", json_real(d->p99));
		json_object_set_new(o, "p999", json_real(d->p999));
	}
	if (o)
		json_object_set_new(o, "buckets", buckets_json(kind, h));
	return o;
}

/* The counters of bpf/blkio_counters.h: per op, then the rest, in the table's order. */
static void counters_json(json_t *o, const struct blkio_counters *c)
{
	unsigned int k, j;

	for (k = 0; k < BLKIO_NR_OPS; k++) {
		json_t *op = json_object();

		for (j = 0; op && j < BLKIO_NR_OP_COUNTERS; j++)
			json_object_set_new(op, blkio_op_counters[j].json_key,
					    jint(blkio_counter_get(c, blkio_op_counters[j].offset +
									      k * sizeof(__u64))));
		json_object_set_new(o, blkio_op_names[k], op);
	}
	for (k = 0; k < BLKIO_NR_COUNTERS; k++) {
		const struct blkio_counter *t = &blkio_counters_table[k];
		json_t *in = o;

		if (t->json_obj && !(in = json_object_get(o, t->json_obj))) {
			in = json_object();
			json_object_set_new(o, t->json_obj, in);
		}
		json_object_set_new(in, t->json_key, jint(blkio_counter_get(c, t->offset)));
	}
}

/* The request sizes of each kind of operation: {"read": [buckets], "write", "other"}. */
static json_t *size_by_op_json(const struct block_stats *b)
{
	static const char *const names[] = {
		[BLKIO_SIZE_READ] = "read",
		[BLKIO_SIZE_WRITE] = "write",
		[BLKIO_SIZE_OTHER] = "other",
	};
	json_t *o = json_object();
	unsigned int k;

	for (k = 0; o && k < sizeof(names) / sizeof(names[0]); k++)
		json_object_set_new(o, names[k], buckets_json(HIST_KIND_SIZE, b->size[k]));
	return o;
}

/* A device's block statistics of one run: counters, distributions, limit-bound shares. */
static json_t *block_stats_json(const struct block_stats *b, const struct block_summary *s)
{
	json_t *o = json_object();
	unsigned int k;

	if (!o)
		return NULL;
	counters_json(o, &b->c);
	json_object_set_new(o, "request_bytes",
			    dist_json(&s->size, HIST_KIND_SIZE, s->size_all, false));
	json_object_set_new(json_object_get(o, "request_bytes"), "by_op", size_by_op_json(b));
	json_object_set_new(
		o, "segments",
		dist_json(&s->segments, HIST_KIND_COUNT, b->count[BLKIO_COUNT_SEGMENTS], false));
	json_object_set_new(
		o, "segment_bytes",
		dist_json(&s->seg_bytes, HIST_KIND_SIZE, b->size[BLKIO_SIZE_SEGMENT], false));
	json_object_set_new(
		o, "queue_depth",
		dist_json(&s->depth, HIST_KIND_COUNT, b->count[BLKIO_COUNT_DEPTH], false));
	json_object_set_new(o, "queue_depth_sample_every", jint(block_depth_every(b)));
	for (k = 0; k < BLKIO_NR_LATS; k++)
		json_object_set_new(o, blkio_lat_names[k],
				    dist_json(&s->lat[k], HIST_KIND_LAT, b->lat[k], true));
	json_object_set_new(o, "limit_bound",
			    json_pack("{s:f, s:f}", "max_sectors", s->limit_sectors, "max_segments",
				      s->limit_segments));
	json_object_set_new(o, "requests", jint(s->requests));
	json_object_set_new(o, "merges_per_request", json_real(s->merges_per_request));
	/* From the first issue to the last completion: 0 when either is missing. */
	json_object_set_new(o, "io_seconds", json_real(s->io_seconds));
	return o;
}

static json_t *rings_json(const struct blkfront_counts *r)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; a && i < BLKFRONT_MAX_RINGS; i++) {
		const struct blkfront_ring_counts *c = &r->ring[i];

		if (!c->requests && !c->stops)
			continue;
		json_array_append_new(a, json_pack("{s:i, s:o, s:o, s:o, s:o, s:o}", "ring", i,
						   "requests", jint(c->requests), "backend_ns",
						   jint(c->backend_ns), "backend_n",
						   jint(c->backend_n), "stops", jint(c->stops),
						   "full_ns", jint(c->full_ns)));
	}
	return a;
}

/* What xen-blkfront did with the run's requests: its counts, then their distributions. */
static json_t *ring_json(const struct blkfront_counts *r, const struct ring_summary *s)
{
	json_t *o = json_object();
	unsigned int k;

	for (k = 0; o && k < NR_RING_COUNT_KEYS; k++)
		json_object_set_new(
			o, ring_count_keys[k].key,
			jint(*(const __u64 *)((const char *)r + ring_count_keys[k].offset)));
	if (!o)
		return NULL;
	json_object_set_new(o, "wait_mean_ns", json_real(s->wait_mean_ns));
	json_object_set_new(o, "full_share", json_real(s->full_share));
	json_object_set_new(o, "grants_direct",
			    dist_json(&s->grants_direct, HIST_KIND_COUNT, r->grants_direct, false));
	json_object_set_new(
		o, "grants_indirect",
		dist_json(&s->grants_indirect, HIST_KIND_COUNT, r->grants_indirect, false));
	json_object_set_new(o, "occupancy",
			    dist_json(&s->occupancy, HIST_KIND_COUNT, r->occupancy, false));
	json_object_set_new(o, "backend_ns",
			    dist_json(&s->backend, HIST_KIND_LAT, r->backend_lat, true));
	json_object_set_new(o, "rings", rings_json(r));
	return o;
}

/* A disk of several hardware queues: each queue's requests and deepest point, their depths. */
static json_t *hwq_json(const struct block_stats *b, const struct block_summary *s)
{
	const struct hwq_stats *q = &b->hwq;
	json_t *o = json_object(), *a = json_array();
	unsigned int k;

	for (k = 0; a && k < q->nr && k < BLOCK_HWQS_MAX; k++)
		json_array_append_new(a, json_pack("{s:i, s:o, s:o}", "queue", k, "requests",
						   jint(q->issued[k]), "max_depth",
						   jint(q->max_depth[k])));
	if (!o)
		return NULL;
	json_object_set_new(o, "count", jint(q->nr));
	json_object_set_new(o, "queue_depth_sample_every", jint(block_depth_every(b)));
	json_object_set_new(o, "depth", dist_json(&s->hwq_depth, HIST_KIND_COUNT, q->depth, false));
	json_object_set_new(o, "queues", a);
	return o;
}

static json_t *block_json(const struct run_summary *rs)
{
	json_t *o = block_stats_json(rs->run->block, &rs->block);

	if (o && rs->run->block->hwq.nr > 1)
		json_object_set_new(o, "hw_queues", hwq_json(rs->run->block, &rs->block));

	if (o && rs->ring.present)
		json_object_set_new(o, "xen_ring", ring_json(&rs->run->block->ring, &rs->ring));
	if (o && rs->has_metric[METRIC_DEVICE_PER_APP_BYTE])
		json_object_set_new(o, "device_bytes_per_app_byte",
				    json_real(rs->metric[METRIC_DEVICE_PER_APP_BYTE]));
	return o;
}

static json_t *param_json(const struct job_param_def *def, const struct job_params *p)
{
	const void *field = job_param__cfield(def, p);

	switch (def->type) {
	case JOB_PARAM_STRING:
		return text__json(field);
	case JOB_PARAM_U64:
		return jint(*(const uint64_t *)field);
	case JOB_PARAM_UINT:
		return json_integer(*(const unsigned int *)field);
	case JOB_PARAM_SECONDS:
		return json_real(*(const double *)field);
	case JOB_PARAM_BOOL:
		return json_boolean(*(const bool *)field);
	}
	return NULL;
}

json_t *report_json__params(const struct job_params *p)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; o && i < NR_JOB_PARAMS; i++) {
		const struct job_param_def *def = &job_param_defs[i];

		if (json_object_set_new(o, def->name, param_json(def, p))) {
			json_decref(o);
			return NULL;
		}
	}
	if (o && p->set_knob[0])
		text__json_set(o, p->set_knob, text__json(p->set_value));
	return o;
}

static json_t *app_json(const struct run_summary *rs)
{
	const struct app_summary *a = &rs->app;

	return json_pack("{s:o, s:o, s:f, s:f, s:f, s:f, s:b, s:b, s:o}", "bytes", jint(a->bytes),
			 "ios", jint(a->ios), "seconds", a->seconds, "mb_per_s", a->mb_per_s,
			 "mib_per_s", a->mib_per_s, "iops", a->iops, "registered_buffers",
			 a->registered_bufs, "huge_pages", a->huge_bufs, "latency_ns",
			 dist_json(&a->lat, HIST_KIND_LAT, rs->run->app->lat, true));
}

static json_t *findings_json(const struct run_summary *rs)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < rs->nr_findings; i++)
		json_array_append_new(a, json_pack("{s:o, s:f, s:o}", "kind",
						   text__json(rs->findings[i].kind), "share",
						   rs->findings[i].share, "text",
						   text__json(rs->findings[i].text)));
	return a;
}

/* Each layer's block statistics in this run, by device name, with its ratios to the one above. */
static json_t *layers_run_json(const struct run_summary *rs)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < rs->nr_layers; i++) {
		const struct layer_summary *l = &rs->layers[i];
		json_t *o =
			json_pack("{s:o, s:o, s:f, s:f}", "device", text__json(l->layer->dev.name),
				  "block", block_stats_json(l->b, l->block), "bytes_per_above",
				  l->bytes_per_above, "requests_per_above", l->requests_per_above);

		/* A --set sweep of a layer's setting: its limits in this run. */
		if (o && rs->run && rs->run->layer_limits)
			json_object_set_new(o, "limits", limits_json(&rs->run->layer_limits[i]));
		json_array_append_new(a, o);
	}
	return a;
}

/* Passive mode's --interval reports: [{"start", "seconds", "requests", ...}]. */
static json_t *intervals_json(const struct run *run)
{
	json_t *a = json_array(), *o;
	char key[32];
	size_t i;
	unsigned int k;

	for (i = 0; a && i < run->nr_intervals; i++) {
		const struct interval_sample *s = &run->intervals[i];

		o = json_pack("{s:f, s:f, s:o, s:o, s:f, s:o}", "start", s->start, "seconds",
			      s->seconds, "requests", jint(s->requests), "bytes", jint(s->bytes),
			      "queue_depth_mean", s->depth_mean, "queue_depth_max",
			      jint(s->depth_max));
		for (k = 0; o && k < BLKIO_NR_LATS; k++) {
			snprintf(key, sizeof(key), "%s_p99", blkio_lat_names[k]);
			json_object_set_new(o, key, json_real(s->p99_ns[k]));
		}
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *run_json(const struct run_summary *rs)
{
	json_t *o = json_pack("{s:o, s:f}", "label", text__json(rs->label), "seconds", rs->seconds);

	if (!o)
		return NULL;
	if (rs->params.rw[0]) {
		json_object_set_new(o, "params", report_json__params(&rs->params));
		json_object_set_new(o, "repetition", json_integer(rs->repetition));
		/* Cut short by a signal: in no series, and compare leaves it out too. */
		json_object_set_new(o, "partial", json_boolean(rs->partial));
		/* A buffered read whose page cache was to be dropped: whether it was. */
		if (rs->run && rs->run->cache != RUN_CACHE_NA)
			json_object_set_new(o, "cold",
					    json_boolean(rs->run->cache == RUN_CACHE_COLD));
		if (rs->run && rs->run->cache == RUN_CACHE_WARM)
			json_object_set_new(o, "cache_note", text__json(rs->run->cache_note));
	}
	if (rs->has_app)
		json_object_set_new(o, "app", app_json(rs));
	if (rs->has_block) {
		json_object_set_new(o, "block", block_json(rs));
		if (rs->nr_layers)
			json_object_set_new(o, "layers", layers_run_json(rs));
		json_object_set_new(o, "findings", findings_json(rs));
	}
	if (rs->run->has_limits)
		json_object_set_new(o, "limits", limits_json(&rs->run->limits));
	if (rs->run->nr_intervals)
		json_object_set_new(o, "intervals", intervals_json(rs->run));
	return o;
}

static json_t *agg_json(const struct agg *a)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:f, s:f}", "n", (json_int_t)a->n, "mean", a->mean,
			 "stddev", a->stddev, "min", a->min, "max", a->max, "ci95", a->ci95);
}

/* {"label", "params", "runs": [indexes], "metrics": {name: {n, mean, stddev, ...}}} */
static json_t *series_json(const struct report *rep)
{
	json_t *out = json_array();
	size_t i, k;

	for (i = 0; out && i < rep->series.nr; i++) {
		const struct series *s = &rep->series.series[i];
		const struct run_summary *first = &rep->runs[s->first];
		json_t *o, *runs = json_array(), *metrics = json_object();

		for (k = 0; runs && k < s->nr_runs; k++)
			json_array_append_new(runs, jint(s->runs[k]));
		for (k = 0; metrics && k < NR_METRICS; k++)
			if (metric_defs[k].judged && s->metric[k].n)
				json_object_set_new(metrics, metric_defs[k].name,
						    agg_json(&s->metric[k]));
		o = json_pack("{s:o, s:o?, s:o, s:o}", "label", text__json(first->label), "params",
			      first->params.rw[0] ? report_json__params(&first->params) : NULL,
			      "runs", runs, "metrics", metrics);
		json_array_append_new(out, o);
	}
	return out;
}

/* [{"kind": "above_block_layer", "series": [slow, fast], "ratio", "text"}] */
static json_t *series_findings_json(const struct report *rep)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < rep->above.nr; i++) {
		const struct above_pair *p = &rep->above.p[i];

		json_array_append_new(a, json_pack("{s:s, s:[I, I], s:f, s:o}", "kind",
						   "above_block_layer", "series",
						   (json_int_t)p->slow, (json_int_t)p->fast,
						   "ratio", p->ratio, "text", text__json(p->text)));
	}
	return a;
}

static json_t *recommendation_json(const struct recommendation *r)
{
	json_t *ev = json_array(), *out;
	size_t i;

	for (i = 0; ev && i < r->nr_evidence; i++) {
		const struct rec_evidence *e = &r->evidence[i];

		json_array_append_new(
			ev, json_pack("{s:o, s:f, s:f, s:I, s:o, s:b}", "value",
				      text__json(e->value), "mb_per_s", e->mb_per_s, "ci95",
				      e->ci95, "n", (json_int_t)e->n, "p_value_vs_best",
				      isnan(e->p_vs_best) ? json_null() : json_real(e->p_vs_best),
				      "as_good", e->as_good));
	}
	out = json_pack("{s:o, s:o, s:o, s:o, s:b, s:b}", "knob", text__json(r->knob), "workload",
			text__json(r->workload), "best", text__json(r->best), "evidence", ev,
			"judged", r->judged, "ordered", r->ordered);
	if (out && r->smallest)
		json_object_set_new(out, "smallest_equivalent", text__json(r->smallest));
	if (out && r->boot_parameter[0])
		json_object_set_new(out, "boot_parameter", json_string(r->boot_parameter));
	return out;
}

static json_t *recommendations_json(const struct report *rep)
{
	json_t *a;
	size_t i;

	if (!rep->rec.nr)
		return json_null();
	a = json_array();
	for (i = 0; a && i < rep->rec.nr; i++)
		json_array_append_new(a, recommendation_json(&rep->rec.r[i]));
	return a;
}

/*
 * The stack under a device: each layer's device model, its role, the device above it, its
 * level (1: right under the top) and how it is linked ("slave" or "backing_file").
 */
json_t *report_json__stack(const struct device *top, const struct layer *layers, size_t n,
			   const char *kind, const char *note)
{
	json_t *o = json_pack("{s:o, s:o}", "kind", text__json(kind), "note",
			      note[0] ? text__json(note) : json_null());
	json_t *a = json_array();
	size_t i;

	for (i = 0; o && a && i < n; i++) {
		const struct layer *l = &layers[i];
		const char *above = l->above < 0 ? top->name : layers[l->above].dev.name;

		json_array_append_new(
			a, json_pack("{s:o, s:o, s:o, s:i, s:s}", "device",
				     report_json__device(&l->dev), "role", text__json(l->role),
				     "above", text__json(above), "level", (int)l->level, "link",
				     l->link == LAYER_BACKING_FILE ? "backing_file" : "slave"));
	}
	if (o)
		json_object_set_new(o, "layers", a);
	else
		json_decref(a);
	return o;
}

/* The programs that ran, and the runs of them the kernel skipped (null: not known). */
static json_t *tracer_json(const struct result *res)
{
	if (!res->tracer_flavour[0])
		return json_null();
	json_t *o = json_pack("{s:s,s:o}", "flavour", res->tracer_flavour, "skipped_runs",
			      res->has_skipped ? jint(res->tracer_skipped) : json_null());

	/* xen-blkfront disks: the ring probes that ran, or why none did. */
	if (o && res->ring_probes[0])
		json_object_set_new(o, "xen_ring_probes", json_string(res->ring_probes));
	if (o && res->ring_note[0])
		json_object_set_new(o, "xen_ring_note", text__json(res->ring_note));
	return o;
}

json_t *report_json__doc(const struct report *rep)
{
	const struct result *res = rep->res;
	json_t *doc, *runs;
	size_t i;

	doc = json_pack("{s:s, s:o, s:o, s:{s:o, s:o}}", "schema", RESULT_SCHEMA, "tool_version",
			text__json(res->tool_version), "command_line",
			text__json(res->command_line), "host", "kernel",
			text__json(res->host.kernel), "hostname", text__json(res->host.hostname));
	if (!doc)
		return NULL;
	if (res->has_device)
		json_object_set_new(doc, "device", report_json__device(&res->device));
	if (res->nr_layers || res->stack_note[0])
		json_object_set_new(doc, "stack",
				    report_json__stack(&res->device, res->layers, res->nr_layers,
						       res->stack_top_kind, res->stack_note));
	json_object_set_new(doc, "tracer", tracer_json(res));
	runs = json_array();
	for (i = 0; runs && i < rep->nr_runs; i++)
		json_array_append_new(runs, run_json(&rep->runs[i]));
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "series", series_json(rep));
	json_object_set_new(doc, "series_findings", series_findings_json(rep));
	if (rep->has_recommendation)
		json_object_set_new(doc, "recommendation", recommendations_json(rep));
	if (res->blktrace)
		json_object_set_new(doc, "blktrace", report_json__blktrace(res->blktrace));
	return doc;
}

json_t *report_json__docs(const struct report *reps, size_t n)
{
	const struct result *res = reps[0].res;
	json_t *doc, *all = json_array();
	size_t i;

	for (i = 0; all && i < n; i++)
		if (json_array_append_new(all, report_json__doc(&reps[i]))) {
			json_decref(all);
			return NULL;
		}
	doc = json_pack("{s:s, s:o, s:o, s:{s:o, s:o}, s:o}", "schema", RESULT_SCHEMA,
			"tool_version", text__json(res->tool_version), "command_line",
			text__json(res->command_line), "host", "kernel",
			text__json(res->host.kernel), "hostname", text__json(res->host.hostname),
			"results", all);
	return doc;
}
