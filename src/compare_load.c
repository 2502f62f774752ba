// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * compare's loader: a saved result file -> the small document compare works on, every
 * field it uses checked for type and range, one line naming the file and the field
 * when one is wrong.
 *
 * Memory is bounded by the runs, not by the file: a result holds latency histograms
 * of up to 2048 buckets per run, and jansson spends some 500 bytes on each bucket
 * object, so a whole 31 MB file of 3000 runs took 420 MB as one document. Here
 * jansson parses one member of the top level, or one run (at most RUN_MAX bytes), at
 * a time; each run is checked and cut down to what compare reads (label, params, the
 * metrics of series.c and the two histograms it prints, as flat [lo, hi, count, ...]
 * arrays) before the next is parsed. Members compare does not read ("series") are
 * skipped with their brackets matched, never parsed. Hand-written, because jansson
 * has no streaming interface: the top level's punctuation and that bracket matcher.
 *
 * Documents look like what report_json writes; the reduced runs are
 *   {"label", "params", "app": {metrics}, "block": {metrics, "request_bytes":
 *    {"mean", "p50", "buckets": [lo, hi or -1, count, ...]}, "segments": {...}}}
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "compare.h"
#include "hist.h"
#include "report.h"
#include "series.h"

#define SCHEMA_PREFIX "blktrace-bench/"
/* A run of ours is some 1.5 MB at most (10k histogram buckets, indented): 4 MiB bounds
 * the one run jansson holds at a time. */
#define RUN_MAX (4UL << 20)
#define JSON_DEPTH_MAX 2048 /* jansson's JSON_PARSER_MAX_DEPTH */
/* Our counters are 64-bit: anything above 2^63 is no measurement (1e308 overflows sums). */
#define METRIC_MAX 9223372036854775808.0
/* A file larger than this is no result of ours (jansson's positions are ints, too). */
#define FILE_MAX (1UL << 30)

struct loader {
	const char *name;
	const char *buf;
	size_t len, pos;
	char *err;
	size_t errlen;
};

/* The histograms compare prints, and how many buckets ours have at most. */
static const struct {
	const char *name;
	size_t max;
} hists[] = {
	{"request_bytes", HIST_SIZE_BUCKETS},
	{"segments", HIST_COUNT_BUCKETS},
};

/* Metric paths read besides series.c's: the "what moved underneath" lines. */
static const char *const extra_paths[] = {"block.segments.p50"};

const char *compare__type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* One line whatever the file held: jansson quotes the text near a parse error. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static int fail(struct loader *l, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *l, int ret, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(l->err, l->errlen, "%s: ", l->name);

	if (n >= 0 && (size_t)n < l->errlen) {
		va_start(ap, fmt);
		vsnprintf(l->err + n, l->errlen - n, fmt, ap);
		va_end(ap);
	}
	one_line(l->err);
	return ret;
}

/* A syntax error at byte offset at of the file: jansson's words, our line and column. */
static int syntax(struct loader *l, size_t at, const char *what)
{
	size_t i, line = 1, col = 1;

	if (at > l->len)
		at = l->len;
	for (i = 0; i < at; i++, col++)
		if (l->buf[i] == '\n') {
			line++;
			col = 0;
		}
	return fail(l, -EINVAL, "not valid JSON (truncated or edited?): %s at line %zu, column %zu",
		    what, line, col);
}

static int parse_value(struct loader *l, json_t **out, size_t max);

static void skip_ws(struct loader *l)
{
	while (l->pos < l->len && strchr(" \t\r\n", l->buf[l->pos]) && l->buf[l->pos])
		l->pos++;
}

/*
 * The end of the object or array at l->pos: brackets matched and strings skipped,
 * nothing parsed. Linear, with a fixed stack as deep as jansson's limit.
 */
static int extent(struct loader *l, size_t *end)
{
	unsigned char stack[JSON_DEPTH_MAX / 8] = {0};
	size_t i, depth = 0;

	for (i = l->pos; i < l->len; i++) {
		char c = l->buf[i];

		if (c == '"') {
			for (i++; i < l->len && l->buf[i] != '"'; i++)
				if (l->buf[i] == '\\')
					i++;
			if (i >= l->len)
				break;
		} else if (c == '{' || c == '[') {
			if (depth == JSON_DEPTH_MAX)
				return syntax(l, i, "maximum parsing depth reached");
			if (c == '{')
				stack[depth / 8] |= 1 << depth % 8;
			else
				stack[depth / 8] &= ~(1 << depth % 8);
			depth++;
		} else if (c == '}' || c == ']') {
			size_t top = depth - 1;

			if (!depth || (c == '}') != !!(stack[top / 8] & 1 << top % 8))
				return syntax(l, i, "unexpected token");
			if (!--depth) {
				*end = i + 1;
				return 0;
			}
		}
	}
	return syntax(l, l->len, "premature end of input");
}

/* Skip the value at l->pos, checked only for balance: a member compare does not read. */
static int skip_value(struct loader *l)
{
	json_t *v;
	size_t end;
	int ret;

	if (l->pos < l->len && (l->buf[l->pos] == '{' || l->buf[l->pos] == '[')) {
		ret = extent(l, &end);
		if (!ret)
			l->pos = end;
		return ret;
	}
	ret = parse_value(l, &v, l->len);
	json_decref(v);
	return ret;
}

/*
 * The JSON value at l->pos, parsed by jansson; l->pos moves past it. An object or array
 * longer than max bytes is refused before jansson sees it (-EFBIG, l->err unset).
 */
static int parse_value(struct loader *l, json_t **out, size_t max)
{
	const char *p = l->buf + l->pos;
	size_t n = l->len - l->pos, end;
	json_error_t je;
	int ret;

	*out = NULL;
	if (!n)
		return syntax(l, l->pos, "premature end of input");
	if (*p == '{' || *p == '[') {
		ret = extent(l, &end);
		if (ret)
			return ret;
		if (end - l->pos > max)
			return -EFBIG;
		*out = json_loadb(p, end - l->pos, JSON_REJECT_DUPLICATES, &je);
		if (!*out)
			return syntax(l, l->pos + (je.position > 0 ? (size_t)je.position : 0),
				      je.text);
		l->pos = end;
		return 0;
	}
	/* A scalar: find where it ends (a string at its closing quote), jansson checks it. */
	if (*p == '"') {
		for (end = 1; end < n && p[end] != '"'; end++)
			if (p[end] == '\\')
				end++;
		if (end >= n)
			return syntax(l, l->len, "premature end of input in a string");
		end++;
	} else {
		for (end = 0; end < n && p[end] && !strchr(" \t\r\n,]}", p[end]); end++)
			;
	}
	*out = json_loadb(p, end, JSON_DECODE_ANY, &je);
	if (!*out)
		return syntax(l, l->pos + (je.position > 0 ? (size_t)je.position : 0), je.text);
	l->pos += end;
	return 0;
}

/* After a member or element: ',' (returns 1) or the closing bracket (returns 0). */
static int next_or_end(struct loader *l, char close)
{
	char what[32];

	skip_ws(l);
	if (l->pos < l->len && l->buf[l->pos] == ',') {
		l->pos++;
		return 1;
	}
	if (l->pos < l->len && l->buf[l->pos] == close) {
		l->pos++;
		return 0;
	}
	if (l->pos >= l->len)
		return syntax(l, l->pos, "premature end of input");
	snprintf(what, sizeof(what), "',' or '%c' expected", close);
	return syntax(l, l->pos, what);
}

/* Checking the fields compare uses */

/* The number at path in run: absent is fine, anything but a number in range is not. */
static int check_number(struct loader *l, size_t i, json_t *run, const char *path)
{
	const char *p = path;
	json_t *obj = run;
	char key[64];
	double v, max;

	while (*p) {
		size_t len = strcspn(p, ".");

		if (!json_is_object(obj))
			return fail(l, -EINVAL, "runs[%zu].%.*s is %s, not an object", i,
				    (int)(p - path - 1), path, compare__type_name(obj));
		snprintf(key, sizeof(key), "%.*s", (int)len, p);
		obj = json_object_get(obj, key);
		if (!obj)
			return 0;
		p += len + (p[len] == '.');
	}
	if (!json_is_number(obj))
		return fail(l, -EINVAL, "runs[%zu].%s is %s, not a number", i, path,
			    compare__type_name(obj));
	v = json_number_value(obj);
	max = strstr(path, "limit_bound.") ? 1 : METRIC_MAX;
	if (!(v >= 0 && v <= max))
		return fail(l, -ERANGE, "runs[%zu].%s = %g is out of range (0 to %g)", i, path, v,
			    max);
	return 0;
}

static int bucket_int(struct loader *l, size_t i, const char *h, size_t j, json_t *b,
		      const char *key, bool null_ok, json_int_t *out)
{
	json_t *v = json_object_get(b, key);

	if (null_ok && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v))
		return fail(l, -EINVAL, "runs[%zu].block.%s.buckets[%zu].%s is %s, not an integer",
			    i, h, j, key, v ? compare__type_name(v) : "missing");
	*out = json_integer_value(v);
	if (*out < 0)
		return fail(l, -ERANGE, "runs[%zu].block.%s.buckets[%zu].%s = %lld is negative", i,
			    h, j, key, (long long)*out);
	return 0;
}

/*
 * Buckets ascending and disjoint, as report_json writes them; the open one (hi null)
 * last. Returns them as a flat array [lo, hi or -1, count, ...] in *flat.
 */
static int check_buckets(struct loader *l, size_t i, size_t k, json_t *buckets, json_t **flat)
{
	const char *h = hists[k].name;
	json_int_t lo, hi, count, prev_hi = 0;
	json_t *b;
	size_t j;
	int ret;

	*flat = NULL;
	if (!json_is_array(buckets))
		return fail(l, -EINVAL, "runs[%zu].block.%s.buckets is %s, not an array", i, h,
			    compare__type_name(buckets));
	if (json_array_size(buckets) > hists[k].max)
		return fail(l, -ERANGE, "runs[%zu].block.%s.buckets has %zu buckets; the "
			    "histogram has %zu", i, h, json_array_size(buckets), hists[k].max);
	*flat = json_array();
	if (!*flat)
		return -ENOMEM;
	json_array_foreach(buckets, j, b) {
		if (!json_is_object(b)) {
			ret = fail(l, -EINVAL, "runs[%zu].block.%s.buckets[%zu] is %s, not an "
				   "object", i, h, j, compare__type_name(b));
			goto err;
		}
		ret = bucket_int(l, i, h, j, b, "lo", false, &lo);
		if (!ret)
			ret = bucket_int(l, i, h, j, b, "hi", true, &hi);
		if (!ret)
			ret = bucket_int(l, i, h, j, b, "count", false, &count);
		if (ret)
			goto err;
		if (hi >= 0 && hi <= lo) {
			ret = fail(l, -ERANGE, "runs[%zu].block.%s.buckets[%zu]: lo %lld is not "
				   "below hi %lld", i, h, j, (long long)lo, (long long)hi);
			goto err;
		}
		if (j && (prev_hi < 0 || lo < prev_hi)) {
			ret = fail(l, -ERANGE, "runs[%zu].block.%s.buckets[%zu]: lo %lld overlaps "
				   "the bucket before it (buckets ascend)", i, h, j,
				   (long long)lo);
			goto err;
		}
		prev_hi = hi;
		if (json_array_append_new(*flat, json_integer(lo)) ||
		    json_array_append_new(*flat, json_integer(hi)) ||
		    json_array_append_new(*flat, json_integer(count))) {
			ret = -ENOMEM;
			goto err;
		}
	}
	return 0;
err:
	json_decref(*flat);
	*flat = NULL;
	return ret;
}

static int set_number(json_t *obj, const char *path, json_t *v)
{
	char key[64];
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		json_t *next;

		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		next = json_object_get(obj, key);
		if (!next) {
			next = json_object();
			if (json_object_set_new(obj, key, next))
				return -ENOMEM;
		}
		obj = next;
		path = dot + 1;
	}
	return json_object_set(obj, path, v) ? -ENOMEM : 0;
}

static json_t *path_get(json_t *obj, const char *path)
{
	char key[64];

	while (obj && *path) {
		size_t len = strcspn(path, ".");

		snprintf(key, sizeof(key), "%.*s", (int)len, path);
		obj = json_object_get(obj, key);
		path += len + (path[len] == '.');
	}
	return obj;
}

/* Check run i and cut it down to what compare reads, in *out. */
static int reduce_run(struct loader *l, size_t i, json_t *run, json_t **out)
{
	json_t *label = json_object_get(run, "label"), *params = json_object_get(run, "params");
	json_t *r, *v, *flat;
	size_t k;
	int ret;

	*out = NULL;
	if (!json_is_object(run))
		return fail(l, -EINVAL, "runs[%zu] is %s, not an object", i,
			    compare__type_name(run));
	if (label && !json_is_string(label))
		return fail(l, -EINVAL, "runs[%zu].label is %s, not a string", i,
			    compare__type_name(label));
	if (params && !json_is_object(params))
		return fail(l, -EINVAL, "runs[%zu].params is %s, not an object", i,
			    compare__type_name(params));
	if (!label && !params)
		return fail(l, -EINVAL, "runs[%zu] has neither \"params\" nor \"label\": it "
			    "cannot be matched", i);
	r = json_object();
	if (!r)
		return -ENOMEM;
	if ((label && json_object_set(r, "label", label)) ||
	    (params && json_object_set(r, "params", params)))
		goto nomem;
	for (k = 0; k < nr_metric_defs + sizeof(extra_paths) / sizeof(extra_paths[0]); k++) {
		const char *path = k < nr_metric_defs ? metric_defs[k].path :
							extra_paths[k - nr_metric_defs];

		ret = check_number(l, i, run, path);
		if (ret)
			goto err;
		v = path_get(run, path);
		if (v && set_number(r, path, v))
			goto nomem;
	}
	for (k = 0; k < sizeof(hists) / sizeof(hists[0]); k++) {
		char path[64];

		snprintf(path, sizeof(path), "block.%s", hists[k].name);
		v = path_get(run, path);
		if (v && !json_is_object(v)) {
			ret = fail(l, -EINVAL, "runs[%zu].%s is %s, not an object", i, path,
				   compare__type_name(v));
			goto err;
		}
		v = json_object_get(v, "buckets");
		if (!v)
			continue;
		ret = check_buckets(l, i, k, v, &flat);
		if (ret)
			goto err;
		snprintf(path, sizeof(path), "block.%s.buckets", hists[k].name);
		ret = set_number(r, path, flat);
		json_decref(flat);
		if (ret)
			goto nomem;
	}
	*out = r;
	return 0;
nomem:
	ret = -ENOMEM;
err:
	json_decref(r);
	return ret;
}

/* "runs": [ ... ], one run at a time. */
static int load_runs(struct loader *l, json_t *runs)
{
	json_t *run, *small;
	size_t i;
	int ret;

	l->pos++; /* '[' */
	skip_ws(l);
	if (l->pos < l->len && l->buf[l->pos] == ']') {
		l->pos++;
		return 0;
	}
	for (i = 0;; i++) {
		skip_ws(l);
		ret = parse_value(l, &run, RUN_MAX);
		if (ret == -EFBIG)
			return fail(l, -EFBIG, "runs[%zu] is larger than any run of ours (%lu MiB)",
				    i, RUN_MAX >> 20);
		if (ret)
			return ret;
		ret = reduce_run(l, i, run, &small);
		json_decref(run);
		if (ret)
			return ret;
		if (json_array_append_new(runs, small))
			return -ENOMEM;
		ret = next_or_end(l, ']');
		if (ret <= 0)
			return ret;
	}
}

/* Top-level members compare reads; the rest (series, recommendation) is checked JSON. */
static bool kept(const char *key)
{
	static const char *const keys[] = {"schema", "tool_version", "command_line", "host",
					   "device"};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

static int check_schema(struct loader *l, json_t *schema)
{
	const size_t plen = strlen(SCHEMA_PREFIX);
	uint64_t version, ours = 0;
	const char *s;

	if (!json_is_string(schema))
		return fail(l, -EINVAL, "not a blktrace-bench result: no \"schema\" string");
	s = json_string_value(schema);
	if (strncmp(s, SCHEMA_PREFIX, plen) || parse_uint(s + plen, INT32_MAX, &version))
		return fail(l, -EINVAL, "not a blktrace-bench result: schema \"%.64s\"", s);
	parse_uint(&RESULT_SCHEMA[plen], INT32_MAX, &ours);
	if (version > ours)
		return fail(l, -EPROTONOSUPPORT, "schema %s is newer than this blktrace-bench "
			    "reads (%s): compare with a newer blktrace-bench", s, RESULT_SCHEMA);
	return 0;
}

/* A top-level member: its type, where compare reads it. */
static int check_member(struct loader *l, const char *key, json_t *v)
{
	static const struct {
		const char *path;
		json_type type;
	} want[] = {
		{"tool_version", JSON_STRING}, {"command_line", JSON_STRING},
		{"host", JSON_OBJECT}, {"device", JSON_OBJECT},
	};
	static const char *const strings[] = {"host.kernel", "device.name", "device.driver"};
	static const char *const objects[] = {"device.limits", "device.xen_blkfront"};
	size_t i, klen = strlen(key);

	if (!strcmp(key, "schema"))
		return check_schema(l, v);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strcmp(key, want[i].path) && json_typeof(v) != want[i].type)
			return fail(l, -EINVAL, "\"%s\" is %s, not %s", key, compare__type_name(v),
				    want[i].type == JSON_STRING ? "a string" : "an object");
	for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		json_t *s;

		if (strncmp(strings[i], key, klen) || strings[i][klen] != '.')
			continue;
		s = json_object_get(v, strings[i] + klen + 1);
		if (s && !json_is_string(s) && !json_is_null(s))
			return fail(l, -EINVAL, "\"%s\" is %s, not a string", strings[i],
				    compare__type_name(s));
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		json_t *o;

		if (strncmp(objects[i], key, klen) || objects[i][klen] != '.')
			continue;
		o = json_object_get(v, objects[i] + klen + 1);
		if (o && !json_is_object(o) && !json_is_null(o))
			return fail(l, -EINVAL, "\"%s\" is %s, not an object", objects[i],
				    compare__type_name(o));
	}
	return 0;
}

static const char *first_type(char c)
{
	if (c == '[')
		return "an array";
	if (c == '"')
		return "a string";
	if (c == '-' || (c >= '0' && c <= '9'))
		return "a number";
	if (c == 't' || c == 'f')
		return "a boolean";
	if (c == 'n')
		return "null";
	return NULL;
}

static int load_top(struct loader *l, json_t *doc)
{
	json_t *seen = json_object(), *key = NULL, *v = NULL;
	const char *type;
	int ret = -ENOMEM;

	if (!seen)
		return -ENOMEM;
	skip_ws(l);
	if (l->pos >= l->len) {
		ret = syntax(l, l->pos, "'[' or '{' expected near end of file");
		goto out;
	}
	if (l->buf[l->pos] != '{') {
		type = first_type(l->buf[l->pos]);
		ret = type ? fail(l, -EINVAL, "not a blktrace-bench result: the top level is %s, "
				  "not an object", type) :
			     syntax(l, l->pos, "invalid token");
		goto out;
	}
	l->pos++;
	skip_ws(l);
	if (l->pos < l->len && l->buf[l->pos] == '}') {
		l->pos++;
		goto end;
	}
	for (;;) {
		const char *k;

		skip_ws(l);
		if (l->pos >= l->len || l->buf[l->pos] != '"') {
			ret = syntax(l, l->pos, l->pos >= l->len ? "premature end of input" :
								  "string or '}' expected");
			goto out;
		}
		ret = parse_value(l, &key, 0);
		if (ret)
			goto out;
		k = json_string_value(key);
		skip_ws(l);
		if (l->pos >= l->len || l->buf[l->pos] != ':') {
			ret = syntax(l, l->pos, "':' expected");
			goto out;
		}
		l->pos++;
		skip_ws(l);
		if (json_object_get(seen, k)) {
			ret = syntax(l, l->pos, "duplicate object key");
			goto out;
		}
		if (json_object_set_new(seen, k, json_null()))
			goto nomem;
		if (!strcmp(k, "runs") && l->pos < l->len && l->buf[l->pos] == '[') {
			json_t *runs = json_array();

			if (!runs || json_object_set_new(doc, "runs", runs))
				goto nomem;
			ret = load_runs(l, runs);
		} else if (kept(k) || !strcmp(k, "runs")) {
			ret = parse_value(l, &v, RUN_MAX);
			if (ret == -EFBIG)
				ret = fail(l, -EFBIG, "\"%s\" is larger than any of ours (%lu MiB)",
					   k, RUN_MAX >> 20);
			if (!ret)
				ret = check_member(l, k, v);
			if (!ret && json_object_set(doc, k, v))
				ret = -ENOMEM;
			json_decref(v);
			v = NULL;
		} else {
			ret = skip_value(l); /* series, recommendation: compare recomputes them */
		}
		json_decref(key);
		key = NULL;
		if (ret)
			goto out;
		ret = next_or_end(l, '}');
		if (ret < 0)
			goto out;
		if (!ret)
			break;
	}
end:
	skip_ws(l);
	ret = l->pos < l->len ? syntax(l, l->pos, "end of file expected") : 0;
	goto out;
nomem:
	ret = -ENOMEM;
out:
	json_decref(key);
	json_decref(seen);
	return ret;
}

/* What only the whole document can say. */
static int check_doc(struct loader *l, json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs"), *run;
	bool any_metric = false;
	size_t i, k;
	double v;

	if (!json_object_get(doc, "schema"))
		return fail(l, -EINVAL, "not a blktrace-bench result: no \"schema\" string");
	if (!json_is_array(runs))
		return fail(l, -EINVAL, "%s%s",
			    runs ? "\"runs\" is not an array" : "no \"runs\" array",
			    !runs && json_object_get(doc, "device") ?
			    ": a device description (info --json), not the result of a run" : "");
	if (!json_array_size(runs))
		return fail(l, -EINVAL, "\"runs\" is empty: nothing to compare");
	json_array_foreach(runs, i, run)
		for (k = 0; !any_metric && k < nr_metric_defs; k++)
			any_metric = !json_path_number(run, metric_defs[k].path, &v);
	if (!any_metric)
		return fail(l, -EINVAL, "no run holds a metric compare knows (such as app.mb_per_s "
			    "or block.requests)");
	return 0;
}

int compare__load_buffer(const char *name, const char *buf, size_t len, json_t **doc, char *err,
			 size_t errlen)
{
	struct loader l = {.name = name, .buf = buf, .len = len, .err = err, .errlen = errlen};
	int ret;

	*doc = json_object();
	if (!*doc)
		return -ENOMEM;
	ret = load_top(&l, *doc);
	if (!ret)
		ret = check_doc(&l, *doc);
	if (ret == -ENOMEM)
		fail(&l, ret, "out of memory");
	if (ret) {
		json_decref(*doc);
		*doc = NULL;
	}
	return ret;
}

int compare__load_string(const char *name, const char *text, json_t **doc, char *err,
			 size_t len)
{
	return compare__load_buffer(name, text, strlen(text), doc, err, len);
}

/* All of fd, a regular file or a pipe (compare <(ssh host cat r.json) ...), up to FILE_MAX. */
static int read_all(struct loader *l, int fd, size_t hint, char **out, size_t *len)
{
	size_t got = 0, cap = hint + 1 > 65536 ? hint + 1 : 65536;
	char *buf = NULL, *nbuf;
	ssize_t n;

	for (;;) {
		if (cap > FILE_MAX + 1)
			cap = FILE_MAX + 1;
		nbuf = realloc(buf, cap);
		if (!nbuf) {
			free(buf);
			return fail(l, -ENOMEM, "out of memory");
		}
		buf = nbuf;
		while (got < cap && (n = read(fd, buf + got, cap - got)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				free(buf);
				return fail(l, -errno, "%s", strerror(errno));
			}
			got += (size_t)n;
		}
		if (got < cap)
			break; /* the end of the file */
		if (cap > FILE_MAX) {
			free(buf);
			return fail(l, -EFBIG, "larger than any result (%lu MiB at most)",
				    FILE_MAX >> 20);
		}
		cap *= 2;
	}
	*out = buf;
	*len = got;
	return 0;
}

int compare__load(const char *path, json_t **doc, char *err, size_t len)
{
	struct loader l = {.name = path, .err = err, .errlen = len};
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret;

	*doc = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(&l, -errno, "%s", strerror(errno));
	if (fstat(fd, &st))
		ret = fail(&l, -errno, "%s", strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = fail(&l, -EISDIR, "%s", strerror(EISDIR));
	else
		ret = read_all(&l, fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &buf, &got);
	close(fd);
	if (ret)
		return ret;
	ret = compare__load_buffer(path, buf, got, doc, err, len);
	free(buf);
	return ret;
}
