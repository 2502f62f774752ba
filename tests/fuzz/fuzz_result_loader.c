// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the result loader (result_load.c), then the whole comparison, its
 * text and its JSON, on whatever a result file may hold. A refusal must be one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "output/compare_json.h"
#include "output/compare_text.h"
#include "base/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loaded_result lr;
	struct comparison c;
	struct diag d = {};
	json_t *doc;
	FILE *out;

	if (result_load__buffer("fuzz.json", (const char *)data, size, &lr, &d)) {
		if (lr.runs || lr.header || !d.msg[0] || strchr(d.msg, '\n'))
			abort(); /* a refusal is one line, and leaves nothing behind */
		return 0;
	}
	if (compare__build(&c, &lr, &lr, "fuzz.json", "fuzz.json"))
		abort(); /* only ENOMEM fails, and fuzzing inputs are small */
	out = fopen("/dev/null", "w");
	if (out) {
		compare_text__print(out, &c);
		compare__regressions(&c, 5, out);
		fclose(out);
	}
	doc = compare_json__doc(&c);
	json_decref(doc);
	compare__free(&c);
	result_load__free(&lr);
	return 0;
}
