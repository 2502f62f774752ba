// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Input files: a regular file, opened without blocking, or stdin as "-". See infile.h.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/diag.h"
#include "files/infile.h"

const char *infile__kind(mode_t mode)
{
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a directory";
	return "not a regular file";
}

/*
 * N when path's last component is the link N in our own /proc/self/fd (by the
 * directory it is in: /dev/fd/N and /proc/PID/fd/N are the same), else -1.
 */
static int proc_fd(const char *path)
{
	static const char *const ours[] = { "/proc/self/fd", "/proc/thread-self/fd" };
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX], *end;
	struct stat a, b;
	unsigned int i;
	long n;

	if (!slash || slash[1] < '0' || slash[1] > '9')
		return -1;
	errno = 0;
	n = strtol(slash + 1, &end, 10);
	if (*end || errno || n > INT_MAX)
		return -1;
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &a))
		return -1;
	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (!stat(ours[i], &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return (int)n;
	return -1;
}

int infile__descriptor(const char *path, bool *foreign)
{
	char cur[PATH_MAX], next[PATH_MAX], *slash;
	struct stat st;
	ssize_t len;
	int hop, fd;

	*foreign = false;
	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return -1;
	for (hop = 0; hop < 40; hop++) { /* the kernel's own limit (MAXSYMLINKS) */
		if (lstat(cur, &st) || !S_ISLNK(st.st_mode))
			return -1;
		if (st.st_uid && st.st_uid != geteuid())
			*foreign = true;
		fd = proc_fd(cur);
		if (fd >= 0)
			return fd;
		len = readlink(cur, next, sizeof(next) - 1);
		if (len < 0)
			return -1;
		next[len] = '\0';
		slash = strrchr(cur, '/');
		if (next[0] == '/' || !slash)
			memcpy(cur, next, len + 1);
		else if (snprintf(slash + 1, sizeof(cur) - (slash + 1 - cur), "%s", next) >=
			 (int)(sizeof(cur) - (slash + 1 - cur)))
			return -1;
	}
	return -1;
}

/* Not a regular file: one line naming what it is. */
static int refuse(const char *path, mode_t mode, bool streams, struct diag *d)
{
	return diag__usage(d, "%s: it is %s, not a regular file%s", path, infile__kind(mode),
			   streams ? " (- reads stdin)" : "");
}

/* Descriptor n of ours, named by path: read from a duplicate, as set up by the shell. */
static int open_fd(const char *path, int n, FILE **f, struct diag *d)
{
	int flags = fcntl(n, F_GETFL), fd;

	if (flags < 0)
		return diag__fail(d, -errno, "%s: descriptor %d: %s", path, n, strerror(errno));
	if ((flags & O_ACCMODE) == O_WRONLY)
		return diag__usage(d, "%s: descriptor %d is open for writing only", path, n);
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	*f = fdopen(fd, "rb");
	if (*f)
		return 0;
	close(fd);
	return diag__fail(d, -ENOMEM, "out of memory");
}

int infile__open_at(int dirfd, const char *path, bool streams, FILE **f, struct diag *d)
{
	struct stat st;
	bool foreign;
	int fd, ret;

	*f = NULL;
	if (streams && !strcmp(path, "-")) {
		*f = stdin;
		return 0;
	}
	fd = streams && dirfd == AT_FDCWD ? infile__descriptor(path, &foreign) : -1;
	if (fd >= 0)
		return open_fd(path, fd, f, d);
	/* Refused by its type before it is opened: opening a device can do things. */
	if (fstatat(dirfd, path, &st, 0))
		return diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return refuse(path, st.st_mode, streams, d);
	/*
	 * O_NONBLOCK: should a FIFO have taken the file's place since, it opens at once
	 * (no writer needed) and is refused; O_NOCTTY: a terminal never becomes ours.
	 */
	fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = refuse(path, st.st_mode, streams, d);
	} else {
		*f = fdopen(fd, "rb");
		if (*f)
			return 0;
		ret = diag__fail(d, -errno, "%s: %s", path, strerror(errno));
	}
	close(fd);
	return ret;
}

int infile__open(const char *path, bool streams, FILE **f, struct diag *d)
{
	return infile__open_at(AT_FDCWD, path, streams, f, d);
}

void infile__close(FILE *f)
{
	if (f && f != stdin)
		fclose(f);
}

int infile__read_at(int dirfd, const char *name, size_t max, char **out, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), ret = 0;
	size_t got = 0;
	struct stat st;
	ssize_t n = 0;
	char *buf;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc(max + 1);
	while (buf && got < max + 1 && (n = read(fd, buf + got, max + 1 - got)) > 0)
		got += (size_t)n;
	if (!buf || n < 0 || got > max)
		ret = !buf ? -ENOMEM : n < 0 ? -errno : -EFBIG;
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*out = buf;
	if (len)
		*len = got;
	return 0;
}

int infile__boot_id(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return !buf[0] || strchr(buf, ' ') ? -EIO : 0;
}
