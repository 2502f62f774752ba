// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * text.c: UTF-8 repair for JSON, cuts on character boundaries, terminal escaping
 *.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"

static void test_utf8_seq(void **state)
{
	static const struct {
		const char *s;
		size_t want;
	} cases[] = {
		{ "a", 1 },
		{ "\xc3\xa9", 2 },
		{ "\xe2\x82\xac", 3 },
		{ "\xf0\x9f\x98\x80", 4 },
		{ "\x80", 0 },		   /* a lone continuation byte */
		{ "\xc0\xaf", 0 },	   /* overlong '/' */
		{ "\xe0\x80\xaf", 0 },	   /* overlong, 3 bytes */
		{ "\xed\xa0\x80", 0 },	   /* a surrogate */
		{ "\xf4\x90\x80\x80", 0 }, /* above U+10FFFF */
		{ "\xc3", 0 },		   /* cut */
		{ "\xe2\x82", 0 },
		{ "\xff", 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(text__utf8_seq(cases[i].s, strlen(cases[i].s)), cases[i].want);
}

/* The 1023-byte cut of command_line, inside a character: the character goes whole. */
static void test_cut_on_boundary(void **state)
{
	char src[2048], dst[1024];
	json_t *j;

	(void)state;
	memset(src, 'a', 1022);
	strcpy(src + 1022, "\xe2\x82\xac tail"); /* a euro sign across byte 1023 */
	text__copy(dst, sizeof(dst), src);
	assert_int_equal(strlen(dst), 1022);
	j = json_string(dst);
	assert_non_null(j); /* jansson takes it: valid UTF-8 */
	json_decref(j);
	/* exactly fitting: kept */
	memset(src, 'a', 1020);
	strcpy(src + 1020, "\xe2\x82\xac tail");
	text__copy(dst, sizeof(dst), src);
	assert_int_equal(strlen(dst), 1023);
	/* short strings are copied as they are, bad bytes too (scrubbed later) */
	text__copy(dst, sizeof(dst), "x\xff");
	assert_string_equal(dst, "x\xff");
	assert_int_equal(text__utf8_cut("\xc3\xa9\xc3\xa9", 3), 2);
	assert_int_equal(text__utf8_cut("\x80\x80\x80\x80\x80", 3), 3);
}

static void test_json_repair(void **state)
{
	json_t *j, *o;
	char *s;

	(void)state;
	j = text__json("caf\xe9 ok \xc3\xa9");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "caf\xef\xbf\xbd ok \xc3\xa9");
	json_decref(j);
	o = json_object();
	assert_int_equal(text__json_set(o, "k\xff", text__json("v")), 0);
	s = json_dumps(o, JSON_COMPACT);
	assert_string_equal(s, "{\"k\xef\xbf\xbd\":\"v\"}");
	free(s);
	json_decref(o);
}

static void test_escape(void **state)
{
	char buf[65];

	(void)state;
	/* a comm set with prctl(PR_SET_NAME, "\e]0;pwned\a\e[2J") */
	assert_string_equal(text__escape(buf, sizeof(buf), "\x1b]0;pwn\x07\x1b[2J", 16),
			    "\\x1b]0;pwn\\x07\\x1b[2J");
	assert_string_equal(text__escape(buf, sizeof(buf), "a\\b\xc3\xa9", 16), "a\\\\b\\xc3\\xa9");
	/* not NUL-terminated within n */
	assert_string_equal(text__escape(buf, sizeof(buf), "abcdef", 3), "abc");
	/* never half an escape */
	assert_string_equal(text__escape(buf, 5, "a\x01", 2), "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_seq),
		cmocka_unit_test(test_cut_on_boundary),
		cmocka_unit_test(test_json_repair),
		cmocka_unit_test(test_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
