// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The sysfs model of a disk (Documentation/ABI/stable/sysfs-block): what the user named
 * (a name, /dev path, partition or MAJ:MIN) resolved to the whole disk behind it, its
 * size and partitions, and one attribute of its directory. The queue's part of the model
 * is read in device_queue.c, the driver's in device_driver.c; everything is read below
 * one sysfs root through sysfs.c, which never leaves it.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "disk/device_read.h"
#include "base/diag.h"
#include "base/parse.h"
#include "base/sysfs.h"
#include "base/text.h"

static int part_cmp(const void *a, const void *b)
{
	const struct device_partition *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

/* The partition in dir (disk/NAME); false for a half-written or foreign entry. */
static bool read_partition(const char *dir, const char *name, struct device_partition *p)
{
	char holders[PATH_MAX];
	uint64_t num;

	memset(p, 0, sizeof(*p));
	text__copy(p->name, sizeof(p->name), name);
	if (sysfs__read_devnum(dir, &p->major, &p->minor) ||
	    sysfs__read_u64(dir, "start", &p->start) || sysfs__read_u64(dir, "size", &p->sectors) ||
	    sysfs__read_u64(dir, "partition", &num) || num > UINT32_MAX)
		return false;
	p->number = num;
	if (!sysfs__join(holders, sizeof(holders), dir, "holders"))
		p->nr_holders = sysfs__count_entries(holders);
	return true;
}

/* Partitions: subdirectories with a `partition` file, kept by number. */
static int read_partitions(struct device *dev)
{
	struct device_partition *parts = NULL, *grown;
	struct dirent **ents;
	size_t nr = 0, cap = 0;
	char dir[PATH_MAX];
	int n, i, ret = 0;

	n = sysfs__scan(dev->sysfs_path, &ents);
	for (i = 0; i < n && !ret; i++) {
		const char *name = ents[i]->d_name;

		if (sysfs__join(dir, sizeof(dir), dev->sysfs_path, name) ||
		    !sysfs__exists(dir, "partition", false))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 8;
			grown = realloc(parts, cap * sizeof(*parts));
			if (!grown) {
				ret = -ENOMEM;
				continue;
			}
			parts = grown;
		}
		if (read_partition(dir, name, &parts[nr]))
			nr++;
	}
	sysfs__scan_free(ents, n);
	if (ret || !nr)
		goto cleanup;
	qsort(parts, nr, sizeof(*parts), part_cmp);
	dev->nr_partitions = nr < DEVICE_MAX_PARTITIONS ? nr : DEVICE_MAX_PARTITIONS;
	memcpy(dev->partitions, parts, dev->nr_partitions * sizeof(*parts));
cleanup:
	free(parts);
	return ret;
}

/*
 * The user named the partition in dir: fill the part_* fields and cut disk (a copy of
 * dir) to its parent disk's directory, which sits within the root already.
 */
static int read_named_partition(const char *root, const char *dir, char *disk, struct device *dev,
				struct diag *d)
{
	char *slash;
	int ret;

	text__copy(dev->part_name, sizeof(dev->part_name), sysfs__base_name(dir));
	ret = sysfs__read_devnum(dir, &dev->part_major, &dev->part_minor);
	if (!ret)
		ret = sysfs__read_u64(dir, "start", &dev->part_start);
	if (!ret)
		ret = sysfs__read_u64(dir, "size", &dev->part_sectors);
	if (ret)
		return diag__fail(d, ret, "%s: cannot read its dev/start/size: %s", dir,
				  strerror(-ret));
	slash = strrchr(disk, '/');
	if (slash)
		*slash = '\0';
	if (!slash || !sysfs__under_root(root, disk) || !sysfs__exists(disk, "dev", false))
		return diag__fail(d, -ENOENT, "partition %s has no parent disk", dev->part_name);
	return 0;
}

/* Fill the model from a resolved directory of a disk or partition. */
static int read_device(const char *root, const char *dir, struct device *dev, struct diag *d)
{
	char disk[PATH_MAX];
	int ret;

	text__copy(disk, sizeof(disk), dir);
	if (sysfs__exists(dir, "partition", false)) {
		ret = read_named_partition(root, dir, disk, dev, d);
		if (ret)
			return ret;
	}
	if (strlen(disk) >= sizeof(dev->sysfs_path) ||
	    strlen(sysfs__base_name(disk)) >= DEVICE_NAME_MAX)
		return diag__fail(d, -ENAMETOOLONG, "%s: path too long", disk);
	text__copy(dev->sysfs_path, sizeof(dev->sysfs_path), disk);
	text__copy(dev->name, sizeof(dev->name), sysfs__base_name(disk));
	dev->hidden = !sysfs__exists(disk, "dev", false);
	ret = dev->hidden ? 0 : sysfs__read_devnum(disk, &dev->major, &dev->minor);
	if (!ret)
		ret = sysfs__read_u64(disk, "size", &dev->size_sectors);
	if (ret)
		return diag__fail(d, ret, "%s: cannot read dev/size: %s", disk, strerror(-ret));
	ret = device__read_limits(dev);
	if (ret)
		return diag__fail(d, ret, "%s: cannot read queue limits: %s", disk, strerror(-ret));
	device_queue__read_hw_queues(disk, &dev->nr_hw_queues, &dev->max_tags);
	device_driver__read_paths(root, dev);
	/* Before 5.0 single-queue disks had no mq/ but a real elevator. */
	dev->bio_based = dev->nr_hw_queues == 0 && !dev->nr_paths &&
			 (!dev->limits.scheduler[0] || !strcmp(dev->limits.scheduler, "none"));
	ret = read_partitions(dev);
	if (ret)
		return diag__fail(d, ret, "%s: cannot list partitions: %s", disk, strerror(-ret));
	device_driver__read(root, disk, dev);
	return 0;
}

static bool valid_name(const char *name)
{
	const char *c;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (c = name; *c; c++)
		if (*c == '/' || isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			return false;
	return true;
}

/*
 * What a lookup of spec below root came to: a name that resolves to nothing, or to
 * something outside the root, is bad input; another errno a runtime failure.
 */
static int lookup_result(int ret, const char *root, const char *spec, struct diag *d)
{
	if (ret == -ENOENT)
		return diag__usage_err(d, ret, "no such block device: %s", spec);
	if (ret == -EXDEV)
		return diag__usage_err(d, ret, "%s: its sysfs link leads outside %s", spec, root);
	if (ret == -ENAMETOOLONG)
		return diag__usage_err(d, ret, "%s: %s", spec, strerror(-ret));
	if (ret)
		return diag__fail(d, ret, "%s: %s", spec, strerror(-ret));
	return 0;
}

/* Turn the user's DEV into a resolved sysfs directory; d says why not. */
static int spec_to_dir(const char *root, const char *spec, char *dir, struct diag *d)
{
	unsigned int maj, min;
	const char *why, *name = spec;
	char key[32];
	struct stat st;
	int ret;

	if (!*spec)
		return diag__usage(d, "empty device name");
	if (strchr(spec, '/')) {
		if (!stat(spec, &st)) {
			if (!S_ISBLK(st.st_mode))
				return diag__usage_err(d, -ENOTBLK, "not a block device: %s", spec);
			snprintf(key, sizeof(key), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
			ret = sysfs__lookup(root, "dev/block", key, dir);
			if (ret != -ENOENT)
				return lookup_result(ret, root, spec, d);
			/* A fixture root need not know this host's numbers; try the name. */
			name = sysfs__base_name(spec);
		} else if (errno == ENOENT && !strncmp(spec, "/dev/", 5) &&
			   !strchr(spec + 5, '/')) {
			name = spec + 5;
		} else {
			return lookup_result(-errno, root, spec, d);
		}
	} else if (strchr(spec, ':')) {
		ret = parse_devnum(spec, &maj, &min, &why);
		if (ret)
			return diag__usage_err(d, ret, "invalid MAJ:MIN \"%s\": %s", spec, why);
		snprintf(key, sizeof(key), "%u:%u", maj, min);
		return lookup_result(sysfs__lookup(root, "dev/block", key, dir), root, spec, d);
	}
	if (!valid_name(name))
		return diag__usage(d, "invalid device name \"%s\"", spec);
	if (strlen(name) >= DEVICE_NAME_MAX)
		return diag__usage(d, "device name too long: %s", spec);
	return lookup_result(sysfs__lookup(root, "class/block", name, dir), root, spec, d);
}

/* block/genhd.c: GENHD_FL_HIDDEN disks (NVMe paths) show "hidden" as 1. */
static bool hidden_disk(const char *dir)
{
	char buf[16];

	if (!sysfs__read_attr(dir, "hidden", buf, sizeof(buf)))
		return !strcmp(buf, "1");
	return false;
}

int device__resolve_env(const struct device_env *env, const char *spec, struct device *dev,
			struct diag *d)
{
	char root[PATH_MAX], dir[PATH_MAX];
	int ret;

	memset(dev, 0, sizeof(*dev));
	if (!spec)
		return diag__usage(d, "no device given");
	if (!env->sysfs_root)
		return diag__usage(d, "no sysfs root given");
	/* The root of every lookup is configuration: missing, it is bad input too. */
	if (!realpath(env->sysfs_root, root)) {
		ret = -errno;
		return diag__usage_err(d, ret, "sysfs root %s: %s", env->sysfs_root,
				       strerror(-ret));
	}
	ret = spec_to_dir(root, spec, dir, d);
	/* Hidden disks (NVMe paths) have no dev; everything else without one is no disk. */
	if (!ret && !sysfs__exists(dir, "dev", false) && !hidden_disk(dir))
		ret = lookup_result(-ENOENT, root, spec, d);
	if (!ret)
		ret = read_device(root, dir, dev, d);
	if (ret) {
		memset(dev, 0, sizeof(*dev));
		return ret;
	}
	device_xen__find_guest(root, dev);
	/* A fixture tree has no xenstore of its own: a fake, or none. */
	if (env->xenstore || !strcmp(root, "/sys")) {
		if (dev->xen.present)
			device_xen__read(dev, env->xenstore);
		device_xen__read_guest(dev, env->xenstore);
	}
	return 0;
}

void device__find_xen_guest(const struct device_env *env, struct device *dev)
{
	char root[PATH_MAX];

	if (dev->xen_guest.present || !env->sysfs_root || !realpath(env->sysfs_root, root))
		return;
	device_xen__find_guest(root, dev);
	if (dev->xen_guest.present && (env->xenstore || !strcmp(root, "/sys")))
		device_xen__read_guest(dev, env->xenstore);
}

int device__resolve(const char *sysfs_root, const char *spec, struct device *dev, struct diag *d)
{
	const struct device_env env = { .sysfs_root = sysfs_root };

	return device__resolve_env(&env, spec, dev, d);
}

int device__disk_attr(const struct device *dev, const char *attr, char *buf, size_t len)
{
	if (!dev->sysfs_path[0] || !attr || !*attr || strchr(attr, '/'))
		return -EINVAL;
	return sysfs__read_attr(dev->sysfs_path, attr, buf, len);
}
