// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The settings a reboot changes (boot_knob.h): the table, and reading one in force.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "disk/boot_knob.h"
#include "disk/device.h"
#include "base/diag.h"
#include "base/parse.h"
#include "base/sysfs.h"

static const struct boot_knob knobs[] = {
	/*
	 * drivers/block/xen-blkfront.c: xlblk_init() raises a value below
	 * BLKIF_MAX_SEGMENTS_PER_REQUEST to it (0 reads back 11: indirect descriptors off);
	 * the segments a disk uses are the smaller of it and the backend's offer. The
	 * parameter was "max" from v3.11 (commit 402b27f9f2c2) until v4.6 (14e710fe7897).
	 * Above 4096 segments a request would pass the block layer's own size limit.
	 */
	{ "xen_blkfront.max_indirect_segments", "xen_blkfront", "max_indirect_segments", "max",
	  "vbd", 0, 4096, XEN_DIRECT_SEGMENTS, "segments" },
};

const struct boot_knob *boot_knob__find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (!strcmp(name, knobs[i].name))
			return &knobs[i];
	return NULL;
}

int boot_knob__parse(const struct boot_knob *k, const char *value, int64_t *out, struct diag *d)
{
	uint64_t v;

	if (parse_uint(value, (uint64_t)k->max, &v) || (int64_t)v < k->min)
		return diag__usage(d, "--set %s=%s: a number from %lld to %lld (%s) is expected",
				   k->name, value, (long long)k->min, (long long)k->max, k->unit);
	*out = (int64_t)v;
	return 0;
}

int64_t boot_knob__effective(const struct boot_knob *k, int64_t v)
{
	return v < k->floor ? k->floor : v;
}

/* <root>/module/MODULE/parameters, and which name the parameter has there (NULL: none). */
static const char *param_in(const struct boot_knob *k, const char *root, char *dir, size_t len)
{
	if (snprintf(dir, len, "%s/module/%s/parameters", root, k->module) >= (int)len)
		return NULL;
	if (sysfs__exists(dir, k->param, false))
		return k->param;
	if (k->old_param && sysfs__exists(dir, k->old_param, false))
		return k->old_param;
	return NULL;
}

int boot_knob__read(const struct boot_knob *k, const char *sysfs_root, int64_t *out)
{
	char dir[PATH_MAX], text[32];
	const char *param = param_in(k, sysfs_root, dir, sizeof(dir));
	int64_t v;
	int err;

	if (!param)
		return -ENOENT;
	err = sysfs__read_attr(dir, param, text, sizeof(text));
	if (err)
		return err;
	if (parse_int(text, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

bool boot_knob__builtin(const struct boot_knob *k, const char *sysfs_root)
{
	char dir[PATH_MAX];

	if (snprintf(dir, sizeof(dir), "%s/module/%s", sysfs_root, k->module) >= (int)sizeof(dir))
		return false;
	return sysfs__exists(sysfs_root, "module", true) &&
	       sysfs__exists(dir, "parameters", true) && !sysfs__exists(dir, "initstate", false);
}

int boot_knob__modprobe_line(const struct boot_knob *k, const char *sysfs_root, int64_t v,
			     char *buf, size_t len)
{
	char dir[PATH_MAX];
	const char *param = param_in(k, sysfs_root, dir, sizeof(dir));
	int n = snprintf(buf, len, "options %s %s=%lld", k->module, param ? param : k->param,
			 (long long)v);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
