// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The compare command: read two result files (result_load.c; with --html rebuilt whole,
 * result_read.c), compare them (compare.c), print the text (compare_text.c), the JSON
 * (compare_json.c) or the page (compare_html.c), and exit with what a script needs to
 * know.
 */
#include <errno.h>
#include <string.h>
#include "cli/cli.h"
#include "cli/commands.h"
#include "analysis/compare.h"
#include "analysis/hypervisor.h"
#include "output/hypervisor_print.h"
#include "output/compare_json.h"
#include "output/compare_text.h"
#include "output/compare_html.h"
#include "files/outfile.h"
#include "store/result_read.h"

/* The output files, checked before anything is read: not a device, not an input. */
static int open_outputs(const struct options *o, struct outfile *out, struct outfile *html,
			struct diag *d)
{
	struct outfile_input in[3] = { { o->positional[0], "input A" },
				       { o->positional[1], "input B" },
				       { o->json, "the --json output as well" } };
	int err = 0;

	if (o->json && o->html && !strcmp(o->json, "-") && !strcmp(o->html, "-"))
		return diag__usage(d, "--json and --html -: only one of them can go to stdout");
	if (o->json)
		err = outfile__open(out, "--json", o->json, in, 2, d);
	if (!err && o->html)
		err = outfile__open(html, "--html", o->html, in, 3, d);
	return err;
}

static int write_json(const struct comparison *c, struct outfile *out, struct diag *d)
{
	json_t *doc = compare_json__doc(c);
	int err = outfile__put_json(out, doc, OUTFILE_JSON_FLAGS, d);

	json_decref(doc);
	return err;
}

/* The text on stdout unless --json or --html is asked for; then those. */
static int write_output(const struct options *o, const struct comparison *c,
			const struct saved_result *a, const struct saved_result *b,
			struct outfile *out, struct outfile *html, struct diag *d)
{
	int err = 0;

	if (!o->json && !o->html)
		compare_text__print(stdout, c);
	if (o->json)
		err = write_json(c, out, d);
	if (!err && o->html) {
		/* A over B: the histograms of the results rebuilt whole. */
		compare_html__print(html->f, c, &a->res, &b->res);
		err = outfile__commit(html, d);
	}
	return err ? err : finish_stdout(d);
}

/* One input: what compare reads, and with --html the result rebuilt whole. */
static int load_input(const struct options *o, const char *path, struct saved_result *sr,
		      struct diag *d)
{
	return o->html ? result_read__file(path, sr, d) : result_load__file(path, &sr->loaded, d);
}

/* Is the device of a loaded file's header of this kind ("xen_blkfront", "xen_guest")? */
static bool header_has(const struct loaded_result *l, const char *key)
{
	json_t *v = json_object_get(json_object_get(l->header, "device"), key);

	return v && !json_is_null(v);
}

/*
 * A guest's trace of its xen-blkfront disk and dom0's of the device blkback serves it
 * from: not two runs to weigh, but both sides of one. Read both whole and link them.
 */
static int link_files(const struct options *o, const char *const files[2], struct outfile *out,
		      struct diag *d)
{
	struct saved_result sr[2] = {};
	struct hv_link l;
	bool guest_first = true;
	char why[256] = "";
	int ret, g;

	if (o->html)
		return diag__usage(d, "compare of a guest's trace and dom0's has no --html page: "
				      "the text, or --json");
	if (o->fail_on_regression_set)
		return diag__usage(d, "--fail-on-regression weighs two runs of one disk; a guest's "
				      "trace and dom0's are two sides of one run");
	ret = result_read__file(files[0], &sr[0], d);
	if (!ret)
		ret = result_read__file(files[1], &sr[1], d);
	if (!ret && hv_link__pair(&sr[0].res, &sr[1].res, &guest_first, why, sizeof(why)) < 0)
		ret = diag__usage(d, "%s and %s are not of one disk: %s", files[0], files[1], why);
	g = guest_first ? 0 : 1;
	if (!ret && hv_link__build(&l, &sr[g].res, files[g], &sr[1 - g].res, files[1 - g]))
		ret = diag__fail(d, -ENOMEM, "out of memory");
	if (!ret) {
		if (o->json) {
			json_t *doc = hypervisor_print__json(&l);

			ret = outfile__put_json(out, doc, OUTFILE_JSON_FLAGS, d);
			json_decref(doc);
		} else {
			hypervisor_print__text(stdout, &l);
		}
		hv_link__free(&l);
		ret = ret ? ret : finish_stdout(d);
	}
	result_read__free(&sr[0]);
	result_read__free(&sr[1]);
	return ret;
}

/* Load both files and compare them: 0, EXIT_REGRESSION, or -errno with d. */
static int compare_files(const struct options *o, struct outfile *out, struct outfile *html,
			 struct diag *d)
{
	struct saved_result a = {}, b = {};
	struct comparison c = {};
	int ret;

	ret = load_input(o, o->positional[0], &a, d);
	if (!ret)
		ret = load_input(o, o->positional[1], &b, d);
	if (!ret &&
	    ((header_has(&a.loaded, "xen_blkfront") && header_has(&b.loaded, "xen_guest")) ||
	     (header_has(&b.loaded, "xen_blkfront") && header_has(&a.loaded, "xen_guest")))) {
		const char *files[2] = { o->positional[0], o->positional[1] };

		result_read__free(&a);
		result_read__free(&b);
		return link_files(o, files, out, d);
	}
	if (!ret && compare__build(&c, &a.loaded, &b.loaded, o->positional[0], o->positional[1]))
		ret = diag__fail(d, -ENOMEM, "out of memory");
	if (!ret)
		ret = write_output(o, &c, &a, &b, out, html, d);
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
	result_read__free(&a);
	result_read__free(&b);
	return ret;
}

/* compare reads only the files it is given: cfg is not used. */
int cmd_compare(const struct options *o, const struct env_config *cfg, struct diag *d)
{
	struct outfile out = {}, html = {};
	int ret;

	(void)cfg;
	ret = open_outputs(o, &out, &html, d);
	if (!ret)
		ret = compare_files(o, &out, &html, d);
	outfile__abort(&out);
	outfile__abort(&html);
	return ret;
}
