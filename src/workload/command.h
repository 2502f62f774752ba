/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Command mode's load (trace -- CMD): the command the user gave, traced from outside. */
#ifndef BLKTRACE_BENCH_COMMAND_H
#define BLKTRACE_BENCH_COMMAND_H

/*
 * Run argv to completion; returns its exit status as a shell reports it (128 + signal
 * when killed), or -errno when it could not be started. *seconds: from the fork to its
 * exit, the command's own time, not the tool's around it. A stop signal sent to us
 * alone is passed on to it (not SIGPIPE: that one is about our own output).
 */
int command__run(char **argv, double *seconds);

#endif /* BLKTRACE_BENCH_COMMAND_H */
