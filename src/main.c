// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blktrace-bench: command table and dispatch. `blktrace-bench --trace DEV ...` is
 * the trace command; `blktrace-bench NAME ...` picks a command by name. The one place
 * the environment is read (env_config.h): each command gets what it says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, const struct env_config *cfg);
};

static const struct cmd commands[] = {
	{"trace", cmd_trace},
	{"info", cmd_info},
	{"compare", cmd_compare},
	{"restore", cmd_restore},
	{"tune", cmd_tune},
	{"apply", cmd_apply},
	{"verify", cmd_verify},
};

int main(int argc, char **argv)
{
	struct env_config cfg;
	size_t i;

	env_config__read(&cfg, getenv);
	if (argc > 1 && argv[1][0] != '-') {
		for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[1], commands[i].name)) {
				char name[64];

				/* argp names the program by argv[0] in --help and errors. */
				snprintf(name, sizeof(name), "blktrace-bench %s", commands[i].name);
				argv[1] = name;
				return commands[i].fn(argc - 1, argv + 1, &cfg);
			}
		die_msg("unknown command '%s' (try --help)", argv[1]);
		return EXIT_USAGE;
	}
	return cmd_trace(argc, argv, &cfg);
}
