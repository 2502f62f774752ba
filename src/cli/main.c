// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * blktrace-bench: the one place the environment is read (env_config.h); the command
 * table and the running of a command are commands.c's.
 */
#include <stdlib.h>
#include "cli/commands.h"

int main(int argc, char **argv)
{
	struct env_config cfg;

	env_config__read(&cfg, getenv);
	return commands__run(argc, argv, &cfg);
}
