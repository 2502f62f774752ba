// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reading sysfs below one root that must never be left: paths, attributes, numbers,
 * links and directory listings (see sysfs.h). Knows nothing of disks.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/sysfs.h"
#include "base/text.h"

/* sysfs shows at most a page per attribute. */
#define ATTR_MAX 4096

int sysfs__join(char *out, size_t len, const char *dir, const char *name)
{
	int n = snprintf(out, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

bool sysfs__exists(const char *dir, const char *name, bool want_dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (sysfs__join(path, sizeof(path), dir, name) || stat(path, &st))
		return false;
	return want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode);
}

const char *sysfs__base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int sysfs__read_text(const char *path, char *buf, size_t len)
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

int sysfs__read_attr(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	int ret = sysfs__join(path, sizeof(path), dir, name);

	if (ret) {
		buf[0] = '\0';
		return ret;
	}
	return sysfs__read_text(path, buf, len);
}

int sysfs__read_attr_trunc(const char *dir, const char *name, char *out, size_t len)
{
	char buf[ATTR_MAX];
	int ret = sysfs__read_attr(dir, name, buf, sizeof(buf));

	text__copy(out, len, ret ? "" : buf);
	return ret;
}

int sysfs__read_u64(const char *dir, const char *name, uint64_t *out)
{
	char buf[64];
	int ret = sysfs__read_attr(dir, name, buf, sizeof(buf));

	return ret ? ret : parse_uint(buf, UINT64_MAX, out);
}

int64_t sysfs__read_s64_or_neg1(const char *dir, const char *name)
{
	char buf[64];
	int64_t v;

	if (sysfs__read_attr(dir, name, buf, sizeof(buf)))
		return -1;
	if (!strcmp(buf, "Y"))
		return 1;
	if (!strcmp(buf, "N"))
		return 0;
	return parse_int(buf, &v) ? -1 : v;
}

int sysfs__read_devnum(const char *dir, unsigned int *maj, unsigned int *min)
{
	const char *why;
	char buf[64];
	int ret = sysfs__read_attr(dir, "dev", buf, sizeof(buf));

	return ret ? ret : parse_devnum(buf, maj, min, &why);
}

int sysfs__link_base(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	int ret = sysfs__join(path, sizeof(path), dir, name);

	if (ret)
		return ret;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	text__copy(out, len, sysfs__base_name(target));
	return 0;
}

bool sysfs__under_root(const char *root, const char *path)
{
	size_t rlen = strlen(root);

	if (rlen == 1) /* root is "/" */
		return path[0] == '/' && path[1] != '\0';
	return !strncmp(path, root, rlen) && path[rlen] == '/' && path[rlen + 1] != '\0';
}

int sysfs__lookup(const char *root, const char *sub, const char *key, char *out)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s/%s", root, sub, key) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!realpath(path, out))
		return errno == ENOTDIR ? -ENOENT : -errno;
	return sysfs__under_root(root, out) ? 0 : -EXDEV;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int skip_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

int sysfs__scan(const char *dir, struct dirent ***ents)
{
	int n;

	*ents = NULL;
	n = scandir(dir, ents, skip_dots, name_cmp);
	if (n < 0) {
		*ents = NULL;
		return -errno;
	}
	return n;
}

void sysfs__scan_free(struct dirent **ents, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

unsigned int sysfs__list_names(const char *dir, char *out, size_t width, unsigned int max)
{
	struct dirent **ents;
	unsigned int kept = 0;
	int n, i;

	n = sysfs__scan(dir, &ents);
	for (i = 0; i < n && kept < max; i++)
		text__copy(out + width * kept++, width, ents[i]->d_name);
	sysfs__scan_free(ents, n);
	return kept;
}

unsigned int sysfs__count_entries(const char *dir)
{
	struct dirent **ents;
	int n = sysfs__scan(dir, &ents);

	sysfs__scan_free(ents, n);
	return n < 0 ? 0 : n;
}
