// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A result's report, text and JSON, where the user asked for it. See report_out.h. */
#include <errno.h>
#include <string.h>
#include "base/diag.h"
#include "analysis/report.h"
#include "output/report_json.h"
#include "output/report_out.h"
#include "output/report_text.h"

int report_out__write(const struct result *res, const char *json_path, struct outfile *json,
		      bool recommend, bool brief, struct diag *d)
{
	struct report rep;
	json_t *doc;
	int err = 0;

	/* Everything derived, once, before either printer runs. */
	if (report__build(&rep, res, recommend)) {
		outfile__abort(json);
		return diag__fail(d, -ENOMEM, "out of memory");
	}
	if (!json_path || strcmp(json_path, "-"))
		report_text__print(stdout, &rep, brief);
	if (json_path) {
		doc = report_json__doc(&rep);
		err = outfile__put_json(json, doc, OUTFILE_JSON_FLAGS, d);
		json_decref(doc);
	}
	report__free(&rep);
	return err ? err : finish_stdout(d);
}
