// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The report command: a saved result (result_read.c) rebuilt into the report a live
 * run builds (report.c), printed as one self-contained HTML page (report_html.c) to
 * -o FILE or stdout, through the one output policy (outfile.h).
 */
#include <errno.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "outfile.h"
#include "report_html.h"
#include "result_read.h"

/* report takes RESULT.json and -o FILE: anything else given is refused, not ignored. */
static bool only_report_options(const struct options *o)
{
	struct options rest = *o, none;

	memset(&none, 0, sizeof(none));
	rest.output = NULL;
	rest.nr_positional = 0;
	memset(rest.positional, 0, sizeof(rest.positional));
	return !memcmp(&rest, &none, sizeof(none));
}

static int print_report(const struct options *o, const struct saved_result *sr,
			struct outfile *out)
{
	struct report rep;
	char msg[1024];

	if (report__build(&rep, &sr->res, sr->recommend)) {
		die_msg("out of memory");
		return EXIT_FAIL;
	}
	report_html__print(out->f, &rep, o->positional[0]);
	report__free(&rep);
	if (outfile__commit(out, msg, sizeof(msg))) {
		die_msg("%s", msg);
		return EXIT_FAIL;
	}
	return finish_stdout() ? EXIT_FAIL : EXIT_OK;
}

/* report reads only the file it is given: cfg is not used. */
int cmd_report(int argc, char **argv, const struct env_config *cfg)
{
	struct saved_result sr = {};
	struct outfile out = {};
	struct outfile_input in;
	struct options o;
	char msg[1024];
	int err, ret = EXIT_USAGE;

	(void)cfg;
	err = cli_parse("report", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 1 || !only_report_options(&o)) {
		die_msg("report takes one result file and -o: blktrace-bench report RESULT.json "
			"[-o FILE.html]");
		return EXIT_USAGE;
	}
	in = (struct outfile_input){o.positional[0], "the result file"};
	err = outfile__open(&out, "-o", o.output ? o.output : "-", &in, 1, msg, sizeof(msg));
	if (err) {
		die_msg("%s", msg);
		return err == -ENOMEM ? EXIT_FAIL : EXIT_USAGE;
	}
	if (result_read__file(o.positional[0], &sr, msg, sizeof(msg))) {
		die_msg("%s", msg);
		goto cleanup;
	}
	ret = print_report(&o, &sr, &out);
cleanup:
	outfile__abort(&out);
	result_read__free(&sr);
	return ret;
}
