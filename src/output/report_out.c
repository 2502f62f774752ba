// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Results' reports, text, JSON and HTML, where the user asked for them. See report_out.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "analysis/report.h"
#include "output/report_html.h"
#include "output/report_json.h"
#include "output/report_out.h"
#include "output/report_text.h"

static bool asked(const struct outfile *of)
{
	return of && of->path;
}

static bool on_stdout(const struct outfile *of)
{
	return asked(of) && !strcmp(of->path, "-");
}

/* The JSON where asked: one disk's document, or several disks' in one. 0 or -errno with d. */
static int write_json(const struct report *rep, size_t nr, struct outfile *json, struct diag *d)
{
	json_t *doc;
	int err;

	if (!asked(json))
		return 0;
	doc = nr == 1 ? report_json__doc(rep) : report_json__docs(rep, nr);
	err = outfile__put_json(json, doc, OUTFILE_JSON_FLAGS, d);
	json_decref(doc);
	return err;
}

/* The HTML page where asked (one disk: the commands check), from the same report. */
static int write_html(const struct report *rep, struct outfile *html, struct diag *d)
{
	if (!asked(html))
		return 0;
	report_html__print(html->f, rep, NULL);
	return outfile__commit(html, d);
}

int report_out__write(const struct result *res, size_t nr, struct outfile *json,
		      struct outfile *html, bool recommend, bool brief, struct diag *d)
{
	struct report *rep = calloc(nr, sizeof(*rep));
	size_t i, built = 0;
	int err = 0;

	/* Everything derived, once, before any printer runs. */
	while (rep && built < nr && !report__build(&rep[built], &res[built], recommend))
		built++;
	if (built < nr)
		err = diag__fail(d, -ENOMEM, "out of memory");
	for (i = 0; !err && i < nr && !on_stdout(json) && !on_stdout(html); i++)
		report_text__print(stdout, &rep[i], brief);
	if (!err)
		err = write_json(rep, nr, json, d);
	if (!err)
		err = write_html(rep, html, d);
	for (i = 0; i < built; i++)
		report__free(&rep[i]);
	free(rep);
	return err ? err : finish_stdout(d);
}
