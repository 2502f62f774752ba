/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Input files read by name (import's trace, --snoop-text): the one rule for them (a
 * sweep's state file, read in a directory held open, has its own: sweep_state.c). A
 * regular file only: a FIFO, a device, a socket or a directory named as an input is
 * refused with one line, and is opened without blocking (O_NONBLOCK), so that the
 * refusal comes at once where a FIFO without a writer used to be waited on for ever. A
 * stream is read from stdin, named "-", or from a descriptor the shell set up
 * (/dev/stdin, `<(...)`), where the caller reads streams.
 */
#ifndef BLKTRACE_BENCH_INFILE_H
#define BLKTRACE_BENCH_INFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct diag;

/* What a file of this mode is, for messages: "a FIFO", "a directory". */
const char *infile__kind(mode_t mode);

/*
 * Where path's last component leads, link by link (directories are the kernel's to
 * resolve): the descriptor of ours it names through /proc/self/fd (/dev/stdin,
 * /dev/stdout, /dev/fd/N, /proc/self/fd/N, a link to one of them), else -1. *foreign: a
 * link on the way belongs to another user than root and us, who could make it lead
 * anywhere. Such a path is a stream the user set up: outputs are written through it,
 * inputs read from it, neither opened anew nor replaced.
 */
int infile__descriptor(const char *path, bool *foreign);

/*
 * path (relative to dirfd, AT_FDCWD for the working directory) opened for reading: 0 and
 * *f. Where streams are read (import, --snoop-text), "-" is stdin itself and a path to a
 * descriptor of ours (/dev/stdin, /dev/fd/63 of `<(...)`) that descriptor. Else -errno
 * with one line in d: bad input for what is no regular file ("PATH: it is a FIFO, not a
 * regular file"), a runtime failure for what the system could not open (-ENOENT for a
 * missing file, which callers may take for "nothing there").
 */
int infile__open_at(int dirfd, const char *path, bool streams, FILE **f, struct diag *d);
int infile__open(const char *path, bool streams, FILE **f, struct diag *d);
/*
 * The whole of name in dirfd, a directory the caller holds (a state directory, apply's
 * root): a regular file of at most max bytes, reached without following a link and
 * opened without blocking, into *out (NUL-terminated; *len, when not NULL, without the
 * NUL). 0; -ENOENT; -ELOOP for a link; -EINVAL for anything else but a regular file;
 * -EFBIG; -errno.
 */
int infile__read_at(int dirfd, const char *name, size_t max, char **out, size_t *len);

/*
 * This boot's id from path (/proc/sys/kernel/random/boot_id): 0, or -EIO when it cannot
 * be read or is not one word (state about an earlier boot could not be told apart).
 */
int infile__boot_id(const char *path, char *buf, size_t len);

/* fclose, stdin excepted. */
void infile__close(FILE *f);

#endif /* BLKTRACE_BENCH_INFILE_H */
