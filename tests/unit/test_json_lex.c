// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * json_lex.c, the walker result_load.c reads a result with: values skipped with their
 * brackets matched (strings with brackets and escapes in them included), parsed by
 * jansson within a size bound, and syntax errors at the line and column they are.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/diag.h"
#include "store/json_lex.h"

#define LEX(text, dg)                                                                              \
	{                                                                                          \
		text, sizeof(text) - 1, 0, dg                                                      \
	}

static void test_skip_strings_and_brackets(void **state)
{
	static const char doc[] = "{\"a\": \"}]\\\"{[\", \"b\": [1, {\"c\": []}]} ,";
	struct diag dg = {};
	struct json_lex x = LEX(doc, &dg);

	(void)state;
	assert_int_equal(json_lex__skip_value(&x), 0);
	assert_int_equal(x.pos, strlen(doc) - 2);
	assert_int_equal(json_lex__next_or_end(&x, ']'), 1);
	assert_int_equal(x.pos, strlen(doc));
}

static void test_value_and_bound(void **state)
{
	static const char doc[] = "[1, 2, 3] ]";
	struct diag dg = {};
	struct json_lex x = LEX(doc, &dg);
	json_t *v;

	(void)state;
	assert_int_equal(json_lex__value(&x, &v, 8), -EFBIG); /* 9 bytes: refused unread */
	assert_null(v);
	assert_int_equal(x.pos, 0);
	assert_string_equal(dg.msg, "");
	assert_int_equal(json_lex__value(&x, &v, 9), 0);
	assert_int_equal(json_array_size(v), 3);
	json_decref(v);
	assert_int_equal(json_lex__next_or_end(&x, ']'), 0);
	assert_int_equal(x.pos, sizeof(doc) - 1);
}

static void test_syntax_where(void **state)
{
	static const char doc[] = "{\n  \"a\": [1,\n  2}";
	static const char dup[] = "{\"k\": 1, \"k\": 2}";
	struct diag dg = {};
	struct json_lex x = LEX(doc, &dg), y = LEX(dup, &dg);
	json_t *v;

	(void)state;
	assert_int_equal(json_lex__skip_value(&x), -EINVAL);
	assert_true(dg.usage);
	assert_string_equal(dg.msg,
			    "not valid JSON (truncated or edited?): unexpected token at line 3, "
			    "column 4");
	memset(&dg, 0, sizeof(dg));
	assert_int_equal(json_lex__value(&y, &v, 100), -EINVAL);
	assert_non_null(strstr(dg.msg, "duplicate object key"));
}

static void test_depth(void **state)
{
	size_t n = JSON_LEX_DEPTH_MAX + 1, i;
	char *doc = malloc(2 * n);
	struct diag dg = {};
	struct json_lex x = { doc, 2 * n, 0, &dg };

	(void)state;
	assert_non_null(doc);
	for (i = 0; i < n; i++) {
		doc[i] = '[';
		doc[2 * n - 1 - i] = ']';
	}
	assert_int_equal(json_lex__skip_value(&x), -EINVAL);
	assert_non_null(strstr(dg.msg, "maximum parsing depth reached"));
	x.pos = 1; /* one level less: as deep as jansson goes */
	x.len = 2 * n - 1;
	assert_int_equal(json_lex__skip_value(&x), 0);
	assert_int_equal(x.pos, x.len);
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skip_strings_and_brackets),
		cmocka_unit_test(test_value_and_bound),
		cmocka_unit_test(test_syntax_where),
		cmocka_unit_test(test_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
