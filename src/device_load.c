// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A saved `device` object back into struct device. See device_load.h. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "device_load.h"
#include "diag.h"

/* The limits report_json.c writes: numbers (null: the kernel has no such file). */
static const struct {
	const char *name;
	size_t offset;
} int_limits[] = {
	{ "max_sectors_kb", offsetof(struct queue_limits, max_sectors_kb) },
	{ "max_hw_sectors_kb", offsetof(struct queue_limits, max_hw_sectors_kb) },
	{ "max_segments", offsetof(struct queue_limits, max_segments) },
	{ "max_segment_size", offsetof(struct queue_limits, max_segment_size) },
	{ "nr_requests", offsetof(struct queue_limits, nr_requests) },
	{ "read_ahead_kb", offsetof(struct queue_limits, read_ahead_kb) },
	{ "logical_block_size", offsetof(struct queue_limits, logical_block_size) },
	{ "physical_block_size", offsetof(struct queue_limits, physical_block_size) },
	{ "wbt_lat_usec", offsetof(struct queue_limits, wbt_lat_usec) },
	{ "nomerges", offsetof(struct queue_limits, nomerges) },
};

struct loading {
	const char *path;
	struct diag *d;
};

static int wrong(const struct loading *l, const char *field, const char *want)
{
	return diag__usage(l->d, "%s: device.%s is not %s", l->path, field, want);
}

/* An integer 0..max, or null (-1) when nullable; absent: unknown (-1). */
static int get_int(const struct loading *l, json_t *o, const char *field, const char *key,
		   int64_t max, bool nullable, int64_t *out)
{
	json_t *v = json_object_get(o, key);

	*out = -1;
	if (!v || (nullable && json_is_null(v)))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return wrong(l, field, nullable ? "an integer >= 0 or null" : "an integer >= 0");
	*out = json_integer_value(v);
	return 0;
}

static int get_str(const struct loading *l, json_t *o, const char *field, const char *key,
		   char *out, size_t len)
{
	json_t *v = json_object_get(o, key);

	out[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v) || strlen(json_string_value(v)) >= len)
		return wrong(l, field, "a string of a disk's");
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

static int load_limits(const struct loading *l, json_t *o, struct queue_limits *q)
{
	json_t *rot = json_object_get(o, "rotational");
	char field[64];
	size_t i;
	int err = 0;

	if (o && !json_is_object(o))
		return wrong(l, "limits", "an object");
	for (i = 0; !err && i < sizeof(int_limits) / sizeof(int_limits[0]); i++) {
		snprintf(field, sizeof(field), "limits.%s", int_limits[i].name);
		err = get_int(l, o, field, int_limits[i].name, INT64_MAX, true,
			      (int64_t *)((char *)q + int_limits[i].offset));
	}
	if (!err && json_is_boolean(rot))
		q->rotational = json_is_true(rot);
	else if (!err && rot && !json_is_null(rot))
		err = wrong(l, "limits.rotational", "a boolean or null");
	if (!err)
		err = get_str(l, o, "limits.scheduler", "scheduler", q->scheduler,
			      sizeof(q->scheduler));
	if (!err)
		err = get_str(l, o, "limits.write_cache", "write_cache", q->write_cache,
			      sizeof(q->write_cache));
	return err;
}

static int load_device(const struct loading *l, json_t *o, struct device *dev)
{
	int64_t major, minor;
	json_t *bio = json_object_get(o, "bio_based");
	int err;

	err = get_str(l, o, "name", "name", dev->name, sizeof(dev->name));
	if (!err && !dev->name[0])
		err = wrong(l, "name", "a disk's name");
	if (!err)
		err = get_int(l, o, "major", "major", UINT32_MAX, false, &major);
	if (!err)
		err = get_int(l, o, "minor", "minor", UINT32_MAX, false, &minor);
	if (!err)
		err = get_str(l, o, "driver", "driver", dev->driver, sizeof(dev->driver));
	if (!err)
		err = get_str(l, o, "module", "module", dev->module, sizeof(dev->module));
	if (!err)
		err = load_limits(l, json_object_get(o, "limits"), &dev->limits);
	if (err)
		return err;
	dev->major = major < 0 ? 0 : major;
	dev->minor = minor < 0 ? 0 : minor;
	dev->bio_based = json_is_true(bio);
	return 0;
}

void device_load__named(const char *name, unsigned int major, unsigned int minor,
			struct device *dev)
{
	memset(dev, 0, sizeof(*dev));
	/* Every limit before the strings is an int64_t: all bits set is -1, unknown. */
	memset(&dev->limits, 0xff, offsetof(struct queue_limits, scheduler));
	dev->limits.rotational = -1;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->major = major;
	dev->minor = minor;
}

int device_load__file(const char *path, struct device *dev, struct diag *d)
{
	struct loading l = { path, d };
	json_error_t jerr;
	json_t *doc, *o;
	FILE *f;
	int err;

	device_load__named("", 0, 0, dev);
	f = fopen(path, "r");
	if (!f)
		return diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	doc = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	err = ferror(f) ? diag__fail(d, -EIO, "%s: read error", path) : 0;
	fclose(f);
	if (!err && !doc)
		err = diag__usage(d, "%s: not JSON: %s (line %d, column %d)", path, jerr.text,
				  jerr.line, jerr.column);
	o = json_object_get(doc, "device");
	if (!err && !json_is_object(o))
		err = diag__usage(d,
				  "%s: no \"device\" object (a saved info --json or result "
				  "file has one)",
				  path);
	if (!err)
		err = load_device(&l, o, dev);
	json_decref(doc);
	return err;
}
