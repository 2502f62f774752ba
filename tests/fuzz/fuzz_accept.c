// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: serve's content negotiation (openmetrics.c), the one piece of an
 * HTTP request from the network our code parses (libmicrohttpd parses the rest). The
 * input is an Accept header's value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "serve/openmetrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *accept = malloc(size + 1);
	enum om_format fmt;

	if (!accept)
		return 0;
	memcpy(accept, data, size);
	accept[size] = '\0';
	fmt = openmetrics__negotiate(accept);
	if (fmt != OM_TEXT_0_0_4 && fmt != OM_OPENMETRICS_1)
		abort();
	free(accept);
	return 0;
}
