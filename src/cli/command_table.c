// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The command table, the one place the command set is written; see command_table.h. */
#include <string.h>
#include "cli/command_table.h"

/* One command a line (clang-format would pack them). */
// clang-format off
static const struct command commands[] = {
	{ "trace", cmd_trace, M_TRACING | M_SNOOP_TEXT, -1, "[--] [COMMAND [ARG...]]", NULL,
	  "Trace a disk (the default; see Modes above)" },
	{ "info", cmd_info, M_INFO, 1, "DEV", "one disk",
	  "What a tuner needs to know about a disk" },
	{ "compare", cmd_compare, M_COMPARE, 2, "A.json B.json", "two result files",
	  "Compare two results, with significance" },
	{ "report", cmd_report, M_REPORT, 1, "RESULT.json", "one result file",
	  "A result as one self-contained HTML page" },
	{ "restore", cmd_restore, M_RESTORE, 1, "DEV", "one disk",
	  "Put back what a cut-short --set sweep changed" },
	{ "tune", cmd_tune, M_TUNE, 1, "DEV", "one disk",
	  "The queue settings that serve a workload best" },
	{ "apply", cmd_apply, M_APPLY, 1, "RESULT.json\n--undo", "a tune result, or --undo",
	  "Make a tune result's recommendation persist" },
	{ "verify", cmd_verify, M_VERIFY, 1, "RESULT.json", "a tune result",
	  "Rerun a tune result's workload, compare" },
	{ "serve", cmd_serve, M_SERVE, 0, "", "no arguments",
	  "Trace on and on, counters for Prometheus" },
	{ "import", cmd_import, M_IMPORT, 1, "DIR|FILE", "one trace",
	  "Report on the files blktrace wrote" },
	{ "resume", cmd_resume, M_RESUME, 0, "", "no arguments",
	  "The next step of the sweep across reboots" },
};
// clang-format on

const struct command *commands__at(size_t i)
{
	return i < sizeof(commands) / sizeof(commands[0]) ? &commands[i] : NULL;
}

const struct command *commands__find(const char *name)
{
	const struct command *c;
	size_t i;

	for (i = 0; (c = commands__at(i)); i++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
