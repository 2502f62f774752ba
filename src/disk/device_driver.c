// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the driver below a disk adds to its model (Documentation/ABI/testing/sysfs-block-*):
 * which driver and module it is, the module's parameters, the xen-blkfront, virtio_blk,
 * nvme, SCSI and loop specifics, the path disks of an NVMe multipath head, and the
 * stacking of dm, md and other holders (slaves/, holders/).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk/device_read.h"
#include "base/sysfs.h"
#include "base/text.h"

#define LOOP_MAJOR 7
#define XENVBD_MAJOR 202

/* <root>/module/NAME/parameters. */
static int module_params_dir(const char *root, const char *module, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/module/%s/parameters", root, module);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* One parameter of MODULE as a number (Y/N as 1/0); -1 when absent or unreadable. */
static int64_t module_param(const char *root, const char *module, const char *name)
{
	char dir[PATH_MAX];

	if (module_params_dir(root, module, dir, sizeof(dir)))
		return -1;
	return sysfs__read_s64_or_neg1(dir, name);
}

static void read_module_params(const char *root, struct device *dev)
{
	struct dirent **ents;
	char dir[PATH_MAX];
	int n, i;

	if (!dev->module[0] || module_params_dir(root, dev->module, dir, sizeof(dir)))
		return;
	n = sysfs__scan(dir, &ents);
	for (i = 0; i < n && dev->nr_module_params < DEVICE_MAX_PARAMS; i++) {
		struct module_param *p = &dev->module_params[dev->nr_module_params];

		/* Write-only or failing parameters are not worth a hole in the list. */
		if (!sysfs__read_attr_trunc(dir, ents[i]->d_name, p->value, sizeof(p->value))) {
			text__copy(p->name, sizeof(p->name), ents[i]->d_name);
			dev->nr_module_params++;
		}
	}
	sysfs__scan_free(ents, n);
}

/* The driver of the disk in path (the path disk's, for a multipath head). */
static void detect_driver(struct device *dev, const char *path)
{
	static const char *const driver_links[] = {
		"device/driver",
		/* An NVMe namespace hangs off its controller, whose parent has the driver. */
		"device/device/driver",
	};
	/* Drivers whose module is named otherwise, for when the module link is missing. */
	static const struct {
		const char *driver, *module;
	} modules[] = {
		{ "vbd", "xen_blkfront" },     { "sd", "sd_mod" }, { "sr", "sr_mod" },
		{ "device-mapper", "dm_mod" }, { "md", "md_mod" }, { "mmcblk", "mmc_block" },
	};
	char link[64];
	size_t i;

	for (i = 0; i < sizeof(driver_links) / sizeof(driver_links[0]) && !dev->driver[0]; i++) {
		if (sysfs__link_base(path, driver_links[i], dev->driver, sizeof(dev->driver)))
			continue;
		/* Built-in drivers may have no module link; the fallbacks below cover them. */
		snprintf(link, sizeof(link), "%s/module", driver_links[i]);
		if (sysfs__link_base(path, link, dev->module, sizeof(dev->module)))
			dev->module[0] = '\0';
	}
	/* Virtual disks have no device/ at all. */
	if (!dev->driver[0]) {
		if (sysfs__exists(path, "loop", true) || dev->major == LOOP_MAJOR)
			snprintf(dev->driver, sizeof(dev->driver), "loop");
		else if (sysfs__exists(path, "dm", true))
			snprintf(dev->driver, sizeof(dev->driver), "device-mapper");
		else if (sysfs__exists(path, "md", true))
			snprintf(dev->driver, sizeof(dev->driver), "md");
		else if (!strncmp(dev->name, "zram", 4))
			snprintf(dev->driver, sizeof(dev->driver), "zram");
	}
	if (dev->module[0] || !dev->driver[0])
		return;
	for (i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		if (!strcmp(dev->driver, modules[i].driver)) {
			snprintf(dev->module, sizeof(dev->module), "%s", modules[i].module);
			return;
		}
	}
	/* Module names use '_' where driver names often use '-' (KBUILD_MODNAME). */
	snprintf(dev->module, sizeof(dev->module), "%s", dev->driver);
	for (i = 0; dev->module[i]; i++)
		if (dev->module[i] == '-')
			dev->module[i] = '_';
}

/*
 * drivers/block/xen-blkfront.c: the frontend asks for max_indirect_segments (named "max"
 * from v3.11, commit 402b27f9f2c2, until v4.6, commit 14e710fe7897), the backend offers
 * feature-max-indirect-segments, and the smaller wins; 11 or less turns indirect
 * descriptors off. The outcome is queue/max_segments, each segment one 4 KiB grant.
 */
static void read_xen(const char *root, struct device *dev)
{
	struct xen_blkfront *x = &dev->xen;
	char dir[PATH_MAX];

	x->present = true;
	x->max_indirect_segments = -1;
	device_xen__unknown(x);
	if (!module_params_dir(root, "xen_blkfront", dir, sizeof(dir))) {
		if (sysfs__exists(dir, "max_indirect_segments", false)) {
			x->max_indirect_segments =
				sysfs__read_s64_or_neg1(dir, "max_indirect_segments");
		} else if (sysfs__exists(dir, "max", false)) {
			x->max_indirect_segments = sysfs__read_s64_or_neg1(dir, "max");
			x->param_is_old_name = true;
		}
	}
	x->max_ring_page_order = module_param(root, "xen_blkfront", "max_ring_page_order");
	x->max_queues = module_param(root, "xen_blkfront", "max_queues");
	x->feature_persistent = module_param(root, "xen_blkfront", "feature_persistent");
	device__xen_in_force(x, dev->limits.max_segments, -1);
}

static void read_virtio_blk(const char *root, struct device *dev)
{
	struct virtio_blk_info *v = &dev->virtio_blk;

	v->present = true;
	v->queue_depth_param = module_param(root, "virtio_blk", "queue_depth");
	/* drivers/block/virtio_blk.c: tag_set.queue_depth, per hardware queue. */
	v->queue_depth = dev->max_tags ? (int64_t)dev->max_tags : -1;
	v->num_request_queues = module_param(root, "virtio_blk", "num_request_queues");
	v->poll_queues = module_param(root, "virtio_blk", "poll_queues");
	v->host_max_segments = dev->limits.max_segments;
}

static void read_nvme(const char *root, struct device *dev)
{
	struct nvme_info *nv = &dev->nvme;

	nv->present = true;
	nv->io_queue_depth = module_param(root, "nvme", "io_queue_depth");
	nv->poll_queues = module_param(root, "nvme", "poll_queues");
	nv->write_queues = module_param(root, "nvme", "write_queues");
}

/* slaves/, holders/, dm/, md/; loop/ of a bound loop device; a SCSI disk's queue_depth. */
static void read_stacking(struct device *dev)
{
	char dir[PATH_MAX];

	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "slaves"))
		dev->nr_slaves = sysfs__list_names(dir, dev->slaves[0], sizeof(dev->slaves[0]),
						   DEVICE_MAX_STACK);
	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "holders"))
		dev->nr_holders = sysfs__list_names(dir, dev->holders[0], sizeof(dev->holders[0]),
						    DEVICE_MAX_STACK);
	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "dm"))
		sysfs__read_attr_trunc(dir, "name", dev->dm_name, sizeof(dev->dm_name));
	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "md"))
		sysfs__read_attr_trunc(dir, "level", dev->md_level, sizeof(dev->md_level));
	if (sysfs__exists(dev->sysfs_path, "loop", true) &&
	    !sysfs__join(dir, sizeof(dir), dev->sysfs_path, "loop")) {
		dev->loop.present = true;
		sysfs__read_attr_trunc(dir, "backing_file", dev->loop.backing_file,
				       sizeof(dev->loop.backing_file));
		dev->loop.dio = sysfs__read_s64_or_neg1(dir, "dio");
	}
	if (!sysfs__join(dir, sizeof(dir), dev->sysfs_path, "device"))
		dev->scsi_queue_depth = sysfs__read_s64_or_neg1(dir, "queue_depth");
	else
		dev->scsi_queue_depth = -1;
}

/* Is name a path disk of head nvme<S>n<N>, i.e. nvme<S>c<C>n<N>? */
static bool is_path_of(const char *name, unsigned int subsys, unsigned int ns)
{
	unsigned int s, c, n;
	int end = 0;

	return sscanf(name, "nvme%uc%un%u%n", &s, &c, &n, &end) == 3 && !name[end] && s == subsys &&
	       n == ns;
}

/*
 * The names of the path disks of an NVMe multipath head: multipath/ lists them where the
 * kernel has it (Debian's 7.3, not 5.10, 6.1 or 6.12, as `make vmtest` shows); otherwise
 * they are the hidden disks named nvme<S>c<C>n<N> beside the head nvme<S>n<N>, whose
 * device/ is its subsystem (drivers/nvme/host/multipath.c, nvme_mpath_set_disk_name()).
 */
static unsigned int path_names(const char *root, const struct device *dev,
			       char (*names)[DEVICE_NAME_MAX])
{
	struct dirent **ents;
	char dir[PATH_MAX];
	unsigned int subsys, ns, nr = 0;
	int end = 0, n, k;

	if (sysfs__exists(dev->sysfs_path, "multipath", true) &&
	    !sysfs__join(dir, sizeof(dir), dev->sysfs_path, "multipath"))
		return sysfs__list_names(dir, names[0], DEVICE_NAME_MAX, DEVICE_MAX_PATHS);
	if (sscanf(dev->name, "nvme%un%u%n", &subsys, &ns, &end) != 2 || dev->name[end] ||
	    !strstr(dev->sysfs_path, "/nvme-subsystem/") ||
	    sysfs__join(dir, sizeof(dir), root, "class/block"))
		return 0;
	n = sysfs__scan(dir, &ents);
	for (k = 0; k < n && nr < DEVICE_MAX_PATHS; k++)
		if (is_path_of(ents[k]->d_name, subsys, ns))
			text__copy(names[nr++], DEVICE_NAME_MAX, ents[k]->d_name);
	sysfs__scan_free(ents, n);
	return nr;
}

void device_driver__read_paths(const char *root, struct device *dev)
{
	char names[DEVICE_MAX_PATHS][DEVICE_NAME_MAX], pdir[PATH_MAX], ctrl[PATH_MAX];
	unsigned int nr = path_names(root, dev, names), i;

	for (i = 0; i < nr; i++) {
		struct device_path *p = &dev->paths[dev->nr_paths];

		if (sysfs__lookup(root, "class/block", names[i], pdir))
			continue;
		text__copy(p->name, sizeof(p->name), names[i]);
		device_queue__read_hw_queues(pdir, &p->nr_hw_queues, &p->max_tags);
		if (!sysfs__link_base(pdir, "device", p->controller, sizeof(p->controller)) &&
		    !sysfs__join(ctrl, sizeof(ctrl), pdir, "device"))
			sysfs__read_attr_trunc(ctrl, "state", p->state, sizeof(p->state));
		if (!dev->nr_paths)
			detect_driver(dev, pdir);
		if (p->nr_hw_queues > dev->nr_hw_queues)
			dev->nr_hw_queues = p->nr_hw_queues;
		if (p->max_tags > dev->max_tags)
			dev->max_tags = p->max_tags;
		dev->nr_paths++;
	}
}

void device_driver__read(const char *root, const char *dir, struct device *dev)
{
	if (!dev->driver[0])
		detect_driver(dev, dir);
	read_stacking(dev);
	read_module_params(root, dev);
	if (dev->major == XENVBD_MAJOR || !strcmp(dev->driver, "vbd"))
		read_xen(root, dev);
	if (!strcmp(dev->driver, "virtio_blk"))
		read_virtio_blk(root, dev);
	else if (!strcmp(dev->driver, "nvme"))
		read_nvme(root, dev);
}
