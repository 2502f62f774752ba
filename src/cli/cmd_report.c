// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The report command: a saved result (result_read.c) rebuilt into the report a live
 * run builds (report.c), printed as one self-contained HTML page (report_html.c) to
 * -o FILE or stdout, through the one output policy (outfile.h).
 */
#include <errno.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "files/outfile.h"
#include "output/report_html.h"
#include "store/result_read.h"

/* report takes RESULT.json and -o FILE: anything else given is refused, not ignored. */
static bool only_report_options(const struct options *o)
{
	struct options rest, none;

	memset(&none, 0, sizeof(none));
	memcpy(&rest, o, sizeof(rest)); /* cli_parse zeroed it whole, padding too */
	rest.argc = 0;
	rest.argv = NULL;
	rest.output = NULL;
	rest.html = NULL;
	rest.nr_positional = 0;
	memset(rest.positional, 0, sizeof(rest.positional));
	return !memcmp(&rest, &none, sizeof(none));
}

static int print_report(const struct options *o, const struct saved_result *sr, struct outfile *out,
			struct diag *d)
{
	struct report rep;
	int err;

	if (report__build(&rep, &sr->res, sr->recommend))
		return diag__fail(d, -ENOMEM, "out of memory");
	report_html__print(out->f, &rep, o->positional[0]);
	report__free(&rep);
	err = outfile__commit(out, d);
	return err ? err : finish_stdout(d);
}

/* report reads only the file it is given: cfg is not used. */
int cmd_report(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct outfile_input in = { o->positional[0], "the result file" };
	struct saved_result sr = {};
	struct outfile out = {};
	int err;

	(void)cfg;
	if (!only_report_options(o))
		return diag__usage(d, "report takes one result file and --html: blktrace-bench "
				      "report RESULT.json [--html FILE]");
	if (o->html && o->output)
		return diag__usage(d, "--html and -o both name report's page: give one");
	/* The output first: a refused path costs no reading. */
	err = outfile__open(&out, o->html ? "--html" : "-o",
			    o->html	? o->html
			    : o->output ? o->output
					: "-",
			    &in, 1, d);
	if (!err)
		err = result_read__file(o->positional[0], &sr, d);
	if (!err)
		err = print_report(o, &sr, &out, d);
	outfile__abort(&out);
	result_read__free(&sr);
	return err;
}
