// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A result document in memory, written and read back; see result_doc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "result_doc.h"

/* As every result file of the tool is written (report_json's documents). */
#define DOC_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(10))

int result_doc__write(struct outfile *of, json_t *doc, char *err, size_t errlen)
{
	int ret = outfile__write_json(of, doc, DOC_FLAGS);

	if (ret) {
		snprintf(err, errlen, "cannot write %s %s: %s", of->what, of->path, strerror(-ret));
		outfile__abort(of);
		return ret;
	}
	return outfile__commit(of, err, errlen);
}

int result_doc__load(json_t *doc, const char *name, struct loaded_result *lr, char *err,
		     size_t errlen)
{
	char *text = json_dumps(doc, DOC_FLAGS);
	int ret;

	if (!text) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = result_load__string(name, text, lr, err, errlen);
	free(text);
	return ret;
}
