/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Running the command argv names (commands.c). */
#ifndef BLKTRACE_BENCH_COMMANDS_H
#define BLKTRACE_BENCH_COMMANDS_H

#include "cli/command_table.h"

/*
 * Run the command argv[1] names (argv[1] is changed to "blktrace-bench NAME"), or trace
 * when argv[1] is an option or missing: its exit code (diag__exit's).
 */
int commands__run(int argc, char **argv, const struct env_config *cfg);

#endif /* BLKTRACE_BENCH_COMMANDS_H */
