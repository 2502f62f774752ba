/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one error convention. A function that can fail returns 0 or a negative errno and
 * fills the caller's struct diag with one line saying why, and with what kind of failure
 * it is:
 *  - bad input (diag__usage, diag__usage_err): what the user asked for is refused as
 *    stated: an option, a disk name that resolves to nothing, a refused target or output
 *    path, a file that is not what it should be, a disk another sweep holds. Exit 2.
 *  - a runtime failure (diag__fail): a valid request the system could not carry out: a
 *    system call's errno (cannot open, EACCES, EROFS, EIO, ENOSPC), out of memory. Exit 1.
 * A NULL struct diag is fine: the return value still says what happened.
 *
 * Each command ends in diag__exit, the one place an outcome becomes an exit code and its
 * message reaches stderr. Everything else a command says on the way (notices, "restored
 * ...") goes through diag__note(stderr, ...).
 */
#ifndef BLKTRACE_BENCH_DIAG_H
#define BLKTRACE_BENCH_DIAG_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	     /* a runtime failure */
	EXIT_USAGE = 2,	     /* bad input: options, unknown disk, a refused target, a busy disk */
	EXIT_REGRESSION = 3, /* compare --fail-on-regression, verify: got worse */
	EXIT_NOT_HELD = 4,   /* verify: the change did not hold (not in force, or no gain) */
	EXIT_REBOOT = 5,     /* a sweep across reboots goes on after the next boot (resume) */
	EXIT_NOEXEC = 127,   /* command mode: the command could not be started */
	EXIT_SIGNAL = 128,   /* + N: ended early by signal N (130 for INT, 143 for TERM) */
};

/* Room for the longest message: a verifier's rejection with its last lines. */
#define DIAG_MSG_MAX 4096

struct diag {
	int err;		/* the failure's negative errno; 0 while there is none */
	bool usage;		/* bad input (exit 2) rather than a runtime failure (exit 1) */
	bool named;		/* msg starts with the program's name (argp's messages) */
	int signal;		/* the command was ended early by this signal */
	char msg[DIAG_MSG_MAX]; /* one line, without "blktrace-bench: " and newline */
};

/* Bad input: returns -EINVAL. */
int diag__usage(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bad input with a more telling errno (-ENOENT: no such disk; -EBUSY: being swept). */
int diag__usage_err(struct diag *d, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A runtime failure: returns err. */
int diag__fail(struct diag *d, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Put more in front of d's message ("--file X: "), its kind kept; returns d->err. */
int diag__prefix(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The exit code of a command that returned ret and filled d, after saying d's message on
 * stderr (strerror(ret) when d does not describe ret):
 *   ret < 0 (not -EINTR): EXIT_USAGE for bad input, EXIT_FAIL otherwise;
 *   a signal ended it (d->signal, or ret -EINTR): EXIT_SIGNAL + the signal (INT if unknown);
 *   otherwise ret: the command's own status (0; compare's EXIT_REGRESSION; verify's
 *   EXIT_REGRESSION or EXIT_NOT_HELD; a sweep across reboots' EXIT_REBOOT; command
 *   mode's exit status of the command, or EXIT_NOEXEC).
 */
int diag__exit(struct diag *d, int ret);

/* Say d's message on stderr as diag__exit would (for failures a command gets past). */
void diag__say(const struct diag *d);

/*
 * Prints "blktrace-bench: <message>" on f, nothing when f is NULL: a command's notices
 * on stderr, and how the sweep, tune's session and the BPF loader say what they did on
 * the way, where their caller decides.
 */
void diag__note(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Flush stdout; a failed write (ENOSPC, EPIPE...) is a runtime failure in d. 0 or -errno. */
int finish_stdout(struct diag *d);

#endif /* BLKTRACE_BENCH_DIAG_H */
