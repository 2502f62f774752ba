// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What `--trace DEVS` names: one disk, a list, or every disk; see fleet.h. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"
#include "fleet.h"
#include "sysfs.h"

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

/* FNV-1a: a fingerprint, not a security boundary. */
static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ ';') * 0x100000001b3ULL;
}

/* A disk's directory by name: its name, dev and whether its size is above 0. */
static uint64_t fingerprint_dir(uint64_t h, const char *dir)
{
	char buf[64];

	h = fnv(h, sysfs__base_name(dir));
	h = fnv(h, sysfs__read_attr(dir, "dev", buf, sizeof(buf)) ? "-" : buf);
	return fnv(h, sysfs__read_attr(dir, "size", buf, sizeof(buf)) || !strcmp(buf, "0") ? "0"
											   : "1");
}

uint64_t fleet__fingerprint(const char *sysfs_root, const char *spec)
{
	char root[PATH_MAX], dir[PATH_MAX], *list, *tok, *save = NULL;
	uint64_t h = 0xcbf29ce484222325ULL;
	struct dirent **ents;
	int n, i;

	if (!realpath(sysfs_root, root))
		return 0;
	if (strcmp(spec, "all")) {
		/* A list is short: what each entry resolves to, if anything. */
		list = strdup(spec);
		for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
		     tok = strtok_r(NULL, ",", &save)) {
			struct device dev;

			h = fnv(h, tok);
			if (!device__resolve(root, tok, &dev, NULL))
				h = fingerprint_dir(h, dev.sysfs_path);
		}
		free(list);
		return h;
	}
	if (sysfs__join(dir, sizeof(dir), root, "block"))
		return 0;
	n = sysfs__scan(dir, &ents);
	for (i = 0; i < n; i++) {
		char disk[PATH_MAX];

		if (!sysfs__join(disk, sizeof(disk), dir, ents[i]->d_name))
			h = fingerprint_dir(h, disk);
	}
	if (n >= 0)
		sysfs__scan_free(ents, n);
	return h;
}
