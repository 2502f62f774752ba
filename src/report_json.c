// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include "report.h"
#include "summary.h"

/* jansson's integers are signed 64-bit; our counters never get near 2^63. */
static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* -1 means "the kernel has no such file": null, not a number. */
static json_t *jlimit(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *limits_json(const struct queue_limits *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
			 "max_sectors_kb", jlimit(l->max_sectors_kb),
			 "max_hw_sectors_kb", jlimit(l->max_hw_sectors_kb),
			 "max_segments", jlimit(l->max_segments),
			 "max_segment_size", jlimit(l->max_segment_size),
			 "nr_requests", jlimit(l->nr_requests),
			 "scheduler", l->scheduler,
			 "read_ahead_kb", jlimit(l->read_ahead_kb),
			 "rotational", l->rotational < 0 ? json_null() : json_boolean(l->rotational),
			 "logical_block_size", jlimit(l->logical_block_size),
			 "physical_block_size", jlimit(l->physical_block_size),
			 "wbt_lat_usec", jlimit(l->wbt_lat_usec),
			 "nomerges", jlimit(l->nomerges),
			 "write_cache", l->write_cache);
}

static json_t *xen_json(const struct xen_blkfront *x)
{
	if (!x->present)
		return json_null();
	return json_pack("{s:o, s:o, s:b, s:o, s:o, s:o, s:o}",
			 "max_indirect_segments", jlimit(x->max_indirect_segments),
			 "segments", jlimit(x->segments),
			 "indirect_descriptors", x->indirect_descriptors,
			 "max_request_bytes", jlimit(x->max_request_bytes),
			 "max_ring_page_order", jlimit(x->max_ring_page_order),
			 "max_queues", jlimit(x->max_queues),
			 "feature_persistent", jlimit(x->feature_persistent));
}

json_t *report_json_device(const struct device *dev)
{
	json_t *d, *part = json_null();

	if (dev->part_name[0])
		part = json_pack("{s:s, s:i, s:i, s:o, s:o}", "name", dev->part_name,
				 "major", (int)dev->part_major, "minor", (int)dev->part_minor,
				 "start_sector", jint(dev->part_start),
				 "sectors", jint(dev->part_sectors));
	d = json_pack("{s:s, s:i, s:i, s:o, s:s, s:s, s:o, s:o, s:i, s:i, s:o}",
		      "name", dev->name, "major", (int)dev->major, "minor", (int)dev->minor,
		      "size_bytes", jint(dev->size_sectors * 512), "driver", dev->driver,
		      "module", dev->module, "limits", limits_json(&dev->limits),
		      "partition", part, "nr_hw_queues", (int)dev->nr_hw_queues,
		      "max_tags", (int)dev->max_tags, "xen_blkfront", xen_json(&dev->xen));
	return d;
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

static json_t *block_json(const struct result *res, const struct block_stats *b)
{
	const struct blkio_counters *c = &b->c;
	struct block_summary s;
	json_t *o;
	unsigned int k;

	block_summary__compute(b, res->has_device ? &res->device.limits : NULL, &s);
	o = json_object();
	if (!o)
		return NULL;
	for (k = 0; k < BLKIO_NR_OPS; k++)
		json_object_set_new(o, blkio_op_names[k],
				    json_pack("{s:o, s:o}", "requests", jint(c->requests[k]),
					      "bytes", jint(c->bytes[k])));
	json_object_set_new(o, "merges", jint(c->merges));
	json_object_set_new(o, "request_merges", jint(c->rq_merges));
	json_object_set_new(o, "splits", jint(c->splits));
	json_object_set_new(o, "requeues", jint(c->requeues));
	json_object_set_new(o, "errors", jint(c->errors));
	json_object_set_new(o, "lost_events", jint(c->lost_events));
	json_object_set_new(o, "completed", jint(c->completed));
	json_object_set_new(o, "untracked", jint(c->untracked));
	json_object_set_new(o, "request_bytes",
			    dist_json(&s.size, HIST_KIND_SIZE, s.size_all, false));
	json_object_set_new(o, "segments", dist_json(&s.segments, HIST_KIND_COUNT,
						     b->count[BLKIO_COUNT_SEGMENTS], false));
	json_object_set_new(o, "segment_bytes", dist_json(&s.seg_bytes, HIST_KIND_SIZE,
							  b->size[BLKIO_SIZE_SEGMENT], false));
	json_object_set_new(o, "queue_depth", dist_json(&s.depth, HIST_KIND_COUNT,
							b->count[BLKIO_COUNT_DEPTH], false));
	for (k = 0; k < BLKIO_NR_LATS; k++)
		json_object_set_new(o, blkio_lat_names[k],
				    dist_json(&s.lat[k], HIST_KIND_LAT, b->lat[k], true));
	json_object_set_new(o, "limit_bound",
			    json_pack("{s:f, s:f}", "max_sectors", s.limit_sectors,
				      "max_segments", s.limit_segments));
	return o;
}

json_t *report_json_run(const struct result *res, const struct run *run)
{
	json_t *o = json_pack("{s:s, s:f}", "label", run->label, "seconds", run->seconds);

	if (!o)
		return NULL;
	if (run->has_block)
		json_object_set_new(o, "block", block_json(res, run->block));
	return o;
}

json_t *report_json(const struct result *res)
{
	json_t *doc, *runs;
	size_t i;

	doc = json_pack("{s:s, s:s, s:s, s:{s:s, s:s}}", "schema", RESULT_SCHEMA, "tool_version",
			res->tool_version, "command_line", res->command_line, "host", "kernel",
			res->host.kernel, "hostname", res->host.hostname);
	if (!doc)
		return NULL;
	if (res->has_device)
		json_object_set_new(doc, "device", report_json_device(&res->device));
	runs = json_array();
	for (i = 0; runs && i < res->nr_runs; i++)
		json_array_append_new(runs, report_json_run(res, &res->runs[i]));
	json_object_set_new(doc, "runs", runs);
	return doc;
}

int report_json_write(const struct result *res, const char *path)
{
	json_t *doc = report_json(res);
	bool to_stdout = !strcmp(path, "-");
	FILE *f;
	int err = 0;

	if (!doc)
		return -ENOMEM;
	f = to_stdout ? stdout : fopen(path, "w");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) || fputc('\n', f) == EOF)
		err = -EIO;
	if (fflush(f) || ferror(f))
		err = errno ? -errno : -EIO;
	if (!to_stdout && fclose(f) && !err)
		err = -errno;
cleanup:
	json_decref(doc);
	return err;
}
