// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The error convention (diag.h): failures recorded as one line and a kind, turned into
 * an exit code in one place. Diagnostics go to stderr, one line each; the data stream
 * stays clean.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/diag.h"

static int record(struct diag *d, int err, bool usage, const char *fmt, va_list ap)
{
	if (!d)
		return err;
	d->err = err;
	d->usage = usage;
	d->named = false;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	return err;
}

int diag__usage(struct diag *d, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = record(d, -EINVAL, true, fmt, ap);
	va_end(ap);
	return ret;
}

int diag__usage_err(struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = record(d, err, true, fmt, ap);
	va_end(ap);
	return ret;
}

int diag__fail(struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = record(d, err, false, fmt, ap);
	va_end(ap);
	return ret;
}

int diag__prefix(struct diag *d, const char *fmt, ...)
{
	char head[DIAG_MSG_MAX];
	size_t n, keep;
	va_list ap;

	if (!d)
		return 0;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	/* The message moves up by the head; what no longer fits is cut at the end. */
	n = strlen(head);
	keep = strlen(d->msg);
	if (keep > sizeof(d->msg) - 1 - n)
		keep = sizeof(d->msg) - 1 - n;
	memmove(d->msg + n, d->msg, keep);
	memcpy(d->msg, head, n);
	d->msg[n + keep] = '\0';
	return d->err;
}

void diag__note(FILE *f, const char *fmt, ...)
{
	va_list ap;

	if (!f)
		return;
	fputs("blktrace-bench: ", f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

void diag__say(const struct diag *d)
{
	if (d->named)
		fprintf(stderr, "%s\n", d->msg);
	else if (d->msg[0])
		diag__note(stderr, "%s", d->msg);
	else if (d->err)
		diag__note(stderr, "%s", strerror(-d->err));
}

int diag__exit(struct diag *d, int ret)
{
	if (ret < 0 && d->err != ret) {
		/* A failure nobody described: its errno is all there is to say. */
		d->err = ret;
		d->usage = false;
		d->named = false;
		d->msg[0] = '\0';
		if (ret != -EINTR)
			snprintf(d->msg, sizeof(d->msg), "%s", strerror(-ret));
	}
	if (ret < 0 && (ret != -EINTR || d->msg[0]))
		diag__say(d);
	if (ret < 0 && ret != -EINTR)
		return d->usage ? EXIT_USAGE : EXIT_FAIL;
	if (ret == -EINTR || d->signal)
		return EXIT_SIGNAL + (d->signal ? d->signal : SIGINT);
	return ret;
}

int finish_stdout(struct diag *d)
{
	if (fflush(stdout) || ferror(stdout))
		return diag__fail(d, -EIO, "writing the report failed: %s",
				  strerror(errno ? errno : EIO));
	return 0;
}
