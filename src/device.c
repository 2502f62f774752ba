// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The sysfs model of a disk (Documentation/ABI/stable/sysfs-block,
 * Documentation/ABI/testing/sysfs-block-*, Documentation/admin-guide/sysfs-rules.rst).
 *
 * Everything is read below one root, /sys or $BLKTRACE_BENCH_SYSFS, and every link is
 * resolved with realpath() and must stay below it: a fixture tree must never make the
 * tool read the host's real /sys by accident.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "device.h"
#include "parse.h"

#define SYSFS_ENV "BLKTRACE_BENCH_SYSFS"
#define LOOP_MAJOR 7
#define XENVBD_MAJOR 202
/* sysfs shows at most a page per attribute. */
#define ATTR_MAX 4096

static void set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Copy into a fixed field, cutting what does not fit (kernel names fit in DISK_NAME_LEN). */
static void copy_str(char *out, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(out, src, n);
	out[n] = '\0';
}

static int path_join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

static bool path_exists(const char *dir, const char *name, bool want_dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (path_join(path, sizeof(path), dir, name) || stat(path, &st))
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

/* Reads a whole small file, trailing whitespace removed; -EOVERFLOW when it does not fit. */
static int read_text(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fd, ret = 0;

	if (len < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		char extra;

		if (used == len - 1) {
			/* Full: only an immediate EOF means the value fitted. */
			n = read(fd, &extra, 1);
			if (n > 0)
				ret = -EOVERFLOW;
			else if (n < 0)
				ret = -errno;
			break;
		}
		n = read(fd, buf + used, len - 1 - used);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		used += n;
	}
	close(fd);
	if (ret)
		goto cleanup;
	while (used && isspace((unsigned char)buf[used - 1]))
		used--;
	buf[used] = '\0';
cleanup:
	if (ret)
		buf[0] = '\0';
	return ret;
}

static int read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret = path_join(path, sizeof(path), dir, name);

	if (ret) {
		buf[0] = '\0';
		return ret;
	}
	return read_text(path, buf, len);
}

/* Like read_attr, but long values are cut to fit (paths, module parameters). */
static int read_attr_trunc(const char *dir, const char *name, char *out, size_t len)
{
	char buf[ATTR_MAX];
	int ret = read_attr(dir, name, buf, sizeof(buf));

	copy_str(out, len, ret ? "" : buf);
	return ret;
}

static int read_u64(const char *dir, const char *name, uint64_t *out)
{
	char buf[64];
	int ret = read_attr(dir, name, buf, sizeof(buf));

	return ret ? ret : parse_uint(buf, UINT64_MAX, out);
}

/* A number, or a bool parameter's Y/N; -1 when missing or unreadable, as the model promises. */
static int64_t read_s64_or_neg1(const char *dir, const char *name)
{
	char buf[64];
	int64_t v;

	if (read_attr(dir, name, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "Y"))
		return 1;
	if (!strcmp(buf, "N"))
		return 0;
	return parse_int(buf, &v) ? -1 : v;
}

static int read_devnum(const char *dir, unsigned int *maj, unsigned int *min)
{
	const char *why;
	char buf[64];
	int ret = read_attr(dir, "dev", buf, sizeof(buf));

	return ret ? ret : parse_devnum(buf, maj, min, &why);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The last component of where dir/name points: "vbd" for .../bus/xen/drivers/vbd. */
static int link_base(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	int ret = path_join(path, sizeof(path), dir, name);

	if (ret)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	copy_str(out, len, base_name(target));
	return 0;
}

/* Is path strictly below root (both canonical)? */
static bool under_root(const char *root, const char *path)
{
	size_t rlen = strlen(root);

	if (rlen == 1) /* root is "/" */
		return path[0] == '/' && path[1] != '\0';
	return !strncmp(path, root, rlen) && path[rlen] == '/' && path[rlen + 1] != '\0';
}

/* realpath() that refuses to leave the sysfs root. */
static int resolve_in_root(const char *root, const char *path, char *out)
{
	if (!realpath(path, out))
		return errno == ENOTDIR ? -ENOENT : -errno;
	return under_root(root, out) ? 0 : -EXDEV;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* Entry names of dir in name order; a missing dir is an empty list (git keeps no empty dirs). */
static unsigned int list_names(const char *dir, char (*out)[DEVICE_NAME_MAX], unsigned int max)
{
	struct dirent **ents = NULL;
	unsigned int kept = 0;
	int n, i;

	n = scandir(dir, &ents, skip_dots, name_cmp);
	if (n < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (kept < max)
			copy_str(out[kept++], DEVICE_NAME_MAX, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return kept;
}

static unsigned int count_entries(const char *dir)
{
	struct dirent **ents = NULL;
	int n, i;

	n = scandir(dir, &ents, skip_dots, NULL);
	if (n < 0)
		return 0;
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return n;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "none [mq-deadline] kyber bfq" -> "mq-deadline"; an mq queue before 4.11 shows just "none". */
static void parse_scheduler(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close) {
		snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
		return;
	}
	copy_str(out, len, strchr(text, ' ') ? "" : text);
}

const char *device__sysfs_root(void)
{
	const char *env = getenv(SYSFS_ENV);

	return env && *env ? env : "/sys";
}

int device__read_limits(struct device *dev)
{
	struct queue_limits *l = &dev->limits;
	char q[PATH_MAX], buf[256];
	int ret;

	if (!dev->sysfs_path[0])
		return -EINVAL;
	ret = path_join(q, sizeof(q), dev->sysfs_path, "queue");
	if (ret)
		return ret;
	if (!path_exists(dev->sysfs_path, "queue", true))
		return -ENOENT;
	l->max_sectors_kb = read_s64_or_neg1(q, "max_sectors_kb");
	l->max_hw_sectors_kb = read_s64_or_neg1(q, "max_hw_sectors_kb");
	l->max_segments = read_s64_or_neg1(q, "max_segments");
	l->max_segment_size = read_s64_or_neg1(q, "max_segment_size");
	l->nr_requests = read_s64_or_neg1(q, "nr_requests");
	l->read_ahead_kb = read_s64_or_neg1(q, "read_ahead_kb");
	l->logical_block_size = read_s64_or_neg1(q, "logical_block_size");
	l->physical_block_size = read_s64_or_neg1(q, "physical_block_size");
	l->wbt_lat_usec = read_s64_or_neg1(q, "wbt_lat_usec");
	l->nomerges = read_s64_or_neg1(q, "nomerges");
	l->rotational = read_s64_or_neg1(q, "rotational");
	l->scheduler[0] = '\0';
	if (!read_attr(q, "scheduler", buf, sizeof(buf)))
		parse_scheduler(buf, l->scheduler, sizeof(l->scheduler));
	read_attr_trunc(q, "write_cache", l->write_cache, sizeof(l->write_cache));
	return 0;
}

/* blk-mq hardware queues of the disk in dir: how many, and the largest tag count. */
static void read_hw_queues(const char *dir, unsigned int *nr, unsigned int *max_tags)
{
	struct dirent **ents = NULL;
	char mq[PATH_MAX], hctx[PATH_MAX];
	uint64_t tags;
	int n, i;

	*nr = *max_tags = 0;
	if (path_join(mq, sizeof(mq), dir, "mq"))
		return;
	n = scandir(mq, &ents, skip_dots, NULL);
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (all_digits(name) && path_exists(mq, name, true)) {
			(*nr)++;
			if (!path_join(hctx, sizeof(hctx), mq, name) &&
			    !read_u64(hctx, "nr_tags", &tags) && tags > *max_tags &&
			    tags <= UINT32_MAX)
				*max_tags = tags;
		}
		free(ents[i]);
	}
	free(ents);
}

static int part_cmp(const void *a, const void *b)
{
	const struct device_partition *x = a, *y = b;

	return (x->number > y->number) - (x->number < y->number);
}

/* Partitions: subdirectories with a `partition` file (Documentation/ABI/stable/sysfs-block). */
static int read_partitions(struct device *dev)
{
	struct device_partition *parts = NULL, *grown;
	struct dirent **ents = NULL;
	size_t nr = 0, cap = 0;
	char dir[PATH_MAX], holders[PATH_MAX];
	uint64_t num;
	int n, i, ret = 0;

	n = scandir(dev->sysfs_path, &ents, skip_dots, NULL);
	for (i = 0; i < n; i++) {
		struct device_partition *p;
		const char *name = ents[i]->d_name;

		if (ret || path_join(dir, sizeof(dir), dev->sysfs_path, name) ||
		    !path_exists(dir, "partition", false))
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
		p = &parts[nr];
		memset(p, 0, sizeof(*p));
		copy_str(p->name, sizeof(p->name), name);
		if (read_devnum(dir, &p->major, &p->minor) || read_u64(dir, "start", &p->start) ||
		    read_u64(dir, "size", &p->sectors) || read_u64(dir, "partition", &num) ||
		    num > UINT32_MAX)
			continue; /* half-written or foreign entry: not a partition we can use */
		p->number = num;
		if (!path_join(holders, sizeof(holders), dir, "holders"))
			p->nr_holders = count_entries(holders);
		nr++;
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	if (ret || !nr)
		goto cleanup;
	qsort(parts, nr, sizeof(*parts), part_cmp);
	dev->nr_partitions = nr < DEVICE_MAX_PARTITIONS ? nr : DEVICE_MAX_PARTITIONS;
	memcpy(dev->partitions, parts, dev->nr_partitions * sizeof(*parts));
cleanup:
	free(parts);
	return ret;
}

/* <root>/module/NAME/parameters. */
static int module_params_dir(const char *root, const char *module, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/module/%s/parameters", root, module);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void read_module_params(const char *root, struct device *dev)
{
	struct dirent **ents = NULL;
	char dir[PATH_MAX];
	int n, i;

	if (!dev->module[0] || module_params_dir(root, dev->module, dir, sizeof(dir)))
		return;
	n = scandir(dir, &ents, skip_dots, name_cmp);
	for (i = 0; i < n; i++) {
		struct module_param *p = &dev->module_params[dev->nr_module_params];

		/* Write-only or failing parameters are not worth a hole in the list. */
		if (dev->nr_module_params < DEVICE_MAX_PARAMS &&
		    !read_attr_trunc(dir, ents[i]->d_name, p->value, sizeof(p->value))) {
			copy_str(p->name, sizeof(p->name), ents[i]->d_name);
			dev->nr_module_params++;
		}
		free(ents[i]);
	}
	free(ents);
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
		{ "vbd", "xen_blkfront" },    { "sd", "sd_mod" }, { "sr", "sr_mod" },
		{ "device-mapper", "dm_mod" }, { "md", "md_mod" }, { "mmcblk", "mmc_block" },
	};
	char link[64];
	size_t i;

	for (i = 0; i < sizeof(driver_links) / sizeof(driver_links[0]) && !dev->driver[0]; i++) {
		if (link_base(path, driver_links[i], dev->driver, sizeof(dev->driver)))
			continue;
		/* Built-in drivers may have no module link; the fallbacks below cover them. */
		snprintf(link, sizeof(link), "%s/module", driver_links[i]);
		if (link_base(path, link, dev->module, sizeof(dev->module)))
			dev->module[0] = '\0';
	}
	/* Virtual disks have no device/ at all. */
	if (!dev->driver[0]) {
		if (path_exists(path, "loop", true) || dev->major == LOOP_MAJOR)
			snprintf(dev->driver, sizeof(dev->driver), "loop");
		else if (path_exists(path, "dm", true))
			snprintf(dev->driver, sizeof(dev->driver), "device-mapper");
		else if (path_exists(path, "md", true))
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
	x->max_ring_page_order = -1;
	x->max_queues = -1;
	x->feature_persistent = -1;
	snprintf(x->param_name, sizeof(x->param_name), "xen_blkfront.max_indirect_segments");
	if (!module_params_dir(root, "xen_blkfront", dir, sizeof(dir))) {
		if (path_exists(dir, "max_indirect_segments", false)) {
			x->max_indirect_segments = read_s64_or_neg1(dir, "max_indirect_segments");
		} else if (path_exists(dir, "max", false)) {
			x->max_indirect_segments = read_s64_or_neg1(dir, "max");
			x->param_is_old_name = true;
			snprintf(x->param_name, sizeof(x->param_name), "xen_blkfront.max");
		}
		x->max_ring_page_order = read_s64_or_neg1(dir, "max_ring_page_order");
		x->max_queues = read_s64_or_neg1(dir, "max_queues");
		x->feature_persistent = read_s64_or_neg1(dir, "feature_persistent");
	}
	x->segments = dev->limits.max_segments;
	x->indirect_descriptors = x->segments > XEN_DIRECT_SEGMENTS;
	if (x->segments < 0 ||
	    __builtin_mul_overflow(x->segments, XEN_SEGMENT_BYTES, &x->max_request_bytes))
		x->max_request_bytes = -1;
	x->backend_limited = x->segments >= 0 && x->max_indirect_segments > x->segments;
}

static void read_driver_params(const char *root, struct device *dev)
{
	char dir[PATH_MAX];
	bool have_dir;

	if (!strcmp(dev->driver, "virtio_blk")) {
		struct virtio_blk_info *v = &dev->virtio_blk;

		have_dir = !module_params_dir(root, "virtio_blk", dir, sizeof(dir));
		v->present = true;
		v->queue_depth_param = have_dir ? read_s64_or_neg1(dir, "queue_depth") : -1;
		/* drivers/block/virtio_blk.c: tag_set.queue_depth, per hardware queue. */
		v->queue_depth = dev->max_tags ? (int64_t)dev->max_tags : -1;
		v->num_request_queues =
			have_dir ? read_s64_or_neg1(dir, "num_request_queues") : -1;
		v->poll_queues = have_dir ? read_s64_or_neg1(dir, "poll_queues") : -1;
		v->host_max_segments = dev->limits.max_segments;
	} else if (!strcmp(dev->driver, "nvme")) {
		struct nvme_info *nv = &dev->nvme;

		have_dir = !module_params_dir(root, "nvme", dir, sizeof(dir));
		nv->present = true;
		nv->io_queue_depth = have_dir ? read_s64_or_neg1(dir, "io_queue_depth") : -1;
		nv->poll_queues = have_dir ? read_s64_or_neg1(dir, "poll_queues") : -1;
		nv->write_queues = have_dir ? read_s64_or_neg1(dir, "write_queues") : -1;
	}
}

static void read_stacking(struct device *dev)
{
	char dir[PATH_MAX];

	if (!path_join(dir, sizeof(dir), dev->sysfs_path, "slaves"))
		dev->nr_slaves = list_names(dir, dev->slaves, DEVICE_MAX_STACK);
	if (!path_join(dir, sizeof(dir), dev->sysfs_path, "holders"))
		dev->nr_holders = list_names(dir, dev->holders, DEVICE_MAX_STACK);
	if (!path_join(dir, sizeof(dir), dev->sysfs_path, "dm"))
		read_attr_trunc(dir, "name", dev->dm_name, sizeof(dev->dm_name));
	if (!path_join(dir, sizeof(dir), dev->sysfs_path, "md"))
		read_attr_trunc(dir, "level", dev->md_level, sizeof(dev->md_level));
	if (path_exists(dev->sysfs_path, "loop", true) &&
	    !path_join(dir, sizeof(dir), dev->sysfs_path, "loop")) {
		dev->loop.present = true;
		read_attr_trunc(dir, "backing_file", dev->loop.backing_file,
				sizeof(dev->loop.backing_file));
		dev->loop.dio = read_s64_or_neg1(dir, "dio");
	}
	if (!path_join(dir, sizeof(dir), dev->sysfs_path, "device"))
		dev->scsi_queue_depth = read_s64_or_neg1(dir, "queue_depth");
	else
		dev->scsi_queue_depth = -1;
}

/* Does dir hold an entry named like a path of head nvme<S>n<N>, i.e. nvme<S>c<C>n<N>? */
static bool is_path_of(const char *name, unsigned int subsys, unsigned int ns)
{
	unsigned int s, c, n;
	int end = 0;

	return sscanf(name, "nvme%uc%un%u%n", &s, &c, &n, &end) == 3 && !name[end] &&
	       s == subsys && n == ns;
}

static int lookup(const char *root, const char *sub, const char *key, char *out);

/*
 * The path disks of an NVMe multipath head: multipath/ lists them where the kernel has
 * it (Debian's 7.3, not 5.10, 6.1 or 6.12, as `make vmtest` shows); otherwise they are
 * the hidden disks named nvme<S>c<C>n<N> beside the head nvme<S>n<N>, whose device/ is
 * its subsystem (drivers/nvme/host/multipath.c, nvme_mpath_set_disk_name()).
 */
static void read_paths(const char *root, struct device *dev)
{
	char names[DEVICE_MAX_PATHS][DEVICE_NAME_MAX], dir[PATH_MAX], pdir[PATH_MAX];
	struct dirent **ents = NULL;
	unsigned int subsys, ns, nr = 0, i;
	int end = 0, n, k;

	if (path_exists(dev->sysfs_path, "multipath", true) &&
	    !path_join(dir, sizeof(dir), dev->sysfs_path, "multipath")) {
		nr = list_names(dir, names, DEVICE_MAX_PATHS);
	} else if (sscanf(dev->name, "nvme%un%u%n", &subsys, &ns, &end) == 2 &&
		   !dev->name[end] && strstr(dev->sysfs_path, "/nvme-subsystem/") &&
		   snprintf(dir, sizeof(dir), "%s/class/block", root) < (int)sizeof(dir)) {
		n = scandir(dir, &ents, skip_dots, name_cmp);
		for (k = 0; k < n; k++) {
			if (nr < DEVICE_MAX_PATHS && is_path_of(ents[k]->d_name, subsys, ns))
				copy_str(names[nr++], DEVICE_NAME_MAX, ents[k]->d_name);
			free(ents[k]);
		}
		free(ents);
	}
	for (i = 0; i < nr; i++) {
		struct device_path *p = &dev->paths[dev->nr_paths];
		char ctrl[PATH_MAX];

		if (lookup(root, "class/block", names[i], pdir))
			continue;
		copy_str(p->name, sizeof(p->name), names[i]);
		read_hw_queues(pdir, &p->nr_hw_queues, &p->max_tags);
		if (!link_base(pdir, "device", p->controller, sizeof(p->controller)) &&
		    !path_join(ctrl, sizeof(ctrl), pdir, "device"))
			read_attr_trunc(ctrl, "state", p->state, sizeof(p->state));
		if (!dev->nr_paths)
			detect_driver(dev, pdir);
		if (p->nr_hw_queues > dev->nr_hw_queues)
			dev->nr_hw_queues = p->nr_hw_queues;
		if (p->max_tags > dev->max_tags)
			dev->max_tags = p->max_tags;
		dev->nr_paths++;
	}
}

/* Fill the model from a resolved directory of a disk or partition. */
static int read_device(const char *root, const char *dir, struct device *dev, char *err,
		       size_t errlen)
{
	char disk[PATH_MAX];
	char *slash;
	int ret;

	copy_str(disk, sizeof(disk), dir);
	if (path_exists(dir, "partition", false)) {
		copy_str(dev->part_name, sizeof(dev->part_name), base_name(dir));
		ret = read_devnum(dir, &dev->part_major, &dev->part_minor);
		if (!ret)
			ret = read_u64(dir, "start", &dev->part_start);
		if (!ret)
			ret = read_u64(dir, "size", &dev->part_sectors);
		if (ret) {
			set_err(err, errlen, "%s: cannot read its dev/start/size: %s", dir,
				strerror(-ret));
			return ret;
		}
		/* A partition's directory sits inside its disk's, within the root already. */
		slash = strrchr(disk, '/');
		if (slash)
			*slash = '\0';
		if (!slash || !under_root(root, disk) || !path_exists(disk, "dev", false)) {
			set_err(err, errlen, "partition %s has no parent disk", dev->part_name);
			return -ENOENT;
		}
	}
	if (strlen(disk) >= sizeof(dev->sysfs_path) ||
	    strlen(base_name(disk)) >= DEVICE_NAME_MAX) {
		set_err(err, errlen, "%s: path too long", disk);
		return -ENAMETOOLONG;
	}
	copy_str(dev->sysfs_path, sizeof(dev->sysfs_path), disk);
	copy_str(dev->name, sizeof(dev->name), base_name(disk));
	dev->hidden = !path_exists(disk, "dev", false);
	ret = dev->hidden ? 0 : read_devnum(disk, &dev->major, &dev->minor);
	if (!ret)
		ret = read_u64(disk, "size", &dev->size_sectors);
	if (ret) {
		set_err(err, errlen, "%s: cannot read dev/size: %s", disk, strerror(-ret));
		return ret;
	}
	ret = device__read_limits(dev);
	if (ret) {
		set_err(err, errlen, "%s: cannot read queue limits: %s", disk, strerror(-ret));
		return ret;
	}
	read_hw_queues(disk, &dev->nr_hw_queues, &dev->max_tags);
	read_paths(root, dev);
	/* Before 5.0 single-queue disks had no mq/ but a real elevator. */
	dev->bio_based = dev->nr_hw_queues == 0 && !dev->nr_paths &&
			 (!dev->limits.scheduler[0] || !strcmp(dev->limits.scheduler, "none"));
	if (!dev->driver[0])
		detect_driver(dev, disk);
	read_stacking(dev);
	ret = read_partitions(dev);
	if (ret) {
		set_err(err, errlen, "%s: cannot list partitions: %s", disk, strerror(-ret));
		return ret;
	}
	read_module_params(root, dev);
	if (dev->major == XENVBD_MAJOR || !strcmp(dev->driver, "vbd"))
		read_xen(root, dev);
	read_driver_params(root, dev);
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

/* <root>/class/block/NAME or <root>/dev/block/MAJ:MIN -> the real directory, within root. */
static int lookup(const char *root, const char *sub, const char *key, char *out)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s/%s", root, sub, key) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return resolve_in_root(root, path, out);
}

/* Turn the user's DEV into a resolved sysfs directory; err says why not. */
static int spec_to_dir(const char *root, const char *spec, char *dir, char *err, size_t errlen)
{
	unsigned int maj, min;
	const char *why, *name = spec;
	char key[32];
	struct stat st;
	int ret;

	if (!*spec) {
		set_err(err, errlen, "empty device name");
		return -EINVAL;
	}
	if (strchr(spec, '/')) {
		if (!stat(spec, &st)) {
			if (!S_ISBLK(st.st_mode)) {
				set_err(err, errlen, "not a block device: %s", spec);
				return -ENOTBLK;
			}
			snprintf(key, sizeof(key), "%u:%u", major(st.st_rdev), minor(st.st_rdev));
			ret = lookup(root, "dev/block", key, dir);
			if (ret != -ENOENT)
				return ret;
			/* A fixture root need not know this host's numbers; try the name. */
			name = base_name(spec);
		} else if (errno == ENOENT && !strncmp(spec, "/dev/", 5) &&
			   !strchr(spec + 5, '/')) {
			name = spec + 5;
		} else if (errno == ENOENT) {
			return -ENOENT;
		} else {
			ret = -errno;
			set_err(err, errlen, "%s: %s", spec, strerror(errno));
			return ret;
		}
	} else if (strchr(spec, ':')) {
		ret = parse_devnum(spec, &maj, &min, &why);
		if (ret) {
			set_err(err, errlen, "invalid MAJ:MIN \"%s\": %s", spec, why);
			return ret;
		}
		snprintf(key, sizeof(key), "%u:%u", maj, min);
		return lookup(root, "dev/block", key, dir);
	}
	if (!valid_name(name)) {
		set_err(err, errlen, "invalid device name \"%s\"", spec);
		return -EINVAL;
	}
	if (strlen(name) >= DEVICE_NAME_MAX) {
		set_err(err, errlen, "device name too long: %s", spec);
		return -EINVAL;
	}
	return lookup(root, "class/block", name, dir);
}

/* block/genhd.c: GENHD_FL_HIDDEN disks (NVMe paths) show "hidden" as 1. */
static bool hidden_disk(const char *dir)
{
	char buf[16];

	if (!read_attr(dir, "hidden", buf, sizeof(buf)))
		return !strcmp(buf, "1");
	return false;
}

int device__resolve(const char *spec, struct device *dev, char *err, size_t errlen)
{
	char root[PATH_MAX], dir[PATH_MAX];
	const char *root_in = device__sysfs_root();
	int ret;

	memset(dev, 0, sizeof(*dev));
	set_err(err, errlen, "%s", "");
	if (!spec) {
		set_err(err, errlen, "no device given");
		return -EINVAL;
	}
	if (!realpath(root_in, root)) {
		ret = -errno;
		set_err(err, errlen, "sysfs root %s: %s", root_in, strerror(errno));
		return ret;
	}
	ret = spec_to_dir(root, spec, dir, err, errlen);
	/* Hidden disks (NVMe paths) have no dev; everything else without one is no disk. */
	if (ret == -ENOENT ||
	    (!ret && !path_exists(dir, "dev", false) && !hidden_disk(dir))) {
		set_err(err, errlen, "no such block device: %s", spec);
		ret = -ENOENT;
		goto cleanup;
	}
	if (ret == -EXDEV) {
		set_err(err, errlen, "%s: its sysfs link leads outside %s", spec, root);
		goto cleanup;
	}
	if (ret) {
		if (!err || !err[0])
			set_err(err, errlen, "%s: %s", spec, strerror(-ret));
		goto cleanup;
	}
	ret = read_device(root, dir, dev, err, errlen);
cleanup:
	if (ret)
		memset(dev, 0, sizeof(*dev));
	return ret;
}

static int queue_attr_path(const struct device *dev, const char *attr, char *path, size_t len)
{
	if (!dev->sysfs_path[0] || !attr || !*attr || strchr(attr, '/') || !strcmp(attr, ".") ||
	    !strcmp(attr, ".."))
		return -EINVAL;
	if (snprintf(path, len, "%s/queue/%s", dev->sysfs_path, attr) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int device__disk_attr(const struct device *dev, const char *attr, char *buf, size_t len)
{
	if (!dev->sysfs_path[0] || !attr || !*attr || strchr(attr, '/'))
		return -EINVAL;
	return read_attr(dev->sysfs_path, attr, buf, len);
}

int device__queue_get(const struct device *dev, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = queue_attr_path(dev, attr, path, sizeof(path));
	if (ret)
		return ret;
	return read_text(path, buf, len);
}

int device__queue_set(const struct device *dev, const char *attr, const char *value)
{
	char path[PATH_MAX];
	char *line = NULL;
	int fd = -1, ret, n;
	ssize_t w;

	ret = queue_attr_path(dev, attr, path, sizeof(path));
	if (ret)
		return ret;
	if (!value || strchr(value, '\n'))
		return -EINVAL;
	n = asprintf(&line, "%s\n", value);
	if (n < 0) {
		line = NULL;
		ret = -ENOMEM;
		goto cleanup;
	}
	/* No O_CREAT: a missing attribute is an error, not a new file. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto cleanup;
	}
	/* sysfs takes a value in one write(); its store method's error comes back here. */
	w = write(fd, line, n);
	if (w < 0)
		ret = -errno;
	else if (w != n)
		ret = -EIO;
cleanup:
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	free(line);
	return ret;
}

int64_t device__max_request_bytes(const struct device *dev, unsigned int *limits)
{
	const struct queue_limits *l = &dev->limits;
	int64_t by_sectors = -1, by_segments = -1;
	unsigned int which = DEVICE_LIMIT_NONE;
	int64_t best = -1;

	if (l->max_sectors_kb >= 0 && __builtin_mul_overflow(l->max_sectors_kb, 1024, &by_sectors))
		by_sectors = INT64_MAX;
	if (l->max_segments > 0 && l->max_segment_size > 0 &&
	    __builtin_mul_overflow(l->max_segments, l->max_segment_size, &by_segments))
		by_segments = INT64_MAX;
	if (by_sectors >= 0 && (by_segments < 0 || by_sectors <= by_segments)) {
		best = by_sectors;
		which |= DEVICE_LIMIT_MAX_SECTORS;
	}
	if (by_segments >= 0 && (by_sectors < 0 || by_segments <= by_sectors)) {
		best = by_segments;
		which |= DEVICE_LIMIT_MAX_SEGMENTS;
	}
	if (limits)
		*limits = which;
	return best;
}

const char *device__limit_name(unsigned int limits)
{
	switch (limits & (DEVICE_LIMIT_MAX_SECTORS | DEVICE_LIMIT_MAX_SEGMENTS)) {
	case DEVICE_LIMIT_MAX_SECTORS:
		return "max_sectors_kb";
	case DEVICE_LIMIT_MAX_SEGMENTS:
		return "max_segments";
	case DEVICE_LIMIT_MAX_SECTORS | DEVICE_LIMIT_MAX_SEGMENTS:
		return "max_sectors_kb+max_segments";
	}
	return "";
}
