// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A saved result rebuilt whole; see result_read.h. The loader (result_load.c) walks the
 * file once, checks what compare reads and hands each run's JSON here, where the rest
 * is read: every member checked for type and range, the first wrong one named by its
 * path, histograms through the loader's own bucket checks. Sums the file does not hold
 * are rebuilt from mean x count: exact for segments and queue depth (integers below
 * 2^33 survive the 10 significant digits the JSON is written with), within 1e-10 for
 * times, so report__build derives the figures the live run printed. A stack's layers
 * ("stack") are read when the first run arrives, so that each run's "layers" has a place
 * in run->block: every file we write has the stack before the runs.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "store/result_read.h"
#include "disk/stack.h"
#include "result/run_summary.h"
#include "base/text.h"
#include "result/counters.h"

#define NUM_MAX 9223372036854775808.0 /* 2^63, as the loader's metrics */

/*
 * A reader: the first error sticks, so a run of reads is checked once, at its end. The
 * message goes to d without the file's name: the loader puts it in front of what a run
 * says, finish() in front of what the header says.
 */
struct rd {
	struct diag *d; /* never NULL: the caller's, or a scratch one */
	int ret;
	struct saved_result *out;
	bool stack_read;  /* the stack was looked for, at the first run */
	bool stack_found; /* and was there */
};

static void rd_fail(struct rd *r, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What is wrong with the file (bad input); -ENOMEM alone is a runtime failure. */
static void rd_fail(struct rd *r, int ret, const char *fmt, ...)
{
	char what[DIAG_MSG_MAX];
	va_list ap;

	if (r->ret)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	r->ret = ret == -ENOMEM ? diag__fail(r->d, ret, "%s", what)
				: diag__usage_err(r->d, ret, "%s", what);
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
	rd_fail(r, -EINVAL, "%s%s%s is %s, not %s", at, *at && *key ? "." : "", key,
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

	if (!v ||
	    wrong(r, v, json_is_number(v) && x >= 0 && x <= NUM_MAX, at, key, "a number 0 to 2^63"))
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
static void rd_str(struct rd *r, json_t *o, const char *at, const char *key, char *buf, size_t len)
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

/* A member of a JSON object that is a limit (rd_limit), and its field. */
struct limit_field {
	const char *key;
	size_t off; /* of an int64_t */
};

/* A field a line; clang-format would pack the tables and break the macros. */
// clang-format off
#define LIMIT(type, field) { #field, offsetof(type, field) }
/* The drivers' limits, at their place in struct device (what base points to). */
#define DEV_LIMIT(sub, field) { #field, offsetof(struct device, sub.field) }

static const struct limit_field queue_limit_fields[] = {
	LIMIT(struct queue_limits, max_sectors_kb),
	LIMIT(struct queue_limits, max_hw_sectors_kb),
	LIMIT(struct queue_limits, max_segments),
	LIMIT(struct queue_limits, max_segment_size),
	LIMIT(struct queue_limits, nr_requests),
	LIMIT(struct queue_limits, read_ahead_kb),
	LIMIT(struct queue_limits, logical_block_size),
	LIMIT(struct queue_limits, physical_block_size),
	LIMIT(struct queue_limits, wbt_lat_usec),
	LIMIT(struct queue_limits, nomerges),
};
static const struct limit_field xen_fields[] = {
	DEV_LIMIT(xen, max_indirect_segments),
	DEV_LIMIT(xen, segments),
	DEV_LIMIT(xen, max_request_bytes),
	DEV_LIMIT(xen, max_ring_page_order),
	DEV_LIMIT(xen, max_queues),
	DEV_LIMIT(xen, feature_persistent),
	DEV_LIMIT(xen, frontend_state),
	DEV_LIMIT(xen, segments_in_effect),
	DEV_LIMIT(xen, queues),
	DEV_LIMIT(xen, ring_pages),
	DEV_LIMIT(xen, ring_requests),
};
static const struct limit_field xen_backend_fields[] = {
	DEV_LIMIT(xen.backend, domid),
	DEV_LIMIT(xen.backend, state),
	DEV_LIMIT(xen.backend, max_indirect_segments),
	{ "persistent_grants", offsetof(struct device, xen.backend.persistent) },
	DEV_LIMIT(xen.backend, max_queues),
	DEV_LIMIT(xen.backend, max_ring_page_order),
	DEV_LIMIT(xen.backend, flush_cache),
	DEV_LIMIT(xen.backend, barrier),
	DEV_LIMIT(xen.backend, discard),
};
static const struct limit_field virtio_fields[] = {
	DEV_LIMIT(virtio_blk, queue_depth),
	{ "queue_depth_parameter", offsetof(struct device, virtio_blk.queue_depth_param) },
	DEV_LIMIT(virtio_blk, num_request_queues),
	DEV_LIMIT(virtio_blk, poll_queues),
	DEV_LIMIT(virtio_blk, host_max_segments),
};
static const struct limit_field nvme_fields[] = {
	DEV_LIMIT(nvme, io_queue_depth),
	DEV_LIMIT(nvme, poll_queues),
	DEV_LIMIT(nvme, write_queues),
};
// clang-format on

/* The n limits of fields from the object o at at into the struct at base. */
static void read_limit_fields(struct rd *r, json_t *o, const char *at, void *base,
			      const struct limit_field *fields, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*(int64_t *)((char *)base + fields[i].off) = rd_limit(r, o, at, fields[i].key);
}

#define READ_LIMITS(r, o, at, base, fields)                                                        \
	read_limit_fields(r, o, at, base, fields, sizeof(fields) / sizeof(fields[0]))

static void read_limits(struct rd *r, json_t *o, const char *at, struct queue_limits *l)
{
	READ_LIMITS(r, o, at, l, queue_limit_fields);
	l->rotational = member(o, "rotational") ? rd_bool(r, o, at, "rotational") : -1;
	rd_str(r, o, at, "scheduler", l->scheduler, sizeof(l->scheduler));
	rd_str(r, o, at, "write_cache", l->write_cache, sizeof(l->write_cache));
}

/* The path of member key of the object at at: "device" + "limits". */
static const char *sub(char *buf, size_t len, const char *at, const char *key)
{
	snprintf(buf, len, "%s.%s", at, key);
	return buf;
}

/* A boolean that may be unknown: -1 when absent or null. */
static int64_t rd_tri(struct rd *r, json_t *o, const char *at, const char *key)
{
	return member(o, key) ? rd_bool(r, o, at, key) : -1;
}

/* What xenstore said, when it was read (older files have none of it). */
static void read_xen_negotiated(struct rd *r, json_t *o, const char *at, struct device *dev)
{
	struct xen_blkfront *x = &dev->xen;
	char reason[32] = "", p[112];
	json_t *b = rd_obj(r, o, at, "backend");

	rd_str(r, o, at, "frontend", x->frontend, sizeof(x->frontend));
	rd_str(r, o, at, "xenstore_error", x->xenstore_error, sizeof(x->xenstore_error));
	rd_str(r, o, at, "cache_flush", x->cache_flush, sizeof(x->cache_flush));
	rd_str(r, o, at, "segments_reason", reason, sizeof(reason));
	x->segments_reason = device__xen_reason_of(reason);
	if (reason[0] && x->segments_reason == XEN_SEGMENTS_UNKNOWN)
		rd_fail(r, -EINVAL, "%s.segments_reason is \"%s\", not a reason this tool writes",
			at, reason);
	x->persistent_grants = rd_tri(r, o, at, "persistent_grants");
	x->bounce_buffer = rd_tri(r, o, at, "bounce_buffer");
	x->discard = rd_tri(r, o, at, "discard");
	/* null: every field -1 */
	READ_LIMITS(r, b, sub(p, sizeof(p), at, "backend"), dev, xen_backend_fields);
	x->backend_read = b != NULL;
}

static void read_xen(struct rd *r, json_t *o, const char *at, struct device *dev)
{
	struct xen_blkfront *x = &dev->xen;
	char param[64] = "";

	if (!o)
		return;
	x->present = true;
	READ_LIMITS(r, o, at, dev, xen_fields);
	x->indirect_descriptors = rd_bool(r, o, at, "indirect_descriptors");
	rd_str(r, o, at, "parameter_name", param, sizeof(param));
	x->param_is_old_name = !strcmp(param, "xen_blkfront.max");
	x->backend_limited = rd_bool(r, o, at, "backend_limited");
	read_xen_negotiated(r, o, at, dev);
}

static void read_drivers(struct rd *r, json_t *d, const char *at, struct device *dev)
{
	char p[96];
	json_t *o;

	if ((o = rd_obj(r, d, at, "virtio_blk"))) {
		dev->virtio_blk.present = true;
		READ_LIMITS(r, o, sub(p, sizeof(p), at, "virtio_blk"), dev, virtio_fields);
	}
	if ((o = rd_obj(r, d, at, "nvme"))) {
		dev->nvme.present = true;
		READ_LIMITS(r, o, sub(p, sizeof(p), at, "nvme"), dev, nvme_fields);
	}
	if ((o = rd_obj(r, d, at, "loop"))) {
		sub(p, sizeof(p), at, "loop");
		dev->loop.present = true;
		rd_str(r, o, p, "backing_file", dev->loop.backing_file,
		       sizeof(dev->loop.backing_file));
		dev->loop.dio = member(o, "dio") ? rd_bool(r, o, p, "dio") : -1;
	}
}

static void read_names(struct rd *r, json_t *d, const char *at, const char *key,
		       char (*names)[DEVICE_NAME_MAX], unsigned int *nr, unsigned int max)
{
	json_t *a = rd_arr(r, d, at, key), *v;
	size_t i;

	json_array_foreach(a, i, v) {
		if (*nr >= max || wrong(r, v, json_is_string(v), at, key, "a list of names"))
			return;
		text__copy(names[(*nr)++], DEVICE_NAME_MAX, json_string_value(v));
	}
}

/* Entry i of a list of objects in the device (at: the list's path). */
typedef void (*rd_entry_fn)(struct rd *r, json_t *o, const char *at, struct device *dev,
			    unsigned int i);

/* The objects of list key, each read by fn, as many as the device holds (max). */
static void read_entries(struct rd *r, json_t *d, const char *at, const char *key, unsigned int *nr,
			 unsigned int max, rd_entry_fn fn, struct device *dev)
{
	json_t *a = rd_arr(r, d, at, key), *o;
	char p[96], entry[32];
	size_t i;

	sub(p, sizeof(p), at, key);
	snprintf(entry, sizeof(entry), "%s[]", key);
	json_array_foreach(a, i, o) {
		if (*nr >= max || wrong(r, o, json_is_object(o), at, entry, "an object"))
			break;
		fn(r, o, p, dev, (*nr)++);
	}
}

static void read_partition_entry(struct rd *r, json_t *o, const char *at, struct device *dev,
				 unsigned int i)
{
	struct device_partition *part = &dev->partitions[i];

	rd_str(r, o, at, "name", part->name, sizeof(part->name));
	part->major = rd_u64(r, o, at, "major");
	part->minor = rd_u64(r, o, at, "minor");
	part->number = rd_u64(r, o, at, "number");
	part->start = rd_u64(r, o, at, "start_sector");
	part->sectors = rd_u64(r, o, at, "sectors");
	part->nr_holders = rd_u64(r, o, at, "holders");
}

static void read_path_entry(struct rd *r, json_t *o, const char *at, struct device *dev,
			    unsigned int i)
{
	struct device_path *path = &dev->paths[i];

	rd_str(r, o, at, "name", path->name, sizeof(path->name));
	rd_str(r, o, at, "controller", path->controller, sizeof(path->controller));
	rd_str(r, o, at, "state", path->state, sizeof(path->state));
	path->nr_hw_queues = rd_u64(r, o, at, "nr_hw_queues");
	path->max_tags = rd_u64(r, o, at, "max_tags");
}

static void read_module_params(struct rd *r, json_t *d, const char *at, struct device *dev)
{
	json_t *a = rd_obj(r, d, at, "module_parameters"), *o;
	const char *key;
	char p[96];

	sub(p, sizeof(p), at, "module_parameters");
	json_object_foreach(a, key, o) {
		struct module_param *m = &dev->module_params[dev->nr_module_params];

		if (dev->nr_module_params >= DEVICE_MAX_PARAMS ||
		    wrong(r, o, json_is_string(o), p, key, "a string"))
			break;
		text__copy(m->name, sizeof(m->name), key);
		text__copy(m->value, sizeof(m->value), json_string_value(o));
		dev->nr_module_params++;
	}
}

static void read_partition(struct rd *r, json_t *d, const char *at, struct device *dev)
{
	json_t *part = rd_obj(r, d, at, "partition");
	char p[96];

	if (!part)
		return;
	sub(p, sizeof(p), at, "partition");
	rd_str(r, part, p, "name", dev->part_name, sizeof(dev->part_name));
	dev->part_major = rd_u64(r, part, p, "major");
	dev->part_minor = rd_u64(r, part, p, "minor");
	dev->part_start = rd_u64(r, part, p, "start_sector");
	dev->part_sectors = rd_u64(r, part, p, "sectors");
}

/* dom0: the guest disk the device backs ("xen_guest"; null or absent: none). */
static void read_xen_guest(struct rd *r, json_t *o, const char *at, struct xen_guest_disk *g)
{
	g->domid = g->devid = -1;
	if (!json_is_object(o))
		return;
	g->present = true;
	g->domid = (int64_t)rd_u64(r, o, at, "domid");
	g->devid = (int64_t)rd_u64(r, o, at, "devid");
	rd_str(r, o, at, "vdev", g->vdev, sizeof(g->vdev));
	rd_str(r, o, at, "domain", g->domain, sizeof(g->domain));
	rd_str(r, o, at, "backend", g->backend, sizeof(g->backend));
	rd_str(r, o, at, "xenstore_error", g->xenstore_error, sizeof(g->xenstore_error));
}

/* The device object at path at ("device", "stack.layers[1].device") into dev. */
static void read_device(struct rd *r, json_t *d, const char *at, struct device *dev)
{
	char p[96];

	rd_str(r, d, at, "name", dev->name, sizeof(dev->name));
	dev->major = rd_u64(r, d, at, "major");
	dev->minor = rd_u64(r, d, at, "minor");
	dev->size_sectors = rd_u64(r, d, at, "size_bytes") / 512;
	rd_str(r, d, at, "driver", dev->driver, sizeof(dev->driver));
	rd_str(r, d, at, "module", dev->module, sizeof(dev->module));
	read_limits(r, rd_obj(r, d, at, "limits"), sub(p, sizeof(p), at, "limits"), &dev->limits);
	read_partition(r, d, at, dev);
	dev->nr_hw_queues = rd_u64(r, d, at, "nr_hw_queues");
	dev->max_tags = rd_u64(r, d, at, "max_tags");
	read_xen(r, rd_obj(r, d, at, "xen_blkfront"), sub(p, sizeof(p), at, "xen_blkfront"), dev);
	dev->bio_based = rd_bool(r, d, at, "bio_based");
	rd_str(r, d, at, "dm_name", dev->dm_name, sizeof(dev->dm_name));
	rd_str(r, d, at, "md_level", dev->md_level, sizeof(dev->md_level));
	dev->scsi_queue_depth = rd_limit(r, d, at, "scsi_queue_depth");
	dev->hidden = rd_bool(r, d, at, "hidden");
	read_entries(r, d, at, "partitions", &dev->nr_partitions, DEVICE_MAX_PARTITIONS,
		     read_partition_entry, dev);
	read_names(r, d, at, "slaves", dev->slaves, &dev->nr_slaves, DEVICE_MAX_STACK);
	read_names(r, d, at, "holders", dev->holders, &dev->nr_holders, DEVICE_MAX_STACK);
	read_module_params(r, d, at, dev);
	read_entries(r, d, at, "paths", &dev->nr_paths, DEVICE_MAX_PATHS, read_path_entry, dev);
	read_drivers(r, d, at, dev);
	read_xen_guest(r, member(d, "xen_guest"), sub(p, sizeof(p), at, "xen_guest"),
		       &dev->xen_guest);
}

/* Put the file's name in front of what the header said, on one line. */
static int named(struct rd *r, const char *name)
{
	if (r->ret) {
		diag__prefix(r->d, "%s: ", name);
		text__one_line(r->d->msg);
	}
	return r->ret;
}

int result_read__device(json_t *obj, struct device *dev, const char *name, struct diag *d)
{
	struct diag scratch = {};
	struct rd r = { .d = d ? d : &scratch };

	memset(dev, 0, sizeof(*dev));
	read_device(&r, obj, "device", dev);
	return named(&r, name);
}

/* The stack */

/* The index of the layer named name among the first n, -1: the top; -2: none. */
static int layer_index(const struct result *res, size_t n, const char *name)
{
	size_t i;

	if (!strcmp(name, res->device.name))
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(res->layers[i].dev.name, name))
			return (int)i;
	return -2;
}

/* Layer i of the stack (breadth first: the one above it comes before it). */
static void read_layer(struct rd *r, json_t *o, size_t i, struct layer *l)
{
	struct result *res = &r->out->res;
	char at[64], p[96], above[DEVICE_NAME_MAX] = "", link[16] = "";
	uint64_t level;

	snprintf(at, sizeof(at), "stack.layers[%zu]", i);
	if (wrong(r, o, json_is_object(o), at, "", "an object"))
		return;
	read_device(r, rd_obj(r, o, at, "device"), sub(p, sizeof(p), at, "device"), &l->dev);
	rd_str(r, o, at, "role", l->role, sizeof(l->role));
	rd_str(r, o, at, "above", above, sizeof(above));
	rd_str(r, o, at, "link", link, sizeof(link));
	level = rd_u64(r, o, at, "level");
	l->level = level <= STACK_MAX_LEVELS ? (unsigned int)level : 0;
	l->above = layer_index(res, i, above);
	l->link = strcmp(link, "backing_file") ? LAYER_SLAVE : LAYER_BACKING_FILE;
	if (r->ret)
		return;
	if (l->above < -1)
		rd_fail(r, -EINVAL, "%s.above \"%s\" is neither the device nor a layer before it",
			at, above);
	else if (!l->level)
		rd_fail(r, -ERANGE, "%s.level %llu is not 1 to %d", at, (unsigned long long)level,
			STACK_MAX_LEVELS);
	else if (strcmp(link, "slave") && strcmp(link, "backing_file"))
		rd_fail(r, -EINVAL, "%s.link \"%s\" is not \"slave\" or \"backing_file\"", at,
			link);
}

/*
 * The stack, as the header holds it when the first run arrives: the device (for the
 * name the top layers hang from) and the layers; result__add_run then gives each run a
 * block_stats per layer.
 */
static void read_stack(struct rd *r)
{
	struct result *res = &r->out->res;
	json_t *h = r->out->loaded.header, *st, *a, *o;
	size_t i;

	r->stack_read = true;
	st = rd_obj(r, h, "", "stack");
	if (!st)
		return;
	r->stack_found = true;
	rd_str(r, member(h, "device"), "device", "name", res->device.name,
	       sizeof(res->device.name));
	rd_str(r, st, "stack", "kind", res->stack_top_kind, sizeof(res->stack_top_kind));
	rd_str(r, st, "stack", "note", res->stack_note, sizeof(res->stack_note));
	a = rd_arr(r, st, "stack", "layers");
	if (r->ret || !json_array_size(a))
		return;
	if (json_array_size(a) > STACK_MAX_LAYERS) {
		rd_fail(r, -ERANGE, "stack.layers has %zu layers; a stack has at most %d",
			json_array_size(a), STACK_MAX_LAYERS);
		return;
	}
	res->layers = calloc(json_array_size(a), sizeof(*res->layers));
	if (!res->layers) {
		rd_fail(r, -ENOMEM, "out of memory");
		return;
	}
	res->nr_layers = json_array_size(a);
	json_array_foreach(a, i, o)
		read_layer(r, o, i, &res->layers[i]);
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
	{ "request_bytes", HIST_KIND_SIZE, NONE, NONE, AT(max.bytes), NONE }, /* by_op: sizes */
	{ "segments", HIST_KIND_COUNT, AT(count[BLKIO_COUNT_SEGMENTS]), AT(c.sum_segments),
	  AT(max.segments), AT(c.data_requests) },
	{ "segment_bytes", HIST_KIND_SIZE, AT(size[BLKIO_SIZE_SEGMENT]), NONE, NONE, NONE },
	{ "queue_depth", HIST_KIND_COUNT, AT(count[BLKIO_COUNT_DEPTH]), AT(c.sum_depth),
	  AT(max.depth), NONE },
	{ "queue_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_QUEUE]), AT(c.sum_ns[BLKIO_LAT_QUEUE]),
	  AT(max.ns[BLKIO_LAT_QUEUE]), AT(c.nr_ns[BLKIO_LAT_QUEUE]) },
	{ "device_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_DEVICE]), AT(c.sum_ns[BLKIO_LAT_DEVICE]),
	  AT(max.ns[BLKIO_LAT_DEVICE]), AT(c.nr_ns[BLKIO_LAT_DEVICE]) },
	{ "total_ns", HIST_KIND_LAT, AT(lat[BLKIO_LAT_TOTAL]), AT(c.sum_ns[BLKIO_LAT_TOTAL]),
	  AT(max.ns[BLKIO_LAT_TOTAL]), AT(c.nr_ns[BLKIO_LAT_TOTAL]) },
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
		r->ret = result_load__buckets(i, path, kind, buckets, out, r->d);
}

/* base: where the block object is in run i ("block", "layers[0].block"). */
static void read_dist(struct rd *r, size_t i, const char *base, json_t *block,
		      const struct dist_spec *d, struct block_stats *b)
{
	char at[128], path[128];
	json_t *o;
	uint64_t count;
	double mean;

	snprintf(at, sizeof(at), "runs[%zu].%s", i, base);
	o = rd_obj(r, block, at, d->name);
	snprintf(at, sizeof(at), "runs[%zu].%s.%s", i, base, d->name);
	count = rd_u64(r, o, at, "count");
	mean = rd_num(r, o, at, "mean");
	if (d->hist != NONE) {
		snprintf(path, sizeof(path), "%s.%s.buckets", base, d->name);
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
static void read_sizes(struct rd *r, size_t i, const char *base, json_t *block,
		       struct block_stats *b)
{
	static const char *const ops[] = {
		[BLKIO_SIZE_READ] = "read",
		[BLKIO_SIZE_WRITE] = "write",
		[BLKIO_SIZE_OTHER] = "other",
	};
	const __u64 *req = b->c.requests;
	json_t *rb = member(block, "request_bytes"), *by = member(rb, "by_op");
	char path[128];
	unsigned int k, kinds;
	int only;

	if (by) {
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			snprintf(path, sizeof(path), "%s.request_bytes.by_op.%s", base, ops[k]);
			read_buckets(r, i, path, HIST_KIND_SIZE, member(by, ops[k]), b->size[k]);
		}
		return;
	}
	kinds = !!req[BLKIO_OP_READ] + !!req[BLKIO_OP_WRITE] +
		!!(req[BLKIO_OP_DISCARD] + req[BLKIO_OP_OTHER]);
	only = req[BLKIO_OP_READ]    ? BLKIO_SIZE_READ
	       : req[BLKIO_OP_WRITE] ? BLKIO_SIZE_WRITE
				     : BLKIO_SIZE_OTHER;
	if (kinds > 1 && member(rb, "buckets"))
		rd_fail(r, -EINVAL,
			"runs[%zu].%s.request_bytes has no \"by_op\" (written by an older "
			"blktrace-bench) and requests of several kinds: their sizes cannot be "
			"told apart",
			i, base);
	snprintf(path, sizeof(path), "%s.request_bytes.buckets", base);
	read_buckets(r, i, path, HIST_KIND_SIZE, member(rb, "buckets"), b->size[only]);
}

/* xen-blkfront's counts of a run ("xen_ring"), when its rings were probed. */
static void read_ring(struct rd *r, size_t i, const char *base, json_t *o,
		      struct blkfront_counts *c)
{
	static const struct {
		const char *name;
		enum hist_kind kind;
		size_t hist;
	} hists[] = {
		{ "grants_direct", HIST_KIND_COUNT,
		  offsetof(struct blkfront_counts, grants_direct) },
		{ "grants_indirect", HIST_KIND_COUNT,
		  offsetof(struct blkfront_counts, grants_indirect) },
		{ "occupancy", HIST_KIND_COUNT, offsetof(struct blkfront_counts, occupancy) },
		{ "backend_ns", HIST_KIND_LAT, offsetof(struct blkfront_counts, backend_lat) },
	};
	char at[128], path[160];
	json_t *rings, *e;
	unsigned int k;
	size_t n;

	if (!o)
		return;
	snprintf(at, sizeof(at), "runs[%zu].%s.xen_ring", i, base);
	for (k = 0; k < NR_RING_COUNT_KEYS; k++)
		*(__u64 *)((char *)c + ring_count_keys[k].offset) =
			rd_u64(r, o, at, ring_count_keys[k].key);
	for (k = 0; k < sizeof(hists) / sizeof(hists[0]); k++) {
		snprintf(path, sizeof(path), "%s.xen_ring.%s.buckets", base, hists[k].name);
		read_buckets(r, i, path, hists[k].kind,
			     member(rd_obj(r, o, at, hists[k].name), "buckets"),
			     (__u64 *)((char *)c + hists[k].hist));
	}
	rings = rd_arr(r, o, at, "rings");
	json_array_foreach(rings, n, e) {
		int64_t ring = (int64_t)rd_u64(r, e, at, "ring");
		struct blkfront_ring_counts *rc;

		if (ring < 0 || ring >= BLKFRONT_MAX_RINGS) {
			rd_fail(r, -ERANGE, "%s.rings[%zu].ring is %lld; at most %d rings", at, n,
				(long long)ring, BLKFRONT_MAX_RINGS);
			return;
		}
		rc = &c->ring[ring];
		rc->requests = rd_u64(r, e, at, "requests");
		rc->backend_ns = rd_u64(r, e, at, "backend_ns");
		rc->backend_n = rd_u64(r, e, at, "backend_n");
		rc->stops = rd_u64(r, e, at, "stops");
		rc->full_ns = rd_u64(r, e, at, "full_ns");
	}
}

/* A disk of several hardware queues ("hw_queues"): each queue's figures, their depths. */
static void read_hwq(struct rd *r, size_t i, const char *base, json_t *o, struct hwq_stats *q)
{
	char at[128], path[160];
	json_t *queues, *e;
	size_t n;

	if (!o)
		return;
	snprintf(at, sizeof(at), "runs[%zu].%s.hw_queues", i, base);
	q->nr = rd_u64(r, o, at, "count");
	/* Files before block.queue_depth_sample_every sampled only disks of several queues. */
	q->depth_every = rd_u64(r, o, at, "queue_depth_sample_every");
	snprintf(path, sizeof(path), "%s.hw_queues.depth.buckets", base);
	read_buckets(r, i, path, HIST_KIND_COUNT, member(rd_obj(r, o, at, "depth"), "buckets"),
		     q->depth);
	queues = rd_arr(r, o, at, "queues");
	json_array_foreach(queues, n, e) {
		uint64_t k = rd_u64(r, e, at, "queue");

		if (k >= BLOCK_HWQS_MAX || k >= q->nr) {
			rd_fail(r, -ERANGE, "%s.queues[%zu].queue is %llu; the disk has %llu", at,
				n, (unsigned long long)k, (unsigned long long)q->nr);
			return;
		}
		q->issued[k] = rd_u64(r, e, at, "requests");
		q->max_depth[k] = rd_u64(r, e, at, "max_depth");
	}
}

static void read_block(struct rd *r, size_t i, const char *base, json_t *block,
		       struct block_stats *b)
{
	char at[128];
	unsigned int k, j;

	for (k = 0; k < BLKIO_NR_OPS; k++) {
		json_t *op;

		snprintf(at, sizeof(at), "runs[%zu].%s", i, base);
		op = rd_obj(r, block, at, blkio_op_names[k]);
		snprintf(at, sizeof(at), "runs[%zu].%s.%s", i, base, blkio_op_names[k]);
		for (j = 0; j < BLKIO_NR_OP_COUNTERS; j++)
			*blkio_counter_at(&b->c, blkio_op_counters[j].offset + k * sizeof(__u64)) =
				rd_u64(r, op, at, blkio_op_counters[j].json_key);
	}
	for (k = 0; k < BLKIO_NR_COUNTERS; k++) {
		const struct blkio_counter *t = &blkio_counters_table[k];

		if (t->json_obj)
			snprintf(at, sizeof(at), "runs[%zu].%s.%s", i, base, t->json_obj);
		else
			snprintf(at, sizeof(at), "runs[%zu].%s", i, base);
		*blkio_counter_at(&b->c, t->offset) = rd_u64(
			r, t->json_obj ? member(block, t->json_obj) : block, at, t->json_key);
	}
	for (k = 0; k < sizeof(dists) / sizeof(dists[0]); k++)
		read_dist(r, i, base, block, &dists[k], b);
	read_sizes(r, i, base, block, b);
	read_ring(r, i, base, member(block, "xen_ring"), &b->ring);
	read_hwq(r, i, base, member(block, "hw_queues"), &b->hwq);
	snprintf(at, sizeof(at), "runs[%zu].%s", i, base);
	if (member(block, "queue_depth_sample_every"))
		b->hwq.depth_every = rd_u64(r, block, at, "queue_depth_sample_every");
}

/*
 * Layer k's limits in run (a --set sweep of a layer's setting records every layer's):
 * the run gets them all, those the file does not hold as the stack has them.
 */
static void read_layer_limits(struct rd *r, json_t *lim, const char *at, struct run *run, int k)
{
	const struct result *res = &r->out->res;
	char p[96];
	size_t n;

	if (!run->layer_limits) {
		run->layer_limits = calloc(res->nr_layers, sizeof(*run->layer_limits));
		if (!run->layer_limits) {
			rd_fail(r, -ENOMEM, "out of memory");
			return;
		}
		for (n = 0; n < res->nr_layers; n++)
			run->layer_limits[n] = res->layers[n].dev.limits;
	}
	read_limits(r, lim, sub(p, sizeof(p), at, "limits"), &run->layer_limits[k]);
}

/* Each layer's statistics in run i ("layers"), by device name, into block[1 + layer]. */
static void read_layers(struct rd *r, size_t i, json_t *a, struct run *run)
{
	const struct result *res = &r->out->res;
	char at[64], base[64], name[DEVICE_NAME_MAX];
	json_t *o, *lim;
	size_t j;
	int k;

	if (json_array_size(a) && !r->stack_found) {
		rd_fail(r, -EINVAL,
			"runs[%zu].layers: no \"stack\" before the runs says what they are (we "
			"write it first)",
			i);
		return;
	}
	json_array_foreach(a, j, o) {
		snprintf(at, sizeof(at), "runs[%zu].layers[%zu]", i, j);
		if (wrong(r, o, json_is_object(o), at, "", "an object"))
			return;
		name[0] = '\0';
		rd_str(r, o, at, "device", name, sizeof(name));
		k = layer_index(res, res->nr_layers, name);
		if (!r->ret && k < 0) {
			rd_fail(r, -EINVAL, "%s.device \"%s\" is no layer of the stack", at, name);
			return;
		}
		snprintf(base, sizeof(base), "layers[%zu].block", j);
		read_block(r, i, base, rd_obj(r, o, at, "block"), &run->block[1 + k]);
		if ((lim = rd_obj(r, o, at, "limits")) && !r->ret)
			read_layer_limits(r, lim, at, run, k);
	}
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
	read_buckets(r, i, "app.latency_ns.buckets", HIST_KIND_LAT, member(lat, "buckets"), a->lat);
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
static int each_run(void *ctx, size_t i, json_t *j, const struct run_summary *rs, struct diag *d)
{
	struct rd *r = ctx;
	char at[64];
	json_t *block, *app, *lim;
	struct run *run;

	(void)d; /* r->d: the loader was given it */
	if (!r->stack_read)
		read_stack(r);
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
	if (member(j, "cold"))
		run->cache = rd_bool(r, j, at, "cold") ? RUN_CACHE_COLD : RUN_CACHE_WARM;
	rd_str(r, j, at, "cache_note", run->cache_note, sizeof(run->cache_note));
	if (block) {
		read_block(r, i, "block", block, run->block);
		read_layers(r, i, rd_arr(r, j, at, "layers"), run);
	}
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
	json_t *h = r->out->loaded.header, *dev, *tracer;
	const char *skipped;

	rd_str(r, h, "", "tool_version", res->tool_version, sizeof(res->tool_version));
	rd_str(r, h, "", "command_line", res->command_line, sizeof(res->command_line));
	rd_str(r, member(h, "host"), "host", "kernel", res->host.kernel, sizeof(res->host.kernel));
	rd_str(r, member(h, "host"), "host", "hostname", res->host.hostname,
	       sizeof(res->host.hostname));
	tracer = rd_obj(r, h, "", "tracer");
	rd_str(r, tracer, "tracer", "flavour", res->tracer_flavour, sizeof(res->tracer_flavour));
	/* "skipped": its name in older files; in older still, not known */
	skipped = member(tracer, "skipped_runs") ? "skipped_runs" : "skipped";
	res->has_skipped = member(tracer, skipped) != NULL;
	res->tracer_skipped = rd_u64(r, tracer, "tracer", skipped);
	if (json_is_string(member(tracer, "xen_ring_probes")))
		rd_str(r, tracer, "tracer", "xen_ring_probes", res->ring_probes,
		       sizeof(res->ring_probes));
	if (json_is_string(member(tracer, "xen_ring_note")))
		rd_str(r, tracer, "tracer", "xen_ring_note", res->ring_note,
		       sizeof(res->ring_note));
	if ((dev = rd_obj(r, h, "", "device"))) {
		res->has_device = true;
		read_device(r, dev, "device", &res->device);
	}
	if (member(h, "stack") && !r->stack_found)
		rd_fail(r, -EINVAL,
			"\"stack\" comes after \"runs\": the runs' layers cannot be placed (we "
			"write it first)");
	r->out->recommend = member(h, "recommendation") != NULL;
	return r->ret;
}

/* The outcome: the loader's, else the header's (named here). */
static int finish(struct rd *r, const char *name, int ret)
{
	if (!ret && read_header(r))
		ret = named(r, name);
	if (ret)
		result_read__free(r->out);
	return ret;
}

int result_read__file(const char *path, struct saved_result *out, struct diag *d)
{
	struct diag scratch = {};
	struct rd r = { .d = d ? d : &scratch, .out = out };

	memset(out, 0, sizeof(*out));
	return finish(&r, path, result_load__file_each(path, &out->loaded, each_run, &r, r.d));
}

int result_read__buffer(const char *name, const char *buf, size_t len, struct saved_result *out,
			struct diag *d)
{
	struct diag scratch = {};
	struct rd r = { .d = d ? d : &scratch, .out = out };

	memset(out, 0, sizeof(*out));
	return finish(&r, name,
		      result_load__buffer_each(name, buf, len, &out->loaded, each_run, &r, r.d));
}

void result_read__free(struct saved_result *sr)
{
	result_load__free(&sr->loaded);
	result__free(&sr->res);
	memset(sr, 0, sizeof(*sr));
}
