// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A saved `device` object back into struct device. See device_load.h. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>
#include "store/device_load.h"
#include "base/diag.h"
#include "store/result_read.h"

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
	/* result_read.c reads a device object back, for report and compare --html too. */
	if (!err)
		err = result_read__device(o, dev, path, d);
	if (!err && !dev->name[0])
		err = diag__usage(d, "%s: device.name is not a disk's name", path);
	json_decref(doc);
	return err;
}
