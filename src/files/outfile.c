// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Output files: checked before the run, written to a temporary file, renamed into
 * place. outfile.h states the policy; this file owns it, and nothing else in the tool
 * opens a file for writing (the workload's target excepted: target.c).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "base/diag.h"
#include "files/infile.h"
#include "files/outfile.h"
#include "files/in_use.h"

#define TMP_NAME_KEEP 200 /* bytes of the name kept in the temporary name (NAME_MAX 255) */

/* path's directory and last component; "" as the name when path ends in '/'. */
static int split_path(const char *path, char **dir, char **name)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*dir = strdup(".");
		*name = strdup(path);
	} else {
		*dir = slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
		*name = strdup(slash + 1);
	}
	if (*dir && *name)
		return 0;
	free(*dir);
	free(*name);
	*dir = *name = NULL;
	return -ENOMEM;
}

/* Where path would be: its directory's inode and its name. */
static bool same_place(const char *a, const char *b)
{
	char *da = NULL, *na = NULL, *db = NULL, *nb = NULL;
	struct stat sa, sb;
	bool same = false;

	if (split_path(a, &da, &na) || split_path(b, &db, &nb))
		goto out;
	same = !strcmp(na, nb) && !stat(da, &sa) && !stat(db, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
out:
	free(da);
	free(na);
	free(db);
	free(nb);
	return same;
}

bool outfile__same(const char *path, const char *other)
{
	struct stat a, b;

	/* stat, not lstat: a link to an input counts as the input. */
	if (!stat(path, &a) && !stat(other, &b))
		return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	return same_place(path, other);
}

/* A fresh ".NAME.XXXXXXXX.tmp" into of->tmp. */
static int tmp_name(struct outfile *of)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(of->name) + 32;
	char suffix[9];
	unsigned char rnd[8];
	int i;

	if (!of->tmp)
		of->tmp = malloc(len);
	if (!of->tmp)
		return -ENOMEM;
	if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
		return -errno ?: -EIO;
	for (i = 0; i < (int)sizeof(rnd); i++)
		suffix[i] = alphabet[rnd[i] % (sizeof(alphabet) - 1)];
	suffix[sizeof(rnd)] = '\0';
	snprintf(of->tmp, len, ".%.*s.%s.tmp", TMP_NAME_KEEP, of->name, suffix);
	return 0;
}

/*
 * The file the data goes to, in dirfd. Unnamed (O_TMPFILE) where the filesystem can:
 * then nothing, not even SIGKILL, leaves a trace until outfile__commit gives it a name.
 * Else ".NAME.XXXXXXXX.tmp", new (O_EXCL: never an existing file or link); names are
 * made here rather than by mkostemp, which creates mode 0600 where open applies the
 * umask to 0644.
 */
static int create_tmp(struct outfile *of)
{
	int attempt, fd, ret;

	fd = openat(of->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	for (attempt = 0; fd < 0 && attempt < 100; attempt++) {
		ret = tmp_name(of);
		if (ret)
			return ret;
		fd = openat(of->dirfd, of->tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (fd < 0 && errno != EEXIST)
			return -errno;
	}
	if (fd < 0)
		return -EEXIST;
	of->f = fdopen(fd, "w");
	if (of->f)
		return 0;
	close(fd);
	if (of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	return -ENOMEM;
}

/* An unnamed file gets its temporary name now, right before the rename. */
static int name_tmp(struct outfile *of)
{
	char proc[64];
	int attempt, ret;

	if (of->tmp)
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(of->f));
	for (attempt = 0; attempt < 100; attempt++) {
		ret = tmp_name(of);
		if (ret)
			return ret;
		if (!linkat(AT_FDCWD, proc, of->dirfd, of->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	ret = -errno;
	free(of->tmp);
	of->tmp = NULL;
	return ret;
}

/* Descriptor n of ours (path led to it): written through, as the user's shell set it up. */
static int open_fd(struct outfile *of, int n, struct diag *d)
{
	int flags = fcntl(n, F_GETFL), fd;

	of->in_place = true;
	if (flags < 0)
		return diag__fail(d, -errno, "cannot write %s %s: descriptor %d: %s", of->what,
				  of->path, n, strerror(errno));
	if ((flags & O_ACCMODE) == O_RDONLY)
		return diag__usage(
			d, "refusing to write %s %s: descriptor %d is open for reading only",
			of->what, of->path, n);
	if (n == STDOUT_FILENO) { /* the same stream as the rest of our output, in its order */
		of->f = stdout;
		return 0;
	}
	/* A duplicate shares the offset (and O_APPEND): nothing the descriptor wrote is
	 * overwritten. */
	fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		return diag__fail(d, -errno, "cannot write %s %s: %s", of->what, of->path,
				  strerror(errno));
	of->f = fdopen(fd, "w");
	if (of->f)
		return 0;
	close(fd);
	return diag__fail(d, -ENOMEM, "out of memory");
}

/* A socket at path: connected to, as a stream; one that takes no stream is refused. */
static int connect_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fd;
	close(fd);
	return -errno;
}

/*
 * A character device, a FIFO or a socket (want: what it was when checked), written in
 * place. O_NONBLOCK: a FIFO nobody reads is refused, not waited on for ever.
 */
static int open_special(struct outfile *of, const struct stat *want, struct diag *d)
{
	struct stat st;
	int fd;

	of->in_place = true;
	if (S_ISSOCK(want->st_mode))
		fd = connect_socket(of->path);
	else
		fd = open(of->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && S_ISFIFO(want->st_mode) && errno == ENXIO)
		return diag__fail(
			d, -ENXIO,
			"cannot write %s %s: nobody reads the FIFO (start its reader first)",
			of->what, of->path);
	if (fd < 0 && S_ISSOCK(want->st_mode))
		return diag__fail(d, fd, "cannot write %s %s: socket: %s", of->what, of->path,
				  strerror(-fd));
	if (fd < 0)
		return diag__fail(d, -errno, "cannot write %s %s: %s", of->what, of->path,
				  strerror(errno));
	if (fstat(fd, &st) || (st.st_mode & S_IFMT) != (want->st_mode & S_IFMT) ||
	    (!S_ISSOCK(st.st_mode) && (st.st_dev != want->st_dev || st.st_ino != want->st_ino))) {
		close(fd);
		return diag__usage(d,
				   "refusing to write %s %s: it changed while it was being opened",
				   of->what, of->path);
	}
	/* Written as a file is: a slow reader slows us, it does not lose the output. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	of->f = fdopen(fd, "w");
	if (of->f)
		return 0;
	close(fd);
	return diag__fail(d, -ENOMEM, "out of memory");
}

/* What an output path is, for the policy. */
enum out_kind {
	OUT_NEW,     /* nothing yet, or a link: a new file renamed over it */
	OUT_FILE,    /* a regular file: replaced the same way, if nothing uses it */
	OUT_FD,	     /* a descriptor of ours: written through */
	OUT_SPECIAL, /* a character device, a FIFO, a socket: written in place */
};

/*
 * path's kind; for OUT_FD the descriptor in *fd, else what path (a link followed) is in
 * st. Refused: a block device, a directory, and a special file behind another user's link.
 */
static int classify(struct outfile *of, enum out_kind *kind, struct stat *st, int *fd,
		    struct diag *d)
{
	bool link, foreign;

	*kind = OUT_NEW;
	*fd = infile__descriptor(of->path, &foreign);
	if (*fd >= 0) {
		*kind = OUT_FD;
		return 0;
	}
	if (lstat(of->path, st))
		return 0;
	link = S_ISLNK(st->st_mode);
	/* A dangling link, or one to a regular file, is replaced: its target never written. */
	if (link && (stat(of->path, st) || S_ISREG(st->st_mode)))
		return 0;
	if (S_ISREG(st->st_mode)) {
		*kind = OUT_FILE;
		return 0;
	}
	if (S_ISDIR(st->st_mode) || S_ISBLK(st->st_mode) || (link && foreign))
		return diag__usage(d, "refusing to write %s %s: it is %s%s%s%s", of->what, of->path,
				   link ? "a symbolic link" : "",
				   link && foreign ? " of another user" : "", link ? " to " : "",
				   infile__kind(st->st_mode));
	*kind = OUT_SPECIAL;
	return 0;
}

/*
 * A file renamed over keeps its data only while it stays open: a loop device's backing
 * file or a swap file would be gone once let go. Asked of this machine's /sys, /dev and
 * /proc/swaps: an output is a file here, whatever sysfs root describes the disks.
 */
static int check_unused(struct outfile *of, const struct stat *st, struct diag *d)
{
	char why[PATH_MAX];
	int ret = in_use__file("/sys", NULL, NULL, st, why, sizeof(why));

	if (ret < 0)
		return diag__usage(d, "refusing to write %s %s: cannot check that it is unused: %s",
				   of->what, of->path, strerror(-ret));
	if (ret)
		return diag__usage(d, "refusing to write %s %s: %s", of->what, of->path, why);
	return 0;
}

int outfile__open(struct outfile *of, const char *what, const char *path,
		  const struct outfile_input *inputs, size_t nr_inputs, struct diag *d)
{
	enum out_kind kind;
	char *dir = NULL;
	struct stat st;
	size_t i;
	int ret, fd;

	memset(of, 0, sizeof(*of));
	of->what = what;
	of->path = path;
	of->dirfd = -1;
	if (!strcmp(path, "-")) {
		of->f = stdout;
		of->in_place = true;
		return 0;
	}
	if (!path[0])
		return diag__usage(d, "%s: an empty path", what);
	ret = classify(of, &kind, &st, &fd, d);
	if (ret)
		return ret;
	for (i = 0; i < nr_inputs; i++) {
		if (!inputs[i].path || !strcmp(inputs[i].path, "-") ||
		    !outfile__same(path, inputs[i].path))
			continue;
		return diag__usage(d, "refusing to write %s %s: it is %s (%s)", what, path,
				   inputs[i].what, inputs[i].path);
	}
	if (kind == OUT_FD)
		return open_fd(of, fd, d);
	if (kind == OUT_SPECIAL)
		return open_special(of, &st, d);
	if (kind == OUT_FILE) {
		ret = check_unused(of, &st, d);
		if (ret)
			return ret;
	}
	ret = split_path(path, &dir, &of->name);
	if (ret)
		return diag__fail(d, ret, "cannot write %s %s: %s", what, path, strerror(-ret));
	if (!of->name[0]) {
		ret = diag__usage(d, "refusing to write %s %s: it names a directory", what, path);
		goto out;
	}
	/* From here on the system has the say: what it cannot do is a runtime failure. */
	of->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (of->dirfd < 0) {
		ret = diag__fail(d, -errno, "cannot write %s %s: directory %s: %s", what, path, dir,
				 strerror(errno));
		goto out;
	}
	ret = create_tmp(of);
	if (ret) {
		free(of->tmp);
		of->tmp = NULL;
		diag__fail(d, ret, "cannot write %s %s: %s", what, path, strerror(-ret));
	}
out:
	free(dir);
	return ret;
}

struct dump_ctx {
	FILE *f;
	int err;
};

static int dump_chunk(const char *buf, size_t len, void *data)
{
	struct dump_ctx *ctx = data;

	if (fwrite(buf, 1, len, ctx->f) == len)
		return 0;
	ctx->err = errno ? -errno : -EIO;
	return -1;
}

int outfile__write_json(struct outfile *of, json_t *doc, size_t flags)
{
	struct dump_ctx ctx = { .f = of->f };

	errno = 0;
	if (json_dump_callback(doc, dump_chunk, &ctx, flags) || dump_chunk("\n", 1, &ctx)) {
		/* Not the writer: the encoder refused a string (text.c repairs them all). */
		if (!ctx.err)
			ctx.err = -EILSEQ;
		if (!of->err)
			of->err = ctx.err;
		return ctx.err;
	}
	return 0;
}

int outfile__put_json(struct outfile *of, json_t *doc, size_t flags, struct diag *d)
{
	int ret = doc ? outfile__write_json(of, doc, flags) : -ENOMEM;

	if (!ret)
		return outfile__commit(of, d);
	outfile__abort(of);
	if (!strcmp(of->path, "-"))
		return diag__fail(d, ret, "cannot write %s to stdout: %s", of->what,
				  strerror(-ret));
	return diag__fail(d, ret, "cannot write %s %s: %s", of->what, of->path, strerror(-ret));
}

static void close_dir(struct outfile *of)
{
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	free(of->name);
	of->name = NULL;
}

int outfile__open_at(struct outfile *of, const char *what, int dirfd, const char *name,
		     const char *shown, struct diag *d)
{
	int ret;

	memset(of, 0, sizeof(*of));
	of->what = what;
	of->path = shown;
	of->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	of->name = strdup(name);
	if (of->dirfd < 0 || !of->name) {
		ret = of->dirfd < 0 ? -errno : -ENOMEM;
		close_dir(of);
		return diag__fail(d, ret, "cannot write %s %s: %s", what, shown, strerror(-ret));
	}
	ret = create_tmp(of);
	if (ret) {
		free(of->tmp);
		of->tmp = NULL;
		diag__fail(d, ret, "cannot write %s %s: %s", what, shown, strerror(-ret));
	}
	return ret;
}

int outfile__commit(struct outfile *of, struct diag *d)
{
	int ret = of->err;

	if (!of->path || !of->f)
		return 0;
	errno = 0;
	if (fflush(of->f) && !ret)
		ret = -errno ?: -EIO;
	if (ferror(of->f) && !ret)
		ret = -EIO;
	if (of->f == stdout) {
		of->f = NULL;
		if (ret)
			diag__fail(d, ret, "cannot write %s to stdout: %s", of->what,
				   strerror(-ret));
		return ret;
	}
	if (of->in_place) { /* no fsync: a pipe, a terminal or a socket has none */
		if (fclose(of->f) && !ret)
			ret = -errno;
		of->f = NULL;
		if (ret)
			diag__fail(d, ret, "cannot write %s %s: %s", of->what, of->path,
				   strerror(-ret));
		return ret;
	}
	/* fsync: a filesystem that reports ENOSPC or EIO only here (NFS, thin disks). */
	if (!ret && fsync(fileno(of->f)))
		ret = -errno;
	if (!ret)
		ret = name_tmp(of);
	if (fclose(of->f) && !ret)
		ret = -errno;
	of->f = NULL;
	if (!ret && renameat(of->dirfd, of->tmp, of->dirfd, of->name))
		ret = -errno;
	if (ret) {
		diag__fail(d, ret, "cannot write %s %s: %s", of->what, of->path, strerror(-ret));
		outfile__abort(of);
		return ret;
	}
	free(of->tmp);
	of->tmp = NULL;
	close_dir(of);
	return 0;
}

void outfile__abort(struct outfile *of)
{
	if (!of->path)
		return;
	if (of->f && of->f != stdout)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp)
		unlinkat(of->dirfd, of->tmp, 0);
	free(of->tmp);
	of->tmp = NULL;
	close_dir(of);
}
