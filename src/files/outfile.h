/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Output files: the one policy for every file the tool writes (--json, --snoop,
 * compare --json=FILE, info --json=FILE). Nothing is lost:
 *  - a block device or a directory is refused, also behind a symbolic link; so is a
 *    regular file that backs a loop device or is active swap;
 *  - a path to one of our own descriptors (/dev/stdout, /dev/stderr, /dev/fd/N,
 *    /proc/self/fd/N, or a link to one) is written through that descriptor, and a
 *    character device, a FIFO or a socket in place: never replaced by a rename (a FIFO
 *    nobody reads fails at once); a link owned by another user is not followed to one;
 *  - a path that is an input of the same run (by inode, or by directory and name when
 *    it does not exist yet), or the run's other output, is refused;
 *  - a regular file: the data goes to a new file in the same directory, unnamed
 *    (O_TMPFILE) where the filesystem can, else a temporary name (O_CREAT|O_EXCL), mode
 *    0644; when complete it is named and renamed over the path: an interrupted, failed
 *    or killed run leaves the old file, never half a new one nor (unnamed) a temporary
 *    file, and a symbolic link planted at the path is replaced, its target never written;
 *  - outfile__open creates that file at once, so a missing directory or a read-only
 *    filesystem is refused before anything is traced or run;
 *  - "-" is stdout, written in place.
 * Refusals are bad input (exit 2); what the system cannot do, create the temporary file
 * in a missing directory or on a read-only filesystem at the start, write it in full
 * at the end (ENOSPC...), is a runtime failure (exit 1), the temporary file removed.
 */
#ifndef BLKTRACE_BENCH_OUTFILE_H
#define BLKTRACE_BENCH_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

struct outfile {
	const char *what; /* the option, for messages: "--json" */
	const char *path; /* as given; NULL: not in use */
	FILE *f;	  /* where to write: the temporary file, or stdout */
	int dirfd;	  /* the directory of path, -1 for stdout */
	char *name;	  /* the last component of path */
	char *tmp;	  /* the temporary file in dirfd, NULL once renamed or removed */
	int err;	  /* the first write error (-errno) seen by outfile__write_json */
	bool in_place;	  /* written where it is (stdout, a device...): never renamed */
};

/* Another path of the same run the output must not be: an input, or another output. */
struct outfile_input {
	const char *path;
	const char *what; /* "the workload's --file", "input A", "the --snoop output" */
};

struct diag;

/*
 * Check path and create its temporary file. 0; or a negative errno with one line in
 * d naming the option, the path and the reason. of is ready for outfile__abort
 * whatever the outcome.
 */
int outfile__open(struct outfile *of, const char *what, const char *path,
		  const struct outfile_input *inputs, size_t nr_inputs, struct diag *d);
/*
 * For a caller that checked the directory itself and holds it open (apply below its
 * root, serve's --textfile, the sweep across reboots' state): the file name in dirfd,
 * shown as shown, replaced by renameat in dirfd, never reached by a path. 0, or -errno
 * with d (a runtime failure).
 */
int outfile__open_at(struct outfile *of, const char *what, int dirfd, const char *name,
		     const char *shown, struct diag *d);
/* Is path (the would-be output) the same file as other? By inode, else by dir + name. */
bool outfile__same(const char *path, const char *other);
/* How the tool's documents are written (result files, compare --json): 10 digits of a real. */
#define OUTFILE_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))
/* Dump doc (flags as json_dumpf) and a newline; -errno of the real cause. */
int outfile__write_json(struct outfile *of, json_t *doc, size_t flags);
/*
 * The one way a JSON document reaches its output: doc (NULL: it could not be built,
 * -ENOMEM) written and committed, or on failure the output aborted, nothing left, and
 * one line in d ("cannot write --json out.json: ..."). 0 or -errno (a runtime failure).
 */
int outfile__put_json(struct outfile *of, json_t *doc, size_t flags, struct diag *d);
/*
 * Flush, check, fsync and close the file, then rename it into place. 0; or -errno with
 * one line in d ("cannot write --json out.json: No space left on device"), the
 * temporary file removed.
 */
int outfile__commit(struct outfile *of, struct diag *d);
/* Remove the temporary file, if any. Safe on a zeroed, committed or aborted outfile. */
void outfile__abort(struct outfile *of);

#endif /* BLKTRACE_BENCH_OUTFILE_H */
