// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A tune result read back for apply and verify, every field checked; see tune_plan.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "base/diag.h"
#include "disk/knob.h"
#include "base/text.h"
#include "tune/tune_plan.h"

static const char *type_name(json_type t)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string",  [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a number",    [JSON_TRUE] = "a boolean",
		[JSON_FALSE] = "a boolean",  [JSON_NULL] = "null",
	};

	return names[t];
}

/* o.key, of type want (JSON_REAL: any number; JSON_TRUE: a boolean), or null if may_null. */
static int field(struct diag *d, json_t *o, const char *path, const char *key, json_type want,
		 bool may_null, json_t **out)
{
	json_t *v = json_object_get(o, key);
	bool ok;

	*out = v;
	if (!v)
		return diag__usage(d, "%s.%s is missing", path, key);
	if (json_is_null(v) && may_null)
		return 0;
	ok = want == JSON_REAL	 ? json_is_number(v)
	     : want == JSON_TRUE ? json_is_boolean(v)
				 : json_typeof(v) == want;
	if (!ok)
		return diag__usage(d, "%s.%s is %s, not %s", path, key, result_load__type_name(v),
				   type_name(want));
	return 0;
}

/* A string of at most len - 1 bytes, every byte in chars (NULL: printable, no newline). */
static int string(struct diag *d, json_t *o, const char *path, const char *key, const char *chars,
		  char *buf, size_t len)
{
	const char *s, *c;
	char shown[4 * 64 + 1];
	json_t *v;
	int ret = field(d, o, path, key, JSON_STRING, false, &v);

	if (ret)
		return ret;
	s = json_string_value(v);
	if (strlen(s) >= len)
		return diag__usage(d, "%s.%s is longer than %zu bytes", path, key, len - 1);
	for (c = s; *c; c++)
		if (chars ? !strchr(chars, *c) : (unsigned char)*c < 0x20)
			return diag__usage(
				d, "%s.%s: '%s' holds a character this tool never writes there",
				path, key, text__escape(shown, sizeof(shown), s, 64));
	snprintf(buf, len, "%s", s);
	return 0;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:"
/* Setting values: numbers, -1, scheduler names. */
#define VALUE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"

static int read_disk(struct diag *d, json_t *tune, struct tune_plan *p)
{
	json_t *disk, *v, *match;
	int ret;

	if ((ret = field(d, tune, "tune", "disk", JSON_OBJECT, false, &disk)) ||
	    (ret = string(d, disk, "tune.disk", "name", NAME_CHARS, p->disk, sizeof(p->disk))) ||
	    (ret = field(d, disk, "tune.disk", "major", JSON_INTEGER, false, &v)))
		return ret;
	p->major = (unsigned int)json_integer_value(v);
	if ((ret = field(d, disk, "tune.disk", "minor", JSON_INTEGER, false, &v)))
		return ret;
	p->minor = (unsigned int)json_integer_value(v);
	if ((ret = field(d, disk, "tune.disk", "match", JSON_OBJECT, true, &match)))
		return ret;
	if (json_is_null(match)) {
		/* Said in messages as is, where a newline or an escape sequence must not go. */
		v = json_object_get(disk, "match_note");
		if (json_is_string(v))
			text__escape(p->id_note, sizeof(p->id_note), json_string_value(v),
				     strlen(json_string_value(v)));
		else
			snprintf(p->id_note, sizeof(p->id_note), "no stable identity");
		return 0;
	}
	if ((ret = string(d, match, "tune.disk.match", "key", NULL, p->id.key,
			  sizeof(p->id.key))) ||
	    (ret = string(d, match, "tune.disk.match", "value", NULL, p->id.value,
			  sizeof(p->id.value))) ||
	    (ret = string(d, match, "tune.disk.match", "what", NULL, p->id.what,
			  sizeof(p->id.what))))
		return ret;
	if (!disk_id__known_key(p->id.key))
		return diag__usage(d, "tune.disk.match.key '%s' is no key this tool matches by",
				   p->id.key);
	if (!disk_id__safe(p->id.value))
		return diag__usage(
			d, "tune.disk.match.value '%.64s' cannot be matched exactly by udev",
			p->id.value);
	p->has_id = true;
	return 0;
}

static int read_workload(struct diag *d, json_t *tune, struct tune_workload *w)
{
	static const char *const flags[] = { "hugepages", "no_fixed_bufs", "drop_caches", "wrap",
					     "any_fs" };
	bool *dest[] = { &w->hugepages, &w->no_fixed_bufs, &w->drop_caches, &w->wrap, &w->any_fs };
	char target[16];
	json_t *o, *v;
	size_t i;
	int ret;

	if ((ret = field(d, tune, "tune", "workload", JSON_OBJECT, false, &o)) ||
	    (ret = string(d, o, "tune.workload", "target", NULL, target, sizeof(target))))
		return ret;
	if (!strcmp(target, "raw"))
		w->target = TUNE_TARGET_RAW;
	else if (!strcmp(target, "file"))
		w->target = TUNE_TARGET_FILE;
	else if (!strcmp(target, "new_file"))
		w->target = TUNE_TARGET_NEW_FILE;
	else
		return diag__usage(d, "tune.workload.target '%s' is not raw, file or new_file",
				   target);
	if ((ret = field(d, o, "tune.workload", "path", JSON_STRING, w->target == TUNE_TARGET_RAW,
			 &v)))
		return ret;
	if (json_is_string(v) &&
	    (ret = string(d, o, "tune.workload", "path", NULL, w->path, sizeof(w->path))))
		return ret;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		if ((ret = field(d, o, "tune.workload", flags[i], JSON_TRUE, false, &v)))
			return ret;
		*dest[i] = json_is_true(v);
	}
	return 0;
}

static int read_settings(struct diag *d, json_t *rec, struct tune_outcome *out)
{
	json_t *a, *s;
	size_t i;
	int j, ret;

	if ((ret = field(d, rec, "tune.recommendation", "settings", JSON_ARRAY, false, &a)))
		return ret;
	if (json_array_size(a) > TUNE_MAX_KNOBS)
		return diag__usage(d, "tune.recommendation.settings has more than %d entries",
				   TUNE_MAX_KNOBS);
	json_array_foreach(a, i, s) {
		struct tune_setting *t = &out->settings[out->nr_settings];
		char path[64];

		snprintf(path, sizeof(path), "tune.recommendation.settings[%zu]", i);
		if (!json_is_object(s))
			return diag__usage(d, "%s is %s, not an object", path,
					   result_load__type_name(s));
		if ((ret = string(d, s, path, "name", VALUE_CHARS, t->name, sizeof(t->name))) ||
		    (ret = string(d, s, path, "from", VALUE_CHARS, t->from, sizeof(t->from))) ||
		    (ret = string(d, s, path, "to", VALUE_CHARS, t->to, sizeof(t->to))))
			return ret;
		if (!queue_setting__is_sweepable(t->name))
			return diag__usage(d, "%s.name '%s' is no setting tune changes", path,
					   t->name);
		/* What reaches the rule: a number in the setting's range, a scheduler's name. */
		if (!queue_setting__valid(t->name, t->to))
			return diag__usage(d, "%s.to '%s' is no value of %s", path, t->to, t->name);
		for (j = 0; j < out->nr_settings; j++)
			if (!strcmp(out->settings[j].name, t->name))
				return diag__usage(d, "%s.name: %s is there twice", path, t->name);
		out->nr_settings++;
	}
	return 0;
}

/* The module lines are made here again: only the number comes from the file. */
static int read_module(struct diag *d, json_t *rec, struct tune_outcome *out)
{
	struct tune_module_param *m = &out->module;
	struct device dev = { 0 };
	json_t *a, *o, *v;
	int ret;

	if ((ret = field(d, rec, "tune.recommendation", "module_parameters", JSON_ARRAY, false,
			 &a)))
		return ret;
	if (!json_array_size(a))
		return 0;
	o = json_array_get(a, 0);
	if (json_array_size(a) > 1 || !json_is_object(o))
		return diag__usage(d, "tune.recommendation.module_parameters: one object at most");
	if ((ret = string(d, o, "tune.recommendation.module_parameters[0]", "module", NULL,
			  m->module, sizeof(m->module))) ||
	    (ret = string(d, o, "tune.recommendation.module_parameters[0]", "name", NULL, m->name,
			  sizeof(m->name))) ||
	    (ret = field(d, o, "tune.recommendation.module_parameters[0]", "value", JSON_INTEGER,
			 false, &v)))
		return ret;
	if (strcmp(m->module, "xen_blkfront") ||
	    (strcmp(m->name, "max_indirect_segments") && strcmp(m->name, "max")))
		return diag__usage(
			d,
			"tune.recommendation.module_parameters[0]: %s.%s is no parameter "
			"this tool recommends",
			m->module, m->name);
	if (json_integer_value(v) < XEN_DIRECT_SEGMENTS ||
	    json_integer_value(v) > XEN_BLKBACK_MAX_SEGMENTS)
		return diag__usage(
			d, "tune.recommendation.module_parameters[0].value %lld is not %d to %d",
			(long long)json_integer_value(v), XEN_DIRECT_SEGMENTS,
			XEN_BLKBACK_MAX_SEGMENTS);
	dev.xen.present = true;
	dev.xen.param_is_old_name = !strcmp(m->name, "max");
	dev.xen.max_indirect_segments = -1;
	v = json_object_get(o, "now");
	tune_outcome__xen_param(m, &dev, json_integer_value(json_object_get(o, "value")));
	m->now = json_is_integer(v) ? json_integer_value(v) : -1;
	out->has_module = true;
	return 0;
}

static double number(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int read_recommendation(struct diag *d, json_t *tune, struct tune_outcome *out)
{
	json_t *rec, *xen;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = field(d, tune, "tune", "recommendation", JSON_OBJECT, false, &rec)) ||
	    (ret = read_settings(d, rec, out)) || (ret = read_module(d, rec, out)))
		return ret;
	out->base_mbps = number(rec, "baseline_mb_per_s");
	out->final_mbps = number(rec, "mb_per_s");
	out->change = number(rec, "change");
	out->p = number(rec, "p");
	out->base_req_p50 = number(rec, "baseline_request_bytes_p50");
	out->final_req_p50 = number(rec, "request_bytes_p50");
	xen = json_object_get(rec, "xen");
	if (json_is_string(xen))
		snprintf(out->xen, sizeof(out->xen), "%s", json_string_value(xen));
	return 0;
}

/* The baseline: the runs of the workload with no setting of their own. */
static int read_baseline(struct diag *d, const struct loaded_result *lr, struct tune_plan *p)
{
	size_t i;

	for (i = 0; i < lr->nr_runs; i++) {
		const struct job_params *jp = &lr->runs[i].params;

		if (!jp->rw[0] || jp->set_knob[0])
			continue;
		if (!p->baseline_runs++) {
			p->params = *jp;
			snprintf(p->workload, sizeof(p->workload), "%s", lr->runs[i].label);
		}
	}
	return p->baseline_runs ? 0 : diag__usage(d, "no baseline runs (runs without a setting)");
}

/* The plan, every field checked; what is wrong without the file's name (the caller's). */
static int read_plan(const struct loaded_result *lr, struct tune_plan *p, struct diag *d)
{
	json_t *tune = json_object_get(lr->header, "tune"), *v;
	int ret;

	if (!tune)
		return diag__usage(d, "no \"tune\" object: not the result of blktrace-bench tune");
	if ((ret = field(d, tune, "tune", "version", JSON_INTEGER, false, &v)))
		return ret;
	if (json_integer_value(v) != TUNE_SCHEMA_VERSION)
		return diag__usage(d, "tune.version %lld: this blktrace-bench reads version %d",
				   (long long)json_integer_value(v), TUNE_SCHEMA_VERSION);
	v = json_object_get(lr->header, "tool_version");
	snprintf(p->tool_version, sizeof(p->tool_version), "%s",
		 json_is_string(v) ? json_string_value(v) : "?");
	v = json_object_get(json_object_get(tune, "repetitions"), "min");
	p->min_reps = json_is_integer(v) && json_integer_value(v) >= 2 &&
				      json_integer_value(v) <= TUNE_MAX_REPS
			      ? (unsigned int)json_integer_value(v)
			      : TUNE_MIN_REPS;
	if ((ret = read_disk(d, tune, p)) || (ret = read_workload(d, tune, &p->w)) ||
	    (ret = read_recommendation(d, tune, &p->out)))
		return ret;
	return read_baseline(d, lr, p);
}

int tune_plan__read(const struct loaded_result *lr, const char *name, struct tune_plan *p,
		    struct diag *d)
{
	int ret;

	memset(p, 0, sizeof(*p));
	snprintf(p->result, sizeof(p->result), "%s", name);
	ret = read_plan(lr, p, d);
	if (ret) {
		diag__prefix(d, "%s: ", name);
		text__one_line(d->msg); /* what a file's names and values hold, on one line */
	}
	return ret;
}

void tune_workload__from_spec(struct tune_workload *w, const struct workload_spec *o,
			      const char *cwd)
{
	memset(w, 0, sizeof(*w));
	w->target = o->raw ? TUNE_TARGET_RAW : o->file ? TUNE_TARGET_FILE : TUNE_TARGET_NEW_FILE;
	snprintf(w->path, sizeof(w->path), "%s", o->raw ? "" : o->file ? o->file : cwd);
	w->hugepages = o->hugepages;
	w->no_fixed_bufs = o->no_fixed_bufs;
	w->drop_caches = o->drop_caches;
	w->wrap = o->wrap;
	w->any_fs = o->any_fs;
}

void tune_plan__job_spec(const struct job_params *p, struct workload_spec *o)
{
	o->rw = p->rw;
	o->bs[0] = p->bs;
	o->nr_bs = 1;
	o->size = p->size;
	o->count = 0;
	o->runtime = p->runtime;
	o->engine = p->engine;
	o->iodepth = p->iodepth;
	o->direct = p->direct;
	o->sync = p->sync;
	o->fsync = p->fsync;
	o->fdatasync = p->fdatasync;
}

void tune_plan__spec(const struct tune_plan *plan, struct workload_spec *o)
{
	tune_plan__job_spec(&plan->params, o);
	o->repeat = plan->min_reps;
	o->raw = plan->w.target == TUNE_TARGET_RAW;
	o->file = plan->w.target == TUNE_TARGET_FILE ? plan->w.path : NULL;
	o->hugepages = plan->w.hugepages;
	o->no_fixed_bufs = plan->w.no_fixed_bufs;
	o->drop_caches = plan->w.drop_caches;
	o->wrap = plan->w.wrap;
	o->any_fs = plan->w.any_fs;
}
