// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What `--trace DEVS` names: one disk, a list, or every disk; see fleet.h. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "disk/fleet.h"
#include "base/sysfs.h"

bool fleet__several(const char *spec)
{
	return spec && (!strcmp(spec, "all") || strchr(spec, ','));
}

const char *fleet__name(const struct device *dev)
{
	return dev->part_name[0] ? dev->part_name : dev->name;
}

void fleet__free(struct fleet *f)
{
	free(f->devs);
	memset(f, 0, sizeof(*f));
}

/* Room for one more device in f; NULL on ENOMEM. */
static struct device *fleet_grow(struct fleet *f, size_t *cap)
{
	struct device *grown;

	if (f->n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		grown = realloc(f->devs, *cap * sizeof(*grown));
		if (!grown)
			return NULL;
		f->devs = grown;
	}
	return &f->devs[f->n];
}

static bool named_before(const struct fleet *f, const struct device *dev)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(fleet__name(&f->devs[i]), fleet__name(dev)))
			return true;
	return false;
}

/* Every whole disk of <root>/block with a medium, but hidden NVMe paths, by name. */
static int resolve_all(const char *root, struct fleet *f, size_t *cap, struct diag *d)
{
	struct dirent **ents;
	char dir[PATH_MAX];
	struct device *dev;
	int n, i, err = 0;

	if (sysfs__join(dir, sizeof(dir), root, "block"))
		return diag__usage(d, "sysfs root too long: %s", root);
	n = sysfs__scan(dir, &ents);
	if (n < 0)
		return diag__fail(d, n, "cannot list %s: %s", dir, strerror(-n));
	for (i = 0; i < n && !err; i++) {
		dev = fleet_grow(f, cap);
		if (!dev) {
			err = diag__fail(d, -ENOMEM, "out of memory");
			break;
		}
		/* A disk that went away since the listing is simply not there. */
		if (device__resolve(root, ents[i]->d_name, dev, NULL) || dev->hidden ||
		    !dev->size_sectors)
			continue;
		f->n++;
	}
	sysfs__scan_free(ents, n);
	return err;
}

/* Each entry of a comma-separated list, as --trace takes one disk. */
static int resolve_list(const char *root, const char *spec, bool strict, struct fleet *f,
			size_t *cap, struct diag *d)
{
	char *list = strdup(spec), *tok, *save = NULL;
	struct device *dev;
	int err = 0;

	if (!list)
		return diag__fail(d, -ENOMEM, "out of memory");
	/* ",," or a trailing comma names nothing: say so rather than guess. */
	if (strstr(spec, ",,") || spec[0] == ',' || spec[strlen(spec) - 1] == ',')
		err = diag__usage(d, "--trace: an empty name in the list '%s'", spec);
	for (tok = strtok_r(list, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		dev = fleet_grow(f, cap);
		if (!dev) {
			err = diag__fail(d, -ENOMEM, "out of memory");
			break;
		}
		err = device__resolve(root, tok, dev, d);
		if (err == -ENOENT && !strict) {
			err = 0;
			continue;
		}
		if (!err && named_before(f, dev))
			err = diag__usage(d, "--trace: %s is named twice", fleet__name(dev));
		if (!err)
			f->n++;
	}
	free(list);
	return err;
}

int fleet__resolve(const char *sysfs_root, const char *spec, size_t max, bool strict,
		   struct fleet *f, struct diag *d)
{
	size_t cap = 0;
	int err;

	memset(f, 0, sizeof(*f));
	if (!spec || !*spec)
		return diag__usage(d, "--trace: no device given");
	f->all = !strcmp(spec, "all");
	if (f->all)
		err = resolve_all(sysfs_root, f, &cap, d);
	else if (strchr(spec, ','))
		err = resolve_list(sysfs_root, spec, strict, f, &cap, d);
	else
		err = resolve_list(sysfs_root, spec, true, f, &cap, d);
	if (!err && f->n > max)
		err = diag__usage_err(d, -E2BIG,
				      "--trace %s: %zu disks, at most %zu can be traced at once: "
				      "name them (--trace a,b,...)",
				      f->all ? "all" : "list", f->n, max);
	if (err)
		fleet__free(f);
	return err;
}

/* The n-th disk device dev stands for: itself, then its NVMe paths; by dev_t or name. */
static void member_key(const struct device *dev, unsigned int i, char *key, size_t len)
{
	if (i > 0)
		snprintf(key, len, "%s", dev->paths[i - 1].name);
	else if (dev->hidden)
		snprintf(key, len, "%s", dev->name);
	else
		snprintf(key, len, "%u:%u", dev->major, dev->minor);
}

/* Does any disk of a share one with b? Names it in d. */
static bool share_disk(const struct device *a, const struct device *b, struct diag *d)
{
	char ka[DEVICE_NAME_MAX], kb[DEVICE_NAME_MAX];
	unsigned int i, k;

	for (i = 0; i <= a->nr_paths; i++) {
		member_key(a, i, ka, sizeof(ka));
		for (k = 0; k <= b->nr_paths; k++) {
			member_key(b, k, kb, sizeof(kb));
			if (strcmp(ka, kb))
				continue;
			diag__usage(d,
				    "%s and %s are both on disk %s, which can be traced once: "
				    "name the disk, or one of them",
				    fleet__name(a), fleet__name(b), i ? ka : a->name);
			return true;
		}
	}
	return false;
}

int fleet__check_disjoint(const struct device *const *devs, size_t n, struct diag *d)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			if (share_disk(devs[i], devs[k], d))
				return -EINVAL;
	return 0;
}

bool fleet__same_device(const struct device *a, const struct device *b)
{
	unsigned int i;

	if (strcmp(fleet__name(a), fleet__name(b)) || a->major != b->major ||
	    a->minor != b->minor || a->part_major != b->part_major ||
	    a->part_minor != b->part_minor || a->part_start != b->part_start ||
	    a->part_sectors != b->part_sectors || a->nr_paths != b->nr_paths)
		return false;
	for (i = 0; i < a->nr_paths; i++)
		if (strcmp(a->paths[i].name, b->paths[i].name))
			return false;
	return true;
}

/* FNV-1a: a fingerprint, not a security boundary. */
static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/*
 * One device as its programs would trace it: its name, its disk's number, a partition's
 * own number and sectors, whether the disk has a medium. The fingerprint adds these up,
 * so that the order they are found in does not count.
 */
static uint64_t device_key(const char *name, unsigned int maj, unsigned int min,
			   const struct device *part, bool medium)
{
	char key[NAME_MAX + 128];

	snprintf(key, sizeof(key), "%s %u:%u %u:%u %" PRIu64 "+%" PRIu64 " %d", name, maj, min,
		 part ? part->part_major : 0, part ? part->part_minor : 0,
		 part ? part->part_start : 0, part ? part->part_sectors : 0, medium);
	return fnv(key);
}

/* A hidden NVMe path disk, which its head's device traces along. */
static uint64_t path_key(const char *name)
{
	char key[NAME_MAX + 8];

	snprintf(key, sizeof(key), "path %s", name);
	return fnv(key);
}

/* 0 stands for "no fingerprint" (exporter.h): never one. */
static uint64_t nonzero(uint64_t h)
{
	return h ? h : 1;
}

uint64_t fleet__fingerprint_of(const struct fleet *f)
{
	uint64_t h = 0;
	size_t i, k;

	for (i = 0; i < f->n; i++) {
		const struct device *dev = &f->devs[i];

		h += device_key(fleet__name(dev), dev->major, dev->minor, dev,
				dev->size_sectors > 0);
		for (k = 0; k < dev->nr_paths; k++)
			h += path_key(dev->paths[k].name);
	}
	return nonzero(h);
}

/*
 * What `all` would resolve to, from a file or two per disk: a disk without dev is a
 * hidden path (its head traces it), one of size 0 has no medium and is left out.
 */
static uint64_t fingerprint_all(const char *root)
{
	char dir[PATH_MAX], disk[PATH_MAX];
	unsigned int maj, min;
	struct dirent **ents;
	uint64_t h = 0, size;
	int n, i;

	if (sysfs__join(dir, sizeof(dir), root, "block"))
		return nonzero(h);
	n = sysfs__scan(dir, &ents);
	for (i = 0; i < n; i++) {
		if (sysfs__join(disk, sizeof(disk), dir, ents[i]->d_name))
			continue;
		if (!sysfs__exists(disk, "dev", false))
			h += path_key(ents[i]->d_name);
		else if (!sysfs__read_devnum(disk, &maj, &min) &&
			 !sysfs__read_u64(disk, "size", &size) && size)
			h += device_key(ents[i]->d_name, maj, min, NULL, true);
	}
	if (n >= 0)
		sysfs__scan_free(ents, n);
	return nonzero(h);
}

uint64_t fleet__fingerprint(const char *sysfs_root, const char *spec)
{
	struct fleet f;
	uint64_t h;

	if (!strcmp(spec, "all"))
		return fingerprint_all(sysfs_root);
	/* A list is short: what it resolves to now, read as a reload would read it. */
	if (fleet__resolve(sysfs_root, spec, SIZE_MAX, false, &f, NULL))
		return 1;
	h = fleet__fingerprint_of(&f);
	fleet__free(&f);
	return h;
}
