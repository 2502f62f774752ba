// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The "tune" object of a tune's result; see tune_json.h. It only prints. */
#include <math.h>
#include "base/text.h"
#include "tune/tune_json.h"

static const char *const targets[] = {
	[TUNE_TARGET_NEW_FILE] = "new_file",
	[TUNE_TARGET_FILE] = "file",
	[TUNE_TARGET_RAW] = "raw",
};

static json_t *num_or_null(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? text__json(s) : json_null();
}

static json_t *disk_json(const struct device *d, const struct disk_id *id, const char *note)
{
	json_t *match = id ? json_pack("{s:s, s:o, s:s}", "key", id->key, "value",
				       text__json(id->value), "what", id->what)
			   : json_null();

	return json_pack("{s:o, s:i, s:i, s:o, s:o}", "name", text__json(d->name), "major",
			 (int)d->major, "minor", (int)d->minor, "match", match, "match_note",
			 str_or_null(id ? NULL : note));
}

static json_t *workload_json(const struct tune_workload *w)
{
	return json_pack("{s:s, s:o, s:b, s:b, s:b, s:b, s:b}", "target", targets[w->target],
			 "path", str_or_null(w->path), "hugepages", w->hugepages, "no_fixed_bufs",
			 w->no_fixed_bufs, "drop_caches", w->drop_caches, "wrap", w->wrap, "any_fs",
			 w->any_fs);
}

static json_t *knobs_json(const struct tune *t)
{
	json_t *a = json_array();
	int k, v;

	for (k = 0; a && k < t->nr_knobs; k++) {
		const struct tune_knob *kb = &t->knobs[k];
		json_t *values = json_array();

		for (v = 0; values && v < kb->nr_values; v++)
			json_array_append_new(values, text__json(kb->values[v]));
		json_array_append_new(
			a,
			json_pack("{s:s, s:o, s:o, s:o, s:b, s:o, s:o}", "name", kb->name,
				  "original", str_or_null(kb->original), "values", values,
				  "not_tuned", str_or_null(kb->skipped), "measured", kb->measured,
				  "recommended",
				  kb->recommended > 0 ? text__json(t->points[kb->recommended].value)
						      : json_null(),
				  "reason", str_or_null(kb->reason)));
	}
	return a;
}

static json_t *point_json(const struct tune *t, const struct tune_point *p, double req_p50)
{
	json_t *runs = json_array(), *vs = json_null();
	unsigned int i;
	const char *knob = p->knob >= 0			 ? t->knobs[p->knob].name
			   : p->knob == TUNE_COMBINATION ? TUNE_COMBINATION_LABEL
							 : NULL;

	for (i = 0; runs && i < p->n; i++)
		json_array_append_new(runs, json_integer((json_int_t)p->run[i]));
	if (p->base >= 0 && p->vs_baseline.verdict != VERDICT_UNKNOWN)
		vs = json_pack("{s:o, s:o, s:s}", "change", num_or_null(p->vs_baseline.change), "p",
			       num_or_null(p->vs_baseline.p), "verdict",
			       compare__verdict_name(p->vs_baseline.verdict));
	return json_pack("{s:o, s:o, s:o, s:o, s:{s:I, s:f, s:f, s:f, s:f, s:f}, s:o, s:o}", "knob",
			 str_or_null(knob), "value", str_or_null(p->value), "baseline",
			 p->base >= 0 ? json_integer(p->base) : json_null(), "runs", runs,
			 "mb_per_s", "n", (json_int_t)p->agg.n, "mean", p->agg.mean, "stddev",
			 p->agg.stddev, "min", p->agg.min, "max", p->agg.max, "ci95", p->agg.ci95,
			 "vs_baseline", vs, "request_bytes_p50", num_or_null(req_p50));
}

static json_t *recommendation_json(const struct tune_outcome *o)
{
	json_t *settings = json_array(), *modules = json_array();
	int i;

	for (i = 0; settings && i < o->nr_settings; i++)
		json_array_append_new(settings,
				      json_pack("{s:s, s:o, s:o}", "name", o->settings[i].name,
						"from", text__json(o->settings[i].from), "to",
						text__json(o->settings[i].to)));
	if (modules && o->has_module)
		json_array_append_new(
			modules,
			json_pack("{s:s, s:s, s:I, s:o, s:s, s:s}", "module", o->module.module,
				  "name", o->module.name, "value", (json_int_t)o->module.value,
				  "now",
				  o->module.now < 0 ? json_null() : json_integer(o->module.now),
				  "boot_parameter", o->module.boot_parameter, "modprobe",
				  o->module.modprobe));
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "settings", settings,
			 "baseline_mb_per_s", num_or_null(o->base_mbps), "mb_per_s",
			 num_or_null(o->final_mbps), "change", num_or_null(o->change), "p",
			 num_or_null(o->p), "baseline_request_bytes_p50",
			 num_or_null(o->base_req_p50), "request_bytes_p50",
			 num_or_null(o->final_req_p50), "module_parameters", modules, "xen",
			 str_or_null(o->xen));
}

json_t *tune_json__object(const struct tune *t, const struct tune_outcome *out,
			  const struct tune_workload *w, const struct device *d,
			  const struct disk_id *id, const char *id_note)
{
	static const char *const stops[] = { NULL, "budget", "interrupted" };
	json_t *o, *points = json_array();
	int i;

	for (i = 0; points && i < t->nr_points; i++)
		json_array_append_new(points, point_json(t, &t->points[i], out->point_req_p50[i]));
	o = json_pack("{s:i, s:o, s:o, s:{s:i, s:i}, s:f, s:f, s:i, s:o, s:o}", "version",
		      TUNE_SCHEMA_VERSION, "disk", disk_json(d, id, id_note), "workload",
		      workload_json(w), "repetitions", "min", (int)t->min_reps, "max",
		      (int)t->max_reps, "budget_seconds", t->budget_s, "elapsed_seconds",
		      t->elapsed_s, "runs", (int)t->nr_runs, "stopped", str_or_null(stops[t->stop]),
		      "note", str_or_null(t->note));
	if (!o) {
		json_decref(points);
		return NULL;
	}
	json_object_set_new(o, "knobs", knobs_json(t));
	json_object_set_new(o, "points", points);
	json_object_set_new(o, "combination",
			    t->combination >= 0 ? json_integer(t->combination) : json_null());
	json_object_set_new(o, "final", json_integer(t->final));
	json_object_set_new(o, "warm_up_run",
			    t->warm_up_run >= 0 ? json_integer(t->warm_up_run) : json_null());
	json_object_set_new(o, "recommendation", recommendation_json(out));
	return o;
}
