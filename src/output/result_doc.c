// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A result document in memory, written and read back; see result_doc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "output/result_doc.h"

int result_doc__write(struct outfile *of, json_t *doc, struct diag *d)
{
	return outfile__put_json(of, doc, OUTFILE_JSON_FLAGS, d);
}

int result_doc__load(json_t *doc, const char *name, struct loaded_result *lr, struct diag *d)
{
	char *text = json_dumps(doc, OUTFILE_JSON_FLAGS);
	int ret;

	if (!text)
		return diag__fail(d, -ENOMEM, "out of memory");
	ret = result_load__string(name, text, lr, d);
	free(text);
	return ret;
}
