// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Reading xenstore through libxenstore or from a file; see xen_store.h. */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xenstore.h>
#include "disk/xen_store.h"

/* A file larger than this is no xenstore listing of one guest's disks. */
#define XS_FILE_MAX (1 << 20)

struct xen_store {
	int (*read)(struct xen_store *xs, const char *path, char *buf, size_t len);
	/* libxenstore */
	struct xs_handle *h;
	/* a file: its lines cut in place into paths and values */
	char *text;
	char **path, **value;
	size_t n;
};

/*
 * libxenstore is opened on first use (dlopen), not linked: only xen-blkfront disks need
 * it, and a package without it still runs everywhere else. Each function has the
 * header's own prototype (typeof), so calls are checked as if linked. The ABI has been
 * libxenstore.so.4 since Xen 4.14 (Debian 12: libxenstore4).
 */
#define XS_FUNCS(X)                                                                                \
	X(open)                                                                                    \
	X(read)                                                                                    \
	X(close)

static struct {
#define XS_POINTER(f) __typeof__(xs_##f) *f;
	XS_FUNCS(XS_POINTER)
#undef XS_POINTER
} xs_lib;

/*
 * Open soname once; a library found is kept for the process's life, as a linked one is,
 * and is the only one (xs_lib holds its functions).
 */
static int lib_open(const char *soname, char *why, size_t len)
{
	static char opened[64];
	void *lib;

	if (opened[0] && !strcmp(opened, soname))
		return 0;
	if (opened[0]) {
		snprintf(why, len, "%s is open already, not %s", opened, soname);
		return -EBUSY;
	}
	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, len, "%s is not installed (Debian: libxenstore4)", soname);
		return -ENOENT;
	}
#define XS_LOOKUP(f)                                                                               \
	if (!(*(void **)&xs_lib.f = dlsym(lib, "xs_" #f))) {                                       \
		snprintf(why, len, "%s has no xs_" #f, soname);                                    \
		dlclose(lib);                                                                      \
		return -ENOENT;                                                                    \
	}
	XS_FUNCS(XS_LOOKUP)
#undef XS_LOOKUP
	snprintf(opened, sizeof(opened), "%s", soname);
	return 0;
}

static int lib_read(struct xen_store *xs, const char *path, char *buf, size_t len)
{
	unsigned int n = 0;
	char *v;
	int ret = 0;

	errno = 0;
	v = xs_lib.read(xs->h, XBT_NULL, path, &n);
	if (!v)
		return errno ? -errno : -EIO;
	if (n >= len)
		ret = -EOVERFLOW;
	else
		memcpy(buf, v, n + 1); /* xs_read's value ends in a NUL of its own */
	free(v);
	return ret;
}

int xen_store__open_lib(const char *soname, struct xen_store **out, char *why, size_t len)
{
	struct xen_store *xs;
	int ret;

	*out = NULL;
	ret = lib_open(soname, why, len);
	if (ret)
		return ret;
	xs = calloc(1, sizeof(*xs));
	if (!xs) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	xs->h = xs_lib.open(0);
	if (!xs->h) {
		ret = errno ? -errno : -EIO;
		/* It tries xenstored's socket (dom0), then the guest's device. */
		snprintf(
			why, len, "xs_open: %s%s", strerror(-ret),
			ret == -EACCES ? " (/dev/xen/xenbus is root's)"
			: ret == -ENOENT
				? " (no xenstored socket, no /dev/xen/xenbus: not in a Xen domain?)"
				: "");
		free(xs);
		return ret;
	}
	xs->read = lib_read;
	*out = xs;
	return 0;
}

static int file_read(struct xen_store *xs, const char *path, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < xs->n; i++) {
		if (strcmp(xs->path[i], path))
			continue;
		if (strlen(xs->value[i]) >= len)
			return -EOVERFLOW;
		strcpy(buf, xs->value[i]);
		return 0;
	}
	return -ENOENT;
}

/* `PATH = "VALUE"` (xenstore-ls -f), or `PATH = VALUE`; blank lines and # comments skip. */
static bool parse_line(char *line, char **path, char **value)
{
	char *eq = strstr(line, " = "), *v, *end;

	line += strspn(line, " \t");
	if (!*line || *line == '#')
		return false;
	if (!eq)
		return false;
	*eq = '\0';
	v = eq + 3;
	end = v + strlen(v);
	while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	if (end - v >= 2 && *v == '"' && end[-1] == '"') {
		end[-1] = '\0';
		v++;
	}
	*path = line;
	*value = v;
	return true;
}

static int file_parse(struct xen_store *xs, const char *file, char *why, size_t len)
{
	size_t cap = 0, lineno = 0;
	char *line, *next, *p, *v;

	for (line = xs->text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (!parse_line(line, &p, &v)) {
			line += strspn(line, " \t");
			if (*line && *line != '#') {
				snprintf(why, len, "%s:%zu: not a PATH = \"VALUE\" line", file,
					 lineno);
				return -EINVAL;
			}
			continue;
		}
		if (xs->n == cap) {
			char **np, **nv;

			cap = cap ? 2 * cap : 32;
			np = realloc(xs->path, cap * sizeof(*np));
			if (np)
				xs->path = np;
			nv = np ? realloc(xs->value, cap * sizeof(*nv)) : NULL;
			if (!nv) {
				snprintf(why, len, "out of memory");
				return -ENOMEM;
			}
			xs->value = nv;
		}
		xs->path[xs->n] = p;
		xs->value[xs->n++] = v;
	}
	return 0;
}

static int file_open(const char *file, struct xen_store *xs, char *why, size_t len)
{
	FILE *f = fopen(file, "r");
	size_t n;
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(why, len, "%s: %s", file, strerror(-ret));
		return ret;
	}
	xs->text = malloc(XS_FILE_MAX + 1);
	n = xs->text ? fread(xs->text, 1, XS_FILE_MAX + 1, f) : 0;
	ret = !xs->text ? -ENOMEM : ferror(f) ? -EIO : n > XS_FILE_MAX ? -EFBIG : 0;
	fclose(f);
	if (ret) {
		snprintf(why, len, "%s: %s", file, strerror(-ret));
		return ret;
	}
	xs->text[n] = '\0';
	xs->read = file_read;
	return file_parse(xs, file, why, len);
}

int xen_store__open(const char *file, struct xen_store **out, char *why, size_t len)
{
	struct xen_store *xs;
	int ret;

	if (!file)
		return xen_store__open_lib(XENSTORE_SONAME, out, why, len);
	*out = NULL;
	xs = calloc(1, sizeof(*xs));
	if (!xs) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	ret = file_open(file, xs, why, len);
	if (ret) {
		xen_store__close(xs);
		return ret;
	}
	*out = xs;
	return 0;
}

int xen_store__read(struct xen_store *xs, const char *path, char *buf, size_t len)
{
	if (!len)
		return -EOVERFLOW;
	buf[0] = '\0';
	return xs->read(xs, path, buf, len);
}

void xen_store__close(struct xen_store *xs)
{
	if (!xs)
		return;
	if (xs->h)
		xs_lib.close(xs->h);
	free(xs->path);
	free(xs->value);
	free(xs->text);
	free(xs);
}
