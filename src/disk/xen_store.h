/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * xenstore, read only: the tree of nodes through which a Xen guest's frontends and
 * their backends in another domain negotiate (Xen's docs/misc/xenstore-paths.pandoc).
 * One reader over two sources:
 *   - libxenstore (xs_open(0): xenstored's socket in dom0, /dev/xen/xenbus in a guest),
 *     opened with dlopen when the first xen-blkfront disk is read, so that nobody else
 *     maps it; Debian's libxenstore4, a Recommends of the package;
 *   - a file of `PATH = "VALUE"` lines, as `xenstore-ls -f` prints them: fixtures for
 *     tests (tests/fixtures/xenstore/), BLKTRACE_BENCH_XENSTORE.
 * A relative path is the reader's own domain's (xenstored resolves it below
 * /local/domain/DOMID); a file holds such nodes as written, relative.
 * Functions return 0 or a negative errno.
 */
#ifndef BLKTRACE_BENCH_XEN_STORE_H
#define BLKTRACE_BENCH_XEN_STORE_H

#include <stddef.h>

#define XENSTORE_SONAME "libxenstore.so.4"

struct xen_store;

/*
 * Open the file of `PATH = "VALUE"` lines, or libxenstore when file is NULL. On failure,
 * why says what is missing, on one line (no library, no /dev/xen/xenbus, not root).
 */
int xen_store__open(const char *file, struct xen_store **out, char *why, size_t len);
/* libxenstore under another name (tests: one that is not installed). */
int xen_store__open_lib(const char *soname, struct xen_store **out, char *why, size_t len);

/*
 * The value of the node at path into buf: -ENOENT when there is none, -EOVERFLOW when it
 * does not fit, another negative errno (-EACCES: its permissions) when it cannot be read.
 */
int xen_store__read(struct xen_store *xs, const char *path, char *buf, size_t len);

/* NULL is nothing to close. */
void xen_store__close(struct xen_store *xs);

#endif /* BLKTRACE_BENCH_XEN_STORE_H */
