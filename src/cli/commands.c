// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Running a command: `blktrace-bench --trace DEV ...` is the trace command;
 * `blktrace-bench NAME ...` picks a command of the table (command_table.c) by name. Every command's
 * argv goes through cli_parse, and its outcome through diag__exit, the one place an exit code is
 * made (diag.h).
 */
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"

/* The options, then the command; --help and --version end after printing, with 0. */
static int run(const struct command *c, int argc, char **argv, const struct env_config *cfg,
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
	const struct command *c = commands__at(0);
	struct diag d = {};
	char name[64];

	if (argc < 2 || argv[1][0] == '-')
		return diag__exit(&d, run(c, argc, argv, cfg, &d));
	c = commands__find(argv[1]);
	if (!c)
		return diag__exit(&d,
				  diag__usage(&d, "unknown command '%s' (try --help)", argv[1]));
	/* argp names the program by argv[0] in --help and errors. */
	snprintf(name, sizeof(name), "blktrace-bench %s", c->name);
	argv[1] = name;
	return diag__exit(&d, run(c, argc - 1, argv + 1, cfg, &d));
}
