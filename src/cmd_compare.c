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
static int open_output(const struct options *o, struct outfile *out, struct diag *d)
{
	struct outfile_input in[2] = { { o->positional[0], "input A" },
				       { o->positional[1], "input B" } };

	return o->json ? outfile__open(out, "--json", o->json, in, 2, d) : 0;
}

static int write_output(const struct options *o, const struct comparison *c, struct outfile *out,
			struct diag *d)
{
	json_t *doc;
	int err;

	if (!o->json) {
		compare_text__print(stdout, c);
		return finish_stdout(d);
	}
	doc = compare_json__doc(c);
	err = doc ? outfile__write_json(out, doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10))
		  : -ENOMEM;
	json_decref(doc);
	if (err)
		return diag__fail(d, err, "cannot write --json %s: %s", o->json, strerror(-err));
	err = outfile__commit(out, d);
	return err ? err : finish_stdout(d);
}

/* Load both files and compare them: 0, EXIT_REGRESSION, or -errno with d. */
static int compare_files(const struct options *o, struct outfile *out, struct diag *d)
{
	struct loaded_result a = {}, b = {};
	struct comparison c = {};
	int ret;

	ret = result_load__file(o->positional[0], &a, d);
	if (!ret)
		ret = result_load__file(o->positional[1], &b, d);
	if (!ret && compare__build(&c, &a, &b, o->positional[0], o->positional[1]))
		ret = diag__fail(d, -ENOMEM, "out of memory");
	if (!ret)
		ret = write_output(o, &c, out, d);
	/* A script must not take "nothing in common" for "no regression". */
	if (!ret && !c.nr_sets)
		ret = diag__fail(d, -ENODATA,
				 "nothing compared: no set of runs in %s has the "
				 "parameters of one in %s",
				 o->positional[0], o->positional[1]);
	if (!ret && o->fail_on_regression_set &&
	    compare__regressions(&c, o->fail_on_regression, stderr))
		ret = EXIT_REGRESSION;
	compare__free(&c);
	result_load__free(&a);
	result_load__free(&b);
	return ret;
}

/* compare reads only the files it is given: cfg is not used. */
int cmd_compare(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct outfile out = {};
	int ret;

	(void)cfg;
	ret = open_output(o, &out, d);
	if (!ret)
		ret = compare_files(o, &out, d);
	outfile__abort(&out);
	return ret;
}
