// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Diagnostics go to stderr, one line each; the data stream stays clean. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"

void die_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("blktrace-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int finish_stdout(void)
{
	if (fflush(stdout) || ferror(stdout)) {
		die_msg("writing the report failed: %s", strerror(errno ? errno : EIO));
		return -EIO;
	}
	return 0;
}
