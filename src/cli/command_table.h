/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* The commands: their modes, their functions and the table of them (command_table.c). */
#ifndef BLKTRACE_BENCH_COMMAND_TABLE_H
#define BLKTRACE_BENCH_COMMAND_TABLE_H

#include <stddef.h>
#include "base/diag.h" /* the exit codes, and how a command reports */
#include "cli/env_config.h"

struct options;

/*
 * The modes a command runs in, which decide the options it takes (cli.c's option_modes).
 * trace has four, known once its options are read: passive, command (a command to run),
 * workload (--rw) and --snoop-text; every other command one of its own (the table below).
 */
enum cli_mode {
	M_PASSIVE = 1 << 0,
	M_COMMAND = 1 << 1,
	M_WORKLOAD = 1 << 2,
	M_SNOOP_TEXT = 1 << 3,
	M_INFO = 1 << 4,
	M_COMPARE = 1 << 5,
	M_REPORT = 1 << 6,
	M_RESTORE = 1 << 7,
	M_TUNE = 1 << 8,
	M_APPLY = 1 << 9,
	M_VERIFY = 1 << 10,
	M_SERVE = 1 << 11,
	M_IMPORT = 1 << 12,
	M_RESUME = 1 << 13,
	M_TRACING = M_PASSIVE | M_COMMAND | M_WORKLOAD,
	M_LOADS_BPF = M_TRACING | M_TUNE | M_VERIFY | M_SERVE,
	M_ALL = (1 << 14) - 1,
};

/*
 * Each command gets the options cli_parse made of its argv (argv[0] = "blktrace-bench
 * <name>", or the program for trace), what the environment configures (read once, in
 * main), and a struct diag. It returns 0, its own status (compare's and verify's
 * EXIT_REGRESSION, verify's EXIT_FAIL, the command's in command mode), or a negative
 * errno with the reason in d. compare, report and apply read no system file: they need
 * no cfg.
 */
int cmd_trace(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_info(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_compare(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_restore(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_report(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_tune(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_apply(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_verify(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_serve(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_import(const struct options *o, const struct env_config *cfg, struct diag *d);
int cmd_resume(const struct options *o, const struct env_config *cfg, struct diag *d);

/*
 * The command table (command_table.c), the one place the command set is written: it drives
 * dispatch, each command's argp (cli.c: its --help lists the options of its modes only,
 * its usage line, its count of words) and the command list of the top-level --help.
 * tests/shell/test_commands.sh holds the bash completion and the man page to it.
 */
struct command {
	const char *name;
	int (*fn)(const struct options *o, const struct env_config *cfg, struct diag *d);
	/*
	 * The modes it runs in (above): an option is taken by the commands whose modes it
	 * is used in (cli.c's option_modes), and refused by the others.
	 */
	unsigned int modes;
	int arity;	   /* the words besides options; -1: any (trace's command to run) */
	const char *args;  /* those words, argp's usage line: "DEV" */
	const char *words; /* what a wrong count is told they are: "one disk" */
	const char *doc;   /* one line: what the command does */
};

/* The table's i-th command, trace first; NULL past the last. */
const struct command *commands__at(size_t i);

/* The command called name; NULL when there is none. */
const struct command *commands__find(const char *name);

#endif /* BLKTRACE_BENCH_COMMAND_TABLE_H */
