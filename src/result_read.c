// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A saved result rebuilt whole; see result_read.h. The loader (result_load.c) walks the
 * file once, checks what compare reads and hands each run's JSON here, where the rest
 * is read: every member checked for type and range, the first wrong one named by its
 * path, histograms through the loader's own bucket checks. Sums the file does not hold
 * are rebuilt from mean x count: exact for segments and queue depth (integers below
 * 2^33 survive the 10 significant digits the JSON is written with), within 1e-10 for
 * times, so report__build derives the figures the live run printed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result_read.h"
#include "summary.h"
#include "text.h"

#define NUM_MAX 9223372036854775808.0 /* 2^63, as the loader's metrics */

/* A reader: the first error sticks, so a run of reads is checked once, at its end. */
struct rd {
	const char *name;
	char *err;
	size_t errlen;
	int ret;
	struct saved_result *out;
};

static void rd_fail(struct rd *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void rd_fail(struct rd *r, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->ret)
		return;
	r->ret = ret;
	n = snprintf(r->err, r->errlen, "%s: ", r->name);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - n, fmt, ap);
		va_end(ap);
	}
	/* One line whatever the file held: a key may carry a newline. */
	for (char *c = r->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
}

/* Member key of o; NULL when absent or null (what "not known" is in our files). */
static json_t *member(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_null(v) ? NULL : v;
}

/* ok, or the first error: "<at>.<key> is a string, not <want>". */
static bool wrong(struct rd *r, json_t *v, bool ok, const char *at, const char *key,
		  const char *want)
{
	if (ok)
		return r->ret != 0;
	rd_fail(r, -EINVAL, "%s%s%s is %s, not %s", at, *at ? "." : "", key,
		result_load__type_name(v), want);
	return true;
}

static uint64_t rd_u64(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = member(o, key);

	if (!v || wrong(r, v, json_is_integer(v) && json_integer_value(v) >= 0, at, key,
			"an integer 0 or more"))
		return 0;
	return (uint64_t)json_integer_value(v);
}

static double rd_num(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = member(o, key);
	double x = json_number_value(v);

	if (!v || wrong(r, v, json_is_number(v) && x >= 0 && x <= NUM_MAX, at, key,
			"a number 0 to 2^63"))
		return 0;
	return x;
}

/* A limit: an integer, or null when the kernel has none (-1). */
static int64_t rd_limit(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = member(o, key);

	if (!v || wrong(r, v, json_is_integer(v), at, key, "an integer or null"))
		return -1;
	return json_integer_value(v);
}

static bool rd_bool(struct rd *r, json_t *o, const char *at, const char *key)
{
	json_t *v = member(o, key);

	if (!v || wrong(r, v, json_is_boolean(v), at, key, "a boolean"))
		return false;
	return json_is_true(v);
}

/* A string into buf (cut on a character boundary); absent or null leaves buf. */
static void rd_str(struct rd *r, json_t *o, const char *at, const char *key, char *buf,
		   size_t len)
{
	json_t *v = member(o, key);

	if (v && !wrong(r, v, json_is_string(v), at, key, "a string"))
		text__copy(buf, len, json_string_value(v));
}

static json_t *rd_typed(struct rd *r, json_t *o, const char *at, const char *key, bool array)
{
	json_t *v = member(o, key);

	if (!v || wrong(r, v, array ? json_is_array(v) : json_is_object(v), at, key,
			array ? "an array" : "an object"))
		return NULL;
	return v;
}

static json_t *rd_obj(struct rd *r, json_t *o, const char *at, const char *key)
{
	return rd_typed(r, o, at, key, false);
}

static json_t *rd_arr(struct rd *r, json_t *o, const char *at, const char *key)
{
	return rd_typed(r, o, at, key, true);
}

/* The disk */

static void read_limits(struct rd *r, json_t *o, const char *at, struct queue_limits *l)
{
	l->max_sectors_kb = rd_limit(r, o, at, "max_sectors_kb");
	l->max_hw_sectors_kb = rd_limit(r, o, at, "max_hw_sectors_kb");
	l->max_segments = rd_limit(r, o, at, "max_segments");
	l->max_segment_size = rd_limit(r, o, at, "max_segment_size");
	l->nr_requests = rd_limit(r, o, at, "nr_requests");
	l->read_ahead_kb = rd_limit(r, o, at, "read_ahead_kb");
	l->logical_block_size = rd_limit(r, o, at, "logical_block_size");
	l->physical_block_size = rd_limit(r, o, at, "physical_block_size");
	l->wbt_lat_usec = rd_limit(r, o, at, "wbt_lat_usec");
	l->nomerges = rd_limit(r, o, at, "nomerges");
	l->rotational = member(o, "rotational") ? rd_bool(r, o, at, "rotational") : -1;
	rd_str(r, o, at, "scheduler", l->scheduler, sizeof(l->scheduler));
	rd_str(r, o, at, "write_cache", l->write_cache, sizeof(l->write_cache));
}

static void read_xen(struct rd *r, json_t *o, struct xen_blkfront *x)
{
	const char *at = "device.xen_blkfront";

	if (!o)
		return;
	x->present = true;
	x->max_indirect_segments = rd_limit(r, o, at, "max_indirect_segments");
	x->segments = rd_limit(r, o, at, "segments");
	x->indirect_descriptors = rd_bool(r, o, at, "indirect_descriptors");
	x->max_request_bytes = rd_limit(r, o, at, "max_request_bytes");
	x->max_ring_page_order = rd_limit(r, o, at, "max_ring_page_order");
	x->max_queues = rd_limit(r, o, at, "max_queues");
	x->feature_persistent = rd_limit(r, o, at, "feature_persistent");
	rd_str(r, o, at, "parameter_name", x->param_name, sizeof(x->param_name));
	x->param_is_old_name = !strcmp(x->param_name, "xen_blkfront.max");
	x->backend_limited = rd_bool(r, o, at, "backend_limited");
}

static void read_drivers(struct rd *r, json_t *d, struct device *dev)
{
	json_t *o;

	if ((o = rd_obj(r, d, "device", "virtio_blk"))) {
		dev->virtio_blk.present = true;
		dev->virtio_blk.queue_depth = rd_limit(r, o, "device.virtio_blk", "queue_depth");
		dev->virtio_blk.queue_depth_param = rd_limit(r, o, "device.virtio_blk",
							     "queue_depth_parameter");
		dev->virtio_blk.num_request_queues = rd_limit(r, o, "device.virtio_blk",
							      "num_request_queues");
		dev->virtio_blk.poll_queues = rd_limit(r, o, "device.virtio_blk", "poll_queues");
		dev->virtio_blk.host_max_segments = rd_limit(r, o, "device.virtio_blk",
							     "host_max_segments");
	}
	if ((o = rd_obj(r, d, "device", "nvme"))) {
		dev->nvme.present = true;
		dev->nvme.io_queue_depth = rd_limit(r, o, "device.nvme", "io_queue_depth");
		dev->nvme.poll_queues = rd_limit(r, o, "device.nvme", "poll_queues");
		dev->nvme.write_queues = rd_limit(r, o, "device.nvme", "write_queues");
	}
	if ((o = rd_obj(r, d, "device", "loop"))) {
		dev->loop.present = true;
		rd_str(r, o, "device.loop", "backing_file", dev->loop.backing_file,
		       sizeof(dev->loop.backing_file));
		dev->loop.dio = member(o, "dio") ? rd_bool(r, o, "device.loop", "dio") : -1;
	}
}

static void read_names(struct rd *r, json_t *d, const char *key, char (*names)[DEVICE_NAME_MAX],
		       unsigned int *nr, unsigned int max)
{
	json_t *a = rd_arr(r, d, "device", key), *v;
	size_t i;

	json_array_foreach(a, i, v) {
		if (*nr >= max || wrong(r, v, json_is_string(v), "device", key, "a list of names"))
			return;
		text__copy(names[(*nr)++], DEVICE_NAME_MAX, json_string_value(v));
	}
}

static void read_lists(struct rd *r, json_t *d, struct device *dev)
{
	const char *at = "device.partitions";
	json_t *a = rd_arr(r, d, "device", "partitions"), *o;
	const char *key;
	size_t i;

	json_array_foreach(a, i, o) {
		struct device_partition *p = &dev->partitions[dev->nr_partitions];

		if (dev->nr_partitions >= DEVICE_MAX_PARTITIONS ||
		    wrong(r, o, json_is_object(o), "device", "partitions[]", "an object"))
			break;
		rd_str(r, o, at, "name", p->name, sizeof(p->name));
		p->major = rd_u64(r, o, at, "major");
		p->minor = rd_u64(r, o, at, "minor");
		p->number = rd_u64(r, o, at, "number");
		p->start = rd_u64(r, o, at, "start_sector");
		p->sectors = rd_u64(r, o, at, "sectors");
		p->nr_holders = rd_u64(r, o, at, "holders");
		dev->nr_partitions++;
	}
	read_names(r, d, "slaves", dev->slaves, &dev->nr_slaves, DEVICE_MAX_STACK);
	read_names(r, d, "holders", dev->holders, &dev->nr_holders, DEVICE_MAX_STACK);
	a = rd_obj(r, d, "device", "module_parameters");
	json_object_foreach(a, key, o) {
		struct module_param *m = &dev->module_params[dev->nr_module_params];

		if (dev->nr_module_params >= DEVICE_MAX_PARAMS ||
		    wrong(r, o, json_is_string(o), "device.module_parameters", key, "a string"))
			break;
		text__copy(m->name, sizeof(m->name), key);
		text__copy(m->value, sizeof(m->value), json_string_value(o));
		dev->nr_module_params++;
	}
	a = rd_arr(r, d, "device", "paths");
	json_array_foreach(a, i, o) {
		struct device_path *p = &dev->paths[dev->nr_paths];

		if (dev->nr_paths >= DEVICE_MAX_PATHS ||
		    wrong(r, o, json_is_object(o), "device", "paths[]", "an object"))
			break;
		rd_str(r, o, "device.paths", "name", p->name, sizeof(p->name));
		rd_str(r, o, "device.paths", "controller", p->controller, sizeof(p->controller));
		rd_str(r, o, "device.paths", "state", p->state, sizeof(p->state));
		p->nr_hw_queues = rd_u64(r, o, "device.paths", "nr_hw_queues");
		p->max_tags = rd_u64(r, o, "device.paths", "max_tags");
		dev->nr_paths++;
	}
}

static void read_device(struct rd *r, json_t *d, struct device *dev)
{
	json_t *part = rd_obj(r, d, "device", "partition");

	rd_str(r, d, "device", "name", dev->name, sizeof(dev->name));
	dev->major = rd_u64(r, d, "device", "major");
	dev->minor = rd_u64(r, d, "device", "minor");
	dev->size_sectors = rd_u64(r, d, "device", "size_bytes") / 512;
	rd_str(r, d, "device", "driver", dev->driver, sizeof(dev->driver));
	rd_str(r, d, "device", "module", dev->module, sizeof(dev->module));
	read_limits(r, rd_obj(r, d, "device", "limits"), "device.limits", &dev->limits);
	if (part) {
		rd_str(r, part, "device.partition", "name", dev->part_name, sizeof(dev->part_name));
		dev->part_major = rd_u64(r, part, "device.partition", "major");
		dev->part_minor = rd_u64(r, part, "device.partition", "minor");
		dev->part_start = rd_u64(r, part, "device.partition", "start_sector");
		dev->part_sectors = rd_u64(r, part, "device.partition", "sectors");
	}
	dev->nr_hw_queues = rd_u64(r, d, "device", "nr_hw_queues");
	dev->max_tags = rd_u64(r, d, "device", "max_tags");
	read_xen(r, rd_obj(r, d, "device", "xen_blkfront"), &dev->xen);
	dev->bio_based = rd_bool(r, d, "device", "bio_based");
	rd_str(r, d, "device", "dm_name", dev->dm_name, sizeof(dev->dm_name));
	rd_str(r, d, "device", "md_level", dev->md_level, sizeof(dev->md_level));
	dev->scsi_queue_depth = rd_limit(r, d, "device", "scsi_queue_depth");
	dev->hidden = rd_bool(r, d, "device", "hidden");
	read_lists(r, d, dev);
	read_drivers(r, d, dev);
}

int result_read__device(json_t *obj, struct device *dev, const char *name, char *err,
			size_t len)
{
	struct rd r = {.name = name, .err = err, .errlen = len};

	memset(dev, 0, sizeof(*dev));
	read_device(&r, obj, dev);
	return r.ret;
}

/* The runs */

#define NONE SIZE_MAX
#define AT(m) offsetof(struct block_stats, m)

/* A distribution of a run's block object and where its parts go in struct block_stats. */
static const struct dist_spec {
	const char *name;
	enum hist_kind kind;
	size_t hist, sum, max, nr; /* offsets, NONE: the file has it, the stats do not */
} dists[] = {
	{"request_bytes", HIST_KIND_SIZE, NONE, NONE, AT(max.bytes), NONE}, /* by_op: sizes */
	{"segments", HIST_KIND_COUNT, AT(count[BLKIO_COUNT_SEGMENTS]), AT(c.sum_segments),
	 AT(max.segments), AT(c.data_requests)},
	{"segment_bytes", HIST_KIND_SIZE, AT(size[BLKIO_SIZE_SEGMENT]), NONE, NONE, NONE},
	{"queue_depth", HIST_KIND_COUNT, AT(count[BLKIO_COUNT_DEPTH]), AT(c.sum_depth),
	 AT(max.depth), NONE},
	{"queue_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_QUEUE]), AT(c.sum_ns[BLKIO_LAT_QUEUE]),
	 AT(max.ns[BLKIO_LAT_QUEUE]), AT(c.nr_ns[BLKIO_LAT_QUEUE])},
	{"device_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_DEVICE]), AT(c.sum_ns[BLKIO_LAT_DEVICE]),
	 AT(max.ns[BLKIO_LAT_DEVICE]), AT(c.nr_ns[BLKIO_LAT_DEVICE])},
	{"total_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_TOTAL]), AT(c.sum_ns[BLKIO_LAT_TOTAL]),
	 AT(max.ns[BLKIO_LAT_TOTAL]), AT(c.nr_ns[BLKIO_LAT_TOTAL])},
};

static const struct {
	const char *name;
	size_t off;
} counters[] = {
	{"merges", AT(c.merges)},	  {"request_merges", AT(c.rq_merges)},
	{"splits", AT(c.splits)},	  {"requeues", AT(c.requeues)},
	{"errors", AT(c.errors)},	  {"lost_events", AT(c.lost_events)},
	{"completed", AT(c.completed)},	  {"untracked", AT(c.untracked)},
	{"stale_slots", AT(c.stale_slots)}, {"slot_overflow", AT(c.slot_overflow)},
};

static __u64 *field(struct block_stats *b, size_t off)
{
	return (__u64 *)((char *)b + off);
}

/* A sum the file keeps as its mean: mean x count, rounded, saturated. */
static __u64 sum_of(double mean, uint64_t count)
{
	double s = nearbyint(mean * (double)count);

	return s >= 18446744073709551615.0 ? UINT64_MAX : (__u64)s;
}

static void read_buckets(struct rd *r, size_t i, const char *path, enum hist_kind kind,
			 json_t *buckets, __u64 *out)
{
	if (!r->ret && buckets)
		r->ret = result_load__buckets(r->name, i, path, kind, buckets, out, r->err,
					      r->errlen);
}

static void read_dist(struct rd *r, size_t i, json_t *block, const struct dist_spec *d,
		      struct block_stats *b)
{
	char at[96], path[96];
	json_t *o;
	uint64_t count;
	double mean;

	snprintf(at, sizeof(at), "runs[%zu].block", i);
	o = rd_obj(r, block, at, d->name);
	snprintf(at, sizeof(at), "runs[%zu].block.%s", i, d->name);
	count = rd_u64(r, o, at, "count");
	mean = rd_num(r, o, at, "mean");
	if (d->hist != NONE) {
		snprintf(path, sizeof(path), "block.%s.buckets", d->name);
		read_buckets(r, i, path, d->kind, member(o, "buckets"), field(b, d->hist));
	}
	if (d->sum != NONE)
		*field(b, d->sum) = sum_of(mean, count);
	if (d->max != NONE)
		*field(b, d->max) = rd_u64(r, o, at, "max");
	if (d->nr != NONE)
		*field(b, d->nr) = count;
}

/*
 * Request sizes per operation (request_bytes.by_op). A file written before they were
 * kept has them only together, which is still exact when one kind of operation ran.
 */
static void read_sizes(struct rd *r, size_t i, json_t *block, struct block_stats *b)
{
	static const char *const ops[] = {
		[BLKIO_SIZE_READ] = "read", [BLKIO_SIZE_WRITE] = "write",
		[BLKIO_SIZE_OTHER] = "other",
	};
	const __u64 *req = b->c.requests;
	json_t *rb = member(block, "request_bytes"), *by = member(rb, "by_op");
	char path[96];
	unsigned int k, kinds;
	int only;

	if (by) {
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			snprintf(path, sizeof(path), "block.request_bytes.by_op.%s", ops[k]);
			read_buckets(r, i, path, HIST_KIND_SIZE, member(by, ops[k]), b->size[k]);
		}
		return;
	}
	kinds = !!req[BLKIO_OP_READ] + !!req[BLKIO_OP_WRITE] +
		!!(req[BLKIO_OP_DISCARD] + req[BLKIO_OP_OTHER]);
	only = req[BLKIO_OP_READ] ? BLKIO_SIZE_READ :
	       req[BLKIO_OP_WRITE] ? BLKIO_SIZE_WRITE : BLKIO_SIZE_OTHER;
	if (kinds > 1 && member(rb, "buckets"))
		rd_fail(r, -EINVAL, "runs[%zu].block.request_bytes has no \"by_op\" (written by an "
			"older blktrace-bench) and requests of several kinds: their sizes cannot be "
			"told apart", i);
	read_buckets(r, i, "block.request_bytes.buckets", HIST_KIND_SIZE, member(rb, "buckets"),
		     b->size[only]);
}

static void read_block(struct rd *r, size_t i, json_t *block, struct block_stats *b)
{
	char at[96];
	unsigned int k;

	for (k = 0; k < BLKIO_NR_OPS; k++) {
		json_t *op;

		snprintf(at, sizeof(at), "runs[%zu].block", i);
		op = rd_obj(r, block, at, blkio_op_names[k]);
		snprintf(at, sizeof(at), "runs[%zu].block.%s", i, blkio_op_names[k]);
		b->c.requests[k] = rd_u64(r, op, at, "requests");
		b->c.bytes[k] = rd_u64(r, op, at, "bytes");
	}
	snprintf(at, sizeof(at), "runs[%zu].block", i);
	for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++)
		*field(b, counters[k].off) = rd_u64(r, block, at, counters[k].name);
	for (k = 0; k < sizeof(dists) / sizeof(dists[0]); k++)
		read_dist(r, i, block, &dists[k], b);
	read_sizes(r, i, block, b);
}

static void read_app(struct rd *r, size_t i, json_t *app, struct app_stats *a)
{
	char at[96];
	json_t *lat;
	uint64_t count;

	snprintf(at, sizeof(at), "runs[%zu].app", i);
	a->bytes = rd_u64(r, app, at, "bytes");
	a->ios = rd_u64(r, app, at, "ios");
	a->ns = (uint64_t)nearbyint(rd_num(r, app, at, "seconds") * 1e9);
	a->registered_bufs = rd_bool(r, app, at, "registered_buffers");
	a->huge_bufs = rd_bool(r, app, at, "huge_pages");
	lat = rd_obj(r, app, at, "latency_ns");
	snprintf(at, sizeof(at), "runs[%zu].app.latency_ns", i);
	count = rd_u64(r, lat, at, "count");
	a->lat_sum_ns = sum_of(rd_num(r, lat, at, "mean"), count);
	a->lat_max_ns = rd_u64(r, lat, at, "max");
	read_buckets(r, i, "app.latency_ns.buckets", HIST_KIND_LAT, member(lat, "buckets"),
		     a->lat);
}

static void read_intervals(struct rd *r, size_t i, json_t *a, struct run *run)
{
	struct interval_sample s;
	char at[96], key[32];
	unsigned int k;
	json_t *o;
	size_t j;

	json_array_foreach(a, j, o) {
		snprintf(at, sizeof(at), "runs[%zu].intervals[%zu]", i, j);
		if (wrong(r, o, json_is_object(o), at, "", "an object"))
			return;
		memset(&s, 0, sizeof(s));
		s.start = rd_num(r, o, at, "start");
		s.seconds = rd_num(r, o, at, "seconds");
		s.requests = rd_u64(r, o, at, "requests");
		s.bytes = rd_u64(r, o, at, "bytes");
		s.depth_mean = rd_num(r, o, at, "queue_depth_mean");
		s.depth_max = rd_u64(r, o, at, "queue_depth_max");
		for (k = 0; k < BLKIO_NR_LATS; k++) {
			snprintf(key, sizeof(key), "%s_p99", blkio_lat_names[k]);
			s.p99_ns[k] = rd_num(r, o, at, key);
		}
		if (!r->ret && run__add_interval(run, &s))
			rd_fail(r, -ENOMEM, "out of memory");
	}
}

/* The loader's hook: run i, checked and summarized in rs, rebuilt from its JSON. */
static int each_run(void *ctx, size_t i, json_t *j, const struct run_summary *rs)
{
	struct rd *r = ctx;
	char at[64];
	json_t *block, *app, *lim;
	struct run *run;

	snprintf(at, sizeof(at), "runs[%zu]", i);
	block = rd_obj(r, j, at, "block");
	app = rd_obj(r, j, at, "app");
	if (r->ret)
		return r->ret;
	run = result__add_run(&r->out->res, block != NULL, app != NULL);
	if (!run) {
		rd_fail(r, -ENOMEM, "out of memory");
		return r->ret;
	}
	text__copy(run->label, sizeof(run->label), rs->label);
	run->params = rs->params;
	run->repetition = rd_u64(r, j, at, "repetition");
	run->seconds = rd_num(r, j, at, "seconds");
	if (block)
		read_block(r, i, block, run->block);
	if (app)
		read_app(r, i, app, run->app);
	if ((lim = rd_obj(r, j, at, "limits"))) {
		run->has_limits = true;
		snprintf(at, sizeof(at), "runs[%zu].limits", i);
		read_limits(r, lim, at, &run->limits);
	}
	snprintf(at, sizeof(at), "runs[%zu]", i);
	read_intervals(r, i, rd_arr(r, j, at, "intervals"), run);
	return r->ret;
}

/* After the runs: what the loader kept of the top level. */
static int read_header(struct rd *r)
{
	struct result *res = &r->out->res;
	json_t *h = r->out->loaded.header, *dev;

	rd_str(r, h, "", "tool_version", res->tool_version, sizeof(res->tool_version));
	rd_str(r, h, "", "command_line", res->command_line, sizeof(res->command_line));
	rd_str(r, member(h, "host"), "host", "kernel", res->host.kernel, sizeof(res->host.kernel));
	rd_str(r, member(h, "host"), "host", "hostname", res->host.hostname,
	       sizeof(res->host.hostname));
	rd_str(r, rd_obj(r, h, "", "tracer"), "tracer", "flavour", res->tracer_flavour,
	       sizeof(res->tracer_flavour));
	if ((dev = rd_obj(r, h, "", "device"))) {
		res->has_device = true;
		read_device(r, dev, &res->device);
	}
	r->out->recommend = member(h, "recommendation") != NULL;
	return r->ret;
}

static int finish(struct rd *r, int ret)
{
	if (!ret)
		ret = read_header(r);
	if (ret)
		result_read__free(r->out);
	return ret;
}

int result_read__file(const char *path, struct saved_result *out, char *err, size_t len)
{
	struct rd r = {.name = path, .err = err, .errlen = len, .out = out};

	memset(out, 0, sizeof(*out));
	return finish(&r, result_load__file_each(path, &out->loaded, each_run, &r, err, len));
}

int result_read__buffer(const char *name, const char *buf, size_t len, struct saved_result *out,
			char *err, size_t errlen)
{
	struct rd r = {.name = name, .err = err, .errlen = errlen, .out = out};

	memset(out, 0, sizeof(*out));
	return finish(&r, result_load__buffer_each(name, buf, len, &out->loaded, each_run, &r,
						   err, errlen));
}

void result_read__free(struct saved_result *sr)
{
	result_load__free(&sr->loaded);
	result__free(&sr->res);
	memset(sr, 0, sizeof(*sr));
}
