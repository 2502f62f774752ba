// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: compare's input parser (compare_load.c), then the whole comparison
 * and its text, on whatever a result file may hold. A refusal must be one line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compare.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = NULL, *cmp;
	char err[512] = "";
	FILE *out;

	if (compare__load_buffer("fuzz.json", (const char *)data, size, &doc, err, sizeof(err))) {
		if (doc || !err[0] || strchr(err, '\n'))
			abort(); /* a refusal is one line, and leaves nothing behind */
		return 0;
	}
	cmp = compare__build(doc, doc, "fuzz.json", "fuzz.json");
	out = fopen("/dev/null", "w");
	if (cmp && out) {
		compare__print_text(out, cmp, doc, doc);
		compare__regressions(cmp, 5, out);
	}
	if (out)
		fclose(out);
	json_decref(cmp);
	json_decref(doc);
	return 0;
}
