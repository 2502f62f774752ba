/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Directories the tool keeps state in, or writes below as root (--state-dir, apply's
 * root): opened once, then used by descriptor only (openat, renameat, unlinkat), so
 * that nothing an unprivileged user does between a check and a use can steer what is
 * read or written. A directory is opened O_DIRECTORY|O_NOFOLLOW (a symbolic link is
 * refused, not followed), and its owner and mode are checked on the descriptor: it must
 * belong to the caller or to root, and nobody else may write it (no group or other
 * write bit). Whoever could rename it, or plant one in its place, could not have made
 * it pass: it is theirs, or writable by them.
 */
#ifndef BLKTRACE_BENCH_STATE_DIR_H
#define BLKTRACE_BENCH_STATE_DIR_H

#include <stdbool.h>

struct diag;

/*
 * The directory name below parent (a descriptor, or AT_FDCWD for a path), shown as
 * shown in messages, created 0755 when missing if create (then *created, when not NULL,
 * says it was). Returns the descriptor; or -ENOENT when it is missing and not to be
 * created (d untouched); bad input in d for a symbolic link (-ELOOP), something that is
 * no directory (-ENOTDIR) or a directory that is not trusted (-EPERM); a runtime
 * failure in d for what the system cannot do.
 */
int state_dir__openat(int parent, const char *name, const char *shown, bool create, bool *created,
		      struct diag *d);

/* The same for a path (its last component not followed): --state-dir. */
int state_dir__open(const char *path, bool create, struct diag *d);

#endif /* BLKTRACE_BENCH_STATE_DIR_H */
