/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The commands main() dispatches to, their exit codes, and what they share for output. */
#ifndef BLKTRACE_BENCH_COMMANDS_H
#define BLKTRACE_BENCH_COMMANDS_H

#include "env_config.h"

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,	/* a runtime failure */
	EXIT_USAGE = 2, /* bad input: options, unknown disk, a refused target, a busy disk */
	EXIT_REGRESSION = 3, /* compare --fail-on-regression, verify: got worse */
	EXIT_NOEXEC = 127, /* command mode: the command could not be started */
};

/*
 * Each command gets argv with argv[0] = "blktrace-bench <name>", and what the environment
 * configures (read once, in main). compare reads no system file: it needs none.
 */
int cmd_trace(int argc, char **argv, const struct env_config *cfg);
int cmd_info(int argc, char **argv, const struct env_config *cfg);
int cmd_compare(int argc, char **argv, const struct env_config *cfg);
int cmd_restore(int argc, char **argv, const struct env_config *cfg);
int cmd_tune(int argc, char **argv, const struct env_config *cfg);
int cmd_apply(int argc, char **argv, const struct env_config *cfg);
int cmd_verify(int argc, char **argv, const struct env_config *cfg);

/* Prints "blktrace-bench: <message>" on stderr. */
void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flush stdout and report a failed write (ENOSPC, EPIPE...) as an error. */
int finish_stdout(void);

#endif /* BLKTRACE_BENCH_COMMANDS_H */
