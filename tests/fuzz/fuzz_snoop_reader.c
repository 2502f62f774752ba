// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the --snoop-text reader (snoop.c). Whatever the records hold, the
 * text has no byte a terminal would act on: printable ASCII and newlines only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/diag.h"
#include "trace/snoop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag d;
	char *text = NULL;
	size_t len = 0, i;
	FILE *in, *out;

	if (!size)
		return 0;
	in = fmemopen((void *)data, size, "rb");
	out = open_memstream(&text, &len);
	if (in && out)
		snoop__print_stream(in, "fuzz.snoop", out, &d);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	for (i = 0; text && i < len; i++)
		if (text[i] != '\n' && (text[i] < 0x20 || text[i] > 0x7e))
			abort();
	free(text);
	return 0;
}
