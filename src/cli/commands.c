// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The command table and running one: `blktrace-bench --trace DEV ...` is the trace
 * command; `blktrace-bench NAME ...` picks a command by name. Every command's argv goes
 * through cli_parse, and its outcome through diag__exit, the one place an exit code is
 * made (diag.h).
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"

struct cmd {
	const char *name;
	int (*fn)(const struct options *o, const struct env_config *cfg, struct diag *d);
};

/* One command a line (clang-format would pack them): tests/shell/test_docs.sh reads it. */
// clang-format off
static const struct cmd commands[] = {
	{ "trace", cmd_trace },
	{ "info", cmd_info },
	{ "compare", cmd_compare },
	{ "report", cmd_report },
	{ "restore", cmd_restore },
	{ "tune", cmd_tune },
	{ "apply", cmd_apply },
	{ "verify", cmd_verify },
	{ "serve", cmd_serve },
	{ "import", cmd_import },
	{ "resume", cmd_resume },
};
// clang-format on

/* The options, then the command; --help and --version end after printing, with 0. */
static int run(const struct cmd *c, int argc, char **argv, const struct env_config *cfg,
	       struct diag *d)
{
	struct options o;
	int ret = cli_parse(c->name, argc, argv, &o, d);

	if (ret)
		return ret < 0 ? ret : EXIT_OK;
	return c->fn(&o, cfg, d);
}

int commands__run(int argc, char **argv, const struct env_config *cfg)
{
	struct diag d = {};
	char name[64];
	size_t i;

	if (argc < 2 || argv[1][0] == '-')
		return diag__exit(&d, run(&commands[0], argc, argv, cfg, &d));
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		/* argp names the program by argv[0] in --help and errors. */
		snprintf(name, sizeof(name), "blktrace-bench %s", commands[i].name);
		argv[1] = name;
		return diag__exit(&d, run(&commands[i], argc - 1, argv + 1, cfg, &d));
	}
	return diag__exit(&d, diag__usage(&d, "unknown command '%s' (try --help)", argv[1]));
}
