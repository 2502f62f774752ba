// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A disk's request queue as sysfs shows it (Documentation/ABI/stable/sysfs-block): the
 * limits in queue/, one queue/ attribute read or written, the blk-mq hardware queues in
 * mq/, and the largest request the limits allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "disk/device_read.h"
#include "base/parse.h"
#include "base/sysfs.h"
#include "base/text.h"

void device__active_scheduler(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close) {
		snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
		return;
	}
	text__copy(out, len, strchr(text, ' ') ? "" : text);
}

int device__read_limits(struct device *dev)
{
	struct queue_limits *l = &dev->limits;
	char q[PATH_MAX], buf[256];
	int ret;

	if (!dev->sysfs_path[0])
		return -EINVAL;
	ret = sysfs__join(q, sizeof(q), dev->sysfs_path, "queue");
	if (ret)
		return ret;
	if (!sysfs__exists(dev->sysfs_path, "queue", true))
		return -ENOENT;
	l->max_sectors_kb = sysfs__read_s64_or_neg1(q, "max_sectors_kb");
	l->max_hw_sectors_kb = sysfs__read_s64_or_neg1(q, "max_hw_sectors_kb");
	l->max_segments = sysfs__read_s64_or_neg1(q, "max_segments");
	l->max_segment_size = sysfs__read_s64_or_neg1(q, "max_segment_size");
	l->nr_requests = sysfs__read_s64_or_neg1(q, "nr_requests");
	l->read_ahead_kb = sysfs__read_s64_or_neg1(q, "read_ahead_kb");
	l->logical_block_size = sysfs__read_s64_or_neg1(q, "logical_block_size");
	l->physical_block_size = sysfs__read_s64_or_neg1(q, "physical_block_size");
	l->wbt_lat_usec = sysfs__read_s64_or_neg1(q, "wbt_lat_usec");
	l->nomerges = sysfs__read_s64_or_neg1(q, "nomerges");
	l->rotational = sysfs__read_s64_or_neg1(q, "rotational");
	l->scheduler[0] = '\0';
	if (!sysfs__read_attr(q, "scheduler", buf, sizeof(buf)))
		device__active_scheduler(buf, l->scheduler, sizeof(l->scheduler));
	sysfs__read_attr_trunc(q, "write_cache", l->write_cache, sizeof(l->write_cache));
	return 0;
}

void device_queue__read_hw_queues(const char *dir, unsigned int *nr, unsigned int *max_tags)
{
	struct dirent **ents;
	char mq[PATH_MAX], hctx[PATH_MAX];
	uint64_t index, tags;
	int n, i;

	*nr = *max_tags = 0;
	if (sysfs__join(mq, sizeof(mq), dir, "mq"))
		return;
	n = sysfs__scan(mq, &ents);
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		/* mq/0, mq/1, ...: one directory per hardware queue. */
		if (parse_uint(name, UINT64_MAX, &index) || !sysfs__exists(mq, name, true))
			continue;
		(*nr)++;
		if (!sysfs__join(hctx, sizeof(hctx), mq, name) &&
		    !sysfs__read_u64(hctx, "nr_tags", &tags) && tags > *max_tags &&
		    tags <= UINT32_MAX)
			*max_tags = tags;
	}
	sysfs__scan_free(ents, n);
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

int device__queue_get(const struct device *dev, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret;

	ret = queue_attr_path(dev, attr, path, sizeof(path));
	if (ret)
		return ret;
	return sysfs__read_text(path, buf, len);
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
