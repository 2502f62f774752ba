// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: what apply reads and writes as root. A result file through the loader
 * and tune_plan__read, then the files apply would write from it. A refusal must be one
 * line; a file written must hold exactly one line that is no comment (the udev rule or
 * the modprobe.d line, its last), with balanced quotes: nothing in a result may add a
 * line, a rule or a RUN+= to a system file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tune/apply_files.h"
#include "base/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Comments, then one line with an even number of quotes, ending the file. */
static void check_file(const char *text)
{
	const char *line = text, *nl;
	int other = 0, quotes;

	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			abort(); /* every line ends */
		if (*line == '#')
			continue;
		other++;
		for (quotes = 0; line < nl; line++)
			quotes += *line == '"';
		if (quotes % 2 || nl[1])
			abort();
	}
	if (other != 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tune_plan plan;
	struct apply_file files[2];
	struct loaded_result lr;
	struct diag d = {};
	int nr, i;

	if (result_load__buffer("fuzz.json", (const char *)data, size, &lr, &d))
		return 0;
	if (tune_plan__read(&lr, "fuzz.json", &plan, &d)) {
		if (!d.msg[0] || strchr(d.msg, '\n') || !d.usage)
			abort(); /* a refusal is one line, and bad input */
	} else if (!apply_files__make(&plan, "fuzz.json", files, &nr, &d)) {
		for (i = 0; i < nr; i++)
			check_file(files[i].content);
		apply_files__free(files, nr);
	}
	result_load__free(&lr);
	return 0;
}
