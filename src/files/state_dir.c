// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Trusted directories, opened once and used by descriptor; see state_dir.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/diag.h"
#include "files/state_dir.h"

/* Why name could not be opened as a directory: a link or another kind of file. */
static int not_a_dir(int parent, const char *name, const char *shown, int err, struct diag *d)
{
	struct stat st;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW))
		return diag__fail(d, -err, "%s: %s", shown, strerror(err));
	if (S_ISLNK(st.st_mode))
		return diag__usage_err(d, -ELOOP,
				       "%s is a symbolic link: not following it (name the "
				       "directory itself)",
				       shown);
	if (!S_ISDIR(st.st_mode))
		return diag__usage_err(d, -ENOTDIR, "%s is not a directory", shown);
	return diag__fail(d, -err, "%s: %s", shown, strerror(err));
}

/* The checks, on the descriptor: what was checked is what is used. */
static int trusted(int fd, const char *shown, struct diag *d)
{
	struct stat st;

	if (fstat(fd, &st))
		return diag__fail(d, -errno, "%s: %s", shown, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return diag__usage_err(d, -ENOTDIR, "%s is not a directory", shown);
	if (st.st_uid != geteuid() && st.st_uid != 0)
		return diag__usage_err(d, -EPERM,
				       "%s belongs to UID %u: not trusting what is in it", shown,
				       (unsigned int)st.st_uid);
	if (st.st_mode & 022)
		return diag__usage_err(
			d, -EPERM, "%s is writable by others: not trusting what is in it", shown);
	return 0;
}

int state_dir__openat(int parent, const char *name, const char *shown, bool create, bool *created,
		      struct diag *d)
{
	int fd, ret;

	if (created)
		*created = false;
	if (create) {
		if (!mkdirat(parent, name, 0755)) {
			if (created)
				*created = true;
		} else if (errno != EEXIST) {
			return diag__fail(d, -errno, "cannot create %s: %s", shown,
					  strerror(errno));
		}
	}
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0)
		return errno == ENOTDIR || errno == ELOOP
			       ? not_a_dir(parent, name, shown, errno, d)
			       : diag__fail(d, -errno, "%s: %s", shown, strerror(errno));
	ret = trusted(fd, shown, d);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int state_dir__open(const char *path, bool create, struct diag *d)
{
	char name[PATH_MAX];
	size_t n = strlen(path);

	/* "DIR/" would follow a link named DIR whatever O_NOFOLLOW says. */
	while (n > 1 && path[n - 1] == '/')
		n--;
	if (n >= sizeof(name))
		return diag__usage_err(d, -ENAMETOOLONG, "%s: path too long", path);
	memcpy(name, path, n);
	name[n] = '\0';
	return state_dir__openat(AT_FDCWD, name, path, create, NULL, d);
}
