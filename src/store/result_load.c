// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Saved results read back: a result file -> the run summaries a live run has (summary.h:
 * label, params, the metric values of metrics.h, the request-size and segment
 * histograms), so that compare works on the same structs as every other reader. Every
 * field read is checked for type and range, with one line naming the file and the field
 * when one is wrong. The schema is defined once: the metric names are their paths in
 * the document report_json.c writes, and a unit test round-trips every metric.
 *
 * Memory is bounded by the runs, not by the file: a result holds latency histograms
 * of up to 2048 buckets per run, and jansson spends some 500 bytes on each bucket
 * object, so a whole 31 MB file of 3000 runs took 420 MB as one document. Here
 * jansson parses one member of the top level, or one run (at most RUN_MAX bytes), at
 * a time; each run is checked and turned into a run summary before the next is
 * parsed. Members nobody reads ("series") are skipped with their brackets matched,
 * never parsed (json_lex.c walks the document: jansson has no streaming interface).
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
#include "base/diag.h"
#include "base/parse.h"
#include "hist.h"
#include "store/result_load.h"
#include "base/text.h"
#include "store/json_lex.h"

#define SCHEMA_PREFIX "blktrace-bench/"
/* A run of ours is some 1.5 MB at most (10k histogram buckets, indented): 4 MiB bounds
 * the one run jansson holds at a time. */
#define RUN_MAX (4UL << 20)
/* Our counters are 64-bit: anything above 2^63 is no measurement (1e308 overflows sums). */
#define METRIC_MAX 9223372036854775808.0
/* A file larger than this is no result of ours (jansson's positions are ints, too). */
#define FILE_MAX (1UL << 30)

struct loader {
	const char *name;
	struct json_lex lex;	 /* the document, walked one member or run at a time */
	struct diag *d;		 /* never NULL: the caller's, or a scratch one */
	result_load_run_fn each; /* NULL, or called with every run read */
	void *each_ctx;
};

/* The histograms compare prints, and their kind. */
static const struct {
	const char *name;
	enum hist_kind kind;
} hists[] = {
	{ "request_bytes", HIST_KIND_SIZE },
	{ "segments", HIST_KIND_COUNT },
};

const char *result_load__type_name(json_t *v)
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

/* What is wrong with the document: bad input (diag.h); finish() names the file. */
static int bad(struct loader *l, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct loader *l, int ret, const char *fmt, ...)
{
	char what[DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return diag__usage_err(l->d, ret, "%s", what);
}

/* The outcome of a load: ret, with a message naming the file, on one line. */
static int finish(struct loader *l, int ret)
{
	if (!ret)
		return 0;
	if (l->d->err != ret) /* nobody said why: only memory fails that way */
		diag__fail(l->d, ret, "%s", ret == -ENOMEM ? "out of memory" : strerror(-ret));
	diag__prefix(l->d, "%s: ", l->name);
	text__one_line(l->d->msg); /* jansson quotes the text near a parse error */
	return ret;
}

/* Reading and checking the fields of a run */

/* The value at a dotted path in obj, or NULL; *parent is where a non-object stopped it. */
static json_t *path_get(json_t *obj, const char *path, json_t **parent, size_t *parent_len)
{
	const char *p = path;
	char key[64];

	while (obj && *p) {
		size_t len = strcspn(p, ".");

		if (!json_is_object(obj)) {
			*parent = obj;
			*parent_len = (size_t)(p - path - 1);
			return NULL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)len, p);
		obj = json_object_get(obj, key);
		p += len + (p[len] == '.');
	}
	return obj;
}

/* Metric id of run i: absent is fine, anything but a number in range is not. */
static int read_metric(struct loader *l, size_t i, json_t *run, enum metric_id id,
		       struct run_summary *rs)
{
	const char *path = metric_defs[id].name;
	json_t *parent = NULL, *v;
	size_t plen = 0;
	double x, max;

	v = path_get(run, path, &parent, &plen);
	if (parent)
		return bad(l, -EINVAL, "runs[%zu].%.*s is %s, not an object", i, (int)plen, path,
			   result_load__type_name(parent));
	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad(l, -EINVAL, "runs[%zu].%s is %s, not a number", i, path,
			   result_load__type_name(v));
	x = json_number_value(v);
	max = strstr(path, "limit_bound.") ? 1 : METRIC_MAX;
	if (!(x >= 0 && x <= max))
		return bad(l, -ERANGE, "runs[%zu].%s = %g is out of range (0 to %g)", i, path, x,
			   max);
	rs->metric[id] = x;
	rs->has_metric[id] = true;
	return 0;
}

/* h: the path of the bucket array within run i ("block.segments.buckets"). */
static int bucket_int(struct loader *l, size_t i, const char *h, size_t j, json_t *b,
		      const char *key, bool null_ok, json_int_t *out)
{
	json_t *v = json_object_get(b, key);

	if (null_ok && json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v))
		return bad(l, -EINVAL, "runs[%zu].%s[%zu].%s is %s, not an integer", i, h, j, key,
			   v ? result_load__type_name(v) : "missing");
	*out = json_integer_value(v);
	if (*out < 0)
		return bad(l, -ERANGE, "runs[%zu].%s[%zu].%s = %lld is negative", i, h, j, key,
			   (long long)*out);
	return 0;
}

/* The bucket of ours [lo, hi) is: its index, or -1 when it is none (hi -1: open). */
static long our_bucket(enum hist_kind kind, json_int_t lo, json_int_t hi)
{
	unsigned int idx = kind == HIST_KIND_SIZE    ? hist_size_index((uint64_t)lo)
			   : kind == HIST_KIND_COUNT ? hist_count_index((uint64_t)lo)
						     : hist_lat_index((uint64_t)lo);
	uint64_t want_hi = hist_bucket_hi(kind, idx);

	if (hist_bucket_lo(kind, idx) != (uint64_t)lo)
		return -1;
	if (hi < 0 ? want_hi != UINT64_MAX : want_hi != (uint64_t)hi)
		return -1;
	return idx;
}

/* One bucket j of the histogram at h into out: checked, ascending after prev_hi. */
static int read_bucket(struct loader *l, size_t i, const char *h, enum hist_kind kind, size_t j,
		       json_t *b, json_int_t *prev_hi, __u64 *out)
{
	json_int_t lo, hi, count;
	long idx;
	int ret;

	if (!json_is_object(b))
		return bad(l, -EINVAL, "runs[%zu].%s[%zu] is %s, not an object", i, h, j,
			   result_load__type_name(b));
	ret = bucket_int(l, i, h, j, b, "lo", false, &lo);
	if (!ret)
		ret = bucket_int(l, i, h, j, b, "hi", true, &hi);
	if (!ret)
		ret = bucket_int(l, i, h, j, b, "count", false, &count);
	if (ret)
		return ret;
	if (hi >= 0 && hi <= lo)
		return bad(l, -ERANGE, "runs[%zu].%s[%zu]: lo %lld is not below hi %lld", i, h, j,
			   (long long)lo, (long long)hi);
	if (j && (*prev_hi < 0 || lo < *prev_hi))
		return bad(l, -ERANGE,
			   "runs[%zu].%s[%zu]: lo %lld overlaps the "
			   "bucket before it (buckets ascend)",
			   i, h, j, (long long)lo);
	idx = our_bucket(kind, lo, hi);
	if (idx < 0)
		return bad(l, -EINVAL,
			   "runs[%zu].%s[%zu]: [%lld, %lld) is not a "
			   "bucket of this histogram",
			   i, h, j, (long long)lo, (long long)hi);
	*prev_hi = hi;
	out[idx] += (__u64)count;
	return 0;
}

/* Buckets ascending and disjoint, as report_json writes them; the open one (hi null) last. */
static int read_buckets(struct loader *l, size_t i, const char *h, enum hist_kind kind,
			json_t *buckets, __u64 *out)
{
	size_t j, max = hist_nr_buckets(kind);
	json_int_t prev_hi = 0;
	json_t *b;
	int ret;

	if (!json_is_array(buckets))
		return bad(l, -EINVAL, "runs[%zu].%s is %s, not an array", i, h,
			   result_load__type_name(buckets));
	if (json_array_size(buckets) > max)
		return bad(l, -ERANGE, "runs[%zu].%s has %zu buckets; the histogram has %zu", i, h,
			   json_array_size(buckets), max);
	json_array_foreach(buckets, j, b) {
		ret = read_bucket(l, i, h, kind, j, b, &prev_hi, out);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_hists(struct loader *l, size_t i, json_t *run, struct run_summary *rs)
{
	__u64 *dest[] = { rs->block.size_all, rs->segments_all };
	json_t *block = json_object_get(run, "block"), *v;
	char path[64];
	size_t k;
	int ret;

	for (k = 0; k < sizeof(hists) / sizeof(hists[0]); k++) {
		v = json_object_get(block, hists[k].name);
		if (v && !json_is_object(v))
			return bad(l, -EINVAL, "runs[%zu].block.%s is %s, not an object", i,
				   hists[k].name, result_load__type_name(v));
		v = json_object_get(v, "buckets");
		if (!v)
			continue;
		snprintf(path, sizeof(path), "block.%s.buckets", hists[k].name);
		ret = read_buckets(l, i, path, hists[k].kind, v, dest[k]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A string member of params into out (len bytes with its NUL). */
static int param_string(struct loader *l, size_t i, const char *key, json_t *v, char *out,
			size_t len)
{
	if (!json_is_string(v))
		return bad(l, -EINVAL, "runs[%zu].params.%s is %s, not a string", i, key,
			   result_load__type_name(v));
	if (strlen(json_string_value(v)) >= len)
		return bad(l, -ERANGE, "runs[%zu].params.%s is longer than %zu characters", i, key,
			   len - 1);
	snprintf(out, len, "%s", json_string_value(v));
	return 0;
}

static int param_uint(struct loader *l, size_t i, const char *key, json_t *v, uint64_t max,
		      uint64_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return bad(l, -EINVAL, "runs[%zu].params.%s is %s, not an integer 0 to %llu", i,
			   key, result_load__type_name(v), (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int param_bool(struct loader *l, size_t i, const char *key, json_t *v, bool *out)
{
	if (!json_is_boolean(v))
		return bad(l, -EINVAL, "runs[%zu].params.%s is %s, not a boolean", i, key,
			   result_load__type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* A job parameter of run i, as def (run.h) says it is written. */
static int read_job_param(struct loader *l, size_t i, const struct job_param_def *def, json_t *v,
			  struct job_params *p)
{
	void *field = job_param__field(def, p);
	uint64_t u;
	int ret;

	switch (def->type) {
	case JOB_PARAM_STRING:
		return param_string(l, i, def->name, v, field, def->size);
	case JOB_PARAM_U64:
		return param_uint(l, i, def->name, v, INT64_MAX, field);
	case JOB_PARAM_UINT:
		ret = param_uint(l, i, def->name, v, UINT32_MAX, &u);
		if (!ret)
			*(unsigned int *)field = (unsigned int)u;
		return ret;
	case JOB_PARAM_SECONDS:
		if (!json_is_number(v) || !(json_number_value(v) >= 0) ||
		    json_number_value(v) > METRIC_MAX)
			return bad(l, -EINVAL, "runs[%zu].params.%s is %s, not a number of seconds",
				   i, def->name, result_load__type_name(v));
		*(double *)field = json_number_value(v);
		return 0;
	case JOB_PARAM_BOOL:
		return param_bool(l, i, def->name, v, field);
	}
	return -EINVAL;
}

/* One member of params; a key that is no job parameter is the --set knob (one at most). */
static int read_param(struct loader *l, size_t i, const char *key, json_t *v, struct job_params *p)
{
	const struct job_param_def *def = job_param__find(key);

	if (def)
		return read_job_param(l, i, def, v, p);
	if (p->set_knob[0])
		return bad(l, -EINVAL,
			   "runs[%zu].params has two settings, %s and %s: a run sweeps one", i,
			   p->set_knob, key);
	if (strlen(key) >= sizeof(p->set_knob))
		return bad(l, -ERANGE, "runs[%zu].params: setting name longer than %zu characters",
			   i, sizeof(p->set_knob) - 1);
	snprintf(p->set_knob, sizeof(p->set_knob), "%s", key);
	return param_string(l, i, key, v, p->set_value, sizeof(p->set_value));
}

static int read_params(struct loader *l, size_t i, json_t *params, struct run_summary *rs)
{
	const char *key;
	json_t *v;
	int ret;

	json_object_foreach(params, key, v) {
		ret = read_param(l, i, key, v, &rs->params);
		if (ret)
			return ret;
	}
	/* A run of the built-in workload always names its rw: no params otherwise. */
	if (!rs->params.rw[0])
		return bad(l, -EINVAL, "runs[%zu].params has no \"rw\"", i);
	return 0;
}

/* "partial": a run cut short, left out of the series; absent in files before it. */
static int read_partial(struct loader *l, size_t i, json_t *v, struct run_summary *rs)
{
	if (v && !json_is_boolean(v))
		return bad(l, -EINVAL, "runs[%zu].partial is %s, not a boolean", i,
			   result_load__type_name(v));
	rs->partial = json_is_true(v);
	return 0;
}

/* Check run i and read what compare uses into rs. */
static int read_run(struct loader *l, size_t i, json_t *run, struct run_summary *rs)
{
	json_t *label = json_object_get(run, "label"), *params = json_object_get(run, "params");
	int ret, k;

	memset(rs, 0, sizeof(*rs));
	if (!json_is_object(run))
		return bad(l, -EINVAL, "runs[%zu] is %s, not an object", i,
			   result_load__type_name(run));
	if (label && !json_is_string(label))
		return bad(l, -EINVAL, "runs[%zu].label is %s, not a string", i,
			   result_load__type_name(label));
	if (params && !json_is_object(params))
		return bad(l, -EINVAL, "runs[%zu].params is %s, not an object", i,
			   result_load__type_name(params));
	if (!label && !params)
		return bad(l, -EINVAL,
			   "runs[%zu] has neither \"params\" nor \"label\": it cannot be matched",
			   i);
	if (label)
		snprintf(rs->label, sizeof(rs->label), "%s", json_string_value(label));
	if (params && (ret = read_params(l, i, params, rs)))
		return ret;
	ret = read_partial(l, i, json_object_get(run, "partial"), rs);
	if (ret)
		return ret;
	rs->has_app = json_is_object(json_object_get(run, "app"));
	rs->has_block = json_is_object(json_object_get(run, "block"));
	for (k = 0; k < NR_METRICS; k++) {
		ret = read_metric(l, i, run, k, rs);
		if (ret)
			return ret;
	}
	return read_hists(l, i, run, rs);
}

/* "runs": [ ... ], one run at a time. */
static int load_runs(struct loader *l, struct loaded_result *out)
{
	struct run_summary *grown;
	size_t i, cap = 0;
	json_t *run;
	int ret;

	l->lex.pos++; /* '[' */
	json_lex__skip_ws(&l->lex);
	if (json_lex__at(&l->lex, ']')) {
		l->lex.pos++;
		return 0;
	}
	for (i = 0;; i++) {
		json_lex__skip_ws(&l->lex);
		ret = json_lex__value(&l->lex, &run, RUN_MAX);
		if (ret == -EFBIG)
			return bad(l, -EFBIG, "runs[%zu] is larger than any run of ours (%lu MiB)",
				   i, RUN_MAX >> 20);
		if (ret)
			return ret;
		if (out->nr_runs == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(out->runs, cap * sizeof(*out->runs));
			if (!grown) {
				json_decref(run);
				return -ENOMEM;
			}
			out->runs = grown;
		}
		ret = read_run(l, i, run, &out->runs[out->nr_runs]);
		if (!ret && l->each)
			ret = l->each(l->each_ctx, i, run, &out->runs[out->nr_runs], l->d);
		json_decref(run);
		if (ret)
			return ret;
		out->nr_runs++;
		ret = json_lex__next_or_end(&l->lex, ']');
		if (ret <= 0)
			return ret;
	}
}

/*
 * Top-level members compare reads, those a result rebuilt whole needs (result_read.c) and
 * tune's (apply and verify read it: tune_plan.c); the rest (series) is checked JSON.
 */
static bool kept(const char *key)
{
	static const char *const keys[] = { "schema", "tool_version",	"command_line",
					    "host",   "device",		"stack",
					    "tracer", "recommendation", "tune" };
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
		return bad(l, -EINVAL, "not a blktrace-bench result: no \"schema\" string");
	s = json_string_value(schema);
	if (strncmp(s, SCHEMA_PREFIX, plen) || parse_uint(s + plen, INT32_MAX, &version))
		return bad(l, -EINVAL, "not a blktrace-bench result: schema \"%.64s\"", s);
	parse_uint(&RESULT_SCHEMA[plen], INT32_MAX, &ours);
	if (version > ours)
		return bad(l, -EPROTONOSUPPORT,
			   "schema %s is newer than this blktrace-bench "
			   "reads (%s): compare with a newer blktrace-bench",
			   s, RESULT_SCHEMA);
	return 0;
}

/* The header's members and their members compare reads, with their types. */
static const struct {
	const char *path;
	json_type type;
} header_types[] = {
	{"tool_version", JSON_STRING}, {"command_line", JSON_STRING},
	{"host", JSON_OBJECT}, {"device", JSON_OBJECT}, {"tune", JSON_OBJECT},
}, header_member_types[] = { /* null is fine for these */
	{"host.kernel", JSON_STRING}, {"device.name", JSON_STRING}, {"device.driver", JSON_STRING},
	{"device.limits", JSON_OBJECT}, {"device.xen_blkfront", JSON_OBJECT},
};

static const char *want_type(json_type type)
{
	return type == JSON_STRING ? "a string" : "an object";
}

/* A top-level member: its type, and its own members' where compare reads them. */
static int check_member(struct loader *l, const char *key, json_t *v)
{
	size_t i, klen = strlen(key);
	const char *path;
	json_t *m;

	if (!strcmp(key, "schema"))
		return check_schema(l, v);
	for (i = 0; i < sizeof(header_types) / sizeof(header_types[0]); i++)
		if (!strcmp(key, header_types[i].path) && json_typeof(v) != header_types[i].type)
			return bad(l, -EINVAL, "\"%s\" is %s, not %s", key,
				   result_load__type_name(v), want_type(header_types[i].type));
	for (i = 0; i < sizeof(header_member_types) / sizeof(header_member_types[0]); i++) {
		path = header_member_types[i].path;
		if (strncmp(path, key, klen) || path[klen] != '.')
			continue;
		m = json_object_get(v, path + klen + 1);
		if (m && !json_is_null(m) && json_typeof(m) != header_member_types[i].type)
			return bad(l, -EINVAL, "\"%s\" is %s, not %s", path,
				   result_load__type_name(m),
				   want_type(header_member_types[i].type));
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

/* The top level's '{', consumed; anything else is said as it is. */
static int open_top(struct loader *l)
{
	const char *type;

	json_lex__skip_ws(&l->lex);
	if (l->lex.pos >= l->lex.len)
		return json_lex__syntax(&l->lex, l->lex.pos,
					"'[' or '{' expected near end of file");
	if (l->lex.buf[l->lex.pos] != '{') {
		type = first_type(l->lex.buf[l->lex.pos]);
		return type ? bad(l, -EINVAL,
				  "not a blktrace-bench result: the top level is %s, not an object",
				  type)
			    : json_lex__syntax(&l->lex, l->lex.pos, "invalid token");
	}
	l->lex.pos++;
	return 0;
}

/* The value of top-level member k: runs one at a time, the header kept, the rest skipped. */
static int load_value(struct loader *l, const char *k, struct loaded_result *out)
{
	json_t *v;
	int ret;

	if (!strcmp(k, "runs") && json_lex__at(&l->lex, '[')) {
		out->has_runs = true;
		return load_runs(l, out);
	}
	/* Several disks' documents (--trace a,b): noted, for check_doc to say what to do. */
	if (!strcmp(k, "results") && json_object_set_new(out->header, k, json_true()))
		return -ENOMEM;
	if (!kept(k) && strcmp(k, "runs"))
		return json_lex__skip_value(&l->lex); /* series: compare recomputes them */
	ret = json_lex__value(&l->lex, &v, RUN_MAX);
	if (ret == -EFBIG)
		ret = bad(l, -EFBIG, "\"%s\" is larger than any of ours (%lu MiB)", k,
			  RUN_MAX >> 20);
	if (!ret)
		ret = check_member(l, k, v);
	if (!ret && json_object_set(out->header, k, v))
		ret = -ENOMEM;
	json_decref(v);
	return ret;
}

/* One "key": value of the top level; seen holds the keys so far (no duplicates). */
static int load_member(struct loader *l, json_t *seen, struct loaded_result *out)
{
	json_t *key;
	const char *k;
	int ret;

	json_lex__skip_ws(&l->lex);
	if (l->lex.pos >= l->lex.len || l->lex.buf[l->lex.pos] != '"')
		return json_lex__syntax(&l->lex, l->lex.pos,
					l->lex.pos >= l->lex.len ? "premature end of input"
								 : "string or '}' expected");
	ret = json_lex__value(&l->lex, &key, 0);
	if (ret)
		return ret;
	k = json_string_value(key);
	json_lex__skip_ws(&l->lex);
	if (l->lex.pos >= l->lex.len || l->lex.buf[l->lex.pos] != ':') {
		ret = json_lex__syntax(&l->lex, l->lex.pos, "':' expected");
		goto out;
	}
	l->lex.pos++;
	json_lex__skip_ws(&l->lex);
	if (json_object_get(seen, k))
		ret = json_lex__syntax(&l->lex, l->lex.pos, "duplicate object key");
	else if (json_object_set_new(seen, k, json_null()))
		ret = -ENOMEM;
	else
		ret = load_value(l, k, out);
out:
	json_decref(key);
	return ret;
}

static int load_top(struct loader *l, struct loaded_result *out)
{
	json_t *seen = json_object();
	int ret;

	if (!seen)
		return -ENOMEM;
	ret = open_top(l);
	if (ret)
		goto out;
	json_lex__skip_ws(&l->lex);
	if (json_lex__at(&l->lex, '}')) {
		l->lex.pos++;
	} else {
		do {
			ret = load_member(l, seen, out);
			if (!ret)
				ret = json_lex__next_or_end(&l->lex,
							    '}'); /* 1: another member follows */
		} while (ret > 0);
	}
	if (ret)
		goto out;
	json_lex__skip_ws(&l->lex);
	ret = l->lex.pos < l->lex.len
		      ? json_lex__syntax(&l->lex, l->lex.pos, "end of file expected")
		      : 0;
out:
	json_decref(seen);
	return ret;
}

/* What only the whole document can say. */
static int check_doc(struct loader *l, const struct loaded_result *out)
{
	json_t *doc = out->header;
	bool any_metric = false;
	size_t i, k;

	if (!json_object_get(doc, "schema"))
		return bad(l, -EINVAL, "not a blktrace-bench result: no \"schema\" string");
	if (!out->has_runs && json_object_get(doc, "results"))
		return bad(l, -EINVAL,
			   "the results of several disks (--trace a,b): one disk's document "
			   "is read; pick it with jq '.results[] | select(.device.name == "
			   "\"NAME\")'");
	if (!out->has_runs)
		return bad(l, -EINVAL, "%s%s",
			   json_object_get(doc, "runs") ? "\"runs\" is not an array"
							: "no \"runs\" array",
			   !json_object_get(doc, "runs") && json_object_get(doc, "device")
				   ? ": a device description (info --json), not the result of a run"
				   : "");
	if (!out->nr_runs)
		return bad(l, -EINVAL, "\"runs\" is empty: nothing to compare");
	for (i = 0; i < out->nr_runs && !any_metric; i++)
		for (k = 0; !any_metric && k < NR_METRICS; k++)
			any_metric = out->runs[i].has_metric[k];
	if (!any_metric)
		return bad(l, -EINVAL,
			   "no run holds a metric compare knows (such as app.mb_per_s "
			   "or block.requests)");
	return 0;
}

static int load_buffer(struct loader *l, struct loaded_result *out)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->header = json_object();
	if (!out->header)
		return -ENOMEM;
	l->lex.d = l->d;
	ret = load_top(l, out);
	if (!ret)
		ret = check_doc(l, out);
	if (ret)
		result_load__free(out);
	return ret;
}

int result_load__buckets(size_t run, const char *path, enum hist_kind kind, json_t *buckets,
			 __u64 *out, struct diag *d)
{
	struct diag scratch = {};
	struct loader l = { .d = d ? d : &scratch };

	return read_buckets(&l, run, path, kind, buckets, out);
}

int result_load__buffer(const char *name, const char *buf, size_t len, struct loaded_result *out,
			struct diag *d)
{
	return result_load__buffer_each(name, buf, len, out, NULL, NULL, d);
}

int result_load__buffer_each(const char *name, const char *buf, size_t len,
			     struct loaded_result *out, result_load_run_fn each, void *ctx,
			     struct diag *d)
{
	struct diag scratch = {};
	struct loader l = { .name = name,
			    .lex = { .buf = buf, .len = len },
			    .d = d ? d : &scratch,
			    .each = each,
			    .each_ctx = ctx };

	return finish(&l, load_buffer(&l, out));
}

int result_load__string(const char *name, const char *text, struct loaded_result *out,
			struct diag *d)
{
	return result_load__buffer(name, text, strlen(text), out, d);
}

void result_load__free(struct loaded_result *lr)
{
	json_decref(lr->header);
	free(lr->runs);
	memset(lr, 0, sizeof(*lr));
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
			return diag__fail(l->d, -ENOMEM, "out of memory");
		}
		buf = nbuf;
		while (got < cap && (n = read(fd, buf + got, cap - got)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				free(buf);
				return diag__fail(l->d, -errno, "%s", strerror(errno));
			}
			got += (size_t)n;
		}
		if (got < cap)
			break; /* the end of the file */
		if (cap > FILE_MAX) {
			free(buf);
			return bad(l, -EFBIG, "larger than any result (%lu MiB at most)",
				   FILE_MAX >> 20);
		}
		cap *= 2;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* The file at l->name, read whole into l->lex.buf and loaded. */
static int load_file(struct loader *l, struct loaded_result *out)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret;

	memset(out, 0, sizeof(*out));
	fd = open(l->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return diag__fail(l->d, -errno, "%s", strerror(errno));
	if (fstat(fd, &st))
		ret = diag__fail(l->d, -errno, "%s", strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = diag__fail(l->d, -EISDIR, "%s", strerror(EISDIR));
	else
		ret = read_all(l, fd, S_ISREG(st.st_mode) ? (size_t)st.st_size : 0, &buf, &got);
	close(fd);
	if (ret)
		return ret;
	l->lex.buf = buf;
	l->lex.len = got;
	ret = load_buffer(l, out);
	free(buf);
	l->lex.buf = NULL;
	return ret;
}

int result_load__file(const char *path, struct loaded_result *out, struct diag *d)
{
	return result_load__file_each(path, out, NULL, NULL, d);
}

int result_load__file_each(const char *path, struct loaded_result *out, result_load_run_fn each,
			   void *ctx, struct diag *d)
{
	struct diag scratch = {};
	struct loader l = { .name = path, .d = d ? d : &scratch, .each = each, .each_ctx = ctx };

	return finish(&l, load_file(&l, out));
}
