/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Text that leaves the tool. Strings from argv, sysfs or another process are bytes,
 * not text: JSON needs valid UTF-8 (jansson refuses anything else, and a refused
 * string used to lose the whole document), a fixed-size copy must not split a
 * character, and a process name must not reach a terminal raw.
 *
 * The rules, one place: every byte that is not part of a valid UTF-8 sequence
 * becomes U+FFFD in JSON (as Python's errors="replace" and jq do); copies are cut
 * before a character, never inside one; in text output every byte outside printable
 * ASCII is written as \xNN and a backslash as \\.
 */
#ifndef BLKTRACE_BENCH_TEXT_H
#define BLKTRACE_BENCH_TEXT_H

#include <stddef.h>
#include <jansson.h>

/* Length of the valid UTF-8 sequence at s (at most len bytes), 0 when there is none. */
size_t text__utf8_seq(const char *s, size_t len);
/* The longest prefix of s, at most max bytes, that does not end inside a character. */
size_t text__utf8_cut(const char *s, size_t max);
/* snprintf(dst, size, "%s", src), cut on a character boundary. */
void text__copy(char *dst, size_t size, const char *src);
/* Control characters (a newline a file's key carried) as spaces: a message on one line. */
void text__one_line(char *s);
/* A copy of s with every invalid byte replaced by U+FFFD; NULL on ENOMEM. */
char *text__utf8_scrub(const char *s);
/* A JSON string of s, repaired as above; NULL on ENOMEM. */
json_t *text__json(const char *s);
/* Set key (repaired as above) of obj to value (a new reference, stolen). 0 or -1. */
int text__json_set(json_t *obj, const char *key, json_t *value);
/* argv[0..argc) joined by spaces into buf (a command line for a label), cut to fit. */
void text__join(char *buf, size_t len, int argc, char **argv);
/* s[0..n) for a terminal: printable ASCII as is, '\' as \\, other bytes as \xNN. */
const char *text__escape(char *buf, size_t size, const char *s, size_t n);
/* argv[0..argc) joined by spaces into buf, cut on a character boundary (a command line). */
void text__join(char *buf, size_t len, int argc, char **argv);

#endif /* BLKTRACE_BENCH_TEXT_H */
