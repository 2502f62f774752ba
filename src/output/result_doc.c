// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A result document in memory, written and read back; see result_doc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "output/result_doc.h"

/* As every result file of the tool is written (report_json's documents). */
#define DOC_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

int result_doc__write(struct outfile *of, json_t *doc, struct diag *d)
{
	int ret = outfile__write_json(of, doc, DOC_FLAGS);

	if (ret) {
		outfile__abort(of);
		return diag__fail(d, ret, "cannot write %s %s: %s", of->what, of->path,
				  strerror(-ret));
	}
	return outfile__commit(of, d);
}

int result_doc__load(json_t *doc, const char *name, struct loaded_result *lr, struct diag *d)
{
	char *text = json_dumps(doc, DOC_FLAGS);
	int ret;

	if (!text)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = result_load__string(name, text, lr, d);
	free(text);
	return ret;
}
