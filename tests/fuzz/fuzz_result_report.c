// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: a result file rebuilt whole (result_read.c), its report and HTML
 * page, and the HTML comparison of the file with itself, on whatever a result file may
 * hold. A refusal must be one line and leave nothing behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "output/compare_html.h"
#include "base/diag.h"
#include "output/report_html.h"
#include "store/result_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct saved_result sr;
	struct comparison c;
	struct report rep;
	struct diag d = {};
	FILE *out;

	if (result_read__buffer("fuzz.json", (const char *)data, size, &sr, &d)) {
		if (sr.res.runs || sr.res.layers || sr.loaded.runs || !d.msg[0] ||
		    strchr(d.msg, '\n'))
			abort();
		return 0;
	}
	if (report__build(&rep, &sr.res, sr.recommend) ||
	    compare__build(&c, &sr.loaded, &sr.loaded, "a.json", "b.json"))
		abort(); /* only ENOMEM fails, and fuzzing inputs are small */
	out = fopen("/dev/null", "w");
	if (out) {
		report_html__print(out, &rep, "fuzz.json");
		compare_html__print(out, &c, &sr.res, &sr.res);
		fclose(out);
	}
	compare__free(&c);
	report__free(&rep);
	result_read__free(&sr);
	return 0;
}
