/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The commands main() dispatches to. */
#ifndef BLKTRACE_BENCH_COMMANDS_H
#define BLKTRACE_BENCH_COMMANDS_H

#include "diag.h" /* the exit codes, and how a command reports */
#include "env_config.h"

/*
 * Each command gets argv with argv[0] = "blktrace-bench <name>", and what the environment
 * configures (read once, in main), and returns its exit code (diag__exit's). compare
 * reads no system file: it needs none.
 */
int cmd_trace(int argc, char **argv, const struct env_config *cfg);
int cmd_info(int argc, char **argv, const struct env_config *cfg);
int cmd_compare(int argc, char **argv, const struct env_config *cfg);
int cmd_restore(int argc, char **argv, const struct env_config *cfg);

#endif /* BLKTRACE_BENCH_COMMANDS_H */
