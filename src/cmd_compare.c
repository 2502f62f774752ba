// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The compare command: read two result files (result_load.c), compare them
 * (compare.c), print the text (compare_text.c) or the JSON (compare_json.c), and exit
 * with what a script needs to know.
 */
#include <errno.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "compare.h"
#include "compare_html.h"
#include "outfile.h"
#include "result_read.h"

/* The output files, checked before anything is read: not a device, not an input. */
static int open_output(const struct options *o, struct outfile *out, struct outfile *html)
{
	struct outfile_input in[3] = {{o->positional[0], "input A"}, {o->positional[1], "input B"},
				      {o->json, "the --json output as well"}};
	char msg[1024];
	int err = 0;

	if (o->json && o->html && !strcmp(o->json, "-") && !strcmp(o->html, "-")) {
		die_msg("--json and --html -: only one of them can go to stdout");
		return EXIT_USAGE;
	}
	if (o->json)
		err = outfile__open(out, "--json", o->json, in, 2, msg, sizeof(msg));
	if (!err && o->html)
		err = outfile__open(html, "--html", o->html, in, 3, msg, sizeof(msg));
	if (err)
		die_msg("%s", msg);
	return err ? (err == -ENOMEM ? EXIT_FAIL : EXIT_USAGE) : 0;
}

/* The page: A over B, the histograms from the results rebuilt whole. */
static int write_html(const struct comparison *c, const struct saved_result *a,
		      const struct saved_result *b, struct outfile *html)
{
	char msg[1024];

	compare_html__print(html->f, c, &a->res, &b->res);
	if (outfile__commit(html, msg, sizeof(msg))) {
		die_msg("%s", msg);
		return EXIT_FAIL;
	}
	return 0;
}

static int write_output(const struct options *o, const struct comparison *c,
			struct outfile *out)
{
	char msg[1024];
	json_t *doc;
	int err;

	if (!o->json && !o->html) {
		compare_text__print(stdout, c);
		return finish_stdout() ? EXIT_FAIL : 0;
	}
	if (!o->json)
		return 0;
	doc = compare_json__doc(c);
	err = doc ? outfile__write_json(out, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10))
		  : -ENOMEM;
	json_decref(doc);
	if (err) {
		die_msg("cannot write --json %s: %s", o->json, strerror(-err));
		return EXIT_FAIL;
	}
	if (outfile__commit(out, msg, sizeof(msg))) {
		die_msg("%s", msg);
		return EXIT_FAIL;
	}
	return finish_stdout() ? EXIT_FAIL : 0;
}

/* Both files: what compare reads, and with --html the results rebuilt whole. */
static int load_inputs(const struct options *o, struct saved_result *a, struct saved_result *b)
{
	char err[1024];
	int ret;

	if (o->html)
		ret = result_read__file(o->positional[0], a, err, sizeof(err)) ||
		      result_read__file(o->positional[1], b, err, sizeof(err));
	else
		ret = result_load__file(o->positional[0], &a->loaded, err, sizeof(err)) ||
		      result_load__file(o->positional[1], &b->loaded, err, sizeof(err));
	if (ret)
		die_msg("%s", err);
	return ret;
}

/* compare reads only the files it is given: cfg is not used. */
int cmd_compare(int argc, char **argv, const struct env_config *cfg)
{
	struct saved_result a = {}, b = {};
	struct comparison c = {};
	struct outfile out = {}, html = {};
	struct options o;
	int ret, err;

	(void)cfg;
	err = cli_parse("compare", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 2) {
		die_msg("compare takes two result files: blktrace-bench compare A.json B.json "
			"[--json] [--html FILE] [--fail-on-regression PCT]");
		return EXIT_USAGE;
	}
	ret = open_output(&o, &out, &html);
	if (ret)
		goto cleanup;
	ret = EXIT_USAGE;
	if (load_inputs(&o, &a, &b))
		goto cleanup;
	ret = EXIT_FAIL;
	if (compare__build(&c, &a.loaded, &b.loaded, o.positional[0], o.positional[1])) {
		die_msg("out of memory");
		goto cleanup;
	}
	if (write_output(&o, &c, &out) || (o.html && write_html(&c, &a, &b, &html)))
		goto cleanup;
	/* A script must not take "nothing in common" for "no regression". */
	if (!c.nr_sets) {
		die_msg("nothing compared: no set of runs in %s has the parameters of one in %s",
			o.positional[0], o.positional[1]);
		goto cleanup;
	}
	ret = EXIT_OK;
	if (o.fail_on_regression_set && compare__regressions(&c, o.fail_on_regression, stderr))
		ret = EXIT_REGRESSION;
cleanup:
	outfile__abort(&out);
	outfile__abort(&html);
	compare__free(&c);
	result_read__free(&a);
	result_read__free(&b);
	return ret;
}
