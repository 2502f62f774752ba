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
#include "outfile.h"

/* The output file, checked before anything is read: not a device, not an input. */
static int open_output(const struct options *o, struct outfile *out)
{
	struct outfile_input in[2] = { { o->positional[0], "input A" },
				       { o->positional[1], "input B" } };
	char msg[1024];
	int err;

	if (!o->json)
		return 0;
	err = outfile__open(out, "--json", o->json, in, 2, msg, sizeof(msg));
	if (err)
		die_msg("%s", msg);
	return err ? (err == -ENOMEM ? EXIT_FAIL : EXIT_USAGE) : 0;
}

static int write_output(const struct options *o, const struct comparison *c, struct outfile *out)
{
	char msg[1024];
	json_t *doc;
	int err;

	if (!o->json) {
		compare_text__print(stdout, c);
		return finish_stdout() ? EXIT_FAIL : 0;
	}
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

/* compare reads only the files it is given: cfg is not used. */
int cmd_compare(int argc, char **argv, const struct env_config *cfg)
{
	struct loaded_result a = {}, b = {};
	struct comparison c = {};
	struct outfile out = {};
	char err_msg[1024];
	struct options o;
	int ret, err;

	(void)cfg;
	err = cli_parse("compare", argc, argv, &o);
	if (err)
		return err == -ECANCELED ? EXIT_OK : EXIT_USAGE;
	if (o.nr_positional != 2) {
		die_msg("compare takes two result files: blktrace-bench compare A.json B.json "
			"[--json] [--fail-on-regression PCT]");
		return EXIT_USAGE;
	}
	ret = open_output(&o, &out);
	if (ret)
		goto cleanup;
	ret = EXIT_USAGE;
	if (result_load__file(o.positional[0], &a, err_msg, sizeof(err_msg)) ||
	    result_load__file(o.positional[1], &b, err_msg, sizeof(err_msg))) {
		die_msg("%s", err_msg);
		goto cleanup;
	}
	ret = EXIT_FAIL;
	if (compare__build(&c, &a, &b, o.positional[0], o.positional[1])) {
		die_msg("out of memory");
		goto cleanup;
	}
	if (write_output(&o, &c, &out))
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
	compare__free(&c);
	result_load__free(&a);
	result_load__free(&b);
	return ret;
}
