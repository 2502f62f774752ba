// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Stack discovery: see stack.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/dm-ioctl.h>
#include "base/diag.h"
#include "disk/stack.h"

static void kind(const struct device *d, bool live, char *buf, size_t len);
static void role(const struct stack *st, const struct layer *l, const struct device *top, bool live,
		 char *buf, size_t len);

static void note(struct stack *st, const char *fmt, const char *a, const char *b)
{
	size_t used = strlen(st->note);

	if (used + 2 < sizeof(st->note))
		snprintf(st->note + used, sizeof(st->note) - used, "%s", used ? "; " : "");
	used = strlen(st->note);
	snprintf(st->note + used, sizeof(st->note) - used, fmt, a, b);
}

/* Where D sits in the list, or -1: the same whole disk (matched by name: hidden disks have no
 * dev_t). */
static int find(const struct stack *st, const struct device *top, const struct device *d)
{
	size_t i;

	if (!strcmp(top->name, d->name))
		return -2;
	for (i = 0; i < st->n; i++)
		if (!strcmp(st->layers[i].dev.name, d->name))
			return (int)i;
	return -1;
}

/*
 * Add D under layer ABOVE (-1: the top). A disk already listed stays where it is first
 * reached; reached through another partition, it is traced whole from then on.
 */
static int add(struct stack *st, const struct device *top, const struct device *d, int above,
	       unsigned int level, enum layer_link link)
{
	int at = find(st, top, d);
	struct layer *l;

	if (at == -2)
		return 0; /* a cycle back to the top cannot happen in a sane stack: ignore it */
	if (at >= 0) {
		struct device *have = &st->layers[at].dev;

		if (strcmp(have->part_name, d->part_name)) {
			note(st, "%s is reached through more than one partition: traced whole%s",
			     have->name, "");
			have->part_name[0] = '\0';
			have->part_start = have->part_sectors = 0;
		}
		return 0;
	}
	if (st->n >= STACK_MAX_LAYERS) {
		note(st, "more than %s layers: %s not traced", "63", d->name);
		return 0;
	}
	l = &st->layers[st->n++];
	l->dev = *d;
	l->above = above;
	l->level = level;
	l->link = link;
	return 0;
}

/* The disk under a loop device's backing file, by the file system's st_dev; 0 or -errno. */
static int backing_disk(const char *root, const struct device *loop, struct device *out,
			struct stack *st)
{
	char file[sizeof(loop->loop.backing_file)], spec[32];
	struct diag d = {};
	char *deleted;
	struct stat sb;

	snprintf(file, sizeof(file), "%s", loop->loop.backing_file);
	deleted = strstr(file, " (deleted)");
	if (deleted)
		*deleted = '\0';
	if (strcmp(root, "/sys") || !file[0])
		return -ENOENT;
	if (stat(file, &sb)) {
		note(st, "%s: cannot follow its backing file %s", loop->name, file);
		return -errno;
	}
	if (!major(sb.st_dev)) {
		note(st,
		     "%s: its backing file %s is on a file system without a block device "
		     "(tmpfs, btrfs, zfs, NFS...)",
		     loop->name, file);
		return -ENODEV;
	}
	snprintf(spec, sizeof(spec), "%u:%u", major(sb.st_dev), minor(sb.st_dev));
	if (device__resolve(root, spec, out, &d)) {
		note(st, "%s: %s", loop->name, d.msg);
		return -ENODEV;
	}
	return 0;
}

/* The devices right under D: its slaves, or a loop device's backing disk. */
static int expand(const char *root, struct stack *st, const struct device *top,
		  const struct device *d, int at, unsigned int level, struct device *scratch)
{
	unsigned int i;

	if (level > STACK_MAX_LEVELS) {
		note(st, "deeper than %s levels under %s: not followed", "8", d->name);
		return 0;
	}
	for (i = 0; i < d->nr_slaves; i++) {
		struct diag why = {};

		if (device__resolve(root, d->slaves[i], scratch, &why)) {
			note(st, "%s: %s", d->name, why.msg);
			continue;
		}
		add(st, top, scratch, at, level, LAYER_SLAVE);
	}
	if (d->loop.present && !backing_disk(root, d, scratch, st))
		add(st, top, scratch, at, level, LAYER_BACKING_FILE);
	return 0;
}

int stack__discover(const char *sysfs_root, const struct device *top, struct stack *st,
		    struct diag *d)
{
	struct device *scratch = malloc(sizeof(*scratch));
	bool live = !strcmp(sysfs_root, "/sys");
	size_t next;

	memset(st, 0, sizeof(*st));
	st->layers = calloc(STACK_MAX_LAYERS, sizeof(*st->layers));
	if (!st->layers || !scratch) {
		free(scratch);
		stack__free(st);
		return diag__fail(d, -ENOMEM, "out of memory");
	}
	expand(sysfs_root, st, top, top, -1, 1, scratch);
	/* Breadth first: the list grows behind the cursor. */
	for (next = 0; next < st->n; next++)
		expand(sysfs_root, st, top, &st->layers[next].dev, (int)next,
		       st->layers[next].level + 1, scratch);
	free(scratch);
	if (!st->n)
		return 0;
	kind(top, live, st->top_kind, sizeof(st->top_kind));
	for (next = 0; next < st->n; next++)
		role(st, &st->layers[next], top, live, st->layers[next].role,
		     sizeof(st->layers[next].role));
	return 0;
}

void stack__free(struct stack *st)
{
	free(st->layers);
	st->layers = NULL;
	st->n = 0;
}

/*
 * The target types of a dm device, from the kernel's DM_TABLE_STATUS ioctl without
 * DM_STATUS_TABLE_FLAG: the status lines, which never hold a key (the table of a crypt
 * target would). Written against the uapi rather than libdevmapper, which would bring
 * udev synchronisation and a library for one read. "" when it cannot be asked.
 */
static void dm_targets(const struct device *d, char *out, size_t len)
{
	struct {
		struct dm_ioctl io;
		char data[16384];
	} req;
	unsigned int i, same = 0;
	char last[DM_MAX_TYPE_NAME] = "";
	size_t used = 0, off;
	int fd;

	out[0] = '\0';
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	memset(&req, 0, sizeof(req));
	req.io.version[0] = DM_VERSION_MAJOR;
	req.io.data_size = sizeof(req);
	req.io.data_start = sizeof(req.io);
	snprintf(req.io.name, sizeof(req.io.name), "%s", d->dm_name);
	if (ioctl(fd, DM_TABLE_STATUS, &req) || (req.io.flags & DM_BUFFER_FULL_FLAG)) {
		close(fd);
		return;
	}
	close(fd);
	for (i = 0, off = req.io.data_start; i < req.io.target_count; i++) {
		const struct dm_target_spec *t = (const void *)((const char *)&req + off);

		if (off + sizeof(*t) > sizeof(req))
			break;
		if (!i || strncmp(last, t->target_type, sizeof(last)))
			same = 0;
		if (!same && used < len)
			used += snprintf(out + used, len - used, "%s%.16s", i ? "+" : "",
					 t->target_type);
		same++;
		snprintf(last, sizeof(last), "%.15s", t->target_type);
		off = req.io.data_start + t->next;
		if (!t->next)
			break;
	}
	if (req.io.target_count > 1 && used < len)
		snprintf(out + used, len - used, " (%u targets)", req.io.target_count);
}

/*
 * What a device is, in words: "dm-crypt", "md raid1", "loop", or its driver. Only a live
 * system (sysfs at /sys) is asked for dm tables: a fixture tree has no kernel behind it.
 */
static void kind(const struct device *d, bool live, char *buf, size_t len)
{
	char targets[96];

	if (d->dm_name[0]) {
		char uuid[160] = "";

		targets[0] = '\0';
		if (live)
			dm_targets(d, targets, sizeof(targets));
		device__disk_attr(d, "dm/uuid", uuid, sizeof(uuid));
		/* The uuid says who made it: cryptsetup (CRYPT-LUKS2-...), LVM (LVM-...). */
		snprintf(buf, len, "%s%s%s", targets[0] ? "dm-" : "device-mapper", targets,
			 !strncmp(uuid, "CRYPT-LUKS", 10) ? " (LUKS)"
			 : !strncmp(uuid, "LVM-", 4)	  ? " (LVM)"
							  : "");
	} else if (d->md_level[0]) {
		char chunk[32] = "";
		unsigned long long bytes = 0;

		if (!device__disk_attr(d, "md/chunk_size", chunk, sizeof(chunk)))
			bytes = strtoull(chunk, NULL, 10);
		if (bytes)
			snprintf(buf, len, "md %s, chunk %llu KiB", d->md_level, bytes / 1024);
		else
			snprintf(buf, len, "md %s", d->md_level);
	} else if (d->loop.present) {
		snprintf(buf, len, "loop of %.*s", (int)(len > 9 ? len - 9 : 0),
			 d->loop.backing_file);
	} else {
		snprintf(buf, len, "disk (%s)", d->driver[0] ? d->driver : "?");
	}
}

static void role(const struct stack *st, const struct layer *l, const struct device *top, bool live,
		 char *buf, size_t len)
{
	const struct device *up = l->above < 0 ? top : &st->layers[l->above].dev;
	char what[128];
	size_t used;

	kind(&l->dev, live, what, sizeof(what));
	used = (size_t)snprintf(buf, len, "%s", what);
	if (used >= len)
		return;
	if (l->link == LAYER_BACKING_FILE)
		snprintf(buf + used, len - used, ", holds %s's backing file", up->name);
	else if (up->md_level[0])
		snprintf(buf + used, len - used, ", %s member", up->md_level);
}
