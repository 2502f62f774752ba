// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A JSON document walked value by value; see json_lex.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/diag.h"
#include "store/json_lex.h"

int json_lex__syntax(struct json_lex *x, size_t at, const char *what)
{
	size_t i, line = 1, col = 1;

	if (at > x->len)
		at = x->len;
	for (i = 0; i < at; i++, col++)
		if (x->buf[i] == '\n') {
			line++;
			col = 0;
		}
	return diag__usage_err(x->d, -EINVAL,
			       "not valid JSON (truncated or edited?): %s at line %zu, column %zu",
			       what, line, col);
}

void json_lex__skip_ws(struct json_lex *x)
{
	while (x->pos < x->len && strchr(" \t\r\n", x->buf[x->pos]) && x->buf[x->pos])
		x->pos++;
}

/*
 * The end of the object or array at x->pos: brackets matched and strings skipped,
 * nothing parsed. Linear, with a fixed stack as deep as jansson's limit.
 */
static int extent(struct json_lex *x, size_t *end)
{
	unsigned char stack[JSON_LEX_DEPTH_MAX / 8] = { 0 };
	size_t i, depth = 0;

	for (i = x->pos; i < x->len; i++) {
		char c = x->buf[i];

		if (c == '"') {
			for (i++; i < x->len && x->buf[i] != '"'; i++)
				if (x->buf[i] == '\\')
					i++;
			if (i >= x->len)
				break;
		} else if (c == '{' || c == '[') {
			if (depth == JSON_LEX_DEPTH_MAX)
				return json_lex__syntax(x, i, "maximum parsing depth reached");
			if (c == '{')
				stack[depth / 8] |= 1 << depth % 8;
			else
				stack[depth / 8] &= ~(1 << depth % 8);
			depth++;
		} else if (c == '}' || c == ']') {
			size_t top = depth - 1;

			if (!depth || (c == '}') != !!(stack[top / 8] & 1 << top % 8))
				return json_lex__syntax(x, i, "unexpected token");
			if (!--depth) {
				*end = i + 1;
				return 0;
			}
		}
	}
	return json_lex__syntax(x, x->len, "premature end of input");
}

int json_lex__skip_value(struct json_lex *x)
{
	json_t *v;
	size_t end;
	int ret;

	if (x->pos < x->len && (x->buf[x->pos] == '{' || x->buf[x->pos] == '[')) {
		ret = extent(x, &end);
		if (!ret)
			x->pos = end;
		return ret;
	}
	ret = json_lex__value(x, &v, x->len);
	json_decref(v);
	return ret;
}

int json_lex__value(struct json_lex *x, json_t **out, size_t max)
{
	const char *p = x->buf + x->pos;
	size_t n = x->len - x->pos, end;
	json_error_t je;
	int ret;

	*out = NULL;
	if (!n)
		return json_lex__syntax(x, x->pos, "premature end of input");
	if (*p == '{' || *p == '[') {
		ret = extent(x, &end);
		if (ret)
			return ret;
		if (end - x->pos > max)
			return -EFBIG;
		*out = json_loadb(p, end - x->pos, JSON_REJECT_DUPLICATES, &je);
		if (!*out)
			return json_lex__syntax(
				x, x->pos + (je.position > 0 ? (size_t)je.position : 0), je.text);
		x->pos = end;
		return 0;
	}
	/* A scalar: find where it ends (a string at its closing quote), jansson checks it. */
	if (*p == '"') {
		for (end = 1; end < n && p[end] != '"'; end++)
			if (p[end] == '\\')
				end++;
		if (end >= n)
			return json_lex__syntax(x, x->len, "premature end of input in a string");
		end++;
	} else {
		for (end = 0; end < n && p[end] && !strchr(" \t\r\n,]}", p[end]); end++)
			;
	}
	*out = json_loadb(p, end, JSON_DECODE_ANY, &je);
	if (!*out)
		return json_lex__syntax(x, x->pos + (je.position > 0 ? (size_t)je.position : 0),
					je.text);
	x->pos += end;
	return 0;
}

int json_lex__next_or_end(struct json_lex *x, char close)
{
	char what[32];

	json_lex__skip_ws(x);
	if (x->pos < x->len && x->buf[x->pos] == ',') {
		x->pos++;
		return 1;
	}
	if (x->pos < x->len && x->buf[x->pos] == close) {
		x->pos++;
		return 0;
	}
	if (x->pos >= x->len)
		return json_lex__syntax(x, x->pos, "premature end of input");
	snprintf(what, sizeof(what), "',' or '%c' expected", close);
	return json_lex__syntax(x, x->pos, what);
}
