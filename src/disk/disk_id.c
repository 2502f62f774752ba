// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A disk's stable identity for udev rules; see disk_id.h. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "disk/disk_id.h"
#include "base/sysfs.h"

/* Where each identity is read: a file below the disk's directory, or a link's name. */
static const struct {
	const char *key, *file, *what;
} sources[] = {
	{ "ATTR{wwid}", "wwid", "WWID" },
	{ "ATTRS{wwid}", "device/wwid", "WWID" },
	{ "ATTR{serial}", "serial", "serial" },
	{ "ATTRS{serial}", "device/serial", "serial" },
	{ "KERNELS", NULL, "xen vbd" },
	{ "ATTR{loop/backing_file}", "loop/backing_file", "loop backing file" },
};

bool disk_id__safe(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e || strchr("*?[]|\"\\", *s))
			return false;
	return true;
}

bool disk_id__known_key(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (!strcmp(sources[i].key, key))
			return true;
	return false;
}

/* The value of source i for d; 0 when it has one a rule can match. */
static int read_source(const struct device *d, size_t i, char *buf, size_t len)
{
	char dir[PATH_MAX];

	if (!sources[i].file) {
		/* xen-blkfront's parent on the xenbus: vbd-<virtual device number>. */
		if (!d->xen.present || sysfs__link_base(d->sysfs_path, "device", buf, len) ||
		    strncmp(buf, "vbd-", 4))
			return -ENOENT;
		return 0;
	}
	if (!strcmp(sources[i].key, "ATTRS{serial}") && d->nvme.present)
		return -ENOENT;
	if (snprintf(dir, sizeof(dir), "%s/%s", d->sysfs_path, sources[i].file) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	*strrchr(dir, '/') = '\0';
	if (sysfs__read_attr(dir, sysfs__base_name(sources[i].file), buf, len))
		return -ENOENT;
	return disk_id__safe(buf) ? 0 : -ERANGE;
}

int disk_id__of(const struct device *dev, struct disk_id *id, struct diag *d)
{
	bool unsafe = false;
	size_t i;
	int ret;

	memset(id, 0, sizeof(*id));
	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		ret = read_source(dev, i, id->value, sizeof(id->value));
		if (!ret) {
			snprintf(id->key, sizeof(id->key), "%s", sources[i].key);
			snprintf(id->what, sizeof(id->what), "%s", sources[i].what);
			return 0;
		}
		unsafe |= ret == -ERANGE;
	}
	memset(id, 0, sizeof(*id));
	return diag__usage_err(d, -ENOENT,
			       "%s has no WWID, serial, xen vbd or loop backing file%s: a udev "
			       "rule could only match its kernel name, which another disk may get",
			       dev->name, unsafe ? " a udev rule can match exactly" : "");
}

void disk_id__match(const struct disk_id *id, char *buf, size_t len)
{
	snprintf(buf, len, "%s==\"%s\"", id->key, id->value);
}

/*
 * FNV-1a, 64 bits, of the key and the value: a name for files, not a secret; two
 * identities that share one are told apart by apply's manifest, which refuses.
 */
static uint64_t identity_hash(const struct disk_id *id)
{
	const char *parts[] = { id->key, id->value };
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	const char *c;

	for (i = 0; i < 2; i++)
		for (c = parts[i];; c++) {
			h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
			if (!*c)
				break;
		}
	return h;
}

void disk_id__slug(const struct disk_id *id, char *buf, size_t len)
{
	const char *kind = !strcmp(id->key, "KERNELS") ? "xen"
			   : strstr(id->key, "wwid")   ? "wwid"
			   : strstr(id->key, "serial") ? "serial"
						       : "loop";
	const char *v = id->value;
	size_t n, end;

	if (len < 2 * DISK_ID_HASH_LEN) {
		if (len)
			buf[0] = '\0';
		return;
	}
	/* A backing file by its name: /dev/shm/disk.img -> loop-disk.img */
	if (!strcmp(kind, "loop") && strrchr(v, '/'))
		v = strrchr(v, '/') + 1;
	n = snprintf(buf, len, "%s-", kind);
	/* Room for "-" and the hash of the whole identity, which tells same names apart. */
	end = len - DISK_ID_HASH_LEN - 2;
	for (; *v && n < end; v++, n++)
		buf[n] = (strchr("._-", *v) || (*v >= '0' && *v <= '9') ||
			  (*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z'))
				 ? *v
				 : '_';
	snprintf(buf + n, len - n, "-%016llx", (unsigned long long)identity_hash(id));
}

int disk_id__find(const char *sysfs_root, const struct disk_id *id, struct device *out)
{
	struct device *d = malloc(sizeof(*d));
	struct dirent **ents;
	struct disk_id other;
	char dir[PATH_MAX];
	int n, i, ret = -ENOENT;

	if (!d)
		return -ENOMEM;
	if (snprintf(dir, sizeof(dir), "%s/class/block", sysfs_root) >= (int)sizeof(dir)) {
		free(d);
		return -ENAMETOOLONG;
	}
	n = sysfs__scan(dir, &ents);
	for (i = 0; i < n && ret == -ENOENT; i++) {
		if (device__resolve(sysfs_root, ents[i]->d_name, d, NULL) || d->part_name[0] ||
		    disk_id__of(d, &other, NULL))
			continue;
		if (!strcmp(other.key, id->key) && !strcmp(other.value, id->value)) {
			*out = *d;
			ret = 0;
		}
	}
	sysfs__scan_free(ents, n);
	free(d);
	return n < 0 ? n : ret;
}
