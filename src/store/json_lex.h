/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A JSON document in memory, walked value by value: the punctuation between values and
 * a bracket matcher here, each value itself parsed by jansson, which has no streaming
 * interface. result_load.c reads a result file this way so that memory is bounded by
 * one run, not by the file; members it does not read are skipped, brackets matched,
 * never parsed. A syntax error is bad input (diag.h) with jansson's words and the
 * line and column in the buffer.
 */
#ifndef BLKTRACE_BENCH_JSON_LEX_H
#define BLKTRACE_BENCH_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define JSON_LEX_DEPTH_MAX 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

struct diag;

struct json_lex {
	const char *buf;
	size_t len, pos; /* pos: the next byte to read, never past len */
	struct diag *d;	 /* where a syntax error is said; never NULL */
};

/* Is the next byte c (not at the end)? */
static inline bool json_lex__at(const struct json_lex *x, char c)
{
	return x->pos < x->len && x->buf[x->pos] == c;
}

/* "not valid JSON (truncated or edited?): WHAT at line L, column C" of byte at: -EINVAL. */
int json_lex__syntax(struct json_lex *x, size_t at, const char *what);
/* Past the blanks JSON allows between tokens. */
void json_lex__skip_ws(struct json_lex *x);
/*
 * The value at pos, parsed by jansson (duplicate keys refused); pos moves past it. An
 * object or array longer than max bytes is refused before jansson sees it (-EFBIG,
 * nothing said in d). 0, or -errno; *out is NULL on failure.
 */
int json_lex__value(struct json_lex *x, json_t **out, size_t max);
/* Past the value at pos: an object or array checked only for balance, in linear time. */
int json_lex__skip_value(struct json_lex *x);
/* After a member or element: ',' (returns 1) or the closing bracket (returns 0). */
int json_lex__next_or_end(struct json_lex *x, char close);

#endif /* BLKTRACE_BENCH_JSON_LEX_H */
