// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer target: the JSON walker (json_lex.c) alone, held against jansson reading
 * the same bytes whole. Whatever the bytes, the position never passes the end and a
 * refusal is a syntax error said in the diag. On a document jansson accepts, skipping
 * its value ends where the document does, parsing it gives jansson's value, and walking
 * an object member by member (as result_load.c walks a result) gives each member.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "store/json_lex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failure of the walker: a syntax error with a message, the position in bounds. */
static void check_refusal(const struct json_lex *x, int ret, const struct diag *d)
{
	if (x->pos > x->len || ret != -EINVAL || !d->usage || !d->msg[0])
		abort();
}

/* Skip, then parse, the one value of the document; whole is jansson's, or NULL. */
static void one_value(const char *buf, size_t size, json_t *whole)
{
	struct diag d = {};
	struct json_lex x = { buf, size, 0, &d };
	json_t *v = NULL;
	int ret;

	json_lex__skip_ws(&x);
	ret = json_lex__skip_value(&x);
	if (ret)
		check_refusal(&x, ret, &d);
	json_lex__skip_ws(&x);
	if (whole && (ret || x.pos != size))
		abort();

	memset(&d, 0, sizeof(d));
	x.pos = 0;
	json_lex__skip_ws(&x);
	ret = json_lex__value(&x, &v, size);
	if (ret)
		check_refusal(&x, ret, &d);
	json_lex__skip_ws(&x);
	if (whole && (ret || x.pos != size || !json_equal(v, whole)))
		abort();
	json_decref(v);
}

/* One member at x->pos: its key, ':', its value; 0 or -EINVAL. */
static int member(struct json_lex *x, json_t *whole)
{
	json_t *key = NULL, *v = NULL;
	int ret;

	json_lex__skip_ws(x);
	if (!json_lex__at(x, '"'))
		return json_lex__syntax(x, x->pos, "string expected");
	ret = json_lex__value(x, &key, 0);
	if (!ret && !json_is_string(key))
		abort();
	json_lex__skip_ws(x);
	if (!ret && !json_lex__at(x, ':'))
		ret = json_lex__syntax(x, x->pos, "':' expected");
	if (!ret) {
		x->pos++;
		json_lex__skip_ws(x);
		ret = json_lex__value(x, &v, x->len);
	}
	if (!ret && whole && !json_equal(v, json_object_get(whole, json_string_value(key))))
		abort();
	json_decref(key);
	json_decref(v);
	return ret;
}

/* An object walked as result_load.c walks a result's top level. */
static void members(const char *buf, size_t size, json_t *whole)
{
	struct diag d = {};
	struct json_lex x = { buf, size, 0, &d };
	size_t n = 0;
	int ret = 0;

	json_lex__skip_ws(&x);
	if (!json_lex__at(&x, '{'))
		return;
	x.pos++;
	json_lex__skip_ws(&x);
	if (json_lex__at(&x, '}'))
		x.pos++;
	else
		do {
			ret = member(&x, whole);
			n++;
		} while (!ret && (ret = json_lex__next_or_end(&x, '}')) == 1);
	if (ret)
		check_refusal(&x, ret, &d);
	if (whole && (ret || n != json_object_size(whole)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	json_t *whole = NULL;

	/*
	 * jansson takes a NUL byte after a number for the end of it ("[1\0]" is [1]); JSON
	 * has no such byte outside strings, and the walker refuses it: no oracle there.
	 */
	if (!memchr(data, 0, size))
		whole = json_loadb(buf, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);

	one_value(buf, size, whole);
	members(buf, size, whole);
	json_decref(whole);
	return 0;
}
