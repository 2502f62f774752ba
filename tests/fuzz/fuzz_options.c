// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the option parser (cli.c, argp). The input is the command's
 * name index (first byte) and then a NUL-separated argv. cli_parse runs argp with
 * ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP and prints --help itself, so no input
 * may exit the process: libFuzzer reports an exit as a failure (-error_exitcode).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "base/diag.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cmds[] = { "trace", "info",  "compare", "report", "restore",
					    "tune",  "apply", "verify",	 "serve" };
	char *argv[MAX_ARGS + 2], *buf, *p, *end;
	struct options o;
	struct diag d;
	int argc = 1;

	if (!size)
		return 0;
	buf = malloc(size); /* the words, NUL-terminated: a copy with a last NUL */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[0] = "blktrace-bench";
	for (p = buf, end = buf + size - 1; p < end && argc <= MAX_ARGS; p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;
	cli_parse(cmds[data[0] % (sizeof(cmds) / sizeof(cmds[0]))], argc, argv, &o, &d);
	free(buf);
	return 0;
}
