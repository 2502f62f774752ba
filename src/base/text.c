// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * UTF-8 repair, cutting and escaping (see text.h for the rules). Hand-written: jansson
 * validates strings but exports no function that says where one goes wrong, and
 * glibc's mbrtowc depends on the locale (the C locale takes no byte above 0x7f).
 * The decoder accepts exactly what jansson's does: no overlong forms, no surrogates,
 * nothing above U+10FFFF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/text.h"

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

size_t text__utf8_seq(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (!len)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* a continuation byte, an overlong lead or beyond U+10FFFF */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* above U+10FFFF */
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

size_t text__utf8_cut(const char *s, size_t max)
{
	size_t len = strnlen(s, max + 1), cut, i, n;

	if (len <= max)
		return len;
	/* The last character that starts before max: keep it only when it ends there. */
	for (cut = max, i = 0; cut > 0 && i < 3 && ((unsigned char)s[cut] & 0xc0) == 0x80; i++)
		cut--;
	/* Only a valid character that max would cut is dropped; bad bytes are scrubbed later. */
	n = text__utf8_seq(s + cut, strnlen(s + cut, 4));
	return n && cut + n > max ? cut : max;
}

void text__copy(char *dst, size_t size, const char *src)
{
	size_t n;

	if (!size)
		return;
	n = text__utf8_cut(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void text__one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

char *text__utf8_scrub(const char *s)
{
	size_t len = strlen(s), i = 0, o = 0, n;
	char *out;

	/* Each bad byte grows to three: never more than 3 x len. */
	out = malloc(3 * len + 1);
	if (!out)
		return NULL;
	while (i < len) {
		n = text__utf8_seq(s + i, len - i);
		if (n) {
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
		} else {
			memcpy(out + o, REPLACEMENT, 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return out;
}

json_t *text__json(const char *s)
{
	json_t *j;
	char *fixed;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	fixed = text__utf8_scrub(s);
	j = fixed ? json_string(fixed) : NULL;
	free(fixed);
	return j;
}

int text__json_set(json_t *obj, const char *key, json_t *value)
{
	char *fixed;
	int ret;

	if (!json_object_set_new(obj, key, json_incref(value))) {
		json_decref(value);
		return 0;
	}
	fixed = text__utf8_scrub(key);
	ret = fixed ? json_object_set_new(obj, fixed, value) : (json_decref(value), -1);
	free(fixed);
	return ret;
}

const char *text__escape(char *buf, size_t size, const char *s, size_t n)
{
	size_t i, o = 0;

	if (!size)
		return buf;
	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = s[i];
		char tmp[5];
		size_t w;

		if (c == '\\')
			w = (size_t)snprintf(tmp, sizeof(tmp), "\\\\");
		else if (c >= 0x20 && c < 0x7f)
			w = (size_t)snprintf(tmp, sizeof(tmp), "%c", c);
		else
			w = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		if (o + w >= size)
			break; /* never half an escape */
		memcpy(buf + o, tmp, w);
		o += w;
	}
	buf[o] = '\0';
	return buf;
}

void text__join(char *buf, size_t len, int argc, char **argv)
{
	char *all = NULL;
	size_t all_len = 0;
	FILE *f = open_memstream(&all, &all_len);
	int i;

	buf[0] = '\0';
	for (i = 0; f && i < argc; i++)
		fprintf(f, "%s%s", i ? " " : "", argv[i]);
	if (f && !fclose(f))
		text__copy(buf, len, all);
	free(all);
}
